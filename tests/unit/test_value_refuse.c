/*
 * test_value_refuse.c -- what the conversions of ABI 1.4 (lib/pgvalue)
 * refuse: every malformed text and binary form is -1 (an array of two
 * dimensions PGCB_VALUE_UNSUPPORTED) and leaves the sum as it was. What
 * they accept is checked against the server's own binary forms in
 * tests/server/test_value_types.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <pgcb/value.h>

#include "../lib/drvtest.h"

struct bad {
    enum pgcb_value_kind k;
    const char *p;
    size_t len; /* 0: strlen(p) */
    int want;   /* -1, or PGCB_VALUE_UNSUPPORTED */
};

#define T(kind, s) {kind, s, 0, -1}
#define B(kind, s) {kind, s, sizeof s - 1, -1}

static const struct bad bads[] = {
    /* timestamps */
    T(PGCB_VALUE_T_TIMESTAMP, ""), T(PGCB_VALUE_T_TIMESTAMP, "2000-01-01"),
    T(PGCB_VALUE_T_TIMESTAMP, "2000-13-01 00:00:00"), T(PGCB_VALUE_T_TIMESTAMP, "2001-02-29 00:00:00"),
    T(PGCB_VALUE_T_TIMESTAMP, "2000-01-01 24:00:01"), T(PGCB_VALUE_T_TIMESTAMP, "2000-01-01 00:60:00"),
    T(PGCB_VALUE_T_TIMESTAMP, "2000-01-01 00:00:00.1234567"), T(PGCB_VALUE_T_TIMESTAMP, "2000-01-01 00:00:00."),
    T(PGCB_VALUE_T_TIMESTAMP, "2000-01-01 00:00:00+00"), T(PGCB_VALUE_T_TIMESTAMP, "0000-01-01 00:00:00"),
    T(PGCB_VALUE_T_TIMESTAMP, "01/02/2000 00:00:00"), T(PGCB_VALUE_T_TIMESTAMP, "Infinity"),
    T(PGCB_VALUE_T_TIMESTAMP, "2000-01-01 00:00:00 AD"), T(PGCB_VALUE_T_TIMESTAMP, "200-01-01 00:00:00"),
    T(PGCB_VALUE_T_TIMESTAMPTZ, "2000-01-01 00:00:00"), T(PGCB_VALUE_T_TIMESTAMPTZ, "2000-01-01 00:00:00+1"),
    T(PGCB_VALUE_T_TIMESTAMPTZ, "2000-01-01 00:00:00+01:60"), T(PGCB_VALUE_T_TIMESTAMPTZ, "2000-01-01 00:00:00Z"),
    T(PGCB_VALUE_T_TIMESTAMPTZ, "9999999-01-01 00:00:00+00"),
    /* dates, times */
    T(PGCB_VALUE_T_DATE, "2000-1-01"), T(PGCB_VALUE_T_DATE, "2000-01-32"), T(PGCB_VALUE_T_DATE, "2000-01-01 "),
    T(PGCB_VALUE_T_DATE, "0000-01-01 BC"), T(PGCB_VALUE_T_DATE, "99999999-01-01"), T(PGCB_VALUE_T_DATE, "x"),
    T(PGCB_VALUE_T_TIME, "24:00:00.000001"), T(PGCB_VALUE_T_TIME, "1:00:00"), T(PGCB_VALUE_T_TIME, "12:00"),
    T(PGCB_VALUE_T_TIME, "12:00:00+00"),
    /* intervals */
    T(PGCB_VALUE_T_INTERVAL, ""), T(PGCB_VALUE_T_INTERVAL, "1 week"), T(PGCB_VALUE_T_INTERVAL, "1 day "),
    T(PGCB_VALUE_T_INTERVAL, "1days"), T(PGCB_VALUE_T_INTERVAL, "00:00"), T(PGCB_VALUE_T_INTERVAL, "1 day 00:61:00"),
    T(PGCB_VALUE_T_INTERVAL, "@ 1 day"), T(PGCB_VALUE_T_INTERVAL, "2562047789:00:00"),
    T(PGCB_VALUE_T_INTERVAL, "00:00:00 1 day"), T(PGCB_VALUE_T_INTERVAL, "3000000000 days"),
    T(PGCB_VALUE_T_INTERVAL, "P1D"),
    /* uuid */
    T(PGCB_VALUE_T_UUID, "a0eebc999c0b4ef8bb6d6bb9bd380a11"), T(PGCB_VALUE_T_UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g"),
    T(PGCB_VALUE_T_UUID, "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}"), T(PGCB_VALUE_T_UUID, "a0eebc99-9c0b-4ef8-bb6d6-bb9bd380a11"),
    /* numeric */
    T(PGCB_VALUE_T_NUMERIC, ""), T(PGCB_VALUE_T_NUMERIC, "-"), T(PGCB_VALUE_T_NUMERIC, "1."),
    T(PGCB_VALUE_T_NUMERIC, ".5"), T(PGCB_VALUE_T_NUMERIC, "1e5"), T(PGCB_VALUE_T_NUMERIC, "1.2.3"),
    T(PGCB_VALUE_T_NUMERIC, "nan"), T(PGCB_VALUE_T_NUMERIC, "+1"), T(PGCB_VALUE_T_NUMERIC, "1 "),
    T(PGCB_VALUE_T_NUMERIC, "inf"),
    /* bytea */
    T(PGCB_VALUE_T_BYTEA, "\\x0"), T(PGCB_VALUE_T_BYTEA, "\\x0g"), T(PGCB_VALUE_T_BYTEA, "\\"),
    T(PGCB_VALUE_T_BYTEA, "a\\9"), T(PGCB_VALUE_T_BYTEA, "\\400"),
    /* text arrays */
    T(PGCB_VALUE_T_ARRAY_INT, ""), T(PGCB_VALUE_T_ARRAY_INT, "{"), T(PGCB_VALUE_T_ARRAY_INT, "{1,}"),
    T(PGCB_VALUE_T_ARRAY_INT, "{,1}"), T(PGCB_VALUE_T_ARRAY_INT, "{1,x}"), T(PGCB_VALUE_T_ARRAY_INT, "{1} "),
    T(PGCB_VALUE_T_ARRAY_INT, "[1:3]={1,2}"), T(PGCB_VALUE_T_ARRAY_INT, "[1:2={1,2}"),
    T(PGCB_VALUE_T_ARRAY_INT, "{99999999999999999999}"), T(PGCB_VALUE_T_ARRAY_TEXT, "{\"a}"),
    T(PGCB_VALUE_T_ARRAY_TEXT, "{a\"b}"), T(PGCB_VALUE_T_ARRAY_TEXT, "{\"a\"b}"), T(PGCB_VALUE_T_ARRAY_TEXT, "{\"a\\}"),
    T(PGCB_VALUE_T_ARRAY_FLOAT8, "{1.5x}"), T(PGCB_VALUE_T_ARRAY_FLOAT8, "{ 1}"),
    {PGCB_VALUE_T_ARRAY_INT, "{{1,2},{3,4}}", 0, PGCB_VALUE_UNSUPPORTED},
    {PGCB_VALUE_T_ARRAY_TEXT, "[1:2][1:1]={{a},{b}}", 0, PGCB_VALUE_UNSUPPORTED},
    /* binary */
    B(PGCB_VALUE_B_TIMESTAMP, "1234567"), B(PGCB_VALUE_B_DATE, "123"), B(PGCB_VALUE_B_INTERVAL, "123456789012345"),
    B(PGCB_VALUE_B_TIME, "\x80\0\0\0\0\0\0\0"), B(PGCB_VALUE_B_UUID, "123456789012345"),
    B(PGCB_VALUE_B_JSONB, "\x02{}"), B(PGCB_VALUE_B_JSONB, ""),
    B(PGCB_VALUE_B_NUMERIC, "\0\0\0\0\0\0\0"),             /* too short */
    B(PGCB_VALUE_B_NUMERIC, "\0\1\0\0\0\0\0\0"),           /* 1 digit announced, none sent */
    B(PGCB_VALUE_B_NUMERIC, "\0\1\0\0\0\0\0\0\x27\x10"),   /* digit 10000 */
    B(PGCB_VALUE_B_NUMERIC, "\0\0\0\0\x80\0\0\0"),         /* bad sign */
    B(PGCB_VALUE_B_NUMERIC, "\0\1\0\0\xC0\0\0\0\0\1"),     /* NaN with digits */
    B(PGCB_VALUE_B_NUMERIC, "\0\0\0\0\0\0\x40\0"),         /* dscale > 0x3FFF */
    B(PGCB_VALUE_B_ARRAY_INT4, "\0\0\0\1\0\0\0\0\0\0\0\x17"),                       /* no dims */
    B(PGCB_VALUE_B_ARRAY_INT4, "\0\0\0\0\0\0\0\0\0\0\0\x14"),                       /* int8 elements */
    B(PGCB_VALUE_B_ARRAY_INT4, "\0\0\0\1\0\0\0\0\0\0\0\x17\0\0\0\1\0\0\0\1\0\0\0\x08"), /* element of 8 */
    B(PGCB_VALUE_B_ARRAY_INT4, "\0\0\0\1\0\0\0\0\0\0\0\x17\0\0\0\1\0\0\0\1\0\0\0\4\0\0\0"), /* short */
    B(PGCB_VALUE_B_ARRAY_INT4, "\0\0\0\0\0\0\0\0\0\0\0\x17\0"),                     /* trailing byte */
    B(PGCB_VALUE_B_ARRAY_TEXT, "\0\0\0\1\0\0\0\2\0\0\0\x19\0\0\0\0\0\0\0\1"),       /* flags 2 */
    B(PGCB_VALUE_B_ARRAY_TEXT, "\xff\xff\xff\xff\0\0\0\0\0\0\0\x19"),               /* ndim -1 */
    {PGCB_VALUE_B_ARRAY_INT8, "\0\0\0\2\0\0\0\0\0\0\0\x14\0\0\0\1\0\0\0\1\0\0\0\1\0\0\0\1", 28,
     PGCB_VALUE_UNSUPPORTED},
};

static void test_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        struct pgcb_sum s = {0x1234, 5};
        size_t len = bads[i].len ? bads[i].len : strlen(bads[i].p);
        int rc = pgcb_value_fold(&s, bads[i].k, bads[i].p, len, drvtest_c_locale);
        if (rc != bads[i].want || s.hash != 0x1234 || s.rows != 5)
            fail_msg("case %zu (kind %d, \"%.*s\"): %d, hash %llx; expected %d and no fold", i,
                     bads[i].k, (int)len, bads[i].p, rc, (unsigned long long)s.hash, bads[i].want);
    }
}

/* A few that must parse, the edges of the refusals above. */
static void test_accepted_edges(void **state)
{
    static const struct {
        enum pgcb_value_kind k;
        const char *p;
    } goods[] = {
        {PGCB_VALUE_T_TIME, "24:00:00"},
        {PGCB_VALUE_T_INTERVAL, "2562047788:00:54.775807"},
        {PGCB_VALUE_T_INTERVAL, "-2562047788:00:54.775808"},
        {PGCB_VALUE_T_INTERVAL, "-1 years +2 mons -3 days +04:05:06.000001"},
        {PGCB_VALUE_T_TIMESTAMPTZ, "1880-01-01 00:19:32+00:19:32"},
        {PGCB_VALUE_T_TIMESTAMP, "2000-01-01T00:00:00"},
        {PGCB_VALUE_T_BYTEA, "a\\\\b\\001"},
        {PGCB_VALUE_T_ARRAY_TEXT, "{\"\",NULL,\"NULL\",\"a\\\\b\",\"\\\"\"}"},
        {PGCB_VALUE_T_ARRAY_INT, "[-2:-1]={1,NULL}"},
        {PGCB_VALUE_T_NUMERIC, "-0.000"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof goods / sizeof goods[0]; i++) {
        struct pgcb_sum s = {0, 0};
        int rc = pgcb_value_fold(&s, goods[i].k, goods[i].p, strlen(goods[i].p), drvtest_c_locale);
        if (rc != 0)
            fail_msg("\"%s\" (kind %d): %d", goods[i].p, goods[i].k, rc);
    }
    /* -0.000 is zero: never negative */
    struct pgcb_sum a = {0, 0}, b = {0, 0};
    pgcb_value_fold(&a, PGCB_VALUE_T_NUMERIC, "-0.000", 6, drvtest_c_locale);
    pgcb_sum_numeric(&b, PGCB_NUMERIC_POS, 3, "0", 1);
    assert_true(a.hash == b.hash);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_accepted_edges),
    };
    return cmocka_run_group_tests(tests, drvtest_c_locale_setup, drvtest_c_locale_teardown);
}
