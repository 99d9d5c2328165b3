/*
 * test_report.c -- the console report of one group (common/report.c) for
 * issue 8's groups, byte for byte: the title of a transaction group with a
 * fixed number of operations and parameters ("rows_per_txn", "ops", "params"),
 * a skipped driver and its note, one line per background load (met, failed,
 * with an error) and the winner line marked when the SLA failed; the
 * background line's formatting of rates, durations and unknown figures;
 * issue 13's noise lines under the table and in the header, and the detail
 * table of percentiles and where it goes.
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
#include "../lib/resfake.h"

/* Drivers a (no pipelining), b (pipeline) and c (skipped: ABI 1.0); eight
 * execution orders; one transaction group of 50 rows per transaction, 20000
 * operations, 3 parameters; a lost the sign test to b in all eight. */
static void make(struct pgcb_result *r)
{
    static const char *const labels[] = {"a", "b", "c"};
    resfake_init(r, labels, 3, 8);
    r->drivers[1].caps = PGCB_CAP_PIPELINE;
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
        c->norders = 8;
        c->order_medians_ns = pgcb_xcalloc(8, sizeof(double));
        for (size_t o = 0; o < 8; o++)
            c->order_medians_ns[o] = med[d] + (o % 2 ? 1000 : -1000);
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
        "writes / ins  (rows_per_txn 50, 0 rows, 3 params, ops 20000, pooled over 8 execution "
        "orders)\n"
        "┌─────────────┬──────────────────┬──────────────────┬──────────────────────┬────────────────────────┬───────────┬─────────┬───────────────────────┐\n"
        "│ Task name   │ Latency avg (ns) │ Latency med (ns) │ x lowest [95% CI]    │ Throughput avg (ops/s) │ Queries/s │ Samples │ Client CPU (ns/query) │\n"
        "├─────────────┼──────────────────┼──────────────────┼──────────────────────┼────────────────────────┼───────────┼─────────┼───────────────────────┤\n"
        "│ a           │ 2000000 ± 0.50%  │ 2000000          │ 1.333 [1.333, 1.334] │ 500                    │ 25000     │ 400     │ 1000                  │\n"
        "│ b           │ 1500000 ± 0.50%  │ 1500000          │ 1.000                │ 667                    │ 33333     │ 400     │ 1000                  │\n"
        "│ c (skipped) │ -                │ -                │ -                    │ -                      │ -         │ 0       │ -                     │\n"
        "└─────────────┴──────────────────┴──────────────────┴──────────────────────┴────────────────────────┴───────────┴─────────┴───────────────────────┘\n"
        "  a: no pipelining: runs the 50 queries of a batch one after another\n"
        "  c: skipped: c implements driver ABI 1.0, which cannot pass query parameters\n"
        "Background bgw: a x 2 connections on query ins, target 200/s, achieved 199.6/s "
        "(99.8%), 399 executions in 2.00 s, latency from schedule median 412 µs p99 1.9 ms max "
        "3.0 ms — SLA met (>= 95%)\n"
        "Background bgd: b x 1 connection on query del, target 1000/s, achieved 512.2/s "
        "(51.2%), 1 execution in 2.00 s, latency from schedule median 850 ns p99 48 ms max "
        "2.3 s — SLA FAILED (< 95%); error: connection 1: 57P01: terminating\n"
        "Winner: b (1500000 ns median; faster than a in 8/8 orders, p = 0.0078) — background "
        "SLA FAILED\n"
        "\n";
    if (strcmp(out, want) != 0) {
        print_error("got:\n%s\nwant:\n%s\n", out, want);
        fail();
    }
    free(out);

    /* Markdown: the notes and background loads are one list. */
    out = capture_group(&r, PGCB_TABLE_MARKDOWN);
    assert_non_null(strstr(out, "**writes / ins**  (rows_per_txn 50, 0 rows, 3 params, ops "
                                "20000, pooled over 8 execution orders)\n\n|"));
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
    assert_memory_equal(out, "writes / ins  (depth 50, 0 rows, 1 param, pooled over 8 "
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

/* Issue 13's notes under the table: a client driver whose per-order medians
 * spread more than noise_warn_pct, steal on the measuring CPU over 1% (and
 * two clock ticks), and the group's line of steal and context switches;
 * none of them for a cell without the figures or a reference driver. */
static void test_noise_notes(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    struct pgcb_res_group *g = &r.groups[0];
    g->transaction = 0;
    g->ops = 0;
    g->nparams = 0;
    g->thread_cpus = pgcb_xcalloc(1, sizeof *g->thread_cpus);
    /* a: 6 orders, median 1100, MAD 150: robust CV 20.2% */
    static const double om[] = {1000, 1300, 800, 1500, 1000, 1200};
    struct pgcb_res_cell *a = &g->cells[0], *b = &g->cells[1];
    free(a->order_medians_ns);
    a->norders = 6;
    a->order_medians_ns = pgcb_xcalloc(6, sizeof(double));
    memcpy(a->order_medians_ns, om, sizeof om);
    pgcb_result_cell_spread(a);
    b->norders = 2; /* 2 orders: no CV (whatever make() gave it) */
    pgcb_result_cell_spread(b);
    assert_true(fabs(a->spread_cv_pct - 1.4826 * 150 / 1100 * 100) < 1e-9);
    assert_true(isnan(b->spread_cv_pct));
    a->noise_known = b->noise_known = 1;
    a->involuntary_switches = 50; /* in 20000 queries */
    a->steal_window_ns = b->steal_window_ns = 1e9;
    a->steal_cpus_pct = 0.5, a->steal_cpus_ns = 5e6;
    a->steal_machine_pct = 0.25, a->steal_machine_ns = 5e6;
    b->steal_cpus_pct = 2.5, b->steal_cpus_ns = 25e6;
    b->steal_machine_pct = 1.5, b->steal_machine_ns = 30e6;
    char *out = capture_group(&r, PGCB_TABLE_BOX);
    static const char notes[] =
        "  a: no pipelining: runs the 50 queries of a batch one after another\n"
        "  c: skipped: c implements driver ABI 1.0, which cannot pass query parameters\n"
        "  a: noisy: its per-order medians spread 20.2% (robust CV; 800 to 1500 ns over 6 "
        "orders), above noise_warn_pct 10%: a lead under about twice that is likely to stay "
        "unresolved\n"
        "  b: steal time 2.5% of CPU 0 while it ran (25 ms; 1.5% of the machine): the "
        "hypervisor ran something else there, and its latencies include those waits\n"
        "  Noise: steal 1.5% of CPU 0 (0.9% of the machine); involuntary context switches of "
        "the measuring thread per 1000 queries: a 2.5, b 0.0\n"
        "Background bgw:";
    if (!strstr(out, notes)) {
        print_error("got:\n%s\nwant in it:\n%s\n", out, notes);
        fail();
    }
    free(out);

    /* The run's threshold; steal of one tick (below 20 ms) is no note. */
    r.noise_warn_pct = 25;
    b->steal_cpus_ns = 15e6;
    out = capture_group(&r, PGCB_TABLE_BOX);
    assert_null(strstr(out, "noisy"));
    assert_null(strstr(out, "steal time"));
    assert_non_null(strstr(out, "  Noise: steal 1.5% of CPU 0"));
    free(out);
    /* A reference driver is never warned; a cell without the figures (a
     * file from before) has no line. */
    r.noise_warn_pct = 0; /* not recorded: the default, 10 */
    r.drivers[0].caps |= PGCB_CAP_REFERENCE;
    a->noise_known = b->noise_known = 0;
    out = capture_group(&r, PGCB_TABLE_BOX);
    assert_null(strstr(out, "noisy"));
    assert_null(strstr(out, "Noise"));
    free(out);
    /* Markdown: the same lines in the list. */
    r.drivers[0].caps &= ~(unsigned)PGCB_CAP_REFERENCE;
    out = capture_group(&r, PGCB_TABLE_MARKDOWN);
    assert_non_null(strstr(out, "\n- a: noisy: its per-order medians spread 20.2%"));
    free(out);
    pgcb_result_free(&r);
}

static char *capture(void (*fn)(FILE *, const struct pgcb_result *), const struct pgcb_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f, r);
    fclose(f);
    return buf;
}

static void header(FILE *f, const struct pgcb_result *r)
{
    pgcb_report_header(f, r, "socket /tmp/s");
}

static void add_cpu(struct pgcb_result *r, int cpu, const char *role, const char *gov,
                    double khz, const char *siblings)
{
    r->noise_cpus[r->nnoise_cpus++] = (struct pgcb_res_cpu){
        .cpu = cpu, .role = pgcb_xstrdup(role), .governor = gov ? pgcb_xstrdup(gov) : NULL,
        .cur_khz = khz, .min_khz = isnan(khz) ? NAN : 1500000,
        .max_khz = isnan(khz) ? NAN : 3500000,
        .smt_siblings = siblings ? pgcb_xstrdup(siblings) : NULL};
}

/* make()'s result with what the header prints filled in. */
static void make_for_header(struct pgcb_result *r, const char *client_cpus)
{
    make(r);
    r->runner_version = pgcb_xstrdup("v1");
    r->config_file = pgcb_xstrdup("x.ini");
    r->started_at = pgcb_xstrdup("2026-01-01T00:00:00Z");
    r->cpu_model = pgcb_xstrdup("CPU");
    r->kernel = pgcb_xstrdup("Linux");
    r->libpq_version = pgcb_xstrdup("15");
    r->client_cpus = pgcb_xstrdup(client_cpus);
    r->server_cpus_source = pgcb_xstrdup("detected");
}

/* The header's Noise line: governors, the first client CPU's frequency,
 * SMT siblings, steal since boot, the threshold; a note when a measuring
 * CPU shares its core with a server CPU or another measuring CPU; nothing
 * for a file without the figures. And the run's steal line at the end. */
static void test_noise_header(void **state)
{
    (void)state;
    struct pgcb_result r;
    make_for_header(&r, "0,1,3");
    char *out = capture(header, &r);
    assert_null(strstr(out, "Noise"));
    free(out);

    r.noise_warn_pct = 7.5;
    r.steal_boot_pct = 0.125;
    r.noise_cpus = pgcb_xcalloc(4, sizeof *r.noise_cpus);
    add_cpu(&r, 0, "client", "performance", 2450000, "0,2");
    add_cpu(&r, 1, "client", "performance", NAN, "1,3");
    add_cpu(&r, 3, "client", "performance", NAN, "1,3");
    add_cpu(&r, 2, "server", "performance", NAN, "0,2");
    out = capture(header, &r);
    static const char want[] =
        "Noise    : cpufreq governor performance on CPUs 0-3 (CPU 0 at 2.45 GHz, 1.50-3.50); "
        "SMT: CPU 0 (client) shares its core with 2, CPU 1 (client) shares its core with 3, "
        "CPU 3 (client) shares its core with 1, CPU 2 (server) shares its core with 0; steal "
        "since boot 0.12% of the machine's CPU time; orders spread warned above 7.5% "
        "(noise_warn_pct)\n"
        "Note     : measuring CPU 0 and server CPU 2 are SMT siblings: they share one core, so "
        "the server's work slows the client's\n"
        "Note     : measuring CPUs 1 and 3 are SMT siblings: threads measured on them share "
        "one core\n"
        "Budget   : ";
    if (!strstr(out, want)) {
        print_error("got:\n%s\nwant in it:\n%s\n", out, want);
        fail();
    }
    free(out);

    /* A VM: no cpufreq, no topology; mixed governors are named per CPU. */
    for (size_t i = 0; i < r.nnoise_cpus; i++) {
        free(r.noise_cpus[i].smt_siblings);
        r.noise_cpus[i].smt_siblings = NULL;
        free(r.noise_cpus[i].governor);
        r.noise_cpus[i].governor = NULL;
        r.noise_cpus[i].cur_khz = NAN;
    }
    r.steal_boot_pct = NAN;
    out = capture(header, &r);
    assert_non_null(strstr(out, "Noise    : cpufreq not shown by this machine (CPUs 0-3); SMT "
                                "siblings not shown by this machine; orders spread warned above "
                                "7.5% (noise_warn_pct)\n"));
    assert_null(strstr(out, "Note     : measuring"));
    free(out);
    r.noise_cpus[1].governor = pgcb_xstrdup("powersave");
    r.noise_cpus[1].smt_siblings = pgcb_xstrdup("1");
    out = capture(header, &r);
    assert_non_null(strstr(out, "Noise    : CPU 0 governor not shown, CPU 1 governor powersave, "
                                "CPU 3 governor not shown, CPU 2 governor not shown; SMT: CPU 1 "
                                "(client) alone on its core; orders"));
    free(out);

    /* The run's steal, after the rankings; nothing when unknown. */
    r.run_steal_pct = r.run_steal_ns = NAN;
    out = capture(pgcb_report_run_noise, &r);
    assert_string_equal(out, "");
    free(out);
    r.run_steal_pct = 0.25;
    r.run_steal_ns = 5e7;
    out = capture(pgcb_report_run_noise, &r);
    assert_string_equal(out, "Steal    : 0.25% of the machine's CPU time over the run (50 ms "
                             "in all, /proc/stat)\n");
    free(out);

    /* How idle CPUs waited ([bench] cpu_idle): nothing for a file from
     * before it (above); polling, with the run's idle entries after the
     * steal; as the system has it, with why. */
    out = capture(header, &r);
    assert_null(strstr(out, "Idle"));
    free(out);
    r.idle = (struct pgcb_res_idle){.asked = pgcb_xstrdup("auto"), .polling = 1,
                                    .driver = pgcb_xstrdup("haltpoll"),
                                    .governor = pgcb_xstrdup("haltpoll"),
                                    .entries_poll = 360919, .entries_other = 0};
    out = capture(header, &r);
    assert_non_null(strstr(out, "(noise_warn_pct)\nIdle     : poll ([bench] cpu_idle = auto; "
                                "cpuidle haltpoll, governor haltpoll): a PM QoS request of 0 us "
                                "held, so an idle CPU spins and a wake-up sends no interrupt "
                                "(docs/measuring.md#how-idle-cpus-wait)\n"));
    free(out);
    out = capture(pgcb_report_run_noise, &r);
    assert_string_equal(out, "Steal    : 0.25% of the machine's CPU time over the run (50 ms "
                             "in all, /proc/stat)\n"
                             "Idle     : the pinned CPUs went idle 360919 times while measuring: "
                             "360919 polling, 0 halting (cpuidle's usage counters)\n");
    free(out);
    free(r.idle.asked);
    free(r.idle.driver);
    free(r.idle.governor);
    r.idle = (struct pgcb_res_idle){.asked = pgcb_xstrdup("auto"),
                                    .why = pgcb_xstrdup("/dev/cpu_dma_latency: Permission denied "
                                                        "(root may write it)"),
                                    .entries_poll = NAN, .entries_other = NAN};
    out = capture(header, &r);
    assert_non_null(strstr(out, "Idle     : as the system has it (/dev/cpu_dma_latency: "
                                "Permission denied (root may write it); no cpuidle driver shown): "
                                "a backend waking a halted client CPU pays for the interrupt in "
                                "its own CPU time (docs/measuring.md#how-idle-cpus-wait)\n"));
    free(out);
    out = capture(pgcb_report_run_noise, &r); /* entries unknown: no Idle line */
    assert_null(strstr(out, "Idle"));
    free(out);
    pgcb_result_free(&r);
}

/* The header says what a verdict can reach with the run's orders, and warns
 * when no group can have a winner: a and b are clients, c too (3 clients,
 * 2 rivals: 8 orders at 1/64). 8 orders: no warning; 6: the warning. */
static void test_verdict_header(void **state)
{
    (void)state;
    struct pgcb_result r;
    make_for_header(&r, "0");
    char *out = capture(header, &r);
    assert_non_null(strstr(out, "Verdicts : exact two-sided sign test over the 8 execution "
                                "orders, Holm over 2 rivals, alpha 1/64: a winner needs >= 8 "
                                "orders without ties; ratio intervals 95%\n"));
    assert_null(strstr(out, "Warning"));
    free(out);
    r.norders = 6;
    r.alpha = 0.01;
    out = capture(header, &r);
    assert_non_null(strstr(out, "Warning  : 6 execution orders cannot crown a winner at alpha "
                                "1/100 against 2 rivals: no group will have one (set orders to "
                                "9 or more, or orders = auto)\n"));
    free(out);
    r.norders = 8;
    pgcb_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_box),
        cmocka_unit_test(test_background_line),
        cmocka_unit_test(test_noise_notes),
        cmocka_unit_test(test_noise_header),
        cmocka_unit_test(test_verdict_header),
        cmocka_unit_test(test_group_detail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
