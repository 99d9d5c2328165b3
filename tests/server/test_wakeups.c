/*
 * test_wakeups.c -- how often a driver's measuring thread sleeps per query,
 * end to end against the real (idle) server tests/run.sh started.
 *
 * At depth 1 a client that waits for its reply well sleeps once per query:
 * it sends, sleeps until the reply is in, reads it. A second sleep is a
 * wake-up paid on both sides of the socket for nothing; rawwire had one
 * (a blocking recv() on the unix socket is woken when the server reads our
 * request, finds no reply and sleeps again: lib/pgwire/rw_io.c, rw_recv),
 * which on a slow-waking VM cost it its lead over libpq at LIMIT 1. This
 * test fails when it, or any shipped C driver, comes back to more than one
 * sleep per sequential query, with libpq_sync (libpq waits in poll) and the
 * null driver (no I/O: no sleep) as references. The replies of LIMIT 1 and
 * LIMIT 100 (3.8 kB) fit in one server send (its buffer is 8 kB), so the
 * server's pacing cannot add a sleep; LIMIT 500 (three sends) is not tested.
 * The figure is the result's voluntary_switches over its queries: getrusage
 * (RUSAGE_THREAD) of the measuring thread around each order's timed part.
 * floor spins before it sleeps (spin_us): at most one sleep, maybe none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "result.h"
#include "../lib/e2e.h"

#define SQL_LIMIT(n) "SELECT * FROM benchmark_rows ORDER BY id LIMIT " #n

static const char *const no_budget_env[] = {"BENCH_TIME_MS", "BENCH_QUERIES", NULL};

/* At most this many sleeps per query: one, and room for the odd sleep that
 * is not a reply's (a page of the histogram, a timer) over >= 2000 queries. */
#define MAX_SLEEPS_PER_QUERY 1.05

static void test_one_sleep_per_query(void **state)
{
    (void)state;
    static const char *const drivers[] = {"libpq_sync", "libpq_pipeline", "rawwire", "floor",
                                          "null"};
    const size_t ndrivers = sizeof drivers / sizeof drivers[0];
    char head[1024], body[4096];
    size_t at = 0;
    snprintf(head, sizeof head,
             "[bench]\ntime_ms = 600\nqueries = 1000\nwarmup_ms = 50\norders = 2\n"
             "[server]\nconninfo =\nsetup = %s/sql/benchmark_rows.sql\n", e2e_top);
    for (size_t d = 0; d < ndrivers; d++)
        at += (size_t)snprintf(body + at, sizeof body - at, "[driver.%s]\npath = %s/drivers/%s.so\n%s",
                               drivers[d], e2e_build, drivers[d],
                               strcmp(drivers[d], "null") == 0 ? "rows = 1\n" : "");
    snprintf(body + at, sizeof body - at,
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n"
             "[suite.sequential]\ndepth = 1\nqueries = limit_1 limit_100\n");
    const char *ini = e2e_write_file("wakeups", head, body);
    const char *out = e2e_json_path("wakeups");
    struct e2e_run r = e2e_run_runner(ini, out, no_budget_env, "-q", 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r.status, r.out, r.err);
    assert_int_equal(r.status, 0);

    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ngroups, 2);
    assert_int_equal(res.ndrivers, ndrivers);
    /* the null driver is measured against one row per query: only LIMIT 1's
     * rows match it; its cells of LIMIT 100 are INVALID, and still timed */
    for (size_t g = 0; g < res.ngroups; g++)
        for (size_t d = 0; d < res.ndrivers; d++) {
            const struct pgcb_res_cell *c = &res.groups[g].cells[d];
            const char *name = res.drivers[d].label;
            assert_true(c->queries >= 1000);
            double per = (double)c->voluntary_switches / (double)c->queries;
            print_message("%-16s %-10s %.3f sleeps per query (%llu over %llu queries)\n",
                          res.groups[g].query, name, per,
                          (unsigned long long)c->voluntary_switches,
                          (unsigned long long)c->queries);
            if (strcmp(name, "null") == 0) {
                assert_true(per < 0.01); /* no I/O, no sleep */
                continue;
            }
            assert_int_equal(c->status, PGCB_CELL_OK);
            if (per > MAX_SLEEPS_PER_QUERY)
                fail_msg("%s at sequential %s: %.3f sleeps per query, more than one", name,
                         res.groups[g].query, per);
            /* libpq and rawwire do not spin: each reply is waited for */
            if (strcmp(name, "floor") != 0)
                assert_true(per > 0.9);
        }
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

static int setup(void **state)
{
    (void)state;
    return e2e_setup("test_wakeups");
}

static int teardown(void **state)
{
    (void)state;
    return e2e_teardown();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_sleep_per_query),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
