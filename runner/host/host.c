/*
 * host.c -- see host.h. The parent's side (fork, run a job under a watchdog,
 * stop); the host process itself is host_child.c (and host_conn.c).
 */
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"
#include "sys/sysinfo.h"
#include "util.h"
#include "host_child.h"

/* Watchdog poll interval. */
/* How often the runner looks at a working host's heartbeats and the stop
 * flag (a signal interrupts the wait at once): rarely, so that the runner
 * wakes up rarely (it runs away from the measuring CPUs, main.c). */
#define HOST_TICK_MS 200

/* ---- the parent's side ------------------------------------------------- */

int pgcb_host_map(struct pgcb_host *h, uint32_t nthreads, size_t nqueries)
{
    size_t head = sizeof(struct pgcb_host_shared);
    size_t threads = nthreads * sizeof(struct pgcb_host_thread);
    size_t queries = (nqueries ? nqueries : 1) * sizeof(struct pgcb_host_query);
    size_t counts = (size_t)nthreads * PGCB_HIST_NCOUNTS * sizeof(uint64_t);
    size_t size = head + threads + queries + counts;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    *h = (struct pgcb_host){.cmd_fd = -1, .reply_fd = -1};
    if (p == MAP_FAILED)
        return -1;
    h->sh = p;
    h->sh_size = size;
    char *base = p;
    h->sh->threads = (struct pgcb_host_thread *)(base + head);
    h->sh->queries = (struct pgcb_host_query *)(base + head + threads);
    uint64_t *c = (uint64_t *)(base + head + threads + queries);
    for (uint32_t t = 0; t < nthreads; t++)
        pgcb_hist_init_in(&h->sh->threads[t].hist, c + (size_t)t * PGCB_HIST_NCOUNTS);
    return 0;
}

void pgcb_host_unmap(struct pgcb_host *h)
{
    if (h->sh)
        munmap(h->sh, h->sh_size);
    h->sh = NULL;
}

static void close_fds(struct pgcb_host *h)
{
    if (h->cmd_fd >= 0)
        close(h->cmd_fd);
    if (h->reply_fd >= 0)
        close(h->reply_fd);
    h->cmd_fd = h->reply_fd = -1;
}

/* Reap the host (it is dead or dying) and describe how it ended. */
static void reap(struct pgcb_host *h, char *why, size_t n)
{
    int st = 0;
    pid_t r;
    do
        r = waitpid(h->pid, &st, 0);
    while (r < 0 && errno == EINTR);
    if (why) {
        if (r == h->pid && WIFSIGNALED(st))
            snprintf(why, n, "crashed (%s: %s)", sigabbrev_np(WTERMSIG(st)) ?
                     sigabbrev_np(WTERMSIG(st)) : "signal", strsignal(WTERMSIG(st)));
        else if (r == h->pid && WIFEXITED(st))
            snprintf(why, n, "exited with status %d", WEXITSTATUS(st));
        else
            snprintf(why, n, "vanished");
        /* SIG prefix: "SIGSEGV", as people say it. */
        if (strncmp(why, "crashed (", 9) == 0 && strncmp(why + 9, "SIG", 3) != 0) {
            char tmp[256];
            snprintf(tmp, sizeof tmp, "crashed (SIG%s", why + 9);
            snprintf(why, n, "%s", tmp);
        }
    }
    h->pid = 0;
    h->conninfo = NULL;
    close_fds(h);
}

static void kill_host(struct pgcb_host *h)
{
    if (h->pid > 0) {
        kill(h->pid, SIGKILL);
        reap(h, NULL, 0);
    }
}

/* Wait for one byte from the host, watching heartbeats: `beats` are the
 * heartbeats to watch (n of them); tick (host.h) at each wake-up without
 * an answer. Returns the byte, or -1 with err set (the host is gone then). */
static int wait_reply(struct pgcb_host *h, const struct pgcb_host_env *env,
                      _Atomic uint64_t *const *beats, size_t n, const struct pgcb_host_tick *tick,
                      char *err, size_t errlen)
{
    uint64_t timeout_ns = env->cfg->batch_timeout_ms * 1000000ull;
    uint64_t all_done = 0; /* when every watched thread had finished; 0: not yet */
    for (;;) {
        struct pollfd p = {.fd = h->reply_fd, .events = POLLIN};
        int r = poll(&p, 1, HOST_TICK_MS);
        if (r > 0) {
            char c;
            ssize_t got = read(h->reply_fd, &c, 1);
            if (got == 1)
                return (unsigned char)c;
            if (got < 0 && errno == EINTR)
                continue;
            char why[256];
            reap(h, why, sizeof why);
            snprintf(err, errlen, "%s", why);
            return -1;
        }
        if (r < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            kill_host(h);
            return -1;
        }
        if (env->stop && *env->stop)
            atomic_store(&h->sh->stop, 1);
        if (tick && tick->fn)
            tick->fn(tick->arg);
        /* A thread that finished its job (done, failed, or floors met early)
         * set its heartbeat to 0: it is no longer watched, the others are.
         * When every one has finished, the host must answer within the
         * timeout too. */
        uint64_t now = pgcb_now_ns();
        size_t finished = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t beat = atomic_load(beats[i]);
            finished += beat == 0;
            if (beat && now > beat && now - beat > timeout_ns) {
                kill_host(h);
                snprintf(err, errlen, "timed out: no progress for %llu ms ([bench] "
                         "batch_timeout_ms): the driver or the server stopped answering; its "
                         "process was killed", (unsigned long long)env->cfg->batch_timeout_ms);
                return -1;
            }
        }
        if (n > 0 && finished == n) {
            if (!all_done)
                all_done = now;
            else if (now - all_done > timeout_ns) {
                kill_host(h);
                snprintf(err, errlen, "timed out: every thread finished, but the driver's "
                         "process did not answer for %llu ms ([bench] batch_timeout_ms); it was "
                         "killed", (unsigned long long)env->cfg->batch_timeout_ms);
                return -1;
            }
        }
    }
}

/* The tag of host `host` of runner `runner`, or "" when the user set an
 * application_name of their own (PGAPPNAME; in the conninfo it would win
 * over PGAPPNAME anyway): theirs is kept, and nothing can be found by it. */
void pgcb_host_tag(char *buf, size_t n, pid_t runner, pid_t host)
{
    const char *app = getenv("PGAPPNAME");
    if (app && *app && strncmp(app, "pgcb-", 5) != 0)
        buf[0] = '\0';
    else
        snprintf(buf, n, "pgcb-%d-%d", (int)runner, (int)host);
}

int pgcb_host_start(struct pgcb_host *h, const struct pgcb_host_env *env,
                    const struct pgcb_host_spec *spec, int check_rows,
                    const struct pgcb_host_tick *tick, char *err, size_t errlen)
{
    int cmd[2], reply[2];
    if (pipe2(cmd, O_CLOEXEC) != 0 || pipe2(reply, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    atomic_store(&h->sh->stop, 0);
    atomic_store(&h->sh->bg_stop, 0);
    atomic_store(&h->sh->heartbeat_ns, pgcb_now_ns());
    h->sh->err[0] = '\0';
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(cmd[0]), close(cmd[1]), close(reply[0]), close(reply[1]);
        return -1;
    }
    if (pid == 0) {
        close(cmd[1]);
        close(reply[0]);
        /* The other hosts' pipes must not stay open here. */
        if (env->close_others)
            env->close_others(env->arg, h);
        pgcb_host_child_main(h, env, spec, check_rows, cmd[0], reply[1]);
    }
    close(cmd[0]);
    close(reply[1]);
    h->pid = pid;
    h->conninfo = spec->conninfo;
    h->pool = spec->pool;
    pgcb_host_tag(h->tag, sizeof h->tag, getpid(), pid);
    h->cmd_fd = cmd[1];
    h->reply_fd = reply[0];
    _Atomic uint64_t *beat = &h->sh->heartbeat_ns;
    char why[256];
    int c = wait_reply(h, env, &beat, 1, tick, why, sizeof why);
    if (c == 'R')
        return 0;
    if (c == 'F') {
        snprintf(err, errlen, "%s", h->sh->err);
        reap(h, NULL, 0);
    } else if (c >= 0) {
        snprintf(err, errlen, "driver host answered '%c' at start", c);
        kill_host(h);
    } else {
        snprintf(err, errlen, "%s %s %s while connecting and preparing", spec->role,
                 spec->drv.name, why);
    }
    return -1;
}

int pgcb_host_send(struct pgcb_host *h, const struct pgcb_host_env *env, char *err,
                   size_t errlen)
{
    uint32_t n = h->sh->job.nthreads;
    uint64_t now = pgcb_now_ns();
    for (uint32_t t = 0; t < n; t++) {
        atomic_store(&h->sh->threads[t].heartbeat_ns, now);
        atomic_store(&h->sh->threads[t].live_ns, 0);
        atomic_store(&h->sh->threads[t].live_batches, 0);
    }
    atomic_store(&h->sh->stop, env->stop && *env->stop ? 1 : 0);
    atomic_store(&h->sh->bg_stop, 0);
    char c = 'J';
    if (write(h->cmd_fd, &c, 1) != 1) {
        char why[256];
        reap(h, why, sizeof why);
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    return 0;
}

int pgcb_host_run(struct pgcb_host *h, const struct pgcb_host_env *env,
                  const struct pgcb_host_tick *tick, char *err, size_t errlen)
{
    if (pgcb_host_send(h, env, err, errlen) != 0)
        return -1;
    return pgcb_host_wait(h, env, tick, err, errlen);
}

int pgcb_host_wait(struct pgcb_host *h, const struct pgcb_host_env *env,
                   const struct pgcb_host_tick *tick, char *err, size_t errlen)
{
    uint32_t n = h->sh->job.nthreads;
    _Atomic uint64_t *beats[PGCB_MAX_THREADS];
    for (uint32_t t = 0; t < n; t++)
        beats[t] = &h->sh->threads[t].heartbeat_ns;
    int r = wait_reply(h, env, beats, n, tick, err, errlen);
    if (r == 'D')
        return 0;
    if (r >= 0) {
        snprintf(err, errlen, "driver host answered '%c'", r);
        kill_host(h);
    }
    return -1;
}

void pgcb_host_stop(struct pgcb_host *h)
{
    if (h->pid <= 0)
        return;
    char c = 'X';
    if (write(h->cmd_fd, &c, 1) == 1) {
        /* Up to 5 s to close its connections and exit. */
        for (int i = 0; i < 100; i++) {
            int st;
            pid_t r = waitpid(h->pid, &st, WNOHANG);
            if (r == h->pid) {
                h->pid = 0;
                h->conninfo = NULL;
                close_fds(h);
                return;
            }
            usleep(50000);
        }
    }
    kill_host(h);
}

