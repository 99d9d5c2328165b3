/*
 * rw_auth.c -- see rw_auth.h.
 */
#include "rw_auth.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "rw_codec.h"
#include "rw_err.h"
#include "rw_io.h"
#include "rw_tls.h"

/* Encode one message with enc(b, ...) already done; send and free it. */
static int rw_auth_send(struct pgcb_conn *c, struct rw_buf *b, char *err, size_t errlen)
{
    int rc = rw_io_send_buf(c, b, err, errlen);
    if (b->data)
        OPENSSL_cleanse(b->data, b->cap); /* may hold a password or its hash */
    rw_buf_free(b);
    return rc;
}

/* Nanoseconds left before c's deadline (connect_timeout), or -1 without. */
static long long rw_auth_ns_left(const struct pgcb_conn *c)
{
    struct timespec ts;
    long long left;

    if (!c->deadline_ns)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    left = (long long)c->deadline_ns - ((long long)ts.tv_sec * 1000000000 + ts.tv_nsec);
    return left > 0 ? left : 0;
}

static int rw_need_password(const struct rw_auth *a, const char *method, char *err, size_t errlen)
{
    if (a->password)
        return 0;
    rw_errf(err, errlen, "the server asks for %s authentication but no password was supplied "
                         "(password, PGPASSWORD or the password file)%s%s",
            method, a->why_no_password ? ": " : "", a->why_no_password ? a->why_no_password : "");
    return -1;
}

static const char *rw_auth_name(uint32_t code)
{
    switch (code) {
    case 2: return "Kerberos V5";
    case 6: return "SCM credentials";
    case 7: return "GSSAPI";
    case 8: return "GSSAPI";
    case 9: return "SSPI";
    default: return NULL;
    }
}

/* AuthenticationSASL: choose the mechanism as libpq's pg_SASL_init does
 * and send the client-first-message. */
static int rw_auth_sasl(struct pgcb_conn *c, struct rw_auth *a, const char *data, size_t dlen,
                        char *err, size_t errlen)
{
    int plus = rw_dec_sasl_has(data, dlen, "SCRAM-SHA-256-PLUS");
    int plain = rw_dec_sasl_has(data, dlen, "SCRAM-SHA-256");
    int tls = c->ssl != NULL, cbmode = a->channel_binding[0];
    unsigned char hash[64];
    struct rw_scram_cb cb = {'n', NULL, 0};
    const char *mech = NULL;
    struct rw_buf b;

    if (plus < 0 || plain < 0) {
        rw_errf(err, errlen, "malformed SASL mechanism list from the server");
        return PGCB_ERR_PROTOCOL;
    }
    if (a->sasl_state != 0) {
        rw_errf(err, errlen, "unexpected SASL authentication request from the server");
        return PGCB_ERR_PROTOCOL;
    }
    if (cbmode == 'r' && !tls) {
        rw_errf(err, errlen, "channel binding required, but SSL not in use");
        return PGCB_ERR_CONNECT;
    }
    if (plus && !tls) { /* TLS stripped on the way? */
        rw_errf(err, errlen, "server offered SCRAM-SHA-256-PLUS authentication over a non-SSL "
                             "connection");
        return PGCB_ERR_CONNECT;
    }
    if (plus && cbmode != 'd')
        mech = "SCRAM-SHA-256-PLUS";
    else if (plain)
        mech = "SCRAM-SHA-256";
    if (!mech) {
        rw_errf(err, errlen, "the server offers no SASL mechanism rawwire supports "
                             "(SCRAM-SHA-256, SCRAM-SHA-256-PLUS)");
        return PGCB_ERR_CONNECT;
    }
    if (cbmode == 'r' && strcmp(mech, "SCRAM-SHA-256-PLUS") != 0) {
        rw_errf(err, errlen, "channel binding is required, but server did not offer an "
                             "authentication method that supports channel binding");
        return PGCB_ERR_CONNECT;
    }
    if (rw_need_password(a, "SCRAM-SHA-256", err, errlen))
        return PGCB_ERR_CONNECT;
    if (strcmp(mech, "SCRAM-SHA-256-PLUS") == 0) {
        cb.flag = 'p';
        cb.data = hash;
        if (rw_tls_endpoint_hash(c, hash, &cb.len, err, errlen))
            return PGCB_ERR_CONNECT;
        a->bound = 1;
    } else if (tls && cbmode != 'd') {
        cb.flag = 'y'; /* could bind, but the server did not offer it */
    }
    if (rw_scram_init(&a->scram, "", NULL, &cb, err, errlen))
        return PGCB_ERR_CONNECT;
    rw_buf_init(&b);
    rw_enc_sasl_initial(&b, mech, a->scram.client_first, strlen(a->scram.client_first));
    a->sasl_state = 1;
    return rw_auth_send(c, &b, err, errlen);
}

int rw_auth_request(struct pgcb_conn *c, struct rw_auth *a, const char *body, size_t n, char *err,
                    size_t errlen)
{
    uint32_t code;
    const char *data;
    size_t dlen;
    struct rw_buf b;

    rw_buf_init(&b);
    if (rw_dec_auth(body, n, &code, &data, &dlen)) {
        rw_errf(err, errlen, "malformed authentication request from the server");
        return PGCB_ERR_PROTOCOL;
    }
    /* channel_binding=require: only SCRAM-SHA-256-PLUS may authenticate us,
     * checked before anything is sent (libpq's check_expected_areq) */
    if (a->channel_binding[0] == 'r' && code != 10 && code != 11 && code != 12) {
        if (code != 0)
            rw_errf(err, errlen, "channel binding required but not supported by server's "
                                 "authentication request");
        else if (!a->bound || a->sasl_state != 3)
            rw_errf(err, errlen, "channel binding required, but server authenticated client "
                                 "without channel binding");
        if (code != 0 || !a->bound || a->sasl_state != 3)
            return PGCB_ERR_CONNECT;
    }
    switch (code) {
    case 0: /* AuthenticationOk */
        if (a->sasl_state == 1 || a->sasl_state == 2) {
            rw_errf(err, errlen, "the server ended SCRAM authentication without proving it knows "
                                 "the password");
            return PGCB_ERR_CONNECT;
        }
        a->ok = 1;
        return PGCB_OK;

    case 3: /* cleartext password */
        if (rw_need_password(a, "password", err, errlen))
            return PGCB_ERR_CONNECT;
        rw_enc_password(&b, a->password);
        return rw_auth_send(c, &b, err, errlen);

    case 5: { /* MD5 with a 4-byte salt */
        char hash[36];
        if (dlen != 4) {
            rw_errf(err, errlen, "malformed MD5 authentication request from the server");
            return PGCB_ERR_PROTOCOL;
        }
        if (rw_need_password(a, "md5", err, errlen))
            return PGCB_ERR_CONNECT;
        if (rw_md5_password(a->user, a->password, (const unsigned char *)data, hash)) {
            rw_errf(err, errlen, "MD5 computation failed in libcrypto");
            return PGCB_ERR_CONNECT;
        }
        rw_enc_password(&b, hash);
        OPENSSL_cleanse(hash, sizeof hash);
        return rw_auth_send(c, &b, err, errlen);
    }

    case 10: /* SASL: the mechanisms the server offers */
        return rw_auth_sasl(c, a, data, dlen, err, errlen);

    case 11: { /* SASLContinue: server-first-message */
        char *final = NULL;
        size_t flen;
        if (a->sasl_state != 1) {
            rw_errf(err, errlen, "unexpected SASL continuation from the server");
            return PGCB_ERR_PROTOCOL;
        }
        if (rw_scram_client_final(&a->scram, a->password, data, dlen, rw_auth_ns_left(c), &final,
                                  &flen, err, errlen))
            return PGCB_ERR_CONNECT;
        rw_enc_sasl_response(&b, final, flen);
        OPENSSL_cleanse(final, flen);
        free(final);
        a->sasl_state = 2;
        return rw_auth_send(c, &b, err, errlen);
    }

    case 12: /* SASLFinal: server-final-message */
        if (a->sasl_state != 2) {
            rw_errf(err, errlen, "unexpected SASL final message from the server");
            return PGCB_ERR_PROTOCOL;
        }
        if (rw_scram_verify_final(&a->scram, data, dlen, err, errlen))
            return PGCB_ERR_CONNECT;
        a->sasl_state = 3;
        return PGCB_OK;

    default: {
        const char *name = rw_auth_name(code);
        if (name)
            rw_errf(err, errlen, "the server asks for %s authentication, which rawwire does not support",
                    name);
        else
            rw_errf(err, errlen, "the server asks for authentication method %u, which rawwire does "
                                 "not support", code);
        return PGCB_ERR_CONNECT;
    }
    }
}

void rw_auth_free(struct rw_auth *a)
{
    if (a->password) {
        OPENSSL_cleanse(a->password, strlen(a->password));
        free(a->password);
    }
    rw_scram_free(&a->scram);
    memset(a, 0, sizeof *a);
}
