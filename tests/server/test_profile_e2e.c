/*
 * test_profile_e2e.c -- profiled runs end to end (issue 28, runner/profile/profile.h,
 * docs/profiling.md) against the real server tests/run.sh started, with
 * the real perf, the viewer half's fold.py (build/profile/fold.py, or
 * $PGCB_PROFILE_FOLD) and flame-dir: a few seconds each, on tiny budgets.
 *
 *   - null and libpq_sync profiled: the JSON's run-level and per-cell
 *     profile blocks, the files they name; libpq_sync's client stacks run
 *     whole from the driver through libpq (pq_run_batch_params, then
 *     PQgetResult: PQexecPrepared itself tail-calls the static PQexecFinish
 *     in Debian's optimised libpq, so it seldom shows), its backend's
 *     through PortalRun (exec_execute_message is static and stripped); the
 *     null driver has a client profile and no backend one; the console's
 *     header and top table;
 *   - a Node.js pg client's stacks name pg's JavaScript frames (JIT, _[j]);
 *   - the warm-up is never sampled (a null driver's 1.5 s of it against 0.2 s
 *     measured);
 *   - profile = bad, and profile = on without perf (PGCB_PERF=/nonexistent),
 *     stop before measuring with one line; --profile=try runs unprofiled and
 *     says why in the JSON;
 *   - perf killed in the middle of a group: the figures are kept, the
 *     profile is marked failed with the reason.
 *
 * perf, its permission and fold.py are what CI is meant to have: a missing
 * one fails these tests (saying which), never skips them.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
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

static const char *const env_plain[] = {"BENCH_TIME_MS", "BENCH_QUERIES", "PGAPPNAME",
                                        "PGCB_PROFILE_CALL_GRAPH", "PGCB_PROFILE_FREQUENCY",
                                        NULL};

static void show_unless(const struct e2e_run *r, int want)
{
    if (r->status != want)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r->status, r->out, r->err);
}

/* [bench] with `extra` lines, [server] with the benchmark rows. */
static const char *head(const char *extra)
{
    static char h[1024];
    snprintf(h, sizeof h,
             "[bench]\ntime_ms = 400\nqueries = 100\nwarmup_ms = 50\norders = 2\n%s"
             "[server]\nsetup = %s/sql/benchmark_rows.sql\n", extra, e2e_top);
    return h;
}

#define QUERY_100                                                                           \
    "[query.limit_100]\nsql = SELECT id, int_value, string_value FROM benchmark_rows ORDER BY " \
    "id LIMIT 100\nrows = 100\n[suite.s]\n"

/* TMP/<rel> (rel: a path in the JSON, relative to the result's directory). */
static char *beside(const char *rel)
{
    assert_non_null(rel);
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", e2e_tmp, rel) > 0);
    return p;
}

static int contains_file(const char *rel, const char *needle)
{
    char *path = beside(rel);
    char *text = e2e_slurp(path);
    int found = strstr(text, needle) != NULL;
    free(text);
    free(path);
    return found;
}

/* A line of the file at rel holding both needles. */
static int line_with(const char *rel, const char *a, const char *b)
{
    char *path = beside(rel);
    FILE *f = fopen(path, "r");
    free(path);
    if (!f)
        return 0;
    static char line[1 << 16];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, a) && strstr(line, b);
    fclose(f);
    return found;
}

static void assert_file(const char *rel)
{
    char *path = beside(rel);
    if (!e2e_exists(path))
        fail_msg("%s: missing", path);
    free(path);
}

static void test_c_drivers(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.null]\npath = %s/drivers/null.so\nrows = 100\n" QUERY_100,
             e2e_build, e2e_build);
    const char *ini = e2e_write_file("cprof", head("profile = on\n"), body);
    const char *out = e2e_json_path("cprof");
    struct e2e_run r = e2e_run_runner(ini, out, env_plain, NULL, 0, NULL);
    show_unless(&r, 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "profiled (perf cpu-clock, 499 Hz"));
    assert_non_null(strstr(r.out, "not comparable with unprofiled runs"));
    assert_non_null(strstr(r.out, "\nProfile (self time"));
    assert_non_null(strstr(r.out, "\n  libpq_sync client ("));
    assert_non_null(strstr(r.out, "\n  libpq_sync backend ("));
    assert_non_null(strstr(r.out, "\n  null client ("));
    assert_non_null(strstr(r.out, "\n  null backend: none (a driver without I/O"));
    /* The top table is narrow. */
    const char *t = strstr(r.out, "\nProfile (self time");
    for (const char *l = t + 1; l && *l && strncmp(l, "Profiles:", 9) != 0;) {
        const char *nl = strchr(l, '\n');
        size_t chars = 0; /* UTF-8: count code points */
        for (const char *c = l; c < (nl ? nl : l + strlen(l)); c++)
            chars += ((unsigned char)*c & 0xC0) != 0x80;
        assert_true(chars <= 100);
        if (strncmp(l, "Ranking", 7) == 0)
            break;
        l = nl ? nl + 1 : NULL;
    }

    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_string_equal(res.profile.mode, "on");
    assert_true(res.profile.profiled);
    assert_string_equal(res.profile.event, "cpu-clock");
    assert_int_equal(res.profile.frequency, 499);
    assert_string_equal(res.profile.call_graph, "dwarf,16384");
    assert_string_equal(res.profile.dir, "cprof.profiles");
    /* build/profile/flame-dir made the pages, and the run says where. */
    assert_non_null(res.profile.index);
    assert_string_equal(res.profile.index, "cprof.profiles/index.html");
    assert_file(res.profile.index);
    assert_file("cprof.profiles/s.limit_100.d1/index.html");
    assert_non_null(strstr(r.out, "cprof.profiles/index.html (flame graphs"));
    const struct pgcb_res_cell *pq = &res.groups[0].cells[0], *nul = &res.groups[0].cells[1];
    assert_int_equal(pq->status, PGCB_CELL_OK);
    assert_true(pq->median_ns > 0);

    const struct pgcb_res_prof_side *cl = &pq->profile.client, *bk = &pq->profile.backend;
    assert_true(pq->profile.profiled);
    assert_null(pq->profile.failed);
    assert_true(cl->recorded && bk->recorded);
    if (cl->failed || bk->failed)
        fail_msg("client: %s; backend: %s", cl->failed ? cl->failed : "ok",
                 bk->failed ? bk->failed : "ok");
    assert_string_equal(cl->perf, "cprof.profiles/s.limit_100.d1/libpq_sync.client.perf");
    assert_string_equal(cl->folded, "cprof.profiles/s.limit_100.d1/libpq_sync.client.folded");
    assert_string_equal(cl->top, "cprof.profiles/s.limit_100.d1/libpq_sync.client.top.tsv");
    assert_string_equal(cl->call_graph, "dwarf,16384");
    assert_file(cl->perf);
    assert_file(bk->perf);
    assert_true(cl->samples > 0 && bk->samples > 0);
    assert_true(cl->ncategories > 0 && cl->nfunctions > 0);
    double sum = 0;
    for (size_t i = 0; i < cl->ncategories; i++)
        sum += cl->categories[i].share;
    assert_true(fabs(sum - 1) < 1e-6);
    /* ns per query = share x the cell's CPU per query. */
    assert_true(fabs(cl->categories[0].ns_per_query -
                     cl->categories[0].share * pq->cpu_ns_per_query) < 1e-3);
    assert_true(fabs(bk->functions[0].ns_per_query -
                     bk->functions[0].share * pq->backend.cpu_ns_per_query) < 1e-3);
    /* Whole stacks: from the driver's frame through libpq (DWARF). */
    if (!line_with(cl->folded, "pq_run_batch_params;", "PQgetResult"))
        fail_msg("%s: no stack through pq_run_batch_params into libpq's PQgetResult", cl->folded);
    if (!contains_file(bk->folded, "PortalRun"))
        fail_msg("%s: no PortalRun frame", bk->folded);
    assert_true(contains_file(bk->folded, "postgres;"));
    /* The null driver: its client alone. */
    assert_true(nul->profile.profiled);
    assert_true(nul->profile.client.recorded && nul->profile.client.samples > 0);
    assert_false(nul->profile.backend.recorded);
    assert_non_null(strstr(nul->profile.backend.none, "without I/O"));
    assert_true(contains_file(nul->profile.client.folded, "nulldrv_run_batch"));
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* V8's isolate-*-v8.log files in the working directory (the adapters run
 * in the runner's). */
static size_t count_v8_logs(void)
{
    size_t n = 0;
    DIR *d = opendir(".");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        n += strncmp(e->d_name, "isolate-", 8) == 0 && len > 7 &&
             strcmp(e->d_name + len - 7, "-v8.log") == 0;
    }
    if (d)
        closedir(d);
    return n;
}

static void test_node_pg(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.pg]\npath = %s/drivers/bridge.so\nadapter = node\nclient = pg\n" QUERY_100,
             e2e_build);
    const char *ini = e2e_write_file("nodeprof", head("profile = on\n"), body);
    const size_t v8_logs = count_v8_logs();
    const char *out = e2e_json_path("nodeprof");
    struct e2e_run r = e2e_run_runner(ini, out, env_plain, NULL, 0, NULL);
    show_unless(&r, 0);
    assert_int_equal(r.status, 0);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    const struct pgcb_res_prof_side *cl = &res.groups[0].cells[0].profile.client;
    assert_true(cl->recorded && cl->samples > 0);
    assert_null(cl->failed);
    assert_string_equal(cl->call_graph, "fp");
    /* A JIT frame of the client library (pg, pg-protocol). */
    if (!line_with(cl->folded, "node_modules/pg", "_[j]"))
        fail_msg("%s: no JavaScript frame of pg", cl->folded);
    /* The adapter's JIT map is gone after the run (the bridge removes it,
     * and the runner those of every recorded client). */
    char *perf = beside(cl->perf), *cmd = NULL;
    assert_true(asprintf(&cmd, "perf report -i '%s' --header-only 2>/dev/null", perf) > 0);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[4096];
    int pids_seen = 0;
    while (fgets(line, sizeof line, p)) {
        const char *at = strstr(line, "# cmdline :") ? strstr(line, " -p ") : NULL;
        for (const char *q = at ? at + 4 : NULL; q && *q >= '0' && *q <= '9';) {
            char map[64];
            snprintf(map, sizeof map, "/tmp/perf-%d.map", atoi(q));
            if (e2e_exists(map))
                fail_msg("%s is left after the run", map);
            pids_seen++;
            q += strspn(q, "0123456789");
            q = *q == ',' ? q + 1 : NULL;
        }
    }
    pclose(p);
    assert_true(pids_seen >= 2); /* the host and its node adapter */
    /* Nor V8's own log, which --perf-basic-prof turns on. */
    assert_int_equal(count_v8_logs(), v8_logs);
    free(cmd);
    free(perf);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* The recordings are on only around the driver's measured jobs: a null
 * driver (busy all the time it runs) warmed up for 1.5 s and measured for
 * 0.2 s has the samples of the 0.2 s, not of the warm-up (which alone would
 * give about 750 at 499 Hz). */
static void test_warmup_not_sampled(void **state)
{
    (void)state;
    char body[1024];
    snprintf(body, sizeof body, "[driver.null]\npath = %s/drivers/null.so\nrows = 100\n" QUERY_100,
             e2e_build);
    const char *ini = e2e_write_file("warm", "[bench]\ntime_ms = 200\nqueries = 10\n"
                                             "warmup_ms = 1500\norders = 2\nprofile = on\n",
                                     body);
    const char *out = e2e_json_path("warm");
    struct e2e_run r = e2e_run_runner(ini, out, env_plain, NULL, 0, NULL);
    show_unless(&r, 0);
    assert_int_equal(r.status, 0);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    const struct pgcb_res_cell *c = &res.groups[0].cells[0];
    const uint64_t samples = c->profile.client.samples;
    print_message("null: %llu samples over %.0f ms of timed batches (warm-up 1500 ms)\n",
                  (unsigned long long)samples, (double)c->wall_ns / 1e6);
    assert_true(samples > 0);
    /* At most the timed time's worth, with room for the blocks' edges
     * (the job is longer than its timed batches) -- far below the warm-up's. */
    assert_true(samples < 300);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

static void test_bad_and_missing_perf(void **state)
{
    (void)state;
    char body[1024];
    snprintf(body, sizeof body, "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n" QUERY_100,
             e2e_build);
    /* profile = bad: file:line and the key. */
    const char *ini = e2e_write_file("badprof", head("profile = bad\n"), body);
    const char *out = e2e_json_path("badprof");
    struct e2e_run r = e2e_run_runner(ini, out, env_plain, NULL, 0, NULL);
    assert_int_equal(r.status, 1);
    char want[600];
    snprintf(want, sizeof want, "runner: %s:6: [bench] profile: 'bad' is not off, on or try", ini);
    assert_non_null(strstr(r.err, want));
    assert_null(strchr(strchr(r.err, '\n') + 1, '\n')); /* one line */
    assert_false(e2e_exists(out));
    e2e_run_free(&r);

    /* profile = on without perf: stops before measuring, saying what to install. */
    const char *env_noperf[] = {"BENCH_TIME_MS", "BENCH_QUERIES", "PGAPPNAME",
                                "PGCB_PERF=/nonexistent/perf", NULL};
    ini = e2e_write_file("noperf", head("profile = on\n"), body);
    out = e2e_json_path("noperf");
    r = e2e_run_runner(ini, out, env_noperf, NULL, 0, NULL);
    assert_int_equal(r.status, 1);
    snprintf(want, sizeof want, "runner: %s:6: [bench] profile = on: perf cannot be run", ini);
    assert_non_null(strstr(r.err, want));
    assert_non_null(strstr(r.err, "apt-get install linux-perf"));
    assert_null(strchr(strchr(r.err, '\n') + 1, '\n'));
    assert_false(e2e_exists(out));
    assert_null(strstr(r.out, "limit_100")); /* nothing measured */
    e2e_run_free(&r);

    /* The same with --profile=try: unprofiled, and the JSON says why. */
    out = e2e_json_path("tryprof");
    r = e2e_run_runner(ini, out, env_noperf, "--profile=try", 0, NULL);
    show_unless(&r, 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "runner: note: --profile=try: perf cannot be run"));
    assert_non_null(strstr(r.err, "the run goes on unprofiled"));
    assert_non_null(strstr(r.out, "Profile  : not profiled (profile = try)"));
    assert_null(strstr(r.out, "\nProfile (self time"));
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_string_equal(res.profile.mode, "try");
    assert_false(res.profile.profiled);
    assert_non_null(strstr(res.profile.why, "linux-perf"));
    assert_false(res.groups[0].cells[0].profile.profiled);
    assert_true(res.groups[0].cells[0].median_ns > 0);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* Kill every perf the runner started (its children named perf), waiting
 * for one to exist (the recordings start at the first measured order). */
static void kill_perf(pid_t runner, void *arg)
{
    int *killed = arg;
    for (int tries = 0; tries < 300 && !*killed; tries++) {
        pid_t kids[64];
        int n = e2e_children(runner, kids, 64);
        for (int i = 0; i < n; i++) {
            char path[64], comm[64] = "";
            snprintf(path, sizeof path, "/proc/%d/comm", (int)kids[i]);
            FILE *f = fopen(path, "r");
            if (f) {
                if (!fgets(comm, sizeof comm, f))
                    comm[0] = '\0';
                fclose(f);
            }
            if (strncmp(comm, "perf", 4) == 0 && kill(kids[i], SIGKILL) == 0)
                (*killed)++;
        }
        if (!*killed)
            usleep(10000);
    }
}

static void test_perf_killed(void **state)
{
    (void)state;
    char body[1024];
    snprintf(body, sizeof body, "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n" QUERY_100,
             e2e_build);
    char full[4096];
    snprintf(full, sizeof full, "[server]\nsetup = %s/sql/benchmark_rows.sql\n%s", e2e_top, body);
    const char *ini = e2e_write_file("killperf", "[bench]\ntime_ms = 3000\nqueries = 100\n"
                                                 "warmup_ms = 50\norders = 2\nprofile = on\n",
                                     full);
    const char *out = e2e_json_path("killperf");
    int killed = 0;
    struct e2e_run r = e2e_run_runner_act(ini, out, env_plain, "Budget   :", 100, kill_perf,
                                          &killed);
    show_unless(&r, 0);
    assert_true(killed >= 1);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "profile failed (its figures are kept)"));
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    const struct pgcb_res_cell *c = &res.groups[0].cells[0];
    assert_int_equal(c->status, PGCB_CELL_OK);
    assert_true(c->median_ns > 0 && c->samples > 0);
    assert_true(c->profile.profiled);
    const char *why = c->profile.client.failed ? c->profile.client.failed
                                               : c->profile.backend.failed;
    assert_non_null(why);
    assert_non_null(strstr(why, "perf killed by signal 9"));
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

static int setup(void **state)
{
    (void)state;
    return e2e_setup("test_profile_e2e");
}

static int teardown(void **state)
{
    (void)state;
    return e2e_teardown();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_c_drivers),
        cmocka_unit_test(test_node_pg),
        cmocka_unit_test(test_warmup_not_sampled),
        cmocka_unit_test(test_bad_and_missing_perf),
        cmocka_unit_test(test_perf_killed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
