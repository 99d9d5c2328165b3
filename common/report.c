/* report.c -- see report.h: a group's title and table, and what the other
 * report files share (report_int.h). */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgcb/driver.h"
#include "proto.h"
#include "rank.h"
#include "report.h"
#include "report_int.h"
#include "stats.h"
#include "table.h"
#include "util.h"

void pgcb_rep_fmt_int(char *buf, size_t n, double v)
{
    if (isfinite(v))
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "-");
}

/* A duration in ns with a unit that keeps it short: "850 ns", "412 µs",
 * "1.9 ms", "2.3 s"; "-" if not finite. */
void pgcb_rep_fmt_duration(char *buf, size_t n, double ns)
{
    static const struct { double scale; const char *unit; } units[] = {
        {1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
    if (!isfinite(ns) || ns < 0) {
        snprintf(buf, n, "-");
        return;
    }
    size_t u = 0; /* the largest unit the value rounds to at least 1 of */
    while (u < 3 && ns < units[u].scale * 0.9995)
        u++;
    double x = ns / units[u].scale;
    snprintf(buf, n, x < 9.95 && u < 3 ? "%.1f %s" : "%.0f %s", x, units[u].unit);
}

int pgcb_report_is_floor(const struct pgcb_result *r, size_t d)
{
    unsigned caps = r->drivers[d].caps;
    return (caps & PGCB_CAP_REFERENCE) && !(caps & PGCB_CAP_NO_IO);
}

int pgcb_rep_is_client(const struct pgcb_result *r, size_t d)
{
    return !(r->drivers[d].caps & PGCB_CAP_REFERENCE);
}

/* Driver d asks the server for other work than the run's choices (a field
 * it says that differs, in *diff) or does not say what it asks (*unknown).
 * Nothing for a driver without I/O or a result that recorded no choices. */
int pgcb_rep_unlike(const struct pgcb_result *r, size_t d, unsigned *diff, unsigned *unknown)
{
    *diff = *unknown = 0;
    if ((r->drivers[d].caps & PGCB_CAP_NO_IO) || !r->proto.result_format)
        return 0;
    *diff = pgcb_proto_differs(&r->drivers[d].proto, &r->proto, unknown);
    return *diff || *unknown;
}

/* "rawwire_bin: binary results; asyncpg: binary results, Describe once" for
 * every driver that differs from the run's choices (want_unknown 0), or
 * "a, b" for every driver that does not say what it asks (want_unknown 1);
 * "" if none. */
void pgcb_rep_unlike_list(const struct pgcb_result *r, int want_unknown, char *buf, size_t n)
{
    buf[0] = '\0';
    for (size_t d = 0; d < r->ndrivers; d++) {
        unsigned diff, unk;
        if (!pgcb_rep_unlike(r, d, &diff, &unk) || (want_unknown ? !unk : !diff))
            continue;
        char what[192] = "";
        if (!want_unknown)
            pgcb_proto_phrases(&r->drivers[d].proto, diff, what, sizeof what);
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s%s%s", len ? (want_unknown ? ", " : "; ") : "",
                 r->drivers[d].label, want_unknown ? "" : ": ", what);
    }
}

const char *pgcb_report_variant_mark(const struct pgcb_result *r, size_t d)
{
    unsigned diff, unk;
    if (!pgcb_rep_unlike(r, d, &diff, &unk))
        return "";
    return diff ? " *" : " ?";
}

void pgcb_report_group(FILE *out, const struct pgcb_result *r, size_t g)
{
    pgcb_report_group_styled(out, r, g, PGCB_TABLE_BOX);
}

void pgcb_report_group_styled(FILE *out, const struct pgcb_result *r, size_t g,
                              enum pgcb_table_style style)
{
    pgcb_report_group_ex(out, r, g, style, 0);
}

const char *pgcb_report_mark(const struct pgcb_result *r, size_t g, size_t d)
{
    switch (r->groups[g].cells[d].status) {
    case PGCB_CELL_FAILED: return " (FAILED)";
    case PGCB_CELL_INVALID: return " (INVALID)";
    case PGCB_CELL_NOT_RUN: return " (not run)";
    case PGCB_CELL_SKIPPED: return " (skipped)";
    case PGCB_CELL_OK: break;
    }
    return pgcb_rep_is_client(r, d) ? "" : " (reference)";
}

double pgcb_report_floor_median(const struct pgcb_result *r, const struct pgcb_res_group *gr, size_t d)
{
    double same = NAN, alike = NAN, any = NAN;
    for (size_t f = 0; f < r->ndrivers; f++) {
        const struct pgcb_res_cell *c = &gr->cells[f];
        if (!pgcb_report_is_floor(r, f) || c->status != PGCB_CELL_OK ||
            !isfinite(c->median_ns) || c->median_ns <= 0)
            continue;
        unsigned diff, unk;
        if (!isfinite(same) && r->drivers[f].proto.result_format &&
            r->drivers[d].proto.result_format &&
            !pgcb_proto_differs(&r->drivers[f].proto, &r->drivers[d].proto, &unk) && !unk)
            same = c->median_ns;
        if (!isfinite(alike) && !pgcb_rep_unlike(r, f, &diff, &unk))
            alike = c->median_ns;
        if (!isfinite(any))
            any = c->median_ns;
    }
    return isfinite(same) ? same : isfinite(alike) ? alike : any;
}

/* A group's title line: "suite / query (shape, rows, ..., orders)". */
static void group_title(FILE *out, const struct pgcb_result *r, size_t g, int md)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    char shape[96];
    pgcb_res_group_shape(gr, shape, sizeof shape);
    if (gr->connect && gr->connections) /* a sample is a connection: said for the depth */
        snprintf(shape, sizeof shape, "connect: one connection per sample, >= %llu per order",
                 (unsigned long long)gr->connections);
    else if (gr->connect)
        snprintf(shape, sizeof shape, "connect: one connection per sample");
    else if (gr->concurrency)
        pgcb_report_conc_shape(gr, shape, sizeof shape);
    /* The transport the suite asked for, when it did: "sequential / limit_1 / tls". */
    const char *tsep = gr->transport ? " / " : "", *tname = gr->transport ? gr->transport : "";
    char rtt[48] = "";
    if (gr->has_rtt) /* "sequential / limit_1 / tcp / rtt 1 ms" */
        snprintf(rtt, sizeof rtt, " / rtt %g ms", gr->rtt_ms);
    if (md)
        fprintf(out, "**%s / %s%s%s%s**  (%s, ", gr->suite, gr->query, tsep, tname, rtt, shape);
    else
        fprintf(out, "%s / %s%s%s%s  (%s, ", gr->suite, gr->query, tsep, tname, rtt, shape);
    if (gr->rows >= 0)
        fprintf(out, "%lld row%s, ", (long long)gr->rows, gr->rows == 1 ? "" : "s");
    if (gr->nparams > 0)
        fprintf(out, "%u param%s, ", gr->nparams, gr->nparams == 1 ? "" : "s");
    if (gr->ops > 0)
        fprintf(out, "ops %llu, ", (unsigned long long)gr->ops);
    if (gr->threads > 1) {
        fprintf(out, "%u threads on CPUs", gr->threads);
        for (uint32_t t = 0; gr->thread_cpus && t < gr->threads; t++)
            fprintf(out, "%s%d", t ? "," : " ", gr->thread_cpus[t]);
        fprintf(out, ", %s/s summed over them, ", gr->connect ? "Connections" : "Queries");
        if (gr->concurrency)
            fprintf(out, "one instance each, ");
    }
    size_t ran = pgcb_rank_group_orders(r, g);
    if (gr->partial)
        fprintf(out, "PARTIAL: interrupted after %zu of %zu execution orders, never crowned)\n%s",
                gr->partial_orders, r->norders, md ? "\n" : "");
    else if (ran < r->norders)
        fprintf(out, "pooled over %zu execution orders, decided after %zu of %zu)\n%s", ran,
                ran, r->norders, md ? "\n" : "");
    else
        fprintf(out, "pooled over %zu execution order%s)\n%s", ran, ran == 1 ? "" : "s",
                md ? "\n" : "");
}

/* A group's latency table (every group but a concurrency group's): the
 * optional columns (x lowest, x floor, the server's CPU) where they have
 * figures. Counts in *no_interval the ratios shown without an interval, and
 * in *ci_orders the orders they had. */
static void group_table(FILE *out, const struct pgcb_result *r, size_t g,
                        enum pgcb_table_style style, size_t *no_interval, size_t *ci_orders)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    /* The wire floor: a reference driver that does I/O (drivers/floor). When
     * it has a median here, every driver's median is also shown as a ratio
     * to it: how much of the latency is the client's. */
    int with_floor = 0;
    for (size_t d = 0; d < r->ndrivers; d++)
        with_floor |= isfinite(pgcb_report_floor_median(r, gr, d));
    /* The server's CPU column when the server runs here: each driver's own
     * backends' when they are known (backend.h), else the whole server's
     * (srvcpu.h); never both (the table is wide enough). */
    int with_backend = 0, with_server = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        with_backend |= pgcb_res_backend_known(&gr->cells[d].backend);
        with_server |= isfinite(gr->cells[d].server_cpu_ns_per_query);
    }
    with_server |= with_backend;
    /* Columns: the optional ones are dropped by their flags. */
    /* Each driver's median over the leader's, with its interval. */
    struct pgcb_verdict v;
    pgcb_rank_verdict(r, g, &v);
    const size_t leader = v.lowest_median;
    const int with_ratio = leader != PGCB_RANK_NONE && v.nvalid >= 2;
    pgcb_rank_verdict_free(&v);
    char ratio_head[64];
    snprintf(ratio_head, sizeof ratio_head, "x lowest [%g%% CI]", 100 * pgcb_rank_level(r));
    /* What crossed the wire (issue 41): when the group went through the
     * proxy; the expectation at an RTT above 0. */
    int with_wire = 0, with_expect = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        with_wire |= gr->cells[d].wire.known;
        with_expect |= gr->cells[d].wire.known && isfinite(gr->cells[d].wire.expected_ns);
    }
    enum { C_NAME, C_AVG, C_MED, C_EXP, C_RATIO, C_FLOOR, C_OPS, C_QPS, C_N, C_CPU, C_SRV,
           C_RT, C_BOUT, C_BIN, C_COUNT };
    /* A connection group's figures are per connection (one query each). */
    const int conn = gr->connect;
    const char *const head_all[C_COUNT] = {
        "Task name", "Latency avg (ns)", "Latency med (ns)", "Expected (ns)", ratio_head,
        "x floor",
        "Throughput avg (ops/s)", conn ? "Connections/s" : "Queries/s", "Samples",
        conn ? "Client CPU (ns/conn)" : "Client CPU (ns/query)",
        with_backend ? "Backend CPU (ns/query)"
                     : conn ? "Server CPU (ns/conn)" : "Server CPU (ns/query)",
        conn ? "RT/conn" : "RT/q", conn ? "B→/conn" : "B→/q", conn ? "B←/conn" : "B←/q"};
    const int keep[C_COUNT] = {1, 1, 1, with_expect, with_ratio, with_floor, 1, 1, 1, 1,
                               with_server, with_wire, with_wire, with_wire};
    const char *head[C_COUNT];
    size_t ncols = 0;
    for (int k = 0; k < C_COUNT; k++)
        if (keep[k])
            head[ncols++] = head_all[k];
    struct pgcb_table *t = pgcb_table_new(ncols, head);
    pgcb_table_set_style(t, style);
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        char name[160], avg[64], med[32], ops[32], qps[32], n[32], cpu[32], srv[32];
        snprintf(name, sizeof name, "%s%s%s", r->drivers[d].label, pgcb_report_mark(r, g, d),
                 pgcb_report_variant_mark(r, d));
        if (isfinite(c->mean_ns) && isfinite(c->rme_pct))
            snprintf(avg, sizeof avg, "%.0f ± %.2f%%", c->mean_ns, c->rme_pct);
        else if (isfinite(c->mean_ns))
            snprintf(avg, sizeof avg, "%.0f ± n/a", c->mean_ns);
        else
            snprintf(avg, sizeof avg, "-");
        pgcb_rep_fmt_int(med, sizeof med, c->median_ns);
        pgcb_rep_fmt_int(ops, sizeof ops, c->ops_per_s);
        pgcb_rep_fmt_int(qps, sizeof qps, c->queries_per_s);
        snprintf(n, sizeof n, "%llu", (unsigned long long)c->samples);
        pgcb_rep_fmt_int(cpu, sizeof cpu, c->cpu_ns_per_query);
        pgcb_rep_fmt_int(srv, sizeof srv,
                with_backend ? (pgcb_res_backend_known(&c->backend) ? c->backend.cpu_ns_per_query
                                                                    : NAN)
                             : c->server_cpu_ns_per_query);
        char xf[32] = "-";
        if (with_floor && isfinite(c->median_ns) && isfinite(pgcb_report_floor_median(r, gr, d)))
            snprintf(xf, sizeof xf, "%.2f", c->median_ns / pgcb_report_floor_median(r, gr, d));
        char xr[64] = "-";
        struct pgcb_ratio q;
        if (with_ratio && d == leader)
            snprintf(xr, sizeof xr, "1.000");
        else if (with_ratio && pgcb_rank_ratio(r, g, d, leader, &q) == 0) {
            if (isfinite(q.lo))
                snprintf(xr, sizeof xr, "%.3f [%.3f, %.3f]", q.ratio, q.lo, q.hi);
            else {
                snprintf(xr, sizeof xr, "%.3f [n/a]", q.ratio);
                (*no_interval)++;
                *ci_orders = q.orders;
            }
        }
        char exp[32] = "-", rt[32] = "-", bout[32] = "-", bin[32] = "-";
        const struct pgcb_res_wire *w = &c->wire;
        if (w->known) {
            pgcb_rep_fmt_int(exp, sizeof exp, w->expected_ns);
            snprintf(rt, sizeof rt, "%.3g", w->round_trips);
            pgcb_rep_fmt_int(bout, sizeof bout, w->bytes_out);
            pgcb_rep_fmt_int(bin, sizeof bin, w->bytes_in);
        }
        const char *all[C_COUNT] = {name, avg, med, exp, xr, xf, ops, qps, n, cpu, srv,
                                    rt, bout, bin};
        const char *row[C_COUNT];
        size_t k = 0;
        for (int i = 0; i < C_COUNT; i++)
            if (keep[i])
                row[k++] = all[i];
        pgcb_table_add_row(t, row);
    }
    pgcb_table_print(t, out);
    pgcb_table_free(t);
}

void pgcb_report_group_ex(FILE *out, const struct pgcb_result *r, size_t g,
                          enum pgcb_table_style style, unsigned flags)
{
    group_title(out, r, g, style == PGCB_TABLE_MARKDOWN);
    size_t no_interval = 0, ci_orders = 0;
    if (r->groups[g].concurrency)
        pgcb_report_conc_table(out, r, g, style, &no_interval, &ci_orders);
    else
        group_table(out, r, g, style, &no_interval, &ci_orders);
    pgcb_rep_group_notes(out, r, g, style, flags, no_interval, ci_orders);
}
