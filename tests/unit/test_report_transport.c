/*
 * test_report_transport.c -- the transports in the report and the JSON,
 * from a made-up result (no server): the Transport line under a group's
 * table (every driver; one entry per set of drivers that agree; nothing for
 * a group that did not ask while its drivers agree), the warning of a
 * driver that used another transport than asked, the summary of what each
 * transport adds (per query and per batch, to unix), and the JSON: a cell's
 * transport and a group's transport and conninfo read back as written, the
 * derived transport_summary, a reference driver marked and a failed cell
 * null.
 */
#include <jansson.h>
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
#include "tsummary.h"
#include "util.h"
#include "../lib/resfake.h"

static const char *const kinds[] = {"tcp", "unix", "tls"};

static void set_transport(struct pgcb_res_cell *c, const char *asked, const char *seen)
{
    struct pgcb_res_transport *t = &c->transport;
    t->recorded = 1;
    t->asked = asked ? pgcb_xstrdup(asked) : NULL;
    t->seen = pgcb_xstrdup(seen);
    if (strcmp(seen, "unix") != 0)
        t->client_addr = pgcb_xstrdup("127.0.0.1");
    if (strcmp(seen, "tls") == 0) {
        t->tls_version = pgcb_xstrdup("TLSv1.3");
        t->cipher = pgcb_xstrdup("TLS_AES_256_GCM_SHA384");
        t->bits = 256;
    }
    t->mismatch = asked && strcmp(asked, seen) != 0;
}

/* Drivers a, b and f (a reference); groups 0..2: s / q depth 2 over tcp,
 * unix, tls (b fell back to tcp under tls); group 3: s / q depth 2 without
 * a transport. Medians: a 100000 + 10000 k, b 200000 + 20000 k, f 50000 per
 * batch (k the kind's index); b failed under tls. */
static void make(struct pgcb_result *r)
{
    static const char *const labels[] = {"a", "b", "f"};
    resfake_init(r, labels, 3, 1);
    r->drivers[2].caps = PGCB_CAP_REFERENCE;
    r->ngroups = 4;
    r->groups = pgcb_xcalloc(4, sizeof *r->groups);
    for (size_t g = 0; g < 4; g++) {
        struct pgcb_res_group *gr = &r->groups[g];
        gr->suite = pgcb_xstrdup("s");
        gr->query = pgcb_xstrdup("q");
        gr->depth = 2;
        gr->threads = 1;
        gr->rows = 1;
        if (g < 3) {
            gr->transport = pgcb_xstrdup(kinds[g]);
            gr->conninfo = pgcb_xasprintf("host='x' sslmode='%s'", kinds[g]);
        }
        gr->cells = pgcb_xcalloc(3, sizeof *gr->cells);
        for (size_t d = 0; d < 3; d++) {
            struct pgcb_res_cell *c = &gr->cells[d];
            double med = d == 2 ? 50000 : (d + 1) * (100000.0 + 10000.0 * (double)(g % 3));
            *c = (struct pgcb_res_cell){.status = PGCB_CELL_OK, .samples = 10, .queries = 20,
                                        .mean_ns = med, .median_ns = med, .p99_ns = med,
                                        .norders = 1};
            c->order_medians_ns = pgcb_xcalloc(1, sizeof(double));
            c->order_medians_ns[0] = med;
            c->spread_cv_pct = c->spread_min_ns = c->spread_max_ns = NAN;
            for (size_t k = 0; k < PGCB_PCT_N; k++)
                c->pct_ns[k] = med;
            set_transport(c, g < 3 ? kinds[g] : NULL, g == 3 ? "unix"
                                                      : d == 1 && g == 2 ? "tcp" : kinds[g]);
        }
    }
    r->groups[2].cells[1].status = PGCB_CELL_FAILED;
    r->groups[2].cells[1].error = pgcb_xstrdup("boom");
    r->groups[2].cells[1].median_ns = NAN;
}

static char *capture_notes(const struct pgcb_result *r, size_t g, int *lines)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *lines = pgcb_report_transport_notes(f, r, g, "  ");
    fclose(f);
    return buf;
}

static void test_notes(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    int lines;
    char *s = capture_notes(&r, 0, &lines);
    assert_int_equal(lines, 1);
    assert_string_equal(s, "  Transport: TCP from 127.0.0.1, no TLS (every driver)\n");
    free(s);
    s = capture_notes(&r, 2, &lines);
    assert_int_equal(lines, 2);
    assert_string_equal(s, "  Transport: TLSv1.3 TLS_AES_256_GCM_SHA384 (256-bit), TCP from "
                           "127.0.0.1 (a, f); TCP from 127.0.0.1, no TLS (b)\n"
                           "  warning: b asked for tls, but the server saw TCP from 127.0.0.1, "
                           "no TLS: not the transport this group measures\n");
    free(s);
    s = capture_notes(&r, 3, &lines); /* not asked, all agree: nothing */
    assert_int_equal(lines, 0);
    assert_string_equal(s, "");
    free(s);
    free(r.groups[3].cells[0].transport.seen);
    r.groups[3].cells[0].transport.seen = pgcb_xstrdup("tcp");
    s = capture_notes(&r, 3, &lines); /* not asked, but they differ */
    assert_int_equal(lines, 1);
    assert_string_equal(s, "  Transport: TCP from ?, no TLS (a); unix socket (b, f)\n");
    free(s);
    pgcb_result_free(&r);
}

static void test_summary(void **state)
{
    (void)state;
    struct pgcb_result r;
    make(&r);
    struct pgcb_tsum_set *sets;
    assert_int_equal(pgcb_tsum_sets(&r, &sets), 1);
    assert_int_equal(sets[0].n, 3);
    assert_int_equal(sets[0].base, 1); /* unix, though tcp came first */
    struct pgcb_tsum_cell c;
    pgcb_tsum_cell(&r, &sets[0], 2, 0, &c); /* a over tls: 120000 vs 110000 per batch */
    assert_true(c.valid);
    assert_true(fabs(c.batch_ns - 120000) < 1e-9 && fabs(c.query_ns - 60000) < 1e-9);
    assert_true(fabs(c.d_batch_ns - 10000) < 1e-9 && fabs(c.d_query_ns - 5000) < 1e-9);
    assert_true(fabs(c.d_pct - 100.0 * 10000 / 110000) < 1e-9);
    pgcb_tsum_cell(&r, &sets[0], 2, 1, &c); /* b failed over tls */
    assert_false(c.valid);
    assert_true(isnan(c.d_query_ns));
    pgcb_tsum_free(sets, 1);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pgcb_report_transport_summary(f, &r, PGCB_TABLE_ASCII);
    fclose(f);
    if (getenv("PGCB_SHOW"))
        fputs(buf, stderr);
    assert_non_null(strstr(buf, "not interleaved"));
    assert_non_null(strstr(buf, "s / q  (depth 2, baseline unix)\n"));
    assert_non_null(strstr(buf, "| a             | tcp       |                 50000 |     "
                                "-5000 (-9.1%) |                100000 |    -10000 (-9.1%) |\n"));
    assert_non_null(strstr(buf, "|               | tls       |                     - |"));
    assert_non_null(strstr(buf, "| f (reference) | tcp       |                 25000 |"));
    free(buf);
    pgcb_result_free(&r);
}

static void test_json(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    make(&r);
    char err[512];
    json_t *j = resfake_roundtrip(&r, &back, err, sizeof err);
    if (!j)
        fail_msg("%s", err);
    assert_int_equal(back.ngroups, 4);
    assert_string_equal(back.groups[2].transport, "tls");
    assert_string_equal(back.groups[2].conninfo, "host='x' sslmode='tls'");
    assert_null(back.groups[3].transport);
    assert_null(back.groups[3].conninfo);
    const struct pgcb_res_transport *t = &back.groups[2].cells[0].transport;
    assert_true(t->recorded);
    assert_string_equal(t->asked, "tls");
    assert_string_equal(t->seen, "tls");
    assert_string_equal(t->tls_version, "TLSv1.3");
    assert_string_equal(t->cipher, "TLS_AES_256_GCM_SHA384");
    assert_int_equal(t->bits, 256);
    assert_string_equal(t->client_addr, "127.0.0.1");
    assert_false(t->mismatch);
    assert_true(back.groups[2].cells[1].transport.mismatch);
    assert_null(back.groups[3].cells[0].transport.asked);
    pgcb_result_free(&back);

    json_t *sum = json_object_get(j, "transport_summary");
    assert_int_equal(json_array_size(sum), 1);
    json_t *step = json_array_get(sum, 0);
    assert_string_equal(json_string_value(json_object_get(step, "baseline")), "unix");
    json_t *drivers = json_object_get(step, "drivers");
    assert_int_equal(json_array_size(drivers), 3);
    assert_true(json_is_true(json_object_get(json_array_get(drivers, 2), "reference")));
    json_t *b_tls = json_array_get(json_object_get(json_array_get(drivers, 1), "results"), 2);
    assert_true(json_is_null(json_object_get(b_tls, "median_ns_per_query")));
    json_t *a_tcp = json_array_get(json_object_get(json_array_get(drivers, 0), "results"), 0);
    assert_true(fabs(json_number_value(json_object_get(a_tcp, "vs_baseline_ns_per_batch")) +
                     10000) < 1e-9);
    json_decref(j);
    pgcb_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notes),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
