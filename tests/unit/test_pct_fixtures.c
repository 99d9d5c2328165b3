/*
 * test_pct_fixtures.c -- tests/aggregate/p1.json and p2.json, the result
 * files with percentiles and percentile curves that the aggregate tests
 * (test_aggregate_cli.c) draw and tabulate, are made here from synthetic
 * samples by the runner's own histogram (hist.c), percentiles (pct.c) and
 * writer (result_json.c), so that they are what a run would write:
 *
 *   p1.json  "Test CPU P, 1 core", client and server on one CPU: libpq_sync
 *            jumps between a 4 ms mode (90%) and a 6 ms mode (10%);
 *            rawwire and the floor unimodal; a pipelined group at depth 10
 *            whose values span more than a decade;
 *   p2.json  "Test CPU Q, 4 cores": unimodal, rawwire invalid in the
 *            pipelined group.
 *
 * The test writes both into a temporary directory and compares them with
 * the committed files byte for byte: a change of the writer or the schema
 * makes it fail until they are written again, with
 *   PGCB_REGEN=1 build/tests/test_pct_fixtures
 * (then the aggregate golden files: PGCB_REGEN=1 build/tests/test_aggregate_cli).
 * The samples come from a fixed xorshift sequence: the same on every run.
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

#include "hist.h"
#include "pct.h"
#include "pgcb/driver.h"
#include "result.h"
#include "util.h"

#define DIR "tests/aggregate/"

static uint64_t rng = 88172645463325252ull;

/* Uniform in [0, 1) (xorshift64). */
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* One or two modes (fraction, centre in ns, relative half-width), and a
 * tail: that fraction of the samples anywhere from the last mode's centre
 * up to tail_x times it. */
struct dist {
    int nmodes;
    double frac[2], centre[2], spread[2];
    double tail, tail_x;
};

/* Cell c: n samples of ds at depth, as cells.c figures them (two orders:
 * the even and the odd samples). */
static void fill(struct pgcb_res_cell *c, const struct dist *ds, uint64_t n, uint32_t depth)
{
    struct pgcb_hist h, ho[2];
    if (pgcb_hist_init(&h) || pgcb_hist_init(&ho[0]) || pgcb_hist_init(&ho[1]))
        abort();
    for (uint64_t i = 0; i < n; i++) {
        double u = urand(); /* drawn for every sample: the same sequence for any ds */
        int m = ds->nmodes == 2 && u > ds->frac[0];
        double v = ds->centre[m] * (1 + ds->spread[m] * (urand() - 0.5) * 2);
        if (urand() < ds->tail)
            v = ds->centre[ds->nmodes - 1] * (1 + (ds->tail_x - 1) * urand());
        pgcb_hist_add(&h, (uint64_t)v);
        pgcb_hist_add(&ho[i % 2], (uint64_t)v);
    }
    c->status = PGCB_CELL_OK;
    c->samples = h.n;
    c->queries = h.n * depth;
    c->mean_ns = h.mean;
    c->sd_ns = pgcb_hist_stddev(&h);
    c->rme_pct = 100 * 1.96 * c->sd_ns / sqrt((double)n) / c->mean_ns;
    c->median_ns = pgcb_hist_median(&h);
    c->p99_ns = (double)pgcb_hist_quantile(&h, 0.99);
    pgcb_pct_fill(&h, c->pct_ns);
    c->ncurve = pgcb_pct_curve(&h, &c->curve);
    c->min_ns = h.min;
    c->max_ns = h.max;
    c->ops_per_s = 1e9 / c->mean_ns;
    c->queries_per_s = c->ops_per_s * depth;
    c->cpu_ns_per_query = c->mean_ns / depth / 3;
    c->server_cpu_ns_per_query = c->server_busy = NAN;
    c->wall_ns = (uint64_t)(h.mean * (double)h.n);
    c->norders = 2;
    c->order_medians_ns = pgcb_xcalloc(2, sizeof(double));
    for (size_t o = 0; o < 2; o++)
        c->order_medians_ns[o] = pgcb_hist_median(&ho[o]);
    c->checksum = 0xbc1b38fece8c55f1ull;
    c->rows_per_batch = depth;
    c->overhead_ns_per_block = c->overhead_cpu_ns_per_block = NAN;
    pgcb_hist_free(&h);
    pgcb_hist_free(&ho[0]);
    pgcb_hist_free(&ho[1]);
}

/* The run: libpq_sync, rawwire, floor (reference); two orders; groups
 * sequential / limit_1 depth 1 and pipelined / limit_1 depth 10. */
static void make(struct pgcb_result *r, const char *cpu, unsigned cores, int shared)
{
    *r = (struct pgcb_result){0};
    r->runner_version = pgcb_xstrdup("v0.2-test");
    r->started_at = pgcb_xstrdup("2026-01-02T10:00:00Z");
    r->finished_at = pgcb_xstrdup("2026-01-02T10:03:00Z");
    r->config_file = pgcb_xstrdup("conf/quick.ini");
    r->cpu_model = pgcb_xstrdup(cpu);
    r->cores = cores;
    r->ram_bytes = 8589934592ull;
    r->kernel = pgcb_xstrdup("Linux 6.1.0 x86_64");
    r->hostname = pgcb_xstrdup("ci");
    r->client_cpus = pgcb_xstrdup("0");
    r->server_cpus = pgcb_xstrdup(shared ? "0" : "1");
    r->server_cpus_source = pgcb_xstrdup("detected");
    r->cpus_shared = shared;
    r->libpq_version = pgcb_xstrdup("15.18");
    r->server_version = pgcb_xstrdup("15.18");
    r->conninfo = pgcb_xstrdup("");
    r->time_ms = 600;
    r->min_queries = 200;
    r->warmup_ms = 100;
    r->orders_mode = pgcb_xstrdup("2");
    r->complete = 1;
    static const char *const names[] = {"libpq_sync", "rawwire", "floor"};
    static const char *const links[] = {"libpq 15.18", "libcrypto 3.0",
                                        "rawwire's connection code"};
    r->ndrivers = 3;
    r->drivers = pgcb_xcalloc(3, sizeof *r->drivers);
    for (size_t d = 0; d < 3; d++) {
        struct pgcb_res_driver *rd = &r->drivers[d];
        rd->label = pgcb_xstrdup(names[d]);
        rd->name = pgcb_xstrdup(names[d]);
        rd->version = pgcb_xstrdup("1.0.0");
        rd->links = pgcb_xstrdup(links[d]);
        rd->path = pgcb_xasprintf("build/drivers/%s.so", names[d]);
        rd->abi_major = 1;
        rd->abi_minor = 2;
    }
    r->drivers[1].caps = PGCB_CAP_PIPELINE;
    r->drivers[2].caps = PGCB_CAP_PIPELINE | PGCB_CAP_REFERENCE;
    r->norders = 2;
    r->orders = pgcb_xcalloc(2, sizeof *r->orders);
    for (size_t o = 0; o < 2; o++) {
        r->orders[o] = pgcb_xcalloc(3, sizeof **r->orders);
        for (size_t k = 0; k < 3; k++)
            r->orders[o][k] = o ? 2 - k : k;
    }
    r->ngroups = 2;
    r->groups = pgcb_xcalloc(2, sizeof *r->groups);
    static const char *const suites[] = {"sequential", "pipelined"};
    static const uint32_t depths[] = {1, 10};
    for (size_t g = 0; g < 2; g++) {
        struct pgcb_res_group *gr = &r->groups[g];
        gr->suite = pgcb_xstrdup(suites[g]);
        gr->query = pgcb_xstrdup("limit_1");
        gr->sql = pgcb_xstrdup("SELECT * FROM benchmark_rows LIMIT 1");
        gr->depth = depths[g];
        gr->threads = 1;
        gr->thread_cpus = pgcb_xcalloc(1, sizeof(int));
        gr->rows = 1;
        gr->cells = pgcb_xcalloc(3, sizeof *gr->cells);
    }
}

/* Both fixtures into dir (their names as in tests/aggregate/). */
static void write_fixtures(const char *dir)
{
    struct pgcb_result r;
    char err[512], path[512];
    rng = 88172645463325252ull;

    make(&r, "Test CPU P", 1, 1);
    const struct dist seq[3] = {{2, {0.9, 0.1}, {4.0e6, 6.0e6}, {0.02, 0.02}, 0.001, 1.5},
                                {1, {1}, {3.0e6}, {0.03}, 0.01, 1.25},
                                {1, {1}, {2.9e6}, {0.02}, 0.002, 1.3}};
    const struct dist pip[3] = {{1, {1}, {6.2e6}, {0.05}, 0.01, 3},
                                {1, {1}, {0.8e6}, {0.05}, 0.01, 4},
                                {1, {1}, {0.7e6}, {0.04}, 0.003, 2}};
    for (size_t d = 0; d < 3; d++)
        fill(&r.groups[0].cells[d], &seq[d], 5000, 1);
    for (size_t d = 0; d < 3; d++)
        fill(&r.groups[1].cells[d], &pip[d], 2000, 10);
    snprintf(path, sizeof path, "%s/p1.json", dir);
    if (pgcb_result_write(&r, path, err, sizeof err) != 0)
        fail_msg("%s", err);
    pgcb_result_free(&r);

    make(&r, "Test CPU Q", 4, 0);
    const struct dist seq2[3] = {{1, {1}, {3.2e6}, {0.03}, 0.005, 1.4},
                                 {1, {1}, {2.5e6}, {0.03}, 0.005, 1.4},
                                 {1, {1}, {2.4e6}, {0.02}, 0.002, 1.2}};
    const struct dist pip2[3] = {{1, {1}, {5.0e6}, {0.05}, 0.01, 2},
                                 {1, {1}, {0.6e6}, {0.05}, 0.01, 3},
                                 {1, {1}, {0.55e6}, {0.04}, 0.003, 2}};
    for (size_t d = 0; d < 3; d++)
        fill(&r.groups[0].cells[d], &seq2[d], 8000, 1);
    for (size_t d = 0; d < 3; d++)
        fill(&r.groups[1].cells[d], &pip2[d], 3000, 10);
    r.groups[1].cells[1].status = PGCB_CELL_INVALID;
    r.groups[1].cells[1].error =
        pgcb_xstrdup("checksum 0x1 differs from the other drivers' 0xbc1b38fece8c55f1");
    snprintf(path, sizeof path, "%s/p2.json", dir);
    if (pgcb_result_write(&r, path, err, sizeof err) != 0)
        fail_msg("%s", err);
    pgcb_result_free(&r);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int ch;
    while ((ch = fgetc(f)) != EOF)
        fputc(ch, m);
    fclose(f);
    fclose(m);
    return buf;
}

static void test_fixtures_current(void **state)
{
    (void)state;
    if (getenv("PGCB_REGEN")) {
        write_fixtures("tests/aggregate");
        return;
    }
    char tmp[] = "/tmp/pgcb_test_pctfix_XXXXXX";
    assert_non_null(mkdtemp(tmp));
    write_fixtures(tmp);
    static const char *const names[] = {"p1.json", "p2.json"};
    int stale = 0;
    for (size_t i = 0; i < 2; i++) {
        char made[512], kept[512];
        snprintf(made, sizeof made, "%s/%s", tmp, names[i]);
        snprintf(kept, sizeof kept, DIR "%s", names[i]);
        char *a = slurp(made), *b = slurp(kept);
        assert_non_null(a);
        if (!b || strcmp(a, b) != 0) {
            print_error("%s is not what the writer makes now: PGCB_REGEN=1 "
                        "build/tests/test_pct_fixtures writes it (then the aggregate golden "
                        "files: PGCB_REGEN=1 build/tests/test_aggregate_cli)\n", kept);
            stale = 1;
        }
        free(a);
        free(b);
        unlink(made);
    }
    rmdir(tmp);
    assert_false(stale);
}

/* What the aggregate tests rely on: p1's libpq_sync is bimodal (p50 in the
 * 4 ms mode, p99 in the 6 ms mode), every curve ends at its max. */
static void test_fixtures_shape(void **state)
{
    (void)state;
    struct pgcb_result r;
    char err[512];
    assert_int_equal(pgcb_result_read(DIR "p1.json", &r, err, sizeof err), 0);
    const struct pgcb_res_cell *c = &r.groups[0].cells[0];
    assert_true(c->pct_ns[0] > 3.9e6 && c->pct_ns[0] < 4.1e6);
    assert_true(c->pct_ns[2] > 5.8e6 && c->pct_ns[2] < 6.2e6);
    for (size_t g = 0; g < r.ngroups; g++)
        for (size_t d = 0; d < r.ndrivers; d++) {
            const struct pgcb_res_cell *x = &r.groups[g].cells[d];
            assert_true(x->ncurve > 2 && pgcb_pct_curve_valid(x->curve, x->ncurve));
            assert_true(x->curve[x->ncurve - 1].ns == (double)x->max_ns);
        }
    pgcb_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_current),
        cmocka_unit_test(test_fixtures_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
