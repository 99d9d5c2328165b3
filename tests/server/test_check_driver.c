/*
 * test_check_driver.c -- the driver conformance suite (runner/check/,
 * `runner --check-driver`) against the real PostgreSQL that tests/run.sh
 * started: every shipped driver passes every check; the check_* fixtures
 * (tests/fixtures/check_ok.c and its variants) fail exactly the checks they
 * break, a crash and a hang included; run_batch_params (ABI 1.1) is checked
 * where a driver has it and skipped in one line where it has not (abi10,
 * check_ok); loader refusals, a missing file, a
 * missing reference and a missing server give the documented lines and exit
 * statuses. Tested through pgcb_check_driver(), whose output is captured.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "check/check.h"
#include "pgcb/driver.h"
#include "config/config.h"

static char build[512];
static char top[512];
static char tmpdir[] = "/tmp/pgcb_check_XXXXXX";

struct out {
    int rc;
    char *text;
};

static void out_free(struct out *o)
{
    free(o->text);
    o->text = NULL;
}

/* Run the suite on `so` (relative to the build directory unless absolute),
 * opened with `opts` (nopts of them), with the config file `ini` (NULL:
 * built-in queries). */
static struct out check_with(const char *so, const char *ini, const struct pgcb_option *opts,
                             size_t nopts)
{
    char path[1200];
    if (so[0] == '/')
        snprintf(path, sizeof path, "%s", so);
    else
        snprintf(path, sizeof path, "%s/%s", build, so);
    struct pgcb_config cfg;
    if (ini) {
        char err[512];
        if (pgcb_config_load(ini, &cfg, err, sizeof err) != 0)
            fail_msg("%s", err);
    }
    struct out o = {0, NULL};
    size_t len = 0;
    FILE *f = open_memstream(&o.text, &len);
    assert_non_null(f);
    o.rc = pgcb_check_driver(path, opts, nopts, ini ? &cfg : NULL, f);
    fclose(f);
    if (ini)
        pgcb_config_free(&cfg);
    return o;
}

/* check_with(so, NULL, opts[i], 2) for each of the n option pairs (so
 * relative to the build directory), in child
 * processes, at most two at a time (the suites are independent: each opens
 * its own connections and adapter processes; the time they take is the
 * clients' own, most of it psycopg_python's 500,000 pure-Python rows at
 * depth 1000): outs[i] is the i-th's exit status and output. The children inherit
 * PGCB_CHECK_TIMEOUT, which the caller raises: two suites share the CPUs.
 * Side by side they only read benchmark_rows, which the earlier, sequential
 * checks of test_shipped_drivers_pass have made sure exists (a suite creates
 * it when missing: two doing so at once could collide). */
static void check_parallel(const char *so, const struct pgcb_option (*opts)[2], size_t n,
                           struct out *outs)
{
    pid_t *pids = calloc(n, sizeof *pids);
    assert_non_null(pids);
    size_t started = 0, running = 0;
    while (started < n || running > 0) {
        if (started < n && running < 2) {
            char path[700];
            snprintf(path, sizeof path, "%s/parallel_%zu.out", tmpdir, started);
            fflush(NULL);
            pid_t pid = fork();
            assert_true(pid >= 0);
            if (pid == 0) { /* no cmocka here: a failed assert would go on in the child */
                char sopath[1200];
                snprintf(sopath, sizeof sopath, "%s/%s", build, so);
                FILE *f = fopen(path, "w");
                if (!f)
                    _exit(0x7f);
                int rc = pgcb_check_driver(sopath, opts[started], 2, NULL, f);
                _exit(fclose(f) == 0 ? (rc & 0x7f) : 0x7f);
            }
            pids[started++] = pid;
            running++;
            continue;
        }
        int st = 0;
        pid_t pid = wait(&st);
        assert_true(pid > 0);
        for (size_t i = 0; i < started; i++) {
            if (pids[i] != pid)
                continue;
            char path[700];
            snprintf(path, sizeof path, "%s/parallel_%zu.out", tmpdir, i);
            if (!WIFEXITED(st) || WEXITSTATUS(st) == 0x7f)
                fail_msg("the check of option set %zu ended with status 0x%x", i, (unsigned)st);
            outs[i].rc = WEXITSTATUS(st);
            FILE *f = fopen(path, "r");
            assert_non_null(f);
            size_t len = 0;
            outs[i].text = NULL;
            assert_true(getdelim(&outs[i].text, &len, '\0', f) >= 0);
            fclose(f);
        }
        running--;
    }
    free(pids);
}

static struct out check(const char *so, const char *ini)
{
    return check_with(so, ini, NULL, 0);
}

/* The line that starts with `prefix`, or NULL. */
static const char *line_with(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, prefix, n) == 0)
            return p;
    return NULL;
}

/* Assert a line starting with `prefix` exists and, if `contains` is
 * non-NULL, that the line contains it. */
static void expect_line(const struct out *o, const char *prefix, const char *contains)
{
    const char *l = line_with(o->text, prefix);
    if (!l)
        fail_msg("no line starting with \"%s\" in:\n%s", prefix, o->text);
    if (contains) {
        const char *end = strchr(l, '\n');
        size_t n = end ? (size_t)(end - l) : strlen(l);
        char *line = strndup(l, n);
        if (!strstr(line, contains))
            fail_msg("line \"%s\" lacks \"%s\"", line, contains);
        free(line);
    }
}

/* The last line (without its newline) equals `want`. */
static void expect_last(const struct out *o, const char *want)
{
    size_t n = strlen(o->text);
    assert_true(n > 0 && o->text[n - 1] == '\n');
    const char *p = o->text + n - 1;
    while (p > o->text && p[-1] != '\n')
        p--;
    if (strncmp(p, want, strlen(want)) != 0 || p[strlen(want)] != '\n')
        fail_msg("last line is \"%.*s\", expected \"%s\"\n%s", (int)(o->text + n - 1 - p), p,
                 want, o->text);
}

static int count_lines(const char *text, const char *prefix)
{
    int n = 0;
    size_t k = strlen(prefix);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        n += strncmp(p, prefix, k) == 0;
    return n;
}

static const char *const queries[] = {"limit_1", "limit_100", "limit_500"};
static const unsigned depths[] = {1, 10, 1000};

/* The six run_batch_params checks of shipped driver `name` all pass, each
 * saying how it was compared; no SKIP line. */
static void expect_params(const struct out *o, const char *name)
{
    static const char *const bound[] = {"PASS params_values: ", "PASS params_null: ",
                                        "PASS params_depth: ", "PASS params_after_error: "};
    const char *how = strcmp(name, "null") == 0    ? "no-I/O driver: the values are not evaluated"
                      : strcmp(name, "floor") == 0 ? "reference driver: checksum not compared"
                                                   : "rows and checksum as computed";
    for (size_t i = 0; i < sizeof bound / sizeof bound[0]; i++)
        if (i < 3 || strcmp(name, "null") != 0)
            expect_line(o, bound[i], how);
    if (strcmp(name, "null") == 0) {
        expect_line(o, "PASS params_bad_value: not applicable", NULL);
        expect_line(o, "PASS params_after_error: not applicable", NULL);
        expect_line(o, "PASS params_count: not applicable", NULL);
    } else {
        expect_line(o, "PASS params_bad_value: $1 = 'abc' in query 2 of 3: ",
                    "PGCB_ERR_QUERY \"22P02: invalid input syntax for type integer");
        expect_line(o, "PASS params_count: 1 parameter for 2: PGCB_ERR_QUERY \"08P01: ",
                    "the next batch works");
    }
    expect_line(o, "PASS params_depth: depth 10 twice, other values each time", NULL);
    assert_int_equal(count_lines(o->text, "PASS params_"), 6);
    assert_int_equal(count_lines(o->text, "SKIP params"), 0);
}

static void test_shipped_drivers_pass(void **state)
{
    (void)state;
    /* The reference is found next to the checked driver, in build/drivers. */
    unsetenv("PGCB_CHECK_REFERENCE");
    static const char *const drivers[] = {"libpq_sync", "libpq_pipeline", "rawwire", "floor",
                                          "null"};
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
        const char *name = drivers[i];
        char so[128], want[256];
        snprintf(so, sizeof so, "drivers/%s.so", name);
        struct out o = check(so, NULL);
        if (o.rc != 0)
            fail_msg("%s: exit %d\n%s", name, o.rc, o.text);
        snprintf(want, sizeof want, "PASS load: %s 1.0.0 (ABI 1.6)", name);
        expect_line(&o, want, NULL);
        expect_line(&o, "Reference: ", "(next to the checked driver)");
        expect_line(&o, "PASS open: ", NULL);
        expect_line(&o, "PASS close_null: ", NULL);
        expect_line(&o, "PASS open_unknown_option: PGCB_ERR_CONFIG: \"", NULL);
        expect_line(&o, "PASS errlen16_open: ", "within errlen 16");
        for (size_t q = 0; q < 3; q++)
            for (size_t d = 0; d < 3; d++) {
                char b[128], rows[64];
                snprintf(b, sizeof b, "PASS batch %s depth %u: ", queries[q], depths[d]);
                unsigned long long n = (unsigned long long)depths[d] * (q == 0 ? 1 : q == 1 ? 100 : 500);
                snprintf(rows, sizeof rows, "%llu row", n);
                expect_line(&o, b, rows);
                snprintf(b, sizeof b, "PASS checksum %s depth %u: ", queries[q], depths[d]);
                if (strcmp(name, "floor") == 0) /* folds nothing: a reference */
                    expect_line(&o, b, "not required (reference driver)");
                else if (strcmp(name, "null") == 0) /* mimics benchmark_rows exactly */
                    expect_line(&o, b, "equal to libpq_sync's (not required: reference driver)");
                else
                    expect_line(&o, b, "equal to libpq_sync's");
            }
        if (strcmp(name, "null") == 0) {
            expect_line(&o, "PASS bad_statement: not applicable", NULL);
            expect_line(&o, "PASS after_error: not applicable", NULL);
        } else {
            expect_line(&o, "PASS bad_statement: ", "PGCB_ERR_QUERY \"42P01: ");
            expect_line(&o, "PASS after_error: ", "on the same connection");
            expect_line(&o, "PASS errlen16_query: ", "\"42P01: relation\" (15 bytes + NUL");
        }
        expect_params(&o, name);
        expect_line(&o, "PASS close_clean: ", "no file descriptor left open");
        assert_int_equal(count_lines(o.text, "FAIL "), 0);
        /* run_copy (ABI 1.4): three copy checks, or a SKIP line (floor) or none (null:
         * no I/O). Pools (ABI 1.5): three checks (libpq_pipeline, rawwire, null), or a
         * SKIP line (libpq_sync, floor). */
        int copies = i < 3;
        int pools = i == 1 || i == 2 || i == 4;
        assert_int_equal(count_lines(o.text, "PASS copy_"), copies ? 3 : 0);
        assert_int_equal(count_lines(o.text, "SKIP copy"), strcmp(name, "floor") == 0);
        if (pools) {
            expect_line(&o, "PASS pool_open: a pool of 3", NULL);
            expect_line(&o, "PASS load_closed: 300 queries, 6 in flight", NULL);
            expect_line(&o, "PASS load_rate: ", NULL);
        }
        assert_int_equal(count_lines(o.text, "SKIP pool"), !pools);
        char last[64];
        snprintf(last, sizeof last, "%d passed, 0 failed", 47 + 3 * copies + 3 * pools);
        expect_last(&o, last);
        out_free(&o);
    }
}

static void use_reference(void)
{
    char ref[600];
    snprintf(ref, sizeof ref, "%s/drivers/libpq_sync.so", build);
    setenv("PGCB_CHECK_REFERENCE", ref, 1);
}

/* The bridge with every shipped adapter and client (the protocol's rules
 * are the suite's block checks), and with the fake adapter breaking one. */
static void test_shipped_adapters_pass(void **state)
{
    (void)state;
    unsetenv("PGCB_CHECK_REFERENCE");
    /* Every shipped client once over make test's two passes: under the
     * sanitizers one client per adapter (what the sanitizers add is
     * bridge.so's side, which each of them exercises), in the plain pass
     * the others. The adapters and clients are the same programs in both
     * builds, so a client checked in one pass is not checked again in the
     * other (a check is 3-23 s of CPU: 15 adapters started, 500,000 rows).
     * Java's pgjdbc runs in the plain pass: a JVM's start and cold JIT make
     * it the slowest of all (about 20 s of CPU), while the bridge's side is
     * that of every other adapter (an @file flag besides); its null client
     * neither (test_bridge's rows and blocks, test_bridge_e2e's faults run
     * it). Its vertx client runs in the sanitizers' pass: as long as
     * pgjdbc, the passes stay even. */
#if defined(__SANITIZE_ADDRESS__)
    static const char *const clients[][2] = {
        {"node", "pg"}, {"python", "asyncpg"}, {"go", "pgx"}, {"rust", "tokio-postgres"},
        {"ruby", "pg"}, {"java", "vertx"},
    };
#else
    static const char *const clients[][2] = {
        {"java", "pgjdbc"}, /* first: the longest, beside the others two at a time */
        {"node", "pg-native"}, {"node", "postgres"}, {"node", "null"},  {"python", "psycopg"},
        {"python", "null"},    {"go", "null"},       {"rust", "null"},  {"ruby", "null"},
        {"go", "pq"},          {"rust", "sqlx"},
        {"python", "psycopg_python"}, {"python", "psycopg2"},
    };
#endif
    enum { NCLIENTS = sizeof clients / sizeof clients[0] };
    struct pgcb_option opts[NCLIENTS][2];
    struct out outs[NCLIENTS];
    for (size_t i = 0; i < NCLIENTS; i++) {
        opts[i][0] = (struct pgcb_option){"adapter", clients[i][0]};
        opts[i][1] = (struct pgcb_option){"client", clients[i][1]};
    }
    setenv("PGCB_CHECK_TIMEOUT", "60", 1); /* two at a time: 10 s was one's */
    check_parallel("drivers/bridge.so", opts, NCLIENTS, outs);
    unsetenv("PGCB_CHECK_TIMEOUT");
    for (size_t i = 0; i < NCLIENTS; i++) {
        struct out r = outs[i];
        if (r.rc != 0) { /* the FAIL lines first: the whole text is cut by cmocka */
            for (const char *l = r.text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (strncmp(l, "FAIL ", 5) == 0)
                    print_message("%.*s\n", (int)strcspn(l, "\n"), l);
            fail_msg("%s/%s: exit %d\n%s", clients[i][0], clients[i][1], r.rc, r.text);
        }
        int noio = strcmp(clients[i][1], "null") == 0;
        expect_line(&r, "PASS load: bridge 1.0.0 (ABI 1.6), caps: ", "self-timed, links: ");
        expect_line(&r, "PASS phase: phase(WARMUP) and phase(ORDER) returned PGCB_OK", NULL);
        for (size_t q = 0; q < 3; q++) {
            char b[128];
            snprintf(b, sizeof b, "PASS block %s depth 10: 5 batches of ", queries[q]);
            expect_line(&r, b, noio ? NULL : "each run_batch's checksum");
            snprintf(b, sizeof b, "PASS checksum %s depth 1000: ", queries[q]);
            expect_line(&r, b, "equal to libpq_sync's");
        }
        expect_line(&r, "PASS block_error: ", noio ? "not applicable"
                                                    : "PGCB_ERR_QUERY \"22012: division by zero");
        expect_line(&r, "PASS block_error_mid: ", noio ? "not applicable" : "done 2");
        assert_int_equal(count_lines(r.text, "FAIL "), 0);
        free(r.text);
    }
    /* An adapter whose blocks fold less than their rows: the block checks
     * fail, naming the batch and both checksums. */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/fixtures/adapters/fake_adapter.py",
             top);
    const struct pgcb_option f[] = {{"command", cmd}, {"client", "fake"},
                                    {"options", "io=yes fault=skip_str at=block"}};
    struct out r = check_with("drivers/bridge.so", NULL, f, 3);
    assert_int_equal(r.rc, 1);
    expect_line(&r, "FAIL block limit_100 depth 1: batch 1 of the block: checksum 0x",
                "the timed batches do not consume the rows as the checked batch did");
    expect_line(&r, "PASS batch limit_100 depth 1: ", NULL);
    free(r.text);
}

static void test_conforming_fixture_passes(void **state)
{
    (void)state;
    use_reference();
    struct out o = check("tests/fixtures/check_ok.so", NULL);
    if (o.rc != 0)
        fail_msg("exit %d\n%s", o.rc, o.text);
    expect_line(&o, "Reference: ", "(PGCB_CHECK_REFERENCE)");
    expect_line(&o, "PASS checksum limit_500 depth 1000: ", "equal to libpq_sync's");
    expect_line(&o, "PASS close_clean: ", NULL);
    /* An ABI 1.1 driver without the optional slot: one line, no check. */
    expect_line(&o, "SKIP params: run_batch_params is not set (optional)", NULL);
    assert_int_equal(count_lines(o.text, "PASS params_"), 0);
    expect_last(&o, "41 passed, 0 failed");
    out_free(&o);

    /* The same with run_batch_params (emulating the server): 6 more. */
    o = check("tests/fixtures/check_params.so", NULL);
    if (o.rc != 0)
        fail_msg("exit %d\n%s", o.rc, o.text);
    expect_line(&o, "PASS params_values: ", "rows and checksum as computed");
    expect_line(&o, "PASS params_count: ", "the next batch works");
    assert_int_equal(count_lines(o.text, "PASS params_"), 6);
    assert_int_equal(count_lines(o.text, "SKIP params"), 0);
    expect_last(&o, "47 passed, 0 failed");
    out_free(&o);
}

/* A driver built against ABI 1.0 (no run_batch_params; a trap after its
 * descriptor that nothing may call): everything passes, the parameter
 * checks are skipped in one line saying why. */
static void test_abi10_driver(void **state)
{
    (void)state;
    use_reference();
    struct out o = check("tests/fixtures/abi10.so", NULL);
    if (o.rc != 0)
        fail_msg("exit %d\n%s", o.rc, o.text);
    expect_line(&o, "PASS load: abi10 1.0.0 (ABI 1.0)", NULL);
    expect_line(&o, "PASS abi: 1.0 (this runner: 1.6)", NULL);
    expect_line(&o, "SKIP pool: the driver has ABI 1.0; pool_open and run_load came in ABI 1.5", NULL);
    expect_line(&o, "PASS struct_size: ", NULL);
    expect_line(&o, "SKIP params: the driver has ABI 1.0; run_batch_params came in ABI 1.1", NULL);
    expect_line(&o, "SKIP copy: the driver has ABI 1.0; run_copy came in ABI 1.4", NULL);
    assert_int_equal(count_lines(o.text, "SKIP "), 3);
    assert_int_equal(count_lines(o.text, "PASS params_"), 0);
    expect_line(&o, "PASS close_clean: ", NULL);
    expect_last(&o, "41 passed, 0 failed");
    out_free(&o);
}

/* A driver that reads text parameters up to a NUL: the checks that bind
 * values fail, saying what came back; the refused value passes. */
static void test_params_past_length(void **state)
{
    (void)state;
    use_reference();
    struct out o = check("tests/fixtures/check_params_strlen.so", NULL);
    assert_int_equal(o.rc, 1);
    expect_line(&o, "FAIL params_values: $1 = '41', $2 = 'hello, world': run_batch_params at "
                    "depth 1 returned PGCB_ERR_QUERY: \"22P02: ", NULL);
    expect_line(&o, "FAIL params_null: ", "returned PGCB_ERR_QUERY");
    expect_line(&o, "FAIL params_depth: run_batch_params at depth 10 returned", NULL);
    expect_line(&o, "PASS params_bad_value: ", "22P02");
    expect_line(&o, "FAIL params_after_error: after the refused value: ", NULL);
    expect_line(&o, "FAIL params_count: 1 parameter for 2: PGCB_ERR_QUERY \"08P01: ",
                ", but then run_batch_params at depth 10 returned");
    assert_int_equal(count_lines(o.text, "FAIL "), 5);
    expect_last(&o, "42 passed, 5 failed");
    out_free(&o);
}

static void test_wrong_checksum(void **state)
{
    (void)state;
    use_reference();
    struct out o = check("tests/fixtures/check_wrong_sum.so", NULL);
    assert_int_equal(o.rc, 1);
    for (size_t q = 0; q < 3; q++)
        for (size_t d = 0; d < 3; d++) {
            char b[128];
            snprintf(b, sizeof b, "PASS batch %s depth %u: ", queries[q], depths[d]);
            expect_line(&o, b, NULL); /* the row counts are right */
            snprintf(b, sizeof b, "FAIL checksum %s depth %u: 0x", queries[q], depths[d]);
            expect_line(&o, b, ", libpq_sync returns 0x");
        }
    assert_int_equal(count_lines(o.text, "FAIL "), 9);
    expect_last(&o, "32 passed, 9 failed");
    out_free(&o);
}

static void test_crash_is_isolated(void **state)
{
    (void)state;
    use_reference();
    struct out o = check("tests/fixtures/check_crash.so", NULL);
    assert_int_equal(o.rc, 1);
    for (size_t q = 0; q < 3; q++) {
        char b[160], w[160];
        snprintf(b, sizeof b, "PASS batch %s depth 1: ", queries[q]);
        expect_line(&o, b, NULL);
        snprintf(b, sizeof b, "FAIL batch %s depth 10: crashed (SIGSEGV) in run_batch\n",
                 queries[q]);
        expect_line(&o, b, NULL);
        snprintf(b, sizeof b, "FAIL batch %s depth 1000: ", queries[q]);
        snprintf(w, sizeof w, "not run: the driver crashed (SIGSEGV) during batch %s depth 10",
                 queries[q]);
        expect_line(&o, b, w);
        snprintf(b, sizeof b, "PASS checksum %s depth 1: ", queries[q]);
        expect_line(&o, b, "equal to libpq_sync's");
        snprintf(b, sizeof b, "FAIL checksum %s depth 10: no checksum", queries[q]);
        expect_line(&o, b, NULL);
    }
    /* The checker survived and ran everything after the crashes. */
    expect_line(&o, "PASS bad_statement: ", NULL);
    expect_line(&o, "PASS after_error: ", NULL);
    expect_line(&o, "PASS close_clean: ", NULL);
    expect_last(&o, "29 passed, 12 failed");
    out_free(&o);
}

static void test_hang_times_out(void **state)
{
    (void)state;
    use_reference();
    setenv("PGCB_CHECK_TIMEOUT", "1", 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct out o = check("tests/fixtures/check_hang.so", NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    unsetenv("PGCB_CHECK_TIMEOUT");
    assert_int_equal(o.rc, 1);
    expect_line(&o, "Queries: ", "at most 1 s per driver call");
    for (size_t q = 0; q < 3; q++) {
        char b[160];
        snprintf(b, sizeof b, "PASS batch %s depth 10: ", queries[q]);
        expect_line(&o, b, NULL);
        /* 1 s per 250,000 rows (started): LIMIT 500 at depth 1000 returns 500,000 */
        snprintf(b, sizeof b, "FAIL batch %s depth 1000: timed out after %d s in run_batch\n",
                 queries[q], q == 2 ? 2 : 1);
        expect_line(&o, b, NULL);
    }
    expect_line(&o, "PASS close_clean: ", NULL);
    expect_last(&o, "35 passed, 6 failed");
    assert_true(t1.tv_sec - t0.tv_sec < 60);
    out_free(&o);
}

static void test_bad_error_messages(void **state)
{
    (void)state;
    use_reference();
    struct out o = check("tests/fixtures/check_raw_errors.so", NULL);
    assert_int_equal(o.rc, 1);
    expect_line(&o, "FAIL open_unknown_option: PGCB_ERR_CONFIG, but the message is not "
                    "NUL-terminated within errlen (512)", NULL);
    expect_line(&o, "FAIL errlen16_open: PGCB_ERR_CONFIG: wrote past the end of err (errlen 16",
                NULL);
    expect_line(&o, "FAIL bad_statement: prepare of SELECT * FROM pgcb_no_such_table: the "
                    "message is not NUL-terminated within errlen (512): \"42P01: relation", NULL);
    expect_line(&o, "FAIL errlen16_query: prepare returned PGCB_ERR_QUERY: wrote past the end of "
                    "err (errlen 16", NULL);
    /* Escaped, never raw bytes, in the output. */
    for (const char *p = o.text; *p; p++)
        assert_true((unsigned char)*p < 0x80);
    expect_last(&o, "37 passed, 4 failed");
    out_free(&o);
}

static void test_sloppy_driver(void **state)
{
    (void)state;
    use_reference();
    struct out o = check("tests/fixtures/check_sloppy.so", NULL);
    assert_int_equal(o.rc, 1);
    expect_line(&o, "PASS load: check_sloppy  (ABI 1.6)", NULL);
    expect_line(&o, "FAIL version: empty", NULL);
    expect_line(&o, "FAIL caps: unknown capability bits 0x80", NULL);
    expect_line(&o, "FAIL options: option \"rows\" declared twice", NULL);
    expect_line(&o, "FAIL open_unknown_option: accepted the unknown option", NULL);
    expect_line(&o, "FAIL errlen16_open: the unknown option was accepted", NULL);
    expect_line(&o, "FAIL bad_statement: ", "returned PGCB_ERR_IO, expected PGCB_ERR_QUERY");
    expect_line(&o, "FAIL after_error: not run: the bad statement returned PGCB_ERR_IO", NULL);
    expect_line(&o, "FAIL close_clean: close left 1 file descriptor open (fd ", "/dev/null)");
    expect_line(&o, "PASS errlen16_query: ", NULL);
    expect_last(&o, "33 passed, 8 failed");
    out_free(&o);
}

static void test_template_driver(void **state)
{
    (void)state;
    use_reference();
    /* good.c loads, but returns no rows and accepts anything. */
    struct out o = check("tests/fixtures/good.so", NULL);
    assert_int_equal(o.rc, 1);
    expect_line(&o, "PASS load: good 1.0.0", NULL);
    expect_line(&o, "PASS options: none", NULL);
    expect_line(&o, "PASS open_defaults: no option declares a default", NULL);
    expect_line(&o, "FAIL batch limit_1 depth 1: 0 rows, expected 1 (1 x 1)", NULL);
    expect_line(&o, "FAIL checksum limit_100 depth 10: 0 rows, libpq_sync returns 1000", NULL);
    expect_line(&o, "FAIL bad_statement: run_batch of SELECT * FROM pgcb_no_such_table: the "
                    "statement succeeded", NULL);
    out_free(&o);
}

static void test_load_refusals(void **state)
{
    (void)state;
    use_reference();
    static const struct {
        const char *fixture, *reason;
    } cases[] = {
        {"bad_magic", "bad magic 0x"},
        {"no_entry", "no entry symbol pgcb_driver_entry()"},
        {"wrong_abi", "ABI major version mismatch"},
        {"missing_op", "required operation run_batch is missing"},
        {"small_struct", "descriptor too small"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char so[128], want[1024];
        snprintf(so, sizeof so, "tests/fixtures/%s.so", cases[i].fixture);
        struct out o = check(so, NULL);
        assert_int_equal(o.rc, 1);
        snprintf(want, sizeof want, "FAIL load: driver %s (%s/%s): ", cases[i].fixture, build, so);
        expect_line(&o, want, cases[i].reason);
        /* Nothing else is checked. */
        assert_int_equal(count_lines(o.text, "PASS "), 0);
        assert_int_equal(count_lines(o.text, "FAIL "), 1);
        expect_last(&o, "0 passed, 1 failed");
        out_free(&o);
    }

    /* Cannot be loaded at all: exit 2, "error: ..." last. */
    struct out o = check("tests/fixtures/no_such_driver.so", NULL);
    assert_int_equal(o.rc, 2);
    expect_line(&o, "error: driver no_such_driver (", "cannot open: No such file or directory");
    assert_int_equal(count_lines(o.text, "PASS "), 0);
    assert_int_equal(count_lines(o.text, "FAIL "), 0);
    out_free(&o);

    char junk[600];
    snprintf(junk, sizeof junk, "%s/junk.so", tmpdir);
    FILE *f = fopen(junk, "w");
    assert_non_null(f);
    fputs("not an ELF file\n", f);
    fclose(f);
    o = check(junk, NULL);
    assert_int_equal(o.rc, 2);
    expect_line(&o, "FAIL load: driver junk (", "dlopen failed");
    expect_line(&o, "error: ", "cannot be loaded (dlopen failed): nothing to check");
    out_free(&o);
}

static void test_environment_errors(void **state)
{
    (void)state;
    /* No reference anywhere: the fixture directory has no libpq_sync.so. */
    unsetenv("PGCB_CHECK_REFERENCE");
    struct out o = check("tests/fixtures/check_ok.so", NULL);
    assert_int_equal(o.rc, 2);
    expect_line(&o, "error: no reference driver: libpq_sync.so is neither next to ",
                "set PGCB_CHECK_REFERENCE=PATH");
    out_free(&o);

    setenv("PGCB_CHECK_REFERENCE", "/nonexistent/libpq_sync.so", 1);
    o = check("tests/fixtures/check_ok.so", NULL);
    assert_int_equal(o.rc, 2);
    expect_line(&o, "error: reference driver /nonexistent/libpq_sync.so (PGCB_CHECK_REFERENCE): "
                    "no such file", NULL);
    out_free(&o);

    use_reference();
    setenv("PGCB_CHECK_TIMEOUT", "0", 1);
    o = check("drivers/null.so", NULL);
    unsetenv("PGCB_CHECK_TIMEOUT");
    assert_int_equal(o.rc, 2);
    expect_line(&o, "error: PGCB_CHECK_TIMEOUT: '0' is not a number of seconds", NULL);
    out_free(&o);

    /* No server: a driver that does I/O cannot be checked; null can, and
     * says that its checksums were not compared. */
    unsetenv("PGCB_CHECK_REFERENCE");
    setenv("PGCB_CONNINFO", "host=/nonexistent port=5999", 1);
    o = check("drivers/rawwire.so", NULL);
    assert_int_equal(o.rc, 2);
    expect_line(&o, "error: cannot connect to the server: ", "conninfo \"host='/nonexistent'");
    out_free(&o);
    o = check("drivers/null.so", NULL);
    unsetenv("PGCB_CONNINFO");
    if (o.rc != 0)
        fail_msg("exit %d\n%s", o.rc, o.text);
    expect_line(&o, "Reference: ", "not run: no server: cannot connect");
    expect_line(&o, "PASS checksum limit_1 depth 1: not required (reference driver): 0x",
                "no reference to compare with");
    expect_line(&o, "PASS params_depth: ", "no-I/O driver");
    expect_last(&o, "50 passed, 0 failed");
    out_free(&o);
}

static void test_config_queries(void **state)
{
    (void)state;
    unsetenv("PGCB_CHECK_REFERENCE");
    char ini[700];
    snprintf(ini, sizeof ini, "%s/check.ini", tmpdir);
    FILE *f = fopen(ini, "w");
    assert_non_null(f);
    fprintf(f,
            "[server]\nsetup = %s/sql/benchmark_rows.sql\n"
            "[driver.rawwire]\npath = %s/drivers/rawwire.so\n"
            "[query.limit_3]\nsql = SELECT id, int_value, string_value, null_value, bool_value "
            "FROM benchmark_rows ORDER BY id LIMIT 3\nrows = 3\n"
            "[query.types]\nsql = SELECT 1::int8, 2.5::float8, 'x'::varchar, NULL::int4, true\n"
            "[query.random]\nsql = SELECT random()\ncheck = rows\n"
            "[suite.s]\n",
            top, build);
    fclose(f);
    struct out o = check("drivers/rawwire.so", ini);
    if (o.rc != 0)
        fail_msg("exit %d\n%s", o.rc, o.text);
    expect_line(&o, "Queries: limit_3, types, random (", NULL);
    expect_line(&o, "Server: PostgreSQL ", "; setup ");
    expect_line(&o, "PASS batch limit_3 depth 1000: 3000 rows (1000 x 3)", NULL);
    /* No `rows`: the reference's count. */
    expect_line(&o, "PASS batch types depth 10: 10 rows (10 x 1)", NULL);
    expect_line(&o, "PASS checksum types depth 1000: ", "equal to libpq_sync's");
    expect_line(&o, "PASS checksum random depth 1: not compared: [query.random] check = rows",
                NULL);
    expect_line(&o, "PASS after_error: a batch of limit_3 at depth 3", NULL);
    /* The parameter checks use their own statement, whatever the config. */
    expect_line(&o, "PASS params_depth: ", "rows and checksum as computed");
    expect_last(&o, "53 passed, 0 failed");
    out_free(&o);

    /* A query the server refuses fails its own checks only. */
    f = fopen(ini, "w");
    assert_non_null(f);
    fprintf(f,
            "[driver.x]\npath = %s/drivers/libpq_pipeline.so\n"
            "[query.missing]\nsql = SELECT * FROM pgcb_check_missing_table\n"
            "[query.one]\nsql = SELECT 1\nrows = 1\n"
            "[suite.s]\n",
            build);
    fclose(f);
    o = check("drivers/libpq_pipeline.so", ini);
    assert_int_equal(o.rc, 1);
    expect_line(&o, "FAIL prepare missing: returned PGCB_ERR_QUERY: \"42P01: ", NULL);
    expect_line(&o, "FAIL batch missing depth 1: not run: prepare missing failed", NULL);
    expect_line(&o, "FAIL checksum missing depth 1000: no checksum", NULL);
    expect_line(&o, "PASS batch one depth 1000: 1000 rows", NULL);
    expect_line(&o, "PASS checksum one depth 1000: ", "equal to libpq_sync's");
    expect_line(&o, "PASS after_error: a batch of one at depth 3", NULL);
    expect_line(&o, "PASS params_count: ", NULL);
    expect_last(&o, "39 passed, 7 failed"); /* 3 of them run_copy's (ABI 1.4) */
    out_free(&o);
}

int main(void)
{
    const char *b = getenv("PGCB_BUILD");
    if (!b || !*b) {
        fprintf(stderr, "test_check_driver: PGCB_BUILD is not set (run through tests/run.sh)\n");
        return 1;
    }
    snprintf(build, sizeof build, "%s", b);
    if (!getcwd(top, sizeof top) || !mkdtemp(tmpdir)) {
        perror("test_check_driver");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_drivers_pass),
        cmocka_unit_test(test_shipped_adapters_pass),
        cmocka_unit_test(test_conforming_fixture_passes),
        cmocka_unit_test(test_abi10_driver),
        cmocka_unit_test(test_params_past_length),
        cmocka_unit_test(test_wrong_checksum),
        cmocka_unit_test(test_crash_is_isolated),
        cmocka_unit_test(test_hang_times_out),
        cmocka_unit_test(test_bad_error_messages),
        cmocka_unit_test(test_sloppy_driver),
        cmocka_unit_test(test_template_driver),
        cmocka_unit_test(test_load_refusals),
        cmocka_unit_test(test_environment_errors),
        cmocka_unit_test(test_config_queries),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_check_driver: could not remove %s\n", tmpdir);
    return rc;
}
