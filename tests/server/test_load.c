/*
 * test_load.c -- pools and loads (ABI 1.5 pool_open, run_load) of the C
 * drivers that have them (libpq_pipeline, rawwire, null), against the real
 * PostgreSQL tests/run.sh started.
 *
 * Each driver opens a pool of 4 and runs closed loads at concurrency 8 (more
 * queries in flight than connections: they wait for a free one) and 4: every
 * query completes, is timed (> 0 ns) and folds to the benchmark rows'
 * checksum; the server shows the pool's 4 backends under its
 * application_name. With parameters, the order-independent sum of the
 * queries' checksums is that of the rows they asked for. An open loop at
 * 2000 queries/s for 300 ms runs about 600 queries, on time. Faults: a
 * query the server refuses mid-load (division by zero for one parameter) is
 * PGCB_ERR_QUERY with its SQLSTATE, the queries that completed are kept and
 * the pool runs the next load; a backend of the pool ended by
 * pg_terminate_backend mid-load is PGCB_ERR_IO naming the connection and
 * the server's message, with the completed queries kept. A driver without
 * the slots (libpq_sync) leaves them NULL.
 *
 * Environment: PGHOST (required: without it the test FAILS), PGPORT, PGUSER,
 * PGDATABASE of a throw-away server; PGCB_BUILD, the build directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

#include "../lib/drvtest.h"

#define POOL 4
#define CAP 65536

static struct drvtest_drv drvs[3];
static const char *const names[3] = {"libpq_pipeline", "rawwire", "null"};
static uint64_t *lat;
static struct pgcb_sum *sums;

static int group_setup(void **state)
{
    (void)state;
    if (drvtest_require_server("test_load") || drvtest_create_table(NULL))
        return -1;
    for (int i = 0; i < 3; i++)
        if (drvtest_load(&drvs[i], names[i]))
            return -1;
    lat = calloc(CAP, sizeof *lat);
    sums = calloc(CAP, sizeof *sums);
    return lat && sums ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        drvtest_unload(&drvs[i]);
    free(lat);
    free(sums);
    return 0;
}

static struct pgcb_conn *pool_ok(const struct drvtest_drv *t, const char *conninfo,
                                 uint32_t n)
{
    char err[PGCB_ERRLEN] = "";
    struct pgcb_conn *c = NULL;
    assert_true(PGCB_DRIVER_HAS(t->d, 5, pool_open));
    assert_true(PGCB_DRIVER_HAS(t->d, 5, run_load));
    int rc = t->d->pool_open(conninfo, NULL, 0, n, &c, err, sizeof err);
    if (rc != PGCB_OK)
        fail_msg("%s: pool_open: %s", t->d->name, err);
    assert_non_null(c);
    return c;
}

static int load(const struct drvtest_drv *t, struct pgcb_conn *c, struct pgcb_load *ld,
                struct pgcb_load_out *out, char *err, size_t errlen)
{
    memset(sums, 0, CAP * sizeof *sums);
    *out = (struct pgcb_load_out){.latency_ns = lat, .sums = sums};
    err[0] = '\0';
    return t->d->run_load(c, ld, out, err, errlen);
}

/* Backends of the server whose application_name is `app`. */
static int backends(const char *app)
{
    PGconn *pg = drvtest_admin_connect();
    assert_non_null(pg);
    const char *v[1] = {app};
    PGresult *r = PQexecParams(pg, "SELECT count(*) FROM pg_stat_activity WHERE "
                               "application_name = $1", 1, NULL, v, NULL, NULL, 0);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    int n = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    PQfinish(pg);
    return n;
}

static void test_descriptors(void **state)
{
    (void)state;
    struct drvtest_drv sync = {0};
    assert_int_equal(drvtest_load(&sync, "libpq_sync"), 0);
    assert_false(PGCB_DRIVER_HAS(sync.d, 5, pool_open));
    assert_false(PGCB_DRIVER_HAS(sync.d, 5, run_load));
    drvtest_unload(&sync);
}

/* Closed loops at concurrency 8 and 4 over 4 connections. */
static void test_closed(void **state)
{
    (void)state;
    const struct pgcb_sum want = drvtest_expect_rows(1, 1);
    for (int i = 0; i < 3; i++) {
        const struct drvtest_drv *t = &drvs[i];
        char app[64], ci[96], err[PGCB_ERRLEN];
        snprintf(app, sizeof app, "pgcbt_load_%s", names[i]);
        snprintf(ci, sizeof ci, "application_name=%s", app);
        struct pgcb_conn *c = pool_ok(t, ci, POOL);
        struct pgcb_stmt *st = drvtest_prepare_limit(t, c, 1);
        if (i < 2)
            assert_int_equal(backends(app), POOL);
        for (uint32_t conc = 8; conc >= 4; conc -= 4) {
            struct pgcb_load ld = {.stmt = st, .mode = PGCB_LOAD_CLOSED, .concurrency = conc,
                                   .duration_ns = 200000000ull, .min_queries = 500,
                                   .max_queries = CAP};
            struct pgcb_load_out out;
            int rc = load(t, c, &ld, &out, err, sizeof err);
            if (rc != PGCB_OK)
                fail_msg("%s at concurrency %u: %s", names[i], conc, err);
            print_message("%s: %u queries in %.0f ms at concurrency %u over %u: %.0f/s, CPU "
                          "%.0f ns per query\n", names[i], out.done, out.wall_ns / 1e6, conc,
                          POOL, out.done * 1e9 / (double)out.wall_ns,
                          (double)out.cpu_ns / out.done);
            assert_true(out.done >= 500);
            assert_true(out.wall_ns >= (i < 2 ? 150000000ull : 1));
            assert_true(out.cpu_ns > 0);
            assert_int_equal(out.late_ns, 0);
            for (uint32_t q = 0; q < out.done; q++) {
                assert_true(lat[q] > 0);
                assert_int_equal(sums[q].rows, 1);
                assert_int_equal(sums[q].hash, want.hash);
            }
        }
        /* run_batch works on the pool too. */
        struct pgcb_sum s = drvtest_run_ok(t, c, st, 3);
        assert_int_equal(s.hash, drvtest_expect_rows(1, 3).hash);
        t->d->close(c);
    }
}

/* Parameters: query i binds row i; the sums, in completion order, add up
 * (order-independent: a wrapping sum of hashes) to the rows asked for. */
static void test_params(void **state)
{
    (void)state;
    enum { N = 2000 };
    static char buf[N][8];
    static const char *values[N];
    static int lengths[N];
    uint64_t want = 0;
    for (int q = 0; q < N; q++) {
        int id = q % 500 + 1;
        lengths[q] = snprintf(buf[q], sizeof buf[q], "%d", id);
        values[q] = buf[q];
        struct pgcb_sum one = {0, 0};
        pgcb_sum_int(&one, id);
        pgcb_sum_int(&one, 1337);
        pgcb_sum_text(&one, "wat", 3);
        pgcb_sum_null(&one);
        pgcb_sum_bool(&one, 0);
        pgcb_sum_row(&one);
        want += one.hash;
    }
    const struct pgcb_params p = {1, values, lengths};
    for (int i = 0; i < 2; i++) {
        const struct drvtest_drv *t = &drvs[i];
        char err[PGCB_ERRLEN];
        struct pgcb_conn *c = pool_ok(t, "", POOL);
        struct pgcb_stmt *st = drvtest_prepare_ok(t, c, "by_id",
            "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows "
            "WHERE id = $1");
        struct pgcb_load ld = {.stmt = st, .mode = PGCB_LOAD_CLOSED, .concurrency = 6,
                               .duration_ns = 0, .min_queries = N, .max_queries = N,
                               .params = &p};
        struct pgcb_load_out out;
        int rc = load(t, c, &ld, &out, err, sizeof err);
        if (rc != PGCB_OK)
            fail_msg("%s: %s", names[i], err);
        assert_int_equal(out.done, N);
        uint64_t got = 0;
        for (int q = 0; q < N; q++) {
            assert_int_equal(sums[q].rows, 1);
            got += sums[q].hash;
        }
        assert_true(got == want);
        t->d->close(c);
    }
}

/* An open loop: 2000/s for 300 ms is about 600 queries, issued on time. */
static void test_rate(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        const struct drvtest_drv *t = &drvs[i];
        char err[PGCB_ERRLEN];
        struct pgcb_conn *c = pool_ok(t, "", POOL);
        struct pgcb_stmt *st = drvtest_prepare_limit(t, c, 1);
        struct pgcb_load ld = {.stmt = st, .mode = PGCB_LOAD_RATE, .concurrency = 8,
                               .rate = 2000, .duration_ns = 300000000ull, .min_queries = 0,
                               .max_queries = CAP};
        struct pgcb_load_out out;
        int rc = load(t, c, &ld, &out, err, sizeof err);
        if (rc != PGCB_OK)
            fail_msg("%s: %s", names[i], err);
        print_message("%s: rate 2000/s for 300 ms: %u queries, %.1f ms, last issued %.3f ms "
                      "late\n", names[i], out.done, out.wall_ns / 1e6, out.late_ns / 1e6);
        /* Exact whatever the machine does: 600 queries are due in 300 ms,
         * the last at 299.5 ms, and each query's latency counts from its due
         * time, so the load ends at the latest due time + latency: at least
         * 299.5 ms, at most 299.5 ms + the longest latency. Lateness: under
         * the load's duration (a third was exceeded by the AddressSanitizer
         * build beside another make test); the schedule itself is checked
         * on a fake clock (test_pl_loop). */
        assert_int_equal(out.done, 600);
        uint64_t max_lat = 0;
        for (uint32_t q = 0; q < out.done; q++)
            max_lat = out.latency_ns[q] > max_lat ? out.latency_ns[q] : max_lat;
        assert_true(out.wall_ns >= 299500000ull);
        assert_true(out.wall_ns <= 299500000ull + max_lat);
        assert_true(out.late_ns < ld.duration_ns);
        t->d->close(c);
    }
}

/* A query the server refuses: PGCB_ERR_QUERY, the completed ones kept, the
 * pool usable. */
static void test_query_error(void **state)
{
    (void)state;
    enum { N = 400 };
    static char buf[N][4];
    static const char *values[N];
    static int lengths[N];
    for (int q = 0; q < N; q++) {
        lengths[q] = snprintf(buf[q], sizeof buf[q], "%d", q == 300 ? 0 : 1);
        values[q] = buf[q];
    }
    const struct pgcb_params p = {1, values, lengths};
    for (int i = 0; i < 2; i++) {
        const struct drvtest_drv *t = &drvs[i];
        char err[PGCB_ERRLEN];
        struct pgcb_conn *c = pool_ok(t, "", POOL);
        struct pgcb_stmt *div = drvtest_prepare_ok(t, c, "div", "SELECT 1 / $1::int");
        struct pgcb_load ld = {.stmt = div, .mode = PGCB_LOAD_CLOSED, .concurrency = 8,
                               .min_queries = N, .max_queries = N, .params = &p};
        struct pgcb_load_out out;
        int rc = load(t, c, &ld, &out, err, sizeof err);
        print_message("%s: %s (%u done)\n", names[i], err, out.done);
        assert_int_equal(rc, PGCB_ERR_QUERY);
        drvtest_assert_one_line(err);
        assert_non_null(strstr(err, "22012"));
        assert_true(out.done >= 290 && out.done < N);
        struct pgcb_stmt *st = drvtest_prepare_limit(t, c, 1);
        ld = (struct pgcb_load){.stmt = st, .mode = PGCB_LOAD_CLOSED, .concurrency = 8,
                                .min_queries = 100, .max_queries = CAP};
        rc = load(t, c, &ld, &out, err, sizeof err);
        if (rc != PGCB_OK)
            fail_msg("%s after a query error: %s", names[i], err);
        assert_true(out.done >= 100);
        t->d->close(c);
    }
}

struct killer {
    const char *app;
    int ended;
};

/* After 150 ms, end one backend of the pool. */
static void *kill_one(void *arg)
{
    struct killer *k = arg;
    usleep(150000);
    PGconn *pg = drvtest_admin_connect();
    if (!pg)
        return NULL;
    const char *v[1] = {k->app};
    PGresult *r = PQexecParams(pg, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                               "WHERE application_name = $1 LIMIT 1", 1, NULL, v, NULL, NULL,
                               0);
    k->ended = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
    PQclear(r);
    PQfinish(pg);
    return NULL;
}

static void test_terminated(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++) {
        const struct drvtest_drv *t = &drvs[i];
        char app[64], ci[96], err[PGCB_ERRLEN];
        snprintf(app, sizeof app, "pgcbt_kill_%s", names[i]);
        snprintf(ci, sizeof ci, "application_name=%s", app);
        struct pgcb_conn *c = pool_ok(t, ci, POOL);
        struct pgcb_stmt *st = drvtest_prepare_limit(t, c, 100);
        struct killer k = {app, 0};
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, kill_one, &k), 0);
        struct pgcb_load ld = {.stmt = st, .mode = PGCB_LOAD_CLOSED, .concurrency = 8,
                               .duration_ns = 6000000000ull, .max_queries = CAP};
        struct pgcb_load_out out;
        int rc = load(t, c, &ld, &out, err, sizeof err);
        pthread_join(th, NULL);
        print_message("%s: %s (%u done in %.0f ms)\n", names[i], err, out.done,
                      out.wall_ns / 1e6);
        assert_true(k.ended);
        assert_int_equal(rc, PGCB_ERR_IO);
        drvtest_assert_one_line(err);
        assert_non_null(strstr(err, "connection "));
        assert_non_null(strstr(err, "terminating connection due to administrator command"));
        assert_true(out.done > 0);
        /* Stopped by the kill (at 150 ms, or seconds later beside another
         * make test), not run out: the load was 6 s. */
        assert_true(out.wall_ns < 5500000000ull);
        for (uint32_t q = 0; q < out.done; q++)
            assert_int_equal(sums[q].rows, 100);
        t->d->close(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptors),
        cmocka_unit_test(test_closed),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_rate),
        cmocka_unit_test(test_query_error),
        cmocka_unit_test(test_terminated),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
