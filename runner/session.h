/*
 * session.h -- the drivers of a run, opened and prepared, and the
 * measurement of groups by pinned worker threads.
 *
 * A session owns the loaded drivers, their connections (one per driver and
 * measuring thread) and statements, and the worker threads. It is built
 * from a loaded config (which must outlive it) and fills the groups of a
 * struct pgcb_result, which the caller owns.
 */
#ifndef PGCB_SESSION_H
#define PGCB_SESSION_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "hist.h"
#include "loader.h"
#include "result.h"

/* Samples per block buffer: a block is at most this many batches. */
#define PGCB_BLOCK_MAX 65536
/* Target duration of one block, between budget checks and progress. */
#define PGCB_BLOCK_TARGET_NS 10000000ull

struct pgcb_sdriver {
    const struct pgcb_cfg_driver *cfg;
    struct pgcb_loaded ld;
    struct pgcb_option *opts;     /* the driver's INI keys, pointing into cfg */
    size_t nopts;
    struct pgcb_conn **conns;     /* per measuring thread; NULL while not connected */
    struct pgcb_stmt **stmts;     /* [thread * nqueries + query]; NULL if not prepared */
    uint64_t *prime_rows;         /* per query: rows of one execution at prime */
};

struct pgcb_worker;

/* What the workers do next; written by the coordinating thread between the
 * start and end barriers only. */
enum pgcb_job_kind { PGCB_JOB_WARMUP, PGCB_JOB_MEASURE, PGCB_JOB_EXIT };

struct pgcb_job {
    enum pgcb_job_kind kind;
    size_t driver, query, group, order;
    uint32_t depth;
    uint32_t nthreads;            /* workers 0..nthreads-1 take part */
    uint64_t expect_rows;         /* per batch */
    uint64_t time_floor_ns;       /* per thread */
    uint64_t batch_floor;         /* per thread */
};

struct pgcb_session {
    const struct pgcb_config *cfg;
    struct pgcb_sdriver *drivers;
    size_t ndrivers;
    size_t **orders;              /* orders[o][k]: driver index */
    size_t norders;
    uint32_t nthreads;            /* the most threads any suite uses */
    int quiet;                    /* no progress line */
    volatile sig_atomic_t *stop;  /* set by a signal handler: stop between blocks */
    const struct pgcb_result *progress_result; /* for the progress line */

    struct pgcb_worker *workers;  /* nthreads, started by pgcb_session_open */
    int workers_started;
    pthread_barrier_t start, end;
    struct pgcb_job job;
};

/* Load every driver of cfg and check its INI keys against its options.
 * Returns 0, or -1 with one line in err (naming file:line or the driver). */
int pgcb_session_load(struct pgcb_session *s, const struct pgcb_config *cfg, char *err,
                      size_t errlen);

/* Open a connection per driver and thread, prepare every query a suite
 * uses, prime each statement once (checking its row count against [query]
 * rows), and start the worker threads, each pinned to its CPU. Returns 0, or
 * -1 with one line in err. */
int pgcb_session_open(struct pgcb_session *s, char *err, size_t errlen);

/* The CPU measuring thread t is pinned to. */
int pgcb_session_thread_cpu(const struct pgcb_session *s, uint32_t t);

/* Fill r->drivers and r->orders from the session. */
void pgcb_session_describe(const struct pgcb_session *s, struct pgcb_result *r);

/* Measure group `g` of r (suite/query/depth/threads set, cells zeroed):
 * warm-up, then every execution order. Fills every cell. Returns 0, or 1 if
 * the run was asked to stop (cells not reached stay NOT_RUN). */
int pgcb_session_run_group(struct pgcb_session *s, struct pgcb_result *r, size_t g,
                           size_t query_index);

/* Stop the workers, close every connection, unload the drivers. */
void pgcb_session_free(struct pgcb_session *s);

#endif
