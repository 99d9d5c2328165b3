/*
 * test_bridge_e2e.c -- the runner with bridged clients, end to end, against
 * the real PostgreSQL that tests/run.sh started: a tiny run of a client of
 * each shipped adapter beside libpq_sync (valid, self-timed figures in the
 * JSON and under the tables); the fake adapter
 * (tests/fixtures/adapters/fake_adapter.py) skipping values (INVALID),
 * crashing and hanging (that group FAILED, naming driver, adapter and group;
 * the run and the other groups kept); bad [driver] keys (one line naming
 * file:line, exit 1, no result); and no password in the output, the result
 * or any process's command line or environment while a run is going on.
 */
#include <dirent.h>
#include <poll.h>
#include <sys/wait.h>
#include <time.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pgcb/driver.h"
#include "result.h"
#include "../lib/e2e.h"

#define SQL_LIMIT(n) "SELECT * FROM benchmark_rows ORDER BY id LIMIT " #n

static char fake_cmd[1024];

static const char *queries =
    "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
    "[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n";

/* A [driver.NAME] section of the fake adapter with its options. */
static void fake_section(char *buf, size_t n, const char *name, const char *options)
{
    snprintf(buf, n, "[driver.%s]\npath = %s/drivers/bridge.so\ncommand = %s\nclient = fake\n"
             "options = %s\n", name, e2e_build, fake_cmd, options);
}

static const struct pgcb_res_cell *cell(const struct pgcb_result *r, size_t g, const char *label)
{
    for (size_t d = 0; d < r->ndrivers; d++)
        if (strcmp(r->drivers[d].label, label) == 0)
            return &r->groups[g].cells[d];
    fail_msg("no driver %s in the result", label);
    return NULL;
}

/* The cell of `label` in group g measured: else fail with its reason. */
static void expect_ok(const struct pgcb_result *r, size_t g, const char *label)
{
    const struct pgcb_res_cell *c = cell(r, g, label);
    if (c->status != PGCB_CELL_OK)
        fail_msg("%s in group %zu: %s: %s", label, g + 1, pgcb_cell_status_str(c->status),
                 c->error ? c->error : "");
}

static int setup(void **state)
{
    (void)state;
    if (e2e_setup("test_bridge_e2e"))
        return 1;
    snprintf(fake_cmd, sizeof fake_cmd, "/usr/bin/python3 %s/tests/fixtures/adapters/fake_adapter.py",
             e2e_top);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return e2e_teardown();
}

/* One client of each adapter beside libpq_sync: all valid, the same
 * checksums, the bridge's figures recorded. */
static void test_clients_in_a_run(void **state)
{
    (void)state;
    char body[4096];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.pg]\npath = %s/drivers/bridge.so\nadapter = node\nclient = pg\n"
             "[driver.psycopg]\npath = %s/drivers/bridge.so\nadapter = python\nclient = psycopg\n"
             "[driver.pgx]\npath = %s/drivers/bridge.so\nadapter = go\nclient = pgx\n"
             "[driver.tokio_postgres]\npath = %s/drivers/bridge.so\nadapter = rust\n"
             "client = tokio-postgres\n"
             "[driver.ruby_pg]\npath = %s/drivers/bridge.so\nadapter = ruby\nclient = pg\n"
             /* the JIT warm-up bounded: these budgets are tiny */
             "[driver.pgjdbc]\npath = %s/drivers/bridge.so\nadapter = java\nclient = pgjdbc\n"
             "options = jit_warmup_ms=300\n"
             "%s[suite.s]\ndepth = 1 10\n",
             e2e_build, e2e_build, e2e_build, e2e_build, e2e_build, e2e_build, e2e_build, queries);
    /* 4 execution orders (a Williams square), not the 24 permutations: what
     * is checked here is validity and the recorded figures, not a verdict. */
    char head[600];
    snprintf(head, sizeof head, "[bench]\ntime_ms = 150\nqueries = 40\nwarmup_ms = 20\n"
             "orders = 4\n[server]\nsetup = %s/sql/benchmark_rows.sql\n", e2e_top);
    const char *ini = e2e_write_file("clients", head, body);
    const char *out = e2e_json_path("clients");
    const char *env[] = {"BENCH_TIME_MS=200", "BENCH_QUERIES=20", "PGCB_SERVER_CPUS", NULL};
    struct e2e_run r = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "pg: self-timed in "));
    assert_non_null(strstr(r.out, "peak RSS of the client's processes"));
    assert_non_null(strstr(r.out, "Client CPU is the adapter process's, all its threads"));
    assert_non_null(strstr(r.out, "pg 8.23.1 (pure JavaScript"));
    assert_non_null(strstr(r.out, "psycopg 3.3.9 (pq.__impl__ binary: C core"));
    assert_non_null(strstr(r.out, "tokio-postgres 0.7.18 (postgres-protocol"));
    assert_non_null(strstr(r.out, "pg 1.4.5 (C extension, libpq"));
    assert_non_null(strstr(r.out, "pgjdbc 42.7.14 (prepareThreshold=1, text, one query at a time)"));

    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ndrivers, 7);
    assert_int_equal(res.ngroups, 4);
    for (size_t d = 1; d < 7; d++) {
        assert_true(res.drivers[d].caps & PGCB_CAP_SELF_TIMED);
        assert_non_null(strstr(res.drivers[d].links, "bridge protocol 1"));
    }
    for (size_t g = 0; g < res.ngroups; g++) {
        const struct pgcb_res_cell *ref = cell(&res, g, "libpq_sync");
        assert_int_equal(ref->blocks, 0);
        assert_true(isnan(ref->overhead_ns_per_block));
        /* The client's memory: the host alone for a C driver, the host and
         * its adapter for a bridged one. */
        assert_int_equal(ref->mem_known, 1);
        assert_int_equal(ref->mem_processes, 1);
        assert_true(ref->mem_level_kib > 0 && ref->mem_peak_kib >= ref->mem_level_kib);
        for (size_t d = 1; d < 7; d++) {
            const struct pgcb_res_cell *c = &res.groups[g].cells[d];
            if (c->status != PGCB_CELL_OK)
                fail_msg("%s in group %zu: %s", res.drivers[d].label, g, c->error);
            assert_int_equal(c->checksum, ref->checksum);
            assert_true(c->blocks >= 2); /* at least one per order */
            assert_true(c->samples >= c->blocks);
            assert_true(c->overhead_ns_per_block > 0);
            assert_true(c->overhead_cpu_ns_per_block > 0);
            assert_true(c->cpu_ns_per_query > 0);
            assert_true(c->median_ns > 0);
            /* Not "above libpq_sync's host": under AddressSanitizer a host
             * alone (25.7 MiB) outweighed tokio-postgres's host and adapter. */
            if (!c->mem_known || c->mem_processes < 2 || c->mem_level_kib == 0 ||
                c->mem_peak_kib < c->mem_level_kib)
                fail_msg("%s in group %zu: memory known %d, %d processes, %llu KiB after the "
                         "warm-up, peak %llu KiB (libpq_sync's host: %llu KiB)",
                         res.drivers[d].label, g, c->mem_known, c->mem_processes,
                         (unsigned long long)c->mem_level_kib,
                         (unsigned long long)c->mem_peak_kib,
                         (unsigned long long)ref->mem_level_kib);
        }
    }
    pgcb_result_free(&res);
    /* The JSON has the fields for the bridged drivers only. */
    char *json = e2e_slurp(out);
    assert_non_null(strstr(json, "\"overhead_ns_per_block\""));
    assert_non_null(strstr(json, "\"self_timed\""));
    assert_non_null(strstr(json, "\"after_warmup_kib\""));
    free(json);
    e2e_run_free(&r);
}

/* Clients that changed a value alike (pg and postgres: a JavaScript Date
 * keeps milliseconds of a timestamptz with microseconds). By the clients'
 * majority nobody is right (two against two: every client INVALID); with [bench]
 * checksum_reference = libpq_sync, libpq_sync's checksum is the group's,
 * both clients are INVALID, and each line says what the client delivered
 * (the bridge's note, ABI 1.4). rawwire agrees with libpq_sync either way. */
static void run_ts(const char *name, const char *bench, struct pgcb_result *res)
{
    char head[800], body[4096];
    snprintf(head, sizeof head, "[bench]\nwarmup_ms = 20\n%s[server]\nsetup = %s/sql/benchmark_rows.sql\n",
             bench, e2e_top);
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n"
             "[driver.pg]\npath = %s/drivers/bridge.so\nadapter = node\nclient = pg\n"
             "[driver.postgres]\npath = %s/drivers/bridge.so\nadapter = node\nclient = postgres\n"
             "[query.ts]\nsql = SELECT 7 AS n, '2000-01-01 00:00:00.123456+00'::timestamptz AS ts\n"
             "rows = 1\n[suite.s]\ndepth = 1\n",
             e2e_build, e2e_build, e2e_build, e2e_build);
    const char *ini = e2e_write_file(name, head, body);
    const char *out = e2e_json_path(name);
    const char *env[] = {"BENCH_TIME_MS=50", "BENCH_QUERIES=5", "PGCB_SERVER_CPUS", NULL};
    struct e2e_run r = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    if (r.status != 2)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 2); /* an invalid driver */
    char err[512];
    assert_int_equal(pgcb_result_read(out, res, err, sizeof err), 0);
    assert_true(cell(res, 0, "rawwire")->checksum == cell(res, 0, "libpq_sync")->checksum);
    assert_true(cell(res, 0, "pg")->checksum == cell(res, 0, "postgres")->checksum);
    assert_true(cell(res, 0, "pg")->checksum != cell(res, 0, "libpq_sync")->checksum);
    e2e_run_free(&r);
}

static void test_invalid_says_what_the_client_made(void **state)
{
    (void)state;
    struct pgcb_result res;

    /* the majority: pg and postgres against libpq_sync and rawwire, none */
    run_ts("note_majority", "", &res);
    assert_int_equal(cell(&res, 0, "libpq_sync")->status, PGCB_CELL_INVALID);
    assert_non_null(strstr(cell(&res, 0, "libpq_sync")->error, "no checksum has a majority"));
    assert_int_equal(cell(&res, 0, "pg")->status, PGCB_CELL_INVALID);
    assert_null(res.checksum_reference);
    pgcb_result_free(&res);

    run_ts("note_reference", "checksum_reference = libpq_sync\n", &res);
    assert_int_equal(cell(&res, 0, "libpq_sync")->status, PGCB_CELL_OK);
    assert_int_equal(cell(&res, 0, "rawwire")->status, PGCB_CELL_OK);
    assert_string_equal(res.checksum_reference, "libpq_sync");
    for (int k = 0; k < 2; k++) {
        const struct pgcb_res_cell *c = cell(&res, 0, k ? "postgres" : "pg");
        assert_int_equal(c->status, PGCB_CELL_INVALID);
        if (!strstr(c->error, "libpq_sync's ([bench] checksum_reference)") ||
            !strstr(c->error, "column 2 \"ts\" (timestamptz): the client delivered Date"))
            fail_msg("%s's line: %s", k ? "postgres" : "pg", c->error);
    }
    pgcb_result_free(&res);
}

/* threads = 2: two adapters per client, one connection each, both pinned;
 * the pooled samples valid. */
static void test_two_threads(void **state)
{
    (void)state;
    char body[4096];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.postgres]\npath = %s/drivers/bridge.so\nadapter = node\nclient = postgres\n"
             "[driver.asyncpg]\npath = %s/drivers/bridge.so\nadapter = python\nclient = asyncpg\n"
             "%s[suite.t]\ndepth = 1\nthreads = 2\nqueries = limit_100\n",
             e2e_build, e2e_build, e2e_build, queries);
    const char *ini = e2e_write_ini("threads", body);
    const char *out = e2e_json_path("threads");
    const char *env[] = {"BENCH_TIME_MS=200", "BENCH_QUERIES=40", NULL};
    struct e2e_run r = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "pinned with their measuring threads to CPU 0,0"));
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ngroups, 1);
    assert_int_equal(res.groups[0].threads, 2);
    for (size_t d = 0; d < res.ndrivers; d++) {
        const struct pgcb_res_cell *c = &res.groups[0].cells[d];
        assert_int_equal(c->status, PGCB_CELL_OK);
        assert_int_equal(c->checksum, res.groups[0].cells[0].checksum);
        assert_true(c->samples >= 40); /* two threads' floors */
    }
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* An adapter whose timed batches skip a column's values: INVALID in every
 * group, with the fold's message; libpq_sync and a faithful fake valid. */
static void test_skipping_adapter_is_invalid(void **state)
{
    (void)state;
    char body[8192], good[3000], bad[3000];
    fake_section(good, sizeof good, "fake_ok", "io=yes");
    fake_section(bad, sizeof bad, "fake_skip", "io=yes fault=skip_str at=block");
    snprintf(body, sizeof body, "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n%s%s%s"
             "[suite.s]\ndepth = 1\n", e2e_build, good, bad, queries);
    const char *ini = e2e_write_ini("skip", body);
    const char *out = e2e_json_path("skip");
    const char *env[] = {"BENCH_TIME_MS=150", "BENCH_QUERIES=20", NULL};
    struct e2e_run r = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "fake_skip (INVALID)"));
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    for (size_t g = 0; g < res.ngroups; g++) {
        assert_int_equal(cell(&res, g, "libpq_sync")->status, PGCB_CELL_OK);
        assert_int_equal(cell(&res, g, "fake_ok")->status, PGCB_CELL_OK);
        const struct pgcb_res_cell *c = cell(&res, g, "fake_skip");
        assert_int_equal(c->status, PGCB_CELL_INVALID);
        assert_non_null(strstr(c->error, "did not match the rows the client returned: the "
                                         "adapter did not consume every value"));
    }
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* An adapter that crashes in its second group, and one that hangs there:
 * those groups FAILED with one line naming driver, adapter and group; the
 * other groups and drivers measured; the result written (exit 2). The batch
 * timeout is 4 s: at 1.5 s libpq_sync itself failed beside another make
 * test (the hang costs the timeout once). */
static void test_crash_and_hang_fail_their_group(void **state)
{
    (void)state;
    char body[8192], crash[3000], hang[3000];
    /* The fourth dump: after the priming of two queries and group 1's first
     * batch, group 2's first batch. */
    fake_section(crash, sizeof crash, "fake_crash", "io=yes fault=crash at=dump after=3");
    fake_section(hang, sizeof hang, "fake_hang", "io=yes fault=hang at=dump after=3");
    snprintf(body, sizeof body, "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n%s%s%s"
             "[suite.s]\ndepth = 1\n", e2e_build, crash, hang, queries);
    char head[800];
    snprintf(head, sizeof head, "[bench]\ntime_ms = 150\nqueries = 20\nwarmup_ms = 20\n"
             "batch_timeout_ms = 4000\n[server]\nsetup = %s/sql/benchmark_rows.sql\n", e2e_top);
    const char *ini = e2e_write_file("crash", head, body);
    const char *out = e2e_json_path("crash");
    struct e2e_run r = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    assert_int_equal(r.status, 2);
    /* The adapter died, its host did not: the note under group 2's table. */
    const char *g2 = strstr(r.out, "s / limit_100  (depth 1");
    assert_non_null(g2);
    assert_non_null(strstr(g2, "fake_crash: failed: first batch: adapter fake (client fake) was "
                               "killed by SIGSEGV (Segmentation fault) while answering run"));
    /* The hung one: its host killed, said at once on stderr. */
    assert_non_null(strstr(r.err, "runner: driver fake_hang timed out: no progress for 4000 ms"));
    assert_non_null(strstr(r.err, "in group s / limit_100 (depth 1)"));
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ngroups, 2);
    for (size_t g = 0; g < 2; g++)
        expect_ok(&res, g, "libpq_sync");
    const struct pgcb_res_cell *c0 = cell(&res, 0, "fake_crash"), *c1 = cell(&res, 1, "fake_crash");
    assert_int_equal(c0->status, PGCB_CELL_OK);
    assert_int_equal(c1->status, PGCB_CELL_FAILED);
    assert_non_null(strstr(c1->error, "adapter fake (client fake) was killed by SIGSEGV "
                                      "(Segmentation fault) while answering run"));
    const struct pgcb_res_cell *h1 = cell(&res, 1, "fake_hang");
    assert_int_equal(cell(&res, 0, "fake_hang")->status, PGCB_CELL_OK);
    assert_int_equal(h1->status, PGCB_CELL_FAILED);
    assert_non_null(strstr(h1->error, "timed out: no progress for 4000 ms"));
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* The JVM's faults (the Java adapter's null client on request, in the
 * timed blocks of LIMIT 100 only): one runs out of heap (the JVM ends,
 * -XX:+ExitOnOutOfMemoryError, saying why), one pauses past
 * batch_timeout_ms (its host is killed). The timeout is 10 s: beside
 * another make test the heap's exhaustion took over 3 s. Each fails its
 * cell with the reason; the LIMIT 1 group and libpq_sync are measured, the result is
 * written (exit 2). The plain build only. */
static void test_java_faults_fail_their_cell(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    /* What the bridge and the runner do with an adapter that dies or stops
     * answering is test_crash_and_hang_fail_their_group's, in both builds;
     * this is the JVM's side of it, the same in every build. */
    print_message("SKIP the JVM's faults: the adapter is the same in every build, the plain "
                  "build tests it\n");
    return;
#endif
    char body[4096], head[800];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.java_oom]\npath = %s/drivers/bridge.so\nadapter = java\nclient = null\n"
             "options = oom_rows=100 jit_warmup_ms=200\n"
             "[driver.java_pause]\npath = %s/drivers/bridge.so\nadapter = java\nclient = null\n"
             "options = pause_rows=100 pause_ms=30000 jit_warmup_ms=200\n"
             "%s[suite.s]\ndepth = 1\n", e2e_build, e2e_build, e2e_build, queries);
    snprintf(head, sizeof head, "[bench]\ntime_ms = 150\nqueries = 20\nwarmup_ms = 20\n"
             "batch_timeout_ms = 10000\n[server]\nsetup = %s/sql/benchmark_rows.sql\n", e2e_top);
    const char *ini = e2e_write_file("javafaults", head, body);
    const char *out = e2e_json_path("javafaults");
    struct e2e_run r = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    if (r.status != 2)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "runner: driver java_pause timed out: no progress for 10000 ms"));
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ngroups, 2);
    for (size_t g = 0; g < 2; g++)
        expect_ok(&res, g, "libpq_sync");
    assert_int_equal(cell(&res, 0, "java_oom")->status, PGCB_CELL_OK);
    assert_int_equal(cell(&res, 0, "java_pause")->status, PGCB_CELL_OK);
    const struct pgcb_res_cell *oom = cell(&res, 1, "java_oom"), *pause = cell(&res, 1, "java_pause");
    assert_int_equal(oom->status, PGCB_CELL_FAILED);
    if (!strstr(oom->error, "adapter java (client null) exited with status 3 while answering run: "
                            "Terminating due to java.lang.OutOfMemoryError: Java heap space"))
        fail_msg("java_oom's reason: %s", oom->error);
    assert_int_equal(pause->status, PGCB_CELL_FAILED);
    if (!strstr(pause->error, "timed out: no progress for 10000 ms"))
        fail_msg("java_pause's reason: %s", pause->error);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* Bad bridge keys: one line naming the file, line and driver; exit 1. */
static void test_bad_keys(void **state)
{
    (void)state;
    static const struct {
        const char *keys, *want;
    } cases[] = {
        {"adapter = node\n", "no client: set client ="},
        {"client = pg\n", "no adapter: set adapter = node, python, go, rust, ruby or java"},
        {"adapter = node\nclient = pg-nope\n", "adapter node (client pg-nope): "},
        {"adapter = node\nclient = pg\nruntime = /nonexistent/node\n",
         "cannot run '/nonexistent/node'"},
        {"adapter = node\nclient = pg\noptions = pipeline=sometimes\n", "pipeline"},
        {"adapter = cobol\nclient = x\n", "the shipped adapters are node, python, go, rust, ruby and java"},
        {"adapter = java\nclient = pgjdbc\nruntime = /nonexistent/java\n",
         "adapter java: /nonexistent/java: No such file or directory (apt-get install "
         "default-jdk-headless; scripts/install-deps.sh installs it)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[2048], name[32];
        snprintf(body, sizeof body, "[driver.b]\npath = %s/drivers/bridge.so\n%s%s"
                 "[suite.s]\ndepth = 1\n", e2e_build, cases[i].keys, queries);
        snprintf(name, sizeof name, "bad%zu", i);
        const char *ini = e2e_write_ini(name, body);
        struct e2e_run r = e2e_run_runner(ini, e2e_json_path(name), NULL, NULL, 0, NULL);
        assert_int_equal(r.status, 1);
        char want[1200];
        /* the section's line: after e2e_write_ini's six lines */
        snprintf(want, sizeof want, "runner: %s:7: [driver.b]: ", ini);
        if (!strstr(r.err, want) || !strstr(r.err, cases[i].want))
            fail_msg("case %zu: stderr \"%s\" lacks \"%s\" or \"%s\"", i, r.err, want,
                     cases[i].want);
        assert_int_equal(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err)); /* one line */
        assert_false(e2e_exists(e2e_json_path(name)));
        e2e_run_free(&r);
    }
}

/* A file of /proc/PID, NULs made spaces ("" if unreadable); the caller frees. */
static char *proc_file(const char *pid, const char *what)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/%s/%s", pid, what);
    FILE *f = fopen(path, "r");
    size_t cap = 1 << 16, n = 0, got;
    char *buf = calloc(cap, 1);
    while (f && buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    if (f)
        fclose(f);
    for (size_t i = 0; buf && i < n; i++)
        if (!buf[i])
            buf[i] = ' ';
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* Scan every process: 1 if a command line holds one of the passwords, 2 if
 * an adapter's environment does, 3 if no adapter runs; else 0. */
static int scan_processes(const char *pw1, const char *pw2)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int adapters = 0, rc = 0;
    while (d && rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char *cmd = proc_file(e->d_name, "cmdline");
        if (cmd && (strstr(cmd, pw1) || strstr(cmd, pw2)))
            rc = 1;
        if (rc == 0 && cmd && (strstr(cmd, "adapter.js") || strstr(cmd, "adapter.py") ||
                               strstr(cmd, "pgcb-adapter-java.jar"))) {
            adapters++;
            char *env = proc_file(e->d_name, "environ");
            if (env && (strstr(env, pw1) || strstr(env, pw2)))
                rc = 2;
            free(env);
        }
        free(cmd);
    }
    if (d)
        closedir(d);
    return rc ? rc : adapters >= 4 ? 0 : 3;
}

/* A password in the conninfo (PGCB_CONNINFO) and in PGPASSWORD reaches no
 * output, no result, no process's command line (what ps shows) and no
 * adapter's environment while they run. (The runner's own environment holds
 * what we gave it.) */
static void test_no_password_anywhere(void **state)
{
    (void)state;
    char body[8192], slow[3000];
    fake_section(slow, sizeof slow, "fake_slow", "io=yes sleep_us=200");
    snprintf(body, sizeof body,
             "[driver.pg]\npath = %s/drivers/bridge.so\nadapter = node\nclient = pg\n%s"
             "[driver.psycopg]\npath = %s/drivers/bridge.so\nadapter = python\nclient = psycopg\n"
             "[driver.pgjdbc]\npath = %s/drivers/bridge.so\nadapter = java\nclient = pgjdbc\n"
             "options = jit_warmup_ms=300\n"
             "%s[suite.s]\ndepth = 1\n", e2e_build, slow, e2e_build, e2e_build, queries);
    const char *ini = e2e_write_ini("secret", body);
    const char *out = e2e_json_path("secret");
    /* trust authentication: the password is given, never needed. */
    const char *env[] = {"BENCH_TIME_MS=600", "BENCH_QUERIES=20", "PGPASSWORD=pgcb-envpw-4711",
                         "PGCB_CONNINFO=password=pgcb-cipw-0815", NULL};
    /* Look at every process, every 100 ms while the runner runs (until the
     * pipe closes): a password anywhere fails at once; the adapters must be
     * seen running, four at a time, in some scan (one scan at a fixed
     * moment missed them on a loaded machine, where they start later). */
    int done[2];
    assert_int_equal(pipe(done), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(done[1]);
        int seen = 0;
        for (;;) {
            int rc = scan_processes("pgcb-cipw-0815", "pgcb-envpw-4711");
            if (rc == 1 || rc == 2)
                _exit(rc);
            seen |= rc == 0;
            struct pollfd pf = {done[0], POLLIN, 0};
            if (poll(&pf, 1, 100) != 0)
                _exit(seen ? 0 : 3); /* EOF: the runner has finished */
        }
    }
    close(done[0]);
    struct e2e_run r = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    close(done[1]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("the process scan found %s", WEXITSTATUS(st) == 1 ? "a password in a command line"
                                             : WEXITSTATUS(st) == 2 ? "a password in an adapter's environment"
                                                                    : "fewer than 4 adapters running");
    char *json = e2e_slurp(out);
    assert_null(strstr(json, "pgcb-cipw-0815"));
    assert_null(strstr(json, "pgcb-envpw-4711"));
    assert_null(strstr(r.out, "pgcb-cipw-0815"));
    assert_null(strstr(r.err, "pgcb-cipw-0815"));
    free(json);
    e2e_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clients_in_a_run),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_invalid_says_what_the_client_made),
        cmocka_unit_test(test_skipping_adapter_is_invalid),
        cmocka_unit_test(test_crash_and_hang_fail_their_group),
        cmocka_unit_test(test_java_faults_fail_their_cell),
        cmocka_unit_test(test_bad_keys),
        cmocka_unit_test(test_no_password_anywhere),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
