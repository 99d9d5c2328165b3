/*
 * test_value.c -- include/pgcb/value.h: the text parsers, the folding of
 * every kind in text and binary against the pgcb_sum_*() helpers, and the
 * choice of kind and format per column type. Every driver folds with it, so
 * these are the edge cases of all of them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pgcb/value.h>

#include "../lib/drvtest.h"

/* ---- text integers ------------------------------------------------------ */

static int64_t int_ok(const char *s)
{
    int64_t v = 12345;
    assert_int_equal(pgcb_value_parse_int(s, strlen(s), &v), 0);
    return v;
}

static void int_bad(const char *s)
{
    int64_t v = 12345;
    assert_int_equal(pgcb_value_parse_int(s, strlen(s), &v), -1);
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
    assert_int_equal(pgcb_value_parse_int("12345", 3, &v), 0);
    assert_true(v == 123);
}

/* ---- text floats -------------------------------------------------------- */

static float f4(const char *s)
{
    float v = 0;
    assert_int_equal(pgcb_value_parse_float4(s, strlen(s), drvtest_c_locale, &v), 0);
    return v;
}

static double f8(const char *s)
{
    double v = 0;
    assert_int_equal(pgcb_value_parse_float8(s, strlen(s), drvtest_c_locale, &v), 0);
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
    assert_int_equal(pgcb_value_parse_float4("", 0, drvtest_c_locale, &f), -1);
    assert_int_equal(pgcb_value_parse_float4(" 1", 2, drvtest_c_locale, &f), -1);
    assert_int_equal(pgcb_value_parse_float4("1.5x", 4, drvtest_c_locale, &f), -1);
    assert_int_equal(pgcb_value_parse_float8("1,5", 3, drvtest_c_locale, &d), -1);
    assert_int_equal(pgcb_value_parse_float8("abc", 3, drvtest_c_locale, &d), -1);
    assert_true(f == 7 && d == 7);
}

/* Text floats need not be NUL-terminated: the bytes after `len` are not
 * part of the value (rawwire's DataRow fields), and not read (an
 * exactly-sized heap copy, so ASan sees a read past it). */
static void test_float_not_terminated(void **state)
{
    char *p = malloc(4);
    float f = 7;
    double d = 7;

    (void)state;
    assert_non_null(p);
    memcpy(p, "0.15", 4);
    assert_int_equal(pgcb_value_parse_float8(p, 3, drvtest_c_locale, &d), 0);
    assert_true(d == 0.1);
    assert_int_equal(pgcb_value_parse_float4(p, 4, drvtest_c_locale, &f), 0);
    assert_true(f == 0.15f);
    free(p);
}

/* At most PGCB_VALUE_FLOAT_MAXLEN bytes (63; PostgreSQL prints at most 24). */
static void test_float_length_limit(void **state)
{
    char buf[PGCB_VALUE_FLOAT_MAXLEN + 2];
    double d = 7;

    (void)state;
    memset(buf, '1', sizeof buf);
    buf[1] = '.';
    assert_int_equal(pgcb_value_parse_float8(buf, sizeof buf - 2, drvtest_c_locale, &d), 0);
    assert_true(d > 1.11 && d < 1.12);
    d = 7;
    assert_int_equal(pgcb_value_parse_float8(buf, sizeof buf - 1, drvtest_c_locale, &d), -1);
    assert_true(d == 7);
}

/* ---- bool --------------------------------------------------------------- */

static void test_bool(void **state)
{
    int b = 7;
    (void)state;
    assert_int_equal(pgcb_value_parse_bool("t", 1, &b), 0);
    assert_int_equal(b, 1);
    assert_int_equal(pgcb_value_parse_bool("f", 1, &b), 0);
    assert_int_equal(b, 0);
    b = 7;
    assert_int_equal(pgcb_value_parse_bool("true", 4, &b), -1);
    assert_int_equal(pgcb_value_parse_bool("", 0, &b), -1);
    assert_int_equal(pgcb_value_parse_bool("1", 1, &b), -1);
    assert_int_equal(b, 7);
}

/* ---- folding: text and binary agree with the helpers --------------------- */

/* Fold `len` bytes of kind k (binary, or text not NUL-terminated) into a
 * zero sum and return its hash. */
static uint64_t fold_b(enum pgcb_value_kind k, const char *bytes, size_t len)
{
    struct pgcb_sum sum = {0, 0};
    assert_int_equal(pgcb_value_fold(&sum, k, bytes, len, drvtest_c_locale), 0);
    return sum.hash;
}

/* Fold text `s` of kind k. */
static uint64_t fold_t(enum pgcb_value_kind k, const char *s)
{
    return fold_b(k, s, strlen(s));
}

/* The hash of one value folded by helper `fold` (pgcb_sum_int ...) with the
 * arguments after it, from a zero sum: what a conversion must give. */
static struct pgcb_sum ref_sum;
#define REF(fold, ...) (ref_sum = (struct pgcb_sum){0, 0}, fold(&ref_sum, __VA_ARGS__), ref_sum.hash)
#define REF_INT(v) REF(pgcb_sum_int, v)
#define REF_F4(v) REF(pgcb_sum_float4, v)
#define REF_F8(v) REF(pgcb_sum_float8, v)
#define REF_BOOL(v) REF(pgcb_sum_bool, v)

static void test_fold_ints(void **state)
{
    (void)state;
    assert_true(fold_t(PGCB_VALUE_T_INT, "-32768") == REF_INT(-32768));
    assert_true(fold_b(PGCB_VALUE_B_INT2, "\x80\x00", 2) == REF_INT(-32768));
    assert_true(fold_b(PGCB_VALUE_B_INT2, "\xff\xff", 2) == REF_INT(-1));
    assert_true(fold_b(PGCB_VALUE_B_INT2, "\x7f\xff", 2) == REF_INT(32767));
    assert_true(fold_t(PGCB_VALUE_T_INT, "-1") == REF_INT(-1));
    assert_true(fold_b(PGCB_VALUE_B_INT4, "\xff\xff\xff\xff", 4) == REF_INT(-1));
    assert_true(fold_b(PGCB_VALUE_B_INT4, "\x80\x00\x00\x00", 4) == REF_INT(INT32_MIN));
    assert_true(fold_b(PGCB_VALUE_B_INT4, "\x00\x00\x05\x39", 4) == REF_INT(1337));
    assert_true(fold_t(PGCB_VALUE_T_INT, "9223372036854775807") == REF_INT(INT64_MAX));
    assert_true(fold_b(PGCB_VALUE_B_INT8, "\x7f\xff\xff\xff\xff\xff\xff\xff", 8) == REF_INT(INT64_MAX));
    assert_true(fold_t(PGCB_VALUE_T_INT, "-9223372036854775808") == REF_INT(INT64_MIN));
    assert_true(fold_b(PGCB_VALUE_B_INT8, "\x80\x00\x00\x00\x00\x00\x00\x00", 8) == REF_INT(INT64_MIN));
    assert_true(fold_b(PGCB_VALUE_B_INT8, "\xff\xff\xff\xff\xff\xff\xff\xff", 8) == REF_INT(-1));
    assert_true(fold_b(PGCB_VALUE_B_INT8, "\x00\x00\x00\x00\x00\x00\x00\x00", 8) == REF_INT(0));
}

static void test_fold_floats_bools_text(void **state)
{
    (void)state;
    assert_true(fold_t(PGCB_VALUE_T_FLOAT4, "-1.5") == REF_F4(-1.5f));
    assert_true(fold_b(PGCB_VALUE_B_FLOAT4, "\xbf\xc0\x00\x00", 4) == REF_F4(-1.5f));
    /* any NaN bit pattern folds like "NaN" */
    assert_true(fold_t(PGCB_VALUE_T_FLOAT8, "NaN") == REF_F8(NAN));
    assert_true(fold_b(PGCB_VALUE_B_FLOAT8, "\x7f\xf8\x00\x00\x00\x00\x00\x00", 8) == REF_F8(NAN));
    assert_true(fold_b(PGCB_VALUE_B_FLOAT8, "\xff\xf0\x00\x00\x00\x00\x00\x01", 8) == REF_F8(NAN));
    assert_true(fold_b(PGCB_VALUE_B_FLOAT4, "\x7f\x80\x00\x01", 4) == REF_F4(NAN));
    assert_true(fold_t(PGCB_VALUE_T_FLOAT8, "-Infinity") == REF_F8(-INFINITY));
    assert_true(fold_b(PGCB_VALUE_T_FLOAT8, "0.15", 3) == REF_F8(0.1)); /* not terminated */
    assert_true(fold_b(PGCB_VALUE_B_FLOAT8, "\xff\xf0\x00\x00\x00\x00\x00\x00", 8) == REF_F8(-INFINITY));
    assert_true(fold_t(PGCB_VALUE_T_FLOAT4, "Infinity") == REF_F4(INFINITY));
    assert_true(fold_b(PGCB_VALUE_B_FLOAT4, "\x7f\x80\x00\x00", 4) == REF_F4(INFINITY));
    /* -0 and 0 differ */
    assert_true(fold_t(PGCB_VALUE_T_FLOAT8, "-0") != fold_t(PGCB_VALUE_T_FLOAT8, "0"));
    assert_true(fold_t(PGCB_VALUE_T_BOOL, "t") == REF_BOOL(1));
    assert_true(fold_b(PGCB_VALUE_B_BOOL, "\x01", 1) == REF_BOOL(1));
    assert_true(fold_t(PGCB_VALUE_T_BOOL, "f") == REF_BOOL(0));
    assert_true(fold_b(PGCB_VALUE_B_BOOL, "\x00", 1) == REF_BOOL(0));
    assert_true(fold_t(PGCB_VALUE_TEXT, "12.50") == REF(pgcb_sum_text, "12.50", 5));
    assert_true(fold_b(PGCB_VALUE_TEXT, "wat", 3) == REF(pgcb_sum_text, "wat", 3));
    /* the type tag matters: int 1 is not text "1" */
    assert_true(fold_t(PGCB_VALUE_T_INT, "1") != fold_t(PGCB_VALUE_TEXT, "1"));
}

static void test_fold_rejects_without_folding(void **state)
{
    struct pgcb_sum s = {42, 7};
#define BAD(kind, bytes, len) pgcb_value_fold(&s, PGCB_VALUE_##kind, bytes, len, drvtest_c_locale)
    (void)state;
    assert_int_equal(BAD(T_INT, "x", 1), -1);
    assert_int_equal(BAD(T_FLOAT8, "1e", 2), -1);
    assert_int_equal(BAD(T_BOOL, "x", 1), -1);
    assert_int_equal(BAD(B_INT2, "\x00\x00\x00\x01", 4), -1);
    assert_int_equal(BAD(B_INT4, "\x00\x01", 2), -1);
    assert_int_equal(BAD(B_INT8, "\x00\x00\x00\x01", 4), -1);
    assert_int_equal(BAD(B_FLOAT4, "\x00\x00\x00\x00\x00\x00\x00\x00", 8), -1);
    assert_int_equal(BAD(B_FLOAT8, "\x00\x00\x00\x00", 4), -1);
    assert_int_equal(BAD(B_BOOL, "\x02", 1), -1);
    assert_int_equal(BAD(B_BOOL, "", 0), -1);
    assert_true(s.hash == 42 && s.rows == 7);
#undef BAD
}

/* ---- type mapping ------------------------------------------------------- */

static void test_kinds(void **state)
{
    /* type: its kind in text, in binary (as pgcb_value_format asks for it) */
    static const struct {
        uint32_t oid;
        enum pgcb_value_kind text, binary;
    } want[] = {
        {PGCB_OID_INT2, PGCB_VALUE_T_INT, PGCB_VALUE_B_INT2},
        {PGCB_OID_INT4, PGCB_VALUE_T_INT, PGCB_VALUE_B_INT4},
        {PGCB_OID_INT8, PGCB_VALUE_T_INT, PGCB_VALUE_B_INT8},
        {PGCB_OID_FLOAT4, PGCB_VALUE_T_FLOAT4, PGCB_VALUE_B_FLOAT4},
        {PGCB_OID_FLOAT8, PGCB_VALUE_T_FLOAT8, PGCB_VALUE_B_FLOAT8},
        {PGCB_OID_BOOL, PGCB_VALUE_T_BOOL, PGCB_VALUE_B_BOOL},
        {PGCB_OID_TEXT, PGCB_VALUE_TEXT, PGCB_VALUE_TEXT},
        {PGCB_OID_VARCHAR, PGCB_VALUE_TEXT, PGCB_VALUE_TEXT},
        {PGCB_OID_NUMERIC, PGCB_VALUE_T_NUMERIC, PGCB_VALUE_B_NUMERIC},
        {PGCB_OID_DATE, PGCB_VALUE_T_DATE, PGCB_VALUE_B_DATE},
        {PGCB_OID_TIME, PGCB_VALUE_T_TIME, PGCB_VALUE_B_TIME},
        {PGCB_OID_TIMESTAMP, PGCB_VALUE_T_TIMESTAMP, PGCB_VALUE_B_TIMESTAMP},
        {PGCB_OID_TIMESTAMPTZ, PGCB_VALUE_T_TIMESTAMPTZ, PGCB_VALUE_B_TIMESTAMPTZ},
        {PGCB_OID_INTERVAL, PGCB_VALUE_T_INTERVAL, PGCB_VALUE_B_INTERVAL},
        {PGCB_OID_UUID, PGCB_VALUE_T_UUID, PGCB_VALUE_B_UUID},
        {PGCB_OID_JSON, PGCB_VALUE_JSON, PGCB_VALUE_JSON},
        {PGCB_OID_JSONB, PGCB_VALUE_JSON, PGCB_VALUE_B_JSONB},
        {PGCB_OID_BYTEA, PGCB_VALUE_T_BYTEA, PGCB_VALUE_B_BYTEA},
        {PGCB_OID_INT4_ARRAY, PGCB_VALUE_T_ARRAY_INT, PGCB_VALUE_B_ARRAY_INT4},
        {PGCB_OID_INT8_ARRAY, PGCB_VALUE_T_ARRAY_INT, PGCB_VALUE_B_ARRAY_INT8},
        {PGCB_OID_TEXT_ARRAY, PGCB_VALUE_T_ARRAY_TEXT, PGCB_VALUE_B_ARRAY_TEXT},
        {PGCB_OID_FLOAT8_ARRAY, PGCB_VALUE_T_ARRAY_FLOAT8, PGCB_VALUE_B_ARRAY_FLOAT8},
        /* not converted: their text, in either preference */
        {1266 /* timetz */, PGCB_VALUE_TEXT, PGCB_VALUE_TEXT},
        {600 /* point */, PGCB_VALUE_TEXT, PGCB_VALUE_TEXT},
        {1015 /* varchar[] */, PGCB_VALUE_TEXT, PGCB_VALUE_TEXT},
    };

    (void)state;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(pgcb_value_kind_of(want[i].oid, 0), want[i].text);
        assert_int_equal(pgcb_value_kind_of(want[i].oid, pgcb_value_format(want[i].oid, 1)),
                         want[i].binary);
    }

    assert_true(pgcb_value_binary_foldable(PGCB_OID_TEXT));
    assert_true(pgcb_value_binary_foldable(PGCB_OID_VARCHAR));
    assert_true(pgcb_value_binary_foldable(PGCB_OID_NAME));
    assert_true(pgcb_value_binary_foldable(PGCB_OID_BPCHAR));
    assert_true(pgcb_value_binary_foldable(PGCB_OID_INT8));
    assert_true(pgcb_value_binary_foldable(PGCB_OID_BOOL));
    assert_true(pgcb_value_binary_foldable(PGCB_OID_NUMERIC));
    assert_true(pgcb_value_binary_foldable(PGCB_OID_INTERVAL));
    assert_false(pgcb_value_binary_foldable(1266 /* timetz */));
    assert_false(pgcb_value_binary_foldable(0));

    assert_string_equal(pgcb_value_type_name(PGCB_OID_NUMERIC), "numeric");
    assert_string_equal(pgcb_value_type_name(PGCB_OID_TIMESTAMPTZ), "timestamptz");
    assert_string_equal(pgcb_value_type_name(PGCB_OID_TEXT_ARRAY), "text[]");
    assert_null(pgcb_value_type_name(1266));
    assert_false(pgcb_value_kind_binary(PGCB_VALUE_JSON));
    assert_true(pgcb_value_kind_binary(PGCB_VALUE_B_JSONB));
    assert_true(pgcb_value_kind_binary(PGCB_VALUE_B_INT4));
    assert_false(pgcb_value_kind_binary(PGCB_VALUE_T_ARRAY_TEXT));
}

/* The format to ask for: binary where it folds; the unconverted types in
 * text even when binary is wanted (their text form is what every driver
 * folds: kind TEXT, test_kinds). */
static void test_formats(void **state)
{
    (void)state;
    assert_int_equal(pgcb_value_format(PGCB_OID_INT4, 1), 1);
    assert_int_equal(pgcb_value_format(PGCB_OID_INT4, 0), 0);
    assert_int_equal(pgcb_value_format(PGCB_OID_TEXT, 1), 1);
    assert_int_equal(pgcb_value_format(PGCB_OID_NUMERIC, 1), 1);
    assert_int_equal(pgcb_value_format(PGCB_OID_DATE, 1), 1);
    assert_int_equal(pgcb_value_format(PGCB_OID_DATE, 0), 0);
    assert_int_equal(pgcb_value_format(1266 /* timetz */, 1), 0);
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
        cmocka_unit_test(test_float_not_terminated),
        cmocka_unit_test(test_float_length_limit),
        cmocka_unit_test(test_bool),
        cmocka_unit_test(test_fold_ints),
        cmocka_unit_test(test_fold_floats_bools_text),
        cmocka_unit_test(test_fold_rejects_without_folding),
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_formats),
    };
    return cmocka_run_group_tests_name("value", tests, drvtest_c_locale_setup,
                                       drvtest_c_locale_teardown);
}
