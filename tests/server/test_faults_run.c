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
 *   a slow ops step after a fast group: its first block is sized from it,
 *                               not from the fast group (one huge block with
 *                               no heartbeat was killed as "timed out")
 *   the runner's own thread     runs away from the measuring CPU
 *   page faults in timed blocks the block buffers are faulted in before
 *   a host killed mid-statement its server session is ended (it used to go
 *                               on running its statement, loading the server
 *                               during the next group)
 *   a background connection that fails: the achieved rate counts the time
 *                               it was missing; background loads run off the
 *                               measuring CPU
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
#include <unistd.h>

#include <cmocka.h>
#include <libpq-fe.h>

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

/* The runner's output, when its exit status is not the one a test wants. */
static void show_unless(const struct e2e_run *r, int want)
{
    if (r->status != want)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r->status, r->out, r->err);
}

/* Two groups (limit_1, limit_100) of libpq_sync and null. */
static const char two_groups[] =
    "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
    "[driver.null]\npath = %s/drivers/null.so\n"
    "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
    "[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n[suite.s]\n";


static void read_result(const char *path, struct pgcb_result *res)
{
    char err[512];
    assert_int_equal(pgcb_result_read(path, res, err, sizeof err), 0);
}

/* threads = 2, the first connection failing after 5 batches, the second
 * measuring for ~3 s: the cell fails with the driver's own error, not
 * "timed out" (a host waiting on its failed thread would be killed by the
 * 5 s batch timeout; 300 ms let load alone time a batch out). */
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
                                          "batch_timeout_ms = 5000"),
                                     body);
    const char *out = e2e_json_path("one_fails");
    struct e2e_run r = e2e_run_runner(ini, out, no_budget_env, NULL, 0, NULL);
    show_unless(&r, 2);
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
    snprintf(body, sizeof body, two_groups, e2e_build, e2e_build);
    const char *ini =
        e2e_write_file("sigterm", head("time_ms = 4000\nqueries = 50\nwarmup_ms = 20"), body);
    const char *out = e2e_json_path("sigterm");
    struct e2e_run r =
        e2e_run_runner_act(ini, out, no_budget_env, "Budget   :", 1200, term_group, NULL);
    show_unless(&r, 2);
    assert_int_equal(r.status, 2);
    struct pgcb_result res;
    read_result(out, &res);
    assert_int_equal(res.complete, 0);
    /* the group it was in keeps what it measured, marked partial */
    print_message("group 1: partial %d, %zu of %zu orders\n", res.groups[0].partial,
                  res.groups[0].partial_orders, res.norders);
    assert_int_equal(res.groups[0].partial, 1);
    assert_true(res.groups[0].partial_orders < res.norders);
    assert_true(res.groups[0].cells[0].samples > 0);
    assert_non_null(strstr(res.groups[0].cells[0].error, "partial: "));
    assert_non_null(strstr(r.out, "PARTIAL: interrupted after "));
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
    snprintf(body, sizeof body, two_groups, e2e_build, e2e_build);
    const char *ini =
        e2e_write_file("killed", head("time_ms = 2000\nqueries = 50\nwarmup_ms = 20"), body);
    const char *out = e2e_json_path("killed");
    int killed = 0;
    struct e2e_run r =
        e2e_run_runner_act(ini, out, no_budget_env, "Budget   :", 700, kill_hosts, &killed);
    show_unless(&r, 2);
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
    /* The new host's backends were looked up again: libpq_sync's are known
     * in the second group (the first host's are gone). */
    assert_true(pgcb_res_backend_known(&res.groups[1].cells[0].backend));
    assert_int_equal(res.groups[1].cells[0].backend.pids, 1);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* A fast group (SELECT 1), then an ops step of pg_sleep(5 ms) without
 * warm-up, batch_timeout_ms = 600: the step's first block used to be sized
 * from SELECT 1's speed (~10 ms / 50 us = 200 batches = 1 s of sleeping, no
 * heartbeat) and killed. */
static void test_block_sized_per_job(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[query.fast]\nsql = SELECT 1\nrows = 1\n"
             "[query.slow]\nsql = SELECT pg_sleep(0.005)\nrows = 1\n"
             "[suite.a_fast]\nqueries = fast\n"
             "[suite.b_slow]\nqueries = slow\nops = 300\n",
             e2e_build);
    const char *ini = e2e_write_file(
        "blocks", head("time_ms = 400\nqueries = 20\nwarmup_ms = 100\nbatch_timeout_ms = 600"),
        body);
    const char *out = e2e_json_path("blocks");
    struct e2e_run r = e2e_run_runner(ini, out, no_budget_env, NULL, 0, NULL);
    show_unless(&r, 0);
    assert_int_equal(r.status, 0);
    struct pgcb_result res;
    read_result(out, &res);
    assert_int_equal(res.groups[1].cells[0].status, PGCB_CELL_OK);
    assert_int_equal(res.groups[1].cells[0].queries, 300);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* "1", "1-3", "0,2-3": is cpu in the list? */
static int in_list(const char *list, int cpu)
{
    const char *p = list;
    while (p && *p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p)
            return 0;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        if (cpu >= a && cpu <= b)
            return 1;
        p = *end == ',' ? end + 1 : NULL;
    }
    return 0;
}

static void read_affinity(pid_t pid, void *arg)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    char *out = arg;
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
            snprintf(out, 128, "%s", line + 18 + strspn(line + 18, " \t"));
            out[strcspn(out, "\n")] = '\0';
        }
    if (f)
        fclose(f);
}

/* The runner's thread runs away from the measuring CPU 0 when the machine
 * has another (it used to wake on CPU 0 every 50 ms, preempting the
 * measuring thread); the result and the header say where. No I/O: null,
 * 2 s. Also: no page fault inside the timed blocks of an ops step without
 * warm-up (the sample buffer used to be faulted in by the timed stores: 128
 * per 512 KiB block). */
static void test_runner_off_measuring_cpu(void **state)
{
    (void)state;
    char body[1024];
    snprintf(body, sizeof body,
             "[driver.null]\npath = %s/drivers/null.so\n"
             "[query.q]\nsql = SELECT 1\nrows = 1\n[suite.s]\nops = 400000\n",
             e2e_build);
    const char *ini = e2e_write_file("away", "[bench]\nwarmup_ms = 0\ncpus = 0\n", body);
    const char *out = e2e_json_path("away");
    char allowed[128] = "";
    struct e2e_run r =
        e2e_run_runner_act(ini, out, no_budget_env, "Pinning  :", 0, read_affinity, allowed);
    assert_int_equal(r.status, 0);
    struct pgcb_result res;
    read_result(out, &res);
    print_message("runner allowed on %s; result: %s; timed minor faults %llu in %llu batches\n",
                  allowed, res.runner_cpus ? res.runner_cpus : "?",
                  (unsigned long long)res.groups[0].cells[0].timed_minor_faults,
                  (unsigned long long)res.groups[0].cells[0].samples);
    assert_non_null(res.runner_cpus);
    if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
        assert_false(in_list(allowed, 0));
        assert_false(in_list(res.runner_cpus, 0));
        assert_non_null(strstr(r.out, "; the runner itself on CPU "));
    }
    assert_true(res.groups[0].cells[0].samples >= 400000);
    /* a few faults may come from code first run; a buffer would be >= 128 */
    assert_true(res.groups[0].cells[0].timed_minor_faults < 32);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* A background load of 2 connections at 20/s each whose first connection
 * fails after 2 executions: the achieved rate is what the load achieved over
 * its span (about half the target), not the sum of per-connection rates
 * (which said ~100%); it ran off the measuring CPU. */
static void test_background_rate(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.null]\npath = %s/drivers/null.so\n"
             "[driver.faulty]\npath = %s/tests/fixtures/faulty.so\nmeasure = no\n"
             "fault = fail_first\nafter = 2\n"
             "[query.q]\nsql = SELECT 1\nrows = 1\n"
             "[background.bg]\ndriver = faulty\nquery = q\nrate = 20\nconnections = 2\n"
             "[suite.s]\nqueries = q\nbackground = bg\n",
             e2e_build, e2e_build);
    const char *ini = e2e_write_file(
        "bgrate", "[bench]\ntime_ms = 2000\nqueries = 10\nwarmup_ms = 0\ncpus = 0\n", body);
    const char *out = e2e_json_path("bgrate");
    struct e2e_run r = e2e_run_runner(ini, out, no_budget_env, NULL, 0, NULL);
    struct pgcb_result res;
    read_result(out, &res);
    const struct pgcb_res_background *b = &res.groups[0].backgrounds[0];
    print_message("background: %llu executions in %.2f s, achieved %.1f/s of %.0f/s, cpus %s, "
                  "error %s\n", (unsigned long long)b->executions, b->elapsed_s,
                  b->achieved_rate, b->target_rate, b->cpus ? b->cpus : "?",
                  b->error ? b->error : "-");
    assert_true(b->achieved_rate < 0.65 * b->target_rate);
    assert_true(b->achieved_rate > 0.35 * b->target_rate);
    assert_non_null(b->error);
    assert_false(b->sla_met);
    assert_non_null(b->cpus);
    if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
        assert_false(in_list(b->cpus, 0));
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* Backends still running pg_sleep(20) (other than ours), after waiting up to
 * 3 s for terminated ones to go. */
static long sleeping_backends(void)
{
    PGconn *c = PQconnectdb("");
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    long n = -1;
    for (int i = 0; i < 30; i++) {
        PGresult *res = PQexec(c, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE "
                                  "'%pg_sleep(20)%' AND pid <> pg_backend_pid()");
        n = PQresultStatus(res) == PGRES_TUPLES_OK ? atol(PQgetvalue(res, 0, 0)) : -1;
        PQclear(res);
        if (n == 0)
            break;
        usleep(100000);
    }
    PQfinish(c);
    return n;
}

/* A batch that sleeps 20 s, batch_timeout_ms = 800: the host is killed as
 * hung, and its backend, still in pg_sleep, is terminated by the runner. */
static void test_killed_backend_ended(void **state)
{
    (void)state;
    char body[1024];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[query.q]\nsql = SELECT pg_sleep(20)\nrows = 1\nprime = no\n[suite.s]\n",
             e2e_build);
    const char *ini = e2e_write_file(
        "backend", head("time_ms = 200\nqueries = 1\nwarmup_ms = 0\nbatch_timeout_ms = 800"),
        body);
    const char *out = e2e_json_path("backend");
    struct e2e_run r = e2e_run_runner(ini, out, no_budget_env, NULL, 0, NULL);
    show_unless(&r, 2);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "runner: ended 1 server session driver libpq_sync's host left "
                                  "running"));
    long n = sleeping_backends();
    print_message("backends still in pg_sleep after the run: %ld\n", n);
    assert_int_equal(n, 0);
    e2e_run_free(&r);
}

static void stop_hosts(pid_t pid, void *arg)
{
    pid_t kids[16];
    int n = e2e_children(pid, kids, 16);
    for (int i = 0; i < n; i++)
        kill(kids[i], SIGSTOP);
    *(int *)arg = n;
}

/* Group 1 failed for every driver with `why` in its error; group 2 measured. */
/* `why` must be in each failed cell's error, or `or_why` when not NULL. */
static void expect_first_group_lost(const char *path, const char *why, const char *or_why,
                                    size_t nfailed)
{
    struct pgcb_result res;
    read_result(path, &res);
    assert_int_equal(res.ngroups, 2);
    assert_int_equal(res.complete, 1);
    size_t failed = 0;
    for (size_t d = 0; d < res.ndrivers; d++) {
        const struct pgcb_res_cell *c = &res.groups[0].cells[d];
        print_message("group 1, %s: %s %s\n", res.drivers[d].label,
                      pgcb_cell_status_str(c->status), c->error ? c->error : "");
        if (c->status == PGCB_CELL_FAILED) {
            failed++;
            assert_true(strstr(c->error, why) || (or_why && strstr(c->error, or_why)));
        }
        const struct pgcb_res_cell *c2 = &res.groups[1].cells[d];
        print_message("group 2, %s: %s %s\n", res.drivers[d].label,
                      pgcb_cell_status_str(c2->status), c2->error ? c2->error : "");
        assert_int_equal(c2->status, PGCB_CELL_OK);
    }
    assert_int_equal(failed, nfailed);
    pgcb_result_free(&res);
}

/* SIGSTOP of the hosts: the watchdog finds no progress, kills them (a
 * stopped process takes SIGKILL), the group fails "timed out", the next
 * group runs on new hosts; status 2. */
static void test_hosts_stopped(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body, two_groups, e2e_build, e2e_build);
    const char *ini = e2e_write_file(
        "stopped", head("time_ms = 2000\nqueries = 50\nwarmup_ms = 20\nbatch_timeout_ms = 2500"),
        body);
    const char *out = e2e_json_path("stopped");
    int stopped = 0;
    struct e2e_run r =
        e2e_run_runner_act(ini, out, no_budget_env, "Budget   :", 700, stop_hosts, &stopped);
    show_unless(&r, 2);
    assert_int_equal(stopped, 2);
    assert_int_equal(r.status, 2);
    expect_first_group_lost(out, "timed out", NULL, 2);
    e2e_run_free(&r);
}

static void terminate_sessions(pid_t pid, void *arg)
{
    (void)pid;
    PGconn *c = PQconnectdb("");
    PGresult *res = PQexec(c, "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM "
                              "pg_stat_activity WHERE application_name LIKE 'pgcb-%'");
    *(long *)arg = PQresultStatus(res) == PGRES_TUPLES_OK ? atol(PQgetvalue(res, 0, 0)) : -1;
    PQclear(res);
    PQfinish(c);
}

/* pg_terminate_backend of the drivers' sessions from outside: libpq_sync's
 * group fails with the server's FATAL (the null driver has none and goes
 * on), it reconnects for the next group; status 2. */
static void test_sessions_terminated(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body, two_groups, e2e_build, e2e_build);
    const char *ini =
        e2e_write_file("terminated", head("time_ms = 2000\nqueries = 50\nwarmup_ms = 20"), body);
    const char *out = e2e_json_path("terminated");
    long n = 0;
    struct e2e_run r =
        e2e_run_runner_act(ini, out, no_budget_env, "Budget   :", 700, terminate_sessions, &n);
    show_unless(&r, 2);
    print_message("sessions terminated: %ld\n", n);
    assert_true(n >= 1);
    assert_int_equal(r.status, 2);
    /* libpq reads the backend's FATAL, or meets the closed socket first when
     * it was writing: both are the terminated session */
    expect_first_group_lost(out, "terminating connection due to administrator command",
                            "server closed the connection unexpectedly", 1);
    e2e_run_free(&r);
}

/* A driver out of memory: its group fails with the driver's message, the
 * run goes on (the other driver's figures kept), status 2. */
static void test_driver_oom(void **state)
{
    (void)state;
    char body[1024];
    snprintf(body, sizeof body,
             "[driver.faulty]\npath = %s/tests/fixtures/faulty.so\nfault = oom\nafter = 30\n"
             "[driver.null]\npath = %s/drivers/null.so\n"
             "[query.q]\nsql = SELECT 1\nrows = 1\n[suite.s]\n",
             e2e_build, e2e_build);
    const char *ini =
        e2e_write_file("oom", head("time_ms = 400\nqueries = 50\nwarmup_ms = 0"), body);
    const char *out = e2e_json_path("oom");
    struct e2e_run r = e2e_run_runner(ini, out, no_budget_env, NULL, 0, NULL);
    assert_int_equal(r.status, 2);
    struct pgcb_result res;
    read_result(out, &res);
    assert_int_equal(res.groups[0].cells[0].status, PGCB_CELL_FAILED);
    assert_non_null(strstr(res.groups[0].cells[0].error, "out of memory"));
    assert_int_equal(res.groups[0].cells[1].status, PGCB_CELL_OK);
    assert_true(res.groups[0].cells[1].samples > 0);
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
        cmocka_unit_test(test_block_sized_per_job),
        cmocka_unit_test(test_runner_off_measuring_cpu),
        cmocka_unit_test(test_background_rate),
        cmocka_unit_test(test_killed_backend_ended),
        cmocka_unit_test(test_hosts_stopped),
        cmocka_unit_test(test_sessions_terminated),
        cmocka_unit_test(test_driver_oom),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (e2e_teardown() != 0)
        rc = 1;
    return rc;
}
