/*
 * test_bulk_e2e.c -- the runner's bulk writes end to end (real server):
 * a COPY group in text and binary for libpq_sync and rawwire, with null
 * (no run_copy) skipped with its reason; an insert batch with params_from
 * and read_back; rows/s in the tables and the JSON; and an insert whose rows
 * do not read back as its source (it changes a value) marked INVALID with
 * the read-back line.
 *
 * Environment: PGHOST (required), PGPORT, PGUSER, PGDATABASE of a throw-away
 * server (tables pgcbt_bulk_*); PGCB_BUILD, the build directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/e2e.h"

static const char schema[] =
    "DROP TABLE IF EXISTS pgcbt_bulk_src, pgcbt_bulk_dst, pgcbt_bulk_ins;\n"
    "CREATE TABLE pgcbt_bulk_src (id int PRIMARY KEY, sku text, price numeric(10,2), "
    "ok bool, w float8);\n"
    "INSERT INTO pgcbt_bulk_src SELECT i, 'sku ' || i, i / 7.0, i % 2 = 0, "
    "CASE WHEN i % 5 = 0 THEN NULL ELSE i * 1.5 END FROM generate_series(1, 300) i;\n"
    "CREATE TABLE pgcbt_bulk_dst (LIKE pgcbt_bulk_src);\n"
    "CREATE TABLE pgcbt_bulk_ins (LIKE pgcbt_bulk_src);\n";

static const char *write_config(const char *name, const char *queries)
{
    char sql[600], head[1024], body[4096];
    snprintf(sql, sizeof sql, "%s/bulk_schema.sql", e2e_tmp);
    FILE *f = fopen(sql, "w");
    assert_non_null(f);
    fputs(schema, f);
    fclose(f);
    snprintf(head, sizeof head,
             "[bench]\ntime_ms = 200\nqueries = 10\nwarmup_ms = 0\norders = 2\n"
             "[server]\nsetup = %s\n", sql);
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n"
             "[driver.null]\npath = %s/drivers/null.so\n%s",
             e2e_build, e2e_build, e2e_build, queries);
    return e2e_write_file(name, head, body);
}

static const char bulk_queries[] =
    "[query.copy_t]\ncopy = pgcbt_bulk_dst\ncopy_from = SELECT * FROM pgcbt_bulk_src ORDER BY id\n"
    "[query.copy_b]\ncopy = pgcbt_bulk_dst\ncopy_from = SELECT * FROM pgcbt_bulk_src ORDER BY id\n"
    "copy_format = binary\nrows = 300\n"
    "[query.ins]\nsql = INSERT INTO pgcbt_bulk_ins (id, sku, price, ok, w) "
    "VALUES ($1, $2, $3, $4, $5)\n"
    "params_from = SELECT id, sku, price, ok, w FROM pgcbt_bulk_src WHERE id <= 100 ORDER BY id\n"
    "read_back = pgcbt_bulk_ins\n"
    "[suite.copy]\nqueries = copy_t copy_b\n"
    "[suite.batch]\nqueries = ins\nrows_per_txn = 100\n";

static json_t *group(json_t *root, const char *query)
{
    json_t *groups = json_object_get(root, "groups"), *g;
    size_t i;
    json_array_foreach(groups, i, g)
        if (strcmp(json_string_value(json_object_get(g, "query")), query) == 0)
            return g;
    fail_msg("no group of query %s", query);
    return NULL;
}

static json_t *cell(json_t *g, const char *driver)
{
    json_t *res = json_object_get(g, "results"), *c;
    size_t i;
    json_array_foreach(res, i, c)
        if (strcmp(json_string_value(json_object_get(c, "driver")), driver) == 0)
            return c;
    fail_msg("no result of driver %s", driver);
    return NULL;
}

static void test_copy_and_batch(void **state)
{
    (void)state;
    const char *ini = write_config("bulk", bulk_queries);
    const char *out = e2e_json_path("bulk");
    struct e2e_run r = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "rows/s (300 rows per COPY): libpq_sync "));
    assert_non_null(strstr(r.out, "rows/s (100 rows per batch): libpq_sync "));
    assert_non_null(strstr(r.out, "null: skipped: query copy_t is a COPY and driver null has no "
                                  "run_copy (ABI 1.4, optional)"));
    json_error_t je;
    json_t *root = json_load_file(out, 0, &je);
    assert_non_null(root);
    const char *const copies[] = {"copy_t", "copy_b"};
    for (size_t q = 0; q < 2; q++) {
        json_t *g = group(root, copies[q]);
        json_t *bulk = json_object_get(g, "bulk");
        assert_string_equal(json_string_value(json_object_get(bulk, "kind")), "copy");
        assert_int_equal(json_integer_value(json_object_get(bulk, "rows")), 300);
        assert_non_null(strstr(json_string_value(json_object_get(g, "sql")),
                               "COPY pgcbt_bulk_dst (\"id\", \"sku\", \"price\", \"ok\", \"w\") "
                               "FROM STDIN (FORMAT "));
        for (size_t d = 0; d < 2; d++) {
            json_t *c = cell(g, d ? "rawwire" : "libpq_sync");
            assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
            assert_true(json_real_value(json_object_get(c, "rows_per_s")) > 0);
            assert_int_equal(json_integer_value(json_object_get(c, "rows_per_batch")), 300);
        }
        json_t *n = cell(g, "null");
        assert_string_equal(json_string_value(json_object_get(n, "status")), "skipped");
        assert_null(json_object_get(n, "rows_per_s"));
    }
    json_t *g = group(root, "ins");
    assert_string_equal(json_string_value(json_object_get(json_object_get(g, "bulk"), "kind")),
                        "insert");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(g, "bulk"), "rows")), 100);
    for (size_t d = 0; d < 2; d++) {
        json_t *c = cell(g, d ? "rawwire" : "libpq_sync");
        assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
        assert_true(json_real_value(json_object_get(c, "rows_per_s")) > 0);
    }
    /* A plain group has no bulk key. */
    json_decref(root);
    e2e_run_free(&r);
}

/* The statement changes what it inserts: the rows read back differ from the
 * source, for every driver: INVALID, the reason on one line. */
static void test_read_back_mismatch(void **state)
{
    (void)state;
    const char *ini = write_config(
        "bulkbad",
        "[query.ins]\nsql = INSERT INTO pgcbt_bulk_ins (id, sku) VALUES ($1, $2 || '!')\n"
        "params_from = SELECT id, sku FROM pgcbt_bulk_src WHERE id <= 10 ORDER BY id\n"
        "read_back = pgcbt_bulk_ins\n"
        "[suite.batch]\nqueries = ins\nrows_per_txn = 10\n");
    const char *out = e2e_json_path("bulkbad");
    struct e2e_run r = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    json_error_t je;
    json_t *root = json_load_file(out, 0, &je);
    if (!root)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r.status, r.out, r.err);
    assert_non_null(root);
    json_t *g = group(root, "ins");
    for (size_t d = 0; d < 2; d++) {
        json_t *c = cell(g, d ? "rawwire" : "libpq_sync");
        assert_string_equal(json_string_value(json_object_get(c, "status")), "invalid");
        const char *e = json_string_value(json_object_get(c, "error"));
        assert_non_null(strstr(e, "read back: the batch wrote 10 rows of 10; the table read "
                                  "back gave 10 rows, checksum "));
        assert_null(strchr(e, '\n'));
    }
    assert_non_null(strstr(r.out, "libpq_sync: invalid: read back: "));
    json_decref(root);
    e2e_run_free(&r);
}

/* A copy_from the server refuses: one line naming file:line, nothing run. */
static void test_bad_source(void **state)
{
    (void)state;
    const char *ini = write_config(
        "bulksrc", "[query.c]\ncopy = pgcbt_bulk_dst\ncopy_from = SELECT * FROM pgcbt_nothing\n"
                   "[suite.s]\nqueries = c\n");
    const char *out = e2e_json_path("bulksrc");
    struct e2e_run r = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    assert_int_equal(r.status, 1);
    if (!strstr(r.err, "42P01"))
        fprintf(stderr, "stderr: %s\n", r.err);
    assert_non_null(strstr(r.err, "bulksrc.ini:15: [query.c] copy_from: 42P01: relation "
                                  "\"pgcbt_nothing\" does not exist"));
    assert_string_equal(strchr(r.err, '\n'), "\n");
    assert_false(e2e_exists(out));
    e2e_run_free(&r);
}

static int setup(void **state)
{
    (void)state;
    return e2e_setup("test_bulk_e2e");
}

static int teardown(void **state)
{
    (void)state;
    return e2e_teardown();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_and_batch),
        cmocka_unit_test(test_read_back_mismatch),
        cmocka_unit_test(test_bad_source),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
