/*
 * rw_codec.h -- PostgreSQL v3 frontend/backend messages encoded into and
 * decoded from byte buffers. No I/O, no global state.
 *
 * Encoding: struct rw_buf is a growable byte buffer owned by whoever holds
 * it (rw_buf_free releases it). Encoders append one whole message. An
 * allocation failure sets buf->failed and turns later appends into no-ops,
 * so a caller encodes a sequence of messages and checks `failed` once.
 *
 * Decoding: a backend message is a type byte, a big-endian int32 length that
 * counts itself but not the type, then length - 4 body bytes. Decoders take
 * the body (`b`, `n` bytes) and never read outside it; they return 0, or -1
 * when the body is malformed. Pointers they hand out point into the body
 * and live as long as it does.
 */
#ifndef RW_CODEC_H
#define RW_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* Protocol 3.0 and the CancelRequest-style codes. */
#define RW_PROTOCOL_3_0 196608u

/* The largest message length accepted from a server (the length field, so
 * the body is at most this minus 4). PostgreSQL never sends a message of
 * 1 GiB or more (its MaxAllocSize): anything longer is garbage. */
#define RW_MAX_MSG_LEN 0x3fffffffu
/* Per-message-type limits on the length field, as libpq 15 has them
 * (fe-connect.c PQconnectPoll, fe-protocol3.c pqParseInput3), checked on the
 * 5-byte header before anything is allocated for the body:
 *
 *  - before AuthenticationOk (RW_PHASE_AUTH): 'R' (authentication request)
 *    8 .. RW_MAX_AUTH_LEN; 'E' 8 .. RW_MAX_SHORT_LEN (libpq takes a longer
 *    one for a pre-3.0 server's error and fails); every other type (rawwire
 *    also takes 'v' NegotiateProtocolVersion and 'N') 4 .. RW_MAX_SHORT_LEN;
 *  - after it (RW_PHASE_READY: the rest of startup, prepare, batches): the
 *    VALID_LONG_MESSAGE_TYPE types 'T' 'D' 'd' 'V' 'E' 'N' 'A' up to
 *    RW_MAX_MSG_LEN, every other type at most RW_MAX_SHORT_LEN.
 *
 * During a batch the check is made where a length would make the read
 * buffer grow (rw_io.c rw_rbuf_reserve: a message larger than the
 * RW_RBUF_INITIAL bytes already there), so the timed reply parser is
 * unchanged; a shorter message that fits in the buffer is used as it is. */
#define RW_MAX_AUTH_LEN 2000u
#define RW_MAX_SHORT_LEN 30000u
enum { RW_PHASE_AUTH = 0, RW_PHASE_READY = 1 };
/* True if a message of `type` may have the length field `len` in `phase`. */
int rw_msg_len_ok(char type, uint32_t len, int phase);
/* libpq's VALID_LONG_MESSAGE_TYPE. */
#define RW_LONG_MSG_TYPE(t)                                                                       \
    ((t) == 'T' || (t) == 'D' || (t) == 'd' || (t) == 'V' || (t) == 'E' || (t) == 'N' || (t) == 'A')

/* Bytes of a Sync message. */
#define RW_SYNC_LEN 5

/* ---- encoding ----------------------------------------------------------- */

struct rw_buf {
    char *data;
    size_t len, cap;
    int failed; /* an allocation failed; the content is incomplete */
};

void rw_buf_init(struct rw_buf *b);
void rw_buf_free(struct rw_buf *b);
/* Make room for `extra` more bytes; -1 (and failed set) on failure. */
int rw_buf_reserve(struct rw_buf *b, size_t extra);
void rw_buf_put(struct rw_buf *b, const void *p, size_t n);
void rw_buf_u8(struct rw_buf *b, unsigned v);
void rw_buf_u16(struct rw_buf *b, unsigned v);
void rw_buf_u32(struct rw_buf *b, uint32_t v);
/* The string and its NUL. */
void rw_buf_str(struct rw_buf *b, const char *s);
/* Start a message of `type` (0: no type byte, as in StartupMessage):
 * returns the offset of its length field for rw_msg_end. */
size_t rw_msg_begin(struct rw_buf *b, char type);
/* Patch the length of the message whose length field is at `at`. */
void rw_msg_end(struct rw_buf *b, size_t at);

/* StartupMessage: protocol 3.0, then the key/value pairs of `kv` (a
 * NULL-terminated array of key, value, key, value ...; pairs whose value is
 * NULL are left out), then the terminating NUL. */
void rw_enc_startup(struct rw_buf *b, const char *const *kv);
/* PasswordMessage 'p': the password and a NUL (cleartext or md5 hash). */
void rw_enc_password(struct rw_buf *b, const char *pw);
/* SASLInitialResponse 'p': mechanism, NUL, int32 length, data. */
void rw_enc_sasl_initial(struct rw_buf *b, const char *mech, const char *data, size_t n);
/* SASLResponse 'p': the data alone. */
void rw_enc_sasl_response(struct rw_buf *b, const char *data, size_t n);
/* Parse 'P': statement `name`, `sql`, no parameter types. */
void rw_enc_parse(struct rw_buf *b, const char *name, const char *sql);
/* Describe 'D' of a statement ('S'). */
void rw_enc_describe_stmt(struct rw_buf *b, const char *name);
/* Describe of the unnamed portal (what libpq sends with every execution). */
void rw_enc_describe_portal(struct rw_buf *b);
/* Close 'C' of a statement ('S'). */
void rw_enc_close_stmt(struct rw_buf *b, const char *name);
/* The most parameter values a Bind can carry (an int16 count). */
#define RW_MAX_PARAMS 65535u

/* Bind 'B': unnamed portal, statement `name`, `nparams` parameter values in
 * text format (no format codes: all text), value j `lengths[j]` bytes of
 * `values[j]` (not NUL-terminated), or SQL NULL (length -1 on the wire)
 * when values[j] is NULL; then the result format codes `fmts[0..nfmts)` (0
 * text, 1 binary; nfmts 0 = all text, 1 = one code for every column). The
 * caller checks nparams <= RW_MAX_PARAMS and that every non-NULL value's
 * length is >= 0; values and lengths may be NULL when nparams is 0. */
void rw_enc_bind(struct rw_buf *b, const char *name, uint32_t nparams, const char *const *values,
                 const int *lengths, const int16_t *fmts, size_t nfmts);
/* Execute 'E': unnamed portal, no row limit. */
void rw_enc_execute(struct rw_buf *b);
/* Sync 'S'. */
void rw_enc_sync(struct rw_buf *b);
/* Terminate 'X'. */
void rw_enc_terminate(struct rw_buf *b);
/* Query 'Q' (the simple query protocol): `sql` and its NUL. */
void rw_enc_query(struct rw_buf *b, const char *sql);
/* CopyData 'd': n bytes of p. */
void rw_enc_copy_data(struct rw_buf *b, const char *p, size_t n);
/* CopyDone 'c'. */
void rw_enc_copy_done(struct rw_buf *b);

/* ---- decoding ----------------------------------------------------------- */

static inline uint32_t rw_be32(const void *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static inline uint16_t rw_be16(const void *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint16_t)(u[0] << 8 | u[1]);
}

/* The header of the message at p (avail bytes): RW_HDR_MORE if fewer than
 * 5 bytes; else *type and *len (the length field: the body is len - 4
 * bytes at p + 5, the whole message len + 1) are set and it returns
 * RW_HDR_BAD if the length is < 4 or > RW_MAX_MSG_LEN, else RW_HDR_OK.
 * Every reader of backend messages frames them with it (rw_io_read_msg and
 * the reply parsers of rawwire and floor); inline, since the parsers call it
 * once per DataRow in the timed loop. */
enum { RW_HDR_OK = 0, RW_HDR_MORE = 1, RW_HDR_BAD = -1 };
static inline int rw_dec_header(const char *p, size_t avail, char *type, uint32_t *len)
{
    if (avail < 5)
        return RW_HDR_MORE;
    *type = p[0];
    *len = rw_be32(p + 1);
    return *len < 4 || *len > RW_MAX_MSG_LEN ? RW_HDR_BAD : RW_HDR_OK;
}

/* ErrorResponse / NoticeResponse fields; any may be NULL when absent.
 * `severity` is the non-localized V field when present, else S. */
struct rw_pgerr {
    const char *severity, *code, *message, *detail, *hint;
};
int rw_dec_error(const char *b, size_t n, struct rw_pgerr *e);
/* "SQLSTATE: message" (or "severity: message" without a code, or a fixed
 * text without either) into err, one line. */
void rw_pgerr_format(const struct rw_pgerr *e, char *err, size_t errlen);
/* True for FATAL and PANIC: the server closes the connection after it. */
int rw_pgerr_is_fatal(const struct rw_pgerr *e);

/* Authentication request 'R': *code (0 Ok, 3 cleartext, 5 MD5, 10 SASL, 11
 * SASLContinue, 12 SASLFinal, others), *data and *dlen the rest of the body. */
int rw_dec_auth(const char *b, size_t n, uint32_t *code, const char **data, size_t *dlen);
/* The SASL mechanism list of an AuthenticationSASL: true if it names
 * `mech`. -1 if the list is malformed. */
int rw_dec_sasl_has(const char *data, size_t dlen, const char *mech);
/* BackendKeyData 'K'. */
int rw_dec_backend_key(const char *b, size_t n, uint32_t *pid, uint32_t *key);
/* ReadyForQuery 'Z': the transaction status byte. */
int rw_dec_ready(const char *b, size_t n, char *status);
/* ParameterDescription 't': the number of parameters. */
int rw_dec_paramdesc(const char *b, size_t n, unsigned *nparams);
/* RowDescription 'T': *ncols; the first min(ncols, cap) type OIDs into
 * oids (oids may be NULL when cap is 0). The whole body is validated. */
int rw_dec_rowdesc(const char *b, size_t n, unsigned *ncols, uint32_t *oids, size_t cap);

#endif /* RW_CODEC_H */
