/*
 * versus.h -- what converting a type costs the client (issue 19): for every
 * group whose query names a twin ([query] versus: the same shape with its
 * columns cast to text) and whose twin ran in a group of the same step
 * (suite, depth, threads, transaction, ops, connect, transport), each
 * driver's client CPU per query minus its CPU per query of the twin,
 * divided by the values per query (rows x columns), in ns per value.
 *
 * The server sends the twin's values as text, which every driver folds as
 * bytes; so the difference is the driver's conversion of the type (in the
 * format it asked for) beyond folding its text. Derived from the groups
 * alone: the console's table (report.h) and the JSON's "conversion_cost"
 * (result_types.c) both use it. The two groups ran one after another, not
 * interleaved: a difference also holds whatever drifted between them.
 */
#ifndef PGCB_VERSUS_H
#define PGCB_VERSUS_H

#include <stddef.h>

#include "result.h"

/* A group and its twin's group: indices into r->groups. */
struct pgcb_versus_pair {
    size_t group, twin;
};

/* Every pair of r, in the order of the groups: a new array (*out; NULL
 * when there is none) of the returned count; free() it. A group's twin is
 * the first group of r whose query is the group's versus and whose step
 * and transport are the group's (pgcb_rank_same_step, the same transport);
 * a group without one is in no pair. */
size_t pgcb_versus_pairs(const struct pgcb_result *r, struct pgcb_versus_pair **out);

/* Driver d in a pair. */
struct pgcb_versus_cell {
    int valid;               /* both cells ok, the values per query known and the same in
                                both groups: ns_per_value is set */
    double values;           /* values per query: rows x columns (NAN when unknown) */
    double cpu_ns;           /* client CPU per query of the group (NAN unless its cell is ok) */
    double twin_cpu_ns;      /* ... of the twin */
    double ns_per_value;     /* (cpu_ns - twin_cpu_ns) / values; NAN unless valid */
};

/* The values per query of group gr as driver d received them: its rows per
 * query (the group's `rows` when given, else the cell's rows per batch /
 * depth) x its columns; NAN when the columns are unknown or either is 0. */
double pgcb_versus_values(const struct pgcb_res_group *gr, size_t d);

void pgcb_versus_cell(const struct pgcb_result *r, const struct pgcb_versus_pair *p, size_t d,
                      struct pgcb_versus_cell *out);

/* 1 if driver d has a column in the table of the n pairs at p: it does I/O
 * and both its cells are ok in one of them at least. */
int pgcb_versus_driver(const struct pgcb_result *r, const struct pgcb_versus_pair *p, size_t n,
                       size_t d);

/* 1 if pairs a and b go in one table: their groups are of the same suite,
 * shape (depth, threads, transaction, ops, connect) and transport. */
int pgcb_versus_same_table(const struct pgcb_result *r, const struct pgcb_versus_pair *a,
                           const struct pgcb_versus_pair *b);

#endif
