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
#include "pgcb/driver.h"

/* 2: verdicts by an exact two-sided sign test with Holm at [bench] alpha
 * (alpha, interval_level, per-rival tests, ratio intervals). Schema 1 files
 * are still read: what they lack is recomputed where it can be. */
#define PGCB_RESULT_SCHEMA_VERSION 2
#define PGCB_RESULT_SCHEMA_OLDEST 1
#define PGCB_DEFAULT_ALPHA (1.0 / 64)
#define PGCB_DEFAULT_INTERVAL_LEVEL 0.95

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

struct pgcb_res_group;

/* What one sample of group gr is: "connection" (a connection group) or
 * "batch" -- the JSON group's "unit". */
const char *pgcb_res_group_unit(const struct pgcb_res_group *gr);

/* Group gr's shape for titles and names: "connect" (a connection group),
 * "rows_per_txn N" or "depth N". */
void pgcb_res_group_shape(const struct pgcb_res_group *gr, char *buf, size_t n);

struct pgcb_res_driver {
    char *label;        /* [driver.LABEL] in the INI: the name in tables */
    char *name;         /* the driver's own name */
    char *version;
    char *links;
    char *path;
    char *description;  /* may be NULL */
    unsigned caps;      /* PGCB_CAP_* */
    unsigned abi_major, abi_minor;
    struct pgcb_protocol proto; /* what its connections ask of the server (proto.h); 0: unknown */
    unsigned proto_explicit;    /* bit per field its own section set (a variant, not the run's) */
};

/* The server side of one driver in one group: its own backends (the host's
 * connections, found by application_name; runner/server/backend.h), read from
 * /proc around each measured order, summed over the orders, per query
 * executed in them. Every figure is NAN when unknown: a driver that does no
 * I/O, a server elsewhere, backends that could not be found (why says so). */
struct pgcb_res_backend {
    double cpu_ns_per_query;     /* user + system: the backends' schedstat run time (exact)
                                    when every one had it (cpu_exact), else the ticks' sum */
    /* /proc/PID/stat utime and stime: clock ticks (10 ms at USER_HZ 100) summed over the
     * orders, reported as measured (their sum is not scaled to cpu_ns_per_query) */
    double user_ns_per_query;
    double sys_ns_per_query;
    double voluntary_switches_per_query;   /* /proc/PID/status voluntary_ctxt_switches */
    double involuntary_switches_per_query; /* ... nonvoluntary_ctxt_switches */
    uint32_t pids;               /* backends read: one per connection of the host; 0: unknown */
    int cpu_exact;               /* cpu_ns_per_query is from schedstat, not ticks */
    char *why;                   /* why unknown, for a driver that does I/O; NULL otherwise.
                                    The cell owns it. */
};

/* The backend figures are known (pids > 0); a zeroed struct is not. */
static inline int pgcb_res_backend_known(const struct pgcb_res_backend *b)
{
    return b->pids > 0;
}

/* What one driver's connections used in a group, as the server saw them
 * (pg_stat_ssl, pg_stat_activity.client_addr), read after each (re)connect
 * of its host. recorded = 0 (a driver that does no I/O, an older file):
 * nothing to say, the rest NULL/0. The cell owns the strings. */
struct pgcb_res_transport {
    int recorded;
    char *asked;                /* the group's transport ([suite] transport); NULL: not asked */
    char *seen;                 /* "unix", "tcp", "tls", "mixed" or "unknown" */
    char *why;                  /* unknown or mixed: why; else NULL */
    char *tls_version;          /* "TLSv1.3"; NULL without TLS */
    char *cipher;               /* NULL without TLS */
    int bits;                   /* 0: unknown */
    char *client_addr;          /* TCP and TLS: the address the server saw; NULL for unix */
    int mismatch;               /* asked and seen are known and differ */
};

/* Profiles (issue 28, docs/profiling.md; result_profile.c). One side of a
 * profiled driver in a group: its perf recording, what fold.py made of it,
 * and the shares of its samples, read from its top.tsv. Paths are relative
 * to the result file's directory. The cell owns every string. */
struct pgcb_res_prof_entry {
    char *name;                 /* a category ("libpq") or "SYMBOL (DSO)" */
    uint64_t samples;           /* self samples */
    double share;               /* of the side's samples, 0..1 */
    double ns_per_query;        /* share x the side's CPU per query; NAN: unknown */
};

struct pgcb_res_prof_side {
    int recorded;               /* 0: no profile of this side (none says why) */
    char *none;                 /* why not (a driver without I/O, a connection group, ...) */
    char *failed;               /* the recording or its folding failed: why; else NULL */
    char *perf, *folded, *top;  /* perf.data, folded stacks, top.tsv (NULL: not written) */
    char *call_graph;           /* perf record --call-graph: "dwarf,16384" or "fp" */
    uint64_t samples;
    struct pgcb_res_prof_entry *categories, *functions; /* by samples, descending */
    size_t ncategories, nfunctions;
};

/* A cell's profile: profiled = 0 (the run was not, an older file): nothing. */
struct pgcb_res_profile {
    int profiled;
    char *failed;               /* the driver's profile as a whole failed: why */
    struct pgcb_res_prof_side client, backend;
};

/* What crossed the wire per query (issue 41; result_wire.c), counted by the
 * wire proxy (build/pgcb-proxy) over the cell's measured jobs, from the
 * bytes themselves: round trips (the rule of lib/wiretap/wt_count.h),
 * bytes and protocol messages each way, by type. known 0: not counted (the
 * group had no proxy). */
#define PGCB_WIRE_MAXTYPES 24
struct pgcb_res_wire_type {
    char name[24];              /* "Bind", "DataRow" ... */
    double per_query;
};
struct pgcb_res_wire {
    int known;
    double round_trips, bytes_out, bytes_in, msgs_out, msgs_in; /* per query */
    double chunks_out, chunks_in; /* the pieces the bytes came in, per query: to the server
                                     the client's writes as the proxy read them, to the client
                                     the proxy's reads from the server */
    struct pgcb_res_wire_type out[PGCB_WIRE_MAXTYPES], in[PGCB_WIRE_MAXTYPES];
    size_t nout, nin;
    double proxy_cpu_ns;        /* the proxy's CPU time per query (off the client's CPUs) */
    double opaque_share;        /* bytes not parsed (TLS) over all bytes; 0 in clear */
    /* At an RTT above 0: what the cell should measure, its rtt-0 sibling's
     * median + rtt x round trips x depth (NAN: no such sibling), and a note
     * when the median departs from it by more than PGCB_WIRE_DEPART_PCT. */
    double expected_ns;
    char note[200];
};
#define PGCB_WIRE_DEPART_PCT 25.0
#define PGCB_STALL_LO_MS 30
#define PGCB_STALL_HI_MS 60

/* A group's proxy as it measured itself (issue 41): its deliveries'
 * lateness against their due times over the group, and the accuracy probe
 * before the group -- a round trip through the proxy against one straight
 * to the server, medians of PGCB_PROBE_N each, alternating. known 0: none. */
#define PGCB_PROBE_N 200
struct pgcb_res_proxy {
    int known;
    uint64_t chunks;            /* deliveries in the measured jobs */
    double late_mean_ns, late_max_ns;
    double direct_ns, proxied_ns; /* the probe's medians; NAN: not probed */
    double added_ns;            /* proxied - direct: the delay it added to a round trip */
    uint64_t refused, errors;   /* over the group */
    char last_error[256];
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
    double rows_per_s;          /* a bulk group (group bulk_rows > 0): rows written per
                                   second, ops_per_s x bulk_rows x threads; NAN otherwise */
    double cpu_ns_per_query;    /* client thread CPU time / queries */
    double server_cpu_ns_per_query; /* the local server's CPU time while this driver was
                                   measured / queries; NAN if the server is not local */
    double server_busy;         /* that CPU time / the wall time: 1.0 = one CPU all the time */
    struct pgcb_res_backend backend; /* this driver's own backends */
    struct pgcb_res_transport transport; /* what its connections used */
    uint64_t wall_ns;           /* sum of the timed samples; a concurrency group's: its loads'
                                   wall time, every instance's summed */
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
    /* Noise (issue 13). The spread of order_medians_ns (pgcb_stats_spread():
     * robust CV in percent, extremes in ns), filled by
     * pgcb_result_cell_spread(); NAN when unknown (the CV below 3 orders). */
    double spread_cv_pct, spread_min_ns, spread_max_ns;
    /* What the runner recorded around each measured order; noise_known = 0
     * (a file from before, or nothing measured) leaves the rest unknown. */
    int noise_known;
    uint64_t involuntary_switches; /* ru_nivcsw of the measuring threads (getrusage
                                      RUSAGE_THREAD) over the timed part of every
                                      order, summed over threads and orders */
    uint64_t voluntary_switches;   /* ru_nvcsw, the same */
    uint64_t timed_minor_faults;   /* ru_minflt of the measuring threads inside the timed
                                      blocks: pages first touched while timing (issue 14) */
    /* Steal time (/proc/stat) over steal_window_ns, the runner's wall time
     * of the orders' jobs: on the measuring CPUs (pct of window x those
     * CPUs) and on the whole machine (pct of window x its online CPUs).
     * NAN when /proc/stat could not be read. */
    double steal_window_ns;
    double steal_cpus_ns, steal_cpus_pct;
    double steal_machine_ns, steal_machine_pct;
    /* The distribution (pct.h), from the same pooled histogram as median_ns
     * and p99_ns: pct_ns[k] is the latency at pgcb_pct_q[k] (p50, p90, p99 =
     * p99_ns, p99.9), NAN without samples and in files from before them;
     * curve[0..ncurve-1] the percentile spectrum (q ascending, the max last
     * at q = 1), NULL and 0 without. The cell owns curve. */
    double pct_ns[PGCB_PCT_N];
    struct pgcb_pct_point *curve;
    size_t ncurve;
    /* A concurrency group (its group's concurrency > 0; result_conc.c):
     * the latency figures above are per query (issue or due time to reply);
     * queries_per_s is the throughput, all instances together (each
     * instance's queries over its loads' wall time); time_per_query_ns =
     * 1e9 / queries_per_s is the figure verdicts, ratios and rankings use,
     * and order_medians_ns holds each order's (pgcb_res_cell_figure);
     * client_busy is the client's CPU over its loads' wall time per instance
     * (1.0: one CPU all the time); bottleneck says which side was saturated.
     * 0 / NAN / PGCB_BOTTLENECK_UNKNOWN elsewhere. */
    double time_per_query_ns;
    double client_busy;
    int bottleneck;             /* enum pgcb_bottleneck */
    uint64_t late_ns;           /* rate mode: the latest a load issued its last query */
    /* Memory (issue 42): the client's processes -- the driver's host and
     * every process it started (the bridge's adapters) -- read from /proc
     * the same way for every driver (runner/sys/procmem.h): mem_peak_kib
     * the sum of their peak resident memory (VmHWM, reset before the
     * warm-up) over the group, warm-up and orders; mem_level_kib their
     * resident memory (VmRSS) after the warm-up; mem_growth_kib how far the
     * orders' peak (reset again after the warm-up) rose above that level;
     * mem_processes how many were read. mem_known 0: not read (a file from
     * before, a driver that never ran in the group, a host gone by its
     * end). */
    int mem_known;
    uint64_t mem_peak_kib, mem_level_kib, mem_growth_kib;
    int mem_processes;
    /* A streaming group ([suite] stream; result_stream.c): the median time
     * to first row over the measured reads, the rows of a read and rows per
     * second at the median read, and the driver's idiom (owned; NULL:
     * none). In the group of the most rows of a suite whose groups differ
     * only in their result's size: the memory verdict over the suite's
     * smallest and largest results (enum pgcb_mem_verdict) and the peak's
     * growth per extra row, in bytes. NAN / 0 / NULL elsewhere. */
    double first_row_ns;
    uint64_t stream_rows;       /* (rows_per_s above: at the median read) */
    char *idiom;
    int mem_verdict;
    double mem_bytes_per_row;
    struct pgcb_res_profile profile; /* [bench] profile (issue 28) */
    struct pgcb_res_wire wire;  /* what crossed the wire (issue 41) */
    /* Over TCP (a tcp or tls transport, or an RTT): samples PGCB_STALL_LO_MS
     * to PGCB_STALL_HI_MS above the median, while the median is below
     * PGCB_STALL_LO_MS -- the mark of a delayed ACK (40 ms on Linux) meeting
     * Nagle's algorithm, or of a retransmission; 0 otherwise. JSON
     * "stalls_40ms" (only when above 0). */
    uint64_t stalls;
};

enum pgcb_bottleneck {
    PGCB_BOTTLENECK_UNKNOWN = 0,
    PGCB_BOTTLENECK_CLIENT = 1,  /* the client's CPU busy >= 90% per instance */
    PGCB_BOTTLENECK_SERVER = 2,  /* else the server's CPUs busy >= 90% */
    PGCB_BOTTLENECK_NEITHER = 3  /* neither: latency-bound (too few queries in flight) */
};

/* "client", "server", "neither" or "unknown"; and back (UNKNOWN for NULL
 * or anything else). */
const char *pgcb_bottleneck_name(int b);
int pgcb_bottleneck_parse(const char *s);

/* What verdicts, ratios and rankings compare for cell c, lower is better:
 * its median latency, or in a concurrency group its time per query at
 * throughput (1e9 / queries per second). */
static inline double pgcb_res_cell_figure(const struct pgcb_res_cell *c)
{
    return c->time_per_query_ns > 0 ? c->time_per_query_ns : c->median_ns;
}

/* Background load that ran during a group ([background.NAME]). */
struct pgcb_res_background {
    char *name;
    char *driver;               /* driver label */
    char *query;
    uint32_t connections;
    char *cpus;                 /* the CPUs its connections were pinned to, e.g. "1" */
    double target_rate;         /* executions per second, all connections together */
    double achieved_rate;       /* executions / elapsed */
    uint64_t executions;
    double elapsed_s;           /* from the first scheduled execution to the stop */
    double median_ns, p99_ns, max_ns; /* latency from each execution's scheduled start */
    double sla;                 /* the fraction of the target that had to be achieved */
    int sla_met;
    char *error;                /* why the load failed, or NULL */
};

/* A result column of a group's query that the drivers fold as its text
 * although its type is not a text type: value.h does not convert it
 * (pgcb_value_kind_of gives PGCB_VALUE_TEXT). The group owns the strings. */
struct pgcb_res_folded {
    uint32_t column;            /* 1-based */
    char *name;                 /* the column's name */
    char *type;                 /* the server's name of its type (format_type), e.g. "point" */
    uint32_t oid;               /* its type's oid */
};

struct pgcb_res_group {
    char *suite;
    char *query;
    char *sql;
    uint32_t depth;
    uint32_t threads;
    int *thread_cpus;           /* the CPU each measuring thread was pinned to */
    int64_t rows;               /* expected rows per query; -1 if not configured */
    char *transport;            /* [suite] transport: "unix", "tcp" or "tls" (one group
                                   each); NULL: the suite has no such key */
    char *conninfo;             /* the group's connection string, password removed, when
                                   the suite has transport or conninfo; NULL: the run's */
    struct pgcb_res_cell *cells; /* one per driver, in pgcb_result.drivers order */
    int transaction;            /* each batch was BEGIN, depth queries, COMMIT */
    int connect;                /* a connection group ([suite] connect = yes): each sample
                                   was one whole connection (open, prepare, one execution,
                                   close), depth 1; every per-query figure of its cells
                                   (queries, queries_per_s, cpu_ns_per_query, ...) is per
                                   connection, and the backend figures are unknown */
    uint64_t connections;       /* a connection group: its count floor, connections per
                                   driver and order ([suite] connections); 0 otherwise */
    uint64_t ops;               /* fixed queries per driver and order; 0: time budget */
    uint32_t nparams;           /* parameters of the query */
    uint64_t bulk_rows;         /* rows one sample writes: a COPY's rows, or the depth of
                                   an insert batch read back ([query] read_back); 0: not a
                                   bulk group */
    int bulk_copy;              /* bulk_rows counts a COPY's rows */
    struct pgcb_res_background *backgrounds;
    size_t nbackgrounds;
    int sla_failed;             /* some background load missed its target rate */
    int partial;                /* the run was stopped during this group: its cells are
                                   not_run (never crowned) but keep what they measured */
    size_t partial_orders;      /* then: the orders every driver had completed */
    size_t orders_run;          /* until = decided: the orders it ran before it was decided
                                   (its cells have that many per-order medians); 0: all of
                                   pgcb_result.norders */
    /* The types workload (issue 19; result_types.c). The runner's own
     * Describe of the query, before the groups run (runner/server/describe.h): its
     * result columns, 0 when unknown (not described: a statement the server
     * would not prepare then) or none; and those folded as text (above). */
    uint32_t columns;
    struct pgcb_res_folded *folded;
    size_t nfolded;
    char *versus;               /* [query] versus: the twin query (the same shape, the
                                   columns cast to text) of the conversion-cost table
                                   (versus.h); NULL: none */
    /* A concurrency group ([suite] concurrency; result_conc.c): queries in
     * flight per driver instance, its pool's connections, closed loops
     * (PGCB_LOAD_CLOSED) or an open loop at `rate` per second (PGCB_LOAD_RATE,
     * driver.h). 0: not one. */
    uint32_t concurrency, pool;
    int load_mode;
    double rate;
    /* A streaming group ([suite] stream): enum pgcb_result_mode (driver.h)
     * and the rows per fetch asked of chunked idioms. 0: not one. */
    int result_mode;
    uint32_t fetch_rows;
    /* A group at an emulated round-trip time ([suite] rtt_ms; result_wire.c):
     * has_rtt 1 and its RTT in ms, measured through the wire proxy (0: no
     * delay, the baseline of the others' expectations); rtt_index is its
     * place in the suite's list (the runner's, not in the JSON). */
    int has_rtt;
    double rtt_ms;
    size_t rtt_index;
    struct pgcb_res_proxy proxy;
};

/* Whether a client's memory stays flat as its result grows (issue 42):
 * its peak at the suite's largest result against its smallest. */
enum pgcb_mem_verdict {
    PGCB_MEM_UNKNOWN = 0,
    PGCB_MEM_BOUNDED = 1,     /* grew less than PGCB_MEM_GROWS_BYTES_PER_ROW per extra row */
    PGCB_MEM_GROWS = 2        /* grows with the result */
};
#define PGCB_MEM_GROWS_BYTES_PER_ROW 16.0

/* One pinned CPU as sysfs shows it (issue 13); NULL / NAN: not shown by
 * this machine (a VM often has no cpufreq). */
struct pgcb_res_cpu {
    int cpu;
    char *role;                 /* "client", "server" or "client+server" */
    char *governor;             /* cpufreq scaling_governor */
    double cur_khz, min_khz, max_khz; /* scaling_cur_freq, scaling_min_freq, scaling_max_freq */
    char *smt_siblings;         /* thread_siblings_list: the CPUs of its core, itself included */
};

/* A list of names the result owns. */
struct pgcb_res_names {
    char **v;
    size_t n;
};

/* A driver that does not come from a [driver.NAME] section of its own. */
struct pgcb_res_added_driver {
    char *name, *path;
    char *from;                 /* "driver_dir" or "--driver" */
};

/* What the runner's command line and [bench] driver_dir made of the config
 * (docs/cli.md): the JSON's "selection", and the budget's sources. A list
 * that was not asked for is NULL (given = 0). */
struct pgcb_res_selection {
    int recorded;               /* 0: not in the file (an older runner) */
    char *driver_dir;           /* resolved; NULL: none */
    struct pgcb_res_added_driver *added;
    size_t nadded;
    int only_given, suites_given, queries_given;
    struct pgcb_res_names only, suites, queries; /* --only, --suite, --query as given */
    struct pgcb_res_names left_out_drivers;  /* measured drivers of the config not measured */
    struct pgcb_res_names left_out_suites;   /* suites of the config not run */
    struct pgcb_res_names left_out_queries;  /* queries some suite of the config runs and no
                                                group of this run does */
    char *time_source;          /* "default", "file", "BENCH_TIME_MS", "-T", "--time-ms" */
    char *queries_source;       /* "default", "file", "BENCH_QUERIES", "--queries" */
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
    char *runner_cpus;          /* where the runner's own thread ran, e.g. "1" (issue 14) */
    int wire_off;               /* [bench] wire = off: the proxies carried without counting
                                   (JSON "budget": {"wire": "off"}; absent: on) */
    char *server_cpus_source;   /* "PGCB_SERVER_CPUS", "detected", "unknown" */
    int cpus_shared;            /* client and server CPUs overlap (or cannot be told apart) */
    char *libpq_version;

    /* server */
    char *server_version;       /* NULL when no server was used */
    char *conninfo;             /* with any password removed */

    /* budget */
    uint64_t time_ms, min_queries, warmup_ms;
    char *orders_mode;          /* "all" */
    char *checksum_reference;   /* [bench] checksum_reference, NULL: the clients' majority */

    /* verdicts (rank.h): read back from the file; a schema 1 file has
     * neither, and reading sets the defaults and verdict_defaults = 1 */
    double alpha;               /* the sign test's level: [bench] alpha, default 1/64 */
    double interval_level;      /* of the ratio intervals: [bench] interval_level, 0.95 */
    int verdict_defaults;       /* alpha and interval_level were not in the file */
    int until_decided;          /* [bench] until = decided: a group could stop early */
    int respawn_order;          /* [bench] respawn = order: each driver's host started anew
                                   and warmed up before each of its orders (JSON: budget
                                   "respawn": "order"; absent: as needed) */
    double until_width;         /* its largest relative interval width */
    size_t looks;               /* until = decided: the looks a group could stop at (each
                                   complete set of orders up to the cap); the verdicts test
                                   at alpha / looks (rank.h). 1 (or 0) otherwise */
    unsigned schema_version;    /* of the file read; PGCB_RESULT_SCHEMA_VERSION when made */
    struct pgcb_protocol proto; /* the run's choices for every driver ([bench] result_format,
                                   describe, sync; proto.h); 0s: not recorded (older file) */

    struct pgcb_res_driver *drivers;
    size_t ndrivers;
    /* execution orders: orders[o][k] = index of the k-th driver of order o */
    size_t **orders;
    size_t norders;
    size_t orders_repeats;      /* orders = auto: the base set ran this many times so that a
                                   verdict can reach alpha; 1 otherwise (0 when not recorded) */

    struct pgcb_res_group *groups;
    size_t ngroups;

    int complete;               /* every group was run to the end */
    char *stop_reason;          /* why not, or NULL */
    /* runner --resume JOURNAL (runner/out/journal.h): the groups of an interrupted
     * run that were kept from its journal. NULL / 0: not resumed. */
    char *resumed_from;         /* the journal's path */
    size_t resumed_groups_kept;
    char *resumed_at;           /* when the resume started, ISO 8601 UTC */

    struct pgcb_res_selection selection; /* the command line's selection and sources */

    /* Noise (issue 13), in the JSON environment. */
    double noise_warn_pct;      /* [bench] noise_warn_pct the notes used; not > 0 (a
                                   file from before): PGCB_STATS_NOISE_WARN_PCT */
    struct pgcb_res_cpu *noise_cpus; /* the client CPUs, then the server CPUs */
    size_t nnoise_cpus;
    double steal_boot_pct;      /* the machine's steal since boot, % of its CPU time */
    double run_steal_ns;        /* the machine's steal from the first group to the last */
    double run_steal_pct;       /* ... % of that time x its online CPUs; NAN: unknown */
    /* [bench] cpu_idle (runner/sys/cpuidle.h), the environment's
     * "noise"."cpu_idle": how idle CPUs waited. asked NULL: a file from
     * before it (unknown). Owned strings. */
    struct pgcb_res_idle {
        char *asked;            /* "auto", "poll" or "system" */
        int polling;            /* a PM QoS request of 0 us was held while measuring */
        char *why;              /* not polling: why (NULL when polling) */
        char *driver, *governor;/* cpuidle's driver and governor; NULL: not shown */
        double entries_poll;    /* idle entries of the pinned CPUs over the measuring, into */
        double entries_other;   /* the polling state and into the others; NAN: unknown */
    } idle;

    /* [bench] profile (issue 28): mode NULL: not asked (an unprofiled run,
     * an older file). profiled = 0 with a mode (try without perf): why says
     * why not. A profiled run's figures are never compared with an
     * unprofiled run's (aggregate). Owned strings. */
    struct pgcb_res_run_profile {
        char *mode;             /* "on" or "try" */
        int profiled;
        char *why;              /* not profiled: why */
        char *event;            /* "cpu-clock" */
        unsigned frequency;     /* Hz */
        char *call_graph;       /* "dwarf,16384" */
        char *dir;              /* the profile directory, relative to the result file */
        char *index;            /* its index.html (flame-dir), relative; NULL: none */
    } profile;
};

void pgcb_result_free(struct pgcb_result *r);

/* A run's default name: "CPU model, N cores" (a new string). */
char *pgcb_result_label(const struct pgcb_result *r);

/* Write r as JSON to `path` atomically: a temporary file in the same
 * directory, fsync, rename. Creates the directory if missing. Returns 0, or
 * -1 with a one-line message in err (nothing is left at path then). */
int pgcb_result_write(const struct pgcb_result *r, const char *path, char *err, size_t errlen);

/* Read a result file written by pgcb_result_write() into *r (caller frees
 * with pgcb_result_free()). Returns 0, or -1 with "PATH: reason" in err. */
int pgcb_result_read(const char *path, struct pgcb_result *r, char *err, size_t errlen);

struct json_t; /* jansson.h */

/* r as pgcb_result_write() writes it, derived figures included (the caller
 * owns the object); NULL if a field cannot be packed. The HTML report
 * (html.h) embeds exactly this. */
struct json_t *pgcb_result_json(const struct pgcb_result *r);

/* One group g of r as the result file holds it, without the derived
 * "verdict" and "vs_leader" (the caller owns the object); NULL if a field
 * cannot be packed. The journal (runner/out/journal.c) writes exactly this. */
struct json_t *pgcb_result_group_json(const struct pgcb_result *r, size_t g);

/* Read one group object `o` (as pgcb_result_group_json() makes it) into *gr,
 * which the caller zeroed; r gives the drivers (their number and labels:
 * "results" must be in that order). Returns 0, or -1 with one line in why.
 * Either way *gr may own memory: release it with pgcb_result_group_free().
 * pgcb_result_read() reads every group with it. */
int pgcb_result_group_read(struct json_t *o, const struct pgcb_result *r, struct pgcb_res_group *gr,
                           char *why, size_t n);

/* Release what *gr owns (ndrivers cells) and zero it. */
void pgcb_result_group_free(struct pgcb_res_group *gr, size_t ndrivers);

/* Fill c's spread_* from its order_medians_ns (pgcb_stats_spread()). */
void pgcb_result_cell_spread(struct pgcb_res_cell *c);

/* result_transport.c: a cell's "transport" (null when not recorded), read
 * back tolerantly (absent or mistyped: not recorded), freed; the derived
 * "transport_summary" (tsummary.h), a new reference. */
struct pgcb_res_transport;
struct json_t *pgcb_result_transport_json(const struct pgcb_res_transport *t);
void pgcb_result_transport_read(struct json_t *cell, struct pgcb_res_transport *t);
void pgcb_result_transport_free(struct pgcb_res_transport *t);
struct json_t *pgcb_result_transport_summary_json(const struct pgcb_result *r);

/* result_types.c: a group's "columns" (null when unknown), "folded_as_text"
 * [{column, name, type, oid}] and "versus" (null) set on its JSON object
 * `one`; read back tolerantly (absent or mistyped: columns -1, none folded,
 * no versus); freed. The derived "conversion_cost" (versus.h), a new
 * reference. */
void pgcb_result_types_group_json(struct json_t *one, const struct pgcb_res_group *gr);
/* result_conc.c: a concurrency group's keys ("concurrency": {...}) and its
 * cells' (time_per_query_ns, client_busy, bottleneck, late_ns) into the
 * group's JSON object `one` (its "results" array already in), and back;
 * nothing for another group. */
void pgcb_result_conc_group_json(struct json_t *one, const struct pgcb_res_group *gr);
void pgcb_result_conc_group_read(struct json_t *o, struct pgcb_res_group *gr, size_t ncells);

/* The noise (result_noise.c): a cell's keys set on its JSON object j, and
 * read back from it (the spread recomputed from order_medians_ns when the
 * file has none); the environment's "noise" object, and read back from the
 * environment env (absent: all unknown); what the noise owns, freed. */
void pgcb_result_cell_noise_json(struct json_t *j, const struct pgcb_res_cell *c);
void pgcb_result_cell_noise_read(struct json_t *o, struct pgcb_res_cell *c);
struct json_t *pgcb_result_env_noise_json(const struct pgcb_result *r);
void pgcb_result_env_noise_read(struct json_t *env, struct pgcb_result *r);
void pgcb_result_noise_free(struct pgcb_result *r);

/* result_stream.c: a streaming group's keys ("stream": {"mode", "fetch_rows"})
 * and its cells' ("stream": {first_row_ns, rows, idiom, memory_verdict,
 * bytes_per_row}), written into the group's JSON object `one` (after its
 * "results") and read back; files without them read as before. */
void pgcb_result_stream_group_json(struct json_t *one, const struct pgcb_res_group *gr);
void pgcb_result_stream_group_read(struct json_t *o, struct pgcb_res_group *gr, size_t ncells);
/* The memory verdict of every streaming suite: per suite and mode, for
 * each driver, its peak at the suite's largest result against its
 * smallest (the groups' rows per read), set in the largest group's cell.
 * Needs two groups of different sizes in the suite. */
void pgcb_result_stream_verdicts(struct pgcb_result *r);

/* result_wire.c: a group's "rtt_ms" and "proxy" keys and its cells' "wire"
 * objects (written only where known: other files read as before), and
 * each cell's expectation at an RTT from its rtt-0 sibling group (the same
 * suite, query, depth and transport). */
void pgcb_result_wire_group_json(struct json_t *one, const struct pgcb_res_group *gr);
void pgcb_result_wire_group_read(struct json_t *o, struct pgcb_res_group *gr, size_t ncells);
void pgcb_result_wire_expect(struct pgcb_result *r);
const char *pgcb_mem_verdict_name(int v);
const char *pgcb_result_mode_name(int mode);
void pgcb_result_types_group_read(struct json_t *o, struct pgcb_res_group *gr);
void pgcb_result_types_group_free(struct pgcb_res_group *gr);
struct json_t *pgcb_result_conversion_cost_json(const struct pgcb_result *r);

/* result_profile.c: each profiled cell's "profile" into the group's JSON
 * object `one` (its "results" already in) and back (tolerant: absent or
 * mistyped is not profiled); a cell's freed. The run's "profile" object
 * (NULL when not asked: the key is left out), read from the root, freed. */
void pgcb_result_profile_group_json(struct json_t *one, const struct pgcb_res_group *gr);
void pgcb_result_profile_group_read(struct json_t *o, struct pgcb_res_group *gr, size_t ncells);
void pgcb_result_profile_cell_free(struct pgcb_res_profile *p);
struct json_t *pgcb_result_profile_run_json(const struct pgcb_res_run_profile *p);
void pgcb_result_profile_run_read(struct json_t *root, struct pgcb_res_run_profile *p);
void pgcb_result_profile_run_free(struct pgcb_res_run_profile *p);

/* result_selection.c: "selection" as JSON, {"driver_dir", "added_drivers",
 * "only", "suites", "queries", "left_out": {"drivers", "suites", "queries"}}
 * (a new reference; NULL if it cannot be built); the budget's sources are
 * added to the "budget" object `budget`. Reading is tolerant: what is
 * absent or mistyped is left empty (recorded = 0 without "selection"). */
struct json_t *pgcb_result_selection_json(const struct pgcb_res_selection *s);
void pgcb_result_selection_budget(const struct pgcb_res_selection *s, struct json_t *budget);
void pgcb_result_selection_read(struct json_t *root, struct pgcb_res_selection *s);
void pgcb_result_selection_free(struct pgcb_res_selection *s);

#endif
