/*
 * test_html.c -- the HTML report's C side (common/html.h), no browser:
 *
 *   - pgcb_html_script_json(): '<', '>', '&', U+2028 and U+2029 escaped,
 *     every other byte (other UTF-8 too) kept, and the result parses back
 *     to the same strings;
 *   - pgcb_html_page(): hostile strings in the data ("</script>", "<!--",
 *     quotes, markup) never end the data block: the page holds exactly its
 *     four </script> and no "<!--", and the block parses back to the data;
 *   - pgcb_html_run_json() on tests/aggregate/c.json: each group's title,
 *     verdict line and marks as report.h words them (" (FAILED)",
 *     " (not run)", " (reference)");
 *   - pgcb_html_write(): the page written whole, or a one-line error naming
 *     the path and nothing left behind.
 * tests/report/report_page.js checks the page itself in a browser.
 */
#include <dirent.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "html.h"
#include "report.h"
#include "result.h"

static void check_escape(const char *in, const char *want)
{
    char *got = pgcb_html_script_json(in);
    assert_string_equal(got, want);
    free(got);
}

static void test_escape(void **state)
{
    (void)state;
    check_escape("", "");
    check_escape("plain \"text\" \\n", "plain \"text\" \\n");
    check_escape("</script>", "\\u003c/script\\u003e");
    check_escape("<!--", "\\u003c!--");
    check_escape("a&b", "a\\u0026b");
    check_escape("x\xe2\x80\xa8y\xe2\x80\xa9z", "x\\u2028y\\u2029z");
    /* other UTF-8, and the bytes U+2028 starts with in another character */
    check_escape("caf\xc3\xa9 \xe2\x80\x94 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x80\x94 \xe2\x82\xac \xf0\x9f\x98\x80");
    check_escape("\xe2\x80", "\xe2\x80"); /* a cut sequence at the end is kept as is */
}

/* The strings of the hostile-strings test, through JSON and the escaping,
 * back to themselves. */
static const char *const hostile[] = {
    "</script><img src=x onerror=\"alert(1)\">",
    "<!-- --></SCRIPT ><b>bold</b>",
    "'\"&amp;&lt;",
    "line\xe2\x80\xa8separator\xe2\x80\xa9paragraph",
};

static json_t *hostile_data(void)
{
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++)
        json_array_append_new(a, json_string(hostile[i]));
    return json_pack("{s:s, s:o, s:n}", "generator", hostile[0], "runs", a, "combined");
}

static void test_escape_round_trip(void **state)
{
    (void)state;
    json_t *data = hostile_data();
    char *json = json_dumps(data, JSON_COMPACT);
    char *safe = pgcb_html_script_json(json);
    assert_null(strpbrk(safe, "<>&"));
    assert_null(strstr(safe, "\xe2\x80\xa8"));
    assert_null(strstr(safe, "\xe2\x80\xa9"));
    json_error_t e;
    json_t *back = json_loads(safe, 0, &e);
    assert_non_null(back);
    assert_true(json_equal(back, data));
    json_decref(back);
    free(safe);
    free(json);
    json_decref(data);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_page(void **state)
{
    (void)state;
    json_t *data = hostile_data();
    char *page = pgcb_html_page(data);
    assert_non_null(page);
    assert_int_equal(strncmp(page, "<!DOCTYPE html>", 15), 0);
    /* the data block, and the three scripts: d3, Plot, the page's own */
    assert_int_equal(count(page, "</script>"), 4);
    assert_int_equal(count(page, "\n<script>\n"), 3);
    assert_null(strstr(page, "<!--"));
    assert_null(strstr(page, "<img"));
    assert_non_null(strstr(page, "Content-Security-Policy"));
    const char *open = "<script type=\"application/json\" id=\"pgcb-data\">";
    char *start = strstr(page, open);
    assert_non_null(start);
    start += strlen(open);
    char *end = strstr(start, "</script>");
    assert_non_null(end);
    json_error_t e;
    json_t *back = json_loadb(start, (size_t)(end - start), 0, &e);
    assert_non_null(back);
    assert_true(json_equal(back, data));
    json_decref(back);
    free(page);
    json_decref(data);
}

static void test_run_json(void **state)
{
    (void)state;
    struct pgcb_result r;
    char err[512];
    assert_int_equal(pgcb_result_read("tests/aggregate/c.json", &r, err, sizeof err), 0);
    struct pgcb_html_run run = {&r, NULL, "tests/aggregate/c.json"};
    json_t *o = pgcb_html_run_json(&run);
    assert_non_null(o);
    char *label = pgcb_result_label(&r);
    assert_string_equal(json_string_value(json_object_get(o, "label")), label);
    free(label);
    json_t *groups = json_object_get(o, "groups");
    assert_int_equal(json_array_size(groups), r.ngroups);
    for (size_t g = 0; g < r.ngroups; g++) {
        json_t *one = json_array_get(groups, g);
        char want[1024], title[256];
        pgcb_report_verdict_line(want, sizeof want, &r, g);
        assert_string_equal(json_string_value(json_object_get(one, "verdict")), want);
        snprintf(title, sizeof title, "%s / %s  (", r.groups[g].suite, r.groups[g].query);
        assert_int_equal(strncmp(json_string_value(json_object_get(one, "title")), title, strlen(title)), 0);
        json_t *marks = json_object_get(one, "marks");
        assert_int_equal(json_array_size(marks), r.ndrivers);
        for (size_t d = 0; d < r.ndrivers; d++) {
            snprintf(want, sizeof want, "%s%s", pgcb_report_mark(&r, g, d), pgcb_report_variant_mark(&r, d));
            assert_string_equal(json_string_value(json_array_get(marks, d)), want);
        }
    }
    /* c.json: rawwire (driver 1) FAILED in group 2, group 4 not run, null a reference */
    assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(groups, 1), "marks"), 1)), " (FAILED)");
    assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(groups, 3), "marks"), 0)), " (not run)");
    assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(groups, 0), "marks"), 3)), " (reference)");
    json_t *res = json_object_get(o, "result");
    assert_int_equal(json_integer_value(json_object_get(res, "schema_version")), PGCB_RESULT_SCHEMA_VERSION);
    assert_non_null(json_object_get(res, "rankings"));
    json_decref(o);
    pgcb_result_free(&r);
}

static void test_write(void **state)
{
    (void)state;
    char dir[] = "/tmp/pgcb-html-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct pgcb_result r;
    char err[512], path[600];
    assert_int_equal(pgcb_result_read("tests/aggregate/a.json", &r, err, sizeof err), 0);
    struct pgcb_html_run run = {&r, "run A", NULL};
    snprintf(path, sizeof path, "%s/page.html", dir);
    assert_int_equal(pgcb_html_write(path, "test", &run, 1, NULL, err, sizeof err), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char head[16] = "";
    assert_int_equal(fread(head, 1, 15, f), 15);
    fclose(f);
    assert_string_equal(head, "<!DOCTYPE html>");
    unlink(path);
    snprintf(path, sizeof path, "%s/missing/page.html", dir);
    assert_int_equal(pgcb_html_write(path, "test", &run, 1, NULL, err, sizeof err), -1);
    char want[700];
    snprintf(want, sizeof want, "%s: cannot write: No such file or directory", path);
    assert_string_equal(err, want);
    /* nothing left behind: the directory is empty again */
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    size_t entries = 0;
    for (struct dirent *de; (de = readdir(dp));)
        entries += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(dp);
    assert_int_equal(entries, 0);
    rmdir(dir);
    pgcb_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),         cmocka_unit_test(test_escape_round_trip),
        cmocka_unit_test(test_page),           cmocka_unit_test(test_run_json),
        cmocka_unit_test(test_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
