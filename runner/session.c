/*
 * session.c -- drivers opened and prepared; the measurement of a group.
 *
 * Measuring is done by worker threads, one per measuring thread of the
 * widest suite, each pinned to its CPU ([bench] cpus, round robin) and each
 * with its own connection per driver. The coordinating (main) thread hands
 * them one job at a time -- warm up driver D, or measure driver D in order O
 * -- and the workers of that group start it together at a barrier and meet
 * again at another when they are done; a suite with fewer threads leaves the
 * other workers idle. So a group is measured as:
 *   1. each driver: every thread runs one batch (its rows and checksum are
 *      the expected ones for this group) and warms up for warmup_ms;
 *   2. each execution order, each driver in that order: every thread runs
 *      blocks of batches until both floors are met: time_ms / orders of timed
 *      batches, and its share of [bench] queries executed queries;
 *   3. per driver: figures from the pooled histogram (all threads, all
 *      orders), one median per order; rows and checksums compared within
 *      and across drivers.
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
#include "sysinfo.h"
#include "util.h"

struct pgcb_worker {
    struct pgcb_session *s;
    uint32_t index;
    int cpu;
    pthread_t tid;
    int pin_rc;
    char pin_err[160];
    uint64_t *samples;          /* PGCB_BLOCK_MAX */
    struct pgcb_hist hist;      /* this thread's samples of the current job */
    uint64_t *expect_sum;       /* per driver: the checksum of its first batch in this group */
    double *est_ns;             /* per driver: ns per batch, for block sizing */
    /* outcome of the current job */
    uint64_t batches, cpu_ns, rows_bad, sum_bad;
    int rc;
    char err[PGCB_ERRLEN];
};

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
    static volatile sig_atomic_t never;
    *s = (struct pgcb_session){.cfg = cfg, .nthreads = 1, .stop = &never};
    for (size_t i = 0; i < cfg->nsuites; i++)
        if (cfg->suites[i].threads > s->nthreads)
            s->nthreads = cfg->suites[i].threads;
    s->ndrivers = cfg->ndrivers;
    s->drivers = pgcb_xcalloc(s->ndrivers, sizeof *s->drivers);
    for (size_t i = 0; i < s->ndrivers; i++) {
        struct pgcb_sdriver *sd = &s->drivers[i];
        sd->cfg = &cfg->drivers[i];
        sd->conns = pgcb_xcalloc(s->nthreads, sizeof *sd->conns);
        sd->stmts = pgcb_xcalloc((size_t)s->nthreads * cfg->nqueries, sizeof *sd->stmts);
        sd->prime_rows = pgcb_xcalloc(cfg->nqueries, sizeof *sd->prime_rows);
        char why[PGCB_ERRLEN];
        if (pgcb_loader_open(sd->cfg->name, sd->cfg->path, &sd->ld, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s:%d: %s", cfg->file, sd->cfg->path_line, why);
            return -1;
        }
        if (check_options(cfg, sd, err, errlen) != 0)
            return -1;
    }
    char why[256];
    s->orders = pgcb_orders_make(cfg->orders, cfg->orders_n, s->ndrivers, &s->norders, why,
                                 sizeof why);
    if (!s->orders) {
        snprintf(err, errlen, "%s: [bench] orders: %s", cfg->file, why);
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

static void close_conn(struct pgcb_sdriver *sd, uint32_t t, size_t nqueries)
{
    if (sd->conns[t])
        sd->ld.drv->close(sd->conns[t]);
    sd->conns[t] = NULL;
    memset(&sd->stmts[(size_t)t * nqueries], 0, nqueries * sizeof *sd->stmts);
}

/* Connect driver sd for thread t, prepare and prime every used query. On
 * failure the connection is closed again. */
static int open_conn(struct pgcb_session *s, struct pgcb_sdriver *sd, uint32_t t, int check_rows,
                     char *err, size_t errlen)
{
    const struct pgcb_config *cfg = s->cfg;
    const struct pgcb_driver *drv = sd->ld.drv;
    char why[PGCB_ERRLEN] = "";
    char who[96];
    if (s->nthreads > 1)
        snprintf(who, sizeof who, "driver %s (connection %u)", sd->cfg->name, t + 1);
    else
        snprintf(who, sizeof who, "driver %s", sd->cfg->name);
    close_conn(sd, t, cfg->nqueries);
    if (drv->open(cfg->conninfo, sd->opts, sd->nopts, &sd->conns[t], why, sizeof why) != PGCB_OK) {
        sd->conns[t] = NULL;
        snprintf(err, errlen, "%s: cannot connect: %s", who, why);
        return -1;
    }
    for (size_t q = 0; q < cfg->nqueries; q++) {
        if (!query_used(cfg, q))
            continue;
        const struct pgcb_cfg_query *cq = &cfg->queries[q];
        struct pgcb_stmt **stmt = &sd->stmts[(size_t)t * cfg->nqueries + q];
        char name[80];
        snprintf(name, sizeof name, "pgcb_%s", cq->name);
        if (drv->prepare(sd->conns[t], name, cq->sql, stmt, why, sizeof why) != PGCB_OK) {
            snprintf(err, errlen, "query %s: %s: prepare failed: %s", cq->name, who, why);
            close_conn(sd, t, cfg->nqueries);
            return -1;
        }
        struct pgcb_sum sum = {0, 0};
        if (drv->run_batch(sd->conns[t], *stmt, 1, &sum, why, sizeof why) != PGCB_OK) {
            snprintf(err, errlen, "query %s: %s: first execution failed: %s", cq->name, who, why);
            close_conn(sd, t, cfg->nqueries);
            return -1;
        }
        if (check_rows && cq->rows >= 0 && sum.rows != (uint64_t)cq->rows) {
            snprintf(err, errlen, "query %s: expected %lld rows per execution ([query.%s] rows "
                     "at %s:%d), %s got %llu", cq->name, (long long)cq->rows, cq->name,
                     cfg->file, cq->line, who, (unsigned long long)sum.rows);
            close_conn(sd, t, cfg->nqueries);
            return -1;
        }
        if (t == 0)
            sd->prime_rows[q] = sum.rows;
    }
    return 0;
}

int pgcb_session_thread_cpu(const struct pgcb_session *s, uint32_t t)
{
    return s->cfg->cpus[t % s->cfg->ncpus];
}

static void *worker_main(void *arg);

int pgcb_session_open(struct pgcb_session *s, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->ndrivers; i++)
        for (uint32_t t = 0; t < s->nthreads; t++)
            if (open_conn(s, &s->drivers[i], t, 1, err, errlen) != 0)
                return -1;

    /* The workers: pinned first, then they wait for jobs. */
    s->workers = pgcb_xcalloc(s->nthreads, sizeof *s->workers);
    pthread_barrier_init(&s->start, NULL, s->nthreads + 1);
    pthread_barrier_init(&s->end, NULL, s->nthreads + 1);
    for (uint32_t t = 0; t < s->nthreads; t++) {
        struct pgcb_worker *w = &s->workers[t];
        w->s = s;
        w->index = t;
        w->cpu = pgcb_session_thread_cpu(s, t);
        w->samples = pgcb_xcalloc(PGCB_BLOCK_MAX, sizeof *w->samples);
        w->expect_sum = pgcb_xcalloc(s->ndrivers, sizeof *w->expect_sum);
        w->est_ns = pgcb_xcalloc(s->ndrivers, sizeof *w->est_ns);
        if (pgcb_hist_init(&w->hist) != 0) {
            snprintf(err, errlen, "out of memory for the histograms");
            return -1;
        }
    }
    for (uint32_t t = 0; t < s->nthreads; t++) {
        if (pthread_create(&s->workers[t].tid, NULL, worker_main, &s->workers[t]) != 0) {
            fprintf(stderr, "runner: cannot start a measuring thread\n");
            exit(70);
        }
    }
    s->workers_started = 1;
    pthread_barrier_wait(&s->end); /* every worker has pinned itself */
    for (uint32_t t = 0; t < s->nthreads; t++)
        if (s->workers[t].pin_rc != 0) {
            snprintf(err, errlen, "measuring thread %u: %s", t + 1, s->workers[t].pin_err);
            return -1;
        }
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

/* Run the current job on every worker and wait until all are done. */
static void dispatch(struct pgcb_session *s)
{
    pthread_barrier_wait(&s->start);
    pthread_barrier_wait(&s->end);
}

void pgcb_session_free(struct pgcb_session *s)
{
    if (s->workers_started) {
        s->job.kind = PGCB_JOB_EXIT;
        pthread_barrier_wait(&s->start);
        for (uint32_t t = 0; t < s->nthreads; t++)
            pthread_join(s->workers[t].tid, NULL);
        pthread_barrier_destroy(&s->start);
        pthread_barrier_destroy(&s->end);
    }
    for (uint32_t t = 0; s->workers && t < s->nthreads; t++) {
        free(s->workers[t].samples);
        free(s->workers[t].expect_sum);
        free(s->workers[t].est_ns);
        pgcb_hist_free(&s->workers[t].hist);
    }
    free(s->workers);
    for (size_t i = 0; i < s->ndrivers; i++) {
        struct pgcb_sdriver *sd = &s->drivers[i];
        for (uint32_t t = 0; sd->conns && t < s->nthreads; t++)
            if (sd->conns[t])
                sd->ld.drv->close(sd->conns[t]);
        pgcb_loader_close(&sd->ld);
        free(sd->opts);
        free(sd->conns);
        free(sd->stmts);
        free(sd->prime_rows);
    }
    free(s->drivers);
    pgcb_orders_free(s->orders, s->norders);
    *s = (struct pgcb_session){0};
}

/* ---- the workers ------------------------------------------------------- */

static void progress_show(struct pgcb_session *s, const struct pgcb_job *job, const char *phase,
                          double share, uint64_t *last_ns)
{
    const struct pgcb_result *r = s->progress_result;
    if (s->quiet || !r || !isatty(2))
        return;
    uint64_t now = pgcb_now_ns();
    if (now - *last_ns < 200000000ull && share < 1.0)
        return;
    *last_ns = now;
    const struct pgcb_res_group *gr = &r->groups[job->group];
    fprintf(stderr, "\r\033[K[group %zu/%zu] %s / %s depth %u%s: %s %s %3.0f%%", job->group + 1,
            r->ngroups, gr->suite, gr->query, gr->depth, job->nthreads > 1 ? " threads" : "",
            s->drivers[job->driver].cfg->name, phase, 100.0 * (share > 1.0 ? 1.0 : share));
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

/* A failed batch: keep the message; a broken connection is closed, to be
 * reopened before the next group. */
static void worker_failed(struct pgcb_worker *w, const struct pgcb_job *job, int rc,
                          const char *when, const char *why)
{
    struct pgcb_session *s = w->s;
    w->rc = rc;
    if (job->nthreads > 1)
        snprintf(w->err, sizeof w->err, "thread %u, %s: %s", w->index + 1, when, why);
    else
        snprintf(w->err, sizeof w->err, "%s: %s", when, why);
    if (rc == PGCB_ERR_IO || rc == PGCB_ERR_PROTOCOL || rc == PGCB_ERR_CONNECT)
        close_conn(&s->drivers[job->driver], w->index, s->cfg->nqueries);
}

static void worker_warmup(struct pgcb_worker *w, const struct pgcb_job *job,
                          const struct pgcb_driver *drv, struct pgcb_conn *conn,
                          struct pgcb_stmt *stmt)
{
    struct pgcb_session *s = w->s;
    char why[PGCB_ERRLEN] = "";
    struct pgcb_block b;
    uint64_t last = 0;
    pgcb_measure_block(drv, conn, stmt, job->depth, 1, 0, 0, w->samples, &b, why, sizeof why);
    if (b.rc != PGCB_OK) {
        worker_failed(w, job, b.rc, "first batch", why);
        return;
    }
    w->expect_sum[job->driver] = b.last_sum;
    w->est_ns[job->driver] = (double)b.wall_ns;
    w->rows_bad += b.last_rows != job->expect_rows;
    w->batches++;
    uint64_t budget = s->cfg->warmup_ms * 1000000ull, spent = b.wall_ns;
    while (spent < budget && !*s->stop) {
        pgcb_measure_block(drv, conn, stmt, job->depth, block_size(w->est_ns[job->driver], 0),
                           job->expect_rows, w->expect_sum[job->driver], w->samples, &b, why,
                           sizeof why);
        if (b.rc != PGCB_OK) {
            worker_failed(w, job, b.rc, "warm-up", why);
            return;
        }
        spent += b.wall_ns;
        w->est_ns[job->driver] = (double)b.wall_ns / (double)b.n;
        if (w->index == 0)
            progress_show(s, job, "warm-up", (double)spent / (double)budget, &last);
    }
}

static void worker_measure(struct pgcb_worker *w, const struct pgcb_job *job,
                           const struct pgcb_driver *drv, struct pgcb_conn *conn,
                           struct pgcb_stmt *stmt)
{
    struct pgcb_session *s = w->s;
    const size_t d = job->driver;
    uint64_t spent = 0, batches = 0, last = 0;
    char why[PGCB_ERRLEN] = "", phase[64];
    snprintf(phase, sizeof phase, "order %zu/%zu", job->order + 1, s->norders);

    while ((spent < job->time_floor_ns || batches < job->batch_floor) && !*s->stop) {
        uint64_t left = 0;
        if (spent >= job->time_floor_ns)
            left = job->batch_floor - batches;
        else if (batches >= job->batch_floor && w->est_ns[d] > 0)
            left = (uint64_t)((double)(job->time_floor_ns - spent) / w->est_ns[d]) + 1;
        struct pgcb_block b;
        pgcb_measure_block(drv, conn, stmt, job->depth, block_size(w->est_ns[d], left),
                           job->expect_rows, w->expect_sum[d], w->samples, &b, why, sizeof why);
        /* Outside the timed loop: fold the block into the histogram. */
        pgcb_hist_add_many(&w->hist, w->samples, b.n);
        spent += b.wall_ns;
        batches += b.n;
        w->cpu_ns += b.cpu_ns;
        w->rows_bad += b.rows_bad;
        w->sum_bad += b.sum_bad;
        if (b.n)
            w->est_ns[d] = (double)b.wall_ns / (double)b.n;
        if (b.rc != PGCB_OK) {
            char when[96];
            snprintf(when, sizeof when, "order %zu, batch %llu", job->order + 1,
                     (unsigned long long)batches + 1);
            worker_failed(w, job, b.rc, when, why);
            break;
        }
        if (w->index == 0) {
            double st = job->time_floor_ns ? (double)spent / (double)job->time_floor_ns : 1.0;
            double sq = (double)batches / (double)job->batch_floor;
            progress_show(s, job, phase, st < sq ? st : sq, &last);
        }
    }
    w->batches += batches;
}

static void *worker_main(void *arg)
{
    struct pgcb_worker *w = arg;
    struct pgcb_session *s = w->s;
    w->pin_rc = pgcb_pin_self(w->cpu, w->pin_err, sizeof w->pin_err);
    pthread_barrier_wait(&s->end);
    for (;;) {
        pthread_barrier_wait(&s->start);
        const struct pgcb_job job = s->job;
        if (job.kind == PGCB_JOB_EXIT)
            break;
        if (w->index < job.nthreads) {
            struct pgcb_sdriver *sd = &s->drivers[job.driver];
            struct pgcb_conn *conn = sd->conns[w->index];
            struct pgcb_stmt *stmt = sd->stmts[(size_t)w->index * s->cfg->nqueries + job.query];
            w->batches = w->cpu_ns = w->rows_bad = w->sum_bad = 0;
            w->rc = PGCB_OK;
            w->err[0] = '\0';
            pgcb_hist_reset(&w->hist);
            if (!conn)
                worker_failed(w, &job, PGCB_ERR_CONNECT, "start", "not connected");
            else if (job.kind == PGCB_JOB_WARMUP)
                worker_warmup(w, &job, sd->ld.drv, conn, stmt);
            else
                worker_measure(w, &job, sd->ld.drv, conn, stmt);
        }
        pthread_barrier_wait(&s->end);
    }
    return NULL;
}

/* ---- measuring a group (the coordinating thread) ----------------------- */

/* Per driver, for the group being measured. */
struct gstate {
    uint64_t expect_sum;         /* thread 1's first batch */
    uint64_t batches, rows_bad, sum_bad, cpu_ns;
    int threads_disagree;        /* the threads' first checksums differ */
    int failed;
    struct pgcb_hist pooled;
};

static void cell_fail(struct pgcb_res_cell *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void cell_fail(struct pgcb_res_cell *c, const char *fmt, ...)
{
    char buf[PGCB_ERRLEN + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->status = PGCB_CELL_FAILED;
    free(c->error);
    c->error = pgcb_xstrdup(buf);
}

/* After a job: the first worker error fails the cell; counts are summed. */
static void collect(struct pgcb_session *s, uint32_t nthreads, struct gstate *gs,
                    struct pgcb_res_cell *cell)
{
    for (uint32_t t = 0; t < nthreads; t++) {
        struct pgcb_worker *w = &s->workers[t];
        gs->batches += w->batches;
        gs->cpu_ns += w->cpu_ns;
        gs->rows_bad += w->rows_bad;
        gs->sum_bad += w->sum_bad;
        if (w->rc != PGCB_OK && !gs->failed) {
            gs->failed = 1;
            cell_fail(cell, "%s", w->err);
        }
    }
}

static void cell_figures(struct pgcb_res_cell *c, const struct gstate *gs, uint32_t depth,
                         uint32_t threads)
{
    const struct pgcb_hist *h = &gs->pooled;
    c->samples = h->n;
    c->queries = h->n * depth;
    c->checksum = gs->expect_sum;
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
    /* Per thread, batches follow one another: 1e9 / mean per thread; the
     * threads run side by side for the same time. */
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
                     (unsigned long long)c->rows_per_batch);
        } else if (check_sum && gs[d].threads_disagree) {
            snprintf(buf, sizeof buf, "the measuring threads' connections returned different "
                     "checksums for the same batch");
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

/* Reopen the connections of driver d that broke, for threads < n. */
static int reconnect(struct pgcb_session *s, struct pgcb_sdriver *sd, uint32_t n, char *err,
                     size_t errlen)
{
    for (uint32_t t = 0; t < n; t++)
        if (!sd->conns[t] && open_conn(s, sd, t, 0, err, errlen) != 0)
            return -1;
    return 0;
}

int pgcb_session_run_group(struct pgcb_session *s, struct pgcb_result *r, size_t g, size_t q)
{
    const struct pgcb_config *cfg = s->cfg;
    struct pgcb_res_group *gr = &r->groups[g];
    const struct pgcb_cfg_query *cq = &cfg->queries[q];
    const uint32_t nthreads = gr->threads;
    struct gstate *gs = pgcb_xcalloc(s->ndrivers, sizeof *gs);
    struct pgcb_hist order_hist;
    int stopped = 0;

    s->progress_result = r;
    if (pgcb_hist_init(&order_hist) != 0) {
        fprintf(stderr, "runner: out of memory for a histogram\n");
        exit(70);
    }
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        c->norders = s->norders;
        c->order_medians_ns = pgcb_xcalloc(s->norders, sizeof(double));
        for (size_t o = 0; o < s->norders; o++)
            c->order_medians_ns[o] = NAN;
        if (pgcb_hist_init(&gs[d].pooled) != 0) {
            fprintf(stderr, "runner: out of memory for a histogram\n");
            exit(70);
        }
    }

    /* 1. Reconnect what broke; first batch and warm-up, per driver. */
    for (size_t d = 0; d < s->ndrivers && !stopped; d++) {
        struct pgcb_sdriver *sd = &s->drivers[d];
        struct pgcb_res_cell *c = &gr->cells[d];
        c->status = PGCB_CELL_OK;
        char why[PGCB_ERRLEN + 128];
        if (reconnect(s, sd, nthreads, why, sizeof why) != 0) {
            cell_fail(c, "reconnect failed: %s", why);
            gs[d].failed = 1;
            continue;
        }
        uint64_t per_query = cq->rows >= 0 ? (uint64_t)cq->rows : sd->prime_rows[q];
        c->rows_per_batch = per_query * gr->depth;
        s->job = (struct pgcb_job){.kind = PGCB_JOB_WARMUP, .driver = d, .query = q, .group = g,
                                   .depth = gr->depth, .nthreads = nthreads,
                                   .expect_rows = c->rows_per_batch};
        dispatch(s);
        collect(s, nthreads, &gs[d], c);
        gs[d].expect_sum = s->workers[0].expect_sum[d];
        for (uint32_t t = 1; t < nthreads; t++)
            gs[d].threads_disagree |= s->workers[t].expect_sum[d] != gs[d].expect_sum;
        /* Warm-up batches are not counted. */
        gs[d].batches = gs[d].cpu_ns = gs[d].sum_bad = 0;
        stopped = *s->stop != 0;
    }

    /* 2. The execution orders. */
    uint64_t time_floor = cfg->time_ms * 1000000ull / s->norders;
    uint64_t queries_per_thread = (cfg->min_queries + nthreads - 1) / nthreads;
    uint64_t batch_floor = (queries_per_thread + gr->depth - 1) / gr->depth;
    for (size_t o = 0; o < s->norders && !stopped; o++) {
        for (size_t k = 0; k < s->ndrivers && !stopped; k++) {
            size_t d = s->orders[o][k];
            if (gs[d].failed)
                continue;
            s->job = (struct pgcb_job){.kind = PGCB_JOB_MEASURE, .driver = d, .query = q,
                                       .group = g, .order = o, .depth = gr->depth,
                                       .nthreads = nthreads,
                                       .expect_rows = gr->cells[d].rows_per_batch,
                                       .time_floor_ns = time_floor, .batch_floor = batch_floor};
            dispatch(s);
            collect(s, nthreads, &gs[d], &gr->cells[d]);
            pgcb_hist_reset(&order_hist);
            for (uint32_t t = 0; t < nthreads; t++)
                pgcb_hist_merge(&order_hist, &s->workers[t].hist);
            gr->cells[d].order_medians_ns[o] =
                order_hist.n ? pgcb_hist_median(&order_hist) : NAN;
            pgcb_hist_merge(&gs[d].pooled, &order_hist);
            stopped = *s->stop != 0;
        }
    }
    if (!s->quiet && isatty(2))
        fprintf(stderr, "\r\033[K");

    /* 3. Figures and checks. */
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        cell_figures(c, &gs[d], gr->depth, nthreads);
        if (stopped && c->status == PGCB_CELL_OK) {
            c->status = PGCB_CELL_NOT_RUN;
            c->error = pgcb_xstrdup("interrupted before the group was complete");
        }
    }
    if (!stopped)
        cell_checks(s, r, g, gs, cq->check == PGCB_CHECK_CHECKSUM);
    for (size_t d = 0; d < s->ndrivers; d++)
        pgcb_hist_free(&gs[d].pooled);
    pgcb_hist_free(&order_hist);
    free(gs);
    s->progress_result = NULL;
    return stopped;
}
