/*
 * test_jitmap.c -- a JIT's perf map made fit for folding (runner/profile/jitmap.h):
 * of overlapping lines the last one written stays (the code that lives
 * there now), lines that overlap nothing stay in their order, what does not
 * parse stays; and the profile's safe file names (profile.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/jitmap.h"
#include "profile/profile.h"

static void test_last_wins(void **state)
{
    (void)state;
    const char in[] = "1000 100 Eval:~ node:net:1:1\n"          /* freed, then reused: */
                      "2000 10 JS:*parse parser.js:26:10\n"     /* alone: kept */
                      "1040 20 JS:*getTypeParser a.js:30:50\n"  /* over the first */
                      "3000 8 Builtin:Foo\n"
                      "3004 8 JS:^late b.js:1:1\n";              /* over Builtin:Foo */
    size_t dropped = 9;
    char *out = pgcb_jitmap_filter(in, strlen(in), &dropped);
    assert_string_equal(out, "2000 10 JS:*parse parser.js:26:10\n"
                             "1040 20 JS:*getTypeParser a.js:30:50\n"
                             "3004 8 JS:^late b.js:1:1\n");
    assert_int_equal(dropped, 2);
    free(out);
}

static void test_nothing_to_drop(void **state)
{
    (void)state;
    const char in[] = "10 10 a\n20 10 b\nnot a line\n30 5 c"; /* touching, not overlapping */
    size_t dropped = 9;
    char *out = pgcb_jitmap_filter(in, strlen(in), &dropped);
    assert_string_equal(out, in);
    assert_int_equal(dropped, 0);
    free(out);
    out = pgcb_jitmap_filter("", 0, &dropped);
    assert_string_equal(out, "");
    assert_int_equal(dropped, 0);
    free(out);
}

static void test_safe_name(void **state)
{
    (void)state;
    char buf[64];
    pgcb_profile_safe_name("seq/uential.limit 1.d1", buf, sizeof buf);
    assert_string_equal(buf, "seq_uential.limit_1.d1");
    pgcb_profile_safe_name("pg-native_2", buf, sizeof buf);
    assert_string_equal(buf, "pg-native_2");
    pgcb_profile_safe_name("abcdef", buf, 4);
    assert_string_equal(buf, "abc");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_last_wins),
        cmocka_unit_test(test_nothing_to_drop),
        cmocka_unit_test(test_safe_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
