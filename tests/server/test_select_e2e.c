/*
 * test_select_e2e.c -- drop-in drivers and quick selection, end to end: the
 * real runner on a tiny config with a [bench] driver_dir, run with
 * --driver, --only, --suite, --query, -T and --queries; the result JSON must
 * hold exactly the selected drivers, suites and queries and the budget, and
 * record what was left out and where the budget came from (over the
 * environment). Also: --list-drivers honours the same flags, a bad flag is
 * one line and exit 1 before anything runs, and a journal written with one
 * selection is refused by --resume with another.
 *
 * Each run is tiny (a 200 ms budget, 30 queries per order, one group).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "result.h"
#include "../lib/e2e.h"

/* The config: rawwire from a section; driver_dir dd/ with floor.so and
 * libpq_sync.so (symlinks to the build's); two suites over two queries. */
static const char *write_config(void)
{
    char dd[600], link[700], target[600];
    snprintf(dd, sizeof dd, "%s/dd", e2e_tmp);
    mkdir(dd, 0755);
    const char *const so[] = {"floor", "libpq_sync"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(link, sizeof link, "%s/%s.so", dd, so[i]);
        snprintf(target, sizeof target, "%s/drivers/%s.so", e2e_build, so[i]);
        unlink(link);
        assert_int_equal(symlink(target, link), 0);
    }
    char head[1024], body[2048];
    snprintf(head, sizeof head,
             "[bench]\ntime_ms = 5000\nqueries = 1000\nwarmup_ms = 0\norders = 2\n"
             "driver_dir = dd\n[server]\nsetup = %s/sql/benchmark_rows.sql\n", e2e_top);
    snprintf(body, sizeof body,
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n"
             "[query.limit_1]\nsql = SELECT * FROM benchmark_rows ORDER BY id LIMIT 1\n"
             "rows = 1\n"
             "[query.limit_100]\nsql = SELECT * FROM benchmark_rows ORDER BY id LIMIT 100\n"
             "rows = 100\n"
             "[suite.sequential]\ndepth = 1\nqueries = limit_1 limit_100\n"
             "[suite.pipelined]\ndepth = 3\nqueries = limit_1 limit_100\n",
             e2e_build);
    return e2e_write_file("select", head, body);
}

static json_t *load_json(const char *path)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j)
        fail_msg("%s: %s", path, je.text);
    return j;
}

/* The strings of JSON array a, joined by ',' ("" when empty, "null"). */
static void joined(json_t *a, char *buf, size_t n)
{
    buf[0] = '\0';
    if (json_is_null(a)) {
        snprintf(buf, n, "null");
        return;
    }
    assert_true(json_is_array(a));
    for (size_t i = 0; i < json_array_size(a); i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? "," : "",
                 json_string_value(json_array_get(a, i)));
}

static void expect_list(json_t *a, const char *want)
{
    char got[512];
    joined(a, got, sizeof got);
    assert_string_equal(got, want);
}

/* Everything at once: the JSON has exactly what was selected. */
static void test_selected_run(void **state)
{
    (void)state;
    const char *ini = write_config();
    char extra[600];
    snprintf(extra, sizeof extra, "extra=%s/drivers/libpq_pipeline.so", e2e_build);
    const char *out = e2e_json_path("selected");
    const char *args[] = {"-c", ini, "-o", out, "--driver", extra, "--only", "rawwire,extra",
                          "--only", "libpq_sync", "--suite", "pipelined", "--query", "limit_1",
                          "-T", "0.2", "--queries", "30", NULL};
    /* the environment is overridden by the flags */
    const char *const env[] = {"BENCH_TIME_MS=7000", "BENCH_QUERIES=900", "PGCB_CONNINFO", NULL};
    struct e2e_run r = e2e_run_args(args, env);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "pipelined / limit_1"));
    assert_null(strstr(r.out, "sequential / "));
    assert_null(strstr(r.out, "/ limit_100"));

    json_t *j = load_json(out);
    json_t *drivers = json_object_get(j, "drivers");
    char names[256] = "";
    for (size_t i = 0; i < json_array_size(drivers); i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "," : "",
                 json_string_value(json_object_get(json_array_get(drivers, i), "name")));
    /* config order: the section, driver_dir's (sorted), --driver's */
    assert_string_equal(names, "rawwire,libpq_sync,extra");
    json_t *groups = json_object_get(j, "groups");
    assert_int_equal(json_array_size(groups), 1);
    json_t *g = json_array_get(groups, 0);
    assert_string_equal(json_string_value(json_object_get(g, "suite")), "pipelined");
    assert_string_equal(json_string_value(json_object_get(g, "query")), "limit_1");
    assert_int_equal(json_integer_value(json_object_get(g, "depth")), 3);
    json_t *results = json_object_get(g, "results");
    assert_int_equal(json_array_size(results), 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(results, i),
                                                              "status")), "ok");
    json_t *budget = json_object_get(j, "budget");
    assert_int_equal(json_integer_value(json_object_get(budget, "time_ms")), 200);
    assert_int_equal(json_integer_value(json_object_get(budget, "queries")), 30);
    assert_string_equal(json_string_value(json_object_get(budget, "time_ms_source")), "-T");
    assert_string_equal(json_string_value(json_object_get(budget, "queries_source")),
                        "--queries");
    json_t *sel = json_object_get(j, "selection");
    assert_true(json_is_object(sel));
    char want[600];
    snprintf(want, sizeof want, "%s/dd", e2e_tmp);
    assert_string_equal(json_string_value(json_object_get(sel, "driver_dir")), want);
    json_t *added = json_object_get(sel, "added_drivers");
    assert_int_equal(json_array_size(added), 3);
    const char *const added_want[][2] = {
        {"floor", "driver_dir"}, {"libpq_sync", "driver_dir"}, {"extra", "--driver"}};
    for (size_t i = 0; i < 3; i++) {
        json_t *a = json_array_get(added, i);
        assert_string_equal(json_string_value(json_object_get(a, "name")), added_want[i][0]);
        assert_string_equal(json_string_value(json_object_get(a, "from")), added_want[i][1]);
    }
    expect_list(json_object_get(sel, "only"), "rawwire,extra,libpq_sync");
    expect_list(json_object_get(sel, "suites"), "pipelined");
    expect_list(json_object_get(sel, "queries"), "limit_1");
    json_t *left = json_object_get(sel, "left_out");
    expect_list(json_object_get(left, "drivers"), "floor");
    expect_list(json_object_get(left, "suites"), "sequential");
    expect_list(json_object_get(left, "queries"), "limit_100");
    json_decref(j);

    /* The same file read back by the result reader. */
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ndrivers, 3);
    assert_int_equal(res.ngroups, 1);
    assert_int_equal(res.time_ms, 200);
    assert_int_equal(res.selection.left_out_drivers.n, 1);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* Without budget flags the environment wins over the file, and says so;
 * without any flag there is nothing left out. */
static void test_environment_budget(void **state)
{
    (void)state;
    const char *ini = write_config();
    const char *out = e2e_json_path("env");
    const char *args[] = {"-c", ini, "-o", out, "--only", "rawwire", "--suite", "sequential",
                          "--query", "limit_1", NULL};
    const char *const env[] = {"BENCH_TIME_MS=150", "BENCH_QUERIES=20", "PGCB_CONNINFO", NULL};
    struct e2e_run r = e2e_run_args(args, env);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    json_t *j = load_json(out);
    json_t *budget = json_object_get(j, "budget");
    assert_int_equal(json_integer_value(json_object_get(budget, "time_ms")), 150);
    assert_int_equal(json_integer_value(json_object_get(budget, "queries")), 20);
    assert_string_equal(json_string_value(json_object_get(budget, "time_ms_source")),
                        "BENCH_TIME_MS");
    assert_string_equal(json_string_value(json_object_get(budget, "queries_source")),
                        "BENCH_QUERIES");
    assert_int_equal(json_array_size(json_object_get(j, "drivers")), 1);
    assert_int_equal(json_array_size(json_object_get(j, "groups")), 1);
    json_t *left = json_object_get(json_object_get(j, "selection"), "left_out");
    expect_list(json_object_get(left, "drivers"), "floor,libpq_sync");
    json_decref(j);
    e2e_run_free(&r);
}

/* --list-drivers lists what the run would measure. */
static void test_list_drivers(void **state)
{
    (void)state;
    const char *ini = write_config();
    char extra[600];
    snprintf(extra, sizeof extra, "extra=%s/drivers/null.so", e2e_build);
    const char *args[] = {"-c", ini, "--list-drivers", "--driver", extra, "--only",
                          "extra,floor", NULL};
    struct e2e_run r = e2e_run_args(args, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\nextra: null "));
    assert_true(strncmp(r.out, "floor: floor ", 13) == 0);
    assert_null(strstr(r.out, "rawwire:"));
    assert_null(strstr(r.out, "libpq_sync:"));
    e2e_run_free(&r);
    const char *all[] = {"-c", ini, "--list-drivers", NULL};
    r = e2e_run_args(all, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "rawwire: rawwire "));
    assert_non_null(strstr(r.out, "\nfloor: floor "));
    assert_non_null(strstr(r.out, "\nlibpq_sync: libpq_sync "));
    e2e_run_free(&r);
}

/* A bad flag: exit 1, one line on stderr, nothing on stdout, no result. */
static void expect_bad(const char *const *flags, const char *want_fmt)
{
    const char *ini = write_config();
    const char *out = e2e_json_path("bad");
    const char *args[32] = {"-c", ini, "-o", out};
    size_t n = 4;
    for (size_t i = 0; flags[i]; i++)
        args[n++] = flags[i];
    args[n] = NULL;
    struct e2e_run r = e2e_run_args(args, NULL);
    char want[1024];
    snprintf(want, sizeof want, want_fmt, ini);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, want);
    assert_string_equal(r.out, "");
    assert_false(e2e_exists(out));
    e2e_run_free(&r);
}

static void test_bad_flags(void **state)
{
    (void)state;
    expect_bad((const char *[]){"--only", "nope", NULL},
               "runner: --only: no driver nope (the config's drivers: rawwire, floor, "
               "libpq_sync)\n");
    expect_bad((const char *[]){"--suite", "nope", NULL},
               "runner: --suite: no suite nope (the config's suites: sequential, pipelined)\n");
    expect_bad((const char *[]){"--query", "limit_2", NULL},
               "runner: --query: no query limit_2 (the config's queries: limit_1, "
               "limit_100)\n");
    expect_bad((const char *[]){"-T", "0", NULL},
               "runner: -T '0': not a number of seconds above 0 and up to 86400 (e.g. -T 10 or "
               "-T 0.5; the time per group and driver)\n");
    expect_bad((const char *[]){"-T", "-3", NULL},
               "runner: -T '-3': not a number of seconds above 0 and up to 86400 (e.g. -T 10 "
               "or -T 0.5; the time per group and driver)\n");
    expect_bad((const char *[]){"--driver", "floor=/nonexistent.so", NULL},
               "runner: --driver floor=/nonexistent.so: %s:6: driver_dir has floor.so already "
               "(--driver adds a driver, it does not replace one: choose another NAME)\n");
    expect_bad((const char *[]){"--driver", "gone=/nonexistent.so", NULL},
               "runner: --driver gone=/nonexistent.so: /nonexistent.so: No such file or "
               "directory\n");
    expect_bad((const char *[]){"--driver", "gone", NULL},
               "runner: --driver 'gone': expected NAME=PATH (e.g. --driver mine=./mine.so)\n");
    expect_bad((const char *[]){"--check-driver", "x.so", "--only", "floor", NULL},
               "runner: --driver, --only, --suite, --query, -T, --time-ms, --queries and "
               "--profile are for a run, not --check-driver\n");
    /* a --driver that is not a driver: refused at load, naming the flag */
    char notso[600], arg[700];
    snprintf(notso, sizeof notso, "%s/notso.so", e2e_tmp);
    FILE *f = fopen(notso, "w");
    assert_non_null(f);
    fputs("not an ELF file\n", f);
    fclose(f);
    snprintf(arg, sizeof arg, "junk=%s", notso);
    const char *ini = write_config();
    const char *args[] = {"-c", ini, "--list-drivers", "--driver", arg, NULL};
    struct e2e_run r = e2e_run_args(args, NULL);
    assert_int_equal(r.status, 1);
    char want[1400];
    snprintf(want, sizeof want, "runner: --driver junk=%s: driver junk (%s): dlopen failed: ",
             notso, notso);
    assert_true(strncmp(r.err, want, strlen(want)) == 0);
    assert_int_equal(strchr(r.err, '\n') - r.err, (long)strlen(r.err) - 1);
    e2e_run_free(&r);
}

/* --resume checks the selection: a journal written with --only rawwire is
 * refused with --only libpq_sync (a different config), and taken up to its
 * own end check with the same flags (here: the run finished). */
static void test_resume_selection(void **state)
{
    (void)state;
    const char *ini = write_config();
    const char *out = e2e_json_path("resume");
    const char *args[] = {"-c", ini, "-o", out, "--only", "rawwire", "--suite", "sequential",
                          "--query", "limit_1", "-T", "0.1", "--queries", "20", NULL};
    struct e2e_run r = e2e_run_args(args, NULL);
    assert_int_equal(r.status, 0);
    e2e_run_free(&r);
    char journal[700];
    snprintf(journal, sizeof journal, "%s.journal", out);
    assert_true(e2e_exists(journal));
    const char *other[] = {"-c", ini, "--resume", journal, "--only", "libpq_sync", "--suite",
                           "sequential", "--query", "limit_1", "-T", "0.1", "--queries", "20",
                           NULL};
    r = e2e_run_args(other, NULL);
    assert_int_equal(r.status, 1);
    char want[1400];
    snprintf(want, sizeof want, "runner: %s was written for a different config (or "
             "BENCH_*/PGCB_CONNINFO overrides, or command-line drivers, selection or budget: "
             "resume with the same -c, --driver, --only, --suite, --query, -T/--time-ms and "
             "--queries, and the same driver_dir)\n", journal);
    assert_string_equal(r.err, want);
    e2e_run_free(&r);
    const char *budget[] = {"-c", ini, "--resume", journal, "--only", "rawwire", "--suite",
                            "sequential", "--query", "limit_1", "-T", "0.2", "--queries", "20",
                            NULL};
    r = e2e_run_args(budget, NULL);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, want);
    e2e_run_free(&r);
    /* the same selection, typed in another way (--time-ms 100, one --query):
     * the same config, so the journal's own state decides */
    const char *same[] = {"-c", ini, "--resume", journal, "--query", "limit_1", "--only",
                          "rawwire", "--suite", "sequential", "--time-ms", "100", "--queries",
                          "20", NULL};
    r = e2e_run_args(same, NULL);
    assert_int_equal(r.status, 1);
    snprintf(want, sizeof want, "runner: %s: this run finished; its result is %s\n", journal,
             out);
    assert_string_equal(r.err, want);
    e2e_run_free(&r);
}

int main(void)
{
    if (e2e_setup("test_select_e2e") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_selected_run),
        cmocka_unit_test(test_environment_budget),
        cmocka_unit_test(test_list_drivers),
        cmocka_unit_test(test_bad_flags),
        cmocka_unit_test(test_resume_selection),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (e2e_teardown() != 0)
        rc = 1;
    return rc;
}
