/*
 * wproxy.c -- the run's wire proxies (wproxy.h): started with fork and
 * exec, the counter block's descriptor and a pipe for the port it listens
 * on passed across exec (each close-on-exec everywhere else), stopped with
 * SIGTERM.
 */
#include "wproxy.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <libpq-fe.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/procfs.h"
#include "util.h"

#define SLOT(s, t, k) ((((s) * PGCB_TRANSPORT_N) + (size_t)(t)) * PGCB_MAX_RTTS + (k))

/* The TCP host and port of conninfo as "host:port" (hostaddr wins over
 * host, as libpq connects). -1 with why when it names a unix socket or no
 * host at all. */
static int upstream_of(const char *conninfo, char *out, size_t n, char *why, size_t whylen)
{
    char *perr = NULL;
    PQconninfoOption *opts = PQconninfoParse(conninfo ? conninfo : "", &perr);
    if (!opts) {
        snprintf(why, whylen, "%s", perr ? perr : "cannot parse the connection string");
        PQfreemem(perr);
        return -1;
    }
    const char *host = NULL, *addr = NULL, *port = NULL;
    for (PQconninfoOption *o = opts; o->keyword; o++) {
        if (!o->val || !o->val[0])
            continue;
        if (strcmp(o->keyword, "host") == 0)
            host = o->val;
        else if (strcmp(o->keyword, "hostaddr") == 0)
            addr = o->val;
        else if (strcmp(o->keyword, "port") == 0)
            port = o->val;
    }
    const char *h = addr ? addr : host;
    int rc = -1;
    if (!h || h[0] == '/' || h[0] == '@')
        snprintf(why, whylen, "its connection string names %s, not a TCP host",
                 h ? "a unix socket" : "no host");
    else if (strchr(h, ','))
        snprintf(why, whylen, "its connection string names several hosts (%s)", h);
    else {
        snprintf(out, n, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, port ? port : "5432");
        rc = 0;
    }
    PQconninfoFree(opts);
    return rc;
}

/* Does conninfo set hostaddr? */
static int has_hostaddr(const char *conninfo)
{
    PQconninfoOption *opts = PQconninfoParse(conninfo ? conninfo : "", NULL);
    int has = 0;
    for (PQconninfoOption *o = opts; o && o->keyword; o++)
        has |= strcmp(o->keyword, "hostaddr") == 0 && o->val && o->val[0];
    PQconninfoFree(opts);
    return has;
}

/* Start one proxy; -1 with why. */
static int proxy_start(struct pgcb_wproxy *p, const char *exe, char *why, size_t whylen)
{
    p->blk = wt_block_create(&p->blk_fd, why, whylen);
    if (!p->blk)
        return -1;
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        return -1;
    }
    char rtt[32], bfd[16], rfd[16];
    snprintf(rtt, sizeof rtt, "%.6g", p->rtt_ms);
    snprintf(bfd, sizeof bfd, "%d", p->blk_fd);
    snprintf(rfd, sizeof rfd, "%d", pfd[1]);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, whylen, "fork: %s", strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        /* the two descriptors it is given survive exec; nothing else does */
        fcntl(p->blk_fd, F_SETFD, 0);
        fcntl(pfd[1], F_SETFD, 0);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        execl(exe, exe, "--upstream", p->upstream, "--rtt-ms", rtt, "--block-fd", bfd,
              "--ready-fd", rfd, p->count ? (char *)NULL : "--no-count", (char *)NULL);
        fprintf(stderr, "runner: cannot run %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    p->pid = pid;
    /* Its port, or its end: at most 10 s (a hang guard, not a bound). */
    char line[32] = "";
    size_t got = 0;
    struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
    while (got < sizeof line - 1 && !strchr(line, '\n')) {
        int r = poll(&pf, 1, 10000);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        ssize_t n = read(pfd[0], line + got, sizeof line - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        line[got] = '\0';
    }
    close(pfd[0]);
    char *end = NULL;
    long port = strtol(line, &end, 10);
    if (!strchr(line, '\n') || port <= 0 || port > 65535 ||
        __atomic_load_n(&p->blk->magic, __ATOMIC_ACQUIRE) != WT_BLOCK_MAGIC) {
        int st = 0;
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        p->pid = 0;
        snprintf(why, whylen, "the wire proxy %s (upstream %s, rtt %s ms) did not start (%s)",
                 exe, p->upstream, rtt,
                 WIFEXITED(st) ? (WEXITSTATUS(st) == 127 ? "it could not be run"
                                                        : "it exited: see its message above")
                               : "no port within 10 s");
        return -1;
    }
    p->port = (int)port;
    return 0;
}

int pgcb_wproxies_start(struct pgcb_wproxies *w, const struct pgcb_config *cfg,
                        const struct pgcb_connplan *plan, const char *exe, char *err,
                        size_t errlen)
{
    *w = (struct pgcb_wproxies){.nsuites = cfg->nsuites};
    size_t nslots = cfg->nsuites * PGCB_TRANSPORT_N * PGCB_MAX_RTTS;
    int any = 0;
    for (size_t s = 0; s < cfg->nsuites; s++)
        any |= cfg->suites[s].rtt.nrtts > 0;
    if (!any)
        return 0;
    w->conninfo = pgcb_xcalloc(nslots, sizeof *w->conninfo);
    w->proxy_of = pgcb_xcalloc(nslots, sizeof *w->proxy_of);
    for (size_t s = 0; s < cfg->nsuites; s++) {
        const struct pgcb_cfg_suite *su = &cfg->suites[s];
        for (size_t ti = 0; ti < su->ntransports && su->rtt.nrtts; ti++) {
            int t = (int)su->transports[ti];
            const char *base = pgcb_connplan_get(plan, cfg, s, t);
            char up[160], why[400];
            if (upstream_of(base, up, sizeof up, why, sizeof why) != 0) {
                snprintf(err, errlen, "%s:%d: [suite.%s] rtt_ms: the proxy needs the server's "
                         "TCP address: %s", cfg->file, su->rtt.rtt_line, su->name, why);
                pgcb_wproxies_stop(w);
                return -1;
            }
            for (size_t k = 0; k < su->rtt.nrtts; k++) {
                size_t i = 0;
                while (i < w->n && !(strcmp(w->p[i].upstream, up) == 0 &&
                                     w->p[i].rtt_ms == su->rtt.rtts[k]))
                    i++;
                if (i == w->n) {
                    w->p = pgcb_xrealloc(w->p, (w->n + 1) * sizeof *w->p);
                    w->p[i] = (struct pgcb_wproxy){.rtt_ms = su->rtt.rtts[k], .blk_fd = -1,
                                                   .count = cfg->wire};
                    snprintf(w->p[i].upstream, sizeof w->p[i].upstream, "%s", up);
                    w->p[i].base = pgcb_xstrdup(base);
                    w->p[i].direct_ns = w->p[i].proxied_ns = NAN;
                    w->n++;
                    if (proxy_start(&w->p[i], exe, why, sizeof why) != 0) {
                        snprintf(err, errlen, "%s:%d: [suite.%s] rtt_ms: %s", cfg->file,
                                 su->rtt.rtt_line, su->name, why);
                        pgcb_wproxies_stop(w);
                        return -1;
                    }
                }
                /* host and port only: the adapters of other languages pass host
                 * and port on, and not every client knows hostaddr (one in the
                 * suite's string is replaced, never added) */
                char extra[128], merr[400];
                snprintf(extra, sizeof extra, "host=127.0.0.1%s port=%d",
                         has_hostaddr(base) ? " hostaddr=127.0.0.1" : "", w->p[i].port);
                char *ci = pgcb_conninfo_merge(base, extra, merr, sizeof merr);
                if (!ci) {
                    snprintf(err, errlen, "%s:%d: [suite.%s] rtt_ms: %s", cfg->file,
                             su->rtt.rtt_line, su->name, merr);
                    pgcb_wproxies_stop(w);
                    return -1;
                }
                w->conninfo[SLOT(s, t, k)] = ci;
                w->proxy_of[SLOT(s, t, k)] = i;
            }
        }
    }
    return 0;
}

void pgcb_wproxies_pin(struct pgcb_wproxies *w, const char *cpus)
{
    if (!cpus || !cpus[0])
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    const char *p = cpus;
    while (*p) {
        char *end = NULL;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0)
            return;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a)
                return;
        }
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &set);
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return;
    }
    for (size_t i = 0; i < w->n; i++)
        if (w->p[i].pid && sched_setaffinity(w->p[i].pid, sizeof set, &set) == 0)
            snprintf(w->p[i].pinned, sizeof w->p[i].pinned, "%s", cpus);
}

const char *pgcb_wproxies_conninfo(const struct pgcb_wproxies *w, size_t s, int t, size_t k)
{
    if (!w || !w->conninfo || s >= w->nsuites || t < 0 || t >= PGCB_TRANSPORT_N ||
        k >= PGCB_MAX_RTTS)
        return NULL;
    return w->conninfo[SLOT(s, t, k)];
}

struct pgcb_wproxy *pgcb_wproxies_of(const struct pgcb_wproxies *w, size_t s, int t, size_t k)
{
    if (!pgcb_wproxies_conninfo(w, s, t, k))
        return NULL;
    return &w->p[w->proxy_of[SLOT(s, t, k)]];
}

int pgcb_wproxy_cpu_ns(const struct pgcb_wproxy *p, uint64_t *out)
{
    if (!p->pid)
        return -1;
    return pgcb_procfs_schedstat((int)p->pid, out);
}

int pgcb_wproxy_alive(struct pgcb_wproxy *p)
{
    if (!p->pid)
        return 0;
    int st;
    if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
        p->pid = 0;
        return 0;
    }
    return 1;
}

void pgcb_wproxies_stop(struct pgcb_wproxies *w)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->p[i].pid)
            kill(w->p[i].pid, SIGTERM);
    for (size_t i = 0; i < w->n; i++) {
        struct pgcb_wproxy *p = &w->p[i];
        for (int tries = 0; p->pid && tries < 100; tries++) {
            if (waitpid(p->pid, NULL, WNOHANG) == p->pid) {
                p->pid = 0;
                break;
            }
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
        if (p->pid) {
            kill(p->pid, SIGKILL);
            waitpid(p->pid, NULL, 0);
            p->pid = 0;
        }
        wt_block_unmap(p->blk);
        if (p->blk_fd >= 0)
            close(p->blk_fd);
        free(p->base);
    }
    if (w->conninfo) {
        size_t nslots = w->nsuites * PGCB_TRANSPORT_N * PGCB_MAX_RTTS;
        for (size_t k = 0; k < nslots; k++)
            free(w->conninfo[k]);
    }
    free(w->conninfo);
    free(w->proxy_of);
    free(w->p);
    *w = (struct pgcb_wproxies){0};
}

int pgcb_wproxy_exe(char *out, size_t n, char *why, size_t whylen)
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        snprintf(why, whylen, "cannot find the runner's own path (/proc/self/exe): %s",
                 strerror(errno));
        return -1;
    }
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    if ((size_t)snprintf(out, n, "%s/pgcb-proxy", slash ? exe : ".") >= n) {
        snprintf(why, whylen, "the runner's directory is too long a path");
        return -1;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One SELECT 1 on c, its round trip in ns; 0 on failure. */
static uint64_t ping(PGconn *c)
{
    uint64_t t0 = now_ns();
    PGresult *res = PQexec(c, "SELECT 1");
    uint64_t t = now_ns() - t0;
    int ok = PQresultStatus(res) == PGRES_TUPLES_OK;
    PQclear(res);
    return ok ? t : 0;
}

static void probe_one(struct pgcb_wproxy *p)
{
    char ci[160];
    snprintf(ci, sizeof ci, "host=127.0.0.1%s port=%d",
             has_hostaddr(p->base) ? " hostaddr=127.0.0.1" : "", p->port);
    char merr[400];
    char *via = pgcb_conninfo_merge(p->base, ci, merr, sizeof merr);
    PGconn *d = PQconnectdb(p->base), *x = via ? PQconnectdb(via) : NULL;
    free(via);
    uint64_t *a = pgcb_xcalloc(PGCB_PROBE_N, sizeof *a), *b = pgcb_xcalloc(PGCB_PROBE_N, sizeof *b);
    if (PQstatus(d) != CONNECTION_OK || !x || PQstatus(x) != CONNECTION_OK) {
        const char *m = PQstatus(d) != CONNECTION_OK ? PQerrorMessage(d)
                        : x                          ? PQerrorMessage(x) : merr;
        int w = snprintf(p->probe_why, sizeof p->probe_why, "the probe could not connect%s: ",
                         PQstatus(d) != CONNECTION_OK ? " straight to the server"
                                                      : " through the proxy");
        if (w > 0 && (size_t)w < sizeof p->probe_why)
            snprintf(p->probe_why + w, sizeof p->probe_why - (size_t)w, "%.150s", m);
        char *nl = strchr(p->probe_why, '\n');
        if (nl)
            *nl = '\0';
        goto out;
    }
    ping(d); /* the first of each pays for a plan and caches */
    ping(x);
    size_t k = 0;
    for (; k < PGCB_PROBE_N; k++) {
        a[k] = ping(d);
        b[k] = ping(x);
        if (!a[k] || !b[k])
            break;
    }
    if (k < PGCB_PROBE_N) {
        snprintf(p->probe_why, sizeof p->probe_why, "a probe query failed");
        goto out;
    }
    qsort(a, PGCB_PROBE_N, sizeof *a, cmp_u64);
    qsort(b, PGCB_PROBE_N, sizeof *b, cmp_u64);
    p->direct_ns = (double)(a[PGCB_PROBE_N / 2 - 1] + a[PGCB_PROBE_N / 2]) / 2;
    p->proxied_ns = (double)(b[PGCB_PROBE_N / 2 - 1] + b[PGCB_PROBE_N / 2]) / 2;
out:
    free(a);
    free(b);
    PQfinish(d);
    if (x)
        PQfinish(x);
}

void pgcb_wproxies_probe(struct pgcb_wproxies *w)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->p[i].pid)
            probe_one(&w->p[i]);
}
