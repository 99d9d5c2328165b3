/*
 * test_pl_loop.c -- lib/pgload/pl_loop.c, the scheduler under
 * libpq_pipeline's, rawwire's and null's loads, checked exactly: fake
 * connections whose queries take a scripted service time, a clock the test
 * moves (struct pl_sys), and the loop's own epoll set over eventfds (so that
 * pl_arm's epoll_ctl is the real one; the test's wait says which connection
 * got what). Every latency, the wall time and the lateness are whole
 * nanoseconds of the fake clock, so a busy machine cannot move them.
 *
 * Checked: closed loops over fewer connections than queries in flight (a
 * query's wait for a connection is part of its latency); an open loop at a
 * rate, on schedule and overloaded (latency from the due time, lateness from
 * the issue); the stop rule (duration, min_queries, max_queries); and every
 * failure path (an issue that fails, a query error, an idle connection
 * that breaks, a wait that fails, a bad load), each with its exact message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pgload/pl_loop.h"

#define NMAX 4
#define QMAX 64

/* The fake pool and its clock. */
struct fake {
    uint64_t now;                 /* the clock, ns */
    uint64_t cpu;                 /* the thread CPU clock, ns */
    uint32_t nconns;
    int fds[NMAX];
    int busy[NMAX];
    uint64_t done_at[NMAX];       /* busy: when its query's reply is in */
    uint64_t index_of[NMAX];      /* busy: its query's index */
    uint64_t svc[QMAX];           /* service time of query i (0: svc_default) */
    uint64_t svc_default;
    uint64_t issued_at[QMAX];     /* when query i was issued on a connection */
    int issues;
    int64_t fail_issue;           /* the query index whose issue fails (-1: none) */
    int64_t fail_query;           /* the query index whose reply is an error (-1: none) */
    int idle_break;               /* a connection that gets an event while idle (-1: none) */
    int wait_fails;               /* the wait fails */
};

static uint64_t fk_clock(void *ctx, int id)
{
    struct fake *f = ctx;
    return id == CLOCK_THREAD_CPUTIME_ID ? f->cpu : f->now;
}

static int fk_wait(void *ctx, struct pl_loop *l, uint64_t until, char *err, size_t errlen)
{
    struct fake *f = ctx;
    if (f->wait_fails) {
        snprintf(err, errlen, "epoll_wait: Bad file descriptor");
        return -1;
    }
    uint64_t first = 0;
    for (uint32_t k = 0; k < f->nconns; k++)
        if (f->busy[k] && (!first || f->done_at[k] < first))
            first = f->done_at[k];
    if (!first && !until) {
        snprintf(err, errlen, "test: the loop waits for ever with nothing in flight");
        return -1;
    }
    if (until && (!first || until < first)) {
        if (until > f->now)
            f->now = until;
        return 0;
    }
    f->now = first;
    struct epoll_event *evs = l->evs;
    int n = 0;
    for (uint32_t k = 0; k < f->nconns; k++)
        if (f->busy[k] && f->done_at[k] == first)
            evs[n++] = (struct epoll_event){.events = EPOLLIN, .data.u32 = k};
    if (f->idle_break >= 0 && !f->busy[f->idle_break])
        evs[n++] = (struct epoll_event){.events = EPOLLIN, .data.u32 = (uint32_t)f->idle_break};
    return n;
}

static int fk_issue(void *pool, uint32_t k, uint64_t index, const struct pgcb_load *load,
                    int *complete, struct pgcb_sum *sum, char *err, size_t errlen)
{
    (void)load;
    (void)sum;
    struct fake *f = pool;
    assert_false(f->busy[k]);
    assert_true(index < QMAX);
    f->issues++;
    if ((int64_t)index == f->fail_issue) {
        snprintf(err, errlen, "could not send: Broken pipe");
        return PGCB_ERR_IO;
    }
    f->busy[k] = 1;
    f->index_of[k] = index;
    f->issued_at[index] = f->now;
    f->done_at[k] = f->now + (f->svc[index] ? f->svc[index] : f->svc_default);
    *complete = 0;
    return PGCB_OK;
}

static int fk_advance(void *pool, uint32_t k, unsigned got, int *complete, struct pgcb_sum *sum,
                      char *err, size_t errlen)
{
    struct fake *f = pool;
    assert_int_equal(got, PL_READ);
    if (!f->busy[k]) {
        snprintf(err, errlen, "unexpected message 'N' while idle");
        return PGCB_ERR_QUERY;
    }
    if (f->now < f->done_at[k])
        return PGCB_OK;
    f->busy[k] = 0;
    if ((int64_t)f->index_of[k] == f->fail_query) {
        snprintf(err, errlen, "22012: division by zero");
        return PGCB_ERR_QUERY;
    }
    /* The fold names the query: hash = its index + 1, rows = 7. */
    *sum = (struct pgcb_sum){f->index_of[k] + 1, 7};
    *complete = 1;
    return PGCB_OK;
}

static unsigned fk_events(void *pool, uint32_t k)
{
    (void)pool;
    (void)k;
    return PL_READ;
}

static int fk_fd(void *pool, uint32_t k)
{
    return ((struct fake *)pool)->fds[k];
}

static uint32_t fk_pid(void *pool, uint32_t k)
{
    (void)pool;
    return 100 + k;
}

static const struct pl_ops fk_ops = {fk_issue, fk_advance, fk_events, fk_fd, fk_pid};

/* A run's fixture: the fake, its loop, the load and its out arrays. */
struct rig {
    struct fake f;
    struct pl_sys sys;
    struct pl_loop l;
    struct pgcb_load load;
    struct pgcb_load_out out;
    uint64_t lat[QMAX];
    struct pgcb_sum sums[QMAX];
    char err[PGCB_ERRLEN];
};

static void rig_init(struct rig *r, uint32_t nconns, uint32_t mode, uint32_t concurrency,
                     double rate, uint64_t duration_ns, uint64_t min_q, uint32_t max_q)
{
    memset(r, 0, sizeof *r);
    r->f.now = 1000;
    r->f.nconns = nconns;
    r->f.fail_issue = r->f.fail_query = -1;
    r->f.idle_break = -1;
    for (uint32_t k = 0; k < nconns; k++)
        assert_true((r->f.fds[k] = eventfd(0, EFD_CLOEXEC)) >= 0);
    assert_int_equal(pl_loop_init(&r->l, nconns, 1, r->err, sizeof r->err), PGCB_OK);
    r->sys = (struct pl_sys){fk_clock, fk_wait, &r->f};
    r->l.sys = &r->sys;
    r->load = (struct pgcb_load){.stmt = (struct pgcb_stmt *)&r->f, .mode = mode,
                                 .concurrency = concurrency, .rate = rate,
                                 .duration_ns = duration_ns, .min_queries = min_q,
                                 .max_queries = max_q};
    r->out = (struct pgcb_load_out){.latency_ns = r->lat, .sums = r->sums};
}

static int rig_run(struct rig *r)
{
    return pl_loop_run(&r->l, &fk_ops, &r->f, &r->load, &r->out, r->err, sizeof r->err);
}

static void rig_free(struct rig *r)
{
    pl_loop_free(&r->l);
    for (uint32_t k = 0; k < r->f.nconns; k++)
        close(r->f.fds[k]);
}

/* The completed queries, in completion order: their index (from the fold)
 * and latency. */
static void expect_done(const struct rig *r, const uint64_t *index, const uint64_t *lat,
                        uint32_t n)
{
    assert_int_equal(r->out.done, n);
    for (uint32_t i = 0; i < n; i++) {
        print_message("  query %u: index %lu latency %lu\n", i,
                      (unsigned long)(r->sums[i].hash - 1), (unsigned long)r->lat[i]);
        assert_int_equal(r->sums[i].hash, index[i] + 1);
        assert_int_equal(r->sums[i].rows, 7);
        assert_int_equal(r->lat[i], lat[i]);
    }
}

/* Closed loops: 3 in flight over 2 connections, 100 ns each. The third
 * query of each round waits 100 ns for a connection, and that wait is its
 * latency's: 200 ns. */
static void test_closed_fifo(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, 2, PGCB_LOAD_CLOSED, 3, 0, UINT64_MAX / 2, 0, 6);
    r.f.svc_default = 100;
    assert_int_equal(rig_run(&r), PGCB_OK);
    const uint64_t idx[] = {0, 1, 2, 3, 4, 5}, lat[] = {100, 100, 200, 100, 200, 100};
    expect_done(&r, idx, lat, 6);
    /* q2 went on a connection when q0's freed it; q4 when q2's did. */
    assert_int_equal(r.f.issued_at[2], 1100);
    assert_int_equal(r.f.issued_at[4], 1200);
    assert_int_equal(r.out.wall_ns, 300);
    assert_int_equal(r.out.late_ns, 0);
    rig_free(&r);
}

/* An open loop at 1,000,000 queries/s (one due every 1000 ns) that the pool
 * keeps up with: each query issued at its due time, 500 ns each, never
 * late; 10 queries fit in 10 us. */
static void test_rate_on_schedule(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, 2, PGCB_LOAD_RATE, 2, 1e6, 10000, 0, QMAX);
    r.f.svc_default = 500;
    assert_int_equal(rig_run(&r), PGCB_OK);
    uint64_t idx[10], lat[10];
    for (int i = 0; i < 10; i++) {
        idx[i] = (uint64_t)i;
        lat[i] = 500;
        assert_int_equal(r.f.issued_at[i], 1000 + 1000 * (uint64_t)i);
    }
    expect_done(&r, idx, lat, 10);
    assert_int_equal(r.out.late_ns, 0);
    assert_int_equal(r.out.wall_ns, 9500);
    rig_free(&r);
}

/* Overloaded: due every 1000 ns, 3000 ns each on one connection, 2 in
 * flight at most. Latency counts from each query's due time, not from when
 * the loop got to it (wrk2's answer to coordinated omission): 3000, 5000,
 * 7000 ... and the last query was issued 7000 ns behind its schedule. */
static void test_rate_overloaded(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, 1, PGCB_LOAD_RATE, 2, 1e6, 6000, 0, QMAX);
    r.f.svc_default = 3000;
    assert_int_equal(rig_run(&r), PGCB_OK);
    const uint64_t idx[] = {0, 1, 2, 3, 4, 5};
    const uint64_t lat[] = {3000, 5000, 7000, 9000, 11000, 13000};
    expect_done(&r, idx, lat, 6);
    assert_int_equal(r.out.late_ns, 7000);
    assert_int_equal(r.out.wall_ns, 18000);
    rig_free(&r);
}

/* The stop rule: past the duration, min_queries still counts; max_queries
 * caps both. */
static void test_stop_rule(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, 1, PGCB_LOAD_CLOSED, 1, 0, 150, 5, QMAX);
    r.f.svc_default = 100;
    assert_int_equal(rig_run(&r), PGCB_OK);
    assert_int_equal(r.out.done, 5);
    assert_int_equal(r.out.wall_ns, 500);
    rig_free(&r);

    rig_init(&r, 1, PGCB_LOAD_CLOSED, 1, 0, 150, 0, QMAX);
    r.f.svc_default = 100;
    assert_int_equal(rig_run(&r), PGCB_OK);
    assert_int_equal(r.out.done, 2); /* issued at 0 and 100 ns; 200 >= 150 */
    rig_free(&r);

    rig_init(&r, 2, PGCB_LOAD_CLOSED, 2, 0, UINT64_MAX / 2, 10, 3);
    r.f.svc_default = 100;
    assert_int_equal(rig_run(&r), PGCB_OK);
    assert_int_equal(r.out.done, 3);
    assert_int_equal(r.f.issues, 3);
    rig_free(&r);
}

/* An issue that fails: the load issues no more, the query in flight on the
 * other connection finishes and is counted, the message names the
 * connection and its server process. */
static void test_issue_fails(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, 2, PGCB_LOAD_CLOSED, 2, 0, UINT64_MAX / 2, 0, QMAX);
    r.f.svc[0] = 300;
    r.f.svc_default = 100;
    r.f.fail_issue = 2;
    assert_int_equal(rig_run(&r), PGCB_ERR_IO);
    assert_string_equal(r.err, "connection 2 of 2 (server process 101): could not send: Broken pipe");
    const uint64_t idx[] = {1, 0}, lat[] = {100, 300};
    expect_done(&r, idx, lat, 2);
    assert_int_equal(r.f.issues, 3);
    rig_free(&r);
}

/* A query error: PGCB_ERR_QUERY with the SQLSTATE first, the connection and
 * its server process after; the queries before it counted, none after. */
static void test_query_error(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, 2, PGCB_LOAD_CLOSED, 2, 0, UINT64_MAX / 2, 0, QMAX);
    r.f.svc_default = 100;
    r.f.fail_query = 1;
    assert_int_equal(rig_run(&r), PGCB_ERR_QUERY);
    assert_string_equal(r.err, "22012: division by zero (connection 2 of 2, server process 101)");
    const uint64_t idx[] = {0}, lat[] = {100};
    expect_done(&r, idx, lat, 1);
    assert_int_equal(r.f.issues, 2);
    rig_free(&r);
}

/* An idle connection that gets a message: no query of ours failed, so it
 * is a protocol failure of that connection. */
static void test_idle_breaks(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, 2, PGCB_LOAD_CLOSED, 1, 0, UINT64_MAX / 2, 0, QMAX);
    r.f.svc_default = 100;
    r.f.idle_break = 1;
    assert_int_equal(rig_run(&r), PGCB_ERR_PROTOCOL);
    assert_string_equal(r.err, "connection 2 of 2 (server process 101): unexpected message 'N' "
                               "while idle");
    assert_int_equal(r.out.done, 1);
    rig_free(&r);
}

/* The wait fails: PGCB_ERR_IO with its message. */
static void test_wait_fails(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, 1, PGCB_LOAD_CLOSED, 1, 0, UINT64_MAX / 2, 0, QMAX);
    r.f.svc_default = 100;
    r.f.wait_fails = 1;
    assert_int_equal(rig_run(&r), PGCB_ERR_IO);
    assert_string_equal(r.err, "epoll_wait: Bad file descriptor");
    assert_int_equal(r.out.done, 0);
    rig_free(&r);
}

/* A bad load: refused before anything is issued. */
static void test_bad_load(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, 1, PGCB_LOAD_CLOSED, 0, 0, 1000, 0, QMAX);
    assert_int_equal(rig_run(&r), PGCB_ERR_CONFIG);
    assert_string_equal(r.err, "run_load: concurrency must be at least 1");
    r.load.concurrency = 1;
    r.load.mode = PGCB_LOAD_RATE;
    assert_int_equal(rig_run(&r), PGCB_ERR_CONFIG);
    assert_string_equal(r.err, "run_load: a rate load needs a rate above 0 queries per second");
    r.load.mode = 9;
    assert_int_equal(rig_run(&r), PGCB_ERR_CONFIG);
    assert_string_equal(r.err, "run_load: mode must be PGCB_LOAD_CLOSED or PGCB_LOAD_RATE");
    r.load.mode = PGCB_LOAD_CLOSED;
    r.load.max_queries = 0;
    assert_int_equal(rig_run(&r), PGCB_ERR_CONFIG);
    assert_string_equal(r.err, "run_load: max_queries must be at least 1");
    r.load.max_queries = QMAX;
    r.out.sums = NULL;
    assert_int_equal(rig_run(&r), PGCB_ERR_CONFIG);
    assert_string_equal(r.err, "run_load: no latency or sum array");
    r.out.sums = r.sums;
    r.load.stmt = NULL;
    assert_int_equal(rig_run(&r), PGCB_ERR_CONFIG);
    assert_string_equal(r.err, "run_load: no statement");
    assert_int_equal(r.f.issues, 0);
    rig_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_fifo),     cmocka_unit_test(test_rate_on_schedule),
        cmocka_unit_test(test_rate_overloaded), cmocka_unit_test(test_stop_rule),
        cmocka_unit_test(test_issue_fails),     cmocka_unit_test(test_query_error),
        cmocka_unit_test(test_idle_breaks),     cmocka_unit_test(test_wait_fails),
        cmocka_unit_test(test_bad_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
