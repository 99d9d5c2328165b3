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

#include "server/server.h"

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

static void merged(const char *base, const char *extra, const char *want)
{
    char err[256] = "";
    char *out = pgcb_conninfo_merge(base, extra, err, sizeof err);
    assert_non_null(out);
    assert_string_equal(out, want);
    free(out);
}

/* extra's keys win, base's others stay, a URI base works, and a bad string
 * is one line that quotes no password. */
static void test_merge(void **state)
{
    char err[256] = "";
    (void)state;
    merged("host=/tmp port=5433 user=bob", "host=127.0.0.1 sslmode=require",
           "user='bob' host='127.0.0.1' port='5433' sslmode='require'");
    merged("postgresql://bob@localhost:5432/db", "user=alice",
           "user='alice' dbname='db' host='localhost' port='5432'");
    merged("", NULL, "");
    merged(NULL, "dbname='a b\\'c'", "dbname='a b\\'c'");
    assert_null(pgcb_conninfo_merge("host=x", "bogus=1", err, sizeof err));
    assert_non_null(strstr(err, "bogus"));
    assert_null(pgcb_conninfo_merge("password=s3cret nonsense", "", err, sizeof err));
    assert_null(strstr(err, "s3cret"));
    assert_non_null(strstr(err, "may hold a password"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_redact), cmocka_unit_test(test_merge)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
