/*
 * test_pq_decode.c -- unit tests of the libpq_sync driver's value decoding.
 *
 * The driver's .c files are linked into its .so only, so this test compiles
 * pq_decode.c into itself by #including it (it has no libpq dependency).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "../../drivers/libpq_sync/pq_decode.c"

#include "../lib/drvtest.h"

/* ---- text integers ------------------------------------------------------ */

static int64_t int_ok(const char *s)
{
    int64_t v = 12345;
    assert_int_equal(pgcb_pq_parse_int(s, strlen(s), &v), 0);
    return v;
}

static void int_bad(const char *s)
{
    int64_t v = 12345;
    assert_int_equal(pgcb_pq_parse_int(s, strlen(s), &v), -1);
    assert_true(v == 12345); /* untouched on failure */
}

static void test_int_edges(void **state)
{
    (void)state;
    assert_true(int_ok("0") == 0);
    assert_true(int_ok("-0") == 0);
    assert_true(int_ok("1") == 1);
    assert_true(int_ok("-1") == -1);
    assert_true(int_ok("1337") == 1337);
    assert_true(int_ok("32767") == 32767);
    assert_true(int_ok("-32768") == -32768);
    assert_true(int_ok("2147483647") == INT32_MAX);
    assert_true(int_ok("-2147483648") == INT32_MIN);
    assert_true(int_ok("9223372036854775807") == INT64_MAX);
    assert_true(int_ok("-9223372036854775808") == INT64_MIN);
    assert_true(int_ok("-9223372036854775807") == -INT64_MAX);
    assert_true(int_ok("1000000000000000000") == 1000000000000000000);
}

static void test_int_rejects(void **state)
{
    (void)state;
    int_bad("");
    int_bad("-");
    int_bad("+1");
    int_bad(" 1");
    int_bad("1 ");
    int_bad("1a");
    int_bad("--1");
    int_bad("1.0");
    int_bad("9223372036854775808");   /* INT64_MAX + 1 */
    int_bad("-9223372036854775809");  /* INT64_MIN - 1 */
    int_bad("9999999999999999999");   /* 19 digits, > INT64_MAX */
    int_bad("18446744073709551616");  /* 2^64: 20 digits */
    int_bad("99999999999999999999");  /* would wrap a naive uint64 */
}

static void test_int_uses_len_not_nul(void **state)
{
    int64_t v = 0;
    (void)state;
    assert_int_equal(pgcb_pq_parse_int("12345", 3, &v), 0);
    assert_true(v == 123);
}

/* ---- text floats -------------------------------------------------------- */

static float f4(const char *s)
{
    float v = 0;
    assert_int_equal(pgcb_pq_parse_float4(s, strlen(s), drvtest_c_locale, &v), 0);
    return v;
}

static double f8(const char *s)
{
    double v = 0;
    assert_int_equal(pgcb_pq_parse_float8(s, strlen(s), drvtest_c_locale, &v), 0);
    return v;
}

static void test_float_specials(void **state)
{
    (void)state;
    assert_true(isnan(f4("NaN")));
    assert_true(isinf(f4("Infinity")) && f4("Infinity") > 0);
    assert_true(isinf(f4("-Infinity")) && f4("-Infinity") < 0);
    assert_true(isnan(f8("NaN")));
    assert_true(isinf(f8("Infinity")) && f8("Infinity") > 0);
    assert_true(isinf(f8("-Infinity")) && f8("-Infinity") < 0);
    assert_true(f8("-0") == 0 && signbit(f8("-0")));
    assert_true(f4("-0") == 0 && signbit(f4("-0")));
}

static void test_float_values(void **state)
{
    (void)state;
    assert_true(f4("-1.5") == -1.5f);
    assert_true(f4("3.4028235e+38") == FLT_MAX);
    assert_true(f4("1e-45") == 0x1p-149f); /* smallest denormal, ERANGE ignored */
    assert_true(f4("0.1") == 0.1f);        /* strtof, not (float)strtod */
    assert_true(f8("0.1") == 0.1);
    assert_true(f8("1.7976931348623157e+308") == DBL_MAX);
    assert_true(f8("5e-324") == 0x1p-1074);
    assert_true(f8("12.5") == 12.5);
}

static void test_float_rejects(void **state)
{
    float f = 7;
    double d = 7;
    (void)state;
    assert_int_equal(pgcb_pq_parse_float4("", 0, drvtest_c_locale, &f), -1);
    assert_int_equal(pgcb_pq_parse_float4(" 1", 2, drvtest_c_locale, &f), -1);
    assert_int_equal(pgcb_pq_parse_float4("1.5x", 4, drvtest_c_locale, &f), -1);
    assert_int_equal(pgcb_pq_parse_float8("1,5", 3, drvtest_c_locale, &d), -1);
    assert_int_equal(pgcb_pq_parse_float8("abc", 3, drvtest_c_locale, &d), -1);
    assert_true(f == 7 && d == 7);
}

/* ---- bool --------------------------------------------------------------- */

static void test_bool(void **state)
{
    int b = 7;
    (void)state;
    assert_int_equal(pgcb_pq_parse_bool("t", 1, &b), 0);
    assert_int_equal(b, 1);
    assert_int_equal(pgcb_pq_parse_bool("f", 1, &b), 0);
    assert_int_equal(b, 0);
    b = 7;
    assert_int_equal(pgcb_pq_parse_bool("true", 4, &b), -1);
    assert_int_equal(pgcb_pq_parse_bool("", 0, &b), -1);
    assert_int_equal(pgcb_pq_parse_bool("1", 1, &b), -1);
    assert_int_equal(b, 7);
}

/* ---- folding: text and binary agree with the helpers --------------------- */

/* Fold text `s` of kind k and return the hash. */
static uint64_t fold_t(enum pgcb_pq_kind k, const char *s)
{
    struct pgcb_sum sum = {0, 0};
    assert_int_equal(pgcb_pq_fold_text(&sum, k, s, strlen(s), drvtest_c_locale), 0);
    return sum.hash;
}

static uint64_t fold_b(enum pgcb_pq_kind k, const char *bytes, size_t len)
{
    struct pgcb_sum sum = {0, 0};
    assert_int_equal(pgcb_pq_fold_binary(&sum, k, bytes, len), 0);
    return sum.hash;
}

static uint64_t ref_int(int64_t v)
{
    struct pgcb_sum s = {0, 0};
    pgcb_sum_int(&s, v);
    return s.hash;
}

static uint64_t ref_f4(float v)
{
    struct pgcb_sum s = {0, 0};
    pgcb_sum_float4(&s, v);
    return s.hash;
}

static uint64_t ref_f8(double v)
{
    struct pgcb_sum s = {0, 0};
    pgcb_sum_float8(&s, v);
    return s.hash;
}

static uint64_t ref_bool(int v)
{
    struct pgcb_sum s = {0, 0};
    pgcb_sum_bool(&s, v);
    return s.hash;
}

static uint64_t ref_text(const char *t)
{
    struct pgcb_sum s = {0, 0};
    pgcb_sum_text(&s, t, strlen(t));
    return s.hash;
}

static void test_fold_ints(void **state)
{
    (void)state;
    assert_true(fold_t(PGCB_PQ_INT2, "-32768") == ref_int(-32768));
    assert_true(fold_b(PGCB_PQ_INT2, "\x80\x00", 2) == ref_int(-32768));
    assert_true(fold_b(PGCB_PQ_INT2, "\xff\xff", 2) == ref_int(-1));
    assert_true(fold_b(PGCB_PQ_INT2, "\x7f\xff", 2) == ref_int(32767));
    assert_true(fold_t(PGCB_PQ_INT4, "-1") == ref_int(-1));
    assert_true(fold_b(PGCB_PQ_INT4, "\xff\xff\xff\xff", 4) == ref_int(-1));
    assert_true(fold_b(PGCB_PQ_INT4, "\x80\x00\x00\x00", 4) == ref_int(INT32_MIN));
    assert_true(fold_b(PGCB_PQ_INT4, "\x00\x00\x05\x39", 4) == ref_int(1337));
    assert_true(fold_t(PGCB_PQ_INT8, "9223372036854775807") == ref_int(INT64_MAX));
    assert_true(fold_b(PGCB_PQ_INT8, "\x7f\xff\xff\xff\xff\xff\xff\xff", 8) == ref_int(INT64_MAX));
    assert_true(fold_t(PGCB_PQ_INT8, "-9223372036854775808") == ref_int(INT64_MIN));
    assert_true(fold_b(PGCB_PQ_INT8, "\x80\x00\x00\x00\x00\x00\x00\x00", 8) == ref_int(INT64_MIN));
    assert_true(fold_b(PGCB_PQ_INT8, "\xff\xff\xff\xff\xff\xff\xff\xff", 8) == ref_int(-1));
    assert_true(fold_b(PGCB_PQ_INT8, "\x00\x00\x00\x00\x00\x00\x00\x00", 8) == ref_int(0));
}

static void test_fold_floats_bools_text(void **state)
{
    (void)state;
    assert_true(fold_t(PGCB_PQ_FLOAT4, "-1.5") == ref_f4(-1.5f));
    assert_true(fold_b(PGCB_PQ_FLOAT4, "\xbf\xc0\x00\x00", 4) == ref_f4(-1.5f));
    /* any NaN bit pattern folds like "NaN" */
    assert_true(fold_t(PGCB_PQ_FLOAT8, "NaN") == ref_f8(NAN));
    assert_true(fold_b(PGCB_PQ_FLOAT8, "\x7f\xf8\x00\x00\x00\x00\x00\x00", 8) == ref_f8(NAN));
    assert_true(fold_b(PGCB_PQ_FLOAT8, "\xff\xf0\x00\x00\x00\x00\x00\x01", 8) == ref_f8(NAN));
    assert_true(fold_b(PGCB_PQ_FLOAT4, "\x7f\x80\x00\x01", 4) == ref_f4(NAN));
    assert_true(fold_t(PGCB_PQ_FLOAT8, "-Infinity") == ref_f8(-INFINITY));
    assert_true(fold_b(PGCB_PQ_FLOAT8, "\xff\xf0\x00\x00\x00\x00\x00\x00", 8) == ref_f8(-INFINITY));
    assert_true(fold_t(PGCB_PQ_FLOAT4, "Infinity") == ref_f4(INFINITY));
    assert_true(fold_b(PGCB_PQ_FLOAT4, "\x7f\x80\x00\x00", 4) == ref_f4(INFINITY));
    /* -0 and 0 differ */
    assert_true(fold_t(PGCB_PQ_FLOAT8, "-0") != fold_t(PGCB_PQ_FLOAT8, "0"));
    assert_true(fold_t(PGCB_PQ_BOOL, "t") == ref_bool(1));
    assert_true(fold_b(PGCB_PQ_BOOL, "\x01", 1) == ref_bool(1));
    assert_true(fold_t(PGCB_PQ_BOOL, "f") == ref_bool(0));
    assert_true(fold_b(PGCB_PQ_BOOL, "\x00", 1) == ref_bool(0));
    assert_true(fold_t(PGCB_PQ_TEXT, "12.50") == ref_text("12.50"));
    assert_true(fold_b(PGCB_PQ_TEXT, "wat", 3) == ref_text("wat"));
    /* the type tag matters: int 1 is not text "1" */
    assert_true(fold_t(PGCB_PQ_INT4, "1") != fold_t(PGCB_PQ_TEXT, "1"));
}

static void test_fold_rejects_without_folding(void **state)
{
    struct pgcb_sum s = {42, 7};
    (void)state;
    assert_int_equal(pgcb_pq_fold_text(&s, PGCB_PQ_INT4, "x", 1, drvtest_c_locale), -1);
    assert_int_equal(pgcb_pq_fold_text(&s, PGCB_PQ_FLOAT8, "1e", 2, drvtest_c_locale), -1);
    assert_int_equal(pgcb_pq_fold_text(&s, PGCB_PQ_BOOL, "x", 1, drvtest_c_locale), -1);
    assert_int_equal(pgcb_pq_fold_binary(&s, PGCB_PQ_INT2, "\x00\x00\x00\x01", 4), -1);
    assert_int_equal(pgcb_pq_fold_binary(&s, PGCB_PQ_INT4, "\x00\x01", 2), -1);
    assert_int_equal(pgcb_pq_fold_binary(&s, PGCB_PQ_INT8, "\x00\x00\x00\x01", 4), -1);
    assert_int_equal(pgcb_pq_fold_binary(&s, PGCB_PQ_FLOAT4, "\x00\x00\x00\x00\x00\x00\x00\x00", 8), -1);
    assert_int_equal(pgcb_pq_fold_binary(&s, PGCB_PQ_FLOAT8, "\x00\x00\x00\x00", 4), -1);
    assert_int_equal(pgcb_pq_fold_binary(&s, PGCB_PQ_BOOL, "\x02", 1), -1);
    assert_int_equal(pgcb_pq_fold_binary(&s, PGCB_PQ_BOOL, "", 0), -1);
    assert_true(s.hash == 42 && s.rows == 7);
}

/* ---- type mapping ------------------------------------------------------- */

static void test_kinds(void **state)
{
    (void)state;
    assert_int_equal(pgcb_pq_kind_of(PGCB_OID_INT2), PGCB_PQ_INT2);
    assert_int_equal(pgcb_pq_kind_of(PGCB_OID_INT4), PGCB_PQ_INT4);
    assert_int_equal(pgcb_pq_kind_of(PGCB_OID_INT8), PGCB_PQ_INT8);
    assert_int_equal(pgcb_pq_kind_of(PGCB_OID_FLOAT4), PGCB_PQ_FLOAT4);
    assert_int_equal(pgcb_pq_kind_of(PGCB_OID_FLOAT8), PGCB_PQ_FLOAT8);
    assert_int_equal(pgcb_pq_kind_of(PGCB_OID_BOOL), PGCB_PQ_BOOL);
    assert_int_equal(pgcb_pq_kind_of(PGCB_OID_NUMERIC), PGCB_PQ_TEXT);
    assert_int_equal(pgcb_pq_kind_of(PGCB_OID_VARCHAR), PGCB_PQ_TEXT);
    assert_int_equal(pgcb_pq_kind_of(1186 /* interval */), PGCB_PQ_TEXT);

    assert_true(pgcb_pq_binary_foldable(PGCB_OID_TEXT));
    assert_true(pgcb_pq_binary_foldable(PGCB_OID_VARCHAR));
    assert_true(pgcb_pq_binary_foldable(PGCB_OID_NAME));
    assert_true(pgcb_pq_binary_foldable(PGCB_OID_BPCHAR));
    assert_true(pgcb_pq_binary_foldable(PGCB_OID_INT8));
    assert_true(pgcb_pq_binary_foldable(PGCB_OID_BOOL));
    assert_false(pgcb_pq_binary_foldable(PGCB_OID_NUMERIC));
    assert_false(pgcb_pq_binary_foldable(1186));
    assert_false(pgcb_pq_binary_foldable(0));

    assert_string_equal(pgcb_pq_type_name(PGCB_OID_NUMERIC), "numeric");
    assert_null(pgcb_pq_type_name(1186));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_edges),
        cmocka_unit_test(test_int_rejects),
        cmocka_unit_test(test_int_uses_len_not_nul),
        cmocka_unit_test(test_float_specials),
        cmocka_unit_test(test_float_values),
        cmocka_unit_test(test_float_rejects),
        cmocka_unit_test(test_bool),
        cmocka_unit_test(test_fold_ints),
        cmocka_unit_test(test_fold_floats_bools_text),
        cmocka_unit_test(test_fold_rejects_without_folding),
        cmocka_unit_test(test_kinds),
    };
    return cmocka_run_group_tests_name("pq_decode", tests, drvtest_c_locale_setup,
                                       drvtest_c_locale_teardown);
}
