/*
 * test_connect_e2e.c -- connection suites ([suite] connect = yes) end to
 * end, against the server tests/run.sh started with scripts/pgserver.sh
 * (PGHOST, PGPASSFILE ... in the environment), whose login roles pgcb_md5
 * (MD5) and pgcb_scram (SCRAM-SHA-256) authenticate by password and
 * postgres by trust:
 *
 *   - trust, MD5 and SCRAM-SHA-256 with libpq_sync and rawwire (and the null
 *     driver): every connection's rows and checksum checked, the checksums
 *     the same across the drivers and as the same query's in a query
 *     group, the count floor met in every order (a run whose time floor is
 *     negligible has exactly orders x connections samples) or the time floor
 *     (a run where it dominates has at least time_ms of samples), the JSON's
 *     connect and unit, the backends unknown with the reason, the tables per
 *     connection; the bridge skipped with its reason;
 *   - the same methods in one run by [suite] conninfo (user=pgcb_md5 ...), and
 *     a suite whose passfile has a wrong password failing alone;
 *   - a wrong password: a write step changes pgcb_md5's password on the
 *     server mid-run (the passfile's is then wrong), so the connection suite
 *     after it fails for each driver with one line naming it, and the query
 *     suite after that still runs on the drivers' long-lived connections;
 *     the password is put back from the passfile (teardown);
 *   - connect = yes with depth = 10: one line naming file:line, exit 1, no
 *     result.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "pgcb/driver.h"
#include "result.h"
#include "../lib/e2e.h"

#define SQL_LIMIT(n)                                                                        \
    "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY " \
    "id LIMIT " #n

#define QUERIES                                                                             \
    "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"                                  \
    "[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n"

static char drivers[1200];

/* Run `sql` (one or more statements) as postgres, by trust; fails the test
 * with the server's message. */
static void as_postgres(const char *sql)
{
    PGconn *c = PQconnectdb("user=postgres");
    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("connect as postgres: %s", PQerrorMessage(c));
    PGresult *res = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        fail_msg("as postgres: %s: %s", sql, PQerrorMessage(c));
    PQclear(res);
    PQfinish(c);
}

/* The benchmark table, made by postgres (as [server] setup does when it
 * runs as postgres): the login roles may read it. */
static void make_table(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/sql/benchmark_rows.sql", e2e_top);
    char *sql = e2e_slurp(path);
    assert_true(strlen(sql) > 0);
    as_postgres(sql);
    free(sql);
}

/* pgcb_md5's password in the passfile (a static buffer), or NULL. */
static const char *passfile_password(const char *role)
{
    static char pw[256];
    const char *pf = getenv("PGPASSFILE");
    FILE *f = pf ? fopen(pf, "r") : NULL;
    char line[512], want[80];
    snprintf(want, sizeof want, ":%s:", role);
    const char *found = NULL;
    while (f && !found && fgets(line, sizeof line, f)) {
        char *at = line[0] == '#' ? NULL : strstr(line, want);
        if (!at)
            continue;
        snprintf(pw, sizeof pw, "%s", at + strlen(want));
        pw[strcspn(pw, "\r\n:")] = '\0';
        found = pw;
    }
    if (f)
        fclose(f);
    return found;
}

/* Log in as `role` with the passfile: 1 if it works. */
static int logs_in(const char *role)
{
    char ci[128];
    snprintf(ci, sizeof ci, "user=%s", role);
    PGconn *c = PQconnectdb(ci);
    int ok = PQstatus(c) == CONNECTION_OK;
    PQfinish(c);
    return ok;
}

/* The "unit" of group g in the result file at path (a static buffer). */
static const char *unit_of(const char *path, size_t g)
{
    static char buf[32];
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    assert_non_null(root);
    json_t *gr = json_array_get(json_object_get(root, "groups"), g);
    const char *u = json_string_value(json_object_get(gr, "unit"));
    snprintf(buf, sizeof buf, "%s", u ? u : "(none)");
    json_decref(root);
    return buf;
}

static size_t driver_index(const struct pgcb_result *r, const char *label)
{
    for (size_t d = 0; d < r->ndrivers; d++)
        if (strcmp(r->drivers[d].label, label) == 0)
            return d;
    fail_msg("no driver %s in the result", label);
    return 0;
}

static struct e2e_run run(const char *ini, const char *out)
{
    const char *env[] = {"BENCH_TIME_MS", "BENCH_QUERIES", NULL};
    struct e2e_run r = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    return r;
}

/* The connection group g of r, for the client drivers libpq_sync and
 * rawwire: valid, every sample a connection that returned `rows` rows and
 * the same checksum; want_samples > 0: exactly that many samples (the
 * count floor met in each order, nothing beyond), else at least a batch
 * of `connections` in every order and at least time_ms of samples (the time
 * floor; beside another make test one batch per order can fill it). */
static void check_connect_group(const struct pgcb_result *r, size_t g, uint64_t rows,
                                uint64_t want_samples, uint64_t connections)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    assert_int_equal(gr->connect, 1);
    assert_int_equal(gr->depth, 1);
    uint64_t sum = 0;
    const char *clients[] = {"libpq_sync", "rawwire"};
    for (size_t k = 0; k < 2; k++) {
        const struct pgcb_res_cell *c = &gr->cells[driver_index(r, clients[k])];
        if (c->status != PGCB_CELL_OK)
            fail_msg("%s in group %zu: %s: %s", clients[k], g, pgcb_cell_status_str(c->status),
                     c->error ? c->error : "");
        assert_int_equal(c->rows_per_batch, rows);
        assert_int_equal(c->queries, c->samples);
        if (want_samples) {
            assert_int_equal(c->samples, want_samples);
        } else {
            assert_true(c->samples >= r->norders * connections);
            assert_true(c->wall_ns >= r->time_ms * 1000000ull);
        }
        /* Milliseconds-ish, not a query's microseconds: a whole connection. */
        assert_true(c->median_ns > 200e3);
        assert_true(c->server_cpu_ns_per_query > 0);
        assert_int_equal(c->backend.pids, 0);
        assert_non_null(c->backend.why);
        assert_non_null(strstr(c->backend.why, "a connection suite"));
        if (k == 0)
            sum = c->checksum;
        else
            assert_int_equal(c->checksum, sum);
    }
}

/* Trust on the socket, the count floor dominating (time_ms = 1): exactly
 * 4 orders x 7 connections each; the null driver runs, the bridge is
 * skipped; the tables say per connection. */
static void test_trust(void **state)
{
    (void)state;
    char head[800], body[4096];
    snprintf(head, sizeof head, "[bench]\ntime_ms = 1\nqueries = 40\nwarmup_ms = 30\n"
             "orders = balanced\n[server]\nsetup = %s/sql/benchmark_rows.sql\n", e2e_top);
    snprintf(body, sizeof body,
             "%s[driver.null]\npath = %s/drivers/null.so\n"
             "[driver.py]\npath = %s/drivers/bridge.so\nadapter = python\nclient = null\n"
             QUERIES
             "[suite.seq]\nqueries = limit_100\n"
             "[suite.conn]\nconnect = yes\nconnections = 7\n",
             drivers, e2e_build, e2e_build);
    const char *ini = e2e_write_file("trust", head, body);
    const char *out = e2e_json_path("trust");
    struct e2e_run r = run(ini, out);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0); /* a skipped driver is no failure */
    assert_non_null(strstr(r.out, "conn / limit_100  (connect: one connection per sample, >= 7 "
                                  "per order, 100 rows, pooled over 4 execution orders)"));
    assert_non_null(strstr(r.out, "and >= 40 queries per order (a connection group: >= 7 "
                                  "connections per order instead); warm-up 30 ms\n"));
    assert_non_null(strstr(r.out, "│ Connections/s │"));
    assert_non_null(strstr(r.out, "│ Client CPU (ns/conn) │"));
    assert_non_null(strstr(r.out, "│ Server CPU (ns/conn) │"));
    assert_non_null(strstr(r.out, "\n  py: skipped: a self-timed driver (the bridge) cannot be "
                                  "measured by a connection suite"));
    assert_non_null(strstr(r.out, "\n  Backend CPU unknown for libpq_sync, rawwire: a "
                                  "connection suite"));
    assert_non_null(strstr(r.out, "per 1000 connections: "));
    e2e_run_free(&r);

    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.norders, 4);
    assert_int_equal(res.ngroups, 3);
    assert_int_equal(res.groups[0].connect, 0);
    assert_int_equal(res.groups[0].connections, 0);
    assert_int_equal(res.groups[1].connections, 7);
    assert_string_equal(unit_of(out, 0), "batch");
    for (size_t g = 1; g < 3; g++) {
        assert_string_equal(unit_of(out, g), "connection");
        check_connect_group(&res, g, g == 1 ? 1 : 100, 4 * 7, 7);
        const struct pgcb_res_cell *nul = &res.groups[g].cells[driver_index(&res, "null")];
        assert_int_equal(nul->status, PGCB_CELL_OK);
        assert_true(nul->samples >= 4 * 7);
        const struct pgcb_res_cell *py = &res.groups[g].cells[driver_index(&res, "py")];
        assert_int_equal(py->status, PGCB_CELL_SKIPPED);
        assert_non_null(strstr(py->error, "adapter process"));
        assert_int_equal(py->samples, 0);
    }
    /* The same rows as the query group's batches: the same fold. */
    size_t lp = driver_index(&res, "libpq_sync");
    assert_int_equal(res.groups[2].cells[lp].checksum, res.groups[0].cells[lp].checksum);
    pgcb_result_free(&res);

    /* aggregate reads it: the connection group is its own step. */
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "%s/aggregate --format csv '%s' '%s' > '%s/agg.csv'", e2e_build,
             out, out, e2e_tmp);
    assert_int_equal(system(cmd), 0);
    char path[700];
    snprintf(path, sizeof path, "%s/agg.csv", e2e_tmp);
    char *csv = e2e_slurp(path);
    assert_non_null(strstr(csv, ",conn,limit_100,1,false,true,1,,\"conn / limit_100, connect\","
                                "libpq_sync,false,ok,"));
    free(csv);
}

/* MD5 (pgcb_md5, its password from the passfile), the time floor
 * dominating: at least time_ms of connections, more than the count floor. */
static void test_md5(void **state)
{
    (void)state;
    make_table();
    char body[4096];
    snprintf(body, sizeof body, "%s" QUERIES "[suite.conn]\nconnect = yes\nconnections = 2\n"
             "queries = limit_100\n", drivers);
    const char *ini = e2e_write_file("md5", "[bench]\ntime_ms = 300\nwarmup_ms = 30\n"
                                     "orders = all\n[server]\nconninfo = user=pgcb_md5\n", body);
    const char *out = e2e_json_path("md5");
    struct e2e_run r = run(ini, out);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    e2e_run_free(&r);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.norders, 2);
    assert_non_null(strstr(res.conninfo, "pgcb_md5"));
    check_connect_group(&res, 0, 100, 0, 2);
    pgcb_result_free(&res);
}

/* SCRAM-SHA-256 (pgcb_scram), the count floor dominating again. */
static void test_scram(void **state)
{
    (void)state;
    make_table();
    char body[4096];
    snprintf(body, sizeof body, "%s" QUERIES "[suite.conn]\nconnect = yes\nconnections = 5\n",
             drivers);
    const char *ini = e2e_write_file("scram", "[bench]\ntime_ms = 1\nwarmup_ms = 30\n"
                                     "orders = all\n[server]\nconninfo = user=pgcb_scram\n", body);
    const char *out = e2e_json_path("scram");
    struct e2e_run r = run(ini, out);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 0);
    e2e_run_free(&r);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ngroups, 2);
    check_connect_group(&res, 0, 1, 2 * 5, 5);
    check_connect_group(&res, 1, 100, 2 * 5, 5);
    pgcb_result_free(&res);
}

/* Put pgcb_md5's password back as the passfile has it (after the wrong
 * password test, whatever happened in it). */
static int restore_md5(void **state)
{
    (void)state;
    const char *pw = passfile_password("pgcb_md5");
    if (!pw)
        return -1;
    PGconn *c = PQconnectdb("user=postgres");
    char *lit = PQstatus(c) == CONNECTION_OK ? PQescapeLiteral(c, pw, strlen(pw)) : NULL;
    char sql[512];
    snprintf(sql, sizeof sql, "SET password_encryption = 'md5'; ALTER ROLE pgcb_md5 PASSWORD %s",
             lit ? lit : "NULL");
    PGresult *res = lit ? PQexec(c, sql) : NULL;
    int ok = res && PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    PQfreemem(lit);
    PQfinish(c);
    if (!ok || !logs_in("pgcb_md5")) {
        fprintf(stderr, "test_connect_e2e: could not put pgcb_md5's password back\n");
        return -1;
    }
    return 0;
}

/* Suites in order: a query suite; a write step that sets pgcb_md5's
 * password to one no passfile holds (the drivers' hosts are connected by
 * then); the connection suite, whose every connection is refused; a query
 * suite, on the long-lived connections, which still works. */
/* Under `from` (the output, or a group's title in it), the failure line of
 * `client` starts with "  CLIENT: PREFIX" and says the password of `user`
 * was refused. */
static void check_password_failure(const char *from, const char *client, const char *prefix,
                                   const char *user)
{
    char want[160], line[1024], why[128];
    snprintf(want, sizeof want, "\n  %s: %s", client, prefix);
    const char *at = from ? strstr(from, want) : NULL;
    if (!at)
        fail_msg("no line '%s' in:\n%s", want + 1, from ? from : "(no such group)");
    const char *eol = strchr(at + 1, '\n');
    snprintf(line, sizeof line, "%.*s", (int)(eol ? eol - at - 1 : 200), at + 1);
    snprintf(why, sizeof why, "password authentication failed for user \"%s\"", user);
    if (!strstr(line, why))
        fail_msg("not a password failure: %s", line);
}

static void test_wrong_password(void **state)
{
    (void)state;
    make_table();
    char body[4096];
    snprintf(body, sizeof body,
             "%s" QUERIES
             "[query.repw]\nsql = ALTER ROLE pgcb_md5 PASSWORD "
             "'md500000000000000000000000000000000'\n"
             "[suite.first]\nqueries = limit_1\n"
             "[suite.repw]\nqueries = repw\nops = 1\n"
             "[suite.conn]\nqueries = limit_1\nconnect = yes\nconnections = 3\n"
             "[suite.after]\nqueries = limit_1\n",
             drivers);
    const char *ini = e2e_write_file("wrongpw", "[bench]\ntime_ms = 40\nqueries = 20\n"
                                     "warmup_ms = 10\norders = all\n"
                                     "[server]\nconninfo = user=pgcb_md5\n", body);
    const char *out = e2e_json_path("wrongpw");
    struct e2e_run r = run(ini, out);
    assert_false(logs_in("pgcb_md5")); /* the step did change it */
    if (r.status != 2)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 2); /* written, a driver failed somewhere */
    const char *clients[] = {"libpq_sync", "rawwire"};
    for (size_t k = 0; k < 2; k++)
        check_password_failure(r.out, clients[k], "failed: first connection: cannot connect: ",
                               "pgcb_md5");
    e2e_run_free(&r);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ngroups, 4);
    assert_string_equal(res.groups[2].suite, "conn");
    assert_string_equal(res.groups[3].suite, "after");
    for (size_t d = 0; d < res.ndrivers; d++) {
        assert_int_equal(res.groups[0].cells[d].status, PGCB_CELL_OK);
        assert_int_equal(res.groups[2].cells[d].status, PGCB_CELL_FAILED);
        assert_int_equal(res.groups[2].cells[d].samples, 0);
        assert_non_null(strstr(res.groups[2].cells[d].error, "password authentication failed"));
        assert_int_equal(res.groups[3].cells[d].status, PGCB_CELL_OK);
        assert_true(res.groups[3].cells[d].samples > 0);
    }
    pgcb_result_free(&res);
}

/* One run, every method by its suite's conninfo ([server] conninfo stays
 * postgres's, whose session runs the setup): trust, MD5, SCRAM-SHA-256, all
 * with the same rows; a suite whose passfile has a wrong password fails
 * for each driver with one line naming it; the query suite after it runs. */
static void test_suite_conninfo(void **state)
{
    (void)state;
    char wrong[600];
    snprintf(wrong, sizeof wrong, "%s/wrong.pgpass", e2e_tmp);
    FILE *f = fopen(wrong, "w");
    assert_non_null(f);
    fprintf(f, "*:*:*:pgcb_scram:not-the-password\n");
    fclose(f);
    assert_int_equal(chmod(wrong, 0600), 0);
    char body[4096];
    snprintf(body, sizeof body,
             "%s" QUERIES
             "[suite.trust]\nconnect = yes\nconnections = 4\nqueries = limit_100\n"
             "[suite.md5]\nconnect = yes\nconnections = 4\nqueries = limit_100\n"
             "conninfo = user=pgcb_md5\n"
             "[suite.scram]\nconnect = yes\nconnections = 4\nqueries = limit_100\n"
             "conninfo = user=pgcb_scram\n"
             "[suite.wrongpw]\nconnect = yes\nconnections = 4\nqueries = limit_100\n"
             "conninfo = user=pgcb_scram passfile=%s\n"
             "[suite.after]\nqueries = limit_100\n",
             drivers, wrong);
    char head[800]; /* setup as postgres; the count floor dominating */
    snprintf(head, sizeof head, "[bench]\ntime_ms = 1\nqueries = 40\nwarmup_ms = 20\n"
             "orders = all\n[server]\nsetup = %s/sql/benchmark_rows.sql\n", e2e_top);
    const char *ini = e2e_write_file("suiteci", head, body);
    const char *out = e2e_json_path("suiteci");
    struct e2e_run r = run(ini, out);
    if (r.status != 2)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    assert_int_equal(r.status, 2);
    const char *clients[] = {"libpq_sync", "rawwire"};
    for (size_t k = 0; k < 2; k++)
        check_password_failure(strstr(r.out, "wrongpw / limit_100"), clients[k], "failed: ",
                               "pgcb_scram");
    e2e_run_free(&r);
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ngroups, 5);
    const char *conninfo[3] = {NULL, "user='pgcb_md5'", "user='pgcb_scram'"};
    uint64_t sum = 0;
    for (size_t g = 0; g < 3; g++) {
        check_connect_group(&res, g, 100, res.norders * 4, 4);
        if (conninfo[g])
            assert_non_null(strstr(res.groups[g].conninfo, conninfo[g]));
        if (g == 0)
            sum = res.groups[0].cells[0].checksum;
        assert_int_equal(res.groups[g].cells[0].checksum, sum); /* the same rows */
    }
    for (size_t d = 0; d < res.ndrivers; d++) {
        assert_int_equal(res.groups[3].cells[d].status, PGCB_CELL_FAILED);
        assert_int_equal(res.groups[4].cells[d].status, PGCB_CELL_OK);
        assert_int_equal(res.groups[4].cells[d].checksum, sum);
    }
    pgcb_result_free(&res);
}

/* connect = yes with depth = 10: file:line, exit 1, no result. */
static void test_bad_depth(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body, "%s" QUERIES "[suite.c]\nconnect = yes\ndepth = 10\n", drivers);
    const char *ini = e2e_write_file("baddepth", "[bench]\ntime_ms = 10\n", body);
    const char *out = e2e_json_path("baddepth");
    struct e2e_run r = run(ini, out);
    assert_int_equal(r.status, 1);
    /* [bench] and time_ms (2), the driver sections (4), the queries (6),
     * [suite.c] and connect: depth is on line 15. */
    char want[800];
    snprintf(want, sizeof want, "runner: %s:15: [suite.c] depth: must be 1 with connect = yes "
             "(line 14): each sample of a connection suite is one connection running its query "
             "once\n", ini);
    assert_string_equal(r.err, want);
    assert_false(e2e_exists(out));
    e2e_run_free(&r);
}

int main(void)
{
    if (e2e_setup("test_connect_e2e") != 0)
        return 1;
    /* The roles of scripts/pgserver.sh: a server without them cannot run
     * this test. */
    if (!passfile_password("pgcb_md5") || !passfile_password("pgcb_scram") ||
        !logs_in("pgcb_md5") || !logs_in("pgcb_scram")) {
        fprintf(stderr, "test_connect_e2e: pgcb_md5 and pgcb_scram cannot log in with "
                        "PGPASSFILE (%s): this test needs a server started by "
                        "scripts/pgserver.sh (tests/run.sh)\n",
                getenv("PGPASSFILE") ? getenv("PGPASSFILE") : "not set");
        e2e_teardown();
        return 1;
    }
    snprintf(drivers, sizeof drivers,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n",
             e2e_build, e2e_build);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trust),
        cmocka_unit_test(test_md5),
        cmocka_unit_test(test_scram),
        cmocka_unit_test_teardown(test_wrong_password, restore_md5),
        cmocka_unit_test(test_suite_conninfo),
        cmocka_unit_test(test_bad_depth),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (e2e_teardown() != 0)
        rc = 1;
    return rc;
}
