/*
 * test_report.c -- the console report of one group (runner/report.c) for
 * issue 8's groups, byte for byte: the title of a transaction group with a
 * fixed number of operations and parameters ("rows_per_txn", "ops", "params"),
 * a skipped driver and its note, one line per background load (met, failed,
 * with an error) and the winner line marked when the SLA failed; the
 * background line's formatting of rates, durations and unknown figures;
 * the detail table of percentiles (issue 13) and where it goes.
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

#include "pgcb/driver.h"
#include "report.h"
#include "result.h"
#include "util.h"

/* Drivers a (no pipelining), b (pipeline) and c (skipped: ABI 1.0); two
 * execution orders; one transaction group of 50 rows per transaction, 20000
 * operations, 3 parameters; a lost the sign test to b in both orders. */
static void make(struct pgcb_result *r)
{
    *r = (struct pgcb_result){0};
    static const char *const labels[] = {"a", "b", "c"};
    r->ndrivers = 3;
    r->drivers = pgcb_xcalloc(3, sizeof *r->drivers);
    for (size_t d = 0; d < 3; d++) {
        r->drivers[d].label = pgcb_xstrdup(labels[d]);
        r->drivers[d].name = pgcb_xstrdup(labels[d]);
        r->drivers[d].version = pgcb_xstrdup("1");
        r->drivers[d].links = pgcb_xstrdup("");
        r->drivers[d].path = pgcb_xstrdup("x.so");
    }
    r->drivers[1].caps = PGCB_CAP_PIPELINE;
    r->norders = 2;
    r->orders = pgcb_xcalloc(2, sizeof *r->orders);
    for (size_t o = 0; o < 2; o++)
        r->orders[o] = pgcb_xcalloc(3, sizeof **r->orders);
    r->ngroups = 1;
    r->groups = pgcb_xcalloc(1, sizeof *r->groups);
    struct pgcb_res_group *g = &r->groups[0];
    g->suite = pgcb_xstrdup("writes");
    g->query = pgcb_xstrdup("ins");
    g->sql = pgcb_xstrdup("INSERT INTO t VALUES ($1, $2, $3)");
    g->depth = 50;
    g->threads = 1;
    g->rows = 0;
    g->transaction = 1;
    g->ops = 20000;
    g->nparams = 3;
    g->cells = pgcb_xcalloc(3, sizeof *g->cells);
    const double med[] = {2000000, 1500000};
    for (size_t d = 0; d < 2; d++) {
        struct pgcb_res_cell *c = &g->cells[d];
        c->status = PGCB_CELL_OK;
        c->samples = 400;
        c->queries = 20000;
        c->mean_ns = med[d];
        c->rme_pct = 0.5;
        c->median_ns = med[d];
        c->ops_per_s = 1e9 / med[d];
        c->queries_per_s = 50e9 / med[d];
        c->cpu_ns_per_query = 1000;
        c->server_cpu_ns_per_query = c->server_busy = NAN; /* a server elsewhere */
        c->norders = 2;
        c->order_medians_ns = pgcb_xcalloc(2, sizeof(double));
        c->order_medians_ns[0] = med[d] - 1000;
        c->order_medians_ns[1] = med[d] + 1000;
    }
    g->cells[2] = (struct pgcb_res_cell){
        .status = PGCB_CELL_SKIPPED,
        .error = pgcb_xstrdup("skipped: c implements driver ABI 1.0, which cannot pass query "
                              "parameters"),
        .mean_ns = NAN, .median_ns = NAN, .ops_per_s = NAN, .queries_per_s = NAN,
        .cpu_ns_per_query = NAN, .server_cpu_ns_per_query = NAN, .server_busy = NAN};
    g->nbackgrounds = 2;
    g->backgrounds = pgcb_xcalloc(2, sizeof *g->backgrounds);
    g->backgrounds[0] = (struct pgcb_res_background){
        .name = pgcb_xstrdup("bgw"), .driver = pgcb_xstrdup("a"), .query = pgcb_xstrdup("ins"),
        .connections = 2, .target_rate = 200, .achieved_rate = 199.6, .executions = 399,
        .elapsed_s = 2.0, .median_ns = 412000, .p99_ns = 1900000, .max_ns = 3050000,
        .sla = 0.95, .sla_met = 1};
    g->backgrounds[1] = (struct pgcb_res_background){
        .name = pgcb_xstrdup("bgd"), .driver = pgcb_xstrdup("b"), .query = pgcb_xstrdup("del"),
        .connections = 1, .target_rate = 1000, .achieved_rate = 512.25, .executions = 1,
        .elapsed_s = 2.0, .median_ns = 850, .p99_ns = 48000000, .max_ns = 2300000000.0,
        .sla = 0.95, .sla_met = 0, .error = pgcb_xstrdup("connection 1: 57P01:\nterminating")};
    g->sla_failed = 1;
    r->complete = 1;
}

static char *capture_group(const struct pgcb_result *r, enum pgcb_table_style style)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pgcb_report_group_styled(f, r, 0, style);
    fclose(f);
    return buf;
}

static void test_group_box(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    char *out = capture_group(&r, PGCB_TABLE_BOX);
    static const char want[] =
        "writes / ins  (rows_per_txn 50, 0 rows, 3 params, ops 20000, pooled over 2 execution "
        "orders)\n"
        "┌─────────────┬──────────────────┬──────────────────┬────────────────────────┬───────────┬─────────┬───────────────────────┐\n"
        "│ Task name   │ Latency avg (ns) │ Latency med (ns) │ Throughput avg (ops/s) │ Queries/s │ Samples │ Client CPU (ns/query) │\n"
        "├─────────────┼──────────────────┼──────────────────┼────────────────────────┼───────────┼─────────┼───────────────────────┤\n"
        "│ a           │ 2000000 ± 0.50%  │ 2000000          │ 500                    │ 25000     │ 400     │ 1000                  │\n"
        "│ b           │ 1500000 ± 0.50%  │ 1500000          │ 667                    │ 33333     │ 400     │ 1000                  │\n"
        "│ c (skipped) │ -                │ -                │ -                      │ -         │ 0       │ -                     │\n"
        "└─────────────┴──────────────────┴──────────────────┴────────────────────────┴───────────┴─────────┴───────────────────────┘\n"
        "  a: no pipelining: runs the 50 queries of a batch one after another\n"
        "  c: skipped: c implements driver ABI 1.0, which cannot pass query parameters\n"
        "Background bgw: a x 2 connections on query ins, target 200/s, achieved 199.6/s "
        "(99.8%), 399 executions in 2.00 s, latency from schedule median 412 µs p99 1.9 ms max "
        "3.0 ms — SLA met (>= 95%)\n"
        "Background bgd: b x 1 connection on query del, target 1000/s, achieved 512.2/s "
        "(51.2%), 1 execution in 2.00 s, latency from schedule median 850 ns p99 48 ms max "
        "2.3 s — SLA FAILED (< 95%); error: connection 1: 57P01: terminating\n"
        "Winner: b (1500000 ns median, faster in all 2 execution orders; p <= 1/4 per rival) "
        "— background SLA FAILED\n"
        "\n";
    if (strcmp(out, want) != 0) {
        print_error("got:\n%s\nwant:\n%s\n", out, want);
        fail();
    }
    free(out);

    /* Markdown: the notes and background loads are one list. */
    out = capture_group(&r, PGCB_TABLE_MARKDOWN);
    assert_non_null(strstr(out, "**writes / ins**  (rows_per_txn 50, 0 rows, 3 params, ops "
                                "20000, pooled over 2 execution orders)\n\n|"));
    assert_non_null(strstr(out, "|\n\n- a: no pipelining: runs the 50 queries of a batch one "
                                "after another\n- c: skipped: c implements"));
    assert_non_null(strstr(out, "parameters\n- Background bgw: a x 2 connections"));
    assert_non_null(strstr(out, "terminating\n\nWinner: b "));
    free(out);

    /* A local server: its CPU column, and the note for the driver it bounds
     * (busy >= 90% of one CPU: one connection). */
    r.groups[0].cells[0].server_cpu_ns_per_query = 900;
    r.groups[0].cells[0].server_busy = 0.5;
    r.groups[0].cells[1].server_cpu_ns_per_query = 1400;
    r.groups[0].cells[1].server_busy = 0.97;
    out = capture_group(&r, PGCB_TABLE_BOX);
    assert_non_null(strstr(out, "│ Client CPU (ns/query) │ Server CPU (ns/query) │\n"));
    assert_non_null(strstr(out, "│ 1000                  │ 900                   │\n"));
    assert_non_null(strstr(out, "│ 1000                  │ 1400                  │\n"));
    assert_non_null(strstr(out, "│ -                     │ -                     │\n"));
    assert_non_null(strstr(out, "  b: the server was busy 97% of one CPU while it ran: the "
                                "server, not the client, bounds this figure\n"));
    assert_null(strstr(out, "  a: the server was busy"));
    free(out);
    /* Two connections and a server on one CPU: busy 0.95 of that one CPU. */
    r.groups[0].threads = 2;
    r.server_cpus = pgcb_xstrdup("1");
    r.groups[0].cells[0].server_busy = 0.95;
    out = capture_group(&r, PGCB_TABLE_BOX);
    assert_non_null(strstr(out, "  a: the server was busy 95% of one CPU"));
    free(out);
    r.groups[0].threads = 1;

    /* A time-budget group without transaction or parameters: "depth". */
    struct pgcb_res_group *g = &r.groups[0];
    g->transaction = 0;
    g->ops = 0;
    g->nparams = 1;
    out = capture_group(&r, PGCB_TABLE_BOX);
    assert_memory_equal(out, "writes / ins  (depth 50, 0 rows, 1 param, pooled over 2 "
                             "execution orders)\n", 71);
    free(out);
    pgcb_result_free(&r);
}

static char *capture_group_ex(const struct pgcb_result *r, enum pgcb_table_style style,
                              unsigned flags)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pgcb_report_group_ex(f, r, 0, style, flags);
    fclose(f);
    return buf;
}

/* The detail table (issue 13): after the group's table, before its notes;
 * min, the four percentiles and max per driver; a percentile beyond what
 * the sample count supports marked "*" (a: 400 samples, no p99.9 of its
 * own); the skipped driver "-"; a file without percentiles says so. */
static void test_group_detail(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    struct pgcb_res_cell *a = &r.groups[0].cells[0], *b = &r.groups[0].cells[1];
    const double pa[PGCB_PCT_N] = {1990000, 2400000, 3900000, 4100000};
    const double pb[PGCB_PCT_N] = {1500000, 1500500, 6000000, 6000100};
    memcpy(a->pct_ns, pa, sizeof pa);
    memcpy(b->pct_ns, pb, sizeof pb);
    a->min_ns = 1800000;
    a->max_ns = 4100000;
    b->samples = 5000;
    b->min_ns = 1400000;
    b->max_ns = 6100000;
    char *out = capture_group_ex(&r, PGCB_TABLE_BOX, PGCB_REPORT_DETAIL);
    /* right under the group's table (whatever its columns) */
    assert_non_null(strstr(out, "┘\nLatency percentiles (ns), from the pooled histogram:\n┌"));
    static const char want[] =
        "Latency percentiles (ns), from the pooled histogram:\n"
        "┌─────────────┬─────────┬─────────┬─────────┬─────────┬──────────┬─────────┐\n"
        "│ Task name   │     Min │     p50 │     p90 │     p99 │    p99.9 │     Max │\n"
        "├─────────────┼─────────┼─────────┼─────────┼─────────┼──────────┼─────────┤\n"
        "│ a           │ 1800000 │ 1990000 │ 2400000 │ 3900000 │ 4100000* │ 4100000 │\n"
        "│ b           │ 1400000 │ 1500000 │ 1500500 │ 6000000 │  6000100 │ 6100000 │\n"
        "│ c (skipped) │       - │       - │       - │       - │        - │       - │\n"
        "└─────────────┴─────────┴─────────┴─────────┴─────────┴──────────┴─────────┘\n"
        "  * fewer samples than the percentile needs (1 / (1 - q): 1000 for p99.9): the value "
        "is the max\n"
        "  a: no pipelining: runs the 50 queries of a batch one after another\n";
    if (!strstr(out, want)) {
        print_error("got:\n%s\nwant (inside):\n%s\n", out, want);
        fail();
    }
    free(out);
    /* Without the flag: no detail table. */
    out = capture_group_ex(&r, PGCB_TABLE_BOX, 0);
    assert_null(strstr(out, "Latency percentiles"));
    free(out);

    /* Markdown: a caption and a table between blank lines, "\*" escaped. */
    out = capture_group_ex(&r, PGCB_TABLE_MARKDOWN, PGCB_REPORT_DETAIL);
    assert_non_null(strstr(out, "|\n\n_Latency percentiles (ns), from the pooled histogram:_\n\n"
                                "| Task name   |     Min |"));
    assert_non_null(strstr(out, "| a           | 1800000 | 1990000 | 2400000 | 3900000 | "
                                "4100000* | 4100000 |\n"));
    assert_non_null(strstr(out, "| c (skipped) |       - |       - |       - |       - |"
                                "        - |       - |\n\n- \\* fewer samples"));
    assert_non_null(strstr(out, "is the max\n\n- a: no pipelining"));
    free(out);

    /* A file from before the percentiles: "-" and a note. */
    for (size_t k = 0; k < PGCB_PCT_N; k++)
        a->pct_ns[k] = b->pct_ns[k] = NAN;
    out = capture_group_ex(&r, PGCB_TABLE_BOX, PGCB_REPORT_DETAIL);
    assert_non_null(strstr(out, "│ a           │ 1800000 │   - │   - │   - │     - │ 4100000 │\n"));
    assert_non_null(strstr(out, "┘\n  no percentiles in this result file (written before they "
                                "were recorded)\n  a: no pipelining"));
    assert_null(strstr(out, "fewer samples"));
    free(out);
    pgcb_result_free(&r);
}

static void test_background_line(void **state)
{
    (void)state;
    char line[1024];
    struct pgcb_res_background b = {
        .name = "x", .driver = "d", .query = "q", .connections = 3, .target_rate = 2.5,
        .achieved_rate = NAN, .executions = 0, .elapsed_s = NAN, .median_ns = NAN,
        .p99_ns = NAN, .max_ns = NAN, .sla = NAN, .sla_met = 0};
    pgcb_report_background_line(line, sizeof line, &b);
    assert_string_equal(line, "Background x: d x 3 connections on query q, target 2.5/s, "
                              "achieved -, 0 executions, latency from schedule median - p99 - "
                              "max - — SLA FAILED");
    b.target_rate = 0;
    b.achieved_rate = 7;
    b.median_ns = 9999;
    b.p99_ns = 10000;
    b.max_ns = 12e9;
    b.sla = 0.9;
    b.sla_met = 1;
    pgcb_report_background_line(line, sizeof line, &b);
    assert_string_equal(line, "Background x: d x 3 connections on query q, target 0/s, "
                              "achieved 7.0/s, 0 executions, latency from schedule median "
                              "10 µs p99 10 µs max 12 s — SLA met (>= 90%)");
    /* rounding up to the next unit */
    b.median_ns = 999;
    b.p99_ns = 999999;
    b.max_ns = 9.96e6;
    pgcb_report_background_line(line, sizeof line, &b);
    assert_non_null(strstr(line, "median 999 ns p99 1.0 ms max 10 ms —"));
    /* a short buffer: cut, terminated */
    char small[16];
    pgcb_report_background_line(small, sizeof small, &b);
    assert_string_equal(small, "Background x: d");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_box),
        cmocka_unit_test(test_background_line),
        cmocka_unit_test(test_group_detail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
