/*
 * test_steal.c -- the /proc/stat steal parser on fixture texts (the 8th value
 * of the "cpu" and "cpuN" lines; CPUs summed once each; short lines from old
 * kernels and text that is not /proc/stat refused; a long "intr" line), the
 * /proc/uptime parser, and one reading of this machine's real files.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sys/steal.h"

/* A /proc/stat of a 3-CPU machine: steal 275 in all, 139 / 100 / 36. */
static const char fixture[] =
    "cpu  553116 0 140268 1072191 1622 0 706 275 0 0\n"
    "cpu0 334839 0 67365 479478 275 0 215 139 0 0\n"
    "cpu1 218277 0 72903 592713 1346 0 491 100 0 0\n"
    "cpu2 1 2 3 4 5 6 7 36 0 0\n"
    "intr 1234 5 6 7\n"
    "ctxt 98765\n"
    "btime 1764586800\n";

static int parse_text(const char *text, const int *cpus, size_t n, struct pgcb_steal *st)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    int rc = pgcb_steal_parse(f, cpus, n, st);
    fclose(f);
    return rc;
}

static void test_parse(void **state)
{
    (void)state;
    struct pgcb_steal st;
    const int cpu0[] = {0};
    assert_int_equal(parse_text(fixture, cpu0, 1, &st), 0);
    assert_int_equal(st.machine, 275);
    assert_int_equal(st.cpus, 139);
    assert_int_equal(st.ncpus_found, 1);
    assert_int_equal(st.ncpus_online, 3);
    /* Two CPUs, one of them listed twice (two threads on it): each once. */
    const int two[] = {2, 0, 2};
    assert_int_equal(parse_text(fixture, two, 3, &st), 0);
    assert_int_equal(st.cpus, 139 + 36);
    assert_int_equal(st.ncpus_found, 2);
    /* A CPU the machine does not have: nothing summed, and said. */
    const int gone[] = {7};
    assert_int_equal(parse_text(fixture, gone, 1, &st), 0);
    assert_int_equal(st.cpus, 0);
    assert_int_equal(st.ncpus_found, 0);
    assert_int_equal(st.machine, 275);
    /* No CPU asked for: the machine only. */
    assert_int_equal(parse_text(fixture, NULL, 0, &st), 0);
    assert_int_equal(st.machine, 275);
    assert_int_equal(st.cpus, 0);
}

static void test_refused(void **state)
{
    (void)state;
    struct pgcb_steal st;
    const int cpu0[] = {0};
    /* A kernel before 2.6.11: 7 values, no steal. */
    assert_int_equal(parse_text("cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n", cpu0, 1, &st), -1);
    assert_int_equal(parse_text("hello world\n", cpu0, 1, &st), -1);
    assert_int_equal(parse_text("", cpu0, 1, &st), -1);
    /* A bad per-CPU line is skipped, not summed. */
    assert_int_equal(parse_text("cpu  0 0 0 0 0 0 0 9 0 0\ncpu0 1 2 x 4 5 6 7 8\n"
                                "cpux 1 2 3 4 5 6 7 8\ncpu1 0 0 0 0 0 0 0 4\n",
                                (const int[]){0, 1}, 2, &st), 0);
    assert_int_equal(st.machine, 9);
    assert_int_equal(st.cpus, 4);
    assert_int_equal(st.ncpus_found, 1);
    assert_int_equal(st.ncpus_online, 1);
}

/* A very long "intr" line (thousands of interrupt counters) ends the cpu
 * lines; a "cpu" text inside it is never taken for one. */
static void test_long_intr(void **state)
{
    (void)state;
    size_t n = 20000;
    char *text = malloc(n + 200);
    assert_non_null(text);
    strcpy(text, "cpu  0 0 0 0 0 0 0 5 0 0\ncpu0 0 0 0 0 0 0 0 5 0 0\nintr");
    size_t len = strlen(text);
    for (unsigned k = 0; len < n; k++) {
        /* now and then what a cpu line looks like, so that wherever the
         * reader's buffer ends, a piece of this line could start with it */
        const char *word = k % 97 == 0 ? " cpu0 9 9 9 9 9 9 9 999" : " 1234";
        memcpy(text + len, word, strlen(word));
        len += strlen(word);
    }
    strcpy(text + len, "\ncpu1 0 0 0 0 0 0 0 777\n");
    struct pgcb_steal st;
    assert_int_equal(parse_text(text, (const int[]){0, 1}, 2, &st), 0);
    assert_int_equal(st.cpus, 5);
    assert_int_equal(st.ncpus_online, 1);
    free(text);
}

static void test_uptime(void **state)
{
    (void)state;
    uint64_t ns = 0;
    FILE *f = fmemopen((void *)"12345.67 23456.78\n", 18, "r");
    assert_int_equal(pgcb_steal_parse_uptime(f, &ns), 0);
    fclose(f);
    assert_true(ns > 12345669000000ull && ns < 12345671000000ull);
    f = fmemopen((void *)"up\n", 3, "r");
    assert_int_equal(pgcb_steal_parse_uptime(f, &ns), -1);
    fclose(f);
}

/* This machine's own files: readable, sane. */
static void test_real_files(void **state)
{
    (void)state;
    struct pgcb_steal a, b;
    const int cpu0[] = {0};
    assert_int_equal(pgcb_steal_read(cpu0, 1, &a), 0);
    assert_true(a.ncpus_online >= 1);
    assert_int_equal(a.ncpus_found, 1);
    assert_true(a.cpus <= a.machine);
    assert_int_equal(pgcb_steal_read(cpu0, 1, &b), 0);
    assert_true(b.machine >= a.machine && b.cpus >= a.cpus); /* counters only grow */
    assert_true(pgcb_steal_tick_ns() > 0);
    double pct = pgcb_steal_since_boot_pct();
    assert_true(pct >= 0 && pct <= 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_long_intr),
        cmocka_unit_test(test_uptime),
        cmocka_unit_test(test_real_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
