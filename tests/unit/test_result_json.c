/*
 * test_result_json.c -- a result written as JSON reads back field for field;
 * the write is atomic (no temporary file is left, a failed write leaves no
 * file); NaN figures become null; bad files are refused with a reason;
 * issue 8's group keys (transaction, ops, params, sla_failed, background,
 * status "skipped") round-trip, and files without them read as 0 / empty;
 * so do issue 13's noise fields (a file without them: the spread computed
 * from the per-order medians, the rest unknown), and its percentiles and
 * percentile curve (NAN, no curve); and issue 17's selection record.
 */
#include <dirent.h>
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

#include "pgcb/driver.h"
#include "result.h"
#include "util.h"

static char dir[] = "/tmp/pgcb_test_json_XXXXXX";

static void make_result(struct pgcb_result *r)
{
    *r = (struct pgcb_result){0};
    r->runner_version = pgcb_xstrdup("v1-2-gabc");
    r->started_at = pgcb_xstrdup("2026-01-01T00:00:00Z");
    r->finished_at = pgcb_xstrdup("2026-01-01T00:01:00Z");
    r->config_file = pgcb_xstrdup("conf/x.ini");
    r->cpu_model = pgcb_xstrdup("Test CPU");
    r->cores = 2;
    r->ram_bytes = 25000000000ull;
    r->kernel = pgcb_xstrdup("Linux 6 x86_64");
    r->hostname = pgcb_xstrdup("h");
    r->client_cpus = pgcb_xstrdup("0");
    r->server_cpus = pgcb_xstrdup("1");
    r->server_cpus_source = pgcb_xstrdup("detected");
    r->libpq_version = pgcb_xstrdup("15.18");
    r->server_version = pgcb_xstrdup("15.18");
    r->conninfo = pgcb_xstrdup("host='/tmp'");
    r->time_ms = 9000;
    r->min_queries = 5000;
    r->warmup_ms = 1000;
    r->orders_mode = pgcb_xstrdup("all");
    r->complete = 1;
    r->ndrivers = 2;
    r->drivers = pgcb_xcalloc(2, sizeof *r->drivers);
    const char *names[] = {"a", "b"};
    for (size_t d = 0; d < 2; d++) {
        r->drivers[d].label = pgcb_xstrdup(names[d]);
        r->drivers[d].name = pgcb_xstrdup(names[d]);
        r->drivers[d].version = pgcb_xstrdup("1.0");
        r->drivers[d].links = pgcb_xstrdup("libpq 15.18");
        r->drivers[d].path = pgcb_xstrdup("x.so");
        r->drivers[d].abi_major = 1;
    }
    r->drivers[1].caps = PGCB_CAP_NO_IO | PGCB_CAP_REFERENCE;
    r->norders = 2;
    r->orders = pgcb_xcalloc(2, sizeof *r->orders);
    for (size_t o = 0; o < 2; o++) {
        r->orders[o] = pgcb_xcalloc(2, sizeof **r->orders);
        r->orders[o][0] = o;
        r->orders[o][1] = 1 - o;
    }
    r->ngroups = 1;
    r->groups = pgcb_xcalloc(1, sizeof *r->groups);
    struct pgcb_res_group *g = &r->groups[0];
    g->suite = pgcb_xstrdup("sequential");
    g->query = pgcb_xstrdup("limit_1");
    g->sql = pgcb_xstrdup("SELECT 1");
    g->depth = 10;
    g->threads = 1;
    g->rows = 1;
    g->cells = pgcb_xcalloc(2, sizeof *g->cells);
    for (size_t d = 0; d < 2; d++) {
        struct pgcb_res_cell *c = &g->cells[d];
        c->status = d ? PGCB_CELL_FAILED : PGCB_CELL_OK;
        c->error = d ? pgcb_xstrdup("order 2: 57P01: terminating") : NULL;
        c->samples = 1000 + d;
        c->queries = c->samples * 10;
        c->mean_ns = 15231.5;
        c->sd_ns = 12.25;
        c->rme_pct = 0.31;
        c->median_ns = 14987;
        c->p99_ns = 20000;
        c->min_ns = 9000;
        c->max_ns = 90000;
        c->ops_per_s = 65655.25;
        c->queries_per_s = 656552.5;
        c->cpu_ns_per_query = 2148.75;
        c->wall_ns = 15231500;
        c->norders = 2;
        c->order_medians_ns = pgcb_xcalloc(2, sizeof(double));
        c->order_medians_ns[0] = 14900;
        c->order_medians_ns[1] = d ? NAN : 15100;
        c->checksum = 0xfedcba9876543210ull;
        c->rows_per_batch = 10;
    }
}

/* Streaming groups (issue 42): the memory verdict over a suite's smallest
 * and largest results, and the group's and cells' "stream" keys through a
 * file and back. */
static void test_stream_verdict_round_trip(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    make_result(&r);
    /* Two groups of one streamed suite, 100,000 and 1,000,000 rows; driver
     * a's peak rises 8 MiB (bounded: under 16 B per extra row), driver b's
     * 110 MiB (grows: 128 B per extra row). */
    r.groups = pgcb_xrealloc(r.groups, 2 * sizeof *r.groups);
    r.ngroups = 2;
    struct pgcb_res_group *big = &r.groups[1];
    *big = (struct pgcb_res_group){.suite = pgcb_xstrdup("streamed"),
                                   .query = pgcb_xstrdup("rows_1m"),
                                   .sql = pgcb_xstrdup("SELECT 2"), .depth = 1, .threads = 1,
                                   .rows = 1000000};
    big->cells = pgcb_xcalloc(2, sizeof *big->cells);
    free(r.groups[0].suite);
    r.groups[0].suite = pgcb_xstrdup("streamed");
    const uint64_t small_peak[2] = {5 * 1024, 5 * 1024};
    const uint64_t big_peak[2] = {13 * 1024, 5 * 1024 + 115200};
    for (size_t g = 0; g < 2; g++) {
        struct pgcb_res_group *gr = &r.groups[g];
        gr->result_mode = PGCB_RESULT_STREAMED;
        gr->fetch_rows = 500;
        for (size_t d = 0; d < 2; d++) {
            struct pgcb_res_cell *c = &gr->cells[d];
            c->status = PGCB_CELL_OK;
            free(c->error);
            c->error = NULL;
            c->mem_known = 1;
            c->mem_peak_kib = g ? big_peak[d] : small_peak[d];
            c->stream_rows = g ? 1000000 : 100000;
            c->first_row_ns = 250000.5 + (double)d;
            c->idiom = pgcb_xstrdup(d ? "buffered, then folded" : "PQsetSingleRowMode");
            if (g) {
                c->norders = 2;
                c->order_medians_ns = pgcb_xcalloc(2, sizeof(double));
                c->median_ns = c->order_medians_ns[0] = c->order_medians_ns[1] = 5e8;
                c->samples = 6;
            }
        }
    }
    pgcb_result_stream_verdicts(&r);
    /* a: (13 - 5) MiB over 900,000 rows = 9.3 B per row */
    assert_int_equal(big->cells[0].mem_verdict, PGCB_MEM_BOUNDED);
    assert_true(fabs(big->cells[0].mem_bytes_per_row - 8.0 * 1048576 / 900000) < 1e-9);
    /* b: 115200 KiB over 900,000 rows = 131.072 B per row */
    assert_int_equal(big->cells[1].mem_verdict, PGCB_MEM_GROWS);
    assert_true(fabs(big->cells[1].mem_bytes_per_row - 131.072) < 1e-9);
    /* the smaller group has no verdict of its own */
    assert_int_equal(r.groups[0].cells[0].mem_verdict, PGCB_MEM_UNKNOWN);
    assert_true(isnan(r.groups[0].cells[0].mem_bytes_per_row));

    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/stream.json", dir);
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    assert_int_equal(pgcb_result_read(path, &back, err, sizeof err), 0);
    assert_int_equal(back.groups[1].result_mode, PGCB_RESULT_STREAMED);
    assert_int_equal(back.groups[1].fetch_rows, 500);
    assert_int_equal(back.groups[1].cells[1].mem_verdict, PGCB_MEM_GROWS);
    assert_true(fabs(back.groups[1].cells[1].mem_bytes_per_row - 131.072) < 1e-9);
    assert_int_equal(back.groups[1].cells[0].mem_verdict, PGCB_MEM_BOUNDED);
    assert_int_equal(back.groups[0].cells[0].mem_verdict, PGCB_MEM_UNKNOWN);
    assert_int_equal(back.groups[0].cells[1].stream_rows, 100000);
    assert_true(back.groups[1].cells[0].first_row_ns == 250000.5);
    assert_string_equal(back.groups[1].cells[1].idiom, "buffered, then folded");
    /* a group of another kind has no stream keys */
    struct pgcb_result plain, plain_back;
    make_result(&plain);
    assert_int_equal(pgcb_result_write(&plain, path, err, sizeof err), 0);
    assert_int_equal(pgcb_result_read(path, &plain_back, err, sizeof err), 0);
    assert_int_equal(plain_back.groups[0].result_mode, 0);
    assert_null(plain_back.groups[0].cells[0].idiom);
    pgcb_result_free(&plain_back);
    pgcb_result_free(&plain);
    pgcb_result_free(&back);
    pgcb_result_free(&r);
}

/* Groups at an RTT (issue 41): the expectation from the rtt-0 sibling (the
 * same suite, query, depth and transport; none for a concurrency group or
 * a failed sibling), its note past 25%, and the keys through a file and
 * back; a group without them has none. */
static void test_wire_round_trip(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    make_result(&r);
    r.wire_off = 1;
    r.groups = pgcb_xrealloc(r.groups, 2 * sizeof *r.groups);
    r.ngroups = 2;
    struct pgcb_res_group *far = &r.groups[1];
    *far = (struct pgcb_res_group){.suite = pgcb_xstrdup("sequential"),
                                   .query = pgcb_xstrdup("limit_1"),
                                   .sql = pgcb_xstrdup("SELECT 1"), .depth = 10, .threads = 1,
                                   .rows = 1};
    far->cells = pgcb_xcalloc(2, sizeof *far->cells);
    r.groups[0].has_rtt = 1;
    r.groups[0].rtt_ms = 0;
    far->has_rtt = 1;
    far->rtt_ms = 2;
    far->proxy = (struct pgcb_res_proxy){.known = 1, .chunks = 77, .late_mean_ns = 2100.5,
                                         .late_max_ns = 9000, .direct_ns = 41000,
                                         .proxied_ns = 2043000, .added_ns = 2002000,
                                         .refused = 1, .errors = 0};
    snprintf(far->proxy.last_error, sizeof far->proxy.last_error, "the upstream refused");
    for (size_t g = 0; g < 2; g++)
        for (size_t d = 0; d < 2; d++) {
            struct pgcb_res_cell *c = &r.groups[g].cells[d];
            c->status = PGCB_CELL_OK;
            free(c->error);
            c->error = NULL;
            c->median_ns = g ? (d ? 9e6 : 2.25e6) : 150000;
            c->samples = 10;
            c->norders = 2;
            if (g) {
                c->order_medians_ns = pgcb_xcalloc(2, sizeof(double));
                c->order_medians_ns[0] = c->order_medians_ns[1] = c->median_ns;
            }
            struct pgcb_res_wire *w = &c->wire;
            w->known = 1;
            w->round_trips = d ? 1 : 0.1;
            w->bytes_out = 47;
            w->bytes_in = 206;
            w->msgs_out = 4;
            w->msgs_in = 5;
            w->nout = 2;
            snprintf(w->out[0].name, sizeof w->out[0].name, "Bind");
            w->out[0].per_query = 1;
            snprintf(w->out[1].name, sizeof w->out[1].name, "Sync");
            w->out[1].per_query = 1;
            w->nin = 1;
            snprintf(w->in[0].name, sizeof w->in[0].name, "DataRow");
            w->in[0].per_query = 1;
            w->proxy_cpu_ns = 3000;
        }
    far->cells[1].stalls = 3;
    pgcb_result_wire_expect(&r);
    /* a: 150 us + 2 ms x 0.1 x 10 = 2.15 ms; measured 2.25 ms: +4.7%, no note */
    assert_true(fabs(far->cells[0].wire.expected_ns - 2150000) < 1e-6);
    assert_string_equal(far->cells[0].wire.note, "");
    /* b: 150 us + 2 ms x 1 x 10 = 20.15 ms; measured 9 ms: -55%, a note */
    assert_true(fabs(far->cells[1].wire.expected_ns - 20150000) < 1e-6);
    assert_string_equal(far->cells[1].wire.note,
                        "measured 9000 us, expected 20150 us (150 us at rtt 0 + 2 ms x 1.00 round "
                        "trips x depth 10): -55%");
    assert_true(isnan(r.groups[0].cells[0].wire.expected_ns)); /* rtt 0: none */

    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/wire.json", dir);
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    assert_int_equal(pgcb_result_read(path, &back, err, sizeof err), 0);
    assert_int_equal(back.wire_off, 1);
    assert_int_equal(back.groups[1].has_rtt, 1);
    assert_true(back.groups[1].rtt_ms == 2);
    assert_int_equal(back.groups[0].has_rtt, 1);
    assert_true(back.groups[0].rtt_ms == 0);
    const struct pgcb_res_proxy *p = &back.groups[1].proxy;
    assert_int_equal(p->known, 1);
    assert_int_equal(p->chunks, 77);
    assert_true(p->late_mean_ns == 2100.5 && p->added_ns == 2002000 && p->direct_ns == 41000);
    assert_int_equal(p->refused, 1);
    assert_string_equal(p->last_error, "the upstream refused");
    const struct pgcb_res_wire *w = &back.groups[1].cells[0].wire;
    assert_int_equal(w->known, 1);
    assert_true(w->round_trips == 0.1 && w->bytes_out == 47 && w->bytes_in == 206);
    assert_true(w->msgs_out == 4 && w->msgs_in == 5 && w->proxy_cpu_ns == 3000);
    assert_int_equal(w->nout, 2);
    assert_string_equal(w->out[1].name, "Sync");
    assert_int_equal(w->nin, 1);
    assert_string_equal(w->in[0].name, "DataRow");
    assert_true(fabs(w->expected_ns - 2150000) < 1e-6);
    assert_string_equal(back.groups[1].cells[1].wire.note, far->cells[1].wire.note);
    assert_int_equal(back.groups[1].cells[1].stalls, 3);
    assert_int_equal(back.groups[1].cells[0].stalls, 0);
    /* a group without an RTT: no such keys */
    struct pgcb_result plain, plain_back;
    make_result(&plain);
    assert_int_equal(pgcb_result_write(&plain, path, err, sizeof err), 0);
    assert_int_equal(pgcb_result_read(path, &plain_back, err, sizeof err), 0);
    assert_int_equal(plain_back.groups[0].has_rtt, 0);
    assert_int_equal(plain_back.groups[0].proxy.known, 0);
    assert_int_equal(plain_back.groups[0].cells[0].wire.known, 0);
    assert_int_equal(plain_back.wire_off, 0);
    pgcb_result_free(&plain_back);
    pgcb_result_free(&plain);
    pgcb_result_free(&back);
    pgcb_result_free(&r);
}

static int count_files(void)
{
    DIR *dp = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)))
        n += e->d_name[0] != '.';
    closedir(dp);
    return n;
}

static void test_round_trip(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    make_result(&r);
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/sub/r.json", dir);
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    assert_int_equal(pgcb_result_read(path, &back, err, sizeof err), 0);

    assert_string_equal(back.runner_version, "v1-2-gabc");
    assert_string_equal(back.cpu_model, "Test CPU");
    assert_int_equal(back.cores, 2);
    assert_true(back.ram_bytes == 25000000000ull);
    assert_string_equal(back.server_cpus, "1");
    assert_string_equal(back.server_version, "15.18");
    assert_int_equal(back.time_ms, 9000);
    assert_int_equal(back.min_queries, 5000);
    assert_int_equal(back.complete, 1);
    assert_int_equal(back.ndrivers, 2);
    assert_string_equal(back.drivers[1].label, "b");
    assert_int_equal(back.drivers[1].caps, PGCB_CAP_NO_IO | PGCB_CAP_REFERENCE);
    assert_int_equal(back.drivers[0].abi_major, 1);
    assert_int_equal(back.norders, 2);
    assert_int_equal(back.orders[1][0], 1);
    assert_int_equal(back.orders[1][1], 0);
    assert_int_equal(back.ngroups, 1);
    const struct pgcb_res_group *g = &back.groups[0];
    assert_string_equal(g->suite, "sequential");
    assert_int_equal(g->depth, 10);
    assert_int_equal(g->rows, 1);
    const struct pgcb_res_cell *c = &g->cells[0];
    assert_int_equal(c->status, PGCB_CELL_OK);
    assert_null(c->error);
    assert_int_equal(c->samples, 1000);
    assert_int_equal(c->queries, 10000);
    assert_true(c->mean_ns == 15231.5);
    assert_true(c->median_ns == 14987);
    assert_true(c->cpu_ns_per_query == 2148.75);
    assert_true(c->checksum == 0xfedcba9876543210ull);
    assert_true(c->order_medians_ns[1] == 15100);
    const struct pgcb_res_cell *f = &g->cells[1];
    assert_int_equal(f->status, PGCB_CELL_FAILED);
    assert_string_equal(f->error, "order 2: 57P01: terminating");
    assert_true(isnan(f->order_medians_ns[1])); /* written as null */

    /* The raw JSON: the documented keys, null for NaN. */
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "schema_version")),
                     PGCB_RESULT_SCHEMA_VERSION);
    json_t *cell1 = json_array_get(
        json_object_get(json_array_get(json_object_get(j, "groups"), 0), "results"), 1);
    assert_true(json_is_null(json_array_get(json_object_get(cell1, "order_medians_ns"), 1)));
    assert_string_equal(json_string_value(json_object_get(cell1, "status")), "failed");
    json_decref(j);

    pgcb_result_free(&back);
    pgcb_result_free(&r);
    remove(path);
    char sub[256];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    /* Only r.json was there: no temporary file left behind. */
    assert_int_equal(rmdir(sub), 0);
}

static void test_failed_write_leaves_nothing(void **state)
{
    (void)state;
    struct pgcb_result r;
    make_result(&r);
    char file[256], path[300], err[512] = "";
    snprintf(file, sizeof file, "%s/plainfile", dir);
    FILE *fp = fopen(file, "w");
    fclose(fp);
    snprintf(path, sizeof path, "%s/x/r.json", file); /* parent is a file */
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot create its directory: Not a directory"));
    assert_int_equal(count_files(), 1);
    remove(file);
    pgcb_result_free(&r);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_bad_files(void **state)
{
    (void)state;
    struct pgcb_result r;
    char path[256], err[512], want[600];
    snprintf(path, sizeof path, "%s/bad.json", dir);

    write_text(path, "{ not json");
    assert_int_equal(pgcb_result_read(path, &r, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:1: not valid JSON: ", path);
    assert_memory_equal(err, want, strlen(want));

    write_text(path, "{\"groups\": []}");
    assert_int_equal(pgcb_result_read(path, &r, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: no schema_version: not a pgclientbench result", path);
    assert_string_equal(err, want);

    write_text(path, "{\"schema_version\": 99}");
    assert_int_equal(pgcb_result_read(path, &r, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s: schema_version 99 is not supported (this program reads %d to %d)", path,
             PGCB_RESULT_SCHEMA_OLDEST, PGCB_RESULT_SCHEMA_VERSION);
    assert_string_equal(err, want);
    remove(path);

    assert_int_equal(pgcb_result_read("/nonexistent.json", &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent.json: unable to open"));
}

/* Issue 8's additions: a transaction group with a fixed number of
 * operations, parameters, a skipped cell and two background loads (one met
 * its SLA; one failed, with unknown latency) read back field for field. */
static void add_issue8(struct pgcb_result *r)
{
    struct pgcb_res_group *g = &r->groups[0];
    g->transaction = 1;
    g->ops = 5000000000ull; /* beyond 32 bits */
    g->nparams = 3;
    g->sla_failed = 1;
    free(g->cells[1].error);
    free(g->cells[1].order_medians_ns);
    g->cells[1] = (struct pgcb_res_cell){
        .status = PGCB_CELL_SKIPPED,
        .error = pgcb_xstrdup("skipped: b implements driver ABI 1.0 (no query parameters)"),
        .mean_ns = NAN, .sd_ns = NAN, .rme_pct = NAN, .median_ns = NAN, .p99_ns = NAN,
        .ops_per_s = NAN, .queries_per_s = NAN, .cpu_ns_per_query = NAN};
    g->nbackgrounds = 2;
    g->backgrounds = pgcb_xcalloc(2, sizeof *g->backgrounds);
    g->backgrounds[0] = (struct pgcb_res_background){
        .name = pgcb_xstrdup("bgw"), .driver = pgcb_xstrdup("a"), .query = pgcb_xstrdup("ins"),
        .connections = 2, .target_rate = 200, .achieved_rate = 199.625, .executions = 399,
        .elapsed_s = 1.99875, .median_ns = 412000.5, .p99_ns = 1900000, .max_ns = 3050000,
        .sla = 0.95, .sla_met = 1};
    g->backgrounds[1] = (struct pgcb_res_background){
        .name = pgcb_xstrdup("bgd"), .driver = pgcb_xstrdup("b"), .query = pgcb_xstrdup("del"),
        .connections = 1, .target_rate = 1000.5, .achieved_rate = 12.25, .executions = 0,
        .elapsed_s = NAN, .median_ns = NAN, .p99_ns = NAN, .max_ns = NAN, .sla = 0.9,
        .sla_met = 0, .error = pgcb_xstrdup("connection 1: 57P01: terminating")};
}

/* A concurrency group (issue 27): its shape and each cell's throughput
 * figures read back field for field; a plain group has none of the keys. */
static void test_round_trip_concurrency(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    make_result(&r);
    struct pgcb_res_group *g = &r.groups[0];
    g->concurrency = 10;
    g->pool = 4;
    g->load_mode = PGCB_LOAD_RATE;
    g->rate = 5000.5;
    g->cells[0].time_per_query_ns = 20000.25;
    g->cells[0].client_busy = 0.975;
    g->cells[0].bottleneck = PGCB_BOTTLENECK_CLIENT;
    g->cells[0].late_ns = 12345;
    g->cells[0].mem_known = 1; /* memory (issue 42): read back field for field */
    g->cells[0].mem_peak_kib = 158060;
    g->cells[0].mem_level_kib = 71200;
    g->cells[0].mem_growth_kib = 86860;
    g->cells[0].mem_processes = 2;
    g->cells[1].time_per_query_ns = NAN;
    g->cells[1].client_busy = NAN;
    g->cells[1].bottleneck = PGCB_BOTTLENECK_NEITHER;
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/rc.json", dir);
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    assert_int_equal(pgcb_result_read(path, &back, err, sizeof err), 0);
    const struct pgcb_res_group *b = &back.groups[0];
    assert_int_equal(b->concurrency, 10);
    assert_int_equal(b->pool, 4);
    assert_int_equal(b->load_mode, PGCB_LOAD_RATE);
    assert_true(b->rate == 5000.5);
    assert_true(b->cells[0].time_per_query_ns == 20000.25);
    assert_true(b->cells[0].client_busy == 0.975);
    assert_int_equal(b->cells[0].bottleneck, PGCB_BOTTLENECK_CLIENT);
    assert_int_equal(b->cells[0].late_ns, 12345);
    assert_int_equal(b->cells[0].mem_known, 1);
    assert_int_equal(b->cells[0].mem_peak_kib, 158060);
    assert_int_equal(b->cells[0].mem_level_kib, 71200);
    assert_int_equal(b->cells[0].mem_growth_kib, 86860);
    assert_int_equal(b->cells[0].mem_processes, 2);
    assert_int_equal(b->cells[1].mem_known, 0); /* not read: no "memory" */
    assert_true(pgcb_res_cell_figure(&b->cells[0]) == 20000.25);
    assert_true(isnan(b->cells[1].time_per_query_ns));
    assert_int_equal(b->cells[1].bottleneck, PGCB_BOTTLENECK_NEITHER);
    /* A plain group (make_result's, unchanged): no concurrency read back,
     * no "concurrency" key written, and the median is the figure ranked. */
    struct pgcb_result plain, plain_back;
    char ppath[256];
    make_result(&plain);
    snprintf(ppath, sizeof ppath, "%s/rc_plain.json", dir);
    assert_int_equal(pgcb_result_write(&plain, ppath, err, sizeof err), 0);
    assert_int_equal(pgcb_result_read(ppath, &plain_back, err, sizeof err), 0);
    assert_int_equal(plain_back.groups[0].concurrency, 0);
    assert_int_equal(plain_back.groups[0].pool, 0);
    assert_true(plain_back.groups[0].cells[0].median_ns == 14987);
    assert_true(pgcb_res_cell_figure(&plain_back.groups[0].cells[0]) == 14987);
    FILE *pf = fopen(ppath, "r");
    assert_non_null(pf);
    json_error_t pje;
    json_t *pj = json_loadf(pf, 0, &pje);
    fclose(pf);
    assert_non_null(pj);
    assert_null(json_object_get(json_array_get(json_object_get(pj, "groups"), 0), "concurrency"));
    json_decref(pj);
    pgcb_result_free(&plain);
    pgcb_result_free(&plain_back);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    json_error_t je;
    json_t *j = json_loadf(f, 0, &je);
    fclose(f);
    assert_non_null(j);
    json_t *jg = json_array_get(json_object_get(j, "groups"), 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(jg, "concurrency"),
                                                          "mode")), "rate");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(jg, "results"), 0), "bottleneck")),
                        "client");
    json_decref(j);
    pgcb_result_free(&r);
    pgcb_result_free(&back);
}

static void test_round_trip_issue8(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    make_result(&r);
    add_issue8(&r);
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/r8.json", dir);
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    assert_int_equal(pgcb_result_read(path, &back, err, sizeof err), 0);

    const struct pgcb_res_group *g = &back.groups[0], *w = &r.groups[0];
    assert_int_equal(g->transaction, 1);
    assert_true(g->ops == 5000000000ull);
    assert_int_equal(g->nparams, 3);
    assert_int_equal(g->sla_failed, 1);
    assert_int_equal(g->cells[1].status, PGCB_CELL_SKIPPED);
    assert_string_equal(g->cells[1].error, w->cells[1].error);
    assert_true(isnan(g->cells[1].median_ns));
    assert_int_equal(g->nbackgrounds, 2);
    for (size_t b = 0; b < 2; b++) {
        const struct pgcb_res_background *x = &g->backgrounds[b], *y = &w->backgrounds[b];
        assert_string_equal(x->name, y->name);
        assert_string_equal(x->driver, y->driver);
        assert_string_equal(x->query, y->query);
        assert_int_equal(x->connections, y->connections);
        assert_true(x->target_rate == y->target_rate);
        assert_true(x->achieved_rate == y->achieved_rate);
        assert_int_equal(x->executions, y->executions);
        /* NaN (unknown) is written as null and read back as NaN */
        const double xs[] = {x->elapsed_s, x->median_ns, x->p99_ns, x->max_ns, x->sla};
        const double ys[] = {y->elapsed_s, y->median_ns, y->p99_ns, y->max_ns, y->sla};
        for (size_t k = 0; k < 5; k++)
            assert_true(isnan(ys[k]) ? isnan(xs[k]) : xs[k] == ys[k]);
        assert_int_equal(x->sla_met, y->sla_met);
        if (y->error)
            assert_string_equal(x->error, y->error);
        else
            assert_null(x->error);
    }

    /* The raw JSON: the documented keys and types. */
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    assert_non_null(j);
    json_t *jg = json_array_get(json_object_get(j, "groups"), 0);
    assert_true(json_is_true(json_object_get(jg, "transaction")));
    assert_true(json_integer_value(json_object_get(jg, "ops")) == 5000000000ll);
    assert_int_equal(json_integer_value(json_object_get(jg, "params")), 3);
    assert_true(json_is_true(json_object_get(jg, "sla_failed")));
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(jg, "results"), 1), "status")),
                        "skipped");
    json_t *jb = json_array_get(json_object_get(jg, "background"), 1);
    assert_true(json_is_null(json_object_get(jb, "elapsed_s")));
    assert_true(json_is_null(json_object_get(json_object_get(jb, "latency_ns"), "p99")));
    assert_true(json_is_false(json_object_get(jb, "sla_met")));
    json_decref(j);
    pgcb_result_free(&back);

    /* A time-budget group: "ops" is null and reads back as 0. */
    r.groups[0].ops = 0;
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    j = json_load_file(path, 0, &je);
    assert_non_null(j);
    assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "groups"), 0),
                                             "ops")));
    json_decref(j);
    assert_int_equal(pgcb_result_read(path, &back, err, sizeof err), 0);
    assert_true(back.groups[0].ops == 0);
    pgcb_result_free(&back);
    pgcb_result_free(&r);
    remove(path);
}

/* A file from before issue 8 (no transaction, ops, params, sla_failed,
 * background keys; null for the nullable ones) reads with them 0 / empty. */
static void test_old_file_defaults(void **state)
{
    (void)state;
    struct pgcb_result r;
    char err[512];
    assert_int_equal(pgcb_result_read("tests/aggregate/a.json", &r, err, sizeof err), 0);
    for (size_t g = 0; g < r.ngroups; g++) {
        const struct pgcb_res_group *gr = &r.groups[g];
        assert_int_equal(gr->transaction, 0);
        assert_true(gr->ops == 0);
        assert_int_equal(gr->nparams, 0);
        assert_int_equal(gr->sla_failed, 0);
        assert_int_equal(gr->nbackgrounds, 0);
        assert_null(gr->backgrounds);
        /* nor percentiles and curves (issue 13): NAN, none */
        for (size_t d = 0; d < r.ndrivers; d++) {
            for (size_t k = 0; k < PGCB_PCT_N; k++)
                assert_true(isnan(gr->cells[d].pct_ns[k]));
            assert_int_equal(gr->cells[d].ncurve, 0);
            assert_null(gr->cells[d].curve);
        }
    }
    pgcb_result_free(&r);

    char path[256], text[512];
    snprintf(path, sizeof path, "%s/nulls.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    snprintf(text, sizeof text,
             "{\"schema_version\": 1, \"environment\": {}, \"drivers\": [{\"name\": \"a\"}], "
             "\"orders\": [], \"groups\": [{\"suite\": \"s\", \"query\": \"q\", \"ops\": null, "
             "\"background\": null, \"results\": [{\"driver\": \"a\", "
             "\"status\": \"skipped\"}]}]}");
    fputs(text, f);
    fclose(f);
    assert_int_equal(pgcb_result_read(path, &r, err, sizeof err), 0);
    assert_true(r.groups[0].ops == 0);
    assert_int_equal(r.groups[0].nbackgrounds, 0);
    assert_int_equal(r.groups[0].cells[0].status, PGCB_CELL_SKIPPED);
    pgcb_result_free(&r);
    remove(path);
}

/* Issue 13's noise fields: per cell the spread of the per-order medians,
 * steal and context switches; in the environment the threshold, the pinned
 * CPUs (null where the machine shows nothing) and the run's steal. Written,
 * read back, compared; a cell not measured has nulls. */
static void add_noise(struct pgcb_result *r)
{
    struct pgcb_res_cell *c = &r->groups[0].cells[0];
    c->spread_cv_pct = 1.25;
    c->spread_min_ns = 14900;
    c->spread_max_ns = 15100;
    c->noise_known = 1;
    c->involuntary_switches = 25;
    c->voluntary_switches = 5000000000ull;
    c->steal_window_ns = 2e9;
    c->steal_cpus_ns = 3e7;
    c->steal_cpus_pct = 1.5;
    c->steal_machine_ns = 4e7;
    c->steal_machine_pct = 1.0;
    struct pgcb_res_cell *f = &r->groups[0].cells[1];
    f->spread_cv_pct = NAN;
    f->spread_min_ns = f->spread_max_ns = 14900;
    r->noise_warn_pct = 7.5;
    r->steal_boot_pct = 0.125;
    r->run_steal_ns = 5e7;
    r->run_steal_pct = 0.25;
    r->nnoise_cpus = 2;
    r->noise_cpus = pgcb_xcalloc(2, sizeof *r->noise_cpus);
    r->noise_cpus[0] = (struct pgcb_res_cpu){
        .cpu = 0, .role = pgcb_xstrdup("client"), .governor = pgcb_xstrdup("performance"),
        .cur_khz = 2450000, .min_khz = 1500000, .max_khz = 3500000,
        .smt_siblings = pgcb_xstrdup("0,2")};
    r->noise_cpus[1] = (struct pgcb_res_cpu){.cpu = 2, .role = pgcb_xstrdup("server"),
                                             .cur_khz = NAN, .min_khz = NAN, .max_khz = NAN};
    r->idle = (struct pgcb_res_idle){.asked = pgcb_xstrdup("auto"), .polling = 1,
                                     .driver = pgcb_xstrdup("haltpoll"),
                                     .entries_poll = 131753, .entries_other = 2,
                                     .governor = NULL};
}

static void test_round_trip_noise(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    make_result(&r);
    add_noise(&r);
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/r13.json", dir);
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    assert_int_equal(pgcb_result_read(path, &back, err, sizeof err), 0);

    const struct pgcb_res_cell *c = &back.groups[0].cells[0], *f = &back.groups[0].cells[1];
    assert_true(c->spread_cv_pct == 1.25 && c->spread_min_ns == 14900 &&
                c->spread_max_ns == 15100);
    assert_int_equal(c->noise_known, 1);
    assert_int_equal(c->involuntary_switches, 25);
    assert_true(c->voluntary_switches == 5000000000ull);
    assert_true(c->steal_window_ns == 2e9 && c->steal_cpus_ns == 3e7 &&
                c->steal_cpus_pct == 1.5 && c->steal_machine_ns == 4e7 &&
                c->steal_machine_pct == 1.0);
    assert_true(isnan(f->spread_cv_pct) && f->spread_min_ns == 14900);
    assert_int_equal(f->noise_known, 0);
    assert_true(isnan(f->steal_cpus_pct) && isnan(f->steal_window_ns));
    assert_true(back.noise_warn_pct == 7.5 && back.steal_boot_pct == 0.125 &&
                back.run_steal_ns == 5e7 && back.run_steal_pct == 0.25);
    assert_int_equal(back.nnoise_cpus, 2);
    assert_int_equal(back.noise_cpus[0].cpu, 0);
    assert_string_equal(back.noise_cpus[0].role, "client");
    assert_string_equal(back.noise_cpus[0].governor, "performance");
    assert_true(back.noise_cpus[0].cur_khz == 2450000 && back.noise_cpus[0].max_khz == 3500000);
    assert_string_equal(back.noise_cpus[0].smt_siblings, "0,2");
    assert_int_equal(back.noise_cpus[1].cpu, 2);
    assert_string_equal(back.noise_cpus[1].role, "server");
    assert_null(back.noise_cpus[1].governor);
    assert_null(back.noise_cpus[1].smt_siblings);
    assert_true(isnan(back.noise_cpus[1].min_khz));
    assert_string_equal(back.idle.asked, "auto");
    assert_int_equal(back.idle.polling, 1);
    assert_null(back.idle.why);
    assert_string_equal(back.idle.driver, "haltpoll");
    assert_null(back.idle.governor);
    assert_true(back.idle.entries_poll == 131753 && back.idle.entries_other == 2);
    pgcb_result_free(&back);

    /* The raw JSON: the documented keys; null for what is not known. */
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    assert_non_null(j);
    json_t *res = json_object_get(json_array_get(json_object_get(j, "groups"), 0), "results");
    json_t *j0 = json_array_get(res, 0), *j1 = json_array_get(res, 1);
    assert_true(json_real_value(json_object_get(json_object_get(j0, "order_spread"),
                                                "robust_cv_pct")) == 1.25);
    assert_int_equal(json_integer_value(json_object_get(j0, "involuntary_switches")), 25);
    /* 25 switches in 10000 queries */
    assert_true(json_real_value(json_object_get(j0, "involuntary_switches_per_1k_queries")) ==
                2.5);
    assert_true(json_real_value(json_object_get(json_object_get(j0, "steal"), "cpus_pct")) ==
                1.5);
    assert_true(json_is_null(json_object_get(json_object_get(j1, "order_spread"),
                                             "robust_cv_pct")));
    assert_true(json_is_null(json_object_get(j1, "steal")));
    assert_true(json_is_null(json_object_get(j1, "involuntary_switches")));
    assert_true(json_is_null(json_object_get(j1, "involuntary_switches_per_1k_queries")));
    json_t *noise = json_object_get(json_object_get(j, "environment"), "noise");
    assert_true(json_real_value(json_object_get(noise, "warn_pct")) == 7.5);
    json_t *cpu1 = json_array_get(json_object_get(noise, "cpus"), 1);
    assert_true(json_is_null(json_object_get(cpu1, "governor")));
    assert_true(json_is_null(json_object_get(cpu1, "cur_khz")));
    json_t *idle = json_object_get(noise, "cpu_idle");
    assert_string_equal(json_string_value(json_object_get(idle, "asked")), "auto");
    assert_true(json_is_true(json_object_get(idle, "polling")));
    assert_true(json_is_null(json_object_get(idle, "why")));
    assert_true(json_is_null(json_object_get(idle, "governor")));
    assert_true(json_number_value(json_object_get(idle, "entries_other")) == 2);
    json_decref(j);
    pgcb_result_free(&r);
    remove(path);
}

/* A file from before issue 13: no spread in it, so it is computed from the
 * per-order medians; steal and switches unknown; no CPUs; no threshold. */
static void test_old_file_noise(void **state)
{
    (void)state;
    struct pgcb_result r;
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/old13.json", dir);
    write_text(path, "{\"schema_version\": 1, \"environment\": {}, \"drivers\": "
                     "[{\"name\": \"a\"}], \"orders\": [], \"groups\": [{\"suite\": \"s\", "
                     "\"query\": \"q\", \"results\": [{\"driver\": \"a\", \"status\": \"ok\", "
                     "\"order_medians_ns\": [100, 110, null, 90, 150]}]}]}");
    assert_int_equal(pgcb_result_read(path, &r, err, sizeof err), 0);
    const struct pgcb_res_cell *c = &r.groups[0].cells[0];
    /* median 105, deviations 5 5 15 45 -> MAD 10 */
    assert_true(fabs(c->spread_cv_pct - 1.4826 * 10 / 105 * 100) < 1e-9);
    assert_true(c->spread_min_ns == 90 && c->spread_max_ns == 150);
    assert_int_equal(c->noise_known, 0);
    assert_true(isnan(c->steal_cpus_pct) && isnan(c->steal_machine_pct));
    assert_true(isnan(r.noise_warn_pct) && isnan(r.steal_boot_pct) && isnan(r.run_steal_pct));
    assert_null(r.idle.asked); /* how idle CPUs waited: not known */
    assert_int_equal(r.idle.polling, 0);
    assert_true(isnan(r.idle.entries_poll) && isnan(r.idle.entries_other));
    assert_int_equal(r.nnoise_cpus, 0);
    pgcb_result_free(&r);
    remove(path);
}

static char **strv(const char *a, const char *b)
{
    char **v = pgcb_xcalloc(3, sizeof *v);
    v[0] = a ? pgcb_xstrdup(a) : NULL;
    v[1] = b ? pgcb_xstrdup(b) : NULL;
    return v;
}

/* Issue 17's "selection" (what the command line and driver_dir made of the
 * config) and the budget's sources read back; a file without them reads as
 * not recorded, and writes none. */
static void test_round_trip_selection(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    make_result(&r);
    struct pgcb_res_selection *s = &r.selection;
    s->recorded = 1;
    s->driver_dir = pgcb_xstrdup("/x/drivers");
    s->nadded = 1;
    s->added = pgcb_xcalloc(1, sizeof *s->added);
    s->added[0] = (struct pgcb_res_added_driver){pgcb_xstrdup("mine"), pgcb_xstrdup("./m.so"),
                                                 pgcb_xstrdup("--driver")};
    s->only_given = 1;
    s->only = (struct pgcb_res_names){strv("a", "mine"), 2};
    s->queries_given = 1;
    s->queries = (struct pgcb_res_names){strv("q1", NULL), 1};
    s->left_out_drivers = (struct pgcb_res_names){strv("b", NULL), 1};
    s->left_out_queries = (struct pgcb_res_names){strv("q2", "q3"), 2};
    s->time_source = pgcb_xstrdup("-T");
    s->queries_source = pgcb_xstrdup("BENCH_QUERIES");
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/r17.json", dir);
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    assert_int_equal(pgcb_result_read(path, &back, err, sizeof err), 0);
    const struct pgcb_res_selection *b = &back.selection;
    assert_int_equal(b->recorded, 1);
    assert_string_equal(b->driver_dir, "/x/drivers");
    assert_int_equal(b->nadded, 1);
    assert_string_equal(b->added[0].name, "mine");
    assert_string_equal(b->added[0].path, "./m.so");
    assert_string_equal(b->added[0].from, "--driver");
    assert_int_equal(b->only_given, 1);
    assert_int_equal(b->only.n, 2);
    assert_string_equal(b->only.v[1], "mine");
    assert_int_equal(b->suites_given, 0);
    assert_int_equal(b->queries_given, 1);
    assert_string_equal(b->queries.v[0], "q1");
    assert_int_equal(b->left_out_drivers.n, 1);
    assert_int_equal(b->left_out_suites.n, 0);
    assert_int_equal(b->left_out_queries.n, 2);
    assert_string_equal(b->left_out_queries.v[1], "q3");
    assert_string_equal(b->time_source, "-T");
    assert_string_equal(b->queries_source, "BENCH_QUERIES");
    pgcb_result_free(&back);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    assert_non_null(j);
    json_t *sel = json_object_get(j, "selection");
    assert_true(json_is_null(json_object_get(sel, "suites"))); /* not asked */
    assert_int_equal(json_array_size(json_object_get(json_object_get(sel, "left_out"),
                                                     "suites")), 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "budget"),
                                                          "time_ms_source")), "-T");
    json_decref(j);
    pgcb_result_free(&r);

    /* Not recorded: no "selection", no sources. */
    make_result(&r);
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    j = json_load_file(path, 0, &je);
    assert_null(json_object_get(j, "selection"));
    assert_null(json_object_get(json_object_get(j, "budget"), "time_ms_source"));
    json_decref(j);
    assert_int_equal(pgcb_result_read(path, &back, err, sizeof err), 0);
    assert_int_equal(back.selection.recorded, 0);
    assert_null(back.selection.time_source);
    pgcb_result_free(&back);
    pgcb_result_free(&r);
    remove(path);
}

/* Issue 13's distribution: a cell's percentiles and percentile curve read
 * back exactly; a cell without a curve writes [] and reads none; a cell
 * without samples writes null percentiles; the JSON's shape. */
static void test_round_trip_distribution(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    make_result(&r);
    struct pgcb_res_cell *c = &r.groups[0].cells[0];
    const double pct[PGCB_PCT_N] = {14987, 17001.5, 20000, 61440};
    memcpy(c->pct_ns, pct, sizeof pct);
    c->ncurve = 3;
    c->curve = pgcb_xcalloc(3, sizeof *c->curve);
    c->curve[0] = (struct pgcb_pct_point){0, 9000};
    c->curve[1] = (struct pgcb_pct_point){1 - pow(10, -0.25), 12345.5};
    c->curve[2] = (struct pgcb_pct_point){1, 90000};
    struct pgcb_res_cell *f = &r.groups[0].cells[1];
    f->samples = 0;
    f->pct_ns[0] = 1; /* not written: no samples */
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/dist.json", dir);
    assert_int_equal(pgcb_result_write(&r, path, err, sizeof err), 0);
    assert_int_equal(pgcb_result_read(path, &back, err, sizeof err), 0);
    const struct pgcb_res_cell *b = &back.groups[0].cells[0];
    for (size_t k = 0; k < PGCB_PCT_N; k++)
        assert_true(b->pct_ns[k] == pct[k]);
    assert_int_equal(b->ncurve, 3);
    for (size_t k = 0; k < 3; k++) {
        assert_true(b->curve[k].q == c->curve[k].q); /* 17 digits: exact */
        assert_true(b->curve[k].ns == c->curve[k].ns);
    }
    const struct pgcb_res_cell *bf = &back.groups[0].cells[1];
    for (size_t k = 0; k < PGCB_PCT_N; k++)
        assert_true(isnan(bf->pct_ns[k]));
    assert_int_equal(bf->ncurve, 0);
    assert_null(bf->curve);
    /* The existing keys are unchanged. */
    assert_true(b->median_ns == 14987 && b->p99_ns == 20000);

    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    assert_non_null(j);
    json_t *res = json_object_get(json_array_get(json_object_get(j, "groups"), 0), "results");
    json_t *p0 = json_object_get(json_array_get(res, 0), "percentiles_ns");
    assert_true(json_is_object(p0));
    assert_int_equal(json_object_size(p0), 4);
    assert_true(json_real_value(json_object_get(p0, "50")) == 14987);
    assert_true(json_real_value(json_object_get(p0, "99.9")) == 61440);
    json_t *c0 = json_object_get(json_array_get(res, 0), "percentile_curve");
    assert_int_equal(json_array_size(c0), 3);
    assert_true(json_real_value(json_array_get(json_array_get(c0, 2), 0)) == 1);
    assert_true(json_real_value(json_array_get(json_array_get(c0, 2), 1)) == 90000);
    json_t *p1 = json_object_get(json_array_get(res, 1), "percentiles_ns");
    assert_true(json_is_null(json_object_get(p1, "90")));
    json_t *c1 = json_object_get(json_array_get(res, 1), "percentile_curve");
    assert_true(json_is_array(c1) && json_array_size(c1) == 0);
    json_decref(j);
    pgcb_result_free(&back);
    pgcb_result_free(&r);
    remove(path);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_failed_write_leaves_nothing),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_round_trip_issue8),
        cmocka_unit_test(test_round_trip_concurrency),
        cmocka_unit_test(test_stream_verdict_round_trip),
        cmocka_unit_test(test_wire_round_trip),
        cmocka_unit_test(test_old_file_defaults),
        cmocka_unit_test(test_round_trip_noise),
        cmocka_unit_test(test_old_file_noise),
        cmocka_unit_test(test_round_trip_distribution),
        cmocka_unit_test(test_round_trip_selection),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    return rc;
}
