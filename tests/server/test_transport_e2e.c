/*
 * test_transport_e2e.c -- [suite] transport end to end: the runner against
 * servers this test starts itself with scripts/pgserver.sh (--ssl: TCP and
 * TLS with a throw-away CA; --tcp: TCP without TLS) and the unix-only
 * server tests/run.sh started:
 *   - libpq_sync, libpq_pipeline and rawwire over unix, tcp and tls: three groups per
 *     query, in that order, each driver's seen transport the asked one
 *     (TLSv1.3 with a cipher and bits; client_addr 127.0.0.1 over TCP, none
 *     over the socket), the checksums equal across transports and drivers,
 *     the console's titles, Transport lines and summary, the JSON's
 *     transport_summary; a suite's conninfo with a password reaches neither
 *     the JSON nor the console;
 *   - rawwire beside libpq_sync over tcp and unix, listed in that order: unix
 *     is still the summary's baseline;
 *   - against the --tcp server: tls is one line naming the suite and its
 *     line, exit 1, no result; with [server] tls = sslmode=prefer libpq falls
 *     back to clear text, which is a warning line and "mismatch" in the JSON;
 *   - against the unix-only server: tcp is one line naming listen_addresses;
 *     a bad transport word is file:line.
 */
#include <math.h>
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

#include "result.h"
#include "../lib/e2e.h"

#define SQL_LIMIT(n) "SELECT * FROM benchmark_rows ORDER BY id LIMIT " #n

/* A server of this test's own: its directory and the PG* variables its
 * export line set (the run.sh server's are restored by server_stop). */
struct srv {
    char dir[600];
    int up;
};

static char saved_host[600], saved_port[32];

/* "export K=V K=V ..." into the environment. */
static void export_line(char *line)
{
    char *save = NULL;
    for (char *w = strtok_r(line, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
        char *eq = strchr(w, '=');
        if (strcmp(w, "export") == 0 || !eq)
            continue;
        *eq = '\0';
        setenv(w, eq + 1, 1);
    }
}

/* Start scripts/pgserver.sh start TMP/name FLAGS and take its variables. */
static void server_start(struct srv *s, const char *name, const char *flags)
{
    char cmd[2400], line[2048] = "";
    const char *cpus = getenv("PGCB_SERVER_CPUS");
    snprintf(s->dir, sizeof s->dir, "%s/%s", e2e_tmp, name);
    snprintf(cmd, sizeof cmd, "'%s/scripts/pgserver.sh' start '%s' %s%s%s 2>'%s.log'", e2e_top,
             s->dir, flags, cpus && *cpus ? " --cpus " : "", cpus && *cpus ? cpus : "", s->dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    if (!fgets(line, sizeof line, p))
        line[0] = '\0';
    int rc = pclose(p);
    if (rc != 0 || strncmp(line, "export ", 7) != 0) {
        char log[700];
        snprintf(log, sizeof log, "%s.log", s->dir);
        char *text = e2e_slurp(log);
        fprintf(stderr, "pgserver.sh start %s failed:\n%s\n", flags, text);
        free(text);
        fail();
    }
    export_line(line);
    /* libpq checks the server's certificate with sslmode=require once a
     * root certificate is given: the throw-away CA's. */
    const char *ca = getenv("PGCB_SSL_ROOTCERT");
    if (ca)
        setenv("PGSSLROOTCERT", ca, 1);
    s->up = 1;
}

static void server_stop(struct srv *s)
{
    if (s->up) {
        char cmd[1400];
        snprintf(cmd, sizeof cmd, "'%s/scripts/pgserver.sh' stop '%s' >/dev/null 2>&1", e2e_top,
                 s->dir);
        if (system(cmd) != 0)
            fprintf(stderr, "pgserver.sh stop %s failed\n", s->dir);
        s->up = 0;
    }
    setenv("PGHOST", saved_host, 1);
    setenv("PGPORT", saved_port, 1);
    unsetenv("PGSSLROOTCERT");
    unsetenv("PGCB_SSL_ROOTCERT");
    unsetenv("PGCB_TCP_HOST");
}

static char *drivers(const char *const *names)
{
    static char buf[2000];
    buf[0] = '\0';
    for (size_t i = 0; names[i]; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
                 "[driver.%s]\npath = %s/drivers/%s.so\n", names[i], e2e_build, names[i]);
    return buf;
}

/* The line of path that starts with `prefix` (0: none). */
static int line_of(const char *path, const char *prefix)
{
    char *text = e2e_slurp(path);
    int line = 1, found = 0;
    for (char *p = text; *p && !found; line++) {
        found = strncmp(p, prefix, strlen(prefix)) == 0 ? line : 0;
        char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    free(text);
    return found;
}

static int group_setup(void **state)
{
    (void)state;
    if (e2e_setup("test_transport_e2e") != 0)
        return 1;
    /* As root the servers run as postgres, who must reach their directories. */
    if (chmod(e2e_tmp, 0755) != 0)
        return 1;
    snprintf(saved_host, sizeof saved_host, "%s", getenv("PGHOST"));
    snprintf(saved_port, sizeof saved_port, "%s", getenv("PGPORT") ? getenv("PGPORT") : "5432");
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    return e2e_teardown();
}

static const struct pgcb_res_group *group_at(const struct pgcb_result *r, size_t g)
{
    assert_true(g < r->ngroups);
    return &r->groups[g];
}

static void test_three_transports(void **state)
{
    (void)state;
    struct srv s = {0};
    server_start(&s, "ssl", "--ssl");
    static const char *const names[] = {"libpq_sync", "libpq_pipeline", "rawwire", NULL};
    char body[4096];
    snprintf(body, sizeof body,
             "%s"
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n"
             "[suite.sequential]\ntransport = unix tcp tls\n"
             "conninfo = password=pgcb-not-shown connect_timeout=10\n",
             drivers(names));
    const char *ini = e2e_write_ini("three", body);
    const char *out = e2e_json_path("three");
    const char *env[] = {"BENCH_TIME_MS=100", "BENCH_QUERIES=30", NULL};
    struct e2e_run run = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    if (run.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", run.out, run.err);
    assert_int_equal(run.status, 0);
    assert_non_null(strstr(run.out, "sequential / limit_1 / unix  (depth 1"));
    assert_non_null(strstr(run.out, "sequential / limit_100 / tls  (depth 1"));
    assert_non_null(strstr(run.out, "  Transport: unix socket (every driver)\n"));
    assert_non_null(strstr(run.out, "  Transport: TCP from 127.0.0.1, no TLS (every driver)\n"));
    assert_non_null(strstr(run.out, "  Transport: TLSv1.3 "));
    assert_non_null(strstr(run.out, "What the transport adds"));
    assert_non_null(strstr(run.out, "not interleaved"));
    assert_non_null(strstr(run.out, "vs unix per query"));
    assert_null(strstr(run.out, "warning:"));
    assert_null(strstr(run.out, "pgcb-not-shown"));
    assert_null(strstr(run.err, "pgcb-not-shown"));

    struct pgcb_result r;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &r, err, sizeof err), 0);
    assert_int_equal(r.ngroups, 6);
    static const char *const order[] = {"unix", "tcp", "tls"};
    for (size_t g = 0; g < r.ngroups; g++) {
        const struct pgcb_res_group *gr = group_at(&r, g);
        assert_string_equal(gr->query, g < 3 ? "limit_1" : "limit_100");
        assert_non_null(gr->transport);
        assert_string_equal(gr->transport, order[g % 3]);
        assert_non_null(gr->conninfo);
        assert_null(strstr(gr->conninfo, "pgcb-not-shown"));
        assert_non_null(strstr(gr->conninfo, "connect_timeout='10'"));
        if (g % 3 == 2)
            assert_non_null(strstr(gr->conninfo, "sslmode='require'"));
        for (size_t d = 0; d < r.ndrivers; d++) {
            const struct pgcb_res_cell *c = &gr->cells[d];
            const struct pgcb_res_transport *t = &c->transport;
            assert_int_equal(c->status, PGCB_CELL_OK);
            assert_true(t->recorded);
            assert_string_equal(t->asked, order[g % 3]);
            assert_string_equal(t->seen, order[g % 3]);
            assert_false(t->mismatch);
            if (g % 3 == 0) {
                assert_null(t->client_addr);
            } else {
                assert_non_null(t->client_addr);
                assert_string_equal(t->client_addr, "127.0.0.1");
            }
            if (g % 3 == 2) {
                assert_non_null(t->tls_version);
                assert_string_equal(t->tls_version, "TLSv1.3");
                assert_non_null(t->cipher);
                assert_true(strlen(t->cipher) > 0);
                assert_true(t->bits >= 128);
            } else {
                assert_null(t->tls_version);
            }
            /* The same rows whatever the transport. */
            assert_int_equal(c->checksum, group_at(&r, g - g % 3)->cells[0].checksum);
        }
    }
    pgcb_result_free(&r);

    /* The derived summary: one step per query, unix the baseline. */
    json_error_t je;
    json_t *j = json_load_file(out, 0, &je);
    assert_non_null(j);
    json_t *sum = json_object_get(j, "transport_summary");
    assert_int_equal(json_array_size(sum), 2);
    json_t *step = json_array_get(sum, 1);
    assert_string_equal(json_string_value(json_object_get(step, "query")), "limit_100");
    assert_string_equal(json_string_value(json_object_get(step, "baseline")), "unix");
    assert_true(json_is_false(json_object_get(step, "interleaved")));
    assert_int_equal(json_array_size(json_object_get(step, "transports")), 3);
    json_t *drv = json_object_get(step, "drivers");
    assert_int_equal(json_array_size(drv), 3);
    json_t *res = json_object_get(json_array_get(drv, 0), "results");
    assert_int_equal(json_array_size(res), 3);
    json_t *tls = json_array_get(res, 2);
    assert_string_equal(json_string_value(json_object_get(tls, "transport")), "tls");
    double q = json_number_value(json_object_get(tls, "median_ns_per_query"));
    double dq = json_number_value(json_object_get(tls, "vs_baseline_ns_per_query"));
    double base = json_number_value(json_object_get(json_array_get(res, 0),
                                                    "median_ns_per_query"));
    assert_true(q > 0 && base > 0);
    assert_true(fabs((q - base) - dq) < 1e-6 * q);
    assert_true(json_is_null(json_object_get(json_array_get(res, 0),
                                             "vs_baseline_ns_per_query")));
    json_decref(j);
    e2e_run_free(&run);

    /* rawwire beside libpq_sync over the socket and TCP. */
    static const char *const raw[] = {"libpq_sync", "rawwire", NULL};
    snprintf(body, sizeof body,
             "%s[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[suite.s]\ndepth = 2\ntransport = tcp unix\n", drivers(raw));
    ini = e2e_write_ini("raw", body);
    out = e2e_json_path("raw");
    run = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    if (run.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", run.out, run.err);
    assert_int_equal(run.status, 0);
    assert_int_equal(pgcb_result_read(out, &r, err, sizeof err), 0);
    assert_int_equal(r.ngroups, 2);
    for (size_t g = 0; g < 2; g++)
        for (size_t d = 0; d < r.ndrivers; d++) {
            assert_int_equal(r.groups[g].cells[d].status, PGCB_CELL_OK);
            assert_string_equal(r.groups[g].cells[d].transport.seen, g ? "unix" : "tcp");
            assert_int_equal(r.groups[g].cells[d].checksum, r.groups[0].cells[0].checksum);
        }
    pgcb_result_free(&r);
    /* Without unix first, unix is still the baseline. */
    assert_non_null(strstr(run.out, "(depth 2, baseline unix)"));
    e2e_run_free(&run);
    server_stop(&s);
}

static void test_server_without_tls(void **state)
{
    (void)state;
    struct srv s = {0};
    server_start(&s, "tcp", "--tcp");
    static const char *const names[] = {"libpq_sync", NULL};
    char body[2048];
    snprintf(body, sizeof body,
             "%s[query.q]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[suite.secure]\ntransport = unix tls\n", drivers(names));
    const char *ini = e2e_write_ini("nossl", body);
    const char *out = e2e_json_path("nossl");
    const char *env[] = {"BENCH_TIME_MS=60", "BENCH_QUERIES=20", NULL};
    struct e2e_run run = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    assert_int_equal(run.status, 1);
    char want[900];
    snprintf(want, sizeof want, "runner: %s:%d: [suite.secure] transport = tls: the server has "
             "ssl = off: start it with scripts/pgserver.sh --ssl, or set [server] tls\n", ini,
             line_of(ini, "transport ="));
    assert_string_equal(run.err, want);
    assert_false(e2e_exists(out));
    e2e_run_free(&run);

    /* [server] tls set: tried as it is; libpq's prefer falls back to clear
     * text, which the server sees and the run says. */
    char head[900];
    snprintf(head, sizeof head, "[bench]\ntime_ms = 60\nqueries = 20\nwarmup_ms = 10\n"
             "[server]\nsetup = %s/sql/benchmark_rows.sql\ntls = sslmode=prefer\n", e2e_top);
    ini = e2e_write_file("prefer", head, body);
    out = e2e_json_path("prefer");
    run = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    if (run.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", run.out, run.err);
    assert_int_equal(run.status, 0);
    assert_non_null(strstr(run.out, "  warning: libpq_sync asked for tls, but the server saw "
                                    "TCP from 127.0.0.1, no TLS"));
    struct pgcb_result r;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &r, err, sizeof err), 0);
    assert_int_equal(r.ngroups, 2);
    assert_false(r.groups[0].cells[0].transport.mismatch);
    assert_string_equal(r.groups[1].cells[0].transport.asked, "tls");
    assert_string_equal(r.groups[1].cells[0].transport.seen, "tcp");
    assert_true(r.groups[1].cells[0].transport.mismatch);
    pgcb_result_free(&r);
    e2e_run_free(&run);
    server_stop(&s);
}

static void test_unix_only_server(void **state)
{
    (void)state;
    static const char *const names[] = {"libpq_sync", NULL};
    char body[2048];
    snprintf(body, sizeof body,
             "%s[query.q]\nsql = " SQL_LIMIT(1) "\n[suite.plain]\n[suite.net]\n"
             "transport = tcp\n", drivers(names));
    const char *ini = e2e_write_ini("unixonly", body);
    const char *out = e2e_json_path("unixonly");
    struct e2e_run run = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    assert_int_equal(run.status, 1);
    char want[900];
    snprintf(want, sizeof want, "runner: %s:%d: [suite.net] transport = tcp: the server does not "
             "listen on TCP (listen_addresses is empty): start it with scripts/pgserver.sh "
             "--tcp, or set [server] tcp\n", ini, line_of(ini, "transport ="));
    assert_string_equal(run.err, want);
    assert_false(e2e_exists(out));
    e2e_run_free(&run);

    snprintf(body, sizeof body,
             "%s[query.q]\nsql = SELECT 1\n[suite.s]\ntransport = carrier_pigeon\n",
             drivers(names));
    ini = e2e_write_ini("pigeon", body);
    run = e2e_run_runner(ini, out, NULL, NULL, 0, NULL);
    assert_int_equal(run.status, 1);
    snprintf(want, sizeof want, "runner: %s:%d: [suite.s] transport: 'carrier_pigeon' is not one "
             "of unix, tcp, tls\n", ini, line_of(ini, "transport ="));
    assert_string_equal(run.err, want);
    e2e_run_free(&run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unix_only_server),
        cmocka_unit_test(test_three_transports),
        cmocka_unit_test(test_server_without_tls),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
