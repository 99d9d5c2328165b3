/* e2e.c -- see e2e.h. */
#include "e2e.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

char e2e_tmp[] = "/tmp/pgcb_e2e_XXXXXX";
char e2e_build[400];
char e2e_top[400];

int e2e_setup(const char *prog)
{
    const char *b = getenv("PGCB_BUILD");
    snprintf(e2e_build, sizeof e2e_build, "%s", b && *b ? b : "build");
    if (!getcwd(e2e_top, sizeof e2e_top) || !mkdtemp(e2e_tmp)) {
        fprintf(stderr, "%s: cannot make a temporary directory\n", prog);
        return 1;
    }
    if (e2e_build[0] != '/') {
        char rel[sizeof e2e_build];
        memcpy(rel, e2e_build, sizeof rel);
        if ((size_t)snprintf(e2e_build, sizeof e2e_build, "%.190s/%.190s", e2e_top, rel) >=
            sizeof e2e_build)
            return 1;
    }
    if (!getenv("PGHOST")) {
        fprintf(stderr, "%s: PGHOST is not set: this test needs the server that "
                        "tests/run.sh starts (run 'make test')\n", prog);
        return 1;
    }
    return 0;
}

int e2e_teardown(void)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", e2e_tmp);
    return system(cmd) != 0;
}

const char *e2e_ini_path(const char *name)
{
    static char p[600];
    snprintf(p, sizeof p, "%s/%s.ini", e2e_tmp, name);
    return p;
}

const char *e2e_json_path(const char *name)
{
    static char p[600];
    snprintf(p, sizeof p, "%s/%s.json", e2e_tmp, name);
    return p;
}

const char *e2e_write_file(const char *name, const char *head, const char *body)
{
    const char *p = e2e_ini_path(name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "%s%s", head, body);
    fclose(f);
    return p;
}

const char *e2e_write_ini(const char *name, const char *body)
{
    char head[600];
    snprintf(head, sizeof head, "[bench]\ntime_ms = 150\nqueries = 40\nwarmup_ms = 20\n"
             "[server]\nsetup = %s/sql/benchmark_rows.sql\n", e2e_top);
    return e2e_write_file(name, head, body);
}

char *e2e_slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

int e2e_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* The runner in a child, with the arguments args (NULL-terminated, at most
 * 30); once stdout contains `marker` (if any), wait delay_ms and call
 * act(pid) (if any). own_group: the child runs in its own process group (its
 * pid), so that act may signal that group. */
static struct e2e_run run_args(const char *const *args, const char *const *env,
                               const char *marker, unsigned delay_ms,
                               void (*act)(pid_t, void *), void *arg, int own_group)
{
    char outf[600], errf[600], runner[600];
    snprintf(outf, sizeof outf, "%s/stdout", e2e_tmp);
    snprintf(errf, sizeof errf, "%s/stderr", e2e_tmp);
    snprintf(runner, sizeof runner, "%s/runner", e2e_build);
    /* Emptied here, not only in the child: the marker must not be found in
     * the previous run's output before the child has truncated it. */
    close(open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0644));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (own_group)
            setpgid(0, 0);
        for (const char *const *e = env; e && *e; e++) {
            const char *eq = strchr(*e, '=');
            if (eq) {
                char k[128];
                snprintf(k, sizeof k, "%.*s", (int)(eq - *e), *e);
                setenv(k, eq + 1, 1);
            } else {
                unsetenv(*e);
            }
        }
        int fo = open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fo, 1);
        dup2(fe, 2);
        char *argv[32] = {runner};
        for (size_t i = 0; args[i] && i < 30; i++)
            argv[i + 1] = (char *)args[i];
        execv(runner, argv);
        _exit(127);
    }
    if (own_group)
        setpgid(pid, pid); /* also here: no race with act() */
    if (act) {
        struct timespec ts = {0, 20 * 1000000L};
        for (int i = 0; marker && i < 3000; i++) { /* 60 s at most */
            char *text = e2e_slurp(outf);
            int seen = strstr(text, marker) != NULL;
            free(text);
            if (seen)
                break;
            nanosleep(&ts, NULL);
        }
        struct timespec d = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000L};
        nanosleep(&d, NULL);
        act(pid, arg);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    struct e2e_run r;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.out = e2e_slurp(outf);
    r.err = e2e_slurp(errf);
    return r;
}

static struct e2e_run run_runner(const char *ini, const char *out, const char *const *env,
                                 const char *extra, const char *marker, unsigned delay_ms,
                                 void (*act)(pid_t, void *), void *arg, int own_group)
{
    const char *args[] = {"-c", ini, "-o", out, extra, NULL};
    return run_args(args, env, marker, delay_ms, act, arg, own_group);
}

struct e2e_run e2e_run_args(const char *const *args, const char *const *env)
{
    return run_args(args, env, NULL, 0, NULL, NULL, 0);
}

static void send_sig(pid_t pid, void *arg)
{
    kill(pid, *(int *)arg);
}

struct e2e_run e2e_run_runner(const char *ini, const char *out, const char *const *env,
                              const char *extra, int sig, const char *marker)
{
    return run_runner(ini, out, env, extra, marker, 0, sig ? send_sig : NULL, &sig, 0);
}

struct e2e_run e2e_run_runner_act(const char *ini, const char *out, const char *const *env,
                                  const char *marker, unsigned delay_ms,
                                  void (*act)(pid_t runner, void *arg), void *arg)
{
    return run_runner(ini, out, env, NULL, marker, delay_ms, act, arg, 1);
}

int e2e_children(pid_t pid, pid_t *out, int max)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int n = 0, c;
    while (n < max && fscanf(f, "%d", &c) == 1)
        out[n++] = (pid_t)c;
    fclose(f);
    return n;
}

void e2e_run_free(struct e2e_run *r)
{
    free(r->out);
    free(r->err);
}
