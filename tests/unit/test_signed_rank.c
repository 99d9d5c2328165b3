/*
 * test_signed_rank.c -- the Wilcoxon signed-rank test and the
 * Hodges-Lehmann interval (common/signed_rank.c, issue 43) against hand
 * counts, ties and zeros, a brute-force enumeration of every sign pattern,
 * the normal approximation beyond the exact range, and the A/B comparison's
 * tests built on it (common/ab.c): the overall test over the groups' mean
 * per order, the signed-rank test per group, Holm over both, the gate,
 * --ab-orders.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ab.h"
#include "result.h"
#include "signed_rank.h"
#include "util.h"
#include "../lib/assert_near.h"
#include "../lib/resfake.h"

/* Hand counts: n = 5, every difference positive: W+ = 15, P(W+ >= 15) =
 * 1/32, two-sided 2/32. {1, -2, 3, 4, 5}: W+ = 13; W+ >= 13 when the
 * ranks left out sum to <= 2 ({}, {1}, {2}): 3/32, two-sided 6/32. */
static void test_hand_counts(void **state)
{
    (void)state;
    const double all[] = {0.5, 0.1, 0.3, 0.2, 0.4};
    double w;
    size_t used;
    assert_near(pgcb_srank_test(all, 5, &w, &used), 2.0 / 32, 1e-12);
    assert_near(w, 15, 0);
    assert_int_equal(used, 5);
    const double neg[] = {-0.5, -0.1, -0.3, -0.2, -0.4};
    assert_near(pgcb_srank_test(neg, 5, &w, NULL), 2.0 / 32, 1e-12);
    assert_near(w, 0, 0);
    const double mixed[] = {1, -2, 3, 4, 5};
    assert_near(pgcb_srank_test(mixed, 5, &w, NULL), 6.0 / 32, 1e-12);
    assert_near(w, 13, 0);
}

/* Zeros are dropped; tied sizes share their average rank and the null
 * distribution is the one of those ranks: {1, 1, -1, 2} has ranks 2, 2, 2,
 * 4, W+ = 8; P(W+ >= 8) = 4/16 ({2,2,4} three ways, {2,2,2,4}), two-sided
 * 0.5. NaNs are ignored; nothing left gives p = 1. */
static void test_ties_zeros_nans(void **state)
{
    (void)state;
    double w;
    size_t used;
    const double z[] = {0, 1, 2, 0};
    assert_near(pgcb_srank_test(z, 4, &w, &used), 0.5, 1e-12);
    assert_int_equal(used, 2);
    assert_near(w, 3, 0);
    const double t[] = {1, 1, -1, 2, NAN};
    assert_near(pgcb_srank_test(t, 5, &w, &used), 0.5, 1e-12);
    assert_near(w, 8, 0);
    assert_int_equal(used, 4);
    const double none[] = {0, NAN};
    assert_near(pgcb_srank_test(none, 2, &w, &used), 1, 0);
    assert_int_equal(used, 0);
    assert_near(pgcb_srank_test(NULL, 0, NULL, NULL), 1, 0);
}

/* Every one of the 2^12 sign patterns of twelve distinct sizes, counted:
 * the exact p must equal the share of patterns at least as extreme. */
static void test_brute_force(void **state)
{
    (void)state;
    const double size[12] = {0.3, 1.7, 0.9, 2.2, 0.05, 1.1, 3.4, 0.6, 2.9, 0.45, 1.3, 0.75};
    /* the ranks of the sizes above, 1-based */
    unsigned rank[12];
    for (int i = 0; i < 12; i++) {
        rank[i] = 1;
        for (int j = 0; j < 12; j++)
            rank[i] += size[j] < size[i];
    }
    for (unsigned pattern = 0; pattern < 4096; pattern += 37) {
        double d[12];
        unsigned w = 0;
        for (int i = 0; i < 12; i++) {
            d[i] = pattern >> i & 1 ? size[i] : -size[i];
            w += pattern >> i & 1 ? rank[i] : 0;
        }
        unsigned lo = 0, hi = 0;
        for (unsigned q = 0; q < 4096; q++) {
            unsigned s = 0;
            for (int i = 0; i < 12; i++)
                s += q >> i & 1 ? rank[i] : 0;
            lo += s <= w;
            hi += s >= w;
        }
        double want = 2.0 * (lo < hi ? lo : hi) / 4096;
        assert_near(pgcb_srank_test(d, 12, NULL, NULL), want > 1 ? 1 : want, 1e-12);
    }
}

/* Beyond PGCB_SRANK_EXACT_MAX: the normal approximation, near the exact
 * figure where both exist (n = 300, exact; the same values plus one more
 * of each sign, approximate). */
static void test_normal_approximation(void **state)
{
    (void)state;
    size_t n = PGCB_SRANK_EXACT_MAX + 2;
    double *d = pgcb_xcalloc(n, sizeof *d);
    for (size_t i = 0; i < n; i++)
        d[i] = (i % 3 == 0 ? -1.0 : 1.0) * (double)(i + 1);
    double exact = pgcb_srank_test(d, PGCB_SRANK_EXACT_MAX, NULL, NULL);
    double approx = pgcb_srank_test(d, n, NULL, NULL);
    assert_true(exact > 0 && exact < 1e-6);
    assert_true(approx > 0 && approx < 1e-6);
    assert_true(fabs(log10(approx) - log10(exact)) < 0.5);
    free(d);
}

/* The Hodges-Lehmann interval of 1..10: 55 Walsh averages, median 5.5;
 * P(W+ <= 8) = 25/1024 for n = 10, so k = 9: [A_(9), A_(47)] = [3, 8],
 * coverage 1 - 50/1024. Shifted data shift it; too few values give NAN
 * bounds and the most that n gives (n = 5: 1 - 2/32). */
static void test_hodges_lehmann(void **state)
{
    (void)state;
    double d[10], est, lo, hi;
    for (int i = 0; i < 10; i++)
        d[i] = i + 1;
    assert_near(pgcb_srank_ci(d, 10, 0.95, &est, &lo, &hi), 1 - 50.0 / 1024, 1e-12);
    assert_near(est, 5.5, 0);
    assert_near(lo, 3, 0);
    assert_near(hi, 8, 0);
    for (int i = 0; i < 10; i++)
        d[i] -= 100;
    pgcb_srank_ci(d, 10, 0.95, &est, &lo, &hi);
    assert_near(lo, -97, 1e-12);
    assert_near(hi, -92, 1e-12);
    assert_near(pgcb_srank_ci(d, 5, 0.95, &est, &lo, &hi), 1 - 2.0 / 32, 1e-12);
    assert_true(isnan(lo) && isnan(hi));
    assert_near(pgcb_srank_ci(d, 0, 0.95, &est, &lo, &hi), 0, 0);
    assert_true(isnan(est));
}

/* ---- the A/B comparison's tests built on it ----------------------------------- */

#define ORDERS 24

static const char *const LABELS[] = {"base", "head"};

/* A group whose order o has head / base = ratio(o). */
static void add_group(struct pgcb_result *r, const char *query, double (*ratio)(size_t))
{
    r->groups = pgcb_xrealloc(r->groups, (r->ngroups + 1) * sizeof *r->groups);
    struct pgcb_res_group *g = &r->groups[r->ngroups++];
    *g = (struct pgcb_res_group){0};
    g->suite = pgcb_xstrdup("sequential");
    g->query = pgcb_xstrdup(query);
    g->sql = pgcb_xstrdup("SELECT 1");
    g->depth = g->threads = g->rows = 1;
    g->cells = pgcb_xcalloc(2, sizeof *g->cells);
    for (size_t d = 0; d < 2; d++) {
        struct pgcb_res_cell *c = &g->cells[d];
        c->status = PGCB_CELL_OK;
        c->cpu_ns_per_query = NAN;
        c->norders = ORDERS;
        c->order_medians_ns = pgcb_xcalloc(ORDERS, sizeof(double));
        for (size_t o = 0; o < ORDERS; o++)
            c->order_medians_ns[o] = 1000 * (d == 1 ? ratio(o) : 1);
        c->median_ns = 1000 * (d == 1 ? ratio(0) : 1);
    }
}

/* HEAD 1 % slower in every order (a little more each order, so that no
 * two are tied); a group with no direction. */
static double shift(size_t o)
{
    return 1.01 * (1 + 0.001 * (double)o);
}
static double flat(size_t o)
{
    return 1 + (o % 4 < 2 ? 0.02 : -0.02) * (double)(1 + o % 3);
}
/* Three groups that share a 3 % (a, b) or 0.4 % (c) change under noise
 * that hides it from each one's sign test: 12 of 24 orders each way. */
static double g_a(size_t o)
{
    return 1.03 * (o % 4 < 2 ? 1.08 : 1 / 1.08);
}
static double g_b(size_t o)
{
    return 1.03 * (o % 4 < 2 ? 1 / 1.08 : 1.08);
}
static double g_c(size_t o)
{
    return 1.004 * (o % 4 < 2 ? 1.05 : 1 / 1.05);
}

static void compute(const struct pgcb_result *r, enum pgcb_ab_test t, size_t max_orders,
                    double gate, struct pgcb_ab *ab)
{
    const struct pgcb_result *runs[] = {r};
    const struct pgcb_ab_opts o = {.test = t, .max_orders = max_orders};
    char err[256];
    assert_int_equal(
        pgcb_ab_compute_opts(runs, 1, NULL, 0, "base", "head", gate, &o, ab, err, sizeof err), 0);
}

/* signed-rank: per group over the orders' log ratios (W+ = 1 + ... + 24 =
 * 300, p = 2 / 2^24), the Hodges-Lehmann interval as a ratio, Holm over
 * two groups and the overall test; the JSON says which test ran. sign: no
 * overall test, Holm over the two groups only. */
static void test_signed_rank_per_group(void **state)
{
    (void)state;
    struct pgcb_result r;
    resfake_init(&r, LABELS, 2, ORDERS);
    r.alpha = 1.0 / 64;
    add_group(&r, "shift", shift);
    add_group(&r, "flat", flat);
    struct pgcb_ab ab;
    compute(&r, PGCB_AB_TEST_SIGNED_RANK, 0, 0.5, &ab);
    assert_int_equal(ab.groups[0].units, 24);
    assert_near(ab.groups[0].w_plus, 300, 0);
    assert_near(ab.groups[0].p, 2.0 / (1 << 24), 1e-15);
    assert_int_equal(ab.groups[0].kind, PGCB_AB_SLOWER);
    assert_true(ab.groups[0].lo > 1.01 && ab.groups[0].hi < 1.036);
    assert_int_equal(ab.groups[1].kind, PGCB_AB_NO_CHANGE);
    assert_near(ab.groups[0].holm_level, 1.0 / 64 / 3, 1e-12);
    assert_true(ab.overall.tested);
    assert_int_equal(ab.overall.units, 24);
    assert_true(ab.gate_failed);
    json_t *j = pgcb_ab_json(&ab);
    assert_string_equal(json_string_value(json_object_get(j, "paired_test")), "signed-rank");
    json_t *g0 = json_array_get(json_object_get(j, "groups"), 0);
    assert_int_equal(json_integer_value(json_object_get(g0, "units")), 24);
    assert_non_null(json_object_get(json_object_get(j, "overall"), "test"));
    json_decref(j);
    pgcb_ab_free(&ab);
    compute(&r, PGCB_AB_TEST_SIGN, 0, 0.5, &ab);
    assert_false(ab.overall.tested);
    assert_int_equal(ab.groups[0].slower, 24);
    assert_near(ab.groups[0].holm_level, 1.0 / 64 / 2, 1e-12);
    pgcb_ab_free(&ab);
    pgcb_result_free(&r);
}

/* A change every group shares, too small for any one group: the sign test
 * sees 12 of 24 orders each way in each; the overall test (sign+overall,
 * the default) sees every order's mean over the groups above 0 (3.7 % and
 * 0.5 % by turns: p = 2 / 2^24), and the gate fails on it alone. With
 * --ab-orders 6 (smallest p 1/32): nothing shown, the gate passes. */
static void test_overall_sees_a_shared_change(void **state)
{
    (void)state;
    struct pgcb_result r;
    resfake_init(&r, LABELS, 2, ORDERS);
    r.alpha = 1.0 / 64;
    add_group(&r, "a", g_a);
    add_group(&r, "b", g_b);
    add_group(&r, "c", g_c);
    struct pgcb_ab ab;
    char err[256];
    const struct pgcb_result *runs[] = {&r};
    assert_int_equal(pgcb_ab_compute(runs, 1, NULL, 0, "base", "head", 2, &ab, err, sizeof err),
                     0); /* the default is sign+overall */
    assert_int_equal(ab.test, PGCB_AB_TEST_SIGN_OVERALL);
    for (size_t g = 0; g < 3; g++) {
        assert_int_equal(ab.groups[g].kind, PGCB_AB_NO_CHANGE);
        assert_int_equal(ab.groups[g].slower, 12);
    }
    assert_true(ab.overall.rejected);
    assert_int_equal(ab.overall.kind, PGCB_AB_SLOWER);
    assert_int_equal(ab.overall.units, 24);
    assert_near(ab.overall.p, 2.0 / (1 << 24), 1e-15);
    assert_true(ab.overall.over);
    assert_true(ab.gate_failed);
    char why[160];
    pgcb_ab_gate_why(&ab, why, sizeof why);
    assert_string_equal(why, "0 groups slower by more than 2%, overall slower, 0 failed");
    pgcb_ab_free(&ab);
    compute(&r, PGCB_AB_TEST_SIGN_OVERALL, 6, 2, &ab);
    assert_int_equal(ab.groups[0].base_orders, 6);
    assert_int_equal(ab.overall.units, 6);
    assert_false(ab.overall.rejected);
    assert_false(ab.gate_failed);
    pgcb_ab_free(&ab);
    compute(&r, PGCB_AB_TEST_SIGN, 0, 2, &ab);
    assert_false(ab.overall.tested);
    assert_false(ab.gate_failed); /* the design before saw nothing */
    pgcb_ab_free(&ab);
    pgcb_result_free(&r);
}

static void test_test_names(void **state)
{
    (void)state;
    enum pgcb_ab_test t = PGCB_AB_TEST_SIGN;
    assert_int_equal(pgcb_ab_test_parse("signed-rank", &t), 0);
    assert_int_equal(t, PGCB_AB_TEST_SIGNED_RANK);
    assert_int_equal(pgcb_ab_test_parse("sign", &t), 0);
    assert_int_equal(t, PGCB_AB_TEST_SIGN);
    assert_int_equal(pgcb_ab_test_parse("sign+overall", &t), 0);
    assert_int_equal(t, PGCB_AB_TEST_SIGN_OVERALL);
    assert_int_equal(pgcb_ab_test_parse("wilcoxon", &t), -1);
    assert_string_equal(pgcb_ab_test_str(PGCB_AB_TEST_SIGNED_RANK), "signed-rank");
    assert_string_equal(pgcb_ab_test_str(PGCB_AB_TEST_SIGN_OVERALL), "sign+overall");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_counts),
        cmocka_unit_test(test_ties_zeros_nans),
        cmocka_unit_test(test_brute_force),
        cmocka_unit_test(test_normal_approximation),
        cmocka_unit_test(test_hodges_lehmann),
        cmocka_unit_test(test_signed_rank_per_group),
        cmocka_unit_test(test_overall_sees_a_shared_change),
        cmocka_unit_test(test_test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
