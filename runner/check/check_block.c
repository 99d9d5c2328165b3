/*
 * check_block.c -- the driver conformance suite (check.h): the task block,
 * for a driver that times its own blocks (PGCB_CAP_SELF_TIMED, ABI 1.2:
 * the bridge) or has phase():
 *   phase                 phase(WARMUP) and phase(ORDER) succeed
 *   block NAME depth N    for depths 1 and 10: a block of CHK_BLOCK batches
 *                         completes, every sum equals run_batch's for the same
 *                         batch (the rows only with check = rows), every
 *                         sample is > 0 and together they fit in the call
 *   block_error           a block whose statement fails at execution: the
 *                         server's error (PGCB_ERR_QUERY, 22012), no batch
 *                         done, and the connection still runs a block
 *   block_error_mid       (with run_batch_params) batch 3 of a block fails:
 *                         done = 2, their samples kept
 * For the bridge these are the rules of docs/bridge-protocol.md an adapter
 * can break: they check the adapter through the bridge.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"
#include "util.h"

#define CHK_BLOCK 5
#define CHK_FAIL_SQL "SELECT 1 / (g - 1) FROM generate_series(1, 1) AS g"
#define CHK_FAIL_PARAM_SQL "SELECT 1 / $1::int AS x"
#define CHK_DIV0 "22012"

static const uint32_t block_depths[] = {1, 10};
#define CHK_NBLOCK_DEPTHS (sizeof block_depths / sizeof block_depths[0])

/* One block of n batches of st at depth (params: NULL or the block's);
 * the caller's buffers. Returns the status; *wall_ns the call's time. */
static int run_one(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                   struct pgcb_stmt *st, uint32_t depth, uint32_t n,
                   const struct pgcb_params *params, uint64_t *samples, struct pgcb_sum *sums,
                   struct pgcb_block_out *out, uint64_t *wall_ns, char *err)
{
    memset(samples, 0, n * sizeof *samples);
    memset(sums, 0, n * sizeof *sums);
    *out = (struct pgcb_block_out){.samples = samples, .sums = sums};
    struct pgcb_block b = {st, NULL, NULL, depth, n, params};
    pgcb_chk_phase(c, "run_block");
    uint64_t t0 = pgcb_now_ns();
    int rc = d->run_block(conn, &b, out, pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    *wall_ns = pgcb_now_ns() - t0;
    return rc;
}

/* What is wrong with the samples of a block (NULL: nothing). */
static const char *samples_problem(const uint64_t *samples, uint32_t done, uint64_t wall_ns,
                                   char *why, size_t n)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < done; i++) {
        if (samples[i] == 0) {
            snprintf(why, n, "sample %u is 0 ns", i + 1);
            return why;
        }
        total += samples[i];
    }
    if (total > wall_ns) {
        snprintf(why, n, "the samples add up to %llu ns, more than the %llu ns run_block took",
                 (unsigned long long)total, (unsigned long long)wall_ns);
        return why;
    }
    return NULL;
}

static void check_phase(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                        size_t i)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300];
    pgcb_chk_begin(c, i);
    if (!c->has_phase) {
        pgcb_chk_result(c, i, 1, "phase is not set (optional)");
        return;
    }
    static const enum pgcb_phase phases[] = {PGCB_PHASE_WARMUP, PGCB_PHASE_ORDER};
    for (size_t k = 0; k < 2; k++) {
        pgcb_chk_phase(c, "phase");
        int rc = d->phase(conn, phases[k], pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
        if (rc != PGCB_OK) {
            pgcb_chk_result(c, i, 0, "phase(%s) returned %s: %s", k ? "ORDER" : "WARMUP",
                            pgcb_chk_status_name(rc, rcb, sizeof rcb),
                            pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
            return;
        }
    }
    pgcb_chk_result(c, i, 1, "phase(WARMUP) and phase(ORDER) returned PGCB_OK");
}

/* Blocks of query qi at each depth against run_batch's sums. */
static void check_blocks(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                         struct pgcb_stmt *st, size_t qi, size_t first)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], why[200];
    const struct chk_query *q = &c->q[qi];
    uint64_t samples[CHK_BLOCK];
    struct pgcb_sum sums[CHK_BLOCK];
    for (size_t di = 0; di < CHK_NBLOCK_DEPTHS; di++) {
        size_t i = first + di;
        uint32_t depth = block_depths[di];
        pgcb_chk_begin(c, i);
        if (!st) {
            pgcb_chk_result(c, i, 0, "not run: prepare of %s failed", q->name);
            continue;
        }
        struct pgcb_sum one = {0, 0};
        pgcb_chk_phase(c, "run_batch");
        int rc = d->run_batch(conn, st, depth, &one, pgcb_chk_err_reset(err, PGCB_ERRLEN),
                              PGCB_ERRLEN);
        if (rc != PGCB_OK) {
            pgcb_chk_result(c, i, 0, "run_batch (the batch to compare with) returned %s: %s",
                            pgcb_chk_status_name(rc, rcb, sizeof rcb),
                            pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
            continue;
        }
        struct pgcb_block_out out;
        uint64_t wall;
        rc = run_one(c, d, conn, st, depth, CHK_BLOCK, NULL, samples, sums, &out, &wall, err);
        if (rc != PGCB_OK) {
            pgcb_chk_result(c, i, 0, "run_block returned %s: %s",
                            pgcb_chk_status_name(rc, rcb, sizeof rcb),
                            pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
            continue;
        }
        if (out.done != CHK_BLOCK) {
            pgcb_chk_result(c, i, 0, "PGCB_OK, but done = %u of %d batches", out.done, CHK_BLOCK);
            continue;
        }
        const char *bad = samples_problem(samples, out.done, wall, why, sizeof why);
        uint32_t k = 0;
        while (!bad && k < CHK_BLOCK && sums[k].rows == one.rows &&
               (q->rows_only || sums[k].hash == one.hash))
            k++;
        if (bad)
            pgcb_chk_result(c, i, 0, "%s", bad);
        else if (k < CHK_BLOCK && sums[k].rows != one.rows)
            pgcb_chk_result(c, i, 0, "batch %u of the block: %llu rows, run_batch returned %llu",
                            k + 1, (unsigned long long)sums[k].rows,
                            (unsigned long long)one.rows);
        else if (k < CHK_BLOCK)
            pgcb_chk_result(c, i, 0, "batch %u of the block: checksum 0x%016llx, run_batch's is "
                            "0x%016llx: the timed batches do not consume the rows as the "
                            "checked batch did", k + 1, (unsigned long long)sums[k].hash,
                            (unsigned long long)one.hash);
        else
            pgcb_chk_result(c, i, 1, "%d batches of %llu rows%s, %.1f us of samples in %.1f us, "
                            "CPU %llu ns (+%llu ns outside)", CHK_BLOCK,
                            (unsigned long long)one.rows,
                            q->rows_only ? "" : ", each run_batch's checksum",
                            (double)(samples[0] + samples[1] + samples[2] + samples[3] +
                                     samples[4]) / 1e3, (double)wall / 1e3,
                            (unsigned long long)out.cpu_ns,
                            (unsigned long long)out.outside_cpu_ns);
    }
}

/* A block whose statement fails: the error, done, and a block after it. */
static void check_block_error(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                              struct pgcb_stmt *good, size_t i)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], why[200];
    uint64_t samples[CHK_BLOCK];
    struct pgcb_sum sums[CHK_BLOCK];
    struct pgcb_block_out out;
    uint64_t wall;
    pgcb_chk_begin(c, i);
    struct pgcb_stmt *bad = NULL;
    pgcb_chk_phase(c, "prepare");
    int rc = d->prepare(conn, "pgcb_check_div0", CHK_FAIL_SQL, &bad,
                        pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc == PGCB_OK)
        rc = run_one(c, d, conn, bad, 1, 3, NULL, samples, sums, &out, &wall, err);
    else
        out.done = 0;
    if (rc != PGCB_ERR_QUERY) {
        pgcb_chk_result(c, i, 0, "%s returned %s, expected PGCB_ERR_QUERY (%s): %s",
                        bad ? "run_block of " CHK_FAIL_SQL : "prepare of " CHK_FAIL_SQL,
                        pgcb_chk_status_name(rc, rcb, sizeof rcb), CHK_DIV0,
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        return;
    }
    if (pgcb_chk_msg_problem(err, PGCB_ERRLEN, why, sizeof why)) {
        pgcb_chk_result(c, i, 0, "PGCB_ERR_QUERY, but %s", why);
        return;
    }
    if (strncmp(err, CHK_DIV0, 5) != 0) {
        pgcb_chk_result(c, i, 0, "the message does not start with the SQLSTATE %s: %s", CHK_DIV0,
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        return;
    }
    if (out.done != 0) {
        pgcb_chk_result(c, i, 0, "PGCB_ERR_QUERY, but done = %u (the first batch failed)",
                        out.done);
        return;
    }
    pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN);
    if (!good) {
        pgcb_chk_result(c, i, 1, "PGCB_ERR_QUERY %s, done 0; no good statement to run after it",
                        qm);
        return;
    }
    rc = run_one(c, d, conn, good, 1, 2, NULL, samples, sums, &out, &wall, err);
    if (rc != PGCB_OK || out.done != 2)
        pgcb_chk_result(c, i, 0, "after the error, a block of a good statement returned %s "
                        "(done %u of 2): %s", pgcb_chk_status_name(rc, rcb, sizeof rcb), out.done,
                        rc == PGCB_OK ? "" : pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else
        pgcb_chk_result(c, i, 1, "PGCB_ERR_QUERY %s, done 0; then a block of 2 batches ran", qm);
}

/* Batch 3 of a block fails: done = 2, with their samples. */
static void check_block_error_mid(struct chk *c, const struct pgcb_driver *d,
                                  struct pgcb_conn *conn, size_t i)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], why[200];
    uint64_t samples[3];
    struct pgcb_sum sums[3];
    struct pgcb_block_out out;
    uint64_t wall;
    pgcb_chk_begin(c, i);
    struct pgcb_stmt *st = NULL;
    pgcb_chk_phase(c, "prepare");
    int rc = d->prepare(conn, "pgcb_check_div_param", CHK_FAIL_PARAM_SQL, &st,
                        pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc != PGCB_OK) {
        pgcb_chk_result(c, i, 0, "prepare of %s returned %s: %s", CHK_FAIL_PARAM_SQL,
                        pgcb_chk_status_name(rc, rcb, sizeof rcb),
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        return;
    }
    const char *values[3] = {"1", "1", "0"};
    const int lengths[3] = {1, 1, 1};
    struct pgcb_params p = {1, values, lengths};
    rc = run_one(c, d, conn, st, 1, 3, &p, samples, sums, &out, &wall, err);
    const char *bad = rc == PGCB_ERR_QUERY ? samples_problem(samples, out.done < 3 ? out.done : 3,
                                                             wall, why, sizeof why)
                                           : NULL;
    if (rc != PGCB_ERR_QUERY)
        pgcb_chk_result(c, i, 0, "a block binding 1, 1, 0 to %s returned %s, expected "
                        "PGCB_ERR_QUERY (%s) at batch 3: %s", CHK_FAIL_PARAM_SQL,
                        pgcb_chk_status_name(rc, rcb, sizeof rcb), CHK_DIV0,
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else if (out.done != 2)
        pgcb_chk_result(c, i, 0, "PGCB_ERR_QUERY, but done = %u: batches 1 and 2 completed",
                        out.done);
    else if (bad)
        pgcb_chk_result(c, i, 0, "the 2 batches done: %s", bad);
    else if (sums[0].rows != 1 || sums[1].rows != 1)
        pgcb_chk_result(c, i, 0, "the 2 batches done returned %llu and %llu rows, not 1",
                        (unsigned long long)sums[0].rows, (unsigned long long)sums[1].rows);
    else
        pgcb_chk_result(c, i, 1, "PGCB_ERR_QUERY at batch 3, done 2, samples %llu and %llu ns",
                        (unsigned long long)samples[0], (unsigned long long)samples[1]);
}

void pgcb_chk_task_block(struct chk *c)
{
    char name[CHK_NAME];
    size_t i_phase = pgcb_chk_plan(c, "phase");
    size_t first = 0, i_err = 0, i_mid = 0;
    int io = !(c->caps & PGCB_CAP_NO_IO);
    if (c->has_block) {
        for (size_t qi = 0; qi < c->nq; qi++)
            for (size_t di = 0; di < CHK_NBLOCK_DEPTHS; di++) {
                snprintf(name, sizeof name, "block %s depth %u", c->q[qi].name, block_depths[di]);
                size_t k = pgcb_chk_plan(c, name);
                if (qi == 0 && di == 0)
                    first = k;
            }
        i_err = pgcb_chk_plan(c, "block_error");
        if (c->has_params)
            i_mid = pgcb_chk_plan(c, "block_error_mid");
    }
    const struct pgcb_driver *d;
    struct pgcb_conn *conn = pgcb_chk_setup(c, &d);
    if (!conn)
        return;
    struct pgcb_stmt **stmts = pgcb_xcalloc(c->nq, sizeof *stmts);
    int *ok = pgcb_xcalloc(c->nq, sizeof *ok);
    check_phase(c, d, conn, i_phase);
    if (c->has_block) {
        pgcb_chk_prepare_all(c, d, conn, stmts, ok);
        struct pgcb_stmt *good = NULL;
        for (size_t qi = 0; qi < c->nq; qi++) {
            check_blocks(c, d, conn, ok[qi] ? stmts[qi] : NULL, qi,
                         first + qi * CHK_NBLOCK_DEPTHS);
            if (ok[qi] && !good)
                good = stmts[qi];
        }
        if (!io) {
            pgcb_chk_begin(c, i_err);
            pgcb_chk_result(c, i_err, 1, "not applicable: a no-I/O driver has no server to "
                            "refuse a statement");
            if (c->has_params) {
                pgcb_chk_begin(c, i_mid);
                pgcb_chk_result(c, i_mid, 1, "not applicable: a no-I/O driver");
            }
        } else {
            check_block_error(c, d, conn, good, i_err);
            if (c->has_params)
                check_block_error_mid(c, d, conn, i_mid);
        }
    }
    pgcb_chk_phase(c, "close (setup)");
    d->close(conn);
    free(stmts);
    free(ok);
}
