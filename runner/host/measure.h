/*
 * measure.h -- the timed loop.
 *
 * One block = `n` batches on one connection, timed back to back: one
 * CLOCK_MONOTONIC read per sample (the end of a batch is the start of the
 * next), the thread CPU clock read once before and once after the block. A
 * batch is one run_batch of the statement at `depth` -- with its parameters
 * (drawn beforehand into the plan's arrays) through run_batch_params -- and,
 * in a transaction plan, a BEGIN before it and a COMMIT after it, timed
 * together. The loop stores samples into a caller-owned buffer and counts
 * rows/checksum disagreements; it does not allocate, print, lock or call
 * anything but the driver and the clock.
 *
 * A self-timed plan (a driver with PGCB_CAP_SELF_TIMED, e.g. the bridge)
 * runs the whole block in one run_block call: the driver times each batch
 * (in its adapter process) and the runner times the call, so that what the
 * call cost beyond the samples is the driver's overhead, never a sample.
 *
 * A connection plan ([suite] connect = yes) makes every sample one whole
 * connection, as a program that connects for one query does: the driver's
 * open (connect, TLS if asked, authenticate, startup), prepare of the
 * statement, one execution at depth 1 (run_batch, or run_batch_params with
 * the sample's parameters) and close, timed together with the same one clock
 * read per sample; the plan's long-lived conn and stmt are not used. The
 * driver allocates in open and frees in close: such a loop allocates, as the
 * program it measures does, but the runner's own code in it does not.
 *
 * A COPY plan ([query] copy, bulk.h) makes every sample one run_copy of the
 * whole payload; after each sample, outside it, the plan's stmt (TRUNCATE of
 * the target) runs through run_batch, so that the table does not grow
 * across samples. Its clocks are read around each COPY (the wall clock and
 * the thread CPU clock: two reads each per sample, against a COPY of
 * milliseconds), so that the TRUNCATE is in neither figure. A sample's sum
 * is the server's row count (rows = it, the int folded): the rows
 * themselves are checked by reading them back (host.c), not per sample.
 *
 * A streaming plan ([suite] stream, ABI 1.6) makes every sample one
 * run_stream: one execution whose whole result is read, buffered or
 * streamed. The driver times it (its total and its time to first row, from
 * just before the send); the runner's two clock reads around the call give
 * what the call cost beyond that (the bridge's exchange) as overhead, and
 * its thread CPU clock the CPU time when the driver reports none.
 */
#ifndef PGCB_MEASURE_H
#define PGCB_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "pgcb/driver.h"

/* A connection plan's connection: what open and prepare are given.
 * Borrowed; none is freed here. */
struct pgcb_connect {
    const char *conninfo;             /* the group's connection string (the host's) */
    const struct pgcb_option *opts;   /* the driver's options */
    size_t nopts;
    const char *name, *sql;           /* the statement: "pgcb_QUERY" and its text */
};

/* What every batch of a block runs. Borrowed pointers; none is freed here. */
struct pgcb_plan {
    const struct pgcb_driver *drv;
    struct pgcb_conn *conn;
    struct pgcb_stmt *stmt;
    struct pgcb_stmt *begin, *commit; /* both set: each batch is a transaction */
    uint32_t depth;
    uint32_t nparams;                 /* 0: run_batch; else run_batch_params */
    const char **values;              /* batch i, query k, parameter j at */
    const int *lengths;               /*   [(i * depth + k) * nparams + j] */
    int check_rows, check_sum;        /* count disagreements with these: */
    uint64_t expect_rows, expect_sum;
    struct pgcb_sum *sums;            /* non-NULL: self-timed (run_block), one sum per
                                         batch of a block, PGCB_BLOCK_MAX of them */
    const struct pgcb_connect *connect; /* non-NULL: a connection plan (above); conn,
                                         stmt, begin, commit and sums unused, depth 1 */
    const struct pgcb_copy *copy;     /* non-NULL: a COPY plan (below); stmt empties the
                                         table, depth 1 */
    /* non-NULL: a streaming plan (below): mode and fetch of every read; its
     * stmt and params are set per sample from the plan's */
    const struct pgcb_stream *stream;
    uint64_t *firsts;                 /* streaming: each sample's time to first row */
    char *idiom;                      /* streaming: the last read's idiom (PGCB_IDIOM_LEN) */
};

struct pgcb_measured {
    size_t n;               /* samples stored (batches that succeeded) */
    uint64_t wall_ns;       /* sum of the stored samples */
    uint64_t cpu_ns;        /* thread CPU time of the whole block */
    uint64_t rows_bad;      /* batches whose row count != expect_rows */
    uint64_t sum_bad;       /* batches whose checksum != expect_sum */
    uint64_t last_rows;     /* rows and checksum of the last good batch */
    uint64_t last_sum;
    int rc;                 /* PGCB_OK, or the failing batch's status */
    /* Self-timed blocks only (0 otherwise): the call's wall time beyond the
     * samples, and the CPU time spent outside the timed batches (this
     * thread's, and the driver's other processes' as it reports them). */
    uint64_t overhead_ns;
    uint64_t overhead_cpu_ns;
};

/* Run one batch of plan p (batch index i of its parameter arrays) into
 * *sum (zeroed here). Returns the driver's status. */
int pgcb_measure_batch(const struct pgcb_plan *p, size_t i, struct pgcb_sum *sum, char *err,
                       size_t errlen);

/* Run up to n batches (n >= 1) of plan p, storing each batch's latency in
 * samples[0..]. Stops at the first failing batch (its time is not stored;
 * its message is in err). A self-timed plan: one run_block call, whose
 * cpu_ns is the driver's CPU time of the timed batches. A connection plan:
 * n connections, each a sample; a failing one is closed, and err says which
 * step failed ("cannot connect: ...", "prepare failed: ...", "execution
 * failed: ..."). */
void pgcb_measure_block(const struct pgcb_plan *p, size_t n, uint64_t *samples,
                        struct pgcb_measured *out, char *err, size_t errlen);

/* What one load (pgcb_measure_load) gave. */
struct pgcb_measured_load {
    size_t n;               /* queries that completed: their latencies in samples[0..n) */
    uint64_t wall_ns;       /* the load's start to its last reply, as the driver timed it */
    uint64_t cpu_ns;        /* the client's CPU time over it, as the driver reports it */
    uint64_t late_ns;       /* rate mode: how late its last query was issued */
    uint64_t rows_bad, sum_bad; /* queries whose rows / checksum disagree (check_*) */
    uint64_t last_rows, last_sum;
    int rc;
    uint64_t overhead_ns;   /* the call's wall time beyond the load's (the bridge's exchange) */
    uint64_t overhead_cpu_ns; /* this thread's CPU time beyond the driver's figure */
};

/* One load of plan p (ABI 1.5 run_load; p->sums non-NULL, n entries, as
 * samples): `shape` says mode, concurrency, rate, duration and min_queries;
 * the statement, the parameters (row i of p's arrays for query i) and
 * max_queries = n come from here. Each query's checksum is checked as a
 * depth-1 batch's. */
void pgcb_measure_load(const struct pgcb_plan *p, const struct pgcb_load *shape, size_t n,
                       uint64_t *samples, struct pgcb_measured_load *out, char *err,
                       size_t errlen);

#endif
