/*
 * test_ab.c -- the A/B comparison's arithmetic (common/ab.c, issue 29) on
 * hand-made results: the exact two-sided sign test over the orders (the
 * paired design's test before issue 43, --ab-test sign; the signed-rank
 * units are test_signed_rank.c's), Holm
 * over the groups (a step-down rejection Bonferroni would miss), the
 * order-statistics interval, the gate's rule (slower above the threshold
 * fails, faster and no change never do), the exact Mann-Whitney test and
 * Moses interval of the unpaired design against hand computations, and
 * hostile inputs: a side invalid or missing in a group, a group missing in
 * the baseline, a label no run has.
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
#include "stats.h"
#include "util.h"
#include "../lib/assert_near.h"
#include "../lib/resfake.h"

#define K 12 /* orders */

static const char *const LABELS[] = {"base", "head"};

/* Append group `query` with base's per-order medians b[] and head's h[]
 * (K each; NULL: that cell is st instead, no medians). A run of one driver
 * gets b[] only. */
static void add_group(struct pgcb_result *r, const char *query, const double *b,
                      const double *h, enum pgcb_cell_status st)
{
    r->groups = pgcb_xrealloc(r->groups, (r->ngroups + 1) * sizeof *r->groups);
    struct pgcb_res_group *g = &r->groups[r->ngroups++];
    *g = (struct pgcb_res_group){0};
    g->suite = pgcb_xstrdup("sequential");
    g->query = pgcb_xstrdup(query);
    g->sql = pgcb_xstrdup("SELECT 1");
    g->depth = 1;
    g->threads = 1;
    g->rows = 1;
    g->cells = pgcb_xcalloc(r->ndrivers, sizeof *g->cells);
    const double *v[2] = {b, h};
    for (size_t d = 0; d < r->ndrivers; d++) {
        struct pgcb_res_cell *c = &g->cells[d];
        c->cpu_ns_per_query = NAN;
        c->norders = K;
        c->order_medians_ns = pgcb_xcalloc(K, sizeof(double));
        if (!v[d]) {
            c->status = st;
            c->error = pgcb_xstrdup("checksum 1 != 2");
            c->median_ns = NAN;
            for (size_t o = 0; o < K; o++)
                c->order_medians_ns[o] = NAN;
            continue;
        }
        c->status = PGCB_CELL_OK;
        memcpy(c->order_medians_ns, v[d], K * sizeof(double));
        double tmp[K];
        memcpy(tmp, v[d], sizeof tmp);
        c->median_ns = pgcb_stats_median_dbl(tmp, K);
    }
}

/* base 1000 ns in every order; head = base x ratio[o]. */
static void ratios_group(struct pgcb_result *r, const char *query, const double *ratio)
{
    double b[K], h[K];
    for (size_t o = 0; o < K; o++) {
        b[o] = 1000;
        h[o] = 1000 * ratio[o];
    }
    add_group(r, query, b, h, PGCB_CELL_OK);
}

/* head slower in `slower` of the K orders by 5%, faster by 5% in the others. */
static void split_group(struct pgcb_result *r, const char *query, unsigned slower)
{
    double q[K];
    for (size_t o = 0; o < K; o++)
        q[o] = o < slower ? 1.05 : 0.95;
    ratios_group(r, query, q);
}

static void compute(const struct pgcb_result *r, double gate, struct pgcb_ab *ab)
{
    const struct pgcb_result *runs[] = {r};
    char err[256];
    const struct pgcb_ab_opts sign = {.test = PGCB_AB_TEST_SIGN};
    assert_int_equal(pgcb_ab_compute_opts(runs, 1, NULL, 0, "base", "head", gate, &sign, ab, err,
                                          sizeof err),
                     0);
}

static void test_sign_test_two_sided(void **state)
{
    (void)state;
    struct pgcb_result r;
    resfake_init(&r, LABELS, 2, K);
    split_group(&r, "all_slower", 12);
    split_group(&r, "all_faster", 0);
    split_group(&r, "ten_two", 10);
    struct pgcb_ab ab;
    compute(&r, -1, &ab);
    assert_int_equal(ab.ngroups, 3);
    /* 12 of 12: p = 2 x 2^-12 (two-sided), either direction alike. */
    assert_near(ab.groups[0].p, 2.0 / 4096, 1e-12);
    assert_near(ab.groups[1].p, 2.0 / 4096, 1e-12);
    assert_int_equal(ab.groups[0].slower, 12);
    assert_int_equal(ab.groups[1].faster, 12);
    assert_int_equal(ab.groups[0].kind, PGCB_AB_SLOWER);
    assert_int_equal(ab.groups[1].kind, PGCB_AB_FASTER);
    /* 10 of 12: P(X >= 10) = (66 + 12 + 1) / 4096, doubled. */
    assert_near(ab.groups[2].p, 2.0 * 79 / 4096, 1e-12);
    assert_int_equal(ab.groups[2].kind, PGCB_AB_NO_CHANGE);
    assert_int_equal(ab.nslower, 1);
    assert_int_equal(ab.nfaster, 1);
    assert_int_equal(ab.nno_change, 1);
    assert_int_equal(ab.gate_failed, 0); /* no gate asked */
    pgcb_ab_free(&ab);
    pgcb_result_free(&r);
}

/* Holm: p's 2/4096 (12-0), 26/4096 (11-1) and 1 (6-6) at alpha 1/64 over 3
 * groups. The first is compared with alpha/3 = 0.0052, the second with
 * alpha/2 = 0.0078 (0.00635 passes; Bonferroni's alpha/3 would not), the
 * third with alpha. */
static void test_holm_step_down(void **state)
{
    (void)state;
    struct pgcb_result r;
    resfake_init(&r, LABELS, 2, K);
    r.alpha = 1.0 / 64;
    split_group(&r, "a", 12);
    split_group(&r, "b", 11);
    split_group(&r, "c", 6);
    struct pgcb_ab ab;
    compute(&r, -1, &ab);
    assert_near(ab.alpha, 1.0 / 64, 1e-15);
    assert_near(ab.groups[1].p, 2.0 * 13 / 4096, 1e-12);
    assert_near(ab.groups[0].holm_level, 1.0 / 64 / 3, 1e-15);
    assert_near(ab.groups[1].holm_level, 1.0 / 64 / 2, 1e-15);
    assert_near(ab.groups[2].holm_level, 1.0 / 64, 1e-15);
    assert_true(ab.groups[1].p > ab.alpha / 3); /* Bonferroni would not reject it */
    assert_int_equal(ab.groups[0].kind, PGCB_AB_SLOWER);
    assert_int_equal(ab.groups[1].kind, PGCB_AB_SLOWER);
    assert_int_equal(ab.groups[2].kind, PGCB_AB_NO_CHANGE);
    pgcb_ab_free(&ab);
    pgcb_result_free(&r);
}

/* The interval: at 95% over 12 ratios, [r_(3), r_(10)] (P(X <= 2) = 79/4096
 * <= 0.025 < P(X <= 3)); coverage 1 - 2 x 79/4096. The point is the ratio of
 * the pooled medians. */
static void test_interval(void **state)
{
    (void)state;
    struct pgcb_result r;
    resfake_init(&r, LABELS, 2, K);
    double q[K] = {1.12, 1.01, 1.11, 1.02, 1.10, 1.03, 1.09, 1.04, 1.08, 1.05, 1.07, 1.06};
    ratios_group(&r, "limit_500", q);
    struct pgcb_ab ab;
    compute(&r, -1, &ab);
    assert_near(ab.groups[0].lo, 1.03, 1e-12);
    assert_near(ab.groups[0].hi, 1.10, 1e-12);
    assert_near(ab.groups[0].coverage, 1 - 2.0 * 79 / 4096, 1e-12);
    assert_near(ab.groups[0].ratio, 1.065, 1e-9); /* median 1065 over 1000 */
    assert_near(ab.geo, 1.065, 1e-9);             /* one group: its ratio */
    assert_true(ab.geo_lo <= ab.geo && ab.geo <= ab.geo_hi);
    assert_true(ab.geo_lo >= 1.01 && ab.geo_hi <= 1.12);
    pgcb_ab_free(&ab);
    pgcb_result_free(&r);
}

static void test_gate_rule(void **state)
{
    (void)state;
    assert_int_equal(pgcb_ab_fails_gate(PGCB_AB_SLOWER, 1.05, 2), 1);
    assert_int_equal(pgcb_ab_fails_gate(PGCB_AB_SLOWER, 1.015, 2), 0); /* shown, but small */
    assert_int_equal(pgcb_ab_fails_gate(PGCB_AB_SLOWER, 1.05, -1), 0); /* no gate */
    assert_int_equal(pgcb_ab_fails_gate(PGCB_AB_NO_CHANGE, 1.50, 2), 0); /* noise */
    assert_int_equal(pgcb_ab_fails_gate(PGCB_AB_FASTER, 0.50, 0), 0);
    assert_int_equal(pgcb_ab_fails_gate(PGCB_AB_FAILED, NAN, 2), 1);

    /* Through compute: 5% slower in every order fails at 2, not at 10; a
     * large but unshown difference (6 of 12) never fails. */
    struct pgcb_result r;
    resfake_init(&r, LABELS, 2, K);
    split_group(&r, "slow", 12);
    double q[K] = {2, 2, 2, 2, 2, 2, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9};
    ratios_group(&r, "wild", q);
    struct pgcb_ab ab;
    compute(&r, 2, &ab);
    assert_int_equal(ab.groups[0].over, 1);
    assert_int_equal(ab.groups[1].kind, PGCB_AB_NO_CHANGE);
    assert_int_equal(ab.groups[1].over, 0);
    assert_int_equal(ab.gate_failed, 1);
    pgcb_ab_free(&ab);
    compute(&r, 10, &ab);
    assert_int_equal(ab.gate_failed, 0);
    pgcb_ab_free(&ab);
    pgcb_result_free(&r);

    /* A planted improvement: shown faster, never fails, even at 0. */
    resfake_init(&r, LABELS, 2, K);
    split_group(&r, "fast", 0);
    compute(&r, 0, &ab);
    assert_int_equal(ab.groups[0].kind, PGCB_AB_FASTER);
    assert_int_equal(ab.gate_failed, 0);
    pgcb_ab_free(&ab);
    pgcb_result_free(&r);
}

/* A side INVALID in a group: that group failed (not in Holm's family nor
 * the geometric mean), the others kept, the gate fails. */
static void test_failed_side(void **state)
{
    (void)state;
    struct pgcb_result r;
    resfake_init(&r, LABELS, 2, K);
    split_group(&r, "a", 12);
    double b[K];
    for (size_t o = 0; o < K; o++)
        b[o] = 1000;
    add_group(&r, "broken", b, NULL, PGCB_CELL_INVALID);
    split_group(&r, "c", 6);
    struct pgcb_ab ab;
    compute(&r, 2, &ab);
    assert_int_equal(ab.groups[1].kind, PGCB_AB_FAILED);
    assert_non_null(strstr(ab.groups[1].why, "head invalid"));
    assert_non_null(strstr(ab.groups[1].why, "checksum 1 != 2"));
    assert_int_equal(ab.groups[0].kind, PGCB_AB_SLOWER);
    assert_near(ab.groups[0].holm_level, ab.alpha / 2, 1e-15); /* a family of 2 */
    assert_int_equal(ab.nfailed, 1);
    assert_int_equal(ab.geo_groups, 2);
    assert_int_equal(ab.gate_failed, 1);
    pgcb_ab_free(&ab);
    /* Without a gate nothing fails, but the verdict stays. */
    compute(&r, -1, &ab);
    assert_int_equal(ab.groups[1].kind, PGCB_AB_FAILED);
    assert_int_equal(ab.gate_failed, 0);
    pgcb_ab_free(&ab);
    pgcb_result_free(&r);
}

/* Mann-Whitney against hand counts: m = n = 3 fully separated, U = 9, P(U >=
 * 9) = 1/C(6,3) = 1/20, two-sided 0.1; 12 and 12 separated: 2/C(24,12);
 * ties count 1/2. */
static void test_mann_whitney(void **state)
{
    (void)state;
    double x[3] = {10, 11, 12}, y[3] = {1, 2, 3}, u;
    assert_near(pgcb_ab_mann_whitney(x, 3, y, 3, &u), 0.1, 1e-12);
    assert_near(u, 9, 0);
    assert_near(pgcb_ab_mann_whitney(y, 3, x, 3, &u), 0.1, 1e-12);
    assert_near(u, 0, 0);
    double same[3] = {5, 5, 5};
    assert_near(pgcb_ab_mann_whitney(same, 3, same, 3, &u), 1, 1e-12);
    assert_near(u, 4.5, 0);
    double a[12], b[12];
    for (int i = 0; i < 12; i++) {
        a[i] = 100 + i;
        b[i] = 200 + i;
    }
    assert_near(pgcb_ab_mann_whitney(a, 12, b, 12, NULL), 2.0 / 2704156, 1e-15);
    /* m = 2, n = 2: U in 0..4 with counts 1 1 2 1 1 of 6; U = 1: 2 x 2/6. */
    double p[2] = {1, 3}, q[2] = {2, 4};
    assert_near(pgcb_ab_mann_whitney(p, 2, q, 2, &u), 2.0 * 2 / 6, 1e-12);
    assert_near(u, 1, 0);
    /* Moses: 12 x 12 at 95% covers at least 95%; pairwise ratios of b/a lie
     * in [200/111, 211/100]. */
    double lo, hi;
    double cov = pgcb_ab_moses_ci(a, 12, b, 12, 0.95, &lo, &hi);
    assert_true(cov >= 0.95 && cov < 0.97);
    assert_true(lo > 200.0 / 111 - 1e-12 && hi < 211.0 / 100 + 1e-12 && lo < hi);
    /* 2 x 2 cannot reach 95%: [min, max] covers 1 - 2/6. */
    assert_near(pgcb_ab_moses_ci(p, 2, q, 2, 0.95, &lo, &hi), 1 - 2.0 / 6, 1e-12);
    assert_true(isnan(lo) && isnan(hi));
}

/* Unpaired: HEAD from one run, BASE from a baseline run; a group the
 * baseline lacks fails, the rest compares; a label no run has is an error. */
static void test_unpaired_and_hostile(void **state)
{
    (void)state;
    struct pgcb_result h, b;
    const char *const head_only[] = {"head"};
    resfake_init(&h, head_only, 1, K);
    resfake_init(&b, head_only, 1, K);
    double slow[K], fast[K];
    for (size_t o = 0; o < K; o++) {
        slow[o] = 1100 + (double)o;
        fast[o] = 1000 + (double)o;
    }
    add_group(&h, "limit_500", slow, slow, PGCB_CELL_OK);
    add_group(&h, "only_head", slow, slow, PGCB_CELL_OK);
    add_group(&b, "limit_500", fast, fast, PGCB_CELL_OK);
    const struct pgcb_result *hr[] = {&h}, *br[] = {&b};
    struct pgcb_ab ab;
    char err[256];
    assert_int_equal(pgcb_ab_compute(hr, 1, br, 1, "head", "head", 2, &ab, err, sizeof err), 0);
    assert_int_equal(ab.unpaired, 1);
    assert_int_equal(ab.groups[0].kind, PGCB_AB_SLOWER);
    assert_near(ab.groups[0].p, 2.0 / 2704156, 1e-15);
    assert_near(ab.groups[0].u, 0, 0);
    assert_true(ab.groups[0].lo > 1.05 && ab.groups[0].hi < 1.12);
    assert_int_equal(ab.groups[1].kind, PGCB_AB_FAILED);
    assert_non_null(strstr(ab.groups[1].why, "baseline run: group not run"));
    assert_int_equal(ab.gate_failed, 1);
    pgcb_ab_free(&ab);

    assert_int_equal(pgcb_ab_compute(hr, 1, br, 1, "nope", "head", 2, &ab, err, sizeof err), -1);
    assert_non_null(strstr(err, "no baseline run has a driver 'nope'"));
    pgcb_ab_free(&ab);
    assert_int_equal(pgcb_ab_compute(hr, 1, NULL, 0, "base", "head", 2, &ab, err, sizeof err), -1);
    assert_non_null(strstr(err, "no run has a driver 'base'"));
    pgcb_ab_free(&ab);
    pgcb_result_free(&h);
    pgcb_result_free(&b);
}

/* The JSON carries the verdicts and the gate. */
static void test_json(void **state)
{
    (void)state;
    struct pgcb_result r;
    resfake_init(&r, LABELS, 2, K);
    split_group(&r, "a", 12);
    struct pgcb_ab ab;
    compute(&r, 2, &ab);
    json_t *j = pgcb_ab_json(&ab);
    json_t *g0 = json_array_get(json_object_get(j, "groups"), 0);
    assert_string_equal(json_string_value(json_object_get(g0, "verdict")), "slower");
    assert_int_equal(json_integer_value(json_object_get(g0, "slower")), 12);
    assert_true(json_is_true(json_object_get(json_object_get(j, "gate"), "failed")));
    assert_string_equal(json_string_value(json_object_get(j, "design")), "paired");
    json_decref(j);
    pgcb_ab_free(&ab);
    pgcb_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sign_test_two_sided), cmocka_unit_test(test_holm_step_down),
        cmocka_unit_test(test_interval),            cmocka_unit_test(test_gate_rule),
        cmocka_unit_test(test_failed_side),         cmocka_unit_test(test_mann_whitney),
        cmocka_unit_test(test_unpaired_and_hostile), cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
