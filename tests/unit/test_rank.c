/*
 * test_rank.c -- group verdicts (sign test) and geometric-mean rankings,
 * computed by hand; the verdict and ranking lines of the report; the derived
 * "verdict" and "rankings" of the JSON result, which reading ignores.
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

#include "pgcb/driver.h"
#include "rank.h"
#include "report.h"
#include "result.h"
#include "stats.h"
#include "util.h"
#include "../lib/resfake.h"

/* |a - b| <= eps, printing both values if not (cmocka 1.1 has no double assert). */
static void near_at(double a, double b, double eps, const char *file, int line)
{
    if (!(fabs(a - b) <= eps)) {
        print_error("%s:%d: %.9g is not %.9g (within %g)\n", file, line, a, b, eps);
        fail();
    }
}
#define assert_near(a, b, eps) near_at((a), (b), (eps), __FILE__, __LINE__)

/* ---- building results by hand -------------------------------------------- */

#define OK PGCB_CELL_OK
#define FAILED PGCB_CELL_FAILED
#define INVALID PGCB_CELL_INVALID
#define NOT_RUN PGCB_CELL_NOT_RUN
#define SKIPPED PGCB_CELL_SKIPPED

/* A result with drivers "A", "B", ... (labels given), `norders` orders and
 * no group yet. Driver d is a reference when ref_mask has bit d. */
static void make(struct pgcb_result *r, const char *labels, unsigned ref_mask, size_t norders)
{
    *r = (struct pgcb_result){0};
    r->ndrivers = strlen(labels);
    r->drivers = pgcb_xcalloc(r->ndrivers, sizeof *r->drivers);
    for (size_t d = 0; d < r->ndrivers; d++) {
        char l[2] = {labels[d], 0};
        r->drivers[d].label = pgcb_xstrdup(l);
        r->drivers[d].name = pgcb_xstrdup(l);
        r->drivers[d].version = pgcb_xstrdup("1");
        r->drivers[d].links = pgcb_xstrdup("");
        r->drivers[d].path = pgcb_xstrdup("x.so");
        if (ref_mask & (1u << d))
            r->drivers[d].caps = PGCB_CAP_REFERENCE | PGCB_CAP_NO_IO;
    }
    r->norders = norders;
    r->orders = pgcb_xcalloc(norders, sizeof *r->orders);
    for (size_t o = 0; o < norders; o++) { /* rotations: each driver once per order */
        r->orders[o] = pgcb_xcalloc(r->ndrivers, sizeof **r->orders);
        for (size_t k = 0; k < r->ndrivers; k++)
            r->orders[o][k] = (o + k) % r->ndrivers;
    }
    r->complete = 1;
}

/* Append a group; then set its cells with cell(). */
static size_t group(struct pgcb_result *r, const char *suite, const char *query, uint32_t depth)
{
    r->groups = pgcb_xrealloc(r->groups, (r->ngroups + 1) * sizeof *r->groups);
    struct pgcb_res_group *g = &r->groups[r->ngroups];
    *g = (struct pgcb_res_group){0};
    g->suite = pgcb_xstrdup(suite);
    g->query = pgcb_xstrdup(query);
    g->sql = pgcb_xstrdup("SELECT 1");
    g->depth = depth;
    g->threads = 1;
    g->rows = 1;
    g->cells = pgcb_xcalloc(r->ndrivers, sizeof *g->cells);
    return r->ngroups++;
}

/* Cell of driver d in group g: status, pooled median and mean, then one
 * median per order (r->norders doubles). */
static void cell(struct pgcb_result *r, size_t g, size_t d, enum pgcb_cell_status st,
                 double median, double mean, ...)
{
    struct pgcb_res_cell *c = &r->groups[g].cells[d];
    c->status = st;
    c->median_ns = median;
    c->mean_ns = mean;
    c->samples = 100;
    c->queries = 100;
    c->queries_per_s = isfinite(mean) && mean > 0 ? 1e9 / mean : NAN;
    c->norders = r->norders;
    c->order_medians_ns = pgcb_xcalloc(r->norders, sizeof(double));
    va_list ap;
    va_start(ap, mean);
    for (size_t o = 0; o < r->norders; o++)
        c->order_medians_ns[o] = va_arg(ap, double);
    va_end(ap);
    if (st == FAILED)
        c->error = pgcb_xstrdup("boom");
}

/* A cell like cell()'s with every per-order median NAN, for the caller to
 * fill (cell() reads exactly r->norders of them from its arguments). */
static void cell_flat(struct pgcb_result *r, size_t g, size_t d, enum pgcb_cell_status st,
                      double median, double mean)
{
    struct pgcb_res_cell *c = &r->groups[g].cells[d];
    c->status = st;
    c->median_ns = median;
    c->mean_ns = mean;
    c->samples = c->queries = 100;
    c->queries_per_s = 1e9 / mean;
    c->norders = r->norders;
    c->order_medians_ns = pgcb_xcalloc(r->norders, sizeof(double));
    for (size_t o = 0; o < r->norders; o++)
        c->order_medians_ns[o] = NAN;
    if (st == FAILED)
        c->error = pgcb_xstrdup("boom");
}

/* Repeat every cell's per-order medians (and r->orders) `times` times: the
 * two-order fixtures below become 2 x times orders, enough for a verdict. */
static void widen(struct pgcb_result *r, size_t times)
{
    size_t k = r->norders;
    for (size_t g = 0; g < r->ngroups; g++)
        for (size_t d = 0; d < r->ndrivers; d++) {
            struct pgcb_res_cell *c = &r->groups[g].cells[d];
            double *v = pgcb_xcalloc(k * times, sizeof *v);
            for (size_t t = 0; t < times; t++)
                memcpy(v + t * k, c->order_medians_ns, k * sizeof *v);
            free(c->order_medians_ns);
            c->order_medians_ns = v;
            c->norders = k * times;
        }
    size_t **o = pgcb_xcalloc(k * times, sizeof *o);
    for (size_t i = 0; i < k * times; i++) {
        o[i] = pgcb_xcalloc(r->ndrivers, sizeof **o);
        memcpy(o[i], r->orders[i % k], r->ndrivers * sizeof **o);
    }
    for (size_t i = 0; i < k; i++)
        free(r->orders[i]);
    free(r->orders);
    r->orders = o;
    r->norders = k * times;
}

/* A: 100 ns pooled, 90 and 110 per order; B: 120, 100 and 130. A is lower in
 * both orders, and in all 8 once widened: winner, p = 2 x 2^-8. With the
 * two orders alone no verdict is possible at 1/64 (a winner needs 7). */
static void test_verdict_winner(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "AB", 0, 2);
    size_t g = group(&r, "s", "q", 1);
    cell(&r, g, 0, OK, 100.0, 105.0, 90.0, 110.0);
    cell(&r, g, 1, OK, 120.0, 125.0, 100.0, 130.0);
    struct pgcb_verdict v;
    char line[512];
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_TOO_FEW);
    assert_int_equal(v.min_orders, 7);
    assert_int_equal(v.winner, PGCB_RANK_NONE);
    pgcb_rank_verdict_free(&v);
    pgcb_report_verdict_line(line, sizeof line, &r, g);
    assert_string_equal(line, "No verdict possible: lowest median A (100 ns), lowest mean A "
                              "(105 ns); 2 execution orders cannot reach alpha 1/64 against 1 "
                              "rival (a winner needs 7)");
    widen(&r, 4);
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_WINNER);
    assert_int_equal(v.winner, 0);
    assert_int_equal(v.lowest_median, 0);
    assert_int_equal(v.lowest_mean, 0);
    assert_int_equal(v.nvalid, 2);
    assert_int_equal(v.orders, 8);
    assert_int_equal(v.nrivals, 1);
    assert_int_equal(v.rivals[0].driver, 1);
    assert_int_equal(v.rivals[0].wins, 8);
    assert_int_equal(v.rivals[0].losses, 0);
    assert_int_equal(v.rivals[0].ties, 0);
    assert_near(v.rivals[0].p, 1.0 / 128, 1e-15);
    assert_near(v.rivals[0].log2_p, -7.0, 1e-12);
    assert_near(v.rivals[0].level, 1.0 / 64, 1e-15);
    assert_true(v.rivals[0].rejected);
    pgcb_rank_verdict_free(&v);
    pgcb_report_verdict_line(line, sizeof line, &r, g);
    assert_string_equal(line, "Winner: A (100 ns median; faster than B in 8/8 orders, "
                              "p = 0.0078)");
    /* the level is the run's: at 1/256 the same 8 orders are not enough */
    r.alpha = 1.0 / 256;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_TOO_FEW);
    assert_int_equal(v.min_orders, 9);
    pgcb_rank_verdict_free(&v);
    pgcb_result_free(&r);
}

/* 24 orders: A lower in 21, equal in 1, higher in 2 -> tested on 23:
 * p = 2 (C(23,21) + C(23,22) + 1) / 2^23 = 554 / 8388608; a winner. Then
 * 10 of 14 (p = 0.18): no clear winner, and the line says against whom. */
static void test_verdict_counts(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "AB", 0, 24);
    size_t g = group(&r, "s", "q", 1);
    cell_flat(&r, g, 0, OK, 100.0, 100.0);
    cell_flat(&r, g, 1, OK, 110.0, 110.0);
    for (size_t o = 0; o < 24; o++) {
        r.groups[g].cells[0].order_medians_ns[o] = 100;
        r.groups[g].cells[1].order_medians_ns[o] = o < 21 ? 110 : o == 21 ? 100 : 90;
    }
    struct pgcb_verdict v;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_WINNER);
    assert_int_equal(v.rivals[0].wins, 21);
    assert_int_equal(v.rivals[0].losses, 2);
    assert_int_equal(v.rivals[0].ties, 1);
    assert_near(v.rivals[0].p, 554.0 / 8388608, 1e-15);
    pgcb_rank_verdict_free(&v);
    char line[512];
    pgcb_report_verdict_line(line, sizeof line, &r, g);
    assert_string_equal(line, "Winner: A (100 ns median; faster than B in 21/24 orders "
                              "(1 tie), p = 6.6e-05)");

    for (size_t o = 0; o < 24; o++) /* 10 wins, 4 losses, 10 missing (ties) */
        r.groups[g].cells[1].order_medians_ns[o] = o < 10 ? 110 : o < 14 ? 90 : NAN;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_NO_CLEAR);
    assert_int_equal(v.rivals[0].ties, 10);
    assert_near(v.rivals[0].p, 2 * 1471.0 / 16384, 1e-12);
    assert_false(v.rivals[0].rejected);
    pgcb_rank_verdict_free(&v);
    pgcb_report_verdict_line(line, sizeof line, &r, g);
    assert_string_equal(line, "No clear winner: lowest median A (100 ns), lowest mean A "
                              "(100 ns); not shown faster than every rival at alpha 1/64: "
                              "faster than B in 10/24 orders (10 ties), p = 0.18 (Holm level "
                              "0.016)");
    pgcb_result_free(&r);
}

/* Holm over two rivals, 10 orders: A beats B 10/10 (p = 2/1024) and C 9/10
 * (p = 22/1024 = 0.0215). At 1/64 the first is tested at 1/128 (passes),
 * the second at 1/64 (0.0215 > 0.0156: fails): no clear winner. At 1/32 both
 * pass: winner. At 1/64 with C also beaten 10/10: p = 2/1024 each, levels
 * 1/128 and 1/64: winner, named together. */
static void test_verdict_holm(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "ABC", 0, 10);
    size_t g = group(&r, "s", "q", 1);
    cell_flat(&r, g, 0, OK, 100.0, 100.0);
    cell_flat(&r, g, 1, OK, 200.0, 200.0);
    cell_flat(&r, g, 2, OK, 101.0, 101.0);
    for (size_t o = 0; o < 10; o++) {
        r.groups[g].cells[0].order_medians_ns[o] = 100;
        r.groups[g].cells[1].order_medians_ns[o] = 200;
        r.groups[g].cells[2].order_medians_ns[o] = o ? 101 : 99;
    }
    struct pgcb_verdict v;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_NO_CLEAR);
    assert_int_equal(v.min_orders, 8);
    assert_true(v.rivals[0].rejected);
    assert_false(v.rivals[1].rejected);
    assert_near(v.rivals[0].level, 1.0 / 128, 1e-15);
    assert_near(v.rivals[1].level, 1.0 / 64, 1e-15);
    assert_near(v.rivals[1].p, 22.0 / 1024, 1e-15);
    pgcb_rank_verdict_free(&v);
    r.alpha = 1.0 / 32;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_WINNER);
    pgcb_rank_verdict_free(&v);
    r.alpha = 1.0 / 64;
    r.groups[g].cells[2].order_medians_ns[0] = 101;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_WINNER);
    pgcb_rank_verdict_free(&v);
    char line[512];
    pgcb_report_verdict_line(line, sizeof line, &r, g);
    assert_string_equal(line, "Winner: A (100 ns median; faster than B, C in 10/10 orders, "
                              "p = 0.002 each)");
    pgcb_result_free(&r);
}

/* Equal medians are never a win: an order where both are 90 is a tie
 * (dropped), and equal pooled medians (A and B both 100, though A is lower
 * in every order) are no winner. */
static void test_verdict_ties(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "AB", 0, 2);
    size_t g1 = group(&r, "s", "q1", 1);
    cell(&r, g1, 0, OK, 100.0, 100.0, 90.0, 95.0);
    cell(&r, g1, 1, OK, 110.0, 110.0, 90.0, 120.0);
    size_t g2 = group(&r, "s", "q2", 1);
    cell(&r, g2, 0, OK, 100.0, 100.0, 90.0, 95.0);
    cell(&r, g2, 1, OK, 100.0, 110.0, 98.0, 120.0);
    widen(&r, 8);
    struct pgcb_verdict v;
    pgcb_rank_verdict(&r, g1, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_WINNER); /* 8 of 8 untied */
    assert_int_equal(v.rivals[0].ties, 8);
    assert_int_equal(v.median_ties, 0);
    pgcb_rank_verdict_free(&v);
    pgcb_rank_verdict(&r, g2, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_NO_CLEAR);
    assert_int_equal(v.median_ties, 1);
    assert_int_equal(v.lowest_median, 0); /* the first in driver order */
    pgcb_rank_verdict_free(&v);
    char line[512];
    pgcb_report_verdict_line(line, sizeof line, &r, g2);
    assert_string_equal(line, "No clear winner: lowest median A (100 ns), lowest mean A (100 ns); "
                              "2 drivers share the lowest median");
    pgcb_result_free(&r);
}

/* A (invalid, 50 ns) and B (failed, 60 ns) do not compete; C (reference,
 * 10 ns) never does. Of the rest, D beats E in every order: winner D,
 * though A, B and C have lower medians. An order where E's median is
 * missing is a tie, dropped. */
static void test_verdict_excluded(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "ABCDE", 1u << 2, 3);
    size_t g = group(&r, "s", "q", 1);
    cell(&r, g, 0, INVALID, 50.0, 50.0, 50.0, 50.0, 50.0);
    cell(&r, g, 1, FAILED, 60.0, 60.0, 60.0, NAN, NAN);
    cell(&r, g, 2, OK, 10.0, 10.0, 10.0, 10.0, 10.0);
    cell(&r, g, 3, OK, 100.0, 100.0, 99.0, 100.0, 101.0);
    cell(&r, g, 4, OK, 120.0, 120.0, 119.0, 120.0, 121.0);
    widen(&r, 3);
    struct pgcb_verdict v;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_WINNER);
    assert_int_equal(v.winner, 3);
    assert_int_equal(v.nvalid, 2);
    assert_int_equal(v.nrivals, 1);
    assert_int_equal(v.rivals[0].driver, 4);
    pgcb_rank_verdict_free(&v);

    for (size_t o = 0; o < 9; o += 3)
        r.groups[g].cells[4].order_medians_ns[o] = NAN; /* E's order 1 of each 3 unknown */
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_NO_CLEAR); /* 6 of 6: p = 1/32 */
    assert_int_equal(v.rivals[0].ties, 3);
    pgcb_rank_verdict_free(&v);

    r.groups[g].cells[4].status = FAILED; /* D alone (C is a reference) */
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_ONLY_ONE);
    assert_int_equal(v.lowest_median, 3);
    assert_int_equal(v.nrivals, 0);
    pgcb_rank_verdict_free(&v);
    char line[512];
    pgcb_report_verdict_line(line, sizeof line, &r, g);
    assert_string_equal(line, "Lowest median: D (100 ns; the only valid client driver)");

    r.groups[g].cells[3].status = NOT_RUN;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_NO_VALID);
    assert_int_equal(v.lowest_median, PGCB_RANK_NONE);
    pgcb_rank_verdict_free(&v);
    pgcb_report_verdict_line(line, sizeof line, &r, g);
    assert_string_equal(line, "No valid client driver result in this group.");
    pgcb_result_free(&r);
}

/* Three drivers: A beats B in every order but not C in order 2 (of each
 * pair): no clear winner; once it does, a winner. */
static void test_verdict_every_rival(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "ABC", 0, 2);
    size_t g = group(&r, "s", "q", 1);
    cell(&r, g, 0, OK, 100.0, 100.0, 95.0, 105.0);
    cell(&r, g, 1, OK, 200.0, 200.0, 200.0, 200.0);
    cell(&r, g, 2, OK, 101.0, 101.0, 110.0, 100.0);
    widen(&r, 5);
    struct pgcb_verdict v;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_NO_CLEAR);
    pgcb_rank_verdict_free(&v);
    for (size_t o = 1; o < 10; o += 2)
        r.groups[g].cells[2].order_medians_ns[o] = 106.0;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_WINNER);
    assert_int_equal(v.winner, 0);
    pgcb_rank_verdict_free(&v);
    pgcb_result_free(&r);
}

/* 2000 orders, all won: p underflows (2^-1999), log2 p does not; the JSON
 * keeps log2_p and writes p as null, the line says p < 1e-6. */
static void test_verdict_many_orders(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "AB", 0, 2000);
    size_t g = group(&r, "s", "q", 1);
    for (size_t d = 0; d < 2; d++) {
        struct pgcb_res_cell *c = &r.groups[g].cells[d];
        c->status = OK;
        c->median_ns = c->mean_ns = d ? 200 : 100;
        c->norders = 2000;
        c->order_medians_ns = pgcb_xcalloc(2000, sizeof(double));
        for (size_t o = 0; o < 2000; o++)
            c->order_medians_ns[o] = d ? 200 : 100;
    }
    struct pgcb_verdict v;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_WINNER);
    assert_true(v.rivals[0].p == 0.0);
    assert_near(v.rivals[0].log2_p, -1999.0, 1e-6);
    json_t *j = pgcb_rank_verdict_json(&r, &v);
    json_t *rv = json_array_get(json_object_get(j, "rivals"), 0);
    assert_true(json_is_null(json_object_get(rv, "p")));
    assert_near(json_real_value(json_object_get(rv, "log2_p")), -1999.0, 1e-6);
    assert_int_equal(json_integer_value(json_object_get(rv, "wins")), 2000);
    assert_true(json_is_true(json_object_get(rv, "faster")));
    assert_true(json_is_true(json_object_get(j, "decidable")));
    json_decref(j);
    pgcb_rank_verdict_free(&v);
    char line[512];
    pgcb_report_verdict_line(line, sizeof line, &r, g);
    assert_string_equal(line, "Winner: A (100 ns median; faster than B in 2000/2000 orders, "
                              "p < 1e-6)");
    pgcb_result_free(&r);
}

/* Ratios to the leader with their order-statistics interval: B's per-order
 * ratios 1.1 x (1..6 / 3.5 spread) -> [min, max] at 6 orders; 5 orders give
 * no 95 % interval. The leader's own ratio is 1, [1, 1]. */
static void test_ratio_interval(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "AB", 0, 6);
    size_t g = group(&r, "s", "q", 1);
    cell(&r, g, 0, OK, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0);
    cell(&r, g, 1, OK, 120.0, 120.0, 105.0, 130.0, 110.0, 125.0, 115.0, 120.0);
    struct pgcb_ratio q;
    assert_int_equal(pgcb_rank_ratio(&r, g, 1, 0, &q), 0);
    assert_near(q.ratio, 1.2, 1e-12);
    assert_near(q.lo, 1.05, 1e-12);
    assert_near(q.hi, 1.30, 1e-12);
    assert_near(q.coverage, 1 - 2.0 / 64, 1e-12);
    assert_int_equal(q.orders, 6);
    assert_int_equal(pgcb_rank_ratio(&r, g, 0, 0, &q), 0);
    assert_near(q.lo, 1, 0);
    assert_near(q.hi, 1, 0);
    r.groups[g].cells[1].order_medians_ns[2] = NAN;
    assert_int_equal(pgcb_rank_ratio(&r, g, 1, 0, &q), 0);
    assert_int_equal(q.orders, 5);
    assert_true(isnan(q.lo) && isnan(q.hi));
    r.groups[g].cells[1].status = FAILED;
    assert_int_equal(pgcb_rank_ratio(&r, g, 1, 0, &q), -1);
    assert_int_equal(pgcb_rank_ci_min_orders(0.95), 6);
    assert_int_equal(pgcb_rank_ci_min_orders(0.99), 8);
    pgcb_result_free(&r);
}

/* until = decided: A beats B in all 12 orders (p = 2^-11) with ratios 1.50 ..
 * 1.55: decided at alpha 1/64 and width 10 %, not at width 1 %; with 20
 * looks (alpha 1/1280 per look) 12 orders are still enough (2^-11 <=
 * 1/1280), 10 are not; a third driver C identical to B is never decided
 * against it. orders_run limits every figure to the orders run. */
static void test_decided(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "ABC", 0, 12);
    size_t g = group(&r, "s", "q", 1);
    cell_flat(&r, g, 0, OK, 100.0, 100.0);
    cell_flat(&r, g, 1, OK, 150.0, 150.0);
    cell_flat(&r, g, 2, FAILED, 150.0, 150.0);
    for (size_t o = 0; o < 12; o++) {
        r.groups[g].cells[0].order_medians_ns[o] = 100;
        r.groups[g].cells[1].order_medians_ns[o] = 150 + (double)(o % 6);
        r.groups[g].cells[2].order_medians_ns[o] = 150 + (double)((o + 3) % 6);
    }
    assert_true(pgcb_rank_decided(&r, g, 0.10));
    assert_false(pgcb_rank_decided(&r, g, 0.01));
    r.looks = 20;
    assert_near(pgcb_rank_alpha(&r), 1.0 / 1280, 1e-15);
    assert_true(pgcb_rank_decided(&r, g, 0.10));
    r.groups[g].orders_run = 10;
    assert_int_equal(pgcb_rank_group_orders(&r, g), 10);
    assert_false(pgcb_rank_decided(&r, g, 0.10));
    struct pgcb_verdict v;
    pgcb_rank_verdict(&r, g, &v);
    assert_int_equal(v.orders, 10);
    assert_int_equal(v.rivals[0].wins, 10);
    pgcb_rank_verdict_free(&v);
    r.groups[g].orders_run = 0;
    r.looks = 1;
    r.groups[g].cells[2].status = OK; /* B and C alike: 6 wins, 6 losses */
    assert_false(pgcb_rank_decided(&r, g, 0.10));
    pgcb_result_free(&r);
}

/* ---- A/A: identical drivers, simulated --------------------------------------- */

/* A standard normal from the deterministic generator (Box-Muller). */
static double gauss(uint64_t *st)
{
    double u = ((double)(pgcb_stats_rng_next(st) >> 11) + 0.5) / 9007199254740992.0;
    double w = ((double)(pgcb_stats_rng_next(st) >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * w);
}

/*
 * How often a "Winner" is printed among `ndrivers` drivers of which the
 * first `same` are identical and the rest 2x slower, over `trials` groups of
 * `norders` orders: per-order medians lognormal (sigma 5 %) around 20 us,
 * rounded to a 16 ns bucket as the histogram's (so that close drivers tie),
 * the pooled median the median of the per-order ones. Counts winners among
 * the identical ones only (the slow ones are truly slower). Also counts
 * what the old rule (a lower median in every order, no test) crowned.
 */
static double aa_rate(size_t ndrivers, size_t same, size_t norders, size_t trials,
                      double *old_rate)
{
    static const char labels[] = "ABCDEFGH";
    struct pgcb_result r;
    char l[9];
    memcpy(l, labels, ndrivers);
    l[ndrivers] = 0;
    make(&r, l, 0, norders);
    size_t g = group(&r, "s", "q", 1);
    for (size_t d = 0; d < ndrivers; d++) {
        struct pgcb_res_cell *c = &r.groups[g].cells[d];
        c->status = OK;
        c->norders = norders;
        c->order_medians_ns = pgcb_xcalloc(norders, sizeof(double));
    }
    uint64_t st = 12345 + ndrivers * 1000 + norders;
    size_t won = 0, old = 0;
    double *tmp = pgcb_xcalloc(norders, sizeof *tmp);
    for (size_t t = 0; t < trials; t++) {
        for (size_t d = 0; d < ndrivers; d++) {
            struct pgcb_res_cell *c = &r.groups[g].cells[d];
            double base = d < same ? 20000 : 40000;
            for (size_t o = 0; o < norders; o++)
                tmp[o] = c->order_medians_ns[o] =
                    16 * floor(base * exp(0.05 * gauss(&st)) / 16) + 8;
            c->median_ns = c->mean_ns = pgcb_stats_median_dbl(tmp, norders);
        }
        struct pgcb_verdict v;
        pgcb_rank_verdict(&r, g, &v);
        won += v.winner != PGCB_RANK_NONE && v.winner < same;
        /* the old rule: the lowest pooled median, lower in every order */
        int all = v.median_ties == 0 && v.lowest_median < same;
        for (size_t i = 0; i < v.nrivals && all; i++)
            all = v.rivals[i].wins == norders;
        old += all;
        pgcb_rank_verdict_free(&v);
    }
    free(tmp);
    pgcb_result_free(&r);
    *old_rate = (double)old / (double)trials;
    return (double)won / (double)trials;
}

/* The chance of a false "Winner" is at most alpha (1/64) whatever the
 * number of orders, also when two identical drivers race a slower third
 * (where a one-sided test of the leader would give 2 x alpha). The bound
 * checked is alpha + 4 standard errors of the simulated rate. */
static void test_aa_simulated(void **state)
{
    (void)state;
    const size_t trials = 20000;
    const double alpha = 1.0 / 64, se = sqrt(alpha * (1 - alpha) / (double)trials);
    static const struct { size_t nd, same, orders; } cases[] = {
        {2, 2, 2}, {2, 2, 6}, {2, 2, 7}, {2, 2, 8}, {2, 2, 24}, {3, 3, 6}, {3, 3, 24},
        {3, 2, 8}, {3, 2, 24}, {6, 6, 14}, {6, 6, 24},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double old;
        double rate = aa_rate(cases[i].nd, cases[i].same, cases[i].orders, trials, &old);
        print_message("A/A %zu drivers (%zu identical), %2zu orders: winner %.4f "
                      "(old rule %.4f)\n", cases[i].nd, cases[i].same, cases[i].orders, rate,
                      old);
        assert_true(rate <= alpha + 4 * se);
    }
}

/* ---- rankings --------------------------------------------------------------- */

/*
 * Drivers A, B, C (clients), R (reference, always fastest: never the best),
 * D (invalid everywhere: not ranked). Two orders.
 *
 *   group       A     B     C     best  ratios A, B, C   verdict
 *   s1/g1      100   200   400    100   1, 2, 4          A wins (both orders)
 *   s1/g2      300   150   300    150   2, 1, 2          B wins
 *   s2/g3      100   100   800    100   1, 1, 8          tie: no winner
 *   s2/g4      100   200   failed  -    left out ("C failed")
 *
 * Overall (g1, g2, g3): A = (1*2*1)^(1/3) = 2^(1/3) = 1.259921
 *                       B = (2*1*1)^(1/3) = 1.259921   (tie with A: both rank 1)
 *                       C = (4*2*8)^(1/3) = 64^(1/3) = 4, slower (4/1.259921 - 1) = +217.48%
 * Fastest median: A 2 (g1, g3), B 2 (g2, g3), C 0. Wins: A 1, B 1, C 0.
 * A before B (same rel, wins and fastest: by name); C third (rank 3).
 * Suite s1 (g1, g2): A = B = sqrt(2) = 1.414214, C = sqrt(8) = 2.828427, +100.0%.
 * Suite s2 (g3; g4 left out): A = B = 1, C = 8, +700.0%.
 */
static void three_drivers(struct pgcb_result *r)
{
    make(r, "ABCRD", 1u << 3, 2);
    size_t g = group(r, "s1", "g1", 1);
    cell(r, g, 0, OK, 100.0, 100.0, 99.0, 101.0);
    cell(r, g, 1, OK, 200.0, 200.0, 199.0, 201.0);
    cell(r, g, 2, OK, 400.0, 400.0, 399.0, 401.0);
    cell(r, g, 3, OK, 10.0, 10.0, 10.0, 10.0);
    cell(r, g, 4, INVALID, 1.0, 1.0, 1.0, 1.0);
    g = group(r, "s1", "g2", 1);
    cell(r, g, 0, OK, 300.0, 300.0, 299.0, 301.0);
    cell(r, g, 1, OK, 150.0, 150.0, 149.0, 151.0);
    cell(r, g, 2, OK, 300.0, 300.0, 300.0, 300.0);
    cell(r, g, 3, OK, 10.0, 10.0, 10.0, 10.0);
    cell(r, g, 4, INVALID, 1.0, 1.0, 1.0, 1.0);
    g = group(r, "s2", "g3", 10);
    cell(r, g, 0, OK, 100.0, 100.0, 99.0, 101.0);
    cell(r, g, 1, OK, 100.0, 100.0, 101.0, 99.0);
    cell(r, g, 2, OK, 800.0, 800.0, 800.0, 800.0);
    cell(r, g, 3, OK, 10.0, 10.0, 10.0, 10.0);
    cell(r, g, 4, INVALID, 1.0, 1.0, 1.0, 1.0);
    g = group(r, "s2", "g4", 10);
    cell(r, g, 0, OK, 100.0, 100.0, 99.0, 101.0);
    cell(r, g, 1, OK, 200.0, 200.0, 199.0, 201.0);
    cell(r, g, 2, FAILED, 50.0, 50.0, 50.0, NAN);
    cell(r, g, 3, OK, 10.0, 10.0, 10.0, 10.0);
    cell(r, g, 4, INVALID, 1.0, 1.0, 1.0, 1.0);
    widen(r, 5); /* 10 orders: a verdict is possible against two rivals */
}

static void expect_row(const struct pgcb_rank_row *row, const char *driver, unsigned rank,
                       double rel, double slower, size_t fastest, size_t wins)
{
    assert_string_equal(row->driver, driver);
    assert_int_equal(row->rank, rank);
    assert_near(row->rel, rel, 1e-6);
    assert_near(row->slower_pct, slower, 1e-3);
    assert_int_equal(row->fastest, fastest);
    assert_int_equal(row->wins, wins);
}

static void test_ranking_overall(void **state)
{
    (void)state;
    struct pgcb_result r;
    three_drivers(&r);
    const struct pgcb_result *runs[] = {&r};
    struct pgcb_ranking rk;
    assert_int_equal(pgcb_rank_compute(runs, 1, NULL, &rk), 0);
    assert_int_equal(rk.nrows, 3);
    assert_int_equal(rk.ngroups, 3);
    assert_int_equal(rk.ncandidates, 4);
    expect_row(&rk.rows[0], "A", 1, cbrt(2.0), 0.0, 2, 1);
    expect_row(&rk.rows[1], "B", 1, cbrt(2.0), 0.0, 2, 1);
    expect_row(&rk.rows[2], "C", 3, 4.0, (4.0 / cbrt(2.0) - 1) * 100, 0, 0);
    assert_near(rk.rows[2].slower_pct, 217.48, 0.005);
    assert_int_equal(rk.nleft_out, 1);
    assert_int_equal(rk.left_out[0].run, 0);
    assert_int_equal(rk.left_out[0].group, 3);
    assert_string_equal(rk.left_out[0].why, "C failed");
    assert_int_equal(rk.nunranked, 1);
    assert_string_equal(rk.unranked[0].driver, "D");
    assert_string_equal(rk.unranked[0].why, "no valid result");
    /* Per-group ratios, in row order (A, B, C). */
    assert_int_equal(rk.groups[1].group, 1);
    assert_near(rk.groups[1].ratio[0], 2.0, 1e-12);
    assert_near(rk.groups[1].ratio[1], 1.0, 1e-12);
    assert_near(rk.groups[1].ratio[2], 2.0, 1e-12);
    assert_string_equal(pgcb_rank_medal(rk.rows[2].rank), "🥉");
    pgcb_rank_free(&rk);
    pgcb_result_free(&r);
}

static void test_ranking_suites(void **state)
{
    (void)state;
    struct pgcb_result r;
    three_drivers(&r);
    const struct pgcb_result *runs[] = {&r};
    size_t n;
    const char **suites = pgcb_rank_suites(runs, 1, &n);
    assert_int_equal(n, 2);
    assert_string_equal(suites[0], "s1");
    assert_string_equal(suites[1], "s2");
    free(suites);

    struct pgcb_ranking rk;
    assert_int_equal(pgcb_rank_compute(runs, 1, "s1", &rk), 0);
    assert_int_equal(rk.ngroups, 2);
    assert_int_equal(rk.nleft_out, 0);
    expect_row(&rk.rows[0], "A", 1, sqrt(2.0), 0.0, 1, 1);
    expect_row(&rk.rows[1], "B", 1, sqrt(2.0), 0.0, 1, 1);
    expect_row(&rk.rows[2], "C", 3, sqrt(8.0), 100.0, 0, 0);
    pgcb_rank_free(&rk);

    assert_int_equal(pgcb_rank_compute(runs, 1, "s2", &rk), 0);
    assert_int_equal(rk.ngroups, 1);
    assert_int_equal(rk.ncandidates, 2);
    assert_int_equal(rk.nleft_out, 1);
    expect_row(&rk.rows[0], "A", 1, 1.0, 0.0, 1, 0);
    expect_row(&rk.rows[1], "B", 1, 1.0, 0.0, 1, 0);
    expect_row(&rk.rows[2], "C", 3, 8.0, 700.0, 0, 0);
    pgcb_rank_free(&rk);

    assert_int_equal(pgcb_rank_compute(runs, 1, "nope", &rk), -1);
    assert_int_equal(rk.nrows, 0);
    assert_int_equal(rk.ncandidates, 0);
    pgcb_rank_free(&rk);
    pgcb_result_free(&r);
}

/*
 * Two runs pooled. Run 1: g1 A 100, B 200 (ratios 1, 2). Run 2: g1 A 300,
 * B 100 (ratios 3, 1), plus driver E and group g9 that run 1 lacks (not
 * shared: not ranked, not counted).
 *   A = sqrt(1*3) = 1.732051, B = sqrt(2*1) = 1.414214
 *   B first; A slower by sqrt(3)/sqrt(2) - 1 = sqrt(1.5) - 1 = +22.474%.
 * Run 2 alone within the scope of both: A 3, B 1 (E ignored, g9 too).
 * Outright wins come from each run's own verdict: in run 2's g1, E (not
 * ranked here) beat B, so B's lowest median among the ranked drivers is a
 * "fastest median" but not an outright win.
 */
static void test_ranking_runs(void **state)
{
    (void)state;
    struct pgcb_result r1, r2;
    make(&r1, "AB", 0, 2);
    size_t g = group(&r1, "s", "g1", 1);
    cell(&r1, g, 0, OK, 100.0, 100.0, 100.0, 100.0);
    cell(&r1, g, 1, OK, 200.0, 200.0, 200.0, 200.0);
    make(&r2, "ABE", 0, 2);
    g = group(&r2, "s", "g1", 1);
    cell(&r2, g, 0, OK, 300.0, 300.0, 300.0, 300.0);
    cell(&r2, g, 1, OK, 100.0, 100.0, 100.0, 100.0);
    cell(&r2, g, 2, OK, 50.0, 50.0, 50.0, 50.0);
    g = group(&r2, "s", "g9", 1);
    cell(&r2, g, 0, OK, 1.0, 1.0, 1.0, 1.0);
    cell(&r2, g, 1, OK, 9.0, 9.0, 9.0, 9.0);
    cell(&r2, g, 2, OK, 9.0, 9.0, 9.0, 9.0);
    widen(&r1, 4);
    widen(&r2, 4);
    const struct pgcb_result *runs[] = {&r1, &r2};

    assert_false(pgcb_rank_driver_shared(runs, 2, "E"));
    assert_true(pgcb_rank_driver_shared(runs, 2, "A"));
    assert_false(pgcb_rank_group_shared(runs, 2, &r2.groups[1]));
    assert_true(pgcb_rank_group_shared(runs, 2, &r2.groups[0]));

    struct pgcb_ranking rk;
    assert_int_equal(pgcb_rank_compute(runs, 2, NULL, &rk), 0);
    assert_int_equal(rk.nrows, 2);
    assert_int_equal(rk.ngroups, 2);
    expect_row(&rk.rows[0], "B", 1, sqrt(2.0), 0.0, 1, 0);
    expect_row(&rk.rows[1], "A", 2, sqrt(3.0), (sqrt(1.5) - 1) * 100, 1, 1);
    assert_int_equal(rk.groups[1].run, 1);
    pgcb_rank_free(&rk);

    assert_int_equal(pgcb_rank_compute_within(&runs[1], 1, runs, 2, NULL, &rk), 0);
    assert_int_equal(rk.nrows, 2);
    assert_int_equal(rk.ngroups, 1);
    expect_row(&rk.rows[0], "B", 1, 1.0, 0.0, 1, 0);
    expect_row(&rk.rows[1], "A", 2, 3.0, 200.0, 0, 0);
    pgcb_rank_free(&rk);

    /* Run 2 on its own: E and g9 count. g1: A 6, B 2, E 1; g9: A 1, B 9, E 9.
     * A = sqrt(6) = 2.449490, E = sqrt(9) = 3, B = sqrt(18) = 4.242641. */
    assert_int_equal(pgcb_rank_compute(&runs[1], 1, NULL, &rk), 0);
    assert_int_equal(rk.nrows, 3);
    expect_row(&rk.rows[0], "A", 1, sqrt(6.0), 0.0, 1, 1);
    expect_row(&rk.rows[1], "E", 2, 3.0, (3 / sqrt(6.0) - 1) * 100, 1, 1);
    expect_row(&rk.rows[2], "B", 3, sqrt(18.0), (sqrt(3.0) - 1) * 100, 0, 0);
    pgcb_rank_free(&rk);
    pgcb_result_free(&r1);
    pgcb_result_free(&r2);
}

/* The same ratios in another group order are the same relative latency, to
 * the bit, and share a rank: A has 1.3, 1.1, 1.7 and B 1.7, 1.3, 1.1. */
static void test_ranking_tie_order(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "CAB", 0, 1);
    static const double a[] = {130, 110, 170}, b[] = {170, 130, 110};
    for (size_t i = 0; i < 3; i++) {
        char q[8];
        snprintf(q, sizeof q, "q%zu", i);
        size_t g = group(&r, "s", q, 1);
        cell(&r, g, 0, OK, 100.0, 100.0, 100.0);
        cell(&r, g, 1, OK, a[i], a[i], a[i]);
        cell(&r, g, 2, OK, b[i], b[i], b[i]);
    }
    const struct pgcb_result *runs[] = {&r};
    struct pgcb_ranking rk;
    assert_int_equal(pgcb_rank_compute(runs, 1, NULL, &rk), 0);
    assert_string_equal(rk.rows[0].driver, "C");
    assert_true(rk.rows[1].rel == rk.rows[2].rel);
    assert_int_equal(rk.rows[1].rank, 2);
    assert_int_equal(rk.rows[2].rank, 2);
    /* one order in every group: no interval */
    assert_true(isnan(rk.rows[1].rel_lo));
    pgcb_rank_free(&rk);
    pgcb_result_free(&r);
}

/* Nothing to rank: only a reference driver; or every client invalid. */
static void test_ranking_nothing(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "RA", 1u, 1);
    size_t g = group(&r, "s", "q", 1);
    cell(&r, g, 0, OK, 10.0, 10.0, 10.0);
    cell(&r, g, 1, INVALID, 100.0, 100.0, 100.0);
    const struct pgcb_result *runs[] = {&r};
    struct pgcb_ranking rk;
    assert_int_equal(pgcb_rank_compute(runs, 1, NULL, &rk), -1);
    assert_int_equal(rk.nrows, 0);
    assert_int_equal(rk.nranked, 0);
    assert_int_equal(rk.nunranked, 1);
    pgcb_rank_free(&rk);
    pgcb_result_free(&r);
}

/* Skipped cells (issue 8): not valid, so not in the verdict, and named
 * "skipped" (not "failed") where a group is left out; a driver that
 * skipped every group is "skipped every group"; a verdict where every
 * client skipped says so; an SLA-failed group's verdict line says so. */
static void test_skipped(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r, "ABC", 0, 2);
    size_t g1 = group(&r, "s", "params", 1), g2 = group(&r, "s", "plain", 1);
    cell(&r, g1, 0, OK, 100.0, 100.0, 90.0, 110.0);
    cell(&r, g1, 1, OK, 200.0, 200.0, 190.0, 210.0);
    cell(&r, g1, 2, SKIPPED, NAN, NAN, NAN, NAN);
    cell(&r, g2, 0, OK, 100.0, 100.0, 90.0, 110.0);
    cell(&r, g2, 1, OK, 400.0, 400.0, 390.0, 410.0);
    cell(&r, g2, 2, OK, 50.0, 50.0, 40.0, 60.0);
    widen(&r, 4);
    struct pgcb_verdict v;
    pgcb_rank_verdict(&r, g1, &v);
    assert_int_equal(v.kind, PGCB_VERDICT_WINNER);
    assert_int_equal(v.winner, 0);
    assert_int_equal(v.nvalid, 2);
    pgcb_rank_verdict_free(&v);

    const struct pgcb_result *runs[] = {&r};
    struct pgcb_ranking rk;
    assert_int_equal(pgcb_rank_compute(runs, 1, NULL, &rk), 0);
    assert_int_equal(rk.nrows, 3);
    assert_int_equal(rk.ngroups, 1);
    assert_int_equal(rk.nleft_out, 1);
    assert_int_equal(rk.left_out[0].group, g1);
    assert_string_equal(rk.left_out[0].why, "C skipped");
    pgcb_rank_free(&rk);

    /* C skips both: not ranked, and both groups are ranked for A and B. */
    r.groups[g2].cells[2].status = SKIPPED;
    assert_int_equal(pgcb_rank_compute(runs, 1, NULL, &rk), 0);
    assert_int_equal(rk.nrows, 2);
    assert_int_equal(rk.ngroups, 2);
    assert_int_equal(rk.nunranked, 1);
    assert_string_equal(rk.unranked[0].driver, "C");
    assert_string_equal(rk.unranked[0].why, "skipped every group");
    pgcb_rank_free(&rk);

    /* One failure among the skips: "no valid result" as before. */
    r.groups[g2].cells[2].status = FAILED;
    assert_int_equal(pgcb_rank_compute(runs, 1, NULL, &rk), 0);
    assert_string_equal(rk.unranked[0].why, "no valid result");
    pgcb_rank_free(&rk);

    char line[512];
    for (size_t d = 0; d < 3; d++)
        r.groups[g1].cells[d].status = SKIPPED;
    pgcb_report_verdict_line(line, sizeof line, &r, g1);
    assert_string_equal(line, "No valid client driver result in this group (every client "
                              "driver skipped it).");
    r.groups[g1].cells[1].status = FAILED;
    pgcb_report_verdict_line(line, sizeof line, &r, g1);
    assert_string_equal(line, "No valid client driver result in this group.");

    r.groups[g2].sla_failed = 1;
    pgcb_report_verdict_line(line, sizeof line, &r, g2);
    assert_string_equal(line, "Winner: A (100 ns median; faster than B in 8/8 orders, "
                              "p = 0.0078) — background SLA FAILED");
    /* the mark is never written past the buffer */
    char small[40];
    pgcb_report_verdict_line(small, sizeof small, &r, g2);
    assert_int_equal(strlen(small), sizeof small - 1);
    pgcb_result_free(&r);
}

/* Groups of two runs are the same only if suite, query, depth, threads,
 * transaction and ops agree. */
static void test_same_group(void **state)
{
    (void)state;
    struct pgcb_result r1, r2;
    make(&r1, "A", 0, 1);
    make(&r2, "A", 0, 1);
    size_t g = group(&r1, "s", "q", 50), h = group(&r2, "s", "q", 50);
    cell(&r1, g, 0, OK, 10.0, 10.0, 10.0);
    cell(&r2, h, 0, OK, 10.0, 10.0, 10.0);
    const struct pgcb_result *both[] = {&r1, &r2};
    assert_true(pgcb_rank_group_shared(both, 2, &r1.groups[g]));
    r2.groups[h].transaction = 1;
    assert_false(pgcb_rank_same_group(&r1.groups[g], &r2.groups[h]));
    assert_false(pgcb_rank_group_shared(both, 2, &r1.groups[g]));
    r1.groups[g].transaction = 1;
    r1.groups[g].ops = 1000;
    assert_false(pgcb_rank_group_shared(both, 2, &r1.groups[g]));
    r2.groups[h].ops = 1000;
    r2.groups[h].nparams = 2; /* not part of the identity */
    assert_true(pgcb_rank_group_shared(both, 2, &r1.groups[g]));
    pgcb_result_free(&r1);
    pgcb_result_free(&r2);
}

/* ---- the report and the JSON result ------------------------------------------- */

static char *capture_rankings(const struct pgcb_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pgcb_report_rankings(f, r);
    fclose(f);
    return buf;
}

static void test_report_rankings(void **state)
{
    (void)state;
    struct pgcb_result r;
    three_drivers(&r);
    char *out = capture_rankings(&r);
    static const char *const want =
        "Ranking: suite s1  (2 groups)\n"
        "┌────┬────────┬───────────────────────────┬──────────────────┬────────────────┬───────────────┐\n"
        "│    │ Driver │ Relative latency [95% CI] │ Slower than best │ Fastest median │ Outright wins │\n"
        "├────┼────────┼───────────────────────────┼──────────────────┼────────────────┼───────────────┤\n"
        "│ 🥇 │ A      │      1.414 [1.412, 1.417] │            +0.0% │            1/2 │           1/2 │\n"
        "│ 🥇 │ B      │      1.414 [1.411, 1.418] │            +0.0% │            1/2 │           1/2 │\n"
        "│ 🥉 │ C      │      2.828 [2.809, 2.849] │          +100.0% │            0/2 │           0/2 │\n"
        "└────┴────────┴───────────────────────────┴──────────────────┴────────────────┴───────────────┘\n"
        "  Not ranked: D (no valid result)\n"
        "\n"
        "Ranking: suite s2  (1 of 2 groups; 1 left out, where a ranked driver is not valid)\n";
    assert_memory_equal(out, want, strlen(want));
    assert_non_null(strstr(out, "  Left out: s2 / g4, depth 10 (C failed)\n"));
    assert_non_null(strstr(out, "Ranking: overall, 2 suites  (3 of 4 groups; 1 left out"));
    assert_non_null(strstr(out, "│ 🥉 │ C      │      4.000 [3.968, 4.033] │          +217.5% │"));
    assert_non_null(strstr(out, "\nLegend:\n  Relative latency  geometric mean"));
    free(out);
    pgcb_result_free(&r);
}

static void test_json_derived(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    three_drivers(&r);
    r.runner_version = pgcb_xstrdup("t");
    char err[512] = "";
    json_t *j = resfake_roundtrip(&r, &back, err, sizeof err);
    if (!j)
        fail_msg("%s", err);
    json_t *v0 = json_object_get(json_array_get(json_object_get(j, "groups"), 0), "verdict");
    assert_string_equal(json_string_value(json_object_get(v0, "winner")), "A");
    assert_string_equal(json_string_value(json_object_get(v0, "lowest_median")), "A");
    assert_int_equal(json_integer_value(json_object_get(v0, "orders")), 10);
    assert_near(json_real_value(json_object_get(v0, "alpha")), 1.0 / 64, 0);
    assert_int_equal(json_integer_value(json_object_get(v0, "min_orders")), 8);
    json_t *rv = json_array_get(json_object_get(v0, "rivals"), 1);
    assert_string_equal(json_string_value(json_object_get(rv, "driver")), "C");
    assert_int_equal(json_integer_value(json_object_get(rv, "wins")), 10);
    assert_near(json_real_value(json_object_get(rv, "p")), 2.0 / 1024, 1e-15);
    assert_near(json_real_value(json_object_get(rv, "holm_level")), 1.0 / 64, 1e-15);
    /* each valid cell's ratio to the leader, with its interval */
    json_t *c1 = json_array_get(json_object_get(json_array_get(json_object_get(j, "groups"), 0),
                                                "results"), 1);
    json_t *vs = json_object_get(c1, "vs_leader");
    assert_string_equal(json_string_value(json_object_get(vs, "driver")), "A");
    assert_near(json_real_value(json_object_get(vs, "ratio")), 2.0, 1e-12);
    assert_near(json_real_value(json_array_get(json_object_get(vs, "interval"), 0)),
                201.0 / 101, 1e-12);
    assert_near(json_real_value(json_array_get(json_object_get(vs, "interval"), 1)),
                199.0 / 99, 1e-12);
    json_t *v2 = json_object_get(json_array_get(json_object_get(j, "groups"), 2), "verdict");
    assert_true(json_is_null(json_object_get(v2, "winner")));
    assert_true(json_is_null(json_object_get(v2, "p_max")) ||
                json_real_value(json_object_get(v2, "p_max")) > 0.5);
    json_t *rk = json_object_get(j, "rankings");
    assert_int_equal(json_integer_value(json_object_get(rk, "groups_ranked")), 3);
    assert_int_equal(json_integer_value(json_object_get(rk, "groups_total")), 4);
    json_t *top = json_array_get(json_object_get(rk, "overall"), 2);
    assert_string_equal(json_string_value(json_object_get(top, "driver")), "C");
    assert_int_equal(json_integer_value(json_object_get(top, "rank")), 3);
    assert_near(json_real_value(json_object_get(top, "relative_latency")), 4.0, 1e-9);
    json_t *s1 = json_object_get(json_object_get(rk, "suites"), "s1");
    assert_int_equal(json_array_size(s1), 3);
    json_t *lo = json_array_get(json_object_get(rk, "left_out"), 0);
    assert_string_equal(json_string_value(json_object_get(lo, "why")), "C failed");
    assert_null(json_object_get(lo, "run"));
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(rk, "unranked"), 0), "driver")),
                        "D");
    json_decref(j);

    /* Reading ignores what is derived: the same result comes back. */
    assert_int_equal(back.ngroups, 4);
    assert_int_equal(back.groups[3].cells[2].status, FAILED);
    pgcb_result_free(&back);
    pgcb_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdict_winner),
        cmocka_unit_test(test_verdict_counts),
        cmocka_unit_test(test_verdict_holm),
        cmocka_unit_test(test_verdict_ties),
        cmocka_unit_test(test_verdict_excluded),
        cmocka_unit_test(test_verdict_every_rival),
        cmocka_unit_test(test_verdict_many_orders),
        cmocka_unit_test(test_ratio_interval),
        cmocka_unit_test(test_decided),
        cmocka_unit_test(test_aa_simulated),
        cmocka_unit_test(test_ranking_overall),
        cmocka_unit_test(test_ranking_suites),
        cmocka_unit_test(test_ranking_runs),
        cmocka_unit_test(test_ranking_tie_order),
        cmocka_unit_test(test_ranking_nothing),
        cmocka_unit_test(test_skipped),
        cmocka_unit_test(test_same_group),
        cmocka_unit_test(test_report_rankings),
        cmocka_unit_test(test_json_derived),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
