/* host_conn.c -- see host_child.h: a host thread's connection, statements,
 * parameters and bulk queries. */
#include "host_child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "util.h"
#include "server/bulk.h"

static int query_used(const struct pgcb_config *cfg, size_t q)
{
    for (size_t i = 0; i < cfg->nsuites; i++)
        for (size_t k = 0; k < cfg->suites[i].nqueries; k++)
            if (cfg->suites[i].queries[k] == q)
                return 1;
    for (size_t i = 0; i < cfg->nbackgrounds; i++)
        if (cfg->backgrounds[i].query == q)
            return 1;
    return 0;
}

static int txn_used(const struct pgcb_config *cfg)
{
    for (size_t i = 0; i < cfg->nsuites; i++)
        if (cfg->suites[i].transaction)
            return 1;
    return 0;
}

void pgcb_hconn_close(struct pgcb_hchild *c, uint32_t t)
{
    size_t nq = c->env->cfg->nqueries;
    if (c->conns[t])
        c->hd.drv->close(c->conns[t]);
    c->conns[t] = NULL;
    memset(&c->stmts[(size_t)t * nq], 0, nq * sizeof *c->stmts);
    memset(&c->bulk[(size_t)t * nq * BULK_NSTMTS], 0, nq * BULK_NSTMTS * sizeof *c->bulk);
    c->txn[2 * t] = c->txn[2 * t + 1] = NULL;
}

/* Size w's parameter arrays for query q at `depth`: enough rows for at
 * least one batch. Returns the most batches one block can draw (0: the
 * query has no parameters, no limit). */
size_t pgcb_hconn_params_reserve(struct pgcb_hworker *w, const struct pgcb_cfg_query *q, uint32_t depth)
{
    if (q->nparams == 0)
        return 0;
    size_t row_bytes = 0;
    for (size_t j = 0; j < q->nparams; j++)
        row_bytes += pgcb_gen_max_len(&q->params[j]);
    size_t rows = HOST_PARAM_ROWS / q->nparams;
    if (row_bytes && rows > HOST_PARAM_BYTES / row_bytes)
        rows = HOST_PARAM_BYTES / row_bytes;
    if (rows < depth)
        rows = depth;
    rows -= rows % depth;
    if (rows > w->param_rows) {
        free(w->values);
        free(w->lengths);
        w->values = pgcb_xcalloc(rows * q->nparams, sizeof *w->values);
        w->lengths = pgcb_xcalloc(rows * q->nparams, sizeof *w->lengths);
        w->param_rows = rows;
    }
    if (rows * row_bytes + 1 > w->arena_size) {
        free(w->arena);
        w->arena_size = rows * row_bytes + 1;
        w->arena = pgcb_xmalloc(w->arena_size);
    }
    return rows / depth;
}

/* Draw the parameters of `batches` batches into w's arrays. */
void pgcb_hconn_params_draw(struct pgcb_hworker *w, const struct pgcb_cfg_query *q, uint32_t depth,
                        size_t batches)
{
    if (q->nparams)
        pgcb_gen_fill(q->params, q->nparams, &w->rng, w->c->env->seqs, batches * depth, w->values,
                      w->lengths, w->arena);
}

/* What one bulk check step gave: PGCB_OK, or a status with why. */
static int bulk_step(struct pgcb_hchild *c, uint32_t t, size_t q, int k, const char *what,
                     struct pgcb_sum *sum, char *why, size_t n)
{
    const struct pgcb_driver *drv = c->hd.drv;
    struct pgcb_stmt *st = c->bulk[((size_t)t * c->env->cfg->nqueries + q) * BULK_NSTMTS + k];
    char e[PGCB_ERRLEN] = "";
    memset(sum, 0, sizeof *sum);
    int rc = drv->run_batch(c->conns[t], st, 1, sum, e, sizeof e);
    if (rc != PGCB_OK)
        snprintf(why, n, "%s failed: %s", what, e);
    return rc;
}

/* Write the bulk query q's rows once on thread t's connection -- the COPY
 * of its payload, or one batch binding every params_from row in order --
 * into the emptied table, read them back, and compare with the source
 * rows through the same driver; then empty the table again. A server error
 * is the query's failure (recorded); a mismatch marks the driver invalid
 * for the query (recorded); an I/O error fails the host (-1). */
static int bulk_verify(struct pgcb_hchild *c, uint32_t t, size_t q, const char *who, char *err,
                       size_t errlen)
{
    const struct pgcb_config *cfg = c->env->cfg;
    const struct pgcb_cfg_query *cq = &cfg->queries[q];
    const struct pgcb_bulk *b = cq->bulk;
    const struct pgcb_driver *drv = c->hd.drv;
    struct pgcb_host_query *hq = &c->sh->queries[q];
    char why[PGCB_ERRLEN + 96] = "", e[PGCB_ERRLEN] = "";
    struct pgcb_sum back, src, ignored;
    uint64_t rows = 0;
    atomic_store(&c->sh->heartbeat_ns, pgcb_now_ns());
    int rc = bulk_step(c, t, q, BULK_TRUNCATE, b->truncate_sql, &ignored, why, sizeof why);
    if (rc == PGCB_OK && cq->copy) {
        struct pgcb_copy copy = {b->copy_sql, b->payload, b->len, b->rows};
        rc = drv->run_copy(c->conns[t], &copy, &rows, e, sizeof e);
        if (rc != PGCB_OK)
            snprintf(why, sizeof why, "%s failed: %s", b->copy_sql, e);
    } else if (rc == PGCB_OK) {
        struct pgcb_params p = {(uint32_t)b->rows_view.ncols, b->values, b->lengths};
        struct pgcb_stmt *st = c->stmts[(size_t)t * cfg->nqueries + q];
        rc = drv->run_batch_params(c->conns[t], st, (uint32_t)b->rows, &p, &ignored, e,
                                   sizeof e);
        rows = b->rows;
        if (rc != PGCB_OK)
            snprintf(why, sizeof why, "a batch of its %llu params_from rows failed: %s",
                     (unsigned long long)b->rows, e);
    }
    if (rc == PGCB_OK)
        rc = bulk_step(c, t, q, BULK_READ_BACK, "reading back", &back, why, sizeof why);
    if (rc == PGCB_OK)
        rc = bulk_step(c, t, q, BULK_SOURCE, "the source query", &src, why, sizeof why);
    if (rc == PGCB_OK)
        rc = bulk_step(c, t, q, BULK_TRUNCATE, b->truncate_sql, &ignored, why, sizeof why);
    if (rc == PGCB_ERR_QUERY) {
        hq->failed = 1;
        snprintf(hq->err, sizeof hq->err, "query %s: %s: %s", cq->name, who, why);
        return 0;
    }
    if (rc != PGCB_OK) {
        snprintf(err, errlen, "query %s: %s: %s", cq->name, who, why);
        pgcb_hconn_close(c, t);
        return -1;
    }
    if (rows != b->rows || back.rows != src.rows || back.hash != src.hash) {
        hq->failed = hq->invalid = 1;
        snprintf(hq->err, sizeof hq->err, "read back: %s wrote %llu rows of %llu; the table "
                 "read back gave %llu rows, checksum %016llx, the source through the same "
                 "driver %llu rows, checksum %016llx", cq->copy ? "the COPY" : "the batch",
                 (unsigned long long)rows, (unsigned long long)b->rows,
                 (unsigned long long)back.rows, (unsigned long long)back.hash,
                 (unsigned long long)src.rows, (unsigned long long)src.hash);
        return 0;
    }
    hq->primed = 1;
    hq->prime_rows = cq->copy ? rows : 0;
    return 0;
}

/* Prepare bulk query q's read-back, source and TRUNCATE statements on
 * thread t's connection; a COPY query's TRUNCATE is also its statement (the
 * COPY plan's reset, measure.h), and a COPY is verified here. Returns 0,
 * 1 when the server refused one (recorded in the query), or -1 (the
 * connection failed; err set). */
static int bulk_open(struct pgcb_hchild *c, uint32_t t, size_t q, const char *who, char *err,
                     size_t errlen)
{
    const struct pgcb_config *cfg = c->env->cfg;
    const struct pgcb_cfg_query *cq = &cfg->queries[q];
    const struct pgcb_bulk *b = cq->bulk;
    const struct pgcb_driver *drv = c->hd.drv;
    struct pgcb_host_query *hq = &c->sh->queries[q];
    const char *sql[BULK_NSTMTS] = {b->read_back_sql, b->source_sql, b->truncate_sql};
    static const char *const what[BULK_NSTMTS] = {"rb", "src", "tr"};
    struct pgcb_stmt **st = &c->bulk[((size_t)t * cfg->nqueries + q) * BULK_NSTMTS];
    for (int k = 0; k < BULK_NSTMTS; k++) {
        char name[96], why[PGCB_ERRLEN] = "";
        snprintf(name, sizeof name, "pgcb%s_%s", what[k], cq->name);
        int rc = drv->prepare(c->conns[t], name, sql[k], &st[k], why, sizeof why);
        if (rc == PGCB_ERR_QUERY && t == 0) {
            hq->failed = 1;
            snprintf(hq->err, sizeof hq->err, "query %s: %s: prepare of %s failed: %s",
                     cq->name, who, sql[k], why);
            return 1;
        }
        if (rc != PGCB_OK) {
            snprintf(err, errlen, "query %s: %s: prepare of %s failed: %s", cq->name, who,
                     sql[k], why);
            pgcb_hconn_close(c, t);
            return -1;
        }
    }
    if (!cq->copy)
        return 0;
    c->stmts[(size_t)t * cfg->nqueries + q] = st[BULK_TRUNCATE];
    if (t != 0)
        return 0;
    if (bulk_verify(c, t, q, who, err, errlen) != 0)
        return -1;
    return hq->failed ? 1 : 0;
}

/* Whether driver c cannot run query q at all (parameters without ABI 1.1's
 * run_batch_params, a COPY without run_copy): then 1, and on the first
 * connection the query is recorded as skipped with the reason. */
static int driver_lacks(struct pgcb_hchild *c, uint32_t t, size_t q)
{
    const struct pgcb_driver *drv = c->hd.drv;
    const struct pgcb_cfg_query *cq = &c->env->cfg->queries[q];
    struct pgcb_host_query *hq = &c->sh->queries[q];
    if (cq->nparams && !PGCB_DRIVER_HAS(drv, 1, run_batch_params)) {
        if (t == 0) {
            hq->failed = hq->skipped = 1;
            snprintf(hq->err, sizeof hq->err, "skipped: query %s has parameters and driver "
                     "%s has ABI %u.%u, without run_batch_params (ABI 1.1)", cq->name,
                     c->hd.name, (unsigned)drv->abi_major, (unsigned)drv->abi_minor);
        }
        return 1;
    }
    if (cq->stream && !PGCB_DRIVER_HAS(drv, 6, run_stream)) {
        if (t == 0) {
            hq->failed = hq->skipped = 1;
            snprintf(hq->err, sizeof hq->err, "skipped: query %s is read by a streaming suite "
                     "and driver %s has %s", cq->name, c->hd.name,
                     drv->abi_minor < 6 ? "an ABI before 1.6, without run_stream"
                                        : "no run_stream (ABI 1.6, optional)");
        }
        return 1;
    }
    if (cq->copy && !PGCB_DRIVER_HAS(drv, 4, run_copy)) {
        if (t == 0) {
            hq->failed = hq->skipped = 1;
            if (drv->abi_minor < 4)
                snprintf(hq->err, sizeof hq->err, "skipped: query %s is a COPY and driver "
                         "%s has ABI %u.%u, without run_copy (ABI 1.4)", cq->name,
                         c->hd.name, (unsigned)drv->abi_major,
                         (unsigned)drv->abi_minor);
            else
                snprintf(hq->err, sizeof hq->err, "skipped: query %s is a COPY and driver "
                         "%s has no run_copy (ABI 1.4, optional)", cq->name,
                         c->hd.name);
        }
        return 1;
    }
    return 0;
}

/* Prime query q's statement `stmt` on thread t's connection: one
 * execution, with the first row of a stream every driver shares; with
 * check_rows, its rows against [query] rows. Returns 0 (primed, or refused
 * by the server on the first connection: recorded in the query), or -1
 * (err set; the connection closed). */
static int prime_query(struct pgcb_hchild *c, uint32_t t, size_t q, struct pgcb_stmt *stmt,
                       int check_rows, const char *who, char *err, size_t errlen)
{
    const struct pgcb_config *cfg = c->env->cfg;
    const struct pgcb_cfg_query *cq = &cfg->queries[q];
    struct pgcb_host_query *hq = &c->sh->queries[q];
    char why[PGCB_ERRLEN] = "";
    struct pgcb_sum sum = {0, 0};
    const char *values[PGCB_MAX_PARAMS];
    int lengths[PGCB_MAX_PARAMS];
    char *arena = NULL;
    struct pgcb_plan plan = {.drv = c->hd.drv, .conn = c->conns[t], .stmt = stmt, .depth = 1,
                             .nparams = (uint32_t)cq->nparams, .values = values,
                             .lengths = lengths};
    if (cq->nparams) {
        size_t bytes = 1;
        for (size_t j = 0; j < cq->nparams; j++)
            bytes += pgcb_gen_max_len(&cq->params[j]);
        arena = pgcb_xmalloc(bytes);
        struct pgcb_rng rng;
        pgcb_rng_seed(&rng, cfg->seed, q, PGCB_STREAM_PRIME, t, 0);
        pgcb_gen_fill(cq->params, cq->nparams, &rng, c->env->seqs, 1, values, lengths, arena);
    }
    int rc = pgcb_measure_batch(&plan, 0, &sum, why, sizeof why);
    free(arena);
    if (rc == PGCB_ERR_QUERY && t == 0) {
        hq->failed = 1;
        snprintf(hq->err, sizeof hq->err, "query %s: %s: first execution failed: %s",
                 cq->name, who, why);
        return 0;
    }
    if (rc != PGCB_OK) {
        snprintf(err, errlen, "query %s: %s: first execution failed: %s", cq->name, who, why);
        pgcb_hconn_close(c, t);
        return -1;
    }
    if (check_rows && cq->rows >= 0 && cq->check != PGCB_CHECK_NONE &&
        sum.rows != (uint64_t)cq->rows) {
        snprintf(err, errlen, "query %s: expected %lld rows per execution ([query.%s] rows "
                 "at %s:%d), %s got %llu", cq->name, (long long)cq->rows, cq->name,
                 cfg->file, cq->line, who, (unsigned long long)sum.rows);
        pgcb_hconn_close(c, t);
        return -1;
    }
    if (t == 0) {
        hq->prime_rows = sum.rows;
        hq->primed = 1;
    }
    return 0;
}

/* Connect thread t, prepare and prime every used query the first
 * connection could prepare. A query the server refuses on the first
 * connection is recorded in sh->queries; anything else fails (-1). */
int pgcb_hconn_open(struct pgcb_hchild *c, uint32_t t, int check_rows, char *err, size_t errlen)
{
    const struct pgcb_config *cfg = c->env->cfg;
    const struct pgcb_driver *drv = c->hd.drv;
    char why[PGCB_ERRLEN] = "", who[112];
    if (c->nthreads > 1)
        snprintf(who, sizeof who, "%s %s (connection %u)", c->role, c->hd.name, t + 1);
    else
        snprintf(who, sizeof who, "%s %s", c->role, c->hd.name);
    pgcb_hconn_close(c, t);
    atomic_store(&c->sh->heartbeat_ns, pgcb_now_ns());
    /* A concurrency suite's host: each thread's connection is a pool
     * (ABI 1.5; the session starts such a host only for a driver that has
     * pool_open), prepared, primed and used as one connection besides its
     * loads. */
    int rc = c->pool ? drv->pool_open(c->conninfo, c->hd.opts, c->hd.nopts, c->pool,
                                      &c->conns[t], why, sizeof why)
                     : drv->open(c->conninfo, c->hd.opts, c->hd.nopts, &c->conns[t], why,
                                 sizeof why);
    if (rc != PGCB_OK) {
        c->conns[t] = NULL;
        snprintf(err, errlen, "%s: cannot connect: %s", who, why);
        return -1;
    }
    if (txn_used(cfg)) {
        static const char *const sql[2] = {"BEGIN", "COMMIT"};
        static const char *const name[2] = {"pgcbtx_begin", "pgcbtx_commit"};
        for (int k = 0; k < 2; k++)
            if (drv->prepare(c->conns[t], name[k], sql[k], &c->txn[2 * t + k], why,
                             sizeof why) != PGCB_OK) {
                snprintf(err, errlen, "%s: cannot prepare %s: %s", who, sql[k], why);
                pgcb_hconn_close(c, t);
                return -1;
            }
    }
    for (size_t q = 0; q < cfg->nqueries; q++) {
        if (!query_used(cfg, q) || c->sh->queries[q].failed)
            continue;
        atomic_store(&c->sh->heartbeat_ns, pgcb_now_ns());
        const struct pgcb_cfg_query *cq = &cfg->queries[q];
        struct pgcb_host_query *hq = &c->sh->queries[q];
        if (driver_lacks(c, t, q))
            continue;
        struct pgcb_stmt **stmt = &c->stmts[(size_t)t * cfg->nqueries + q];
        /* A driver without I/O writes nothing: there is nothing to read back. */
        if (cq->bulk && cq->bulk->read_back_sql && !(c->hd.caps & PGCB_CAP_NO_IO)) {
            int v = bulk_open(c, t, q, who, err, errlen);
            if (v < 0)
                return -1;
            if (v > 0 || cq->copy)
                continue; /* refused (recorded), or a COPY: nothing else to prepare */
        }
        char name[80];
        snprintf(name, sizeof name, "pgcb_%s", cq->name);
        rc = drv->prepare(c->conns[t], name, cq->sql, stmt, why, sizeof why);
        if (rc == PGCB_ERR_QUERY && t == 0) {
            hq->failed = 1;
            snprintf(hq->err, sizeof hq->err, "query %s: %s: prepare failed: %s", cq->name, who,
                     why);
            continue;
        }
        /* A statement the driver cannot run as asked (a column type it cannot
         * fold in binary, libpq asking one format for all columns): its groups
         * are skipped for this driver, with the driver's reason; the rest runs. */
        if (rc == PGCB_ERR_UNSUPPORTED && t == 0) {
            hq->failed = hq->skipped = 1;
            snprintf(hq->err, sizeof hq->err, "skipped: query %s: %s cannot run it: %s",
                     cq->name, who, why);
            continue;
        }
        if (rc != PGCB_OK) {
            snprintf(err, errlen, "query %s: %s: prepare failed: %s", cq->name, who, why);
            pgcb_hconn_close(c, t);
            return -1;
        }
        /* A streaming query is not primed: a result of a million rows read
         * here would be in the client's memory before the group's; its
         * warm-up's first read sets the checksum (host_child.c). */
        if (cq->prime && !cq->stream && prime_query(c, t, q, *stmt, check_rows, who, err, errlen) != 0)
            return -1;
    }
    /* The insert batches read back (bulk.h): now that the statement is
     * prepared, on the first connection. */
    for (size_t q = 0; q < cfg->nqueries; q++) {
        const struct pgcb_cfg_query *cq = &cfg->queries[q];
        if (t != 0 || !query_used(cfg, q) || c->sh->queries[q].failed || cq->copy || !cq->bulk ||
            !cq->bulk->read_back_sql || (c->hd.caps & PGCB_CAP_NO_IO))
            continue;
        if (bulk_verify(c, t, q, who, err, errlen) != 0)
            return -1;
    }
    return 0;
}
