/*
 * test_conninfo.c -- a conninfo as recorded in the result never holds the
 * password, in either libpq syntax.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server.h"

static void check(const char *in, const char *want)
{
    char *out = pgcb_conninfo_redact(in);
    assert_string_equal(out, want);
    assert_null(strstr(out, "s3cret"));
    free(out);
}

static void test_redact(void **state)
{
    (void)state;
    check("host=/tmp port=5433 password=s3cret user=bob",
          "user='bob' host='/tmp' port='5433'");
    check("postgresql://bob:s3cret@localhost:5432/db?application_name=x",
          "user='bob' dbname='db' host='localhost' port='5432' application_name='x'");
    check("password='it\\'s s3cret'", "");
    check("", "");
    check("dbname='a b\\'c'", "dbname='a b\\'c'");
    char *out = pgcb_conninfo_redact("nonsense_key=1 password=s3cret");
    assert_string_equal(out, "(unparsable conninfo)");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_redact)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
