/*
 * drvtest.h -- what the drivers' server tests (tests/server/test_*.c) share:
 * loading a driver's .so, the test's own libpq session, the benchmark_rows
 * table, open/prepare/run wrappers that fail the current cmocka test, and the
 * expected checksums of the benchmark rows and of the all-types query.
 *
 * Also the "C" locale fixture of the decoders' unit tests (tests/unit/).
 *
 * Built into $(B)/libpgcbtest.a, which every test binary links. Functions that
 * assert (drvtest_open_ok, _prepare_ok, _run_ok, _run_fail,
 * _assert_one_line) may only be called inside a running cmocka test; the
 * others report with cmocka's print_error() and return an error instead, so
 * group setups and plain programs can use them.
 *
 * Expected checksums are computed by folding the expected values with the
 * pgcb_sum_*() helpers of driver.h, independently of any driver.
 */
#ifndef PGCB_TESTS_DRVTEST_H
#define PGCB_TESTS_DRVTEST_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

/* The benchmark query without its row count: append "1", "100", "500". */
#define DRVTEST_BENCH_SQL \
    "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT "

/* Two rows with the edges of every type libpq_sync converts, NULLs included;
 * the same checksum in text and binary (drvtest_expect_types). */
#define DRVTEST_TYPES_SQL                                                                \
    "SELECT (-9223372036854775808)::int8, (-2147483648)::int4, (-1)::int2, 0::int8, "     \
    "'-Infinity'::float4, 'Infinity'::float8, '-0'::float8, 0.1::float8, 0.1::float4, "   \
    "3.4028235e38::float4, 'ab'::char(4), 'wat'::varchar, 'nm'::name, ''::text, "         \
    "NULL::text, false, NULL::bool "                                                     \
    "UNION ALL SELECT 1::int8, 2::int4, 3::int2, (-4)::int8, 'NaN'::float4, '-1e-300'::float8, " \
    "1e300::float8, (-2.5)::float8, 1e-30::float4, 1::float4, 'x'::char(4), 'y'::varchar, "   \
    "'z'::name, 'w'::text, 'v'::text, true, true"

/* The same values under distinct names (c1 .. c17), for clients that return
 * rows as objects keyed by column name (the Node.js clients), where
 * DRVTEST_TYPES_SQL's repeated names would collapse; drvtest_expect_types
 * holds for both. */
#define DRVTEST_TYPES_SQL_NAMED                                                          \
    "SELECT (-9223372036854775808)::int8 AS c1, (-2147483648)::int4 AS c2, (-1)::int2 AS c3, " \
    "0::int8 AS c4, '-Infinity'::float4 AS c5, 'Infinity'::float8 AS c6, '-0'::float8 AS c7, " \
    "0.1::float8 AS c8, 0.1::float4 AS c9, 3.4028235e38::float4 AS c10, 'ab'::char(4) AS c11, " \
    "'wat'::varchar AS c12, 'nm'::name AS c13, ''::text AS c14, NULL::text AS c15, "        \
    "false AS c16, NULL::bool AS c17 "                                                      \
    "UNION ALL SELECT 1::int8, 2::int4, 3::int2, (-4)::int8, 'NaN'::float4, '-1e-300'::float8, " \
    "1e300::float8, (-2.5)::float8, 1e-30::float4, 1::float4, 'x'::char(4), 'y'::varchar, "   \
    "'z'::name, 'w'::text, 'v'::text, true, true"

/* drvtest_run_ok and drvtest_run_fail raise SIGALRM (which ends the process)
 * when one batch takes longer than this many seconds: no test may hang. */
#define DRVTEST_HANG_LIMIT_S 120

/* A loaded driver: the dlopen() handle and its checked descriptor. */
struct drvtest_drv {
    void *dl;
    const struct pgcb_driver *d;
};

/* 0 when PGHOST is set; otherwise -1 and a message saying that `test` needs a
 * throw-away server and fails rather than skip. */
int drvtest_require_server(const char *test);

/* 1 when the bridge's `adapter` is named in PGCB_TEST_SKIP_ADAPTERS (a
 * comma-separated list: tests/run.sh's `check` sets it to the adapters that
 * `make check` does not build, rust), after printing once per adapter and
 * process why it is skipped; else 0. `make test` never sets it: there a
 * missing adapter fails its tests. */
int drvtest_adapter_skipped(const char *adapter);

/* dlopen $PGCB_BUILD/drivers/NAME.so (PGCB_BUILD unset or empty: "build")
 * and check its descriptor: entry symbol, non-NULL descriptor, magic, ABI
 * major, struct_size of at least ABI 1.0. 0 on success; -1 with a message,
 * t->dl then NULL or still open (drvtest_unload releases it either way). */
int drvtest_load(struct drvtest_drv *t, const char *name);

/* dlclose a driver loaded (or half loaded) by drvtest_load; a zeroed or
 * already unloaded one is fine. */
void drvtest_unload(struct drvtest_drv *t);

/* The test's own libpq session, from the PG* environment (conninfo ""): NULL
 * with a message when it cannot connect. PQfinish it. */
PGconn *drvtest_admin_connect(void);

/* Run `sql` (one or more statements) on pg: 0 when the last result is
 * COMMAND_OK or TUPLES_OK, else -1 with the server's message. */
int drvtest_admin_exec(PGconn *pg, const char *sql);

/* Drop and re-create benchmark_rows with sql/benchmark_rows.sql's columns and
 * its 500 rows (i, 1337, 'wat', NULL, false), i = 1..500. Then run `extra_sql` when it is
 * not NULL (the test's own objects, e.g. sequences; several statements
 * allowed). 0 on success, -1 with a message. */
int drvtest_create_table(const char *extra_sql);

/* Open a connection of driver t; asserts PGCB_OK and a non-NULL connection. */
struct pgcb_conn *drvtest_open_ok(const struct drvtest_drv *t, const char *conninfo,
                                  const struct pgcb_option *opts, size_t nopts);

/* Prepare `sql` as `name`; asserts PGCB_OK and a non-NULL statement. */
struct pgcb_stmt *drvtest_prepare_ok(const struct drvtest_drv *t, struct pgcb_conn *c,
                                     const char *name, const char *sql);

/* Prepare the benchmark query with LIMIT `limit`, named "bench_LIMIT". */
struct pgcb_stmt *drvtest_prepare_limit(const struct drvtest_drv *t, struct pgcb_conn *c,
                                        uint32_t limit);

/* Run one batch of `depth`; asserts PGCB_OK; returns the batch's sum (rows
 * and checksum, from {0, 0}). */
struct pgcb_sum drvtest_run_ok(const struct drvtest_drv *t, struct pgcb_conn *c,
                               struct pgcb_stmt *st, uint32_t depth);

/* Run one batch of `depth` that must return `want` (a PGCB_ERR_*); asserts
 * it; returns what the batch folded before it failed, its message in err. */
struct pgcb_sum drvtest_run_fail(const struct drvtest_drv *t, struct pgcb_conn *c,
                                 struct pgcb_stmt *st, uint32_t depth, int want, char *err,
                                 size_t errlen);

/* One batch of run_batch_params (ABI 1.1; asserts the driver has it) of
 * `depth` with parameters p, which must return `want` (PGCB_OK or a
 * PGCB_ERR_*); asserts it; returns what the batch folded, its message in
 * err (errlen >= 1). SIGALRM after DRVTEST_HANG_LIMIT_S, as drvtest_run_ok. */
struct pgcb_sum drvtest_run_params(const struct drvtest_drv *t, struct pgcb_conn *c,
                                   struct pgcb_stmt *st, uint32_t depth,
                                   const struct pgcb_params *p, int want, char *err,
                                   size_t errlen);

/* Asserts an error message as the ABI wants it: non-empty, one line. */
void drvtest_assert_one_line(const char *err);

/* The checksum of benchmark rows 1..n, depth times over. */
struct pgcb_sum drvtest_expect_rows(uint32_t n, uint32_t depth);

/* The checksum of DRVTEST_TYPES_SQL, depth times over. */
struct pgcb_sum drvtest_expect_types(uint32_t depth);

/* For the unit tests of the drivers' value decoders: a cmocka group setup
 * that creates a "C" locale into drvtest_c_locale (-1 if it cannot), and the
 * teardown that frees it. */
extern locale_t drvtest_c_locale;
int drvtest_c_locale_setup(void **state);
int drvtest_c_locale_teardown(void **state);

#endif
