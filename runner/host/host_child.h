/*
 * host_child.h -- the host process's inside, shared by its files (internal to
 * runner/host*.c; nothing else includes it): host_child.c runs the measuring
 * threads and the timed blocks, host_conn.c opens a thread's connection and
 * prepares its statements, draws the parameters of a block and sets up bulk
 * queries. host.c (the parent's side) forks and calls pgcb_host_child_main.
 */
#ifndef PGCB_HOST_CHILD_H
#define PGCB_HOST_CHILD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host.h"
#include "measure.h"

/* Parameter rows drawn per block at most (a block is cut to fit), and the
 * most arena bytes they may take (one batch always fits). */
#define HOST_PARAM_ROWS 65536
#define HOST_PARAM_BYTES (8u << 20)

struct pgcb_hchild;

struct pgcb_hworker {
    struct pgcb_hchild *c;
    uint32_t index;
    int cpu;
    pthread_t tid;
    int pin_rc;
    char pin_err[160];
    uint64_t *samples;          /* PGCB_BLOCK_MAX */
    struct pgcb_sum *sums;      /* PGCB_BLOCK_MAX, for a self-timed driver; else NULL */
    uint64_t firsts[PGCB_STREAM_BLOCK_MAX]; /* a streaming block's times to first row */
    double est_ns;              /* ns per batch, for block sizing */
    uint64_t block_ns;          /* a block's target duration (PGCB_BLOCK_TARGET*_NS) */
    /* Parameters of the current block (grown per job, outside the loop). */
    const char **values;
    int *lengths;
    char *arena;
    size_t param_rows;          /* rows the arrays hold */
    size_t arena_size;
    struct pgcb_rng rng;
};

struct pgcb_hchild {
    const struct pgcb_host_env *env; /* the run, as the caller told it (host.h) */
    struct pgcb_host_driver hd;      /* the driver (the spec's) */
    struct pgcb_host_shared *sh;
    const char *role;
    const char *conninfo;       /* every connection's (the spec's) */
    uint32_t pool;              /* the spec's: > 0, each thread's connection is a pool */
    uint32_t nthreads;
    struct pgcb_conn **conns;   /* per thread; NULL when not connected */
    struct pgcb_stmt **stmts;   /* [thread * nqueries + query] */
    struct pgcb_stmt **txn;     /* [thread * 2]: BEGIN, COMMIT; NULL if no suite needs them */
    struct pgcb_stmt **bulk;    /* [(thread * nqueries + query) * BULK_NSTMTS]: a bulk query's
                                   read-back, source and TRUNCATE statements (bulk.h) */
    struct pgcb_hworker *workers;
    pthread_barrier_t start, end;
    int exiting;
};

enum { BULK_READ_BACK = 0, BULK_SOURCE, BULK_TRUNCATE, BULK_NSTMTS };

/* host.c: the application_name tag of host `host` of runner `runner` into
 * buf, or "" when PGAPPNAME is the user's own (nothing then tells the
 * backends apart). */
void pgcb_host_tag(char *buf, size_t n, pid_t runner, pid_t host);

/* The host process after fork(): never returns (exits with its status). */
void pgcb_host_child_main(struct pgcb_host *h, const struct pgcb_host_env *env,
                          const struct pgcb_host_spec *spec, int check_rows, int cmd_fd,
                          int reply_fd) __attribute__((noreturn));

/* host_child.c, for host_load.c: a failed job step (the thread's rc and
 * err set, its connection closed), and the phase told to the driver (0, or
 * -1 with the thread failed). */
void pgcb_hchild_failed(struct pgcb_hworker *w, struct pgcb_host_thread *ht,
                        const struct pgcb_job *job, int rc, const char *when, const char *why);
int pgcb_hchild_phase(struct pgcb_hworker *w, struct pgcb_host_thread *ht,
                      const struct pgcb_job *job, enum pgcb_phase phase);

/* The calling thread's involuntary and voluntary context switches so far
 * (getrusage RUSAGE_THREAD; 0 if it fails). */
void pgcb_hchild_switches(uint64_t *inv, uint64_t *vol);

/* host_load.c: a concurrency group's warm-up (its first query's checksum,
 * then loads for job->warmup_ns) and measured order (loads until both
 * floors: job->time_floor_ns of load wall time and job->batch_floor
 * queries), on the thread's pool. */
void pgcb_hload_warmup(struct pgcb_hworker *w, struct pgcb_host_thread *ht,
                       const struct pgcb_job *job, struct pgcb_plan *plan, size_t cap);
void pgcb_hload_measure(struct pgcb_hworker *w, struct pgcb_host_thread *ht,
                        const struct pgcb_job *job, const struct pgcb_plan *plan, size_t cap);

/* host_conn.c. Close thread t's connection and its statements (a no-op when
 * it has none). */
void pgcb_hconn_close(struct pgcb_hchild *c, uint32_t t);

/* Open thread t's connection, prepare and prime every statement the run
 * needs on it (check_rows: compare each query's row count with its
 * expectation); 0, or -1 with err. */
int pgcb_hconn_open(struct pgcb_hchild *c, uint32_t t, int check_rows, char *err, size_t errlen);

/* Grow the worker's parameter arrays for query q at depth `depth` (outside
 * the loop); returns the batches one block may hold (0: no limit). */
size_t pgcb_hconn_params_reserve(struct pgcb_hworker *w, const struct pgcb_cfg_query *q,
                                 uint32_t depth);

/* Draw the parameters of n batches of query q into the worker's arrays. */
void pgcb_hconn_params_draw(struct pgcb_hworker *w, const struct pgcb_cfg_query *q, uint32_t depth,
                            size_t n);

#endif
