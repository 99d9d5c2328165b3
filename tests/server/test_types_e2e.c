/*
 * test_types_e2e.c -- the types workload end to end (issue 19), on a real
 * server: sql/types_schema.sql's tables made by [server] setup, the
 * edge-case, type-rich and array queries run by libpq_sync, libpq_pipeline
 * and rawwire in text and in binary at a tiny budget, every driver's
 * checksum equal (exit status 0 and the JSON's checksums); a column of a
 * type value.h does not convert (point) named under its group's table
 * ("Folded as text") and in the JSON, a libpq driver asked for binary
 * results of it skipped with its reason; and a query pair's conversion
 * cost in the table and the JSON.
 *
 * A libpq driver asks one result format for every column: in binary it
 * can run a query only when value.h folds every column of it in binary
 * (pgcb_value_binary_foldable); it is expected to run the query then, and
 * to be skipped, saying why, otherwise. The assertions are on checksums,
 * rows and what is printed, never on speed.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pgcb/value.h"
#include "result.h"
#include "../lib/e2e.h"

static const char *const tiny_env[] = {"BENCH_TIME_MS=60", "BENCH_QUERIES=5", NULL};

/* The columns of pgcb_types, in order (sql/types_schema.sql). */
static const uint32_t types_oids[] = {23,   21,   23,   20,   700,  701,  16,   25,
                                      1043, 1700, 1114, 1184, 1082, 1083, 1186, 2950,
                                      114,  3802, 17,   1007, 1016, 1009, 1022};
#define NTYPES (sizeof types_oids / sizeof types_oids[0])
static const uint32_t arrays_oids[] = {23, 1007, 1016, 1009, 1022};

static int all_binary_foldable(const uint32_t *oids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!pgcb_value_binary_foldable(oids[i]))
            return 0;
    return 1;
}

static void drivers_ini(char *buf, size_t n)
{
    static const char *const so[] = {"libpq_sync", "libpq_pipeline", "rawwire"};
    size_t len = 0;
    for (size_t i = 0; i < 3; i++)
        len += (size_t)snprintf(buf + len, n - len,
                                "[driver.%s]\npath = %s/drivers/%s.so\n"
                                "[driver.%s_bin]\npath = %s/drivers/%s.so\n"
                                "result_format = binary\n",
                                so[i], e2e_build, so[i], so[i], e2e_build, so[i]);
}

static size_t find_group(const struct pgcb_result *res, const char *query)
{
    for (size_t g = 0; g < res->ngroups; g++)
        if (strcmp(res->groups[g].query, query) == 0)
            return g;
    fail_msg("no group of query %s", query);
    return 0;
}

/* Group `query` of res: every driver ok with `rows` rows per batch and one
 * checksum, but a libpq binary driver, which is skipped (saying why) when
 * `binary_ok` is 0. */
static void expect_agree(const struct pgcb_result *res, const char *query, uint64_t rows,
                         uint32_t columns, int binary_ok)
{
    const struct pgcb_res_group *gr = &res->groups[find_group(res, query)];
    assert_int_equal(gr->columns, columns);
    int have = 0;
    uint64_t sum = 0;
    for (size_t d = 0; d < res->ndrivers; d++) {
        const char *label = res->drivers[d].label;
        const struct pgcb_res_cell *c = &gr->cells[d];
        int libpq_bin = strncmp(label, "libpq", 5) == 0 && strstr(label, "_bin");
        print_message("%s / %s: %s, checksum %016llx, %llu rows%s%s\n", query, label,
                      pgcb_cell_status_str(c->status), (unsigned long long)c->checksum,
                      (unsigned long long)c->rows_per_batch, c->error ? ": " : "",
                      c->error ? c->error : "");
        if (libpq_bin && !binary_ok) {
            assert_int_equal(c->status, PGCB_CELL_SKIPPED);
            assert_non_null(strstr(c->error, "cannot run it"));
            assert_non_null(strstr(c->error, "result_format = binary"));
            continue;
        }
        assert_int_equal(c->status, PGCB_CELL_OK);
        assert_int_equal(c->rows_per_batch, rows);
        if (!have)
            sum = c->checksum;
        have = 1;
        assert_true(c->checksum == sum);
    }
}

/* Every C driver, text and binary, on the edge rows, the type-rich rows and
 * the arrays: one checksum per query. */
static void test_agree(void **state)
{
    (void)state;
    char head[1024], body[8192], drivers[2048];
    snprintf(head, sizeof head,
             "[bench]\nwarmup_ms = 20\norders = balanced\n[server]\nsetup = %s/sql/types_schema.sql\n",
             e2e_top);
    drivers_ini(drivers, sizeof drivers);
    snprintf(body, sizeof body,
             "%s"
             "[query.types_edge]\nsql = SELECT * FROM pgcb_types_edge ORDER BY id\nrows = 12\n"
             "[query.types_100]\nsql = SELECT * FROM pgcb_types ORDER BY id LIMIT 100\n"
             "rows = 100\n"
             "[query.arrays_100]\nsql = SELECT * FROM pgcb_arrays ORDER BY id\nrows = 100\n"
             "[suite.types]\ndepth = 1 3\nqueries = types_edge types_100 arrays_100\n",
             drivers);
    const char *ini = e2e_write_file("agree", head, body);
    const char *path = e2e_json_path("agree");
    struct e2e_run r = e2e_run_runner(ini, path, tiny_env, NULL, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(path, &res, err, sizeof err), 0);
    assert_int_equal(res.ndrivers, 6);
    assert_int_equal(res.ngroups, 6);
    int types_bin = all_binary_foldable(types_oids, NTYPES);
    expect_agree(&res, "types_edge", 12, NTYPES + 1, types_bin);
    expect_agree(&res, "types_100", 100, NTYPES, types_bin);
    expect_agree(&res, "arrays_100", 100, 5, all_binary_foldable(arrays_oids, 5));
    /* depth 3: three times the rows, the same fold each time */
    const struct pgcb_res_group *g3 = &res.groups[1];
    assert_int_equal(g3->depth, 3);
    assert_string_equal(g3->query, "types_edge");
    for (size_t d = 0; d < res.ndrivers; d++)
        if (g3->cells[d].status == PGCB_CELL_OK)
            assert_int_equal(g3->cells[d].rows_per_batch, 36);
    /* the JSON's checksums themselves, as written */
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    assert_non_null(j);
    json_t *groups = json_object_get(j, "groups");
    for (size_t g = 0; g < json_array_size(groups); g++) {
        json_t *results = json_object_get(json_array_get(groups, g), "results");
        const char *first = NULL;
        for (size_t d = 0; d < json_array_size(results); d++) {
            json_t *c = json_array_get(results, d);
            if (strcmp(json_string_value(json_object_get(c, "status")), "ok") != 0)
                continue;
            const char *sum = json_string_value(json_object_get(c, "checksum"));
            assert_non_null(sum);
            if (!first)
                first = sum;
            assert_string_equal(sum, first);
        }
        assert_non_null(first);
    }
    json_decref(j);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* A point column: one "Folded as text" line under its group's table (not
 * under its ::text twin's, nor under a query of converted types), the same
 * in the JSON; libpq_sync_bin skipped there; the pair's conversion cost. */
static void test_folded_and_cost(void **state)
{
    (void)state;
    char head[256], body[4096];
    snprintf(head, sizeof head, "[bench]\nwarmup_ms = 20\n");
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.libpq_sync_bin]\npath = %s/drivers/libpq_sync.so\nresult_format = binary\n"
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n"
             "[query.pt]\nsql = SELECT i, point(i, i * 2) AS p FROM generate_series(1, 10) AS i\n"
             "rows = 10\nversus = pt_text\n"
             "[query.pt_text]\n"
             "sql = SELECT i, point(i, i * 2)::text AS p FROM generate_series(1, 10) AS i\n"
             "rows = 10\n"
             "[query.ints]\nsql = SELECT i, i * 2 AS j FROM generate_series(1, 10) AS i\n"
             "rows = 10\n"
             "[suite.s]\nqueries = pt pt_text ints\n",
             e2e_build, e2e_build, e2e_build);
    const char *ini = e2e_write_file("folded", head, body);
    const char *path = e2e_json_path("folded");
    struct e2e_run r = e2e_run_runner(ini, path, tiny_env, NULL, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    static const char line[] = "  Folded as text: column 2 \"p\" (point, oid 600)\n";
    const char *at = strstr(r.out, line);
    assert_non_null(at);
    assert_null(strstr(at + sizeof line - 1, "Folded as text")); /* once: pt only */
    const char *title_pt = strstr(r.out, "s / pt  "), *title_text = strstr(r.out, "s / pt_text  ");
    assert_non_null(title_pt);
    assert_non_null(title_text);
    assert_true(title_pt < at && at < title_text); /* under pt's table */
    assert_non_null(strstr(r.out, "What converting costs"));
    assert_non_null(strstr(r.out, "│ pt    │ pt_text │           20 │"));

    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(path, &res, err, sizeof err), 0);
    const struct pgcb_res_group *pt = &res.groups[find_group(&res, "pt")];
    assert_int_equal(pt->columns, 2);
    assert_int_equal(pt->nfolded, 1);
    assert_int_equal(pt->folded[0].column, 2);
    assert_string_equal(pt->folded[0].name, "p");
    assert_string_equal(pt->folded[0].type, "point");
    assert_int_equal(pt->folded[0].oid, 600);
    assert_string_equal(pt->versus, "pt_text");
    assert_int_equal(pt->cells[1].status, PGCB_CELL_SKIPPED);
    assert_non_null(strstr(pt->cells[1].error, "column 2 \"p\""));
    assert_int_equal(pt->cells[0].status, PGCB_CELL_OK);
    assert_true(pt->cells[0].checksum == pt->cells[2].checksum);
    assert_int_equal(res.groups[find_group(&res, "pt_text")].nfolded, 0);
    assert_int_equal(res.groups[find_group(&res, "ints")].nfolded, 0);
    assert_int_equal(res.groups[find_group(&res, "ints")].columns, 2);
    pgcb_result_free(&res);

    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    assert_non_null(j);
    json_t *cost = json_object_get(j, "conversion_cost");
    assert_int_equal(json_array_size(cost), 1);
    json_t *drivers = json_object_get(json_array_get(cost, 0), "drivers");
    assert_int_equal(json_array_size(drivers), 3);
    for (size_t d = 0; d < 3; d++) {
        json_t *c = json_array_get(drivers, d);
        assert_true(json_number_value(json_object_get(c, "values_per_query")) == 20);
        /* libpq_sync_bin skipped pt: no figure; the others have one */
        assert_int_equal(json_is_number(json_object_get(c, "ns_per_value")), d != 1);
    }
    json_decref(j);
    e2e_run_free(&r);
}

int main(void)
{
    if (e2e_setup("test_types_e2e") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agree),
        cmocka_unit_test(test_folded_and_cost),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (e2e_teardown() != 0)
        rc = 1;
    return rc;
}
