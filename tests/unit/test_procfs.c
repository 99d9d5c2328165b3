/*
 * test_procfs.c -- the /proc parsers (runner/sys/procfs.h) on fixture texts: a
 * postgres backend's stat line (a command name with spaces and parentheses,
 * a negative nice), status (switches, memory) and schedstat, what is not
 * such a file, and the readers on this process: its memory's peak and
 * reset, and its process tree (runner/sys/procmem.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/procfs.h"
#include "sys/procmem.h"

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

static void test_memory(void **state)
{
    (void)state;
    uint64_t rss, hwm;
    const char *status = "Name:\tpostgres\nVmPeak:\t  223456 kB\nVmSize:\t  223400 kB\n"
                         "VmHWM:\t   10240 kB\nVmRSS:\t    8192 kB\nThreads:\t1\n";
    assert_int_equal(pgcb_procfs_parse_memory(status, &rss, &hwm), 0);
    assert_int_equal(rss, 8192);
    assert_int_equal(hwm, 10240);
    /* a kernel thread's status has neither */
    assert_int_equal(pgcb_procfs_parse_memory("Name:\tkworker/0:1\nThreads:\t1\n", &rss, &hwm),
                     -1);
    assert_int_equal(pgcb_procfs_parse_memory("VmRSS:\t 1 kB\n", &rss, &hwm), -1);
}

/* This process's peak follows 64 MiB touched and freed, and falls back to
 * its resident memory when reset; a child is in its tree and is read. */
static void test_memory_on_self(void **state)
{
    (void)state;
    const size_t big = 64u << 20;
    struct pgcb_procmem m0, m1, m2, m3;
    assert_int_equal(pgcb_procmem_read(getpid(), &m0), 0);
    char *p = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    memset(p, 1, big);
    assert_int_equal(pgcb_procmem_read(getpid(), &m1), 0);
    assert_true(m1.rss_kib >= m0.rss_kib + 60 * 1024);
    assert_true(m1.hwm_kib >= m1.rss_kib);
    munmap(p, big);
    assert_int_equal(pgcb_procmem_read(getpid(), &m2), 0);
    assert_true(m2.rss_kib + 60 * 1024 <= m1.rss_kib); /* freed ... */
    /* ... the peak kept, to the kernel's batching of its per-CPU RSS counts
     * (the peak is taken when memory is unmapped: 172 KiB short seen here) */
    assert_true(m2.hwm_kib + 1024 >= m1.rss_kib);
    assert_int_equal(pgcb_procmem_reset(getpid()), 1);
    assert_int_equal(pgcb_procmem_read(getpid(), &m3), 0);
    print_message("rss %llu -> %llu -> %llu KiB; peak %llu, reset to %llu KiB\n",
                  (unsigned long long)m0.rss_kib, (unsigned long long)m1.rss_kib,
                  (unsigned long long)m2.rss_kib, (unsigned long long)m2.hwm_kib,
                  (unsigned long long)m3.hwm_kib);
    assert_true(m3.hwm_kib + 60 * 1024 <= m2.hwm_kib);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) { /* waits for its parent to close the pipe */
        char c;
        close(pipefd[1]);
        while (read(pipefd[0], &c, 1) > 0) {
        }
        _exit(0);
    }
    close(pipefd[0]);
    int pids[PGCB_PROCMEM_MAX];
    assert_int_equal(pgcb_procmem_tree(getpid(), pids, PGCB_PROCMEM_MAX), 2);
    assert_int_equal(pids[0], getpid());
    assert_int_equal(pids[1], child);
    struct pgcb_procmem mt;
    assert_int_equal(pgcb_procmem_read(getpid(), &mt), 0);
    assert_int_equal(mt.nprocs, 2);
    assert_true(mt.rss_kib > m3.rss_kib / 2);
    close(pipefd[1]);
    waitpid(child, NULL, 0);
    assert_int_equal(pgcb_procmem_tree(0, pids, PGCB_PROCMEM_MAX), 0);
    assert_int_equal(pgcb_procmem_read(999999999, &mt), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat_backend),   cmocka_unit_test(test_stat_odd_names),
        cmocka_unit_test(test_stat_bad),       cmocka_unit_test(test_switches),
        cmocka_unit_test(test_schedstat),      cmocka_unit_test(test_readers_on_self),
        cmocka_unit_test(test_memory),         cmocka_unit_test(test_memory_on_self),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
