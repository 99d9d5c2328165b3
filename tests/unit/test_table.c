/* test_table.c -- unit tests for common/table.c (literal expected output). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "table.h"

/*
 * The 2x3 table used below. Column widths (displayed characters):
 *   Driver:      max("Driver" 6, "libpq_sync" 10, "rawwire" 7)  = 10
 *   Median (ns): max("Median (ns)" 11, "149870" 6, "137410" 6)  = 11, right
 *   RME:         max("RME" 3, "1 ± 2%" 6 (7 bytes), "0.5%" 4)   = 6
 * Each cell is padded to the width plus one space each side, so the rules
 * have 12, 13 and 8 horizontal glyphs.
 */
static struct pgcb_table *make_2x3(void)
{
    const char *const hdr[] = {"Driver", "Median (ns)", "RME"};
    const char *const r1[] = {"libpq_sync", "149870", "1 ± 2%"};
    const char *const r2[] = {"rawwire", "137410", "0.5%"};
    struct pgcb_table *t = pgcb_table_new(3, hdr);

    assert_non_null(t);
    assert_int_equal(pgcb_table_set_align(t, 1, PGCB_TABLE_RIGHT), 0);
    assert_int_equal(pgcb_table_add_row(t, r1), 0);
    assert_int_equal(pgcb_table_add_row(t, r2), 0);
    return t;
}

static void expect_render(const struct pgcb_table *t, const char *expected)
{
    char *s = pgcb_table_render(t);
    assert_non_null(s);
    assert_string_equal(s, expected);
    free(s);
}

static void test_box(void **state)
{
    (void)state;
    struct pgcb_table *t = make_2x3();
    expect_render(t,
        "┌────────────┬─────────────┬────────┐\n"
        "│ Driver     │ Median (ns) │ RME    │\n"
        "├────────────┼─────────────┼────────┤\n"
        "│ libpq_sync │      149870 │ 1 ± 2% │\n"
        "│ rawwire    │      137410 │ 0.5%   │\n"
        "└────────────┴─────────────┴────────┘\n");
    pgcb_table_free(t);
}

static void test_ascii(void **state)
{
    (void)state;
    struct pgcb_table *t = make_2x3();
    assert_int_equal(pgcb_table_set_style(t, PGCB_TABLE_ASCII), 0);
    expect_render(t,
        "+------------+-------------+--------+\n"
        "| Driver     | Median (ns) | RME    |\n"
        "+------------+-------------+--------+\n"
        "| libpq_sync |      149870 | 1 ± 2% |\n"
        "| rawwire    |      137410 | 0.5%   |\n"
        "+------------+-------------+--------+\n");
    pgcb_table_free(t);
}

static void test_markdown(void **state)
{
    (void)state;
    struct pgcb_table *t = make_2x3();
    assert_int_equal(pgcb_table_set_style(t, PGCB_TABLE_MARKDOWN), 0);
    /* Right column: 11 + 1 dashes and ':' (= width + 2). */
    expect_render(t,
        "| Driver     | Median (ns) | RME    |\n"
        "|------------|------------:|--------|\n"
        "| libpq_sync |      149870 | 1 ± 2% |\n"
        "| rawwire    |      137410 | 0.5%   |\n");
    pgcb_table_free(t);
}

/*
 * Emoji width and separators. Widths: Rank = max(4, "🥇" 2, "2" 1) = 4,
 * right-aligned, so "🥇" gets 2 spaces of padding; Who = max(3, 1, 2) = 3.
 */
static void test_separator_emoji(void **state)
{
    (void)state;
    const char *const hdr[] = {"Rank", "Who"};
    struct pgcb_table *t = pgcb_table_new(2, hdr);

    assert_non_null(t);
    assert_int_equal(pgcb_table_set_align(t, 0, PGCB_TABLE_RIGHT), 0);
    assert_int_equal(pgcb_table_add_row(t, (const char *const[]){"🥇", "a"}), 0);
    assert_int_equal(pgcb_table_add_separator(t), 0);
    assert_int_equal(pgcb_table_add_row(t, (const char *const[]){"2", "bb"}), 0);
    expect_render(t,
        "┌──────┬─────┐\n"
        "│ Rank │ Who │\n"
        "├──────┼─────┤\n"
        "│   🥇 │ a   │\n"
        "├──────┼─────┤\n"
        "│    2 │ bb  │\n"
        "└──────┴─────┘\n");
    /* Markdown drops the separator. */
    assert_int_equal(pgcb_table_set_style(t, PGCB_TABLE_MARKDOWN), 0);
    expect_render(t,
        "| Rank | Who |\n"
        "|-----:|-----|\n"
        "|   🥇 | a   |\n"
        "|    2 | bb  |\n");
    pgcb_table_free(t);
}

/* Markdown writes '|' as "\|" (width 4 for "a|b"); NULL cells are "". */
static void test_markdown_escape_and_null(void **state)
{
    (void)state;
    struct pgcb_table *t = pgcb_table_new(2, (const char *const[]){"a|b", NULL});

    assert_non_null(t);
    assert_int_equal(pgcb_table_add_row(t, (const char *const[]){"x", "y"}), 0);
    assert_int_equal(pgcb_table_set_style(t, PGCB_TABLE_MARKDOWN), 0);
    expect_render(t,
        "| a\\|b |   |\n"
        "|------|---|\n"
        "| x    | y |\n");
    pgcb_table_free(t);
}

/* Header only: no rule under the header in BOX/ASCII. */
static void test_no_rows(void **state)
{
    (void)state;
    struct pgcb_table *t = pgcb_table_new(1, (const char *const[]){"h"});

    assert_non_null(t);
    expect_render(t,
        "┌───┐\n"
        "│ h │\n"
        "└───┘\n");
    assert_int_equal(pgcb_table_set_style(t, PGCB_TABLE_MARKDOWN), 0);
    expect_render(t,
        "| h |\n"
        "|---|\n");
    pgcb_table_free(t);
}

static void test_print_matches_render(void **state)
{
    (void)state;
    struct pgcb_table *t = make_2x3();
    char *buf = NULL, *s;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(pgcb_table_print(t, f), 0);
    assert_int_equal(fclose(f), 0);
    s = pgcb_table_render(t);
    assert_non_null(s);
    assert_string_equal(buf, s);
    free(s);
    free(buf);
    pgcb_table_free(t);
}

static void test_text_width(void **state)
{
    (void)state;
    assert_int_equal(pgcb_table_text_width(""), 0);
    assert_int_equal(pgcb_table_text_width("abc"), 3);
    assert_int_equal(pgcb_table_text_width("1 ± 2%"), 6);     /* 7 bytes */
    assert_int_equal(pgcb_table_text_width("🥇"), 2);          /* U+1F947 */
    assert_int_equal(pgcb_table_text_width("─┼"), 2);         /* 3 bytes each */
    assert_int_equal(pgcb_table_text_width("\xF0\x9F\x8C\x80"), 2); /* U+1F300 */
    assert_int_equal(pgcb_table_text_width("\xF0\x9F\xAB\xBF"), 2); /* U+1FAFF */
    assert_int_equal(pgcb_table_text_width("\xF0\x9F\x8B\xBF"), 1); /* U+1F2FF */
    /* Invalid bytes count 1 each: a lone continuation byte; a 3-byte lead
     * with only one continuation byte (1 + 1), then 'a' (1) = 3. */
    assert_int_equal(pgcb_table_text_width("\x80"), 1);
    assert_int_equal(pgcb_table_text_width("\xE2\x94" "a"), 3);
}

static void test_errors(void **state)
{
    (void)state;
    const char *const hdr[] = {"a", "b"};
    struct pgcb_table *t;

    errno = 0;
    assert_null(pgcb_table_new(0, hdr));
    assert_int_equal(errno, EINVAL);
    assert_null(pgcb_table_new(2, NULL));
    t = pgcb_table_new(2, hdr);
    assert_non_null(t);
    assert_int_equal(pgcb_table_set_align(t, 2, PGCB_TABLE_RIGHT), -1);
    assert_int_equal(pgcb_table_set_align(t, 0, (enum pgcb_table_align)7), -1);
    assert_int_equal(pgcb_table_set_style(t, (enum pgcb_table_style)9), -1);
    /* Many rows force the row array to grow (8, 16, 32, ...). */
    for (int i = 0; i < 100; i++)
        assert_int_equal(pgcb_table_add_row(t, (const char *const[]){"x", "y"}), 0);
    pgcb_table_free(t);
    pgcb_table_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box),
        cmocka_unit_test(test_ascii),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_separator_emoji),
        cmocka_unit_test(test_markdown_escape_and_null),
        cmocka_unit_test(test_no_rows),
        cmocka_unit_test(test_print_matches_render),
        cmocka_unit_test(test_text_width),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
