/*
 * test_report_backend.c -- the server side in the console report and the
 * JSON (result.h struct pgcb_res_backend): the main table's last column is
 * "Backend CPU (ns/query)" when some driver's backends are known, else the
 * whole server's "Server CPU (ns/query)"; why they are unknown is said once
 * per run and reason, naming the drivers; the floor's server-bound note says
 * that the floor is then the server's limit; --detail's "Server side, per
 * query" table; and a group's "backend" round-trips through the JSON the
 * result file and the journal share, a group without it reading as unknown.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "pgcb/driver.h"
#include "report.h"
#include "result.h"
#include "util.h"
#include "../lib/resfake.h"

static const struct pgcb_res_backend unknown = {
    .cpu_ns_per_query = NAN, .user_ns_per_query = NAN, .sys_ns_per_query = NAN,
    .voluntary_switches_per_query = NAN, .involuntary_switches_per_query = NAN};

/* Drivers a (a client), floor (a reference that does I/O) and null (no
 * I/O); two orders; two groups of depth 1, one connection; backends known
 * for a and floor, the whole server's CPU too; null has neither. */
static void make(struct pgcb_result *r)
{
    static const char *const labels[] = {"a", "floor", "null"};
    static const unsigned caps[] = {0, PGCB_CAP_REFERENCE, PGCB_CAP_REFERENCE | PGCB_CAP_NO_IO};
    resfake_init(r, labels, 3, 2);
    for (size_t d = 0; d < 3; d++)
        r->drivers[d].caps = caps[d];
    r->ngroups = 2;
    r->groups = pgcb_xcalloc(2, sizeof *r->groups);
    const double med[] = {80000, 50000, 10000};
    for (size_t g = 0; g < 2; g++) {
        struct pgcb_res_group *gr = &r->groups[g];
        gr->suite = pgcb_xstrdup("s");
        gr->query = pgcb_xstrdup(g ? "q2" : "q1");
        gr->depth = 1;
        gr->threads = 1;
        gr->rows = 1;
        gr->cells = pgcb_xcalloc(3, sizeof *gr->cells);
        for (size_t d = 0; d < 3; d++) {
            struct pgcb_res_cell *c = &gr->cells[d];
            c->status = PGCB_CELL_OK;
            c->samples = c->queries = 1000;
            c->mean_ns = c->median_ns = med[d];
            c->rme_pct = 1;
            c->ops_per_s = c->queries_per_s = 1e9 / med[d];
            c->cpu_ns_per_query = med[d] / 2;
            c->server_cpu_ns_per_query = d == 2 ? NAN : 41000 + 1000 * (double)d;
            c->server_busy = d == 2 ? NAN : 0.5;
            c->backend = unknown;
            if (d < 2)
                c->backend = (struct pgcb_res_backend){
                    .cpu_ns_per_query = 40000 + 1000 * (double)d, .user_ns_per_query = 20000,
                    .sys_ns_per_query = 10000, .voluntary_switches_per_query = 1,
                    .involuntary_switches_per_query = 0.0125, .pids = 1, .cpu_exact = 1};
            c->norders = 2;
            c->order_medians_ns = pgcb_xcalloc(2, sizeof(double));
            c->order_medians_ns[0] = c->order_medians_ns[1] = med[d];
        }
    }
    r->complete = 1;
}

static char *capture(const struct pgcb_result *r, size_t g, unsigned flags)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pgcb_report_group_ex(f, r, g, PGCB_TABLE_BOX, flags);
    fclose(f);
    return buf;
}

static void expect(const char *out, const char *want)
{
    if (!strstr(out, want)) {
        print_error("missing:\n%s\nin:\n%s\n", want, out);
        fail();
    }
}

static void test_backend_column(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    char *out = capture(&r, 0, 0);
    expect(out, "│ Client CPU (ns/query) │ Backend CPU (ns/query) │\n");
    expect(out, "│ a                 │");
    expect(out, "│ 40000                 │ 40000                  │\n");   /* a */
    expect(out, "│ 25000                 │ 41000                  │\n");   /* floor */
    expect(out, "│ 5000                  │ -                      │\n");   /* null */
    assert_null(strstr(out, "Server CPU"));
    assert_null(strstr(out, "Backend CPU unknown"));
    free(out);

    /* a's backends unknown in both groups (the same reason), floor's known:
     * the column stays Backend CPU, a shows "-", the reason once. */
    for (size_t g = 0; g < 2; g++) {
        r.groups[g].cells[0].backend = unknown;
        r.groups[g].cells[0].backend.why = pgcb_xstrdup("the conninfo sets application_name=x");
    }
    out = capture(&r, 0, 0);
    expect(out, "│ 40000                 │ -                      │\n");
    expect(out, "  Backend CPU unknown for a: the conninfo sets application_name=x\n");
    free(out);
    out = capture(&r, 1, 0);
    assert_null(strstr(out, "Backend CPU unknown"));
    free(out);

    /* Nobody's backends known: the whole server's column under its own
     * title; one note names both drivers (null does no I/O: no reason). */
    for (size_t g = 0; g < 2; g++) {
        r.groups[g].cells[1].backend = unknown;
        r.groups[g].cells[1].backend.why = pgcb_xstrdup("the conninfo sets application_name=x");
    }
    out = capture(&r, 0, 0);
    expect(out, "│ Client CPU (ns/query) │ Server CPU (ns/query) │\n");
    expect(out, "│ 40000                 │ 41000                 │\n");
    expect(out, "│ 25000                 │ 42000                 │\n");
    expect(out, "  Backend CPU unknown for a, floor: the conninfo sets application_name=x\n");
    assert_null(strstr(out, "Backend CPU (ns/query)"));
    free(out);
    /* A new reason in the second group is said there. */
    free(r.groups[1].cells[1].backend.why);
    r.groups[1].cells[1].backend.why = pgcb_xstrdup("backend 9 exited during the group");
    out = capture(&r, 1, 0);
    expect(out, "  Backend CPU unknown for floor: backend 9 exited during the group\n");
    assert_null(strstr(out, "unknown for a"));
    free(out);
    pgcb_result_free(&r);
}

static void test_floor_server_bound(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    r.groups[0].cells[0].server_busy = 0.95;
    r.groups[0].cells[1].server_busy = 0.97;
    char *out = capture(&r, 0, 0);
    expect(out, "  a: the server was busy 95% of one CPU while it ran: the server, not the "
                "client, bounds this figure\n");
    expect(out, "  floor: the server was busy 97% of one CPU while it ran: the server, not "
                "the client, bounds this figure; the floor here is the server's limit, not "
                "the client's: x floor compares each driver with what this server can do\n");
    free(out);
    pgcb_result_free(&r);
}

static void test_detail_server_side(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    r.groups[0].cells[1].backend.involuntary_switches_per_query = 2.5;
    char *out = capture(&r, 0, PGCB_REPORT_DETAIL);
    static const char want[] =
        "Server side, per query:\n"
        "┌───────────────────┬───────────────────┬──────────────────┬────────────────────┬──────────────────────┬─────────────────┬─────────────┐\n"
        "│ Task name         │ Backend user (ns) │ Backend sys (ns) │ Voluntary switches │ Involuntary switches │ Server CPU (ns) │ Server busy │\n"
        "├───────────────────┼───────────────────┼──────────────────┼────────────────────┼──────────────────────┼─────────────────┼─────────────┤\n"
        "│ a                 │             20000 │            10000 │              1.000 │                0.013 │           41000 │       50.0% │\n"
        "│ floor (reference) │             20000 │            10000 │              1.000 │                2.500 │           42000 │       50.0% │\n"
        "│ null (reference)  │                 - │                - │                  - │                    - │               - │           - │\n"
        "└───────────────────┴───────────────────┴──────────────────┴────────────────────┴──────────────────────┴─────────────────┴─────────────┘\n"
        "  Backend: the driver's own backends (/proc); user and sys are clock ticks (10 ms "
        "each) summed over the orders; switches are the backends' context switches. Server: "
        "every server process, busy = its CPU time / wall time (100% = one CPU)\n";
    expect(out, want);
    /* After the percentiles, before the group's notes and verdict. */
    assert_true(strstr(out, "Latency percentiles") < strstr(out, "Server side, per query"));
    free(out);
    /* Neither the backends nor the server known (a server elsewhere): no
     * table. */
    for (size_t d = 0; d < 3; d++) {
        r.groups[0].cells[d].backend = unknown;
        r.groups[0].cells[d].server_cpu_ns_per_query = r.groups[0].cells[d].server_busy = NAN;
    }
    out = capture(&r, 0, PGCB_REPORT_DETAIL);
    assert_null(strstr(out, "Server side"));
    free(out);
    pgcb_result_free(&r);
}

static void test_json_round_trip(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    r.groups[0].cells[1].backend.cpu_exact = 0;
    r.groups[0].cells[1].backend.pids = 4;
    r.groups[0].cells[0].backend = unknown;
    r.groups[0].cells[0].backend.why = pgcb_xstrdup("why not");
    json_t *o = pgcb_result_group_json(&r, 0);
    assert_non_null(o);
    json_t *cells = json_object_get(o, "results");
    /* a: null and the reason; floor: the object; null: null, no reason. */
    assert_true(json_is_null(json_object_get(json_array_get(cells, 0), "backend")));
    assert_string_equal(json_string_value(json_object_get(json_array_get(cells, 0),
                                                          "backend_unknown")), "why not");
    json_t *b = json_object_get(json_array_get(cells, 1), "backend");
    assert_true(json_is_object(b));
    assert_string_equal(json_string_value(json_object_get(b, "cpu_source")), "ticks");
    assert_int_equal(json_integer_value(json_object_get(b, "pids")), 4);
    assert_true(json_is_null(json_object_get(json_array_get(cells, 2), "backend")));
    assert_null(json_object_get(json_array_get(cells, 2), "backend_unknown"));

    struct pgcb_res_group gr = {0};
    char why[256];
    assert_int_equal(pgcb_result_group_read(o, &r, &gr, why, sizeof why), 0);
    const struct pgcb_res_backend *fb = &gr.cells[1].backend;
    assert_true(pgcb_res_backend_known(fb));
    assert_int_equal(fb->pids, 4);
    assert_false(fb->cpu_exact);
    assert_true(fb->cpu_ns_per_query == 41000 && fb->user_ns_per_query == 20000 &&
                fb->sys_ns_per_query == 10000 && fb->voluntary_switches_per_query == 1 &&
                fb->involuntary_switches_per_query == 0.0125);
    assert_false(pgcb_res_backend_known(&gr.cells[0].backend));
    assert_true(isnan(gr.cells[0].backend.cpu_ns_per_query));
    assert_string_equal(gr.cells[0].backend.why, "why not");
    assert_false(pgcb_res_backend_known(&gr.cells[2].backend));
    assert_null(gr.cells[2].backend.why);
    pgcb_result_group_free(&gr, r.ndrivers);

    /* A file from before: no "backend" keys read as unknown (NAN); a bad
     * "backend" (no pids) too. */
    for (size_t d = 0; d < 3; d++) {
        json_object_del(json_array_get(cells, d), "backend");
        json_object_del(json_array_get(cells, d), "backend_unknown");
    }
    json_object_set_new(json_array_get(cells, 1), "backend",
                        json_pack("{s:f}", "cpu_ns_per_query", 5.0));
    memset(&gr, 0, sizeof gr);
    assert_int_equal(pgcb_result_group_read(o, &r, &gr, why, sizeof why), 0);
    for (size_t d = 0; d < 3; d++) {
        const struct pgcb_res_backend *x = &gr.cells[d].backend;
        assert_false(pgcb_res_backend_known(x));
        assert_true(isnan(x->cpu_ns_per_query) && isnan(x->user_ns_per_query) &&
                    isnan(x->sys_ns_per_query) && isnan(x->voluntary_switches_per_query) &&
                    isnan(x->involuntary_switches_per_query));
        assert_null(x->why);
    }
    pgcb_result_group_free(&gr, r.ndrivers);
    json_decref(o);
    pgcb_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backend_column),
        cmocka_unit_test(test_floor_server_bound),
        cmocka_unit_test(test_detail_server_side),
        cmocka_unit_test(test_json_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
