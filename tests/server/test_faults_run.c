/*
 * test_faults_run.c -- faults that used to lose what a run measured (issue
 * 14), against the real server tests/run.sh started:
 *
 *   one of two threads fails    the other keeps measuring; the watchdog must
 *                               not kill the host as "timed out" (the finished
 *                               thread stopped beating), the real error shows
 *   SIGTERM to the process group (timeout(1), systemd): the hosts ignore it,
 *                               the runner stops between blocks, writes the
 *                               result and exits 2; no cell "crashed (SIGTERM)"
 *   the hosts SIGKILLed         the one measuring crashes its group, the idle
 *                               one is found dead at the next write (EPIPE,
 *                               not SIGPIPE: the runner used to die with 141
 *                               and no result); the next group restarts them
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "result.h"
#include "../lib/e2e.h"

#define SQL_LIMIT(n)                                                                        \
    "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY " \
    "id LIMIT " #n

static const char *const no_budget_env[] = {"BENCH_TIME_MS", "BENCH_QUERIES", NULL};

static const char *head(const char *bench)
{
    static char h[1024];
    snprintf(h, sizeof h, "[bench]\n%s\n[server]\nsetup = %s/sql/benchmark_rows.sql\n", bench,
             e2e_top);
    return h;
}

static void read_result(const char *path, struct pgcb_result *res)
{
    char err[512];
    assert_int_equal(pgcb_result_read(path, res, err, sizeof err), 0);
}

/* threads = 2, the first connection failing after 5 batches, the second
 * measuring for ~3 s with batch_timeout_ms = 300: the cell fails with the
 * driver's own error, not "timed out". */
static void test_one_thread_fails(void **state)
{
    (void)state;
    char body[1024];
    snprintf(body, sizeof body,
             "[driver.faulty]\npath = %s/tests/fixtures/faulty.so\nfault = fail_first\n"
             "after = 5\nsleep_us = 2000\n"
             "[query.q]\nsql = SELECT 1\nrows = 1\n[suite.s]\nthreads = 2\n",
             e2e_build);
    const char *ini = e2e_write_file("one_fails",
                                     head("time_ms = 3000\nqueries = 10\nwarmup_ms = 0\n"
                                          "batch_timeout_ms = 300"),
                                     body);
    const char *out = e2e_json_path("one_fails");
    struct e2e_run r = e2e_run_runner(ini, out, no_budget_env, NULL, 0, NULL);
    if (r.status != 2)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r.status, r.out, r.err);
    assert_int_equal(r.status, 2);
    struct pgcb_result res;
    read_result(out, &res);
    const struct pgcb_res_cell *c = &res.groups[0].cells[0];
    print_message("cell: %s: %s\n", pgcb_cell_status_str(c->status), c->error ? c->error : "");
    assert_int_equal(c->status, PGCB_CELL_FAILED);
    assert_non_null(c->error);
    assert_non_null(strstr(c->error, "the first connection fails on purpose"));
    assert_null(strstr(c->error, "timed out"));
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

static void term_group(pid_t pid, void *arg)
{
    (void)arg;
    killpg(pid, SIGTERM);
}

/* SIGTERM to the runner's whole group while it measures: status 2, the
 * result written (partial), no cell ended by the signal. */
static void test_sigterm_to_group(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.null]\npath = %s/drivers/null.so\n"
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n[suite.s]\n",
             e2e_build, e2e_build);
    const char *ini =
        e2e_write_file("sigterm", head("time_ms = 4000\nqueries = 50\nwarmup_ms = 20"), body);
    const char *out = e2e_json_path("sigterm");
    struct e2e_run r =
        e2e_run_runner_act(ini, out, no_budget_env, "Budget   :", 1200, term_group, NULL);
    if (r.status != 2)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r.status, r.out, r.err);
    assert_int_equal(r.status, 2);
    struct pgcb_result res;
    read_result(out, &res);
    assert_int_equal(res.complete, 0);
    for (size_t g = 0; g < res.ngroups; g++)
        for (size_t d = 0; d < res.ndrivers; d++) {
            const char *e = res.groups[g].cells[d].error;
            assert_true(!e || (!strstr(e, "SIGTERM") && !strstr(e, "crashed")));
        }
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

static void kill_hosts(pid_t pid, void *arg)
{
    (void)arg;
    pid_t kids[16];
    int n = e2e_children(pid, kids, 16);
    for (int i = 0; i < n; i++)
        kill(kids[i], SIGKILL);
    *(int *)arg = n;
}

/* Both hosts SIGKILLed in the first group: the run goes on (status 2, not
 * 141), the result is written, the second group is measured by new hosts. */
static void test_hosts_killed(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.null]\npath = %s/drivers/null.so\n"
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n[suite.s]\n",
             e2e_build, e2e_build);
    const char *ini =
        e2e_write_file("killed", head("time_ms = 2000\nqueries = 50\nwarmup_ms = 20"), body);
    const char *out = e2e_json_path("killed");
    int killed = 0;
    struct e2e_run r =
        e2e_run_runner_act(ini, out, no_budget_env, "Budget   :", 700, kill_hosts, &killed);
    if (r.status != 2)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r.status, r.out, r.err);
    assert_int_equal(killed, 2);
    assert_int_equal(r.status, 2);
    struct pgcb_result res;
    read_result(out, &res);
    assert_int_equal(res.ngroups, 2);
    assert_int_equal(res.complete, 1);
    size_t failed = 0;
    for (size_t d = 0; d < res.ndrivers; d++) {
        const struct pgcb_res_cell *c = &res.groups[0].cells[d];
        print_message("group 1, %s: %s %s\n", res.drivers[d].label,
                      pgcb_cell_status_str(c->status), c->error ? c->error : "");
        failed += c->status == PGCB_CELL_FAILED;
        assert_int_equal(res.groups[1].cells[d].status, PGCB_CELL_OK);
    }
    assert_int_equal(failed, 2);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

int main(void)
{
    if (e2e_setup("test_faults_run") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_thread_fails),
        cmocka_unit_test(test_sigterm_to_group),
        cmocka_unit_test(test_hosts_killed),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (e2e_teardown() != 0)
        rc = 1;
    return rc;
}
