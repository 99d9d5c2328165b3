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

/* The ABI 1.4 helpers (and the int extremes), pinned: every value below
 * was printed by tests/vectors/fold_golden.py, a second implementation of
 * the fold written from driver.h's comments in Python, never computed by
 * the helpers under test. Every other test computes its expected sums with
 * these helpers, so only this test fails when one of them changes. */
static void test_golden_abi14(void **state)
{
    (void)state;
    struct pgcb_sum s;
#define GOLD(fold, want)                                                                        \
    do {                                                                                        \
        s = (struct pgcb_sum){0, 0};                                                            \
        fold;                                                                                   \
        if (s.hash != (want))                                                                   \
            fail_msg("%s: 0x%016llx, golden 0x%016llx", #fold, (unsigned long long)s.hash,     \
                     (unsigned long long)(want));                                               \
    } while (0)
    GOLD(pgcb_sum_int(&s, -5), 0xb2a089b326269e2eull);
    GOLD(pgcb_sum_int(&s, INT64_MIN), 0x3a1dfb6bf379915full);
    GOLD(pgcb_sum_int(&s, INT64_MAX), 0x3acc4b9406240492ull);
    GOLD(pgcb_sum_timestamp(&s, 762527655123456), 0x3dba822466f09bd2ull);
    GOLD(pgcb_sum_timestamp(&s, INT64_MIN), 0x867c6951d7a4add2ull);
    GOLD(pgcb_sum_timestamptz(&s, -1000000), 0x0b3fa8d7f7c6fa10ull);
    GOLD(pgcb_sum_timestamptz(&s, INT64_MAX), 0xefdfb91d224165b7ull);
    GOLD(pgcb_sum_date(&s, -10957), 0x21ef7fed71b92763ull);
    GOLD(pgcb_sum_date(&s, INT32_MAX), 0x2a9f8d377ce3865full);
    GOLD(pgcb_sum_time(&s, 86400000000), 0x6fd1df774fa7c4f9ull);
    GOLD(pgcb_sum_interval(&s, 14706789000, 3, 14), 0xf56b36ede36c6498ull);
    GOLD(pgcb_sum_interval(&s, -90000000000, 0, 0), 0xec7341df1a5030c7ull);
    static const unsigned char u[16] = {0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8,
                                        0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11};
    GOLD(pgcb_sum_uuid(&s, u), 0x9f1518d0e2ecddccull);
    GOLD(pgcb_sum_numeric(&s, PGCB_NUMERIC_POS, 2, "150", 3), 0xff6af3278a7a5724ull);
    GOLD(pgcb_sum_numeric(&s, PGCB_NUMERIC_NEG, 3, "1", 1), 0x853eff7102995b2aull);
    GOLD(pgcb_sum_numeric(&s, PGCB_NUMERIC_POS, 0, "0", 1), 0xe202b115552d5d6bull);
    GOLD(pgcb_sum_numeric(&s, PGCB_NUMERIC_NAN, 0, "", 0), 0x779dee2d8d987643ull);
    GOLD(pgcb_sum_numeric(&s, PGCB_NUMERIC_NINF, 0, "", 0), 0xf43f46fd540051a3ull);
    GOLD(pgcb_sum_json(&s, "{\"a\": [1, 2]}", 13), 0xc39c8672672d1400ull);
    GOLD(pgcb_sum_bytea(&s, "\x00\xff", 2), 0x7c16efd6270fd150ull);
    GOLD(pgcb_sum_bytea(&s, "", 0), 0xc3d5b9e84ccd6e6cull);
    GOLD((pgcb_sum_array(&s, 3, 1), pgcb_sum_int(&s, 1), pgcb_sum_null(&s), pgcb_sum_int(&s, 3)),
         0x92e16b44703e5b18ull);
    GOLD(pgcb_sum_array(&s, 2, 0), 0x0277d3245bb8b3bcull);
    GOLD(pgcb_sum_array(&s, 0, 1), 0x05cd030ec91e7cedull);
#undef GOLD
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
    /* int2/int4/int8 of the same value fold alike: one helper, the value
     * sign-extended to 64 bits, so an int2 -5 must fold as the int8 -5's
     * golden value (test_golden_abi14) -- a helper that zero-extended
     * would not. Extremes are distinct. */
    int16_t i2 = -5;
    int32_t i4 = -5;
    assert_true(h_int(i2) == 0xb2a089b326269e2eull);
    assert_true(h_int(i4) == 0xb2a089b326269e2eull);
    assert_true(h_int(INT64_MIN) != h_int(INT64_MAX));
    assert_true(h_int(0) != h_int(1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_golden_abi14),
        cmocka_unit_test(test_types_are_told_apart),
        cmocka_unit_test(test_order_matters),
        cmocka_unit_test(test_float_specials),
        cmocka_unit_test(test_ints_all_widths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
