/*
 * test_procfs.c -- the /proc parsers (runner/sys/procfs.h) on fixture texts: a
 * postgres backend's stat line (a command name with spaces and parentheses,
 * a negative nice), status and schedstat, what is not such a file, and the
 * readers on this process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/procfs.h"

/* A backend of a PostgreSQL 15 server, as /proc/PID/stat shows it
 * (utime 1234, stime 567, cutime 8, cstime 9, 1 thread). */
static const char stat_backend[] =
    "4242 (postgres) S 4100 4100 4100 0 -1 4194560 1520 0 0 0 1234 567 8 9 20 0 1 0 "
    "987654 231424000 3421 18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 1 0 0 0 "
    "0 0 0 0 0 0 0 0 0 0\n";

static void test_stat_backend(void **state)
{
    (void)state;
    struct pgcb_procfs_stat st;
    assert_int_equal(pgcb_procfs_parse_stat(stat_backend, &st), 0);
    assert_string_equal(st.comm, "postgres");
    assert_int_equal(st.state, 'S');
    assert_int_equal(st.ppid, 4100);
    assert_int_equal(st.utime, 1234);
    assert_int_equal(st.stime, 567);
    assert_int_equal(st.cutime, 8);
    assert_int_equal(st.cstime, 9);
    assert_int_equal(st.threads, 1);
}

static void test_stat_odd_names(void **state)
{
    (void)state;
    struct pgcb_procfs_stat st;
    /* A name with ") S 1 " inside it: only the last ")" ends it; nice -10,
     * 13 threads. */
    const char odd[] = "77 (a) S 1 (b)) R 12 0 0 0 -1 0 0 0 0 0 5 6 7 8 10 -10 13 0 0\n";
    assert_int_equal(pgcb_procfs_parse_stat(odd, &st), 0);
    assert_string_equal(st.comm, "a) S 1 (b)");
    assert_int_equal(st.state, 'R');
    assert_int_equal(st.ppid, 12);
    assert_int_equal(st.utime, 5);
    assert_int_equal(st.stime, 6);
    assert_int_equal(st.threads, 13);
    /* A name longer than the buffer is cut, the fields still read. */
    const char longname[] = "5 (0123456789012345678901234567890123456789) S 2 0 0 0 -1 0 0 0 0 "
                            "0 3 4 0 0 20 0 1 0 0\n";
    assert_int_equal(pgcb_procfs_parse_stat(longname, &st), 0);
    assert_int_equal(strlen(st.comm), sizeof st.comm - 1);
    assert_int_equal(st.ppid, 2);
    assert_int_equal(st.utime, 3);
}

static void test_stat_bad(void **state)
{
    (void)state;
    struct pgcb_procfs_stat st;
    assert_int_equal(pgcb_procfs_parse_stat("", &st), -1);
    assert_int_equal(pgcb_procfs_parse_stat("4242 postgres S 1 2 3", &st), -1);
    /* cut before field 20 */
    assert_int_equal(pgcb_procfs_parse_stat("4242 (postgres) S 4100 4100 4100 0 -1 0 0 0 0 0 "
                                            "1 2 3 4 20 0\n", &st), -1);
    /* a negative time */
    assert_int_equal(pgcb_procfs_parse_stat("1 (x) S 0 0 0 0 -1 0 0 0 0 0 -1 2 3 4 20 0 1 0 0\n",
                                            &st), -1);
    /* not a number */
    assert_int_equal(pgcb_procfs_parse_stat("1 (x) S 0 0 0 0 -1 0 0 0 0 0 1x 2 3 4 20 0 1 0 0\n",
                                            &st), -1);
}

static const char status_backend[] =
    "Name:\tpostgres\nUmask:\t0077\nState:\tS (sleeping)\nTgid:\t4242\nPid:\t4242\n"
    "PPid:\t4100\nThreads:\t1\nCpus_allowed_list:\t1\n"
    "voluntary_ctxt_switches:\t130517\nnonvoluntary_ctxt_switches:\t42\n";

static void test_switches(void **state)
{
    (void)state;
    uint64_t v = 0, n = 0;
    assert_int_equal(pgcb_procfs_parse_switches(status_backend, &v, &n), 0);
    assert_int_equal(v, 130517);
    assert_int_equal(n, 42);
    /* "voluntary" must not match inside "nonvoluntary", nor a prefix key. */
    assert_int_equal(pgcb_procfs_parse_switches("nonvoluntary_ctxt_switches:\t3\n", &v, &n), -1);
    assert_int_equal(pgcb_procfs_parse_switches("voluntary_ctxt_switches_x:\t1\n"
                                                "nonvoluntary_ctxt_switches:\t3\n", &v, &n), -1);
    assert_int_equal(pgcb_procfs_parse_switches("voluntary_ctxt_switches:\t\n"
                                                "nonvoluntary_ctxt_switches:\t3\n", &v, &n), -1);
    assert_int_equal(pgcb_procfs_parse_switches("", &v, &n), -1);
}

static void test_schedstat(void **state)
{
    (void)state;
    uint64_t ns = 0;
    assert_int_equal(pgcb_procfs_parse_schedstat("216235403 19151966 743\n", &ns), 0);
    assert_int_equal(ns, 216235403);
    assert_int_equal(pgcb_procfs_parse_schedstat("0 0 0\n", &ns), 0);
    assert_int_equal(ns, 0);
    assert_int_equal(pgcb_procfs_parse_schedstat("", &ns), -1);
    assert_int_equal(pgcb_procfs_parse_schedstat("12x 0 0", &ns), -1);
}

static void test_readers_on_self(void **state)
{
    (void)state;
    struct pgcb_procfs_stat st;
    assert_int_equal(pgcb_procfs_stat(getpid(), &st), 0);
    assert_int_equal(st.ppid, getppid());
    assert_int_equal(st.threads, 1);
    assert_string_equal(st.comm, "test_procfs");
    uint64_t v, n, ns;
    assert_int_equal(pgcb_procfs_switches(getpid(), &v, &n), 0);
    assert_int_equal(pgcb_procfs_schedstat(getpid(), &ns), 0);
    assert_int_equal(pgcb_procfs_stat(0, &st), -1);
    assert_int_equal(pgcb_procfs_stat(-3, &st), -1);
    assert_true(pgcb_procfs_tick_ns() > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat_backend),   cmocka_unit_test(test_stat_odd_names),
        cmocka_unit_test(test_stat_bad),       cmocka_unit_test(test_switches),
        cmocka_unit_test(test_schedstat),      cmocka_unit_test(test_readers_on_self),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
