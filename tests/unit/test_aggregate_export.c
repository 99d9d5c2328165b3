/*
 * test_aggregate_export.c -- `aggregate --export-bencher` and `--export-gab`
 * end to end (aggregate/export.c, docs/history.md; no server), on the
 * hand-written result files of tests/aggregate/:
 *
 *   - ranking mode on a.json (one run) and a.json + b.json (two runs pooled):
 *     the exact benchmark names, in order, and every value and interval
 *     bound of one driver worked out by hand (the order-statistics interval
 *     of the per-order medians: 8 orders give [min, max], 16 give
 *     [v(4), v(13)]; two runs: geometric means);
 *   - A/B mode on abx.json (BASE and HEAD over 12 orders; HEAD slower in
 *     every order of one group, unchanged in another, BASE invalid in a
 *     third): HEAD's figures, the ratio and its interval -- the same as the
 *     comparison's own JSON says --, no ratio for the failed group, the
 *     overall ratio, and the files written although the gate fails (exit 3);
 *   - both files checked against the formats' documented shapes (Bencher's
 *     BMF JSON schema and its length limits; github-action-benchmark's
 *     custom entries: name, unit, value, optional range and extra);
 *   - the atomic write (a file already there is replaced by a new inode, no
 *     temporary file left behind, also when the rename fails) and the bad
 *     path (one line naming the file, exit 1, the rest still written).
 *
 * Runs $PGCB_BUILD/aggregate (default "build"), from the top of the checkout.
 */
#include <dirent.h>
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

#include "../lib/assert_near.h"

#define FIXTURES "tests/aggregate/"

static char aggregate[4096];
static char tmpdir[] = "/tmp/pgcb_test_export_XXXXXX";

/* tmpdir/name in a static buffer, one of eight in turn: a call's arguments
 * can name several (run() uses its own). */
static const char *tmp(const char *name)
{
    static char buf[8][512];
    static unsigned k;
    char *p = buf[k++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
    return p;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(f);
    fclose(m);
    return buf;
}

/* Run aggregate with args (NULL-terminated); stdout and stderr into *out and
 * *err (malloc'd). Returns the exit status. */
static int run(char **out, char **err, const char *const *args)
{
    const char *argv[40];
    size_t n = 0;
    argv[n++] = aggregate;
    for (; args[n - 1] && n < 39; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    char opath[600], epath[600];
    snprintf(opath, sizeof opath, "%s/stdout", tmpdir);
    snprintf(epath, sizeof epath, "%s/stderr", tmpdir);
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
    assert_int_not_equal(WEXITSTATUS(st), 126);
    return WEXITSTATUS(st);
}

static json_t *load(const char *path)
{
    json_error_t e;
    json_t *j = json_load_file(path, JSON_DECODE_INT_AS_REAL, &e);
    if (!j)
        fail_msg("%s: %s (line %d)", path, e.text, e.line);
    return j;
}

/* ---- the documented shapes ------------------------------------------------------ */

/* Bencher Metric Format (https://bencher.dev/bmf.json and the BMF reference):
 * an object of benchmarks (name: 1..1024 characters), each an object of
 * measures (slug: 1..64 of [a-z0-9-]), each {"value": number, "lower_value"?:
 * number, "upper_value"?: number} and nothing else. Ours also give both
 * bounds or neither, lower <= upper. Returns the benchmark count. */
static size_t check_bmf(const json_t *root)
{
    assert_true(json_is_object(root));
    const char *name;
    json_t *measures;
    size_t n = 0;
    json_object_foreach((json_t *)root, name, measures) {
        n++;
        assert_true(strlen(name) >= 1 && strlen(name) <= 1024);
        assert_true(json_is_object(measures));
        assert_true(json_object_size(measures) >= 1);
        const char *slug;
        json_t *m;
        json_object_foreach(measures, slug, m) {
            assert_true(strlen(slug) >= 1 && strlen(slug) <= 64);
            assert_int_equal(strspn(slug, "abcdefghijklmnopqrstuvwxyz0123456789-"), strlen(slug));
            assert_true(json_is_object(m));
            assert_true(json_is_number(json_object_get(m, "value")));
            json_t *lo = json_object_get(m, "lower_value"), *hi = json_object_get(m, "upper_value");
            assert_int_equal(lo == NULL, hi == NULL);
            assert_int_equal(json_object_size(m), lo ? 3 : 1);
            if (lo) {
                assert_true(json_is_number(lo) && json_is_number(hi));
                assert_true(json_number_value(lo) <= json_number_value(hi));
            }
        }
    }
    return n;
}

/* github-action-benchmark's customSmallerIsBetter input (its README, "Generic
 * JSON format"; src/extract.ts's BenchmarkResult): an array of {"name":
 * string, "unit": string, "value": number, "range"?: string, "extra"?:
 * string}, nothing else; names unique (each is one chart). Returns the count. */
static size_t check_gab(const json_t *root)
{
    assert_true(json_is_array(root));
    size_t i;
    json_t *e;
    json_array_foreach((json_t *)root, i, e) {
        assert_true(json_is_object(e));
        json_t *name = json_object_get(e, "name"), *unit = json_object_get(e, "unit"),
               *value = json_object_get(e, "value"), *range = json_object_get(e, "range"),
               *extra = json_object_get(e, "extra");
        assert_true(json_is_string(name) && json_string_length(name) > 0);
        assert_true(json_is_string(unit) && json_string_length(unit) > 0);
        assert_true(json_is_number(value));
        assert_true(!range || json_is_string(range));
        assert_true(!extra || json_is_string(extra));
        assert_int_equal(json_object_size(e), 3 + (range != NULL) + (extra != NULL));
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(json_string_value(name),
                                    json_string_value(json_object_get(json_array_get(root, k),
                                                                      "name")));
    }
    return json_array_size(root);
}

/* ---- lookups --------------------------------------------------------------------- */

/* BMF root[bench][slug], which must be there. */
static json_t *measure(const json_t *root, const char *bench, const char *slug)
{
    json_t *b = json_object_get(root, bench);
    if (!b)
        fail_msg("no benchmark '%s'", bench);
    json_t *m = json_object_get(b, slug);
    if (!m)
        fail_msg("benchmark '%s' has no measure '%s'", bench, slug);
    return m;
}

static void expect(const json_t *root, const char *bench, const char *slug, double value,
                   double lo, double hi)
{
    json_t *m = measure(root, bench, slug);
    double eps = fabs(value) * 1e-9;
    assert_near(json_number_value(json_object_get(m, "value")), value, eps);
    if (isnan(lo)) {
        assert_null(json_object_get(m, "lower_value"));
        assert_null(json_object_get(m, "upper_value"));
    } else {
        assert_near(json_number_value(json_object_get(m, "lower_value")), lo, fabs(lo) * 1e-9);
        assert_near(json_number_value(json_object_get(m, "upper_value")), hi, fabs(hi) * 1e-9);
    }
}

/* The gab entry named `name`, which must be there. */
static json_t *entry(const json_t *root, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach((json_t *)root, i, e)
        if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
            return e;
    fail_msg("no gab entry '%s'", name);
    return NULL;
}

/* No file with ".tmp." in its name is left in tmpdir. */
static void no_temp_files(void)
{
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".tmp."))
            fail_msg("temporary file left behind: %s/%s", tmpdir, e->d_name);
    closedir(d);
}

/* ---- ranking mode -------------------------------------------------------------------- */

static void test_ranking_one_run(void **state)
{
    (void)state;
    char *out, *err, *plain_out, *plain_err;
    const char *const plain[] = {FIXTURES "a.json", NULL};
    assert_int_equal(run(&plain_out, &plain_err, plain), 0);
    const char *const args[] = {"--export-bencher", tmp("b.json"), "--export-gab", tmp("g.json"),
                                FIXTURES "a.json", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    assert_string_equal(err, "");
    assert_string_equal(out, plain_out); /* the exports change nothing else */
    json_t *bmf = load(tmp("b.json")), *gab = load(tmp("g.json"));
    assert_int_equal(check_bmf(bmf), 9);
    /* Every group x driver, in the file's order. */
    const char *const names[] = {
        "sequential/limit_1/depth 1/libpq_sync",   "sequential/limit_1/depth 1/rawwire",
        "sequential/limit_1/depth 1/null",         "sequential/limit_100/depth 1/libpq_sync",
        "sequential/limit_100/depth 1/rawwire",    "sequential/limit_100/depth 1/null",
        "pipelined/limit_1/depth 10/libpq_sync",   "pipelined/limit_1/depth 10/rawwire",
        "pipelined/limit_1/depth 10/null"};
    size_t k = 0;
    const char *name;
    json_t *v;
    json_object_foreach(bmf, name, v) {
        assert_string_equal(name, names[k]);
        assert_int_equal(json_object_size(v), 3); /* latency, client-cpu, throughput */
        k++;
    }
    /* 8 orders at 95%: the interval is [min, max] of the per-order medians. */
    expect(bmf, names[0], "latency", 30000, 29800, 30200);
    expect(bmf, names[0], "client-cpu", 9300, NAN, NAN);
    expect(bmf, names[0], "throughput", 32258.1, NAN, NAN);
    expect(bmf, names[4], "latency", 120000, 119000, 152000);
    expect(bmf, names[7], "latency", 60000, 59000, 61000);

    /* gab: latency and client-cpu (smaller is better), not throughput. */
    assert_int_equal(check_gab(gab), 18);
    json_t *e = json_array_get(gab, 0);
    assert_string_equal(json_string_value(json_object_get(e, "name")),
                        "sequential/limit_1/depth 1/libpq_sync/latency");
    assert_string_equal(json_string_value(json_object_get(e, "unit")), "ns");
    assert_near(json_number_value(json_object_get(e, "value")), 30000, 0);
    assert_string_equal(json_string_value(json_object_get(e, "range")), "95% CI [29800, 30200]");
    assert_string_equal(json_string_value(json_object_get(e, "extra")),
                        "median latency of a batch of 1 query; 8 execution orders over 1 run; "
                        "32258.1 queries/s");
    e = json_array_get(gab, 1);
    assert_string_equal(json_string_value(json_object_get(e, "name")),
                        "sequential/limit_1/depth 1/libpq_sync/client-cpu");
    assert_near(json_number_value(json_object_get(e, "value")), 9300, 0);
    assert_null(json_object_get(e, "range"));
    e = entry(gab, "pipelined/limit_1/depth 10/rawwire/latency");
    assert_non_null(strstr(json_string_value(json_object_get(e, "extra")),
                           "median latency of a batch of 10 queries"));
    json_decref(bmf);
    json_decref(gab);
    no_temp_files();
    free(out);
    free(err);
    free(plain_out);
    free(plain_err);
}

static void test_ranking_two_runs(void **state)
{
    (void)state;
    char *out, *err;
    const char *const args[] = {FIXTURES "a.json", FIXTURES "b.json", "--export-bencher", tmp("b2.json"),
                                "--format", "json", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    json_t *j = json_loads(out, 0, NULL); /* stdout: still the aggregate's JSON */
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "runs_count")), 2);
    json_decref(j);
    json_t *bmf = load(tmp("b2.json"));
    assert_int_equal(check_bmf(bmf), 9); /* the same groups and drivers: one name each */
    /* Geometric means over the runs; the interval over all 16 per-order medians
     * (4 x 19900, 4 x 20100, 4 x 29800, 4 x 30200): [v(4), v(13)]. */
    expect(bmf, "sequential/limit_1/depth 1/libpq_sync", "latency", sqrt(30000.0 * 20000.0),
           19900, 30200);
    expect(bmf, "sequential/limit_1/depth 1/libpq_sync", "client-cpu", sqrt(9300.0 * 6150.0),
           NAN, NAN);
    expect(bmf, "sequential/limit_1/depth 1/libpq_sync", "throughput", sqrt(32258.1 * 48780.5),
           NAN, NAN);
    json_decref(bmf);
    free(out);
    free(err);
}

/* ---- A/B mode ------------------------------------------------------------------------ */

static void test_ab(void **state)
{
    (void)state;
    char *out, *err;
    const char *const args[] = {"--ab", "base:head", "--fail-above", "2", "--json",
                                tmp("cmp.json"), "--export-bencher", tmp("ab_b.json"),
                                "--export-gab", tmp("ab_g.json"), FIXTURES "abx.json", NULL};
    assert_int_equal(run(&out, &err, args), 3); /* the gate fails; the exports are written */
    assert_non_null(strstr(out, "A/B: head (HEAD) vs base (BASE)"));
    assert_true(strncmp(err, "aggregate: gate failed: ", 24) == 0);
    json_t *bmf = load(tmp("ab_b.json")), *gab = load(tmp("ab_g.json")),
           *cmp = load(tmp("cmp.json"));
    assert_int_equal(check_bmf(bmf), 4);
    const char *g1 = "sequential/limit_500/depth 1/head", *g2 = "pipelined/limit_1/depth 10/head",
               *g3 = "sequential/limit_1/depth 1/head";
    const char *name;
    json_t *v;
    const char *const names[] = {g1, g2, g3, "overall/head"};
    size_t k = 0;
    json_object_foreach(bmf, name, v)
        assert_string_equal(name, names[k++]);
    /* HEAD's figures: 12 orders at 95% give [v(3), v(10)] of its per-order medians. */
    expect(bmf, g1, "latency", 110250, 109000, 112000);
    expect(bmf, g1, "client-cpu", 44000, NAN, NAN);
    expect(bmf, g1, "throughput", 8900, NAN, NAN);
    expect(bmf, g2, "latency", 511000, 505000, 514800);
    /* The ratio: the pooled medians', with [r(3), r(10)] of the per-order ratios. */
    expect(bmf, g1, "ab-ratio", 1.1025, 1.09, 1.12);
    expect(bmf, g2, "ab-ratio", 511000.0 / 510000.0, 0.98, 1.02);
    /* ... and exactly what the comparison says. */
    json_t *groups = json_object_get(cmp, "groups");
    for (size_t g = 0; g < 2; g++) {
        json_t *cg = json_array_get(groups, g), *iv = json_object_get(cg, "interval");
        json_t *m = measure(bmf, names[g], "ab-ratio");
        assert_near(json_number_value(json_object_get(m, "value")),
                    json_number_value(json_object_get(cg, "ratio")), 0);
        assert_near(json_number_value(json_object_get(m, "lower_value")),
                    json_number_value(json_array_get(iv, 0)), 0);
        assert_near(json_number_value(json_object_get(m, "upper_value")),
                    json_number_value(json_array_get(iv, 1)), 0);
    }
    /* BASE invalid in group 3: HEAD's figures stand, no ratio. */
    expect(bmf, g3, "latency", 30000, 29500, 30500);
    assert_null(json_object_get(json_object_get(bmf, g3), "ab-ratio"));
    /* The overall ratio: the geometric mean of the two groups that compared. */
    json_t *ov = json_object_get(bmf, "overall/head");
    assert_int_equal(json_object_size(ov), 1);
    json_t *o = json_object_get(json_object_get(cmp, "overall"), "geomean_ratio");
    expect(bmf, "overall/head", "ab-ratio", sqrt(1.1025 * 511000.0 / 510000.0),
           json_number_value(json_array_get(
               json_object_get(json_object_get(cmp, "overall"), "interval"), 0)),
           json_number_value(json_array_get(
               json_object_get(json_object_get(cmp, "overall"), "interval"), 1)));
    assert_near(json_number_value(json_object_get(measure(bmf, "overall/head", "ab-ratio"),
                                                  "value")),
                json_number_value(o), 1e-12);

    /* gab: 3 x 2 HEAD figures, 2 group ratios, the overall ratio. */
    assert_int_equal(check_gab(gab), 9);
    json_t *e = entry(gab, "sequential/limit_500/depth 1/head/ab-ratio");
    assert_string_equal(json_string_value(json_object_get(e, "unit")), "x");
    assert_near(json_number_value(json_object_get(e, "value")), 1.1025, 1e-12);
    assert_string_equal(json_string_value(json_object_get(e, "range")), "95% CI [1.0900, 1.1200]");
    /* The verdict and its evidence, Holm's level as the comparison has it. */
    char want[256];
    snprintf(want, sizeof want,
             "HEAD / BASE: slower (orders faster/slower/tied 0/12/0, p = 0.00049, Holm level %.2g)",
             json_number_value(json_object_get(json_array_get(groups, 0), "holm_level")));
    assert_string_equal(json_string_value(json_object_get(e, "extra")), want);
    e = entry(gab, "pipelined/limit_1/depth 10/head/ab-ratio");
    assert_non_null(strstr(json_string_value(json_object_get(e, "extra")),
                           "no change detected (orders faster/slower/tied 6/6/0"));
    e = entry(gab, "overall/head/ab-ratio");
    const char *x = json_string_value(json_object_get(e, "extra"));
    const char *head = "HEAD / BASE: geometric mean over 2 groups (0 faster, 1 slower, 1 no "
                       "change detected, 1 failed)";
    assert_true(strncmp(x, head, strlen(head)) == 0);
    assert_string_equal(x + strlen(x) - strlen("; gate failed"), "; gate failed");
    entry(gab, "sequential/limit_1/depth 1/head/latency");
    json_decref(bmf);
    json_decref(gab);
    json_decref(cmp);
    no_temp_files();
    free(out);
    free(err);
}

/* ---- the atomic write and bad paths -------------------------------------------------------- */

static void test_atomic_replace(void **state)
{
    (void)state;
    const char *path = tmp("old.json");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old\n", f);
    assert_int_equal(fclose(f), 0);
    struct stat before, after;
    assert_int_equal(stat(path, &before), 0);
    char *out, *err;
    const char *const args[] = {"--export-bencher", path, FIXTURES "a.json", NULL};
    assert_int_equal(run(&out, &err, args), 0);
    assert_int_equal(stat(path, &after), 0);
    /* A new file renamed over the old one, not the old one rewritten in place:
     * a reader sees the old file or the new one, never half of one. */
    assert_true(before.st_ino != after.st_ino);
    json_t *bmf = load(path);
    assert_int_equal(check_bmf(bmf), 9);
    json_decref(bmf);
    no_temp_files();
    free(out);
    free(err);
}

static void test_bad_path(void **state)
{
    (void)state;
    char *out, *err, *plain_out, *plain_err;
    const char *const plain[] = {FIXTURES "a.json", NULL};
    assert_int_equal(run(&plain_out, &plain_err, plain), 0);
    /* A directory that does not exist: the other file and stdout still written. */
    unlink(tmp("g_ok.json"));
    const char *const args[] = {"--export-bencher", tmp("nodir/b.json"), "--export-gab",
                                tmp("g_ok.json"), FIXTURES "a.json", NULL};
    assert_int_equal(run(&out, &err, args), 1);
    char want[1024];
    snprintf(want, sizeof want, "aggregate: %s: cannot write: No such file or directory\n",
             tmp("nodir/b.json"));
    assert_string_equal(err, want);
    assert_string_equal(out, plain_out);
    json_t *gab = load(tmp("g_ok.json"));
    assert_int_equal(check_gab(gab), 18);
    json_decref(gab);
    free(out);
    free(err);

    /* A directory as the file: the rename fails; its temporary file is removed. */
    assert_int_equal(mkdir(tmp("adir"), 0755), 0);
    const char *const args2[] = {"--export-gab", tmp("adir"), FIXTURES "a.json", NULL};
    assert_int_equal(run(&out, &err, args2), 1);
    snprintf(want, sizeof want, "aggregate: %s: cannot write: Is a directory\n", tmp("adir"));
    assert_string_equal(err, want);
    assert_string_equal(out, plain_out);
    no_temp_files();
    free(out);
    free(err);

    /* A/B mode: the comparison and its Markdown still written, exit 1. */
    unlink(tmp("cmp.md"));
    const char *const args3[] = {"--ab", "base:head", "--markdown", tmp("cmp.md"),
                                 "--export-bencher", tmp("nodir/b.json"), FIXTURES "abx.json", NULL};
    assert_int_equal(run(&out, &err, args3), 1);
    snprintf(want, sizeof want, "aggregate: %s: cannot write: No such file or directory\n",
             tmp("nodir/b.json"));
    assert_string_equal(err, want);
    assert_non_null(strstr(out, "A/B: head (HEAD) vs base (BASE)"));
    char *md = slurp(tmp("cmp.md"));
    assert_non_null(md);
    assert_non_null(strstr(md, "pgclientbench A/B"));
    free(md);
    free(out);
    free(err);

    /* No value: bad usage. */
    const char *const args4[] = {FIXTURES "a.json", "--export-gab", NULL};
    assert_int_equal(run(&out, &err, args4), 2);
    assert_non_null(strstr(err, "--export-gab"));
    free(out);
    free(err);
    free(plain_out);
    free(plain_err);
}

static int setup(void **state)
{
    (void)state;
    const char *b = getenv("PGCB_BUILD");
    snprintf(aggregate, sizeof aggregate, "%s/aggregate", b && *b ? b : "build");
    if (access(aggregate, X_OK) != 0) {
        fprintf(stderr, "test_aggregate_export: %s: %s (make build/aggregate)\n", aggregate,
                strerror(errno));
        return -1;
    }
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    const char *files[] = {"stdout", "stderr", "b.json", "g.json", "b2.json", "cmp.json",
                           "ab_b.json", "ab_g.json", "old.json", "g_ok.json", "cmp.md"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        unlink(tmp(files[i]));
    rmdir(tmp("adir"));
    rmdir(tmpdir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranking_one_run),
        cmocka_unit_test(test_ranking_two_runs),
        cmocka_unit_test(test_ab),
        cmocka_unit_test(test_atomic_replace),
        cmocka_unit_test(test_bad_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
