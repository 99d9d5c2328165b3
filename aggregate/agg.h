/*
 * agg.h -- the aggregate program: several result files (runs, often one per
 * machine) read, checked, ranked together, and written as text, Markdown,
 * JSON, CSV or an SVG chart. Module prefix pgcb_agg_.
 *
 *   load.c      reading and checking the files, what they share, the rankings
 *   grouprel.c  relative latency per group and driver, pooled over the runs
 *   baseline.c  queries/s per run label relative to a baseline label
 *   text.c      text (box tables) and Markdown output
 *   json.c      JSON output
 *   csv.c       CSV output: one row per run, group and driver
 *   svg.c       the chart of relative latency (bars)
 *   svg_pct.c   the chart of latency by percentile (lines)
 *   svg_util.c  what the two charts share
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

#include "ab.h"
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

/* Run i's profile (issue 28): NULL for an unprofiled run, else "profiled
 * (perf EVENT, F Hz): PATH" with PATH its flame graph index (or profile
 * directory) resolved against the run file's directory. The caller frees
 * it. pgcb_agg_load() refuses profiled runs beside unprofiled ones. */
char *pgcb_agg_profile_line(const struct pgcb_agg *a, size_t i);
/* The index's (or directory's) path alone, resolved as above; NULL: none. */
char *pgcb_agg_profile_path(const struct pgcb_agg *a, size_t i);

/* "S / Q, depth D" ("rows_per_txn D" for a transaction group): the name of a
 * group in notes and headings. */
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
 * Relative throughput against a baseline run label, per step: for each
 * ranked driver one table, one row per shared group ("step": suite, query,
 * depth or rows_per_txn), one column per distinct run label (first-
 * appearance order), cell = the driver's queries/s in that step in the
 * label's runs divided by its queries/s in the baseline label's runs. Runs
 * sharing a label are pooled by the geometric mean of their queries/s. Only
 * valid cells count (status OK, queries/s finite and > 0). A last row,
 * "overall", is the geometric mean of each column over the steps where
 * EVERY column has a ratio (as a ranking compares drivers on the same
 * groups): a label that failed a step is not averaged over fewer steps than
 * the others; the steps left out are named (in_overall). Per driver (not the group's best driver): a new library or
 * server version shows in the driver it affects, not only in the winner.
 *
 * Each cell also says whether the driver skipped the step in that label's
 * runs (PGCB_CELL_SKIPPED and no valid result: shown as "skipped", never
 * counted) and whether a background load of that step missed its target
 * rate in one of those runs (sla_failed: the ratio stands, marked). The
 * overall cell is marked when any ratio it combines is.
 */
enum pgcb_agg_cell_kind {
    PGCB_AGG_CELL_NONE = 0,     /* no valid result (or none in the baseline) */
    PGCB_AGG_CELL_VALUE,        /* a ratio */
    PGCB_AGG_CELL_SKIPPED,      /* the driver skipped the step in this label's runs */
};

struct pgcb_agg_bcell {
    enum pgcb_agg_cell_kind kind;
    double ratio;               /* NAN unless VALUE */
    int sla_failed;             /* a background load missed its target in these runs */
};

struct pgcb_agg_baseline {
    const char *label;          /* the baseline label (borrowed) */
    double threshold_pct;       /* beyond +-this, a cell is marked */
    const char **labels;        /* columns, borrowed */
    size_t nlabels;
    const struct pgcb_res_group **groups; /* rows (steps), borrowed from run 1 */
    size_t ngroups;
    /* [(d * (ngroups + 1) + g) * nlabels + l]; g == ngroups: the overall row */
    struct pgcb_agg_bcell *cells;
    double *base_qps;           /* [d * ngroups + g]: the baseline's queries/s, NAN if none */
    unsigned char *in_overall;  /* [d * ngroups + g]: step g counts in driver d's overall row */
    size_t *overall_steps;      /* [d]: how many do */
    int any_sla_failed;         /* some cell is marked: print the legend */
};

/* Returns 0, or -1 with one line in err (no run has that label). */
int pgcb_agg_baseline_compute(const struct pgcb_agg *a, const char *label, double threshold_pct,
                              struct pgcb_agg_baseline *b, char *err, size_t errlen);
void pgcb_agg_baseline_free(struct pgcb_agg_baseline *b);
/* Driver d (a->overall.rows[d]), step g (ngroups: overall), label l. */
const struct pgcb_agg_bcell *pgcb_agg_baseline_cell(const struct pgcb_agg_baseline *b, size_t d,
                                                    size_t g, size_t l);
/* "▲" above 1 + threshold, "▼" below 1 - threshold, "" otherwise (and for NAN). */
const char *pgcb_agg_baseline_mark(const struct pgcb_agg_baseline *b, double ratio);

/* The name of a step in tables: "S / Q / depth D" (or "rows_per_txn D" for a
 * transaction group), then ", N threads" when more than one. Malloc'd. */
char *pgcb_agg_step_name(const struct pgcb_res_group *gr);

/* The legend line of the SLA mark. */
#define PGCB_AGG_SLA_LEGEND "* background load missed its target rate (SLA)"

/* ---- output -------------------------------------------------------------------- */

/* Text (PGCB_TABLE_BOX or ASCII) or Markdown (PGCB_TABLE_MARKDOWN) to out;
 * b may be NULL (no --baseline). flags: PGCB_REPORT_DETAIL (report.h) adds
 * each run's detail table (percentiles) per group -- in text a last
 * section, one table per run and group; in Markdown under each group's
 * table in the run's collapsed section. */
void pgcb_agg_print(FILE *out, const struct pgcb_agg *a, const struct pgcb_agg_baseline *b,
                    enum pgcb_table_style style, unsigned flags);

/* The same data as JSON (a new reference). */
json_t *pgcb_agg_json(const struct pgcb_agg *a, const struct pgcb_agg_baseline *b);

/* CSV (RFC 4180) to out: a header row, then one row per run, group and
 * driver of each run's own file; the columns are listed at the top of
 * csv.c. */
void pgcb_agg_csv(FILE *out, const struct pgcb_agg *a);

/* The chart, written to path (not atomically). Returns 0, or -1 with "PATH:
 * why" in err. */
int pgcb_agg_svg_write(const struct pgcb_agg *a, const char *path, char *err, size_t errlen);

/* The chart as a malloc'd string (what pgcb_agg_svg_write writes). */
char *pgcb_agg_svg(const struct pgcb_agg *a);

/* ---- svg_pct.c: the percentile chart ------------------------------------------ */

/* Latency by percentile, one panel per group and run, one line per driver
 * (the description is at the top of svg_pct.c), as a malloc'd string; NULL
 * on ENOMEM. */
char *pgcb_agg_svg_pct(const struct pgcb_agg *a);

/* That chart, written to path (not atomically); then, on warn (may be
 * NULL), one line per run whose file has no percentile curves (a file from
 * before them): "aggregate: warning: FILE: no percentile curves ...".
 * Returns 0, or -1 with "PATH: why" in err. */
int pgcb_agg_svg_pct_write(const struct pgcb_agg *a, const char *path, FILE *warn, char *err,
                           size_t errlen);

/* 1 if some cell of run i has a percentile curve. */
int pgcb_agg_run_has_curves(const struct pgcb_agg *a, size_t i);

/* ---- svg_util.c: what the charts share --------------------------------------- */

/* The k-th colour of the palette (10, then again): the bar chart's k-th
 * ranked driver, and the same driver's line in the percentile chart. */
const char *pgcb_agg_svg_color(size_t k);
/* s as XML text content or attribute value (& < > " escaped). */
void pgcb_agg_xml(FILE *f, const char *s);
/* A "nice" axis step, 1, 2 or 5 x 10^k, so that max fits in at most `steps`. */
double pgcb_agg_nice_step(double max, double steps);
/* The XML declaration, the <svg> element (width x height, the font) and
 * its <title> (escaped). The caller writes the rest and "</svg>\n". */
void pgcb_agg_svg_open(FILE *f, double width, double height, const char *title);
/* A subtitle line at y: "Run 1: LABEL; Run 2: ..." (the first 4, then a
 * count), suffix[i] (when suffix and it are not NULL) after run i's label. */
void pgcb_agg_svg_runs(FILE *f, const struct pgcb_agg *a, double y, const char *const *suffix);
/* One colour swatch and name per names[k] (colour k), in a row at y. */
void pgcb_agg_svg_legend(FILE *f, const char *const *names, size_t n, double y);
/* Write a chart the caller built to path (pgcb_write_text, util.h) the caller built: svg is freed (NULL: it could not
 * be built, "PATH: out of memory for the chart"). */
int pgcb_agg_write_chart(const char *path, char *svg, char *err, size_t errlen);

/* ---- ab.c: aggregate --ab BASE:HEAD (issue 29, docs/regressions.md) ---------- */

struct pgcb_ab;

struct pgcb_agg_ab_args {
    const char *pair;           /* "BASE:HEAD": two driver labels */
    char *const *files;         /* the runs holding HEAD (and BASE, unless baselines) */
    size_t nfiles;
    char *const *baselines;     /* --ab-baseline FILE...: BASE from these (unpaired) */
    size_t nbaselines;
    double fail_above_pct;      /* --fail-above; < 0: no gate */
    int format_json, format_markdown; /* stdout: JSON, Markdown, or text */
    const char *markdown_path, *json_path; /* also written there (NULL: not) */
    struct pgcb_ab_opts opts;   /* --ab-test, --ab-orders (zero: the defaults) */
    const char *export_bencher, *export_gab; /* --export-*: also written (export.h) */
};

/* The comparison, printed; exit status: 0 (the gate passed or there is
 * none), 1 a file cannot be used (one line naming it), 2 bad --ab, 3 the
 * gate failed (one line on stderr saying why). */
int pgcb_agg_ab_main(const struct pgcb_agg_ab_args *a);

/* The report of ab: text (PGCB_TABLE_BOX) or Markdown. */
void pgcb_agg_ab_print(FILE *out, const struct pgcb_ab *ab, enum pgcb_table_style style);

#endif
