/*
 * report_distance.c -- after the group tables, what distance does to each
 * client (issue 41): per step (suite, query, depth, transport) measured at
 * several RTTs, a table of every driver's figure at each RTT -- the median
 * latency (per batch), or for a concurrency group the queries per second --
 * with its round trips per query, and at an RTT above 0 the expectation
 * (the rtt-0 median + RTT x round trips x depth) or, for a concurrency
 * group, the ceiling that one round trip per query puts on a pool of its
 * size (concurrency / (RTT x round trips)).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rank.h"
#include "report.h"
#include "table.h"
#include "util.h"

#define MAXR 8

static int same_set(const struct pgcb_res_group *a, const struct pgcb_res_group *b)
{
    return a->has_rtt && b->has_rtt && pgcb_rank_same_step(a, b) &&
           !a->transport == !b->transport &&
           (!a->transport || strcmp(a->transport, b->transport) == 0);
}

/* One driver's cell at one RTT: "1242624 (exp 1112096, +12%)". */
static void cell_text(const struct pgcb_res_group *gr, const struct pgcb_res_cell *c, char *buf,
                      size_t n)
{
    if (c->status != PGCB_CELL_OK) {
        snprintf(buf, n, "%s", pgcb_cell_status_str(c->status));
        return;
    }
    const struct pgcb_res_wire *w = &c->wire;
    if (gr->concurrency) {
        int m = snprintf(buf, n, "%.0f q/s", c->queries_per_s);
        if (gr->rtt_ms > 0 && w->known && w->round_trips > 0 && m > 0 && (size_t)m < n)
            snprintf(buf + m, n - (size_t)m, " (ceiling %.0f)",
                     gr->concurrency * 1e3 / (gr->rtt_ms * w->round_trips));
        return;
    }
    int m = snprintf(buf, n, "%.0f", c->median_ns);
    if (w->known && isfinite(w->expected_ns) && m > 0 && (size_t)m < n)
        snprintf(buf + m, n - (size_t)m, " (exp %.0f, %+.0f%%)", w->expected_ns,
                 100.0 * (c->median_ns - w->expected_ns) / w->expected_ns);
}

void pgcb_report_distance_summary(FILE *out, const struct pgcb_result *r,
                                  enum pgcb_table_style style)
{
    int *taken = pgcb_xcalloc(r->ngroups ? r->ngroups : 1, sizeof *taken);
    for (size_t g = 0; g < r->ngroups; g++) {
        if (taken[g] || !r->groups[g].has_rtt)
            continue;
        size_t set[MAXR], n = 0;
        for (size_t h = g; h < r->ngroups && n < MAXR; h++)
            if (!taken[h] && same_set(&r->groups[g], &r->groups[h])) {
                taken[h] = 1;
                set[n++] = h;
            }
        if (n < 2)
            continue;
        const struct pgcb_res_group *g0 = &r->groups[set[0]];
        fprintf(out, "\n%s%s / %s%s%s at each round-trip time (depth %u; %s)%s\n",
                style == PGCB_TABLE_MARKDOWN ? "**" : "", g0->suite, g0->query,
                g0->transport ? " / " : "", g0->transport ? g0->transport : "", g0->depth,
                g0->concurrency ? "queries per second, and the ceiling one pool of its size "
                                  "has at its round trips"
                                : "median per batch in ns, and the expectation: the rtt-0 "
                                  "median + RTT x round trips x depth",
                style == PGCB_TABLE_MARKDOWN ? "**\n" : "");
        const char *head[MAXR + 2];
        char heads[MAXR][32];
        head[0] = "Driver";
        head[1] = "RT/q";
        for (size_t k = 0; k < n; k++) {
            snprintf(heads[k], sizeof heads[k], "rtt %g ms", r->groups[set[k]].rtt_ms);
            head[k + 2] = heads[k];
        }
        struct pgcb_table *t = pgcb_table_new(n + 2, head);
        pgcb_table_set_style(t, style);
        for (size_t d = 0; d < r->ndrivers; d++) {
            char cells[MAXR + 2][96];
            const char *row[MAXR + 2];
            snprintf(cells[0], sizeof cells[0], "%s", r->drivers[d].label);
            /* the round trips at the highest RTT (the ones that cost) */
            const struct pgcb_res_wire *wl = &r->groups[set[n - 1]].cells[d].wire;
            if (wl->known)
                snprintf(cells[1], sizeof cells[1], "%.3g", wl->round_trips);
            else
                snprintf(cells[1], sizeof cells[1], "-");
            for (size_t k = 0; k < n; k++)
                cell_text(&r->groups[set[k]], &r->groups[set[k]].cells[d], cells[k + 2],
                          sizeof cells[k + 2]);
            for (size_t k = 0; k < n + 2; k++)
                row[k] = cells[k];
            pgcb_table_add_row(t, row);
        }
        pgcb_table_print(t, out);
        pgcb_table_free(t);
    }
    free(taken);
}
