/*
 * rw_scram.h -- the client side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as
 * PostgreSQL uses it (no channel binding: gs2 header "n,,"), and the MD5
 * password hash. Pure computation on buffers; hashing, HMAC, PBKDF2, base64
 * and randomness come from libcrypto.
 *
 * Ownership: struct rw_scram owns the strings it keeps; rw_scram_free wipes
 * and frees them. Secrets (salted password, keys) live only on the stack of
 * rw_scram_client_final and are wiped before it returns.
 */
#ifndef RW_SCRAM_H
#define RW_SCRAM_H

#include <stddef.h>

struct rw_scram {
    char *client_first;       /* "n,,n=USER,r=NONCE" */
    char *client_first_bare;  /* points into client_first, after "n,," */
    char *client_nonce;       /* owned */
    unsigned char server_signature[32];
    int have_signature;
};

/* Start an exchange for `user` (PostgreSQL sends "" and ignores it). The
 * client nonce is `nonce` if non-NULL (tests), else 18 bytes from
 * RAND_bytes, base64-encoded. 0, or -1 with err set. */
int rw_scram_init(struct rw_scram *s, const char *user, const char *nonce, char *err, size_t errlen);

/* From the server-first-message (data, n bytes: "r=...,s=...,i=..."),
 * compute the client-final-message into a malloc'd *out (*outlen bytes,
 * NUL-terminated too) and remember the expected server signature.
 * `password` is SASLprep'ed first (rw_saslprep). 0, or -1 with err set. */
int rw_scram_client_final(struct rw_scram *s, const char *password, const char *data, size_t n,
                          char **out, size_t *outlen, char *err, size_t errlen);

/* Check the server-final-message ("v=BASE64" or "e=ERROR"). 0 if the
 * server proved it knows the password, -1 with err set otherwise. */
int rw_scram_verify_final(const struct rw_scram *s, const char *data, size_t n, char *err,
                          size_t errlen);

void rw_scram_free(struct rw_scram *s);

/* SASLprep (RFC 4013) as far as rawwire implements it: an ASCII password is
 * used as it is (SASLprep leaves printable ASCII unchanged and prohibits
 * control characters, after which libpq also uses the raw password); so is
 * a password that is not valid UTF-8 (libpq does the same). A non-ASCII
 * UTF-8 password would need Unicode normalization (NFKC), which rawwire
 * does not implement: -1 with err set. On success *out points at password. */
int rw_saslprep(const char *password, const char **out, char *err, size_t errlen);

/* "md5" + hex(md5(hex(md5(password + user)) + salt)) into out (36 bytes with
 * the NUL). 0, or -1 (libcrypto failure). */
int rw_md5_password(const char *user, const char *password, const unsigned char salt[4],
                    char out[36]);

#endif /* RW_SCRAM_H */
