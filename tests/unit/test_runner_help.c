/*
 * test_runner_help.c -- the runner's command-line reference stays true: every
 * flag is in `runner -h` and in docs/cli.md, and the bad-value lines
 * docs/cli.md shows are exactly what the runner prints for them (one line on
 * stderr, nothing on stdout, exit 1; no server needed: they are refused
 * before anything is set up). Runs build/runner ($PGCB_BUILD/runner) from
 * the top of the checkout (tests/run.sh does).
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static char runner[600];
static char tmpdir[] = "/tmp/pgcb_test_runner_help_XXXXXX";

struct run {
    int status;
    char out[65536], err[65536];
};

static void slurp_into(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(buf, 1, n - 1, f) : 0;
    buf[got] = '\0';
    if (f)
        fclose(f);
}

/* Run the runner with args (NULL-terminated, at most 15). */
static void run(const char *const *args, struct run *r)
{
    char outf[700], errf[700];
    snprintf(outf, sizeof outf, "%s/out", tmpdir);
    snprintf(errf, sizeof errf, "%s/err", tmpdir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        unsetenv("BENCH_TIME_MS");
        unsetenv("BENCH_QUERIES");
        int fo = open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fo, 1);
        dup2(fe, 2);
        char *argv[16] = {runner};
        for (size_t i = 0; args[i] && i < 15; i++)
            argv[i + 1] = (char *)args[i];
        execv(runner, argv);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    slurp_into(outf, r->out, sizeof r->out);
    slurp_into(errf, r->err, sizeof r->err);
}

static char *doc(void)
{
    static char text[200000];
    slurp_into("docs/cli.md", text, sizeof text);
    assert_true(strlen(text) > 1000);
    return text;
}

/* Every flag the runner takes, as its usage and docs/cli.md spell it. */
static const char *const flags[] = {
    "--config", "--output", "--resume", "--list-drivers", "--detail", "--quiet",
    "--check-driver", "--driver-option", "--version", "--help", "--driver NAME=PATH",
    "--only NAME", "--suite NAME", "--query NAME", "-T SEC", "--time-ms MS", "--queries N",
    "BENCH_TIME_MS", "BENCH_QUERIES", "PGCB_CONNINFO", "PGCB_CHECK_TIMEOUT",
    "PGCB_CHECK_REFERENCE", NULL};

static void test_every_flag_documented(void **state)
{
    (void)state;
    static struct run r;
    const char *args[] = {"-h", NULL};
    run(args, &r);
    assert_int_equal(r.status, 0);
    const char *text = doc();
    for (size_t i = 0; flags[i]; i++) {
        if (!strstr(r.out, flags[i]))
            fail_msg("runner -h does not mention %s", flags[i]);
        if (!strstr(text, flags[i]) &&
            !(strncmp(flags[i], "--", 2) == 0 && strstr(text, flags[i] + 2)))
            fail_msg("docs/cli.md does not mention %s", flags[i]);
    }
    assert_non_null(strstr(text, "PGCB_SERVER_CPUS"));
    assert_non_null(strstr(text, "driver_dir"));
}

/* Each bad value and the line docs/cli.md shows for it. */
static void test_documented_errors(void **state)
{
    (void)state;
    static const char *const cases[][4] = {
        {"--only", "nope", NULL, NULL},
        {"--suite", "nope", NULL, NULL},
        {"--query", "limit_2", NULL, NULL},
        {"--driver", "mine.so", NULL, NULL},
        {"--driver", "mine=./mine.so", NULL, NULL},
        {"--driver", "rawwire=./x.so", NULL, NULL},
        {"-T", "0", NULL, NULL},
        {"-T", "1", "--time-ms", "3"},
    };
    const char *text = doc();
    static struct run r;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[8] = {"-c", "conf/quick.ini"};
        size_t n = 2;
        for (size_t k = 0; k < 4 && cases[i][k]; k++)
            args[n++] = cases[i][k];
        args[n] = NULL;
        run(args, &r);
        assert_int_equal(r.status, 1);
        assert_string_equal(r.out, "");
        size_t len = strlen(r.err);
        assert_true(len > 8 && r.err[len - 1] == '\n');
        assert_null(memchr(r.err, '\n', len - 1)); /* one line */
        const char *at = text;
        while ((at = strstr(at, r.err)) != NULL && at != text && at[-1] != '\n')
            at++; /* a whole line of the page */
        if (!at)
            fail_msg("docs/cli.md does not show the line the runner prints for %s %s: %s",
                     cases[i][0], cases[i][1], r.err);
    }
}

static int group_setup(void **state)
{
    (void)state;
    const char *b = getenv("PGCB_BUILD");
    snprintf(runner, sizeof runner, "%s/runner", b && *b ? b : "build");
    return mkdtemp(tmpdir) && access(runner, X_OK) == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_flag_documented),
        cmocka_unit_test(test_documented_errors),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
