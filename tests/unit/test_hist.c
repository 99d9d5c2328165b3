/* test_hist.c -- unit tests for common/hist.c (hand-computed expectations). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hist.h"
#include "sched/cells.h"

#include "../lib/assert_near.h"

#define EPS 1e-9

static int setup(void **state)
{
    static struct pgcb_hist h;
    if (pgcb_hist_init(&h) != 0)
        return -1;
    *state = &h;
    return 0;
}

static int teardown(void **state)
{
    pgcb_hist_free(*state);
    return 0;
}

static void test_layout(void **state)
{
    struct pgcb_hist *h = *state;
    /* 2048 exact buckets + 29 ranges [2^11,2^12) .. [2^39,2^40) x 1024. */
    assert_int_equal(h->ncounts, 2048 + 29 * 1024);
    assert_int_equal(PGCB_HIST_NCOUNTS, 31744);
    assert_int_equal(pgcb_hist_index(0), 0);
    assert_int_equal(pgcb_hist_index(2047), 2047);
    /* 2048 = 1024 << 1: first bucket of range k = 11, width 2. */
    assert_int_equal(pgcb_hist_index(2048), 2048);
    assert_int_equal(pgcb_hist_index(2049), 2048);
    assert_int_equal(pgcb_hist_index(2050), 2049);
    /* 4095 >> 1 = 2047 -> 2048 + 1023; 4096 opens range k = 12. */
    assert_int_equal(pgcb_hist_index(4095), 3071);
    assert_int_equal(pgcb_hist_index(4096), 3072);
    /* 2^40 - 1: k = 39, (v >> 29) = 2047 -> 2048 + 28*1024 + 1023 = 31743. */
    assert_int_equal(pgcb_hist_index(PGCB_HIST_HIGHEST), 31743);
    assert_int_equal(pgcb_hist_index(UINT64_MAX), 31743);
}

static void test_bucket_bounds(void **state)
{
    (void)state;
    /* Exact range: width 1. */
    assert_int_equal(pgcb_hist_bucket_lo(2047), 2047);
    assert_int_equal(pgcb_hist_bucket_hi(2047), 2047);
    assert_int_equal(pgcb_hist_bucket_mid(2047), 2047);
    /* 2049: width 2, [2048, 2049], mid 2048 + 1 = 2049. */
    assert_int_equal(pgcb_hist_bucket_lo(2049), 2048);
    assert_int_equal(pgcb_hist_bucket_hi(2049), 2049);
    assert_int_equal(pgcb_hist_bucket_mid(2049), 2049);
    /*
     * 1000000: 2^19 = 524288 <= v < 2^20, width 2^(19-10) = 512;
     * 1000000 / 512 = 1953.125 -> lo = 1953 * 512 = 999936,
     * hi = 999936 + 511 = 1000447, mid = 999936 + 256 = 1000192.
     */
    assert_int_equal(pgcb_hist_bucket_lo(1000000), 999936);
    assert_int_equal(pgcb_hist_bucket_hi(1000000), 1000447);
    assert_int_equal(pgcb_hist_bucket_mid(1000000), 1000192);
    /*
     * Top bucket: width 2^29 = 536870912, lo = 2^40 - 2^29 = 1098974756864,
     * mid = lo + 2^28 = 1098974756864 + 268435456 = 1099243192320.
     */
    assert_int_equal(pgcb_hist_bucket_lo(UINT64_MAX), 1098974756864ull);
    assert_int_equal(pgcb_hist_bucket_hi(UINT64_MAX), 1099511627775ull);
    assert_int_equal(pgcb_hist_bucket_mid(UINT64_MAX), 1099243192320ull);
}

/* Relative resolution: every value within 1/2048 of its bucket midpoint. */
static void test_resolution(void **state)
{
    (void)state;
    for (uint64_t v = 1; v < PGCB_HIST_HIGHEST; v = v * 3 + 7) {
        uint64_t mid = pgcb_hist_bucket_mid(v);
        uint64_t err = mid > v ? mid - v : v - mid;
        assert_true(pgcb_hist_bucket_lo(v) <= v && v <= pgcb_hist_bucket_hi(v));
        assert_true((double)err <= (double)v / 2048.0);
        if (v < 2048)
            assert_int_equal(mid, v);
    }
}

static void test_empty(void **state)
{
    struct pgcb_hist *h = *state;
    assert_int_equal(h->n, 0);
    assert_int_equal(h->min, 0);
    assert_int_equal(h->max, 0);
    assert_int_equal(pgcb_hist_quantile(h, 0.5), 0);
    assert_true(pgcb_hist_median(h) == 0.0);
    assert_true(pgcb_hist_stddev(h) == 0.0);
    /* One sample: sd still 0 (n - 1 == 0). */
    pgcb_hist_add(h, 42);
    assert_true(pgcb_hist_stddev(h) == 0.0);
    assert_true(pgcb_hist_median(h) == 42.0);
}

static void test_median_small(void **state)
{
    struct pgcb_hist *h = *state;
    /* {1,2,3,4}: (2 + 3) / 2 = 2.5; lower quantile at q = .5 is rank 2 -> 2. */
    for (uint64_t v = 1; v <= 4; v++)
        pgcb_hist_add(h, v);
    assert_near(pgcb_hist_median(h), 2.5, EPS);
    assert_int_equal(pgcb_hist_quantile(h, 0.5), 2);
    pgcb_hist_reset(h);
    /* {5,1,3} sorted {1,3,5}: median 3. */
    const uint64_t odd[] = {5, 1, 3};
    pgcb_hist_add_many(h, odd, 3);
    assert_near(pgcb_hist_median(h), 3.0, EPS);
    assert_int_equal(pgcb_hist_quantile(h, 0.5), 3);
}

static void test_quantile_1_to_100(void **state)
{
    struct pgcb_hist *h = *state;
    for (uint64_t v = 1; v <= 100; v++)
        pgcb_hist_add(h, v);
    /* rank ceil(q * 100): .99 -> 99, .5 -> 50, .07 -> 7 (not 8 from
     * 0.07*100 = 7.000000000000001), .001 -> ceil(.1) = 1, 0 -> 1, 1 -> 100. */
    assert_int_equal(pgcb_hist_quantile(h, 0.99), 99);
    assert_int_equal(pgcb_hist_quantile(h, 0.5), 50);
    assert_int_equal(pgcb_hist_quantile(h, 0.07), 7);
    assert_int_equal(pgcb_hist_quantile(h, 0.001), 1);
    assert_int_equal(pgcb_hist_quantile(h, 0.0), 1);
    assert_int_equal(pgcb_hist_quantile(h, 1.0), 100);
    /* Out-of-range q is clamped. */
    assert_int_equal(pgcb_hist_quantile(h, -3.0), 1);
    assert_int_equal(pgcb_hist_quantile(h, 7.0), 100);
    assert_int_equal(pgcb_hist_quantile(h, NAN), 1);
    /* median (50 + 51) / 2 = 50.5 */
    assert_near(pgcb_hist_median(h), 50.5, EPS);
    assert_int_equal(h->min, 1);
    assert_int_equal(h->max, 100);
}

static void test_quantile_large(void **state)
{
    struct pgcb_hist *h = *state;
    /*
     * Buckets (width 2^(k-10) for 2^k <= v < 2^(k+1)):
     *   1000    exact                                         -> 1000
     *   149870  k=17, w=128: 149870/128 = 1170.86, lo=149760  -> mid 149824
     *   150000  k=17, w=128: 150000/128 = 1171.88, lo=149888  -> mid 149952
     *   1000000 k=19, w=512: lo=999936                        -> mid 1000192
     *   5000000 k=22, w=4096: 5000000/4096 = 1220.70,
     *           lo=1220*4096=4997120                          -> mid 4999168
     * n = 5, rank ceil(5q).
     */
    const uint64_t v[] = {5000000, 150000, 1000, 1000000, 149870};
    pgcb_hist_add_many(h, v, 5);
    assert_int_equal(pgcb_hist_quantile(h, 0.0), 1000);       /* rank 1 */
    assert_int_equal(pgcb_hist_quantile(h, 0.4), 149824);     /* rank 2 */
    assert_int_equal(pgcb_hist_quantile(h, 0.5), 149952);     /* rank 3 */
    assert_int_equal(pgcb_hist_quantile(h, 0.8), 1000192);    /* rank 4 */
    assert_int_equal(pgcb_hist_quantile(h, 1.0), 4999168);    /* rank 5 */
    assert_near(pgcb_hist_median(h), 149952.0, EPS);

    /* Even n = 4, {1000,149870,150000,5000000}: ranks 2 and 3,
     * median (149824 + 149952) / 2 = 149888. */
    pgcb_hist_reset(h);
    pgcb_hist_add_many(h, (const uint64_t[]){1000, 149870, 150000, 5000000}, 4);
    assert_near(pgcb_hist_median(h), 149888.0, EPS);
    /* Even n = 2, {149870,150000}: rank 1's mid 149824 < min is clamped to
     * 149870, rank 2's mid 149952; median (149870 + 149952) / 2 = 149911. */
    pgcb_hist_reset(h);
    pgcb_hist_add(h, 149870);
    pgcb_hist_add(h, 150000);
    assert_near(pgcb_hist_median(h), 149911.0, EPS);

    /* Clamp to [min, max]: {1000000} alone -> mid 1000192 > max -> 1000000. */
    pgcb_hist_reset(h);
    pgcb_hist_add(h, 1000000);
    assert_int_equal(pgcb_hist_quantile(h, 0.5), 1000000);
    pgcb_hist_reset(h);
    pgcb_hist_add(h, 1000400);
    pgcb_hist_add(h, 1000447);
    /* Both in [999936, 1000447]: mid 1000192 < min 1000400 -> 1000400. */
    assert_int_equal(pgcb_hist_quantile(h, 0.5), 1000400);
    assert_int_equal(pgcb_hist_quantile(h, 1.0), 1000400);
}

static void test_welford(void **state)
{
    struct pgcb_hist *h = *state;
    /* {2,4,4,4,5,5,7,9}: sum 40, mean 5; squared deviations
     * 9+1+1+1+0+0+4+16 = 32; sample sd sqrt(32/7) = 2.138089935299395. */
    const uint64_t v[] = {2, 4, 4, 4, 5, 5, 7, 9};
    pgcb_hist_add_many(h, v, 8);
    assert_int_equal(h->n, 8);
    assert_near(h->mean, 5.0, EPS);
    assert_near(h->m2, 32.0, EPS);
    assert_near(pgcb_hist_stddev(h), sqrt(32.0 / 7.0), EPS);
    assert_near(pgcb_hist_stddev(h), 2.138089935299395, 1e-12);
    /* median (4 + 5) / 2 = 4.5 */
    assert_near(pgcb_hist_median(h), 4.5, EPS);
}

static void test_overflow(void **state)
{
    struct pgcb_hist *h = *state;
    /* 2^40 - 1 is the highest covered value; 2^40 and 2^45 overflow. */
    pgcb_hist_add(h, 10);
    pgcb_hist_add(h, PGCB_HIST_HIGHEST);
    assert_int_equal(h->overflow, 0);
    pgcb_hist_add(h, (uint64_t)1 << 40);
    pgcb_hist_add(h, (uint64_t)1 << 45);
    assert_int_equal(h->overflow, 2);
    assert_int_equal(h->counts[h->ncounts - 1], 3);
    assert_int_equal(h->counts[10], 1);
    /* min/max are raw. */
    assert_int_equal(h->min, 10);
    assert_int_equal(h->max, (uint64_t)1 << 45);
    /* Ranks 2..4 lie in the top bucket: mid 1099243192320 (see bounds). */
    assert_int_equal(pgcb_hist_quantile(h, 1.0), 1099243192320ull);
    assert_int_equal(pgcb_hist_quantile(h, 0.25), 10);
    /* Mean is raw: (10 + (2^40-1) + 2^40 + 2^45) / 4
     * = (10 + 1099511627775 + 1099511627776 + 35184372088832) / 4
     * = 37383395344393 / 4 = 9345848836098.25 */
    assert_near(h->mean, 9345848836098.25, 1e-3);
}

static void test_reset(void **state)
{
    struct pgcb_hist *h = *state;
    uint64_t *counts = h->counts;
    pgcb_hist_add(h, 7);
    pgcb_hist_add(h, (uint64_t)1 << 50);
    pgcb_hist_reset(h);
    assert_ptr_equal(h->counts, counts);
    assert_int_equal(h->ncounts, PGCB_HIST_NCOUNTS);
    assert_int_equal(h->n, 0);
    assert_int_equal(h->min, 0);
    assert_int_equal(h->max, 0);
    assert_int_equal(h->overflow, 0);
    assert_true(h->mean == 0.0 && h->m2 == 0.0);
    for (size_t i = 0; i < h->ncounts; i++)
        assert_int_equal(h->counts[i], 0);
    /* Usable after reset: {3} -> min = max = median = 3. */
    pgcb_hist_add(h, 3);
    assert_int_equal(h->min, 3);
    assert_int_equal(h->max, 3);
    assert_int_equal(pgcb_hist_quantile(h, 0.5), 3);
}

static void test_merge(void **state)
{
    struct pgcb_hist *all = *state, a, b, e;
    const uint64_t va[] = {2, 4, 4, 1000000};
    const uint64_t vb[] = {4, 5, 5, 7, 9, 150000, (uint64_t)1 << 41};

    assert_int_equal(pgcb_hist_init(&a), 0);
    assert_int_equal(pgcb_hist_init(&b), 0);
    assert_int_equal(pgcb_hist_init(&e), 0);
    pgcb_hist_add_many(&a, va, 4);
    pgcb_hist_add_many(&b, vb, 7);
    pgcb_hist_add_many(all, va, 4);
    pgcb_hist_add_many(all, vb, 7);

    /* Merging an empty histogram changes nothing; merging into an empty one
     * copies. */
    assert_int_equal(pgcb_hist_merge(&a, &e), 0);
    assert_int_equal(a.n, 4);
    assert_int_equal(pgcb_hist_merge(&e, &a), 0);
    assert_int_equal(e.min, 2);
    assert_int_equal(e.max, 1000000);
    assert_near(e.mean, a.mean, 0.0);

    assert_int_equal(pgcb_hist_merge(&a, &b), 0);
    assert_int_equal(memcmp(a.counts, all->counts, a.ncounts * sizeof *a.counts), 0);
    assert_int_equal(a.n, 11);
    assert_int_equal(a.min, 2);
    assert_int_equal(a.max, (uint64_t)1 << 41);
    assert_int_equal(a.overflow, 1);
    assert_int_equal(a.overflow, all->overflow);
    assert_near(a.mean, all->mean, all->mean * 1e-12);
    assert_near(a.m2, all->m2, all->m2 * 1e-12);
    assert_int_equal(pgcb_hist_quantile(&a, 0.5), pgcb_hist_quantile(all, 0.5));
    /* rank 6 of {2,4,4,4,5,5,7,9,150000,1e6,2^41} is 5. */
    assert_int_equal(pgcb_hist_quantile(&a, 0.5), 5);

    /* Chan on the Welford set split {2,4,4} + {4,5,5,7,9}:
     * A: mean 10/3, m2 = (4/3)^2 + 2 (2/3)^2 = 8/3;  B: mean 6, m2 = 16;
     * d = 8/3, d^2 * 3 * 5 / 8 = 40/3; m2 = 8/3 + 16 + 40/3 = 32, mean 5. */
    pgcb_hist_reset(&a);
    pgcb_hist_reset(&b);
    pgcb_hist_add_many(&a, (const uint64_t[]){2, 4, 4}, 3);
    pgcb_hist_add_many(&b, (const uint64_t[]){4, 5, 5, 7, 9}, 5);
    assert_int_equal(pgcb_hist_merge(&a, &b), 0);
    assert_near(a.mean, 5.0, EPS);
    assert_near(a.m2, 32.0, EPS);
    assert_near(pgcb_hist_stddev(&a), sqrt(32.0 / 7.0), EPS);

    /* Layout mismatch is refused. */
    e.ncounts--;
    assert_int_equal(pgcb_hist_merge(&a, &e), -1);
    e.ncounts++;

    pgcb_hist_free(&a);
    pgcb_hist_free(&b);
    pgcb_hist_free(&e);
    assert_null(a.counts);
}

/* pgcb_hist_count_range, and the 40 ms stall detector built on it
 * (runner/sched/cells.c): samples 30-60 ms above a median under 30 ms. */
static void test_count_range_and_stalls(void **state)
{
    struct pgcb_hist *h = *state;
    for (int k = 0; k < 1000; k++)
        pgcb_hist_add(h, 100000 + (uint64_t)k); /* ~100 us */
    assert_int_equal(pgcb_hist_count_range(h, 100000, 100999), 1000);
    assert_int_equal(pgcb_hist_count_range(h, 0, 99000), 0);
    assert_int_equal(pgcb_cells_stalls(h), 0);
    pgcb_hist_add(h, 40100000);  /* a delayed ACK: 40 ms more */
    pgcb_hist_add(h, 40300000);
    pgcb_hist_add(h, 44000000);
    pgcb_hist_add(h, 25000000);  /* under 30 ms above the median: not one */
    pgcb_hist_add(h, 200000000); /* 200 ms: not this kind of stall */
    assert_int_equal(pgcb_hist_count_range(h, 40000000, 40400000), 2);
    assert_int_equal(pgcb_cells_stalls(h), 3);
    /* a median of 35 ms (an RTT of 35 ms): 40 ms more is not told from it */
    pgcb_hist_reset(h);
    for (int k = 0; k < 100; k++)
        pgcb_hist_add(h, 35000000);
    pgcb_hist_add(h, 75000000);
    assert_int_equal(pgcb_cells_stalls(h), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_layout, setup, teardown),
        cmocka_unit_test(test_bucket_bounds),
        cmocka_unit_test(test_resolution),
        cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_median_small, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quantile_1_to_100, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quantile_large, setup, teardown),
        cmocka_unit_test_setup_teardown(test_welford, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overflow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_count_range_and_stalls, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
