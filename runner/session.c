/*
 * session.c -- drivers opened and prepared; the measurement of a group.
 *
 * A group is measured in this order (nothing before the orders is timed):
 *   1. each driver: one batch whose rows and checksum become the expected
 *      ones for this group, then warm-up batches for [bench] warmup_ms;
 *   2. each execution order, each driver in that order: blocks of batches
 *      until both floors are met: time_ms / orders of timed batches, and
 *      [bench] queries executed queries;
 *   3. per driver: figures from the pooled histogram, one median per order;
 *      rows and checksums compared within and across drivers.
 */
#include "session.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure.h"
#include "orders.h"
#include "stats.h"
#include "util.h"

/* ---- loading and opening ---------------------------------------------- */

static int check_options(const struct pgcb_config *cfg, struct pgcb_sdriver *sd, char *err,
                         size_t errlen)
{
    const struct pgcb_option_spec *spec = sd->ld.drv->options;
    for (size_t i = 0; i < sd->cfg->nopts; i++) {
        const struct pgcb_cfg_kv *kv = &sd->cfg->opts[i];
        int known = 0;
        for (const struct pgcb_option_spec *o = spec; o && o->key; o++)
            known |= strcmp(o->key, kv->key) == 0;
        if (!known) {
            char list[256] = "";
            for (const struct pgcb_option_spec *o = spec; o && o->key; o++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         list[0] ? ", " : "", o->key);
            snprintf(err, errlen, "%s:%d: unknown key '%s' in [driver.%s] (%s accepts: %s)",
                     cfg->file, kv->line, kv->key, sd->cfg->name, sd->ld.drv->name,
                     list[0] ? list : "path only");
            return -1;
        }
    }
    sd->nopts = sd->cfg->nopts;
    sd->opts = pgcb_xcalloc(sd->nopts, sizeof *sd->opts);
    for (size_t i = 0; i < sd->nopts; i++)
        sd->opts[i] = (struct pgcb_option){sd->cfg->opts[i].key, sd->cfg->opts[i].value};
    return 0;
}

int pgcb_session_load(struct pgcb_session *s, const struct pgcb_config *cfg, char *err,
                      size_t errlen)
{
    *s = (struct pgcb_session){.cfg = cfg};
    s->ndrivers = cfg->ndrivers;
    s->drivers = pgcb_xcalloc(s->ndrivers, sizeof *s->drivers);
    for (size_t i = 0; i < s->ndrivers; i++) {
        struct pgcb_sdriver *sd = &s->drivers[i];
        sd->cfg = &cfg->drivers[i];
        sd->stmts = pgcb_xcalloc(cfg->nqueries, sizeof *sd->stmts);
        sd->prime_rows = pgcb_xcalloc(cfg->nqueries, sizeof *sd->prime_rows);
        char why[PGCB_ERRLEN];
        if (pgcb_loader_open(sd->cfg->name, sd->cfg->path, &sd->ld, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s:%d: %s", cfg->file, sd->cfg->path_line, why);
            return -1;
        }
        if (check_options(cfg, sd, err, errlen) != 0)
            return -1;
    }
    if (s->ndrivers > 8) {
        snprintf(err, errlen, "%s: %zu drivers: every permutation would be too many orders "
                 "(at most 8 drivers in this version)", cfg->file, s->ndrivers);
        return -1;
    }
    s->orders = pgcb_orders_all(s->ndrivers, &s->norders);
    s->samples = pgcb_xcalloc(PGCB_BLOCK_MAX, sizeof *s->samples);
    if (pgcb_hist_init(&s->order_hist) != 0) {
        snprintf(err, errlen, "out of memory for the histograms");
        return -1;
    }
    return 0;
}

static int query_used(const struct pgcb_config *cfg, size_t q)
{
    for (size_t i = 0; i < cfg->nsuites; i++)
        for (size_t k = 0; k < cfg->suites[i].nqueries; k++)
            if (cfg->suites[i].queries[k] == q)
                return 1;
    return 0;
}

/* Connect driver d and prepare + prime every used query. */
static int open_driver(struct pgcb_session *s, struct pgcb_sdriver *sd, int check_rows,
                       char *err, size_t errlen)
{
    const struct pgcb_config *cfg = s->cfg;
    const struct pgcb_driver *drv = sd->ld.drv;
    char why[PGCB_ERRLEN] = "";
    memset(sd->stmts, 0, cfg->nqueries * sizeof *sd->stmts);
    int rc = drv->open(cfg->conninfo, sd->opts, sd->nopts, &sd->conn, why, sizeof why);
    if (rc != PGCB_OK) {
        sd->conn = NULL;
        snprintf(err, errlen, "driver %s: cannot connect: %s", sd->cfg->name, why);
        return -1;
    }
    sd->needs_reconnect = 0;
    for (size_t q = 0; q < cfg->nqueries; q++) {
        if (!query_used(cfg, q))
            continue;
        const struct pgcb_cfg_query *cq = &cfg->queries[q];
        char name[80];
        snprintf(name, sizeof name, "pgcb_%s", cq->name);
        rc = drv->prepare(sd->conn, name, cq->sql, &sd->stmts[q], why, sizeof why);
        if (rc != PGCB_OK) {
            snprintf(err, errlen, "query %s: driver %s: prepare failed: %s", cq->name,
                     sd->cfg->name, why);
            return -1;
        }
        struct pgcb_sum sum = {0, 0};
        rc = drv->run_batch(sd->conn, sd->stmts[q], 1, &sum, why, sizeof why);
        if (rc != PGCB_OK) {
            snprintf(err, errlen, "query %s: driver %s: first execution failed: %s", cq->name,
                     sd->cfg->name, why);
            return -1;
        }
        sd->prime_rows[q] = sum.rows;
        if (check_rows && cq->rows >= 0 && sum.rows != (uint64_t)cq->rows) {
            snprintf(err, errlen, "query %s: expected %lld rows per execution ([query.%s] rows "
                     "at %s:%d), driver %s got %llu", cq->name, (long long)cq->rows, cq->name,
                     cfg->file, cq->line, sd->cfg->name, (unsigned long long)sum.rows);
            return -1;
        }
    }
    return 0;
}

int pgcb_session_open(struct pgcb_session *s, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->ndrivers; i++)
        if (open_driver(s, &s->drivers[i], 1, err, errlen) != 0)
            return -1;
    return 0;
}

void pgcb_session_describe(const struct pgcb_session *s, struct pgcb_result *r)
{
    r->ndrivers = s->ndrivers;
    r->drivers = pgcb_xcalloc(s->ndrivers, sizeof *r->drivers);
    for (size_t i = 0; i < s->ndrivers; i++) {
        const struct pgcb_driver *d = s->drivers[i].ld.drv;
        char *real = realpath(s->drivers[i].cfg->path, NULL);
        r->drivers[i] = (struct pgcb_res_driver){
            .label = pgcb_xstrdup(s->drivers[i].cfg->name),
            .name = pgcb_xstrdup(d->name),
            .version = pgcb_xstrdup(d->version),
            .links = pgcb_xstrdup(d->links),
            .path = real ? real : pgcb_xstrdup(s->drivers[i].cfg->path),
            .description = d->description ? pgcb_xstrdup(d->description) : NULL,
            .caps = d->caps,
            .abi_major = d->abi_major,
            .abi_minor = d->abi_minor,
        };
    }
    r->norders = s->norders;
    r->orders = pgcb_xcalloc(s->norders, sizeof *r->orders);
    for (size_t o = 0; o < s->norders; o++) {
        r->orders[o] = pgcb_xcalloc(s->ndrivers, sizeof **r->orders);
        memcpy(r->orders[o], s->orders[o], s->ndrivers * sizeof **r->orders);
    }
}

void pgcb_session_free(struct pgcb_session *s)
{
    for (size_t i = 0; i < s->ndrivers; i++) {
        struct pgcb_sdriver *sd = &s->drivers[i];
        if (sd->conn)
            sd->ld.drv->close(sd->conn);
        pgcb_loader_close(&sd->ld);
        free(sd->opts);
        free(sd->stmts);
        free(sd->prime_rows);
    }
    free(s->drivers);
    pgcb_orders_free(s->orders, s->norders);
    free(s->samples);
    pgcb_hist_free(&s->order_hist);
    *s = (struct pgcb_session){0};
}

/* ---- measuring a group ------------------------------------------------- */

/* Per driver, for the group being measured. */
struct gstate {
    uint64_t expect_rows, expect_sum;
    double est_ns;               /* estimated ns per batch, for block sizing */
    uint64_t batches, rows_bad, sum_bad, cpu_ns;
    int failed;
    struct pgcb_hist pooled;
};

static void cell_fail(struct pgcb_res_cell *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void cell_fail(struct pgcb_res_cell *c, const char *fmt, ...)
{
    char buf[PGCB_ERRLEN + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->status = PGCB_CELL_FAILED;
    free(c->error);
    c->error = pgcb_xstrdup(buf);
}

/* A failed batch: record it; a broken connection is closed, to be reopened
 * before the next group. */
static void batch_failed(struct pgcb_sdriver *sd, struct pgcb_res_cell *c, int rc,
                         const char *when, const char *why)
{
    cell_fail(c, "%s: %s", when, why);
    if (rc == PGCB_ERR_IO || rc == PGCB_ERR_PROTOCOL || rc == PGCB_ERR_CONNECT) {
        sd->ld.drv->close(sd->conn);
        sd->conn = NULL;
        sd->needs_reconnect = 1;
    }
}

struct progress {
    int on;
    uint64_t last_ns;
};

static void progress_show(struct progress *p, const struct pgcb_result *r, size_t g,
                          const char *driver, const char *phase, double share)
{
    if (!p->on)
        return;
    uint64_t now = pgcb_now_ns();
    if (now - p->last_ns < 200000000ull && share < 1.0)
        return;
    p->last_ns = now;
    const struct pgcb_res_group *gr = &r->groups[g];
    fprintf(stderr, "\r\033[K[group %zu/%zu] %s / %s depth %u: %s %s %3.0f%%", g + 1,
            r->ngroups, gr->suite, gr->query, gr->depth, driver, phase,
            100.0 * (share > 1.0 ? 1.0 : share));
    fflush(stderr);
}

static size_t block_size(double est_ns, uint64_t remaining_batches)
{
    double n = est_ns > 0 ? (double)PGCB_BLOCK_TARGET_NS / est_ns : 1.0;
    if (n < 1)
        n = 1;
    if (n > PGCB_BLOCK_MAX)
        n = PGCB_BLOCK_MAX;
    size_t k = (size_t)n;
    if (remaining_batches && remaining_batches < k)
        k = (size_t)remaining_batches;
    return k ? k : 1;
}

/* Warm up driver d for this group: expected rows/checksum from its first
 * batch, then batches for warmup_ms. 0, or -1 if it failed (cell set). */
static int warm_up(struct pgcb_session *s, struct pgcb_sdriver *sd, struct gstate *gs,
                   struct pgcb_res_cell *cell, struct pgcb_stmt *stmt, uint32_t depth,
                   struct progress *pr, const struct pgcb_result *r, size_t g)
{
    char why[PGCB_ERRLEN] = "";
    struct pgcb_block b;
    pgcb_measure_block(sd->ld.drv, sd->conn, stmt, depth, 1, 0, 0, s->samples, &b, why,
                       sizeof why);
    if (b.rc != PGCB_OK) {
        batch_failed(sd, cell, b.rc, "first batch", why);
        return -1;
    }
    gs->expect_sum = b.last_sum;
    gs->est_ns = (double)b.wall_ns;
    gs->rows_bad += b.last_rows != gs->expect_rows;
    gs->batches++;
    uint64_t budget = s->cfg->warmup_ms * 1000000ull, spent = b.wall_ns;
    while (spent < budget && !*s->stop) {
        pgcb_measure_block(sd->ld.drv, sd->conn, stmt, depth, block_size(gs->est_ns, 0),
                           gs->expect_rows, gs->expect_sum, s->samples, &b, why, sizeof why);
        if (b.rc != PGCB_OK) {
            batch_failed(sd, cell, b.rc, "warm-up", why);
            return -1;
        }
        spent += b.wall_ns;
        gs->est_ns = (double)b.wall_ns / (double)b.n;
        progress_show(pr, r, g, sd->cfg->name, "warm-up", (double)spent / (double)budget);
    }
    return 0;
}

/* Driver d's share of order o: blocks until both floors are met. */
static int run_order(struct pgcb_session *s, struct pgcb_sdriver *sd, struct gstate *gs,
                     struct pgcb_res_cell *cell, struct pgcb_stmt *stmt, uint32_t depth,
                     size_t o, struct progress *pr, const struct pgcb_result *r, size_t g)
{
    const struct pgcb_config *cfg = s->cfg;
    uint64_t time_floor = cfg->time_ms * 1000000ull / s->norders;
    uint64_t batch_floor = (cfg->min_queries + depth - 1) / depth;
    uint64_t spent = 0, batches = 0;
    char why[PGCB_ERRLEN] = "";
    char phase[64];
    snprintf(phase, sizeof phase, "order %zu/%zu", o + 1, s->norders);
    pgcb_hist_reset(&s->order_hist);

    while ((spent < time_floor || batches < batch_floor) && !*s->stop) {
        uint64_t left = 0;
        if (spent >= time_floor)
            left = batch_floor - batches;
        else if (batches >= batch_floor && gs->est_ns > 0)
            left = (uint64_t)((double)(time_floor - spent) / gs->est_ns) + 1;
        struct pgcb_block b;
        pgcb_measure_block(sd->ld.drv, sd->conn, stmt, depth, block_size(gs->est_ns, left),
                           gs->expect_rows, gs->expect_sum, s->samples, &b, why, sizeof why);
        /* Outside the timed loop: fold the block into the histograms. */
        pgcb_hist_add_many(&s->order_hist, s->samples, b.n);
        spent += b.wall_ns;
        batches += b.n;
        gs->cpu_ns += b.cpu_ns;
        gs->rows_bad += b.rows_bad;
        gs->sum_bad += b.sum_bad;
        if (b.n)
            gs->est_ns = (double)b.wall_ns / (double)b.n;
        if (b.rc != PGCB_OK) {
            char when[96];
            snprintf(when, sizeof when, "order %zu, after %llu batches", o + 1,
                     (unsigned long long)(gs->batches + batches));
            batch_failed(sd, cell, b.rc, when, why);
            break;
        }
        double share_t = time_floor ? (double)spent / (double)time_floor : 1.0;
        double share_q = (double)batches / (double)batch_floor;
        progress_show(pr, r, g, sd->cfg->name, phase, share_t < share_q ? share_t : share_q);
    }
    gs->batches += batches;
    cell->order_medians_ns[o] = s->order_hist.n ? pgcb_hist_median(&s->order_hist) : NAN;
    pgcb_hist_merge(&gs->pooled, &s->order_hist);
    return *s->stop ? 1 : 0;
}

static void cell_figures(struct pgcb_res_cell *c, const struct gstate *gs, uint32_t depth,
                         uint32_t threads)
{
    const struct pgcb_hist *h = &gs->pooled;
    c->samples = h->n;
    c->queries = h->n * depth;
    c->checksum = gs->expect_sum;
    c->rows_per_batch = gs->expect_rows;
    if (h->n == 0) {
        c->mean_ns = c->sd_ns = c->rme_pct = c->median_ns = c->p99_ns = NAN;
        c->ops_per_s = c->queries_per_s = c->cpu_ns_per_query = NAN;
        return;
    }
    c->mean_ns = h->mean;
    c->sd_ns = pgcb_hist_stddev(h);
    c->rme_pct = pgcb_stats_rme_pct(c->mean_ns, c->sd_ns, h->n);
    c->median_ns = pgcb_hist_median(h);
    c->p99_ns = (double)pgcb_hist_quantile(h, 0.99);
    c->min_ns = h->min;
    c->max_ns = h->max;
    c->wall_ns = (uint64_t)(h->mean * (double)h->n + 0.5);
    c->ops_per_s = c->mean_ns > 0 ? 1e9 / c->mean_ns : NAN;
    c->queries_per_s = c->ops_per_s * depth * threads;
    c->cpu_ns_per_query = (double)gs->cpu_ns / (double)c->queries;
}

/* Rows and checksums: within each driver, then across the client drivers. */
static void cell_checks(struct pgcb_session *s, struct pgcb_result *r, size_t g,
                        struct gstate *gs, int check_sum)
{
    struct pgcb_res_group *gr = &r->groups[g];
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        if (c->status != PGCB_CELL_OK)
            continue;
        char buf[256];
        if (gs[d].rows_bad) {
            snprintf(buf, sizeof buf, "%llu of %llu batches did not return %llu rows",
                     (unsigned long long)gs[d].rows_bad, (unsigned long long)gs[d].batches,
                     (unsigned long long)gs[d].expect_rows);
        } else if (check_sum && gs[d].sum_bad) {
            snprintf(buf, sizeof buf, "checksum changed in %llu of %llu batches (a "
                     "non-deterministic query? set [query] check = rows)",
                     (unsigned long long)gs[d].sum_bad, (unsigned long long)gs[d].batches);
        } else {
            continue;
        }
        c->status = PGCB_CELL_INVALID;
        c->error = pgcb_xstrdup(buf);
    }
    if (!check_sum)
        return;
    /* Across drivers: the checksum most client drivers agree on is right;
     * without a strict majority, every client driver is suspect. */
    size_t nclients = 0, best = SIZE_MAX, best_votes = 0;
    for (size_t d = 0; d < s->ndrivers; d++) {
        if (gr->cells[d].status != PGCB_CELL_OK ||
            (s->drivers[d].ld.drv->caps & PGCB_CAP_REFERENCE))
            continue;
        nclients++;
        size_t votes = 0;
        for (size_t k = 0; k < s->ndrivers; k++)
            if (gr->cells[k].status == PGCB_CELL_OK &&
                !(s->drivers[k].ld.drv->caps & PGCB_CAP_REFERENCE) &&
                gs[k].expect_sum == gs[d].expect_sum)
                votes++;
        if (votes > best_votes) {
            best_votes = votes;
            best = d;
        }
    }
    if (nclients < 2 || best_votes == nclients)
        return;
    int majority = 2 * best_votes > nclients;
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        if (c->status != PGCB_CELL_OK || (s->drivers[d].ld.drv->caps & PGCB_CAP_REFERENCE))
            continue;
        if (majority && gs[d].expect_sum == gs[best].expect_sum)
            continue;
        char buf[256];
        if (majority)
            snprintf(buf, sizeof buf, "checksum %016llx differs from %016llx, which %zu of %zu "
                     "client drivers returned (%s among them)",
                     (unsigned long long)gs[d].expect_sum,
                     (unsigned long long)gs[best].expect_sum, best_votes, nclients,
                     s->drivers[best].cfg->name);
        else
            snprintf(buf, sizeof buf, "checksum %016llx: the client drivers disagree and no "
                     "checksum has a majority", (unsigned long long)gs[d].expect_sum);
        c->status = PGCB_CELL_INVALID;
        c->error = pgcb_xstrdup(buf);
    }
}

int pgcb_session_run_group(struct pgcb_session *s, struct pgcb_result *r, size_t g, size_t q)
{
    const struct pgcb_config *cfg = s->cfg;
    struct pgcb_res_group *gr = &r->groups[g];
    const struct pgcb_cfg_query *cq = &cfg->queries[q];
    struct progress pr = {.on = !s->quiet && isatty(2)};
    struct gstate *gs = pgcb_xcalloc(s->ndrivers, sizeof *gs);
    int stopped = 0;

    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        c->norders = s->norders;
        c->order_medians_ns = pgcb_xcalloc(s->norders, sizeof(double));
        for (size_t o = 0; o < s->norders; o++)
            c->order_medians_ns[o] = NAN;
        if (pgcb_hist_init(&gs[d].pooled) != 0) {
            fprintf(stderr, "pgclientbench: out of memory for a histogram\n");
            exit(70);
        }
    }

    /* 1. Reconnect what broke, then first batch and warm-up, per driver. */
    for (size_t d = 0; d < s->ndrivers && !stopped; d++) {
        struct pgcb_sdriver *sd = &s->drivers[d];
        struct pgcb_res_cell *c = &gr->cells[d];
        c->status = PGCB_CELL_OK;
        if (sd->needs_reconnect) {
            char why[PGCB_ERRLEN + 128];
            if (sd->conn) {
                sd->ld.drv->close(sd->conn);
                sd->conn = NULL;
            }
            if (open_driver(s, sd, 0, why, sizeof why) != 0) {
                if (sd->conn) {
                    sd->ld.drv->close(sd->conn);
                    sd->conn = NULL;
                }
                sd->needs_reconnect = 1;
                cell_fail(c, "reconnect failed: %s", why);
                gs[d].failed = 1;
                continue;
            }
        }
        uint64_t per_query = cq->rows >= 0 ? (uint64_t)cq->rows : sd->prime_rows[q];
        gs[d].expect_rows = per_query * gr->depth;
        if (warm_up(s, sd, &gs[d], c, sd->stmts[q], gr->depth, &pr, r, g) != 0)
            gs[d].failed = 1;
        stopped = *s->stop != 0;
    }

    /* 2. The execution orders. */
    for (size_t o = 0; o < s->norders && !stopped; o++) {
        for (size_t k = 0; k < s->ndrivers && !stopped; k++) {
            size_t d = s->orders[o][k];
            if (gs[d].failed)
                continue;
            struct pgcb_sdriver *sd = &s->drivers[d];
            stopped = run_order(s, sd, &gs[d], &gr->cells[d], sd->stmts[q], gr->depth, o, &pr,
                                r, g);
            if (gr->cells[d].status == PGCB_CELL_FAILED)
                gs[d].failed = 1;
        }
    }
    if (pr.on)
        fprintf(stderr, "\r\033[K");

    /* 3. Figures and checks. */
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        cell_figures(c, &gs[d], gr->depth, gr->threads);
        if (stopped && c->status == PGCB_CELL_OK) {
            c->status = PGCB_CELL_NOT_RUN;
            c->error = pgcb_xstrdup("interrupted before the group was complete");
        }
    }
    if (!stopped)
        cell_checks(s, r, g, gs, cq->check == PGCB_CHECK_CHECKSUM);
    for (size_t d = 0; d < s->ndrivers; d++)
        pgcb_hist_free(&gs[d].pooled);
    free(gs);
    return stopped;
}
