/*
 * result.h -- the result of one run, in memory and as JSON (jansson).
 *
 * The runner fills a struct pgcb_result as it measures; result_json.c turns
 * it into the JSON result file (schema PGCB_RESULT_SCHEMA_VERSION), written
 * atomically; the aggregate program reads such files back.
 *
 * Ownership: a struct pgcb_result owns every string and array it points to;
 * pgcb_result_free() releases them all.
 */
#ifndef PGCB_RESULT_H
#define PGCB_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include "pct.h" /* a cell's distribution */

#define PGCB_RESULT_SCHEMA_VERSION 1

/* Status of one driver in one group. */
enum pgcb_cell_status {
    PGCB_CELL_NOT_RUN = 0, /* the run stopped before this cell (interrupted, fatal error) */
    PGCB_CELL_OK,          /* measured, rows and checksum agree */
    PGCB_CELL_INVALID,     /* measured, but rows or checksum disagree: not comparable */
    PGCB_CELL_FAILED,      /* the driver reported an error; figures cover what ran before */
    PGCB_CELL_SKIPPED,     /* the driver cannot run this group (e.g. an ABI 1.0 driver and a
                              query with parameters): not a failure, nothing measured */
};

const char *pgcb_cell_status_str(enum pgcb_cell_status s);

struct pgcb_res_driver {
    char *label;        /* [driver.LABEL] in the INI: the name in tables */
    char *name;         /* the driver's own name */
    char *version;
    char *links;
    char *path;
    char *description;  /* may be NULL */
    unsigned caps;      /* PGCB_CAP_* */
    unsigned abi_major, abi_minor;
};

/* One driver in one group: every figure pooled over all execution orders. */
struct pgcb_res_cell {
    enum pgcb_cell_status status;
    char *error;                /* why it is invalid or failed; NULL if OK */
    uint64_t samples;           /* batches timed */
    uint64_t queries;           /* queries executed in them = samples x depth */
    double mean_ns, sd_ns, rme_pct;
    double median_ns, p99_ns;
    uint64_t min_ns, max_ns;
    double ops_per_s;           /* batches per second = 1e9 / mean */
    double queries_per_s;       /* ops_per_s x depth x threads */
    double cpu_ns_per_query;    /* client thread CPU time / queries */
    double server_cpu_ns_per_query; /* the local server's CPU time while this driver was
                                   measured / queries; NAN if the server is not local */
    double server_busy;         /* that CPU time / the wall time: 1.0 = one CPU all the time */
    uint64_t wall_ns;           /* sum of the timed samples */
    double *order_medians_ns;   /* one per execution order; NAN where not run */
    size_t norders;
    uint64_t checksum;          /* of one batch */
    uint64_t rows_per_batch;    /* as received */
    /* A self-timed driver (a bridge: PGCB_CAP_SELF_TIMED) times its batches
     * itself, in blocks; cpu_ns_per_query is then the CPU time its process
     * spent in the timed batches. For other drivers blocks = 0 and both
     * figures are NAN. */
    uint64_t blocks;                  /* blocks timed in the measured orders */
    double overhead_ns_per_block;     /* wall time of a block beyond its samples, mean */
    double overhead_cpu_ns_per_block; /* CPU time outside the timed batches, mean */
    /* The distribution (pct.h), from the same pooled histogram as median_ns
     * and p99_ns: pct_ns[k] is the latency at pgcb_pct_q[k] (p50, p90, p99 =
     * p99_ns, p99.9), NAN without samples and in files from before them;
     * curve[0..ncurve-1] the percentile spectrum (q ascending, the max last
     * at q = 1), NULL and 0 without. The cell owns curve. */
    double pct_ns[PGCB_PCT_N];
    struct pgcb_pct_point *curve;
    size_t ncurve;
};

/* Background load that ran during a group ([background.NAME]). */
struct pgcb_res_background {
    char *name;
    char *driver;               /* driver label */
    char *query;
    uint32_t connections;
    double target_rate;         /* executions per second, all connections together */
    double achieved_rate;       /* executions / elapsed */
    uint64_t executions;
    double elapsed_s;           /* from the first scheduled execution to the stop */
    double median_ns, p99_ns, max_ns; /* latency from each execution's scheduled start */
    double sla;                 /* the fraction of the target that had to be achieved */
    int sla_met;
    char *error;                /* why the load failed, or NULL */
};

struct pgcb_res_group {
    char *suite;
    char *query;
    char *sql;
    uint32_t depth;
    uint32_t threads;
    int *thread_cpus;           /* the CPU each measuring thread was pinned to */
    int64_t rows;               /* expected rows per query; -1 if not configured */
    struct pgcb_res_cell *cells; /* one per driver, in pgcb_result.drivers order */
    int transaction;            /* each batch was BEGIN, depth queries, COMMIT */
    uint64_t ops;               /* fixed queries per driver and order; 0: time budget */
    uint32_t nparams;           /* parameters of the query */
    struct pgcb_res_background *backgrounds;
    size_t nbackgrounds;
    int sla_failed;             /* some background load missed its target rate */
};

struct pgcb_result {
    char *runner_version;
    char *started_at, *finished_at; /* ISO 8601 UTC */
    char *config_file;

    /* environment */
    char *cpu_model;
    unsigned cores;
    uint64_t ram_bytes;
    char *kernel;
    char *hostname;
    char *client_cpus;          /* e.g. "0" */
    char *server_cpus;          /* e.g. "1", or NULL when unknown */
    char *server_cpus_source;   /* "PGCB_SERVER_CPUS", "detected", "unknown" */
    int cpus_shared;            /* client and server CPUs overlap (or cannot be told apart) */
    char *libpq_version;

    /* server */
    char *server_version;       /* NULL when no server was used */
    char *conninfo;             /* with any password removed */

    /* budget */
    uint64_t time_ms, min_queries, warmup_ms;
    char *orders_mode;          /* "all" */

    struct pgcb_res_driver *drivers;
    size_t ndrivers;
    /* execution orders: orders[o][k] = index of the k-th driver of order o */
    size_t **orders;
    size_t norders;

    struct pgcb_res_group *groups;
    size_t ngroups;

    int complete;               /* every group was run to the end */
    char *stop_reason;          /* why not, or NULL */
};

void pgcb_result_free(struct pgcb_result *r);

/* Write r as JSON to `path` atomically: a temporary file in the same
 * directory, fsync, rename. Creates the directory if missing. Returns 0, or
 * -1 with a one-line message in err (nothing is left at path then). */
int pgcb_result_write(const struct pgcb_result *r, const char *path, char *err, size_t errlen);

/* Read a result file written by pgcb_result_write() into *r (caller frees
 * with pgcb_result_free()). Returns 0, or -1 with "PATH: reason" in err. */
int pgcb_result_read(const char *path, struct pgcb_result *r, char *err, size_t errlen);

#endif
