/*
 * rw_scram.h -- the client side of SCRAM-SHA-256 and SCRAM-SHA-256-PLUS
 * (RFC 5802, RFC 7677; channel binding "tls-server-end-point", RFC 5929) as
 * PostgreSQL uses them, and the MD5 password hash. Pure computation on buffers; hashing, HMAC, PBKDF2, base64
 * and randomness come from libcrypto.
 *
 * Ownership: struct rw_scram owns the strings it keeps; rw_scram_free wipes
 * and frees them. Secrets (salted password, keys) live only on the stack of
 * rw_scram_client_final and are wiped before it returns.
 */
#ifndef RW_SCRAM_H
#define RW_SCRAM_H

#include <stddef.h>

/* The channel binding of an exchange: its gs2 header (RFC 5802 section 7)
 * and, for 'p', the binding data. */
struct rw_scram_cb {
    char flag;                  /* 'n': the client does not bind (no TLS, or disabled);
                                   'y': it could, but the server did not offer -PLUS;
                                   'p': tls-server-end-point (SCRAM-SHA-256-PLUS) */
    const unsigned char *data;  /* with 'p': the server certificate's hash (rw_tls.h) */
    size_t len;
};

struct rw_scram {
    char *client_first;       /* GS2 header + "n=USER,r=NONCE" */
    char *client_first_bare;  /* points into client_first, after the GS2 header */
    char *cbind;              /* base64(GS2 header + binding data): client-final's c= */
    char *client_nonce;       /* owned */
    unsigned char server_signature[32];
    int have_signature;
};

/* Start an exchange for `user` (PostgreSQL sends "" and ignores it) with
 * channel binding `cb` (NULL: 'n'; the data is copied). The client nonce is
 * `nonce` if non-NULL (tests), else 18 bytes from RAND_bytes,
 * base64-encoded. 0, or -1 with err set. */
int rw_scram_init(struct rw_scram *s, const char *user, const char *nonce,
                  const struct rw_scram_cb *cb, char *err, size_t errlen);

/* The most PBKDF2 iterations rawwire accepts from a server: about 2.5 s of
 * CPU on a 2020s x86 core (PostgreSQL's default is 4096). libpq 15 has no
 * cap; a server asking for more is either misconfigured or hostile. */
#define RW_SCRAM_MAX_ITERATIONS 10000000L
/* Above this many iterations, the cost is estimated (a timed PBKDF2 of
 * RW_SCRAM_PROBE_ITERATIONS) before deriving, when there is a deadline. */
#define RW_SCRAM_PROBE_ABOVE 100000L
#define RW_SCRAM_PROBE_ITERATIONS 10000

/* From the server-first-message (data, n bytes: "r=...,s=...,i=..."),
 * compute the client-final-message into a malloc'd *out (*outlen bytes,
 * NUL-terminated too) and remember the expected server signature.
 * `password` is SASLprep'ed first (rw_saslprep). `ns_left`: nanoseconds
 * left before the connection's deadline (< 0: no deadline); an iteration
 * count whose estimated cost exceeds it is refused before deriving, as is
 * one outside 1 .. RW_SCRAM_MAX_ITERATIONS. 0, or -1 with err set. */
int rw_scram_client_final(struct rw_scram *s, const char *password, const char *data, size_t n,
                          long long ns_left, char **out, size_t *outlen, char *err, size_t errlen);

/* Check the server-final-message ("v=BASE64" or "e=ERROR"). 0 if the
 * server proved it knows the password, -1 with err set otherwise. */
int rw_scram_verify_final(const struct rw_scram *s, const char *data, size_t n, char *err,
                          size_t errlen);

void rw_scram_free(struct rw_scram *s);

/* SASLprep (RFC 4013) as libpq's pg_saslprep applies it: an ASCII password
 * is used as it is; otherwise the password is prepared with libidn's
 * stringprep "SASLprep" profile (unassigned code points allowed, as for a
 * query); when that fails (not valid UTF-8, a prohibited character, a bidi
 * violation, an empty result) the raw password is used, as libpq does.
 * libidn's tables are Unicode 3.2 (RFC 3454); libpq's are newer, which only
 * matters for code points assigned since. *out is a malloc'd copy (wipe and
 * free it). 0, or -1 (out of memory) with err set. */
int rw_saslprep(const char *password, char **out, char *err, size_t errlen);

/* "md5" + hex(md5(hex(md5(password + user)) + salt)) into out (36 bytes with
 * the NUL). 0, or -1 (libcrypto failure). */
int rw_md5_password(const char *user, const char *password, const unsigned char salt[4],
                    char out[36]);

#endif /* RW_SCRAM_H */
