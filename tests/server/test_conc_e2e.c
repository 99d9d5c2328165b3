/*
 * test_conc_e2e.c -- concurrency suites (issue 27) end to end: the runner,
 * the C drivers' pools and the result file, against the real server
 * tests/run.sh started.
 *
 *   closed loops   libpq_pipeline, rawwire and null keep 4 queries in flight
 *                  over a pool of 2 per instance, with threads = 2: each
 *                  cell's throughput is its time per query's inverse and the
 *                  order figures are finite; the server's backends of the
 *                  pools (2 threads x 2) are found, so the backend figures are
 *                  known; every I/O driver says its bottleneck; libpq_sync,
 *                  without pool_open, is skipped with the line that says why;
 *                  the table and the verdict are on throughput
 *   open loop      mode = rate at 1500/s: about 1500 queries/s per instance,
 *                  issued on time
 *   a dying pool   pg_terminate_backend on one backend of rawwire's pool in
 *                  the middle of its order: its cell fails with the server's
 *                  message, the other driver's cell and the next group are
 *                  measured, the run ends with status 2 and its result
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libpq-fe.h>

#include "result.h"
#include "../lib/e2e.h"

#define SQL_LIMIT(n)                                                                        \
    "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY " \
    "id LIMIT " #n

static const char *const no_budget_env[] = {"BENCH_TIME_MS", "BENCH_QUERIES", NULL};

static const char *head(const char *bench)
{
    static char h[1024];
    snprintf(h, sizeof h, "[bench]\n%s\n[server]\nsetup = %s/sql/benchmark_rows.sql\n", bench,
             e2e_top);
    return h;
}

static void run_ok(const char *name, const char *bench, const char *body, int want,
                   struct pgcb_result *res, char **out)
{
    const char *ini = e2e_write_file(name, head(bench), body);
    const char *path = e2e_json_path(name);
    struct e2e_run r = e2e_run_runner(ini, path, no_budget_env, NULL, 0, NULL);
    if (r.status != want)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r.status, r.out, r.err);
    assert_int_equal(r.status, want);
    char err[512];
    assert_int_equal(pgcb_result_read(path, res, err, sizeof err), 0);
    *out = r.out;
    r.out = NULL;
    e2e_run_free(&r);
}

static size_t driver_index(const struct pgcb_result *res, const char *label)
{
    for (size_t d = 0; d < res->ndrivers; d++)
        if (strcmp(res->drivers[d].label, label) == 0)
            return d;
    fail_msg("no driver %s in the result", label);
    return 0;
}

static void test_closed(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.libpq_pipeline]\npath = %s/drivers/libpq_pipeline.so\n"
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n"
             "[driver.null]\npath = %s/drivers/null.so\n"
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[suite.c4]\nconcurrency = 4\npool = 2\nthreads = 2\n",
             e2e_build, e2e_build, e2e_build, e2e_build);
    struct pgcb_result res;
    char *out;
    run_ok("closed", "time_ms = 1200\nqueries = 500\nwarmup_ms = 100\ncpus = 0", body, 0, &res,
           &out);
    assert_non_null(strstr(out, "(4 closed loops over a pool of 2, 1 row, 2 threads on CPUs"));
    assert_non_null(strstr(out, "│ Queries/s │"));
    assert_non_null(strstr(out, "Bottleneck"));
    assert_non_null(strstr(out, "queries/s"));
    const struct pgcb_res_group *gr = &res.groups[0];
    assert_int_equal(gr->concurrency, 4);
    assert_int_equal(gr->pool, 2);
    assert_int_equal(gr->load_mode, PGCB_LOAD_CLOSED);
    const struct pgcb_res_cell *sync = &gr->cells[driver_index(&res, "libpq_sync")];
    assert_int_equal(sync->status, PGCB_CELL_SKIPPED);
    assert_non_null(strstr(sync->error, "has no pool_open and run_load (ABI 1.5)"));
    assert_non_null(strstr(sync->error, "its idiom is one connection per thread"));
    const char *const io[] = {"libpq_pipeline", "rawwire", "null"};
    for (int i = 0; i < 3; i++) {
        const struct pgcb_res_cell *c = &gr->cells[driver_index(&res, io[i])];
        print_message("%s: %s %.0f queries/s, p50 %.0f ns, client busy %.2f, server busy %.2f, "
                      "backend CPU %.0f ns/query, bottleneck %s\n", io[i],
                      pgcb_cell_status_str(c->status), c->queries_per_s, c->pct_ns[0],
                      c->client_busy, c->server_busy, c->backend.cpu_ns_per_query,
                      pgcb_bottleneck_name(c->bottleneck));
        assert_int_equal(c->status, PGCB_CELL_OK);
        assert_true(c->queries >= 500);
        assert_true(c->queries_per_s > 0);
        assert_true(fabs(c->time_per_query_ns * c->queries_per_s - 1e9) < 1e3);
        assert_true(c->client_busy > 0 && c->client_busy < 1.2);
        for (size_t o = 0; o < c->norders; o++)
            assert_true(isfinite(c->order_medians_ns[o]) && c->order_medians_ns[o] > 0);
        assert_true(isfinite(c->pct_ns[0]) && c->pct_ns[0] > 0);
        if (i < 2) { /* the 4 backends of the two pools were found and read */
            assert_true(pgcb_res_backend_known(&c->backend));
            assert_true(c->backend.cpu_ns_per_query > 0);
            assert_int_not_equal(c->bottleneck, PGCB_BOTTLENECK_UNKNOWN);
        }
    }
    free(out);
    pgcb_result_free(&res);
}

static void test_rate(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n"
             "[driver.libpq_pipeline]\npath = %s/drivers/libpq_pipeline.so\n"
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[suite.r]\nconcurrency = 8\nmode = rate\nrate = 1500/s\n",
             e2e_build, e2e_build);
    struct pgcb_result res;
    char *out;
    run_ok("rate", "time_ms = 1600\nqueries = 100\nwarmup_ms = 100", body, 0, &res, &out);
    assert_non_null(strstr(out, "8 in flight at most over a pool of 8, an open loop at 1500/s"));
    const struct pgcb_res_group *gr = &res.groups[0];
    assert_int_equal(gr->load_mode, PGCB_LOAD_RATE);
    assert_true(gr->rate == 1500);
    for (size_t d = 0; d < res.ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        print_message("%s: %.0f queries/s at 1500/s, last query issued %.3f ms late\n",
                      res.drivers[d].label, c->queries_per_s, c->late_ns / 1e6);
        assert_int_equal(c->status, PGCB_CELL_OK);
        /* What holds on a busy machine (the schedule itself is checked
         * exactly, on a fake clock, by tests/unit/test_pl_loop.c): never
         * faster than the rate (each order's first query is due at its
         * start: one more than rate x time per order); the last query less
         * than an order's time behind its schedule (beside another make
         * test it was more than a third behind); and so at least half the
         * rate. */
        double wall_s = (double)c->wall_ns / 1e9;
        double order_ns = (double)c->wall_ns / (double)(c->norders ? c->norders : 1);
        assert_true((double)c->queries <= 1500.0 * wall_s + (double)c->norders + 1);
        assert_true((double)c->late_ns < order_ns);
        assert_true(c->queries_per_s >= 1500.0 / 2);
    }
    free(out);
    pgcb_result_free(&res);
}

/* Ends one backend of rawwire's host (application_name pgcb-RUNNER-HOST),
 * the first whose query is the benchmark's. */
static void terminate_one(pid_t runner, void *arg)
{
    (void)runner;
    PGconn *pg = PQconnectdb("");
    int *ended = arg;
    if (PQstatus(pg) == CONNECTION_OK) {
        PGresult *r = PQexec(pg, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                                 "application_name LIKE 'pgcb-%' AND query LIKE '%LIMIT 1' "
                                 "LIMIT 1");
        *ended = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
        PQclear(r);
    }
    PQfinish(pg);
}

static void test_pool_connection_dies(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n"
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.limit_10]\nsql = " SQL_LIMIT(10) "\nrows = 10\n"
             "[suite.c10]\nconcurrency = 10\n",
             e2e_build);
    const char *ini = e2e_write_file("dies", head("time_ms = 3000\nqueries = 100\n"
                                                  "warmup_ms = 100\norders = 1"), body);
    const char *path = e2e_json_path("dies");
    int ended = 0;
    struct e2e_run r = e2e_run_runner_act(ini, path, no_budget_env, "Budget   :", 1000,
                                          terminate_one, &ended);
    if (r.status != 2)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r.status, r.out, r.err);
    assert_true(ended);
    assert_int_equal(r.status, 2);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(path, &res, err, sizeof err), 0);
    assert_int_equal(res.ngroups, 2);
    const struct pgcb_res_cell *c = &res.groups[0].cells[0];
    print_message("group 1: %s: %s\n", pgcb_cell_status_str(c->status), c->error);
    assert_int_equal(c->status, PGCB_CELL_FAILED);
    assert_non_null(strstr(c->error, "terminating connection due to administrator command"));
    assert_non_null(strstr(c->error, "connection "));
    const struct pgcb_res_cell *next = &res.groups[1].cells[0];
    print_message("group 2: %s, %.0f queries/s\n", pgcb_cell_status_str(next->status),
                  next->queries_per_s);
    assert_int_equal(next->status, PGCB_CELL_OK);
    assert_true(next->queries_per_s > 0);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

int main(void)
{
    if (e2e_setup("test_conc_e2e") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed),
        cmocka_unit_test(test_rate),
        cmocka_unit_test(test_pool_connection_dies),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    e2e_teardown();
    return rc;
}
