/*
 * rw_tls.c -- see rw_tls.h.
 */
#include "rw_tls.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "rw_codec.h"
#include "rw_err.h"
#include "rw_io.h"
#include "rw_tls_name.h"

/* ---- SSLRequest ----------------------------------------------------------- */

int rw_tls_request(struct pgcb_conn *c, char *answer, char *err, size_t errlen)
{
    static const char req[8] = {0, 0, 0, 8, 0x04, (char)0xd2, 0x16, 0x2f}; /* 80877103 */
    char b;
    int rc = rw_io_write_all(c, req, sizeof req, err, errlen);

    if (rc == PGCB_OK)
        rc = rw_io_read_raw(c, &b, 1, err, errlen); /* one byte: nothing after it */
    if (rc != PGCB_OK)
        return PGCB_ERR_CONNECT;
    if (b == RW_TLS_YES || b == RW_TLS_NO) {
        *answer = b;
        return PGCB_OK;
    }
    if (b == 'E') { /* a server that failed before TLS (too many connections ...) */
        char hdr[4], body[1024];
        struct rw_pgerr e;
        uint32_t len;
        if (rw_io_read_raw(c, hdr, 4, err, errlen) == PGCB_OK && (len = rw_be32(hdr)) >= 4 &&
            len - 4 < sizeof body && rw_io_read_raw(c, body, len - 4, err, errlen) == PGCB_OK &&
            rw_dec_error(body, len - 4, &e) == 0) {
            char msg[PGCB_ERRLEN];
            rw_pgerr_format(&e, msg, sizeof msg);
            rw_errf(err, errlen, "the server answered SSLRequest with an error: %s", msg);
        } else {
            rw_errf(err, errlen, "the server answered SSLRequest with a malformed error");
        }
        return PGCB_ERR_CONNECT;
    }
    rw_errf(err, errlen, "received invalid response to SSL negotiation: 0x%02x",
            (unsigned char)b);
    return PGCB_ERR_CONNECT;
}

/* ---- errors --------------------------------------------------------------- */

/* OpenSSL's reason for the last failure of call result `r` (SSL_get_error
 * `e`), libpq's wording, plus the certificate check's own reason when the
 * chain did not verify. After a handshake the caller adds where; later,
 * c->peer is added here. */
static void rw_tls_errf(const struct pgcb_conn *c, const char *what, int r, int e, char *err,
                        size_t errlen)
{
    unsigned long code = ERR_peek_last_error();
    char reason[256] = "";

    if (e == SSL_ERROR_SYSCALL && code == 0) {
        if (r < 0 && errno)
            rw_errf(err, errlen, "%sSSL SYSCALL error: %s", what, strerror(errno));
        else
            rw_errf(err, errlen, "%sSSL SYSCALL error: EOF detected", what);
    } else if (e == SSL_ERROR_ZERO_RETURN) {
        rw_errf(err, errlen, "%sSSL connection has been closed unexpectedly", what);
    } else {
        long v = c->ssl ? SSL_get_verify_result(c->ssl) : X509_V_OK;
        if (code)
            ERR_error_string_n(code, reason, sizeof reason);
        if (code && ERR_GET_REASON(code) == SSL_R_CERTIFICATE_VERIFY_FAILED && v != X509_V_OK)
            rw_errf(err, errlen, "%sSSL error: certificate verify failed: %s", what,
                    X509_verify_cert_error_string(v));
        else if (code && ERR_reason_error_string(code))
            rw_errf(err, errlen, "%sSSL error: %s", what, ERR_reason_error_string(code));
        else
            rw_errf(err, errlen, "%sSSL error: %s", what, code ? reason : "unknown");
    }
    ERR_clear_error();
}

/* Append " (peer)" to err. */
static void rw_tls_where(const struct pgcb_conn *c, char *err, size_t errlen)
{
    size_t off = strlen(err);
    if (off + 4 < errlen)
        snprintf(err + off, errlen - off, " (%s)", c->peer);
}

/* ---- files ------------------------------------------------------------------ */

/* libpq's pqGetHomeDirectory: $HOME, else the passwd entry's. 0, or -1. */
static int rw_home(char *buf, size_t n)
{
    const char *h = getenv("HOME");
    struct passwd pw, *res = NULL;
    char tmp[4096];

    if (!h || !*h) {
        if (getpwuid_r(geteuid(), &pw, tmp, sizeof tmp, &res) != 0 || !res)
            return -1;
        h = pw.pw_dir;
    }
    return snprintf(buf, n, "%s", h) >= (int)n ? -1 : 0;
}

/* The file for parameter v (given and non-empty), else ~/.postgresql/name
 * ("" when there is no home directory). */
static void rw_tls_file(char *buf, size_t n, const char *v, const char *name)
{
    char home[4096];
    int k = 0;

    if (v && *v)
        k = snprintf(buf, n, "%s", v);
    else if (rw_home(home, sizeof home) == 0)
        k = snprintf(buf, n, "%.*s/.postgresql/%s", (int)(sizeof home - 64), home, name);
    if (k <= 0 || (size_t)k >= n)
        buf[0] = '\0'; /* none, or a path too long to be a file */
}

static int rw_is_verify(const char *mode)
{
    return strncmp(mode, "verify-", 7) == 0;
}

/* The root certificate and CRLs into ctx, as libpq's initialize_SSL.
 * *have set when the chain is to be verified. PGCB_OK or PGCB_ERR_CONNECT. */
static int rw_tls_roots(SSL_CTX *ctx, const struct rw_params *p, const char *mode, int *have,
                        char *err, size_t errlen)
{
    char fn[4096], crl[4096];
    const char *crlfile = p->v[RW_P_SSLCRL], *crldir = p->v[RW_P_SSLCRLDIR];
    struct stat st;

    *have = 0;
    rw_tls_file(fn, sizeof fn, p->v[RW_P_SSLROOTCERT], "root.crt");
    if (fn[0] && stat(fn, &st) == 0) {
        X509_STORE *store = SSL_CTX_get_cert_store(ctx);
        if (SSL_CTX_load_verify_locations(ctx, fn, NULL) != 1) {
            unsigned long code = ERR_get_error();
            rw_errf(err, errlen, "could not read root certificate file \"%s\": %s", fn,
                    code ? ERR_reason_error_string(code) : "unknown error");
            ERR_clear_error();
            return PGCB_ERR_CONNECT;
        }
        if ((crlfile && *crlfile) || (crldir && *crldir))
            snprintf(crl, sizeof crl, "%s", crlfile && *crlfile ? crlfile : "");
        else
            rw_tls_file(crl, sizeof crl, NULL, "root.crl");
        if (crl[0] || (crldir && *crldir)) {
            /* as libpq: a CRL that cannot be loaded is ignored (not required) */
            if (X509_STORE_load_locations(store, crl[0] ? crl : NULL,
                                          crldir && *crldir ? crldir : NULL) == 1)
                X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
            ERR_clear_error();
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        *have = 1;
        return PGCB_OK;
    }
    if (rw_is_verify(mode)) {
        if (!fn[0])
            rw_errf(err, errlen, "could not get home directory to locate root certificate file. "
                                 "Either provide the file or change sslmode to disable server "
                                 "certificate verification.");
        else
            rw_errf(err, errlen, "root certificate file \"%s\" does not exist. Either provide the "
                                 "file or change sslmode to disable server certificate "
                                 "verification.", fn);
        return PGCB_ERR_CONNECT;
    }
    return PGCB_OK;
}

/* The client certificate into ctx, when there is one. */
static int rw_tls_cert(SSL_CTX *ctx, const struct rw_params *p, int *have, char *err,
                       size_t errlen)
{
    char fn[4096];
    struct stat st;

    *have = 0;
    rw_tls_file(fn, sizeof fn, p->v[RW_P_SSLCERT], "postgresql.crt");
    if (!fn[0])
        return PGCB_OK;
    if (stat(fn, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            rw_errf(err, errlen, "could not open certificate file \"%s\": %s", fn, strerror(errno));
            return PGCB_ERR_CONNECT;
        }
        return PGCB_OK; /* none: no client certificate, as libpq */
    }
    if (SSL_CTX_use_certificate_chain_file(ctx, fn) != 1) {
        unsigned long code = ERR_get_error();
        rw_errf(err, errlen, "could not read certificate file \"%s\": %s", fn,
                code ? ERR_reason_error_string(code) : "unknown error");
        ERR_clear_error();
        return PGCB_ERR_CONNECT;
    }
    *have = 1;
    return PGCB_OK;
}

/* sslpassword for an encrypted key; never a prompt. */
static int rw_tls_passwd(char *buf, int size, int rwflag, void *user)
{
    const char *pw = user;
    size_t n = pw ? strlen(pw) : 0;

    (void)rwflag;
    if (size <= 0 || n >= (size_t)size)
        return 0;
    memcpy(buf, pw ? pw : "", n + 1);
    return (int)n;
}

/* The client certificate's key into ssl, checked as libpq checks it. */
static int rw_tls_key(SSL *ssl, const struct rw_params *p, char *err, size_t errlen)
{
    char fn[4096];
    struct stat st;

    rw_tls_file(fn, sizeof fn, p->v[RW_P_SSLKEY], "postgresql.key");
    if (!fn[0])
        return PGCB_OK;
    if (stat(fn, &st) != 0) {
        rw_errf(err, errlen, "certificate present, but not private key file \"%s\"", fn);
        return PGCB_ERR_CONNECT;
    }
    if (!S_ISREG(st.st_mode)) {
        rw_errf(err, errlen, "private key file \"%s\" is not a regular file", fn);
        return PGCB_ERR_CONNECT;
    }
    if ((st.st_uid == geteuid() && (st.st_mode & (S_IRWXG | S_IRWXO))) ||
        (st.st_uid == 0 && (st.st_mode & (S_IWGRP | S_IXGRP | S_IRWXO)))) {
        rw_errf(err, errlen, "private key file \"%s\" has group or world access; file must have "
                             "permissions u=rw (0600) or less if owned by the current user, or "
                             "permissions u=rw,g=r (0640) or less if owned by root", fn);
        return PGCB_ERR_CONNECT;
    }
    if (SSL_use_PrivateKey_file(ssl, fn, SSL_FILETYPE_PEM) != 1) {
        unsigned long code = ERR_get_error();
        rw_errf(err, errlen, "could not load private key file \"%s\": %s", fn,
                code ? ERR_reason_error_string(code) : "unknown error");
        ERR_clear_error();
        return PGCB_ERR_CONNECT;
    }
    if (SSL_check_private_key(ssl) != 1) {
        unsigned long code = ERR_get_error();
        rw_errf(err, errlen, "certificate does not match private key file \"%s\": %s", fn,
                code ? ERR_reason_error_string(code) : "unknown error");
        ERR_clear_error();
        return PGCB_ERR_CONNECT;
    }
    return PGCB_OK;
}

/* ssl_min/max_protocol_version (checked by rw_params_finish) as OpenSSL's
 * constants; 0 for "" or NULL (no bound). */
static int rw_tls_proto(const char *v)
{
    if (!v || !*v)
        return 0;
    if (strcasecmp(v, "TLSv1") == 0)
        return TLS1_VERSION;
    if (strcasecmp(v, "TLSv1.1") == 0)
        return TLS1_1_VERSION;
    if (strcasecmp(v, "TLSv1.2") == 0)
        return TLS1_2_VERSION;
    return TLS1_3_VERSION;
}

/* The context of one connection, as libpq makes one per connection. */
static SSL_CTX *rw_tls_ctx(const struct rw_params *p, const char *mode, int *have_cert,
                           char *err, size_t errlen)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    const char *min = p->v[RW_P_SSL_MIN_PROTOCOL_VERSION];
    int have_root;

    if (!ctx) {
        rw_errf(err, errlen, "could not create SSL context: %s",
                ERR_reason_error_string(ERR_get_error()));
        ERR_clear_error();
        return NULL;
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* read-ahead: one recv() per record, not one for its header and one for
     * its body. Its buffer stays OpenSSL's default (one record and a bit):
     * OpenSSL moves the bytes left after each record to the buffer's
     * start, so a larger one costs a memmove of up to its size per record
     * (seen with 64 kB: more than the recv() it saves). */
    SSL_CTX_set_read_ahead(ctx, 1);
    if (SSL_CTX_set_min_proto_version(ctx, rw_tls_proto(min ? min : "TLSv1.2")) != 1 ||
        SSL_CTX_set_max_proto_version(ctx, rw_tls_proto(p->v[RW_P_SSL_MAX_PROTOCOL_VERSION])) != 1) {
        rw_errf(err, errlen, "could not set the SSL protocol version range: %s",
                ERR_reason_error_string(ERR_get_error()));
        ERR_clear_error();
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_default_passwd_cb(ctx, rw_tls_passwd);
    SSL_CTX_set_default_passwd_cb_userdata(ctx, p->v[RW_P_SSLPASSWORD]);
    if (rw_tls_roots(ctx, p, mode, &have_root, err, errlen) != PGCB_OK ||
        rw_tls_cert(ctx, p, have_cert, err, errlen) != PGCB_OK) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* SNI as libpq sends it: sslsni starting with '1' (the default), the
 * target's host name, unless it is a numeric address. */
static int rw_tls_sni(SSL *ssl, const struct rw_params *p, const char *host, char *err,
                      size_t errlen)
{
    const char *sni = p->v[RW_P_SSLSNI];

    if ((sni && sni[0] != '1') || !host || !*host ||
        strspn(host, "0123456789.") == strlen(host) || strchr(host, ':'))
        return PGCB_OK;
    if (SSL_set_tlsext_host_name(ssl, host) != 1) {
        rw_errf(err, errlen, "could not set SSL Server Name Indication (SNI): %s",
                ERR_reason_error_string(ERR_get_error()));
        ERR_clear_error();
        return PGCB_ERR_CONNECT;
    }
    return PGCB_OK;
}

/* ---- the socket BIO ----------------------------------------------------------- */

/* OpenSSL's socket BIO write()s: a server that closed the connection would
 * raise SIGPIPE in the caller's process (a driver must not touch its signal
 * dispositions). This one send()s with MSG_NOSIGNAL, as rawwire's clear-text
 * path does; it keeps the descriptor in its data pointer. */
static int rw_bio_write(BIO *b, const char *p, int n)
{
    ssize_t k = send((int)(intptr_t)BIO_get_data(b), p, (size_t)n, MSG_NOSIGNAL);

    BIO_clear_retry_flags(b);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_write(b);
    return (int)k;
}

static int rw_bio_read(BIO *b, char *p, int n)
{
    ssize_t k = recv((int)(intptr_t)BIO_get_data(b), p, (size_t)n, 0);

    BIO_clear_retry_flags(b);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_read(b);
    return (int)k;
}

static long rw_bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    (void)b, (void)num, (void)ptr;
    return cmd == BIO_CTRL_FLUSH; /* nothing is buffered here */
}

static int rw_bio_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

/* The BIO over c->fd, with its method (freed with c->tls_bio_meth). NULL
 * on failure. */
static BIO *rw_tls_bio(struct pgcb_conn *c)
{
    BIO_METHOD *m = c->tls_bio_meth;
    BIO *b;

    if (!m) {
        m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "rawwire socket");
        if (!m || !BIO_meth_set_write(m, rw_bio_write) || !BIO_meth_set_read(m, rw_bio_read) ||
            !BIO_meth_set_ctrl(m, rw_bio_ctrl) || !BIO_meth_set_create(m, rw_bio_create)) {
            BIO_meth_free(m);
            return NULL;
        }
        c->tls_bio_meth = m;
    }
    if (!(b = BIO_new(m)))
        return NULL;
    BIO_set_data(b, (void *)(intptr_t)c->fd);
    return b;
}

/* ---- handshake -------------------------------------------------------------- */

int rw_tls_handshake(struct pgcb_conn *c, const struct rw_params *p, const struct rw_target *t,
                     char *err, size_t errlen)
{
    const char *mode = p->v[RW_P_SSLMODE] && *p->v[RW_P_SSLMODE] ? p->v[RW_P_SSLMODE] : "prefer";
    int have_cert = 0, flags, rc;
    SSL_CTX *ctx = rw_tls_ctx(p, mode, &have_cert, err, errlen);
    SSL *ssl;
    BIO *bio;

    if (!ctx)
        return PGCB_ERR_CONNECT;
    ssl = SSL_new(ctx);
    SSL_CTX_free(ctx); /* the SSL keeps its own reference */
    bio = ssl ? rw_tls_bio(c) : NULL;
    if (!bio) {
        rw_errf(err, errlen, "could not establish SSL connection: %s",
                ERR_reason_error_string(ERR_get_error()));
        ERR_clear_error();
        SSL_free(ssl);
        return PGCB_ERR_CONNECT;
    }
    SSL_set_bio(ssl, bio, bio); /* the SSL owns it now */
    if ((rc = rw_tls_sni(ssl, p, t->host, err, errlen)) != PGCB_OK ||
        (have_cert && (rc = rw_tls_key(ssl, p, err, errlen)) != PGCB_OK)) {
        SSL_free(ssl);
        return rc;
    }
    flags = fcntl(c->fd, F_GETFL);
    if (flags < 0 || fcntl(c->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        rw_errf(err, errlen, "could not make the socket non-blocking: %s", strerror(errno));
        SSL_free(ssl);
        return PGCB_ERR_CONNECT;
    }
    c->ssl = ssl;
    for (;;) {
        int r, e;
        ERR_clear_error();
        errno = 0;
        r = SSL_connect(ssl);
        if (r == 1)
            break;
        e = SSL_get_error(ssl, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            if ((rc = rw_io_poll(c, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, err, errlen)) !=
                PGCB_OK)
                goto fail;
            continue;
        }
        rw_tls_errf(c, "", r, e, err, errlen);
        rc = PGCB_ERR_CONNECT;
        goto fail;
    }
    if (strcmp(mode, "verify-full") == 0) {
        X509 *peer = SSL_get_peer_certificate(ssl);
        if (!peer) {
            rw_errf(err, errlen, "certificate could not be obtained from the server");
            rc = PGCB_ERR_CONNECT;
            goto fail;
        }
        rc = rw_tls_name_check(peer, t->host, err, errlen);
        X509_free(peer);
        if (rc != PGCB_OK)
            goto fail;
    }
    return PGCB_OK;
fail:
    SSL_free(ssl);
    c->ssl = NULL;
    return rc == PGCB_OK ? PGCB_ERR_CONNECT : rc;
}

/* ---- reads and writes --------------------------------------------------- */

/* After a failed SSL_read / SSL_write (result r, SSL_get_error e): 1 to
 * try again (what OpenSSL wanted is ready), 0 when `dontwait` and it would
 * wait, -1 with err set (`what`: which way failed). */
static int rw_tls_again(struct pgcb_conn *c, int r, int e, int dontwait, const char *what,
                        char *err, size_t errlen)
{
    if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
        if (dontwait)
            return 0;
        return rw_io_poll(c, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, err, errlen) == PGCB_OK
                   ? 1
                   : -1;
    }
    rw_tls_errf(c, what, r, e, err, errlen);
    rw_tls_where(c, err, errlen);
    return -1;
}

long rw_tls_write(struct pgcb_conn *c, const char *p, size_t n, int dontwait, char *err,
                  size_t errlen)
{
    for (;;) {
        int k, a;
        ERR_clear_error();
        errno = 0;
        k = SSL_write(c->ssl, p, n > INT_MAX ? INT_MAX : (int)n);
        if (k > 0)
            return k;
        a = rw_tls_again(c, k, SSL_get_error(c->ssl, k), dontwait,
                         "could not send data to the server: ", err, errlen);
        if (a <= 0)
            return a;
    }
}

long rw_tls_read(struct pgcb_conn *c, char *p, size_t n, int dontwait, char *err, size_t errlen)
{
    size_t got = 0;

    for (;;) {
        int k, a;
        ERR_clear_error();
        errno = 0;
        k = SSL_read(c->ssl, p + got, n - got > INT_MAX ? INT_MAX : (int)(n - got));
        if (k > 0) {
            got += (size_t)k;
            /* every record OpenSSL already holds, without another recv() */
            if (got == n || !SSL_has_pending(c->ssl))
                return (long)got;
            continue;
        }
        if (got)
            return (long)got; /* an error stays: the next call reports it */
        a = rw_tls_again(c, k, SSL_get_error(c->ssl, k), dontwait,
                         "could not receive data from the server: ", err, errlen);
        if (a <= 0)
            return a;
    }
}

size_t rw_tls_pending(const struct pgcb_conn *c)
{
    return c->ssl && SSL_has_pending(c->ssl) ? 1 : 0;
}

/* ---- facts ------------------------------------------------------------------ */

int rw_tls_endpoint_hash(const struct pgcb_conn *c, unsigned char out[64], size_t *n, char *err,
                         size_t errlen)
{
    X509 *peer = c->ssl ? SSL_get_peer_certificate(c->ssl) : NULL;
    int algo = 0;
    const EVP_MD *md;
    unsigned int len = 0;

    if (!peer) {
        rw_errf(err, errlen, "could not get the server certificate for channel binding");
        return -1;
    }
    if (!OBJ_find_sigid_algs(X509_get_signature_nid(peer), &algo, NULL)) {
        X509_free(peer);
        rw_errf(err, errlen, "could not determine server certificate signature algorithm");
        return -1;
    }
    /* RFC 5929: MD5 and SHA-1 are replaced by SHA-256 */
    md = algo == NID_md5 || algo == NID_sha1 ? EVP_sha256() : EVP_get_digestbynid(algo);
    if (!md || EVP_MD_size(md) > 64 || X509_digest(peer, md, out, &len) != 1) {
        X509_free(peer);
        rw_errf(err, errlen, "could not generate peer certificate hash (%s)", OBJ_nid2sn(algo));
        ERR_clear_error();
        return -1;
    }
    X509_free(peer);
    *n = len;
    return 0;
}

void rw_tls_close(struct pgcb_conn *c, const char *bytes, size_t n)
{
    if (!c)
        return;
    if (!c->ssl) {
        BIO_meth_free(c->tls_bio_meth);
        c->tls_bio_meth = NULL;
        return;
    }
    if (bytes && n)
        (void)SSL_write(c->ssl, bytes, (int)n); /* non-blocking socket: best effort */
    (void)SSL_shutdown(c->ssl);
    SSL_free(c->ssl);
    c->ssl = NULL;
    BIO_meth_free(c->tls_bio_meth); /* after the BIO that used it */
    c->tls_bio_meth = NULL;
    ERR_clear_error();
}
