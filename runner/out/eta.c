/*
 * eta.c -- see eta.h. Every estimate is recomputed from the cells on each
 * call: O(groups x drivers^2), a few microseconds for the largest configs,
 * called by the runner's own thread a few times a second at most.
 */
#include "eta.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

void pgcb_eta_init(struct pgcb_eta *e, size_t ngroups, size_t ndrivers)
{
    size_t nd = ndrivers ? ndrivers : 1;
    *e = (struct pgcb_eta){.ngroups = ngroups, .ndrivers = ndrivers};
    e->groups = pgcb_xcalloc(ngroups ? ngroups : 1, sizeof *e->groups);
    e->cells = pgcb_xcalloc(ngroups ? ngroups * nd : 1, sizeof *e->cells);
    e->over_ns = pgcb_xcalloc(nd, sizeof *e->over_ns);
    e->over_jobs = pgcb_xcalloc(nd, sizeof *e->over_jobs);
    e->tot_ns = pgcb_xcalloc(2 * nd, sizeof *e->tot_ns);
    e->tot_queries = pgcb_xcalloc(2 * nd, sizeof *e->tot_queries);
}

void pgcb_eta_free(struct pgcb_eta *e)
{
    free(e->groups);
    free(e->cells);
    free(e->over_ns);
    free(e->over_jobs);
    free(e->tot_ns);
    free(e->tot_queries);
    *e = (struct pgcb_eta){0};
}

static struct pgcb_eta_cell *cell(const struct pgcb_eta *e, size_t g, size_t d)
{
    return &e->cells[g * e->ndrivers + d];
}

static double depth_of(const struct pgcb_eta *e, size_t g)
{
    return e->groups[g].depth ? (double)e->groups[g].depth : 1.0;
}

/* Group g's kind: 1 for a connection group, else 0. */
static int kind_of(const struct pgcb_eta *e, size_t g)
{
    return e->groups[g].connect != 0;
}

/* Where driver d's sums of kind k are in tot_ns and tot_queries. */
static size_t tot_at(const struct pgcb_eta *e, int k, size_t d)
{
    return (size_t)k * e->ndrivers + d;
}

void pgcb_eta_job_done(struct pgcb_eta *e, size_t g, size_t d, int warmup, uint64_t ns,
                       uint64_t batches, uint64_t wall_ns)
{
    if (g >= e->ngroups || d >= e->ndrivers)
        return;
    struct pgcb_eta_cell *c = cell(e, g, d);
    c->ns += ns;
    c->batches += batches;
    e->tot_ns[tot_at(e, kind_of(e, g), d)] += ns;
    e->tot_queries[tot_at(e, kind_of(e, g), d)] += batches * (uint64_t)depth_of(e, g);
    if (warmup)
        c->warmed = 1;
    else if (c->orders_done < e->groups[g].norders)
        c->orders_done++;
    e->over_ns[d] += wall_ns > ns ? wall_ns - ns : 0;
    e->over_jobs[d]++;
}

void pgcb_eta_drop(struct pgcb_eta *e, size_t g, size_t d)
{
    if (g < e->ngroups && d < e->ndrivers)
        cell(e, g, d)->ended = 1;
}

void pgcb_eta_group_done(struct pgcb_eta *e, size_t g)
{
    for (size_t d = 0; d < e->ndrivers && g < e->ngroups; d++)
        cell(e, g, d)->ended = 1;
}

static int is_live(const struct pgcb_eta_live *live, size_t g, size_t d)
{
    return live && live->group == g && live->driver == d;
}

/* Cell (g, d)'s timed ns and batches, the running job's included. */
static void observed(const struct pgcb_eta *e, const struct pgcb_eta_live *live, size_t g,
                     size_t d, double *ns, double *batches)
{
    const struct pgcb_eta_cell *c = cell(e, g, d);
    *ns = (double)c->ns;
    *batches = (double)c->batches;
    if (is_live(live, g, d)) {
        *ns += (double)live->ns;
        *batches += (double)live->batches;
    }
}

/* Driver d's ns per query over its cells of kind k outside group x
 * (x >= ngroups: all of them), the running job's included. 1 and *q, or 0
 * when it has no timed query there. */
static int per_query(const struct pgcb_eta *e, const struct pgcb_eta_live *live, size_t d,
                     int k, size_t x, double *q)
{
    double ns = (double)e->tot_ns[tot_at(e, k, d)];
    double queries = (double)e->tot_queries[tot_at(e, k, d)];
    if (live && live->driver == d && live->group < e->ngroups && kind_of(e, live->group) == k) {
        ns += (double)live->ns;
        queries += (double)live->batches * depth_of(e, live->group);
    }
    if (x < e->ngroups && kind_of(e, x) == k) {
        double xns, xb;
        observed(e, live, x, d, &xns, &xb);
        ns -= xns;
        queries -= xb * depth_of(e, x);
    }
    if (!(queries > 0.5) || !(ns > 0))
        return 0;
    *q = ns / queries;
    return 1;
}

double pgcb_eta_batch_ns(const struct pgcb_eta *e, size_t g, size_t d,
                         const struct pgcb_eta_live *live)
{
    if (g >= e->ngroups || d >= e->ndrivers)
        return 0;
    double ns, b;
    observed(e, live, g, d, &ns, &b); /* 1. measured */
    if (b > 0)
        return ns / b;
    const double depth = depth_of(e, g);
    const int kind = kind_of(e, g);
    /* The drivers measured in this group: their t, and the group's factor. */
    double log_t = 0, log_f = 0;
    size_t nt = 0, nf = 0;
    for (size_t k = 0; k < e->ndrivers; k++) {
        double kns, kb, q;
        if (k == d)
            continue;
        observed(e, live, g, k, &kns, &kb);
        if (!(kb > 0) || !(kns > 0))
            continue;
        double t = kns / kb;
        log_t += log(t);
        nt++;
        if (per_query(e, live, k, kind, g, &q)) {
            log_f += log(t / (q * depth));
            nf++;
        }
    }
    double q;
    if (per_query(e, live, d, kind, g, &q)) /* 2. the driver elsewhere */
        return q * depth * (nf ? exp(log_f / (double)nf) : 1.0);
    if (nt) /* 3. the others here */
        return exp(log_t / (double)nt);
    double log_q = 0; /* 4. the others elsewhere */
    size_t nq = 0;
    for (size_t k = 0; k < e->ndrivers; k++)
        if (k != d && per_query(e, live, k, kind, e->ngroups, &q)) {
            log_q += log(q);
            nq++;
        }
    return nq ? exp(log_q / (double)nq) * depth : 0; /* 5. nothing yet */
}

/* The mean overhead per job of driver d, else of every driver, else 0. */
static double overhead(const struct pgcb_eta *e, size_t d)
{
    if (e->over_jobs[d])
        return (double)e->over_ns[d] / (double)e->over_jobs[d];
    uint64_t ns = 0, jobs = 0;
    for (size_t k = 0; k < e->ndrivers; k++) {
        ns += e->over_ns[k];
        jobs += e->over_jobs[k];
    }
    return jobs ? (double)ns / (double)jobs : 0;
}

static double sat_sub(uint64_t a, uint64_t b)
{
    return a > b ? (double)(a - b) : 0;
}

double pgcb_eta_left_ns(const struct pgcb_eta *e, const struct pgcb_eta_live *live)
{
    double left = 0;
    for (size_t g = 0; g < e->ngroups; g++) {
        const struct pgcb_eta_group *gr = &e->groups[g];
        for (size_t d = 0; d < e->ndrivers; d++) {
            const struct pgcb_eta_cell *c = cell(e, g, d);
            if (c->ended)
                continue;
            const int here = is_live(live, g, d);
            const double t = pgcb_eta_batch_ns(e, g, d, live);
            const double o = overhead(e, d);
            if (gr->warmup && !c->warmed) {
                if (here && live->warmup)
                    left += sat_sub(gr->warmup_ns, live->ns);
                else
                    left += fmax((double)gr->warmup_ns, t) + o;
            }
            size_t n = gr->norders > c->orders_done ? gr->norders - c->orders_done : 0;
            if (n && here && !live->warmup) {
                double rest_b = (double)sat_sub(gr->batch_floor, live->batches) * t;
                left += fmax(sat_sub(gr->time_floor_ns, live->ns), rest_b);
                n--;
            }
            left += (double)n * (fmax((double)gr->time_floor_ns, (double)gr->batch_floor * t) + o);
        }
    }
    return left;
}

void pgcb_eta_steps(const struct pgcb_eta *e, uint64_t *done, uint64_t *total)
{
    *done = *total = 0;
    for (size_t g = 0; g < e->ngroups; g++) {
        const struct pgcb_eta_group *gr = &e->groups[g];
        uint64_t steps = (uint64_t)gr->norders + (gr->warmup ? 1 : 0);
        for (size_t d = 0; d < e->ndrivers; d++) {
            const struct pgcb_eta_cell *c = cell(e, g, d);
            uint64_t did = c->orders_done + (gr->warmup && c->warmed ? 1 : 0);
            *total += steps;
            *done += c->ended || did > steps ? steps : did;
        }
    }
}

void pgcb_eta_fmt(char *buf, size_t n, double ns)
{
    double s = ns / 1e9;
    if (!(s > 0))
        s = 0;
    if (s > 3.6e8) /* 100000 hours: past that, the estimate means nothing */
        s = 3.6e8;
    uint64_t sec = (uint64_t)(s + 0.5);
    if (sec < 60) {
        snprintf(buf, n, "%" PRIu64 "s", sec);
    } else if (sec < 3600) {
        snprintf(buf, n, "%" PRIu64 "m%02" PRIu64 "s", sec / 60, sec % 60);
    } else {
        uint64_t min = (sec + 30) / 60;
        snprintf(buf, n, "%" PRIu64 "h%02" PRIu64 "m", min / 60, min % 60);
    }
}
