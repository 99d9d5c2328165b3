/*
 * test_runner_e2e.c -- the runner program end to end against the real
 * PostgreSQL that tests/run.sh started (PGHOST, PGPORT, ... in the
 * environment): tiny-budget runs that must write a valid result (with
 * ordered percentiles and a percentile curve per cell, and --detail's
 * tables), and every kind of bad input, which must give one line on
 * stderr, a non-zero exit and no result file.
 *
 * Configs are written at run time, with absolute driver paths under
 * $PGCB_BUILD, so the same test serves the normal and the sanitizer build.
 */
#include <fcntl.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "pgcb/driver.h"
#include "result.h"
#include "../lib/e2e.h"

#define SQL_LIMIT(n)                                                                        \
    "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY " \
    "id LIMIT " #n

static char drivers_text[1200];

static void test_tiny_run_writes_valid_json(void **state)
{
    (void)state;
    char body[4096];
    snprintf(body, sizeof body,
             "%s"
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n"
             "[query.limit_500]\nsql = " SQL_LIMIT(500) "\nrows = 500\n"
             "[suite.sequential]\ndepth = 1 3\n",
             drivers_text);
    const char *ini = e2e_write_ini("tiny", body);
    const char *out = e2e_json_path("tiny");
    /* Unset PGCB_SERVER_CPUS: the runner must find the server's CPUs itself. */
    const char *env[] = {"PGCB_SERVER_CPUS", "BENCH_TIME_MS=120", "BENCH_QUERIES=30", NULL};
    struct e2e_run r = e2e_run_runner(ini, out, env, "--detail", 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    /* The tables are there, each with its detail table (--detail). */
    assert_non_null(strstr(r.out, "┘\nLatency percentiles (ns), from the pooled histogram:\n"
                                  "┌"));
    assert_non_null(strstr(r.out, " Min │"));
    assert_non_null(strstr(r.out, " p99.9 │"));
    assert_non_null(strstr(r.out, "sequential / limit_500  (depth 3, 500 rows, pooled over 2 "
                                  "execution orders)"));
    assert_non_null(strstr(r.out, "│ Task name "));
    assert_non_null(strstr(r.out, "Lowest median: libpq_sync"));

    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.complete, 1);
    assert_int_equal(res.time_ms, 120);      /* BENCH_TIME_MS wins over the file */
    assert_int_equal(res.min_queries, 30);
    assert_int_equal(res.ndrivers, 2);
    assert_int_equal(res.norders, 2);
    assert_non_null(res.server_version);
    assert_memory_equal(res.server_version, "15", 2);
    assert_string_equal(res.server_cpus_source, "detected");
    const char *pinned = getenv("PGCB_SERVER_CPUS"); /* what run.sh pinned the server to */
    if (pinned && *pinned)
        assert_string_equal(res.server_cpus, pinned);
    assert_string_equal(res.client_cpus, "0");
    assert_int_equal(res.ngroups, 6);
    static const int64_t rows[] = {1, 1, 100, 100, 500, 500};
    for (size_t g = 0; g < res.ngroups; g++) {
        const struct pgcb_res_group *gr = &res.groups[g];
        assert_int_equal(gr->rows, rows[g]);
        assert_int_equal(gr->depth, g % 2 ? 3 : 1);
        for (size_t d = 0; d < 2; d++) {
            const struct pgcb_res_cell *c = &gr->cells[d];
            assert_int_equal(c->status, PGCB_CELL_OK);
            assert_int_equal(c->rows_per_batch, (uint64_t)rows[g] * gr->depth);
            /* Both floors per order: >= 30 queries in each of 2 orders. */
            assert_true(c->queries >= 60);
            assert_int_equal(c->queries, c->samples * gr->depth);
            assert_true(c->median_ns > 0 && c->min_ns <= c->median_ns &&
                        c->median_ns <= c->max_ns);
            assert_true(c->p99_ns >= c->median_ns);
            /* The distribution (issue 13): ordered, p99 as p99_ns, and a
             * curve from the min to the max as long as the samples allow. */
            const double *p = c->pct_ns;
            if (!((double)c->min_ns <= p[0] && p[0] <= p[1] && p[1] <= p[2] && p[2] <= p[3] &&
                  p[3] <= (double)c->max_ns))
                fail_msg("group %zu driver %zu: min %llu p50 %g p90 %g p99 %g p99.9 %g max %llu",
                         g, d, (unsigned long long)c->min_ns, p[0], p[1], p[2], p[3],
                         (unsigned long long)c->max_ns);
            assert_true(p[2] == c->p99_ns);
            assert_int_equal(c->ncurve, (size_t)floor(4 * log10((double)c->samples) + 1e-9) + 2);
            assert_true(pgcb_pct_curve_valid(c->curve, c->ncurve));
            assert_true(c->curve[0].q == 0 && c->curve[0].ns >= (double)c->min_ns);
            assert_true(c->curve[c->ncurve - 1].q == 1);
            assert_true(c->curve[c->ncurve - 1].ns == (double)c->max_ns);
            assert_true(fabs(c->queries_per_s - c->ops_per_s * gr->depth) < 1e-6 * c->queries_per_s);
            assert_true(c->cpu_ns_per_query > 0);
            assert_int_equal(c->norders, 2);
            assert_true(isfinite(c->order_medians_ns[0]) && isfinite(c->order_medians_ns[1]));
        }
        /* The server runs here: its CPU time while libpq_sync ran is known
         * (not while null ran: it does no I/O). */
        assert_true(isfinite(gr->cells[0].server_cpu_ns_per_query));
        assert_true(gr->cells[0].server_cpu_ns_per_query > 0);
        assert_true(gr->cells[0].server_busy > 0 && gr->cells[0].server_busy < 2.5);
        assert_true(isnan(gr->cells[1].server_cpu_ns_per_query));
        /* libpq_sync read the server's rows; null made the same rows up:
         * the checksums agree only if every value was read and folded. */
        assert_true(gr->cells[0].checksum == gr->cells[1].checksum);
        assert_true(gr->cells[0].checksum != 0);
    }
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* A bad run: exit status 1, exactly one line on stderr containing `want`, no
 * result file. */
static void expect_setup_error(const char *name, const char *body, const char *const *env,
                               const char *want)
{
    const char *ini = e2e_write_ini(name, body);
    const char *out = e2e_json_path(name);
    struct e2e_run r = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    if (!strstr(r.err, want) || r.status != 1)
        fprintf(stderr, "case %s: status %d, stderr: %s\n", name, r.status, r.err);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, want));
    assert_non_null(strchr(r.err, '\n'));
    assert_string_equal(strchr(r.err, '\n'), "\n"); /* one line */
    assert_false(e2e_exists(out));
    e2e_run_free(&r);
}

static void test_bad_input(void **state)
{
    (void)state;
    char body[4096];
    snprintf(body, sizeof body,
             "%s[query.missing]\nsql = SELECT * FROM no_such_table\n[suite.s]\n", drivers_text);
    expect_setup_error("missing_table", body, NULL,
                       "runner: query missing: driver libpq_sync: prepare failed: 42P01: "
                       "relation \"no_such_table\" does not exist");

    snprintf(body, sizeof body, "%s[query.q]\nsql = " SQL_LIMIT(1) "\nrows = 7\n[suite.s]\n",
             drivers_text);
    expect_setup_error("wrong_rows", body, NULL,
                       "runner: query q: expected 7 rows per execution ([query.q] rows at ");

    snprintf(body, sizeof body, "%s[query.q]\nsql = SELECT 1\n[suite.s]\n", drivers_text);
    const char *unreachable[] = {"PGCB_CONNINFO=host=/nonexistent port=1", NULL};
    expect_setup_error("unreachable", body, unreachable,
                       "runner: cannot connect to the server: connection to server on socket "
                       "\"/nonexistent/.s.PGSQL.1\" failed: No such file or directory");

    snprintf(body, sizeof body, "%s[query.q]\nsql = SELECT 1\n[suite.s]\ndepth = 0\n",
             drivers_text);
    expect_setup_error("bad_depth", body, NULL, "bad_depth.ini:");
    expect_setup_error("bad_depth", body, NULL,
                       ": [suite.s] depth: '0' is not an integer from 1 to 1000000");

    snprintf(body, sizeof body,
             "[driver.gone]\npath = %s/drivers/no_such_driver.so\n[query.q]\nsql = SELECT 1\n"
             "[suite.s]\n", e2e_build);
    expect_setup_error("missing_driver", body, NULL,
                       "/drivers/no_such_driver.so): cannot open: No such file or directory");

    snprintf(body, sizeof body,
             "[driver.bad]\npath = %s/tests/fixtures/wrong_abi.so\n[query.q]\nsql = SELECT 1\n"
             "[suite.s]\n", e2e_build);
    expect_setup_error("wrong_abi", body, NULL, "ABI major version mismatch: runner has 1.");

    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\nbogus = 1\n"
             "[query.q]\nsql = SELECT 1\n[suite.s]\n", e2e_build);
    expect_setup_error("driver_key", body, NULL,
                       "driver_key.ini:9: unknown key 'bogus' in [driver.libpq_sync] "
                       "(libpq_sync accepts: ");

    snprintf(body, sizeof body, "%s[query.q]\nsql = SELECT 1\n[suite.s]\n", drivers_text);
    FILE *f = fopen(e2e_ini_path("cpus"), "w");
    fprintf(f, "[bench]\ncpus = 1000\n%s", body);
    fclose(f);
    struct e2e_run r = e2e_run_runner(e2e_ini_path("cpus"), e2e_json_path("cpus"), NULL, NULL, 0, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "[bench] cpus: CPU 1000 is not available to this process"));
    assert_false(e2e_exists(e2e_json_path("cpus")));
    e2e_run_free(&r);
}

/* A driver failing mid-run: its cell is marked failed with the message,
 * the other driver's results are kept, the file is written, exit 2. */
static void test_driver_failure_is_recorded(void **state)
{
    (void)state;
    char body[4096];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.null]\npath = %s/drivers/null.so\nfail_after = 25\n"
             "[query.q]\nsql = " SQL_LIMIT(1) "\nrows = 1\n[suite.s]\n",
             e2e_build, e2e_build);
    const char *ini = e2e_write_ini("fail", body);
    const char *out = e2e_json_path("fail");
    struct e2e_run r = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "null (FAILED)"));
    assert_non_null(strstr(r.out, "XX000: null driver: injected failure"));
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.complete, 1);
    assert_int_equal(res.groups[0].cells[0].status, PGCB_CELL_OK);
    assert_true(res.groups[0].cells[0].samples > 0);
    assert_int_equal(res.groups[0].cells[1].status, PGCB_CELL_FAILED);
    assert_non_null(strstr(res.groups[0].cells[1].error, "XX000: null driver: injected failure"));
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* SIGINT in the middle: the groups measured so far are written, the result
 * is marked incomplete, exit 2. */
static void test_interrupt_keeps_results(void **state)
{
    (void)state;
    char body[4096];
    snprintf(body, sizeof body,
             "%s[query.a]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.b]\nsql = " SQL_LIMIT(1) "\nrows = 1\n[suite.s]\n",
             drivers_text);
    const char *ini = e2e_write_ini("intr", body);
    const char *out = e2e_json_path("intr");
    /* A group takes 2 orders x 2 drivers x 0.5 s = 2 s: the signal comes as
     * soon as group a's table is out, well inside group b. */
    const char *env[] = {"BENCH_TIME_MS=1000", NULL};
    struct e2e_run r = e2e_run_runner(ini, out, env, NULL, SIGINT, "s / a  (");
    assert_int_equal(r.status, 2);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.complete, 0);
    assert_non_null(strstr(res.stop_reason, "interrupted by signal 2 after 1 of 2 groups"));
    assert_int_equal(res.groups[0].cells[0].status, PGCB_CELL_OK);
    assert_int_equal(res.groups[1].cells[0].status, PGCB_CELL_NOT_RUN);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* A password given in the conninfo appears nowhere in what a run produces
 * (trust authentication ignores it). */
static void test_password_never_written(void **state)
{
    (void)state;
    char body[4096];
    snprintf(body, sizeof body, "%s[query.q]\nsql = " SQL_LIMIT(1) "\nrows = 1\n[suite.s]\n",
             drivers_text);
    const char *ini = e2e_write_ini("secret", body);
    const char *out = e2e_json_path("secret");
    const char *env[] = {"PGCB_CONNINFO=password=Sw0rdf1sh-e2e", NULL};
    struct e2e_run r = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    assert_int_equal(r.status, 0);
    char *json = e2e_slurp(out);
    assert_non_null(strstr(json, "\"conninfo\""));
    assert_null(strstr(json, "Sw0rdf1sh"));
    assert_null(strstr(r.out, "Sw0rdf1sh"));
    assert_null(strstr(r.err, "Sw0rdf1sh"));
    free(json);
    e2e_run_free(&r);
}

/* threads = 2: two pinned measuring threads, each with its own connection;
 * both CPU assignments are recorded, both floors hold for the total. */
static void test_two_threads(void **state)
{
    (void)state;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const char *cpus = ncpu >= 2 ? "0,1" : "0";
    char body[4096];
    snprintf(body, sizeof body,
             "%s[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n"
             "[suite.multi]\nthreads = 2\ndepth = 2\n",
             drivers_text);
    const char *p = e2e_ini_path("threads");
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "[bench]\ntime_ms = 150\nqueries = 40\nwarmup_ms = 20\ncpus = %s\n"
               "[server]\nsetup = %s/sql/benchmark_rows.sql\n%s", cpus, e2e_top, body);
    fclose(f);
    const char *out = e2e_json_path("threads");
    struct e2e_run r = e2e_run_runner(p, out, NULL, NULL, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "2 threads on CPUs"));
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    const struct pgcb_res_group *g = &res.groups[0];
    assert_int_equal(g->threads, 2);
    assert_non_null(g->thread_cpus);
    assert_int_equal(g->thread_cpus[0], 0);
    assert_int_equal(g->thread_cpus[1], ncpu >= 2 ? 1 : 0);
    assert_string_equal(res.client_cpus, ncpu >= 2 ? "0,1" : "0");
    for (size_t d = 0; d < 2; d++) {
        const struct pgcb_res_cell *c = &g->cells[d];
        assert_int_equal(c->status, PGCB_CELL_OK);
        /* >= 40 queries per order in total (20 per thread), 2 orders. */
        assert_true(c->queries >= 80);
        assert_int_equal(c->rows_per_batch, 200);
        assert_true(fabs(c->queries_per_s - c->ops_per_s * 2 * 2) < 1e-6 * c->queries_per_s);
    }
    assert_true(g->cells[0].checksum == g->cells[1].checksum);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* A driver that crashes, aborts, exits or hangs in run_batch takes only its
 * own host process down: its cells fail with the reason, libpq_sync's are
 * kept, the run goes on to the next group (restarting the driver) and the
 * result is written. */
static void expect_fault(const char *fault, unsigned timeout_ms, const char *want_err,
                         const char *want_stderr)
{
    char body[4096], name[64];
    snprintf(name, sizeof name, "fault_%s", fault);
    snprintf(body, sizeof body,
             "batch_timeout_ms = %u\n[server]\nsetup = %s/sql/benchmark_rows.sql\n"
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.faulty]\npath = %s/tests/fixtures/faulty.so\nfault = %s\nafter = 30\n"
             "[query.a]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.b]\nsql = " SQL_LIMIT(1) "\nrows = 1\n[suite.s]\n",
             timeout_ms, e2e_top, e2e_build, e2e_build, fault);
    const char *p = e2e_ini_path(name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "[bench]\ntime_ms = 150\nqueries = 40\nwarmup_ms = 20\n%s", body);
    fclose(f);
    const char *out = e2e_json_path(name);
    /* Under AddressSanitizer, let SIGSEGV kill the process as it would. */
    const char *env[] = {"ASAN_OPTIONS=handle_segv=0:handle_abort=0", NULL};
    struct e2e_run r = e2e_run_runner(p, out, env, NULL, 0, NULL);
    if (r.status != 2 || !strstr(r.err, want_stderr))
        fprintf(stderr, "fault %s: status %d\nstdout:\n%s\nstderr:\n%s\n", fault, r.status, r.out,
                r.err);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, want_stderr));
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.complete, 1);
    assert_int_equal(res.ngroups, 2);
    for (size_t g = 0; g < 2; g++) {
        assert_int_equal(res.groups[g].cells[0].status, PGCB_CELL_OK);
        assert_true(res.groups[g].cells[0].samples > 0);
        assert_int_equal(res.groups[g].cells[1].status, PGCB_CELL_FAILED);
        assert_non_null(strstr(res.groups[g].cells[1].error, want_err));
    }
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

static void test_driver_crash_isolated(void **state)
{
    (void)state;
    /* A crash needs no batch timeout: a long one, so that libpq_sync is
     * never timed out on a loaded machine (at 400 ms it was, beside
     * another make test). */
    expect_fault("segv", 10000, "driver faulty crashed (SIGSEGV: Segmentation fault)",
                 "runner: driver faulty crashed (SIGSEGV: Segmentation fault) in group s / a "
                 "(depth 1); it is restarted for the next group");
    expect_fault("abort", 10000, "driver faulty crashed (SIGABRT: Aborted)",
                 "runner: driver faulty crashed (SIGABRT: Aborted) in group s / a");
    expect_fault("exit", 10000, "driver faulty exited with status 7",
                 "runner: driver faulty exited with status 7 in group s / a");
}

static void test_driver_hang_times_out(void **state)
{
    (void)state;
    /* 2 s: long enough for libpq_sync beside the hang on a loaded machine,
     * short enough for the test. */
    expect_fault("hang", 2000, "driver faulty timed out: no progress for 2000 ms ([bench] "
                               "batch_timeout_ms)",
                 "runner: driver faulty timed out: no progress for 2000 ms");
}

/* A query the server refuses fails its groups, naming query, driver and
 * SQLSTATE; the other queries still run and the result is written. */
static void test_query_fault(void **state)
{
    (void)state;
    char body[4096];
    snprintf(body, sizeof body,
             "%s[query.good]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.broken]\nsql = SELECT * FROM no_such_table\n"
             "[query.syntax]\nsql = SELEKT 1\n[suite.s]\n",
             drivers_text);
    const char *ini = e2e_write_ini("query_fault", body);
    const char *out = e2e_json_path("query_fault");
    struct e2e_run r = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "runner: query broken: driver libpq_sync: prepare failed: "
                                  "42P01: relation \"no_such_table\" does not exist\n"));
    assert_non_null(strstr(r.err, "runner: query syntax: driver libpq_sync: prepare failed: "
                                  "42601: syntax error at or near \"SELEKT\"\n"));
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ngroups, 3);
    assert_int_equal(res.groups[0].cells[0].status, PGCB_CELL_OK);
    assert_int_equal(res.groups[1].cells[0].status, PGCB_CELL_FAILED);
    assert_non_null(strstr(res.groups[1].cells[0].error, "42P01"));
    assert_int_equal(res.groups[2].cells[0].status, PGCB_CELL_FAILED);
    assert_non_null(strstr(res.groups[2].cells[0].error, "42601"));
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* runner --check-driver: the conformance suite from the command line, with
 * the config's queries; a crashing driver fails its check, not the checker. */
static void test_check_driver_cli(void **state)
{
    (void)state;
    char body[4096], arg[600];
    snprintf(body, sizeof body,
             "%s[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n[suite.s]\n",
             drivers_text);
    const char *ini = e2e_write_ini("check", body);
    snprintf(arg, sizeof arg, "--check-driver=%s/drivers/rawwire.so", e2e_build);
    struct e2e_run r = e2e_run_runner(ini, e2e_json_path("check"), NULL, arg, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "PASS load: rawwire 1.0.0"));
    assert_non_null(strstr(r.out, "PASS checksum limit_100 depth 1000"));
    const char *last = strstr(r.out, " passed, 0 failed\n");
    assert_non_null(last);
    assert_string_equal(last, " passed, 0 failed\n");
    assert_false(e2e_exists(e2e_json_path("check")));
    e2e_run_free(&r);

    snprintf(arg, sizeof arg, "--check-driver=%s/tests/fixtures/check_crash.so", e2e_build);
    const char *env[] = {"ASAN_OPTIONS=handle_segv=0:handle_abort=0", NULL};
    r = e2e_run_runner(ini, e2e_json_path("check"), env, arg, 0, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "FAIL batch limit_1 depth 10: crashed (SIGSEGV)"));
    e2e_run_free(&r);
}

static void test_list_drivers(void **state)
{
    (void)state;
    char body[4096];
    snprintf(body, sizeof body, "%s[query.q]\nsql = SELECT 1\n[suite.s]\n", drivers_text);
    const char *ini = e2e_write_ini("list", body);
    struct e2e_run r = e2e_run_runner(ini, e2e_json_path("list"), NULL, "--list-drivers", 0, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "libpq_sync: libpq_sync 1.0.0 (ABI 1.6), links: libpq 15."));
    assert_non_null(strstr(r.out, "null: null 1.0.0 (ABI 1.6), links: -, caps: no-io, reference"));
    /* what each driver's connections ask of the server (ABI 1.3 protocol) */
    assert_non_null(strstr(r.out, "  asks the server for: text results, a Describe per "
                                  "execution, a Sync per query, named statements\n"));
    assert_null(strstr(r.out, "unknown (the driver has no ABI 1.3 protocol())"));
    assert_false(e2e_exists(e2e_json_path("list")));
    e2e_run_free(&r);
}

/* Issue 13: a real run's result carries the noise figures, with sane
 * values: per cell the spread of its per-order medians (3 drivers: 6 orders
 * or more), the steal on the measuring CPU and on the machine as shares in
 * [0, 100] over a positive window, the measuring thread's context switches
 * (integers >= 0 in the file; a driver waiting on the server switches
 * voluntarily); in the environment the threshold of the file, CPU 0 as the
 * client CPU, the steal since boot and over the run; and the console's
 * Noise lines. */
static void test_noise_recorded(void **state)
{
    (void)state;
    char head[600], body[2048];
    snprintf(head, sizeof head, "[bench]\ntime_ms = 150\nqueries = 40\nwarmup_ms = 20\n"
             "noise_warn_pct = 12.5\n[server]\nsetup = %s/sql/benchmark_rows.sql\n", e2e_top);
    snprintf(body, sizeof body,
             "%s[driver.rawwire]\npath = %s/drivers/rawwire.so\n"
             "[query.q]\nsql = " SQL_LIMIT(10) "\nrows = 10\n[suite.s]\n", drivers_text, e2e_build);
    const char *ini = e2e_write_file("noise", head, body);
    const char *out = e2e_json_path("noise");
    struct e2e_run r = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\nNoise    : "));
    assert_non_null(strstr(r.out, "orders spread warned above 12.5% (noise_warn_pct)\n"));
    assert_non_null(strstr(r.out, "\n  Noise: steal "));
    assert_non_null(strstr(r.out, "per 1000 queries: libpq_sync "));
    assert_non_null(strstr(r.out, "\nSteal    : "));

    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_true(res.noise_warn_pct == 12.5);
    assert_true(res.nnoise_cpus >= 1);
    assert_int_equal(res.noise_cpus[0].cpu, 0);
    assert_memory_equal(res.noise_cpus[0].role, "client", 6);
    assert_true(res.steal_boot_pct >= 0 && res.steal_boot_pct <= 100);
    assert_true(res.run_steal_pct >= 0 && res.run_steal_pct <= 100);
    assert_true(res.run_steal_ns >= 0);
    /* 3 drivers: their 6 orders (a runner may repeat the set) */
    assert_true(res.norders >= 6 && res.norders % 6 == 0);
    const struct pgcb_res_group *gr = &res.groups[0];
    for (size_t d = 0; d < res.ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        assert_int_equal(c->status, PGCB_CELL_OK);
        assert_true(isfinite(c->spread_cv_pct) && c->spread_cv_pct >= 0);
        /* the pooled median lies between the extreme order medians
         * (histogram medians: to within their 0.1%) */
        assert_true(c->spread_min_ns <= c->median_ns * 1.002);
        assert_true(c->spread_max_ns >= c->median_ns * 0.998);
        assert_int_equal(c->noise_known, 1);
        assert_true(c->steal_window_ns > 0);
        assert_true(c->steal_cpus_pct >= 0 && c->steal_cpus_pct <= 100);
        assert_true(c->steal_machine_pct >= 0 && c->steal_machine_pct <= 100);
        assert_true(c->steal_cpus_ns >= 0 && c->steal_cpus_ns <= c->steal_window_ns);
    }
    /* libpq_sync and rawwire wait for the server's replies */
    assert_true(gr->cells[0].voluntary_switches > 0);
    assert_true(gr->cells[2].voluntary_switches > 0);
    pgcb_result_free(&res);

    /* The file itself: counts are non-negative integers, the rate agrees. */
    json_error_t je;
    json_t *j = json_load_file(out, 0, &je);
    assert_non_null(j);
    json_t *cells = json_object_get(json_array_get(json_object_get(j, "groups"), 0), "results");
    size_t i;
    json_t *c;
    json_array_foreach(cells, i, c) {
        json_t *inv = json_object_get(c, "involuntary_switches");
        json_t *vol = json_object_get(c, "voluntary_switches");
        assert_true(json_is_integer(inv) && json_integer_value(inv) >= 0);
        assert_true(json_is_integer(vol) && json_integer_value(vol) >= 0);
        double per = json_number_value(json_object_get(c, "involuntary_switches_per_1k_queries"));
        double q = (double)json_integer_value(json_object_get(c, "queries"));
        assert_true(fabs(per - 1000.0 * (double)json_integer_value(inv) / q) < 1e-9 * (per + 1));
        assert_true(json_is_object(json_object_get(c, "steal")));
        assert_true(json_is_number(json_object_get(json_object_get(c, "order_spread"),
                                                   "robust_cv_pct")));
    }
    json_t *cpu0 = json_array_get(
        json_object_get(json_object_get(json_object_get(j, "environment"), "noise"), "cpus"), 0);
    /* shown or "not shown by this machine" (null), never anything else */
    json_t *gov = json_object_get(cpu0, "governor"), *sib = json_object_get(cpu0, "smt_siblings");
    assert_true(json_is_null(gov) || json_is_string(gov));
    assert_true(json_is_null(sib) || json_is_string(sib));
    json_decref(j);
    e2e_run_free(&r);
}

int main(void)
{
    if (e2e_setup("test_runner_e2e") != 0)
        return 1;
    snprintf(drivers_text, sizeof drivers_text,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.null]\npath = %s/drivers/null.so\n",
             e2e_build, e2e_build);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_run_writes_valid_json),
        cmocka_unit_test(test_noise_recorded),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_driver_failure_is_recorded),
        cmocka_unit_test(test_interrupt_keeps_results),
        cmocka_unit_test(test_password_never_written),
        cmocka_unit_test(test_list_drivers),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_driver_crash_isolated),
        cmocka_unit_test(test_driver_hang_times_out),
        cmocka_unit_test(test_query_fault),
        cmocka_unit_test(test_check_driver_cli),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (e2e_teardown() != 0)
        rc = 1;
    return rc;
}
