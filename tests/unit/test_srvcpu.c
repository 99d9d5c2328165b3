/*
 * test_srvcpu.c -- the server CPU reader, with this test process standing in
 * for a postmaster: a child that burns 200 ms of CPU shows in the sum while
 * it lives and after it is reaped (cutime), and a process that is not
 * "postgres" is no postmaster.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/srvcpu.h"

static uint64_t own_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void test_children_counted(void **state)
{
    (void)state;
    uint64_t before, during, after;
    assert_int_equal(pgcb_srvcpu_read(getpid(), &before), 0);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* Burn 200 ms of CPU, say so, wait to be told to exit. */
        volatile uint64_t x = 0;
        while (own_cpu_ns() < 200000000ull)
            x++;
        char c = 'b';
        if (write(pipefd[1], &c, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char c;
    assert_int_equal(read(pipefd[0], &c, 1), 1);
    assert_int_equal(pgcb_srvcpu_read(getpid(), &during), 0);
    /* 200 ms, less a tick or two of accounting. */
    assert_true(during - before >= 150000000ull);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    assert_int_equal(pgcb_srvcpu_read(getpid(), &after), 0);
    /* Reaped: now in our cutime, counted in clock ticks instead of exact
     * nanoseconds -- the same to within two ticks. */
    assert_true(after + 20000000ull >= during);
    assert_true(after - before >= 150000000ull);
    close(pipefd[0]);
    close(pipefd[1]);
}

static void test_not_a_server(void **state)
{
    (void)state;
    uint64_t ns;
    assert_int_equal(pgcb_srvcpu_postmaster(getpid()), 0); /* comm is not postgres */
    assert_int_equal(pgcb_srvcpu_postmaster(0), 0);
    assert_int_equal(pgcb_srvcpu_read(0, &ns), -1);
    assert_int_equal(pgcb_srvcpu_read(-5, &ns), -1);
    /* A pid that is gone. */
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    assert_int_equal(pgcb_srvcpu_read(pid, &ns), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_children_counted),
        cmocka_unit_test(test_not_a_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
