/*
 * config.h -- the run's INI file (parsed with inih) and its environment
 * overrides.
 *
 * Ownership: a struct pgcb_config owns every string and array it points to;
 * pgcb_config_free() releases them. Paths in the file are resolved relative
 * to the directory of the INI file at load time.
 */
#ifndef PGCB_CONFIG_H
#define PGCB_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "gen.h"
#include "pgcb/driver.h"
#include "sched/orders.h"
#include "result.h"
#include "server/transport.h"
#include "sys/cpuidle.h"
#include "util.h"


/* One `key = value` of a [driver.NAME] section, kept for the driver. */
struct pgcb_cfg_kv {
    char *key;
    char *value;
    int line;
};

/* Where a driver's path comes from. */
enum pgcb_cfg_origin {
    PGCB_CFG_FROM_SECTION = 0, /* `path =` of its [driver.NAME] section */
    PGCB_CFG_FROM_DIR,         /* NAME.so in [bench] driver_dir (its [driver.NAME] section, if
                                  there is one, gives its keys) */
    PGCB_CFG_FROM_CLI,         /* runner --driver NAME=PATH: default options */
};

struct pgcb_cfg_driver {
    char *name;             /* the NAME of [driver.NAME]: the label in tables */
    char *path;             /* resolved path of the .so (--driver: as given) */
    int line;               /* line of the section header; without a section, of
                               driver_dir (0 for --driver) */
    int path_line;          /* line of `path =` (or of driver_dir), 0 if missing */
    struct pgcb_cfg_kv *opts;
    size_t nopts;
    int measure;            /* `measure = no`, or left out by --only: loaded only to run
                               background load, if a background names it */
    int measure_line;
    enum pgcb_cfg_origin origin;
    int has_section;        /* a [driver.NAME] section exists (line is its header's) */
};

/* A list of names the config owns. */
struct pgcb_cfg_names {
    char **v;
    size_t n;
};

/* What the command line selected (runner --only, --suite, --query) and what
 * the config had that this run leaves out, for the result's record. A list
 * `asked` only when its flag was given (*_given). */
struct pgcb_cfg_selection {
    int only_given, suites_given, queries_given;
    struct pgcb_cfg_names only, suites, queries;   /* as given, in the command line's order */
    struct pgcb_cfg_names dropped_drivers;  /* measured drivers of the config not measured */
    struct pgcb_cfg_names dropped_suites;   /* suites of the config not run */
    struct pgcb_cfg_names dropped_queries;  /* queries some suite of the config runs and no
                                               group of this run does */
};

/* What the runner checks of every batch of a query. */
enum pgcb_check {
    PGCB_CHECK_CHECKSUM = 0, /* rows and checksum, within and across drivers */
    PGCB_CHECK_ROWS = 1,     /* rows only (non-deterministic results) */
    PGCB_CHECK_NONE = 2,     /* nothing (rows vary, e.g. random keys of a changing table) */
};

/* What bulk.c fetched for a bulk query (bulk.h); NULL before. */
struct pgcb_bulk;

/* [query] copy_format. */
enum pgcb_copy_format { PGCB_COPY_TEXT = 0, PGCB_COPY_BINARY = 1 };

struct pgcb_cfg_query {
    char *name;
    char *sql;
    int64_t rows;           /* expected rows per execution; -1: not given */
    enum pgcb_check check;  /* default: checksum; rows (rows given) or none with params */
    struct pgcb_gen *params;/* generators of $1..$nparams */
    size_t nparams;
    int prime;              /* executed once at connect time (default: read-only SQL) */
    char *versus;           /* [query] versus: its twin, the same shape with the columns cast
                               to text (the conversion-cost table, common/versus.h); NULL */
    int line;
    /* Bulk writes (bulk.h, docs/configuration.md "Bulk writes"). */
    char *copy;             /* copy = TABLE: a COPY FROM STDIN into TABLE; NULL: not a COPY.
                               Its sql is the COPY statement (made by the runner) */
    char *copy_from;        /* copy_from = SQL: the source rows (required with copy) */
    enum pgcb_copy_format copy_format;
    char *params_from;      /* params_from = SQL: $1..$n from its rows (instead of paramN) */
    char *read_back;        /* read_back = TABLE: the rows of one batch inserted into it are
                               read back and compared with params_from's (needs params_from) */
    int copy_line, params_from_line, read_back_line; /* where given; 0: not */
    int stream;             /* read by a streaming suite (and by no other suite) */
    struct pgcb_bulk *bulk; /* owned: fetched from the server (pgcb_bulk_fetch) */
};

/* A list of round-trip times (rtt_ms; config_net.c), owned. */
struct pgcb_cfg_rtts {
    double *rtts;
    size_t nrtts;
    int rtt_line;           /* where given; 0: not */
};

struct pgcb_cfg_suite {
    char *name;
    uint32_t *depths;       /* one group per (query, depth) */
    size_t ndepths;
    size_t *queries;        /* indices into pgcb_config.queries */
    size_t nqueries;
    uint32_t threads;       /* measuring threads, each with its own connection */
    int transaction;        /* rows_per_txn: each batch is BEGIN, depth queries, COMMIT */
    uint64_t ops;           /* > 0: exactly this many queries per driver and order, no
                               time budget, no warm-up */
    int64_t warmup_ms;      /* -1: [bench] warmup_ms */
    size_t *backgrounds;    /* indices into pgcb_config.backgrounds */
    size_t nbackgrounds;
    /* transport = unix tcp tls: one group per transport, the innermost
     * dimension (connplan.h); none given: ntransports = 0, the run's
     * conninfo as it is. */
    enum pgcb_transport *transports;
    size_t ntransports;
    int transport_line;
    int transport_by_rtt;   /* the transport is tcp because rtt_ms asked for it */
    /* rtt_ms = 0 0.2 1 5: one group per round-trip time, innermost (after
     * the transport), each through the wire proxy with half the RTT added
     * each way (config_net.c); none given: nrtts = 0, no proxy. */
    struct pgcb_cfg_rtts rtt;
    char *conninfo;         /* extra libpq keys for this suite's connections; NULL: none */
    int conninfo_line;
    /* connect = yes: a connection suite, each sample one whole connection
     * (open, prepare, one execution at depth 1, close; docs/measuring.md);
     * its count floor is `connections` per driver and order (all threads
     * together) instead of [bench] queries. */
    int connect;
    uint64_t connections;   /* default PGCB_DEFAULT_CONNECTIONS */
    int connect_line, connections_line, depth_line, ops_line; /* where given; 0: not */
    /* concurrency = N (> 0: a concurrency suite, config_conc.c): one driver
     * instance (a measuring thread; for the bridge, one adapter process)
     * keeps N queries in flight over a pool of `pool` connections (default
     * N), in closed loops (mode PGCB_LOAD_CLOSED) or at `rate` queries per
     * second (PGCB_LOAD_RATE); `threads` such instances. */
    uint32_t concurrency, pool;
    int mode;               /* enum pgcb_load_mode; 0 until checked */
    double rate;
    int concurrency_line, pool_line, mode_line, rate_line;
    /* stream = buffered | streamed (> 0: a streaming suite, config_stream.c):
     * each sample is one whole result of its query read in that mode
     * (enum pgcb_result_mode, ABI 1.6 run_stream), `fetch_rows` rows per
     * round trip for an idiom that fetches in chunks; its count floor is
     * `reads` per driver and order instead of [bench] queries. */
    int result_mode;
    uint32_t fetch_rows;
    uint64_t reads;
    int stream_line, fetch_rows_line, reads_line;
    int line;
};

/* [background.NAME]: connections running a query at a fixed rate while the
 * groups of the suites that name it are measured. */
struct pgcb_cfg_background {
    char *name;
    size_t driver;          /* index into pgcb_config.drivers */
    size_t query;           /* index into pgcb_config.queries */
    double rate;            /* target executions per second, per connection */
    uint32_t connections;
    int cpus[PGCB_MAX_CPUS];/* pinned round-robin; default: the CPUs other than [bench]
                               cpus (main.c), or those when there is no other */
    size_t ncpus;
    int cpus_default;       /* not given: cpus holds [bench] cpus until main.c decides */
    double sla;             /* fraction of the target rate that must be achieved */
    int line;
};

#define PGCB_MAX_THREADS 256
/* rtt_ms: at most this many values per suite, each at most PGCB_MAX_RTT_MS
 * (a second: no deployment is farther from its server). */
#define PGCB_MAX_RTTS 8
#define PGCB_MAX_RTT_MS 1000


/* [bench] profile: sample each driver's measured orders with perf. */
enum pgcb_profile_mode { PGCB_PROFILE_OFF, PGCB_PROFILE_ON, PGCB_PROFILE_TRY };

/* "off", "on", "try"; and back: 0, or -1 for anything else. */
const char *pgcb_profile_mode_name(enum pgcb_profile_mode m);
int pgcb_profile_mode_parse(const char *s, enum pgcb_profile_mode *out);

struct pgcb_config {
    char *file;             /* the INI path as given */
    char *dir;              /* its directory, for relative paths */

    /* [bench] */
    uint64_t time_ms;       /* total measured time per group and driver,
                               split across the execution orders */
    uint64_t min_queries;   /* executed queries per order, at least */
    uint64_t warmup_ms;     /* uncounted warm-up per group and driver */
    uint64_t batch_timeout_ms; /* no progress for this long fails the driver's group */
    uint64_t max_rss_mb;       /* > 0: each driver's processes in a memory cgroup of this many
                                  MiB (runner/sys/memcg.h); 0: no limit */
    int max_rss_mb_line;
    int memory;                /* read each client's memory between jobs (default 1); 0: not */
    int respawn_order;         /* [bench] respawn = order: each driver's host (and a bridged
                                  client's adapter processes) started anew, connected, primed
                                  and warmed up for warmup_ms before each of its orders
                                  (group_order.c); 0 (as_needed): a host lives from group to
                                  group, restarted only when a group needs it */
    enum pgcb_cpu_idle cpu_idle; /* [bench] cpu_idle (runner/sys/cpuidle.h): auto (default),
                                  poll or system */
    int cpu_idle_line;         /* where it was set; 0: not */
    struct pgcb_cfg_rtts rtt;  /* [bench] rtt_ms: every suite's without its own */
    int wire;                  /* the proxies of rtt_ms groups count what crosses (default 1);
                                  0: they only carry it (the check that counting does not move
                                  the medians) */
    int cpus[PGCB_MAX_CPUS];/* CPUs of the measuring threads, in order */
    size_t ncpus;
    char *output;           /* resolved; strftime() sequences allowed; NULL: default */
    enum pgcb_orders_mode orders; /* auto: all permutations up to 4 drivers, else balanced */
    size_t orders_n;              /* for PGCB_ORDERS_COUNT */
    double alpha;           /* the verdicts' sign-test level, (0, 0.5]; default 1/64 */
    double interval_level;  /* of the ratio intervals, (0, 1); default 0.95 */
    int until_decided;      /* until = decided: a group stops once decided (group_order.c) */
    size_t until_max_orders;/* its cap, in orders (required with until = decided) */
    double until_width;     /* its largest relative interval width, (0, 1] */
    int until_line, until_max_line, until_width_line; /* where they were set; 0: not */
    const char *time_source;    /* "default", "file", "BENCH_TIME_MS", "-T" or "--time-ms" */
    const char *queries_source; /* "default", "file", "BENCH_QUERIES" or "--queries" */
    uint64_t seed;          /* parameter generators */
    double noise_warn_pct;  /* warn when a driver's per-order medians spread more (robust
                               CV, %); default PGCB_STATS_NOISE_WARN_PCT */
    char *checksum_reference; /* [bench] checksum_reference: the driver whose checksum is
                               every group's, instead of the clients' majority; NULL: none */
    int checksum_reference_line;
    size_t nseqs;           /* seq generators in all queries (shared counters) */
    struct pgcb_protocol proto; /* result_format, describe, sync: what every driver is asked
                               for (common/proto.h; default text, per_execution, per_query,
                               statements always named) */

    char *driver_dir;       /* [bench] driver_dir, resolved; NULL: none */
    int driver_dir_line;
    /* [bench] profile / --profile (docs/profiling.md): off (default), on (perf must
     * work, else the run stops before measuring), try (without perf: unprofiled) */
    enum pgcb_profile_mode profile;
    const char *profile_source; /* "default", "file" or "--profile" */
    int profile_line;       /* where [bench] profile was set; 0: not */
    struct pgcb_cfg_selection sel;

    /* [server] */
    char *conninfo;         /* "" = PG* environment variables */
    const char *conninfo_source; /* "file", "PGCB_CONNINFO" or "environment" */
    char *setup;            /* resolved path of the SQL setup file, or NULL */
    /* [server] unix, tcp, tls: libpq keys over the part each transport's
     * default adds (transport.h); NULL: the default alone. */
    char *transport_conninfo[PGCB_TRANSPORT_N];
    int transport_line[PGCB_TRANSPORT_N];

    struct pgcb_cfg_driver *drivers;
    size_t ndrivers;
    struct pgcb_cfg_query *queries;
    size_t nqueries;
    struct pgcb_cfg_suite *suites;
    size_t nsuites;
    struct pgcb_cfg_background *backgrounds;
    size_t nbackgrounds;
};

/* Defaults (DESIGN.md). */
#define PGCB_DEFAULT_TIME_MS 9000
#define PGCB_DEFAULT_QUERIES 5000
#define PGCB_DEFAULT_CONNECTIONS 50
#define PGCB_DEFAULT_FETCH_ROWS 1000
#define PGCB_DEFAULT_READS 3
#define PGCB_DEFAULT_WARMUP_MS 1000
#define PGCB_DEFAULT_BATCH_TIMEOUT_MS 10000
#define PGCB_DEFAULT_SEED 1
#define PGCB_DEFAULT_SLA 0.95
#define PGCB_DEFAULT_UNTIL_WIDTH 0.10
/* Most parameters of one query. */
#define PGCB_MAX_PARAMS 64

/* Load `path`, then apply BENCH_TIME_MS, BENCH_QUERIES and PGCB_CONNINFO
 * from the environment. On failure returns -1 and writes a one-line message
 * ("FILE:LINE: what is wrong", or "ENVVAR: ...") into err; *cfg is then
 * freed. On success *cfg is owned by the caller. */
int pgcb_config_load(const char *path, struct pgcb_config *cfg, char *err, size_t errlen);

/* ---- the command line's additions, selection and overrides ----------------
 *
 * runner --driver NAME=PATH (repeatable), --only NAME,... , --suite NAME,...,
 * --query NAME,... (each repeatable, comma lists), -T SEC, --time-ms MS,
 * --queries N, --profile[=MODE] (docs/cli.md). The struct only points into the caller's
 * strings (argv), which must outlive pgcb_config_load_cli(); it allocates
 * nothing. */
enum pgcb_cli_flag {
    PGCB_CLI_DRIVER,    /* --driver NAME=PATH */
    PGCB_CLI_ONLY,      /* --only NAME,... : the drivers measured */
    PGCB_CLI_SUITE,     /* --suite NAME,... */
    PGCB_CLI_QUERY,     /* --query NAME,... */
    PGCB_CLI_TIME_S,    /* -T SEC */
    PGCB_CLI_TIME_MS,   /* --time-ms MS */
    PGCB_CLI_QUERIES,   /* --queries N */
    PGCB_CLI_PROFILE,   /* --profile[=on|try|off] (arg NULL: on) */
    PGCB_CLI_NFLAGS
};

#define PGCB_CLI_MAX 64 /* of each repeatable flag */

struct pgcb_config_cli {
    const char *drivers[PGCB_CLI_MAX]; /* "NAME=PATH", checked */
    size_t ndrivers;
    const char *only[PGCB_CLI_MAX], *suites[PGCB_CLI_MAX], *queries[PGCB_CLI_MAX];
    size_t nonly, nsuites, nqueries;   /* comma lists as given, checked for empty names */
    const char *time_flag;             /* "-T" or "--time-ms"; NULL: not given */
    uint64_t time_ms;
    int queries_given;
    uint64_t min_queries;
    int profile_given;                 /* --profile[=MODE], over [bench] profile */
    enum pgcb_profile_mode profile;
};

/* The flag's spelling as the user types it ("--driver", "-T", ...). */
const char *pgcb_config_cli_flag_name(enum pgcb_cli_flag f);

/* Record one flag's value (arg: borrowed). Checks what can be checked
 * without the config: NAME=PATH's form and name, no empty name in a list,
 * numbers in range, no second time budget. Returns 0, or -1 with
 * "FLAG ...: what is wrong" in err. */
int pgcb_config_cli_arg(struct pgcb_config_cli *cli, enum pgcb_cli_flag f, const char *arg,
                        char *err, size_t errlen);

/* 1 if any flag was recorded. */
int pgcb_config_cli_given(const struct pgcb_config_cli *cli);

/* pgcb_config_load() with the command line applied (cli may be NULL: the
 * same as pgcb_config_load()): [bench] driver_dir's drivers and --driver's
 * are added before the file's checks (so a file may have no [driver.NAME]
 * of its own), the budget flags after the environment (command line >
 * environment > file), then the selection. Errors about a flag start with
 * the flag ("--only: no driver 'x' (...)"). */
int pgcb_config_load_cli(const char *path, const struct pgcb_config_cli *cli,
                         struct pgcb_config *cfg, char *err, size_t errlen);

/* The record of cfg's selection, added drivers and budget sources for the
 * result (result.h; out is overwritten, owned by the caller). */
void pgcb_config_record_selection(const struct pgcb_config *cfg, struct pgcb_res_selection *out);

/* What the command line and driver_dir made of the config beyond the file's
 * bytes and the environment, as text for the journal's config hash
 * (journal.h): the drivers not from a section (name, real path, origin), the
 * selection in effect and the budget flags. "" when there is none. The
 * caller frees it. */
char *pgcb_config_cli_digest(const struct pgcb_config *cfg);

void pgcb_config_free(struct pgcb_config *cfg);

/* 1 if sql starts with SELECT, WITH, VALUES, TABLE or SHOW (case
 * insensitive, after blanks and '('), and, for WITH, names no INSERT,
 * UPDATE, DELETE or MERGE: a query primed at connect time by default. (A
 * function that writes is not seen: say prime = no.) */
int pgcb_config_read_only(const char *sql);

/* Find a query / driver by name; -1 if none. */
long pgcb_config_find_query(const struct pgcb_config *cfg, const char *name);
long pgcb_config_find_driver(const struct pgcb_config *cfg, const char *name);

#endif
