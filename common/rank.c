/* rank.c -- group verdicts and geometric-mean rankings; see rank.h. */
#include "rank.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgcb/driver.h"
#include "stats.h"
#include "util.h"

/* ---- small helpers ------------------------------------------------------- */

static int is_client(const struct pgcb_result *r, size_t d)
{
    return !(r->drivers[d].caps & PGCB_CAP_REFERENCE);
}

int pgcb_rank_cell_valid(const struct pgcb_result *r, size_t g, size_t d)
{
    const struct pgcb_res_cell *c = &r->groups[g].cells[d];
    return c->status == PGCB_CELL_OK && isfinite(pgcb_res_cell_figure(c)) &&
           pgcb_res_cell_figure(c) > 0;
}

/* Index of the driver labelled `label` in r, or PGCB_RANK_NONE. */
static size_t find_driver(const struct pgcb_result *r, const char *label)
{
    for (size_t d = 0; d < r->ndrivers; d++)
        if (strcmp(r->drivers[d].label, label) == 0)
            return d;
    return PGCB_RANK_NONE;
}

int pgcb_rank_same_step(const struct pgcb_res_group *a, const struct pgcb_res_group *b)
{
    return strcmp(a->suite, b->suite) == 0 && strcmp(a->query, b->query) == 0 &&
           a->depth == b->depth && a->threads == b->threads &&
           !a->transaction == !b->transaction && a->ops == b->ops &&
           !a->connect == !b->connect;
}

int pgcb_rank_same_group(const struct pgcb_res_group *a, const struct pgcb_res_group *b)
{
    return pgcb_rank_same_step(a, b) && !a->transport == !b->transport &&
           (!a->transport || strcmp(a->transport, b->transport) == 0) &&
           !a->has_rtt == !b->has_rtt && (!a->has_rtt || a->rtt_ms == b->rtt_ms);
}

int pgcb_rank_driver_shared(const struct pgcb_result *const *scope, size_t nscope,
                            const char *label)
{
    for (size_t i = 0; i < nscope; i++) {
        size_t d = find_driver(scope[i], label);
        if (d == PGCB_RANK_NONE || !is_client(scope[i], d))
            return 0;
    }
    return 1;
}

int pgcb_rank_group_shared(const struct pgcb_result *const *scope, size_t nscope,
                           const struct pgcb_res_group *gr)
{
    for (size_t i = 0; i < nscope; i++) {
        size_t g = 0;
        while (g < scope[i]->ngroups && !pgcb_rank_same_group(&scope[i]->groups[g], gr))
            g++;
        if (g == scope[i]->ngroups)
            return 0;
    }
    return 1;
}

const char **pgcb_rank_suites(const struct pgcb_result *const *scope, size_t nscope, size_t *n)
{
    *n = 0;
    if (nscope == 0)
        return NULL;
    const struct pgcb_result *r = scope[0];
    const char **names = NULL;
    for (size_t g = 0; g < r->ngroups; g++) {
        if (!pgcb_rank_group_shared(scope, nscope, &r->groups[g]))
            continue;
        size_t k = 0;
        while (k < *n && strcmp(names[k], r->groups[g].suite) != 0)
            k++;
        if (k < *n)
            continue;
        names = pgcb_xrealloc(names, (*n + 1) * sizeof *names);
        names[(*n)++] = r->groups[g].suite;
    }
    return names;
}

const char *pgcb_rank_medal(unsigned rank)
{
    static const char *const medals[] = {"🥇", "🥈", "🥉"};
    return rank >= 1 && rank <= 3 ? medals[rank - 1] : "";
}

/* Median of v[0..n-1] ignoring NaNs (insertion sort: n is an order count,
 * small); NAN when none is finite. Reorders v. */
static double median_small(double *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[m++] = v[i];
    for (size_t i = 1; i < m; i++) {
        double x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    if (m == 0)
        return NAN;
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

/* ---- verdict ------------------------------------------------------------- */

double pgcb_rank_alpha(const struct pgcb_result *r)
{
    double a = r->alpha > 0 && r->alpha <= 0.5 ? r->alpha : PGCB_DEFAULT_ALPHA;
    return r->looks > 1 ? a / (double)r->looks : a;
}

size_t pgcb_rank_group_orders(const struct pgcb_result *r, size_t g)
{
    size_t k = r->groups[g].orders_run;
    return k > 0 && k < r->norders ? k : r->norders;
}

double pgcb_rank_level(const struct pgcb_result *r)
{
    return r->interval_level > 0 && r->interval_level < 1 ? r->interval_level
                                                          : PGCB_DEFAULT_INTERVAL_LEVEL;
}

unsigned pgcb_rank_ci_min_orders(double level)
{
    return (unsigned)ceil(1 - log2(1 - level) - 1e-9);
}

void pgcb_rank_fmt_alpha(char *buf, size_t n, double alpha)
{
    double inv = 1 / alpha;
    if (fabs(inv - nearbyint(inv)) < 1e-9 * inv && inv < 1e15)
        snprintf(buf, n, "1/%.0f", inv);
    else
        snprintf(buf, n, "%g", alpha);
}

void pgcb_rank_fmt_p(char *buf, size_t n, double p)
{
    if (p < 1e-6)
        snprintf(buf, n, "p < 1e-6");
    else
        snprintf(buf, n, "p = %.2g", p);
}

/* The median of order o of cell c, NAN when it has none. */
static double order_median(const struct pgcb_res_cell *c, size_t o)
{
    return o < c->norders && c->order_medians_ns ? c->order_medians_ns[o] : NAN;
}

void pgcb_rank_verdict_free(struct pgcb_verdict *v)
{
    free(v->rivals);
    v->rivals = NULL;
    v->nrivals = 0;
}

const struct pgcb_verdict_rival *pgcb_rank_verdict_rival(const struct pgcb_verdict *v, size_t d)
{
    for (size_t i = 0; i < v->nrivals; i++)
        if (v->rivals[i].driver == d)
            return &v->rivals[i];
    return NULL;
}

void pgcb_rank_verdict(const struct pgcb_result *r, size_t g, struct pgcb_verdict *v)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    *v = (struct pgcb_verdict){.kind = PGCB_VERDICT_NO_VALID, .winner = PGCB_RANK_NONE,
                               .lowest_median = PGCB_RANK_NONE, .lowest_mean = PGCB_RANK_NONE,
                               .orders = pgcb_rank_group_orders(r, g),
                               .alpha = pgcb_rank_alpha(r),
                               .p_max = NAN};
    for (size_t d = 0; d < r->ndrivers; d++) {
        if (!is_client(r, d) || !pgcb_rank_cell_valid(r, g, d))
            continue;
        const struct pgcb_res_cell *c = &gr->cells[d];
        v->nvalid++;
        if (v->lowest_median == PGCB_RANK_NONE ||
            pgcb_res_cell_figure(c) < pgcb_res_cell_figure(&gr->cells[v->lowest_median]))
            v->lowest_median = d;
        if (isfinite(c->mean_ns) &&
            (v->lowest_mean == PGCB_RANK_NONE || c->mean_ns < gr->cells[v->lowest_mean].mean_ns))
            v->lowest_mean = d;
    }
    if (v->nvalid == 0)
        return;
    if (v->nvalid == 1) {
        v->kind = PGCB_VERDICT_ONLY_ONE;
        return;
    }
    v->min_orders = pgcb_stats_sign_min_orders(v->alpha, v->nvalid - 1);
    v->rivals = pgcb_xcalloc(v->nvalid - 1, sizeof *v->rivals);
    const struct pgcb_res_cell *bc = &gr->cells[v->lowest_median];
    int more_wins = 1; /* against every rival, more wins than losses */
    for (size_t d = 0; d < r->ndrivers; d++) {
        if (d == v->lowest_median || !is_client(r, d) || !pgcb_rank_cell_valid(r, g, d))
            continue;
        const struct pgcb_res_cell *c = &gr->cells[d];
        struct pgcb_verdict_rival *rv = &v->rivals[v->nrivals++];
        rv->driver = d;
        if (pgcb_res_cell_figure(c) == pgcb_res_cell_figure(bc))
            v->median_ties++;
        for (size_t o = 0; o < v->orders; o++) {
            double mine = order_median(bc, o), theirs = order_median(c, o);
            if (mine < theirs)
                rv->wins++;
            else if (mine > theirs)
                rv->losses++;
            else
                rv->ties++; /* equal, or NaN on either side */
        }
        rv->p = pgcb_stats_sign_test(rv->wins, rv->losses, &rv->log2_p);
        more_wins &= rv->wins > rv->losses;
        if (!(v->p_max >= rv->p))
            v->p_max = rv->p;
    }
    size_t m = v->nrivals;
    double *p = pgcb_xcalloc(m, sizeof *p), *lv = pgcb_xcalloc(m, sizeof *lv);
    int *rej = pgcb_xcalloc(m, sizeof *rej);
    for (size_t i = 0; i < m; i++)
        p[i] = v->rivals[i].p;
    size_t nrej = pgcb_stats_holm(p, m, v->alpha, rej, lv);
    for (size_t i = 0; i < m; i++) {
        v->rivals[i].level = lv[i];
        v->rivals[i].rejected = rej[i] && v->rivals[i].wins > v->rivals[i].losses;
    }
    free(p);
    free(lv);
    free(rej);
    if (v->orders < v->min_orders)
        v->kind = PGCB_VERDICT_TOO_FEW;
    else if (more_wins && nrej == v->nrivals && v->median_ties == 0) {
        v->kind = PGCB_VERDICT_WINNER;
        v->winner = v->lowest_median;
    } else {
        v->kind = PGCB_VERDICT_NO_CLEAR;
    }
}

int pgcb_rank_ratio(const struct pgcb_result *r, size_t g, size_t d, size_t ref,
                    struct pgcb_ratio *out)
{
    *out = (struct pgcb_ratio){.ratio = NAN, .lo = NAN, .hi = NAN,
                               .level = pgcb_rank_level(r)};
    if (d >= r->ndrivers || ref >= r->ndrivers || !pgcb_rank_cell_valid(r, g, d) ||
        !pgcb_rank_cell_valid(r, g, ref))
        return -1;
    const struct pgcb_res_cell *c = &r->groups[g].cells[d], *rc = &r->groups[g].cells[ref];
    out->ratio = pgcb_res_cell_figure(c) / pgcb_res_cell_figure(rc);
    size_t k = pgcb_rank_group_orders(r, g);
    double *v = pgcb_xcalloc(k ? k : 1, sizeof *v);
    for (size_t o = 0; o < k; o++) {
        double a = order_median(c, o), b = order_median(rc, o);
        if (isfinite(a) && isfinite(b) && a > 0 && b > 0)
            v[out->orders++] = a / b;
    }
    out->coverage = pgcb_stats_median_ci(v, out->orders, out->level, &out->lo, &out->hi);
    free(v);
    return 0;
}

int pgcb_rank_decided(const struct pgcb_result *r, size_t g, double width)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    size_t k = pgcb_rank_group_orders(r, g), nvalid = 0;
    for (size_t d = 0; d < r->ndrivers; d++)
        nvalid += is_client(r, d) && gr->cells[d].status == PGCB_CELL_OK;
    if (nvalid < 2)
        return 0;
    double level = pgcb_rank_alpha(r) / (double)(nvalid * (nvalid - 1) / 2);
    double *v = pgcb_xcalloc(k ? k : 1, sizeof *v);
    int decided = 1;
    for (size_t a = 0; a < r->ndrivers && decided; a++) {
        if (!is_client(r, a) || gr->cells[a].status != PGCB_CELL_OK)
            continue;
        for (size_t b = a + 1; b < r->ndrivers && decided; b++) {
            if (!is_client(r, b) || gr->cells[b].status != PGCB_CELL_OK)
                continue;
            unsigned wins = 0, losses = 0;
            size_t n = 0;
            for (size_t o = 0; o < k; o++) {
                double x = order_median(&gr->cells[a], o), y = order_median(&gr->cells[b], o);
                wins += x < y;
                losses += x > y;
                if (x > 0 && y > 0)
                    v[n++] = x / y;
            }
            double lo, hi;
            pgcb_stats_median_ci(v, n, pgcb_rank_level(r), &lo, &hi);
            double mid = median_small(v, n); /* v is sorted: no more work */
            decided = pgcb_stats_sign_test(wins, losses, NULL) <= level * (1 + 1e-12) &&
                      isfinite(lo) && (hi - lo) <= width * mid;
        }
    }
    free(v);
    return decided;
}

/* ---- ranking --------------------------------------------------------------- */

void pgcb_rank_free(struct pgcb_ranking *rk)
{
    if (!rk)
        return;
    for (size_t i = 0; i < rk->nrows; i++)
        free(rk->rows[i].driver);
    free(rk->rows);
    for (size_t i = 0; rk->groups && i < rk->ngroups; i++)
        free(rk->groups[i].ratio);
    free(rk->groups);
    for (size_t i = 0; i < rk->nleft_out; i++)
        free(rk->left_out[i].why);
    free(rk->left_out);
    for (size_t i = 0; i < rk->nunranked; i++) {
        free(rk->unranked[i].driver);
        free(rk->unranked[i].why);
    }
    free(rk->unranked);
    *rk = (struct pgcb_ranking){0};
}

static const char *invalid_word(const struct pgcb_res_cell *c)
{
    switch (c->status) {
    case PGCB_CELL_FAILED: return "failed";
    case PGCB_CELL_INVALID: return "invalid";
    case PGCB_CELL_NOT_RUN: return "not run";
    case PGCB_CELL_SKIPPED: return "skipped";
    case PGCB_CELL_OK: break;
    }
    return "has no median";
}

/* Relative latencies equal but for floating-point noise (1e-9 relative). */
static int same_rel(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

static int row_cmp(const void *a, const void *b)
{
    const struct pgcb_rank_row *x = a, *y = b;
    if (!same_rel(x->rel, y->rel))
        return x->rel < y->rel ? -1 : 1;
    if (x->wins != y->wins)
        return x->wins > y->wins ? -1 : 1;
    if (x->fastest != y->fastest)
        return x->fastest > y->fastest ? -1 : 1;
    return strcmp(x->driver, y->driver);
}

/* Replicates of the ranking's bootstrap, and its seed (fixed: the same
 * input gives the same intervals on every machine). */
#define BOOT_REPLICATES 1000
#define BOOT_SEED 0x70676362u /* "pgcb" */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * The rows' intervals (rank.h): ratio[n][row][o] = the row's median in order
 * o of ranked group n over the group's best driver's median in that order
 * (NAN when either is missing); K[n] orders. Sets rows[].rel_lo/rel_hi.
 */
static void bootstrap_intervals(struct pgcb_ranking *out, double *const *ratio, const size_t *K,
                                double level)
{
    size_t kmax = 0, informative = 0;
    for (size_t n = 0; n < out->ngroups; n++) {
        kmax = K[n] > kmax ? K[n] : kmax;
        informative += K[n] >= 2;
    }
    for (size_t row = 0; row < out->nrows; row++)
        out->rows[row].rel_lo = out->rows[row].rel_hi = NAN;
    if (informative == 0)
        return;
    double *rep = pgcb_xcalloc(out->nrows * BOOT_REPLICATES, sizeof *rep); /* [row][b] */
    double *scratch = pgcb_xcalloc(kmax, sizeof *scratch);
    size_t *draw = pgcb_xcalloc(kmax, sizeof *draw);
    double *logsum = pgcb_xcalloc(out->nrows, sizeof *logsum);
    size_t *terms = pgcb_xcalloc(out->nrows, sizeof *terms);
    uint64_t state = BOOT_SEED;
    for (size_t b = 0; b < BOOT_REPLICATES; b++) {
        memset(logsum, 0, out->nrows * sizeof *logsum);
        memset(terms, 0, out->nrows * sizeof *terms);
        for (size_t n = 0; n < out->ngroups; n++) {
            for (size_t o = 0; o < K[n]; o++) /* one draw for every driver: paired */
                draw[o] = pgcb_stats_rng_below(&state, K[n]);
            for (size_t row = 0; row < out->nrows; row++) {
                const double *x = ratio[n] + row * K[n];
                for (size_t o = 0; o < K[n]; o++)
                    scratch[o] = x[draw[o]];
                double med = median_small(scratch, K[n]);
                if (med > 0 && isfinite(med)) {
                    logsum[row] += log(med);
                    terms[row]++;
                }
            }
        }
        for (size_t row = 0; row < out->nrows; row++)
            rep[row * BOOT_REPLICATES + b] = terms[row] ? exp(logsum[row] / (double)terms[row])
                                                        : NAN;
    }
    double tail = (1 - level) / 2;
    for (size_t row = 0; row < out->nrows; row++) {
        double *x = rep + row * BOOT_REPLICATES;
        size_t m = 0;
        for (size_t b = 0; b < BOOT_REPLICATES; b++)
            if (isfinite(x[b]))
                x[m++] = x[b];
        if (m == 0)
            continue;
        qsort(x, m, sizeof *x, cmp_double);
        out->rows[row].rel_lo = x[(size_t)floor(tail * (double)(m - 1))];
        out->rows[row].rel_hi = x[(size_t)ceil((1 - tail) * (double)(m - 1))];
    }
    free(terms);
    free(logsum);
    free(draw);
    free(scratch);
    free(rep);
}

/* Work area of one computation. */
struct rank_work {
    const struct pgcb_result *const *runs;
    size_t nruns;
    const char **labels; /* the ranked drivers */
    size_t m;
    size_t *idx;         /* idx[i * m + k]: driver index of labels[k] in runs[i] */
};

/* Is `label` valid in any shared group of any run -- of `suite`, or of
 * every suite when it is NULL? If not, *all_skipped tells whether it skipped
 * every one of them (and there was one). A suite's ranking thus leaves out
 * a driver the suite never measured (the bridge in a connection suite)
 * rather than every group of the suite. */
static int valid_anywhere(const struct pgcb_result *const *runs, size_t nruns,
                          const struct pgcb_result *const *scope, size_t nscope,
                          const char *suite, const char *label, int *all_skipped)
{
    size_t shared = 0, skipped = 0;
    for (size_t i = 0; i < nruns; i++) {
        size_t d = find_driver(runs[i], label);
        if (d == PGCB_RANK_NONE)
            continue;
        for (size_t g = 0; g < runs[i]->ngroups; g++) {
            if ((suite && strcmp(runs[i]->groups[g].suite, suite) != 0) ||
                !pgcb_rank_group_shared(scope, nscope, &runs[i]->groups[g]))
                continue;
            if (pgcb_rank_cell_valid(runs[i], g, d))
                return 1;
            shared++;
            skipped += runs[i]->groups[g].cells[d].status == PGCB_CELL_SKIPPED;
        }
    }
    *all_skipped = shared > 0 && skipped == shared;
    return 0;
}

/* Why group g of run i cannot be ranked, or NULL if every ranked driver is
 * valid in it (malloc'd). */
static char *why_left_out(const struct rank_work *w, size_t i, size_t g)
{
    char *why = NULL;
    for (size_t k = 0; k < w->m; k++) {
        size_t d = w->idx[i * w->m + k];
        if (pgcb_rank_cell_valid(w->runs[i], g, d))
            continue;
        char *more = pgcb_xasprintf("%s%s%s %s", why ? why : "", why ? ", " : "", w->labels[k],
                                    invalid_word(&w->runs[i]->groups[g].cells[d]));
        free(why);
        why = more;
    }
    return why;
}

int pgcb_rank_compute_within(const struct pgcb_result *const *runs, size_t nruns,
                             const struct pgcb_result *const *scope, size_t nscope,
                             const char *suite, struct pgcb_ranking *out)
{
    *out = (struct pgcb_ranking){0};
    if (nscope == 0) {
        scope = runs;
        nscope = nruns;
    }
    if (nruns == 0)
        return -1;

    /* 1. The ranked drivers: shared client drivers valid somewhere. */
    struct rank_work w = {.runs = runs, .nruns = nruns};
    const struct pgcb_result *first = scope[0];
    w.labels = pgcb_xcalloc(first->ndrivers ? first->ndrivers : 1, sizeof *w.labels);
    for (size_t d = 0; d < first->ndrivers; d++) {
        const char *label = first->drivers[d].label;
        if (!pgcb_rank_driver_shared(scope, nscope, label) ||
            !pgcb_rank_driver_shared(runs, nruns, label))
            continue;
        int all_skipped;
        if (!valid_anywhere(runs, nruns, scope, nscope, suite, label, &all_skipped)) {
            out->unranked = pgcb_xrealloc(out->unranked,
                                          (out->nunranked + 1) * sizeof *out->unranked);
            out->unranked[out->nunranked].driver = pgcb_xstrdup(label);
            out->unranked[out->nunranked++].why =
                pgcb_xstrdup(all_skipped ? "skipped every group" : "no valid result");
            continue;
        }
        w.labels[w.m++] = label;
    }
    out->nranked = w.m;
    w.idx = pgcb_xcalloc(nruns * (w.m ? w.m : 1), sizeof *w.idx);
    for (size_t i = 0; i < nruns; i++)
        for (size_t k = 0; k < w.m; k++)
            w.idx[i * w.m + k] = find_driver(runs[i], w.labels[k]);

    /* 2. The groups: shared, in the suite, every ranked driver valid. */
    size_t total = 0;
    for (size_t i = 0; i < nruns; i++)
        total += runs[i]->ngroups;
    double *ratios = pgcb_xcalloc(total * (w.m ? w.m : 1), sizeof *ratios); /* [k * total + n] */
    struct pgcb_rank_group *groups = pgcb_xcalloc(total ? total : 1, sizeof *groups);
    size_t *fastest = pgcb_xcalloc(w.m ? w.m : 1, sizeof *fastest);
    size_t *wins = pgcb_xcalloc(w.m ? w.m : 1, sizeof *wins);
    size_t *best_of = pgcb_xcalloc(total ? total : 1, sizeof *best_of); /* k of each ranked group's best */
    out->level = pgcb_rank_level(runs[0]);
    for (size_t i = 0; i < nruns && w.m > 0; i++) {
        const struct pgcb_result *r = runs[i];
        for (size_t g = 0; g < r->ngroups; g++) {
            const struct pgcb_res_group *gr = &r->groups[g];
            if ((suite && strcmp(gr->suite, suite) != 0) ||
                !pgcb_rank_group_shared(scope, nscope, gr))
                continue;
            out->ncandidates++;
            char *why = why_left_out(&w, i, g);
            if (why) {
                out->left_out = pgcb_xrealloc(out->left_out,
                                              (out->nleft_out + 1) * sizeof *out->left_out);
                out->left_out[out->nleft_out++] =
                    (struct pgcb_rank_left_out){.run = i, .group = g, .why = why};
                continue;
            }
            double best = INFINITY;
            size_t bestk = 0;
            for (size_t k = 0; k < w.m; k++)
                if (pgcb_res_cell_figure(&gr->cells[w.idx[i * w.m + k]]) < best) {
                    best = pgcb_res_cell_figure(&gr->cells[w.idx[i * w.m + k]]);
                    bestk = k;
                }
            best_of[out->ngroups] = bestk;
            struct pgcb_verdict v;
            pgcb_rank_verdict(r, g, &v);
            for (size_t k = 0; k < w.m; k++) {
                size_t d = w.idx[i * w.m + k];
                double med = pgcb_res_cell_figure(&gr->cells[d]);
                ratios[k * total + out->ngroups] = med / best;
                fastest[k] += med == best;
                wins[k] += v.winner == d;
            }
            pgcb_rank_verdict_free(&v);
            groups[out->ngroups] = (struct pgcb_rank_group){.run = i, .group = g};
            out->ngroups++;
        }
    }

    /* 3. Relative latency, order, rank. */
    if (out->ngroups > 0) {
        out->rows = pgcb_xcalloc(w.m, sizeof *out->rows);
        out->nrows = w.m;
        for (size_t k = 0; k < w.m; k++)
            out->rows[k] = (struct pgcb_rank_row){
                .driver = pgcb_xstrdup(w.labels[k]),
                .rel = pgcb_stats_geomean(&ratios[k * total], out->ngroups),
                .fastest = fastest[k],
                .wins = wins[k],
            };
        qsort(out->rows, out->nrows, sizeof *out->rows, row_cmp);
        for (size_t k = 0; k < out->nrows; k++) {
            struct pgcb_rank_row *row = &out->rows[k];
            row->rank = k > 0 && same_rel(row->rel, out->rows[k - 1].rel) ? out->rows[k - 1].rank
                                                                           : (unsigned)k + 1;
            row->slower_pct = (row->rel / out->rows[0].rel - 1) * 100;
        }
        /* Each ranked group's ratios, in the sorted rows' order, and its
         * per-order ratios for the intervals. */
        out->groups = groups;
        groups = NULL;
        double **per_order = pgcb_xcalloc(out->ngroups, sizeof *per_order);
        size_t *K = pgcb_xcalloc(out->ngroups, sizeof *K);
        for (size_t n = 0; n < out->ngroups; n++) {
            size_t i = out->groups[n].run;
            const struct pgcb_result *r = runs[i];
            const struct pgcb_res_group *gr = &r->groups[out->groups[n].group];
            const struct pgcb_res_cell *bc = &gr->cells[w.idx[i * w.m + best_of[n]]];
            K[n] = pgcb_rank_group_orders(r, out->groups[n].group);
            per_order[n] = pgcb_xcalloc(out->nrows * (K[n] ? K[n] : 1), sizeof(double));
            out->groups[n].ratio = pgcb_xcalloc(out->nrows, sizeof(double));
            for (size_t row = 0; row < out->nrows; row++) {
                size_t k = 0;
                while (strcmp(w.labels[k], out->rows[row].driver) != 0)
                    k++;
                out->groups[n].ratio[row] = ratios[k * total + n];
                const struct pgcb_res_cell *c = &gr->cells[w.idx[i * w.m + k]];
                for (size_t o = 0; o < K[n]; o++) {
                    double a = order_median(c, o), b = order_median(bc, o);
                    per_order[n][row * K[n] + o] = a > 0 && b > 0 ? a / b : NAN;
                }
            }
        }
        bootstrap_intervals(out, per_order, K, out->level);
        for (size_t n = 0; n < out->ngroups; n++)
            free(per_order[n]);
        free(per_order);
        free(K);
    }
    free(best_of);
    free(groups);
    free(ratios);
    free(fastest);
    free(wins);
    free(w.idx);
    free(w.labels);
    return out->nrows > 0 ? 0 : -1;
}

int pgcb_rank_compute(const struct pgcb_result *const *runs, size_t nruns, const char *suite,
                      struct pgcb_ranking *out)
{
    return pgcb_rank_compute_within(runs, nruns, runs, nruns, suite, out);
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *label_or_null(const struct pgcb_result *r, size_t d)
{
    return d == PGCB_RANK_NONE ? json_null() : json_string(r->drivers[d].label);
}

/* A p-value for JSON: null when it underflowed (log2_p keeps it). */
static json_t *p_json(double p)
{
    return p > 0 && isfinite(p) ? json_real(p) : json_null();
}

json_t *pgcb_rank_verdict_json(const struct pgcb_result *r, const struct pgcb_verdict *v)
{
    json_t *j = json_object();
    json_object_set_new(j, "winner", label_or_null(r, v->winner));
    json_object_set_new(j, "lowest_median", label_or_null(r, v->lowest_median));
    json_object_set_new(j, "lowest_mean", label_or_null(r, v->lowest_mean));
    json_object_set_new(j, "valid_clients", json_integer((json_int_t)v->nvalid));
    json_object_set_new(j, "orders", json_integer((json_int_t)v->orders));
    json_object_set_new(j, "alpha", json_real(v->alpha));
    json_object_set_new(j, "min_orders", json_integer((json_int_t)v->min_orders));
    json_object_set_new(j, "decidable", json_boolean(v->nvalid >= 2 && v->kind != PGCB_VERDICT_TOO_FEW));
    json_object_set_new(j, "test", json_string("exact two-sided sign test over the execution "
                                               "orders, ties dropped; Holm over the rivals"));
    json_object_set_new(j, "p_max", isfinite(v->p_max) ? p_json(v->p_max) : json_null());
    json_t *rivals = json_array();
    for (size_t i = 0; i < v->nrivals; i++) {
        const struct pgcb_verdict_rival *rv = &v->rivals[i];
        json_t *o = json_object();
        json_object_set_new(o, "driver", json_string(r->drivers[rv->driver].label));
        json_object_set_new(o, "wins", json_integer(rv->wins));
        json_object_set_new(o, "losses", json_integer(rv->losses));
        json_object_set_new(o, "ties", json_integer(rv->ties));
        json_object_set_new(o, "p", p_json(rv->p));
        json_object_set_new(o, "log2_p", json_real(rv->log2_p));
        json_object_set_new(o, "holm_level", json_real(rv->level));
        json_object_set_new(o, "faster", json_boolean(rv->rejected));
        json_array_append_new(rivals, o);
    }
    json_object_set_new(j, "rivals", rivals);
    return j;
}

json_t *pgcb_rank_rows_json(const struct pgcb_ranking *rk)
{
    json_t *a = json_array();
    for (size_t k = 0; k < rk->nrows; k++) {
        const struct pgcb_rank_row *row = &rk->rows[k];
        json_t *o = json_object();
        json_object_set_new(o, "rank", json_integer(row->rank));
        json_object_set_new(o, "driver", json_string(row->driver));
        json_object_set_new(o, "relative_latency", json_real(row->rel));
        json_object_set_new(o, "relative_latency_interval",
                            isfinite(row->rel_lo) && isfinite(row->rel_hi)
                                ? json_pack("[f, f]", row->rel_lo, row->rel_hi)
                                : json_null());
        json_object_set_new(o, "interval_level", json_real(rk->level));
        json_object_set_new(o, "slower_than_best_pct", json_real(row->slower_pct));
        json_object_set_new(o, "fastest_median", json_integer((json_int_t)row->fastest));
        json_object_set_new(o, "outright_wins", json_integer((json_int_t)row->wins));
        json_object_set_new(o, "groups", json_integer((json_int_t)rk->ngroups));
        json_array_append_new(a, o);
    }
    return a;
}

json_t *pgcb_rank_rankings_json(const struct pgcb_result *const *runs, size_t nruns,
                                const struct pgcb_result *const *scope, size_t nscope,
                                int with_run)
{
    json_t *j = json_object();
    json_t *suites = json_object();
    size_t nsuites;
    const char **names = pgcb_rank_suites(scope, nscope, &nsuites);
    for (size_t s = 0; s < nsuites; s++) {
        struct pgcb_ranking rk;
        pgcb_rank_compute_within(runs, nruns, scope, nscope, names[s], &rk);
        json_object_set_new(suites, names[s], pgcb_rank_rows_json(&rk));
        pgcb_rank_free(&rk);
    }
    free(names);
    struct pgcb_ranking rk;
    pgcb_rank_compute_within(runs, nruns, scope, nscope, NULL, &rk);
    json_object_set_new(j, "suites", suites);
    json_object_set_new(j, "overall", pgcb_rank_rows_json(&rk));
    json_object_set_new(j, "groups_ranked", json_integer((json_int_t)rk.ngroups));
    json_object_set_new(j, "groups_total", json_integer((json_int_t)rk.ncandidates));
    json_t *left = json_array();
    for (size_t i = 0; i < rk.nleft_out; i++) {
        const struct pgcb_rank_left_out *lo = &rk.left_out[i];
        const struct pgcb_res_group *gr = &runs[lo->run]->groups[lo->group];
        json_t *o = json_object();
        if (with_run)
            json_object_set_new(o, "run", json_integer((json_int_t)lo->run + 1));
        json_object_set_new(o, "suite", json_string(gr->suite));
        json_object_set_new(o, "query", json_string(gr->query));
        json_object_set_new(o, "depth", json_integer(gr->depth));
        json_object_set_new(o, "why", json_string(lo->why));
        json_array_append_new(left, o);
    }
    json_object_set_new(j, "left_out", left);
    json_t *unranked = json_array();
    for (size_t i = 0; i < rk.nunranked; i++)
        json_array_append_new(unranked, json_pack("{s:s, s:s}", "driver", rk.unranked[i].driver,
                                                  "why", rk.unranked[i].why));
    json_object_set_new(j, "unranked", unranked);
    pgcb_rank_free(&rk);
    return j;
}
