/*
 * test_checksum.c -- the fold helpers of include/pgcb/driver.h. They are ABI:
 * a result file's checksums are only comparable across runner and driver
 * versions if the fold never changes, so the values are pinned here (the
 * golden values were computed independently, from the definition in the
 * header, by a separate 64-bit implementation).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pgcb/driver.h"

/* One benchmark_rows row: (1, 1337, 'wat', NULL, false). */
static void fold_row1(struct pgcb_sum *s)
{
    pgcb_sum_int(s, 1);
    pgcb_sum_int(s, 1337);
    pgcb_sum_text(s, "wat", 3);
    pgcb_sum_null(s);
    pgcb_sum_bool(s, 0);
    pgcb_sum_row(s);
}

static void test_golden(void **state)
{
    (void)state;
    struct pgcb_sum s = {0, 0};
    fold_row1(&s);
    assert_true(s.hash == 0xbc1b38fece8c55f1ull);
    assert_int_equal(s.rows, 1);

    s = (struct pgcb_sum){0, 0};
    pgcb_sum_float8(&s, 1.5);
    assert_true(s.hash == 0xf78ab0be53b28f9full);

    s = (struct pgcb_sum){0, 0};
    pgcb_sum_float4(&s, -0.5f);
    assert_true(s.hash == 0xadbba4b02bd9c277ull);

    s = (struct pgcb_sum){0, 0};
    pgcb_sum_text(&s, "abcdefghi", 9); /* one full word, one padded tail */
    assert_true(s.hash == 0xd8a54e4f0962b1b0ull);

    s = (struct pgcb_sum){0, 0};
    pgcb_sum_int(&s, -1); /* sign-extended to 64 bits */
    assert_true(s.hash == 0xbacc4b9406240492ull);
}

static uint64_t h_int(int64_t v)
{
    struct pgcb_sum s = {0, 0};
    pgcb_sum_int(&s, v);
    return s.hash;
}

static uint64_t h_text(const char *p, size_t n)
{
    struct pgcb_sum s = {0, 0};
    pgcb_sum_text(&s, p, n);
    return s.hash;
}

static void test_types_are_told_apart(void **state)
{
    (void)state;
    struct pgcb_sum a = {0, 0}, b = {0, 0}, c = {0, 0}, d = {0, 0};
    pgcb_sum_bool(&a, 1);
    pgcb_sum_int(&b, 1);
    pgcb_sum_text(&c, "1", 1);
    pgcb_sum_float8(&d, 1.0);
    assert_true(a.hash != b.hash && b.hash != c.hash && c.hash != d.hash && a.hash != c.hash);

    /* NULL is not the empty string. */
    struct pgcb_sum n = {0, 0};
    pgcb_sum_null(&n);
    assert_true(n.hash != h_text("", 0));

    /* Trailing NUL bytes and the zero padding of the tail differ by length. */
    assert_true(h_text("ab", 2) != h_text("ab\0", 3));
    assert_true(h_text("abcdefgh", 8) != h_text("abcdefgh\0", 9));
}

static void test_order_matters(void **state)
{
    (void)state;
    struct pgcb_sum a = {0, 0}, b = {0, 0};
    pgcb_sum_int(&a, 1);
    pgcb_sum_int(&a, 2);
    pgcb_sum_int(&b, 2);
    pgcb_sum_int(&b, 1);
    assert_true(a.hash != b.hash);

    /* Row boundaries count: (1, 2) | () differs from (1) | (2). */
    a = (struct pgcb_sum){0, 0};
    b = (struct pgcb_sum){0, 0};
    pgcb_sum_int(&a, 1);
    pgcb_sum_int(&a, 2);
    pgcb_sum_row(&a);
    pgcb_sum_row(&a);
    pgcb_sum_int(&b, 1);
    pgcb_sum_row(&b);
    pgcb_sum_int(&b, 2);
    pgcb_sum_row(&b);
    assert_true(a.hash != b.hash);
    assert_int_equal(a.rows, 2);
    assert_int_equal(b.rows, 2);
}

static void test_float_specials(void **state)
{
    (void)state;
    struct pgcb_sum a = {0, 0}, b = {0, 0};
    /* Every NaN folds alike (a quiet NaN and one with a payload). */
    pgcb_sum_float8(&a, NAN);
    pgcb_sum_float8(&b, -nan("0x123"));
    assert_true(a.hash == b.hash);
    a = (struct pgcb_sum){0, 0};
    b = (struct pgcb_sum){0, 0};
    pgcb_sum_float4(&a, NAN);
    pgcb_sum_float4(&b, -nanf("7"));
    assert_true(a.hash == b.hash);
    /* -0 is not 0: the server sends "-0". */
    a = (struct pgcb_sum){0, 0};
    b = (struct pgcb_sum){0, 0};
    pgcb_sum_float8(&a, 0.0);
    pgcb_sum_float8(&b, -0.0);
    assert_true(a.hash != b.hash);
    /* float4 and float8 of the same value differ (the type tag). */
    a = (struct pgcb_sum){0, 0};
    b = (struct pgcb_sum){0, 0};
    pgcb_sum_float4(&a, 1.5f);
    pgcb_sum_float8(&b, 1.5);
    assert_true(a.hash != b.hash);
}

static void test_ints_all_widths(void **state)
{
    (void)state;
    /* int2/int4/int8 of the same value fold alike; extremes are distinct. */
    assert_true(h_int((int16_t)-5) == h_int((int64_t)-5));
    assert_true(h_int(INT64_MIN) != h_int(INT64_MAX));
    assert_true(h_int(0) != h_int(1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_types_are_told_apart),
        cmocka_unit_test(test_order_matters),
        cmocka_unit_test(test_float_specials),
        cmocka_unit_test(test_ints_all_widths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
