/*
 * rw_auth.h -- answering the server's authentication requests during
 * startup: trust (AuthenticationOk), cleartext password, MD5,
 * SCRAM-SHA-256 and, over TLS, SCRAM-SHA-256-PLUS (channel binding
 * tls-server-end-point). GSS, SSPI, Kerberos and SCM credentials are
 * refused. channel_binding as libpq 15: `prefer` (the default) binds when
 * the server offers -PLUS over TLS; `disable` never; `require` refuses any
 * other way to authenticate -- before a password or its hash is sent.
 *
 * Ownership: struct rw_auth owns its copy of the password and the SCRAM
 * state; rw_auth_free wipes and frees them.
 */
#ifndef RW_AUTH_H
#define RW_AUTH_H

#include <stddef.h>

#include "rw_conn.h"
#include "rw_scram.h"

struct rw_auth {
    const char *user;          /* not owned */
    char *password;            /* owned; NULL: none given */
    const char *why_no_password; /* static; set when a passfile was ignored */
    const char *channel_binding; /* "disable", "prefer" or "require"; not owned */
    struct rw_scram scram;
    int sasl_state;            /* 0 none, 1 client-first sent, 2 client-final sent, 3 verified */
    int bound;                 /* the exchange is SCRAM-SHA-256-PLUS */
    int ok;                    /* AuthenticationOk received */
};

/* Handle one Authentication message body ('R', n bytes): send what it asks
 * for. PGCB_OK (a->ok set once authentication succeeded), or an error
 * (PGCB_ERR_CONNECT: missing password, unsupported method, failed SCRAM
 * check; PGCB_ERR_PROTOCOL: malformed; PGCB_ERR_IO) with err set. */
int rw_auth_request(struct pgcb_conn *c, struct rw_auth *a, const char *body, size_t n, char *err,
                    size_t errlen);

void rw_auth_free(struct rw_auth *a);

#endif /* RW_AUTH_H */
