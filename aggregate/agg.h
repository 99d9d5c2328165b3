/*
 * agg.h -- the aggregate program: several result files (runs, often one per
 * machine) read, checked, ranked together, and written as text, Markdown,
 * JSON or an SVG chart. Module prefix pgcb_agg_.
 *
 *   load.c      reading and checking the files, what they share, the rankings
 *   grouprel.c  relative latency per group and driver, pooled over the runs
 *   baseline.c  queries/s per run label relative to a baseline label
 *   text.c      text (box tables) and Markdown output
 *   json.c      JSON output
 *   svg.c       the chart
 *   main.c      the command line
 *
 * Nothing here prints except to a FILE * it is given. Output is a function
 * of the input files and options only (no clock, no environment), so it can
 * be compared with golden files.
 */
#ifndef PGCB_AGG_H
#define PGCB_AGG_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "rank.h"
#include "result.h"
#include "table.h"

struct pgcb_agg_run {
    char *path;                 /* as given on the command line */
    char *label;                /* --label, or "CPU model, N cores" */
    struct pgcb_result res;
    struct pgcb_ranking rank;   /* this run's overall ranking, within what all runs share */
};

struct pgcb_agg {
    struct pgcb_agg_run *runs;
    size_t nruns;
    const struct pgcb_result **res; /* &runs[i].res, for rank.h */
    struct pgcb_ranking overall;    /* every shared group of every run */
    char **notes;                   /* what is partial or left out, one sentence each */
    size_t nnotes;
};

/*
 * Read and check paths[0..n-1] (n >= 1); labels[0..nlabels-1] name the first
 * runs (nlabels <= n). Each problem that is not fatal (a partial run, a
 * driver or group not in every run) becomes a note, and a warning line
 * "aggregate: warning: ..." on `warn`. Then rank. Returns 0, or -1 with one
 * line in err ("FILE: why", or why nothing can be ranked); *a is then freed.
 */
int pgcb_agg_load(struct pgcb_agg *a, char *const *paths, size_t n, char *const *labels,
                  size_t nlabels, FILE *warn, char *err, size_t errlen);

void pgcb_agg_free(struct pgcb_agg *a);

/* The relative latency of run i's row for `driver` in its own ranking
 * (NAN when not ranked there), and whether it ranked first. */
double pgcb_agg_run_rel(const struct pgcb_agg *a, size_t i, const char *driver, int *first);

/* "S / Q, depth D": the name of a group in notes and headings. */
char *pgcb_agg_group_name(const struct pgcb_res_group *gr);

/* ---- grouprel.c ------------------------------------------------------------ */

/* One shared group (from run 1, in its order) and each ranked driver's
 * relative latency there: the geometric mean, over the runs where that
 * group was ranked, of median / the group's lowest median. */
struct pgcb_agg_grouprel {
    const struct pgcb_res_group *group; /* borrowed from run 1 */
    double *rel;                        /* per a->overall.rows[], NAN if never ranked */
    size_t nruns;                       /* runs in which the group was ranked */
};

/* Returns the count; *out is malloc'd (free with pgcb_agg_grouprel_free). */
size_t pgcb_agg_grouprel(const struct pgcb_agg *a, struct pgcb_agg_grouprel **out);
void pgcb_agg_grouprel_free(struct pgcb_agg_grouprel *g, size_t n);

/* ---- baseline.c -------------------------------------------------------------- */

/*
 * Relative throughput against a baseline run label: for each ranked driver
 * one table, one row per distinct run label (first-appearance order), one
 * column per shared group, cell = the driver's queries/s there divided by
 * its queries/s in the baseline label's runs. Runs sharing a label are
 * pooled by the geometric mean of their queries/s. Only valid cells count
 * (status OK); a missing value is NAN. The last column, "overall", is the
 * geometric mean of the row's cells over the groups where both exist.
 * Per driver (not the group's best driver): a new library version or a
 * server change shows in the driver it affects, not only in the winner.
 */
struct pgcb_agg_baseline {
    const char *label;          /* the baseline label (borrowed) */
    double threshold_pct;       /* beyond +-this, a cell is marked */
    const char **labels;        /* rows, borrowed */
    size_t nlabels;
    const struct pgcb_res_group **groups; /* columns, borrowed from run 1 */
    size_t ngroups;
    double *ratio;              /* [(d * nlabels + l) * (ngroups + 1) + g] */
};

/* Returns 0, or -1 with one line in err (no run has that label). */
int pgcb_agg_baseline_compute(const struct pgcb_agg *a, const char *label, double threshold_pct,
                              struct pgcb_agg_baseline *b, char *err, size_t errlen);
void pgcb_agg_baseline_free(struct pgcb_agg_baseline *b);
double pgcb_agg_baseline_ratio(const struct pgcb_agg_baseline *b, size_t d, size_t l, size_t g);
/* "▲" above 1 + threshold, "▼" below 1 - threshold, "" otherwise (and for NAN). */
const char *pgcb_agg_baseline_mark(const struct pgcb_agg_baseline *b, double ratio);

/* ---- output -------------------------------------------------------------------- */

/* Text (PGCB_TABLE_BOX or ASCII) or Markdown (PGCB_TABLE_MARKDOWN) to out;
 * b may be NULL (no --baseline). */
void pgcb_agg_print(FILE *out, const struct pgcb_agg *a, const struct pgcb_agg_baseline *b,
                    enum pgcb_table_style style);

/* The same data as JSON (a new reference). */
json_t *pgcb_agg_json(const struct pgcb_agg *a, const struct pgcb_agg_baseline *b);

/* The chart, written to path (not atomically). Returns 0, or -1 with "PATH:
 * why" in err. */
int pgcb_agg_svg_write(const struct pgcb_agg *a, const char *path, char *err, size_t errlen);

/* The chart as a malloc'd string (what pgcb_agg_svg_write writes). */
char *pgcb_agg_svg(const struct pgcb_agg *a);

#endif
