/*
 * test_sysinfo.c -- the sysfs reader of CPU facts (cpufreq governor and
 * frequencies, SMT siblings) against a fake /sys/devices/system/cpu tree in
 * a temporary directory: what is there is read, what is absent, empty or not
 * a number is "not shown" ("" / NAN); and this machine's own CPU 0.
 *
 * And [bench] cpu_idle's pieces (runner/sys/cpuidle.h), on the same fake
 * tree: the mode's words; the idle entries summed from cpuidle's counters
 * (the state named POLL apart from the others, absent CPUs and unreadable
 * counters left out, no tree at all: unknown); the hold against a file of
 * the test's in place of /dev/cpu_dma_latency (the 4 bytes of a 0 us request
 * written and the file kept open until released, system mode touching
 * nothing, poll refused in one line where the file cannot be opened, auto
 * going on without it and saying why); and, as root on a kernel with
 * cpuidle, the real request making CPU 0 idle by polling only.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/cpuidle.h"
#include "sys/sysinfo.h"
#include "util.h"

static char root[] = "/tmp/pgcb_test_sysfs_XXXXXX";

/* Write ROOT/rel (making its directories) with `text`. */
static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_fake_tree(void **state)
{
    (void)state;
    put("cpu0/cpufreq/scaling_governor", "performance\n");
    put("cpu0/cpufreq/scaling_cur_freq", "2450000\n");
    put("cpu0/cpufreq/scaling_min_freq", "1500000\n");
    put("cpu0/cpufreq/scaling_max_freq", "3500000\n");
    put("cpu0/topology/thread_siblings_list", "0,2\n");
    put("cpu1/topology/thread_siblings_list", "1\n");       /* no cpufreq (a VM) */
    put("cpu3/cpufreq/scaling_governor", "\n");             /* empty */
    put("cpu3/cpufreq/scaling_cur_freq", "fast\n");         /* not a number */
    put("cpu3/cpufreq/scaling_max_freq", "0\n");            /* not a frequency */

    struct pgcb_cpu_facts f;
    pgcb_cpu_facts_read(root, 0, &f);
    assert_int_equal(f.cpu, 0);
    assert_string_equal(f.governor, "performance");
    assert_true(f.cur_khz == 2450000 && f.min_khz == 1500000 && f.max_khz == 3500000);
    assert_string_equal(f.siblings, "0,2");

    pgcb_cpu_facts_read(root, 1, &f);
    assert_int_equal(f.cpu, 1);
    assert_string_equal(f.governor, "");
    assert_true(isnan(f.cur_khz) && isnan(f.min_khz) && isnan(f.max_khz));
    assert_string_equal(f.siblings, "1");

    pgcb_cpu_facts_read(root, 2, &f); /* no directory at all */
    assert_string_equal(f.governor, "");
    assert_string_equal(f.siblings, "");
    assert_true(isnan(f.cur_khz));

    pgcb_cpu_facts_read(root, 3, &f);
    assert_string_equal(f.governor, "");
    assert_true(isnan(f.cur_khz) && isnan(f.min_khz) && isnan(f.max_khz));
}

/* The real tree: whatever this machine shows is well formed. */
static void test_real_cpu0(void **state)
{
    (void)state;
    struct pgcb_cpu_facts f;
    pgcb_cpu_facts_read(PGCB_SYSFS_CPU_ROOT, 0, &f);
    assert_null(strchr(f.governor, '\n'));
    assert_true(isnan(f.cur_khz) || f.cur_khz > 0);
    /* CPU 0's siblings include CPU 0, when shown. */
    if (f.siblings[0])
        assert_true(f.siblings[0] == '0');
}

static void test_words(void **state)
{
    (void)state;
    assert_int_equal(pgcb_idle_parse("auto"), PGCB_IDLE_AUTO);
    assert_int_equal(pgcb_idle_parse("poll"), PGCB_IDLE_POLL);
    assert_int_equal(pgcb_idle_parse("system"), PGCB_IDLE_SYSTEM);
    assert_int_equal(pgcb_idle_parse("halt"), -1);
    assert_int_equal(pgcb_idle_parse("Poll"), -1);
    assert_int_equal(pgcb_idle_parse(""), -1);
    assert_string_equal(pgcb_idle_name(PGCB_IDLE_AUTO), "auto");
    assert_string_equal(pgcb_idle_name(PGCB_IDLE_POLL), "poll");
    assert_string_equal(pgcb_idle_name(PGCB_IDLE_SYSTEM), "system");
}

static void test_entries(void **state)
{
    (void)state;
    put("cpu0/cpuidle/state0/name", "POLL\n");
    put("cpu0/cpuidle/state0/usage", "1000\n");
    put("cpu0/cpuidle/state1/name", "haltpoll idle\n");
    put("cpu0/cpuidle/state1/usage", "70\n");
    put("cpu1/cpuidle/state0/name", "POLL\n");
    put("cpu1/cpuidle/state0/usage", "5\n");
    put("cpu1/cpuidle/state1/name", "C1\n");
    put("cpu1/cpuidle/state1/usage", "300\n");
    put("cpu1/cpuidle/state2/name", "C6\n");
    put("cpu1/cpuidle/state2/usage", "many\n"); /* not a number: left out */
    put("cpu1/cpuidle/state4/name", "C10\n");   /* after a gap: not a state */
    put("cpu1/cpuidle/state4/usage", "99999\n");

    struct pgcb_idle_entries e;
    const int both[] = {0, 1}, one[] = {1}, none[] = {7};
    pgcb_idle_entries_read(root, both, 2, &e);
    assert_true(e.poll == 1005 && e.other == 370);
    pgcb_idle_entries_read(root, one, 1, &e);
    assert_true(e.poll == 5 && e.other == 300);
    pgcb_idle_entries_read(root, none, 1, &e); /* no such CPU: unknown, not 0 */
    assert_true(e.poll == UINT64_MAX && e.other == UINT64_MAX);
    pgcb_idle_entries_read("/nonexistent/pgcb", both, 2, &e);
    assert_true(e.poll == UINT64_MAX && e.other == UINT64_MAX);
}

static void test_hold(void **state)
{
    (void)state;
    char path[512], err[256] = "";
    unsigned char got[8];
    struct pgcb_idle_hold h;
    put("cpuidle/current_driver", "haltpoll\n");
    put("cpuidle/current_governor", "menu\n"); /* no current_governor_ro: this one */
    snprintf(path, sizeof path, "%s/latency", root);
    put("latency", "");

    /* auto: the request written, 0 us as a native int32, the file held */
    assert_int_equal(pgcb_idle_hold(&h, PGCB_IDLE_AUTO, path, root, err, sizeof err), 0);
    assert_int_equal(h.polling, 1);
    assert_true(h.fd >= 0);
    assert_string_equal(h.why, "");
    assert_string_equal(h.driver, "haltpoll");
    assert_string_equal(h.governor, "menu");
    assert_int_not_equal(fcntl(h.fd, F_GETFD) & FD_CLOEXEC, 0); /* adapters do not inherit it */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(got, 1, sizeof got, f), 4);
    fclose(f);
    assert_memory_equal(got, "\0\0\0\0", 4);
    int fd = h.fd;
    pgcb_idle_release(&h);
    assert_int_equal(h.fd, -1);
    assert_int_equal(fcntl(fd, F_GETFD), -1); /* closed: the kernel drops the request */
    pgcb_idle_release(&h);                    /* twice: nothing */

    /* current_governor_ro wins over current_governor */
    put("cpuidle/current_governor_ro", "haltpoll\n");
    /* system: nothing opened, nothing written */
    put("latency", "");
    assert_int_equal(pgcb_idle_hold(&h, PGCB_IDLE_SYSTEM, path, root, err, sizeof err), 0);
    assert_int_equal(h.polling, 0);
    assert_int_equal(h.fd, -1);
    assert_string_equal(h.why, "[bench] cpu_idle = system");
    assert_string_equal(h.governor, "haltpoll");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);

    /* poll where the request cannot be made: refused in one line */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no/such/file", root);
    err[0] = '\0';
    assert_int_equal(pgcb_idle_hold(&h, PGCB_IDLE_POLL, missing, root, err, sizeof err), -1);
    char want[800];
    snprintf(want, sizeof want, "[bench] cpu_idle = poll: %s: No such file or directory", missing);
    assert_string_equal(err, want);
    assert_int_equal(h.fd, -1);
    assert_null(strchr(err, '\n'));

    /* auto there: goes on as the system has it, and says why */
    err[0] = '\0';
    assert_int_equal(pgcb_idle_hold(&h, PGCB_IDLE_AUTO, missing, root, err, sizeof err), 0);
    assert_int_equal(h.polling, 0);
    assert_int_equal(h.fd, -1);
    assert_string_equal(err, "");
    snprintf(want, sizeof want, "%s: No such file or directory", missing);
    assert_string_equal(h.why, want);

    /* a file that is there but read-only to us (not as root: root may
     * write anything) names the permission and who may write it */
    if (geteuid() != 0) {
        chmod(path, 0444);
        assert_int_equal(pgcb_idle_hold(&h, PGCB_IDLE_POLL, path, root, err, sizeof err), -1);
        snprintf(want, sizeof want,
                 "[bench] cpu_idle = poll: %s: Permission denied (root may write it)", path);
        assert_string_equal(err, want);
    }
}

/* The real request, where it can be made: while it is held, no CPU of the
 * machine enters a halting idle state (50 sleeps of 2 ms give them room to
 * go idle; make test's other chain may keep them busy, so how often they
 * polled is printed, not required). */
static void test_this_machine(void **state)
{
    (void)state;
    int cpus[PGCB_MAX_CPUS];
    size_t n = 0;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < online && n < PGCB_MAX_CPUS; c++)
        cpus[n++] = (int)c;
    struct pgcb_idle_entries a, b;
    struct pgcb_idle_hold h;
    char err[256];
    pgcb_idle_entries_read(PGCB_CPUIDLE_SYSFS, cpus, n, &a);
    if (geteuid() != 0 || a.poll == UINT64_MAX || access(PGCB_CPU_DMA_LATENCY, W_OK) != 0) {
        printf("# skipped the real request: %s\n",
               geteuid() != 0 ? "not root" : a.poll == UINT64_MAX ? "no cpuidle states shown"
                                                                  : "no " PGCB_CPU_DMA_LATENCY);
        return;
    }
    assert_int_equal(pgcb_idle_hold(&h, PGCB_IDLE_POLL, PGCB_CPU_DMA_LATENCY, PGCB_CPUIDLE_SYSFS,
                                    err, sizeof err), 0);
    /* A CPU halted before the request counts its halt when it wakes (the
     * request wakes every idle CPU): read after that. */
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    pgcb_idle_entries_read(PGCB_CPUIDLE_SYSFS, cpus, n, &a);
    for (int i = 0; i < 50; i++)
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    pgcb_idle_entries_read(PGCB_CPUIDLE_SYSFS, cpus, n, &b);
    pgcb_idle_release(&h);
    printf("# %zu CPUs while held: %llu polling idle entries, %llu halting\n", n,
           (unsigned long long)(b.poll - a.poll), (unsigned long long)(b.other - a.other));
    assert_true(b.other == a.other);
}

static int cleanup(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    if (!mkdtemp(root))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fake_tree),
        cmocka_unit_test(test_real_cpu0),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_entries),
        cmocka_unit_test(test_hold),
        cmocka_unit_test(test_this_machine),
    };
    return cmocka_run_group_tests(tests, NULL, cleanup);
}
