/*
 * config_int.h -- what the pieces of the INI loader share (runner/config*.c;
 * the public API is config.h). Not for the rest of the runner.
 *
 *   config.c            the line reader, the inih handler, section dispatch,
 *                       unknown and repeated keys, the error wording, load,
 *                       free, the lookups
 *   config_value.c      value parsers every section uses (integers, reals,
 *                       fractions, booleans, names, paths)
 *   config_bench.c      [bench] and [server]
 *   config_driver.c     [driver.NAME]
 *   config_query.c      [query.NAME] (SQL, rows, check, prime, paramN)
 *   config_suite.c      [suite.NAME]
 *   config_background.c [background.NAME]
 *   config_dir.c        [bench] driver_dir: every NAME.so in it a driver
 *   config_env.c        BENCH_TIME_MS, BENCH_QUERIES, PGCB_CONNINFO
 *   config_cli.c        the command line: --driver, the budget flags, their
 *                       checks, and the digest for the journal
 *   config_select.c     the command line's --only, --suite and --query
 *
 * Errors: a piece records the first error with pgcb_cfgi_fail() (which
 * prefixes "FILE:LINE: " from c->lineno) and goes on or returns; the
 * loader reports c->err once the file is read. Ownership: what a piece
 * allocates into the config is freed by pgcb_config_free(); what it
 * allocates into the context (pending names) by the loader.
 */
#ifndef PGCB_CONFIG_INT_H
#define PGCB_CONFIG_INT_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"

enum pgcb_cfgi_sec {
    PGCB_CFGI_SEC_NONE,
    PGCB_CFGI_SEC_BENCH,
    PGCB_CFGI_SEC_SERVER,
    PGCB_CFGI_SEC_DRIVER,
    PGCB_CFGI_SEC_QUERY,
    PGCB_CFGI_SEC_SUITE,
    PGCB_CFGI_SEC_BACKGROUND,
};

/* Names given in one section that name other sections (a suite's
 * `queries =`), resolved after the whole file is read. names is owned. */
struct pgcb_cfgi_names {
    char *names;
    int line;
};

/* The loader's state while it reads one file. */
struct pgcb_cfgi_ctx {
    struct pgcb_config *cfg;
    const struct pgcb_config_cli *cli; /* NULL: none */
    FILE *fp;
    int lineno;
    int cont;                 /* the current line continues the previous value */
    char err[512];            /* first error, "" if none */
    enum pgcb_cfgi_sec kind;
    size_t idx;               /* index of the current driver/query/suite */
    char section[256];
    char last_key[128];       /* key of the previous key line in this section */
    char *last_value;         /* its accumulated value (for continuation) */
    unsigned bench_seen, server_seen; /* bitmasks of keys seen */
    int bench_line, server_line;      /* where [bench] / [server] began; 0: not yet */
    unsigned *query_seen, *suite_seen, *bg_seen;
    struct pgcb_cfgi_names *suite_names;  /* queries = */
    struct pgcb_cfgi_names *suite_bgs;    /* background = */
    struct pgcb_cfgi_names *bg_driver, *bg_query;
    int *query_check_line;              /* line of `check =`, 0 if not given */
    int *query_prime_line;              /* line of `prime =`, 0 if not given */
    int *query_versus_line;             /* line of `versus =`, 0 if not given */
};

/* ---- errors and values (config.c, config_value.c) ---------------------- */

/* Record "FILE:LINE: message" as c->err unless an error is already there
 * (the first one is kept); newlines in it become spaces. */
void pgcb_cfgi_fail(struct pgcb_cfgi_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The same without "FILE:LINE: ": an error about a command-line flag. */
void pgcb_cfgi_fail_plain(struct pgcb_cfgi_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Record the error at `line` and return -1 from the calling function. */
#define PGCB_CFGI_FAIL_AT(c, line, ...)                                                \
    do {                                                                               \
        (c)->lineno = (line);                                                          \
        pgcb_cfgi_fail((c), __VA_ARGS__);                                              \
        return -1;                                                                     \
    } while (0)

/* Index of key in the NULL-terminated list keys, or -1. */
int pgcb_cfgi_key_index(const char *const *keys, const char *key);

/* "0.01", "1e-3" or "1/64": a finite number, no junk. 0, or -1. */
int pgcb_cfgi_parse_fraction(const char *s, double *out);

/* yes/no, true/false, on/off, 1/0; -1 for anything else. */
int pgcb_cfgi_parse_bool(const char *v);

/* Names of drivers, queries, suites and backgrounds: [a-z0-9_]+, at most 63
 * bytes (they become statement names and JSON keys). */
int pgcb_cfgi_valid_name(const char *s);
/* A driver's name: a valid name, or NAME@RELEASE (a client at a release:
 * pg@8.11.5, pgx@v4.18.3), the release of a-z, 0-9 and . _ - +, starting
 * with a digit or v; 63 characters in all at most. */
int pgcb_cfgi_valid_driver_name(const char *s);

/* p relative to the INI file's directory (as is when absolute); new string. */
char *pgcb_cfgi_resolve_path(const struct pgcb_config *cfg, const char *p);

/* `value` of `key` in the current section as an integer in [min, max]: 1,
 * or 0 with the error "[SECTION] KEY: 'VALUE' is not an integer from MIN to
 * MAX" recorded. */
int pgcb_cfgi_int_key(struct pgcb_cfgi_ctx *c, const char *key, const char *value, uint64_t min,
                      uint64_t max, uint64_t *out);

/* `value` of `key` as a libpq connection string (key=value or URI) libpq
 * can parse: 1, or 0 with "[SECTION] KEY: libpq's reason" recorded (the
 * reason withheld when the string may hold a password). */
int pgcb_cfgi_conninfo_key(struct pgcb_cfgi_ctx *c, const char *key, const char *value);

/* `value` of `key` as a number above 0 and at most max: 1, or 0 with the
 * error "[SECTION] KEY: 'VALUE' is not WHAT" recorded. */
int pgcb_cfgi_real_key(struct pgcb_cfgi_ctx *c, const char *key, const char *value, double max,
                       const char *what, double *out);

/* ---- the sections ---------------------------------------------------------
 *
 * Each section kind has its known keys (NULL-terminated; [driver.NAME] has
 * none: a driver's keys are checked against the driver's own list once it is
 * loaded), a begin function that appends its entry when the header is read
 * (the name is valid and not taken: config.c checked), an apply function for
 * one `key = value` (the whole value, continuation lines included; the key
 * is known and not repeated; returns 1, or 0 with the error recorded), and a
 * finish function run after the file (0, or -1 with the error recorded). */

extern const char *const pgcb_cfgi_bench_keys[];
extern const char *const pgcb_cfgi_server_keys[];
extern const char *const pgcb_cfgi_query_keys[];   /* besides param1 .. param64 */
extern const char *const pgcb_cfgi_suite_keys[];
extern const char *const pgcb_cfgi_bg_keys[];

int pgcb_cfgi_bench_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value);
int pgcb_cfgi_server_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value);
/* until = decided and its keys, which only go together. */
int pgcb_cfgi_bench_finish(struct pgcb_cfgi_ctx *c);
/* [bench] checksum_reference names a driver of the run (after the drivers
 * are known). */
int pgcb_cfgi_bench_reference(struct pgcb_cfgi_ctx *c);

void pgcb_cfgi_driver_begin(struct pgcb_cfgi_ctx *c, const char *name);
/* 1 if `key` was already given in the current [driver.NAME]. */
int pgcb_cfgi_driver_repeated(const struct pgcb_cfgi_ctx *c, const char *key);
int pgcb_cfgi_driver_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value);
/* driver_dir's NAME.so files as drivers (config_dir.c), before the checks
 * of the [driver.NAME] sections. */
int pgcb_cfgi_dir_finish(struct pgcb_cfgi_ctx *c);
/* --driver NAME=PATH as drivers (config_cli.c), after driver_dir's. */
int pgcb_cfgi_cli_drivers(struct pgcb_cfgi_ctx *c);
/* Append a driver without a section; returns it. name and path are copied. */
struct pgcb_cfg_driver *pgcb_cfgi_driver_add(struct pgcb_config *cfg, const char *name,
                                             const char *path, enum pgcb_cfg_origin origin,
                                             int line);
/* At least one driver, each with a path. */
int pgcb_cfgi_driver_finish(struct pgcb_cfgi_ctx *c);
/* At least one driver that is measured (after the backgrounds). */
int pgcb_cfgi_driver_finish_measured(struct pgcb_cfgi_ctx *c);
void pgcb_cfgi_driver_free(struct pgcb_cfg_driver *d);

void pgcb_cfgi_query_begin(struct pgcb_cfgi_ctx *c, const char *name);
/* `paramN`: N in 1 .. PGCB_MAX_PARAMS; 0 if key is not of that form. */
unsigned pgcb_cfgi_param_number(const char *key);
/* 1 if paramN `key` was already given in the current [query.NAME]. */
int pgcb_cfgi_query_param_repeated(const struct pgcb_cfgi_ctx *c, const char *key);
int pgcb_cfgi_query_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value);
/* At least one query, each with SQL; parameters numbered without gaps;
 * the check and prime defaults. */
int pgcb_cfgi_query_finish(struct pgcb_cfgi_ctx *c);
void pgcb_cfgi_query_free(struct pgcb_cfg_query *q);

void pgcb_cfgi_suite_begin(struct pgcb_cfgi_ctx *c, const char *name);
long pgcb_cfgi_find_suite(const struct pgcb_config *cfg, const char *name);
int pgcb_cfgi_suite_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value);
/* At least one suite; depths, ops, and the query and background names
 * resolved into indices. */
int pgcb_cfgi_suite_finish(struct pgcb_cfgi_ctx *c);
void pgcb_cfgi_suite_free(struct pgcb_cfg_suite *s);

void pgcb_cfgi_bg_begin(struct pgcb_cfgi_ctx *c, const char *name);
long pgcb_cfgi_find_bg(const struct pgcb_config *cfg, const char *name);
int pgcb_cfgi_bg_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value);
/* Required keys; the driver and query names resolved; default CPUs. */
int pgcb_cfgi_bg_finish(struct pgcb_cfgi_ctx *c);

/* ---- after the file (config_env.c, config_cli.c, config_select.c) --------- */

/* BENCH_TIME_MS, BENCH_QUERIES, PGCB_CONNINFO. 0, or -1 with "VAR: ..." in
 * err. */
int pgcb_cfgi_apply_env(struct pgcb_config *cfg, char *err, size_t errlen);

/* -T / --time-ms and --queries over what the file and the environment set. */
void pgcb_cfgi_apply_cli_budget(struct pgcb_config *cfg, const struct pgcb_config_cli *cli);

/* --only, --suite and --query: leave out what they do not name, and record
 * it in cfg->sel. 0, or -1 with "FLAG: ..." in err. */
int pgcb_cfgi_select(struct pgcb_config *cfg, const struct pgcb_config_cli *cli, char *err,
                     size_t errlen);

/* "a, b, c": the names of n items (name_of(items, i)), cut short with
 * "..." to fit buf. */
void pgcb_cfgi_list(char *buf, size_t n, size_t count,
                    const char *(*name_of)(const struct pgcb_config *, size_t),
                    const struct pgcb_config *cfg);

void pgcb_cfgi_names_add(struct pgcb_cfg_names *l, const char *name);
void pgcb_cfgi_names_free(struct pgcb_cfg_names *l);

/* config_conc.c: a suite's concurrency keys (concurrency, pool, mode, rate):
 * apply one (1, or 0 with the error recorded), and check them once the
 * suite is complete (its queries resolved): pool defaults to concurrency,
 * mode to closed; 0, or -1 with the error naming the line and key. */
int pgcb_cfgi_conc_apply(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s, const char *key,
                         const char *value);
int pgcb_cfgi_conc_check(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s);

/* config_stream.c: a suite's streaming keys (stream, fetch_rows, reads):
 * apply returns 1 (consumed) or 0 (failed, message set); check runs once
 * the suite is complete (its queries resolved): a streaming suite has depth
 * 1, one thread, no transaction, connect, ops or concurrency, and no COPY
 * query; fetch_rows and reads only with stream. It marks the suite's
 * queries as streaming queries. 0 or -1 (message set). */
int pgcb_cfgi_stream_apply(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s, const char *key,
                           const char *value);
int pgcb_cfgi_stream_check(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s);

/* config_net.c: a suite's rtt_ms (a list of distinct round-trip times, 0
 * to PGCB_MAX_RTT_MS): apply returns 1 (consumed) or 0 (failed, message
 * set); check runs once the suite is complete: a suite with rtt_ms and no
 * transport gets transport = tcp (transport_by_rtt), and transport = unix
 * is refused. 0 or -1 (message set). */
int pgcb_cfgi_net_apply(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_rtts *s, const char *value);
int pgcb_cfgi_net_check(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s);

/* After every suite's check: no query is read both by a streaming suite
 * and by another. 0 or -1 (message set). */
int pgcb_cfgi_stream_exclusive(struct pgcb_cfgi_ctx *c);

#endif
