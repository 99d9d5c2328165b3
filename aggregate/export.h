/*
 * export.h -- the aggregate's figures in the formats continuous-benchmarking
 * tools read (issue 43, docs/history.md): `--export-bencher FILE` (Bencher
 * Metric Format, BMF) and `--export-gab FILE` (github-action-benchmark's
 * `customSmallerIsBetter` JSON). Module prefix pgcb_agg_export_.
 *
 * An export is a list of benchmarks, each a name and up to four measures:
 *
 *   latency      ns, the figure verdicts compare: the pooled median latency
 *                of a batch (a concurrency group: time per query at
 *                throughput), with the order-statistics interval of the
 *                median of the per-order medians (pgcb_stats_median_ci at
 *                the run's interval level; none with too few orders)
 *   client-cpu   ns, the client's CPU time per query (no interval)
 *   throughput   queries per second (BMF only: bigger is better)
 *   ab-ratio     HEAD / BASE with the comparison's interval (A/B mode only)
 *
 * Ranking mode (pgcb_agg_export_runs): one benchmark per distinct group
 * (pgcb_rank_same_group) x driver label of all the runs, every valid cell
 * (status ok, a median) -- reference drivers too --, named
 * "suite/query/shape[/N threads][/transport][/rtt R ms]/driver" (shape:
 * "depth D", "rows_per_txn R", "connect", "concurrency C[, pool P][, rate
 * R/s]"). Over several runs a figure is the geometric mean of the runs'
 * (as `aggregate --ab` pools), the interval that of every run's per-order
 * medians together.
 *
 * A/B mode (pgcb_agg_export_ab): HEAD's figures per group of the comparison
 * (the same pooling over the HEAD runs), named as above with HEAD's label
 * as the driver (with --ab-orders K, the interval over each run's first K
 * orders, as the comparison), plus `ab-ratio` where the group compared
 * (its ratio and interval); and a benchmark "overall/HEAD" holding the
 * geometric mean ratio and its bootstrap interval.
 *
 * Ownership: an export owns its strings (pgcb_agg_export_free); nothing in
 * it points into the results it was made from. Nothing here prints except
 * to the FILE * it is given.
 */
#ifndef PGCB_AGG_EXPORT_H
#define PGCB_AGG_EXPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "result.h"

struct pgcb_ab;
struct pgcb_agg_ab_args;

/* The measures' slugs: BMF keys, and the last part of a gab entry's name. */
#define PGCB_AGG_EXPORT_LATENCY "latency"
#define PGCB_AGG_EXPORT_CPU "client-cpu"
#define PGCB_AGG_EXPORT_THROUGHPUT "throughput"
#define PGCB_AGG_EXPORT_RATIO "ab-ratio"

struct pgcb_agg_export_measure {
    const char *slug;           /* one of the PGCB_AGG_EXPORT_* above (static) */
    const char *unit;           /* gab's unit: "ns", "queries/s", "x" (static) */
    int gab;                    /* smaller is better: also in the gab file */
    double value;               /* finite */
    double lo, hi;              /* the interval; both NAN when there is none */
    char *extra;                /* gab's "extra" (owned; NULL: none) */
};

struct pgcb_agg_export_bench {
    char *name;                 /* owned */
    struct pgcb_agg_export_measure m[4];
    size_t nm;                  /* 1..4: a benchmark without a measure is left out */
};

struct pgcb_agg_export {
    struct pgcb_agg_export_bench *b; /* owned, in order of first appearance */
    size_t n;
    double level;               /* the intervals' nominal level (0.95) */
};

/* Ranking mode: the export of runs[0..n-1] (n >= 1) into *x (always
 * filled; free it with pgcb_agg_export_free). */
void pgcb_agg_export_runs(struct pgcb_agg_export *x, const struct pgcb_result *const *runs,
                          size_t n);

/* A/B mode: HEAD's figures of head_runs[0..nhead-1] per group of ab (which
 * was computed from them), its ratios, and the overall ratio. */
void pgcb_agg_export_ab(struct pgcb_agg_export *x, const struct pgcb_ab *ab,
                        const struct pgcb_result *const *head_runs, size_t nhead);

void pgcb_agg_export_free(struct pgcb_agg_export *x);

/* {"NAME": {"SLUG": {"value": v, "lower_value": lo, "upper_value": hi}}}
 * (the bounds only when there is an interval). A new reference. */
json_t *pgcb_agg_export_bmf(const struct pgcb_agg_export *x);

/* [{"name": "NAME/SLUG", "unit", "value", "range"?, "extra"?}] of the
 * smaller-is-better measures (every one but throughput). A new reference. */
json_t *pgcb_agg_export_gab(const struct pgcb_agg_export *x);

/* Write the BMF to bencher_path and the gab JSON to gab_path (either may be
 * NULL: not written), each atomically (temp file + rename, util.h). A file
 * that cannot be written is one line on err ("aggregate: PATH: cannot
 * write: why") and the other is still written. Returns 0, or -1 when one
 * failed. */
int pgcb_agg_export_write(const struct pgcb_agg_export *x, const char *bencher_path,
                          const char *gab_path, FILE *err);

#endif
