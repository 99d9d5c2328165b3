/*
 * pl_loop.h -- the event loop of a load (ABI 1.5 run_load) over a pool of
 * connections in the calling thread, shared by the C drivers that run one
 * (libpq_pipeline, rawwire, null): the schedule (closed loops, or an open
 * loop at a fixed arrival rate), the wait of a query for a free connection,
 * the timing of each query, the stop rule of struct pgcb_load, and one
 * epoll set over the connections' sockets. The driver says how a query is
 * started and read on one connection (struct pl_ops); the loop never
 * touches a connection otherwise.
 *
 * A query is "in flight" from its issue (closed: when its loop asks for
 * it; rate: when it is due) until its reply is completely read: while every
 * connection is busy it waits in the loop's FIFO, and that wait is part of
 * its latency. One clock read per completed query: its end is the issue
 * time of the query that takes its connection next.
 *
 * Ownership: a struct pl_loop belongs to its pool (the driver's struct
 * pgcb_conn); pl_loop_init allocates its arrays and epoll descriptor,
 * pl_loop_free releases them. pl_loop_run allocates only when a load asks
 * for a higher concurrency than any before (the FIFO), never per query.
 */
#ifndef PL_LOOP_H
#define PL_LOOP_H

#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

/* Events a connection waits for (pl_ops.events) or got (pl_ops.advance). */
#define PL_READ 1u
#define PL_WRITE 2u

/* How the loop drives one connection k (0 <= k < nconns) of the pool `pool`
 * (the driver's, passed back as it was given). Every call may write err
 * (PGCB_ERRLEN) on failure. */
struct pl_ops {
    /* Start query `index` (binding load->params row `index`, if any) on
     * connection k, which is idle. Sets *complete when the query is done
     * already (a driver without I/O: *sum folded); else the loop waits for
     * the socket's events (`events`) and calls advance. PGCB_OK or the
     * failure's status. */
    int (*issue)(void *pool, uint32_t k, uint64_t index, const struct pgcb_load *load,
                 int *complete, struct pgcb_sum *sum, char *err, size_t errlen);
    /* Connection k's socket got `got` (PL_READ / PL_WRITE): send or read what
     * can be, without blocking. Sets *complete when the reply to its query
     * has been completely read and folded into *sum (zeroed by the loop at
     * issue). PGCB_OK, or the failure's status: PGCB_ERR_QUERY leaves the
     * connection usable (its query is over), any other status means it is
     * not. */
    int (*advance)(void *pool, uint32_t k, unsigned got, int *complete, struct pgcb_sum *sum,
                   char *err, size_t errlen);
    /* What connection k waits for now: PL_READ, | PL_WRITE while it has
     * output it could not send yet. */
    unsigned (*events)(void *pool, uint32_t k);
    /* Its socket, or -1 for a driver without I/O (its issue completes). */
    int (*fd)(void *pool, uint32_t k);
    /* Its server process ID for messages (0: unknown). Optional (NULL). */
    uint32_t (*backend_pid)(void *pool, uint32_t k);
};

/* The system a loop runs on: NULL in struct pl_loop (pl_loop_init's
 * default) is the real one -- clock_gettime, and epoll over the
 * connections' sockets. A test sets its own (tests/unit/test_pl_loop.c): a
 * clock it moves, and a wait that writes the events its fake connections
 * got into l->evs (struct epoll_event, data.u32 = k) and returns their
 * count, so that the schedule is checked exactly, nanosecond for
 * nanosecond, on a busy machine too. */
struct pl_loop;
struct pl_sys {
    uint64_t (*clock)(void *ctx, int clock_id);   /* CLOCK_MONOTONIC or CLOCK_THREAD_CPUTIME_ID */
    /* Wait until `until` (0: until an event); n >= 0 events in l->evs, or -1
     * with err. */
    int (*wait)(void *ctx, struct pl_loop *l, uint64_t until, char *err, size_t errlen);
    void *ctx;
};

struct pl_loop {
    const struct pl_sys *sys; /* NULL: the real clock and epoll */
    uint32_t nconns;
    int epfd;                 /* -1 for a pool without sockets */
    void *evs;                /* struct epoll_event[nconns] */
    uint32_t *idle;           /* a stack of idle connections */
    uint32_t nidle;
    uint64_t *t0;             /* per connection: its query's issue (due) time, ns */
    struct pgcb_sum *sums;    /* per connection: its query's fold */
    unsigned *armed;          /* per connection: the events registered, 0: none */
    int *state;               /* per connection: idle, busy, or failed (never used again
                                 in this load) */
    uint64_t *fifo;           /* issue (due) times of queries waiting for a connection */
    uint32_t fifo_cap;
};

/* Prepare the loop of a pool of nconns connections (>= 1). PGCB_OK, or
 * PGCB_ERR_NOMEM / PGCB_ERR_IO (epoll_create1) with err. */
int pl_loop_init(struct pl_loop *l, uint32_t nconns, int with_fds, char *err, size_t errlen);

/* Release what pl_loop_init allocated; accepts a zeroed loop. */
void pl_loop_free(struct pl_loop *l);

/* Run `load` over the pool as struct pgcb_load says (driver.h), filling
 * *out; returns PGCB_OK or the first failure's status with err ("connection
 * K of N (server process P): ..."). On a failure the loop issues no more,
 * lets every query in flight finish (or fail), and drops those still
 * waiting for a connection (not counted in out->done). */
int pl_loop_run(struct pl_loop *l, const struct pl_ops *ops, void *pool,
                const struct pgcb_load *load, struct pgcb_load_out *out, char *err,
                size_t errlen);

/* Check a load's fields (concurrency, mode, rate, max_queries, arrays):
 * PGCB_OK, or PGCB_ERR_CONFIG with err. pl_loop_run calls it. */
int pl_load_check(const struct pgcb_load *load, const struct pgcb_load_out *out, char *err,
                  size_t errlen);

#endif /* PL_LOOP_H */
