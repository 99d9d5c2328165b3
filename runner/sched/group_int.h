/*
 * group_int.h -- what the files that measure a group share (runner/sched/group.c,
 * group_order.c, cells.c, cells_conc.c, bgload.c). Internal: no other file
 * includes it. What session.c lends them: session_int.h.
 *
 * A group is measured by pgcb_group_run() (group.h) in phases,
 * each a function of its own over one struct pgcb_group_run: set-up; per
 * driver, its host, the query's readiness and the warm-up (group.c); the
 * execution orders, one driver in one order at a time (group_order.c); the
 * figures and checks (cells.c). Everything here runs in the runner's own
 * thread, between a host's jobs, never inside a timed block.
 */
#ifndef PGCB_GROUP_INT_H
#define PGCB_GROUP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "out/eta.h"
#include "hist.h"
#include "host/host.h"
#include "session.h"
#include "wiretap/wt_block.h"

/* Per driver, for the group being measured. */
struct pgcb_gstate {
    uint64_t expect_sum;         /* thread 1's first batch */
    char note[256];              /* the driver's note() of it (host.h) */
    uint64_t batches, rows_bad, sum_bad, cpu_ns;
    uint64_t blocks, overhead_ns, overhead_cpu_ns; /* self-timed: measured orders */
    int threads_disagree;        /* the threads' first checksums differ */
    int check_rows;              /* the rows per batch are known and checked */
    uint64_t srv_cpu_ns, srv_wall_ns; /* the server's CPU time over the measured jobs */
    int srv_known;
    struct pgcb_backend_acc bk;  /* its own backends over the measured jobs (backend.h) */
    /* Noise (issue 13): the measured orders whose job answered, the
     * threads' context switches in them, and the steal time (clock ticks)
     * around each order's job over steal_wall_ns. */
    uint64_t noise_orders, nivcsw, nvcsw, minflt;
    uint64_t steal_cpus, steal_machine, steal_wall_ns, steal_cpu_ns_x; /* x: wall x CPUs */
    uint64_t steal_machine_x;    /* wall x online CPUs */
    int steal_failed;            /* a /proc/stat read failed: steal unknown */
    int failed;                  /* its cell failed: nothing more of it runs in the group */
    /* A concurrency group: the loads' wall time over the measured orders,
     * every thread's summed, and the latest a rate load issued its last
     * query. */
    uint64_t load_wall_ns, late_ns;
    struct pgcb_hist pooled;     /* every measured order's samples (owned) */
    /* A streaming group: the measured reads' times to first row (owned,
     * grown), the rows of the last read, and the driver's idiom. */
    uint64_t *firsts;
    size_t nfirsts, capfirsts;
    uint64_t stream_rows;
    char idiom[PGCB_IDIOM_LEN];
    /* A group at an RTT (issue 41): what its proxy counted over the
     * measured jobs (the differences of its block around each), and the
     * proxy's CPU time over them. wire_jobs: jobs counted. */
    struct wt_totals wire;
    uint64_t wire_cpu_ns;
    int wire_jobs, wire_cpu_lost;
};

/* One group being measured: what its phases share. Set up and freed by
 * pgcb_group_run(); gs and order_hist are owned, the rest points
 * into the session, the config and the result. */
struct pgcb_group_run {
    struct pgcb_session *s;
    struct pgcb_result *r;
    size_t g, q;                  /* the group (r->groups[g]) and its query's index */
    struct pgcb_res_group *gr;
    const struct pgcb_cfg_query *cq;
    const struct pgcb_cfg_suite *su;
    uint32_t nthreads;
    int check_sum;                /* each driver's checksum is checked (within it) */
    int cross_sum;                /* the drivers' checksums are compared */
    struct pgcb_eta_group budget; /* pgcb_group_budget()'s */
    struct pgcb_job base;         /* what every job of the group shares */
    struct pgcb_host_tick tick;   /* what each wait on a host does (pgcb_session_tick) */
    struct pgcb_host_env env;     /* what its hosts are told of the run (pgcb_session_env) */
    struct pgcb_gstate *gs;       /* one per driver of s */
    struct pgcb_hist order_hist;  /* one order's samples of one driver (scratch) */
    int stopped;                  /* the run was asked to stop (*s->stop) */
    struct pgcb_wproxy *proxy;    /* the group's wire proxy (an rtt_ms group); NULL: none */
    struct wt_block proxy_at_start; /* its block before the group's first measured job */
    size_t complete_orders;       /* the orders every driver finished */
};

/* ---- cells_conc.c ------------------------------------------------------ */

/* A concurrency group's figures of cell c (after pgcb_cells_figures):
 * throughput, time per query, client busy share, bottleneck. server_ncpus:
 * the server's CPUs (0: unknown). */
void pgcb_cells_conc_figures(struct pgcb_res_cell *c, const struct pgcb_gstate *gs,
                             uint32_t threads, int server_ncpus);

/* An order's figure of a concurrency group from its threads' records: 1e9 /
 * the instances' summed throughput (each its queries over its loads' wall
 * time); NAN when nothing completed. */
double pgcb_cells_conc_order(const struct pgcb_host_shared *sh, uint32_t nthreads);

/* ---- group.c ------------------------------------------------------------ */

/* [bench] respawn = order: driver d's host started anew and warmed up
 * before one of its orders (the cell's memory peak kept over its
 * processes). Returns 0, or -1 when the cell failed (gs[d].failed, the
 * reason in the cell). */
int pgcb_group_respawn(struct pgcb_group_run *gx, size_t d);

/* ---- group_order.c ------------------------------------------------------ */

/* Run sh->job (set by the caller) on driver d's host. A host that crashes
 * or hangs fails the cell (and is said so on stderr at once, its server
 * sessions ended); it is restarted for the next group. Returns 0 when the
 * host answered. */
int pgcb_group_run_job(struct pgcb_group_run *gx, size_t d);

/* The execution orders of the group (a driver that failed before runs
 * none), until every one ran, the run is stopped (gx->stopped) or, with
 * until = decided, every pair is decided after a whole set. */
void pgcb_group_orders(struct pgcb_group_run *gx);

#endif
