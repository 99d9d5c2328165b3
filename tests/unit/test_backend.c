/*
 * test_backend.c -- a driver's backends (runner/server/backend.h) without a
 * server: a set is refused with a reason when the server is elsewhere, the
 * count is not the host's connections, or a pid is no postgres child of the
 * postmaster; readings add up per order into per-query figures (ticks for
 * user and sys, schedstat for the total when every reading had it); a lost
 * reading makes the figures unknown with its reason; this process read as a
 * backend of its parent counts its own CPU time and switches.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/backend.h"
#include "sys/procfs.h"

static void test_set_refused(void **state)
{
    (void)state;
    struct pgcb_backend_set set;
    int pids[2] = {getpid(), getpid()};
    assert_int_equal(pgcb_backend_set_init(&set, pids, 1, 1, 0), -1);
    assert_int_equal(set.n, 0);
    assert_non_null(strstr(set.why, "does not run on this machine"));
    assert_int_equal(pgcb_backend_set_init(&set, pids, 2, 1, getppid()), -1);
    assert_string_equal(set.why, "the server lists 2 backends under the host's "
                                 "application_name, not its 1 connection");
    assert_int_equal(pgcb_backend_set_init(&set, pids, 0, 3, getppid()), -1);
    assert_string_equal(set.why, "the server lists 0 backends under the host's "
                                 "application_name, not its 3 connections");
    /* This process is a child of its parent, but not "postgres". */
    assert_int_equal(pgcb_backend_set_init(&set, pids, 1, 1, getppid()), -1);
    assert_non_null(strstr(set.why, "is not a postgres process"));
}

static struct pgcb_backend_sample sample(uint64_t ut, uint64_t st, uint64_t ns, int exact,
                                         uint64_t vol, uint64_t inv)
{
    return (struct pgcb_backend_sample){.utime = ut, .stime = st, .run_ns = ns,
                                        .run_exact = exact, .voluntary = vol,
                                        .involuntary = inv};
}

static void test_figures(void **state)
{
    (void)state;
    const double tick = (double)pgcb_procfs_tick_ns();
    struct pgcb_backend_set set = {.n = 2};
    struct pgcb_backend_acc acc = {0};
    struct pgcb_backend_sample a0 = sample(10, 5, 1000000, 1, 100, 1);
    struct pgcb_backend_sample a1 = sample(13, 6, 41000000, 1, 1100, 3);
    struct pgcb_backend_sample b0 = sample(20, 6, 50000000, 1, 2000, 3);
    struct pgcb_backend_sample b1 = sample(22, 8, 90000000, 1, 3000, 4);
    pgcb_backend_add(&acc, &set, &a0, &a1);
    pgcb_backend_add(&acc, &set, &b0, &b1);
    struct pgcb_res_backend f;
    pgcb_backend_figures(&acc, 2000, "unused", &f);
    assert_true(pgcb_res_backend_known(&f));
    assert_int_equal(f.pids, 2);
    assert_true(f.cpu_exact);
    assert_null(f.why);
    assert_true(f.cpu_ns_per_query == 80000000.0 / 2000);
    assert_true(f.user_ns_per_query == 5 * tick / 2000);
    assert_true(f.sys_ns_per_query == 3 * tick / 2000);
    assert_true(f.voluntary_switches_per_query == 2000.0 / 2000);
    assert_true(f.involuntary_switches_per_query == 3.0 / 2000);

    /* One reading without schedstat: the total is the ticks' sum. */
    struct pgcb_backend_sample c0 = sample(30, 9, 0, 0, 3000, 4);
    struct pgcb_backend_sample c1 = sample(31, 9, 0, 0, 3500, 4);
    pgcb_backend_add(&acc, &set, &c0, &c1);
    pgcb_backend_figures(&acc, 2500, NULL, &f);
    assert_false(f.cpu_exact);
    assert_true(f.cpu_ns_per_query == f.user_ns_per_query + f.sys_ns_per_query);
    assert_true(f.user_ns_per_query == 6 * tick / 2500);

    /* Nothing added: unknown, with the set's reason. */
    struct pgcb_backend_acc none = {0};
    pgcb_backend_figures(&none, 100, "the server does not run here", &f);
    assert_false(pgcb_res_backend_known(&f));
    assert_true(isnan(f.cpu_ns_per_query) && isnan(f.user_ns_per_query) &&
                isnan(f.voluntary_switches_per_query));
    assert_string_equal(f.why, "the server does not run here");
    free(f.why);
    pgcb_backend_figures(&none, 100, "", &f);
    assert_null(f.why);

    /* Lost: unknown with its own reason, which the first loss keeps. */
    pgcb_backend_lose(&acc, "backend 7 exited during the group");
    pgcb_backend_lose(&acc, "later");
    pgcb_backend_figures(&acc, 2500, "set reason", &f);
    assert_false(pgcb_res_backend_known(&f));
    assert_string_equal(f.why, "backend 7 exited during the group");
    free(f.why);

    /* A counter that went back (a reused pid) loses the figures too. */
    struct pgcb_backend_acc back = {0};
    pgcb_backend_add(&back, &set, &a1, &a0);
    pgcb_backend_figures(&back, 10, NULL, &f);
    assert_false(pgcb_res_backend_known(&f));
    assert_non_null(strstr(f.why, "went back"));
    free(f.why);
}

static void burn(uint64_t ns)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    volatile uint64_t x = 0;
    do {
        x++;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t.tv_nsec -
                 (uint64_t)t0.tv_nsec < ns);
}

/* This process as the only "backend" of a set (pids and postmaster filled
 * in by hand: init refuses a process that is not postgres). */
static void test_read_self(void **state)
{
    (void)state;
    struct pgcb_backend_set set = {.n = 1, .postmaster = getppid()};
    set.pids[0] = getpid();
    struct pgcb_backend_sample s0, s1;
    char why[256];
    assert_int_equal(pgcb_backend_read(&set, &s0, why, sizeof why), 0);
    burn(60000000); /* 60 ms of CPU */
    usleep(1000);   /* at least one voluntary switch */
    assert_int_equal(pgcb_backend_read(&set, &s1, why, sizeof why), 0);
    struct pgcb_backend_acc acc = {0};
    pgcb_backend_add(&acc, &set, &s0, &s1);
    struct pgcb_res_backend f;
    pgcb_backend_figures(&acc, 1, NULL, &f);
    assert_true(pgcb_res_backend_known(&f));
    assert_true(f.cpu_exact);
    assert_true(f.cpu_ns_per_query >= 60000000.0);
    assert_true(f.voluntary_switches_per_query >= 1);
    /* Ticks: the same time to within a tick each of user and sys. */
    const double tick = (double)pgcb_procfs_tick_ns();
    assert_true(fabs(f.user_ns_per_query + f.sys_ns_per_query - f.cpu_ns_per_query) <=
                2 * tick + 0.5 * f.cpu_ns_per_query);
    /* Another parent: the pid is no longer the postmaster's child. */
    set.postmaster = getpid();
    assert_int_equal(pgcb_backend_read(&set, &s1, why, sizeof why), -1);
    assert_non_null(strstr(why, "exited during the group"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_refused),
        cmocka_unit_test(test_figures),
        cmocka_unit_test(test_read_self),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
