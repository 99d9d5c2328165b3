/*
 * group_order.c -- a group's jobs on the drivers' hosts, and its execution
 * orders: each driver in each order measured by its host, with the steal
 * time, its own backends' CPU time and the server's read around the job
 * (outside the host's timed blocks). See group_int.h.
 */
#include "group_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cells.h"
#include "profile/profile.h"
#include "out/progress.h"
#include "rank.h"
#include "server/server.h"
#include "server/srvcpu.h"
#include "sys/steal.h"
#include "util.h"

int pgcb_group_run_job(struct pgcb_group_run *gx, size_t d)
{
    struct pgcb_session *s = gx->s;
    struct pgcb_sdriver *sd = &s->drivers[d];
    char why[PGCB_ERRLEN + 256];
    if (pgcb_host_run(&sd->host, &gx->env, &gx->tick, why, sizeof why) == 0)
        return 0;
    const struct pgcb_res_group *gr = gx->gr;
    /* The host is gone (crashed, exited, or killed as hung): what its
     * connections were running on the server goes on without it; end it
     * before the next driver or group is measured. */
    pgcb_progress_clear(s->progress);
    if (sd->host.tag[0] && !(sd->caps & PGCB_CAP_NO_IO)) {
        char e[400];
        int n = pgcb_server_terminate_tagged(s->cfg->conninfo, sd->host.tag, e, sizeof e);
        if (n < 0)
            fprintf(stderr, "runner: note: cannot end the server sessions of driver %s's "
                            "host: %s\n", sd->cfg->name, e);
        else if (n > 0 && !s->quiet)
            fprintf(stderr, "runner: ended %d server session%s driver %s's host left running\n",
                    n, n == 1 ? "" : "s", sd->cfg->name);
    }
    fprintf(stderr, "runner: driver %s %s in group %s / %s (depth %u)%s\n", sd->cfg->name, why,
            gr->suite, gr->query, gr->depth, "; it is restarted for the next group");
    gx->gs[d].failed = 1;
    pgcb_cells_fail(&gx->gr->cells[d], "driver %s %s", sd->cfg->name, why);
    return -1;
}

/* Steal time around one order's job (steal.h): /proc/stat read just
 * before the job is sent and just after its answer, never while a host
 * measures. */
struct steal_mark {
    struct pgcb_steal st;
    uint64_t t0;
    int ok;
};

static void steal_begin(struct steal_mark *m, const struct pgcb_res_group *gr)
{
    m->ok = pgcb_steal_read(gr->thread_cpus, gr->threads, &m->st) == 0;
    m->t0 = pgcb_now_ns();
}

/* The job answered: add the order's steal and wall time to gs. */
static void steal_end(const struct steal_mark *m, const struct pgcb_res_group *gr,
                      struct pgcb_gstate *gs)
{
    uint64_t wall = pgcb_now_ns() - m->t0;
    struct pgcb_steal st;
    gs->noise_orders++;
    gs->steal_wall_ns += wall;
    if (!m->ok || pgcb_steal_read(gr->thread_cpus, gr->threads, &st) != 0 ||
        st.machine < m->st.machine || st.cpus < m->st.cpus || !st.ncpus_found ||
        !st.ncpus_online) {
        gs->steal_failed = 1;
        return;
    }
    gs->steal_cpus += st.cpus - m->st.cpus;
    gs->steal_machine += st.machine - m->st.machine;
    gs->steal_cpu_ns_x += wall * st.ncpus_found;
    gs->steal_machine_x += wall * st.ncpus_online;
}

/* Driver d's own backends around one order's job (backend.h), read next to
 * the job, inside the whole server's reading. */
struct backend_mark {
    struct pgcb_backend_sample before;
    int ok;
};

static void backend_begin(struct backend_mark *m, const struct pgcb_sdriver *sd,
                          struct pgcb_gstate *gs)
{
    char why[256];
    const struct pgcb_backend_set *set = &sd->host.backends;
    m->ok = set->n && !gs->bk.lost;
    if (m->ok && pgcb_backend_read(set, &m->before, why, sizeof why) != 0) {
        m->ok = 0;
        pgcb_backend_lose(&gs->bk, why);
    }
}

/* job_ok: the host answered (else its backends are gone with it, and the
 * cell failed: nothing to add). */
static void backend_end(const struct backend_mark *m, const struct pgcb_sdriver *sd,
                        struct pgcb_gstate *gs, int job_ok)
{
    char why[256];
    struct pgcb_backend_sample after;
    if (!m->ok || !job_ok)
        return;
    if (pgcb_backend_read(&sd->host.backends, &after, why, sizeof why) != 0)
        pgcb_backend_lose(&gs->bk, why);
    else
        pgcb_backend_add(&gs->bk, &sd->host.backends, &m->before, &after);
}

/* What the group's proxy counted around one job (issue 41): its block and
 * CPU time read before the job is sent and after its answer, outside the
 * host's timed blocks; the differences added to gs. */
struct wire_mark {
    struct wt_block before;
    uint64_t cpu0;
    int cpu_ok;
};

static void wire_begin(struct wire_mark *m, const struct pgcb_wproxy *p)
{
    if (!p)
        return;
    wt_block_read(p->blk, &m->before);
    m->cpu_ok = pgcb_wproxy_cpu_ns(p, &m->cpu0) == 0;
}

static void wire_end(const struct wire_mark *m, struct pgcb_wproxy *p, struct pgcb_gstate *gs,
                     int job_ok)
{
    if (!p || !job_ok)
        return;
    struct wt_block after;
    wt_block_read(p->blk, &after);
    wt_totals_add_delta(&gs->wire, &after.tot, &m->before.tot);
    uint64_t cpu1;
    if (m->cpu_ok && pgcb_wproxy_cpu_ns(p, &cpu1) == 0 && cpu1 >= m->cpu0)
        gs->wire_cpu_ns += cpu1 - m->cpu0;
    else
        gs->wire_cpu_lost = 1;
    gs->wire_jobs++;
}

/* The cell failed in a job through the proxy: say what the proxy saw (it
 * exited, refused a connection, or ended one on an I/O error). */
static void wire_fault(const struct wire_mark *m, struct pgcb_wproxy *p,
                       struct pgcb_res_cell *c)
{
    if (!p || c->status != PGCB_CELL_FAILED)
        return;
    struct wt_block now;
    wt_block_read(p->blk, &now);
    int alive = pgcb_wproxy_alive(p);
    if (alive && now.error_seq == m->before.error_seq)
        return;
    char *old = c->error;
    c->error = pgcb_xasprintf("%s; the wire proxy (rtt %g ms, to %s) %s%s", old ? old : "",
                              p->rtt_ms, p->upstream, alive ? "said: " : "exited",
                              alive ? now.last_error : "");
    free(old);
}

/* Driver d in order o: its job, the marks around it, and, when the host
 * answered, its counts and samples (one median for the order, the samples
 * pooled). */
static void measure_order(struct pgcb_group_run *gx, size_t o, size_t d)
{
    struct pgcb_session *s = gx->s;
    struct pgcb_res_group *gr = gx->gr;
    struct pgcb_gstate *gs = gx->gs;
    const uint32_t nthreads = gx->nthreads;
    struct pgcb_host_shared *sh = s->drivers[d].host.sh;
    struct pgcb_job *job = &sh->job;
    *job = gx->base;
    job->kind = PGCB_JOB_MEASURE;
    job->order = o;
    job->stream = o;
    job->expect_rows = gr->cells[d].rows_per_batch;
    job->check_rows = gs[d].check_rows;
    job->time_floor_ns = gx->budget.time_floor_ns;
    job->batch_floor = gx->budget.batch_floor;
    pgcb_progress_job(s->progress, gx->g, d, job, &sh->threads[0]);
    /* A profiled run: driver d's recordings on for its job alone, outside
     * every reading around it (profile.h). */
    pgcb_profile_job_begin(s->profile, s, gx->r, gx->g, d);
    struct steal_mark sm;
    steal_begin(&sm, gr);
    uint64_t cpu0 = 0, cpu1 = 0, wall0 = pgcb_now_ns();
    int srv = s->postmaster_pid && !(s->drivers[d].caps & PGCB_CAP_NO_IO) &&
              pgcb_srvcpu_read(s->postmaster_pid, &cpu0) == 0;
    /* A connection group's backends come and go with its samples: the
     * host's, found once, serve none of them (pgcb_cells_figures says so);
     * the whole server's CPU time still applies. */
    struct backend_mark bm = {.ok = 0};
    if (!gx->su->connect)
        backend_begin(&bm, &s->drivers[d], &gs[d]);
    struct wire_mark wm = {.cpu_ok = 0};
    wire_begin(&wm, gx->proxy);
    int ok = pgcb_group_run_job(gx, d) == 0;
    wire_end(&wm, gx->proxy, &gs[d], ok);
    backend_end(&bm, &s->drivers[d], &gs[d], ok);
    if (srv && pgcb_srvcpu_read(s->postmaster_pid, &cpu1) == 0 && cpu1 >= cpu0) {
        gs[d].srv_cpu_ns += cpu1 - cpu0;
        gs[d].srv_wall_ns += pgcb_now_ns() - wall0;
        gs[d].srv_known = 1;
    }
    if (ok) {
        steal_end(&sm, gr, &gs[d]);
        pgcb_cells_collect(sh, nthreads, &gs[d], &gr->cells[d]);
        pgcb_hist_reset(&gx->order_hist);
        for (uint32_t t = 0; t < nthreads; t++)
            pgcb_hist_merge(&gx->order_hist, &sh->threads[t].hist);
        /* A concurrency group's figure is its throughput (as a time per
         * query), every other group's the median latency. */
        gr->cells[d].order_medians_ns[o] =
            gr->concurrency ? pgcb_cells_conc_order(sh, nthreads)
            : gx->order_hist.n ? pgcb_hist_median(&gx->order_hist) : NAN;
        pgcb_hist_merge(&gs[d].pooled, &gx->order_hist);
    }
    wire_fault(&wm, gx->proxy, &gr->cells[d]);
    pgcb_profile_job_end(s->profile, d);
    pgcb_progress_job_end(s->progress, gs[d].failed);
    gx->stopped = *s->stop != 0;
}

void pgcb_group_orders(struct pgcb_group_run *gx)
{
    struct pgcb_session *s = gx->s;
    struct pgcb_res_group *gr = gx->gr;
    for (size_t d = 0; d < s->ndrivers; d++)
        if (gx->gs[d].failed)
            pgcb_progress_drop(s->progress, gx->g, d);
    gx->complete_orders = 0;
    for (size_t o = 0; o < s->norders && !gx->stopped; o++) {
        for (size_t k = 0; k < s->ndrivers && !gx->stopped; k++) {
            size_t d = s->orders[o][k];
            /* respawn = order: a fresh process for every order (not for a
             * fixed-operation step, which has no warm-up to redo). */
            if (!gx->gs[d].failed && s->cfg->respawn_order && !gx->su->ops &&
                pgcb_group_respawn(gx, d) != 0)
                pgcb_progress_drop(s->progress, gx->g, d);
            if (!gx->gs[d].failed)
                measure_order(gx, o, d);
        }
        gx->complete_orders += !gx->stopped;
        /* until = decided: after each whole set, stop once every pair is
         * decided (rank.h); the orders not run are the budget saved. */
        if (s->block && (o + 1) % s->block == 0 && o + 1 < s->norders && !gx->stopped) {
            gr->orders_run = o + 1;
            if (pgcb_rank_decided(gx->r, gx->g, s->cfg->until_width))
                break;
            gr->orders_run = 0;
        }
    }
    if (gr->orders_run)
        for (size_t d = 0; d < s->ndrivers; d++)
            gr->cells[d].norders = gr->orders_run;
}
