/*
 * test_versus.c -- the types workload's report from a made-up result (no
 * server): the pairs of a query and its versus twin (same suite and shape
 * only), the conversion cost per value against hand computations (rows
 * from the group or, when not given, from what the cells received; a
 * failed cell and a twin of another shape give no figure; a driver that
 * does no I/O is left out), the printed table, the "Folded as text" line,
 * the JSON (a group's columns, folded_as_text and versus read back as
 * written; the derived conversion_cost), and which types the runner says
 * are folded as text (runner/server/describe.c).
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/describe.h"
#include "pgcb/driver.h"
#include "report.h"
#include "result.h"
#include "util.h"
#include "versus.h"
#include "../lib/resfake.h"

/* One group: suite / query (versus), rows (-1: not given), columns. */
struct spec {
    const char *suite, *query, *versus;
    int64_t rows;
    uint32_t columns;
    uint64_t rows_per_batch;
    double cpu[3];          /* client CPU per query of a, b, n; NAN: the cell failed */
};

/* Drivers a, b and n (no I/O). Groups:
 *   0 cost / x versus x_text, 1000 rows x 1 column: a 150000, b 120000 ns per query
 *   1 cost / x_text:                                 a 100000, b 110000
 *      -> a (150000 - 100000) / 1000 = 50 ns per value, b 10
 *   2 cost / y versus y_text, rows not given, 10 received x 3 columns: a 3000, b failed
 *   3 cost / y_text, the same shape:                                    a 1500, b 1000
 *      -> a 1500 / 30 = 50, b none
 *   4 other / x versus x_text: no twin in its suite -> no pair
 *   5 cost / z versus z_text, 100 x 2: a 4000;  6 cost / z_text, 100 x 1: a 1000
 *      -> another shape: no figure
 *   7 cost / w versus w_text, 10 rows x 2: a 1000, b 900; 8 cost / w_text: a 1200, b 800
 *      -> a -10 (the twin cost more: noise, shown as it is), b 5 */
static const struct spec specs[] = {
    {"cost", "x", "x_text", 1000, 1, 1000, {150000, 120000, 10}},
    {"cost", "x_text", NULL, 1000, 1, 1000, {100000, 110000, 10}},
    {"cost", "y", "y_text", -1, 3, 10, {3000, NAN, 10}},
    {"cost", "y_text", NULL, -1, 3, 10, {1500, 1000, 10}},
    {"other", "x", "x_text", 1000, 1, 1000, {1, 1, 1}},
    {"cost", "z", "z_text", 100, 2, 100, {4000, NAN, 10}},
    {"cost", "z_text", NULL, 100, 1, 100, {1000, NAN, 10}},
    {"cost", "w", "w_text", 10, 2, 10, {1000, 900, 10}},
    {"cost", "w_text", NULL, 10, 2, 10, {1200, 800, 10}},
};
#define NSPECS (sizeof specs / sizeof specs[0])

static void make(struct pgcb_result *r)
{
    static const char *const labels[] = {"a", "b", "n"};
    resfake_init(r, labels, 3, 1);
    r->drivers[2].caps = PGCB_CAP_NO_IO;
    r->ngroups = NSPECS;
    r->groups = pgcb_xcalloc(NSPECS, sizeof *r->groups);
    for (size_t g = 0; g < NSPECS; g++) {
        struct pgcb_res_group *gr = &r->groups[g];
        const struct spec *sp = &specs[g];
        gr->suite = pgcb_xstrdup(sp->suite);
        gr->query = pgcb_xstrdup(sp->query);
        gr->versus = sp->versus ? pgcb_xstrdup(sp->versus) : NULL;
        gr->depth = 1;
        gr->threads = 1;
        gr->rows = sp->rows;
        gr->columns = sp->columns;
        gr->cells = pgcb_xcalloc(3, sizeof *gr->cells);
        for (size_t d = 0; d < 3; d++) {
            struct pgcb_res_cell *c = &gr->cells[d];
            int ok = isfinite(sp->cpu[d]);
            *c = (struct pgcb_res_cell){.status = ok ? PGCB_CELL_OK : PGCB_CELL_FAILED,
                                        .samples = 10, .queries = 10, .mean_ns = 1000,
                                        .median_ns = ok ? 1000 : NAN, .p99_ns = 1000,
                                        .cpu_ns_per_query = sp->cpu[d],
                                        .rows_per_batch = sp->rows_per_batch, .norders = 1};
            if (!ok)
                c->error = pgcb_xstrdup("boom");
            c->order_medians_ns = pgcb_xcalloc(1, sizeof(double));
            c->order_medians_ns[0] = c->median_ns;
            c->spread_cv_pct = c->spread_min_ns = c->spread_max_ns = NAN;
            for (size_t k = 0; k < PGCB_PCT_N; k++)
                c->pct_ns[k] = 1000;
        }
    }
    /* Group 0's query has two columns of types value.h does not convert. */
    struct pgcb_res_group *g0 = &r->groups[0];
    g0->nfolded = 2;
    g0->folded = pgcb_xcalloc(2, sizeof *g0->folded);
    g0->folded[0] = (struct pgcb_res_folded){2, pgcb_xstrdup("p"), pgcb_xstrdup("point"), 600};
    g0->folded[1] = (struct pgcb_res_folded){3, pgcb_xstrdup("n"), pgcb_xstrdup("inet"), 869};
}

static void near(double got, double want)
{
    if (!(fabs(got - want) < 1e-9))
        fail_msg("got %.12g, want %.12g", got, want);
}

static void test_pairs_and_cells(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    struct pgcb_versus_pair *p;
    size_t n = pgcb_versus_pairs(&r, &p);
    assert_int_equal(n, 4);
    assert_int_equal(p[0].group, 0);
    assert_int_equal(p[0].twin, 1);
    assert_int_equal(p[1].group, 2);
    assert_int_equal(p[1].twin, 3);
    assert_int_equal(p[2].group, 5); /* not group 4: other has no x_text */
    assert_int_equal(p[2].twin, 6);
    assert_int_equal(p[3].group, 7);

    struct pgcb_versus_cell c;
    pgcb_versus_cell(&r, &p[0], 0, &c);
    assert_true(c.valid);
    near(c.values, 1000);
    near(c.cpu_ns, 150000);
    near(c.twin_cpu_ns, 100000);
    near(c.ns_per_value, 50);
    pgcb_versus_cell(&r, &p[0], 1, &c);
    near(c.ns_per_value, 10);
    /* rows from what the cells received: 10 rows x 3 columns */
    pgcb_versus_cell(&r, &p[1], 0, &c);
    assert_true(c.valid);
    near(c.values, 30);
    near(c.ns_per_value, 50);
    pgcb_versus_cell(&r, &p[1], 1, &c); /* b failed the query itself */
    assert_false(c.valid);
    assert_true(isnan(c.cpu_ns));
    near(c.twin_cpu_ns, 1000);
    assert_true(isnan(c.ns_per_value));
    pgcb_versus_cell(&r, &p[2], 0, &c); /* 200 values against 100: not per value */
    assert_false(c.valid);
    assert_true(isnan(c.ns_per_value));
    pgcb_versus_cell(&r, &p[3], 0, &c);
    near(c.ns_per_value, -10);
    pgcb_versus_cell(&r, &p[3], 1, &c);
    near(c.ns_per_value, 5);

    near(pgcb_versus_values(&r.groups[2], 0), 30);
    r.groups[2].columns = 0; /* not described */
    assert_true(isnan(pgcb_versus_values(&r.groups[2], 0)));
    r.groups[2].columns = 3;

    assert_true(pgcb_versus_driver(&r, p, n, 0));
    assert_true(pgcb_versus_driver(&r, p, n, 1));
    assert_false(pgcb_versus_driver(&r, p, n, 2)); /* no I/O */
    assert_false(pgcb_versus_driver(&r, &p[2], 1, 1)); /* b failed both z groups */
    free(p);
    pgcb_result_free(&r);
}

static char *capture(void (*fn)(FILE *, const struct pgcb_result *, enum pgcb_table_style),
                     const struct pgcb_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f, r, PGCB_TABLE_ASCII);
    fclose(f);
    if (getenv("PGCB_SHOW"))
        fputs(buf, stderr);
    return buf;
}

static void test_table(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    char *s = capture(pgcb_report_conversion_cost, &r);
    assert_non_null(strstr(s, "What converting costs"));
    assert_non_null(strstr(s, "not interleaved"));
    assert_non_null(strstr(s, "cost  (depth 1; ns per value)\n"));
    assert_non_null(strstr(s, "| Query | Versus | Values/query |     a |    b |\n"));
    assert_non_null(strstr(s, "| x     | x_text |         1000 |  50.0 | 10.0 |\n"));
    assert_non_null(strstr(s, "| y     | y_text |           30 |  50.0 |    - |\n"));
    assert_non_null(strstr(s, "| z     | z_text |          200 |     - |    - |\n"));
    assert_non_null(strstr(s, "| w     | w_text |           20 | -10.0 |  5.0 |\n"));
    assert_null(strstr(s, "\nother  (")); /* no pair there */
    assert_null(strstr(s, "| n")); /* no I/O, no column */
    free(s);

    /* No pair: nothing at all. */
    for (size_t g = 0; g < r.ngroups; g++) {
        free(r.groups[g].versus);
        r.groups[g].versus = NULL;
    }
    s = capture(pgcb_report_conversion_cost, &r);
    assert_string_equal(s, "");
    free(s);
    pgcb_result_free(&r);
}

static void test_folded_line(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(pgcb_report_folded_notes(f, &r, 0, "  "), 1);
    assert_int_equal(pgcb_report_folded_notes(f, &r, 1, "  "), 0);
    fclose(f);
    assert_string_equal(buf, "  Folded as text: column 2 \"p\" (point, oid 600), column 3 \"n\" "
                             "(inet, oid 869)\n");
    free(buf);
    /* ... and in the group's report, under its table */
    buf = NULL;
    f = open_memstream(&buf, &len);
    pgcb_report_group(f, &r, 0);
    fclose(f);
    assert_non_null(strstr(buf, "\n  Folded as text: column 2 \"p\" (point, oid 600)"));
    free(buf);
    pgcb_result_free(&r);
}

static void test_json(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    make(&r);
    char err[512];
    json_t *j = resfake_roundtrip(&r, &back, err, sizeof err);
    if (!j)
        fail_msg("%s", err);
    assert_int_equal(back.ngroups, NSPECS);
    assert_int_equal(back.groups[0].columns, 1);
    assert_int_equal(back.groups[2].columns, 3);
    assert_string_equal(back.groups[0].versus, "x_text");
    assert_null(back.groups[1].versus);
    assert_int_equal(back.groups[0].nfolded, 2);
    assert_int_equal(back.groups[0].folded[1].column, 3);
    assert_string_equal(back.groups[0].folded[1].name, "n");
    assert_string_equal(back.groups[0].folded[1].type, "inet");
    assert_int_equal(back.groups[0].folded[1].oid, 869);
    assert_int_equal(back.groups[1].nfolded, 0);
    pgcb_result_free(&back);

    json_t *g1 = json_array_get(json_object_get(j, "groups"), 1);
    assert_true(json_is_null(json_object_get(g1, "versus")));
    assert_int_equal(json_array_size(json_object_get(g1, "folded_as_text")), 0);
    json_t *cost = json_object_get(j, "conversion_cost");
    assert_int_equal(json_array_size(cost), 4);
    json_t *x = json_array_get(cost, 0);
    assert_string_equal(json_string_value(json_object_get(x, "query")), "x");
    assert_string_equal(json_string_value(json_object_get(x, "versus")), "x_text");
    assert_true(json_is_false(json_object_get(x, "interleaved")));
    json_t *drivers = json_object_get(x, "drivers");
    assert_int_equal(json_array_size(drivers), 2); /* n does no I/O */
    json_t *a = json_array_get(drivers, 0);
    assert_string_equal(json_string_value(json_object_get(a, "driver")), "a");
    near(json_number_value(json_object_get(a, "ns_per_value")), 50);
    near(json_number_value(json_object_get(a, "values_per_query")), 1000);
    near(json_number_value(json_object_get(a, "versus_cpu_ns_per_query")), 100000);
    json_t *yb = json_array_get(json_object_get(json_array_get(cost, 1), "drivers"), 1);
    assert_true(json_is_null(json_object_get(yb, "ns_per_value")));
    assert_true(json_is_null(json_object_get(yb, "cpu_ns_per_query")));
    json_decref(j);
    pgcb_result_free(&r);
}

/* What the runner calls folded as text: not a text type, and no conversion
 * in value.h. */
static void test_folded_types(void **state)
{
    (void)state;
    assert_true(pgcb_describe_folded(600));  /* point */
    assert_true(pgcb_describe_folded(869));  /* inet */
    assert_true(pgcb_describe_folded(1266)); /* timetz */
    assert_false(pgcb_describe_folded(PGCB_OID_TEXT));
    assert_false(pgcb_describe_folded(PGCB_OID_VARCHAR));
    assert_false(pgcb_describe_folded(PGCB_OID_BPCHAR));
    assert_false(pgcb_describe_folded(PGCB_OID_NAME));
    assert_false(pgcb_describe_folded(PGCB_OID_INT4));
    assert_false(pgcb_describe_folded(PGCB_OID_BOOL));
    assert_false(pgcb_describe_folded(PGCB_OID_FLOAT8));
    assert_true(pgcb_describe_text_type(PGCB_OID_TEXT));
    assert_false(pgcb_describe_text_type(PGCB_OID_INT8));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_and_cells),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_folded_line),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_folded_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
