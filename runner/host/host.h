/*
 * host.h -- a driver host: a child process that owns one driver's
 * connections and measuring threads, so that a driver that crashes or hangs
 * takes down only itself, never the run.
 *
 * The runner (parent) and a host share one memory region (mapped before the
 * fork, so at the same address in both) holding the current job, each
 * measuring thread's histogram, counters and heartbeat, and the outcome of
 * preparing each query. A pipe pair carries one byte per step: the parent
 * writes 'J' (run the job in the region) or 'X' (exit); the host answers 'R'
 * (ready, after start-up) and 'D' (job done). EOF on the reply pipe means
 * the host died. The parent waits for an answer with a watchdog: a thread
 * whose heartbeat is older than [bench] batch_timeout_ms gets the host
 * killed (SIGKILL) and the job failed.
 */
#ifndef PGCB_HOST_H
#define PGCB_HOST_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"
#include "server/backend.h"
#include "hist.h"
#include "pgcb/driver.h"
#include "server/transport.h"

/* Samples per block buffer: a block is at most this many batches. */
#define PGCB_BLOCK_MAX 65536
/* A streaming job's reads per block at most, and the times to first row a
 * thread keeps per job (the first ones; a read is 10 ms or more). */
#define PGCB_STREAM_BLOCK_MAX 64
#define PGCB_FIRST_MAX 512
/* Target duration of one block, between budget checks and progress. */
#define PGCB_BLOCK_TARGET_NS 10000000ull
/* The same for a self-timed driver (the bridge), whose every block is an
 * exchange with its adapter outside the samples: longer, so that the
 * exchange is a small share of the block and the work a language runtime
 * defers to its idle event loop (V8's scavenge tasks, say) seldom falls
 * between two blocks, outside every sample (docs/clients.md, "Blocks"). */
#define PGCB_BLOCK_TARGET_SELF_TIMED_NS 100000000ull

/* Warm up; measure one execution order; or run background load: each
 * thread runs the query at job.rate per second until bg_stop is set. */
enum pgcb_job_kind { PGCB_JOB_WARMUP, PGCB_JOB_MEASURE, PGCB_JOB_BACKGROUND };

/* One step for every measuring thread of a host (threads 0..nthreads-1). */
struct pgcb_job {
    enum pgcb_job_kind kind;
    size_t query;                 /* index into the config's queries */
    size_t group, ngroups, order, norders; /* for the progress line */
    char label[192];              /* "suite / query depth N", for the progress line */
    uint32_t depth;
    uint32_t nthreads;
    uint64_t expect_rows;         /* per batch */
    uint64_t time_floor_ns;       /* per thread (measure) */
    uint64_t batch_floor;         /* per thread (measure) */
    uint64_t warmup_ns;           /* per thread (warm-up) */
    int transaction;              /* each batch is BEGIN, the batch, COMMIT */
    int connect;                  /* each sample is a whole connection (measure.h) on the
                                     host's connection string, the group's (the session
                                     starts the host with it); the host's own connections
                                     are not used (nor reopened) */
    int check_rows, check_sum;    /* count batches that disagree */
    uint64_t stream;              /* random parameter stream: the order, or
                                     PGCB_STREAM_WARMUP / _BACKGROUND */
    double rate;                  /* background: executions per second per thread */
    /* A concurrency group (> 0; [suite] concurrency): each thread is one
     * driver instance whose connection is a pool (the host's spec.pool),
     * and warm-up and orders run loads (run_load, ABI 1.5) of up to this
     * many queries in flight, closed loops or at load_rate per second
     * (load_mode, enum pgcb_load_mode); depth is 1. */
    uint32_t concurrency;
    int load_mode;
    double load_rate;
    /* A streaming group (> 0; [suite] stream): each sample one whole result
     * read in this mode (enum pgcb_result_mode, ABI 1.6 run_stream), with
     * fetch_rows rows per round trip where the idiom fetches in chunks;
     * depth 1. */
    uint32_t result_mode, fetch_rows;
};

#define PGCB_STREAM_WARMUP 1000000u
#define PGCB_STREAM_BACKGROUND 2000000u
#define PGCB_STREAM_PRIME 3000000u

/* One measuring thread's outcome of the last job, and its heartbeat. */
struct pgcb_host_thread {
    struct pgcb_hist hist;        /* counts inside the shared region */
    uint64_t batches, cpu_ns, rows_bad, sum_bad;
    /* Self-timed drivers, measured orders: blocks run, and the time and CPU
     * they cost beyond the samples (measure.h). */
    uint64_t blocks, overhead_ns, overhead_cpu_ns;
    /* Measured orders: the thread's context switches over the timed part
     * (getrusage RUSAGE_THREAD, read before and after it). */
    uint64_t nivcsw, nvcsw;
    uint64_t minflt;        /* minor page faults inside the timed blocks (getrusage) */
    uint64_t expect_sum;          /* checksum of its first batch in the group */
    char note[256];               /* the driver's note() after that batch ("": none) */
    uint64_t elapsed_ns;          /* background: from the first scheduled start to the stop */
    /* A concurrency group's measured order: the loads' wall time (each from
     * its start to its last reply, as the driver timed it: `batches` queries
     * completed in it) and how late the last query of a rate load was. */
    uint64_t load_wall_ns, late_ns;
    /* A streaming job: each read's time to first row (the first
     * PGCB_FIRST_MAX of the job), and the driver's idiom of its last read. */
    uint64_t first_ns[PGCB_FIRST_MAX];
    uint32_t nfirst;
    uint64_t stream_rows;         /* the rows of its last read */
    char idiom[PGCB_IDIOM_LEN];
    _Atomic uint64_t heartbeat_ns;/* CLOCK_MONOTONIC of its last sign of progress */
    /* The current job so far (warm-up or order): timed ns and batches, stored
     * by the thread after each block (relaxed, outside the timed block),
     * zeroed by the runner when it sends the job; the runner's progress line
     * reads them (progress.h). */
    _Atomic uint64_t live_ns, live_batches;
    int rc;                       /* PGCB_OK or the failing status */
    char err[PGCB_ERRLEN + 64];
};

/* What preparing one query on the host's first connection gave. */
struct pgcb_host_query {
    int failed;                   /* the server refused it: the groups of this query fail */
    int skipped;                  /* ... or the driver cannot run it (no parameters) */
    int invalid;                  /* ... or its rows read back differ (bulk.h): the driver
                                     is INVALID for it */
    int primed;                   /* prime_rows is known */
    uint64_t prime_rows;          /* rows of one execution */
    char err[PGCB_ERRLEN + 160];
};

struct pgcb_host_shared {
    _Atomic int stop;             /* the run is stopping: finish the job early */
    _Atomic int bg_stop;          /* background job: stop now */
    _Atomic uint64_t heartbeat_ns;/* start-up progress (connecting, preparing) */
    struct pgcb_job job;
    char err[PGCB_ERRLEN + 256];  /* why start-up failed */
    struct pgcb_host_thread *threads; /* nthreads, inside the region */
    struct pgcb_host_query *queries;  /* nqueries, inside the region */
};

#define PGCB_HOST_TAG_LEN 64

struct pgcb_host {
    pid_t pid;                    /* 0 while no host runs */
    char tag[PGCB_HOST_TAG_LEN];  /* "pgcb-RUNNERPID-HOSTPID": the application_name its
                                     connections carry (PGAPPNAME) when the user gave none,
                                     so that its backends can be found; "" otherwise */
    int cmd_fd, reply_fd;         /* parent's ends; -1 when closed */
    struct pgcb_backend_set backends; /* its connections' backends on the server: found by
                                     the session after each start of a measured driver's
                                     host (backend.h), never by host.c */
    struct pgcb_transport_seen transport; /* how the server saw those connections: found
                                     with them, by the session */
    const char *conninfo;         /* the connection string its connections were opened with
                                     (the spec's; not owned); NULL while no host runs */
    uint32_t pool;                /* the spec's: each thread's connection is a pool of this
                                     many (pool_open, ABI 1.5); 0: a connection of its own */
    struct pgcb_host_shared *sh;  /* the shared region (mapped once) */
    size_t sh_size;
};

/* Map the shared region for nthreads threads and nqueries queries. 0 / -1. */
int pgcb_host_map(struct pgcb_host *h, uint32_t nthreads, size_t nqueries);

struct pgcb_host;

/* All a host is told of the run, by whoever drives it (the session): so
 * that the measuring process never sees the run as a whole, and can be run
 * without one (tests/unit/test_host.c). Owned by the caller and read only;
 * a host's process keeps the copy it was forked with. */
struct pgcb_host_env {
    const struct pgcb_config *cfg;     /* the queries (SQL, parameters, rows, bulk) and
                                          [bench] batch_timeout_ms */
    volatile sig_atomic_t *stop;       /* non-zero: the run was asked to stop (a signal) */
    _Atomic int64_t *seqs;             /* cfg->nseqs parameter sequences, shared with every
                                          host (mapped before any fork); NULL with none */
    /* In a new host's process: close what the parent holds of the other
     * hosts (their pipes), so that none outlives its host. NULL: none. */
    void (*close_others)(void *arg, const struct pgcb_host *self);
    void *arg;
};

/* The driver a host runs, as its caller loaded it (loader.h). */
struct pgcb_host_driver {
    const struct pgcb_driver *drv;
    const char *name;                  /* its [driver.NAME], for messages */
    const struct pgcb_option *opts;    /* its INI keys (not owned) */
    size_t nopts;
    unsigned caps;                     /* what its section makes of it (instance()) */
    int self_timed;                    /* it times its own blocks (run_block) */
};

/* Who a host is: its driver, threads (one connection each) and the CPUs
 * they are pinned to, round-robin. */
struct pgcb_memcg;

struct pgcb_host_spec {
    struct pgcb_host_driver drv;
    uint32_t nthreads;
    const int *cpus;
    size_t ncpus;
    const char *role;             /* "driver" or "background" (messages) */
    const char *conninfo;         /* what its connections connect with (connplan.h); must
                                     outlive the host */
    uint32_t pool;                /* > 0: each thread's connection is a pool of this many
                                     (a concurrency suite's; the driver's pool_open) */
    const struct pgcb_memcg *memcg; /* the memory cgroup the host joins first ([bench]
                                     max_rss_mb); NULL: none */
};

/* What the parent does while it waits for a host's answer, supplied by
 * whoever drives the host (the session feeds its progress line with it):
 * fn(arg) is called in the runner's own thread each time the wait wakes up
 * without an answer (every 200 ms, or after a signal), never in a host and
 * never inside a timed block. A NULL tick, or a NULL fn, does nothing. */
struct pgcb_host_tick {
    void (*fn)(void *arg);
    void *arg;
};

/* Fork a host (its connections opened with spec->conninfo, kept in
 * h->conninfo) and wait until it has connected every thread, prepared every
 * used query (a query the server refuses is recorded in sh->queries, not
 * fatal) and started its pinned threads. With check_rows, a query's first
 * execution must return [query] rows. Returns 0, or -1 with one line in err
 * (the host is gone then). */
int pgcb_host_start(struct pgcb_host *h, const struct pgcb_host_env *env,
                    const struct pgcb_host_spec *spec, int check_rows,
                    const struct pgcb_host_tick *tick, char *err, size_t errlen);

/* Run sh->job (set by the caller) and wait for it, watching the heartbeats.
 * Returns 0 when the host answered (the threads' outcomes are in sh), or -1
 * when the host crashed or was killed for a timeout: err says which (e.g.
 * "crashed (SIGSEGV: Segmentation fault)") and the host is gone. */
int pgcb_host_run(struct pgcb_host *h, const struct pgcb_host_env *env,
                  const struct pgcb_host_tick *tick, char *err, size_t errlen);

/* pgcb_host_run in two steps, for background load: send the job and return
 * at once; later set bg_stop and wait for the answer (as pgcb_host_run). */
int pgcb_host_send(struct pgcb_host *h, const struct pgcb_host_env *env, char *err,
                   size_t errlen);
int pgcb_host_wait(struct pgcb_host *h, const struct pgcb_host_env *env,
                   const struct pgcb_host_tick *tick, char *err, size_t errlen);

/* Ask the host to exit (closing its connections); kill it if it does not
 * within a few seconds. Accepts a host that is not running. */
void pgcb_host_stop(struct pgcb_host *h);

void pgcb_host_unmap(struct pgcb_host *h);

#endif
