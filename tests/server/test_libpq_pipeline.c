/*
 * test_libpq_pipeline.c -- the libpq_pipeline driver against a real
 * PostgreSQL server, and against the libpq_sync driver's checksums.
 *
 * Environment: PGHOST (required: without it the test FAILS, it does not
 * skip), PGPORT, PGUSER, PGDATABASE of a throw-away server whose
 * benchmark_rows table this test drops and re-creates (and where it creates
 * the sequence pgcb_fail_seq); PGCB_BUILD, the build directory holding
 * drivers/NAME.so (default "build").
 *
 * Expected checksums are computed here with the pgcb_sum_*() helpers of
 * driver.h, and compared with libpq_sync's for the same batch.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

#include "../lib/drvtest.h"

static struct drvtest_drv pp_drv, sync_drv;

/* ---- setup -------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    if (drvtest_require_server("test_libpq_pipeline") ||
        drvtest_load(&pp_drv, "libpq_pipeline") || drvtest_load(&sync_drv, "libpq_sync"))
        return -1;
    return drvtest_create_table("DROP SEQUENCE IF EXISTS pgcb_fail_seq; "
                                "CREATE SEQUENCE pgcb_fail_seq");
}

static int group_teardown(void **state)
{
    (void)state;
    drvtest_unload(&pp_drv);
    drvtest_unload(&sync_drv);
    return 0;
}

/* ---- descriptor --------------------------------------------------------- */

static void test_descriptor(void **state)
{
    const struct pgcb_driver *d = pp_drv.d;
    char links[32];
    int v = PQlibVersion();

    (void)state;
    assert_string_equal(d->name, "libpq_pipeline");
    assert_string_equal(d->version, "1.0.0");
    assert_int_equal(d->caps, PGCB_CAP_PIPELINE);
    snprintf(links, sizeof links, "libpq %d.%d", v / 10000, v % 10000);
    assert_string_equal(d->links, links);
    assert_string_equal(d->description,
                        "libpq pipeline mode, non-blocking: up to depth queries in flight on one connection");
    assert_string_equal(d->options[0].key, "sync");
    assert_string_equal(d->options[0].default_value, "per_query");
    assert_string_equal(d->options[1].key, "max_in_flight");
    assert_string_equal(d->options[1].default_value, "1000");
    assert_string_equal(d->options[2].key, "result_format");
    assert_string_equal(d->options[2].default_value, "text");
    assert_null(d->options[3].key);
}

/* ---- 1. no deadlock: ~25 MB of results while 1000 queries go out -------- */

static void big_batch(const struct pgcb_option *opts, size_t nopts)
{
    struct pgcb_conn *c = drvtest_open_ok(&pp_drv, "", opts, nopts);
    struct pgcb_stmt *st = drvtest_prepare_ok(&pp_drv, c, "big", DRVTEST_BENCH_SQL "500");
    struct pgcb_sum want = drvtest_expect_rows(500, 1000);

    for (int again = 0; again < 2; again++) { /* and the connection is clean after it */
        struct pgcb_sum got = drvtest_run_ok(&pp_drv, c, st, 1000);
        assert_true(got.rows == 500000);
        assert_true(got.hash == want.hash);
    }
    pp_drv.d->close(c);
}

static void test_big_batch_default(void **state)
{
    (void)state;
    big_batch(NULL, 0);
}

static void test_big_batch_window_7(void **state)
{
    static const struct pgcb_option o[] = {{"max_in_flight", "7"}};
    (void)state;
    big_batch(o, 1);
}

static void test_big_batch_per_batch(void **state)
{
    static const struct pgcb_option o1[] = {{"sync", "per_batch"}};
    static const struct pgcb_option o7[] = {{"sync", "per_batch"}, {"max_in_flight", "7"}};
    static const struct pgcb_option ob[] = {{"result_format", "binary"}, {"max_in_flight", "1"}};
    (void)state;
    big_batch(o1, 1);
    big_batch(o7, 2); /* flush requests: the server holds output until a Sync otherwise */
    big_batch(ob, 2);
}

/* ---- 2. the same checksums as libpq_sync -------------------------------- */

/* numeric too (text format only) */
#define TYPES_SQL_NUMERIC                                                                  \
    "SELECT (-32768)::int2 AS i2, (-9223372036854775807)::int8 AS i8, (-1.5)::float4 AS f4, " \
    "(-2.25)::float8 AS f8, (-12.50)::numeric AS amount, NULL::int4 AS nothing, true AS yes, " \
    "'t'::text AS txt"

static struct pgcb_sum expect_types_numeric(uint32_t depth)
{
    struct pgcb_sum s = {0, 0};
    for (uint32_t d = 0; d < depth; d++) {
        pgcb_sum_int(&s, -32768);
        pgcb_sum_int(&s, -INT64_MAX);
        pgcb_sum_float4(&s, -1.5f);
        pgcb_sum_float8(&s, -2.25);
        pgcb_sum_numeric(&s, PGCB_NUMERIC_NEG, 2, "1250", 4);
        pgcb_sum_null(&s);
        pgcb_sum_bool(&s, 1);
        pgcb_sum_text(&s, "t", 1);
        pgcb_sum_row(&s);
    }
    return s;
}

struct same_case {
    const char *name, *sql;
    uint32_t rows;        /* per execution */
    int binary_refused;   /* prepare refuses it with result_format = binary */
};

static const struct same_case same_cases[] = {
    {"limit_1", DRVTEST_BENCH_SQL "1", 1, 0},
    {"limit_100", DRVTEST_BENCH_SQL "100", 100, 0},
    {"limit_500", DRVTEST_BENCH_SQL "500", 500, 0},
    {"types", DRVTEST_TYPES_SQL, 2, 0},
    {"types_numeric", TYPES_SQL_NUMERIC, 1, 0},
    {"types_point", "SELECT 1::int4 AS a, point(1, 2) AS amount", 1, 1},
};
static const uint32_t same_depths[] = {1, 2, 10, 100};

/* One pipeline configuration against libpq_sync in the same format. */
static void same_as_sync(const char *format, const char *sync, const char *window)
{
    const struct pgcb_option sopt[] = {{"result_format", format}};
    const struct pgcb_option popt[] = {
        {"result_format", format}, {"sync", sync}, {"max_in_flight", window}};
    const int binary = strcmp(format, "binary") == 0;
    struct pgcb_conn *sc = drvtest_open_ok(&sync_drv, "", sopt, 1);
    struct pgcb_conn *pc = drvtest_open_ok(&pp_drv, "", popt, 3);

    for (size_t q = 0; q < sizeof same_cases / sizeof *same_cases; q++) {
        const struct same_case *k = &same_cases[q];
        if (binary && k->binary_refused) {
            struct pgcb_stmt *st = NULL;
            char err[PGCB_ERRLEN] = "";
            int rc = sync_drv.d->prepare(sc, k->name, k->sql, &st, err, sizeof err);
            assert_int_equal(rc, PGCB_ERR_UNSUPPORTED);
            rc = pp_drv.d->prepare(pc, k->name, k->sql, &st, err, sizeof err);
            assert_int_equal(rc, PGCB_ERR_UNSUPPORTED);
            assert_null(st);
            drvtest_assert_one_line(err);
            assert_non_null(strstr(err, "\"amount\""));
            assert_non_null(strstr(err, "oid 600"));
            continue;
        }
        struct pgcb_stmt *ss = drvtest_prepare_ok(&sync_drv, sc, k->name, k->sql);
        struct pgcb_stmt *ps = drvtest_prepare_ok(&pp_drv, pc, k->name, k->sql);
        for (size_t d = 0; d < sizeof same_depths / sizeof *same_depths; d++) {
            uint32_t depth = same_depths[d];
            struct pgcb_sum a = drvtest_run_ok(&sync_drv, sc, ss, depth);
            struct pgcb_sum b = drvtest_run_ok(&pp_drv, pc, ps, depth);
            if (a.hash != b.hash || a.rows != b.rows)
                print_error("%s %s depth %u (%s, sync=%s, max_in_flight=%s): sync %016llx/%llu, "
                            "pipeline %016llx/%llu\n", k->name, format, depth, format, sync, window,
                            (unsigned long long)a.hash, (unsigned long long)a.rows,
                            (unsigned long long)b.hash, (unsigned long long)b.rows);
            assert_true(a.rows == (uint64_t)k->rows * depth);
            assert_true(a.hash == b.hash && a.rows == b.rows);
            if (strncmp(k->name, "limit_", 6) == 0) {
                struct pgcb_sum want = drvtest_expect_rows(k->rows, depth);
                assert_true(b.hash == want.hash);
            } else if (strcmp(k->name, "types_numeric") == 0) {
                struct pgcb_sum want = expect_types_numeric(depth);
                assert_true(b.hash == want.hash);
            }
        }
    }
    sync_drv.d->close(sc);
    pp_drv.d->close(pc);
}

static void test_same_text_per_query(void **state)
{
    (void)state;
    same_as_sync("text", "per_query", "1000");
    same_as_sync("text", "per_query", "3"); /* refilling the window */
}

static void test_same_text_per_batch(void **state)
{
    (void)state;
    same_as_sync("text", "per_batch", "1000");
    same_as_sync("text", "per_batch", "3");
}

static void test_same_binary_per_query(void **state)
{
    (void)state;
    same_as_sync("binary", "per_query", "1000");
    same_as_sync("binary", "per_query", "3");
}

static void test_same_binary_per_batch(void **state)
{
    (void)state;
    same_as_sync("binary", "per_batch", "1000");
    same_as_sync("binary", "per_batch", "3");
}

/* ---- 3. a query failing in the middle of a pipeline --------------------- */

/* 1 / 0 on the 5th execution after the sequence restarts, 1 / 1 otherwise. */
#define FAIL5_SQL "SELECT 1 / ((nextval('pgcb_fail_seq') - 5) <> 0)::int AS v"

static void restart_seq(void)
{
    PGconn *pg = drvtest_admin_connect();
    assert_non_null(pg);
    assert_int_equal(drvtest_admin_exec(pg, "ALTER SEQUENCE pgcb_fail_seq RESTART"), 0);
    PQfinish(pg);
}

static void fail_in_middle(const char *sync, const char *window, uint64_t want_rows)
{
    const struct pgcb_option o[] = {{"sync", sync}, {"max_in_flight", window}};
    struct pgcb_conn *c = drvtest_open_ok(&pp_drv, "", o, 2);
    struct pgcb_stmt *st = drvtest_prepare_ok(&pp_drv, c, "fail5", FAIL5_SQL);
    struct pgcb_stmt *good = drvtest_prepare_ok(&pp_drv, c, "good", DRVTEST_BENCH_SQL "100");
    struct pgcb_sum s, want = {0, 0};
    char err[PGCB_ERRLEN];

    restart_seq();
    s = drvtest_run_fail(&pp_drv, c, st, 10, PGCB_ERR_QUERY, err, sizeof err);
    drvtest_assert_one_line(err);
    if (strncmp(err, "22012: ", 7) != 0 || !strstr(err, "(query 5 of 10)"))
        print_error("sync=%s max_in_flight=%s: %s\n", sync, window, err);
    assert_memory_equal(err, "22012: ", 7);            /* the ABI: SQLSTATE first */
    assert_non_null(strstr(err, "division by zero"));
    assert_non_null(strstr(err, "(query 5 of 10)"));
    if (s.rows != want_rows)
        print_error("sync=%s max_in_flight=%s: %llu rows read, want %llu\n", sync, window,
                    (unsigned long long)s.rows, (unsigned long long)want_rows);
    assert_true(s.rows == want_rows);
    for (uint64_t i = 0; i < want_rows; i++) { /* every row read is folded: v = 1 */
        pgcb_sum_int(&want, 1);
        pgcb_sum_row(&want);
    }
    assert_true(s.hash == want.hash);

    /* the connection is clean: the next batches succeed */
    s = drvtest_run_ok(&pp_drv, c, st, 10); /* the sequence is past 5 now */
    assert_true(s.rows == 10);
    s = drvtest_run_ok(&pp_drv, c, good, 3);
    want = drvtest_expect_rows(100, 3);
    assert_true(s.rows == 300 && s.hash == want.hash);
    pp_drv.d->close(c);
}

static void test_fail_per_query(void **state)
{
    (void)state;
    fail_in_middle("per_query", "1000", 9);
    fail_in_middle("per_query", "3", 9);
    fail_in_middle("per_query", "1", 9);
}

static void test_fail_per_batch(void **state)
{
    (void)state;
    fail_in_middle("per_batch", "1000", 4);
    fail_in_middle("per_batch", "3", 4);
    fail_in_middle("per_batch", "1", 4);
}

static void test_bad_statements(void **state)
{
    struct pgcb_conn *c = drvtest_open_ok(&pp_drv, "", NULL, 0);
    struct pgcb_stmt *st = NULL, *good;
    struct pgcb_sum s, want = drvtest_expect_rows(100, 2);
    char err[PGCB_ERRLEN] = "";
    int rc;

    (void)state;
    /* prepare failing on the server */
    rc = pp_drv.d->prepare(c, "missing", "SELECT * FROM no_such_table", &st, err, sizeof err);
    assert_int_equal(rc, PGCB_ERR_QUERY);
    assert_null(st);
    drvtest_assert_one_line(err);
    assert_memory_equal(err, "42P01: ", 7);
    rc = pp_drv.d->prepare(c, "syntax", "SELEC 1", &st, err, sizeof err);
    assert_int_equal(rc, PGCB_ERR_QUERY);
    assert_memory_equal(err, "42601: ", 7);

    good = drvtest_prepare_ok(&pp_drv, c, "good", DRVTEST_BENCH_SQL "100");
    s = drvtest_run_ok(&pp_drv, c, good, 2);
    assert_true(s.rows == 200 && s.hash == want.hash);

    /* every execution failing */
    st = drvtest_prepare_ok(&pp_drv, c, "div0", "SELECT 1 / (id - id) FROM benchmark_rows LIMIT 1");
    s = drvtest_run_fail(&pp_drv, c, st, 50, PGCB_ERR_QUERY, err, sizeof err);
    drvtest_assert_one_line(err);
    assert_memory_equal(err, "22012: ", 7);
    assert_non_null(strstr(err, "(query 1 of 50)"));
    assert_true(s.rows == 0);
    s = drvtest_run_ok(&pp_drv, c, good, 2);
    assert_true(s.rows == 200 && s.hash == want.hash);

    /* a statement with parameters prepares (ABI 1.1); run without values,
     * every query is refused by the server (test_params.c runs it with
     * values), and the connection goes on */
    st = drvtest_prepare_ok(&pp_drv, c, "param", "SELECT $1::int");
    s = drvtest_run_fail(&pp_drv, c, st, 4, PGCB_ERR_QUERY, err, sizeof err);
    drvtest_assert_one_line(err);
    assert_memory_equal(err, "08P01: ", 7);
    assert_true(s.rows == 0);
    s = drvtest_run_ok(&pp_drv, c, good, 2);
    assert_true(s.rows == 200 && s.hash == want.hash);

    /* a write without rows: PGRES_COMMAND_OK, zero rows */
    st = drvtest_prepare_ok(&pp_drv, c, "upd",
                            "UPDATE benchmark_rows SET int_value = 1337 WHERE id = 0");
    s = drvtest_run_ok(&pp_drv, c, st, 20);
    assert_true(s.rows == 0 && s.hash == 0);
    pp_drv.d->close(c);
}

/* ---- 4. configuration and connection errors ----------------------------- */

static void test_bad_options(void **state)
{
    static const struct {
        struct pgcb_option o;
        const char *want; /* in the message, besides key and value */
    } bad[] = {
        {{"bogus", "1"}, "unknown"},
        {{"sync", "always"}, "per_query"},
        {{"sync", ""}, "per_batch"},
        {{"max_in_flight", "0"}, "1000000"},
        {{"max_in_flight", "1000001"}, "1000000"},
        {{"max_in_flight", "99999999999999999999"}, "1000000"},
        {{"max_in_flight", "-1"}, "1000000"},
        {{"max_in_flight", "10x"}, "1000000"},
        {{"max_in_flight", " 10"}, "1000000"},
        {{"max_in_flight", ""}, "1000000"},
        {{"result_format", "xml"}, "binary"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct pgcb_conn *c = (struct pgcb_conn *)&c;
        char err[PGCB_ERRLEN] = "";
        assert_int_equal(pp_drv.d->open("", &bad[i].o, 1, &c, err, sizeof err), PGCB_ERR_CONFIG);
        assert_null(c);
        drvtest_assert_one_line(err);
        assert_non_null(strstr(err, bad[i].o.key));
        if (*bad[i].o.value)
            assert_non_null(strstr(err, bad[i].o.value));
        assert_non_null(strstr(err, bad[i].want));
    }
    /* the limits themselves are fine */
    {
        static const struct pgcb_option ok[] = {
            {"max_in_flight", "1000000"}, {"sync", "per_batch"}, {"result_format", "binary"}};
        struct pgcb_conn *c = drvtest_open_ok(&pp_drv, "", ok, 3);
        pp_drv.d->close(c);
    }
}

static void test_bad_conninfo(void **state)
{
    static const char *const bad[] = {
        "host=/nonexistent",
        "host=/nonexistent password=hunter2secret",
        "host=/nonexistent password=hunter2 secretpart", /* parse error quoting "secretpart" */
        "postgresql://u:hunter2secret@[::1",             /* parse error quoting the URI */
        "nonsense",
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct pgcb_conn *c = (struct pgcb_conn *)&c; /* must be overwritten with NULL */
        char err[PGCB_ERRLEN] = "";
        assert_int_equal(pp_drv.d->open(bad[i], NULL, 0, &c, err, sizeof err), PGCB_ERR_CONNECT);
        assert_null(c);
        drvtest_assert_one_line(err);
        assert_null(strstr(err, "hunter2"));
        assert_null(strstr(err, "secret"));
        if (i == 0)
            assert_non_null(strstr(err, "/nonexistent"));
    }
    pp_drv.d->close(NULL); /* accepted */
}

/* ---- 5. the connection killed ------------------------------------------- */

/* Terminate every backend whose application_name is `app`, and wait until
 * each is gone. Returns how many were terminated. */
static int kill_backends(const char *app)
{
    PGconn *pg = drvtest_admin_connect();
    const char *params[1] = {app};
    PGresult *r;
    int n;

    assert_non_null(pg);
    r = PQexecParams(pg,
                     "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
                     "WHERE application_name = $1 AND pid <> pg_backend_pid()",
                     1, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        print_error("terminate: %s", PQerrorMessage(pg));
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    n = PQntuples(r);
    for (int i = 0; i < n; i++)
        assert_string_equal(PQgetvalue(r, i, 0), "t");
    PQclear(r);
    PQfinish(pg);
    return n;
}

static void killed_between_batches(const struct pgcb_option *opts, size_t nopts, const char *sql)
{
    struct pgcb_conn *c = drvtest_open_ok(&pp_drv, "application_name=pgcb_pipe_kill", opts, nopts);
    struct pgcb_stmt *st = drvtest_prepare_ok(&pp_drv, c, "q", sql);
    char err[PGCB_ERRLEN];

    drvtest_run_ok(&pp_drv, c, st, 10);
    assert_int_equal(kill_backends("pgcb_pipe_kill"), 1);
    drvtest_run_fail(&pp_drv, c, st, 1000, PGCB_ERR_IO, err, sizeof err);
    drvtest_assert_one_line(err);
    assert_non_null(strstr(err, "connection lost"));
    /* a second attempt fails at once, the same way */
    drvtest_run_fail(&pp_drv, c, st, 1000, PGCB_ERR_IO, err, sizeof err);
    drvtest_assert_one_line(err);
    pp_drv.d->close(c);
}

static void test_killed_between_batches(void **state)
{
    static const struct pgcb_option pb[] = {{"sync", "per_batch"}};
    static const struct pgcb_option w7[] = {{"max_in_flight", "7"}};
    (void)state;
    killed_between_batches(NULL, 0, DRVTEST_BENCH_SQL "1");
    killed_between_batches(NULL, 0, DRVTEST_BENCH_SQL "500");
    killed_between_batches(pb, 1, DRVTEST_BENCH_SQL "500");
    killed_between_batches(w7, 1, DRVTEST_BENCH_SQL "500");
}

static void test_killed_mid_batch(void **state)
{
    static const struct pgcb_option pb[] = {{"sync", "per_batch"}};
    char err[PGCB_ERRLEN];

    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        struct pgcb_conn *c = drvtest_open_ok(&pp_drv, "", mode ? pb : NULL, mode ? 1 : 0);
        /* the 3rd execution kills its own backend at its row 203, with rows in flight */
        struct pgcb_stmt *st = drvtest_prepare_ok(
            &pp_drv, c, "suicide",
            "SELECT CASE WHEN nextval('pgcb_fail_seq') = 1203 "
            "THEN pg_terminate_backend(pg_backend_pid()) ELSE false END, "
            "string_value FROM benchmark_rows");
        restart_seq();
        drvtest_run_fail(&pp_drv, c, st, 1000, PGCB_ERR_IO, err, sizeof err);
        drvtest_assert_one_line(err);
        pp_drv.d->close(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptor),
        cmocka_unit_test(test_big_batch_default),
        cmocka_unit_test(test_big_batch_window_7),
        cmocka_unit_test(test_big_batch_per_batch),
        cmocka_unit_test(test_same_text_per_query),
        cmocka_unit_test(test_same_text_per_batch),
        cmocka_unit_test(test_same_binary_per_query),
        cmocka_unit_test(test_same_binary_per_batch),
        cmocka_unit_test(test_fail_per_query),
        cmocka_unit_test(test_fail_per_batch),
        cmocka_unit_test(test_bad_statements),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_bad_conninfo),
        cmocka_unit_test(test_killed_between_batches),
        cmocka_unit_test(test_killed_mid_batch),
    };
    return cmocka_run_group_tests_name("libpq_pipeline", tests, group_setup, group_teardown);
}
