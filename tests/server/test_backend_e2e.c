/*
 * test_backend_e2e.c -- each driver's own backends, end to end against the
 * real server tests/run.sh started (runner/server/backend.h): libpq_sync with text
 * and with binary results at LIMIT 500 and the null driver, on a tiny
 * budget. What must hold by construction, not by speed:
 *
 *   - the I/O drivers' backend figures are known (one backend each: one
 *     connection), the null driver's are null with no reason;
 *   - a backend's CPU time is > 0 and within the whole server's (whose
 *     reading brackets it), and its user + sys ticks agree with the exact
 *     schedstat total to within the kernel's rounding (two ticks per backend
 *     and order);
 *   - at depth 1 the backend waits for every next query: voluntary switches;
 *   - the console says "Backend CPU (ns/query)" and --detail adds "Server
 *     side, per query";
 *   - a [server] conninfo with application_name=custom, or a PGAPPNAME of the
 *     user's: unknown, and a note says why once.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "result.h"
#include "../lib/e2e.h"

#define SQL_LIMIT(n)                                                                        \
    "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY " \
    "id LIMIT " #n

static const char *const no_budget_env[] = {"BENCH_TIME_MS", "BENCH_QUERIES", "PGAPPNAME",
                                            NULL};

/* [bench] with a tiny budget and 2 orders, [server] with `conninfo`. */
static const char *head(const char *conninfo)
{
    static char h[1024];
    snprintf(h, sizeof h,
             "[bench]\ntime_ms = 150\nqueries = 100\nwarmup_ms = 20\norders = 2\n"
             "[server]\nconninfo = %s\nsetup = %s/sql/benchmark_rows.sql\n", conninfo, e2e_top);
    return h;
}

static void show_unless(const struct e2e_run *r, int want)
{
    if (r->status != want)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", r->status, r->out, r->err);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void test_backends_measured(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.text]\npath = %s/drivers/libpq_sync.so\nresult_format = text\n"
             "[driver.binary]\npath = %s/drivers/libpq_sync.so\nresult_format = binary\n"
             "[driver.null]\npath = %s/drivers/null.so\nrows = 500\n"
             "[query.limit_500]\nsql = " SQL_LIMIT(500) "\nrows = 500\n[suite.s]\n",
             e2e_build, e2e_build, e2e_build);
    const char *ini = e2e_write_file("measured", head(""), body);
    const char *out = e2e_json_path("measured");
    struct e2e_run r = e2e_run_runner(ini, out, no_budget_env, "--detail", 0, NULL);
    show_unless(&r, 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "│ Backend CPU (ns/query) │\n"));
    assert_null(strstr(r.out, "Server CPU (ns/query)"));
    assert_non_null(strstr(r.out, "Server side, per query:\n┌"));
    assert_null(strstr(r.out, "Backend CPU unknown"));

    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    assert_int_equal(res.ngroups, 1);
    assert_int_equal(res.norders, 2);
    const double tick = 1e9 / (double)sysconf(_SC_CLK_TCK);
    for (size_t d = 0; d < 2; d++) {
        const struct pgcb_res_cell *c = &res.groups[0].cells[d];
        const struct pgcb_res_backend *b = &c->backend;
        assert_int_equal(c->status, PGCB_CELL_OK);
        assert_true(pgcb_res_backend_known(b));
        assert_int_equal(b->pids, 1);
        assert_null(b->why);
        assert_true(c->queries > 0);
        const double q = (double)c->queries, orders = (double)res.norders;
        print_message("%s: backend %.0f ns/query (user %.0f, sys %.0f, %s), whole server %.0f; "
                      "switches %.3f voluntary, %.3f involuntary per query\n",
                      res.drivers[d].label, b->cpu_ns_per_query, b->user_ns_per_query,
                      b->sys_ns_per_query, b->cpu_exact ? "schedstat" : "ticks",
                      c->server_cpu_ns_per_query, b->voluntary_switches_per_query,
                      b->involuntary_switches_per_query);
        assert_true(b->cpu_ns_per_query > 0);
        assert_true(b->user_ns_per_query >= 0 && b->sys_ns_per_query >= 0);
        /* Inside the whole server's reading, which brackets the backends':
         * at most it, give or take a tick per reading of each. */
        assert_true(isfinite(c->server_cpu_ns_per_query));
        assert_true(b->cpu_ns_per_query * q <= c->server_cpu_ns_per_query * q +
                                                   2 * tick * orders);
        if (b->cpu_exact) {
            /* The kernel's user + sys ticks are its exact run time cut to
             * ticks, each: within two ticks per reading difference. */
            double ticks = (b->user_ns_per_query + b->sys_ns_per_query) * q;
            assert_true(fabs(ticks - b->cpu_ns_per_query * q) <= 3 * tick * orders * b->pids);
        } else {
            assert_true(b->cpu_ns_per_query == b->user_ns_per_query + b->sys_ns_per_query);
        }
        /* Depth 1: the backend waits for each next query. */
        assert_true(b->voluntary_switches_per_query > 0);
        assert_true(b->involuntary_switches_per_query >= 0);
    }
    const struct pgcb_res_cell *n = &res.groups[0].cells[2];
    assert_false(pgcb_res_backend_known(&n->backend));
    assert_true(isnan(n->backend.cpu_ns_per_query));
    assert_null(n->backend.why);
    assert_true(isnan(n->server_cpu_ns_per_query));
    pgcb_result_free(&res);

    /* In the file: an object per I/O driver, null for null. */
    json_error_t je;
    json_t *j = json_load_file(out, 0, &je);
    assert_non_null(j);
    json_t *cells = json_object_get(json_array_get(json_object_get(j, "groups"), 0), "results");
    json_t *b = json_object_get(json_array_get(cells, 0), "backend");
    assert_true(json_is_object(b));
    assert_true(json_is_number(json_object_get(b, "voluntary_switches_per_query")));
    assert_true(json_is_null(json_object_get(json_array_get(cells, 2), "backend")));
    json_decref(j);
    e2e_run_free(&r);
}

/* The connections carry an application_name of the user's: unknown, the
 * whole server's column, and the reason once (two groups, two drivers). */
static void expect_unknown(const char *name, const char *conninfo, const char *const *env,
                           const char *why)
{
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.text]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.binary]\npath = %s/drivers/libpq_sync.so\nresult_format = binary\n"
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.limit_2]\nsql = " SQL_LIMIT(2) "\nrows = 2\n[suite.s]\n",
             e2e_build, e2e_build);
    const char *ini = e2e_write_file(name, head(conninfo), body);
    const char *out = e2e_json_path(name);
    struct e2e_run r = e2e_run_runner(ini, out, env, NULL, 0, NULL);
    show_unless(&r, 0);
    assert_int_equal(r.status, 0);
    char note[512];
    snprintf(note, sizeof note, "  Backend CPU unknown for text, binary: %s\n", why);
    assert_int_equal(count(r.out, note), 1);
    assert_int_equal(count(r.out, "Backend CPU unknown"), 1);
    assert_int_equal(count(r.out, "│ Server CPU (ns/query) │\n"), 2);
    assert_null(strstr(r.out, "Backend CPU (ns/query)"));
    struct pgcb_result res;
    char err[512];
    assert_int_equal(pgcb_result_read(out, &res, err, sizeof err), 0);
    for (size_t g = 0; g < res.ngroups; g++)
        for (size_t d = 0; d < res.ndrivers; d++) {
            const struct pgcb_res_cell *c = &res.groups[g].cells[d];
            assert_int_equal(c->status, PGCB_CELL_OK);
            assert_false(pgcb_res_backend_known(&c->backend));
            assert_true(isnan(c->backend.cpu_ns_per_query));
            assert_string_equal(c->backend.why, why);
            assert_true(isfinite(c->server_cpu_ns_per_query)); /* still known */
        }
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

static void test_own_application_name(void **state)
{
    (void)state;
    expect_unknown("custom", "application_name=custom", no_budget_env,
                   "the conninfo sets application_name=custom, by which the backends cannot be "
                   "told from others");
    const char *env[] = {"BENCH_TIME_MS", "BENCH_QUERIES", "PGAPPNAME=mine", NULL};
    expect_unknown("pgappname", "", env,
                   "PGAPPNAME gives the connections an application_name of the user's own, by "
                   "which the backends cannot be told from others");
}

static int setup(void **state)
{
    (void)state;
    return e2e_setup("test_backend_e2e");
}

static int teardown(void **state)
{
    (void)state;
    return e2e_teardown();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backends_measured),
        cmocka_unit_test(test_own_application_name),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
