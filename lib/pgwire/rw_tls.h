/*
 * rw_tls.h -- TLS for a rawwire connection, with OpenSSL's libssl, as
 * libpq 15 does it (fe-secure-openssl.c, fe-secure-common.c):
 *
 *   - SSLRequest, then one byte from the server, read alone so that nothing
 *     the server (or a man in the middle) sends after it is taken as clear
 *     text (libpq's "received unencrypted data after SSL response").
 *   - A new SSL_CTX per connection: TLS_method, ssl_min_protocol_version
 *     (default TLSv1.2) and ssl_max_protocol_version, no compression, no
 *     renegotiation.
 *   - The root certificate: sslrootcert, else ~/.postgresql/root.crt ($HOME,
 *     else the passwd entry's home). When the file exists the server's chain
 *     is verified in every sslmode (require included, as in libpq); when it
 *     does not, verify-ca and verify-full fail. CRLs: sslcrl / sslcrldir,
 *     else ~/.postgresql/root.crl, when they exist.
 *   - The client certificate: sslcert, else ~/.postgresql/postgresql.crt,
 *     when it exists; then its key (sslkey, else ~/.postgresql/postgresql.key)
 *     must exist, be a regular file, and have no group or world access
 *     (0600 or less when owned by the current user, 0640 or less when owned
 *     by root), else the connection is refused as libpq refuses it. An
 *     encrypted key is decrypted with sslpassword (never prompted for).
 *   - SNI (sslsni=1, the default) with the target's host name unless it is
 *     a numeric address. verify-full: the host name must match a subject
 *     alternative name of the host's type (DNS name or IP address), or the
 *     common name when there is none of that type; a wildcard only as the
 *     whole leftmost label.
 *
 * Reads and writes go through SSL_read / SSL_write on a non-blocking socket:
 * the caller's batch is one SSL_write (OpenSSL cuts it into records of up
 * to 16 kB), and a read takes every record already available. Unix-domain
 * sockets never use TLS (libpq sends no SSLRequest over them).
 *
 * Errors: one line into err (PGCB_ERR_CONNECT while connecting, PGCB_ERR_IO
 * later), never a password.
 */
#ifndef RW_TLS_H
#define RW_TLS_H

#include <stddef.h>

#include "rw_conn.h"
#include "rw_conninfo.h"

/* What the server answered to SSLRequest. */
enum rw_tls_answer {
    RW_TLS_YES = 'S',   /* go on with the TLS handshake */
    RW_TLS_NO = 'N'     /* go on in clear text, if the mode allows it */
};

/* Send SSLRequest on c's connected socket and read the one-byte answer into
 * *answer (RW_TLS_YES or RW_TLS_NO). An ErrorResponse instead (a server that
 * fails before TLS) or any other byte is PGCB_ERR_CONNECT with err set. */
int rw_tls_request(struct pgcb_conn *c, char *answer, char *err, size_t errlen);

/* After RW_TLS_YES: set up the context from p (sslmode must be one of
 * libpq's words, rw_params_finish checked it), make the handshake with the
 * server of target t (t->host for SNI and verify-full), verify as the mode
 * asks. On PGCB_OK c->ssl is set and every later read and write goes
 * through it; on failure c->ssl is NULL and err says why (the caller may
 * retry in clear text where sslmode=prefer allows it). */
int rw_tls_handshake(struct pgcb_conn *c, const struct rw_params *p, const struct rw_target *t,
                     char *err, size_t errlen);

/* Write up to n bytes through TLS. Returns the bytes written (> 0), 0 when
 * `dontwait` and the socket is full (nothing written), or -1 with err set
 * (PGCB_ERR_IO). Without dontwait waits (bounded by c->deadline_ns when
 * set; a timeout is -1 with err "timeout expired"). */
long rw_tls_write(struct pgcb_conn *c, const char *p, size_t n, int dontwait, char *err,
                  size_t errlen);

/* Read into p[0..n): every decrypted byte already available, after waiting
 * for the first unless `dontwait`. Returns the bytes read (> 0), 0 when
 * `dontwait` and nothing was there, or -1 with err set (EOF included). */
long rw_tls_read(struct pgcb_conn *c, char *p, size_t n, int dontwait, char *err, size_t errlen);

/* Bytes OpenSSL holds decrypted, not yet read (a poll on the socket does
 * not see them). */
size_t rw_tls_pending(const struct pgcb_conn *c);

/* The channel binding data of "tls-server-end-point" (RFC 5929): the hash
 * of the server's certificate with its signature's hash algorithm, SHA-256
 * for MD5 and SHA-1 (as libpq). 0 with *n bytes in out (64 bytes room), or
 * -1 with err set. */
int rw_tls_endpoint_hash(const struct pgcb_conn *c, unsigned char out[64], size_t *n, char *err,
                         size_t errlen);

/* Best effort: send `bytes` (Terminate) through TLS without waiting, send
 * close_notify, free the TLS state (also what a failed handshake left).
 * c->ssl is NULL after. NULL-safe. */
void rw_tls_close(struct pgcb_conn *c, const char *bytes, size_t n);

#endif /* RW_TLS_H */
