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
 */
#ifndef PGCB_MEASURE_H
#define PGCB_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "pgcb/driver.h"

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
};

struct pgcb_block {
    size_t n;               /* samples stored (batches that succeeded) */
    uint64_t wall_ns;       /* sum of the stored samples */
    uint64_t cpu_ns;        /* thread CPU time of the whole block */
    uint64_t rows_bad;      /* batches whose row count != expect_rows */
    uint64_t sum_bad;       /* batches whose checksum != expect_sum */
    uint64_t last_rows;     /* rows and checksum of the last good batch */
    uint64_t last_sum;
    int rc;                 /* PGCB_OK, or the failing batch's status */
};

/* Run one batch of plan p (batch index i of its parameter arrays) into
 * *sum (zeroed here). Returns the driver's status. */
int pgcb_measure_batch(const struct pgcb_plan *p, size_t i, struct pgcb_sum *sum, char *err,
                       size_t errlen);

/* Run up to n batches (n >= 1) of plan p, storing each batch's latency in
 * samples[0..]. Stops at the first failing batch (its time is not stored;
 * its message is in err). */
void pgcb_measure_block(const struct pgcb_plan *p, size_t n, uint64_t *samples,
                        struct pgcb_block *out, char *err, size_t errlen);

#endif
