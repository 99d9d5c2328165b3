/*
 * test_progress.c -- the runner's progress (runner/out/progress.c) end to end,
 * against the real PostgreSQL that tests/run.sh started: a run of two
 * groups x two drivers (libpq_sync, rawwire), budgets of a few seconds.
 *
 *   - -P 1 with stderr to a file: plain lines only (no carriage return, no
 *     escape), each with its fields -- elapsed, steps done/total, group,
 *     driver and phase, eta --, the i-th at >= i seconds, an eta on the
 *     first (its arithmetic is test_eta's, on fixed inputs: on a busy
 *     machine it may rise), a last "finished" line with every step done
 *     and eta 0; the step total
 *     is what the result file's orders make;
 *   - without -P and without a terminal, and with -q -P 1: no progress;
 *   - on a terminal (a pty): the line redrawn in place, with elapsed and
 *     left, erased at the end; with -P, plain lines there too;
 *   - bad -P values: one line, exit 1, no result file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cmocka.h>

#include "result.h"
#include "../lib/e2e.h"

#define SQL_LIMIT(n)                                                                        \
    "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY " \
    "id LIMIT " #n

static const char *write_config(void)
{
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n"
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n"
             "[suite.sequential]\nqueries = limit_1 limit_100\n",
             e2e_build, e2e_build);
    return e2e_write_ini("progress", body);
}

struct line {
    double elapsed, eta;
    unsigned long done, total;
    int group;
    char label[32], driver[32], phase[32];
};

static void copy_match(char *dst, size_t n, const char *src, const regmatch_t *m)
{
    snprintf(dst, n, "%.*s", (int)(m->rm_eo - m->rm_so), src + m->rm_so);
}

/* Parse stderr's progress lines into lines[] (at most max, the last being
 * the "finished" one when *finished); every line must be one of the two
 * forms. Returns the count of periodic lines. */
static size_t parse_lines(const char *err, struct line *lines, size_t max, int *finished,
                          struct line *last)
{
    regex_t re, fin;
    assert_int_equal(regcomp(&re,
                             "^progress: ([0-9]+\\.[0-9]) s elapsed, ([0-9]+)/([0-9]+) steps, "
                             "group ([0-9]+)/2 sequential / (limit_[0-9]+) depth 1, driver "
                             "([a-z_]+) (warm-up|order [0-9]+/[0-9]+), eta ([0-9]+\\.[0-9]) s$",
                             REG_EXTENDED), 0);
    assert_int_equal(regcomp(&fin,
                             "^progress: ([0-9]+\\.[0-9]) s elapsed, ([0-9]+)/([0-9]+) steps, "
                             "finished, eta 0\\.0 s$", REG_EXTENDED), 0);
    size_t n = 0;
    *finished = 0;
    char *copy = strdup(err), *save = NULL;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        regmatch_t m[9];
        if (strncmp(l, "progress:", 9) != 0)
            continue; /* notes */
        if (*finished) {
            print_error("a progress line after the last one: %s\n", l);
            fail();
        }
        if (regexec(&fin, l, 4, m, 0) == 0) {
            *finished = 1;
            last->elapsed = strtod(l + m[1].rm_so, NULL);
            last->done = strtoul(l + m[2].rm_so, NULL, 10);
            last->total = strtoul(l + m[3].rm_so, NULL, 10);
            continue;
        }
        if (regexec(&re, l, 9, m, 0) != 0) {
            print_error("not a progress line: '%s'\n", l);
            fail();
        }
        assert_true(n < max);
        struct line *p = &lines[n++];
        p->elapsed = strtod(l + m[1].rm_so, NULL);
        p->done = strtoul(l + m[2].rm_so, NULL, 10);
        p->total = strtoul(l + m[3].rm_so, NULL, 10);
        p->group = atoi(l + m[4].rm_so);
        copy_match(p->label, sizeof p->label, l, &m[5]);
        copy_match(p->driver, sizeof p->driver, l, &m[6]);
        copy_match(p->phase, sizeof p->phase, l, &m[7]);
        p->eta = strtod(l + m[8].rm_so, NULL);
    }
    free(copy);
    regfree(&re);
    regfree(&fin);
    return n;
}

static void test_plain_lines(void **state)
{
    (void)state;
    const char *ini = write_config();
    const char *out = e2e_json_path("plain");
    const char *args[] = {"-c", ini, "-o", out, "-P", "1", NULL};
    const char *env[] = {"BENCH_TIME_MS=1200", NULL};
    struct e2e_run r = e2e_run_args(args, env);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    assert_null(strchr(r.err, '\r'));
    assert_null(strchr(r.err, '\033'));

    struct pgcb_result res;
    char why[512];
    assert_int_equal(pgcb_result_read(out, &res, why, sizeof why), 0);
    const unsigned long total = 2ul * 2 * (1 + res.norders); /* a warm-up and the orders */
    pgcb_result_free(&res);

    struct line lines[64], last = {0};
    int finished;
    size_t n = parse_lines(r.err, lines, 64, &finished, &last);
    if (n < 3 || !finished)
        fprintf(stderr, "stderr:\n%s\n", r.err);
    assert_true(n >= 3); /* about 5 s of run */
    assert_true(finished);
    assert_int_equal(last.done, total);
    assert_int_equal(last.total, total);
    assert_true(last.elapsed >= lines[n - 1].elapsed);
    for (size_t i = 0; i < n; i++) {
        const struct line *p = &lines[i];
        assert_int_equal(p->total, total);
        assert_true(p->done <= total);
        /* Due every second from the start: the i-th (from 1) at >= i s. */
        if (!(p->elapsed >= (double)(i + 1))) {
            print_error("line %zu at %.1f s\n", i + 1, p->elapsed);
            fail();
        }
        assert_true(p->group == 1 || p->group == 2);
        assert_string_equal(p->label, p->group == 1 ? "limit_1" : "limit_100");
        assert_true(strcmp(p->driver, "libpq_sync") == 0 || strcmp(p->driver, "rawwire") == 0);
        if (i == 0)
            continue;
        const struct line *q = &lines[i - 1];
        assert_true(p->elapsed > q->elapsed);
        assert_true(p->elapsed - q->elapsed < 30.0); /* not stuck (a loaded machine: seconds) */
        assert_true(p->done >= q->done);
        assert_true(p->group >= q->group);
    }
    /* The estimate itself (what it adds up, how it moves) is pinned on
     * fixed inputs by tests/unit/test_eta.c; here only that there is one.
     * Its size against the run's length is not checked: beside another
     * make test it went from 3.6 s to 75.4 s between two lines of a 6 s
     * run (a stall in one job weighs on every job left), which a busy
     * machine may always do. */
    assert_true(lines[0].eta > 0);
    e2e_run_free(&r);
}

/* No terminal and no -P, or -q: nothing of the progress on stderr. */
static void test_no_progress(void **state)
{
    (void)state;
    const char *ini = write_config();
    const char *out = e2e_json_path("none");
    const char *env[] = {"BENCH_TIME_MS=600", NULL};
    const char *plain[] = {"-c", ini, "-o", out, NULL};
    const char *quiet[] = {"-c", ini, "-o", out, "-q", "-P", "1", NULL};
    const char *const *cases[] = {plain, quiet};
    for (size_t i = 0; i < 2; i++) {
        struct e2e_run r = e2e_run_args(cases[i], env);
        assert_int_equal(r.status, 0);
        if (strstr(r.err, "progress") || strchr(r.err, '\r') || strstr(r.err, "[group") ||
            strstr(r.err, "elapsed")) {
            print_error("case %zu: progress on stderr:\n%s\n", i, r.err);
            fail();
        }
        if (i == 1) { /* -q: the result path only */
            char want[700];
            snprintf(want, sizeof want, "Result: %s\n", out);
            assert_string_equal(r.err, want);
        }
        e2e_run_free(&r);
    }
}

/* The runner with stderr on a pty (stdout to a file), the pty raw (no
 * newline translation); everything it wrote to the pty is returned. */
static char *run_on_pty(const char *const *args, const char *time_ms)
{
    char runner[600], outf[600];
    snprintf(runner, sizeof runner, "%s/runner", e2e_build);
    snprintf(outf, sizeof outf, "%s/pty_stdout", e2e_tmp);
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    assert_true(pid >= 0);
    if (pid == 0) {
        struct termios t;
        if (tcgetattr(2, &t) == 0) {
            cfmakeraw(&t);
            tcsetattr(2, TCSANOW, &t);
        }
        int fo = open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || dup2(fo, 1) < 0)
            _exit(126);
        setenv("BENCH_TIME_MS", time_ms, 1);
        char *argv[16] = {runner};
        for (size_t i = 0; args[i] && i < 14; i++)
            argv[i + 1] = (char *)args[i];
        execv(runner, argv);
        _exit(127);
    }
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 4096 > cap)
            buf = realloc(buf, cap *= 2);
        ssize_t got = read(master, buf + len, 4096);
        if (got > 0)
            len += (size_t)got;
        else if (got < 0 && errno == EINTR)
            continue;
        else
            break; /* EIO: the runner and its hosts closed the pty */
    }
    buf[len] = '\0';
    close(master);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "pty output:\n%s\n", buf);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    return buf;
}

static void test_terminal(void **state)
{
    (void)state;
    const char *ini = write_config();
    const char *out = e2e_json_path("tty");
    const char *args[] = {"-c", ini, "-o", out, NULL};
    char *tty = run_on_pty(args, "600");
    assert_non_null(strstr(tty, "\r\033[K[group 1/2] sequential / limit_1 depth 1: "));
    assert_non_null(strstr(tty, "\r\033[K[group 2/2] sequential / limit_100 depth 1: "));
    assert_non_null(strstr(tty, "  elapsed "));
    assert_non_null(strstr(tty, ", left ~"));
    assert_null(strchr(tty, '\n')); /* only the line, redrawn */
    size_t len = strlen(tty);
    assert_true(len >= 4);
    assert_string_equal(tty + len - 4, "\r\033[K"); /* erased at the end */
    free(tty);

    /* -P on a terminal: plain lines, not the redrawn one. */
    const char *plain[] = {"-c", ini, "-o", out, "-P", "1", NULL};
    tty = run_on_pty(plain, "600");
    assert_null(strchr(tty, '\r'));
    assert_non_null(strstr(tty, "progress: "));
    assert_non_null(strstr(tty, ", finished, eta 0.0 s\n"));
    free(tty);
}

static void test_bad_values(void **state)
{
    (void)state;
    const char *ini = write_config();
    const char *out = e2e_json_path("bad");
    static const char *const bad[] = {"0", "-1", "x", "1.5", "86401", "", "2s", " 1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[] = {"-c", ini, "-o", out, "-P", bad[i], NULL};
        struct e2e_run r = e2e_run_args(args, NULL);
        char want[160];
        snprintf(want, sizeof want, "runner: -P %s: expected a whole number of seconds from 1 "
                 "to 86400\n", bad[i]);
        assert_int_equal(r.status, 1);
        assert_string_equal(r.err, want);
        assert_string_equal(r.out, "");
        assert_false(e2e_exists(out));
        e2e_run_free(&r);
    }
    /* The long form, and the largest value, are taken. */
    const char *args[] = {"-c", ini, "-o", out, "--progress", "86400", "--list-drivers", NULL};
    struct e2e_run r = e2e_run_args(args, NULL);
    assert_int_equal(r.status, 0);
    e2e_run_free(&r);
}

int main(void)
{
    if (e2e_setup("test_progress") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_lines),
        cmocka_unit_test(test_no_progress),
        cmocka_unit_test(test_terminal),
        cmocka_unit_test(test_bad_values),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (e2e_teardown() != 0)
        rc = 1;
    return rc;
}
