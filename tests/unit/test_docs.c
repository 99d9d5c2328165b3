/*
 * test_docs.c -- README.md and the docs/ pages stay true (no server): their links,
 * the files they name, their INI, JSON, C and shell examples, and the key
 * tables of the configuration reference against the runner's loader and the
 * built drivers (tests/lib/doccheck.h says what each check does). Then the
 * same checks on planted pages, each with one thing wrong, must say so: a
 * check that cannot fail would keep nothing true.
 *
 * Runs from the top of the checkout (tests/run.sh does); the programs and
 * drivers are $PGCB_BUILD's (default build/).
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../lib/doccheck.h"
#include "../lib/mdoc.h"

static struct doccheck ctx;
static struct mdoc *pages;
static size_t npages;

/* Every check of one kind over every page: no problem, or they are printed. */
static void no_problems(size_t (*check)(struct doccheck *, const struct mdoc *))
{
    doccheck_reset(&ctx);
    size_t n = 0;
    for (size_t i = 0; i < npages; i++)
        n += check(&ctx, &pages[i]);
    if (n)
        print_error("%s", ctx.problems);
    assert_int_equal(n, 0);
}

/* A planted page: parse it as `path`, run `check`, expect `want` problems
 * and each of the texts in the problems (NULL-terminated). */
static void planted(const char *path, const char *text,
                    size_t (*check)(struct doccheck *, const struct mdoc *), size_t want, ...)
{
    struct mdoc d;
    assert_int_equal(mdoc_parse(path, text, &d), 0);
    doccheck_reset(&ctx);
    size_t n = check(&ctx, &d);
    if (n != want)
        print_error("planted %s: %zu problems, expected %zu:\n%s", path, n, want, ctx.problems);
    assert_int_equal(n, want);
    va_list ap;
    va_start(ap, want);
    for (const char *s; (s = va_arg(ap, const char *)) != NULL;) {
        if (!strstr(ctx.problems, s))
            print_error("planted %s: no \"%s\" in:\n%s", path, s, ctx.problems);
        assert_non_null(strstr(ctx.problems, s));
    }
    va_end(ap);
    mdoc_free(&d);
    doccheck_reset(&ctx);
}

/* ---- the real pages ------------------------------------------------------------- */

static void test_pages_found(void **state)
{
    (void)state;
    assert_true(npages >= 10); /* README.md and the docs/ pages */
    assert_string_equal(pages[0].path, "README.md");
    /* The front door links every page of docs/. */
    for (size_t i = 1; i < npages; i++) {
        int linked = 0;
        for (size_t k = 0; k < pages[0].nlinks && !linked; k++) {
            const char *t = pages[0].links[k].target;
            size_t len = strcspn(t, "#");
            linked = strlen(pages[i].path) == len && strncmp(t, pages[i].path, len) == 0;
        }
        if (!linked)
            print_error("README.md does not link %s\n", pages[i].path);
        assert_true(linked);
    }
}

static void test_links(void **state)
{
    (void)state;
    no_problems(doccheck_links);
}

static void test_paths(void **state)
{
    (void)state;
    no_problems(doccheck_paths);
}

static void test_ini_examples(void **state)
{
    (void)state;
    size_t nini = 0;
    for (size_t i = 0; i < npages; i++)
        for (size_t k = 0; k < pages[i].nblocks; k++)
            nini += strcmp(pages[i].blocks[k].info, "ini") == 0;
    assert_true(nini >= 2); /* the complete example of configuration.md, the bridge's */
    no_problems(doccheck_ini);
}

static void test_json_examples(void **state)
{
    (void)state;
    no_problems(doccheck_json);
}

static void test_c_examples(void **state)
{
    (void)state;
    no_problems(doccheck_c);
}

static void test_sh_examples(void **state)
{
    (void)state;
    no_problems(doccheck_sh);
}

static void test_key_tables(void **state)
{
    (void)state;
    doccheck_reset(&ctx);
    size_t n = doccheck_keys(&ctx, pages, npages);
    if (n)
        print_error("%s", ctx.problems);
    assert_int_equal(n, 0);
}

/* ---- planted mistakes ------------------------------------------------------------ */

static void test_planted_links(void **state)
{
    (void)state;
    planted("docs/planted.md", "# Title\n\nSee [the other](no-such-page.md) and [x](#title).\n",
            doccheck_links, 1, "no-such-page.md", NULL);
    planted("docs/planted.md", "# Title\n\n[a](#no-such-heading), [b](verdicts.md#nope),\n"
            "[c](verdicts.md#the-winner), [d](../README.md#where-the-rest-is)\n",
            doccheck_links, 2, "planted.md:3: broken link '#no-such-heading'",
            "docs/verdicts.md has no heading with the anchor #nope", NULL);
    /* Not links: in code spans and fences; a link to a site is not checked. */
    planted("docs/planted.md", "`[a](nope.md)` and ``x [b](nope.md) y``\n\n```\n[c](nope.md)\n```\n"
            "[site](https://example.org/nope.md)\n", doccheck_links, 0, NULL);
}

static void test_planted_paths(void **state)
{
    (void)state;
    planted("docs/planted.md", "Run `build/runner -c conf/no-such.ini`; conf/bench.ini is there,\n"
            "and so is ../sql/benchmark_rows.sql; conf/*.ini are many. Not: sql/none.sql.\n",
            doccheck_paths, 2, "planted.md:1: conf/no-such.ini is named here but does not exist",
            "planted.md:2: sql/none.sql", NULL);
}

static void test_planted_ini(void **state)
{
    (void)state;
    /* An unknown key in a fragment, in a driver's own keys, and a bad section. */
    planted("docs/planted.md",
            "<!-- fragment -->\n```ini\n[bench]\ntime_ms = 100\ntime_msx = 1\n```\n"
            "<!-- fragment -->\n```ini\n[driver.x]\npath = ../build/drivers/null.so\nrows = 2\n"
            "sync = per_batch\n```\n"
            "<!-- fragment -->\n```ini\n[benchmark]\ncpus = 0\n```\n",
            doccheck_ini, 3, "unknown key 'time_msx' in [bench]",
            "unknown key 'sync' in [driver.x]: the driver ../build/drivers/null.so does not",
            "unknown section [benchmark]", NULL);
    /* A complete config with an unknown key: the runner's message, at the page's line. */
    planted("docs/planted.md",
            "Text.\n\n```ini\n[driver.n]\npath = ../build/drivers/null.so\n[query.q]\n"
            "sql = SELECT 1\nrows_expected = 1\n[suite.s]\n```\n",
            doccheck_ini, 1, "planted.md:8: ```ini block",
            "unknown key 'rows_expected' in [query.q]", NULL);
    planted("docs/planted.md",
            "```ini\n[driver.n]\npath = ../build/drivers/null.so\n[query.q]\nsql = SELECT 1\n"
            "[suite.s]\n```\n", doccheck_ini, 0, NULL);
}

static void test_planted_key_tables(void **state)
{
    (void)state;
    /* A config table that lacks most keys and names one the loader does not know. */
    struct mdoc d[2];
    assert_int_equal(mdoc_parse("docs/planted.md",
                                "<!-- keys: config -->\n| section | key | meaning |\n"
                                "|---|---|---|\n"
                                "| `[bench]` | `time_ms` | x |\n| | `time_budget` | x |\n"
                                "| `[query.NAME]` | `param1` .. `param64` | x |\n",
                                &d[0]), 0);
    /* A driver table with a key the driver does not have, and not its own. */
    assert_int_equal(mdoc_parse("docs/planted2.md",
                                "<!-- keys: driver null -->\n| key | meaning |\n|---|---|\n"
                                "| `rows` | x |\n| `rowz` | x |\n",
                                &d[1]), 0);
    doccheck_reset(&ctx);
    size_t n = doccheck_keys(&ctx, d, 2);
    const char *want[] = {
        "planted.md:5: config table: key 'time_budget' of [bench] is not one the loader knows",
        "config table: key 'queries' of [bench] is not documented",
        "config table: key 'sql' of [query] is not documented",
        "config table: no row for [background.NAME]",
        "planted2.md:5: keys of driver null: 'rowz' is not one of its options",
        "keys of driver null: its option 'fail_after' is not documented",
        "driver libpq_sync declares 1 option(s) and has no table marked "
        "<!-- keys: driver libpq_sync -->",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!strstr(ctx.problems, want[i]))
            print_error("no \"%s\" in:\n%s", want[i], ctx.problems);
        assert_non_null(strstr(ctx.problems, want[i]));
    }
    assert_true(n >= sizeof want / sizeof want[0]);
    mdoc_free(&d[0]);
    mdoc_free(&d[1]);
    doccheck_reset(&ctx);
}

static void test_planted_blocks(void **state)
{
    (void)state;
    planted("docs/planted.md",
            "```json\n{\"ok\": true,}\n```\n"
            "<!-- fragment -->\n```json\n{\"samples\": [1, ...]}\n```\n",
            doccheck_json, 1, "planted.md:2: ```json block", NULL);
    planted("docs/planted.md",
            "```c\n#include <pgcb/driver.h>\nint f(void) { return PGCB_NO_SUCH; }\n```\n",
            doccheck_c, 1, "```c block does not compile", "PGCB_NO_SUCH", NULL);
    planted("docs/planted.md",
            "```sh\nmake\n\nbuild/runner -c conf/bench.ini --list-drivers  # ok\n"
            "build/aggregate --format markdown --no-such-flag r.json > x.md && build/runner -Z\n"
            "echo --nope | cat   # not the runner's\n```\n",
            doccheck_sh, 2, "planted.md:5: aggregate --no-such-flag: not in aggregate --help",
            "planted.md:5: runner -Z", NULL);
}

/* ---- the Markdown reader --------------------------------------------------------- */

static void test_mdoc_anchors(void **state)
{
    (void)state;
    char s[128];
    mdoc_slug("Stopping once decided: `until = decided`", s, sizeof s);
    assert_string_equal(s, "stopping-once-decided-until--decided");
    mdoc_slug("`hello` \xe2\x80\x94 once, first", s, sizeof s);
    assert_string_equal(s, "hello--once-first");
    mdoc_slug("Client options (`options = KEY=VALUE ...`)", s, sizeof s);
    assert_string_equal(s, "client-options-options--keyvalue-");
    struct mdoc d;
    assert_int_equal(mdoc_parse("x.md", "# A\n## A\n```\n# not a heading\n```\n### A ##\n", &d), 0);
    assert_int_equal(d.nanchors, 3);
    assert_string_equal(d.anchors[0], "a");
    assert_string_equal(d.anchors[1], "a-1");
    assert_string_equal(d.anchors[2], "a-2");
    assert_int_equal(d.nblocks, 1);
    mdoc_free(&d);
}

static void test_mdoc_tables(void **state)
{
    (void)state;
    struct mdoc d;
    assert_int_equal(mdoc_parse("x.md", "<!-- one -->\n<!-- two -->\n| a | b |\n|---|:-:|\n"
                                        "| `x\\|y` | z |\n\ntext\n", &d), 0);
    assert_int_equal(d.ntables, 1);
    assert_int_equal(d.tables[0].nrows, 2);
    assert_int_equal(d.tables[0].nmarks, 2);
    assert_string_equal(d.tables[0].marks[1], "two");
    assert_string_equal(d.tables[0].cells[1][0], "`x|y`");
    assert_int_equal(d.tables[0].lines[1], 5);
    mdoc_free(&d);
}

/* ---- setup ----------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    char err[1024];
    if (doccheck_init(&ctx, err, sizeof err) != 0) {
        fprintf(stderr, "test_docs: %s\n", err);
        return -1;
    }
    glob_t g;
    if (glob("docs/*.md", 0, NULL, &g) != 0) {
        fprintf(stderr, "test_docs: no docs/*.md here: run from the top of the checkout\n");
        return -1;
    }
    npages = g.gl_pathc + 1;
    pages = calloc(npages, sizeof *pages);
    int bad = !pages || mdoc_read("README.md", &pages[0]) != 0;
    for (size_t i = 0; !bad && i < g.gl_pathc; i++)
        bad = mdoc_read(g.gl_pathv[i], &pages[i + 1]) != 0;
    globfree(&g);
    if (bad) {
        fprintf(stderr, "test_docs: cannot read README.md or a docs/ page\n");
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < npages; i++)
        mdoc_free(&pages[i]);
    free(pages);
    doccheck_fini(&ctx);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pages_found),
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_ini_examples),
        cmocka_unit_test(test_json_examples),
        cmocka_unit_test(test_c_examples),
        cmocka_unit_test(test_sh_examples),
        cmocka_unit_test(test_key_tables),
        cmocka_unit_test(test_planted_links),
        cmocka_unit_test(test_planted_paths),
        cmocka_unit_test(test_planted_ini),
        cmocka_unit_test(test_planted_key_tables),
        cmocka_unit_test(test_planted_blocks),
        cmocka_unit_test(test_mdoc_anchors),
        cmocka_unit_test(test_mdoc_tables),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
