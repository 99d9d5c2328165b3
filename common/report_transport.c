/*
 * report_transport.c -- the console's transport lines (report.h): under a
 * group's table, how its drivers' connections reached the server and a
 * warning for each that used another transport than the group asked for;
 * after the group tables, what the transport adds (tsummary.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "tsummary.h"

/* What a driver's connections used, in words: "unix socket", "TCP from
 * 127.0.0.1, no TLS", "TLSv1.3 TLS_AES_256_GCM_SHA384 (256-bit), TCP from
 * 127.0.0.1", "unknown (why)". */
static void describe(const struct pgcb_res_transport *t, char *buf, size_t n)
{
    const char *from = t->client_addr ? t->client_addr : "?";
    if (strcmp(t->seen, "unix") == 0)
        snprintf(buf, n, "unix socket");
    else if (strcmp(t->seen, "tcp") == 0)
        snprintf(buf, n, "TCP from %s, no TLS", from);
    else if (strcmp(t->seen, "tls") == 0 && t->bits > 0)
        snprintf(buf, n, "%s %s (%d-bit), TCP from %s", t->tls_version ? t->tls_version : "TLS",
                 t->cipher ? t->cipher : "", t->bits, from);
    else if (strcmp(t->seen, "tls") == 0)
        snprintf(buf, n, "%s %s, TCP from %s", t->tls_version ? t->tls_version : "TLS",
                 t->cipher ? t->cipher : "", from);
    else
        snprintf(buf, n, "%s%s%s%s", t->seen, t->why ? " (" : "", t->why ? t->why : "",
                 t->why ? ")" : "");
}

int pgcb_report_transport_notes(FILE *out, const struct pgcb_result *r, size_t g,
                                const char *bullet)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    char first[512] = "", desc[512];
    int any = 0, same = 1, lines = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_transport *t = &gr->cells[d].transport;
        if (!t->recorded || !t->seen)
            continue;
        describe(t, desc, sizeof desc);
        if (!any)
            snprintf(first, sizeof first, "%s", desc);
        same &= strcmp(first, desc) == 0;
        any = 1;
    }
    /* A group that did not ask says nothing while its drivers agree. */
    if (!any || (!gr->transport && same))
        return 0;
    if (same) {
        fprintf(out, "%sTransport: %s (every driver)\n", bullet, first);
        lines++;
    } else {
        /* Drivers that agree share one entry, in the order they first come. */
        fprintf(out, "%sTransport:", bullet);
        int done[256] = {0}, sep = 0;
        for (size_t d = 0; d < r->ndrivers && d < 256; d++) {
            const struct pgcb_res_transport *t = &gr->cells[d].transport;
            if (done[d] || !t->recorded || !t->seen)
                continue;
            describe(t, first, sizeof first);
            fprintf(out, "%s %s (%s", sep++ ? ";" : "", first, r->drivers[d].label);
            for (size_t e = d + 1; e < r->ndrivers && e < 256; e++) {
                const struct pgcb_res_transport *u = &gr->cells[e].transport;
                if (done[e] || !u->recorded || !u->seen)
                    continue;
                describe(u, desc, sizeof desc);
                if (strcmp(first, desc) == 0) {
                    fprintf(out, ", %s", r->drivers[e].label);
                    done[e] = 1;
                }
            }
            fputc(')', out);
        }
        fputc('\n', out);
        lines++;
    }
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_transport *t = &gr->cells[d].transport;
        if (!t->recorded || !t->mismatch)
            continue;
        describe(t, desc, sizeof desc);
        fprintf(out, "%swarning: %s asked for %s, but the server saw %s: not the transport "
                     "this group measures\n", bullet, r->drivers[d].label,
                t->asked ? t->asked : "?", desc);
        lines++;
    }
    return lines;
}

/* "+15000 (+33.3%)", "-" when unknown. */
static void fmt_delta(char *buf, size_t n, double ns, double pct)
{
    if (!isfinite(ns))
        snprintf(buf, n, "-");
    else if (isfinite(pct))
        snprintf(buf, n, "%+.0f (%+.1f%%)", ns, pct);
    else
        snprintf(buf, n, "%+.0f", ns);
}

static void fmt_ns(char *buf, size_t n, double ns)
{
    if (isfinite(ns))
        snprintf(buf, n, "%.0f", ns);
    else
        snprintf(buf, n, "-");
}

/* One step's table: a row per driver and transport. */
static void summary_table(FILE *out, const struct pgcb_result *r, const struct pgcb_tsum_set *set,
                          enum pgcb_table_style style)
{
    const struct pgcb_res_group *g0 = &r->groups[set->groups[0]];
    const char *base = r->groups[set->groups[set->base]].transport;
    /* At depth 1 outside a transaction a batch is a query: one pair of
     * columns says it all. */
    int batch = g0->depth > 1 || g0->transaction;
    char dq[64], db[64];
    /* A connection group's sample, and its one query, is a whole connection. */
    const char *unit = g0->connect ? "connection" : "query";
    snprintf(dq, sizeof dq, "vs %s per %s", base, unit);
    snprintf(db, sizeof db, "vs %s per batch", base);
    const char *head[6] = {"Driver", "Transport",
                           g0->connect ? "Median per connection (ns)" : "Median per query (ns)",
                           dq, "Median per batch (ns)", db};
    struct pgcb_table *t = pgcb_table_new(batch ? 6 : 4, head);
    if (!t)
        return;
    pgcb_table_set_style(t, style);
    for (size_t c = 2; c < (batch ? 6u : 4u); c++)
        pgcb_table_set_align(t, c, PGCB_TABLE_RIGHT);
    int rows = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        if (!pgcb_tsum_driver(r, set, d))
            continue;
        if (rows++)
            pgcb_table_add_separator(t);
        for (size_t k = 0; k < set->n; k++) {
            struct pgcb_tsum_cell c;
            pgcb_tsum_cell(r, set, k, d, &c);
            char name[160] = "", q[32], b[32], qd[64], bd[64];
            if (k == 0)
                snprintf(name, sizeof name, "%s%s", r->drivers[d].label,
                         (r->drivers[d].caps & PGCB_CAP_REFERENCE) ? " (reference)" : "");
            fmt_ns(q, sizeof q, c.query_ns);
            fmt_ns(b, sizeof b, c.batch_ns);
            if (k == set->base) {
                snprintf(qd, sizeof qd, c.valid ? "" : "-");
                snprintf(bd, sizeof bd, c.valid ? "" : "-");
            } else {
                fmt_delta(qd, sizeof qd, c.d_query_ns, c.d_pct);
                fmt_delta(bd, sizeof bd, c.d_batch_ns, c.d_pct);
            }
            const char *row[6] = {name, r->groups[set->groups[k]].transport, q, qd, b, bd};
            pgcb_table_add_row(t, row);
        }
    }
    pgcb_table_print(t, out);
    pgcb_table_free(t);
}

void pgcb_report_transport_summary(FILE *out, const struct pgcb_result *r,
                                   enum pgcb_table_style style)
{
    struct pgcb_tsum_set *sets;
    size_t n = pgcb_tsum_sets(r, &sets);
    if (n == 0)
        return;
    int md = style == PGCB_TABLE_MARKDOWN;
    fprintf(out, "%sWhat the transport adds%s: each driver's median latency per query (and per "
                 "batch) under each transport and its difference to the baseline (unix where "
                 "it ran, else the first); a transport's groups ran one after another, not "
                 "interleaved, so a difference also holds whatever changed on the machine between them\n\n",
            md ? "**" : "", md ? "**" : "");
    for (size_t i = 0; i < n; i++) {
        const struct pgcb_res_group *g0 = &r->groups[sets[i].groups[0]];
        char threads[32] = "";
        if (g0->threads > 1)
            snprintf(threads, sizeof threads, ", %u threads", g0->threads);
        char shape[64];
        pgcb_res_group_shape(g0, shape, sizeof shape);
        fprintf(out, "%s%s / %s%s  (%s%s, baseline %s)\n%s", md ? "**" : "", g0->suite,
                g0->query, md ? "**" : "", shape, threads,
                r->groups[sets[i].groups[sets[i].base]].transport, md ? "\n" : "");
        summary_table(out, r, &sets[i], style);
        fputc('\n', out);
    }
    pgcb_tsum_free(sets, n);
}
