/*
 * rw_codec.c -- see rw_codec.h.
 */
#include "rw_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rw_err.h"

/* ---- rw_buf ------------------------------------------------------------- */

void rw_buf_init(struct rw_buf *b)
{
    memset(b, 0, sizeof *b);
}

void rw_buf_free(struct rw_buf *b)
{
    free(b->data);
    rw_buf_init(b);
}

int rw_buf_reserve(struct rw_buf *b, size_t extra)
{
    size_t cap;
    char *p;

    if (b->failed)
        return -1;
    if (extra <= b->cap - b->len)
        return 0;
    if (extra > SIZE_MAX / 2 - b->len) {
        b->failed = 1;
        return -1;
    }
    cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra)
        cap *= 2;
    p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void rw_buf_put(struct rw_buf *b, const void *p, size_t n)
{
    if (n == 0 || rw_buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void rw_buf_u8(struct rw_buf *b, unsigned v)
{
    unsigned char c = (unsigned char)v;
    rw_buf_put(b, &c, 1);
}

void rw_buf_u16(struct rw_buf *b, unsigned v)
{
    unsigned char c[2] = {(unsigned char)(v >> 8), (unsigned char)v};
    rw_buf_put(b, c, 2);
}

void rw_buf_u32(struct rw_buf *b, uint32_t v)
{
    unsigned char c[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    rw_buf_put(b, c, 4);
}

void rw_buf_str(struct rw_buf *b, const char *s)
{
    rw_buf_put(b, s, strlen(s) + 1);
}

size_t rw_msg_begin(struct rw_buf *b, char type)
{
    size_t at;

    if (type)
        rw_buf_u8(b, (unsigned char)type);
    at = b->len;
    rw_buf_u32(b, 0);
    return at;
}

void rw_msg_end(struct rw_buf *b, size_t at)
{
    uint32_t n;

    if (b->failed)
        return;
    n = (uint32_t)(b->len - at);
    b->data[at] = (char)(n >> 24);
    b->data[at + 1] = (char)(n >> 16);
    b->data[at + 2] = (char)(n >> 8);
    b->data[at + 3] = (char)n;
}

/* ---- frontend messages -------------------------------------------------- */

void rw_enc_startup(struct rw_buf *b, const char *const *kv)
{
    size_t at = rw_msg_begin(b, 0);

    rw_buf_u32(b, RW_PROTOCOL_3_0);
    for (; kv[0]; kv += 2) {
        if (!kv[1])
            continue;
        rw_buf_str(b, kv[0]);
        rw_buf_str(b, kv[1]);
    }
    rw_buf_u8(b, 0);
    rw_msg_end(b, at);
}

void rw_enc_password(struct rw_buf *b, const char *pw)
{
    size_t at = rw_msg_begin(b, 'p');
    rw_buf_str(b, pw);
    rw_msg_end(b, at);
}

void rw_enc_sasl_initial(struct rw_buf *b, const char *mech, const char *data, size_t n)
{
    size_t at = rw_msg_begin(b, 'p');
    rw_buf_str(b, mech);
    rw_buf_u32(b, (uint32_t)n);
    rw_buf_put(b, data, n);
    rw_msg_end(b, at);
}

void rw_enc_sasl_response(struct rw_buf *b, const char *data, size_t n)
{
    size_t at = rw_msg_begin(b, 'p');
    rw_buf_put(b, data, n);
    rw_msg_end(b, at);
}

void rw_enc_parse(struct rw_buf *b, const char *name, const char *sql)
{
    size_t at = rw_msg_begin(b, 'P');
    rw_buf_str(b, name);
    rw_buf_str(b, sql);
    rw_buf_u16(b, 0);
    rw_msg_end(b, at);
}

void rw_enc_describe_stmt(struct rw_buf *b, const char *name)
{
    size_t at = rw_msg_begin(b, 'D');
    rw_buf_u8(b, 'S');
    rw_buf_str(b, name);
    rw_msg_end(b, at);
}

void rw_enc_describe_portal(struct rw_buf *b)
{
    size_t at = rw_msg_begin(b, 'D');
    rw_buf_u8(b, 'P');
    rw_buf_u8(b, 0);        /* the unnamed portal */
    rw_msg_end(b, at);
}

void rw_enc_close_stmt(struct rw_buf *b, const char *name)
{
    size_t at = rw_msg_begin(b, 'C');
    rw_buf_u8(b, 'S');
    rw_buf_str(b, name);
    rw_msg_end(b, at);
}

void rw_enc_bind(struct rw_buf *b, const char *name, uint32_t nparams, const char *const *values,
                 const int *lengths, const int16_t *fmts, size_t nfmts)
{
    size_t at = rw_msg_begin(b, 'B');
    rw_buf_u8(b, 0);        /* unnamed portal */
    rw_buf_str(b, name);
    rw_buf_u16(b, 0);       /* no parameter format codes: all text */
    rw_buf_u16(b, nparams);
    for (uint32_t j = 0; j < nparams; j++) {
        if (!values[j]) {
            rw_buf_u32(b, UINT32_MAX); /* -1: NULL */
            continue;
        }
        rw_buf_u32(b, (uint32_t)lengths[j]);
        rw_buf_put(b, values[j], (size_t)lengths[j]);
    }
    rw_buf_u16(b, (unsigned)nfmts);
    for (size_t i = 0; i < nfmts; i++)
        rw_buf_u16(b, (unsigned)(uint16_t)fmts[i]);
    rw_msg_end(b, at);
}

void rw_enc_execute(struct rw_buf *b)
{
    size_t at = rw_msg_begin(b, 'E');
    rw_buf_u8(b, 0);        /* unnamed portal */
    rw_buf_u32(b, 0);       /* no row limit */
    rw_msg_end(b, at);
}

void rw_enc_sync(struct rw_buf *b)
{
    size_t at = rw_msg_begin(b, 'S');
    rw_msg_end(b, at);
}

void rw_enc_terminate(struct rw_buf *b)
{
    size_t at = rw_msg_begin(b, 'X');
    rw_msg_end(b, at);
}

void rw_enc_query(struct rw_buf *b, const char *sql)
{
    size_t at = rw_msg_begin(b, 'Q');
    rw_buf_str(b, sql);
    rw_msg_end(b, at);
}

void rw_enc_copy_data(struct rw_buf *b, const char *p, size_t n)
{
    size_t at = rw_msg_begin(b, 'd');
    rw_buf_put(b, p, n);
    rw_msg_end(b, at);
}

void rw_enc_copy_done(struct rw_buf *b)
{
    size_t at = rw_msg_begin(b, 'c');
    rw_msg_end(b, at);
}

/* ---- backend messages --------------------------------------------------- */

int rw_msg_len_ok(char type, uint32_t len, int phase)
{
    if (len < 4 || len > RW_MAX_MSG_LEN)
        return 0;
    if (phase == RW_PHASE_AUTH) {
        if (type == 'R')
            return len >= 8 && len <= RW_MAX_AUTH_LEN;
        if (type == 'E')
            return len >= 8 && len <= RW_MAX_SHORT_LEN;
        return len <= RW_MAX_SHORT_LEN;
    }
    return RW_LONG_MSG_TYPE(type) || len <= RW_MAX_SHORT_LEN;
}

/* The NUL-terminated string at b[*i] within n bytes; advances *i past the
 * NUL. NULL if there is no NUL before the end. */
static const char *rw_dec_cstr(const char *b, size_t n, size_t *i)
{
    const char *s = b + *i;
    const char *nul = *i < n ? memchr(s, '\0', n - *i) : NULL;

    if (!nul)
        return NULL;
    *i = (size_t)(nul - b) + 1;
    return s;
}

int rw_dec_error(const char *b, size_t n, struct rw_pgerr *e)
{
    size_t i = 0;
    const char *sev_s = NULL, *sev_v = NULL;

    memset(e, 0, sizeof *e);
    for (;;) {
        char f;
        const char *v;

        if (i >= n)
            return -1; /* no terminating zero byte */
        f = b[i++];
        if (f == '\0')
            break;
        if (!(v = rw_dec_cstr(b, n, &i)))
            return -1;
        switch (f) {
        case 'S': sev_s = v; break;
        case 'V': sev_v = v; break;
        case 'C': e->code = v; break;
        case 'M': e->message = v; break;
        case 'D': e->detail = v; break;
        case 'H': e->hint = v; break;
        default: break; /* position, context, file ...: not shown */
        }
    }
    e->severity = sev_v ? sev_v : sev_s;
    return 0;
}

void rw_pgerr_format(const struct rw_pgerr *e, char *err, size_t errlen)
{
    const char *msg = e->message && *e->message ? e->message : "(no message)";

    if (e->code && *e->code)
        rw_errf(err, errlen, "%s: %s", e->code, msg);
    else if (e->severity && *e->severity)
        rw_errf(err, errlen, "%s: %s", e->severity, msg);
    else
        rw_errf(err, errlen, "server error: %s", msg);
}

int rw_pgerr_is_fatal(const struct rw_pgerr *e)
{
    return e->severity && (strcmp(e->severity, "FATAL") == 0 || strcmp(e->severity, "PANIC") == 0);
}

int rw_dec_auth(const char *b, size_t n, uint32_t *code, const char **data, size_t *dlen)
{
    if (n < 4)
        return -1;
    *code = rw_be32(b);
    *data = b + 4;
    *dlen = n - 4;
    return 0;
}

int rw_dec_sasl_has(const char *data, size_t dlen, const char *mech)
{
    size_t i = 0;
    int found = 0;

    for (;;) {
        const char *m = rw_dec_cstr(data, dlen, &i);
        if (!m)
            return -1;
        if (!*m)
            break; /* the list ends with an empty string */
        if (strcmp(m, mech) == 0)
            found = 1;
    }
    return i == dlen ? found : -1;
}

int rw_dec_backend_key(const char *b, size_t n, uint32_t *pid, uint32_t *key)
{
    if (n != 8)
        return -1;
    *pid = rw_be32(b);
    *key = rw_be32(b + 4);
    return 0;
}

int rw_dec_ready(const char *b, size_t n, char *status)
{
    if (n != 1 || (b[0] != 'I' && b[0] != 'T' && b[0] != 'E'))
        return -1;
    *status = b[0];
    return 0;
}

int rw_dec_paramdesc(const char *b, size_t n, unsigned *nparams)
{
    unsigned np;

    if (n < 2)
        return -1;
    np = rw_be16(b);
    if (n != 2 + (size_t)np * 4)
        return -1;
    *nparams = np;
    return 0;
}

int rw_dec_rowdesc(const char *b, size_t n, unsigned *ncols, uint32_t *oids, size_t cap)
{
    size_t i = 2;
    unsigned nc;

    if (n < 2)
        return -1;
    nc = rw_be16(b);
    for (unsigned c = 0; c < nc; c++) {
        if (!rw_dec_cstr(b, n, &i))
            return -1; /* field name */
        /* table oid 4, attnum 2, type oid 4, typlen 2, typmod 4, format 2 */
        if (n - i < 18)
            return -1;
        if (c < cap)
            oids[c] = rw_be32(b + i + 6);
        i += 18;
    }
    if (i != n)
        return -1;
    *ncols = nc;
    return 0;
}
