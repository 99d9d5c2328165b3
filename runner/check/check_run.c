/*
 * check_run.c -- the driver conformance suite (check.h): the parent's side.
 * A task runs in a forked child; the parent reads its records (check.c),
 * prints the results, keeps them (later children inherit them), times the
 * child out and fails what a dead child left unreported.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "check_int.h"
#include "util.h"

/* ------------------------------------------------------------------------ */
/* Parent: results                                                          */
/* ------------------------------------------------------------------------ */

void pgcb_chk_report(struct chk *c, int ok, const char *name, const char *fmt, ...)
{
    char detail[CHK_DETAIL];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    fprintf(c->out, "%s %s: %s\n", ok ? "PASS" : "FAIL", name, detail);
    fflush(c->out);
    if (ok)
        c->passed++;
    else
        c->failed++;
    c->res = pgcb_xrealloc(c->res, (c->nres + 1) * sizeof *c->res);
    snprintf(c->res[c->nres].name, CHK_NAME, "%s", name);
    c->res[c->nres].ok = ok;
    c->nres++;
}

int pgcb_chk_passed(const struct chk *c, const char *name)
{
    for (size_t i = c->nres; i-- > 0;)
        if (strcmp(c->res[i].name, name) == 0)
            return c->res[i].ok;
    return 0;
}

static void child_signals(void)
{
    static const int dfl[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS,
                              SIGINT,  SIGTERM, SIGHUP, SIGALRM, SIGQUIT};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    /* Default actions, so that a crash is a death by signal the parent sees
     * (a sanitizer's handler would turn it into an exit status). */
    sa.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof dfl / sizeof dfl[0]; i++)
        sigaction(dfl[i], &sa, NULL);
    /* As in a run: a write to a closed socket is an error, not a death. */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* ------------------------------------------------------------------------ */
/* Parent: running a task                                                   */
/* ------------------------------------------------------------------------ */

struct chk_run {
    char plan[CHK_MAX_PLAN][CHK_NAME];
    int done[CHK_MAX_PLAN];
    size_t nplan;
    char current[CHK_NAME]; /* begun, not reported */
    char phase[64];
    uint64_t limit_ns;      /* what the current call may take */
};

/* The current call's limit: the task's timeout per
 * PGCB_CHECK_ROWS_PER_TIMEOUT rows (started) it is expected to return, at
 * least once. */
static uint64_t call_limit_ns(const struct chk *c, uint64_t rows)
{
    uint64_t times = rows / PGCB_CHECK_ROWS_PER_TIMEOUT + (rows % PGCB_CHECK_ROWS_PER_TIMEOUT != 0);
    if (times < 1)
        times = 1;
    if (times > 1000)
        times = 1000;
    return times * (uint64_t)c->task_timeout_s * 1000000000ull;
}

static void on_data(struct chk *c, char *s)
{
    size_t qi;
    unsigned depth;
    unsigned long long rows, hash;
    int n = 0;
    unsigned minor;
    int has, block, phase;
    if (strncmp(s, "caps ", 5) == 0) {
        c->caps = (unsigned)strtoul(s + 5, NULL, 10);
    } else if (sscanf(s, "abi_minor %u params %d block %d phase %d", &minor, &has, &block,
                      &phase) == 4) {
        c->abi_minor = minor;
        c->has_params = has;
        c->has_block = block;
        c->has_phase = phase;
    } else if (strncmp(s, "copy ", 5) == 0) {
        c->has_copy = s[5] == '1';
    } else if (strncmp(s, "load ", 5) == 0) {
        c->has_load = s[5] == '1';
    } else if (strcmp(s, "unloadable") == 0) {
        c->unloadable = 1;
    } else if (strncmp(s, "referr ", 7) == 0) {
        snprintf(c->ref_err, sizeof c->ref_err, "%s", s + 7);
    } else if (sscanf(s, "refqerr %zu %n", &qi, &n) == 1 && n > 0 && qi < c->nq) {
        snprintf(c->ref_qerr[qi], CHK_DETAIL, "%s", s + n);
    } else if ((strncmp(s, "sum ", 4) == 0 || strncmp(s, "ref ", 4) == 0) &&
               sscanf(s + 4, "%zu %u %llu %llx", &qi, &depth, &rows, &hash) == 4 && qi < c->nq) {
        for (size_t di = 0; di < CHK_NDEPTHS; di++)
            if (pgcb_chk_depths[di] == depth) {
                struct chk_sum *dst = s[0] == 's' ? &c->sum[qi][di] : &c->ref[qi][di];
                dst->have = 1;
                dst->rows = rows;
                dst->hash = hash;
            }
    }
}

static void on_record(struct chk *c, struct chk_run *r, char *line, uint64_t *deadline)
{
    char type = line[0];
    char *body = line + 1;
    switch (type) {
    case 'E':
        if (r->nplan < CHK_MAX_PLAN) {
            snprintf(r->plan[r->nplan], CHK_NAME, "%s", body);
            r->done[r->nplan++] = 0;
        }
        break;
    case 'B':
        snprintf(r->current, sizeof r->current, "%s", body);
        r->phase[0] = '\0';
        r->limit_ns = call_limit_ns(c, 0);
        *deadline = pgcb_now_ns() + r->limit_ns;
        break;
    case 'T': { /* "what" or "what\trows" */
        char *tab = strchr(body, '\t');
        uint64_t rows = 0;
        if (tab) {
            *tab = '\0';
            rows = strtoull(tab + 1, NULL, 10);
        }
        snprintf(r->phase, sizeof r->phase, "%s", body);
        r->limit_ns = call_limit_ns(c, rows);
        *deadline = pgcb_now_ns() + r->limit_ns;
        break;
    }
    case 'P':
    case 'F': {
        char *tab = strchr(body, '\t');
        const char *detail = "";
        if (tab) {
            *tab = '\0';
            detail = tab + 1;
        }
        pgcb_chk_report(c, type == 'P', body, "%s", detail);
        for (size_t i = 0; i < r->nplan; i++)
            if (strcmp(r->plan[i], body) == 0)
                r->done[i] = 1;
        if (strcmp(r->current, body) == 0)
            r->current[0] = '\0';
        break;
    }
    case 'D':
        on_data(c, body);
        break;
    default:
        break;
    }
}

void pgcb_chk_run_task(struct chk *c, chk_task_fn fn, const char *what, int ref)
{
    int p[2];
    /* The reference is not under test: a short PGCB_CHECK_TIMEOUT (for a
     * driver that hangs) must not make it fail on a slow machine. */
    c->task_timeout_s = ref && c->timeout_s < PGCB_CHECK_TIMEOUT_S ? PGCB_CHECK_TIMEOUT_S
                                                                   : c->timeout_s;
    fflush(NULL); /* nothing buffered is written twice if a driver calls exit() */
    if (pipe2(p, O_CLOEXEC) != 0) {
        pgcb_chk_report(c, 0, what, "cannot create a pipe: %s", strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        pgcb_chk_report(c, 0, what, "cannot fork: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return;
    }
    if (pid == 0) {
        close(p[0]);
        c->wfd = p[1];
        c->nplan = 0;
        child_signals();
        dup2(STDERR_FILENO, STDOUT_FILENO); /* a driver that prints must not garble `out` */
        fn(c);
        _exit(0);
    }
    close(p[1]);

    struct chk_run *r = pgcb_xcalloc(1, sizeof *r);
    r->limit_ns = call_limit_ns(c, 0);
    char buf[8192];
    size_t have = 0;
    int timed_out = 0;
    uint64_t deadline = pgcb_now_ns() + (uint64_t)c->task_timeout_s * 1000000000ull;
    for (;;) {
        uint64_t now = pgcb_now_ns();
        if (now >= deadline) {
            timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
        uint64_t left_ms = (deadline - now + 999999) / 1000000;
        struct pollfd pfd = {.fd = p[0], .events = POLLIN};
        int pr = poll(&pfd, 1, left_ms > INT_MAX ? INT_MAX : (int)left_ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue; /* the deadline is checked above */
        ssize_t n = read(p[0], buf + have, sizeof buf - 1 - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* EOF: the child ended */
        have += (size_t)n;
        buf[have] = '\0';
        char *start = buf, *nl;
        while ((nl = memchr(start, '\n', (size_t)(buf + have - start))) != NULL) {
            *nl = '\0';
            on_record(c, r, start, &deadline);
            start = nl + 1;
        }
        have = (size_t)(buf + have - start);
        memmove(buf, start, have);
        if (have == sizeof buf - 1) /* an overlong record: drop it */
            have = 0;
    }
    close(p[0]);

    /* The child closed its end: it exits at once (_exit), or is killed. */
    int st = 0;
    uint64_t wait_until = pgcb_now_ns() + (uint64_t)c->task_timeout_s * 1000000000ull;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (pgcb_now_ns() >= wait_until) {
            timed_out = 1;
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            break;
        }
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }

    char why[160];
    why[0] = '\0';
    if (timed_out)
        snprintf(why, sizeof why, "timed out after %.0f s", r->limit_ns / 1e9);
    else if (WIFSIGNALED(st)) {
        const char *abbrev = sigabbrev_np(WTERMSIG(st));
        if (abbrev)
            snprintf(why, sizeof why, "crashed (SIG%s)", abbrev);
        else
            snprintf(why, sizeof why, "crashed (signal %d)", WTERMSIG(st));
    } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
        snprintf(why, sizeof why, "exited with status %d (the driver called exit(), or a "
                 "sanitizer report above)", WEXITSTATUS(st));

    size_t first = SIZE_MAX;
    for (size_t i = 0; i < r->nplan; i++)
        if (!r->done[i] && first == SIZE_MAX)
            first = i;
    if (!why[0] && first != SIZE_MAX)
        snprintf(why, sizeof why, "ended without reporting (the driver called exit(0)?)");
    if (why[0]) {
        char in[96] = "";
        if (r->phase[0])
            snprintf(in, sizeof in, " in %s", r->phase);
        if (ref) {
            snprintf(c->ref_err, sizeof c->ref_err, "reference %s %s%s", CHK_REF_NAME, why, in);
        } else if (first == SIZE_MAX) {
            char name[CHK_NAME + 16];
            snprintf(name, sizeof name, "%s (cleanup)", what);
            pgcb_chk_report(c, 0, name, "%s%s", why, in);
        } else {
            /* The check it was in, else the first it had not reached. */
            size_t at = first;
            for (size_t i = 0; i < r->nplan; i++)
                if (!r->done[i] && strcmp(r->plan[i], r->current) == 0)
                    at = i;
            pgcb_chk_report(c, 0, r->plan[at], "%s%s", why, in);
            r->done[at] = 1;
            for (size_t i = 0; i < r->nplan; i++)
                if (!r->done[i])
                    pgcb_chk_report(c, 0, r->plan[i], "not run: the driver %s during %s", why,
                                    r->plan[at]);
        }
    }
    free(r);
}
