/*
 * test_value_types.c -- the conversions of ABI 1.4 (pgcb/value.h,
 * lib/pgvalue: timestamp, timestamptz, date, time, interval, uuid, numeric,
 * json, jsonb, bytea, 1-D arrays of int4, int8, text, float8) against the
 * real server tests/run.sh started.
 *
 * 1. Text against binary: every edge case is fetched in both formats by
 *    libpq (PQexecParams, resultFormat 0 and 1) and folded with
 *    pgcb_value_fold; the two checksums must be equal. The binary form is
 *    the server's own count (microseconds, days, base-10000 digits), so the
 *    text parsers are checked against the server, not against themselves.
 *    Done under three TimeZone settings (UTC, +05:30, and Amsterdam's 1880
 *    offset of +00:19:32) for timestamptz.
 * 2. Absolute values: a few cases folded by hand with the pgcb_sum_*
 *    helpers (what the contract says the value is).
 * 3. Every shipped driver (libpq_sync, libpq_pipeline, rawwire; text and
 *    binary) over all the edge cases in one query: its checksum equals the
 *    one of 1.
 * 4. Bad input: a text timestamp the parser cannot read (DateStyle SQL)
 *    is PGCB_ERR_PROTOCOL naming row, column and type; an array of two
 *    dimensions is PGCB_ERR_UNSUPPORTED, in text and binary; the
 *    connection runs a query afterwards.
 *
 * Environment: PGHOST (required: without it the test FAILS), PGPORT, PGUSER,
 * PGDATABASE of a throw-away server; PGCB_BUILD, the build directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pgcb/value.h>

#include "../lib/drvtest.h"

/* The edge cases, one expression each (a column of one row). */
static const char *const cases[] = {
    /* timestamp */
    "'2000-01-01 00:00:00'::timestamp", "'1999-12-31 23:59:59.999999'::timestamp",
    "'0044-03-15 12:34:56.5 BC'::timestamp", "'4713-11-24 00:00:00 BC'::timestamp",
    "'294276-12-31 23:59:59.999999'::timestamp", "'infinity'::timestamp",
    "'-infinity'::timestamp", "'2024-02-29 12:00:00.000001'::timestamp",
    "'10000-01-01 00:00:00'::timestamp", "'1900-03-01 01:02:03.04'::timestamp",
    "NULL::timestamp",
    /* timestamptz */
    "'2000-01-01 00:00:00+00'::timestamptz", "'2000-01-01 00:00:00+05:30'::timestamptz",
    "'1880-01-01 00:00:00+00'::timestamptz", "'0044-03-15 12:00:00+00 BC'::timestamptz",
    "'infinity'::timestamptz", "'-infinity'::timestamptz",
    "'2021-03-28 01:59:59.999999+00'::timestamptz", "'294276-12-31 23:59:59+00'::timestamptz",
    /* date */
    "'2000-01-01'::date", "'0001-01-01 BC'::date", "'4713-01-01 BC'::date",
    "'5874897-12-31'::date", "'infinity'::date", "'-infinity'::date", "'1900-02-28'::date",
    "'2000-02-29'::date", "'1999-12-31'::date",
    /* time */
    "'00:00:00'::time", "'24:00:00'::time", "'23:59:59.999999'::time", "'12:00:00.5'::time",
    /* interval */
    "'0'::interval", "'1 year 2 mons 3 days 04:05:06.789'::interval",
    "'-1 years -2 mons +3 days -04:05:06'::interval", "'-00:00:00.000001'::interval",
    "'178000000 years'::interval", "'2562047788 hours 54.775807 seconds'::interval",
    "'1 day'::interval", "'-1 mon'::interval", "'100 days 100:00:00'::interval",
    "'-178000000 years -2147483648 days'::interval",
    /* uuid */
    "'00000000-0000-0000-0000-000000000000'::uuid", "'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid",
    "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid",
    /* numeric */
    "'0'::numeric", "'0.000'::numeric", "'-0.5'::numeric", "'123.4500'::numeric",
    "'NaN'::numeric", "'Infinity'::numeric", "'-Infinity'::numeric", "1e-30::numeric",
    "10::numeric ^ 100", "repeat('9', 1000)::numeric",
    "('-' || repeat('9', 500) || '.' || repeat('1', 300))::numeric", "0.0001::numeric",
    "10000::numeric", "99999999.99999999::numeric", "1e1000::numeric", "round(2::numeric/3, 40)",
    "(-1)::numeric(10, 5)", "1234567890123456789012345678901234567890::numeric",
    /* json, jsonb */
    "'{}'::json", "'[]'::json", "'{\"a\": 1,   \"b\":[1,2]}'::json",
    "'\"\\u00e9\\ud83d\\ude00 é😀\"'::json", "'{\"b\": 1, \"a\": [1, 2.50, null, \"x\\\"y\"]}'::jsonb",
    "'\"é😀\"'::jsonb", "'{\"a\": {\"a\": {}}, \"aa\": 1, \"a\": 2}'::jsonb", "'null'::jsonb",
    /* bytea */
    "''::bytea", "'\\x00ff'::bytea",
    "(SELECT decode(string_agg(lpad(to_hex(i), 2, '0'), '' ORDER BY i), 'hex') "
    "FROM generate_series(0, 255) i)",
    "decode(repeat('ab01', 250000), 'hex')",
    /* arrays */
    "'{}'::int4[]", "'{1,NULL,-2147483648,2147483647}'::int4[]", "'[0:2]={1,2,3}'::int4[]",
    "'[-5:-4]={7,8}'::int4[]", "'{-9223372036854775808,9223372036854775807,NULL}'::int8[]",
    "'{}'::int8[]",
    "ARRAY['', 'NULL', NULL, 'a,b', '{', '\\', '\"', ' sp ', 'é😀', 'plain', 'null', 'a}b']::text[]",
    "'{}'::text[]", "'{NaN,Infinity,-Infinity,-0,1.5e300,NULL,0.1}'::float8[]",
    "(SELECT array_agg(i) FROM generate_series(1, 100) i)",
    "(SELECT array_agg(i::int8 * 100000000000) FROM generate_series(-50, 49) i)",
    "(SELECT array_agg(md5(i::text)) FROM generate_series(1, 100) i)",
    "(SELECT array_agg(i / 7.0::float8) FROM generate_series(1, 100) i)",
    "ARRAY[NULL]::int4[]", "'[2:2]={\"x\"}'::text[]",
};
#define NCASES (sizeof cases / sizeof cases[0])

static locale_t c_loc;

/* Fold one fetched value (a NULL, or pgcb_value_fold by its type and
 * format); returns pgcb_value_fold's result. */
static int fold_value(const PGresult *res, int r, int col, struct pgcb_sum *s)
{
    if (PQgetisnull(res, r, col)) {
        pgcb_sum_null(s);
        return 0;
    }
    enum pgcb_value_kind k = pgcb_value_kind_of(PQftype(res, col), PQfformat(res, col));
    return pgcb_value_fold(s, k, PQgetvalue(res, r, col), (size_t)PQgetlength(res, r, col), c_loc);
}

/* SELECT expr in format `fmt`, folded; asserts the fold succeeded. */
static struct pgcb_sum fetch_fold(PGconn *pg, const char *expr, int fmt)
{
    char sql[4096];
    struct pgcb_sum s = {0, 0};
    snprintf(sql, sizeof sql, "SELECT %s", expr);
    PGresult *res = PQexecParams(pg, sql, 0, NULL, NULL, NULL, NULL, fmt);
    if (PQresultStatus(res) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(pg));
    int rc = fold_value(res, 0, 0, &s);
    if (rc != 0) {
        int len = PQgetlength(res, 0, 0);
        fail_msg("%s (%s): pgcb_value_fold = %d for %.*s", expr, fmt ? "binary" : "text", rc,
                 len > 200 ? 200 : len, fmt ? "(binary)" : PQgetvalue(res, 0, 0));
    }
    /* the kind is not the text fallback: the type is converted */
    assert_int_not_equal(pgcb_value_kind_of(PQftype(res, 0), fmt), PGCB_VALUE_TEXT);
    PQclear(res);
    return s;
}

static PGconn *connect_tz(const char *tz)
{
    char ci[128];
    snprintf(ci, sizeof ci, "options='-c TimeZone=%s'", tz);
    PGconn *pg = PQconnectdb(ci);
    if (PQstatus(pg) != CONNECTION_OK)
        fail_msg("connect: %s", PQerrorMessage(pg));
    return pg;
}

static void text_equals_binary(const char *tz)
{
    PGconn *pg = connect_tz(tz);
    for (size_t i = 0; i < NCASES; i++) {
        struct pgcb_sum t = fetch_fold(pg, cases[i], 0), b = fetch_fold(pg, cases[i], 1);
        if (t.hash != b.hash)
            fail_msg("TimeZone %s, %s: text folds %016llx, binary %016llx", tz, cases[i],
                     (unsigned long long)t.hash, (unsigned long long)b.hash);
    }
    PQfinish(pg);
}

static void test_text_equals_binary_utc(void **state)
{
    (void)state;
    text_equals_binary("UTC");
}

static void test_text_equals_binary_kolkata(void **state)
{
    (void)state;
    text_equals_binary("Asia/Kolkata");
}

static void test_text_equals_binary_amsterdam(void **state)
{
    (void)state;
    text_equals_binary("Europe/Amsterdam");
}

/* ---- 2. absolute values -------------------------------------------------- */

static void expect(PGconn *pg, const char *expr, struct pgcb_sum want)
{
    for (int fmt = 0; fmt <= 1; fmt++) {
        struct pgcb_sum got = fetch_fold(pg, expr, fmt);
        if (got.hash != want.hash)
            fail_msg("%s (%s): folds %016llx, expected %016llx", expr, fmt ? "binary" : "text",
                     (unsigned long long)got.hash, (unsigned long long)want.hash);
    }
}

static void test_absolute_values(void **state)
{
    (void)state;
    PGconn *pg = connect_tz("Asia/Kolkata");
    struct pgcb_sum w;

#define W(stmt) (w = (struct pgcb_sum){0, 0}, stmt, w)
    expect(pg, "'2000-01-02'::date", W(pgcb_sum_date(&w, 1)));
    expect(pg, "'1999-12-31'::date", W(pgcb_sum_date(&w, -1)));
    expect(pg, "'0001-01-01'::date", W(pgcb_sum_date(&w, -730119)));
    expect(pg, "'infinity'::date", W(pgcb_sum_date(&w, INT32_MAX)));
    expect(pg, "'2000-01-01 00:00:01.5'::timestamp", W(pgcb_sum_timestamp(&w, 1500000)));
    expect(pg, "'-infinity'::timestamp", W(pgcb_sum_timestamp(&w, INT64_MIN)));
    expect(pg, "'2000-01-01 00:00:00+01'::timestamptz",
           W(pgcb_sum_timestamptz(&w, -INT64_C(3600000000))));
    expect(pg, "'12:00:00.000001'::time", W(pgcb_sum_time(&w, INT64_C(43200000001))));
    expect(pg, "'1 year 2 mons 3 days 00:00:01'::interval",
           W(pgcb_sum_interval(&w, 1000000, 3, 14)));
    expect(pg, "'-1 days +00:00:02'::interval", W(pgcb_sum_interval(&w, 2000000, -1, 0)));
    expect(pg, "'-123.4500'::numeric", W(pgcb_sum_numeric(&w, PGCB_NUMERIC_NEG, 4, "1234500", 7)));
    expect(pg, "'0.00'::numeric", W(pgcb_sum_numeric(&w, PGCB_NUMERIC_POS, 2, "0", 1)));
    expect(pg, "'0.0012'::numeric", W(pgcb_sum_numeric(&w, PGCB_NUMERIC_POS, 4, "12", 2)));
    expect(pg, "'10000'::numeric", W(pgcb_sum_numeric(&w, PGCB_NUMERIC_POS, 0, "10000", 5)));
    expect(pg, "'NaN'::numeric", W(pgcb_sum_numeric(&w, PGCB_NUMERIC_NAN, 0, "", 0)));
    expect(pg, "'-Infinity'::numeric", W(pgcb_sum_numeric(&w, PGCB_NUMERIC_NINF, 0, "", 0)));
    expect(pg, "'{\"a\":  1}'::jsonb", W(pgcb_sum_json(&w, "{\"a\": 1}", 8)));
    expect(pg, "'{\"a\":  1}'::json", W(pgcb_sum_json(&w, "{\"a\":  1}", 9)));
    expect(pg, "'\\x00ff41'::bytea", W(pgcb_sum_bytea(&w, "\0\377A", 3)));
    {
        static const unsigned char u[16] = {0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8,
                                            0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11};
        expect(pg, "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", W(pgcb_sum_uuid(&w, u)));
    }
    expect(pg, "'[0:2]={1,NULL,3}'::int4[]",
           W((pgcb_sum_array(&w, 3, 0), pgcb_sum_int(&w, 1), pgcb_sum_null(&w),
              pgcb_sum_int(&w, 3))));
    expect(pg, "ARRAY['a\"b', NULL, '']::text[]",
           W((pgcb_sum_array(&w, 3, 1), pgcb_sum_text(&w, "a\"b", 3), pgcb_sum_null(&w),
              pgcb_sum_text(&w, "", 0))));
    expect(pg, "'{}'::float8[]", W(pgcb_sum_array(&w, 0, 1)));
    expect(pg, "'{-0,NaN}'::float8[]",
           W((pgcb_sum_array(&w, 2, 1), pgcb_sum_float8(&w, -0.0), pgcb_sum_float8(&w, 0.0 / 0.0))));
#undef W
    PQfinish(pg);
}

/* ---- 3. every driver over all the cases ----------------------------------- */

struct drv_cfg {
    const char *name, *label;
    struct pgcb_option opt;
};

static const struct drv_cfg drivers[] = {
    {"libpq_sync", "libpq_sync text", {"result_format", "text"}},
    {"libpq_sync", "libpq_sync binary", {"result_format", "binary"}},
    {"libpq_pipeline", "libpq_pipeline text", {"result_format", "text"}},
    {"libpq_pipeline", "libpq_pipeline binary", {"result_format", "binary"}},
    {"rawwire", "rawwire text", {"result_format", "text"}},
    {"rawwire", "rawwire binary", {"result_format", "binary"}},
};

/* SELECT of every case, as columns c1 .. cN of one row. */
static char *all_cases_sql(void)
{
    size_t cap = 64;
    for (size_t i = 0; i < NCASES; i++)
        cap += strlen(cases[i]) + 16;
    char *sql = malloc(cap);
    size_t n = (size_t)snprintf(sql, cap, "SELECT ");
    for (size_t i = 0; i < NCASES; i++)
        n += (size_t)snprintf(sql + n, cap - n, "%s%s AS c%zu", i ? ", " : "", cases[i], i + 1);
    return sql;
}

static void test_every_driver(void **state)
{
    (void)state;
    char *sql = all_cases_sql();
    PGconn *pg = connect_tz("UTC");
    struct pgcb_sum want[2] = {{0, 0}, {0, 0}}; /* depth 1 and 3 */

    /* what the fold of the cases is, from libpq's text results (1. proved
     * binary gives the same): the row once, and three times */
    PGresult *res = PQexec(pg, sql);
    assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
    for (int rep = 0; rep < 3; rep++) {
        for (int col = 0; col < PQnfields(res); col++)
            assert_int_equal(fold_value(res, 0, col, &want[1]), 0);
        pgcb_sum_row(&want[1]);
        if (rep == 0)
            want[0] = want[1];
    }
    PQclear(res);
    PQfinish(pg);

    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
        struct drvtest_drv t;
        if (drvtest_load(&t, drivers[i].name))
            fail_msg("%s: cannot load", drivers[i].label);
        struct pgcb_conn *c = drvtest_open_ok(&t, "options='-c TimeZone=UTC'", &drivers[i].opt, 1);
        struct pgcb_stmt *st = drvtest_prepare_ok(&t, c, "all_types", sql);
        for (int k = 0; k < 2; k++) {
            uint32_t depth = k ? 3 : 1;
            struct pgcb_sum got = drvtest_run_ok(&t, c, st, depth);
            if (got.hash != want[k].hash || got.rows != want[k].rows)
                fail_msg("%s depth %u: checksum %016llx rows %llu, expected %016llx rows %llu",
                         drivers[i].label, depth, (unsigned long long)got.hash,
                         (unsigned long long)got.rows, (unsigned long long)want[k].hash,
                         (unsigned long long)want[k].rows);
        }
        t.d->close(c);
        drvtest_unload(&t);
    }
    free(sql);
}

/* ---- 4. bad input ------------------------------------------------------- */

static void test_bad_values(void **state)
{
    (void)state;
    char err[PGCB_ERRLEN];
    static const struct pgcb_option text = {"result_format", "text"}, bin = {"result_format", "binary"};

    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
        struct drvtest_drv t;
        int binary = strcmp(drivers[i].opt.value, "binary") == 0;
        if (drvtest_load(&t, drivers[i].name))
            fail_msg("%s: cannot load", drivers[i].label);

        /* an array of two dimensions: unsupported, in either format */
        struct pgcb_conn *c = drvtest_open_ok(&t, "", binary ? &bin : &text, 1);
        struct pgcb_stmt *md = drvtest_prepare_ok(
            &t, c, "md", "SELECT 1 AS a, '{{1,2},{3,4}}'::int4[] AS m FROM generate_series(1, 3)");
        struct pgcb_stmt *ok = drvtest_prepare_ok(&t, c, "ok", "SELECT 7::int4");
        drvtest_run_fail(&t, c, md, 1, PGCB_ERR_UNSUPPORTED, err, sizeof err);
        drvtest_assert_one_line(err);
        if (!strstr(err, "row 1") || !strstr(err, "column 2") || !strstr(err, "int4[]") ||
            !strstr(err, "more than one dimension"))
            fail_msg("%s: unsupported array message: %s", drivers[i].label, err);
        /* the connection is usable after it */
        struct pgcb_sum s = drvtest_run_ok(&t, c, ok, 1);
        assert_int_equal(s.rows, 1);
        t.d->close(c);

        /* a text timestamp in a DateStyle the parser does not read */
        if (!binary) {
            c = drvtest_open_ok(&t, "options='-c DateStyle=SQL,DMY'", &text, 1);
            struct pgcb_stmt *ts = drvtest_prepare_ok(
                &t, c, "ts",
                "SELECT i, ('2000-01-01'::timestamp + i * interval '1 day') AS t "
                "FROM generate_series(1, 2) i");
            drvtest_run_fail(&t, c, ts, 1, PGCB_ERR_PROTOCOL, err, sizeof err);
            drvtest_assert_one_line(err);
            if (!strstr(err, "row 1") || !strstr(err, "column 2") ||
                !strstr(err, "text timestamp"))
                fail_msg("%s: malformed timestamp message: %s", drivers[i].label, err);
            t.d->close(c);
        }
        drvtest_unload(&t);
    }
}

static int setup(void **state)
{
    (void)state;
    if (drvtest_require_server("test_value_types"))
        return -1;
    c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    return c_loc ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    if (c_loc)
        freelocale(c_loc);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_equals_binary_utc),
        cmocka_unit_test(test_text_equals_binary_kolkata),
        cmocka_unit_test(test_text_equals_binary_amsterdam),
        cmocka_unit_test(test_absolute_values),
        cmocka_unit_test(test_every_driver),
        cmocka_unit_test(test_bad_values),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
