/*
 * report_conc.c -- a concurrency group's table (issue 27): per driver its
 * throughput (what the verdict tests), the ratio of the best throughput to
 * its own with an interval over the execution orders, the latency
 * percentiles per query, client CPU per query and how busy the client was,
 * the server side per query and how busy the server was, and which side
 * was the bottleneck. See report.h.
 */
#include <math.h>
#include <stdio.h>

#include "pct.h"
#include "report.h"

static void fmt_real(char *buf, size_t n, double v, const char *fmt)
{
    if (isfinite(v))
        snprintf(buf, n, fmt, v);
    else
        snprintf(buf, n, "-");
}

enum { K_NAME, K_QPS, K_RATIO, K_P0, K_CPU = K_P0 + PGCB_PCT_N, K_BUSY, K_SRV, K_SBUSY,
       K_BOTTLE, K_RT, K_BOUT, K_BIN, K_COUNT };

void pgcb_report_conc_table(FILE *out, const struct pgcb_result *r, size_t g,
                            enum pgcb_table_style style, size_t *no_interval, size_t *ci_orders)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    struct pgcb_verdict v;
    pgcb_rank_verdict(r, g, &v);
    const size_t leader = v.lowest_median;
    const int with_ratio = leader != PGCB_RANK_NONE && v.nvalid >= 2;
    pgcb_rank_verdict_free(&v);
    int with_backend = 0;
    for (size_t d = 0; d < r->ndrivers; d++)
        with_backend |= pgcb_res_backend_known(&gr->cells[d].backend);
    char ratio_head[64], pct_head[PGCB_PCT_N][24];
    snprintf(ratio_head, sizeof ratio_head, "x best [%g%% CI]", 100 * pgcb_rank_level(r));
    const char *head[K_COUNT] = {"Task name", "Queries/s", ratio_head};
    for (int k = 0; k < PGCB_PCT_N; k++) {
        snprintf(pct_head[k], sizeof pct_head[k], "%s (µs)", pgcb_pct_name[k]);
        head[K_P0 + k] = pct_head[k];
    }
    head[K_CPU] = "Client CPU (ns/query)";
    head[K_BUSY] = "Client busy";
    head[K_SRV] = with_backend ? "Backend CPU (ns/query)" : "Server CPU (ns/query)";
    head[K_SBUSY] = "Server busy";
    head[K_BOTTLE] = "Bottleneck";
    head[K_RT] = "RT/q";
    head[K_BOUT] = "B→/q";
    head[K_BIN] = "B←/q";
    /* The wire columns (issue 41) only where the proxy counted. */
    int with_wire = 0;
    for (size_t d = 0; d < r->ndrivers; d++)
        with_wire |= gr->cells[d].wire.known;
    const size_t ncols = with_wire ? K_COUNT : K_RT;
    struct pgcb_table *t = pgcb_table_new(ncols, head);
    pgcb_table_set_style(t, style);
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        char cell[K_COUNT][64];
        const char *row[K_COUNT];
        snprintf(cell[K_NAME], sizeof cell[K_NAME], "%s%s", r->drivers[d].label,
                 pgcb_report_mark(r, g, d));
        fmt_real(cell[K_QPS], sizeof cell[K_QPS], c->queries_per_s, "%.0f");
        snprintf(cell[K_RATIO], sizeof cell[K_RATIO], "-");
        struct pgcb_ratio q;
        if (with_ratio && d == leader)
            snprintf(cell[K_RATIO], sizeof cell[K_RATIO], "1.000");
        else if (with_ratio && pgcb_rank_ratio(r, g, d, leader, &q) == 0) {
            if (isfinite(q.lo))
                snprintf(cell[K_RATIO], sizeof cell[K_RATIO], "%.3f [%.3f, %.3f]", q.ratio,
                         q.lo, q.hi);
            else {
                snprintf(cell[K_RATIO], sizeof cell[K_RATIO], "%.3f [n/a]", q.ratio);
                ++*no_interval;
                *ci_orders = q.orders;
            }
        }
        for (int k = 0; k < PGCB_PCT_N; k++)
            fmt_real(cell[K_P0 + k], sizeof cell[K_P0 + k],
                     c->samples ? c->pct_ns[k] / 1e3 : NAN, "%.1f");
        fmt_real(cell[K_CPU], sizeof cell[K_CPU], c->cpu_ns_per_query, "%.0f");
        fmt_real(cell[K_BUSY], sizeof cell[K_BUSY], 100 * c->client_busy, "%.0f%%");
        fmt_real(cell[K_SRV], sizeof cell[K_SRV],
                 with_backend ? (pgcb_res_backend_known(&c->backend) ? c->backend.cpu_ns_per_query
                                                                     : NAN)
                              : c->server_cpu_ns_per_query, "%.0f");
        fmt_real(cell[K_SBUSY], sizeof cell[K_SBUSY], 100 * c->server_busy, "%.0f%%");
        snprintf(cell[K_BOTTLE], sizeof cell[K_BOTTLE], "%s",
                 c->bottleneck ? pgcb_bottleneck_name(c->bottleneck) : "-");
        const struct pgcb_res_wire *w = &c->wire;
        fmt_real(cell[K_RT], sizeof cell[K_RT], w->known ? w->round_trips : NAN, "%.3g");
        fmt_real(cell[K_BOUT], sizeof cell[K_BOUT], w->known ? w->bytes_out : NAN, "%.0f");
        fmt_real(cell[K_BIN], sizeof cell[K_BIN], w->known ? w->bytes_in : NAN, "%.0f");
        for (size_t k = 0; k < ncols; k++)
            row[k] = cell[k];
        pgcb_table_add_row(t, row);
    }
    pgcb_table_print(t, out);
    pgcb_table_free(t);
}

void pgcb_report_conc_shape(const struct pgcb_res_group *gr, char *buf, size_t n)
{
    if (gr->load_mode == PGCB_LOAD_RATE)
        snprintf(buf, n, "%u in flight at most over a pool of %u, an open loop at %.0f/s per "
                 "instance", gr->concurrency, gr->pool, gr->rate);
    else
        snprintf(buf, n, "%u closed loops over a pool of %u", gr->concurrency, gr->pool);
}
