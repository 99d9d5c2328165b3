/*
 * px_loop.c -- the wire proxy's event loop (px_loop.h).
 *
 * A connection has two sides (the client's socket and the upstream's) and
 * two queues: q[WT_TO_SERVER] holds what was read from the client, due at
 * the server half_ns later; q[WT_TO_CLIENT] the reverse. Direction d reads
 * from side d and writes to side 1 - d (WT_TO_SERVER == SIDE_CLIENT == 0).
 * Chunks are the reads' own, never merged or split but by a short write.
 */
#include "px_loop.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "wiretap/wt_count.h"

enum { SIDE_CLIENT = 0, SIDE_SERVER = 1 };

struct px_chunk {
    struct px_chunk *next;
    uint64_t due;
    uint32_t len, off;
    uint8_t counted;          /* counted (and its lateness recorded) before its first write */
    uint8_t data[];
};

struct px_queue {
    struct px_chunk *head, *tail;
    size_t bytes;
};

struct px_conn;
struct px_ep {                /* what an epoll event points at */
    struct px_conn *c;
    int side;
};

struct px_conn {
    struct px_conn *prev, *next;
    int fd[2];
    uint32_t ev[2];           /* the events registered for fd[s] */
    struct px_ep ep[2];
    struct px_queue q[2];     /* [enum wt_dir] */
    uint8_t eof[2];           /* side s sent its end (or hung up) */
    uint8_t shut[2];          /* shutdown(SHUT_WR) done on side s */
    uint8_t blocked[2];       /* q[d]'s head is due but side 1 - d would block */
    uint8_t dead;             /* failed or done: freed at the end of the round */
    uint64_t id;
    struct px_state *st;
    struct wt_conn wc;
};

struct px_state {
    const struct px_opts *o;
    int ep;
    int tfd;                  /* a timerfd when epoll_pwait2 is missing (an older kernel,
                                 valgrind); -1 otherwise */
    uint64_t armed;           /* the due time the timerfd is set to (0: disarmed) */
    struct px_conn *conns;
    uint64_t next_id;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void q_push(struct px_queue *q, struct px_chunk *k)
{
    k->next = NULL;
    if (q->tail)
        q->tail->next = k;
    else
        q->head = k;
    q->tail = k;
    q->bytes += k->len;
}

static void q_pop(struct px_queue *q)
{
    struct px_chunk *k = q->head;
    q->head = k->next;
    if (!q->head)
        q->tail = NULL;
    q->bytes -= k->len;
    free(k);
}

static void q_clear(struct px_queue *q)
{
    while (q->head)
        q_pop(q);
}

/* End connection c at the end of this round; `what` failed with errno err
 * (0: a normal end). A failure is one line in the block. */
static void conn_end(struct px_conn *c, const char *what, int err)
{
    if (c->dead)
        return;
    c->dead = 1;
    if (what) {
        char msg[256];
        snprintf(msg, sizeof msg, "connection %llu: %s: %s", (unsigned long long)c->id, what,
                 strerror(err));
        wt_block_error(c->st->o->blk, 0, msg);
    }
}

static void conn_free(struct px_state *st, struct px_conn *c)
{
    for (int s = 0; s < 2; s++) {
        if (c->fd[s] >= 0) {
            epoll_ctl(st->ep, EPOLL_CTL_DEL, c->fd[s], NULL);
            close(c->fd[s]);
        }
        q_clear(&c->q[s]);
    }
    if (c->prev)
        c->prev->next = c->next;
    else
        st->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    free(c);
}

/* Read what side s has (until it would block, its queue is full, or its
 * end), each read a chunk due half_ns from now. Client bytes are counted
 * as read. */
static void read_side(struct px_conn *c, int s)
{
    static uint8_t buf[1u << 16];
    struct px_queue *q = &c->q[s];
    while (!c->eof[s] && !c->dead && q->bytes < PX_QUEUE_MAX) {
        ssize_t n = read(c->fd[s], buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_end(c, s == SIDE_CLIENT ? "read from the client" : "read from the server",
                         errno);
            return;
        }
        if (n == 0) {
            c->eof[s] = 1;
            return;
        }
        uint64_t now = now_ns();
        struct px_chunk *k = malloc(sizeof *k + (size_t)n);
        if (!k) {
            conn_end(c, "a chunk of the queue", ENOMEM);
            return;
        }
        memcpy(k->data, buf, (size_t)n);
        k->len = (uint32_t)n;
        k->off = 0;
        k->counted = 0;
        k->due = now + c->st->o->half_ns;
        q_push(q, k);
        if (s == SIDE_CLIENT && c->st->o->count)
            wt_conn_feed(&c->wc, WT_TO_SERVER, k->data, k->len);
        if ((size_t)n < sizeof buf)
            return; /* drained: the next read would block */
    }
}

/* Write q[d]'s due chunks to side 1 - d; server bytes are counted as
 * delivered. Then, at the source's end with nothing left, pass the end on. */
static void deliver(struct px_conn *c, int d, uint64_t now)
{
    struct px_queue *q = &c->q[d];
    int to = 1 - d;
    c->blocked[d] = 0;
    while (q->head && q->head->due <= now && !c->dead) {
        struct px_chunk *k = q->head;
        if (!k->counted) {
            /* Counted before it is written: once written, the client may
             * read it, end its job, and the runner read the block -- all
             * before this thread runs again. */
            wt_block_late(c->st->o->blk, now - k->due);
            if (d == WT_TO_CLIENT && c->st->o->count)
                wt_conn_feed(&c->wc, WT_TO_CLIENT, k->data, k->len);
            k->counted = 1;
        }
        ssize_t n = send(c->fd[to], k->data + k->off, k->len - k->off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                c->blocked[d] = 1;
                return;
            }
            conn_end(c, to == SIDE_CLIENT ? "write to the client" : "write to the server", errno);
            return;
        }
        k->off += (uint32_t)n;
        if (k->off < k->len) {
            c->blocked[d] = 1;
            return;
        }
        q_pop(q);
    }
    if (!q->head && c->eof[d] && !c->shut[to] && !c->dead) {
        shutdown(c->fd[to], SHUT_WR);
        c->shut[to] = 1;
    }
}

/* Register what each side waits for now: input while its queue has room,
 * output while a due chunk for it is blocked. */
static void update_events(struct px_conn *c)
{
    for (int s = 0; s < 2; s++) {
        if (c->fd[s] < 0)
            continue;
        uint32_t want = 0;
        if (!c->eof[s] && c->q[s].bytes < PX_QUEUE_MAX)
            want |= EPOLLIN;
        if (c->blocked[1 - s])
            want |= EPOLLOUT;
        if (want != c->ev[s]) {
            struct epoll_event e = {.events = want, .data.ptr = &c->ep[s]};
            if (epoll_ctl(c->st->ep, EPOLL_CTL_MOD, c->fd[s], &e) != 0) {
                conn_end(c, "epoll_ctl", errno);
                return;
            }
            c->ev[s] = want;
        }
    }
}

static void set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* not TCP: ignored */
}

/* Accept every pending client; connect each to the upstream. */
static void accept_all(struct px_state *st)
{
    const struct px_opts *o = st->o;
    for (;;) {
        int cfd = accept4(o->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                char msg[256];
                snprintf(msg, sizeof msg, "accept: %s", strerror(errno));
                wt_block_error(o->blk, 0, msg);
            }
            return;
        }
        __atomic_fetch_add(&o->blk->accepted, 1, __ATOMIC_RELAXED);
        set_nodelay(cfd);
        int ufd = socket(o->up.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (ufd < 0 || connect(ufd, (const struct sockaddr *)&o->up, o->uplen) != 0) {
            char msg[256];
            snprintf(msg, sizeof msg, "the upstream %s refused a connection: %s", o->up_name,
                     strerror(errno));
            wt_block_error(o->blk, 1, msg);
            if (ufd >= 0)
                close(ufd);
            close(cfd);
            continue;
        }
        int fl = fcntl(ufd, F_GETFL);
        if (fl < 0 || fcntl(ufd, F_SETFL, fl | O_NONBLOCK) != 0) {
            char msg[256];
            snprintf(msg, sizeof msg, "fcntl O_NONBLOCK: %s", strerror(errno));
            wt_block_error(o->blk, 0, msg);
            close(ufd);
            close(cfd);
            continue;
        }
        set_nodelay(ufd);
        struct px_conn *c = calloc(1, sizeof *c);
        if (!c) {
            wt_block_error(o->blk, 0, "out of memory for a connection");
            close(ufd);
            close(cfd);
            continue;
        }
        c->st = st;
        c->id = ++st->next_id;
        c->fd[SIDE_CLIENT] = cfd;
        c->fd[SIDE_SERVER] = ufd;
        wt_conn_init(&c->wc, &o->blk->tot);
        c->next = st->conns;
        if (st->conns)
            st->conns->prev = c;
        st->conns = c;
        for (int s = 0; s < 2; s++) {
            c->ep[s].c = c;
            c->ep[s].side = s;
            c->ev[s] = EPOLLIN;
            struct epoll_event e = {.events = EPOLLIN, .data.ptr = &c->ep[s]};
            if (epoll_ctl(st->ep, EPOLL_CTL_ADD, c->fd[s], &e) != 0)
                conn_end(c, "epoll_ctl ADD", errno); /* its sockets closed with it */
        }
    }
}

/* An event on side s of c. */
static void on_event(struct px_conn *c, int s, uint32_t ev)
{
    if (c->dead)
        return;
    if (ev & EPOLLERR) {
        int err = 0;
        socklen_t l = sizeof err;
        getsockopt(c->fd[s], SOL_SOCKET, SO_ERROR, &err, &l);
        conn_end(c, s == SIDE_CLIENT ? "the client's socket" : "the server's socket",
                 err ? err : EIO);
        return;
    }
    if (ev & (EPOLLIN | EPOLLHUP))
        read_side(c, s);
    if ((ev & EPOLLHUP) && !c->dead) {
        /* both ways shut: nothing more can reach side s */
        c->eof[s] = 1;
        q_clear(&c->q[1 - s]);
        c->blocked[1 - s] = 0;
        epoll_ctl(c->st->ep, EPOLL_CTL_DEL, c->fd[s], NULL);
        close(c->fd[s]);
        c->fd[s] = -1;
        c->shut[s] = 1;
    }
    /* EPOLLOUT: deliver() runs for every connection after the events */
}

/* The timer's marker in the epoll set (its address; never dereferenced). */
static struct px_ep timer_ep;

/* Wait for events until `due` (0: none; tsp its relative time): with
 * epoll_pwait2's nanosecond timeout, or, where the kernel (or valgrind)
 * has none, with a timerfd set to `due` in the set. As epoll_wait. */
static int wait_events(struct px_state *st, struct epoll_event *evs, int max,
                       const struct timespec *tsp, uint64_t due)
{
    if (st->tfd < 0) {
        int n = epoll_pwait2(st->ep, evs, max, tsp, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n;
        st->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (st->tfd < 0)
            return -1;
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = &timer_ep};
        if (epoll_ctl(st->ep, EPOLL_CTL_ADD, st->tfd, &e) != 0)
            return -1;
    }
    if (due != st->armed) {
        struct itimerspec its = {{0, 0}, {0, 0}};
        if (due) { /* an absolute time of the monotonic clock */
            its.it_value.tv_sec = (time_t)(due / 1000000000u);
            its.it_value.tv_nsec = (long)(due % 1000000000u);
        }
        if (timerfd_settime(st->tfd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
            return -1;
        st->armed = due;
    }
    return epoll_wait(st->ep, evs, max, due && tsp && !tsp->tv_sec && !tsp->tv_nsec ? 0 : -1);
}

int px_run(const struct px_opts *o, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    struct px_state st = {.o = o, .ep = epoll_create1(EPOLL_CLOEXEC), .tfd = -1};
    if (st.ep < 0) {
        snprintf(err, errlen, "epoll_create1: %s", strerror(errno));
        return -1;
    }
    struct epoll_event le = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(st.ep, EPOLL_CTL_ADD, o->listen_fd, &le) != 0) {
        snprintf(err, errlen, "epoll_ctl on the listening socket: %s", strerror(errno));
        close(st.ep);
        return -1;
    }
    int rc = 0;
    struct epoll_event evs[64];
    uint64_t next_due = 0; /* 0: nothing queued */
    /* A sleeping thread wakes late: on this project's VMs 40-65 us after
     * its timer, even with a timer slack of 1 ns. So the proxy asks to be
     * woken `early` before a chunk is due -- most of its wake-ups' lateness,
     * learnt as it goes (an average of the last ones, 4/5 of it) -- and
     * spins the rest on the clock: a chunk is never written before it is
     * due, and the spin costs the difference between one wake-up's
     * lateness and the average, not the whole lateness. */
    uint64_t late_avg = 0; /* the wake-ups' lateness, an average over about 16 */
    while (!*stop) {
        struct timespec ts, *tsp = NULL;
        uint64_t wake_at = 0;
        if (next_due) {
            uint64_t now = now_ns(), early = late_avg + late_avg / 4;
            wake_at = next_due > now + early ? next_due - early : now;
            uint64_t wait = wake_at - now;
            ts.tv_sec = (time_t)(wait / 1000000000u);
            ts.tv_nsec = (long)(wait % 1000000000u);
            tsp = &ts;
        }
        int n = wait_events(&st, evs, 64, tsp, wake_at);
        if (n == 0 && next_due) {
            /* a timer's wake-up: learn its lateness, then spin to the due time */
            uint64_t woke = now_ns();
            uint64_t late = woke > wake_at ? woke - wake_at : 0;
            if (late > 1000000)
                late = 1000000; /* a deschedule, not the timer's own lateness */
            late_avg = late_avg + late / 16 - late_avg / 16;
            while (woke < next_due)
                woke = now_ns();
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, errlen, "epoll_pwait2: %s", strerror(errno));
            rc = -1;
            break;
        }
        for (int k = 0; k < n; k++) {
            struct px_ep *p = evs[k].data.ptr;
            if (p == &timer_ep) {
                /* drain its count; the deliveries below look at the clock */
                uint64_t ticks;
                ssize_t got = read(st.tfd, &ticks, sizeof ticks);
                (void)got;
            } else if (!p)
                accept_all(&st);
            else
                on_event(p->c, p->side, evs[k].events);
        }
        uint64_t now = now_ns();
        next_due = 0;
        struct px_conn *c = st.conns, *nx;
        for (; c; c = nx) {
            nx = c->next;
            for (int d = 0; d < 2 && !c->dead; d++)
                deliver(c, d, now); /* a full queue that drained is read again by its EPOLLIN */
            if (!c->dead && c->eof[0] && c->eof[1] && !c->q[0].head && !c->q[1].head)
                c->dead = 1; /* both ends passed on: done */
            if (!c->dead)
                update_events(c);
            if (c->dead) {
                conn_free(&st, c);
                continue;
            }
            for (int d = 0; d < 2; d++) {
                struct px_chunk *h = c->q[d].head;
                if (h && !c->blocked[d] && (!next_due || h->due < next_due))
                    next_due = h->due;
            }
        }
    }
    while (st.conns)
        conn_free(&st, st.conns);
    if (st.tfd >= 0)
        close(st.tfd);
    close(st.ep);
    return rc;
}
