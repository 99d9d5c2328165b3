/*
 * test_libpq_sync.c -- the libpq_sync driver (and the null driver's
 * checksum) against a real PostgreSQL server.
 *
 * Environment: PGHOST (required: without it the test FAILS, it does not
 * skip), PGPORT, PGUSER, PGDATABASE of a throw-away server whose
 * benchmark_rows table this test drops and re-creates; PGCB_BUILD, the build
 * directory holding drivers/NAME.so (default "build").
 *
 * Expected checksums are computed by folding the expected values with the
 * pgcb_sum_*() helpers of driver.h (here and in tests/lib/drvtest.c),
 * independently of the drivers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

#include "../lib/drvtest.h"

static struct drvtest_drv pq_drv, null_drv;

static const struct pgcb_option opt_binary[] = {{"result_format", "binary"}};

/* ---- setup -------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    if (drvtest_require_server("test_libpq_sync") || drvtest_load(&pq_drv, "libpq_sync") ||
        drvtest_load(&null_drv, "null"))
        return -1;
    return drvtest_create_table(NULL);
}

static int group_teardown(void **state)
{
    (void)state;
    drvtest_unload(&pq_drv);
    drvtest_unload(&null_drv);
    return 0;
}

static const uint32_t limits[] = {1, 100, 500};
static const uint32_t depths[] = {1, 3};

/* Every LIMIT and depth on a connection of driver t; returns the checksum of
 * LIMIT 500 depth 3 for cross-driver comparison. */
static struct pgcb_sum check_bench_rows(const struct drvtest_drv *t,
                                        const struct pgcb_option *opts, size_t nopts)
{
    struct pgcb_conn *c = drvtest_open_ok(t, "", opts, nopts);
    struct pgcb_sum last = {0, 0};

    for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
        struct pgcb_stmt *st = drvtest_prepare_limit(t, c, limits[l]);
        for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
            struct pgcb_sum want = drvtest_expect_rows(limits[l], depths[d]);
            for (int again = 0; again < 2; again++) { /* repeatable */
                struct pgcb_sum got = drvtest_run_ok(t, c, st, depths[d]);
                assert_true(got.rows == (uint64_t)limits[l] * depths[d]);
                assert_true(got.hash == want.hash);
                last = got;
            }
        }
    }
    t->d->close(c);
    return last;
}

/* ---- descriptor --------------------------------------------------------- */

static void test_descriptors(void **state)
{
    const struct pgcb_driver *d = pq_drv.d;
    char links[32];
    int v = PQlibVersion();

    (void)state;
    assert_string_equal(d->name, "libpq_sync");
    assert_string_equal(d->version, "1.0.0");
    assert_int_equal(d->caps, 0);
    snprintf(links, sizeof links, "libpq %d.%d", v / 10000, v % 10000);
    assert_string_equal(d->links, links);
    assert_string_equal(d->options[0].key, "result_format");
    assert_string_equal(d->options[0].default_value, "text");
    assert_null(d->options[1].key);

    assert_string_equal(null_drv.d->name, "null");
    assert_int_equal(null_drv.d->caps, PGCB_CAP_NO_IO | PGCB_CAP_REFERENCE);
}

/* ---- benchmark rows ----------------------------------------------------- */

static void test_rows_text(void **state)
{
    (void)state;
    check_bench_rows(&pq_drv, NULL, 0);
}

static void test_rows_binary(void **state)
{
    (void)state;
    check_bench_rows(&pq_drv, opt_binary, 1);
}

static void test_null_driver_same_checksum(void **state)
{
    (void)state;
    struct pgcb_sum a = check_bench_rows(&pq_drv, NULL, 0);
    struct pgcb_sum b = check_bench_rows(&null_drv, NULL, 0);
    assert_true(a.hash == b.hash && a.rows == b.rows);
}

/* ---- types -------------------------------------------------------------- */

/* The brief's mixed query, numeric included (text and binary). */
#define TYPES_SQL_NUMERIC                                                              \
    "SELECT (-32768)::int2 AS i2, 9223372036854775807::int8 AS i8, (-1.5)::float4 AS f4, " \
    "'NaN'::float8 AS f8, 12.50::numeric AS amount, NULL::int4 AS nothing, true AS yes"

static struct pgcb_sum expect_types_numeric(void)
{
    struct pgcb_sum s = {0, 0};
    pgcb_sum_int(&s, -32768);
    pgcb_sum_int(&s, INT64_MAX);
    pgcb_sum_float4(&s, -1.5f);
    pgcb_sum_float8(&s, NAN);
    pgcb_sum_numeric(&s, PGCB_NUMERIC_POS, 2, "1250", 4);
    pgcb_sum_null(&s);
    pgcb_sum_bool(&s, 1);
    pgcb_sum_row(&s);
    return s;
}

static void test_types_text(void **state)
{
    struct pgcb_conn *c = drvtest_open_ok(&pq_drv, "", NULL, 0);
    struct pgcb_stmt *st;
    struct pgcb_sum got, want;

    (void)state;
    st = drvtest_prepare_ok(&pq_drv, c, "types_numeric", TYPES_SQL_NUMERIC);
    got = drvtest_run_ok(&pq_drv, c, st, 1);
    want = expect_types_numeric();
    assert_true(got.rows == 1 && got.hash == want.hash);

    st = drvtest_prepare_ok(&pq_drv, c, "types", DRVTEST_TYPES_SQL);
    for (uint32_t depth = 1; depth <= 3; depth += 2) {
        got = drvtest_run_ok(&pq_drv, c, st, depth);
        want = drvtest_expect_types(depth);
        assert_true(got.rows == 2 * depth && got.hash == want.hash);
    }
    pq_drv.d->close(c);
}

static void test_types_binary(void **state)
{
    struct pgcb_conn *c = drvtest_open_ok(&pq_drv, "", opt_binary, 1);
    struct pgcb_stmt *st = NULL;
    struct pgcb_sum got, want = drvtest_expect_types(1);
    char err[PGCB_ERRLEN] = "";
    int rc;

    (void)state;
    /* numeric in binary: converted, the same value as in text */
    st = drvtest_prepare_ok(&pq_drv, c, "types_numeric", TYPES_SQL_NUMERIC);
    got = drvtest_run_ok(&pq_drv, c, st, 1);
    assert_true(got.rows == 1 && got.hash == expect_types_numeric().hash);

    /* a type value.h does not convert (point), in binary: refused at
     * prepare (libpq asks one format for every column), naming the column
     * and type */
    st = NULL;
    rc = pq_drv.d->prepare(c, "types", "SELECT 1::int4 AS a, point(1, 2) AS pos", &st, err,
                           sizeof err);
    assert_int_equal(rc, PGCB_ERR_UNSUPPORTED);
    assert_null(st);
    drvtest_assert_one_line(err);
    assert_non_null(strstr(err, "\"pos\""));
    assert_non_null(strstr(err, "oid 600"));

    /* the refused statement was deallocated: its name can be used again */
    st = drvtest_prepare_ok(&pq_drv, c, "types", DRVTEST_TYPES_SQL);
    got = drvtest_run_ok(&pq_drv, c, st, 1);
    assert_true(got.rows == 2 && got.hash == want.hash);
    pq_drv.d->close(c);
}

/* ---- errors ------------------------------------------------------------- */

static void test_bad_statement(void **state)
{
    struct pgcb_conn *c = drvtest_open_ok(&pq_drv, "", NULL, 0);
    struct pgcb_stmt *st = NULL, *good;
    struct pgcb_sum s = {0, 0}, want = drvtest_expect_rows(100, 1);
    char err[PGCB_ERRLEN] = "";
    int rc;

    (void)state;
    rc = pq_drv.d->prepare(c, "missing", "SELECT * FROM no_such_table", &st, err, sizeof err);
    assert_int_equal(rc, PGCB_ERR_QUERY);
    assert_null(st);
    drvtest_assert_one_line(err);
    assert_memory_equal(err, "42P01: ", 7);

    /* usable afterwards */
    good = drvtest_prepare_ok(&pq_drv, c, "good", DRVTEST_BENCH_SQL "100");
    s = drvtest_run_ok(&pq_drv, c, good, 1);
    assert_true(s.hash == want.hash);

    /* an error while executing: division by zero on the server */
    st = drvtest_prepare_ok(&pq_drv, c, "div0", "SELECT 1 / (id - id) FROM benchmark_rows LIMIT 1");
    memset(&s, 0, sizeof s);
    rc = pq_drv.d->run_batch(c, st, 3, &s, err, sizeof err);
    assert_int_equal(rc, PGCB_ERR_QUERY);
    drvtest_assert_one_line(err);
    assert_memory_equal(err, "22012: ", 7);
    s = drvtest_run_ok(&pq_drv, c, good, 1);
    assert_true(s.hash == want.hash);

    /* a statement with parameters prepares (ABI 1.1); run without values,
     * the server refuses it (test_params.c runs it with values) */
    st = drvtest_prepare_ok(&pq_drv, c, "param", "SELECT $1::int");
    drvtest_run_fail(&pq_drv, c, st, 2, PGCB_ERR_QUERY, err, sizeof err);
    drvtest_assert_one_line(err);
    assert_memory_equal(err, "08P01: ", 7);
    s = drvtest_run_ok(&pq_drv, c, good, 1);
    assert_true(s.hash == want.hash);

    /* a write without rows: PGRES_COMMAND_OK, zero rows */
    st = drvtest_prepare_ok(&pq_drv, c, "upd",
                            "UPDATE benchmark_rows SET int_value = 1337 WHERE id = 0");
    s = drvtest_run_ok(&pq_drv, c, st, 2);
    assert_true(s.rows == 0 && s.hash == 0);
    pq_drv.d->close(c);
}

static void test_broken_connection_is_io(void **state)
{
    struct pgcb_conn *c = drvtest_open_ok(&pq_drv, "", NULL, 0);
    struct pgcb_stmt *st =
        drvtest_prepare_ok(&pq_drv, c, "kill", "SELECT pg_terminate_backend(pg_backend_pid())");
    struct pgcb_sum s = {0, 0};
    char err[PGCB_ERRLEN] = "";

    (void)state;
    assert_int_equal(pq_drv.d->run_batch(c, st, 1, &s, err, sizeof err), PGCB_ERR_IO);
    drvtest_assert_one_line(err);
    pq_drv.d->close(c);
}

static void test_bad_conninfo(void **state)
{
    struct pgcb_conn *c = (struct pgcb_conn *)&c; /* must be overwritten with NULL */
    char err[PGCB_ERRLEN] = "";

    (void)state;
    assert_int_equal(pq_drv.d->open("host=/nonexistent", NULL, 0, &c, err, sizeof err),
                     PGCB_ERR_CONNECT);
    assert_null(c);
    drvtest_assert_one_line(err);
    assert_non_null(strstr(err, "/nonexistent"));
}

static void test_password_never_shown(void **state)
{
    static const char *const bad[] = {
        "host=/nonexistent password=hunter2secret",
        "host=/nonexistent password=hunter2 secretpart", /* parse error quoting "secretpart" */
        "postgresql://u:hunter2secret@[::1",             /* parse error quoting the URI */
        "postgresql://u@/db?password=hunter2secret&bogus=1",
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct pgcb_conn *c = NULL;
        char err[PGCB_ERRLEN] = "";
        assert_int_equal(pq_drv.d->open(bad[i], NULL, 0, &c, err, sizeof err), PGCB_ERR_CONNECT);
        assert_null(c);
        drvtest_assert_one_line(err);
        assert_null(strstr(err, "hunter2"));
        assert_null(strstr(err, "secret"));
    }
}

static void test_bad_options(void **state)
{
    static const struct pgcb_option unknown[] = {{"bogus", "1"}};
    static const struct pgcb_option badval[] = {{"result_format", "xml"}};
    struct pgcb_conn *c = NULL;
    char err[PGCB_ERRLEN] = "";

    (void)state;
    assert_int_equal(pq_drv.d->open("", unknown, 1, &c, err, sizeof err), PGCB_ERR_CONFIG);
    assert_null(c);
    drvtest_assert_one_line(err);
    assert_non_null(strstr(err, "bogus"));

    assert_int_equal(pq_drv.d->open("", badval, 1, &c, err, sizeof err), PGCB_ERR_CONFIG);
    assert_null(c);
    assert_non_null(strstr(err, "result_format"));
    assert_non_null(strstr(err, "xml"));

    assert_int_equal(null_drv.d->open("", unknown, 1, &c, err, sizeof err), PGCB_ERR_CONFIG);
    assert_null(c);
    assert_non_null(strstr(err, "bogus"));
}

/* ---- the null driver's own options -------------------------------------- */

static void test_null_options(void **state)
{
    static const struct pgcb_option opts[] = {{"rows", "7"}, {"fail_after", "2"}};
    struct pgcb_conn *c = drvtest_open_ok(&null_drv, "", opts, 2);
    struct pgcb_stmt *norows = drvtest_prepare_ok(&null_drv, c, "a", "SELECT * FROM benchmark_rows");
    struct pgcb_stmt *lim = drvtest_prepare_ok(&null_drv, c, "b",
                                       "select * from (select * from t limit 3) x Limit\n42");
    struct pgcb_sum s, want7 = drvtest_expect_rows(7, 2), want42 = drvtest_expect_rows(42, 1);
    char err[PGCB_ERRLEN] = "";

    (void)state;
    s = drvtest_run_ok(&null_drv, c, norows, 2);
    assert_true(s.rows == 14 && s.hash == want7.hash);
    s = drvtest_run_ok(&null_drv, c, lim, 1);
    assert_true(s.rows == 42 && s.hash == want42.hash);
    memset(&s, 0, sizeof s);
    assert_int_equal(null_drv.d->run_batch(c, lim, 1, &s, err, sizeof err), PGCB_ERR_QUERY);
    assert_string_equal(err, "XX000: null driver: injected failure");
    null_drv.d->close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptors),
        cmocka_unit_test(test_rows_text),
        cmocka_unit_test(test_rows_binary),
        cmocka_unit_test(test_null_driver_same_checksum),
        cmocka_unit_test(test_types_text),
        cmocka_unit_test(test_types_binary),
        cmocka_unit_test(test_bad_statement),
        cmocka_unit_test(test_broken_connection_is_io),
        cmocka_unit_test(test_bad_conninfo),
        cmocka_unit_test(test_password_never_shown),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_null_options),
    };
    return cmocka_run_group_tests_name("libpq_sync", tests, group_setup, group_teardown);
}
