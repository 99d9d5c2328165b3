/*
 * test_config.c -- the INI loader: values, defaults, relative paths,
 * environment overrides, and every error with its file:line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "pgcb/driver.h"
#include "stats.h"

static char dir[] = "/tmp/pgcb_test_config_XXXXXX";
static char path[256];

/* Write `text` to DIR/t.ini and return its path. */
static const char *write_ini(const char *text)
{
    snprintf(path, sizeof path, "%s/t.ini", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define MINIMAL                                                                        \
    "[driver.d]\npath = d.so\n[query.q]\nsql = SELECT 1\nrows = 1\n[suite.s]\ndepth = 1\n"

/* Load text, expect failure; the message must be exactly "DIR/t.ini:" + tail. */
static void expect_error(const char *text, const char *tail)
{
    struct pgcb_config cfg;
    char err[512] = "", want[512];
    assert_int_equal(pgcb_config_load(write_ini(text), &cfg, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s%s", path, tail);
    assert_string_equal(err, want);
}

static int setup(void **state)
{
    (void)state;
    unsetenv("BENCH_TIME_MS");
    unsetenv("BENCH_QUERIES");
    unsetenv("PGCB_CONNINFO");
    return 0;
}

static void test_full_config(void **state)
{
    (void)state;
    const char *text = "; comment\n"
                       "[bench]\n"
                       "time_ms = 1200\n"
                       "queries = 300\n"
                       "warmup_ms = 0\n"
                       "batch_timeout_ms = 2500\n"
                       "cpus = 1,3-4\n"
                       "output = out/r.json\n"
                       "orders = 12\n"
                       "alpha = 1/32\n"
                       "interval_level = 0.9\n"
                       "respawn = order\n"
                       "cpu_idle = system\n"
                       "[server]\n"
                       "conninfo = host=/tmp port=5433\n"
                       "setup = ../sql/x.sql\n"
                       "[driver.a]\n"
                       "path = /abs/a.so\n"
                       "result_format = binary\n"
                       "[driver.b]\n"
                       "path = b.so\n"
                       "[query.one]\n"
                       "sql = SELECT a,\n"
                       "  b FROM t\n"
                       "rows = 5\n"
                       "check = rows\n"
                       "[query.two]\n"
                       "sql = SELECT 2\n"
                       "[suite.seq]\n"
                       "depth = 1 10, 100\n"
                       "queries = two one\n"
                       "threads = 3\n"
                       "[suite.all]\n";
    struct pgcb_config cfg;
    char err[512] = "";
    assert_int_equal(pgcb_config_load(write_ini(text), &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.time_ms, 1200);
    assert_string_equal(cfg.time_source, "file");
    assert_int_equal(cfg.min_queries, 300);
    assert_int_equal(cfg.warmup_ms, 0);
    assert_int_equal(cfg.orders, PGCB_ORDERS_COUNT);
    assert_int_equal(cfg.orders_n, 12);
    assert_true(cfg.alpha == 1.0 / 32);
    assert_true(cfg.interval_level == 0.9);
    assert_int_equal(cfg.respawn_order, 1);
    assert_int_equal(cfg.cpu_idle, PGCB_IDLE_SYSTEM);
    assert_int_equal(cfg.cpu_idle_line, 13);
    assert_int_equal(cfg.batch_timeout_ms, 2500);
    assert_int_equal(cfg.ncpus, 3);
    assert_int_equal(cfg.cpus[0], 1);
    assert_int_equal(cfg.cpus[1], 3);
    assert_int_equal(cfg.cpus[2], 4);
    char want[300];
    snprintf(want, sizeof want, "%s/out/r.json", dir);
    assert_string_equal(cfg.output, want);
    assert_string_equal(cfg.conninfo, "host=/tmp port=5433");
    assert_string_equal(cfg.conninfo_source, "file");
    snprintf(want, sizeof want, "%s/../sql/x.sql", dir);
    assert_string_equal(cfg.setup, want);

    assert_int_equal(cfg.ndrivers, 2);
    assert_string_equal(cfg.drivers[0].name, "a");
    assert_string_equal(cfg.drivers[0].path, "/abs/a.so");
    assert_int_equal(cfg.drivers[0].path_line, 18);
    assert_int_equal(cfg.drivers[0].nopts, 1);
    assert_string_equal(cfg.drivers[0].opts[0].key, "result_format");
    assert_string_equal(cfg.drivers[0].opts[0].value, "binary");
    assert_int_equal(cfg.drivers[0].opts[0].line, 19);
    snprintf(want, sizeof want, "%s/b.so", dir);
    assert_string_equal(cfg.drivers[1].path, want);

    assert_int_equal(cfg.nqueries, 2);
    assert_string_equal(cfg.queries[0].sql, "SELECT a,\nb FROM t");
    assert_int_equal(cfg.queries[0].rows, 5);
    assert_int_equal(cfg.queries[0].check, PGCB_CHECK_ROWS);
    assert_int_equal(cfg.queries[1].rows, -1);
    assert_int_equal(cfg.queries[1].check, PGCB_CHECK_CHECKSUM);

    assert_int_equal(cfg.nsuites, 2);
    assert_int_equal(cfg.suites[0].ndepths, 3);
    assert_int_equal(cfg.suites[0].depths[0], 1);
    assert_int_equal(cfg.suites[0].depths[1], 10);
    assert_int_equal(cfg.suites[0].depths[2], 100);
    assert_int_equal(cfg.suites[0].nqueries, 2);
    assert_int_equal(cfg.suites[0].queries[0], 1); /* two */
    assert_int_equal(cfg.suites[0].queries[1], 0); /* one */
    assert_int_equal(cfg.suites[0].threads, 3);
    assert_int_equal(cfg.suites[1].threads, 1);
    /* An empty suite: depth 1, every query in file order. */
    assert_int_equal(cfg.suites[1].ndepths, 1);
    assert_int_equal(cfg.suites[1].depths[0], 1);
    assert_int_equal(cfg.suites[1].nqueries, 2);
    assert_int_equal(cfg.suites[1].queries[0], 0);
    pgcb_config_free(&cfg);
}

static void test_defaults_and_env(void **state)
{
    (void)state;
    struct pgcb_config cfg;
    char err[512] = "";
    assert_int_equal(pgcb_config_load(write_ini(MINIMAL), &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.time_ms, PGCB_DEFAULT_TIME_MS);
    assert_int_equal(cfg.min_queries, PGCB_DEFAULT_QUERIES);
    assert_int_equal(cfg.warmup_ms, PGCB_DEFAULT_WARMUP_MS);
    assert_int_equal(cfg.orders, PGCB_ORDERS_AUTO);
    assert_true(cfg.alpha == 1.0 / 64);
    assert_true(cfg.interval_level == 0.95);
    assert_int_equal(cfg.respawn_order, 0);
    assert_int_equal(cfg.cpu_idle, PGCB_IDLE_AUTO);
    assert_int_equal(cfg.cpu_idle_line, 0);
    assert_int_equal(cfg.batch_timeout_ms, PGCB_DEFAULT_BATCH_TIMEOUT_MS);
    assert_true(cfg.noise_warn_pct == PGCB_STATS_NOISE_WARN_PCT);
    assert_string_equal(cfg.time_source, "default");
    assert_int_equal(cfg.ncpus, 1);
    assert_int_equal(cfg.cpus[0], 0);
    assert_null(cfg.output);
    assert_null(cfg.setup);
    assert_string_equal(cfg.conninfo, "");
    assert_string_equal(cfg.conninfo_source, "environment");
    pgcb_config_free(&cfg);
    assert_int_equal(pgcb_config_load(write_ini("[bench]\nnoise_warn_pct = 7.5\n" MINIMAL),
                                      &cfg, err, sizeof err), 0);
    assert_true(cfg.noise_warn_pct == 7.5);
    pgcb_config_free(&cfg);

    setenv("BENCH_TIME_MS", "250", 1);
    setenv("BENCH_QUERIES", "77", 1);
    setenv("PGCB_CONNINFO", "dbname=x", 1);
    assert_int_equal(pgcb_config_load(write_ini("[bench]\ntime_ms = 5\nqueries = 6\n" MINIMAL),
                                      &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.time_ms, 250);
    assert_string_equal(cfg.time_source, "BENCH_TIME_MS");
    assert_int_equal(cfg.min_queries, 77);
    assert_string_equal(cfg.queries_source, "BENCH_QUERIES");
    assert_string_equal(cfg.conninfo, "dbname=x");
    assert_string_equal(cfg.conninfo_source, "PGCB_CONNINFO");
    pgcb_config_free(&cfg);

    setenv("BENCH_TIME_MS", "12x", 1);
    assert_int_equal(pgcb_config_load(write_ini(MINIMAL), &cfg, err, sizeof err), -1);
    assert_string_equal(err, "BENCH_TIME_MS: '12x' is not an integer from 0 to 86400000");
    setenv("BENCH_TIME_MS", "10", 1);
    setenv("BENCH_QUERIES", "0", 1);
    assert_int_equal(pgcb_config_load(write_ini(MINIMAL), &cfg, err, sizeof err), -1);
    assert_string_equal(err, "BENCH_QUERIES: '0' is not an integer from 1 to 4294967295");
    setup(NULL);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("[bench]\nbogus = 1\n" MINIMAL,
                 ":2: unknown key 'bogus' in [bench] (known: time_ms, queries, warmup_ms, cpus, "
                 "output, orders, batch_timeout_ms, seed, alpha, interval_level, until, "
                 "until_max_orders, until_width, noise_warn_pct, result_format, describe, sync, "
                 "driver_dir, checksum_reference, profile, max_rss_mb, memory, wire, rtt_ms, respawn, cpu_idle)");
    expect_error("[bench]\nmemory = maybe\n" MINIMAL, ":2: [bench] memory: 'maybe' is not on or off");
    expect_error("[bench]\nrespawn = always\n" MINIMAL,
                 ":2: [bench] respawn: 'always' is not as_needed or order");
    expect_error("[bench]\ntime_ms = 5\ncpu_idle = halt\n" MINIMAL,
                 ":3: [bench] cpu_idle: 'halt' is not auto, poll or system");
    expect_error("[bench]\ncpu_idle =\n" MINIMAL,
                 ":2: [bench] cpu_idle: '' is not auto, poll or system");
    expect_error("[bench]\nmax_rss_mb = 0\n" MINIMAL,
                 ":2: [bench] max_rss_mb: '0' is not an integer from 1 to 16777216");
    expect_error("[bench]\nbatch_timeout_ms = 0\n" MINIMAL,
                 ":2: [bench] batch_timeout_ms: '0' is not an integer from 1 to 86400000");
    expect_error(MINIMAL "[foo]\n",
                 ":8: unknown section [foo] (known: [bench], [server], [driver.NAME], "
                 "[query.NAME], [suite.NAME], [background.NAME])");
    expect_error("[bench]\ntime_ms = 1\ntime_ms = 2\n" MINIMAL,
                 ":3: key 'time_ms' repeated in [bench]");
    expect_error("[bench]\ntime_ms = -5\n" MINIMAL,
                 ":2: [bench] time_ms: '-5' is not an integer from 0 to 86400000");
    expect_error("[bench]\nqueries = 0\n" MINIMAL,
                 ":2: [bench] queries: '0' is not an integer from 1 to 4294967295");
    expect_error("[bench]\nwarmup_ms = soon\n" MINIMAL,
                 ":2: [bench] warmup_ms: 'soon' is not an integer from 0 to 3600000");
    expect_error("[bench]\ncpus = a\n" MINIMAL, ":2: [bench] cpus: bad CPU number 'a'");
    expect_error("[bench]\ncpus = 3-1\n" MINIMAL, ":2: [bench] cpus: bad CPU range '3-1'");
    expect_error("[bench]\ncpus = 0,0\n" MINIMAL, ":2: [bench] cpus: CPU 0 listed twice");
    expect_error("[bench]\norders = some\n" MINIMAL,
                 ":2: [bench] orders: 'some' is not an orders value (expected auto, all, "
                 "balanced or a count 1..40320)");
    expect_error("[bench]\norders = 0\n" MINIMAL,
                 ":2: [bench] orders: '0' is not an orders value (expected auto, all, "
                 "balanced or a count 1..40320)");
    expect_error(MINIMAL "[suite.t]\ndepth = 0\n",
                 ":9: [suite.t] depth: '0' is not an integer from 1 to 1000000");
    expect_error(MINIMAL "[suite.t]\ndepth = -1\n",
                 ":9: [suite.t] depth: '-1' is not an integer from 1 to 1000000");
    expect_error(MINIMAL "[suite.t]\ndepth = ten\n",
                 ":9: [suite.t] depth: 'ten' is not an integer from 1 to 1000000");
    expect_error(MINIMAL "[suite.t]\ndepth = 2 2\n", ":9: [suite.t] depth: 2 listed twice");
    expect_error(MINIMAL "[suite.t]\nfoo = 2\n",
                 ":9: unknown key 'foo' in [suite.t] (known: depth, queries, threads, "
                 "rows_per_txn, ops, warmup_ms, background, transport, conninfo, connect, "
                 "connections, concurrency, pool, mode, rate, stream, fetch_rows, reads, rtt_ms)");
    expect_error(MINIMAL "[suite.t]\nthreads = 0\n",
                 ":9: [suite.t] threads: '0' is not an integer from 1 to 256");
    expect_error(MINIMAL "[suite.t]\nthreads = -2\n",
                 ":9: [suite.t] threads: '-2' is not an integer from 1 to 256");
    expect_error(MINIMAL "[suite.t]\nthreads = two\n",
                 ":9: [suite.t] threads: 'two' is not an integer from 1 to 256");
    expect_error(MINIMAL "[suite.t]\nqueries = q nope\n",
                 ":9: [suite.t] queries: no [query.nope] section");
    expect_error(MINIMAL "[query.r]\nrows = 1\n", ":8: [query.r] has no 'sql ='");
    expect_error(MINIMAL "[query.r]\nsql = x\nrows = many\n",
                 ":10: [query.r] rows: 'many' is not a non-negative integer");
    expect_error(MINIMAL "[query.r]\nsql = x\ncheck = maybe\n",
                 ":10: [query.r] check: 'maybe' is not 'checksum', 'rows' or 'none'");
    expect_error(MINIMAL "[driver.e]\nx = 1\n", ":8: [driver.e] has no 'path ='");
    expect_error(MINIMAL "[driver.e]\npath = a\npath = b\n", ":10: key 'path' repeated in [driver.e]");
    expect_error(MINIMAL "[driver.Big]\npath = a\n",
                 ":8: bad name in [driver.Big]: use 1 to 63 of a-z, 0-9 and _, or NAME@RELEASE "
                 "(e.g. pg@8.11.5)");
    /* A driver named at a release: NAME@RELEASE, the release a registry's
     * version (a digit or v first); never in a query's or a suite's name. */
    const char *bad_rel[] = {"pg@", "@8.1", "pg@x1", "pg@8.1@2", "pg@8 1", "Pg@8.1", "pg@8.1/2"};
    for (size_t i = 0; i < sizeof bad_rel / sizeof bad_rel[0]; i++) {
        char ini[256], want[160];
        snprintf(ini, sizeof ini, MINIMAL "[driver.%s]\npath = a\n", bad_rel[i]);
        snprintf(want, sizeof want, ":8: bad name in [driver.%s]: use 1 to 63 of a-z, 0-9 and _, "
                 "or NAME@RELEASE (e.g. pg@8.11.5)", bad_rel[i]);
        expect_error(ini, want);
    }
    expect_error(MINIMAL "[query.q@1]\nsql = x\n",
                 ":8: bad name in [query.q@1]: use 1 to 63 of a-z, 0-9 and _");
    struct pgcb_config rel;
    char rel_err[512] = "";
    assert_int_equal(pgcb_config_load(write_ini(MINIMAL "[driver.pg@8.11.5]\npath = a\n"
                                                "[driver.pgx@v4.18.3-rc.1]\npath = a\n"),
                                      &rel, rel_err, sizeof rel_err), 0);
    assert_int_equal(rel.ndrivers, 3);
    assert_string_equal(rel.drivers[1].name, "pg@8.11.5");
    assert_string_equal(rel.drivers[2].name, "pgx@v4.18.3-rc.1");
    pgcb_config_free(&rel);
    expect_error(MINIMAL "[driver.d]\npath = a\n", ":8: section [driver.d] appears twice");
    expect_error("time_ms = 1\n" MINIMAL, ":1: key 'time_ms' before any [section]");
    expect_error("[bench\n" MINIMAL, ":1: section header without ']'");
    expect_error("[query.q]\nsql = SELECT 1\n[suite.s]\n",
                 ": no [driver.NAME] section: nothing to measure");
    expect_error("[driver.d]\npath = d.so\n[suite.s]\n",
                 ": no [query.NAME] section: nothing to run");
    expect_error("[driver.d]\npath = d.so\n[query.q]\nsql = SELECT 1\n",
                 ": no [suite.NAME] section: say which queries to run at which depth");
    expect_error(MINIMAL "this line is not ini\n",
                 ":8: syntax error (expected [section], key = value, or a ; comment)");

    char longline[400];
    memset(longline, 'x', sizeof longline);
    memcpy(longline, "sql = ", 6);
    longline[sizeof longline - 2] = '\n';
    longline[sizeof longline - 1] = '\0';
    char text[1024];
    snprintf(text, sizeof text, MINIMAL "[query.r]\n%s", longline);
    expect_error(text, ":9: line longer than 198 characters: continue a long value on "
                       "indented lines");
}

/* connect = yes: a connection suite, depth 1, its connections floor (50
 * by default); other suites keep connect = 0. */
static void test_connect_suites(void **state)
{
    (void)state;
    const char *text = "[driver.d]\npath = d.so\n[query.q]\nsql = SELECT 1\n"
                       "[suite.plain]\ndepth = 1 10\n"
                       "[suite.conn]\nconnect = yes\n"
                       "[suite.conn2]\nconnect = true\ndepth = 1\nconnections = 7\nthreads = 2\n";
    struct pgcb_config cfg;
    char err[512] = "";
    assert_int_equal(pgcb_config_load(write_ini(text), &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.nsuites, 3);
    assert_int_equal(cfg.suites[0].connect, 0);
    assert_int_equal(cfg.suites[1].connect, 1);
    assert_int_equal(cfg.suites[1].ndepths, 1);
    assert_int_equal(cfg.suites[1].depths[0], 1);
    assert_int_equal(cfg.suites[1].connections, PGCB_DEFAULT_CONNECTIONS);
    assert_int_equal(PGCB_DEFAULT_CONNECTIONS, 50);
    assert_int_equal(cfg.suites[2].connect, 1);
    assert_int_equal(cfg.suites[2].connections, 7);
    assert_int_equal(cfg.suites[2].threads, 2);
    pgcb_config_free(&cfg);
}

/* Concurrency suites (issue 27): defaults, and one line naming file:line and
 * the key for each value or combination that makes no sense. */
static void test_concurrency_keys(void **state)
{
    (void)state;
    const char *text = "[driver.d]\npath = d.so\n[query.q]\nsql = SELECT 1\n"
                       "[suite.c]\nconcurrency = 10\n"
                       "[suite.p]\nconcurrency = 8\npool = 4\nmode = closed\nthreads = 2\n"
                       "[suite.r]\nconcurrency = 16\nmode = rate\nrate = 5000/s\n";
    struct pgcb_config cfg;
    char err[512] = "";
    assert_int_equal(pgcb_config_load(write_ini(text), &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.suites[0].concurrency, 10);
    assert_int_equal(cfg.suites[0].pool, 10);
    assert_int_equal(cfg.suites[0].mode, PGCB_LOAD_CLOSED);
    assert_int_equal(cfg.suites[1].pool, 4);
    assert_int_equal(cfg.suites[1].threads, 2);
    assert_int_equal(cfg.suites[2].mode, PGCB_LOAD_RATE);
    assert_true(cfg.suites[2].rate == 5000.0);
    pgcb_config_free(&cfg);
#define CQ "[driver.d]\npath = d.so\n[query.q]\nsql = SELECT 1\n[suite.s]\n"
    expect_error(CQ "concurrency = 0\n",
                 ":6: [suite.s] concurrency: '0' is not an integer from 1 to 10000");
    expect_error(CQ "concurrency = -3\n",
                 ":6: [suite.s] concurrency: '-3' is not an integer from 1 to 10000");
    expect_error(CQ "concurrency = 4\npool = 8\n",
                 ":7: [suite.s] pool = 8 is more than concurrency = 4 (line 6): a connection "
                 "would never have a query");
    expect_error(CQ "concurrency = 4\npool = 0\n",
                 ":7: [suite.s] pool: '0' is not an integer from 1 to 10000");
    expect_error(CQ "concurrency = 4\nrate = 100\n",
                 ":7: [suite.s] rate: only with mode = rate (an open loop at that arrival "
                 "rate); mode is closed");
    expect_error(CQ "concurrency = 4\nmode = rate\n",
                 ":7: [suite.s] mode = rate needs rate = N (queries per second over the "
                 "instance's pool)");
    expect_error(CQ "concurrency = 4\nmode = rate\nrate = -5\n",
                 ":8: [suite.s] rate: '-5' is not a number of queries per second above 0 (N "
                 "or N/s)");
    expect_error(CQ "concurrency = 4\nmode = open\n",
                 ":7: [suite.s] mode: 'open' is not closed or rate");
    expect_error(CQ "pool = 4\n",
                 ":6: [suite.s] pool: only with concurrency = N (the queries one driver "
                 "instance keeps in flight)");
    expect_error(CQ "mode = rate\nrate = 10\n",
                 ":6: [suite.s] mode: only with concurrency = N (the queries one driver "
                 "instance keeps in flight)");
    expect_error(CQ "concurrency = 4\ndepth = 10\n",
                 ":6: [suite.s] concurrency: not with a depth other than 1: each query of a "
                 "concurrency suite is one execution, its own round trip");
    expect_error(CQ "concurrency = 4\nconnect = yes\n",
                 ":6: [suite.s] concurrency: not with connect = yes: each query of a "
                 "concurrency suite is one execution, its own round trip");
#undef CQ
}

/* Streaming suites (issue 42): defaults, the queries they mark, and one line
 * naming file:line and the key for each value or combination that makes no
 * sense. */
static void test_stream_keys(void **state)
{
    (void)state;
    const char *text = "[driver.d]\npath = d.so\n[query.q]\nsql = SELECT 1\n"
                       "[query.r]\nsql = SELECT 2\n"
                       "[suite.b]\nstream = buffered\nqueries = q\n"
                       "[suite.s]\nstream = streamed\nfetch_rows = 250\nreads = 5\nqueries = q\n"
                       "[suite.o]\nqueries = r\n";
    struct pgcb_config cfg;
    char err[512] = "";
    assert_int_equal(pgcb_config_load(write_ini(text), &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.suites[0].result_mode, PGCB_RESULT_BUFFERED);
    assert_int_equal(cfg.suites[0].fetch_rows, PGCB_DEFAULT_FETCH_ROWS);
    assert_int_equal(cfg.suites[0].reads, PGCB_DEFAULT_READS);
    assert_int_equal(cfg.suites[1].result_mode, PGCB_RESULT_STREAMED);
    assert_int_equal(cfg.suites[1].fetch_rows, 250);
    assert_int_equal(cfg.suites[1].reads, 5);
    assert_int_equal(cfg.suites[2].result_mode, 0);
    assert_int_equal(cfg.queries[0].stream, 1);
    assert_int_equal(cfg.queries[1].stream, 0);
    pgcb_config_free(&cfg);
#define SQ "[driver.d]\npath = d.so\n[query.q]\nsql = SELECT 1\n[suite.s]\n"
    expect_error(SQ "stream = chunked\n",
                 ":6: [suite.s] stream: 'chunked' is not buffered or streamed");
    expect_error(SQ "stream = streamed\nfetch_rows = 0\n",
                 ":7: [suite.s] fetch_rows: '0' is not an integer from 1 to 100000000");
    expect_error(SQ "stream = streamed\nreads = 0\n",
                 ":7: [suite.s] reads: '0' is not an integer from 1 to 1000000");
    expect_error(SQ "fetch_rows = 10\n",
                 ":6: [suite.s] fetch_rows: only with stream = buffered or streamed (a streaming "
                 "suite's key)");
    expect_error(SQ "reads = 2\n",
                 ":6: [suite.s] reads: only with stream = buffered or streamed (a streaming "
                 "suite's key)");
    expect_error(SQ "stream = streamed\ndepth = 10\n",
                 ":6: [suite.s] stream: not with a depth other than 1: each sample of a "
                 "streaming suite is one whole result on one connection (depth 1, one thread; "
                 "its count floor is reads)");
    expect_error(SQ "stream = streamed\nthreads = 2\n",
                 ":6: [suite.s] stream: not with threads > 1: each sample of a streaming suite "
                 "is one whole result on one connection (depth 1, one thread; its count floor "
                 "is reads)");
    expect_error(SQ "stream = buffered\nconcurrency = 4\n",
                 ":6: [suite.s] stream: not with concurrency: each sample of a streaming suite "
                 "is one whole result on one connection (depth 1, one thread; its count floor "
                 "is reads)");
    expect_error(SQ "stream = buffered\n[suite.t]\ndepth = 1\n",
                 ":7: [suite.t] reads query q, which a streaming suite reads too: a streaming "
                 "query (a result of 100,000 rows or more) belongs to streaming suites only "
                 "(give the suite stream = buffered, or name its queries)");
#undef SQ
}

/* [query] copy, copy_from, copy_format, params_from, read_back: good ones,
 * and one line naming file:line for each bad value or combination. */
static void test_bulk_keys(void **state)
{
    (void)state;
    const char *good = "[driver.d]\npath = d.so\n"
                       "[query.c]\ncopy = public.t\ncopy_from = SELECT * FROM s ORDER BY id\n"
                       "copy_format = binary\n"
                       "[query.i]\nsql = INSERT INTO t VALUES ($1)\n"
                       "params_from = SELECT id FROM s ORDER BY id\nread_back = t\n"
                       "[suite.s]\nqueries = c\n[suite.b]\nqueries = i\nrows_per_txn = 10\n";
    struct pgcb_config cfg;
    char err[512] = "";
    assert_int_equal(pgcb_config_load(write_ini(good), &cfg, err, sizeof err), 0);
    assert_string_equal(cfg.queries[0].copy, "public.t");
    assert_int_equal(cfg.queries[0].copy_format, PGCB_COPY_BINARY);
    assert_string_equal(cfg.queries[0].sql, "COPY public.t FROM STDIN (FORMAT binary)");
    assert_int_equal(cfg.queries[0].prime, 0);
    assert_string_equal(cfg.queries[1].read_back, "t");
    assert_int_equal(cfg.queries[1].nparams, 0); /* set from the rows, at fetch */
    pgcb_config_free(&cfg);

#define DRV "[driver.d]\npath = d.so\n"
    expect_error(DRV "[query.c]\ncopy = t; x\n[suite.s]\n",
                 ":4: [query.c] copy: 't; x' is not a table name (NAME or SCHEMA.NAME of "
                 "letters, digits and _)");
    expect_error(DRV "[query.c]\ncopy = 1t\n[suite.s]\n",
                 ":4: [query.c] copy: '1t' is not a table name (NAME or SCHEMA.NAME of "
                 "letters, digits and _)");
    expect_error(DRV "[query.c]\ncopy = t\ncopy_format = csv\n[suite.s]\n",
                 ":5: [query.c] copy_format: 'csv' is not 'text' or 'binary'");
    expect_error(DRV "[query.c]\ncopy = t\ncopy_from = DELETE FROM s\n[suite.s]\n",
                 ":5: [query.c] copy_from: 'DELETE FROM s' is not a query that only reads "
                 "(SELECT, WITH, VALUES or TABLE)");
    expect_error(DRV "[query.c]\ncopy = t\n[suite.s]\n",
                 ":4: [query.c] copy: needs 'copy_from = SELECT ...' (the rows to copy)");
    expect_error(DRV "[query.c]\ncopy_from = SELECT 1\n[suite.s]\n",
                 ":3: [query.c] has copy_from or copy_format but no 'copy = TABLE'");
    expect_error(DRV "[query.c]\nsql = SELECT 1\ncopy = t\ncopy_from = SELECT 1\n[suite.s]\n",
                 ":5: [query.c] copy: give no 'sql =' (the runner writes the COPY statement)");
    expect_error(DRV "[query.c]\ncopy = t\ncopy_from = SELECT 1\nparam1 = seq 1\n[suite.s]\n",
                 ":4: [query.c] copy: a COPY takes no parameters (paramN, params_from, "
                 "read_back)");
    expect_error(DRV "[query.c]\ncopy = t\ncopy_from = SELECT 1\n[suite.s]\ndepth = 10\n",
                 ":6: [suite.s] runs COPY query c with a depth other than 1: a COPY suite has "
                 "depth 1, one thread, no rows_per_txn and no connect");
    expect_error(DRV "[query.c]\ncopy = t\ncopy_from = SELECT 1\n[suite.s]\nthreads = 2\n",
                 ":6: [suite.s] runs COPY query c with threads > 1: a COPY suite has "
                 "depth 1, one thread, no rows_per_txn and no connect");
    expect_error(DRV "[query.i]\nsql = INSERT INTO t VALUES ($1)\nparams_from = SELECT 1\n"
                 "param1 = seq 1\n[suite.s]\n",
                 ":5: [query.i] params_from: give either params_from or param1 ..., not both");
    expect_error(DRV "[query.i]\nsql = INSERT INTO t VALUES (1)\nread_back = t\n[suite.s]\n",
                 ":5: [query.i] read_back: needs 'params_from = SELECT ...' (the rows "
                 "inserted, to compare with)");
#undef DRV
}

/* rtt_ms (issue 41): a list of round-trip times, one group each, through
 * the wire proxy over TCP; every bad value refused naming file:line. */
#define SQ "[driver.d]\npath = d.so\n[query.q]\nsql = SELECT 1\n[suite.s]\n"
static void test_rtt_keys(void **state)
{
    (void)state;
    struct pgcb_config cfg;
    char err[512] = "";
    const char *text = "[driver.d]\npath = d.so\n[query.q]\nsql = SELECT 1\n"
                       "[suite.near]\nrtt_ms = 0, 0.2 1 5\n"
                       "[suite.tls]\ntransport = tls\nrtt_ms = 1\n"
                       "[suite.plain]\ndepth = 1\n";
    assert_int_equal(pgcb_config_load(write_ini(text), &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.suites[0].rtt.nrtts, 4);
    assert_true(cfg.suites[0].rtt.rtts[1] == 0.2 && cfg.suites[0].rtt.rtts[3] == 5);
    /* no transport given: TCP, and said to come from rtt_ms */
    assert_int_equal(cfg.suites[0].ntransports, 1);
    assert_int_equal(cfg.suites[0].transports[0], PGCB_TRANSPORT_TCP);
    assert_int_equal(cfg.suites[0].transport_by_rtt, 1);
    assert_int_equal(cfg.suites[1].transports[0], PGCB_TRANSPORT_TLS);
    assert_int_equal(cfg.suites[1].transport_by_rtt, 0);
    assert_int_equal(cfg.suites[2].rtt.nrtts, 0);
    assert_int_equal(cfg.suites[2].ntransports, 0);
    pgcb_config_free(&cfg);
    expect_error(SQ "rtt_ms = -1\n",
                 ":6: [suite.s] rtt_ms: '-1' is not a round-trip time in milliseconds from 0 to "
                 "1000");
    expect_error(SQ "rtt_ms = 0, 5000\n",
                 ":6: [suite.s] rtt_ms: '5000' is not a round-trip time in milliseconds from 0 "
                 "to 1000");
    expect_error(SQ "rtt_ms = 1ms\n",
                 ":6: [suite.s] rtt_ms: '1ms' is not a round-trip time in milliseconds from 0 to "
                 "1000");
    expect_error(SQ "rtt_ms = nan\n",
                 ":6: [suite.s] rtt_ms: 'nan' is not a round-trip time in milliseconds from 0 to "
                 "1000");
    /* [bench] rtt_ms: every suite's without its own; a unix-only suite keeps its socket */
    text = "[bench]\nrtt_ms = 0.5 2\n[driver.d]\npath = d.so\n[query.q]\nsql = SELECT 1\n"
           "[suite.a]\ndepth = 1\n[suite.b]\nrtt_ms = 1\n[suite.u]\ntransport = unix\n";
    assert_int_equal(pgcb_config_load(write_ini(text), &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.suites[0].rtt.nrtts, 2);
    assert_true(cfg.suites[0].rtt.rtts[0] == 0.5 && cfg.suites[0].rtt.rtts[1] == 2);
    assert_int_equal(cfg.suites[0].rtt.rtt_line, 2);
    assert_int_equal(cfg.suites[0].transports[0], PGCB_TRANSPORT_TCP);
    assert_int_equal(cfg.suites[1].rtt.nrtts, 1);
    assert_int_equal(cfg.suites[2].rtt.nrtts, 0);
    assert_int_equal(cfg.suites[2].transports[0], PGCB_TRANSPORT_UNIX);
    pgcb_config_free(&cfg);
    expect_error("[bench]\nrtt_ms = -2\n" SQ "depth = 1\n",
                 ":2: [bench] rtt_ms: '-2' is not a round-trip time in milliseconds from 0 to "
                 "1000");
    expect_error(SQ "rtt_ms = 1, 1.0\n", ":6: [suite.s] rtt_ms: 1.0 listed twice");
    expect_error(SQ "rtt_ms = ,\n",
                 ":6: [suite.s] rtt_ms: empty (give round-trip times in milliseconds, or leave "
                 "the key out)");
    expect_error(SQ "rtt_ms = 0 1 2 3 4 5 6 7 8\n", ":6: [suite.s] rtt_ms: more than 8 values");
    expect_error(SQ "transport = tcp unix\nrtt_ms = 1\n",
                 ":7: [suite.s] rtt_ms: not with transport = unix (line 6): the round-trip time "
                 "is added by a proxy on 127.0.0.1, which clients reach over TCP");
}
#undef SQ

static void test_missing_file(void **state)
{
    (void)state;
    struct pgcb_config cfg;
    char err[512];
    assert_int_equal(pgcb_config_load("/nonexistent/x.ini", &cfg, err, sizeof err), -1);
    assert_string_equal(err, "/nonexistent/x.ini: cannot open: No such file or directory");
}

static void test_parse_helpers(void **state)
{
    (void)state;
    uint64_t v;
    assert_int_equal(pgcb_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
    assert_true(v == UINT64_MAX);
    assert_int_equal(pgcb_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -1);
    assert_int_equal(pgcb_parse_u64("", 0, 10, &v), -1);
    assert_int_equal(pgcb_parse_u64("+1", 0, 10, &v), -1);
    assert_int_equal(pgcb_parse_u64("11", 0, 10, &v), -1);
    int cpus[8];
    char err[128];
    assert_int_equal(pgcb_parse_cpus("2-4,0", cpus, 8, err, sizeof err), 4);
    assert_int_equal(cpus[0], 2);
    assert_int_equal(cpus[3], 0);
    assert_int_equal(pgcb_parse_cpus("0-8", cpus, 8, err, sizeof err), -1);
    assert_string_equal(err, "more than 8 CPUs listed");
    assert_int_equal(pgcb_parse_cpus(" ", cpus, 8, err, sizeof err), -1);
    assert_string_equal(err, "empty CPU list");
}

/* Issue 8: parameters, transactions, fixed operations, background load. */
static void test_write_workloads(void **state)
{
    (void)state;
    const char *text = "[bench]\nseed = 7\ncpus = 0,1\n"
                       "[driver.a]\npath = a.so\n"
                       "[driver.w]\npath = w.so\nmeasure = no\n"
                       "[query.ins]\nsql = INSERT INTO t VALUES ($1, $2, $3)\n"
                       "param1 = seq 100\nparam3 = list x y\nparam2 = uniform 1 10\n"
                       "[query.pt]\nsql = SELECT * FROM t WHERE id = $1\nparam1 = uniform 1 9\n"
                       "rows = 1\n"
                       "[query.rg]\nsql = SELECT * FROM t WHERE id > $1\nparam1 = seq 5 2\n"
                       "check = checksum\n"
                       "[query.cte]\nsql = WITH d AS (DELETE FROM t) SELECT 1\n"
                       "[query.plain]\nsql = select 1\n"
                       "[background.bgw]\ndriver = w\nquery = ins\nrate = 250.5\nconnections = 2\n"
                       "sla = 0.9\n"
                       "[suite.load]\nqueries = ins\nrows_per_txn = 50\nops = 1000\n"
                       "[suite.q]\nqueries = pt rg plain cte\nbackground = bgw\nwarmup_ms = 0\n";
    struct pgcb_config cfg;
    char err[512] = "";
    assert_int_equal(pgcb_config_load(write_ini(text), &cfg, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_int_equal(cfg.seed, 7);
    assert_int_equal(cfg.drivers[0].measure, 1);
    assert_int_equal(cfg.drivers[1].measure, 0);
    const struct pgcb_cfg_query *ins = &cfg.queries[0];
    assert_int_equal(ins->nparams, 3);
    assert_int_equal(ins->params[0].kind, PGCB_GEN_SEQ);
    assert_int_equal(ins->params[1].kind, PGCB_GEN_UNIFORM);
    assert_int_equal(ins->params[2].kind, PGCB_GEN_LIST);
    assert_int_equal(ins->params[0].seq_slot, 0);
    assert_int_equal(cfg.queries[2].params[0].seq_slot, 1);
    assert_int_equal(cfg.nseqs, 2);
    /* Defaults: params without rows check nothing, with rows check rows; a
     * write is not primed, a read is, a data-modifying WITH is not. */
    assert_int_equal(ins->check, PGCB_CHECK_NONE);
    assert_int_equal(ins->prime, 0);
    assert_int_equal(cfg.queries[1].check, PGCB_CHECK_ROWS);
    assert_int_equal(cfg.queries[1].prime, 0); /* parameters: not before the steps */
    assert_int_equal(cfg.queries[2].check, PGCB_CHECK_CHECKSUM);
    assert_int_equal(cfg.queries[3].prime, 0);
    assert_int_equal(cfg.queries[4].prime, 1);
    assert_int_equal(cfg.queries[4].check, PGCB_CHECK_CHECKSUM);
    const struct pgcb_cfg_suite *load = &cfg.suites[0], *q = &cfg.suites[1];
    assert_int_equal(load->transaction, 1);
    assert_int_equal(load->ndepths, 1);
    assert_int_equal(load->depths[0], 50);
    assert_int_equal(load->ops, 1000);
    assert_int_equal(load->warmup_ms, -1);
    assert_int_equal(q->transaction, 0);
    assert_int_equal(q->warmup_ms, 0);
    assert_int_equal(q->nbackgrounds, 1);
    assert_int_equal(q->backgrounds[0], 0);
    const struct pgcb_cfg_background *b = &cfg.backgrounds[0];
    assert_string_equal(b->name, "bgw");
    assert_int_equal(b->driver, 1);
    assert_int_equal(b->query, 0);
    assert_true(b->rate == 250.5);
    assert_int_equal(b->connections, 2);
    assert_true(b->sla == 0.9);
    assert_int_equal(b->ncpus, 2); /* [bench] cpus by default */
    assert_int_equal(b->cpus[1], 1);
    pgcb_config_free(&cfg);

#define Q "[query.q]\nsql = SELECT $1\nparam1 = uniform 1 2\n"
#define D "[driver.d]\npath = d.so\n"
    expect_error(D Q "param1 = seq 1\n[suite.s]\n", ":6: key 'param1' repeated in [query.q]");
    expect_error(D Q "param3 = seq 1\n[suite.s]\n",
                 ":3: [query.q] has param3 but no param2: number the parameters from 1 "
                 "without gaps");
    expect_error(D Q "param2 = zipf\n[suite.s]\n",
                 ":6: [query.q] param2: unknown generator 'zipf' (known: seq, uniform, list, "
                 "text)");
    expect_error(D Q "param65 = seq 1\n",
                 ":6: unknown key 'param65' in [query.q] (known: sql, rows, check, prime, "
                 "versus, copy, copy_from, copy_format, params_from, read_back, param1 .. "
                 "param64)");
    expect_error(D Q "param0 = seq 1\n",
                 ":6: unknown key 'param0' in [query.q] (known: sql, rows, check, prime, "
                 "versus, copy, copy_from, copy_format, params_from, read_back, param1 .. "
                 "param64)");
    expect_error(D Q "check = maybe\n",
                 ":6: [query.q] check: 'maybe' is not 'checksum', 'rows' or 'none'");
    expect_error(D Q "prime = perhaps\n", ":6: [query.q] prime: 'perhaps' is not yes or no");
    expect_error(D Q "[suite.s]\ndepth = 2\nrows_per_txn = 5\n",
                 ":8: [suite.s] rows_per_txn: give either depth or rows_per_txn, not both");
    expect_error(D Q "[suite.s]\nrows_per_txn = 0\n",
                 ":7: [suite.s] rows_per_txn: '0' is not an integer from 1 to 1000000");
    expect_error(D Q "[suite.s]\nrows_per_txn = 10\nthreads = 2\nops = 30\n",
                 ":6: [suite.s] ops = 30 is not a multiple of threads x rows_per_txn (2 x 10)");
    expect_error(D Q "[suite.s]\ndepth = 1 2\nops = 30\n",
                 ":6: [suite.s] ops: give one depth with ops");
    expect_error(D Q "[suite.s]\nops = 0\n",
                 ":7: [suite.s] ops: '0' is not an integer from 1 to 4294967295");
    /* Connection suites: one connection, one execution per sample; the line
     * named is the key that conflicts with connect = yes, in either order. */
    expect_error(D Q "[suite.s]\nconnect = yes\ndepth = 10\n",
                 ":8: [suite.s] depth: must be 1 with connect = yes (line 7): each sample of a "
                 "connection suite is one connection running its query once");
    expect_error(D Q "[suite.s]\ndepth = 1 10\nconnect = yes\n",
                 ":7: [suite.s] depth: must be 1 with connect = yes (line 8): each sample of a "
                 "connection suite is one connection running its query once");
    expect_error(D Q "[suite.s]\nrows_per_txn = 1\nconnect = on\n",
                 ":7: [suite.s] rows_per_txn: not with connect = yes (line 8): each sample of "
                 "a connection suite is one connection running its query once");
    expect_error(D Q "[suite.s]\nconnect = yes\nops = 10\n",
                 ":8: [suite.s] ops: not with connect = yes (line 7): a connection suite's "
                 "budget is time_ms and connections");
    expect_error(D Q "[suite.s]\nconnections = 10\n",
                 ":7: [suite.s] connections: only with connect = yes (a connection suite's "
                 "count floor)");
    expect_error(D Q "[suite.s]\nconnect = yes\nconnections = 0\n",
                 ":8: [suite.s] connections: '0' is not an integer from 1 to 1000000");
    expect_error(D Q "[suite.s]\nconnect = maybe\n",
                 ":7: [suite.s] connect: 'maybe' is not yes or no");
    expect_error(D Q "[suite.s]\nbackground = nope\n",
                 ":7: [suite.s] background: no [background.nope] section");
    expect_error(D Q "[suite.s]\n[background.b]\nquery = q\nrate = 5\n",
                 ":7: [background.b] has no 'driver =' (a [driver.NAME] of this file)");
    expect_error(D Q "[suite.s]\n[background.b]\ndriver = d\nrate = 5\n",
                 ":7: [background.b] has no 'query ='");
    expect_error(D Q "[suite.s]\n[background.b]\ndriver = d\nquery = q\n",
                 ":7: [background.b] has no 'rate =' (executions per second per connection)");
    expect_error(D Q "[suite.s]\n[background.b]\ndriver = x\nquery = q\nrate = 1\n",
                 ":8: [background.b] driver: no [driver.x] section");
    expect_error(D Q "[suite.s]\n[background.b]\ndriver = d\nquery = y\nrate = 1\n",
                 ":9: [background.b] query: no [query.y] section");
    expect_error(D Q "[suite.s]\n[background.b]\nrate = 0\n",
                 ":8: [background.b] rate: '0' is not a number of executions per second above "
                 "0 and up to 10000000");
    expect_error(D Q "[suite.s]\n[background.b]\nsla = 1.5\n",
                 ":8: [background.b] sla: '1.5' is not a fraction of the target rate above 0 "
                 "and up to 1 (e.g. 0.95)");
    expect_error(D Q "[suite.s]\n[background.b]\nconnections = 0\n",
                 ":8: [background.b] connections: '0' is not an integer from 1 to 256");
    expect_error(D Q "[suite.s]\n[background.b]\ncolour = red\n",
                 ":8: unknown key 'colour' in [background.b] (known: driver, query, rate, "
                 "connections, cpus, sla)");
    expect_error(D "measure = no\n" Q "[suite.s]\n",
                 ": every driver has 'measure = no': nothing to measure");
    expect_error(D "measure = maybe\n" Q "[suite.s]\n",
                 ":3: [driver.d] measure: 'maybe' is not yes or no");
    expect_error("[bench]\nseed = -1\n" D Q "[suite.s]\n",
                 ":2: [bench] seed: '-1' is not a non-negative integer");
#undef Q
#undef D
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_full_config, setup),
        cmocka_unit_test_setup(test_defaults_and_env, setup),
        cmocka_unit_test_setup(test_errors, setup),
        cmocka_unit_test_setup(test_connect_suites, setup),
        cmocka_unit_test_setup(test_concurrency_keys, setup),
        cmocka_unit_test_setup(test_bulk_keys, setup),
        cmocka_unit_test_setup(test_stream_keys, setup),
        cmocka_unit_test_setup(test_rtt_keys, setup),
        cmocka_unit_test_setup(test_missing_file, setup),
        cmocka_unit_test_setup(test_parse_helpers, setup),
        cmocka_unit_test_setup(test_write_workloads, setup),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(path);
    rmdir(dir);
    return rc;
}
