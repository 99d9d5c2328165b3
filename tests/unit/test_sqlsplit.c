/*
 * test_sqlsplit.c -- statements split on ';' outside quotes, dollar quotes
 * and comments, each with the line it starts on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "config/sqlsplit.h"

struct got {
    char text[8][128];
    int line[8];
    int n;
};

static int collect(void *user, const char *stmt, int line)
{
    struct got *g = user;
    if (g->n == 8)
        return 9;
    snprintf(g->text[g->n], sizeof g->text[0], "%s", stmt);
    g->line[g->n++] = line;
    return 0;
}

static void test_split(void **state)
{
    (void)state;
    const char *sql = "-- header; not a statement\n"
                      "CREATE TABLE t (a text);\n"
                      "\n"
                      "INSERT INTO t VALUES ('a;b''c');  INSERT INTO t VALUES (E'x\\';y');\n"
                      "/* block; /* nested; */ still */ SELECT \"we;ird\" FROM t;\n"
                      "DO $body$ BEGIN PERFORM 1; END $body$;\n"
                      "SELECT $1::int, $$;$$\n";
    struct got g = {0};
    int bad = 0;
    assert_int_equal(pgcb_sql_split(sql, collect, &g, &bad), 0);
    assert_int_equal(g.n, 6);
    assert_string_equal(g.text[0], "-- header; not a statement\nCREATE TABLE t (a text)");
    assert_int_equal(g.line[0], 1);
    assert_string_equal(g.text[1], "INSERT INTO t VALUES ('a;b''c')");
    assert_int_equal(g.line[1], 4);
    assert_string_equal(g.text[2], "INSERT INTO t VALUES (E'x\\';y')");
    assert_int_equal(g.line[2], 4);
    assert_string_equal(g.text[3], "/* block; /* nested; */ still */ SELECT \"we;ird\" FROM t");
    assert_int_equal(g.line[3], 5);
    assert_string_equal(g.text[4], "DO $body$ BEGIN PERFORM 1; END $body$");
    assert_int_equal(g.line[4], 6);
    assert_string_equal(g.text[5], "SELECT $1::int, $$;$$");
    assert_int_equal(g.line[5], 7);
}

static void test_empty_and_comments(void **state)
{
    (void)state;
    struct got g = {0};
    int bad = 0;
    assert_int_equal(pgcb_sql_split("  ;\n-- only a comment;\n;;", collect, &g, &bad), 0);
    assert_int_equal(g.n, 0);
}

static void test_unterminated(void **state)
{
    (void)state;
    struct got g = {0};
    int bad = 0;
    assert_int_equal(pgcb_sql_split("SELECT 1;\nSELECT 'open;\n", collect, &g, &bad), -1);
    assert_int_equal(bad, 2);
    g.n = 0;
    assert_int_equal(pgcb_sql_split("SELECT 1;\n\n/* never closed", collect, &g, &bad), -1);
    assert_int_equal(bad, 3);
    g.n = 0;
    assert_int_equal(pgcb_sql_split("SELECT $a$ x", collect, &g, &bad), -1);
    assert_int_equal(bad, 1);
}

static int stop_at_second(void *user, const char *stmt, int line)
{
    (void)stmt;
    (void)line;
    return ++*(int *)user == 2 ? 7 : 0;
}

static void test_callback_stops(void **state)
{
    (void)state;
    int calls = 0, bad = 0;
    assert_int_equal(pgcb_sql_split("a; b; c;", stop_at_second, &calls, &bad), 7);
    assert_int_equal(calls, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_empty_and_comments),
        cmocka_unit_test(test_unterminated),
        cmocka_unit_test(test_callback_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
