/* export.c -- `--export-bencher` and `--export-gab`: the figures as Bencher
 * Metric Format and as github-action-benchmark's custom JSON; see export.h
 * and docs/history.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "agg.h"
#include "export.h"
#include "rank.h"
#include "stats.h"
#include "util.h"

/* ---- the benchmarks' names ---------------------------------------------------- */

/* "suite/query/shape[/N threads][/N ops][/transport][/rtt R ms]/driver", a
 * new string: every field pgcb_rank_same_group compares, so two groups of a
 * run never share a name. The shape is the tables' (pgcb_res_group_shape). */
static char *bench_name(const struct pgcb_res_group *gr, const char *driver)
{
    char shape[64], threads[32] = "", ops[40] = "", rtt[48] = "";
    pgcb_res_group_shape(gr, shape, sizeof shape);
    if (gr->threads > 1)
        snprintf(threads, sizeof threads, "/%u threads", gr->threads);
    if (gr->ops)
        snprintf(ops, sizeof ops, "/%llu ops", (unsigned long long)gr->ops);
    if (gr->has_rtt)
        snprintf(rtt, sizeof rtt, "/rtt %g ms", gr->rtt_ms);
    return pgcb_xasprintf("%s/%s/%s%s%s%s%s%s/%s", gr->suite, gr->query, shape, threads, ops,
                          gr->transport ? "/" : "", gr->transport ? gr->transport : "", rtt,
                          driver);
}

/* ---- pooling one driver's cells over runs --------------------------------------- */

static size_t find_driver(const struct pgcb_result *r, const char *label)
{
    for (size_t d = 0; d < r->ndrivers; d++)
        if (strcmp(r->drivers[d].label, label) == 0)
            return d;
    return PGCB_RANK_NONE;
}

/* The first group of r like gr (a group listed twice counts once, as in
 * pgcb_ab_compute), or PGCB_RANK_NONE. */
static size_t find_group(const struct pgcb_result *r, const struct pgcb_res_group *gr)
{
    for (size_t g = 0; g < r->ngroups; g++)
        if (pgcb_rank_same_group(&r->groups[g], gr))
            return g;
    return PGCB_RANK_NONE;
}

/* One driver in one group, pooled over the runs where its cell is valid. */
struct pool {
    size_t runs;                /* runs with a valid cell */
    double log_fig, log_cpu, log_qps;
    size_t ncpu, nqps;          /* runs where that figure is known (> 0) */
    double *orders;             /* every valid per-order median (malloc'd) */
    size_t norders;
};

/* max_orders > 0: only each run's first max_orders orders (aggregate --ab
 * --ab-orders, as the comparison uses them); 0: all. */
static void pool_cells(struct pool *p, const struct pgcb_result *const *runs, size_t nruns,
                       const struct pgcb_res_group *gr, const char *label, size_t max_orders)
{
    *p = (struct pool){0};
    size_t cap = 0;
    for (size_t i = 0; i < nruns; i++) {
        const struct pgcb_result *r = runs[i];
        size_t g = find_group(r, gr), d = find_driver(r, label);
        if (g == PGCB_RANK_NONE || d == PGCB_RANK_NONE || !pgcb_rank_cell_valid(r, g, d))
            continue;
        const struct pgcb_res_cell *c = &r->groups[g].cells[d];
        p->runs++;
        p->log_fig += log(pgcb_res_cell_figure(c));
        if (isfinite(c->cpu_ns_per_query) && c->cpu_ns_per_query > 0) {
            p->log_cpu += log(c->cpu_ns_per_query);
            p->ncpu++;
        }
        if (isfinite(c->queries_per_s) && c->queries_per_s > 0) {
            p->log_qps += log(c->queries_per_s);
            p->nqps++;
        }
        size_t k = pgcb_rank_group_orders(r, g);
        if (max_orders && k > max_orders)
            k = max_orders;
        for (size_t o = 0; o < k && o < c->norders && c->order_medians_ns; o++) {
            double v = c->order_medians_ns[o];
            if (!(isfinite(v) && v > 0))
                continue;
            if (p->norders == cap) {
                cap = cap ? 2 * cap : 16;
                p->orders = pgcb_xrealloc(p->orders, cap * sizeof *p->orders);
            }
            p->orders[p->norders++] = v;
        }
    }
}

/* A geometric mean over the runs, NAN unless every run had the figure. */
static double pool_mean(const struct pool *p, double log_sum, size_t n)
{
    return n && n == p->runs ? exp(log_sum / (double)n) : NAN;
}

/* ---- building an export ----------------------------------------------------------- */

/* A new benchmark named `name` (taken over). A name already in x (two
 * groups that differ only where a name does not look) gets " (2)", " (3)"
 * ...: a BMF object cannot hold one key twice. */
static struct pgcb_agg_export_bench *add_bench(struct pgcb_agg_export *x, char *name)
{
    for (unsigned k = 2;; k++) {
        size_t i = 0;
        while (i < x->n && strcmp(x->b[i].name, name) != 0)
            i++;
        if (i == x->n)
            break;
        char *base = k == 2 ? pgcb_xstrdup(name) : pgcb_xstrndup(name, strrchr(name, ' ') - name);
        free(name);
        name = pgcb_xasprintf("%s (%u)", base, k);
        free(base);
    }
    x->b = pgcb_xrealloc(x->b, (x->n + 1) * sizeof *x->b);
    struct pgcb_agg_export_bench *b = &x->b[x->n++];
    *b = (struct pgcb_agg_export_bench){.name = name};
    return b;
}

/* Append a measure (a non-finite value is left out; extra is taken over). */
static void add_measure(struct pgcb_agg_export_bench *b, const char *slug, const char *unit,
                        int gab, double value, double lo, double hi, char *extra)
{
    if (!isfinite(value) || b->nm == sizeof b->m / sizeof b->m[0]) {
        free(extra);
        return;
    }
    if (!(isfinite(lo) && isfinite(hi))) /* an interval is both bounds or none */
        lo = hi = NAN;
    b->m[b->nm++] = (struct pgcb_agg_export_measure){.slug = slug, .unit = unit, .gab = gab,
                                                     .value = value, .lo = lo, .hi = hi,
                                                     .extra = extra};
}

/* Drop the last benchmark when it got no measure. */
static void drop_if_empty(struct pgcb_agg_export *x)
{
    if (x->n && x->b[x->n - 1].nm == 0) {
        free(x->b[x->n - 1].name);
        x->n--;
    }
}

/* The measures of a pooled driver: latency (with the interval of the
 * per-order medians at `level`), client-cpu, throughput. */
static void add_pooled(struct pgcb_agg_export_bench *b, struct pool *p,
                       const struct pgcb_res_group *gr, double level)
{
    if (!p->runs)
        return;
    double lo = NAN, hi = NAN;
    size_t norders = p->norders;
    if (norders)
        pgcb_stats_median_ci(p->orders, norders, level, &lo, &hi); /* sorts p->orders */
    double qps = pool_mean(p, p->log_qps, p->nqps);
    char what[64], qps_s[48] = "";
    if (gr->concurrency)
        snprintf(what, sizeof what, "time per query at throughput");
    else if (gr->connect)
        snprintf(what, sizeof what, "median time of a connection");
    else if (gr->transaction)
        snprintf(what, sizeof what, "median latency of a transaction of %u", gr->depth);
    else
        snprintf(what, sizeof what, "median latency of a batch of %u quer%s", gr->depth,
                 gr->depth == 1 ? "y" : "ies");
    if (isfinite(qps))
        snprintf(qps_s, sizeof qps_s, "; %.1f queries/s", qps);
    char *extra = pgcb_xasprintf("%s; %zu execution order%s over %zu run%s%s%s", what, norders,
                                 norders == 1 ? "" : "s", p->runs, p->runs == 1 ? "" : "s",
                                 qps_s, isfinite(lo) ? "" : "; too few orders for an interval");
    add_measure(b, PGCB_AGG_EXPORT_LATENCY, "ns", 1, exp(p->log_fig / (double)p->runs), lo, hi,
                extra);
    add_measure(b, PGCB_AGG_EXPORT_CPU, "ns", 1, pool_mean(p, p->log_cpu, p->ncpu), NAN, NAN,
                pgcb_xstrdup("client CPU time per query"));
    add_measure(b, PGCB_AGG_EXPORT_THROUGHPUT, "queries/s", 0, qps, NAN, NAN, NULL);
}

void pgcb_agg_export_runs(struct pgcb_agg_export *x, const struct pgcb_result *const *runs,
                          size_t n)
{
    *x = (struct pgcb_agg_export){.level = n ? pgcb_rank_level(runs[0]) : 0.95};
    /* The distinct (group, driver) pairs in order of first appearance. */
    for (size_t i = 0; i < n; i++) {
        const struct pgcb_result *r = runs[i];
        for (size_t g = 0; g < r->ngroups; g++) {
            const struct pgcb_res_group *gr = &r->groups[g];
            if (find_group(r, gr) != g)
                continue; /* listed twice: once */
            for (size_t d = 0; d < r->ndrivers; d++) {
                const char *label = r->drivers[d].label;
                int seen = 0;
                for (size_t j = 0; j < i && !seen; j++) /* an earlier run had the pair */
                    seen = find_group(runs[j], gr) != PGCB_RANK_NONE &&
                           find_driver(runs[j], label) != PGCB_RANK_NONE;
                if (seen)
                    continue;
                struct pool p;
                pool_cells(&p, runs, n, gr, label, 0);
                add_pooled(add_bench(x, bench_name(gr, label)), &p, gr, x->level);
                free(p.orders);
                drop_if_empty(x);
            }
        }
    }
}

/* gab's "extra" of a group's ratio: the verdict and its evidence. */
static char *ratio_extra(const struct pgcb_ab *ab, const struct pgcb_ab_group *g)
{
    char p[32];
    pgcb_rank_fmt_p(p, sizeof p, g->p);
    if (ab->unpaired)
        return pgcb_xasprintf("HEAD / BASE: %s (Mann-Whitney over %zu x %zu per-order medians, "
                              "%s, Holm level %.2g)",
                              pgcb_ab_kind_str(g->kind), g->base_orders, g->head_orders, p,
                              g->holm_level);
    if (ab->test == PGCB_AB_TEST_SIGNED_RANK)
        return pgcb_xasprintf("HEAD / BASE: %s (signed-rank over %zu orders, W+ %g, %s, Holm "
                              "level %.2g)",
                              pgcb_ab_kind_str(g->kind), g->units, g->w_plus, p, g->holm_level);
    return pgcb_xasprintf("HEAD / BASE: %s (orders faster/slower/tied %u/%u/%u, %s, Holm "
                          "level %.2g)",
                          pgcb_ab_kind_str(g->kind), g->faster, g->slower, g->ties, p,
                          g->holm_level);
}

/* ... and of the overall ratio: the groups' verdicts, the overall test's
 * (when there is one), the gate's. */
static char *overall_extra(const struct pgcb_ab *ab)
{
    char test[160] = "", p[32];
    if (ab->overall.tested) {
        pgcb_rank_fmt_p(p, sizeof p, ab->overall.p);
        snprintf(test, sizeof test, "; overall test: %s (signed-rank over %zu orders, %s, Holm "
                 "level %.2g)", pgcb_ab_kind_str(ab->overall.kind), ab->overall.units, p,
                 ab->overall.holm_level);
    }
    return pgcb_xasprintf("HEAD / BASE: geometric mean over %zu group%s (%zu faster, %zu "
                          "slower, %zu no change detected, %zu failed)%s%s",
                          ab->geo_groups, ab->geo_groups == 1 ? "" : "s", ab->nfaster,
                          ab->nslower, ab->nno_change, ab->nfailed, test,
                          ab->fail_above_pct < 0 ? ""
                          : ab->gate_failed      ? "; gate failed"
                                                 : "; gate passed");
}

void pgcb_agg_export_ab(struct pgcb_agg_export *x, const struct pgcb_ab *ab,
                        const struct pgcb_result *const *head_runs, size_t nhead)
{
    *x = (struct pgcb_agg_export){.level = ab->level};
    for (size_t g = 0; g < ab->ngroups; g++) {
        const struct pgcb_ab_group *ag = &ab->groups[g];
        struct pgcb_agg_export_bench *b = add_bench(x, bench_name(ag->group, ab->head));
        struct pool p;
        pool_cells(&p, head_runs, nhead, ag->group, ab->head, ab->max_orders);
        add_pooled(b, &p, ag->group, x->level);
        free(p.orders);
        if (ag->kind != PGCB_AB_FAILED)
            add_measure(b, PGCB_AGG_EXPORT_RATIO, "x", 1, ag->ratio, ag->lo, ag->hi,
                        ratio_extra(ab, ag));
        drop_if_empty(x);
    }
    struct pgcb_agg_export_bench *b = add_bench(x, pgcb_xasprintf("overall/%s", ab->head));
    add_measure(b, PGCB_AGG_EXPORT_RATIO, "x", 1, ab->geo, ab->geo_lo, ab->geo_hi,
                overall_extra(ab));
    drop_if_empty(x);
}

void pgcb_agg_export_free(struct pgcb_agg_export *x)
{
    for (size_t i = 0; i < x->n; i++) {
        for (size_t k = 0; k < x->b[i].nm; k++)
            free(x->b[i].m[k].extra);
        free(x->b[i].name);
    }
    free(x->b);
    *x = (struct pgcb_agg_export){0};
}

/* ---- the two formats ---------------------------------------------------------------- */

json_t *pgcb_agg_export_bmf(const struct pgcb_agg_export *x)
{
    json_t *root = json_object();
    for (size_t i = 0; i < x->n; i++) {
        const struct pgcb_agg_export_bench *b = &x->b[i];
        json_t *measures = json_object();
        for (size_t k = 0; k < b->nm; k++) {
            const struct pgcb_agg_export_measure *m = &b->m[k];
            json_t *o = json_object();
            json_object_set_new(o, "value", json_real(m->value));
            if (isfinite(m->lo)) {
                json_object_set_new(o, "lower_value", json_real(m->lo));
                json_object_set_new(o, "upper_value", json_real(m->hi));
            }
            json_object_set_new(measures, m->slug, o);
        }
        json_object_set_new(root, b->name, measures);
    }
    return root;
}

/* "95% CI [lo, hi]" with the digits a value of that size needs. */
static char *range_text(const struct pgcb_agg_export_measure *m, double level)
{
    const char *fmt = strcmp(m->unit, "x") == 0 ? "%.0f%% CI [%.4f, %.4f]" : "%.0f%% CI [%.0f, %.0f]";
    return pgcb_xasprintf(fmt, level * 100, m->lo, m->hi);
}

json_t *pgcb_agg_export_gab(const struct pgcb_agg_export *x)
{
    json_t *root = json_array();
    for (size_t i = 0; i < x->n; i++) {
        const struct pgcb_agg_export_bench *b = &x->b[i];
        for (size_t k = 0; k < b->nm; k++) {
            const struct pgcb_agg_export_measure *m = &b->m[k];
            if (!m->gab)
                continue;
            char *name = pgcb_xasprintf("%s/%s", b->name, m->slug);
            json_t *o = json_pack("{s:s, s:s, s:f}", "name", name, "unit", m->unit, "value",
                                  m->value);
            free(name);
            if (isfinite(m->lo)) {
                char *r = range_text(m, x->level);
                json_object_set_new(o, "range", json_string(r));
                free(r);
            }
            if (m->extra)
                json_object_set_new(o, "extra", json_string(m->extra));
            json_array_append_new(root, o);
        }
    }
    return root;
}

static int write_json(json_t *j, const char *path, FILE *err)
{
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(j);
    char *text = s ? pgcb_xasprintf("%s\n", s) : NULL;
    free(s);
    char why[1024];
    int rc = 0;
    if (!text) {
        fprintf(err, "aggregate: %s: cannot write: out of memory for the JSON\n", path);
        rc = -1;
    } else if (pgcb_write_text(path, text, why, sizeof why) != 0) {
        fprintf(err, "aggregate: %s\n", why);
        rc = -1;
    }
    free(text);
    return rc;
}

int pgcb_agg_export_write(const struct pgcb_agg_export *x, const char *bencher_path,
                          const char *gab_path, FILE *err)
{
    int rc = 0;
    if (bencher_path && write_json(pgcb_agg_export_bmf(x), bencher_path, err) != 0)
        rc = -1;
    if (gab_path && write_json(pgcb_agg_export_gab(x), gab_path, err) != 0)
        rc = -1;
    return rc;
}
