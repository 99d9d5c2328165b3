/*
 * pp_pool.c -- libpq_pipeline's pools (ABI 1.5 pool_open, run_load): N
 * non-blocking libpq connections in one thread, one query in flight on
 * each, on lib/pgload's epoll loop. A query is PQsendQueryPrepared +
 * PQpipelineSync (Bind, Describe, Execute, Sync: what libpq_sync sends);
 * when its socket is readable, PQconsumeInput, then every result that is
 * complete (PQisBusy false): its result, a NULL, the PGRES_PIPELINE_SYNC,
 * and the query is done. Its rows are folded by pq_fold.c as run_batch
 * folds them.
 *
 * Ownership: the head connection owns its struct pp_pool (c->pool), which
 * owns the other connections; pp_pool_close frees them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/pl_loop.h"
#include "pp_int.h"
#include "pqutil/pq_errmsg.h"
#include "pqutil/pq_fold.h"

/* Where a connection's query is: waiting for its result, for the NULL
 * after it, for the sync. */
enum { PPS_IDLE = 0, PPS_RESULT, PPS_NULL, PPS_SYNC };

struct pp_slot {
    const struct pgcb_stmt *st; /* the current load's statement on this connection */
    int phase;                  /* PPS_* */
    int flush;                  /* PQflush left output pending: wait for POLLOUT too */
    int qrc;                    /* the query's failure, told once its sync is in */
    char qerr[PGCB_ERRLEN];
};

struct pp_pool {
    uint32_t n;
    struct pgcb_conn **conns;   /* conns[0] is the head */
    struct pp_slot *slots;
    uint32_t *pids;             /* each connection's server process (libpq forgets it once
                                   the connection is bad) */
    struct pl_loop loop;
};

static void pp_pool_free(struct pp_pool *p)
{
    if (!p)
        return;
    for (uint32_t k = 1; k < p->n; k++)
        pp_close(p->conns[k]);
    pl_loop_free(&p->loop);
    free(p->conns);
    free(p->slots);
    free(p->pids);
    free(p);
}

void pp_pool_close(struct pgcb_conn *c)
{
    if (!c)
        return;
    pp_pool_free(c->pool);
    c->pool = NULL;
    pp_close(c);
}

int pp_pool_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                 uint32_t nconns, struct pgcb_conn **out, char *err, size_t errlen)
{
    *out = NULL;
    if (nconns < 1) {
        pgcb_pq_errf(err, errlen, "a pool needs at least 1 connection");
        return PGCB_ERR_CONFIG;
    }
    struct pp_pool *p = calloc(1, sizeof *p);
    if (p) {
        p->conns = calloc(nconns, sizeof *p->conns);
        p->slots = calloc(nconns, sizeof *p->slots);
        p->pids = calloc(nconns, sizeof *p->pids);
    }
    if (!p || !p->conns || !p->slots || !p->pids) {
        pp_pool_free(p);
        pgcb_pq_errf(err, errlen, "out of memory for a pool of %u connections", nconns);
        return PGCB_ERR_NOMEM;
    }
    p->n = nconns;
    int rc = pl_loop_init(&p->loop, nconns, 1, err, errlen);
    for (uint32_t k = 0; k < nconns && rc == PGCB_OK; k++) {
        char why[PGCB_ERRLEN];
        if ((rc = pp_open(conninfo, opts, nopts, &p->conns[k], why, sizeof why)) != PGCB_OK)
            pgcb_pq_errf(err, errlen, "pool connection %u of %u: %s", k + 1, nconns, why);
        else
            p->pids[k] = (uint32_t)PQbackendPID(p->conns[k]->pg);
    }
    if (rc != PGCB_OK) {
        struct pgcb_conn *head = p->conns[0];
        p->conns[0] = NULL;
        pp_pool_free(p);
        pp_close(head);
        return rc;
    }
    p->conns[0]->pool = p;
    *out = p->conns[0];
    return PGCB_OK;
}

int pp_pool_prepare(struct pgcb_conn *c, const char *name, const char *sql,
                    struct pgcb_stmt **out, char *err, size_t errlen)
{
    int rc = pp_prepare(c, name, sql, out, err, errlen);
    for (uint32_t k = 1; c->pool && k < c->pool->n && rc == PGCB_OK; k++) {
        struct pgcb_stmt *st;
        if ((rc = pp_prepare(c->pool->conns[k], name, sql, &st, err, errlen)) != PGCB_OK)
            *out = NULL; /* the head's statement lives on with the head, unused */
    }
    return rc;
}

/* ---- the loop's view of a connection (struct pl_ops) ------------------- */

static int ppl_issue(void *pool, uint32_t k, uint64_t index, const struct pgcb_load *load,
                     int *complete, struct pgcb_sum *sum, char *err, size_t errlen)
{
    struct pp_pool *p = pool;
    struct pgcb_conn *c = p->conns[k];
    struct pp_slot *s = &p->slots[k];
    struct pgcb_params row, *pr = NULL;
    int rc;
    (void)sum;
    *complete = 0;
    if (load->params && load->params->nparams) {
        const size_t at = (size_t)index * load->params->nparams;
        row = (struct pgcb_params){load->params->nparams, load->params->values + at,
                                   load->params->lengths + at};
        pr = &row;
    }
    if (PQstatus(c->pg) != CONNECTION_OK)
        return pp_io_failure(c, "connection not usable: ", err, errlen);
    if ((rc = pgcb_pq_params_reserve(&c->params, pr, 1, err, errlen)) != PGCB_OK)
        return rc;
    const int *lengths;
    const char *const *values = pgcb_pq_params_query(&c->params, pr, 0, &lengths);
    if (!PQsendQueryPrepared(c->pg, s->st->name, pgcb_pq_nparams(pr), values, lengths, NULL,
                             c->result_format) ||
        !PQpipelineSync(c->pg))
        return pp_io_failure(c, "cannot send the query: ", err, errlen);
    int f = PQflush(c->pg);
    if (f < 0)
        return pp_io_failure(c, "cannot send the query: ", err, errlen);
    s->flush = f == 1;
    s->phase = PPS_RESULT;
    s->qrc = PGCB_OK;
    return PGCB_OK;
}

/* One result of the query in flight on c (not NULL, not the sync). The
 * server's FATAL (pg_terminate_backend: 57P01) arrives as the query's error
 * result just before the connection breaks: its message is kept with
 * libpq's, which by then says only that the server closed the connection. */
static void ppl_result(struct pgcb_conn *c, struct pp_slot *s, PGresult *res,
                       struct pgcb_sum *sum)
{
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_TUPLES_OK) {
        s->qrc = pgcb_pq_fold_result(res, s->st, c->c_locale, sum, s->qerr, sizeof s->qerr);
    } else if (st == PGRES_FATAL_ERROR && PQresultErrorField(res, PG_DIAG_SQLSTATE)) {
        pgcb_pq_err_result(s->qerr, sizeof s->qerr, res, c->pg);
        s->qrc = PGCB_ERR_QUERY;
    } else if (st != PGRES_COMMAND_OK) {
        s->qrc = pp_result_failure(c, res, s->qerr, sizeof s->qerr);
    }
}

/* The connection broke: libpq's message, after the server's error if its
 * query got one. */
static int ppl_broken(struct pgcb_conn *c, struct pp_slot *s, char *err, size_t errlen)
{
    /* Parse what the server sent before it closed: PQconsumeInput can see
     * the end of file in the same call that read the server's FATAL, which
     * libpq then appends to PQerrorMessage as it parses it. */
    (void)PQisBusy(c->pg);
    if (s->phase == PPS_IDLE || s->qrc != PGCB_ERR_QUERY)
        return pp_io_failure(c, NULL, err, errlen);
    char io[PGCB_ERRLEN];
    pp_io_failure(c, NULL, io, sizeof io);
    snprintf(err, errlen, "%s; %s", s->qerr, io);
    s->phase = PPS_IDLE;
    return PGCB_ERR_IO;
}

static int ppl_advance(void *pool, uint32_t k, unsigned got, int *complete,
                       struct pgcb_sum *sum, char *err, size_t errlen)
{
    struct pp_pool *p = pool;
    struct pgcb_conn *c = p->conns[k];
    struct pp_slot *s = &p->slots[k];
    PGconn *pg = c->pg;
    *complete = 0;
    if (got & PL_WRITE) {
        int f = PQflush(pg);
        if (f < 0)
            return pp_io_failure(c, NULL, err, errlen);
        s->flush = f == 1;
    }
    if ((got & PL_READ) && !PQconsumeInput(pg))
        return ppl_broken(c, s, err, errlen);
    if (s->phase == PPS_IDLE) /* an idle connection: only a broken link matters */
        return PQstatus(pg) == CONNECTION_BAD ? pp_io_failure(c, NULL, err, errlen) : PGCB_OK;
    while (!PQisBusy(pg)) {
        if (PQstatus(pg) == CONNECTION_BAD)
            return ppl_broken(c, s, err, errlen);
        PGresult *res = PQgetResult(pg);
        if (s->phase == PPS_RESULT && res) {
            ppl_result(c, s, res, sum);
            s->phase = PPS_NULL;
        } else if (s->phase == PPS_NULL && !res) {
            s->phase = PPS_SYNC;
        } else if (s->phase == PPS_SYNC && res && PQresultStatus(res) == PGRES_PIPELINE_SYNC) {
            PQclear(res);
            s->phase = PPS_IDLE;
            if (s->qrc != PGCB_OK) {
                snprintf(err, errlen, "%s", s->qerr);
                return s->qrc;
            }
            *complete = 1;
            return PGCB_OK;
        } else {
            int broken = PQstatus(pg) == CONNECTION_BAD, had = res != NULL;
            PQclear(res);
            if (broken)
                return ppl_broken(c, s, err, errlen);
            pgcb_pq_errf(err, errlen, "libpq returned results out of pipeline order (%s "
                         "where the %s was due)", had ? "a result" : "no result",
                         s->phase == PPS_RESULT ? "query's result"
                         : s->phase == PPS_NULL ? "end of its results" : "sync");
            return PGCB_ERR_PROTOCOL;
        }
        PQclear(res);
    }
    return PQstatus(pg) == CONNECTION_BAD ? ppl_broken(c, s, err, errlen) : PGCB_OK;
}

static unsigned ppl_events(void *pool, uint32_t k)
{
    const struct pp_pool *p = pool;
    return PL_READ | (p->slots[k].phase != PPS_IDLE && p->slots[k].flush ? PL_WRITE : 0u);
}

static int ppl_fd(void *pool, uint32_t k)
{
    return ((const struct pp_pool *)pool)->conns[k]->sock;
}

static uint32_t ppl_backend_pid(void *pool, uint32_t k)
{
    return ((const struct pp_pool *)pool)->pids[k];
}

static const struct pl_ops ppl_ops = {
    .issue = ppl_issue,
    .advance = ppl_advance,
    .events = ppl_events,
    .fd = ppl_fd,
    .backend_pid = ppl_backend_pid,
};

int pp_pool_run_load(struct pgcb_conn *c, const struct pgcb_load *load,
                     struct pgcb_load_out *out, char *err, size_t errlen)
{
    struct pp_pool *p = c->pool;
    if (!p) {
        pgcb_pq_errf(err, errlen, "run_load on a connection that pool_open did not open");
        return PGCB_ERR_UNSUPPORTED;
    }
    if (!load->stmt) {
        pgcb_pq_errf(err, errlen, "run_load: no statement");
        return PGCB_ERR_CONFIG;
    }
    /* Each connection's own statement of the same name (prepared on all). */
    for (uint32_t k = 0; k < p->n; k++) {
        const struct pgcb_stmt *st = k == 0 ? load->stmt : p->conns[k]->stmts;
        while (st && strcmp(st->name, load->stmt->name) != 0)
            st = st->next;
        if (!st) {
            pgcb_pq_errf(err, errlen, "connection %u of %u has no statement \"%s\"", k + 1,
                         p->n, load->stmt->name);
            return PGCB_ERR_PROTOCOL;
        }
        p->slots[k] = (struct pp_slot){.st = st, .phase = PPS_IDLE};
    }
    return pl_loop_run(&p->loop, &ppl_ops, p, load, out, err, errlen);
}
