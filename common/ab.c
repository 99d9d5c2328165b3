/* ab.c -- the A/B comparison of one driver at two versions; see ab.h. */
#include "ab.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"
#include "signed_rank.h"
#include "stats.h"
#include "util.h"

/* The bootstrap of the overall interval: replicates and a fixed seed (the
 * same input gives the same interval on every machine). */
#define AB_BOOT_REPLICATES 1000
#define AB_BOOT_SEED 0x61626762u /* "abgb" */
/* The exact Mann-Whitney distribution is computed for samples up to this. */
#define AB_MW_MAX 200

const char *pgcb_ab_kind_str(enum pgcb_ab_kind k)
{
    switch (k) {
    case PGCB_AB_FASTER: return "faster";
    case PGCB_AB_SLOWER: return "slower";
    case PGCB_AB_FAILED: return "failed";
    case PGCB_AB_NO_CHANGE: break;
    }
    return "no change detected";
}

const char *pgcb_ab_test_str(enum pgcb_ab_test t)
{
    return t == PGCB_AB_TEST_SIGN        ? "sign"
           : t == PGCB_AB_TEST_SIGNED_RANK ? "signed-rank"
                                           : "sign+overall";
}

int pgcb_ab_test_parse(const char *s, enum pgcb_ab_test *t)
{
    if (strcmp(s, "sign+overall") == 0)
        *t = PGCB_AB_TEST_SIGN_OVERALL;
    else if (strcmp(s, "signed-rank") == 0)
        *t = PGCB_AB_TEST_SIGNED_RANK;
    else if (strcmp(s, "sign") == 0)
        *t = PGCB_AB_TEST_SIGN;
    else
        return -1;
    return 0;
}

int pgcb_ab_fails_gate(enum pgcb_ab_kind kind, double ratio, double pct)
{
    if (!(pct >= 0))
        return 0;
    if (kind == PGCB_AB_FAILED)
        return 1;
    return kind == PGCB_AB_SLOWER && ratio > 1 + pct / 100;
}

/* ---- Mann-Whitney ------------------------------------------------------------ */

/*
 * P(U = u), u = 0..m*n, under the null (every arrangement of the m + n
 * values equally likely): a new array of m*n + 1. The largest value is an x
 * with probability m / (m + n), and then it is above all n y's, so
 * P_{m,n}(u) = m/(m+n) P_{m-1,n}(u - n) + n/(m+n) P_{m,n-1}(u): sums of
 * probabilities only, nothing cancels. O(m n * m n).
 */
static double *mw_dist(size_t m, size_t n)
{
    size_t cap = m * n + 1;
    double **prev = pgcb_xcalloc(n + 1, sizeof *prev), **cur = pgcb_xcalloc(n + 1, sizeof *cur);
    for (size_t j = 0; j <= n; j++) {
        prev[j] = pgcb_xcalloc(cap, sizeof **prev); /* i = 0: U = 0 */
        prev[j][0] = 1;
    }
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = 0; j <= n; j++) {
            cur[j] = pgcb_xcalloc(cap, sizeof **cur);
            if (j == 0) {
                cur[j][0] = 1;
                continue;
            }
            double px = (double)i / (double)(i + j), py = 1 - px;
            for (size_t u = 0; u <= i * j; u++)
                cur[j][u] = (u >= j ? px * prev[j][u - j] : 0) + py * cur[j - 1][u];
        }
        for (size_t j = 0; j <= n; j++) {
            free(prev[j]);
            prev[j] = cur[j];
            cur[j] = NULL;
        }
    }
    double *out = prev[n];
    for (size_t j = 0; j < n; j++)
        free(prev[j]);
    free(prev);
    free(cur);
    return out;
}

/* P(U <= k) from the distribution d of sizes m, n (k may exceed m n). */
static double mw_cdf(const double *d, size_t m, size_t n, double k)
{
    double s = 0;
    for (size_t u = 0; u <= m * n && (double)u <= k; u++)
        s += d[u];
    return s > 1 ? 1 : s;
}

double pgcb_ab_mann_whitney(const double *x, size_t m, const double *y, size_t n,
                            double *u_out)
{
    double u = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            u += y[j] < x[i] ? 1 : y[j] == x[i] ? 0.5 : 0;
    if (u_out)
        *u_out = u;
    if (m == 0 || n == 0 || m > AB_MW_MAX || n > AB_MW_MAX)
        return 1;
    double *d = mw_dist(m, n);
    double lower = mw_cdf(d, m, n, ceil(u));
    double upper = 1 - mw_cdf(d, m, n, floor(u) - 1);
    free(d);
    double p = 2 * (lower < upper ? lower : upper);
    return p > 1 ? 1 : p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double pgcb_ab_moses_ci(const double *x, size_t m, const double *y, size_t n, double level,
                        double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (m == 0 || n == 0 || m > AB_MW_MAX || n > AB_MW_MAX)
        return 0;
    double *d = mw_dist(m, n);
    size_t mn = m * n, k = 0;
    double cum = 0, coverage = 0, best = 1 - 2 * d[0];
    /* Coverage of [d_(k), d_(mn+1-k)] is 1 - 2 P(U <= k - 1): the largest k
     * that keeps it >= level. */
    for (size_t kk = 1; 2 * kk <= mn + 1; kk++) {
        cum += d[kk - 1];
        double c = 1 - 2 * cum;
        if (c + 1e-12 < level)
            break;
        k = kk;
        coverage = c;
    }
    free(d);
    if (k == 0)
        return best > 0 ? best : 0;
    double *r = pgcb_xcalloc(mn, sizeof *r);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            r[i * n + j] = y[j] / x[i];
    qsort(r, mn, sizeof *r, cmp_double);
    *lo = r[k - 1];
    *hi = r[mn - k];
    free(r);
    return coverage;
}

/* ---- one group ------------------------------------------------------------------ */

/* What compute() gathers for one group before Holm. */
struct ab_samples {
    double *x, *y;   /* paired: y = per-order ratios, x unused; unpaired: base's, head's */
    size_t nx, ny;
    double *u;       /* paired: every order's log ratio (NAN: missing on a side) */
    size_t nu;
};

static size_t find_driver(const struct pgcb_result *r, const char *label)
{
    for (size_t d = 0; d < r->ndrivers; d++)
        if (strcmp(r->drivers[d].label, label) == 0)
            return d;
    return PGCB_RANK_NONE;
}

static size_t find_group(const struct pgcb_result *r, const struct pgcb_res_group *gr)
{
    for (size_t g = 0; g < r->ngroups; g++)
        if (pgcb_rank_same_group(&r->groups[g], gr))
            return g;
    return PGCB_RANK_NONE;
}

static double order_median(const struct pgcb_res_cell *c, size_t o)
{
    return o < c->norders && c->order_medians_ns ? c->order_medians_ns[o] : NAN;
}

/* Why driver `label` (index d, maybe NONE) of run r (`which` "run 2",
 * "baseline run 1") has no comparable cell in group g (maybe NONE): a new
 * string, or NULL when it has one. */
static char *side_problem(const struct pgcb_result *r, size_t g, size_t d, const char *label,
                          const char *which)
{
    if (d == PGCB_RANK_NONE)
        return pgcb_xasprintf("%s: no driver '%s'", which, label);
    if (g == PGCB_RANK_NONE)
        return pgcb_xasprintf("%s: group not run", which);
    const struct pgcb_res_cell *c = &r->groups[g].cells[d];
    if (pgcb_rank_cell_valid(r, g, d))
        return NULL;
    char one[256];
    pgcb_oneline(one, sizeof one, c->error ? c->error : "no median");
    return pgcb_xasprintf("%s %s in %s: %s", label, pgcb_cell_status_str(c->status), which, one);
}

static void push(double **v, size_t *n, size_t *cap, double x)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        *v = pgcb_xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = x;
}

/* Accumulates one side's pooled figures over runs (geometric means). */
struct ab_pool {
    double log_ns, log_cpu;
    size_t n, ncpu;
};

static void pool_add(struct ab_pool *p, const struct pgcb_res_cell *c)
{
    p->log_ns += log(pgcb_res_cell_figure(c));
    p->n++;
    if (isfinite(c->cpu_ns_per_query) && c->cpu_ns_per_query > 0) {
        p->log_cpu += log(c->cpu_ns_per_query);
        p->ncpu++;
    }
}

static void pool_get(const struct ab_pool *p, double *ns, double *cpu)
{
    *ns = p->n ? exp(p->log_ns / (double)p->n) : NAN;
    *cpu = p->ncpu == p->n && p->n ? exp(p->log_cpu / (double)p->ncpu) : NAN;
}

/*
 * One group's samples from `runs` for `label`: every per-order median of
 * the driver (unpaired), or -- paired, other = the base label -- every
 * per-order ratio label / other within each run, and every order's log
 * ratio into *u (NAN where a side has no median in it: *u keeps the
 * orders' index, which the overall test pairs across groups). Only each
 * run's first max_orders orders (0: all). Sets out->why on the first problem.
 * `what` is "run" or "baseline run".
 */
static void gather(const struct pgcb_result *const *runs, size_t nruns, const char *label,
                   const char *other, const struct pgcb_res_group *gr, const char *what,
                   size_t max_orders, struct pgcb_ab_group *out, struct ab_pool *pool,
                   struct ab_pool *opool, double **v, size_t *nv, double **u, size_t *nu)
{
    size_t cap = 0, ucap = 0;
    for (size_t i = 0; i < nruns && !out->why; i++) {
        const struct pgcb_result *r = runs[i];
        char which[64];
        snprintf(which, sizeof which, nruns > 1 ? "%s %zu" : "%s", what, i + 1);
        size_t g = find_group(r, gr), d = find_driver(r, label);
        out->why = side_problem(r, g, d, label, which);
        size_t od = other ? find_driver(r, other) : PGCB_RANK_NONE;
        if (!out->why && other)
            out->why = side_problem(r, g, od, other, which);
        if (out->why)
            break;
        const struct pgcb_res_cell *c = &r->groups[g].cells[d];
        pool_add(pool, c);
        size_t k = pgcb_rank_group_orders(r, g);
        if (max_orders > 0 && k > max_orders)
            k = max_orders;
        if (!other) {
            for (size_t o = 0; o < k; o++) {
                double a = order_median(c, o);
                if (isfinite(a) && a > 0)
                    push(v, nv, &cap, a);
            }
            continue;
        }
        const struct pgcb_res_cell *oc = &r->groups[g].cells[od];
        pool_add(opool, oc);
        for (size_t o = 0; o < k; o++) {
            double a = order_median(c, o), b = order_median(oc, o);
            if (!(isfinite(a) && isfinite(b) && a > 0 && b > 0)) {
                out->ties++; /* missing on a side: dropped, as a tie is */
                push(u, nu, &ucap, NAN);
                continue;
            }
            out->faster += a < b;
            out->slower += a > b;
            out->ties += a == b;
            push(v, nv, &cap, a / b);
            push(u, nu, &ucap, log(a / b));
        }
    }
}

/* ---- the overall interval ------------------------------------------------------------ */

/* A random resample of v[0..n-1] into s (n values), its median. */
static double resample_median(const double *v, size_t n, double *s, uint64_t *state)
{
    for (size_t o = 0; o < n; o++)
        s[o] = v[pgcb_stats_rng_below(state, n)];
    return pgcb_stats_median_dbl(s, n);
}

static void boot_overall(struct pgcb_ab *ab, const struct ab_samples *sm)
{
    size_t kmax = 0, informative = 0;
    for (size_t g = 0; g < ab->ngroups; g++) {
        if (ab->groups[g].kind == PGCB_AB_FAILED)
            continue;
        kmax = sm[g].nx > kmax ? sm[g].nx : kmax;
        kmax = sm[g].ny > kmax ? sm[g].ny : kmax;
        informative += sm[g].ny >= 2;
    }
    if (!informative)
        return;
    double *rep = pgcb_xcalloc(AB_BOOT_REPLICATES, sizeof *rep);
    double *s = pgcb_xcalloc(kmax, sizeof *s);
    uint64_t state = AB_BOOT_SEED;
    size_t m = 0;
    for (size_t b = 0; b < AB_BOOT_REPLICATES; b++) {
        double logsum = 0;
        size_t terms = 0;
        for (size_t g = 0; g < ab->ngroups; g++) {
            if (ab->groups[g].kind == PGCB_AB_FAILED || !sm[g].ny)
                continue;
            double r = resample_median(sm[g].y, sm[g].ny, s, &state);
            if (ab->unpaired)
                r /= resample_median(sm[g].x, sm[g].nx, s, &state);
            if (r > 0 && isfinite(r)) {
                logsum += log(r);
                terms++;
            }
        }
        if (terms)
            rep[m++] = exp(logsum / (double)terms);
    }
    if (m) {
        qsort(rep, m, sizeof *rep, cmp_double);
        double tail = (1 - ab->level) / 2;
        ab->geo_lo = rep[(size_t)floor(tail * (double)(m - 1))];
        ab->geo_hi = rep[(size_t)ceil((1 - tail) * (double)(m - 1))];
    }
    free(s);
    free(rep);
}

/* ---- compute -------------------------------------------------------------------------- */

/* The first run's entry of driver `label`, or NULL. */
static const struct pgcb_res_driver *first_driver(const struct pgcb_result *const *runs, size_t n,
                                                  const char *label)
{
    for (size_t i = 0; i < n; i++) {
        size_t d = find_driver(runs[i], label);
        if (d != PGCB_RANK_NONE)
            return &runs[i]->drivers[d];
    }
    return NULL;
}

/* The overall test (paired; sign+overall and signed-rank): order k's value
 * is the mean of the log ratios of order k in the groups that compare, for
 * k below the fewest orders any of them has (an order missing in one group
 * is left out). Sets ab->overall (tested = 0 when fewer than two groups
 * compare). */
static void overall_test(struct pgcb_ab *ab, const struct ab_samples *sm)
{
    size_t ng = 0, nmin = SIZE_MAX;
    for (size_t g = 0; g < ab->ngroups; g++) {
        if (ab->groups[g].kind == PGCB_AB_FAILED)
            continue;
        ng++;
        nmin = sm[g].nu < nmin ? sm[g].nu : nmin;
    }
    if (ab->unpaired || ab->test == PGCB_AB_TEST_SIGN || ng < 2 || nmin == 0)
        return;
    double *comb = pgcb_xcalloc(nmin, sizeof *comb);
    for (size_t k = 0; k < nmin; k++) {
        for (size_t g = 0; g < ab->ngroups; g++)
            if (ab->groups[g].kind != PGCB_AB_FAILED)
                comb[k] += sm[g].u[k]; /* a NAN leaves the order out */
        comb[k] /= (double)ng;
    }
    ab->overall.tested = 1;
    ab->overall.p = pgcb_srank_test(comb, nmin, &ab->overall.w_plus, &ab->overall.units);
    double est;
    ab->overall.coverage = pgcb_srank_ci(comb, nmin, ab->level, &est, &ab->overall.lo,
                                         &ab->overall.hi);
    ab->overall.lo = exp(ab->overall.lo);
    ab->overall.hi = exp(ab->overall.hi);
    free(comb);
}

/* Which way a rejected test points: +1 HEAD higher (slower), -1 lower. */
static int direction(double lower, double higher)
{
    return higher > lower ? 1 : lower > higher ? -1 : 0;
}

/* Holm over the groups that compare (and the overall test), then each
 * one's kind; the counts, the gate and the overall geometric mean. */
static void decide(struct pgcb_ab *ab, const struct ab_samples *sm)
{
    size_t m = 0, cap = ab->ngroups + 1;
    double *p = pgcb_xcalloc(cap, sizeof *p);
    double *lv = pgcb_xcalloc(cap, sizeof *lv);
    int *rej = pgcb_xcalloc(cap, sizeof *rej);
    for (size_t g = 0; g < ab->ngroups; g++)
        if (ab->groups[g].kind != PGCB_AB_FAILED)
            p[m++] = ab->groups[g].p;
    overall_test(ab, sm);
    if (ab->overall.tested)
        p[m++] = ab->overall.p;
    pgcb_stats_holm(p, m, ab->alpha, rej, lv);
    double *ratios = pgcb_xcalloc(ab->ngroups ? ab->ngroups : 1, sizeof *ratios);
    size_t k = 0;
    for (size_t g = 0; g < ab->ngroups; g++) {
        struct pgcb_ab_group *x = &ab->groups[g];
        if (x->kind == PGCB_AB_FAILED) {
            ab->nfailed++;
            continue;
        }
        x->holm_level = lv[k];
        x->rejected = rej[k];
        k++;
        /* The direction of the test statistic: pairs below half of them
         * (unpaired), the ranks of the units above and below (signed-rank),
         * orders won (sign). */
        double lower, higher;
        if (ab->unpaired) {
            lower = x->u;
            higher = (double)x->base_orders * (double)x->head_orders - x->u;
        } else if (ab->test == PGCB_AB_TEST_SIGNED_RANK) {
            higher = x->w_plus; /* the ranks of the orders where HEAD was higher */
            lower = (double)x->units * (double)(x->units + 1) / 2 - x->w_plus;
        } else {
            lower = x->faster;
            higher = x->slower;
        }
        int dir = x->rejected ? direction(lower, higher) : 0;
        if (dir < 0)
            x->kind = PGCB_AB_FASTER;
        else if (dir > 0)
            x->kind = PGCB_AB_SLOWER;
        ab->nfaster += x->kind == PGCB_AB_FASTER;
        ab->nslower += x->kind == PGCB_AB_SLOWER;
        ab->nno_change += x->kind == PGCB_AB_NO_CHANGE;
        if (isfinite(x->ratio) && x->ratio > 0)
            ratios[ab->geo_groups++] = x->ratio;
    }
    for (size_t g = 0; g < ab->ngroups; g++) {
        struct pgcb_ab_group *x = &ab->groups[g];
        x->over = x->kind == PGCB_AB_SLOWER &&
                  pgcb_ab_fails_gate(x->kind, x->ratio, ab->fail_above_pct);
        ab->nover += x->over;
    }
    if (ab->geo_groups) {
        ab->geo = pgcb_stats_geomean(ratios, ab->geo_groups);
        boot_overall(ab, sm);
    }
    if (ab->overall.tested) {
        ab->overall.holm_level = lv[k];
        ab->overall.rejected = rej[k];
        double n = (double)ab->overall.units;
        int dir = rej[k] ? direction(n * (n + 1) / 2 - ab->overall.w_plus, ab->overall.w_plus)
                         : 0;
        ab->overall.kind = dir > 0 ? PGCB_AB_SLOWER : dir < 0 ? PGCB_AB_FASTER
                                                              : PGCB_AB_NO_CHANGE;
        ab->overall.over = ab->overall.kind == PGCB_AB_SLOWER &&
                           pgcb_ab_fails_gate(ab->overall.kind, ab->geo, ab->fail_above_pct);
    }
    ab->gate_failed = ab->fail_above_pct >= 0 && (ab->nfailed || ab->nover || ab->overall.over);
    free(ratios);
    free(rej);
    free(lv);
    free(p);
}

int pgcb_ab_compute(const struct pgcb_result *const *head_runs, size_t nhead,
                    const struct pgcb_result *const *base_runs, size_t nbase, const char *base,
                    const char *head, double fail_above_pct, struct pgcb_ab *out, char *err,
                    size_t errlen)
{
    return pgcb_ab_compute_opts(head_runs, nhead, base_runs, nbase, base, head, fail_above_pct,
                                NULL, out, err, errlen);
}

int pgcb_ab_compute_opts(const struct pgcb_result *const *head_runs, size_t nhead,
                         const struct pgcb_result *const *base_runs, size_t nbase,
                         const char *base, const char *head, double fail_above_pct,
                         const struct pgcb_ab_opts *opts, struct pgcb_ab *out, char *err,
                         size_t errlen)
{
    const struct pgcb_ab_opts defaults = {.test = PGCB_AB_TEST_SIGN_OVERALL};
    opts = opts ? opts : &defaults;
    *out = (struct pgcb_ab){.geo = NAN, .geo_lo = NAN, .geo_hi = NAN,
                            .fail_above_pct = fail_above_pct >= 0 ? fail_above_pct : -1,
                            .unpaired = base_runs != NULL, .test = opts->test,
                            .max_orders = opts->max_orders};
    out->overall.p = 1;
    out->overall.w_plus = out->overall.holm_level = out->overall.lo = out->overall.hi = NAN;
    out->base = pgcb_xstrdup(base);
    out->head = pgcb_xstrdup(head);
    if (!base_runs) {
        base_runs = head_runs;
        nbase = nhead;
    }
    out->nhead_runs = nhead;
    out->nbase_runs = nbase;
    if (nhead == 0 || nbase == 0) {
        snprintf(err, errlen, "no result to compare");
        return -1;
    }
    const struct pgcb_res_driver *hd = first_driver(head_runs, nhead, head),
                                 *bd = first_driver(base_runs, nbase, base);
    if (!hd || !bd) {
        snprintf(err, errlen, "no %s has a driver '%s'", !hd || !out->unpaired ? "run" : "baseline run",
                 !hd ? head : base);
        return -1;
    }
    out->head_links = hd->links ? pgcb_xstrdup(hd->links) : NULL;
    out->base_links = bd->links ? pgcb_xstrdup(bd->links) : NULL;
    out->head_path = hd->path ? pgcb_xstrdup(hd->path) : NULL;
    out->base_path = bd->path ? pgcb_xstrdup(bd->path) : NULL;
    out->alpha = pgcb_rank_alpha(head_runs[0]);
    out->level = pgcb_rank_level(head_runs[0]);
    const struct pgcb_result *first = head_runs[0];
    if (first->ngroups == 0) {
        snprintf(err, errlen, "the run has no group");
        return -1;
    }
    out->groups = pgcb_xcalloc(first->ngroups, sizeof *out->groups);
    struct ab_samples *sm = pgcb_xcalloc(first->ngroups, sizeof *sm);
    for (size_t g = 0; g < first->ngroups; g++) {
        const struct pgcb_res_group *gr = &first->groups[g];
        if (find_group(first, gr) != g)
            continue; /* listed twice: once */
        struct pgcb_ab_group *x = &out->groups[out->ngroups];
        struct ab_samples *s = &sm[out->ngroups++];
        *x = (struct pgcb_ab_group){.group = gr, .ratio = NAN, .lo = NAN, .hi = NAN, .p = 1,
                                    .u = NAN, .holm_level = NAN,
                                    .w_plus = NAN, .base_ns = NAN, .head_ns = NAN,
                                    .base_cpu = NAN, .head_cpu = NAN};
        struct ab_pool hp = {0}, bp = {0};
        if (out->unpaired) {
            gather(head_runs, nhead, head, NULL, gr, "run", opts->max_orders, x, &hp, NULL,
                   &s->y, &s->ny, NULL, NULL);
            if (!x->why)
                gather(base_runs, nbase, base, NULL, gr, "baseline run", opts->max_orders, x,
                       &bp, NULL, &s->x, &s->nx, NULL, NULL);
        } else {
            gather(head_runs, nhead, head, base, gr, "run", opts->max_orders, x, &hp, &bp,
                   &s->y, &s->ny, &s->u, &s->nu);
        }
        if (!x->why && (!s->ny || (out->unpaired && !s->nx)))
            x->why = pgcb_xstrdup("no per-order medians");
        if (x->why) {
            x->kind = PGCB_AB_FAILED;
            continue;
        }
        pool_get(&hp, &x->head_ns, &x->head_cpu);
        pool_get(&bp, &x->base_ns, &x->base_cpu);
        x->ratio = x->head_ns / x->base_ns;
    }
    for (size_t g = 0; g < out->ngroups; g++) {
        struct pgcb_ab_group *x = &out->groups[g];
        const struct ab_samples *s = &sm[g];
        if (x->kind == PGCB_AB_FAILED)
            continue;
        if (out->unpaired) {
            x->base_orders = s->nx;
            x->head_orders = s->ny;
            x->p = pgcb_ab_mann_whitney(s->x, s->nx, s->y, s->ny, &x->u);
            x->coverage = pgcb_ab_moses_ci(s->x, s->nx, s->y, s->ny, out->level, &x->lo, &x->hi);
        } else if (out->test == PGCB_AB_TEST_SIGNED_RANK) {
            x->base_orders = x->head_orders = s->ny;
            x->p = pgcb_srank_test(s->u, s->nu, &x->w_plus, &x->units);
            double est;
            x->coverage = pgcb_srank_ci(s->u, s->nu, out->level, &est, &x->lo, &x->hi);
            x->lo = exp(x->lo);
            x->hi = exp(x->hi);
        } else {
            x->base_orders = x->head_orders = s->ny;
            x->p = pgcb_stats_sign_test(x->faster, x->slower, NULL);
            double *tmp = pgcb_xcalloc(s->ny, sizeof *tmp);
            memcpy(tmp, s->y, s->ny * sizeof *tmp);
            x->coverage = pgcb_stats_median_ci(tmp, s->ny, out->level, &x->lo, &x->hi);
            free(tmp);
        }
        size_t n = x->head_orders > x->base_orders ? x->head_orders : x->base_orders;
        out->orders = n > out->orders ? n : out->orders;
    }
    decide(out, sm);
    for (size_t g = 0; g < first->ngroups; g++) {
        free(sm[g].x);
        free(sm[g].y);
        free(sm[g].u);
    }
    free(sm);
    return 0;
}

void pgcb_ab_free(struct pgcb_ab *ab)
{
    for (size_t g = 0; g < ab->ngroups; g++)
        free(ab->groups[g].why);
    free(ab->groups);
    free(ab->base);
    free(ab->head);
    free(ab->base_links);
    free(ab->head_links);
    free(ab->base_path);
    free(ab->head_path);
    *ab = (struct pgcb_ab){0};
}

void pgcb_ab_gate_why(const struct pgcb_ab *ab, char *buf, size_t len)
{
    snprintf(buf, len, "%zu group%s slower by more than %g%%%s, %zu failed", ab->nover,
             ab->nover == 1 ? "" : "s", ab->fail_above_pct,
             ab->overall.over ? ", overall slower" : "", ab->nfailed);
}

/* ---- JSON ------------------------------------------------------------------------------ */

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

json_t *pgcb_ab_json(const struct pgcb_ab *ab)
{
    json_t *groups = json_array();
    for (size_t g = 0; g < ab->ngroups; g++) {
        const struct pgcb_ab_group *x = &ab->groups[g];
        const struct pgcb_res_group *gr = x->group;
        json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:b, s:s, s:o}", "suite", gr->suite, "query",
                              gr->query, "depth", (json_int_t)gr->depth, "threads",
                              (json_int_t)gr->threads, "transaction", gr->transaction,
                              "verdict", pgcb_ab_kind_str(x->kind), "why", str_or_null(x->why));
        json_object_set_new(o, "base_ns", num(x->base_ns));
        json_object_set_new(o, "head_ns", num(x->head_ns));
        json_object_set_new(o, "base_cpu_ns_per_query", num(x->base_cpu));
        json_object_set_new(o, "head_cpu_ns_per_query", num(x->head_cpu));
        json_object_set_new(o, "ratio", num(x->ratio));
        json_object_set_new(o, "interval", isfinite(x->lo) && isfinite(x->hi)
                                               ? json_pack("[f, f]", x->lo, x->hi)
                                               : json_null());
        json_object_set_new(o, "coverage", num(x->coverage));
        json_object_set_new(o, "orders", json_pack("{s:I, s:I}", "base",
                                                   (json_int_t)x->base_orders, "head",
                                                   (json_int_t)x->head_orders));
        if (ab->unpaired) {
            json_object_set_new(o, "u", num(x->u));
        } else {
            json_object_set_new(o, "faster", json_integer(x->faster));
            json_object_set_new(o, "slower", json_integer(x->slower));
            json_object_set_new(o, "ties", json_integer(x->ties));
            if (ab->test == PGCB_AB_TEST_SIGNED_RANK) {
                json_object_set_new(o, "units", json_integer((json_int_t)x->units));
                json_object_set_new(o, "w_plus", num(x->w_plus));
            }
        }
        json_object_set_new(o, "p", num(x->kind == PGCB_AB_FAILED ? NAN : x->p));
        json_object_set_new(o, "holm_level", num(x->holm_level));
        json_object_set_new(o, "shown", json_boolean(x->rejected));
        json_object_set_new(o, "over_threshold", json_boolean(x->over));
        json_array_append_new(groups, o);
    }
    char why[160] = "";
    if (ab->gate_failed)
        pgcb_ab_gate_why(ab, why, sizeof why);
    json_t *j = json_pack("{s:s, s:s, s:o, s:o, s:s, s:s, s:f, s:f, s:o, s:{s:I, s:I}, s:o}",
                          "base", ab->base, "head", ab->head, "base_links",
                          str_or_null(ab->base_links), "head_links", str_or_null(ab->head_links),
                          "design", ab->unpaired ? "unpaired" : "paired", "test",
                          ab->unpaired ? "exact two-sided Mann-Whitney over the per-order "
                                         "medians of two runs; Holm over groups"
                          : ab->test == PGCB_AB_TEST_SIGN
                              ? "exact two-sided sign test over the execution orders; Holm "
                                "over groups"
                          : ab->test == PGCB_AB_TEST_SIGNED_RANK
                              ? "exact two-sided Wilcoxon signed-rank test over the orders' log "
                                "ratios, per group and over the groups' mean per order; Holm "
                                "over groups and the overall test"
                              : "exact two-sided sign test over the execution orders per group, "
                                "exact two-sided Wilcoxon signed-rank test over the groups' mean "
                                "log ratio per order (the overall test); Holm over groups and "
                                "the overall test",
                          "alpha", ab->alpha, "interval_level", ab->level, "fail_above_pct",
                          ab->fail_above_pct >= 0 ? json_real(ab->fail_above_pct) : json_null(),
                          "runs", "head", (json_int_t)ab->nhead_runs, "base",
                          (json_int_t)ab->nbase_runs, "groups", groups);
    json_object_set_new(j, "base_path", str_or_null(ab->base_path));
    json_object_set_new(j, "head_path", str_or_null(ab->head_path));
    json_t *ov = json_pack("{s:o, s:o, s:I}", "geomean_ratio", num(ab->geo), "interval",
                           isfinite(ab->geo_lo) ? json_pack("[f, f]", ab->geo_lo, ab->geo_hi)
                                                : json_null(),
                           "groups", (json_int_t)ab->geo_groups);
    if (ab->overall.tested) {
        json_t *t = json_pack("{s:I, s:o, s:o, s:o}", "units", (json_int_t)ab->overall.units,
                              "w_plus", num(ab->overall.w_plus), "p", num(ab->overall.p),
                              "holm_level", num(ab->overall.holm_level));
        json_object_set_new(t, "interval", isfinite(ab->overall.lo)
                                               ? json_pack("[f, f]", ab->overall.lo,
                                                           ab->overall.hi)
                                               : json_null());
        json_object_set_new(t, "verdict", json_string(pgcb_ab_kind_str(ab->overall.kind)));
        json_object_set_new(t, "shown", json_boolean(ab->overall.rejected));
        json_object_set_new(t, "over_threshold", json_boolean(ab->overall.over));
        json_object_set_new(ov, "test", t);
    }
    json_object_set_new(j, "overall", ov);
    json_object_set_new(j, "paired_test", ab->unpaired ? json_null()
                                                       : json_string(pgcb_ab_test_str(ab->test)));
    json_object_set_new(j, "max_orders", ab->max_orders ? json_integer((json_int_t)ab->max_orders)
                                                        : json_null());
    json_object_set_new(j, "counts", json_pack("{s:I, s:I, s:I, s:I}", "faster",
                                               (json_int_t)ab->nfaster, "slower",
                                               (json_int_t)ab->nslower, "no_change",
                                               (json_int_t)ab->nno_change, "failed",
                                               (json_int_t)ab->nfailed));
    json_object_set_new(j, "gate", json_pack("{s:b, s:o}", "failed", ab->gate_failed, "why",
                                             ab->gate_failed ? json_string(why) : json_null()));
    return j;
}
