/*
 * test_sysinfo.c -- the sysfs reader of CPU facts (cpufreq governor and
 * frequencies, SMT siblings) against a fake /sys/devices/system/cpu tree in
 * a temporary directory: what is there is read, what is absent, empty or not
 * a number is "not shown" ("" / NAN); and this machine's own CPU 0.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/sysinfo.h"

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
    };
    return cmocka_run_group_tests(tests, NULL, cleanup);
}
