/* rank.c -- group verdicts and geometric-mean rankings; see rank.h. */
#include "rank.h"

#include <math.h>
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
    return c->status == PGCB_CELL_OK && isfinite(c->median_ns) && c->median_ns > 0;
}

/* Index of the driver labelled `label` in r, or PGCB_RANK_NONE. */
static size_t find_driver(const struct pgcb_result *r, const char *label)
{
    for (size_t d = 0; d < r->ndrivers; d++)
        if (strcmp(r->drivers[d].label, label) == 0)
            return d;
    return PGCB_RANK_NONE;
}

int pgcb_rank_same_group(const struct pgcb_res_group *a, const struct pgcb_res_group *b)
{
    return strcmp(a->suite, b->suite) == 0 && strcmp(a->query, b->query) == 0 &&
           a->depth == b->depth && a->threads == b->threads &&
           !a->transaction == !b->transaction && a->ops == b->ops;
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

/* ---- verdict ------------------------------------------------------------- */

void pgcb_rank_verdict(const struct pgcb_result *r, size_t g, struct pgcb_verdict *v)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    *v = (struct pgcb_verdict){.kind = PGCB_VERDICT_NO_VALID, .winner = PGCB_RANK_NONE,
                               .lowest_median = PGCB_RANK_NONE, .lowest_mean = PGCB_RANK_NONE,
                               .orders = r->norders, .p_bound = NAN};
    for (size_t d = 0; d < r->ndrivers; d++) {
        if (!is_client(r, d) || !pgcb_rank_cell_valid(r, g, d))
            continue;
        const struct pgcb_res_cell *c = &gr->cells[d];
        v->nvalid++;
        if (v->lowest_median == PGCB_RANK_NONE ||
            c->median_ns < gr->cells[v->lowest_median].median_ns)
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
    const struct pgcb_res_cell *bc = &gr->cells[v->lowest_median];
    int all = r->norders > 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        if (d == v->lowest_median || !is_client(r, d) || !pgcb_rank_cell_valid(r, g, d))
            continue;
        const struct pgcb_res_cell *c = &gr->cells[d];
        if (c->median_ns == bc->median_ns)
            v->median_ties++;
        for (size_t o = 0; o < r->norders && all; o++) {
            double mine = o < bc->norders ? bc->order_medians_ns[o] : NAN;
            double theirs = o < c->norders ? c->order_medians_ns[o] : NAN;
            if (!(mine < theirs)) /* NaN on either side: not a win */
                all = 0;
        }
    }
    if (all && v->median_ties == 0) {
        v->kind = PGCB_VERDICT_WINNER;
        v->winner = v->lowest_median;
        v->p_bound = pgcb_stats_sign_test_p((unsigned)r->norders);
    } else {
        v->kind = PGCB_VERDICT_NO_CLEAR;
    }
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

static int row_cmp(const void *a, const void *b)
{
    const struct pgcb_rank_row *x = a, *y = b;
    if (x->rel != y->rel)
        return x->rel < y->rel ? -1 : 1;
    if (x->wins != y->wins)
        return x->wins > y->wins ? -1 : 1;
    if (x->fastest != y->fastest)
        return x->fastest > y->fastest ? -1 : 1;
    return strcmp(x->driver, y->driver);
}

/* Work area of one computation. */
struct rank_work {
    const struct pgcb_result *const *runs;
    size_t nruns;
    const char **labels; /* the ranked drivers */
    size_t m;
    size_t *idx;         /* idx[i * m + k]: driver index of labels[k] in runs[i] */
};

/* Is `label` valid in any shared group of any run (every suite)? If not,
 * *all_skipped tells whether it skipped every one of them (and there was one). */
static int valid_anywhere(const struct pgcb_result *const *runs, size_t nruns,
                          const struct pgcb_result *const *scope, size_t nscope,
                          const char *label, int *all_skipped)
{
    size_t shared = 0, skipped = 0;
    for (size_t i = 0; i < nruns; i++) {
        size_t d = find_driver(runs[i], label);
        if (d == PGCB_RANK_NONE)
            continue;
        for (size_t g = 0; g < runs[i]->ngroups; g++) {
            if (!pgcb_rank_group_shared(scope, nscope, &runs[i]->groups[g]))
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
        if (!valid_anywhere(runs, nruns, scope, nscope, label, &all_skipped)) {
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
            for (size_t k = 0; k < w.m; k++)
                best = fmin(best, gr->cells[w.idx[i * w.m + k]].median_ns);
            struct pgcb_verdict v;
            pgcb_rank_verdict(r, g, &v);
            for (size_t k = 0; k < w.m; k++) {
                size_t d = w.idx[i * w.m + k];
                double med = gr->cells[d].median_ns;
                ratios[k * total + out->ngroups] = med / best;
                fastest[k] += med == best;
                wins[k] += v.winner == d;
            }
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
            row->rank = k > 0 && row->rel == out->rows[k - 1].rel ? out->rows[k - 1].rank
                                                                   : (unsigned)k + 1;
            row->slower_pct = (row->rel / out->rows[0].rel - 1) * 100;
        }
        /* Each ranked group's ratios, in the sorted rows' order. */
        out->groups = groups;
        groups = NULL;
        for (size_t n = 0; n < out->ngroups; n++) {
            out->groups[n].ratio = pgcb_xcalloc(out->nrows, sizeof(double));
            for (size_t row = 0; row < out->nrows; row++) {
                size_t k = 0;
                while (strcmp(w.labels[k], out->rows[row].driver) != 0)
                    k++;
                out->groups[n].ratio[row] = ratios[k * total + n];
            }
        }
    }
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

json_t *pgcb_rank_verdict_json(const struct pgcb_result *r, const struct pgcb_verdict *v)
{
    json_t *j = json_object();
    json_object_set_new(j, "winner", label_or_null(r, v->winner));
    json_object_set_new(j, "lowest_median", label_or_null(r, v->lowest_median));
    json_object_set_new(j, "lowest_mean", label_or_null(r, v->lowest_mean));
    json_object_set_new(j, "valid_clients", json_integer((json_int_t)v->nvalid));
    json_object_set_new(j, "orders", json_integer((json_int_t)v->orders));
    json_object_set_new(j, "p_bound", isfinite(v->p_bound) ? json_real(v->p_bound) : json_null());
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
