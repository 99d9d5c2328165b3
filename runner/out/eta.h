/*
 * eta.h -- how long a run has left, estimated from what it measured so far.
 * Module prefix pgcb_eta_.
 *
 * Pure: no clock, no I/O, no globals. The caller (progress.c) says what
 * each finished job took and what the running job has done so far; these
 * functions only add up.
 *
 * The model is the runner's budget (docs/measuring.md). A run is
 * groups x drivers *cells*, run group after group. A cell is a warm-up (none
 * in a fixed-operation step), then `norders` orders; an order lasts until
 * both floors are met, so it takes
 *     max(time_floor_ns, batch_floor x t)        (+ the driver's overhead)
 * and a warm-up max(warmup_ns, t), where t is the cell's time per batch of
 * its first thread (threads run side by side) and the overhead is what a
 * job of that driver cost beyond its timed batches, as the runner saw it
 * (the pipe round trips, the driver's phase call -- a bridge's adapter
 * collects garbage there --, the last block's overshoot): the mean over the
 * driver's finished jobs, else over every driver's, else 0.
 *
 * t of a cell, first that applies:
 *   1. measured: its timed ns / batches so far (warm-up, finished orders and
 *      the running job);
 *   2. the driver was measured in other groups: its time per query there
 *      (their ns / their queries, pooled) x the group's depth x the group's
 *      factor, which is how much slower per query than elsewhere the drivers
 *      already measured in this group were (the geometric mean of their
 *      t / (their per-query time in the other groups x depth)), 1 when none;
 *   3. the driver was measured nowhere, others in this group were: the
 *      geometric mean of their t;
 *   4. others were measured elsewhere: the geometric mean of their per-query
 *      times x the depth;
 *   5. nothing measured yet: 0 (the time floors alone).
 * "Per query" pools only groups of the group's own kind: connection groups
 * (a sample is a whole connection: milliseconds with SCRAM or TLS) with
 * connection groups, the others (a query: microseconds) with the others;
 * a kind not measured yet falls through to the next rule.
 * It can be wrong: a group that is much slower or faster than those before
 * it (another query, another depth) moves the estimate once its first
 * driver has warmed up; a driver whose speed drifts (a JIT warming up, a
 * server cache filling) moves it as it goes; until = decided may end a
 * group after fewer orders (the estimate assumes all of them); a driver
 * that fails drops out only when it has failed. Host restarts, background
 * loads and the time to write the result are not counted.
 *
 * Ownership: pgcb_eta_init() allocates the arrays; the caller fills
 * groups[] and frees everything with pgcb_eta_free().
 */
#ifndef PGCB_ETA_H
#define PGCB_ETA_H

#include <stddef.h>
#include <stdint.h>

/* The budget of one group, the same for each of its drivers (group.c,
 * pgcb_group_budget, computes it with the formula the run uses). */
struct pgcb_eta_group {
    int warmup;                 /* each driver warms up before the orders */
    uint64_t warmup_ns;         /* ... for this much timed time (at least one batch) */
    uint64_t time_floor_ns;     /* an order: at least this much timed time (0: none) */
    uint64_t batch_floor;       /* ... and at least this many batches, per thread */
    uint32_t depth;             /* queries per batch */
    size_t norders;             /* orders per driver (at most: until = decided) */
    int connect;                /* a connection group: a batch is one whole connection
                                   (connect, authenticate, one query, close) */
};

/* What one cell (group x driver) has done. */
struct pgcb_eta_cell {
    uint64_t ns, batches;       /* timed ns and batches of its finished jobs (first thread) */
    size_t orders_done;
    int warmed;                 /* its warm-up has finished */
    int ended;                  /* nothing more of it runs: done, failed, or the group ended */
};

struct pgcb_eta {
    size_t ngroups, ndrivers;
    struct pgcb_eta_group *groups;   /* [ngroups], filled by the caller */
    struct pgcb_eta_cell *cells;     /* [g * ndrivers + d] */
    uint64_t *over_ns, *over_jobs;   /* [ndrivers]: overhead beyond the timed ns, and jobs */
    uint64_t *tot_ns, *tot_queries;  /* [kind * ndrivers + d], kind 0 (queries) or 1
                                        (connection groups): the sums of its cells' ns and
                                        batches x depth */
};

/* The job running now, as far as it got. */
struct pgcb_eta_live {
    size_t group, driver;
    int warmup;                 /* 1: the cell's warm-up; 0: one of its orders */
    uint64_t ns, batches;       /* timed ns and batches so far (first thread) */
};

/* Allocate for ngroups x ndrivers, everything zero (groups[] to fill). */
void pgcb_eta_init(struct pgcb_eta *e, size_t ngroups, size_t ndrivers);
void pgcb_eta_free(struct pgcb_eta *e);

/* A job of cell (g, d) finished: `ns` timed ns and `batches` batches (first
 * thread), `wall_ns` from sending it to its answer. */
void pgcb_eta_job_done(struct pgcb_eta *e, size_t g, size_t d, int warmup, uint64_t ns,
                       uint64_t batches, uint64_t wall_ns);

/* Nothing more of cell (g, d) runs (it failed, or cannot run the query). */
void pgcb_eta_drop(struct pgcb_eta *e, size_t g, size_t d);

/* Group g is over (or was kept from a journal): every cell ended. */
void pgcb_eta_group_done(struct pgcb_eta *e, size_t g);

/* The estimated ns per batch of cell (g, d) (the rules above); live may be
 * NULL. */
double pgcb_eta_batch_ns(const struct pgcb_eta *e, size_t g, size_t d,
                         const struct pgcb_eta_live *live);

/* The estimated ns the run has left; live may be NULL (between jobs). */
double pgcb_eta_left_ns(const struct pgcb_eta *e, const struct pgcb_eta_live *live);

/* Steps of the run (a step: one driver's warm-up or one order in a group)
 * and those done: finished, or no longer to run (an ended cell counts all
 * of its steps). */
void pgcb_eta_steps(const struct pgcb_eta *e, uint64_t *done, uint64_t *total);

/* ns as a short duration: "0s", "59s", "1m05s", "59m59s", "1h00m", "25h13m"
 * (rounded to the second, or to the minute from an hour). buf: >= 16. */
void pgcb_eta_fmt(char *buf, size_t n, double ns);

#endif
