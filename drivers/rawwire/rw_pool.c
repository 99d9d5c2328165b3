/* rw_pool.c -- see rw_pool.h. */
#include "rw_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pgcb/value.h>

#include "pgload/pl_loop.h"
#include "pgwire/rw_conn.h"
#include "pgwire/rw_io.h"
#include "rw_reply.h"

/* Owned by its head connection (c->pool); conns[0] is the head. */
struct rw_pool {
    uint32_t n;
    struct pgcb_conn **conns;
    const struct pgcb_stmt **stmts; /* per connection: the current load's statement */
    struct rw_reply *replies;       /* per connection: its query's parser */
    size_t *sent, *need;            /* per connection: bytes of its query sent; feed's need */
    int *busy;                      /* per connection: a query is in flight */
    struct pl_loop loop;
};

static void rw_pool_free(struct rw_pool *p)
{
    if (!p)
        return;
    for (uint32_t k = 1; k < p->n; k++)
        rw_conn_close(p->conns[k]);
    pl_loop_free(&p->loop);
    free(p->conns);
    free(p->stmts);
    free(p->replies);
    free(p->sent);
    free(p->need);
    free(p->busy);
    free(p);
}

void rw_pool_close(struct pgcb_conn *c)
{
    if (!c)
        return;
    rw_pool_free(c->pool);
    c->pool = NULL;
    rw_conn_close(c);
}

int rw_pool_open(const char *conninfo, const struct rw_options *opt, uint32_t nconns,
                 struct pgcb_conn **out, char *err, size_t errlen)
{
    *out = NULL;
    if (nconns < 1) {
        snprintf(err, errlen, "a pool needs at least 1 connection");
        return PGCB_ERR_CONFIG;
    }
    struct rw_pool *p = calloc(1, sizeof *p);
    if (p) {
        p->conns = calloc(nconns, sizeof *p->conns);
        p->stmts = calloc(nconns, sizeof *p->stmts);
        p->replies = calloc(nconns, sizeof *p->replies);
        p->sent = calloc(nconns, sizeof *p->sent);
        p->need = calloc(nconns, sizeof *p->need);
        p->busy = calloc(nconns, sizeof *p->busy);
    }
    if (!p || !p->conns || !p->stmts || !p->replies || !p->sent || !p->need || !p->busy) {
        rw_pool_free(p);
        snprintf(err, errlen, "out of memory for a pool of %u connections", nconns);
        return PGCB_ERR_NOMEM;
    }
    p->n = nconns;
    int rc = pl_loop_init(&p->loop, nconns, 1, err, errlen);
    for (uint32_t k = 0; k < nconns && rc == PGCB_OK; k++) {
        char why[PGCB_ERRLEN];
        if ((rc = rw_conn_open(conninfo, opt, &p->conns[k], why, sizeof why)) != PGCB_OK)
            snprintf(err, errlen, "pool connection %u of %u: %s", k + 1, nconns, why);
    }
    if (rc != PGCB_OK) {
        struct pgcb_conn *head = p->conns[0];
        p->conns[0] = NULL;
        rw_pool_free(p);
        rw_conn_close(head);
        return rc;
    }
    p->conns[0]->pool = p;
    *out = p->conns[0];
    return PGCB_OK;
}

int rw_pool_prepare(struct pgcb_conn *c, const char *name, const char *sql,
                    struct pgcb_stmt **out, char *err, size_t errlen)
{
    int rc = rw_conn_prepare(c, name, sql, out, err, errlen);
    for (uint32_t k = 1; c->pool && k < c->pool->n && rc == PGCB_OK; k++) {
        struct pgcb_stmt *st;
        if ((rc = rw_conn_prepare(c->pool->conns[k], name, sql, &st, err, errlen)) != PGCB_OK)
            *out = NULL; /* the head's statement lives on with the head, unused */
    }
    return rc;
}

/* ---- the loop's view of a connection (struct pl_ops) ------------------- */

static int rwp_issue(void *pool, uint32_t k, uint64_t index, const struct pgcb_load *load,
                     int *complete, struct pgcb_sum *sum, char *err, size_t errlen)
{
    struct rw_pool *p = pool;
    struct pgcb_conn *c = p->conns[k];
    const struct pgcb_stmt *st = p->stmts[k];
    struct pgcb_params row, *pr = NULL;
    int rc;
    *complete = 0;
    if (load->params && load->params->nparams) {
        const size_t at = (size_t)index * load->params->nparams;
        row = (struct pgcb_params){load->params->nparams, load->params->values + at,
                                   load->params->lengths + at};
        pr = &row;
    }
    if ((rc = rw_conn_batch_start(c, st, 1, pr, err, errlen)) != PGCB_OK)
        return rc;
    rw_reply_init(&p->replies[k], st->kinds, st->ncols, sum, c->c_locale, 1, rw_reply_flags(c));
    p->replies[k].oids = st->oids;
    p->sent[k] = p->need[k] = 0;
    p->busy[k] = 1;
    rc = rw_io_send_nb(c, c->batch.data, c->batch.len, &p->sent[k], err, errlen);
    if (rc != PGCB_OK) {
        struct rw_reply *r = &p->replies[k];
        rc = rw_io_send_failed(c, rc, rw_reply_feed, r, &p->need[k], err, errlen);
        p->busy[k] = 0;
        return rw_conn_batch_end(c, rc, r->have_error ? r->qerr : NULL, err, errlen);
    }
    return PGCB_OK;
}

static int rwp_advance(void *pool, uint32_t k, unsigned got, int *complete,
                       struct pgcb_sum *sum, char *err, size_t errlen)
{
    struct rw_pool *p = pool;
    struct pgcb_conn *c = p->conns[k];
    struct rw_reply *r = &p->replies[k];
    int rc = PGCB_OK, done = 0;
    (void)sum; /* the parser folds into the sum it was given at issue */
    *complete = 0;
    if (!p->busy[k]) { /* idle: only its end of file can come */
        size_t need = 0;
        return rw_io_read_nb(c, NULL, NULL, &need, &done, err, errlen) == PGCB_OK
                   ? PGCB_OK : rw_conn_fail(c, PGCB_ERR_IO);
    }
    if ((got & PL_WRITE) && p->sent[k] < c->batch.len) {
        rc = rw_io_send_nb(c, c->batch.data, c->batch.len, &p->sent[k], err, errlen);
        if (rc != PGCB_OK)
            rc = rw_io_send_failed(c, rc, rw_reply_feed, r, &p->need[k], err, errlen);
    }
    if (rc == PGCB_OK && (got & PL_READ))
        rc = rw_io_read_nb(c, rw_reply_feed, r, &p->need[k], &done, err, errlen);
    if (rc != PGCB_OK) {
        p->busy[k] = 0;
        return rw_conn_batch_end(c, rc, r->have_error ? r->qerr : NULL, err, errlen);
    }
    if (!done)
        return PGCB_OK;
    p->busy[k] = 0;
    if ((rc = rw_conn_batch_end(c, PGCB_OK, r->have_error ? r->qerr : NULL, err, errlen)) !=
        PGCB_OK)
        return rc;
    if (r->value_rc) { /* every reply was read: the connection is usable, the sum is not */
        snprintf(err, errlen, "%s", r->verr);
        return r->value_rc == PGCB_VALUE_UNSUPPORTED ? PGCB_ERR_UNSUPPORTED : PGCB_ERR_PROTOCOL;
    }
    *complete = 1;
    return PGCB_OK;
}

static unsigned rwp_events(void *pool, uint32_t k)
{
    const struct rw_pool *p = pool;
    return PL_READ | (p->busy[k] && p->sent[k] < p->conns[k]->batch.len ? PL_WRITE : 0u);
}

static int rwp_fd(void *pool, uint32_t k)
{
    return ((const struct rw_pool *)pool)->conns[k]->fd;
}

static uint32_t rwp_backend_pid(void *pool, uint32_t k)
{
    return ((const struct rw_pool *)pool)->conns[k]->be_pid;
}

static const struct pl_ops rwp_ops = {
    .issue = rwp_issue,
    .advance = rwp_advance,
    .events = rwp_events,
    .fd = rwp_fd,
    .backend_pid = rwp_backend_pid,
};

int rw_pool_run_load(struct pgcb_conn *c, const struct pgcb_load *load,
                     struct pgcb_load_out *out, char *err, size_t errlen)
{
    struct rw_pool *p = c->pool;
    if (!p) {
        snprintf(err, errlen, "run_load on a connection that pool_open did not open");
        return PGCB_ERR_UNSUPPORTED;
    }
    if (!load->stmt) {
        snprintf(err, errlen, "run_load: no statement");
        return PGCB_ERR_CONFIG;
    }
    /* Each connection's own statement of the same name (prepared on all). */
    p->stmts[0] = load->stmt;
    for (uint32_t k = 1; k < p->n; k++) {
        const struct pgcb_stmt *st = p->conns[k]->stmts;
        while (st && strcmp(st->name, load->stmt->name) != 0)
            st = st->next;
        if (!st) {
            snprintf(err, errlen, "connection %u of %u has no statement \"%s\"", k + 1, p->n,
                     load->stmt->name);
            return PGCB_ERR_PROTOCOL;
        }
        p->stmts[k] = st;
    }
    return pl_loop_run(&p->loop, &rwp_ops, p, load, out, err, errlen);
}
