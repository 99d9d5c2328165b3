/*
 * group.c -- the measurement of one group (pgcb_group_run,
 * group.h) and its budget. Every driver runs in its own host process
 * (host.c); this file, in the runner's process, hands the hosts one job at
 * a time -- warm up, or measure in order O -- and has their records turned
 * into figures. A group is measured as:
 *   0. the suite's background load starts (bgload.c);
 *   1. each driver: its host is (re)started if it died or connected with
 *      another connection string than the group's; every thread runs one
 *      batch (its rows and checksum are the expected ones for this group)
 *      and warms up for warmup_ms;
 *   2. each execution order, each driver in that order: every thread runs
 *      blocks of batches until both floors are met: time_ms / orders of timed
 *      batches, and its share of [bench] queries executed queries
 *      (group_order.c);
 *   3. per driver: figures from the pooled histogram (all threads, all
 *      orders), one median per order; rows and checksums compared within
 *      and across drivers (cells.c).
 * A host that crashes or stops answering fails the driver's group; it is
 * started again for the next group. The phases share a struct
 * pgcb_group_run (group_int.h).
 */
#include "group.h"
#include "group_int.h"
#include "session_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgload.h"
#include "server/bulk.h"
#include "cells.h"
#include "server/connplan.h"
#include "profile/profile.h"
#include "out/progress.h"
#include "sys/procmem.h"
#include "util.h"

static const struct pgcb_cfg_suite *suite_of(const struct pgcb_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->nsuites; i++)
        if (strcmp(cfg->suites[i].name, name) == 0)
            return &cfg->suites[i];
    return NULL;
}

/* The wire proxy of group gr (an rtt_ms group's), or NULL. */
static struct pgcb_wproxy *group_proxy(const struct pgcb_session *s,
                                       const struct pgcb_res_group *gr)
{
    if (!gr->has_rtt)
        return NULL;
    const struct pgcb_cfg_suite *su = suite_of(s->cfg, gr->suite);
    enum pgcb_transport t;
    int ti = gr->transport && pgcb_transport_parse(gr->transport, &t) == 0 ? (int)t : -1;
    return pgcb_wproxies_of(s->net, su ? (size_t)(su - s->cfg->suites) : 0, ti, gr->rtt_index);
}

/* The connection string of group gr (connplan.h). */
static const char *group_conninfo(const struct pgcb_session *s, const struct pgcb_res_group *gr)
{
    const struct pgcb_cfg_suite *su = suite_of(s->cfg, gr->suite);
    enum pgcb_transport t;
    int ti = gr->transport && pgcb_transport_parse(gr->transport, &t) == 0 ? (int)t : -1;
    size_t si = su ? (size_t)(su - s->cfg->suites) : 0;
    const char *via = gr->has_rtt ? pgcb_wproxies_conninfo(s->net, si, ti, gr->rtt_index) : NULL;
    return via ? via : pgcb_connplan_get(s->plan, s->cfg, si, ti);
}

void pgcb_group_budget(const struct pgcb_session *s, const struct pgcb_res_group *gr,
                         struct pgcb_eta_group *out)
{
    const struct pgcb_config *cfg = s->cfg;
    const struct pgcb_cfg_suite *su = suite_of(cfg, gr->suite);
    const uint32_t nthreads = gr->threads ? gr->threads : 1;
    const uint64_t warmup_ms = su->warmup_ms >= 0 ? (uint64_t)su->warmup_ms : cfg->warmup_ms;
    uint64_t queries_per_thread = (cfg->min_queries + nthreads - 1) / nthreads;
    *out = (struct pgcb_eta_group){
        .warmup = !su->ops, /* a fixed-operation step has no warm-up */
        .warmup_ns = warmup_ms * 1000000ull,
        .time_floor_ns = cfg->time_ms * 1000000ull / s->norders,
        .batch_floor = (queries_per_thread + gr->depth - 1) / gr->depth,
        .depth = gr->depth,
        .norders = s->norders,
    };
    if (su->ops) { /* exactly ops queries: config_suite.c checked the division */
        out->time_floor_ns = 0;
        out->batch_floor = su->ops / ((uint64_t)nthreads * gr->depth);
    }
    if (su->result_mode) /* a sample is a whole result: its count floor instead of queries */
        out->batch_floor = su->reads;
    if (su->connect) { /* a sample is a connection: its count floor instead of queries */
        out->connect = 1;
        out->batch_floor = (su->connections + nthreads - 1) / nthreads;
    }
}

/* The group's state before its first job: checks, budget, the group's
 * record of its suite and query, each cell's per-order medians (NAN until
 * measured), the histograms and the job every later one starts from. */
static void group_setup(struct pgcb_group_run *gx, struct pgcb_session *s,
                        struct pgcb_result *r, size_t g, size_t q)
{
    const struct pgcb_config *cfg = s->cfg;
    struct pgcb_res_group *gr = &r->groups[g];
    const struct pgcb_cfg_query *cq = &cfg->queries[q];
    const struct pgcb_cfg_suite *su = suite_of(cfg, gr->suite);
    *gx = (struct pgcb_group_run){.s = s, .r = r, .g = g, .q = q, .gr = gr, .cq = cq, .su = su,
                                  .nthreads = gr->threads, .tick = pgcb_session_tick(s),
                                  .env = pgcb_session_env(s)};
    gx->gs = pgcb_xcalloc(s->ndrivers, sizeof *gx->gs);
    /* A fixed-operation step has no warm-up, hence no reference checksum. */
    gx->check_sum = cq->check == PGCB_CHECK_CHECKSUM && !su->ops;
    /* Random keys: every driver's first batch binds the same values (the
     * same stream), so the first batches' checksums still agree across
     * drivers -- unless a sequence, a write or background load makes the
     * rows differ. */
    int seq = 0;
    for (size_t j = 0; j < cq->nparams; j++)
        seq |= cq->params[j].kind == PGCB_GEN_SEQ;
    gx->cross_sum = gx->check_sum ||
                    (cq->check == PGCB_CHECK_ROWS && cq->nparams && !seq && !su->ops &&
                     !su->nbackgrounds && pgcb_config_read_only(cq->sql));
    pgcb_group_budget(s, gr, &gx->budget);
    gr->transaction = su->transaction;
    gr->ops = su->ops;
    gr->connect = su->connect;
    gr->connections = su->connect ? su->connections : 0;
    gr->nparams = (uint32_t)cq->nparams;
    gr->bulk_copy = cq->copy != NULL;
    gr->bulk_rows = cq->copy && cq->bulk ? cq->bulk->rows : cq->read_back ? gr->depth : 0;
    gr->concurrency = su->concurrency;
    gr->pool = su->concurrency ? su->pool : 0;
    gr->load_mode = su->concurrency ? su->mode : 0;
    gr->rate = su->mode == PGCB_LOAD_RATE ? su->rate : 0;
    gr->result_mode = su->result_mode;
    gr->fetch_rows = su->result_mode ? su->fetch_rows : 0;

    gx->proxy = group_proxy(s, gr);
    if (pgcb_hist_init(&gx->order_hist) != 0) {
        fprintf(stderr, "runner: out of memory for a histogram\n");
        exit(70);
    }
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        c->norders = s->norders;
        c->order_medians_ns = pgcb_xcalloc(s->norders, sizeof(double));
        for (size_t o = 0; o < s->norders; o++)
            c->order_medians_ns[o] = NAN;
        if (pgcb_hist_init(&gx->gs[d].pooled) != 0) {
            fprintf(stderr, "runner: out of memory for a histogram\n");
            exit(70);
        }
    }
    gx->base = (struct pgcb_job){.query = q, .group = g, .ngroups = r->ngroups,
                                 .norders = s->norders, .depth = gr->depth,
                                 .nthreads = gx->nthreads, .transaction = su->transaction,
                                 .check_sum = gx->check_sum, .connect = su->connect,
                                 .concurrency = su->concurrency, .load_mode = su->mode,
                                 .load_rate = su->rate,
                                 .result_mode = (uint32_t)su->result_mode,
                                 .fetch_rows = su->result_mode ? su->fetch_rows : 0};
    char shape[64];
    pgcb_res_group_shape(gr, shape, sizeof shape);
    snprintf(gx->base.label, sizeof gx->base.label, "%s / %s %s%s%s", gr->suite, gr->query,
             shape, gr->transport ? " " : "", gr->transport ? gr->transport : "");
}

/* Driver d's host for this group: started again if it died, or if its
 * connections were opened with another connection string than the group's
 * (another transport or suite; a driver without I/O ignores it), here,
 * before the warm-up. Returns 1 when it was started here, 0 when it was
 * kept, -1 when it could not start (the cell failed). */
static int ensure_host(struct pgcb_group_run *gx, size_t d)
{
    struct pgcb_session *s = gx->s;
    struct pgcb_sdriver *sd = &s->drivers[d];
    struct pgcb_res_cell *c = &gx->gr->cells[d];
    char why[PGCB_ERRLEN + 256];
    const char *ci = group_conninfo(s, gx->gr);
    struct pgcb_host_spec spec = pgcb_session_driver_spec(s, d, ci);
    /* A concurrency group's threads each hold a pool of the suite's size;
     * any other group's, a connection of their own. */
    spec.pool = gx->gr->pool;
    int switched = sd->host.pid != 0 && !(sd->caps & PGCB_CAP_NO_IO) &&
                   strcmp(sd->host.conninfo ? sd->host.conninfo : "", ci) != 0;
    int repooled = sd->host.pid != 0 && sd->host.pool != spec.pool;
    /* A streaming group starts every client in a fresh process: what an
     * earlier group's results left in its memory (a buffered million rows
     * that the allocator kept) is not in this group's figures. */
    int fresh = sd->host.pid != 0 && gx->su->result_mode;
    if (switched || repooled || fresh)
        pgcb_host_stop(&sd->host);
    if (sd->host.pid != 0)
        return 0;
    if (pgcb_host_start(&sd->host, &gx->env, &spec, 0, &gx->tick, why, sizeof why) != 0) {
        pgcb_cells_fail(c, "%s failed: %s", switched ? "reconnecting with the group's "
                                                       "connection string"
                                     : repooled ? "opening the group's pools" : "restart", why);
        pgcb_transport_unknown(&sd->host.transport, "its host could not connect");
        pgcb_cells_transport(c, &sd->host.transport, gx->gr->transport);
        gx->gs[d].failed = 1;
        return -1;
    }
    pgcb_session_find_backends(s, d); /* new connections, new backends */
    return 1;
}

/* Driver d, before its warm-up: a host that can run the group (ensure_host)
 * and a query that prepared; the rows per batch to expect. Returns 1 when
 * its host was started here, 0 when it was kept, -1 when the driver is out
 * of the group (its cell failed, skipped or invalid). */
static int driver_ready(struct pgcb_group_run *gx, size_t d)
{
    struct pgcb_session *s = gx->s;
    struct pgcb_sdriver *sd = &s->drivers[d];
    struct pgcb_res_cell *c = &gx->gr->cells[d];
    c->status = PGCB_CELL_OK;
    if (sd->unavailable[0]) { /* its client cannot run here: never started */
        pgcb_cells_fail(c, "%s", sd->unavailable);
        gx->gs[d].failed = 1;
        return -1;
    }
    if (gx->su->connect && pgcb_sdriver_self_timed(sd)) {
        /* Its connection is an adapter process of its own, started by
         * open: a sample would time a process start, not a client's
         * connection. */
        pgcb_cells_fail(c, "skipped: a self-timed driver (the bridge) cannot be measured by a "
                           "connection suite: its connection is an adapter process, so a "
                           "sample would time a process start and the adapter's start-up");
        c->status = PGCB_CELL_SKIPPED;
        gx->gs[d].failed = 1;
        return -1;
    }
    if (gx->su->concurrency && !(PGCB_DRIVER_HAS(sd->ld.drv, 5, pool_open) &&
                                 PGCB_DRIVER_HAS(sd->ld.drv, 5, run_load))) {
        const struct pgcb_driver *drv = sd->ld.drv;
        pgcb_cells_fail(c, "skipped: driver %s (ABI %u.%u) has no pool_open and run_load (ABI "
                           "1.5): it cannot keep %u queries in flight over a pool in one "
                           "instance%s", sd->cfg->name, (unsigned)drv->abi_major,
                        (unsigned)drv->abi_minor, gx->su->concurrency,
                        strcmp(drv->name, "libpq_sync") == 0
                            ? " (its idiom is one connection per thread: a suite with threads "
                              "= N)" : "");
        c->status = PGCB_CELL_SKIPPED;
        gx->gs[d].failed = 1;
        return -1;
    }
    const int started = ensure_host(gx, d);
    if (started < 0)
        return -1;
    pgcb_cells_transport(c, &sd->host.transport, gx->gr->transport);
    const char *qerr = pgcb_session_query_error(s, d, gx->q);
    if (qerr) {
        pgcb_cells_fail(c, "%s", qerr);
        if (sd->host.sh->queries[gx->q].skipped)
            c->status = PGCB_CELL_SKIPPED;
        else if (sd->host.sh->queries[gx->q].invalid)
            c->status = PGCB_CELL_INVALID;
        gx->gs[d].failed = 1;
        return -1;
    }
    const struct pgcb_host_query *hq = &sd->host.sh->queries[gx->q];
    /* Rows per query: as the file says, else as the first execution
     * returned; not checked if neither is known or check = none. */
    int rows_known = gx->cq->rows >= 0 || hq->primed;
    uint64_t per_query = gx->cq->rows >= 0 ? (uint64_t)gx->cq->rows : hq->prime_rows;
    gx->gs[d].check_rows = rows_known && gx->cq->check != PGCB_CHECK_NONE;
    c->rows_per_batch = rows_known ? per_query * gx->gr->depth : 0;
    return started;
}

/* Driver d's warm-up job, written into its host's region (not sent). */
static struct pgcb_job *warmup_job(struct pgcb_group_run *gx, size_t d)
{
    struct pgcb_job *job = &gx->s->drivers[d].host.sh->job;
    *job = gx->base;
    job->kind = PGCB_JOB_WARMUP;
    job->stream = PGCB_STREAM_WARMUP;
    job->expect_rows = gx->gr->cells[d].rows_per_batch;
    job->check_rows = gx->gs[d].check_rows;
    job->warmup_ns = gx->budget.warmup_ns;
    return job;
}

/* Driver d's first batch and warm-up (started: its host was started for
 * this group): the expected checksum and note, whether the threads agree;
 * none of it counted but the first batch's rows. */
static void warm_up(struct pgcb_group_run *gx, size_t d, int started)
{
    struct pgcb_session *s = gx->s;
    struct pgcb_sdriver *sd = &s->drivers[d];
    struct pgcb_res_cell *c = &gx->gr->cells[d];
    struct pgcb_gstate *gs = &gx->gs[d];
    struct pgcb_job *job = warmup_job(gx, d);
    pgcb_progress_job(s->progress, gx->g, d, job, &sd->host.sh->threads[0]);
    if (pgcb_group_run_job(gx, d) == 0) {
        const struct pgcb_host_shared *sh = sd->host.sh;
        pgcb_cells_collect(sh, gx->nthreads, gs, c);
        /* A client with no streaming idiom (run_stream's UNSUPPORTED on its
         * first read) is skipped, as a driver without a slot is: its cell
         * says why, and the suite is still ranked over the others. */
        if (gx->su->result_mode && sh->threads[0].rc == PGCB_ERR_UNSUPPORTED &&
            c->status == PGCB_CELL_FAILED) {
            char *why = c->error;
            c->error = pgcb_xasprintf("skipped: %s", why ? why : "");
            c->status = PGCB_CELL_SKIPPED;
            free(why);
        }
        gs->expect_sum = sh->threads[0].expect_sum;
        memcpy(gs->note, sh->threads[0].note, sizeof gs->note);
        gs->note[sizeof gs->note - 1] = '\0';
        for (uint32_t t = 1; t < gx->nthreads; t++)
            gs->threads_disagree |= sh->threads[t].expect_sum != gs->expect_sum;
        /* A host kept from the last group may have reopened a connection
         * in the warm-up (one that failed there): its backends and how
         * they connect are read again for this group, outside any
         * timing. Not after a connection group's warm-up: it used no
         * connection of the host's, and its samples' backends may still
         * be exiting. */
        if (!started && !gs->failed && !gx->su->connect) {
            pgcb_session_find_backends(s, d);
            pgcb_result_transport_free(&c->transport);
            pgcb_cells_transport(c, &sd->host.transport, gx->gr->transport);
        }
    }
    pgcb_progress_job_end(s->progress, gs->failed);
    /* Warm-up batches are not counted, but each thread's first batch is
     * in the row check (so it stays in the count of batches the "N of
     * M batches did not return" note divides by). */
    gs->cpu_ns = gs->sum_bad = 0;
    gs->blocks = gs->overhead_ns = gs->overhead_cpu_ns = 0;
    gs->nivcsw = gs->nvcsw = gs->minflt = 0;
    gs->nfirsts = 0; /* the warm-up's reads are not the group's */
    gx->stopped = *s->stop != 0;
}

/* Driver d's client memory (procmem.h), all outside the timed blocks: its
 * processes' peaks reset before the warm-up (mem_reset); after it their
 * resident memory, the warm-up's peak, and the peaks reset again
 * (mem_level); after the last order the orders' peak (mem_peak). A host
 * that is gone leaves the cell's memory unknown. */
static void mem_reset(struct pgcb_group_run *gx, size_t d)
{
    struct pgcb_res_cell *c = &gx->gr->cells[d];
    c->mem_known = 0;
    if (gx->s->drivers[d].host.pid > 0)
        pgcb_procmem_reset((int)gx->s->drivers[d].host.pid);
}

static void mem_level(struct pgcb_group_run *gx, size_t d)
{
    struct pgcb_res_cell *c = &gx->gr->cells[d];
    struct pgcb_procmem m;
    pid_t pid = gx->s->drivers[d].host.pid;
    if (pid > 0 && pgcb_procmem_read((int)pid, &m) == 0) {
        c->mem_known = 1;
        c->mem_level_kib = m.rss_kib;
        c->mem_peak_kib = m.hwm_kib;
        c->mem_growth_kib = 0;
        c->mem_processes = m.nprocs;
        pgcb_procmem_reset((int)pid);
    }
}

static void mem_peak(struct pgcb_group_run *gx, size_t d)
{
    struct pgcb_res_cell *c = &gx->gr->cells[d];
    struct pgcb_procmem m;
    pid_t pid = gx->s->drivers[d].host.pid;
    if (!c->mem_known)
        return;
    if (pid <= 0 || pgcb_procmem_read((int)pid, &m) != 0) {
        c->mem_known = 0; /* the host died in the orders: its peak is lost */
        return;
    }
    c->mem_peak_kib = m.hwm_kib > c->mem_peak_kib ? m.hwm_kib : c->mem_peak_kib;
    c->mem_growth_kib = m.hwm_kib > c->mem_level_kib ? m.hwm_kib - c->mem_level_kib : 0;
    c->mem_processes = m.nprocs > c->mem_processes ? m.nprocs : c->mem_processes;
}

/* [bench] max_rss_mb: a failed cell of a driver whose memory cgroup saw
 * the kernel's OOM killer in this group says so first (memcg.h). */
static void mem_limit_note(struct pgcb_group_run *gx, size_t d)
{
    struct pgcb_sdriver *sd = &gx->s->drivers[d];
    if (!sd->memcg.dir[0])
        return;
    uint64_t kills = pgcb_memcg_oom_kills(&sd->memcg);
    if (kills <= sd->oom_seen)
        return;
    struct pgcb_res_cell *c = &gx->gr->cells[d];
    if (c->status == PGCB_CELL_FAILED) {
        char *old = c->error;
        c->error = pgcb_xasprintf("exceeded max_rss_mb (%llu MiB): the kernel's OOM killer "
                                  "ended %llu of the client's processes; %s",
                                  (unsigned long long)gx->s->cfg->max_rss_mb,
                                  (unsigned long long)(kills - sd->oom_seen),
                                  old ? old : "");
        free(old);
    }
    sd->oom_seen = kills;
}

/* [bench] respawn = order (group_int.h): driver d's host stopped and
 * started anew -- connected, prepared, primed -- and warmed up for the
 * group's warm-up time, outside every reading of the order. Nothing of it
 * is counted but a failure (the cell fails, with the reason) and a first
 * batch whose checksum is not the group's (one batch of the checksum
 * check). Memory: the old processes' peak is folded in first, so a cell's
 * peak is the highest of its processes'. */
int pgcb_group_respawn(struct pgcb_group_run *gx, size_t d)
{
    struct pgcb_session *s = gx->s;
    struct pgcb_sdriver *sd = &s->drivers[d];
    struct pgcb_res_cell *c = &gx->gr->cells[d];
    struct pgcb_gstate *gs = &gx->gs[d];
    if (s->cfg->memory)
        mem_peak(gx, d);
    pgcb_host_stop(&sd->host);
    if (ensure_host(gx, d) < 0)
        return -1;
    warmup_job(gx, d);
    if (pgcb_group_run_job(gx, d) != 0)
        return -1; /* the cell failed, with the reason */
    const struct pgcb_host_shared *sh = sd->host.sh;
    struct pgcb_gstate scratch = {.failed = 0};
    pgcb_cells_collect(sh, gx->nthreads, &scratch, c);
    free(scratch.firsts);
    if (scratch.failed) {
        gs->failed = 1;
        return -1;
    }
    for (uint32_t t = 0; t < gx->nthreads; t++)
        gs->sum_bad += gx->check_sum && sh->threads[t].expect_sum != gs->expect_sum;
    return 0;
}

/* The server's CPUs as the result records them; 0: unknown. */
static int server_ncpus(const struct pgcb_result *r)
{
    int cpus[PGCB_MAX_CPUS];
    char e[160];
    int n = r->server_cpus ? pgcb_parse_cpus(r->server_cpus, cpus, PGCB_MAX_CPUS, e, sizeof e)
                           : 0;
    return n > 0 ? n : 0;
}

/* The group's proxy as it measured itself (result.h, struct
 * pgcb_res_proxy): its probe, and its deliveries and errors over the
 * measured orders. */
static void proxy_figures(struct pgcb_group_run *gx)
{
    struct pgcb_res_proxy *x = &gx->gr->proxy;
    const struct pgcb_wproxy *p = gx->proxy;
    struct wt_block now;
    wt_block_read(p->blk, &now);
    const struct wt_block *b = &gx->proxy_at_start;
    x->known = 1;
    x->chunks = now.delay.chunks - b->delay.chunks;
    x->late_mean_ns = x->chunks ? (double)(now.delay.late_sum_ns - b->delay.late_sum_ns) /
                                      (double)x->chunks
                                : NAN;
    x->late_max_ns = (double)now.delay.late_max_ns; /* since the proxy started */
    x->direct_ns = p->direct_ns;
    x->proxied_ns = p->proxied_ns;
    x->added_ns = p->proxied_ns - p->direct_ns;
    x->refused = now.refused - b->refused;
    x->errors = now.errors - b->errors;
    if (now.error_seq != b->error_seq)
        snprintf(x->last_error, sizeof x->last_error, "%s", now.last_error);
}

/* Every cell's figures; an interrupted group's cells NOT_RUN (partial);
 * the checks of a complete one. */
static void group_figures(struct pgcb_group_run *gx)
{
    struct pgcb_session *s = gx->s;
    struct pgcb_res_group *gr = gx->gr;
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        const char *bwhy = s->drivers[d].host.backends.why;
        if (gx->su->connect && !(s->drivers[d].caps & PGCB_CAP_NO_IO))
            bwhy = "a connection suite: each sample's backend starts and exits within it, "
                   "and the backends found when the driver's host started serve none of its "
                   "connections; Server CPU is the whole server's";
        mem_limit_note(gx, d);
        pgcb_cells_figures(c, &gx->gs[d], gr->depth, gx->nthreads, bwhy);
        if (gr->concurrency)
            pgcb_cells_conc_figures(c, &gx->gs[d], gx->nthreads, server_ncpus(gx->r));
        c->rows_per_s = gr->bulk_rows && isfinite(c->ops_per_s)
                            ? c->ops_per_s * (double)gr->bulk_rows * gx->nthreads : NAN;
        if (gr->result_mode)
            pgcb_cells_stream_figures(c, &gx->gs[d]);
        if (gx->proxy && s->cfg->wire)
            pgcb_cells_wire_figures(c, &gx->gs[d]);
        /* Over TCP: stalls of about 40 ms (a delayed ACK meeting Nagle's
         * algorithm) counted from the samples. */
        if ((gr->transport && strcmp(gr->transport, "unix") != 0) || gr->has_rtt)
            c->stalls = pgcb_cells_stalls(&gx->gs[d].pooled);
        if (gx->stopped && c->status == PGCB_CELL_OK) {
            c->status = PGCB_CELL_NOT_RUN;
            c->error = pgcb_xasprintf("interrupted before the group was complete (partial: %zu "
                                      "of %zu orders; never crowned)", gx->complete_orders,
                                      s->norders);
        }
    }
    /* A proxied group whose proxy is gone: every cell that failed says so
     * (however it failed: a restart refused, a connection cut mid-job). */
    if (gx->proxy && !pgcb_wproxy_alive(gx->proxy))
        for (size_t d = 0; d < s->ndrivers; d++) {
            struct pgcb_res_cell *c = &gr->cells[d];
            if (c->status != PGCB_CELL_FAILED || (c->error && strstr(c->error, "wire proxy")))
                continue;
            char *old = c->error;
            c->error = pgcb_xasprintf("%s; the wire proxy (rtt %g ms, to %s) exited",
                                      old ? old : "failed", gx->proxy->rtt_ms,
                                      gx->proxy->upstream);
            free(old);
        }
    if (gx->stopped) { /* the orders it completed are kept, the group says how many */
        gr->partial = 1;
        gr->partial_orders = gx->complete_orders;
    }
    if (!gx->stopped)
        pgcb_cells_checks(s, gx->r, gx->g, gx->gs, gx->check_sum, gx->cross_sum);
}

static void group_free(struct pgcb_group_run *gx)
{
    for (size_t d = 0; d < gx->s->ndrivers; d++)
    {
        pgcb_hist_free(&gx->gs[d].pooled);
        free(gx->gs[d].firsts);
    }
    pgcb_hist_free(&gx->order_hist);
    free(gx->gs);
}

int pgcb_group_run(struct pgcb_session *s, struct pgcb_result *r, size_t g, size_t q)
{
    struct pgcb_group_run gx;
    group_setup(&gx, s, r, g, q);
    /* 0. The background load runs from before the warm-up to after the last
     * order. */
    pgcb_bgload_start(s, gx.gr, g, r->ngroups, gx.su);
    /* 1. A host for every driver (again, if one died); the query must have
     * prepared; first batch and warm-up (none for a fixed-operation step). */
    for (size_t d = 0; d < s->ndrivers && !gx.stopped; d++) {
        int started = driver_ready(&gx, d);
        if (started < 0)
            continue;
        if (s->cfg->memory)
            mem_reset(&gx, d);
        if (!gx.su->ops)
            warm_up(&gx, d, started);
        if (s->cfg->memory)
            mem_level(&gx, d);
    }
    /* 2. The execution orders (those that failed above run none). */
    if (gx.proxy)
        wt_block_read(gx.proxy->blk, &gx.proxy_at_start);
    pgcb_group_orders(&gx);
    if (gx.proxy)
        proxy_figures(&gx);
    for (size_t d = 0; s->cfg->memory && d < s->ndrivers; d++)
        mem_peak(&gx, d);
    pgcb_bgload_stop(s, gx.gr, gx.su);
    pgcb_progress_group_end(s->progress, g);
    pgcb_progress_clear(s->progress);
    /* 3. Figures and checks. */
    group_figures(&gx);
    /* 4. A profiled run: the group's recordings stopped, folded, summed up
     * into its cells (after the figures: ns per query needs their CPU). */
    pgcb_profile_group_end(s->profile, s, r, g);
    int stopped = gx.stopped;
    group_free(&gx);
    return stopped;
}
