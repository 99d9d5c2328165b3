/*
 * test_orders.c -- every permutation, lexicographic, each driver equally
 * often in each position.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "orders.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three),
        cmocka_unit_test(test_one_and_four),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
