/*
 * test_pct.c -- unit tests for common/pct.c: the fixed percentiles and the
 * percentile spectrum of histograms with known content (a bimodal one as
 * when client and server share a CPU: 90% at 4 ms, 10% at 6 ms), within
 * the histogram's resolution (1/2048 of the value above 2048 ns, hist.h).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hist.h"
#include "pct.h"

#include "../lib/assert_near.h"

/* Half a bucket of the histogram at v: the most a reported value may be off. */
static double res(double v)
{
    return v / 2048 + 1;
}

/* Each test starts with an empty histogram; the last is freed by the
 * group's teardown. */
static struct pgcb_hist hist;

static struct pgcb_hist *new_hist(void)
{
    pgcb_hist_free(&hist); /* the previous test's (safe on a zeroed one) */
    assert_int_equal(pgcb_hist_init(&hist), 0);
    return &hist;
}

static int free_hist(void **state)
{
    (void)state;
    pgcb_hist_free(&hist);
    return 0;
}

/* Every curve: q from 0 ascending to 1, ns never decreasing, the max last,
 * the min first; no point but the max beyond 1 - 1/n; and the count n
 * supports: floor(4 log10 n) + 1 steps, then the max. */
static void check_curve(const struct pgcb_hist *h, const struct pgcb_pct_point *p, size_t np)
{
    size_t steps = (size_t)floor(4 * log10((double)h->n) + 1e-9) + 1;
    if (np != steps + 1)
        fail_msg("n = %llu: %zu points, expected %zu", (unsigned long long)h->n, np, steps + 1);
    assert_true(pgcb_pct_curve_valid(p, np));
    assert_true(p[0].q == 0);
    assert_true(p[0].ns == (double)pgcb_hist_quantile(h, 0));
    assert_true(p[np - 1].q == 1);
    assert_true(p[np - 1].ns == (double)h->max);
    for (size_t k = 0; k + 1 < np; k++) {
        assert_near(p[k].q, 1 - pow(10, -(double)k / 4), 1e-12);
        if (!((1 - p[k].q) * (double)h->n >= 1 - 1e-9))
            fail_msg("n = %llu: point %zu at q = %.17g is beyond 1 - 1/n",
                     (unsigned long long)h->n, k, p[k].q);
        assert_true(p[k].ns == (double)pgcb_hist_quantile(h, p[k].q));
    }
}

static void test_bimodal(void **state)
{
    (void)state;
    struct pgcb_hist *h = new_hist();
    for (int i = 0; i < 9000; i++)
        pgcb_hist_add(h, 4000000 + (uint64_t)(i % 7) * 100); /* 4.0 ms, a little spread */
    for (int i = 0; i < 1000; i++)
        pgcb_hist_add(h, 6000000 + (uint64_t)(i % 5) * 100); /* 6.0 ms */
    double p[PGCB_PCT_N];
    pgcb_pct_fill(h, p);
    assert_near(p[0], 4000300, res(4e6) + 300); /* p50 */
    assert_near(p[1], 4000300, res(4e6) + 300); /* p90: the last of the 4 ms mode */
    assert_near(p[2], 6000200, res(6e6) + 200); /* p99 */
    assert_near(p[3], 6000200, res(6e6) + 200); /* p99.9 */
    assert_true(p[2] == (double)pgcb_hist_quantile(h, 0.99));
    assert_true(p[0] <= p[1] && p[1] <= p[2] && p[2] <= p[3] && p[3] <= (double)h->max);

    struct pgcb_pct_point *c;
    size_t n = pgcb_pct_curve(h, &c);
    assert_int_equal(n, 18); /* x = 0, 0.25 .. 4 (q = 0.9999), then the max */
    check_curve(h, c, n);
    /* The jump: flat at 4 ms up to q = 0.9 (x = 1), at 6 ms from x = 1.25. */
    for (size_t k = 0; k < n; k++) {
        double mode = c[k].q <= 0.9 + 1e-12 ? 4e6 : 6e6;
        assert_near(c[k].ns, mode, res(mode) + 700);
    }
    assert_near(c[4].q, 0.9, 1e-12);
    assert_near(c[4].ns, 4e6, res(4e6) + 700);
    assert_near(c[5].ns, 6e6, res(6e6) + 700);
    assert_near(c[n - 1].ns, 6000400, 0); /* the max is exact */
    free(c);
}

/* Values below 2048 are exact: 1 .. 1000 gives p50 = 500, p90 = 900,
 * p99 = 990, p99.9 = 999 (rank ceil(q n)) and a curve of exact ranks. */
static void test_exact_small_values(void **state)
{
    (void)state;
    struct pgcb_hist *h = new_hist();
    for (uint64_t v = 1; v <= 1000; v++)
        pgcb_hist_add(h, v);
    double p[PGCB_PCT_N];
    pgcb_pct_fill(h, p);
    assert_true(p[0] == 500 && p[1] == 900 && p[2] == 990 && p[3] == 999);
    struct pgcb_pct_point *c;
    size_t n = pgcb_pct_curve(h, &c);
    assert_int_equal(n, 14); /* 1000 = 10^3 exactly: x = 0 .. 3, then the max */
    check_curve(h, c, n);
    assert_true(c[0].ns == 1);         /* q = 0: the min */
    assert_true(c[4].ns == 900);       /* q = 0.9 */
    assert_true(c[8].ns == 990);       /* q = 0.99 */
    assert_true(c[12].ns == 999);      /* q = 0.999: rank 999, not the max */
    assert_true(c[13].ns == 1000);     /* the max */
    /* q = 1 - 10^-0.25 = 0.4377 -> rank ceil(437.65) = 438 */
    assert_true(c[1].ns == 438);
    free(c);
}

/* The curve stops where the sample count does: n = 999 has no q = 0.999
 * point (rank 999 = n would be the max), n = 1 only the min and the max. */
static void test_curve_stops_at_sample_count(void **state)
{
    (void)state;
    struct pgcb_hist *h = new_hist();
    static const uint64_t counts[] = {1, 2, 9, 10, 11, 99, 100, 999, 1000, 1001, 3163, 100000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        pgcb_hist_reset(h);
        for (uint64_t v = 0; v < counts[i]; v++)
            pgcb_hist_add(h, 3000 + v * 37 % 5000);
        struct pgcb_pct_point *c;
        size_t n = pgcb_pct_curve(h, &c);
        check_curve(h, c, n);
        /* the last point before the max: its rank is below n */
        if (n > 2)
            assert_true((uint64_t)ceil(c[n - 2].q * (double)h->n - 1e-6) < h->n);
        free(c);
    }
    /* 999: x up to 2.75; 1000: up to 3. */
    pgcb_hist_reset(h);
    for (int i = 0; i < 999; i++)
        pgcb_hist_add(h, 5000);
    struct pgcb_pct_point *c;
    assert_int_equal(pgcb_pct_curve(h, &c), 13);
    assert_near(c[11].q, 1 - pow(10, -2.75), 1e-15);
    free(c);
    pgcb_hist_reset(h);
    pgcb_hist_add(h, 7);
    assert_int_equal(pgcb_pct_curve(h, &c), 2);
    assert_true(c[0].q == 0 && c[0].ns == 7 && c[1].q == 1 && c[1].ns == 7);
    free(c);
}

static void test_empty(void **state)
{
    (void)state;
    struct pgcb_hist *h = new_hist();
    double p[PGCB_PCT_N];
    pgcb_pct_fill(h, p);
    for (size_t k = 0; k < PGCB_PCT_N; k++)
        assert_true(isnan(p[k]));
    static struct pgcb_pct_point dummy;
    struct pgcb_pct_point *c = &dummy; /* must be overwritten */
    assert_int_equal(pgcb_pct_curve(h, &c), 0);
    assert_null(c);
}

static void test_tables_and_x(void **state)
{
    (void)state;
    for (size_t k = 0; k < PGCB_PCT_N; k++) {
        /* the fewest samples with one above q: 1 / (1 - q) */
        assert_near((double)pgcb_pct_min_samples[k], 1 / (1 - pgcb_pct_q[k]), 1e-6);
        assert_true(strcmp(pgcb_pct_name[k] + 1, pgcb_pct_key[k]) == 0); /* "p" + key */
    }
    assert_near(pgcb_pct_x(0), 0, 0);
    assert_near(pgcb_pct_x(0.9), 1, 1e-12);
    assert_near(pgcb_pct_x(0.999), 3, 1e-9);
    assert_true(isinf(pgcb_pct_x(1)));
}

static void test_valid(void **state)
{
    (void)state;
    const struct pgcb_pct_point good[] = {{0, 10}, {0.5, 10}, {0.9, 20}, {1, 30}};
    assert_true(pgcb_pct_curve_valid(good, 4));
    assert_true(pgcb_pct_curve_valid(good, 0));
    const struct pgcb_pct_point down[] = {{0, 10}, {0.5, 9}};
    assert_false(pgcb_pct_curve_valid(down, 2));
    const struct pgcb_pct_point same_q[] = {{0, 10}, {0, 10}};
    assert_false(pgcb_pct_curve_valid(same_q, 2));
    const struct pgcb_pct_point big_q[] = {{1.5, 10}};
    assert_false(pgcb_pct_curve_valid(big_q, 1));
    const struct pgcb_pct_point neg[] = {{0, -1}};
    assert_false(pgcb_pct_curve_valid(neg, 1));
    const struct pgcb_pct_point nan_ns[] = {{0, NAN}};
    assert_false(pgcb_pct_curve_valid(nan_ns, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bimodal),
        cmocka_unit_test(test_exact_small_values),
        cmocka_unit_test(test_curve_stops_at_sample_count),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_tables_and_x),
        cmocka_unit_test(test_valid),
    };
    return cmocka_run_group_tests(tests, NULL, free_hist);
}
