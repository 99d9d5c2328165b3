/* pl_loop.c -- see pl_loop.h: one load over a pool, in the calling thread. */
#include "pl_loop.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

enum { PL_IDLE = 0, PL_BUSY = 1, PL_DEAD = 2 };

static inline uint64_t pl_clock(const struct pl_loop *l, clockid_t id)
{
    if (l->sys)
        return l->sys->clock(l->sys->ctx, (int)id);
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int pl_loop_init(struct pl_loop *l, uint32_t nconns, int with_fds, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    l->epfd = -1;
    l->nconns = nconns;
    l->idle = calloc(nconns, sizeof *l->idle);
    l->t0 = calloc(nconns, sizeof *l->t0);
    l->sums = calloc(nconns, sizeof *l->sums);
    l->armed = calloc(nconns, sizeof *l->armed);
    l->state = calloc(nconns, sizeof *l->state);
    if (with_fds)
        l->evs = calloc(nconns, sizeof(struct epoll_event));
    if (!l->idle || !l->t0 || !l->sums || !l->armed || !l->state || (with_fds && !l->evs)) {
        pl_loop_free(l);
        snprintf(err, errlen, "out of memory for a pool of %u connections", nconns);
        return PGCB_ERR_NOMEM;
    }
    if (with_fds && (l->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        snprintf(err, errlen, "epoll_create1: %s", strerror(errno));
        pl_loop_free(l);
        return PGCB_ERR_IO;
    }
    return PGCB_OK;
}

void pl_loop_free(struct pl_loop *l)
{
    if (l->epfd >= 0)
        close(l->epfd);
    free(l->evs);
    free(l->idle);
    free(l->t0);
    free(l->sums);
    free(l->armed);
    free(l->state);
    free(l->fifo);
    memset(l, 0, sizeof *l);
    l->epfd = -1;
}

int pl_load_check(const struct pgcb_load *load, const struct pgcb_load_out *out, char *err,
                  size_t errlen)
{
    const char *why = NULL;
    if (!load->stmt)
        why = "no statement";
    else if (load->concurrency < 1)
        why = "concurrency must be at least 1";
    else if (load->mode != PGCB_LOAD_CLOSED && load->mode != PGCB_LOAD_RATE)
        why = "mode must be PGCB_LOAD_CLOSED or PGCB_LOAD_RATE";
    else if (load->mode == PGCB_LOAD_RATE && !(isfinite(load->rate) && load->rate > 0))
        why = "a rate load needs a rate above 0 queries per second";
    else if (load->max_queries < 1)
        why = "max_queries must be at least 1";
    else if (!out->latency_ns || !out->sums)
        why = "no latency or sum array";
    if (!why)
        return PGCB_OK;
    snprintf(err, errlen, "run_load: %s", why);
    return PGCB_ERR_CONFIG;
}

/* The state of one pl_loop_run. */
struct pl_run {
    struct pl_loop *l;
    const struct pl_ops *ops;
    void *pool;
    const struct pgcb_load *load;
    struct pgcb_load_out *out;
    uint64_t next_index;      /* params row of the next query started on a connection */
    uint32_t inflight;        /* issued, not completed: on a connection or in the FIFO */
    uint32_t qhead, qlen;     /* the FIFO */
    uint64_t last_end;
    int rc;                   /* the first failure */
    char *err;
    size_t errlen;
};

static void pl_fail(struct pl_run *r, uint32_t k, int rc, const char *why)
{
    struct pl_loop *l = r->l;
    if (rc != PGCB_ERR_QUERY) {
        l->state[k] = PL_DEAD;
        if (l->epfd >= 0 && l->armed[k]) {
            epoll_ctl(l->epfd, EPOLL_CTL_DEL, r->ops->fd(r->pool, k), NULL);
            l->armed[k] = 0;
        }
    } else {
        l->state[k] = PL_IDLE;
        l->idle[l->nidle++] = k;
    }
    /* No more queries start: those waiting for a connection are dropped. */
    r->inflight -= r->qlen;
    r->qlen = 0;
    if (r->rc != PGCB_OK)
        return;
    r->rc = rc;
    /* A query error's message starts with its SQLSTATE (driver.h). */
    uint32_t pid = r->ops->backend_pid ? r->ops->backend_pid(r->pool, k) : 0;
    char who[80] = "";
    if (pid)
        snprintf(who, sizeof who, "server process %u", pid);
    if (rc == PGCB_ERR_QUERY)
        snprintf(r->err, r->errlen, "%s (connection %u of %u%s%s)", why, k + 1, l->nconns,
                 pid ? ", " : "", who);
    else
        snprintf(r->err, r->errlen, "connection %u of %u%s%s%s: %s", k + 1, l->nconns,
                 pid ? " (" : "", who, pid ? ")" : "", why);
}

/* Make the epoll set wait for what connection k waits for. */
static void pl_arm(struct pl_run *r, uint32_t k)
{
    struct pl_loop *l = r->l;
    if (l->epfd < 0 || l->state[k] == PL_DEAD)
        return;
    unsigned want = r->ops->events(r->pool, k);
    unsigned ev = (want & PL_READ ? EPOLLIN : 0u) | (want & PL_WRITE ? EPOLLOUT : 0u);
    if (ev == l->armed[k])
        return;
    struct epoll_event e = {.events = ev, .data.u32 = k};
    int op = l->armed[k] ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(l->epfd, op, r->ops->fd(r->pool, k), &e) == 0)
        l->armed[k] = ev;
}

/* A query done on connection k at `now`. */
static void pl_record(struct pl_run *r, uint32_t k, uint64_t now)
{
    struct pgcb_load_out *o = r->out;
    uint64_t lat = now > r->l->t0[k] ? now - r->l->t0[k] : 1;
    o->latency_ns[o->done] = lat;
    o->sums[o->done] = r->l->sums[k];
    o->done++;
    r->inflight--;
    r->last_end = now;
}

/* Connection k is free at `now`: start the queries waiting in the FIFO on
 * it (several when they complete at once, as without I/O), then leave it
 * idle. */
static void pl_dispatch(struct pl_run *r, uint32_t k, uint64_t *now)
{
    struct pl_loop *l = r->l;
    char why[PGCB_ERRLEN];
    while (r->qlen && r->rc == PGCB_OK) {
        uint64_t t = l->fifo[r->qhead];
        r->qhead = (r->qhead + 1) % l->fifo_cap;
        r->qlen--;
        int complete = 0;
        l->t0[k] = t;
        l->sums[k] = (struct pgcb_sum){0, 0};
        l->state[k] = PL_BUSY;
        int rc = r->ops->issue(r->pool, k, r->next_index++, r->load, &complete, &l->sums[k],
                               why, sizeof why);
        if (rc != PGCB_OK) {
            r->inflight--;
            pl_fail(r, k, rc, why);
            return;
        }
        if (!complete) {
            pl_arm(r, k);
            return;
        }
        *now = pl_clock(l, CLOCK_MONOTONIC);
        pl_record(r, k, *now);
    }
    l->state[k] = PL_IDLE;
    l->idle[l->nidle++] = k;
}

/* Issue what the schedule allows at `now`; returns 1 while more queries are
 * to come, 0 when the load issues no more. *due_out: the next query's due
 * time when it is not due yet (rate), else 0. */
static int pl_issue(struct pl_run *r, uint64_t start, uint64_t now, uint64_t *due_out)
{
    const struct pgcb_load *ld = r->load;
    struct pl_loop *l = r->l;
    const double period = ld->mode == PGCB_LOAD_RATE ? 1e9 / ld->rate : 0;
    *due_out = 0;
    while (r->rc == PGCB_OK) {
        uint64_t issued = r->next_index + r->qlen;
        if (issued >= ld->max_queries)
            return 0;
        uint64_t due = period > 0 ? start + (uint64_t)(period * (double)issued) : now;
        if (due - start >= ld->duration_ns && issued >= ld->min_queries)
            return 0;
        if (due > now) {
            *due_out = due;
            return 1;
        }
        if (r->inflight >= ld->concurrency)
            return 1;
        if (period > 0)
            r->out->late_ns = now - due;
        r->inflight++;
        l->fifo[(r->qhead + r->qlen) % l->fifo_cap] = due;
        r->qlen++;
        while (r->qlen && l->nidle && r->rc == PGCB_OK) {
            uint32_t k = l->idle[--l->nidle];
            pl_dispatch(r, k, &now); /* now: the last completion, without I/O */
        }
    }
    return 0;
}

/* Wait for sockets until `until` (0: for ever); without sockets, sleep. */
static int pl_wait(struct pl_loop *l, uint64_t until, char *err, size_t errlen)
{
    static _Atomic int no_pwait2;
    if (l->sys)
        return l->sys->wait(l->sys->ctx, l, until, err, errlen);
    if (l->epfd < 0) {
        if (until) {
            struct timespec ts = {.tv_sec = (time_t)(until / 1000000000ull),
                                  .tv_nsec = (long)(until % 1000000000ull)};
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        }
        return 0;
    }
    int n;
    for (;;) {
        uint64_t now = until ? pl_clock(l, CLOCK_MONOTONIC) : 0;
        uint64_t left = until > now ? until - now : 0;
        if (until && left == 0)
            return 0;
        if (!atomic_load_explicit(&no_pwait2, memory_order_relaxed)) {
            struct timespec ts = {.tv_sec = (time_t)(left / 1000000000ull),
                                  .tv_nsec = (long)(left % 1000000000ull)};
            n = epoll_pwait2(l->epfd, l->evs, (int)l->nconns, until ? &ts : NULL, NULL);
            if (n < 0 && errno == ENOSYS) {
                atomic_store(&no_pwait2, 1);
                continue;
            }
        } else {
            n = epoll_wait(l->epfd, l->evs, (int)l->nconns,
                           until ? (int)((left + 999999) / 1000000) : -1);
        }
        if (n >= 0)
            return n;
        if (errno != EINTR) {
            snprintf(err, errlen, "epoll_wait: %s", strerror(errno));
            return -1;
        }
    }
}

/* The sockets' events: advance each connection, record what completed. */
static void pl_events(struct pl_run *r, int n)
{
    struct pl_loop *l = r->l;
    const struct epoll_event *evs = l->evs;
    char why[PGCB_ERRLEN];
    for (int i = 0; i < n; i++) {
        uint32_t k = evs[i].data.u32;
        if (l->state[k] == PL_DEAD)
            continue;
        unsigned got = (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR) ? PL_READ : 0u) |
                       (evs[i].events & EPOLLOUT ? PL_WRITE : 0u);
        int busy = l->state[k] == PL_BUSY, complete = 0;
        struct pgcb_sum idle_sum = {0, 0};
        int rc = r->ops->advance(r->pool, k, got, &complete, busy ? &l->sums[k] : &idle_sum,
                                 why, sizeof why);
        if (rc != PGCB_OK) {
            if (busy) {
                r->inflight--;
            } else { /* an idle connection broke: off the idle stack */
                for (uint32_t j = 0; j < l->nidle; j++)
                    if (l->idle[j] == k) {
                        l->idle[j] = l->idle[--l->nidle];
                        break;
                    }
                if (rc == PGCB_ERR_QUERY)
                    rc = PGCB_ERR_PROTOCOL; /* no query of ours to have failed */
            }
            pl_fail(r, k, rc, why);
            continue;
        }
        if (busy && complete) {
            uint64_t now = pl_clock(l, CLOCK_MONOTONIC);
            pl_record(r, k, now);
            pl_dispatch(r, k, &now);
        }
        pl_arm(r, k);
    }
}

int pl_loop_run(struct pl_loop *l, const struct pl_ops *ops, void *pool,
                const struct pgcb_load *load, struct pgcb_load_out *out, char *err,
                size_t errlen)
{
    int rc = pl_load_check(load, out, err, errlen);
    if (rc != PGCB_OK)
        return rc;
    out->done = 0;
    out->wall_ns = out->cpu_ns = out->late_ns = 0;
    if (load->concurrency > l->fifo_cap) {
        uint64_t *f = realloc(l->fifo, load->concurrency * sizeof *f);
        if (!f) {
            snprintf(err, errlen, "out of memory for %u queries in flight", load->concurrency);
            return PGCB_ERR_NOMEM;
        }
        l->fifo = f;
        l->fifo_cap = load->concurrency;
    }
    struct pl_run r = {.l = l, .ops = ops, .pool = pool, .load = load, .out = out,
                       .rc = PGCB_OK, .err = err, .errlen = errlen};
    l->nidle = 0;
    for (uint32_t k = l->nconns; k-- > 0;) {
        l->state[k] = PL_IDLE;
        l->idle[l->nidle++] = k;
        pl_arm(&r, k);
    }
    const uint64_t cpu0 = pl_clock(l, CLOCK_THREAD_CPUTIME_ID);
    const uint64_t start = pl_clock(l, CLOCK_MONOTONIC);
    uint64_t now = start;
    r.last_end = start;
    for (;;) {
        uint64_t due = 0;
        int more = pl_issue(&r, start, now, &due);
        if (r.inflight == 0 && (!more || r.rc != PGCB_OK))
            break;
        /* A rate load waits for the next due time too, unless every slot
         * is taken (then a completion frees one first). */
        uint64_t until = more && r.rc == PGCB_OK && r.inflight < load->concurrency ? due : 0;
        int n = pl_wait(l, until, err, errlen);
        if (n < 0) {
            r.rc = PGCB_ERR_IO;
            break;
        }
        pl_events(&r, n);
        now = pl_clock(l, CLOCK_MONOTONIC);
    }
    out->wall_ns = r.last_end - start;
    out->cpu_ns = pl_clock(l, CLOCK_THREAD_CPUTIME_ID) - cpu0;
    return r.rc;
}
