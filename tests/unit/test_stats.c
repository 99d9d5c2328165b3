/* test_stats.c -- unit tests for common/stats.c (hand-computed expectations). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats.h"

#include "../lib/assert_near.h"

static void test_t95_table(void **state)
{
    (void)state;
    assert_true(isnan(pgcb_stats_t95(0)));
    /* Exact table entries. */
    assert_near(pgcb_stats_t95(1), 12.706, 1e-12);
    assert_near(pgcb_stats_t95(2), 4.303, 1e-12);
    assert_near(pgcb_stats_t95(5), 2.571, 1e-12);
    assert_near(pgcb_stats_t95(10), 2.228, 1e-12);
    assert_near(pgcb_stats_t95(30), 2.042, 1e-12);
}

static void test_t95_expansion(void **state)
{
    (void)state;
    /* Published t_{0.975} values (6 decimals): 31 -> 2.039513,
     * 40 -> 2.021075, 60 -> 2.000298, 120 -> 1.979930, 1e9 -> z. */
    assert_near(pgcb_stats_t95(31), 2.039513, 1e-4);
    assert_near(pgcb_stats_t95(40), 2.021, 1e-3);
    assert_near(pgcb_stats_t95(40), 2.021075, 1e-4);
    assert_near(pgcb_stats_t95(60), 2.000, 1e-3);
    assert_near(pgcb_stats_t95(60), 2.000298, 1e-4);
    assert_near(pgcb_stats_t95(120), 1.980, 1e-3);
    assert_near(pgcb_stats_t95(120), 1.979930, 1e-4);
    assert_near(pgcb_stats_t95(1000000000), 1.960, 1e-3);
    assert_near(pgcb_stats_t95(1000000000), 1.959963985, 1e-8);
    /* Monotone decreasing across the table/expansion seam. */
    assert_true(pgcb_stats_t95(31) < pgcb_stats_t95(30));
}

static void test_rme(void **state)
{
    (void)state;
    /* mean 100, sd 10, n 4: 3.182 * 10 / sqrt(4) / 100 * 100 = 15.91 */
    assert_near(pgcb_stats_rme_pct(100, 10, 4), 15.91, 1e-9);
    /* mean 50, sd 5, n 11: 2.228 * 5 / sqrt(11) / 50 * 100
     * = 22.28 / 3.3166247903554 = 6.7176728 */
    assert_near(pgcb_stats_rme_pct(50, 5, 11), 22.28 / sqrt(11.0), 1e-9);
    assert_near(pgcb_stats_rme_pct(50, 5, 11), 6.7176728, 1e-6);
    assert_true(isnan(pgcb_stats_rme_pct(100, 10, 1))); /* not "± 0.00%" */
    assert_true(isnan(pgcb_stats_rme_pct(0, 10, 4)));
    assert_near(pgcb_stats_rme_pct(100, 0, 4), 0, 0);
}

static void test_median_u64(void **state)
{
    (void)state;
    uint64_t odd[] = {5, 1, 3};
    uint64_t even[] = {4, 1, 3, 2};
    uint64_t big[] = {UINT64_MAX, UINT64_MAX - 2};
    assert_near(pgcb_stats_median_u64(odd, 3), 3.0, 0);
    /* sorted in place */
    assert_true(odd[0] == 1 && odd[1] == 3 && odd[2] == 5);
    assert_near(pgcb_stats_median_u64(even, 4), 2.5, 0);
    assert_true(even[0] == 1 && even[3] == 4);
    /* no integer overflow in the sum: ~1.8446744073709552e19 */
    assert_near(pgcb_stats_median_u64(big, 2), 18446744073709551615.0, 4096);
    assert_near(pgcb_stats_median_u64(NULL, 0), 0, 0);
    uint64_t one[] = {7};
    assert_near(pgcb_stats_median_u64(one, 1), 7.0, 0);
}

static void test_median_dbl(void **state)
{
    (void)state;
    double odd[] = {2.5, -1.0, 9.0, 0.5, 3.0};
    double even[] = {0.25, 1.5, -0.75, 4.0};
    double withnan[] = {NAN, 3.0, 1.0};
    /* sorted {-1, 0.5, 2.5, 3, 9} -> 2.5 */
    assert_near(pgcb_stats_median_dbl(odd, 5), 2.5, 0);
    /* sorted {-0.75, 0.25, 1.5, 4} -> (0.25 + 1.5) / 2 = 0.875 */
    assert_near(pgcb_stats_median_dbl(even, 4), 0.875, 0);
    /* NaN sorts last: {1, 3, NaN} -> 3 */
    assert_near(pgcb_stats_median_dbl(withnan, 3), 3.0, 0);
    assert_true(isnan(withnan[2]));
    assert_near(pgcb_stats_median_dbl(NULL, 0), 0, 0);
}

static void test_geomean(void **state)
{
    (void)state;
    const double a[] = {1, 4};        /* sqrt(4) = 2 */
    const double b[] = {2, 8, 4};     /* cbrt(64) = 4 */
    const double c[] = {1.5};         /* 1.5 */
    const double bad0[] = {1, 0, 4};
    const double badneg[] = {1, -2};
    assert_near(pgcb_stats_geomean(a, 2), 2.0, 1e-12);
    assert_near(pgcb_stats_geomean(b, 3), 4.0, 1e-12);
    assert_near(pgcb_stats_geomean(c, 1), 1.5, 1e-12);
    assert_true(isnan(pgcb_stats_geomean(a, 0)));
    assert_true(isnan(pgcb_stats_geomean(bad0, 3)));
    assert_true(isnan(pgcb_stats_geomean(badneg, 2)));
}

/* P(X >= k), X ~ Bin(n, 1/2), by hand: n = 24, k = 21: (2024 + 276 + 24 + 1) /
 * 2^24; n = 6, k = 6: 1/64; beyond the exact range (n = 100, k = 60):
 * 0.028443966820490 (R: pbinom(59, 100, 0.5, lower.tail = FALSE)). */
static void test_binom_tail(void **state)
{
    (void)state;
    assert_near(pgcb_stats_binom_half_tail_log2(6, 6), -6.0, 1e-12);
    assert_near(pgcb_stats_binom_half_tail_log2(6, 0), 0.0, 0);
    assert_true(isinf(pgcb_stats_binom_half_tail_log2(6, 7)));
    assert_near(exp2(pgcb_stats_binom_half_tail_log2(24, 21)), 2325.0 / 16777216, 1e-15);
    assert_near(exp2(pgcb_stats_binom_half_tail_log2(62, 31)),
                0.5 + 0.5 * 0.10092368634714097, 1e-12); /* P(X = 31) = C(62,31)/2^62 */
    assert_near(exp2(pgcb_stats_binom_half_tail_log2(100, 60)), 0.028443966820490, 1e-10);
    /* 5000 of 5000: 2^-5000, far below a double, exact in log2 */
    assert_near(pgcb_stats_binom_half_tail_log2(5000, 5000), -5000.0, 1e-6);
}

/* Two-sided: 2 x the tail of the larger side, at most 1; ties are the
 * caller's (dropped before). */
static void test_sign_test(void **state)
{
    (void)state;
    double l2;
    assert_near(pgcb_stats_sign_test(6, 0, &l2), 1.0 / 32, 1e-15);
    assert_near(l2, -5.0, 1e-12);
    assert_near(pgcb_stats_sign_test(0, 6, NULL), 1.0 / 32, 1e-15); /* symmetric */
    assert_near(pgcb_stats_sign_test(7, 0, NULL), 1.0 / 64, 1e-15);
    assert_near(pgcb_stats_sign_test(21, 3, NULL), 2 * 2325.0 / 16777216, 1e-15);
    assert_near(pgcb_stats_sign_test(3, 3, NULL), 1.0, 0);  /* 2 x P(X >= 3) > 1 */
    assert_near(pgcb_stats_sign_test(0, 0, &l2), 1.0, 0);   /* nothing to test */
    assert_near(l2, 0.0, 0);
    /* 1100 of 1100: p underflows to 0, log2 p does not */
    double p = pgcb_stats_sign_test(1100, 0, &l2);
    assert_true(p == 0.0);
    assert_near(l2, -1099.0, 1e-6);
}

static void test_sign_min_orders(void **state)
{
    (void)state;
    assert_int_equal(pgcb_stats_sign_min_orders(1.0 / 64, 0), 0);
    assert_int_equal(pgcb_stats_sign_min_orders(1.0 / 64, 1), 7);  /* 2^-6 <= 1/64 */
    assert_int_equal(pgcb_stats_sign_min_orders(1.0 / 64, 2), 8);
    assert_int_equal(pgcb_stats_sign_min_orders(1.0 / 64, 5), 10); /* 2^-9 <= 1/320 */
    assert_int_equal(pgcb_stats_sign_min_orders(0.05, 1), 6);      /* 2^-5 <= 0.05 */
    assert_int_equal(pgcb_stats_sign_min_orders(0.5, 1), 2);
}

/* Holm: sorted p 0.001, 0.02, 0.04 at 0.05 against 0.0167, 0.025, 0.05:
 * all three; with 0.03 in the middle it stops there (0.03 > 0.025), and the
 * last (0.04 <= 0.05) is not rejected either. */
static void test_holm(void **state)
{
    (void)state;
    double p[] = {0.04, 0.001, 0.02}, lv[3];
    int rej[3];
    assert_int_equal(pgcb_stats_holm(p, 3, 0.05, rej, lv), 3);
    assert_true(rej[0] && rej[1] && rej[2]);
    assert_near(lv[1], 0.05 / 3, 1e-15);
    assert_near(lv[2], 0.025, 1e-15);
    assert_near(lv[0], 0.05, 1e-15);
    p[2] = 0.03;
    assert_int_equal(pgcb_stats_holm(p, 3, 0.05, rej, NULL), 1);
    assert_true(rej[1] && !rej[2] && !rej[0]);
    /* equal to the level is a rejection (2^-7 against (1/64) / 2) */
    double q[] = {1.0 / 128, 1.0 / 128};
    assert_int_equal(pgcb_stats_holm(q, 2, 1.0 / 64, rej, NULL), 2);
}

/* Order-statistics interval for the median: n = 6 at 95 %: [min, max],
 * coverage 1 - 2/64; n = 24: ranks 7 and 18 (1 - 2 P(X <= 6) = 0.9773);
 * n = 5: none (0.9375 < 0.95). NaNs are dropped first. */
static void test_median_ci(void **state)
{
    (void)state;
    double lo, hi;
    double six[] = {6, 1, 5, 2, 4, 3};
    assert_near(pgcb_stats_median_ci(six, 6, 0.95, &lo, &hi), 1 - 2.0 / 64, 1e-12);
    assert_near(lo, 1, 0);
    assert_near(hi, 6, 0);
    double v[24];
    for (int i = 0; i < 24; i++)
        v[i] = 24 - i;
    double cov = pgcb_stats_median_ci(v, 24, 0.95, &lo, &hi);
    assert_near(lo, 7, 0);
    assert_near(hi, 18, 0);
    assert_near(cov, 1 - 2 * (1.0 + 24 + 276 + 2024 + 10626 + 42504 + 134596) / 16777216, 1e-12);
    double five[] = {1, 2, 3, 4, 5};
    assert_near(pgcb_stats_median_ci(five, 5, 0.95, &lo, &hi), 1 - 2.0 / 32, 1e-12);
    assert_true(isnan(lo) && isnan(hi));
    double nans[] = {NAN, 3, 1, NAN, 2, 6, 5, 4};
    assert_near(pgcb_stats_median_ci(nans, 8, 0.95, &lo, &hi), 1 - 2.0 / 64, 1e-12);
    assert_near(lo, 1, 0);
    assert_near(hi, 6, 0);
    assert_near(pgcb_stats_median_ci(nans, 0, 0.95, &lo, &hi), 0, 0);
}

/* The generator is a fixed sequence (splitmix64 from 0: the reference
 * implementation's first output), and below() stays below. */
static void test_rng(void **state)
{
    (void)state;
    uint64_t s = 0;
    assert_true(pgcb_stats_rng_next(&s) == 0xe220a8397b1dcdafULL);
    s = 42;
    for (int i = 0; i < 1000; i++)
        assert_true(pgcb_stats_rng_below(&s, 7) < 7);
}

/* Summing logs in a fixed order: the same values in any order, the same bits. */
static void test_geomean_order(void **state)
{
    (void)state;
    double a[] = {1.1, 0.7, 3.3, 1.9, 2.2, 0.31}, b[] = {0.31, 2.2, 1.9, 3.3, 0.7, 1.1};
    assert_true(pgcb_stats_geomean(a, 6) == pgcb_stats_geomean(b, 6));
}

/* The spread of per-order medians: robust CV = 1.4826 * MAD / median. */
static void test_spread(void **state)
{
    (void)state;
    double scratch[8];
    struct pgcb_stats_spread sp;
    /* median 101, |v - 101| = 1 1 3 0 49 -> MAD 1: one wild order (150)
     * moves the max, not the CV. */
    const double a[] = {100, 102, 98, 101, 150};
    pgcb_stats_spread(a, 5, scratch, &sp);
    assert_int_equal(sp.n, 5);
    assert_near(sp.robust_cv_pct, 1.4826 * 1 / 101 * 100, 1e-12);
    assert_near(sp.min, 98, 0);
    assert_near(sp.max, 150, 0);
    assert_near(a[4], 150, 0); /* v is left alone */
    /* Even n: median 25, deviations 15 5 5 15 -> MAD 10. */
    const double b[] = {40, 10, 30, 20};
    pgcb_stats_spread(b, 4, scratch, &sp);
    assert_near(sp.robust_cv_pct, 1.4826 * 10 / 25 * 100, 1e-12);
    assert_near(sp.robust_cv_pct, 59.304, 1e-9);
    /* NaN orders (not run) are ignored: 100 110 90 -> MAD 10. */
    const double c[] = {NAN, 100, 110, NAN, 90};
    pgcb_stats_spread(c, 5, scratch, &sp);
    assert_int_equal(sp.n, 3);
    assert_near(sp.robust_cv_pct, 14.826, 1e-9);
    assert_near(sp.min, 90, 0);
    assert_near(sp.max, 110, 0);
    /* Identical orders: no spread at all. */
    const double d[] = {7, 7, 7};
    pgcb_stats_spread(d, 3, scratch, &sp);
    assert_near(sp.robust_cv_pct, 0, 0);
}

static void test_spread_too_few(void **state)
{
    (void)state;
    double scratch[4];
    struct pgcb_stats_spread sp;
    /* Fewer than 3 orders: a range but no CV. */
    const double a[] = {100, NAN, 200};
    pgcb_stats_spread(a, 3, scratch, &sp);
    assert_int_equal(sp.n, 2);
    assert_true(isnan(sp.robust_cv_pct));
    assert_near(sp.min, 100, 0);
    assert_near(sp.max, 200, 0);
    const double none[] = {NAN, NAN};
    pgcb_stats_spread(none, 2, scratch, &sp);
    assert_int_equal(sp.n, 0);
    assert_true(isnan(sp.robust_cv_pct) && isnan(sp.min) && isnan(sp.max));
    pgcb_stats_spread(NULL, 0, scratch, &sp);
    assert_int_equal(sp.n, 0);
    assert_true(isnan(sp.robust_cv_pct));
    /* A median of 0 has no relative spread. */
    const double z[] = {0, 0, 0, 1};
    pgcb_stats_spread(z, 4, scratch, &sp);
    assert_true(isnan(sp.robust_cv_pct));
    assert_near(sp.max, 1, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t95_table),
        cmocka_unit_test(test_t95_expansion),
        cmocka_unit_test(test_rme),
        cmocka_unit_test(test_median_u64),
        cmocka_unit_test(test_median_dbl),
        cmocka_unit_test(test_geomean),
        cmocka_unit_test(test_binom_tail),
        cmocka_unit_test(test_sign_test),
        cmocka_unit_test(test_sign_min_orders),
        cmocka_unit_test(test_holm),
        cmocka_unit_test(test_median_ci),
        cmocka_unit_test(test_rng),
        cmocka_unit_test(test_geomean_order),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_spread_too_few),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
