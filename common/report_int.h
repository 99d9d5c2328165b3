/*
 * report_int.h -- what the report's files share (internal to common/report*.c;
 * nothing else includes it): report.c (a group's title and table),
 * report_header.c (the run's header and noise), report_verdict.c (a group's
 * verdict line), report_notes.c (the notes under a group's table),
 * report_rank.c (the rankings). None of these prints but into the FILE it
 * is given.
 */
#ifndef PGCB_REPORT_INT_H
#define PGCB_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>

#include "result.h"
#include "table.h"

/* v rounded to a whole number into buf, "-" if not finite. */
void pgcb_rep_fmt_int(char *buf, size_t n, double v);

/* A duration in ns with a unit that keeps it short: "850 ns", "412 µs",
 * "1.9 ms", "2.3 s"; "-" if not finite. */
void pgcb_rep_fmt_duration(char *buf, size_t n, double ns);

/* Driver d is a client (ranked and crowned), not a reference driver. */
int pgcb_rep_is_client(const struct pgcb_result *r, size_t d);

/* Driver d asks the server for other work than the run's choices (a field
 * it says that differs, in *diff) or does not say what it asks (*unknown).
 * Nothing for a driver without I/O or a result that recorded no choices. */
int pgcb_rep_unlike(const struct pgcb_result *r, size_t d, unsigned *diff, unsigned *unknown);

/* "rawwire_bin: binary results; asyncpg: binary results, Describe once" for
 * every driver that differs from the run's choices (want_unknown 0), or
 * "a, b" for every driver that does not say what it asks (want_unknown 1);
 * "" if none. */
void pgcb_rep_unlike_list(const struct pgcb_result *r, int want_unknown, char *buf, size_t n);

/* The threshold of the spread warning: the run's, else the default. */
double pgcb_rep_noise_warn_pct(const struct pgcb_result *r);

/* report_wire.c: a group's wire notes (each counted cell's messages per
 * query, departures from the expectation, the proxy's accuracy); the notes
 * printed. */
int pgcb_rep_wire_notes(FILE *out, const struct pgcb_result *r, size_t g, const char *bullet);

/* Group g's notes under its table, then its verdict line (report_notes.c).
 * no_interval: the ratios its table showed without an interval, from
 * ci_orders orders each (report.c's table or the concurrency table's). */
void pgcb_rep_group_notes(FILE *out, const struct pgcb_result *r, size_t g,
                          enum pgcb_table_style style, unsigned flags, size_t no_interval,
                          size_t ci_orders);

#endif
