/*
 * progress.c -- see progress.h.
 */
#include "progress.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eta.h"
#include "host/host.h"
#include "result.h"
#include "util.h"

/* The terminal line is redrawn at most this often. */
#define PROGRESS_DRAW_NS 200000000ull
/* The longest -P interval: a day. */
#define PROGRESS_MAX_S 86400

struct pgcb_progress {
    const char **names;         /* [ndrivers]: the drivers' names (the caller's strings) */
    FILE *out;
    int plain;                  /* -P: plain lines; else the terminal line */
    uint64_t every_ns;          /* plain: the interval */
    uint64_t t0_ns;             /* the run's start */
    uint64_t next_ns;           /* plain: when the next line is due */
    uint64_t drawn_ns;          /* terminal: when the line was last drawn */
    int drawn;                  /* terminal: a line is on the screen */
    struct pgcb_eta eta;
    /* The job running now (running), else the last one. */
    int running, have_job;
    size_t group, driver, order, norders;
    int warmup;
    uint32_t nthreads;
    char label[192];
    const struct pgcb_host_thread *t0;
    uint64_t job_start_ns;
};

int pgcb_progress_parse_interval(const char *s, unsigned *out)
{
    uint64_t v;
    if (pgcb_parse_u64(s, 1, PROGRESS_MAX_S, &v) != 0)
        return -1;
    *out = (unsigned)v;
    return 0;
}

struct pgcb_progress *pgcb_progress_new(const char *const *names, size_t ndrivers,
                                        const struct pgcb_eta_group *budgets, size_t ngroups,
                                        int quiet, unsigned every_s, uint64_t t0_ns)
{
    if (quiet || (!every_s && !isatty(2)))
        return NULL;
    struct pgcb_progress *p = pgcb_xcalloc(1, sizeof *p);
    p->names = pgcb_xcalloc(ndrivers ? ndrivers : 1, sizeof *p->names);
    for (size_t d = 0; d < ndrivers; d++)
        p->names[d] = names[d];
    p->out = stderr;
    p->plain = every_s > 0;
    p->every_ns = (uint64_t)every_s * 1000000000ull;
    p->t0_ns = t0_ns;
    p->next_ns = t0_ns + p->every_ns;
    pgcb_eta_init(&p->eta, ngroups, ndrivers);
    for (size_t g = 0; g < ngroups; g++)
        p->eta.groups[g] = budgets[g];
    return p;
}

void pgcb_progress_free(struct pgcb_progress *p)
{
    if (!p)
        return;
    pgcb_eta_free(&p->eta);
    free(p->names);
    free(p);
}

/* The running job as far as its first thread got (relaxed loads: figures
 * stored between blocks, read as a snapshot); NULL between jobs. */
static const struct pgcb_eta_live *live_of(const struct pgcb_progress *p,
                                           struct pgcb_eta_live *buf)
{
    if (!p->running)
        return NULL;
    *buf = (struct pgcb_eta_live){
        .group = p->group, .driver = p->driver, .warmup = p->warmup,
        .ns = atomic_load_explicit(&p->t0->live_ns, memory_order_relaxed),
        .batches = atomic_load_explicit(&p->t0->live_batches, memory_order_relaxed),
    };
    return buf;
}

/* How far the running job is, 0 to 1: its warm-up time, or the lesser of
 * its two floors. */
static double job_share(const struct pgcb_progress *p, const struct pgcb_eta_live *live)
{
    const struct pgcb_eta_group *gr = &p->eta.groups[p->group];
    double share;
    if (!live)
        share = 1;
    else if (live->warmup)
        share = gr->warmup_ns ? (double)live->ns / (double)gr->warmup_ns : 1;
    else {
        double st = gr->time_floor_ns ? (double)live->ns / (double)gr->time_floor_ns : 1;
        double sb = gr->batch_floor ? (double)live->batches / (double)gr->batch_floor : 1;
        share = st < sb ? st : sb;
    }
    return share > 1 ? 1 : share < 0 ? 0 : share;
}

static const char *driver_name(const struct pgcb_progress *p)
{
    return p->have_job ? p->names[p->driver] : "-";
}

/* "warm-up" or "order 3/14" (the last job's, between jobs). */
static void phase_of(const struct pgcb_progress *p, char *buf, size_t n)
{
    if (!p->have_job)
        snprintf(buf, n, "starting");
    else if (p->warmup)
        snprintf(buf, n, "warm-up");
    else
        snprintf(buf, n, "order %zu/%zu", p->order + 1, p->norders);
}

static void draw(struct pgcb_progress *p, uint64_t now)
{
    struct pgcb_eta_live buf;
    const struct pgcb_eta_live *live = live_of(p, &buf);
    char phase[64], elapsed[16], left[16];
    phase_of(p, phase, sizeof phase);
    pgcb_eta_fmt(elapsed, sizeof elapsed, (double)(now - p->t0_ns));
    pgcb_eta_fmt(left, sizeof left, pgcb_eta_left_ns(&p->eta, live));
    fprintf(p->out, "\r\033[K[group %zu/%zu] %s%s: %s %s %3.0f%%  elapsed %s, left ~%s",
            p->group + 1, p->eta.ngroups, p->label, p->nthreads > 1 ? " threads" : "",
            driver_name(p), phase, 100.0 * job_share(p, live), elapsed, left);
    fflush(p->out);
    p->drawn = 1;
    p->drawn_ns = now;
}

static void plain_line(struct pgcb_progress *p, uint64_t now, int finished)
{
    struct pgcb_eta_live buf;
    const struct pgcb_eta_live *live = finished ? NULL : live_of(p, &buf);
    uint64_t done, total;
    pgcb_eta_steps(&p->eta, &done, &total);
    double elapsed = (double)(now - p->t0_ns) / 1e9;
    double left = finished ? 0 : pgcb_eta_left_ns(&p->eta, live) / 1e9;
    if (finished) {
        fprintf(p->out, "progress: %.1f s elapsed, %llu/%llu steps, finished, eta 0.0 s\n",
                elapsed, (unsigned long long)done, (unsigned long long)total);
    } else {
        char phase[64];
        phase_of(p, phase, sizeof phase);
        fprintf(p->out, "progress: %.1f s elapsed, %llu/%llu steps, group %zu/%zu %s%s, "
                "driver %s %s, eta %.1f s\n", elapsed, (unsigned long long)done,
                (unsigned long long)total, p->group + 1, p->eta.ngroups, p->label,
                p->nthreads > 1 ? " threads" : "", driver_name(p), phase, left);
    }
    fflush(p->out);
}

void pgcb_progress_tick(struct pgcb_progress *p)
{
    if (!p)
        return;
    uint64_t now = pgcb_now_ns();
    if (p->plain) {
        if (now < p->next_ns)
            return;
        while (p->next_ns <= now) /* one line, however late: none is made up */
            p->next_ns += p->every_ns;
        plain_line(p, now, 0);
    } else if (!p->drawn || now - p->drawn_ns >= PROGRESS_DRAW_NS) {
        draw(p, now);
    }
}

void pgcb_progress_job(struct pgcb_progress *p, size_t g, size_t d, const struct pgcb_job *job,
                       const struct pgcb_host_thread *t0)
{
    if (!p || g >= p->eta.ngroups || d >= p->eta.ndrivers)
        return;
    p->running = p->have_job = 1;
    p->group = g;
    p->driver = d;
    p->warmup = job->kind == PGCB_JOB_WARMUP;
    p->order = job->order;
    p->norders = job->norders;
    p->nthreads = job->nthreads;
    snprintf(p->label, sizeof p->label, "%s", job->label);
    p->t0 = t0;
    p->job_start_ns = pgcb_now_ns();
    /* No tick here: t0 holds the last job's figures until the runner sends
     * this one (pgcb_host_send zeroes them). */
}

void pgcb_progress_job_end(struct pgcb_progress *p, int failed)
{
    if (!p || !p->running)
        return;
    struct pgcb_eta_live buf;
    const struct pgcb_eta_live *live = live_of(p, &buf);
    p->running = 0;
    if (failed)
        pgcb_eta_drop(&p->eta, p->group, p->driver);
    else
        pgcb_eta_job_done(&p->eta, p->group, p->driver, p->warmup, live->ns, live->batches,
                          pgcb_now_ns() - p->job_start_ns);
    pgcb_progress_tick(p);
}

void pgcb_progress_drop(struct pgcb_progress *p, size_t g, size_t d)
{
    if (p)
        pgcb_eta_drop(&p->eta, g, d);
}

void pgcb_progress_group_end(struct pgcb_progress *p, size_t g)
{
    if (!p)
        return;
    if (p->running && p->group == g)
        p->running = 0;
    pgcb_eta_group_done(&p->eta, g);
}

void pgcb_progress_clear(struct pgcb_progress *p)
{
    if (!p || p->plain || !p->drawn)
        return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
    p->drawn = 0;
}

void pgcb_progress_finish(struct pgcb_progress *p, int complete)
{
    if (!p)
        return;
    p->running = 0;
    if (p->plain && complete)
        plain_line(p, pgcb_now_ns(), 1);
    pgcb_progress_clear(p);
}
