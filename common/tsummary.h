/*
 * tsummary.h -- what the transport adds: for every step (suite, query,
 * depth, threads, transaction, ops) that ran under two or more transports
 * ([suite] transport), each driver's median latency per query and per batch
 * under each, and the difference to the baseline transport (unix when it
 * ran, else the first). Derived from the groups alone: the console's
 * summary (report.h) and the JSON's "transport_summary" (result_json.c)
 * both use it.
 *
 * The groups of one step ran one after another, not interleaved: a
 * difference also holds whatever drifted between them.
 */
#ifndef PGCB_TSUMMARY_H
#define PGCB_TSUMMARY_H

#include <stddef.h>

#include "result.h"

/* One step and its groups. Owns groups. */
struct pgcb_tsum_set {
    size_t *groups;           /* indices into r->groups, in the run's order */
    size_t n;                 /* >= 2 */
    size_t base;              /* index into groups of the baseline transport */
};

/* Every step of r with two or more transports, in the order of their first
 * group: a new array (*out; NULL when there is none) of the returned count;
 * free with pgcb_tsum_free(). */
size_t pgcb_tsum_sets(const struct pgcb_result *r, struct pgcb_tsum_set **out);

void pgcb_tsum_free(struct pgcb_tsum_set *sets, size_t n);

/* Driver d under the set's k-th transport. */
struct pgcb_tsum_cell {
    int valid;                /* its cell is ok with a median (else the rest is NAN) */
    double query_ns, batch_ns;/* median per query (batch / depth) and per batch */
    double d_query_ns, d_batch_ns; /* minus the baseline's; NAN when either is not valid */
    double d_pct;             /* the difference in % of the baseline (the same for both) */
};

void pgcb_tsum_cell(const struct pgcb_result *r, const struct pgcb_tsum_set *set, size_t k,
                    size_t d, struct pgcb_tsum_cell *out);

/* 1 if driver d is in the summary: it does I/O and has a valid cell in some
 * group of the set. */
int pgcb_tsum_driver(const struct pgcb_result *r, const struct pgcb_tsum_set *set, size_t d);

#endif
