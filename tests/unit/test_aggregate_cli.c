/*
 * test_aggregate_cli.c -- the aggregate program end to end, on the hand-
 * written result files in tests/aggregate/ (no server):
 *
 *   - golden files: text, Markdown (with --label and --baseline), JSON, CSV
 *     and SVG output, and the warnings on stderr, compared byte for byte with
 *     tests/aggregate/golden/ (the output must be deterministic); the
 *     percentile chart and --detail on p1.json and p2.json (result files
 *     with percentile curves, written by the runner's own writer), and
 *     beside a file without curves; what converting costs per run on
 *     v1.json and v2.json (two runs of tests/aggregate/versus.ini);
 *   - the CSV read back by Python's csv module and checked against the
 *     result files it was made from (tests/aggregate/csv_check.py);
 *   - every bad input: its exact one-line message and exit status.
 *
 * Runs $PGCB_BUILD/aggregate (tests/run.sh exports PGCB_BUILD; default
 * "build"), from the top of the checkout. After an intended change of the
 * output, regenerate the golden files with
 *   PGCB_REGEN=1 build/tests/test_aggregate_cli
 * and read the diff before committing it.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pgcb/driver.h"
#include "result.h"
#include "util.h"

#define DIR "tests/aggregate/"
#define GOLDEN DIR "golden/"

static char aggregate[4096];
static char tmpdir[] = "/tmp/pgcb_test_agg_XXXXXX";

/* The whole file as a NUL-terminated string (NULL if it cannot be read). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[8192];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            buf = realloc(buf, cap);
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (!buf)
        buf = calloc(1, 1);
    else
        buf[len] = '\0';
    return buf;
}

static void spit(const char *path, const char *s)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(s, f);
    assert_int_equal(fclose(f), 0);
}

/* Run aggregate with args (NULL-terminated); its stdout and stderr are
 * returned in *out and *err (malloc'd). Returns the exit status. */
static int run(char **out, char **err, const char *const *args)
{
    char opath[256], epath[256];
    snprintf(opath, sizeof opath, "%s/stdout", tmpdir);
    snprintf(epath, sizeof epath, "%s/stderr", tmpdir);
    const char *argv[32];
    size_t n = 0;
    argv[n++] = aggregate;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(127);
        execv(aggregate, (char *const *)argv);
        _exit(126);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    *out = slurp(opath);
    *err = slurp(epath);
    assert_non_null(*out);
    assert_non_null(*err);
    assert_true(WIFEXITED(st));
    assert_int_not_equal(WEXITSTATUS(st), 126); /* exec failed */
    return WEXITSTATUS(st);
}

/* Compare `got` with the golden file (or write it, with PGCB_REGEN=1). On a
 * difference, print the first differing line of each. */
static void golden(const char *name, const char *got)
{
    char path[256];
    snprintf(path, sizeof path, GOLDEN "%s", name);
    if (getenv("PGCB_REGEN")) {
        spit(path, got);
        return;
    }
    char *want = slurp(path);
    if (!want) {
        print_error("%s: cannot read the golden file (PGCB_REGEN=1 writes it)\n", path);
        fail();
    }
    if (strcmp(want, got) != 0) {
        size_t i = 0, line = 1, start = 0;
        for (; want[i] && want[i] == got[i]; i++)
            if (want[i] == '\n') {
                line++;
                start = i + 1;
            }
        const char *w = want + start, *g = got + start;
        print_error("%s differs at line %zu:\n  want: %.*s\n  got:  %.*s\n", path, line,
                    (int)strcspn(w, "\n"), w, (int)strcspn(g, "\n"), g);
        free(want);
        fail();
    }
    free(want);
}

/* ---- golden output ------------------------------------------------------------ */

static void test_text(void **state)
{
    (void)state;
    char *out, *err;
    const char *const args[] = {DIR "a.json", DIR "b.json", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    golden("ab.txt", out);
    assert_string_equal(err, "");
    free(out);
    free(err);
}

static void test_markdown_labels_baseline(void **state)
{
    (void)state;
    char *out, *err;
    const char *const args[] = {"--format",   "markdown", "--label", "machine A", "-l",
                                "machine B",  "--baseline", "machine A", DIR "a.json",
                                DIR "b.json", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    golden("ab.md", out);
    assert_string_equal(err, "");
    free(out);
    free(err);
}

/* A partial run with a failed cell, an extra driver and an extra group:
 * warnings on stderr, notes and left-out groups in the output. */
static void test_partial_and_mismatched(void **state)
{
    (void)state;
    char *out, *err;
    const char *const args[] = {DIR "a.json", DIR "b.json", DIR "c.json", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    golden("abc.txt", out);
    assert_string_equal(
        err, "aggregate: warning: tests/aggregate/c.json: Run 3 is partial (interrupted by "
             "signal 2 after 3 of 4 groups): what it did not run is left out.\n"
             "aggregate: warning: Driver libpq_pipeline is only in run 3: not ranked.\n"
             "aggregate: warning: Group sequential / limit_500, depth 1 is only in run 3: left "
             "out.\n");
    free(out);
    free(err);

    const char *const md[] = {"-f", "markdown", DIR "a.json", DIR "b.json", DIR "c.json", NULL};
    assert_int_equal(run(&out, &err, md), 0);
    golden("abc.md", out);
    free(out);
    free(err);
}

static void test_json(void **state)
{
    (void)state;
    char *out, *err;
    const char *const args[] = {"-f", "json", "-b", "Test CPU A, 2 cores", "-t", "10%",
                                DIR "a.json", DIR "b.json", DIR "c.json", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    golden("abc.json", out);
    free(out);
    free(err);
}

/* The stderr of a.json b.json c.json, whatever the format. */
#define ABC_WARNINGS                                                                          \
    "aggregate: warning: tests/aggregate/c.json: Run 3 is partial (interrupted by signal 2 "  \
    "after 3 of 4 groups): what it did not run is left out.\n"                                \
    "aggregate: warning: Driver libpq_pipeline is only in run 3: not ranked.\n"               \
    "aggregate: warning: Group sequential / limit_500, depth 1 is only in run 3: left out.\n"

/* Run argv (NULL-terminated) with our stdout and stderr; its exit status. */
static int run_cmd(char *const *argv)
{
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* --format csv: one row per run, group and driver of every file (the
 * partial run, its extra driver and group included), a label that needs
 * RFC 4180 quoting (a double quote; the default labels and the group
 * names hold commas); the warnings as in text. Then, read back with
 * Python's csv module (csv_check.py): the row count is runs x groups x
 * drivers and each row's figures are its file's -- on these files, on
 * runner-written ones with percentiles (p1, p2) and on transaction steps
 * with skipped and failed cells (ins15, ins16_fail). */
static void test_csv(void **state)
{
    (void)state;
    char *out, *err, path[256];
    snprintf(path, sizeof path, "%s/out.csv", tmpdir);
    const char *const args[] = {"--format", "csv", "-l", "machine \"A\"", DIR "a.json",
                                DIR "b.json", DIR "c.json", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    golden("abc.csv", out);
    assert_string_equal(err, ABC_WARNINGS);
    assert_memory_equal(out, "run,file,label,cpu_model,", 25);
    assert_non_null(strstr(out, "\r\n1,tests/aggregate/a.json,\"machine \"\"A\"\"\",Test CPU A,2,"));
    assert_non_null(strstr(out, ",\"sequential / limit_1, depth 1\",rawwire,false,ok,,"));
    spit(path, out);
    free(out);
    free(err);
    char *check[] = {"python3", "tests/aggregate/csv_check.py", "--csv", path, "--label",
                     "machine \"A\"", DIR "a.json", DIR "b.json", DIR "c.json", NULL};
    assert_int_equal(run_cmd(check), 0);

    static const char *const sets[][2] = {{"p1.json", "p2.json"},
                                          {"ins15.json", "ins16_fail.json"}};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        char f1[128], f2[128];
        snprintf(f1, sizeof f1, DIR "%s", sets[i][0]);
        snprintf(f2, sizeof f2, DIR "%s", sets[i][1]);
        const char *const two[] = {"-f", "csv", f1, f2, NULL};
        assert_int_equal(run(&out, &err, two), 0);
        spit(path, out);
        free(out);
        free(err);
        char *argv[] = {"python3", "tests/aggregate/csv_check.py", "--csv", path, f1, f2, NULL};
        assert_int_equal(run_cmd(argv), 0);
    }
    unlink(path);
}

static void test_svg(void **state)
{
    (void)state;
    char *out, *err, svg[256];
    snprintf(svg, sizeof svg, "%s/chart.svg", tmpdir);
    const char *const args[] = {"--svg", svg, DIR "a.json", DIR "b.json", DIR "c.json", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    char *chart = slurp(svg);
    assert_non_null(chart);
    golden("abc.svg", chart);
    free(chart);
    free(out);
    free(err);
}

/* The percentile chart (issue 13) of p1.json (client and server on one
 * CPU: libpq_sync's 4 ms / 6 ms modes; a linear and a log y axis) and
 * p2.json (rawwire invalid in one group: not drawn): a row per group and a
 * column per run; p1.json alone: a panel per group. No warning. */
static void test_svg_percentiles(void **state)
{
    (void)state;
    char *out, *err, svg[256];
    snprintf(svg, sizeof svg, "%s/pct.svg", tmpdir);
    const char *const two[] = {"--svg-percentiles", svg, DIR "p1.json", DIR "p2.json", NULL};
    assert_int_equal(run(&out, &err, two), 0);
    char *chart = slurp(svg);
    assert_non_null(chart);
    golden("p12_pct.svg", chart);
    /* what must be in it, whatever the golden file says */
    assert_non_null(strstr(chart, "<title>pgclientbench: latency by percentile"));
    assert_non_null(strstr(chart, "sequential / limit_1, depth 1 — run 2</text>"));
    assert_non_null(strstr(chart, "not drawn: rawwire (invalid)"));
    assert_non_null(strstr(chart, "latency (linear)"));
    assert_non_null(strstr(chart, "latency (log scale)"));
    assert_non_null(strstr(chart, ">99.99%</text>"));
    assert_null(strstr(chart, "<script"));
    assert_string_equal(err, "");
    free(chart);
    free(out);
    free(err);

    const char *const one[] = {"-p", svg, DIR "p1.json", NULL};
    assert_int_equal(run(&out, &err, one), 0);
    chart = slurp(svg);
    assert_non_null(chart);
    golden("p1_pct.svg", chart);
    assert_null(strstr(chart, "— run 1"));
    free(chart);
    free(out);
    free(err);
}

/* A file without percentile curves (a.json, from before them) beside one
 * with: a warning naming it, its panels say so, its label is marked, the
 * group only it has is "not in this run" for p1.json; no crash, exit 0. */
static void test_svg_percentiles_old_file(void **state)
{
    (void)state;
    char *out, *err, svg[256], want[1024];
    snprintf(svg, sizeof svg, "%s/pct.svg", tmpdir);
    const char *const args[] = {"-p", svg, DIR "p1.json", DIR "a.json", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    snprintf(want, sizeof want,
             "aggregate: warning: Group sequential / limit_100, depth 1 is only in run 2: left "
             "out.\n"
             "aggregate: warning: tests/aggregate/a.json: no percentile curves (a result file "
             "from before they were recorded): its panels in %s are empty\n", svg);
    assert_string_equal(err, want);
    char *chart = slurp(svg);
    assert_non_null(chart);
    golden("p1a_pct.svg", chart);
    assert_non_null(strstr(chart, "Run 2: Test CPU A, 2 cores (no percentile curves)</text>"));
    assert_non_null(strstr(chart, ">no percentile curves in this file</text>"));
    assert_non_null(strstr(chart, ">not in this run</text>"));
    free(chart);
    free(out);
    free(err);

    /* Only old files: the same, and still a chart. */
    const char *const old[] = {"-p", svg, DIR "a.json", DIR "b.json", NULL};
    assert_int_equal(run(&out, &err, old), 0);
    assert_non_null(strstr(err, "tests/aggregate/b.json: no percentile curves"));
    chart = slurp(svg);
    assert_non_null(strstr(chart, "</svg>\n"));
    free(chart);
    free(out);
    free(err);
}

/* --detail: each run's percentiles per group, in text (a last section) and
 * Markdown (under each group's table in the run's section); an old file's
 * tables say it has none. */
static void test_detail(void **state)
{
    (void)state;
    char *out, *err;
    const char *const text[] = {"--detail", DIR "p1.json", DIR "p2.json", NULL};
    assert_int_equal(run(&out, &err, text), 0);
    golden("p12_detail.txt", out);
    assert_string_equal(err, "");
    free(out);
    free(err);
    const char *const md[] = {"-f", "markdown", "-d", DIR "p1.json", DIR "p2.json", NULL};
    assert_int_equal(run(&out, &err, md), 0);
    golden("p12_detail.md", out);
    free(out);
    free(err);
    const char *const old[] = {"-d", DIR "a.json", NULL};
    assert_int_equal(run(&out, &err, old), 0);
    assert_non_null(strstr(out, "┘\n  no percentiles in this result file (written before they "
                                "were recorded)\n"));
    free(out);
    free(err);
    /* Without --detail, no such section. */
    const char *const plain[] = {DIR "p1.json", DIR "p2.json", NULL};
    assert_int_equal(run(&out, &err, plain), 0);
    assert_null(strstr(out, "Latency percentiles"));
    free(out);
    free(err);
}

/* a and b equal, reals within a relative 1e-9 (aggregate writes reals with
 * fewer digits than the runner). */
static int json_near(json_t *a, json_t *b)
{
    if (json_is_real(a) && json_is_real(b)) {
        double x = json_real_value(a), y = json_real_value(b);
        return fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y));
    }
    if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!json_near(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    }
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *v;
        if (json_object_size(a) != json_object_size(b))
            return 0;
        json_object_foreach(a, k, v) if (!json_near(v, json_object_get(b, k))) return 0;
        return 1;
    }
    return json_equal(a, b);
}

/* Results with [query] versus pairs (v1.json, v2.json: a timestamptz and a
 * float8 query against their ::text twins, libpq_sync and rawwire in
 * binary, two runs on one machine): in text a last section, its caption
 * once and each run's tables, whose figures are the run's own
 * conversion_cost (never combined); in Markdown each run's section has its
 * own; in JSON each run's conversion_cost is its file's. Runs without
 * pairs (a.json, b.json) get no section (and [] in golden/abc.json). */
static void test_conversion_cost(void **state)
{
    (void)state;
    char *out, *err;
    const char *const text[] = {DIR "v1.json", DIR "v2.json", NULL};
    assert_int_equal(run(&out, &err, text), 0);
    golden("v12.txt", out);
    const char *sec = strstr(out, "\nWhat converting costs, per run\n");
    assert_non_null(sec);
    assert_non_null(strstr(out, "Final ranking over all runs")); /* ... which comes first */
    assert_true(strstr(out, "Final ranking over all runs") < sec);
    const char *cap = "What converting costs: each driver's client CPU per value";
    assert_non_null(strstr(sec, cap));
    assert_null(strstr(strstr(sec, cap) + 1, cap));
    const char *files[] = {DIR "v1.json", DIR "v2.json"};
    for (size_t i = 0; i < 2; i++) {
        char head[64];
        snprintf(head, sizeof head, "Run %zu: ", i + 1);
        const char *from = strstr(sec, head);
        assert_non_null(from);
        const char *to = i == 0 ? strstr(from, "Run 2: ") : from + strlen(from);
        assert_non_null(to);
        json_t *f = json_load_file(files[i], 0, NULL);
        assert_non_null(f);
        json_t *cost = json_object_get(f, "conversion_cost");
        assert_int_equal(json_array_size(cost), 2);
        for (size_t k = 0; k < 2; k++) {
            json_t *drivers = json_object_get(json_array_get(cost, k), "drivers");
            assert_int_equal(json_array_size(drivers), 2);
            for (size_t d = 0; d < 2; d++) {
                char want[48];
                snprintf(want, sizeof want, " %.1f │", json_real_value(json_object_get(
                                                         json_array_get(drivers, d), "ns_per_value")));
                char *part = strndup(from, (size_t)(to - from));
                if (!strstr(part, want))
                    fail_msg("run %zu: no cell \"%s\" in:\n%s", i + 1, want, part);
                free(part);
            }
        }
        json_decref(f);
    }
    free(out);
    free(err);

    const char *const md[] = {"-f", "markdown", DIR "v1.json", DIR "v2.json", NULL};
    assert_int_equal(run(&out, &err, md), 0);
    golden("v12.md", out);
    const char *r2 = strstr(out, "<details><summary>Run 2: ");
    assert_non_null(r2);
    const char *c1 = strstr(out, "**What converting costs**: each driver");
    assert_non_null(c1);
    assert_true(c1 < r2 && strstr(r2, "**What converting costs**: each driver"));
    free(out);
    free(err);

    const char *const js[] = {"-f", "json", DIR "v1.json", DIR "v2.json", NULL};
    assert_int_equal(run(&out, &err, js), 0);
    json_t *j = json_loads(out, 0, NULL);
    assert_non_null(j);
    json_t *runs = json_object_get(j, "runs");
    for (size_t i = 0; i < 2; i++) {
        json_t *f = json_load_file(files[i], 0, NULL);
        assert_non_null(f);
        assert_true(json_near(json_object_get(json_array_get(runs, i), "conversion_cost"),
                              json_object_get(f, "conversion_cost")));
        json_decref(f);
    }
    json_decref(j);
    free(out);
    free(err);
    /* Without pairs: no section (and "conversion_cost": [] in golden/abc.json). */
    const char *const plain[] = {DIR "a.json", DIR "b.json", NULL};
    assert_int_equal(run(&out, &err, plain), 0);
    assert_null(strstr(out, "What converting costs"));
    free(out);
    free(err);
}

/* Insert-benchmark-style results of two servers (ins15.json, ins16.json):
 * transaction steps with fixed operations, parameters, background loads
 * (one missed its SLA on pg16, with an error), an ABI 1.0 driver skipped on
 * the parameterized steps. The per-step table relative to pg15 in text,
 * Markdown (with the group tables: rows_per_txn, ops, params, background
 * lines, the SLA-failed winner line) and JSON; no warning. */
/* A label without a value in a step (pg16's rawwire failed "writes / ins_del /
 * rows_per_txn 50"): the overall row of that driver is over the steps every
 * label has, for every label, and the output names the step left out. */
static void test_baseline_missing_step(void **state)
{
    (void)state;
    char *out, *err;
    const char *const args[] = {"-l", "pg15", "-l", "pg16", "-b", "pg15", DIR "ins15.json",
                                DIR "ins16_fail.json", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    assert_non_null(strstr(out, "  Overall over 5 of 6 steps; left out (a label has no value): "
                                "writes / ins_del / rows_per_txn 50\n"));
    assert_non_null(strstr(out, "│ Overall                            │                  │ "
                                "1.00 │ 1.12 ▲ * │"));
    free(out);
    free(err);
    const char *const jargs[] = {"-f", "json", "-l", "pg15", "-l", "pg16", "-b", "pg15",
                                 DIR "ins15.json", DIR "ins16_fail.json", NULL};
    assert_int_equal(run(&out, &err, jargs), 0);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    assert_non_null(j);
    json_t *rw = json_object_get(json_object_get(json_object_get(j, "baseline"), "drivers"),
                                 "rawwire");
    assert_int_equal(json_integer_value(json_object_get(rw, "overall_steps")), 5);
    assert_true(json_is_false(json_object_get(
        json_array_get(json_object_get(rw, "steps"), 1), "in_overall")));
    json_decref(j);
    free(out);
    free(err);
}

static void test_insert_baseline(void **state)
{
    (void)state;
    static const struct { const char *format, *golden; } outs[] = {
        {"text", "ins.txt"}, {"markdown", "ins.md"}, {"json", "ins.json"}};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        char *out, *err;
        const char *const args[] = {"-f", outs[i].format, "-l", "pg15", "-l", "pg16", "-b",
                                    "pg15", DIR "ins15.json", DIR "ins16.json", NULL};
        assert_int_equal(run(&out, &err, args), 0);
        golden(outs[i].golden, out);
        assert_string_equal(err, "");
        free(out);
        free(err);
    }
}

/* ---- bad input ------------------------------------------------------------------ */

struct bad_case {
    const char *args[8];
    int status;
    const char *err; /* the whole of stderr */
};

static const struct bad_case bad_cases[] = {
    {{DIR "nope.json"}, 1,
     "aggregate: tests/aggregate/nope.json: cannot read: No such file or directory\n"},
    {{DIR "a.json", "tests/aggregate"}, 1,
     "aggregate: tests/aggregate: cannot read: Is a directory\n"},
    {{DIR "bad/not_json.json"}, 1,
     "aggregate: tests/aggregate/bad/not_json.json:1: not valid JSON: '[' or '{' expected near "
     "'hello'\n"},
    {{DIR "bad/empty.json"}, 1,
     "aggregate: tests/aggregate/bad/empty.json:1: not valid JSON: '[' or '{' expected near end "
     "of file\n"},
    {{DIR "bad/no_schema.json"}, 1,
     "aggregate: tests/aggregate/bad/no_schema.json: no schema_version: not a pgclientbench "
     "result\n"},
    {{DIR "a.json", DIR "bad/schema_3.json"}, 1,
     "aggregate: tests/aggregate/bad/schema_3.json: schema_version 3 is not supported (this "
     "program reads 1 to 2)\n"},
    {{DIR "bad/no_groups.json"}, 1,
     "aggregate: tests/aggregate/bad/no_groups.json: missing environment, drivers, orders or "
     "groups\n"},
    {{DIR "bad/all_invalid.json"}, 1,
     "aggregate: no shared client driver has a valid result: nothing to rank\n"},
    {{DIR "a.json", DIR "bad/other_suite.json"}, 1,
     "aggregate: warning: Group sequential / limit_1, depth 1 is only in run 1: left out.\n"
     "aggregate: warning: Group sequential / limit_100, depth 1 is only in run 1: left out.\n"
     "aggregate: warning: Group pipelined / limit_1, depth 10 is only in run 1: left out.\n"
     "aggregate: warning: Group other / limit_1, depth 1 is only in run 2: left out.\n"
     "aggregate: warning: Group other / limit_100, depth 1 is only in run 2: left out.\n"
     "aggregate: warning: Group other / limit_1, depth 10 is only in run 2: left out.\n"
     "aggregate: the results share no group (suite, query, depth): nothing to rank\n"},
    {{"-s", "/nonexistent/dir/chart.svg", DIR "a.json"}, 1,
     "aggregate: /nonexistent/dir/chart.svg: cannot write: No such file or directory\n"},
    {{"--svg-percentiles", "/nonexistent/dir/pct.svg", DIR "p1.json"}, 1,
     "aggregate: /nonexistent/dir/pct.svg: cannot write: No such file or directory\n"},
    {{"--html", "/nonexistent/dir/report.html", DIR "a.json"}, 1,
     "aggregate: /nonexistent/dir/report.html: cannot write: No such file or directory\n"},
    {{DIR "p1.json", "-p"}, 2,
     "aggregate: unknown option or missing value: '-p'; see 'aggregate -h'\n"},
    {{"--detail=yes", DIR "p1.json"}, 2,
     "aggregate: unknown option or missing value: '--detail=yes'; see 'aggregate -h'\n"},
    {{NULL}, 2, "aggregate: no result file given; see 'aggregate -h'\n"},
    {{"--format", "xml", DIR "a.json"}, 2,
     "aggregate: --format 'xml': expected text, markdown, json or csv; see 'aggregate -h'\n"},
    {{"-t", "100", DIR "a.json"}, 2,
     "aggregate: --threshold '100': expected a percentage from 0 to below 100; see "
     "'aggregate -h'\n"},
    {{"-t", "5x", DIR "a.json"}, 2,
     "aggregate: --threshold '5x': expected a percentage from 0 to below 100; see "
     "'aggregate -h'\n"},
    {{"-l", "x", "-l", "y", DIR "a.json"}, 2,
     "aggregate: 2 --label for 1 result file; see 'aggregate -h'\n"},
    {{"--baseline", "nope", DIR "a.json", DIR "b.json"}, 2,
     "aggregate: --baseline 'nope': no run has that label ('Test CPU A, 2 cores', 'Test CPU B, "
     "4 cores')\n"},
    {{"--bogus", DIR "a.json"}, 2,
     "aggregate: unknown option or missing value: '--bogus'; see 'aggregate -h'\n"},
    {{DIR "a.json", "-f"}, 2,
     "aggregate: unknown option or missing value: '-f'; see 'aggregate -h'\n"},
};

static void test_bad_input(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        char *out, *err;
        int st = run(&out, &err, c->args);
        if (st != c->status || strcmp(err, c->err) != 0 || out[0]) {
            print_error("case %zu (%s ...): status %d (want %d)\nstderr: %s\nwant:   %s"
                        "stdout: %.200s\n", i, c->args[0] ? c->args[0] : "no argument", st,
                        c->status, err, c->err, out);
            fail();
        }
        free(out);
        free(err);
    }
}

static void test_help(void **state)
{
    (void)state;
    char *out, *err;
    const char *const args[] = {"-h", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    assert_memory_equal(out, "usage: aggregate [OPTIONS] RESULT.json...\n", 42);
    assert_non_null(strstr(out, "--baseline LABEL"));
    assert_non_null(strstr(out, "--svg-percentiles FILE"));
    assert_non_null(strstr(out, "-H, --html FILE"));
    assert_non_null(strstr(out, "--detail"));
    assert_non_null(strstr(out, "or csv: one row per run, group and driver"));
    assert_string_equal(err, "");
    free(out);
    free(err);
}

/* Old result files (without "verdict" and "rankings", like the fixtures)
 * and new ones read alike: a.json read and written back by the runner's
 * writer gains them, and aggregates to the same golden output. */
static void test_old_and_new_files(void **state)
{
    (void)state;
    struct pgcb_result r;
    char err[1024], path[256], *out, *errout;
    assert_int_equal(pgcb_result_read(DIR "a.json", &r, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/a_new.json", tmpdir);
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    pgcb_result_free(&r);
    char *text = slurp(path);
    assert_non_null(strstr(text, "\"verdict\": {"));
    assert_non_null(strstr(text, "\"rankings\": {"));
    free(text);
    const char *const args[] = {path, DIR "b.json", NULL};
    assert_int_equal(run(&out, &errout, args), 0);
    char *want = slurp(GOLDEN "ab.txt");
    assert_non_null(want);
    assert_string_equal(out, want);
    free(want);
    free(out);
    free(errout);
    unlink(path);

    /* A schema 1 file is read, its verdicts recomputed, and the output says so. */
    const char *const old[] = {DIR "a_v1.json", DIR "b.json", NULL};
    assert_int_equal(run(&out, &errout, old), 0);
    assert_non_null(strstr(errout, "a_v1.json: Run 1 is a schema 1 result: its verdicts and "
                                   "intervals are recomputed"));
    assert_non_null(strstr(out, "Run 1 is a schema 1 result"));
    free(out);
    free(errout);
}

/* Issue 13: a run whose file records the noise gets a note with its steal
 * and how many client results spread more than its noise_warn_pct; a file
 * from before gets none (the golden files above). */
static void test_noise_note(void **state)
{
    (void)state;
    struct pgcb_result r;
    char err[1024], path[256], *out, *errout;
    assert_int_equal(pgcb_result_read(DIR "a.json", &r, err, sizeof err), 0);
    r.run_steal_pct = 1.5;
    r.run_steal_ns = 3e8;
    r.noise_warn_pct = 5;
    size_t cells = 0;
    for (size_t g = 0; g < r.ngroups; g++)
        for (size_t d = 0; d < r.ndrivers; d++) {
            struct pgcb_res_cell *c = &r.groups[g].cells[d];
            if (c->status != PGCB_CELL_OK || (r.drivers[d].caps & PGCB_CAP_REFERENCE))
                continue;
            c->spread_cv_pct = cells++ == 0 ? 12.5 : 2.5; /* one noisy result */
        }
    assert_true(cells > 1);
    snprintf(path, sizeof path, "%s/a_noise.json", tmpdir);
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    pgcb_result_free(&r);
    const char *const args[] = {path, DIR "b.json", NULL};
    assert_int_equal(run(&out, &errout, args), 0);
    char want[256];
    snprintf(want, sizeof want, "  Run 1: steal 1.50%% of the machine's CPU time over the run; 1 "
             "of %zu client results with per-order medians spread more than noise_warn_pct "
             "5%%.\n", cells);
    if (!strstr(out, want)) {
        print_error("got:\n%s\nwant in it:\n%s", out, want);
        fail();
    }
    assert_null(strstr(out, "Run 2:")); /* b.json is from before */
    assert_null(strstr(errout, "steal")); /* a note, not a warning */
    free(out);
    free(errout);
    unlink(path);
}

/* Runs whose idle CPUs waited differently ([bench] cpu_idle): a warning
 * naming which ran how; runs that all waited alike, or files from before
 * it only (the golden files above), none. */
static void test_idle_note(void **state)
{
    (void)state;
    struct pgcb_result r;
    char err[1024], poll_path[256], halt_path[256], *out, *errout;
    assert_int_equal(pgcb_result_read(DIR "a.json", &r, err, sizeof err), 0);
    r.idle = (struct pgcb_res_idle){.asked = pgcb_xstrdup("auto"), .polling = 1,
                                    .entries_poll = 100, .entries_other = 0};
    snprintf(poll_path, sizeof poll_path, "%s/a_poll.json", tmpdir);
    assert_int_equal(pgcb_result_write(&r, poll_path, err, sizeof err), 0);
    r.idle.polling = 0;
    r.idle.why = pgcb_xstrdup("[bench] cpu_idle = system");
    snprintf(halt_path, sizeof halt_path, "%s/a_halt.json", tmpdir);
    assert_int_equal(pgcb_result_write(&r, halt_path, err, sizeof err), 0);
    pgcb_result_free(&r);

    const char *const mixed[] = {poll_path, DIR "b.json", halt_path, poll_path, NULL};
    assert_int_equal(run(&out, &errout, mixed), 0);
    const char *want = "aggregate: warning: The runs' idle CPUs did not wait alike (runs 1, 4 "
                       "polling; runs 3 as the system had it (halting); runs 2 not recorded "
                       "(before cpu_idle)): halting CPUs put the hypervisor's wake-ups into both "
                       "sides' figures ([bench] cpu_idle; docs/measuring.md#how-idle-cpus-wait).\n";
    if (!strstr(errout, want)) {
        print_error("got:\n%s\nwant in it:\n%s", errout, want);
        fail();
    }
    assert_non_null(strstr(out, "The runs' idle CPUs did not wait alike")); /* and a note */
    free(out);
    free(errout);

    const char *const alike[] = {poll_path, poll_path, NULL};
    assert_int_equal(run(&out, &errout, alike), 0);
    assert_null(strstr(errout, "idle CPUs"));
    assert_null(strstr(out, "idle CPUs"));
    free(out);
    free(errout);
    unlink(poll_path);
    unlink(halt_path);
}

static int setup(void **state)
{
    (void)state;
    const char *b = getenv("PGCB_BUILD");
    snprintf(aggregate, sizeof aggregate, "%s/aggregate", b && *b ? b : "build");
    if (access(aggregate, X_OK) != 0) {
        fprintf(stderr, "test_aggregate_cli: %s: %s (make build/aggregate)\n", aggregate,
                strerror(errno));
        return -1;
    }
    if (!mkdtemp(tmpdir))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char path[256];
    const char *files[] = {"stdout", "stderr", "chart.svg", "pct.svg"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, files[i]);
        unlink(path);
    }
    rmdir(tmpdir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_markdown_labels_baseline),
        cmocka_unit_test(test_partial_and_mismatched),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_svg),
        cmocka_unit_test(test_svg_percentiles),
        cmocka_unit_test(test_svg_percentiles_old_file),
        cmocka_unit_test(test_detail),
        cmocka_unit_test(test_conversion_cost),
        cmocka_unit_test(test_insert_baseline),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_idle_note),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_old_and_new_files),
        cmocka_unit_test(test_baseline_missing_step),
        cmocka_unit_test(test_noise_note),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
