/*
 * check_load.c -- the driver conformance suite (check.h): the task pool,
 * the checks of pool_open and run_load (ABI 1.5) on the first query that ran
 * at depth 1: a pool
 * of 3 whose run_batch folds what a connection's does; a closed load of 6
 * in flight and 300 queries, each completed, timed (> 0 ns) and folded as
 * run_batch at depth 1 folds it, in at least its own wall time; an open
 * loop at 1000/s for 200 ms, about 200 queries and not late.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"
#include "util.h"

#define CHK_L_POOL 3
#define CHK_L_CAP 4096

void pgcb_chk_task_load_pool(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300];
    size_t i_open = pgcb_chk_plan(c, "pool_open"), i_closed = pgcb_chk_plan(c, "load_closed"),
           i_rate = pgcb_chk_plan(c, "load_rate");
    const struct pgcb_driver *d = pgcb_chk_load_checked(c);
    if (!d)
        return;
    pgcb_chk_begin(c, i_open);
    pgcb_chk_phase(c, "pool_open");
    struct pgcb_conn *pool = NULL;
    int rc = d->pool_open(c->conninfo, c->opts, c->nopts, CHK_L_POOL, &pool,
                          pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc != PGCB_OK || !pool) {
        pgcb_chk_fail_rest(c, "pool_open of %d returned %s: %s", CHK_L_POOL,
                           pgcb_chk_status_name(rc, rcb, sizeof rcb),
                           pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        return;
    }
    /* The first query the driver ran at depth 1 (a query that did not
     * prepare fails its own checks, not these). */
    size_t qi = 0;
    while (qi < c->nq && !c->sum[qi][0].have)
        qi++;
    if (qi == c->nq) {
        pgcb_chk_fail_rest(c, "no query ran at depth 1 on a connection");
        goto out;
    }
    const struct chk_query *q = &c->q[qi];
    struct pgcb_stmt *st = NULL;
    struct pgcb_sum one = {0, 0};
    char sname[96];
    snprintf(sname, sizeof sname, "pgcb_%s", q->name);
    pgcb_chk_phase(c, "prepare (pool)");
    rc = d->prepare(pool, sname, q->sql, &st, pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc == PGCB_OK) {
        pgcb_chk_phase(c, "run_batch (pool)");
        rc = d->run_batch(pool, st, 1, &one, pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    }
    const struct chk_sum *want = &c->sum[qi][0]; /* the driver's own at depth 1 */
    if (rc != PGCB_OK) {
        pgcb_chk_fail_rest(c, "prepare and run_batch of %s on the pool returned %s: %s",
                           q->name, pgcb_chk_status_name(rc, rcb, sizeof rcb),
                           pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        goto out;
    }
    if (want->have && (one.rows != want->rows || one.hash != want->hash))
        pgcb_chk_result(c, i_open, 0, "run_batch on the pool folded %llu rows, %016llx; a "
                        "connection's: %llu rows, %016llx", (unsigned long long)one.rows,
                        (unsigned long long)one.hash, (unsigned long long)want->rows,
                        (unsigned long long)want->hash);
    else
        pgcb_chk_result(c, i_open, 1, "a pool of %d; %s prepared on it, run_batch folds as a "
                        "connection's", CHK_L_POOL, q->name);

    uint64_t *lat = calloc(CHK_L_CAP, sizeof *lat);
    struct pgcb_sum *sums = calloc(CHK_L_CAP, sizeof *sums);
    if (!lat || !sums) {
        pgcb_chk_fail_rest(c, "out of memory");
        free(lat);
        free(sums);
        goto out;
    }
    pgcb_chk_begin(c, i_closed);
    struct pgcb_load ld = {.stmt = st, .mode = PGCB_LOAD_CLOSED, .concurrency = 6,
                           .min_queries = 300, .max_queries = 300};
    struct pgcb_load_out lo = {.latency_ns = lat, .sums = sums};
    uint64_t t0 = pgcb_now_ns();
    pgcb_chk_phase(c, "run_load (closed)");
    rc = d->run_load(pool, &ld, &lo, pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    uint64_t took = pgcb_now_ns() - t0;
    uint32_t bad_lat = 0, bad_sum = 0;
    for (uint32_t i = 0; i < lo.done && i < CHK_L_CAP; i++) {
        bad_lat += lat[i] == 0 || lat[i] > took;
        bad_sum += sums[i].rows != one.rows || sums[i].hash != one.hash;
    }
    if (rc != PGCB_OK)
        pgcb_chk_result(c, i_closed, 0, "returned %s after %u queries: %s",
                        pgcb_chk_status_name(rc, rcb, sizeof rcb), lo.done,
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else if (lo.done != 300)
        pgcb_chk_result(c, i_closed, 0, "%u queries completed; 300 were asked for", lo.done);
    else if (bad_lat || bad_sum)
        pgcb_chk_result(c, i_closed, 0, "%u latencies 0 or longer than the call, %u folds "
                        "unlike run_batch's at depth 1", bad_lat, bad_sum);
    else if (lo.wall_ns == 0 || lo.wall_ns > took)
        pgcb_chk_result(c, i_closed, 0, "wall_ns %llu outside the call's %llu ns",
                        (unsigned long long)lo.wall_ns, (unsigned long long)took);
    else
        pgcb_chk_result(c, i_closed, 1, "300 queries, 6 in flight: %.0f queries/s, each timed "
                        "and folded as run_batch's", 300 * 1e9 / (double)lo.wall_ns);

    pgcb_chk_begin(c, i_rate);
    ld = (struct pgcb_load){.stmt = st, .mode = PGCB_LOAD_RATE, .concurrency = 6, .rate = 1000,
                            .duration_ns = 200000000ull, .max_queries = CHK_L_CAP};
    lo = (struct pgcb_load_out){.latency_ns = lat, .sums = sums};
    pgcb_chk_phase(c, "run_load (rate)");
    rc = d->run_load(pool, &ld, &lo, pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc != PGCB_OK)
        pgcb_chk_result(c, i_rate, 0, "returned %s after %u queries: %s",
                        pgcb_chk_status_name(rc, rcb, sizeof rcb), lo.done,
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else if (lo.done < 190 || lo.done > 210)
        pgcb_chk_result(c, i_rate, 0, "%u queries at 1000/s for 200 ms (about 200 due)",
                        lo.done);
    else
        pgcb_chk_result(c, i_rate, 1, "%u queries at 1000/s for 200 ms, the last issued %.1f ms "
                        "late", lo.done, (double)lo.late_ns / 1e6);
    free(lat);
    free(sums);
out:
    pgcb_chk_phase(c, "close (pool)");
    d->close(pool);
}
