/*
 * test_libpq_sync.c -- the libpq_sync driver (and the null driver's
 * checksum) against a real PostgreSQL server.
 *
 * Environment: PGHOST (required: without it the test FAILS, it does not
 * skip), PGPORT, PGUSER, PGDATABASE of a throw-away server whose
 * benchmark_rows table this test drops and re-creates; PGCB_BUILD, the build
 * directory holding drivers/NAME.so (default "build").
 *
 * Expected checksums are computed here by folding the expected values with
 * the pgcb_sum_*() helpers of driver.h, independently of the drivers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

#define BENCH_SQL \
    "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT "

/* A loaded driver. */
struct tdrv {
    void *dl;
    const struct pgcb_driver *d;
};

static struct tdrv pq_drv, null_drv;

static const struct pgcb_option opt_binary[] = {{"result_format", "binary"}};

/* ---- helpers ------------------------------------------------------------ */

static int load_driver(struct tdrv *t, const char *name)
{
    const char *b = getenv("PGCB_BUILD");
    char path[4096];
    pgcb_driver_entry_fn entry;

    snprintf(path, sizeof path, "%s/drivers/%s.so", b && *b ? b : "build", name);
    t->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!t->dl) {
        print_error("dlopen %s: %s\n", path, dlerror());
        return -1;
    }
    *(void **)&entry = dlsym(t->dl, PGCB_DRIVER_ENTRY_SYMBOL);
    if (!entry || !(t->d = entry()) || t->d->magic != PGCB_DRIVER_MAGIC ||
        t->d->abi_major != PGCB_ABI_MAJOR || t->d->struct_size < PGCB_DRIVER_SIZE_1_0) {
        print_error("%s: no valid %s\n", path, PGCB_DRIVER_ENTRY_SYMBOL);
        return -1;
    }
    return 0;
}

static int admin_exec(PGconn *pg, const char *sql)
{
    PGresult *r = PQexec(pg, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok)
        print_error("%s: %s", sql, PQerrorMessage(pg));
    PQclear(r);
    return ok ? 0 : -1;
}

static int create_table(void)
{
    PGconn *pg = PQconnectdb("");
    int rc = -1;

    if (PQstatus(pg) != CONNECTION_OK)
        print_error("connect: %s", PQerrorMessage(pg));
    else
        rc = admin_exec(pg, "SET client_min_messages = warning") ||
             admin_exec(pg, "DROP TABLE IF EXISTS benchmark_rows") ||
             admin_exec(pg, "CREATE TABLE benchmark_rows (id int PRIMARY KEY, int_value int NOT NULL, "
                            "string_value text NOT NULL, null_value int, bool_value bool NOT NULL)") ||
             admin_exec(pg, "INSERT INTO benchmark_rows SELECT i, 1337, 'wat', NULL, false "
                            "FROM generate_series(1, 500) AS i");
    PQfinish(pg);
    return rc;
}

static int group_setup(void **state)
{
    const char *host = getenv("PGHOST");

    (void)state;
    if (!host || !*host) {
        print_error("PGHOST is not set: test_libpq_sync needs a throw-away PostgreSQL server "
                    "(PGHOST, PGPORT, PGUSER, PGDATABASE); it fails rather than skip\n");
        return -1;
    }
    if (load_driver(&pq_drv, "libpq_sync") || load_driver(&null_drv, "null"))
        return -1;
    return create_table();
}

static int group_teardown(void **state)
{
    (void)state;
    if (pq_drv.dl)
        dlclose(pq_drv.dl);
    if (null_drv.dl)
        dlclose(null_drv.dl);
    return 0;
}

static struct pgcb_conn *open_ok(const struct tdrv *t, const struct pgcb_option *opts, size_t n)
{
    struct pgcb_conn *c = NULL;
    char err[PGCB_ERRLEN] = "";
    int rc = t->d->open("", opts, n, &c, err, sizeof err);
    if (rc != PGCB_OK)
        print_error("open: %d %s\n", rc, err);
    assert_int_equal(rc, PGCB_OK);
    assert_non_null(c);
    return c;
}

static struct pgcb_stmt *prepare_ok(const struct tdrv *t, struct pgcb_conn *c, const char *name,
                                    const char *sql)
{
    struct pgcb_stmt *st = NULL;
    char err[PGCB_ERRLEN] = "";
    int rc = t->d->prepare(c, name, sql, &st, err, sizeof err);
    if (rc != PGCB_OK)
        print_error("prepare %s: %d %s\n", sql, rc, err);
    assert_int_equal(rc, PGCB_OK);
    assert_non_null(st);
    return st;
}

static struct pgcb_sum run_ok(const struct tdrv *t, struct pgcb_conn *c, struct pgcb_stmt *st,
                              uint32_t depth)
{
    struct pgcb_sum s = {0, 0};
    char err[PGCB_ERRLEN] = "";
    int rc = t->d->run_batch(c, st, depth, &s, err, sizeof err);
    if (rc != PGCB_OK)
        print_error("run_batch: %d %s\n", rc, err);
    assert_int_equal(rc, PGCB_OK);
    return s;
}

/* An error message as the ABI wants it: non-empty, one line. */
static void assert_one_line(const char *err)
{
    assert_true(err[0] != '\0');
    assert_null(strchr(err, '\n'));
    assert_null(strchr(err, '\r'));
}

/* The benchmark rows 1..n, depth times. */
static struct pgcb_sum expect_rows(uint32_t n, uint32_t depth)
{
    struct pgcb_sum s = {0, 0};
    for (uint32_t d = 0; d < depth; d++)
        for (uint32_t i = 1; i <= n; i++) {
            pgcb_sum_int(&s, i);
            pgcb_sum_int(&s, 1337);
            pgcb_sum_text(&s, "wat", 3);
            pgcb_sum_null(&s);
            pgcb_sum_bool(&s, 0);
            pgcb_sum_row(&s);
        }
    return s;
}

static const uint32_t limits[] = {1, 100, 500};
static const uint32_t depths[] = {1, 3};

/* Every LIMIT and depth on a connection of driver t; returns the checksum of
 * LIMIT 500 depth 3 for cross-driver comparison. */
static struct pgcb_sum check_bench_rows(const struct tdrv *t, const struct pgcb_option *opts,
                                        size_t nopts)
{
    struct pgcb_conn *c = open_ok(t, opts, nopts);
    struct pgcb_sum last = {0, 0};

    for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
        char name[32], sql[256];
        snprintf(name, sizeof name, "bench_%u", limits[l]);
        snprintf(sql, sizeof sql, BENCH_SQL "%u", limits[l]);
        struct pgcb_stmt *st = prepare_ok(t, c, name, sql);
        for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
            struct pgcb_sum want = expect_rows(limits[l], depths[d]);
            for (int again = 0; again < 2; again++) { /* repeatable */
                struct pgcb_sum got = run_ok(t, c, st, depths[d]);
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

/* The brief's mixed query, numeric included (text format only). */
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
    pgcb_sum_text(&s, "12.50", 5);
    pgcb_sum_null(&s);
    pgcb_sum_bool(&s, 1);
    pgcb_sum_row(&s);
    return s;
}

/* Edges of every converted type; foldable in both formats. */
#define TYPES_SQL                                                                        \
    "SELECT (-9223372036854775808)::int8, (-2147483648)::int4, (-1)::int2, 0::int8, "     \
    "'-Infinity'::float4, 'Infinity'::float8, '-0'::float8, 0.1::float8, 0.1::float4, "   \
    "3.4028235e38::float4, 'ab'::char(4), 'wat'::varchar, 'nm'::name, ''::text, "         \
    "NULL::text, false, NULL::bool "                                                     \
    "UNION ALL SELECT 1::int8, 2::int4, 3::int2, (-4)::int8, 'NaN'::float4, '-1e-300'::float8, " \
    "1e300::float8, (-2.5)::float8, 1e-30::float4, 1::float4, 'x'::char(4), 'y'::varchar, "   \
    "'z'::name, 'w'::text, 'v'::text, true, true"

static void fold_types(struct pgcb_sum *s)
{
    pgcb_sum_int(s, INT64_MIN);
    pgcb_sum_int(s, INT32_MIN);
    pgcb_sum_int(s, -1);
    pgcb_sum_int(s, 0);
    pgcb_sum_float4(s, -INFINITY);
    pgcb_sum_float8(s, INFINITY);
    pgcb_sum_float8(s, -0.0);
    pgcb_sum_float8(s, 0.1);
    pgcb_sum_float4(s, 0.1f);
    pgcb_sum_float4(s, 3.4028235e38f);
    pgcb_sum_text(s, "ab  ", 4); /* bpchar keeps its padding */
    pgcb_sum_text(s, "wat", 3);
    pgcb_sum_text(s, "nm", 2);
    pgcb_sum_text(s, "", 0);
    pgcb_sum_null(s);
    pgcb_sum_bool(s, 0);
    pgcb_sum_null(s);
    pgcb_sum_row(s);

    pgcb_sum_int(s, 1);
    pgcb_sum_int(s, 2);
    pgcb_sum_int(s, 3);
    pgcb_sum_int(s, -4);
    pgcb_sum_float4(s, NAN);
    pgcb_sum_float8(s, -1e-300);
    pgcb_sum_float8(s, 1e300);
    pgcb_sum_float8(s, -2.5);
    pgcb_sum_float4(s, 1e-30f);
    pgcb_sum_float4(s, 1.0f);
    pgcb_sum_text(s, "x   ", 4);
    pgcb_sum_text(s, "y", 1);
    pgcb_sum_text(s, "z", 1);
    pgcb_sum_text(s, "w", 1);
    pgcb_sum_text(s, "v", 1);
    pgcb_sum_bool(s, 1);
    pgcb_sum_bool(s, 1);
    pgcb_sum_row(s);
}

static struct pgcb_sum expect_types(uint32_t depth)
{
    struct pgcb_sum s = {0, 0};
    for (uint32_t d = 0; d < depth; d++)
        fold_types(&s);
    return s;
}

static void test_types_text(void **state)
{
    struct pgcb_conn *c = open_ok(&pq_drv, NULL, 0);
    struct pgcb_stmt *st;
    struct pgcb_sum got, want;

    (void)state;
    st = prepare_ok(&pq_drv, c, "types_numeric", TYPES_SQL_NUMERIC);
    got = run_ok(&pq_drv, c, st, 1);
    want = expect_types_numeric();
    assert_true(got.rows == 1 && got.hash == want.hash);

    st = prepare_ok(&pq_drv, c, "types", TYPES_SQL);
    for (uint32_t depth = 1; depth <= 3; depth += 2) {
        got = run_ok(&pq_drv, c, st, depth);
        want = expect_types(depth);
        assert_true(got.rows == 2 * depth && got.hash == want.hash);
    }
    pq_drv.d->close(c);
}

static void test_types_binary(void **state)
{
    struct pgcb_conn *c = open_ok(&pq_drv, opt_binary, 1);
    struct pgcb_stmt *st = NULL;
    struct pgcb_sum got, want = expect_types(1);
    char err[PGCB_ERRLEN] = "";
    int rc;

    (void)state;
    /* numeric in binary: refused at prepare, naming the column and type */
    rc = pq_drv.d->prepare(c, "types", TYPES_SQL_NUMERIC, &st, err, sizeof err);
    assert_int_equal(rc, PGCB_ERR_UNSUPPORTED);
    assert_null(st);
    assert_one_line(err);
    assert_non_null(strstr(err, "\"amount\""));
    assert_non_null(strstr(err, "numeric"));

    /* the refused statement was deallocated: its name can be used again */
    st = prepare_ok(&pq_drv, c, "types", TYPES_SQL);
    got = run_ok(&pq_drv, c, st, 1);
    assert_true(got.rows == 2 && got.hash == want.hash);
    pq_drv.d->close(c);
}

/* ---- errors ------------------------------------------------------------- */

static void test_bad_statement(void **state)
{
    struct pgcb_conn *c = open_ok(&pq_drv, NULL, 0);
    struct pgcb_stmt *st = NULL, *good;
    struct pgcb_sum s = {0, 0}, want = expect_rows(100, 1);
    char err[PGCB_ERRLEN] = "";
    int rc;

    (void)state;
    rc = pq_drv.d->prepare(c, "missing", "SELECT * FROM no_such_table", &st, err, sizeof err);
    assert_int_equal(rc, PGCB_ERR_QUERY);
    assert_null(st);
    assert_one_line(err);
    assert_memory_equal(err, "42P01: ", 7);

    /* usable afterwards */
    good = prepare_ok(&pq_drv, c, "good", BENCH_SQL "100");
    s = run_ok(&pq_drv, c, good, 1);
    assert_true(s.hash == want.hash);

    /* an error while executing: division by zero on the server */
    st = prepare_ok(&pq_drv, c, "div0", "SELECT 1 / (id - id) FROM benchmark_rows LIMIT 1");
    memset(&s, 0, sizeof s);
    rc = pq_drv.d->run_batch(c, st, 3, &s, err, sizeof err);
    assert_int_equal(rc, PGCB_ERR_QUERY);
    assert_one_line(err);
    assert_memory_equal(err, "22012: ", 7);
    s = run_ok(&pq_drv, c, good, 1);
    assert_true(s.hash == want.hash);

    /* a statement with parameters cannot be run without values */
    st = NULL;
    rc = pq_drv.d->prepare(c, "param", "SELECT $1::int", &st, err, sizeof err);
    assert_int_equal(rc, PGCB_ERR_UNSUPPORTED);
    assert_one_line(err);

    /* a write without rows: PGRES_COMMAND_OK, zero rows */
    st = prepare_ok(&pq_drv, c, "upd", "UPDATE benchmark_rows SET int_value = 1337 WHERE id = 0");
    s = run_ok(&pq_drv, c, st, 2);
    assert_true(s.rows == 0 && s.hash == 0);
    pq_drv.d->close(c);
}

static void test_broken_connection_is_io(void **state)
{
    struct pgcb_conn *c = open_ok(&pq_drv, NULL, 0);
    struct pgcb_stmt *st = prepare_ok(&pq_drv, c, "kill", "SELECT pg_terminate_backend(pg_backend_pid())");
    struct pgcb_sum s = {0, 0};
    char err[PGCB_ERRLEN] = "";

    (void)state;
    assert_int_equal(pq_drv.d->run_batch(c, st, 1, &s, err, sizeof err), PGCB_ERR_IO);
    assert_one_line(err);
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
    assert_one_line(err);
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
        assert_one_line(err);
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
    assert_one_line(err);
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
    struct pgcb_conn *c = open_ok(&null_drv, opts, 2);
    struct pgcb_stmt *norows = prepare_ok(&null_drv, c, "a", "SELECT * FROM benchmark_rows");
    struct pgcb_stmt *lim = prepare_ok(&null_drv, c, "b",
                                       "select * from (select * from t limit 3) x Limit\n42");
    struct pgcb_sum s, want7 = expect_rows(7, 2), want42 = expect_rows(42, 1);
    char err[PGCB_ERRLEN] = "";

    (void)state;
    s = run_ok(&null_drv, c, norows, 2);
    assert_true(s.rows == 14 && s.hash == want7.hash);
    s = run_ok(&null_drv, c, lim, 1);
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
