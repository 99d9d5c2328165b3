/*
 * test_eta.c -- the estimate of the time a run has left (runner/out/eta.c), a
 * pure function of what was measured, on hand-made runs:
 *
 *   - nothing measured: the time floors and warm-ups alone;
 *   - a measured cell whose query floor outlasts its time floor;
 *   - the fallbacks for a cell not measured yet: the same driver elsewhere
 *     (scaled by depth and by how much slower this group is for the drivers
 *     measured in it), the other drivers of the group, the others
 *     elsewhere;
 *   - connection groups and query groups estimated apart;
 *   - the running job (warm-up and order), each driver's overhead per job;
 *   - dropped cells, ended groups, the step count, and an estimate that
 *     goes down to 0 as a simulated run goes on;
 *   - the duration format.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "out/eta.h"

#define MS 1000000ull
#define S 1000000000ull

/* |got - want| <= 1e-6 relative (or 1 ns). */
static void near(double got, double want, int line)
{
    double tol = fabs(want) * 1e-6 + 1;
    if (!(fabs(got - want) <= tol)) {
        print_error("line %d: got %.3f, want %.3f\n", line, got, want);
        fail();
    }
}
#define NEAR(got, want) near((got), (want), __LINE__)

/* ngroups x ndrivers, every group: warm-up 100 ms, 4 orders of >= 1 s and
 * >= 1000 batches, depth 1. */
static void make(struct pgcb_eta *e, size_t ngroups, size_t ndrivers)
{
    pgcb_eta_init(e, ngroups, ndrivers);
    for (size_t g = 0; g < ngroups; g++)
        e->groups[g] = (struct pgcb_eta_group){.warmup = 1, .warmup_ns = 100 * MS,
                                               .time_floor_ns = S, .batch_floor = 1000,
                                               .depth = 1, .norders = 4};
}

static void test_nothing_measured(void **state)
{
    (void)state;
    struct pgcb_eta e;
    make(&e, 2, 3);
    /* 6 cells x (100 ms + 4 x 1 s): t = 0, no overhead known. */
    NEAR(pgcb_eta_left_ns(&e, NULL), 6.0 * (100 * MS + 4 * S));
    NEAR(pgcb_eta_batch_ns(&e, 0, 0, NULL), 0);
    uint64_t done, total;
    pgcb_eta_steps(&e, &done, &total);
    assert_int_equal(total, 6 * 5);
    assert_int_equal(done, 0);
    /* A fixed-operation group: no warm-up, no time floor. */
    e.groups[1] = (struct pgcb_eta_group){.batch_floor = 50, .depth = 1, .norders = 4};
    NEAR(pgcb_eta_left_ns(&e, NULL), 3.0 * (100 * MS + 4 * S));
    pgcb_eta_steps(&e, &done, &total);
    assert_int_equal(total, 3 * 5 + 3 * 4);
    pgcb_eta_free(&e);
}

/* Driver 0 warmed up at 2 ms per batch: its 1000-batch floor (2 s) outlasts
 * the 1 s time floor; the other drivers of the group, never measured, are
 * taken to be as fast (rule 3). */
static void test_query_floor_dominates(void **state)
{
    (void)state;
    struct pgcb_eta e;
    make(&e, 1, 2);
    pgcb_eta_job_done(&e, 0, 0, 1, 100 * MS, 50, 100 * MS); /* 2 ms per batch, no overhead */
    NEAR(pgcb_eta_batch_ns(&e, 0, 0, NULL), 2 * MS);
    NEAR(pgcb_eta_batch_ns(&e, 0, 1, NULL), 2 * MS);
    /* d0: 4 orders x 2 s; d1: warm-up 100 ms + 4 x 2 s. */
    NEAR(pgcb_eta_left_ns(&e, NULL), 4.0 * 2 * S + 100 * MS + 4.0 * 2 * S);
    /* A fast driver: the time floor rules. */
    pgcb_eta_job_done(&e, 0, 1, 1, 100 * MS, 100000, 100 * MS); /* 1 us per batch */
    NEAR(pgcb_eta_left_ns(&e, NULL), 4.0 * 2 * S + 4.0 * S);
    uint64_t done, total;
    pgcb_eta_steps(&e, &done, &total);
    assert_int_equal(done, 2);
    assert_int_equal(total, 10);
    pgcb_eta_free(&e);
}

/* Group 1 has depth 10. Driver 0 measured in both groups, 5x slower per
 * query in group 1 than in group 0; driver 1 measured in group 0 only: its
 * estimate in group 1 is its per-query time there x 10 x 5 (rule 2). */
static void test_group_factor(void **state)
{
    (void)state;
    struct pgcb_eta e;
    make(&e, 2, 3);
    e.groups[1].depth = 10;
    pgcb_eta_job_done(&e, 0, 0, 1, 100 * MS, 1000, 100 * MS); /* 100 us per query */
    pgcb_eta_job_done(&e, 0, 1, 1, 100 * MS, 500, 100 * MS);  /* 200 us per query */
    pgcb_eta_job_done(&e, 1, 0, 1, 100 * MS, 20, 100 * MS);   /* 5 ms per batch of 10 */
    NEAR(pgcb_eta_batch_ns(&e, 1, 0, NULL), 5 * MS);
    NEAR(pgcb_eta_batch_ns(&e, 1, 1, NULL), 200e3 * 10 * 5);
    /* Driver 2, measured nowhere: in group 1 the geometric mean of the
     * drivers measured there (driver 0 alone, rule 3); in group 0 that of
     * drivers 0 and 1 (100 and 200 us). */
    NEAR(pgcb_eta_batch_ns(&e, 1, 2, NULL), 5 * MS);
    NEAR(pgcb_eta_batch_ns(&e, 0, 2, NULL), sqrt(100e3 * 200e3));
    pgcb_eta_free(&e);

    /* Rule 4: group 1 has no measured driver; driver 2 (measured nowhere)
     * gets the geometric mean per-query time of the others x the depth. */
    make(&e, 2, 3);
    e.groups[1].depth = 10;
    pgcb_eta_job_done(&e, 0, 0, 1, 100 * MS, 1000, 100 * MS);
    pgcb_eta_job_done(&e, 0, 1, 1, 100 * MS, 250, 100 * MS); /* 400 us */
    NEAR(pgcb_eta_batch_ns(&e, 1, 2, NULL), sqrt(100e3 * 400e3) * 10);
    NEAR(pgcb_eta_batch_ns(&e, 1, 0, NULL), 100e3 * 10); /* rule 2, factor 1 */
    pgcb_eta_free(&e);
}

/* Connection groups and query groups are never pooled: a driver measured
 * only in query groups (50 us a query) has no estimate in a connection
 * group from them, and the connection group's count floor (not the query
 * floor) is what it has to meet; once a connection group is measured
 * (5 ms a connection), another connection group takes its rate, and the
 * query groups keep theirs. */
static void test_connect_kind(void **state)
{
    (void)state;
    struct pgcb_eta e;
    make(&e, 3, 2); /* group 0: queries; 1 and 2: connection groups */
    for (size_t g = 1; g < 3; g++) {
        e.groups[g].connect = 1;
        e.groups[g].time_floor_ns = 10 * MS;
        e.groups[g].batch_floor = 50;   /* [suite] connections */
    }
    pgcb_eta_job_done(&e, 0, 0, 1, 100 * MS, 2000, 100 * MS); /* 50 us a query */
    pgcb_eta_job_done(&e, 0, 1, 1, 100 * MS, 2000, 100 * MS);
    NEAR(pgcb_eta_batch_ns(&e, 1, 0, NULL), 0); /* not 50 us: nothing of its kind yet */
    NEAR(pgcb_eta_batch_ns(&e, 2, 1, NULL), 0);
    pgcb_eta_job_done(&e, 1, 0, 1, 100 * MS, 20, 100 * MS); /* 5 ms a connection */
    NEAR(pgcb_eta_batch_ns(&e, 1, 0, NULL), 5 * MS);          /* 1. measured */
    NEAR(pgcb_eta_batch_ns(&e, 2, 0, NULL), 5 * MS);          /* 2. its connections */
    NEAR(pgcb_eta_batch_ns(&e, 1, 1, NULL), 5 * MS);          /* 3. the others here */
    NEAR(pgcb_eta_batch_ns(&e, 2, 1, NULL), 5 * MS);          /* 4. the others' connections */
    NEAR(pgcb_eta_batch_ns(&e, 0, 0, NULL), 50e3);            /* the query group unchanged */
    /* An order of a connection group: max(10 ms, 50 x 5 ms) = 250 ms. */
    pgcb_eta_free(&e);
    make(&e, 1, 1);
    e.groups[0] = (struct pgcb_eta_group){.time_floor_ns = 10 * MS, .batch_floor = 50,
                                          .depth = 1, .norders = 4, .connect = 1};
    pgcb_eta_job_done(&e, 0, 0, 0, 250 * MS, 50, 250 * MS); /* one order done, 5 ms each */
    NEAR(pgcb_eta_left_ns(&e, NULL), 3 * 250.0 * MS);
    pgcb_eta_free(&e);
}

/* The running job counts: its batches set the cell's rate, and only what
 * is left of it is added. */
static void test_live_job(void **state)
{
    (void)state;
    struct pgcb_eta e;
    make(&e, 1, 1);
    /* 40 ms into the warm-up: 60 ms of it left, then 4 orders at the time
     * floor (t = 40 ms / 400 = 100 us: 1000 batches take 0.1 s). */
    struct pgcb_eta_live live = {.group = 0, .driver = 0, .warmup = 1, .ns = 40 * MS,
                                 .batches = 400};
    NEAR(pgcb_eta_batch_ns(&e, 0, 0, &live), 100e3);
    NEAR(pgcb_eta_left_ns(&e, &live), 60 * MS + 4.0 * S);
    pgcb_eta_job_done(&e, 0, 0, 1, 100 * MS, 1000, 100 * MS);
    /* Order 1, 300 ms and 3000 batches in: 700 ms of it left. */
    live = (struct pgcb_eta_live){.group = 0, .driver = 0, .ns = 300 * MS, .batches = 3000};
    NEAR(pgcb_eta_left_ns(&e, &live), 700 * MS + 3.0 * S);
    /* A slow order: 2 s in and 500 of 1000 batches done: t = 2.1 s / 1500
     * = 1.4 ms, 500 more batches = 0.7 s; the other 3 orders 1000 x 1.4 ms. */
    live.ns = 2 * S;
    live.batches = 500;
    double t = (100 * MS + 2.0 * S) / 1500.0;
    NEAR(pgcb_eta_batch_ns(&e, 0, 0, &live), t);
    NEAR(pgcb_eta_left_ns(&e, &live), 500 * t + 3 * 1000 * t);
    pgcb_eta_free(&e);
}

/* A job's wall time beyond its timed ns is that driver's overhead per job,
 * added to each job left; a driver without a finished job gets the mean of
 * all. */
static void test_overhead(void **state)
{
    (void)state;
    struct pgcb_eta e;
    make(&e, 1, 2);
    pgcb_eta_job_done(&e, 0, 0, 1, 100 * MS, 1000000, 150 * MS); /* 50 ms overhead */
    /* d0: 4 x (1 s + 50 ms); d1: (100 ms + 50 ms) + 4 x (1 s + 50 ms). */
    NEAR(pgcb_eta_left_ns(&e, NULL), 4.0 * 1050 * MS + 150 * MS + 4.0 * 1050 * MS);
    pgcb_eta_job_done(&e, 0, 1, 1, 100 * MS, 1000000, 110 * MS); /* 10 ms */
    NEAR(pgcb_eta_left_ns(&e, NULL), 4.0 * 1050 * MS + 4.0 * 1010 * MS);
    /* A wall time below the timed ns (clock granularity): no negative
     * overhead. */
    pgcb_eta_job_done(&e, 0, 1, 0, S, 1000000, S - 5);
    NEAR(pgcb_eta_left_ns(&e, NULL), 4.0 * 1050 * MS + 3.0 * 1005 * MS);
    pgcb_eta_free(&e);
}

/* A simulated run of 2 groups x 2 drivers: each job takes what the model
 * says; after each, the estimate is what is left, and 0 at the end. A
 * dropped cell and an ended group count as done. */
static void test_run_to_the_end(void **state)
{
    (void)state;
    struct pgcb_eta e;
    make(&e, 2, 2);
    const double job[2] = {100 * MS, S}; /* warm-up, order: t = 0.5 us, no overhead */
    double total = 2 * 2 * (job[0] + 4 * job[1]), spent = 0, prev = INFINITY;
    for (size_t g = 0; g < 2; g++) {
        for (size_t d = 0; d < 2; d++) {
            pgcb_eta_job_done(&e, g, d, 1, 100 * MS, 200000, 100 * MS);
            spent += job[0];
        }
        for (size_t o = 0; o < 4; o++)
            for (size_t d = 0; d < 2; d++) {
                pgcb_eta_job_done(&e, g, d, 0, S, 2000000, S);
                spent += job[1];
                double left = pgcb_eta_left_ns(&e, NULL);
                NEAR(left, total - spent);
                assert_true(left < prev);
                prev = left;
            }
    }
    NEAR(pgcb_eta_left_ns(&e, NULL), 0);
    uint64_t done, steps;
    pgcb_eta_steps(&e, &done, &steps);
    assert_int_equal(done, 20);
    assert_int_equal(steps, 20);
    pgcb_eta_free(&e);

    make(&e, 2, 2);
    pgcb_eta_drop(&e, 0, 1);                       /* failed: its 5 steps are done */
    pgcb_eta_job_done(&e, 0, 0, 1, 100 * MS, 100000, 100 * MS); /* 1 us per batch */
    pgcb_eta_steps(&e, &done, &steps);
    assert_int_equal(done, 6);
    NEAR(pgcb_eta_left_ns(&e, NULL), 4.0 * S + 2 * (100 * MS + 4.0 * S));
    pgcb_eta_group_done(&e, 0);                    /* decided early */
    pgcb_eta_steps(&e, &done, &steps);
    assert_int_equal(done, 10);
    NEAR(pgcb_eta_left_ns(&e, NULL), 2 * (100 * MS + 4.0 * S));
    /* More orders reported than the group has: capped. */
    for (int i = 0; i < 6; i++)
        pgcb_eta_job_done(&e, 1, 0, 0, S, 10, S);
    assert_int_equal(e.cells[1 * 2 + 0].orders_done, 4);
    pgcb_eta_free(&e);
}

static void test_fmt(void **state)
{
    (void)state;
    static const struct { double ns; const char *want; } cases[] = {
        {0, "0s"}, {-5, "0s"}, {NAN, "0s"}, {0.4e9, "0s"}, {0.5e9, "1s"}, {59.4e9, "59s"},
        {59.6e9, "1m00s"}, {65e9, "1m05s"}, {3599e9, "59m59s"}, {3600e9, "1h00m"},
        {3629e9, "1h00m"}, {3630e9, "1h01m"}, {90780e9, "25h13m"}, {1e30, "100000h00m"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[16];
        pgcb_eta_fmt(buf, sizeof buf, cases[i].ns);
        if (strcmp(buf, cases[i].want) != 0) {
            print_error("%g ns: got %s, want %s\n", cases[i].ns, buf, cases[i].want);
            fail();
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_measured),
        cmocka_unit_test(test_query_floor_dominates),
        cmocka_unit_test(test_group_factor),
        cmocka_unit_test(test_connect_kind),
        cmocka_unit_test(test_live_job),
        cmocka_unit_test(test_overhead),
        cmocka_unit_test(test_run_to_the_end),
        cmocka_unit_test(test_fmt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
