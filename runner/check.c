/*
 * check.c -- the driver conformance suite; see check.h.
 *
 * Structure. The parent (pgcb_check_driver) never loads the checked driver.
 * It runs one "task" after another, each in a forked child that loads the
 * driver, does the task's setup (open, prepare) and its checks, and writes
 * records, one per line, into a pipe:
 *
 *   E name          a check this task will report (sent first, before any
 *                   driver code runs)
 *   B name          the check starts
 *   T what          a driver call starts ("run_batch", "open (setup)")
 *   P name\tdetail  the check passed
 *   F name\twhy     the check failed
 *   D ...           data for the parent (capabilities, checksums)
 *
 * The parent prints P and F records as they come. It restarts a timer at
 * every B and T record: a child silent for longer than the timeout is
 * killed. When a child ends without reporting all its checks (killed by a
 * signal, timed out, exited), the check it was in fails with the reason and
 * the phase ("crashed (SIGSEGV) in run_batch"), and the checks it had not
 * reached fail "not run". The parent state (which checks passed, the
 * reference checksums) is what later children inherit through fork().
 */
#include "check.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "loader.h"
#include "pgcb/driver.h"
#include "server.h"
#include "util.h"

#define CHK_NDEPTHS 3
static const uint32_t chk_depths[CHK_NDEPTHS] = {1, 10, 1000};

#define CHK_BAD_SQL "SELECT * FROM pgcb_no_such_table"
#define CHK_BAD_SQLSTATE "42P01"
#define CHK_UNKNOWN_OPTION "pgcb_check_no_such_option"
#define CHK_SHORT_ERRLEN 16
/* The depth of the batches around the bad statement and in close_clean: not
 * one of chk_depths, so that a driver failing at one of those fails only its
 * own batch checks. */
#define CHK_SIDE_DEPTH 3
/* Bytes after errlen that a driver must leave alone. */
#define CHK_CANARY 64
#define CHK_FILL 0xA5
#define CHK_MAX_PLAN 16
#define CHK_NAME 160
#define CHK_DETAIL 640
#define CHK_REF_NAME "libpq_sync"

#define CHK_BENCH_SQL \
    "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT "

struct chk_query {
    const char *name;
    const char *sql;
    int64_t rows;  /* per execution: from the config, the built-in count, or -1 */
    int rows_only; /* [query] check = rows: checksums are not compared */
};

static const struct chk_query builtin_queries[] = {
    {"limit_1", CHK_BENCH_SQL "1", 1, 0},
    {"limit_100", CHK_BENCH_SQL "100", 100, 0},
    {"limit_500", CHK_BENCH_SQL "500", 500, 0},
};

struct chk_sum {
    int have;
    uint64_t rows, hash;
};

struct chk_result {
    char name[CHK_NAME];
    int ok;
};

struct chk;
typedef void (*chk_task_fn)(struct chk *c);

struct chk {
    FILE *out;
    const char *path;        /* the checked driver */
    char label[64];          /* its file name without .so, for the loader */
    char *ref_path;          /* the reference driver, or NULL */
    const char *conninfo;
    struct chk_query *q;
    size_t nq;
    int timeout_s;
    int task_timeout_s;      /* of the running task (the reference: at least the default) */
    unsigned caps;           /* of the checked driver, once loaded */
    unsigned abi_minor;      /* ... its ABI minor version */
    int has_params;          /* ... PGCB_DRIVER_HAS(d, 1, run_batch_params) */
    int unloadable;          /* the load child found that dlopen() fails */

    /* Parent: results so far (inherited by later children). */
    struct chk_result *res;
    size_t nres;
    int passed, failed;
    struct chk_sum (*sum)[CHK_NDEPTHS]; /* the checked driver's, per query and depth */
    struct chk_sum (*ref)[CHK_NDEPTHS]; /* the reference's */
    char ref_err[CHK_DETAIL];           /* why there is no reference at all */
    char (*ref_qerr)[CHK_DETAIL];       /* why a query has no reference checksums */
    int64_t *expect;                    /* rows per execution, -1: the driver's own at depth 1 */

    /* Child: the task's argument, its plan and its pipe. */
    size_t arg_q;
    int wfd;
    char plan[CHK_MAX_PLAN][CHK_NAME];
    int plan_done[CHK_MAX_PLAN];
    size_t nplan;
    struct pgcb_loaded ld;
};

/* ------------------------------------------------------------------------ */
/* Text helpers                                                             */
/* ------------------------------------------------------------------------ */

static const char *status_name(int rc, char *buf, size_t n)
{
    static const char *const names[] = {
        "PGCB_OK",           "PGCB_ERR_CONNECT", "PGCB_ERR_QUERY",
        "PGCB_ERR_IO",       "PGCB_ERR_PROTOCOL", "PGCB_ERR_CONFIG",
        "PGCB_ERR_NOMEM",    "PGCB_ERR_UNSUPPORTED",
    };
    if (rc >= 0 && (size_t)rc < sizeof names / sizeof names[0])
        return names[rc];
    snprintf(buf, n, "%d (not a PGCB_* status)", rc);
    return buf;
}

/* A driver's message, quoted, for a detail: up to its NUL or errlen bytes,
 * with control characters, quotes and backslashes escaped, at most ~200
 * characters. */
static const char *quote_msg(char *dst, size_t n, const char *err, size_t errlen)
{
    size_t o = 0;
    dst[o++] = '"';
    for (size_t i = 0; i < errlen && err[i]; i++) {
        unsigned char ch = (unsigned char)err[i];
        if (o + 8 >= n || o > 200) {
            o += (size_t)snprintf(dst + o, n - o, "...");
            break;
        }
        if (ch == '"' || ch == '\\')
            o += (size_t)snprintf(dst + o, n - o, "\\%c", ch);
        else if (ch == '\n')
            o += (size_t)snprintf(dst + o, n - o, "\\n");
        else if (ch < 0x20 || ch == 0x7f)
            o += (size_t)snprintf(dst + o, n - o, "\\x%02x", ch);
        else if (ch < 0x80)
            dst[o++] = (char)ch;
        else {
            /* A whole valid UTF-8 sequence as it is, any other byte escaped. */
            size_t len = ch >= 0xc2 && ch <= 0xdf ? 2 : ch >= 0xe0 && ch <= 0xef ? 3
                         : ch >= 0xf0 && ch <= 0xf4 ? 4 : 0;
            size_t k = 1;
            while (len && k < len && i + k < errlen &&
                   ((unsigned char)err[i + k] & 0xc0) == 0x80)
                k++;
            if (len && k == len) {
                memcpy(dst + o, err + i, len);
                o += len;
                i += len - 1;
            } else {
                o += (size_t)snprintf(dst + o, n - o, "\\x%02x", ch);
            }
        }
    }
    if (o + 2 > n)
        o = n - 2;
    dst[o++] = '"';
    dst[o] = '\0';
    return dst;
}

/* A string of the descriptor: printable, one line (UTF-8 allowed). */
static int printable_line(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

static int valid_key(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

/* Fill an error buffer of errlen bytes plus the canary. */
static char *err_reset(char *buf, size_t errlen)
{
    memset(buf, CHK_FILL, errlen + CHK_CANARY);
    return buf;
}

/* What is wrong with the message a failing call left in buf (errlen bytes,
 * then the canary), or NULL if it is one non-empty line, NUL-terminated
 * within errlen, with nothing written after the buffer. */
static const char *msg_problem(const char *buf, size_t errlen, char *why, size_t n)
{
    for (size_t i = errlen; i < errlen + CHK_CANARY; i++)
        if ((unsigned char)buf[i] != CHK_FILL) {
            snprintf(why, n, "wrote past the end of err (errlen %zu: byte %zu changed)", errlen,
                     i);
            return why;
        }
    const char *nul = memchr(buf, '\0', errlen);
    if (!nul) {
        snprintf(why, n, "the message is not NUL-terminated within errlen (%zu)", errlen);
        return why;
    }
    if (nul == buf) {
        snprintf(why, n, "empty message (a failing call writes one line into err)");
        return why;
    }
    for (const char *p = buf; p < nul; p++)
        if (*p == '\n' || *p == '\r') {
            snprintf(why, n, "the message is more than one line (a newline at byte %zu)",
                     (size_t)(p - buf));
            return why;
        }
    return NULL;
}

static void name_prepare(char *b, size_t n, const struct chk_query *q)
{
    snprintf(b, n, "prepare %s", q->name);
}

static void name_batch(char *b, size_t n, const struct chk_query *q, uint32_t depth)
{
    snprintf(b, n, "batch %s depth %u", q->name, depth);
}

static void name_sum(char *b, size_t n, const struct chk_query *q, uint32_t depth)
{
    snprintf(b, n, "checksum %s depth %u", q->name, depth);
}

static double ms_since(uint64_t t0)
{
    return (double)(pgcb_now_ns() - t0) / 1e6;
}

/* ------------------------------------------------------------------------ */
/* Parent: results                                                          */
/* ------------------------------------------------------------------------ */

static void report(struct chk *c, int ok, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void report(struct chk *c, int ok, const char *name, const char *fmt, ...)
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

/* 1 if check `name` ran and passed (the last one of that name). */
static int passed(const struct chk *c, const char *name)
{
    for (size_t i = c->nres; i-- > 0;)
        if (strcmp(c->res[i].name, name) == 0)
            return c->res[i].ok;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Child side                                                               */
/* ------------------------------------------------------------------------ */

static void c_write(struct chk *c, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t w = write(c->wfd, s, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            _exit(3); /* the parent is gone */
        }
        s += w;
        len -= (size_t)w;
    }
}

static void c_send(struct chk *c, char type, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void c_send(struct chk *c, char type, const char *fmt, ...)
{
    char buf[CHK_NAME + CHK_DETAIL + 8];
    va_list ap;
    buf[0] = type;
    va_start(ap, fmt);
    vsnprintf(buf + 1, sizeof buf - 2, fmt, ap);
    va_end(ap);
    size_t len = strlen(buf);
    for (size_t i = 1; i < len; i++)
        if (buf[i] == '\n' || buf[i] == '\r')
            buf[i] = ' ';
    buf[len++] = '\n';
    c_write(c, buf, len);
}

/* Announce a check of this task; returns its index. */
static size_t c_plan(struct chk *c, const char *name)
{
    size_t i = c->nplan++;
    snprintf(c->plan[i], CHK_NAME, "%s", name);
    c->plan_done[i] = 0;
    c_send(c, 'E', "%s", name);
    return i;
}

static void c_begin(struct chk *c, size_t i)
{
    c_send(c, 'B', "%s", c->plan[i]);
}

static void c_phase(struct chk *c, const char *what)
{
    c_send(c, 'T', "%s", what);
}

static void c_result(struct chk *c, size_t i, int ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void c_result(struct chk *c, size_t i, int ok, const char *fmt, ...)
{
    char detail[CHK_DETAIL];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    for (char *p = detail; *p; p++)
        if (*p == '\t')
            *p = ' ';
    c_send(c, ok ? 'P' : 'F', "%s\t%s", c->plan[i], detail);
    c->plan_done[i] = 1;
}

/* Fail every check of the plan not reported yet with "not run: why". */
static void c_fail_rest(struct chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void c_fail_rest(struct chk *c, const char *fmt, ...)
{
    char why[CHK_DETAIL];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < c->nplan; i++)
        if (!c->plan_done[i])
            c_result(c, i, 0, "not run: %s", why);
}

/* Load `path` in the child (it loaded once in the load task already). */
static const struct pgcb_driver *c_load(struct chk *c, const char *label, const char *path,
                                        char *err, size_t errlen)
{
    c_phase(c, "load");
    if (pgcb_loader_open(label, path, &c->ld, err, errlen) != 0)
        return NULL;
    return c->ld.drv;
}

static const struct pgcb_driver *c_load_checked(struct chk *c)
{
    char err[PGCB_ERRLEN];
    const struct pgcb_driver *d = c_load(c, c->label, c->path, err, sizeof err);
    if (!d)
        c_fail_rest(c, "the driver no longer loads: %s", err);
    return d;
}

/* Open with no options; on failure fails the rest of the plan. */
static struct pgcb_conn *c_open_setup(struct chk *c, const struct pgcb_driver *d)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300];
    struct pgcb_conn *conn = NULL;
    c_phase(c, "open (setup)");
    int rc = d->open(c->conninfo, NULL, 0, &conn, err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc != PGCB_OK || !conn) {
        c_fail_rest(c, "open (setup) returned %s: %s", status_name(rc, rcb, sizeof rcb),
                    rc != PGCB_OK ? quote_msg(qm, sizeof qm, err, PGCB_ERRLEN) : "no connection");
        return NULL;
    }
    return conn;
}

/* The start of a task on one connection: `open` passed, the driver still
 * loads, a connection opens with no options. NULL when not (the rest of the
 * plan failed, saying why); otherwise *d is the driver. */
static struct pgcb_conn *c_setup(struct chk *c, const struct pgcb_driver **d)
{
    if (!passed(c, "open")) {
        c_fail_rest(c, "open failed");
        return NULL;
    }
    if (!(*d = c_load_checked(c)))
        return NULL;
    return c_open_setup(c, *d);
}

/* Prepare every query as pgcb_NAME, as a run does; stmts[i] NULL where it
 * failed. */
static void c_prepare_all(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                          struct pgcb_stmt **stmts, int *ok)
{
    char err[PGCB_ERRLEN + CHK_CANARY];
    for (size_t i = 0; i < c->nq; i++) {
        char sname[96];
        snprintf(sname, sizeof sname, "pgcb_%s", c->q[i].name);
        stmts[i] = NULL;
        c_phase(c, "prepare (setup)");
        ok[i] = d->prepare(conn, sname, c->q[i].sql, &stmts[i], err_reset(err, PGCB_ERRLEN),
                           PGCB_ERRLEN) == PGCB_OK;
    }
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
};

static void on_data(struct chk *c, char *s)
{
    size_t qi;
    unsigned depth;
    unsigned long long rows, hash;
    int n = 0;
    unsigned minor;
    int has;
    if (strncmp(s, "caps ", 5) == 0) {
        c->caps = (unsigned)strtoul(s + 5, NULL, 10);
    } else if (sscanf(s, "abi_minor %u params %d", &minor, &has) == 2) {
        c->abi_minor = minor;
        c->has_params = has;
    } else if (strcmp(s, "unloadable") == 0) {
        c->unloadable = 1;
    } else if (strncmp(s, "referr ", 7) == 0) {
        snprintf(c->ref_err, sizeof c->ref_err, "%s", s + 7);
    } else if (sscanf(s, "refqerr %zu %n", &qi, &n) == 1 && n > 0 && qi < c->nq) {
        snprintf(c->ref_qerr[qi], CHK_DETAIL, "%s", s + n);
    } else if ((strncmp(s, "sum ", 4) == 0 || strncmp(s, "ref ", 4) == 0) &&
               sscanf(s + 4, "%zu %u %llu %llx", &qi, &depth, &rows, &hash) == 4 && qi < c->nq) {
        for (size_t di = 0; di < CHK_NDEPTHS; di++)
            if (chk_depths[di] == depth) {
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
        *deadline = pgcb_now_ns() + (uint64_t)c->task_timeout_s * 1000000000ull;
        break;
    case 'T':
        snprintf(r->phase, sizeof r->phase, "%s", body);
        *deadline = pgcb_now_ns() + (uint64_t)c->task_timeout_s * 1000000000ull;
        break;
    case 'P':
    case 'F': {
        char *tab = strchr(body, '\t');
        const char *detail = "";
        if (tab) {
            *tab = '\0';
            detail = tab + 1;
        }
        report(c, type == 'P', body, "%s", detail);
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

/* Run task `fn` in a child. `what` names the task for a death after all its
 * checks ("batch limit_1 (cleanup)"). For the reference (ref = 1) a death is
 * recorded in c->ref_err instead of failing checks. */
static void run_task(struct chk *c, chk_task_fn fn, const char *what, int ref)
{
    int p[2];
    /* The reference is not under test: a short PGCB_CHECK_TIMEOUT (for a
     * driver that hangs) must not make it fail on a slow machine. */
    c->task_timeout_s = ref && c->timeout_s < PGCB_CHECK_TIMEOUT_S ? PGCB_CHECK_TIMEOUT_S
                                                                   : c->timeout_s;
    fflush(NULL); /* nothing buffered is written twice if a driver calls exit() */
    if (pipe2(p, O_CLOEXEC) != 0) {
        report(c, 0, what, "cannot create a pipe: %s", strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        report(c, 0, what, "cannot fork: %s", strerror(errno));
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
        snprintf(why, sizeof why, "timed out after %d s", c->task_timeout_s);
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
            report(c, 0, name, "%s%s", why, in);
        } else {
            /* The check it was in, else the first it had not reached. */
            size_t at = first;
            for (size_t i = 0; i < r->nplan; i++)
                if (!r->done[i] && strcmp(r->plan[i], r->current) == 0)
                    at = i;
            report(c, 0, r->plan[at], "%s%s", why, in);
            r->done[at] = 1;
            for (size_t i = 0; i < r->nplan; i++)
                if (!r->done[i])
                    report(c, 0, r->plan[i], "not run: the driver %s during %s", why,
                           r->plan[at]);
        }
    }
    free(r);
}

/* ------------------------------------------------------------------------ */
/* Tasks                                                                    */
/* ------------------------------------------------------------------------ */

static void task_load(struct chk *c)
{
    char err[PGCB_ERRLEN], caps[64];
    size_t i = c_plan(c, "load");
    c_begin(c, i);
    c_phase(c, "load");
    if (pgcb_loader_open(c->label, c->path, &c->ld, err, sizeof err) != 0) {
        /* Refused: say whether the file loads at all. */
        char *full = strchr(c->path, '/') ? pgcb_xstrdup(c->path)
                                          : pgcb_xasprintf("./%s", c->path);
        void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
        free(full);
        if (!h)
            c_send(c, 'D', "unloadable");
        c_result(c, i, 0, "%s", err);
        return;
    }
    const struct pgcb_driver *d = c->ld.drv;
    pgcb_loader_caps_str(d->caps, caps, sizeof caps);
    c_send(c, 'D', "caps %u", (unsigned)d->caps);
    c_send(c, 'D', "abi_minor %u params %d", (unsigned)d->abi_minor,
           PGCB_DRIVER_HAS(d, 1, run_batch_params) ? 1 : 0);
    c_result(c, i, 1, "%s %s (ABI %u.%u), caps: %s", d->name, d->version,
             (unsigned)d->abi_major, (unsigned)d->abi_minor, caps);
}

static void task_descriptor(struct chk *c)
{
    size_t i_magic = c_plan(c, "magic"), i_abi = c_plan(c, "abi"),
           i_size = c_plan(c, "struct_size"), i_name = c_plan(c, "name"),
           i_version = c_plan(c, "version"), i_links = c_plan(c, "links"),
           i_desc = c_plan(c, "description"), i_caps = c_plan(c, "caps"),
           i_opts = c_plan(c, "options");
    const struct pgcb_driver *d = c_load_checked(c);
    if (!d)
        return;

    c_begin(c, i_magic);
    c_result(c, i_magic, d->magic == PGCB_DRIVER_MAGIC, "0x%08x%s", (unsigned)d->magic,
             d->magic == PGCB_DRIVER_MAGIC ? " (\"PGCB\")" : ", expected PGCB_DRIVER_MAGIC");

    c_begin(c, i_abi);
    if (d->abi_major != PGCB_ABI_MAJOR)
        c_result(c, i_abi, 0, "%u.%u: this runner has ABI %d.%d", (unsigned)d->abi_major,
                 (unsigned)d->abi_minor, PGCB_ABI_MAJOR, PGCB_ABI_MINOR);
    else if (d->abi_minor > PGCB_ABI_MINOR)
        c_result(c, i_abi, 1, "%u.%u (this runner: %d.%d; slots added later are not used)",
                 (unsigned)d->abi_major, (unsigned)d->abi_minor, PGCB_ABI_MAJOR,
                 PGCB_ABI_MINOR);
    else
        c_result(c, i_abi, 1, "%u.%u (this runner: %d.%d)", (unsigned)d->abi_major,
                 (unsigned)d->abi_minor, PGCB_ABI_MAJOR, PGCB_ABI_MINOR);

    c_begin(c, i_size);
    size_t ours = sizeof(struct pgcb_driver);
    if (d->struct_size < PGCB_DRIVER_SIZE_1_0)
        c_result(c, i_size, 0, "%u bytes, smaller than an ABI %d.0 descriptor (%zu)",
                 (unsigned)d->struct_size, PGCB_ABI_MAJOR, (size_t)PGCB_DRIVER_SIZE_1_0);
    else if (d->abi_minor == PGCB_ABI_MINOR && d->struct_size != ours)
        c_result(c, i_size, 0, "%u bytes, but sizeof(struct pgcb_driver) is %zu for ABI %d.%d: "
                 "set .struct_size = sizeof(struct pgcb_driver)", (unsigned)d->struct_size,
                 ours, PGCB_ABI_MAJOR, PGCB_ABI_MINOR);
    else if (d->abi_minor > PGCB_ABI_MINOR && d->struct_size < ours)
        c_result(c, i_size, 0, "%u bytes for ABI %u.%u, less than this runner's %zu",
                 (unsigned)d->struct_size, (unsigned)d->abi_major, (unsigned)d->abi_minor, ours);
    else
        c_result(c, i_size, 1, "%u bytes (sizeof(struct pgcb_driver) here: %zu)",
                 (unsigned)d->struct_size, ours);

    c_begin(c, i_name);
    c_result(c, i_name, d->name && valid_key(d->name), "\"%s\"%s", d->name ? d->name : "(null)",
             d->name && valid_key(d->name) ? " ([a-z0-9_]+)" : ": must be [a-z0-9_]+");

    c_begin(c, i_version);
    if (!d->version)
        c_result(c, i_version, 0, "NULL (required, e.g. \"1.0.0\")");
    else if (!d->version[0])
        c_result(c, i_version, 0, "empty (required, e.g. \"1.0.0\")");
    else if (!printable_line(d->version))
        c_result(c, i_version, 0, "contains control characters (one printable line)");
    else
        c_result(c, i_version, 1, "\"%s\"", d->version);

    c_begin(c, i_links);
    if (!d->links)
        c_result(c, i_links, 0, "NULL (required; \"\" for nothing)");
    else if (!printable_line(d->links))
        c_result(c, i_links, 0, "contains control characters (one printable line)");
    else
        c_result(c, i_links, 1, "\"%s\"%s", d->links, d->links[0] ? "" : " (links nothing)");

    c_begin(c, i_desc);
    if (!d->description)
        c_result(c, i_desc, 1, "none (optional)");
    else if (!d->description[0] || !printable_line(d->description))
        c_result(c, i_desc, 0, "must be NULL or one non-empty printable line");
    else
        c_result(c, i_desc, 1, "\"%s\"", d->description);

    c_begin(c, i_caps);
    unsigned known = PGCB_CAP_PIPELINE | PGCB_CAP_NO_IO | PGCB_CAP_REFERENCE;
    char caps[64];
    pgcb_loader_caps_str(d->caps & known, caps, sizeof caps);
    if (d->caps & ~known)
        c_result(c, i_caps, 0, "unknown capability bits 0x%x (known: pipeline 0x%x, no-io 0x%x, "
                 "reference 0x%x)", (unsigned)(d->caps & ~known), PGCB_CAP_PIPELINE,
                 PGCB_CAP_NO_IO, PGCB_CAP_REFERENCE);
    else
        c_result(c, i_caps, 1, "%s", caps);

    c_begin(c, i_opts);
    if (!d->options) {
        c_result(c, i_opts, 1, "none");
        return;
    }
    size_t n = 0;
    const struct pgcb_option_spec *o = d->options;
    for (; o[n].key; n++) {
        const struct pgcb_option_spec *s = &o[n];
        if (n >= 256) {
            c_result(c, i_opts, 0, "no NULL-key entry within 256 options: the array must end "
                     "with {NULL, NULL, NULL}");
            return;
        }
        if (!valid_key(s->key)) {
            c_result(c, i_opts, 0, "option %zu: key \"%s\" is not [a-z0-9_]+", n + 1, s->key);
            return;
        }
        if (strcmp(s->key, "path") == 0) {
            c_result(c, i_opts, 0, "option \"path\": the runner's own key, never passed to a "
                     "driver");
            return;
        }
        for (size_t k = 0; k < n; k++)
            if (strcmp(o[k].key, s->key) == 0) {
                c_result(c, i_opts, 0, "option \"%s\" declared twice", s->key);
                return;
            }
        if (!s->help || !s->help[0] || !printable_line(s->help)) {
            c_result(c, i_opts, 0, "option \"%s\": help must be one non-empty line", s->key);
            return;
        }
        if (s->default_value && !printable_line(s->default_value)) {
            c_result(c, i_opts, 0, "option \"%s\": default must be one line", s->key);
            return;
        }
    }
    char keys[256] = "";
    for (size_t k = 0; k < n; k++)
        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", k ? ", " : "",
                 o[k].key);
    c_result(c, i_opts, 1, "%zu (%s): keys unique, each with help, NULL-terminated", n,
             n ? keys : "empty list");
}

/* What *out holds before open() runs: a failing open must store NULL. */
static char chk_sentinel;
#define CHK_UNSET ((struct pgcb_conn *)(void *)&chk_sentinel)

/* Open with `opts` and an error buffer of errlen; *conn is what open()
 * stored (CHK_UNSET if nothing). */
static int open_with(struct chk *c, const struct pgcb_driver *d, const struct pgcb_option *opts,
                     size_t nopts, char *err, size_t errlen, struct pgcb_conn **conn)
{
    *conn = CHK_UNSET;
    c_phase(c, "open");
    return d->open(c->conninfo, opts, nopts, conn, err_reset(err, errlen), errlen);
}

static int is_conn(const struct pgcb_conn *conn)
{
    return conn && conn != CHK_UNSET;
}

static void task_open(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300];
    size_t i_open = c_plan(c, "open"), i_close = c_plan(c, "close"),
           i_null = c_plan(c, "close_null");
    const struct pgcb_driver *d = c_load_checked(c);
    if (!d)
        return;

    c_begin(c, i_open);
    c_phase(c, "open");
    struct pgcb_conn *conn;
    uint64_t t0 = pgcb_now_ns();
    int rc = open_with(c, d, NULL, 0, err, PGCB_ERRLEN, &conn);
    double ms = ms_since(t0);
    if (rc != PGCB_OK) {
        char why[160];
        const char *bad = msg_problem(err, PGCB_ERRLEN, why, sizeof why);
        c_result(c, i_open, 0, "returned %s: %s%s%s%s", status_name(rc, rcb, sizeof rcb),
                 quote_msg(qm, sizeof qm, err, PGCB_ERRLEN), bad ? " (and " : "",
                 bad ? bad : "", bad ? ")" : "");
        c_fail_rest(c, "open failed");
        return;
    }
    if (!is_conn(conn)) {
        c_result(c, i_open, 0, "returned PGCB_OK but stored no connection in *out");
        c_fail_rest(c, "open failed");
        return;
    }
    c_result(c, i_open, 1, "%s in %.1f ms", (c->caps & PGCB_CAP_NO_IO) ? "opened (no I/O)"
             : "connected", ms);

    c_begin(c, i_close);
    c_phase(c, "close");
    t0 = pgcb_now_ns();
    d->close(conn);
    c_result(c, i_close, 1, "returned in %.1f ms", ms_since(t0));

    c_begin(c, i_null);
    c_phase(c, "close");
    d->close(NULL);
    c_result(c, i_null, 1, "close(NULL) returned");
}

static void task_options(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], why[160];
    size_t i_unknown = c_plan(c, "open_unknown_option"), i_short = c_plan(c, "errlen16_open"),
           i_defaults = c_plan(c, "open_defaults");
    const struct pgcb_driver *d = c_load_checked(c);
    if (!d)
        return;
    const struct pgcb_option bad = {CHK_UNKNOWN_OPTION, "1"};
    struct pgcb_conn *conn;

    c_begin(c, i_unknown);
    int rc = open_with(c, d, &bad, 1, err, PGCB_ERRLEN, &conn);
    if (rc == PGCB_OK) {
        c_phase(c, "close");
        if (is_conn(conn))
            d->close(conn);
        c_result(c, i_unknown, 0, "accepted the unknown option " CHK_UNKNOWN_OPTION " (PGCB_OK): "
                 "must refuse it with PGCB_ERR_CONFIG and a message");
    } else if (rc != PGCB_ERR_CONFIG) {
        c_result(c, i_unknown, 0, "returned %s, expected PGCB_ERR_CONFIG: %s",
                 status_name(rc, rcb, sizeof rcb), quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    } else if (msg_problem(err, PGCB_ERRLEN, why, sizeof why)) {
        c_result(c, i_unknown, 0, "PGCB_ERR_CONFIG, but %s", why);
    } else if (conn) {
        c_result(c, i_unknown, 0, "PGCB_ERR_CONFIG, but *out is %s (a failing open stores NULL)",
                 conn == CHK_UNSET ? "left unset" : "not NULL");
    } else {
        c_result(c, i_unknown, 1, "PGCB_ERR_CONFIG: %s", quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    }

    c_begin(c, i_short);
    rc = open_with(c, d, &bad, 1, err, CHK_SHORT_ERRLEN, &conn);
    if (rc == PGCB_OK) {
        c_phase(c, "close");
        if (is_conn(conn))
            d->close(conn);
        c_result(c, i_short, 0, "the unknown option was accepted: no message to check");
    } else if (msg_problem(err, CHK_SHORT_ERRLEN, why, sizeof why)) {
        c_result(c, i_short, 0, "%s: %s", status_name(rc, rcb, sizeof rcb), why);
    } else {
        c_result(c, i_short, 1, "%s (%zu bytes + NUL within errlen %d, nothing written past it)",
                 quote_msg(qm, sizeof qm, err, CHK_SHORT_ERRLEN), strlen(err), CHK_SHORT_ERRLEN);
    }

    c_begin(c, i_defaults);
    if (!passed(c, "open")) {
        c_result(c, i_defaults, 0, "not run: open failed");
        return;
    }
    struct pgcb_option opts[64];
    size_t n = 0;
    char list[256] = "";
    for (const struct pgcb_option_spec *o = d->options; o && o->key && n < 64; o++)
        if (o->default_value) {
            opts[n++] = (struct pgcb_option){o->key, o->default_value};
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s=%s", n > 1 ? ", " : "",
                     o->key, o->default_value);
        }
    if (n == 0) {
        c_result(c, i_defaults, 1, "no option declares a default: nothing to check");
        return;
    }
    rc = open_with(c, d, opts, n, err, PGCB_ERRLEN, &conn);
    if (rc != PGCB_OK || !is_conn(conn)) {
        c_result(c, i_defaults, 0, "open with every option at its declared default (%s) returned "
                 "%s: %s", list, status_name(rc, rcb, sizeof rcb),
                 rc == PGCB_OK ? "no connection" : quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        return;
    }
    c_phase(c, "close");
    d->close(conn);
    c_result(c, i_defaults, 1, "opened with %s", list);
}

static void task_prepare(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], name[CHK_NAME], why[160];
    for (size_t i = 0; i < c->nq; i++) {
        name_prepare(name, sizeof name, &c->q[i]);
        c_plan(c, name);
    }
    const struct pgcb_driver *d;
    struct pgcb_conn *conn = c_setup(c, &d);
    if (!conn)
        return;
    for (size_t i = 0; i < c->nq; i++) {
        char sname[96];
        snprintf(sname, sizeof sname, "pgcb_%s", c->q[i].name);
        struct pgcb_stmt *st = NULL;
        c_begin(c, i);
        c_phase(c, "prepare");
        uint64_t t0 = pgcb_now_ns();
        int rc = d->prepare(conn, sname, c->q[i].sql, &st, err_reset(err, PGCB_ERRLEN),
                            PGCB_ERRLEN);
        double ms = ms_since(t0);
        if (rc == PGCB_OK)
            c_result(c, i, 1, "statement %s in %.1f ms", sname, ms);
        else {
            const char *bad = msg_problem(err, PGCB_ERRLEN, why, sizeof why);
            c_result(c, i, 0, "returned %s: %s%s%s", status_name(rc, rcb, sizeof rcb),
                     quote_msg(qm, sizeof qm, err, PGCB_ERRLEN), bad ? "; and " : "",
                     bad ? bad : "");
        }
    }
    c_phase(c, "close (setup)");
    d->close(conn);
}

/* The batches of query c->arg_q at every depth, on one connection where
 * every query is prepared. */
static void task_batches(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], name[CHK_NAME], why[160];
    size_t qi = c->arg_q;
    const struct chk_query *q = &c->q[qi];
    for (size_t di = 0; di < CHK_NDEPTHS; di++) {
        name_batch(name, sizeof name, q, chk_depths[di]);
        c_plan(c, name);
    }
    name_prepare(name, sizeof name, q);
    if (!passed(c, name)) {
        c_fail_rest(c, "%s failed", name);
        return;
    }
    const struct pgcb_driver *d = c_load_checked(c);
    if (!d)
        return;
    struct pgcb_conn *conn = c_open_setup(c, d);
    if (!conn)
        return;
    struct pgcb_stmt **stmts = pgcb_xcalloc(c->nq, sizeof *stmts);
    int *ok = pgcb_xcalloc(c->nq, sizeof *ok);
    c_prepare_all(c, d, conn, stmts, ok);
    if (!ok[qi]) {
        c_fail_rest(c, "prepare (setup) of %s failed this time", q->name);
        goto out;
    }
    int64_t per = c->expect[qi];
    for (size_t di = 0; di < CHK_NDEPTHS; di++) {
        uint32_t depth = chk_depths[di];
        int nb = depth <= 10 ? 2 : 1; /* twice: the checksum must not change */
        struct pgcb_sum s[2];
        double ms = 0;
        c_begin(c, di);
        for (int b = 0; b < nb; b++) {
            memset(&s[b], 0, sizeof s[b]);
            c_phase(c, "run_batch");
            uint64_t t0 = pgcb_now_ns();
            int rc = d->run_batch(conn, stmts[qi], depth, &s[b], err_reset(err, PGCB_ERRLEN),
                                  PGCB_ERRLEN);
            ms = ms_since(t0);
            if (rc != PGCB_OK) {
                const char *bad = msg_problem(err, PGCB_ERRLEN, why, sizeof why);
                c_result(c, di, 0, "run_batch returned %s: %s%s%s",
                         status_name(rc, rcb, sizeof rcb),
                         quote_msg(qm, sizeof qm, err, PGCB_ERRLEN), bad ? "; and " : "",
                         bad ? bad : "");
                name_batch(name, sizeof name, q, depth);
                c_fail_rest(c, "%s failed", name);
                goto out;
            }
        }
        c_send(c, 'D', "sum %zu %u %llu %llx", qi, depth, (unsigned long long)s[0].rows,
               (unsigned long long)s[0].hash);
        if (per < 0 && depth == 1) /* no expected count: the driver's own */
            per = (int64_t)s[0].rows;
        uint64_t want = (uint64_t)per * depth;
        if (s[0].rows != want)
            c_result(c, di, 0, "%llu rows, expected %llu (%u x %lld)",
                     (unsigned long long)s[0].rows, (unsigned long long)want, depth,
                     (long long)per);
        else if (nb == 2 && s[1].rows != s[0].rows)
            c_result(c, di, 0, "%llu rows, then %llu in the same batch again",
                     (unsigned long long)s[0].rows, (unsigned long long)s[1].rows);
        else if (nb == 2 && !q->rows_only && s[1].hash != s[0].hash)
            c_result(c, di, 0, "the checksum changed between two identical batches "
                     "(0x%016llx, then 0x%016llx)", (unsigned long long)s[0].hash,
                     (unsigned long long)s[1].hash);
        else
            c_result(c, di, 1, "%llu row%s (%u x %lld)%s, %.1f ms", (unsigned long long)s[0].rows,
                     s[0].rows == 1 ? "" : "s", depth, (long long)per,
                     nb == 2 ? (q->rows_only ? ", twice" : ", twice with the same checksum") : "",
                     ms);
    }
out:
    c_phase(c, "close (setup)");
    d->close(conn);
    free(stmts);
    free(ok);
}

/* The reference driver's rows and checksums of every query and depth. */
static void task_reference(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300];
    const struct pgcb_driver *d = c_load(c, CHK_REF_NAME, c->ref_path, err, PGCB_ERRLEN);
    if (!d) {
        c_send(c, 'D', "referr %s", err);
        return;
    }
    struct pgcb_conn *conn = NULL;
    c_phase(c, "open");
    int rc = d->open(c->conninfo, NULL, 0, &conn, err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc != PGCB_OK) {
        c_send(c, 'D', "referr reference %s: open returned %s: %s", CHK_REF_NAME,
               status_name(rc, rcb, sizeof rcb), quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        return;
    }
    struct pgcb_stmt **stmts = pgcb_xcalloc(c->nq, sizeof *stmts);
    for (size_t i = 0; i < c->nq; i++) {
        char sname[96];
        snprintf(sname, sizeof sname, "pgcb_%s", c->q[i].name);
        c_phase(c, "prepare");
        rc = d->prepare(conn, sname, c->q[i].sql, &stmts[i], err_reset(err, PGCB_ERRLEN),
                        PGCB_ERRLEN);
        if (rc != PGCB_OK) {
            c_send(c, 'D', "refqerr %zu reference %s: prepare %s returned %s: %s", i,
                   CHK_REF_NAME, c->q[i].name, status_name(rc, rcb, sizeof rcb),
                   quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
            continue;
        }
        for (size_t di = 0; di < CHK_NDEPTHS; di++) {
            struct pgcb_sum s = {0, 0};
            c_phase(c, "run_batch");
            rc = d->run_batch(conn, stmts[i], chk_depths[di], &s, err_reset(err, PGCB_ERRLEN),
                              PGCB_ERRLEN);
            if (rc != PGCB_OK) {
                c_send(c, 'D', "refqerr %zu reference %s: batch of %s at depth %u returned %s: %s",
                       i, CHK_REF_NAME, c->q[i].name, chk_depths[di],
                       status_name(rc, rcb, sizeof rcb), quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
                break;
            }
            c_send(c, 'D', "ref %zu %u %llu %llx", i, chk_depths[di], (unsigned long long)s.rows,
                   (unsigned long long)s.hash);
        }
    }
    c_phase(c, "close");
    d->close(conn);
    free(stmts);
}

/* Check that a failing call left a proper message with SQLSTATE 42P01:
 * NULL if so, else why not. */
static const char *bad_sql_problem(int rc, const char *err, size_t errlen, char *why, size_t n)
{
    char rcb[48];
    if (rc == PGCB_OK) {
        snprintf(why, n, "the statement succeeded");
        return why;
    }
    if (rc != PGCB_ERR_QUERY) {
        snprintf(why, n, "returned %s, expected PGCB_ERR_QUERY (the server said no; the "
                 "connection stays usable)", status_name(rc, rcb, sizeof rcb));
        return why;
    }
    if (msg_problem(err, errlen, why, n))
        return why;
    return NULL;
}

/* Prepare the bad statement and, if the driver prepares lazily, run it.
 * Returns the status; *where says which call failed. */
static int run_bad(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                   const char *sname, char *err, size_t errlen, const char **where)
{
    struct pgcb_stmt *st = NULL;
    *where = "prepare";
    c_phase(c, "prepare");
    int rc = d->prepare(conn, sname, CHK_BAD_SQL, &st, err_reset(err, errlen), errlen);
    if (rc != PGCB_OK)
        return rc;
    struct pgcb_sum s = {0, 0};
    *where = "run_batch";
    c_phase(c, "run_batch");
    return d->run_batch(conn, st, 1, &s, err_reset(err, errlen), errlen);
}

static void task_errors(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], why[200];
    size_t i_bad = c_plan(c, "bad_statement"), i_after = c_plan(c, "after_error"),
           i_short = c_plan(c, "errlen16_query");
    if (c->caps & PGCB_CAP_NO_IO) {
        for (size_t i = 0; i < c->nplan; i++) {
            c_begin(c, i);
            c_result(c, i, 1, "not applicable: a no-I/O driver (caps no-io) has no server to "
                     "refuse a statement");
        }
        return;
    }
    if (!passed(c, "open")) {
        c_fail_rest(c, "open failed");
        return;
    }
    /* A query to run before and after the error: the first that prepared. */
    size_t good = SIZE_MAX;
    char name[CHK_NAME];
    for (size_t i = 0; i < c->nq && good == SIZE_MAX; i++) {
        name_prepare(name, sizeof name, &c->q[i]);
        if (passed(c, name))
            good = i;
    }
    const struct pgcb_driver *d = c_load_checked(c);
    if (!d)
        return;
    struct pgcb_conn *conn = c_open_setup(c, d);
    if (!conn)
        return;

    struct pgcb_stmt *st = NULL;
    struct pgcb_sum before = {0, 0};
    char before_err[CHK_DETAIL] = "";
    if (good == SIZE_MAX)
        snprintf(before_err, sizeof before_err, "no query could be prepared");
    else {
        char sname[96];
        snprintf(sname, sizeof sname, "pgcb_%s", c->q[good].name);
        c_phase(c, "prepare (setup)");
        int rc = d->prepare(conn, sname, c->q[good].sql, &st, err_reset(err, PGCB_ERRLEN),
                            PGCB_ERRLEN);
        if (rc == PGCB_OK) {
            c_phase(c, "run_batch (setup)");
            rc = d->run_batch(conn, st, CHK_SIDE_DEPTH, &before, err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
        }
        if (rc != PGCB_OK)
            snprintf(before_err, sizeof before_err, "%s at depth %d before the error returned "
                     "%s: %s", c->q[good].name, CHK_SIDE_DEPTH, status_name(rc, rcb, sizeof rcb),
                     quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    }

    c_begin(c, i_bad);
    const char *where;
    int rc = run_bad(c, d, conn, "pgcb_check_bad", err, PGCB_ERRLEN, &where);
    int broken = rc != PGCB_OK && rc != PGCB_ERR_QUERY;
    if (bad_sql_problem(rc, err, PGCB_ERRLEN, why, sizeof why))
        c_result(c, i_bad, 0, "%s of %s: %s%s%s", where, CHK_BAD_SQL, why,
                 rc != PGCB_OK ? ": " : "", rc != PGCB_OK ? quote_msg(qm, sizeof qm, err,
                                                                       PGCB_ERRLEN) : "");
    else if (strncmp(err, CHK_BAD_SQLSTATE, 5) != 0)
        c_result(c, i_bad, 0, "%s: PGCB_ERR_QUERY, but the message does not start with the "
                 "SQLSTATE " CHK_BAD_SQLSTATE ": %s", where,
                 quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else
        c_result(c, i_bad, 1, "%s: PGCB_ERR_QUERY %s", where,
                 quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));

    c_begin(c, i_after);
    if (broken)
        c_result(c, i_after, 0, "not run: the bad statement returned %s, which leaves the "
                 "connection unusable", status_name(rc, rcb, sizeof rcb));
    else if (before_err[0])
        c_result(c, i_after, 0, "not run: %s", before_err);
    else {
        struct pgcb_sum after = {0, 0};
        c_phase(c, "run_batch");
        rc = d->run_batch(conn, st, CHK_SIDE_DEPTH, &after, err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
        if (rc != PGCB_OK)
            c_result(c, i_after, 0, "a batch of %s at depth %d after the error returned %s: %s",
                     c->q[good].name, CHK_SIDE_DEPTH, status_name(rc, rcb, sizeof rcb),
                     quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        else if (after.rows != before.rows)
            c_result(c, i_after, 0, "a batch of %s at depth %d after the error: %llu rows, "
                     "%llu before it", c->q[good].name, CHK_SIDE_DEPTH, (unsigned long long)after.rows,
                     (unsigned long long)before.rows);
        else if (!c->q[good].rows_only && after.hash != before.hash)
            c_result(c, i_after, 0, "a batch of %s at depth %d after the error: checksum "
                     "0x%016llx, 0x%016llx before it", c->q[good].name, CHK_SIDE_DEPTH,
                     (unsigned long long)after.hash, (unsigned long long)before.hash);
        else
            c_result(c, i_after, 1, "a batch of %s at depth %d on the same connection: %llu "
                     "rows%s", c->q[good].name, CHK_SIDE_DEPTH, (unsigned long long)after.rows,
                     c->q[good].rows_only ? "" : ", checksum as before the error");
    }
    c_phase(c, "close (setup)");
    d->close(conn);

    /* The same error with a 16-byte buffer, on a fresh connection. */
    c_begin(c, i_short);
    conn = NULL;
    c_phase(c, "open (setup)");
    rc = d->open(c->conninfo, NULL, 0, &conn, err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc != PGCB_OK || !conn) {
        c_result(c, i_short, 0, "not run: open (setup) returned %s",
                 status_name(rc, rcb, sizeof rcb));
        return;
    }
    rc = run_bad(c, d, conn, "pgcb_check_bad16", err, CHK_SHORT_ERRLEN, &where);
    if (rc == PGCB_OK)
        c_result(c, i_short, 0, "%s: the bad statement succeeded: no message to check", where);
    else if (msg_problem(err, CHK_SHORT_ERRLEN, why, sizeof why))
        c_result(c, i_short, 0, "%s returned %s: %s", where, status_name(rc, rcb, sizeof rcb),
                 why);
    else
        c_result(c, i_short, 1, "%s: %s (%zu bytes + NUL within errlen %d, nothing written "
                 "past it)", where, quote_msg(qm, sizeof qm, err, CHK_SHORT_ERRLEN), strlen(err),
                 CHK_SHORT_ERRLEN);
    c_phase(c, "close (setup)");
    d->close(conn);
}

/* ------------------------------------------------------------------------ */
/* run_batch_params (ABI 1.1)                                               */
/* ------------------------------------------------------------------------ */

/* The statement of the parameter checks: an int4 computed from $1 and $2
 * returned as text, so that a value bound wrongly shows in the checksum. */
#define CHK_P_SQL "SELECT $1::int4 + 1, $2::text"
#define CHK_P_STMT "pgcb_check_params"
#define CHK_P_MAX 10       /* queries in one batch of the checks */
#define CHK_P_TEXT 16384   /* bytes of every value of one batch */
#define CHK_P_BAD_SQLSTATE "22P02" /* invalid_text_representation: 'abc'::int4 */

/* One batch of the checks on CHK_P_SQL: query i binds values[2i] and
 * values[2i + 1], stored back to back in text[] with a '#' after each and no
 * NUL (the ABI's values are not NUL-terminated: a driver that reads past a
 * length binds "41#", which the server refuses), and `want` is what the
 * server returns for them, folded with the pgcb_sum_* helpers. */
struct chk_pbatch {
    struct pgcb_params p;
    const char *values[2 * CHK_P_MAX];
    int lengths[2 * CHK_P_MAX];
    char text[CHK_P_TEXT];
    size_t used;
    uint32_t depth;
    struct pgcb_sum want;
};

static void pb_init(struct chk_pbatch *b)
{
    memset(b, 0, sizeof *b);
    b->p.nparams = 2;
    b->p.values = b->values;
    b->p.lengths = b->lengths;
}

/* Store value k (NULL: SQL NULL) of len bytes. */
static void pb_store(struct chk_pbatch *b, size_t k, const char *v, size_t len)
{
    b->values[k] = NULL;
    b->lengths[k] = 0;
    if (!v || b->used + len + 1 > CHK_P_TEXT)
        return;
    memcpy(b->text + b->used, v, len);
    b->values[k] = b->text + b->used;
    b->lengths[k] = (int)len;
    b->used += len;
    b->text[b->used++] = '#';
}

/* Append a query binding $1 = `i1` (decimal text; NULL: SQL NULL) and $2 =
 * `t` of tlen bytes (NULL: SQL NULL). */
static void pb_add(struct chk_pbatch *b, const char *i1, const char *t, size_t tlen)
{
    if (b->depth == CHK_P_MAX)
        return;
    pb_store(b, 2 * (size_t)b->depth, i1, i1 ? strlen(i1) : 0);
    pb_store(b, 2 * (size_t)b->depth + 1, t, tlen);
    b->depth++;
    if (i1)
        pgcb_sum_int(&b->want, strtoll(i1, NULL, 10) + 1);
    else
        pgcb_sum_null(&b->want);
    if (t)
        pgcb_sum_text(&b->want, t, tlen);
    else
        pgcb_sum_null(&b->want);
    pgcb_sum_row(&b->want);
}

/* CHK_P_MAX queries with distinct values, every `seed` a different set:
 * negative and large ints, texts of 0 to 9 * step bytes, a NULL of each. */
static void pb_distinct(struct chk_pbatch *b, int seed, size_t step)
{
    char big[CHK_P_TEXT / CHK_P_MAX];
    pb_init(b);
    for (int i = 0; i < CHK_P_MAX; i++) {
        char num[24];
        size_t len = (size_t)i * step < sizeof big ? (size_t)i * step : sizeof big;
        for (size_t k = 0; k < len; k++)
            big[k] = (char)('a' + (k + (size_t)i + (size_t)seed) % 26);
        snprintf(num, sizeof num, "%d", (i - 5) * 1000003 + seed);
        pb_add(b, i == 6 ? NULL : num, i == 8 ? NULL : big, len);
    }
}

/* Run batch b of the statement; *s is what it folded. */
static int pb_run(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                  struct pgcb_stmt *st, const struct chk_pbatch *b, struct pgcb_sum *s,
                  char *err)
{
    memset(s, 0, sizeof *s);
    c_phase(c, "run_batch_params");
    return d->run_batch_params(conn, st, b->depth, &b->p, s, err_reset(err, PGCB_ERRLEN),
                               PGCB_ERRLEN);
}

/* What is wrong with the result of batch b (status rc, sum s, message err),
 * or NULL. A reference driver's checksum is not compared (floor folds
 * nothing); a no-I/O driver's rows neither (no server computes them). */
static const char *pb_problem(const struct chk *c, const struct chk_pbatch *b, int rc,
                              const struct pgcb_sum *s, const char *err, char *why, size_t n)
{
    char rcb[48], qm[300], bad[160];
    if (rc != PGCB_OK) {
        const char *mp = msg_problem(err, PGCB_ERRLEN, bad, sizeof bad);
        snprintf(why, n, "run_batch_params at depth %u returned %s: %s%s%s", b->depth,
                 status_name(rc, rcb, sizeof rcb), quote_msg(qm, sizeof qm, err, PGCB_ERRLEN),
                 mp ? "; and " : "", mp ? mp : "");
        return why;
    }
    if (c->caps & PGCB_CAP_NO_IO)
        return NULL;
    if (s->rows != b->want.rows) {
        snprintf(why, n, "%llu rows at depth %u, expected %llu", (unsigned long long)s->rows,
                 b->depth, (unsigned long long)b->want.rows);
        return why;
    }
    if (!(c->caps & PGCB_CAP_REFERENCE) && s->hash != b->want.hash) {
        snprintf(why, n, "checksum 0x%016llx at depth %u, expected 0x%016llx: a value is bound "
                 "to the wrong query or parameter, or read past its length",
                 (unsigned long long)s->hash, b->depth, (unsigned long long)b->want.hash);
        return why;
    }
    return NULL;
}

/* The end of a passing detail: how the result was compared. */
static const char *pb_how(const struct chk *c)
{
    if (c->caps & PGCB_CAP_NO_IO)
        return "no-I/O driver: the values are not evaluated";
    if (c->caps & PGCB_CAP_REFERENCE)
        return "rows as expected (reference driver: checksum not compared)";
    return "rows and checksum as computed from the values";
}

/* Run batch b, which the server must refuse: NULL if run_batch_params
 * returned PGCB_ERR_QUERY with a proper message starting with `sqlstate`
 * (NULL: any), else why not. The message is left in err. */
static const char *pb_refusal_problem(struct chk *c, const struct pgcb_driver *d,
                                      struct pgcb_conn *conn, struct pgcb_stmt *st,
                                      const struct chk_pbatch *b, const char *sqlstate,
                                      char *err, char *why, size_t n)
{
    char rcb[48], qm[300], bad[160];
    struct pgcb_sum s;
    int rc = pb_run(c, d, conn, st, b, &s, err);
    if (rc == PGCB_OK)
        snprintf(why, n, "run_batch_params returned PGCB_OK (%llu rows), expected "
                 "PGCB_ERR_QUERY", (unsigned long long)s.rows);
    else if (rc != PGCB_ERR_QUERY)
        snprintf(why, n, "returned %s, expected PGCB_ERR_QUERY (the server said no; the "
                 "connection stays usable): %s", status_name(rc, rcb, sizeof rcb),
                 quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else if (msg_problem(err, PGCB_ERRLEN, bad, sizeof bad))
        snprintf(why, n, "PGCB_ERR_QUERY, but %s", bad);
    else if (sqlstate && strncmp(err, sqlstate, 5) != 0)
        snprintf(why, n, "PGCB_ERR_QUERY, but the message does not start with the SQLSTATE "
                 "%s: %s", sqlstate, quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else
        return NULL;
    return why;
}

/* The parameter checks, on one connection with CHK_P_SQL prepared: values,
 * NULLs and empty text, distinct values per query in two calls at the same
 * depth, a value the server refuses (then a batch that works), a wrong
 * count of parameters. A no-I/O driver runs the first three (they must
 * return PGCB_OK, and not crash); the server's refusals do not apply. */
static void task_params(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], why[CHK_DETAIL];
    size_t i_values = c_plan(c, "params_values"), i_null = c_plan(c, "params_null"),
           i_depth = c_plan(c, "params_depth"), i_bad = c_plan(c, "params_bad_value"),
           i_after = c_plan(c, "params_after_error"), i_count = c_plan(c, "params_count");
    int no_io = (c->caps & PGCB_CAP_NO_IO) != 0;
    const struct pgcb_driver *d;
    struct pgcb_conn *conn = c_setup(c, &d);
    if (!conn)
        return;
    struct pgcb_stmt *st = NULL;
    c_phase(c, "prepare (setup)");
    int rc = d->prepare(conn, CHK_P_STMT, CHK_P_SQL, &st, err_reset(err, PGCB_ERRLEN),
                        PGCB_ERRLEN);
    if (rc != PGCB_OK) {
        c_fail_rest(c, "prepare of %s returned %s: %s", CHK_P_SQL, status_name(rc, rcb, sizeof rcb),
                    quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        goto out;
    }
    struct chk_pbatch *b = pgcb_xcalloc(1, sizeof *b), *b2 = pgcb_xcalloc(1, sizeof *b2);
    struct pgcb_sum s;

    c_begin(c, i_values);
    pb_init(b);
    pb_add(b, "41", "hello, world", 12);
    rc = pb_run(c, d, conn, st, b, &s, err);
    if (pb_problem(c, b, rc, &s, err, why, sizeof why))
        c_result(c, i_values, 0, "$1 = '41', $2 = 'hello, world': %s", why);
    else
        c_result(c, i_values, 1, "$1 = '41', $2 = 'hello, world' (not NUL-terminated): %s",
                 pb_how(c));

    c_begin(c, i_null);
    pb_init(b);
    pb_add(b, "7", NULL, 0);
    pb_add(b, NULL, "", 0);
    pb_add(b, NULL, NULL, 0);
    rc = pb_run(c, d, conn, st, b, &s, err);
    if (pb_problem(c, b, rc, &s, err, why, sizeof why))
        c_result(c, i_null, 0, "('7', NULL), (NULL, ''), (NULL, NULL): %s", why);
    else
        c_result(c, i_null, 1, "('7', NULL), (NULL, ''), (NULL, NULL): %s", pb_how(c));

    c_begin(c, i_depth);
    pb_distinct(b, 1, 7);
    pb_distinct(b2, 2, 150); /* other values, longer texts: nothing reused from the first */
    rc = pb_run(c, d, conn, st, b, &s, err);
    if (!pb_problem(c, b, rc, &s, err, why, sizeof why)) {
        rc = pb_run(c, d, conn, st, b2, &s, err);
        if (pb_problem(c, b2, rc, &s, err, why, sizeof why))
            c_result(c, i_depth, 0, "the second batch (other values, %zu bytes): %s", b2->used,
                     why);
        else
            c_result(c, i_depth, 1, "depth %u twice, other values each time (%zu and %zu "
                     "bytes, NULLs and empty text): %s", b->depth, b->used, b2->used, pb_how(c));
    } else {
        c_result(c, i_depth, 0, "%s", why);
    }

    if (no_io) {
        const size_t na[] = {i_bad, i_after, i_count};
        for (size_t k = 0; k < sizeof na / sizeof na[0]; k++) {
            c_begin(c, na[k]);
            c_result(c, na[k], 1, "not applicable: a no-I/O driver (caps no-io) has no server "
                     "to refuse a parameter");
        }
        goto done;
    }

    c_begin(c, i_bad);
    pb_init(b2);
    pb_add(b2, "1", "a", 1);
    pb_add(b2, "abc", "b", 1);
    pb_add(b2, "3", "c", 1);
    if (pb_refusal_problem(c, d, conn, st, b2, CHK_P_BAD_SQLSTATE, err, why, sizeof why))
        c_result(c, i_bad, 0, "$1 = 'abc' in query 2 of 3: %s", why);
    else
        c_result(c, i_bad, 1, "$1 = 'abc' in query 2 of 3: PGCB_ERR_QUERY %s",
                 quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));

    c_begin(c, i_after);
    rc = pb_run(c, d, conn, st, b, &s, err);
    if (pb_problem(c, b, rc, &s, err, why, sizeof why))
        c_result(c, i_after, 0, "after the refused value: %s", why);
    else
        c_result(c, i_after, 1, "a batch at depth %u on the same connection: %s", b->depth,
                 pb_how(c));

    c_begin(c, i_count);
    pb_init(b2);
    pb_add(b2, "1", NULL, 0);
    b2->p.nparams = 1; /* the statement has 2 */
    if (pb_refusal_problem(c, d, conn, st, b2, NULL, err, why, sizeof why)) {
        c_result(c, i_count, 0, "1 parameter for 2: %s", why);
        goto done;
    }
    quote_msg(qm, sizeof qm, err, PGCB_ERRLEN);
    rc = pb_run(c, d, conn, st, b, &s, err);
    if (pb_problem(c, b, rc, &s, err, why, sizeof why))
        c_result(c, i_count, 0, "1 parameter for 2: PGCB_ERR_QUERY %s, but then %s", qm, why);
    else
        c_result(c, i_count, 1, "1 parameter for 2: PGCB_ERR_QUERY %s; the next batch works",
                 qm);
done:
    free(b);
    free(b2);
out:
    c_phase(c, "close (setup)");
    d->close(conn);
}

/* The file descriptors open in this process, sorted by the kernel. */
static size_t list_fds(int *fds, size_t max)
{
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return SIZE_MAX;
    int self = dirfd(dir);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        int fd = atoi(e->d_name);
        if (fd != self && n < max)
            fds[n++] = fd;
    }
    closedir(dir);
    return n;
}

/* One whole life of a connection: open, prepare every query, a batch of
 * each at CHK_SIDE_DEPTH, the bad statement, close. */
static int life_cycle(struct chk *c, const struct pgcb_driver *d, char *why, size_t n)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48];
    struct pgcb_conn *conn = NULL;
    c_phase(c, "open (setup)");
    int rc = d->open(c->conninfo, NULL, 0, &conn, err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc != PGCB_OK || !conn) {
        snprintf(why, n, "open (setup) returned %s", status_name(rc, rcb, sizeof rcb));
        return -1;
    }
    struct pgcb_stmt **stmts = pgcb_xcalloc(c->nq, sizeof *stmts);
    int *ok = pgcb_xcalloc(c->nq, sizeof *ok);
    c_prepare_all(c, d, conn, stmts, ok);
    for (size_t i = 0; i < c->nq; i++)
        if (ok[i]) {
            struct pgcb_sum s = {0, 0};
            c_phase(c, "run_batch (setup)");
            d->run_batch(conn, stmts[i], CHK_SIDE_DEPTH, &s, err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
        }
    if (!(c->caps & PGCB_CAP_NO_IO)) {
        const char *where;
        run_bad(c, d, conn, "pgcb_check_bad", err, PGCB_ERRLEN, &where);
    }
    c_phase(c, "close");
    d->close(conn);
    free(stmts);
    free(ok);
    return 0;
}

static void task_close_clean(struct chk *c)
{
    char why[CHK_DETAIL];
    size_t i = c_plan(c, "close_clean");
    if (!passed(c, "open")) {
        c_fail_rest(c, "open failed");
        return;
    }
    const struct pgcb_driver *d = c_load_checked(c);
    if (!d)
        return;
    c_begin(c, i);
    /* The first life may leave what a library keeps for good (caches,
     * lazily opened files); the second must leave nothing. */
    if (life_cycle(c, d, why, sizeof why) != 0) {
        c_result(c, i, 0, "not run: %s", why);
        return;
    }
    int before[1024], after[1024];
    size_t nb = list_fds(before, 1024);
    if (life_cycle(c, d, why, sizeof why) != 0) {
        c_result(c, i, 0, "not run: %s", why);
        return;
    }
    size_t na = list_fds(after, 1024);
    if (nb == SIZE_MAX || na == SIZE_MAX) {
        c_result(c, i, 1, "close returned (file descriptors not counted: no /proc/self/fd)");
        return;
    }
    char leaked[CHK_DETAIL] = "";
    size_t nleaked = 0;
    for (size_t a = 0; a < na; a++) {
        int found = 0;
        for (size_t b = 0; b < nb && !found; b++)
            found = after[a] == before[b];
        if (found)
            continue;
        char link[64], target[256];
        snprintf(link, sizeof link, "/proc/self/fd/%d", after[a]);
        ssize_t tl = readlink(link, target, sizeof target - 1);
        target[tl > 0 ? tl : 0] = '\0';
        if (nleaked++ < 4)
            snprintf(leaked + strlen(leaked), sizeof leaked - strlen(leaked), "%sfd %d -> %s",
                     nleaked > 1 ? ", " : "", after[a], tl > 0 ? target : "?");
    }
    if (nleaked)
        c_result(c, i, 0, "close left %zu file descriptor%s open (%s)", nleaked,
                 nleaked == 1 ? "" : "s", leaked);
    else
        c_result(c, i, 1, "close returned after %s; no file descriptor left open",
                 (c->caps & PGCB_CAP_NO_IO) ? "open, prepare and batches"
                                            : "open, prepare, batches and an error");
}

/* ------------------------------------------------------------------------ */
/* Parent: checksums, the server, the reference                             */
/* ------------------------------------------------------------------------ */

static void report_checksums(struct chk *c, size_t qi)
{
    const struct chk_query *q = &c->q[qi];
    int reference = (c->caps & PGCB_CAP_REFERENCE) != 0;
    for (size_t di = 0; di < CHK_NDEPTHS; di++) {
        char name[CHK_NAME], bname[CHK_NAME];
        uint32_t depth = chk_depths[di];
        name_sum(name, sizeof name, q, depth);
        name_batch(bname, sizeof bname, q, depth);
        const struct chk_sum *s = &c->sum[qi][di], *r = &c->ref[qi][di];
        const char *noref = c->ref_err[0] ? c->ref_err : c->ref_qerr[qi][0] ? c->ref_qerr[qi]
                            : !r->have ? "the reference returned nothing" : NULL;
        if (q->rows_only) {
            report(c, 1, name, "not compared: [query.%s] check = rows", q->name);
        } else if (!s->have) {
            report(c, 0, name, "no checksum: %s failed", bname);
        } else if (reference) {
            if (noref)
                report(c, 1, name, "not required (reference driver): 0x%016llx; no reference to "
                       "compare with: %s", (unsigned long long)s->hash, noref);
            else if (s->hash == r->hash && s->rows == r->rows)
                report(c, 1, name, "0x%016llx, equal to %s's (not required: reference driver)",
                       (unsigned long long)s->hash, CHK_REF_NAME);
            else
                report(c, 1, name, "not required (reference driver): 0x%016llx, %s's is "
                       "0x%016llx", (unsigned long long)s->hash, CHK_REF_NAME,
                       (unsigned long long)r->hash);
        } else if (noref) {
            report(c, 0, name, "no reference checksum: %s", noref);
        } else if (s->rows != r->rows) {
            report(c, 0, name, "%llu rows, %s returns %llu", (unsigned long long)s->rows,
                   CHK_REF_NAME, (unsigned long long)r->rows);
        } else if (s->hash != r->hash) {
            report(c, 0, name, "0x%016llx, %s returns 0x%016llx: a value is converted or "
                   "folded differently (see the pgcb_sum_* helpers in driver.h)",
                   (unsigned long long)s->hash, CHK_REF_NAME, (unsigned long long)r->hash);
        } else {
            report(c, 1, name, "0x%016llx, equal to %s's", (unsigned long long)s->hash,
                   CHK_REF_NAME);
        }
    }
}

/* The table the built-in queries read: created as sql/benchmark_rows.sql
 * does when missing; 500 rows required. */
static int prepare_builtin(const char *conninfo, char *info, size_t ni, char *err, size_t errlen)
{
    char msg[400];
    PGconn *pc = PQconnectdb(conninfo);
    if (PQstatus(pc) != CONNECTION_OK) {
        pgcb_oneline(msg, sizeof msg, PQerrorMessage(pc));
        snprintf(err, errlen, "cannot connect to the server: %s", msg);
        PQfinish(pc);
        return -1;
    }
    const char *ver = PQparameterStatus(pc, "server_version");
    int created = 0;
    PGresult *r = PQexec(pc, "SELECT to_regclass('benchmark_rows') IS NULL");
    int missing = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
                  strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    if (missing) {
        static const char *const create[] = {
            "CREATE TABLE IF NOT EXISTS benchmark_rows (id int PRIMARY KEY, int_value int, "
            "string_value text, null_value text, bool_value boolean)",
            "INSERT INTO benchmark_rows (id, int_value, string_value, null_value, bool_value) "
            "SELECT i, 1337, 'wat', NULL, false FROM generate_series(1, 500) AS i "
            "ON CONFLICT (id) DO NOTHING",
            "ANALYZE benchmark_rows",
        };
        for (size_t i = 0; i < sizeof create / sizeof create[0]; i++) {
            r = PQexec(pc, create[i]);
            if (PQresultStatus(r) != PGRES_COMMAND_OK) {
                pgcb_oneline(msg, sizeof msg, PQresultErrorMessage(r));
                snprintf(err, errlen, "benchmark_rows is missing and cannot be created: %s "
                         "(create it with: psql -f sql/benchmark_rows.sql)", msg);
                PQclear(r);
                PQfinish(pc);
                return -1;
            }
            PQclear(r);
        }
        created = 1;
    }
    r = PQexec(pc, "SELECT count(*) FROM benchmark_rows");
    long long n = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                      ? atoll(PQgetvalue(r, 0, 0)) : -1;
    if (n < 0)
        pgcb_oneline(msg, sizeof msg, PQresultErrorMessage(r));
    PQclear(r);
    if (n < 500) {
        if (n < 0)
            snprintf(err, errlen, "cannot read benchmark_rows: %s", msg);
        else
            snprintf(err, errlen, "benchmark_rows has %lld rows, the built-in queries need 500: "
                     "recreate it with: psql -f sql/benchmark_rows.sql", n);
        PQfinish(pc);
        return -1;
    }
    snprintf(info, ni, "PostgreSQL %s; benchmark_rows %s", ver ? ver : "?",
             created ? "created (500 rows, as sql/benchmark_rows.sql)" : "present");
    PQfinish(pc);
    return 0;
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Where libpq_sync is: see check.h. Sets *how; NULL if nowhere. */
static char *find_reference(const char *so_path, const char **how)
{
    const char *env = getenv("PGCB_CHECK_REFERENCE");
    if (env && *env) {
        *how = "PGCB_CHECK_REFERENCE";
        return pgcb_xstrdup(env);
    }
    const char *slash = strrchr(so_path, '/');
    char *p = slash ? pgcb_xasprintf("%.*s/%s.so", (int)(slash - so_path), so_path, CHK_REF_NAME)
                    : pgcb_xasprintf("%s.so", CHK_REF_NAME);
    if (file_exists(p)) {
        *how = "next to the checked driver";
        return p;
    }
    free(p);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *s = strrchr(exe, '/');
        if (s) {
            *s = '\0';
            p = pgcb_xasprintf("%s/drivers/%s.so", exe, CHK_REF_NAME);
            if (file_exists(p)) {
                *how = "next to the program";
                return p;
            }
            free(p);
        }
    }
    return NULL;
}

static int finish(struct chk *c)
{
    fprintf(c->out, "%d passed, %d failed\n", c->passed, c->failed);
    fflush(c->out);
    return c->failed ? 1 : 0;
}

static int usage_error(struct chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(struct chk *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(c->out, "error: ");
    vfprintf(c->out, fmt, ap);
    fprintf(c->out, "\n");
    va_end(ap);
    fflush(c->out);
    return 2;
}

int pgcb_check_driver(const char *so_path, const struct pgcb_config *cfg, FILE *out)
{
    struct chk c;
    memset(&c, 0, sizeof c);
    c.out = out;
    c.path = so_path;
    c.timeout_s = PGCB_CHECK_TIMEOUT_S;
    int ret;

    const char *tv = getenv("PGCB_CHECK_TIMEOUT");
    if (tv && *tv) {
        uint64_t u;
        if (pgcb_parse_u64(tv, 1, 3600, &u) != 0)
            return usage_error(&c, "PGCB_CHECK_TIMEOUT: '%s' is not a number of seconds from 1 "
                               "to 3600", tv);
        c.timeout_s = (int)u;
    }
    const char *base = strrchr(so_path, '/');
    base = base ? base + 1 : so_path;
    size_t bl = strlen(base);
    if (bl > 3 && strcmp(base + bl - 3, ".so") == 0)
        bl -= 3;
    snprintf(c.label, sizeof c.label, "%.*s", (int)(bl < 63 ? bl : 63), base);

    struct stat st;
    if (stat(so_path, &st) != 0)
        return usage_error(&c, "driver %s (%s): cannot open: %s (build it with 'make'?)", c.label,
                           so_path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return usage_error(&c, "driver %s (%s): not a regular file", c.label, so_path);

    /* The queries and the connection string. */
    if (cfg) {
        if (cfg->nqueries == 0)
            return usage_error(&c, "%s: no [query.NAME] section", cfg->file);
        c.nq = cfg->nqueries;
        c.q = pgcb_xcalloc(c.nq, sizeof *c.q);
        for (size_t i = 0; i < c.nq; i++)
            c.q[i] = (struct chk_query){cfg->queries[i].name, cfg->queries[i].sql,
                                        cfg->queries[i].rows,
                                        cfg->queries[i].check == PGCB_CHECK_ROWS};
        c.conninfo = cfg->conninfo ? cfg->conninfo : "";
    } else {
        c.nq = sizeof builtin_queries / sizeof builtin_queries[0];
        c.q = pgcb_xcalloc(c.nq, sizeof *c.q);
        memcpy(c.q, builtin_queries, sizeof builtin_queries);
        const char *env = getenv("PGCB_CONNINFO");
        c.conninfo = env ? env : "";
    }
    c.sum = pgcb_xcalloc(c.nq, sizeof *c.sum);
    c.ref = pgcb_xcalloc(c.nq, sizeof *c.ref);
    c.ref_qerr = pgcb_xcalloc(c.nq, sizeof *c.ref_qerr);
    c.expect = pgcb_xcalloc(c.nq, sizeof *c.expect);

    fprintf(out, "Checking %s against the pgclientbench driver ABI %d.%d\n", so_path,
            PGCB_ABI_MAJOR, PGCB_ABI_MINOR);
    fflush(out);

    run_task(&c, task_load, "load", 0);
    if (!passed(&c, "load")) {
        if (c.unloadable) {
            ret = usage_error(&c, "%s cannot be loaded (dlopen failed): nothing to check",
                              so_path);
            goto out;
        }
        ret = finish(&c);
        goto out;
    }
    run_task(&c, task_descriptor, "descriptor", 0);

    /* What the rest needs: a server, a reference. */
    int no_io = (c.caps & PGCB_CAP_NO_IO) != 0, reference = (c.caps & PGCB_CAP_REFERENCE) != 0;
    const char *how = NULL;
    c.ref_path = find_reference(so_path, &how);
    char *redacted = pgcb_conninfo_redact(c.conninfo);
    char qlist[512] = "";
    for (size_t i = 0; i < c.nq; i++)
        snprintf(qlist + strlen(qlist), sizeof qlist - strlen(qlist), "%s%s", i ? ", " : "",
                 c.q[i].name);
    fprintf(out, "Queries: %s (%s); depths 1, 10 and 1000; at most %d s per driver call\n", qlist,
            cfg ? cfg->file : "built in", c.timeout_s);
    if (!c.ref_path && !reference) {
        free(redacted);
        ret = usage_error(&c, "no reference driver: %s.so is neither next to %s nor in the "
                          "program's drivers/ directory; set PGCB_CHECK_REFERENCE=PATH",
                          CHK_REF_NAME, so_path);
        goto out;
    }
    if (c.ref_path && !file_exists(c.ref_path) && !reference) {
        ret = usage_error(&c, "reference driver %s (%s): no such file", c.ref_path, how);
        free(redacted);
        goto out;
    }
    int need_server = !no_io || !reference; /* the driver's own I/O, or the comparison */
    char err[PGCB_ERRLEN], info[512] = "";
    int server_ok = 0;
    if (need_server || c.ref_path) {
        int rc;
        if (cfg) {
            struct pgcb_server_info si;
            rc = pgcb_server_prepare(c.conninfo, cfg->setup, &si, err, sizeof err);
            if (rc == 0)
                snprintf(info, sizeof info, "PostgreSQL %s via %s%s%s", si.version, si.where,
                         cfg->setup ? "; setup " : "", cfg->setup ? cfg->setup : "");
        } else {
            rc = prepare_builtin(c.conninfo, info, sizeof info, err, sizeof err);
        }
        if (rc != 0 && need_server) {
            ret = usage_error(&c, "%s (conninfo \"%s\"%s)", err, redacted,
                              c.conninfo[0] ? "" : ": the PG* variables");
            free(redacted);
            goto out;
        }
        server_ok = rc == 0;
        if (!server_ok)
            snprintf(c.ref_err, sizeof c.ref_err, "no server: %s", err);
    }
    if (server_ok)
        fprintf(out, "Server: %s (conninfo \"%s\"%s)\n", info, redacted,
                c.conninfo[0] ? "" : ": the PG* variables");
    free(redacted);

    if (c.ref_path && server_ok) {
        fprintf(out, "Reference: %s (%s)\n", c.ref_path, how);
        fflush(out);
        run_task(&c, task_reference, "reference", 1);
        if (c.ref_err[0])
            fprintf(out, "Reference: %s\n", c.ref_err);
    } else if (!c.ref_path) {
        snprintf(c.ref_err, sizeof c.ref_err, "%s.so not found", CHK_REF_NAME);
        fprintf(out, "Reference: none (%s)\n", c.ref_err);
    } else {
        fprintf(out, "Reference: %s (%s), not run: %s\n", c.ref_path, how, c.ref_err);
    }
    /* Rows per execution: the config's, else (for a driver that does I/O)
     * the reference's, else the driver's own at depth 1. */
    for (size_t i = 0; i < c.nq; i++) {
        c.expect[i] = c.q[i].rows;
        if (c.expect[i] < 0 && !no_io && c.ref[i][0].have)
            c.expect[i] = (int64_t)c.ref[i][0].rows;
    }

    run_task(&c, task_open, "open", 0);
    run_task(&c, task_options, "options", 0);
    run_task(&c, task_prepare, "prepare", 0);
    for (size_t i = 0; i < c.nq; i++) {
        char what[CHK_NAME];
        snprintf(what, sizeof what, "batch %s", c.q[i].name);
        c.arg_q = i;
        run_task(&c, task_batches, what, 0);
        report_checksums(&c, i);
    }
    run_task(&c, task_errors, "errors", 0);
    if (c.has_params) {
        run_task(&c, task_params, "params", 0);
    } else {
        /* Not a failure: the slot is optional; the runner skips such a
         * driver for parameterized queries. One line, no check. */
        if (c.abi_minor < 1)
            fprintf(out, "SKIP params: the driver has ABI %d.%u; run_batch_params came in ABI "
                    "%d.1: parameterized queries skip it\n", PGCB_ABI_MAJOR, c.abi_minor,
                    PGCB_ABI_MAJOR);
        else
            fprintf(out, "SKIP params: run_batch_params is not set (optional): parameterized "
                    "queries skip the driver\n");
        fflush(out);
    }
    run_task(&c, task_close_clean, "close_clean", 0);
    ret = finish(&c);
out:
    free(c.ref_path);
    free(c.q);
    free(c.sum);
    free(c.ref);
    free(c.ref_qerr);
    free(c.expect);
    free(c.res);
    return ret;
}
