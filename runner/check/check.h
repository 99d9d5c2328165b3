/*
 * check.h -- `runner --check-driver FILE.so [-c bench.ini]`: the driver
 * conformance suite, the first thing a driver author runs
 * (docs/checking-a-driver.md).
 *
 * Every check prints one line to `out`, "PASS name: detail" or
 * "FAIL name: reason", and the last line is "N passed, N failed". Lines that
 * start with neither (the file checked, the server, the queries, the
 * reference) are information.
 *
 * The checked driver never runs in the calling process: each group of checks
 * runs in a forked child that loads the driver itself and reports through a
 * pipe. A child that dies fails the check it was in with "crashed (SIGSEGV)"
 * (the signal's name); one that makes no progress for PGCB_CHECK_TIMEOUT
 * seconds (default 10) inside one driver call is killed and fails with
 * "timed out after 10 s"; the checks it had not reached fail "not run".
 *
 * Queries: the config's [query.*] sections (their `rows` and `check`), else
 * the built-in limit_1, limit_100 and limit_500 over benchmark_rows (created
 * as sql/benchmark_rows.sql does when the table is missing). With a config,
 * its [server] conninfo and setup are used as a run uses them; without one,
 * PGCB_CONNINFO, else "" (the PG* variables). The driver is opened with the
 * options given (runner -O KEY=VALUE; none: every option at its default),
 * which an ABI 1.2 driver's instance() also describes (a bridge: which
 * adapter and client).
 *
 * Checksums are compared with those of the reference driver libpq_sync,
 * run the same way: PGCB_CHECK_REFERENCE (a path) if set, else
 * libpq_sync.so next to the checked file, else drivers/libpq_sync.so next to
 * the running program (build/runner -> build/drivers/libpq_sync.so), else
 * where `make install` puts it (PREFIX/bin/pgclientbench ->
 * PREFIX/lib/pgclientbench/drivers/libpq_sync.so; docs/install.md).
 */
#ifndef PGCB_CHECK_H
#define PGCB_CHECK_H

#include <stddef.h>
#include <stdio.h>

struct pgcb_config;

/* Seconds one driver call may take before its check fails "timed out", per
 * PGCB_CHECK_ROWS_PER_TIMEOUT rows (started) a batch is expected to return:
 * a batch of 500,000 rows (LIMIT 500 at depth 1000) may take twice the
 * timeout. The slowest shipped client, Debian's pure-Python psycopg, needs
 * about 22 us a row here: 500,000 rows in 11 s. */
#define PGCB_CHECK_TIMEOUT_S 10
#define PGCB_CHECK_ROWS_PER_TIMEOUT 250000ull

/* Run the conformance suite on the driver `so_path`, opened with the nopts
 * options `opts` (may be NULL), with the queries, conninfo and setup of
 * `cfg` (NULL: the built-in queries and the PG* environment). Prints to
 * `out`. Returns 0 when every check passed, 1 when
 * any failed, 2 when there was nothing to check (the file cannot be loaded,
 * no reference driver, no server for a driver that needs one, a bad
 * PGCB_CHECK_TIMEOUT): the last line then starts with "error: ". */
struct pgcb_option;
int pgcb_check_driver(const char *so_path, const struct pgcb_option *opts, size_t nopts,
                      const struct pgcb_config *cfg, FILE *out);

#endif
