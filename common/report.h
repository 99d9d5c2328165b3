/*
 * report.h -- the console report: header, one box table per group and its
 * verdict line, the ranking tables. Writes only to the FILE the caller
 * gives. The aggregate program reuses the group and ranking parts (in
 * Markdown too).
 */
#ifndef PGCB_REPORT_H
#define PGCB_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "rank.h"
#include "result.h"
#include "table.h"

/* Versions, machine, pinning, noise (cpufreq governor, SMT siblings, steal
 * since boot, with a note when a measuring CPU shares its core with a
 * server or another measuring CPU), budget and the drivers. `where`
 * describes the server connection (e.g. "socket /tmp/x/.s.PGSQL.5433"). */
void pgcb_report_header(FILE *out, const struct pgcb_result *r, const char *where);

/* Group g's table, its notes (errors and skip notes, drivers without
 * pipelining), one line per background load and the verdict line. The
 * title says "rows_per_txn N" instead of "depth N" for a transaction group,
 * "P params" for a query with parameters and "ops N" for a fixed number of
 * operations. */
void pgcb_report_group(FILE *out, const struct pgcb_result *r, size_t g);

/* The same in a table style: BOX and ASCII as on a terminal; MARKDOWN (for
 * a CI job summary) with a bold title, the notes as a list and blank lines
 * between the blocks so that the table ends where it should. */
void pgcb_report_group_styled(FILE *out, const struct pgcb_result *r, size_t g,
                              enum pgcb_table_style style);

/* The same with flags: PGCB_REPORT_DETAIL adds the detail table
 * (pgcb_report_detail) after the group's table, before its notes. */
#define PGCB_REPORT_DETAIL 1u
void pgcb_report_group_ex(FILE *out, const struct pgcb_result *r, size_t g,
                          enum pgcb_table_style style, unsigned flags);

/*
 * report_profile.c (issue 28, docs/profiling.md). The header's line about a
 * profiled run ("Profile  : profiled (perf cpu-clock, 499 Hz): not
 * comparable with unprofiled runs"; for profile = try without perf, why
 * not); nothing for a run that was not asked to profile.
 */
void pgcb_report_profile_header(FILE *out, const struct pgcb_result *r);

/* Under group g's table, for each profiled driver: its sides' categories
 * ("client: kernel 52%, libpq 21%, ...") and the five functions with the
 * most self time, as shares of that side's samples and as ns per query
 * (share x the cell's client or backend CPU per query); at most 100
 * columns. Nothing when no cell of g was profiled. */
void pgcb_report_profile(FILE *out, const struct pgcb_result *r, size_t g);

/*
 * The detail table of group g (report_detail.c): per driver, the latency
 * distribution from its pooled histogram -- Min, p50, p90, p99, p99.9, Max
 * in ns -- after a caption line. A percentile of a driver with fewer samples
 * than it needs (pgcb_pct_min_samples: 1000 for p99.9) is its max and is
 * marked "*", explained in a line under the table; a result file from
 * before the percentiles were recorded shows "-" and says so.
 */
void pgcb_report_detail(FILE *out, const struct pgcb_result *r, size_t g,
                        enum pgcb_table_style style);

/*
 * report_transport.c. Under group g's table (bullet before each line): how
 * its drivers' connections reached the server, as the server saw them --
 * "Transport: TLSv1.3 TLS_AES_256_GCM_SHA384 (256-bit), TCP from 127.0.0.1
 * (every driver)", or an entry per set of drivers that agree -- for a group
 * that asked for a transport, or whose drivers differ; and a "warning:"
 * line for each driver that used another transport than the group asked
 * for. Returns the lines printed.
 */
int pgcb_report_transport_notes(FILE *out, const struct pgcb_result *r, size_t g,
                                const char *bullet);

/* After the group tables: what the transport adds (tsummary.h), a caption
 * and a table per step that ran under two or more transports; nothing when
 * there is none. */
void pgcb_report_transport_summary(FILE *out, const struct pgcb_result *r,
                                   enum pgcb_table_style style);

/* report_distance.c. After the group tables: per step measured at several
 * RTTs ([suite] rtt_ms), every driver's median (or queries per second) at
 * each, with its round trips per query and its expectation; nothing when
 * the run has no such step. */
void pgcb_report_distance_summary(FILE *out, const struct pgcb_result *r,
                                  enum pgcb_table_style style);

/* report_stream.c. After the group tables: every streaming group's cells in
 * one table (times of the median read, rows per second, peak memory and its
 * growth, the memory verdict, each client's idiom or why its cell did not
 * run); nothing when the run has no streaming group. 0, or -1 on ENOMEM or
 * a write error. */
int pgcb_report_stream_summary(FILE *out, const struct pgcb_result *r,
                               enum pgcb_table_style style);

/*
 * report_versus.c. Under group g's table (bullet before it), one line
 * naming the columns of its query that every driver folds as their text
 * although their type is not a text type (value.h does not convert it):
 *   Folded as text: column 3 "p" (point, oid 600), column 4 "n" (inet, oid 869)
 * Returns the lines printed (0 or 1).
 */
int pgcb_report_folded_notes(FILE *out, const struct pgcb_result *r, size_t g,
                             const char *bullet);

/* After the group tables: what converting costs (versus.h), a caption and
 * a table per suite, shape and transport with a pair of groups ([query]
 * versus): a row per query, its twin and values per query, a column per
 * driver with its ns per value ("-" where a cell is not valid); nothing
 * when there is no pair. */
void pgcb_report_conversion_cost(FILE *out, const struct pgcb_result *r,
                                 enum pgcb_table_style style);

/* Its two halves, for a reader of several results (aggregate): the caption
 * (what the figures are) and r's tables without it; 0 (nothing printed)
 * when r has no pair, else 1. */
void pgcb_report_conversion_cost_caption(FILE *out, enum pgcb_table_style style);
int pgcb_report_conversion_cost_tables(FILE *out, const struct pgcb_result *r,
                                       enum pgcb_table_style style);

/* What the tables append to driver d's name in group g: " (FAILED)",
 * " (INVALID)", " (not run)", " (skipped)", " (reference)" or "". */
const char *pgcb_report_mark(const struct pgcb_result *r, size_t g, size_t d);

/* The table mark of driver d after its name and pgcb_report_mark(): " *"
 * it asks the server for other work than the run's choices (a variant),
 * " ?" it does not say what it asks, "" otherwise. */
const char *pgcb_report_variant_mark(const struct pgcb_result *r, size_t d);

/* The median of the wire floor driver d is measured against in group gr
 * (the "x floor" column): a floor (a reference driver with I/O,
 * drivers/floor) that asks the server for what d asks (same format,
 * Describe, Sync), else one that asks for the run's choices, else the
 * first; NAN without a floor measured there. */
double pgcb_report_floor_median(const struct pgcb_result *r, const struct pgcb_res_group *gr,
                                size_t d);

/*
 * The verdict line of group g (pgcb_rank_verdict), without a newline, into
 * buf (n bytes, always terminated):
 *   Winner: X (N ns median, faster in all K execution orders; p <= 1/2^K per rival)
 *   No clear winner: lowest median X (N ns), lowest mean Y (M ns); no driver was
 *     faster in every execution order   (or "; 2 drivers share the lowest median")
 *   Lowest median: X (N ns; the only valid client driver)
 *   No valid client driver result in this group.
 *     (" (every client driver skipped it)" before the full stop when so)
 * 1/2^K is written out (1/64) up to K = 52, as "1/2^K" beyond. When a
 * background load of the group missed its target rate (sla_failed), the
 * line ends with " — background SLA FAILED": the figures stand, but were not
 * measured under the configured load.
 */
void pgcb_report_verdict_line(char *buf, size_t n, const struct pgcb_result *r, size_t g);

/*
 * One background load of a group, without a newline, into buf (n bytes,
 * always terminated):
 *   Background bgw: libpq_sync x 2 connections on query ins, target 200/s,
 *   achieved 199.6/s (99.8%), 399 executions in 2.00 s, latency from schedule
 *   median 412 µs p99 1.9 ms max 3.0 ms — SLA met (>= 95%)
 * (one line), "SLA FAILED (< 95%)" when it missed, then "; error: ..." when
 * the load failed. Durations in ns, µs, ms or s; "-" for an unknown figure.
 */
void pgcb_report_background_line(char *buf, size_t n, const struct pgcb_res_background *b);

/*
 * The ranking tables of one run (rank.h): one per suite when there are two
 * or more, then overall, each with what was left out, then the legend.
 * Columns: medal (top three), Driver, Relative latency (3 decimals), Slower
 * than best (+x.x%), Fastest median (n/groups), Outright wins (n/groups).
 * Box tables; the runner calls it after the last group.
 */
void pgcb_report_rankings(FILE *out, const struct pgcb_result *r);

/* The same over several runs (the aggregate): runs ranked together, drivers
 * and groups shared by scope (rank.h); with_run names the run (1-based) of a
 * left-out group. */
void pgcb_report_rankings_within(FILE *out, const struct pgcb_result *const *runs, size_t nruns,
                                 const struct pgcb_result *const *scope, size_t nscope,
                                 int with_run, enum pgcb_table_style style);

/* One ranking: a title line ("TITLE  (N groups)" or "(N of M groups; K left
 * out ...)" or "TITLE: nothing to rank (why)"), the table, then one line per
 * left-out group (the first 8, then a count; runs[] names them) and per
 * unranked driver. */
void pgcb_report_ranking(FILE *out, const char *title, const struct pgcb_ranking *rk,
                         const struct pgcb_result *const *runs, int with_run,
                         enum pgcb_table_style style);

/* The legend of the ranking columns, once after the tables. */
void pgcb_report_ranking_legend(FILE *out, enum pgcb_table_style style);

/* After the run: the machine's steal time over it (issue 13), one line;
 * nothing when it is not known. */
void pgcb_report_run_noise(FILE *out, const struct pgcb_result *r);

/* 1 if driver d is the wire floor: a reference driver that does I/O. */
int pgcb_report_is_floor(const struct pgcb_result *r, size_t d);

/* report_conc.c: a concurrency group's table (throughput, x best with its
 * interval, latency percentiles per query, client CPU and busy share,
 * server side, bottleneck), counting ratios without an interval into
 * *no_interval (and their orders into *ci_orders); and its shape ("10 closed
 * loops over a pool of 10"). */
void pgcb_report_conc_table(FILE *out, const struct pgcb_result *r, size_t g,
                            enum pgcb_table_style style, size_t *no_interval, size_t *ci_orders);
void pgcb_report_conc_shape(const struct pgcb_res_group *gr, char *buf, size_t n);

#endif
