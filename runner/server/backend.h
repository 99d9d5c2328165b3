/*
 * backend.h -- the server side of one driver: the CPU time and context
 * switches of its own backends, the server processes that serve its host's
 * connections, read from their /proc entries (procfs.h).
 *
 * The session finds a host's backends once it has started (connected every
 * thread), and again after each warm-up of a group it was kept for: the pids pg_stat_activity lists under the host's tag
 * (application_name, host.h; server.h pgcb_server_tagged_conns), checked
 * here to be postgres processes, children of the postmaster that srvcpu.h
 * found. Then it reads them just before and just after each measured order
 * (the runner's process, between jobs: never in a timed loop) and adds the
 * differences up per group and driver.
 *
 * Resolution: user and system time are clock ticks (10 ms at USER_HZ 100),
 * each difference exact to within a tick per backend; the total is the
 * exact schedstat run time when every backend has one. Context switches are
 * exact counts. Nothing here allocates.
 */
#ifndef PGCB_BACKEND_H
#define PGCB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "result.h"

/* A host's backends, or why they are unknown. */
/* The most backends a set holds: threads x a concurrency suite's pool. */
#define PGCB_MAX_BACKENDS 1024

struct pgcb_backend_set {
    int pids[PGCB_MAX_BACKENDS];
    size_t n;                 /* 0: unknown (why says why) */
    int postmaster;           /* their parent */
    char why[256];
};

/* One reading of a set, summed over its backends. */
struct pgcb_backend_sample {
    uint64_t utime, stime;    /* clock ticks */
    uint64_t run_ns;          /* schedstat, when run_exact */
    int run_exact;            /* every backend had one (and one thread) */
    uint64_t voluntary, involuntary;
};

/* The sums over a group's measured orders for one driver. */
struct pgcb_backend_acc {
    struct pgcb_backend_sample sum;
    size_t orders;            /* differences added */
    uint32_t pids;            /* backends of the last difference */
    int lost;                 /* a reading failed: the figures are unknown */
    char why[256];            /* then: why */
};

/* Fill *set with pids[0..n-1] (n as pg_stat_activity counted them) for a
 * host of `expected` connections, served by `postmaster` (0: the server does
 * not run here). Returns 0, or -1 with set->n = 0 and one line in set->why:
 * the server is elsewhere, the count is not `expected`, a pid is not a
 * postgres child of the postmaster. */
int pgcb_backend_set_init(struct pgcb_backend_set *set, const int *pids, size_t n,
                          size_t expected, int postmaster);

/* The set unknown, for `why` (printf-style). */
void pgcb_backend_set_unknown(struct pgcb_backend_set *set, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Read every backend of a known set. Returns 0, or -1 with one line in why
 * (n bytes) when one is gone or no longer the postmaster's child. */
int pgcb_backend_read(const struct pgcb_backend_set *set, struct pgcb_backend_sample *out,
                      char *why, size_t n);

/* Add the difference of two readings of `set` to acc (a counter that went
 * back marks it lost). */
void pgcb_backend_add(struct pgcb_backend_acc *acc, const struct pgcb_backend_set *set,
                      const struct pgcb_backend_sample *before,
                      const struct pgcb_backend_sample *after);

/* Mark acc lost, for `why`, unless it already is. */
void pgcb_backend_lose(struct pgcb_backend_acc *acc, const char *why);

/* The cell's figures from acc over `queries` queries: known when at least
 * one difference was added, none was lost and queries > 0; else NAN with
 * out->why = a copy of `why` (set_why: the host's set's reason, used when
 * acc has none of its own; NULL: nothing to say). out owns why. */
void pgcb_backend_figures(const struct pgcb_backend_acc *acc, uint64_t queries,
                          const char *set_why, struct pgcb_res_backend *out);

#endif
