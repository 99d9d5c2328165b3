/*
 * rw_conn.h -- the rawwire connection and statement (the ABI's opaque
 * struct pgcb_conn / struct pgcb_stmt), shared by the rawwire and floor
 * drivers, and the operations on them that are not the hot path.
 *
 * Ownership: a connection owns its socket, its TLS state, its read buffer, its encoded
 * batch, its "C" locale and the list of its statements; rw_conn_close frees
 * all of them. A statement is one allocation (name, column kinds) plus its
 * result format codes and its pre-encoded execution bytes; it lives until
 * close.
 */
#ifndef RW_CONN_H
#define RW_CONN_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

#include "rw_codec.h"
#include "rw_options.h"

struct pgcb_stmt {
    struct pgcb_stmt *next;   /* the connection's list */
    unsigned ncols;
    unsigned char *kinds;     /* enum pgcb_value_kind per column, in this allocation */
    uint32_t *oids;           /* type OID per column, for messages (malloc'd) */
    unsigned nparams;         /* from ParameterDescription; values come per batch */
    int16_t *fmts;            /* result format codes of its Bind (malloc'd) */
    size_t nfmts;
    char *exec;               /* Bind [+ Describe portal] + Execute of one execution
                                 without parameters, no Sync (malloc'd) */
    size_t exec_len;
    char name[];
};

struct ssl_st; /* OpenSSL's SSL (rw_tls.h) */

struct pgcb_conn {
    int fd;
    struct ssl_st *ssl;       /* TLS in use (rw_tls.h); NULL: clear text */
    void *tls_bio_meth;       /* its socket BIO's methods (rw_tls.c), freed with it */
    struct rw_options opt;    /* result format, Describe, Sync (rw_options.h) */
    int broken;               /* after PGCB_ERR_IO / PGCB_ERR_PROTOCOL */
    locale_t c_locale;        /* for strtod_l; never the global locale */
    /* Read buffer: the unread bytes are rbuf[rpos..rend); rcap bytes. */
    char *rbuf;
    size_t rcap, rpos, rend;
    /* The last batch encoded (batch_depth executions of batch_stmt without
     * parameters; batch_stmt NULL after a batch with parameters, which is
     * encoded anew on every call). */
    struct rw_buf batch;
    const struct pgcb_stmt *batch_stmt;
    uint32_t batch_depth;
    /* The last COPY's bytes (ABI 1.4 run_copy, rw_copy.c): Query, CopyData...,
     * CopyDone, encoded anew on every call into the same buffer. */
    struct rw_buf copy;
    struct pgcb_stmt *stmts;
    uint32_t be_pid, be_key;  /* BackendKeyData */
    int msg_phase;            /* RW_PHASE_AUTH until AuthenticationOk (rw_codec.h) */
    int64_t deadline_ns;      /* CLOCK_MONOTONIC deadline while connecting; 0 none */
    char peer[192];           /* where we are connected, for messages */
    /* A pool this connection heads (ABI 1.5 pool_open; rawwire's rw_pool.c):
     * owned by the driver that set it, which frees it before
     * rw_conn_close. NULL for a connection of its own. */
    struct rw_pool *pool;
};

/* The initial read buffer: replies are read in chunks this large; it grows
 * only for a message that does not fit. */
#define RW_RBUF_INITIAL (256u * 1024u)

/* Open a connection to what `conninfo` (plus PG* variables and defaults)
 * names, trying each host in turn, and authenticate. `binary`: the result
 * format for statements. PGCB_OK with *out set, or an error with *out NULL
 * and err set (never quoting a password). */
int rw_conn_open(const char *conninfo, const struct rw_options *opt, struct pgcb_conn **out,
                 char *err, size_t errlen);

/* Send Terminate (best effort), close the socket, free everything. NULL ok. */
void rw_conn_close(struct pgcb_conn *c);

/* Parse + Describe + Sync of `sql` as statement `name`; learn the column
 * types and pre-encode the statement's execution. On error the server-side
 * statement does not exist afterwards. */
int rw_conn_prepare(struct pgcb_conn *c, const char *name, const char *sql, struct pgcb_stmt **out,
                    char *err, size_t errlen);

/* Make c->batch hold `depth` executions of st. Without parameters (p NULL
 * or p->nparams 0) the batch is a copy of st->exec depth times, re-encoded
 * only when the statement or depth changed. With parameters (ABI 1.1,
 * struct pgcb_params), execution i's Bind carries values i * nparams ..
 * in text format, encoded on every call into the same buffer, which grows
 * only for a batch larger than any before. PGCB_OK, PGCB_ERR_NOMEM, or
 * PGCB_ERR_UNSUPPORTED (more than RW_MAX_PARAMS values per query, missing
 * arrays, a negative length, a Bind over the protocol's message size);
 * nothing is sent. */
int rw_conn_batch_bytes(struct pgcb_conn *c, const struct pgcb_stmt *st, uint32_t depth,
                        const struct pgcb_params *p, char *err, size_t errlen);

/* Mark c broken and return `rc` (for IO/PROTOCOL errors). */
int rw_conn_fail(struct pgcb_conn *c, int rc);

/* The start of every batch (rawwire's and floor's): c must not be broken
 * and depth must be >= 1; then c->batch holds its bytes
 * (rw_conn_batch_bytes). PGCB_OK, or the error with err written. */
int rw_conn_batch_start(struct pgcb_conn *c, const struct pgcb_stmt *st, uint32_t depth,
                        const struct pgcb_params *p, char *err, size_t errlen);

/* The end of every batch: `rc` is what rw_io_pipeline returned, `qerr` the
 * first ErrorResponse the replies held (NULL if none). A query error is
 * PGCB_ERR_QUERY with qerr; an I/O error after an ErrorResponse says both
 * (the server said why before it closed); IO/PROTOCOL errors break c, and
 * so does PGCB_ERR_NOMEM (it happened mid-exchange, replies unread). */
int rw_conn_batch_end(struct pgcb_conn *c, int rc, const char *qerr, char *err, size_t errlen);

#endif /* RW_CONN_H */
