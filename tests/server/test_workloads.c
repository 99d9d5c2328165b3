/*
 * test_workloads.c -- issue 8 end to end, against the real PostgreSQL that
 * tests/run.sh started: write steps change the table exactly as configured
 * (sequences shared across drivers, transactions, fixed operation counts),
 * parameterized reads agree across drivers, an ABI 1.0 driver is skipped for
 * parameterized queries only, and rate-limited background load achieves its
 * rate -- or is reported as an SLA failure when it cannot.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libpq-fe.h>

#include "../lib/e2e.h"
#include "result.h"

/* A [bench] for write steps: one order, no time floor beyond the tiny one. */
static const char *write_head(void)
{
    static char head[800];
    snprintf(head, sizeof head,
             "[bench]\ntime_ms = 200\nqueries = 20\nwarmup_ms = 20\norders = 1\n"
             "[server]\nsetup = %s/tests/server/workloads.sql\n", e2e_top);
    return head;
}

/* One value from the test's own connection (PG* environment). */
static long long sql_value(const char *sql)
{
    PGconn *c = PQconnectdb("");
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    assert_int_equal(PQntuples(r), 1);
    long long v = PQgetisnull(r, 0, 0) ? -1 : strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    PQfinish(c);
    return v;
}

/* Run ini to out; the run must succeed; its result is read into *res. */
static void run_ok(const char *ini, const char *out, struct pgcb_result *res)
{
    struct e2e_run r = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    e2e_run_free(&r);
    char err[512];
    if (pgcb_result_read(out, res, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static char drivers[2000];

/* Inserts in key order with three drivers, 10 rows per transaction, exactly
 * 300 rows each; then an UPDATE and a DELETE step with one driver. */
static void test_write_steps(void **state)
{
    (void)state;
    char body[6000];
    snprintf(body, sizeof body,
             "%s"
             "[query.ins]\nsql = INSERT INTO wl_t (id, k, v) VALUES ($1, $2, $3)\n"
             "param1 = seq 1\nparam2 = uniform 10 19\nparam3 = list aa bbb\nrows = 0\n"
             "[suite.load]\nqueries = ins\nrows_per_txn = 10\nops = 300\n",
             drivers);
    const char *out = e2e_json_path("write");
    struct pgcb_result res;
    run_ok(e2e_write_file("write", write_head(), body), out, &res);
    /* 3 drivers x 300 rows, keys 1..900 without a gap or a collision. */
    assert_int_equal(sql_value("SELECT count(*) FROM wl_t"), 900);
    assert_int_equal(sql_value("SELECT count(DISTINCT id) FROM wl_t"), 900);
    assert_int_equal(sql_value("SELECT min(id) FROM wl_t"), 1);
    assert_int_equal(sql_value("SELECT max(id) FROM wl_t"), 900);
    assert_int_equal(sql_value("SELECT count(*) FROM wl_t WHERE k < 10 OR k > 19"), 0);
    assert_int_equal(sql_value("SELECT count(*) FROM wl_t WHERE v NOT IN ('aa', 'bbb')"), 0);
    /* Both words and several keys were drawn. */
    assert_true(sql_value("SELECT count(DISTINCT v) FROM wl_t") == 2);
    assert_true(sql_value("SELECT count(DISTINCT k) FROM wl_t") >= 8);
    assert_int_equal(res.ngroups, 1);
    const struct pgcb_res_group *g = &res.groups[0];
    assert_int_equal(g->transaction, 1);
    assert_int_equal(g->ops, 300);
    assert_int_equal(g->depth, 10);
    assert_int_equal(g->nparams, 3);
    for (size_t d = 0; d < res.ndrivers; d++) {
        assert_int_equal(g->cells[d].status, PGCB_CELL_OK);
        assert_int_equal(g->cells[d].queries, 300); /* exactly ops, no warm-up */
        assert_int_equal(g->cells[d].samples, 30);  /* one per transaction */
    }
    pgcb_result_free(&res);

    /* UPDATE the first 100 keys, then DELETE keys 801..850. */
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[query.upd]\nsql = UPDATE wl_t SET k = k + 1000 WHERE id = $1\nparam1 = seq 1\n"
             "[query.del]\nsql = DELETE FROM wl_t WHERE id = $1\nparam1 = seq 801\n"
             "[suite.upd]\nqueries = upd\nops = 100\n"
             "[suite.del]\nqueries = del\ndepth = 5\nops = 50\n",
             e2e_build);
    const char *head = "[bench]\ntime_ms = 100\nqueries = 10\norders = 1\n";
    run_ok(e2e_write_file("write2", head, body), e2e_json_path("write2"), &res);
    assert_int_equal(sql_value("SELECT count(*) FROM wl_t WHERE k >= 1000"), 100);
    assert_int_equal(sql_value("SELECT max(id) FROM wl_t WHERE k >= 1000"), 100);
    assert_int_equal(sql_value("SELECT count(*) FROM wl_t"), 850);
    assert_int_equal(sql_value("SELECT count(*) FROM wl_t WHERE id BETWEEN 801 AND 850"), 0);
    assert_int_equal(res.groups[1].cells[0].samples, 10);
    pgcb_result_free(&res);
}

/* Point reads with random keys: every driver's first batch binds the same
 * keys, so their checksums agree; a driver of ABI 1.0 is skipped for the
 * parameterized query only, and the run still succeeds. */
static void test_params_and_old_abi(void **state)
{
    (void)state;
    char body[6000];
    snprintf(body, sizeof body,
             "%s[driver.abi10]\npath = %s/tests/fixtures/abi10.so\n"
             "[query.point]\nsql = SELECT id, int_value, string_value, null_value, bool_value "
             "FROM benchmark_rows WHERE id = $1\nparam1 = uniform 1 500\nrows = 1\n"
             "[query.limit_1]\nsql = SELECT id, int_value, string_value, null_value, "
             "bool_value FROM benchmark_rows ORDER BY id LIMIT 1\nrows = 1\n"
             "[suite.s]\ndepth = 1 4\n",
             drivers, e2e_build);
    const char *out = e2e_json_path("params");
    const char *ini = e2e_write_ini("params", body);
    struct e2e_run r = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "skipped: query point has parameters and driver abi10 has ABI "
                                  "1.0, without run_batch_params (ABI 1.1)"));
    e2e_run_free(&r);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ndrivers, 4);
    assert_int_equal(res.ngroups, 4);
    for (size_t gi = 0; gi < res.ngroups; gi++) {
        const struct pgcb_res_group *g = &res.groups[gi];
        int point = strcmp(g->query, "point") == 0;
        assert_int_equal(g->nparams, point ? 1 : 0);
        for (size_t d = 0; d < 3; d++) {
            assert_int_equal(g->cells[d].status, PGCB_CELL_OK);
            assert_int_equal(g->cells[d].rows_per_batch, g->depth);
            assert_true(g->cells[d].checksum != 0);
            assert_true(g->cells[d].checksum == g->cells[0].checksum);
        }
        assert_int_equal(g->cells[3].status, point ? PGCB_CELL_SKIPPED : PGCB_CELL_OK);
        if (point)
            assert_int_equal(g->cells[3].samples, 0);
    }
    /* Different depths, different first keys: the checksums differ. */
    assert_true(res.groups[0].cells[0].checksum != res.groups[1].cells[0].checksum);
    pgcb_result_free(&res);
}

/* Random keys of which half are missing, and rows = 1: the row check
 * catches the misses, counted over every checked batch (each thread's first
 * batch included, in both numbers). */
static void test_rows_checked(void **state)
{
    (void)state;
    char body[2000];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[query.point]\nsql = SELECT id FROM benchmark_rows WHERE id = $1\n"
             "param1 = uniform 1 1000\nrows = 1\n"
             "[suite.s]\n",
             e2e_build);
    const char *out = e2e_json_path("rows");
    struct e2e_run r = e2e_run_runner(e2e_write_ini("rows", body), out, NULL, NULL, 0, NULL);
    assert_int_equal(r.status, 2); /* an invalid result */
    e2e_run_free(&r);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    const struct pgcb_res_cell *c = &res.groups[0].cells[0];
    assert_int_equal(c->status, PGCB_CELL_INVALID);
    unsigned long long bad, all, rows;
    assert_int_equal(sscanf(c->error, "%llu of %llu batches did not return %llu rows", &bad, &all,
                            &rows), 3);
    assert_int_equal(rows, 1);
    assert_true(all == c->samples + 1); /* the measured batches and the first one */
    /* Half the keys are missing: between a quarter and three quarters. */
    assert_true(bad > all / 4 && bad < 3 * all / 4);
    pgcb_result_free(&res);
}

/* The background connection inserts 200 rows/s while a group runs for about
 * 2 s: about 400 executions, every one a row in the table. */
static void test_background_rate(void **state)
{
    (void)state;
    char body[4000];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.w]\npath = %s/drivers/libpq_sync.so\nmeasure = no\n"
             "[query.sel]\nsql = SELECT 1\n"
             "[query.bgins]\nsql = INSERT INTO wl_t (id, k, v) VALUES ($1, 0, 'bg')\n"
             "param1 = seq 1000001\n"
             "[background.bgw]\ndriver = w\nquery = bgins\nrate = 200\nsla = 0.5\n"
             "[suite.s]\nqueries = sel\nbackground = bgw\n",
             e2e_build, e2e_build);
    char head[600];
    snprintf(head, sizeof head, "[bench]\ntime_ms = 2000\nqueries = 1\nwarmup_ms = 0\n"
             "orders = 1\n[server]\nsetup = %s/tests/server/workloads.sql\n", e2e_top);
    struct pgcb_result res;
    run_ok(e2e_write_file("bg", head, body), e2e_json_path("bg"), &res);
    const struct pgcb_res_group *g = &res.groups[0];
    assert_int_equal(g->nbackgrounds, 1);
    const struct pgcb_res_background *b = &g->backgrounds[0];
    fprintf(stderr, "background: %llu executions in %.3f s, %.2f/s, latency median %.0f ns "
            "p99 %.0f ns\n", (unsigned long long)b->executions, b->elapsed_s, b->achieved_rate,
            b->median_ns, b->p99_ns);
    assert_null(b->error);
    /* The load runs from before the group's first batch to after its last:
     * at least the 2 s measured (longer on a busy machine: no upper bound). */
    assert_true(b->elapsed_s > 1.95);
    /* 200/s: never faster than the rate (one more for the first, due at
     * the start), and at least the SLA's share of it, which this test sets
     * to a half so that a deschedule of the shared machine is no failure. */
    assert_true((double)b->executions <= 200.0 * b->elapsed_s + 1);
    assert_true(b->achieved_rate >= 100.0 && b->achieved_rate <= 200.0 + 1 / b->elapsed_s);
    assert_true(b->target_rate == 200.0);
    assert_int_equal(b->sla_met, 1);
    assert_int_equal(g->sla_failed, 0);
    assert_true(b->median_ns > 0 && b->p99_ns >= b->median_ns);
    assert_int_equal(sql_value("SELECT count(*) FROM wl_t WHERE id > 1000000"),
                     (long long)b->executions);
    pgcb_result_free(&res);
}

/* A rate no connection can reach: the group is marked, the run is not an
 * error, and the console says so. */
static void test_sla_failure(void **state)
{
    (void)state;
    char body[4000];
    snprintf(body, sizeof body,
             "[driver.null]\npath = %s/drivers/null.so\n"
             "[driver.w]\npath = %s/drivers/libpq_sync.so\nmeasure = no\n"
             "[query.sel]\nsql = SELECT 1\n"
             "[query.slow]\nsql = SELECT pg_sleep(0.01)\n"
             "[background.hot]\ndriver = w\nquery = slow\nrate = 1000\nconnections = 2\n"
             "[suite.s]\nqueries = sel\nbackground = hot\n",
             e2e_build, e2e_build);
    const char *head = "[bench]\ntime_ms = 500\nqueries = 1\nwarmup_ms = 0\norders = 1\n";
    const char *ini = e2e_write_file("sla", head, body);
    const char *out = e2e_json_path("sla");
    struct e2e_run r = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "SLA FAILED"));
    e2e_run_free(&r);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    const struct pgcb_res_background *b = &res.groups[0].backgrounds[0];
    assert_true(b->target_rate == 2000.0);
    /* 10 ms a statement: at most about 100/s per connection. */
    assert_true(b->achieved_rate > 50 && b->achieved_rate < 250);
    assert_int_equal(b->sla_met, 0);
    assert_int_equal(res.groups[0].sla_failed, 1);
    /* Latency counts from the schedule: the backlog shows, growing to
     * about the whole run. */
    assert_true(b->max_ns > 0.2e9);
    pgcb_result_free(&res);
}

int main(void)
{
    if (e2e_setup("test_workloads") != 0)
        return 1;
    snprintf(drivers, sizeof drivers,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.libpq_pipeline]\npath = %s/drivers/libpq_pipeline.so\n"
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n",
             e2e_build, e2e_build, e2e_build);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_steps),
        cmocka_unit_test(test_params_and_old_abi),
        cmocka_unit_test(test_rows_checked),
        cmocka_unit_test(test_background_rate),
        cmocka_unit_test(test_sla_failure),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (e2e_teardown() != 0)
        rc = 1;
    return rc;
}
