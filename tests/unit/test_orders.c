/*
 * test_orders.c -- every permutation, lexicographic, each driver equally
 * often in each position; Williams squares checked by hand for k = 2..5 and
 * their balance checked programmatically for k = 1..12; the balanced
 * sequence behind `orders = N`; the selector and the INI value parser.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/orders.h"

static void test_three(void **state)
{
    (void)state;
    size_t n = 0;
    size_t **o = pgcb_orders_all(3, &n);
    static const size_t want[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                      {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    assert_int_equal(n, 6);
    for (size_t i = 0; i < 6; i++)
        for (size_t k = 0; k < 3; k++)
            assert_int_equal(o[i][k], want[i][k]);
    pgcb_orders_free(o, n);
}

static void test_one_and_four(void **state)
{
    (void)state;
    size_t n = 0;
    size_t **o = pgcb_orders_all(1, &n);
    assert_int_equal(n, 1);
    assert_int_equal(o[0][0], 0);
    pgcb_orders_free(o, n);

    o = pgcb_orders_all(4, &n);
    assert_int_equal(n, 24);
    /* Each driver is first, second ... equally often: 24 / 4 = 6 times. */
    for (size_t pos = 0; pos < 4; pos++)
        for (size_t d = 0; d < 4; d++) {
            int count = 0;
            for (size_t i = 0; i < n; i++)
                count += o[i][pos] == d;
            assert_int_equal(count, 6);
        }
    pgcb_orders_free(o, n);
}

/* ---- Williams squares ------------------------------------------------------ */

/* Compare orders o[0..count-1] of k drivers with the digits of want[] ("0132"...). */
static void expect_square(size_t **o, size_t count, size_t k, const char *const *want,
                          size_t nwant)
{
    assert_int_equal(count, nwant);
    for (size_t i = 0; i < count; i++) {
        char got[16] = "";
        for (size_t j = 0; j < k; j++)
            got[j] = (char)('0' + o[i][j]);
        assert_string_equal(got, want[i]);
    }
}

/*
 * Hand-checked squares. Row 0 is w = 0, 1, k-1, 2, k-2, ...; row i adds i
 * to every entry (mod k). For odd k, rows k..2k-1 are the same construction
 * from w reversed and shifted to start with 0 (w = 01423 -> reversed 32410
 * -> minus 3 mod 5 -> 04132), i.e. the mirror images of rows 0..k-1.
 *   k = 4: adjacent pairs 01 13 32 | 12 20 03 | 23 31 10 | 30 02 21: each
 *   of the 12 ordered pairs once.
 */
static void test_williams_by_hand(void **state)
{
    (void)state;
    size_t n;
    size_t **o;

    o = pgcb_orders_williams(1, &n);
    static const char *const w1[] = {"0"};
    expect_square(o, n, 1, w1, 1);
    pgcb_orders_free(o, n);

    o = pgcb_orders_williams(2, &n);
    static const char *const w2[] = {"01", "10"};
    expect_square(o, n, 2, w2, 2);
    pgcb_orders_free(o, n);

    o = pgcb_orders_williams(3, &n);
    static const char *const w3[] = {"012", "120", "201", "021", "102", "210"};
    expect_square(o, n, 3, w3, 6);
    pgcb_orders_free(o, n);

    o = pgcb_orders_williams(4, &n);
    static const char *const w4[] = {"0132", "1203", "2310", "3021"};
    expect_square(o, n, 4, w4, 4);
    pgcb_orders_free(o, n);

    o = pgcb_orders_williams(5, &n);
    static const char *const w5[] = {"01423", "12034", "23140", "34201", "40312",
                                     "04132", "10243", "21304", "32410", "43021"};
    expect_square(o, n, 5, w5, 10);
    pgcb_orders_free(o, n);
}

/* Each order is a permutation of 0..k-1. */
static void check_permutations(size_t **o, size_t count, size_t k)
{
    for (size_t i = 0; i < count; i++) {
        int seen[64] = {0};
        for (size_t j = 0; j < k; j++) {
            assert_true(o[i][j] < k);
            assert_int_equal(seen[o[i][j]]++, 0);
        }
    }
}

/* Each driver count/k times in each position, over o[from..from+count-1]. */
static void check_positions(size_t **o, size_t from, size_t count, size_t k)
{
    for (size_t pos = 0; pos < k; pos++)
        for (size_t d = 0; d < k; d++) {
            size_t c = 0;
            for (size_t i = from; i < from + count; i++)
                c += o[i][pos] == d;
            assert_int_equal(c, count / k);
        }
}

static void test_williams_balance(void **state)
{
    (void)state;
    for (size_t k = 1; k <= 12; k++) {
        size_t n;
        size_t **o = pgcb_orders_williams(k, &n);
        assert_int_equal(n, k % 2 && k > 1 ? 2 * k : k);
        check_permutations(o, n, k);
        check_positions(o, 0, n, k);
        /* Carry-over: b immediately after a, for every a != b, equally
         * often: once (even k) or twice (odd k); never a after itself. */
        size_t after[12][12] = {{0}};
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j + 1 < k; j++)
                after[o[i][j]][o[i][j + 1]]++;
        for (size_t a = 0; a < k; a++)
            for (size_t b = 0; b < k; b++)
                assert_int_equal(after[a][b], a == b ? 0 : k % 2 ? 2 : 1);
        pgcb_orders_free(o, n);
    }
}

/* ---- the balanced sequence (orders = N) ------------------------------------ */

static int same_order(const size_t *a, const size_t *b, size_t k)
{
    return memcmp(a, b, k * sizeof *a) == 0;
}

static void test_sequence(void **state)
{
    (void)state;
    for (size_t k = 1; k <= 5; k++) {
        size_t fact = 1;
        for (size_t i = 2; i <= k; i++)
            fact *= i;
        size_t count = 2 * fact + 3; /* twice round, and a bit */
        size_t **o = pgcb_orders_sequence(k, count);
        check_permutations(o, count, k);
        /* It starts with the Williams square. */
        size_t nw;
        size_t **w = pgcb_orders_williams(k, &nw);
        for (size_t i = 0; i < nw; i++)
            assert_true(same_order(o[i], w[i], k));
        pgcb_orders_free(w, nw);
        /* Every complete block of k orders is a Latin square. */
        for (size_t from = 0; from + k <= count; from += k)
            check_positions(o, from, k, k);
        /* No repeat among the first k! orders; then it starts over. */
        for (size_t i = 0; i < fact; i++)
            for (size_t j = i + 1; j < fact; j++)
                assert_false(same_order(o[i], o[j], k));
        for (size_t i = fact; i < count; i++)
            assert_true(same_order(o[i], o[i - fact], k));
        pgcb_orders_free(o, count);
    }
}

/* Hand-checked: 4 drivers, 10 orders = the Williams square (0132 class),
 * then the lexicographically first other class 0123, then 0213's first two. */
static void test_count_by_hand(void **state)
{
    (void)state;
    char err[256] = "";
    size_t n;
    size_t **o = pgcb_orders_make(PGCB_ORDERS_COUNT, 10, 4, &n, err, sizeof err);
    static const char *const want[] = {"0132", "1203", "2310", "3021", "0123",
                                       "1230", "2301", "3012", "0213", "1320"};
    expect_square(o, n, 4, want, 10);
    pgcb_orders_free(o, n);
}

/* ---- selector and parser --------------------------------------------------- */

static void test_make(void **state)
{
    (void)state;
    char err[256] = "";
    size_t n;
    size_t **o;

    /* auto: every permutation up to 4 drivers, a Williams square from 5 on. */
    o = pgcb_orders_make(PGCB_ORDERS_AUTO, 0, 4, &n, err, sizeof err);
    assert_int_equal(n, 24);
    pgcb_orders_free(o, n);
    o = pgcb_orders_make(PGCB_ORDERS_AUTO, 0, 5, &n, err, sizeof err);
    assert_int_equal(n, 10);
    pgcb_orders_free(o, n);
    o = pgcb_orders_make(PGCB_ORDERS_AUTO, 0, 6, &n, err, sizeof err);
    assert_int_equal(n, 6);
    pgcb_orders_free(o, n);

    o = pgcb_orders_make(PGCB_ORDERS_ALL, 0, 3, &n, err, sizeof err);
    assert_int_equal(n, 6);
    pgcb_orders_free(o, n);
    o = pgcb_orders_make(PGCB_ORDERS_BALANCED, 0, 3, &n, err, sizeof err);
    assert_int_equal(n, 6);
    pgcb_orders_free(o, n);
    o = pgcb_orders_make(PGCB_ORDERS_BALANCED, 0, 9, &n, err, sizeof err);
    assert_int_equal(n, 18);
    pgcb_orders_free(o, n);
    o = pgcb_orders_make(PGCB_ORDERS_COUNT, 7, 2, &n, err, sizeof err);
    assert_int_equal(n, 7);
    pgcb_orders_free(o, n);

    assert_null(pgcb_orders_make(PGCB_ORDERS_ALL, 0, 9, &n, err, sizeof err));
    assert_string_equal(err, "orders = all: 9 drivers would make 9! execution orders (at most "
                             "8 drivers); use orders = balanced or a count");
    assert_int_equal(n, 0);
    assert_null(pgcb_orders_make(PGCB_ORDERS_COUNT, 0, 3, &n, err, sizeof err));
    assert_string_equal(err, "orders = 0: the count must be 1..40320");
    assert_null(pgcb_orders_make(PGCB_ORDERS_BALANCED, 0, 0, &n, err, sizeof err));
    assert_string_equal(err, "no drivers: no execution order to make");
}

static void test_parse(void **state)
{
    (void)state;
    char err[256] = "";
    enum pgcb_orders_mode m;
    size_t n = 99;
    assert_int_equal(pgcb_orders_parse("all", &m, &n, err, sizeof err), 0);
    assert_int_equal(m, PGCB_ORDERS_ALL);
    assert_int_equal(n, 0);
    assert_int_equal(pgcb_orders_parse("balanced", &m, &n, err, sizeof err), 0);
    assert_int_equal(m, PGCB_ORDERS_BALANCED);
    assert_int_equal(pgcb_orders_parse("auto", &m, &n, err, sizeof err), 0);
    assert_int_equal(m, PGCB_ORDERS_AUTO);
    assert_int_equal(pgcb_orders_parse("12", &m, &n, err, sizeof err), 0);
    assert_int_equal(m, PGCB_ORDERS_COUNT);
    assert_int_equal(n, 12);
    assert_string_equal(pgcb_orders_mode_str(PGCB_ORDERS_COUNT), "count");
    const char *bad[] = {"", "0", "-3", "+3", " 3", "3x", "40321", "ALL", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(pgcb_orders_parse(bad[i], &m, &n, err, sizeof err), -1);
    assert_string_equal(err, "'99999999999999999999' is not an orders value (expected auto, "
                             "all, balanced or a count 1..40320)");
}

/* Repeating a set keeps it, in order, `times` times, as copies. */
static void test_repeat(void **state)
{
    (void)state;
    size_t count;
    size_t **base = pgcb_orders_all(2, &count);
    size_t **rep = pgcb_orders_repeat(base, count, 2, 4);
    for (size_t o = 0; o < 8; o++) {
        assert_int_equal(rep[o][0], base[o % 2][0]);
        assert_int_equal(rep[o][1], base[o % 2][1]);
        assert_ptr_not_equal(rep[o], base[o % 2]);
    }
    pgcb_orders_free(rep, 8);
    pgcb_orders_free(base, count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three),
        cmocka_unit_test(test_one_and_four),
        cmocka_unit_test(test_williams_by_hand),
        cmocka_unit_test(test_williams_balance),
        cmocka_unit_test(test_sequence),
        cmocka_unit_test(test_count_by_hand),
        cmocka_unit_test(test_make),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_repeat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
