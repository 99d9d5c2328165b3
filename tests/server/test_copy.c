/*
 * test_copy.c -- run_copy (ABI 1.4) of libpq_sync, libpq_pipeline and
 * rawwire against the real PostgreSQL tests/run.sh started.
 *
 * The payloads are what the server itself makes of a mixed-type source
 * table (COPY (...) TO STDOUT, text and binary, on the test's own libpq
 * session). Each driver copies them into an empty target: the server's row
 * count must be the payload's, and the target read back through the driver
 * must fold to the same checksum as the source through the same driver.
 * Bad input: a COPY into a missing table is PGCB_ERR_QUERY "42P01: ..." and
 * a payload with a column too many "22P04: ...", each one line, and the
 * connection runs a query and a good COPY afterwards; a statement that is
 * not a COPY FROM STDIN is PGCB_ERR_UNSUPPORTED, the connection usable; the
 * drivers without run_copy (floor, null, the bridge) leave the slot NULL.
 *
 * Environment: PGHOST (required: without it the test FAILS), PGPORT, PGUSER,
 * PGDATABASE of a throw-away server (the test makes tables named pgcbt_copy_*);
 * PGCB_BUILD, the build directory (default "build").
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pgcb/driver.h>

#include "../lib/drvtest.h"

#define SRC_ROWS 3000
#define SRC_SQL "SELECT * FROM pgcbt_copy_src ORDER BY id"
#define BACK_SQL "SELECT * FROM pgcbt_copy_dst ORDER BY 1"
#define COPY_TEXT "COPY pgcbt_copy_dst FROM STDIN (FORMAT text)"
#define COPY_BINARY "COPY pgcbt_copy_dst FROM STDIN (FORMAT binary)"

static struct drvtest_drv pq_drv, pp_drv, rw_drv;
static char *payload[2];        /* text, binary */
static size_t payload_len[2];

static const struct pgcb_option o_binary[] = {{"result_format", "binary"}};

/* Binary-result connections read back every column too: numeric and
 * timestamptz are converted in binary since ABI 1.4 (pgcb/value.h). */
#define SRC_BIN SRC_SQL
#define BACK_BIN BACK_SQL

struct cfg {
    const char *label;
    struct drvtest_drv *drv;
    const struct pgcb_option *opts;
    size_t nopts;
    const char *src, *back;
};

static const struct cfg cfgs[] = {
    {"libpq_sync", &pq_drv, NULL, 0, SRC_SQL, BACK_SQL},
    {"libpq_sync binary", &pq_drv, o_binary, 1, SRC_BIN, BACK_BIN},
    {"libpq_pipeline", &pp_drv, NULL, 0, SRC_SQL, BACK_SQL},
    {"libpq_pipeline binary", &pp_drv, o_binary, 1, SRC_BIN, BACK_BIN},
    {"rawwire", &rw_drv, NULL, 0, SRC_SQL, BACK_SQL},
    {"rawwire binary", &rw_drv, o_binary, 1, SRC_BIN, BACK_BIN},
};
#define NCFGS (sizeof cfgs / sizeof cfgs[0])

/* COPY (SRC_SQL) TO STDOUT in `fmt` on pg: a new buffer, its length in *n. */
static char *fetch_payload(PGconn *pg, const char *fmt, size_t *n)
{
    char sql[256];
    snprintf(sql, sizeof sql, "COPY (%s) TO STDOUT (FORMAT %s)", SRC_SQL, fmt);
    PGresult *res = PQexec(pg, sql);
    if (PQresultStatus(res) != PGRES_COPY_OUT) {
        print_error("%s: %s", sql, PQerrorMessage(pg));
        PQclear(res);
        return NULL;
    }
    PQclear(res);
    size_t cap = 1 << 20, len = 0;
    char *out = malloc(cap), *buf;
    int got;
    while ((got = PQgetCopyData(pg, &buf, 0)) > 0) {
        if (len + (size_t)got > cap)
            out = realloc(out, cap = 2 * (len + (size_t)got));
        memcpy(out + len, buf, (size_t)got);
        len += (size_t)got;
        PQfreemem(buf);
    }
    while ((res = PQgetResult(pg)) != NULL)
        PQclear(res);
    *n = len;
    return out;
}

static int group_setup(void **state)
{
    (void)state;
    if (drvtest_require_server("test_copy") || drvtest_load(&pq_drv, "libpq_sync") ||
        drvtest_load(&pp_drv, "libpq_pipeline") || drvtest_load(&rw_drv, "rawwire"))
        return -1;
    PGconn *pg = drvtest_admin_connect();
    if (!pg)
        return -1;
    /* Mixed types, NULLs, tabs, newlines, backslashes and non-ASCII text
     * (what the text format escapes), a row longer than a CopyData chunk. */
    int rc = drvtest_admin_exec(pg,
        "DROP TABLE IF EXISTS pgcbt_copy_src, pgcbt_copy_dst, pgcbt_copy_narrow; "
        "CREATE TABLE pgcbt_copy_src (id int PRIMARY KEY, t text, n numeric(12,3), "
        "b bool, f float8, ts timestamptz, big bigint); "
        "INSERT INTO pgcbt_copy_src SELECT i, CASE WHEN i % 11 = 0 THEN NULL "
        "WHEN i % 7 = 0 THEN E'tab\\there\\nnew line \\\\ größe ' || i "
        "WHEN i = 1500 THEN repeat('x', 100000) ELSE 'row ' || i END, "
        "(i * 7919 % 100000) / 1000.0, i % 2 = 0, CASE WHEN i % 13 = 0 THEN NULL ELSE i / 3.0 END, "
        "timestamptz '2020-02-29 12:00:00+00' + i * interval '1 hour 1.5 seconds', "
        "i::bigint * 1000000007 FROM generate_series(1, 3000) i; "
        "CREATE TABLE pgcbt_copy_dst (LIKE pgcbt_copy_src); "
        "CREATE TABLE pgcbt_copy_narrow (id int, t text)");
    if (rc == 0) {
        payload[0] = fetch_payload(pg, "text", &payload_len[0]);
        payload[1] = fetch_payload(pg, "binary", &payload_len[1]);
        rc = payload[0] && payload[1] ? 0 : -1;
    }
    PQfinish(pg);
    return rc;
}

static int group_teardown(void **state)
{
    (void)state;
    free(payload[0]);
    free(payload[1]);
    drvtest_unload(&pq_drv);
    drvtest_unload(&pp_drv);
    drvtest_unload(&rw_drv);
    return 0;
}

static int copy(const struct cfg *k, struct pgcb_conn *c, const char *sql, int bin,
                uint64_t *rows, char *err, size_t errlen)
{
    struct pgcb_copy cp = {sql, payload[bin], payload_len[bin], SRC_ROWS};
    err[0] = '\0';
    return k->drv->d->run_copy(c, &cp, rows, err, errlen);
}

/* ---- tests -------------------------------------------------------------- */

/* The three drivers have the slot; floor and null do not. */
static void test_descriptors(void **state)
{
    (void)state;
    assert_non_null(pq_drv.d->run_copy);
    assert_non_null(pp_drv.d->run_copy);
    assert_non_null(rw_drv.d->run_copy);
    assert_int_equal(pq_drv.d->abi_minor, PGCB_ABI_MINOR);
    struct drvtest_drv floor_drv = {0}, null_drv = {0};
    assert_int_equal(drvtest_load(&floor_drv, "floor"), 0);
    assert_int_equal(drvtest_load(&null_drv, "null"), 0);
    assert_false(PGCB_DRIVER_HAS(floor_drv.d, 4, run_copy));
    assert_false(PGCB_DRIVER_HAS(null_drv.d, 4, run_copy));
    drvtest_unload(&floor_drv);
    drvtest_unload(&null_drv);
}

/* Text and binary, every driver: the server's count, and the target reads
 * back as the source, twice in a row on one connection. */
static void test_copy_read_back(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCFGS; i++) {
        const struct cfg *k = &cfgs[i];
        struct pgcb_conn *c = drvtest_open_ok(k->drv, "", k->opts, k->nopts);
        struct pgcb_stmt *tr = drvtest_prepare_ok(k->drv, c, "tr", "TRUNCATE pgcbt_copy_dst");
        struct pgcb_stmt *src = drvtest_prepare_ok(k->drv, c, "src", k->src);
        struct pgcb_stmt *back = drvtest_prepare_ok(k->drv, c, "back", k->back);
        struct pgcb_sum want = drvtest_run_ok(k->drv, c, src, 1);
        assert_int_equal(want.rows, SRC_ROWS);
        for (int round = 0; round < 4; round++) {
            int bin = round % 2;
            char err[PGCB_ERRLEN];
            uint64_t rows = 0;
            drvtest_run_ok(k->drv, c, tr, 1);
            int rc = copy(k, c, bin ? COPY_BINARY : COPY_TEXT, bin, &rows, err, sizeof err);
            if (rc != PGCB_OK)
                fail_msg("%s %s: run_copy returned %d: %s", k->label, bin ? "binary" : "text",
                         rc, err);
            assert_int_equal(rows, SRC_ROWS);
            struct pgcb_sum got = drvtest_run_ok(k->drv, c, back, 1);
            if (got.rows != want.rows || got.hash != want.hash)
                fail_msg("%s %s: read back %llu rows %016llx, source %llu rows %016llx",
                         k->label, bin ? "binary" : "text", (unsigned long long)got.rows,
                         (unsigned long long)got.hash, (unsigned long long)want.rows,
                         (unsigned long long)want.hash);
        }
        k->drv->d->close(c);
    }
}

/* A missing table, a column too many, a statement that is no COPY FROM: the
 * status, the SQLSTATE first, one line; the connection runs a query and a
 * good COPY after each. */
static void test_copy_errors(void **state)
{
    (void)state;
    static const struct {
        const char *sql;
        int bin, want;
        const char *prefix;
    } bad[] = {
        {"COPY pgcbt_copy_missing FROM STDIN (FORMAT text)", 0, PGCB_ERR_QUERY, "42P01: "},
        {"COPY pgcbt_copy_missing FROM STDIN (FORMAT binary)", 1, PGCB_ERR_QUERY, "42P01: "},
        /* a row of seven columns into a table of two */
        {"COPY pgcbt_copy_narrow FROM STDIN (FORMAT text)", 0, PGCB_ERR_QUERY, "22P04: "},
        {"COPY pgcbt_copy_narrow FROM STDIN (FORMAT binary)", 1, PGCB_ERR_QUERY, "22P04: "},
        {"SELECT 1", 0, PGCB_ERR_UNSUPPORTED, NULL},
    };
    for (size_t i = 0; i < NCFGS; i++) {
        const struct cfg *k = &cfgs[i];
        struct pgcb_conn *c = drvtest_open_ok(k->drv, "", k->opts, k->nopts);
        struct pgcb_stmt *one = drvtest_prepare_ok(k->drv, c, "one", "SELECT 1::int4");
        struct pgcb_stmt *tr = drvtest_prepare_ok(k->drv, c, "tr", "TRUNCATE pgcbt_copy_dst");
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            char err[PGCB_ERRLEN];
            uint64_t rows = 99;
            int rc = copy(k, c, bad[b].sql, bad[b].bin, &rows, err, sizeof err);
            if (rc != bad[b].want)
                fail_msg("%s: %s: status %d (want %d): %s", k->label, bad[b].sql, rc,
                         bad[b].want, err);
            drvtest_assert_one_line(err);
            if (bad[b].prefix && strncmp(err, bad[b].prefix, strlen(bad[b].prefix)) != 0)
                fail_msg("%s: %s: message '%s' does not start with '%s'", k->label,
                         bad[b].sql, err, bad[b].prefix);
            assert_int_equal(rows, 0);
            /* usable: a query, then a good COPY */
            struct pgcb_sum s = drvtest_run_ok(k->drv, c, one, 1);
            assert_int_equal(s.rows, 1);
            drvtest_run_ok(k->drv, c, tr, 1);
            rc = copy(k, c, COPY_BINARY, 1, &rows, err, sizeof err);
            if (rc != PGCB_OK)
                fail_msg("%s: the COPY after %s failed: %s", k->label, bad[b].sql, err);
            assert_int_equal(rows, SRC_ROWS);
        }
        drvtest_run_ok(k->drv, c, tr, 1);
        k->drv->d->close(c);
    }
}

/* An empty payload (text: no rows) is a COPY of 0 rows. */
static void test_copy_empty(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCFGS; i++) {
        const struct cfg *k = &cfgs[i];
        struct pgcb_conn *c = drvtest_open_ok(k->drv, "", k->opts, k->nopts);
        struct pgcb_copy cp = {COPY_TEXT, "", 0, 0};
        char err[PGCB_ERRLEN] = "";
        uint64_t rows = 99;
        assert_int_equal(k->drv->d->run_copy(c, &cp, &rows, err, sizeof err), PGCB_OK);
        assert_int_equal(rows, 0);
        k->drv->d->close(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptors),
        cmocka_unit_test(test_copy_read_back),
        cmocka_unit_test(test_copy_errors),
        cmocka_unit_test(test_copy_empty),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
