/* report_verdict.c -- see report.h: a group's verdict line (the winner, or
 * why none, with each rival's orders and p). */

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

/* "faster than A, B in 14/14 orders, p = 0.00012 each; than C in 21/24 orders
 * (2 ties), p = 0.0003": the rivals that share a result are named together.
 * `only_open`: just the rivals it was not shown to be faster than, with
 * their Holm level. */
static void rivals_text(char *buf, size_t n, const struct pgcb_result *r,
                        const struct pgcb_verdict *v, int only_open)
{
    size_t len = 0;
    buf[0] = '\0';
    int first = 1;
    unsigned char *done = pgcb_xcalloc(v->nrivals ? v->nrivals : 1, 1);
    for (size_t i = 0; i < v->nrivals && len < n; i++) {
        const struct pgcb_verdict_rival *rv = &v->rivals[i];
        if (done[i] || (only_open && rv->rejected))
            continue;
        char names[512] = "";
        size_t same = 0;
        for (size_t k = i; k < v->nrivals; k++) {
            const struct pgcb_verdict_rival *o = &v->rivals[k];
            if (done[k] || o->wins != rv->wins || o->losses != rv->losses ||
                o->ties != rv->ties || o->rejected != rv->rejected)
                continue;
            done[k] = 1;
            size_t nl = strlen(names);
            snprintf(names + nl, sizeof names - nl, "%s%s", same++ ? ", " : "",
                     r->drivers[o->driver].label);
        }
        char p[32], ties[32] = "", level[64] = "";
        pgcb_rank_fmt_p(p, sizeof p, rv->p);
        if (rv->ties)
            snprintf(ties, sizeof ties, " (%u tie%s)", rv->ties, rv->ties == 1 ? "" : "s");
        if (only_open)
            snprintf(level, sizeof level, " (Holm level %.2g)", rv->level);
        int k = snprintf(buf + len, n - len, "%s%s %s in %u/%u orders%s, %s%s%s",
                         first ? "" : "; ", first ? (only_open ? "faster than" : "faster than")
                                                  : "than",
                         names, rv->wins, rv->wins + rv->losses + rv->ties, ties, p,
                         same > 1 ? " each" : "", rv->wins > rv->losses ? level : "");
        first = 0;
        if (k < 0)
            break;
        len += (size_t)k;
    }
    free(done);
}

/* The verdict proper (pgcb_report_verdict_line() adds the SLA mark). */
static void verdict_text(char *buf, size_t n, const struct pgcb_result *r, size_t g)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    struct pgcb_verdict v;
    pgcb_rank_verdict(r, g, &v);
    const struct pgcb_res_cell *bc = v.lowest_median != PGCB_RANK_NONE
                                         ? &gr->cells[v.lowest_median] : NULL;
    char alpha[32], riv[768];
    pgcb_rank_fmt_alpha(alpha, sizeof alpha, v.alpha);
    switch (v.kind) {
    case PGCB_VERDICT_NO_VALID: {
        size_t clients = 0, skipped = 0;
        for (size_t d = 0; d < r->ndrivers; d++) {
            clients += pgcb_rep_is_client(r, d);
            skipped += pgcb_rep_is_client(r, d) && gr->cells[d].status == PGCB_CELL_SKIPPED;
        }
        snprintf(buf, n, "No valid client driver result in this group%s.",
                 clients > 0 && skipped == clients ? " (every client driver skipped it)" : "");
        pgcb_rank_verdict_free(&v);
        return;
    }
    case PGCB_VERDICT_ONLY_ONE:
        if (gr->concurrency)
            snprintf(buf, n, "Highest throughput: %s (%.0f queries/s; the only valid client "
                     "driver)", r->drivers[v.lowest_median].label, bc->queries_per_s);
        else
            snprintf(buf, n, "Lowest median: %s (%.0f ns; the only valid client driver)",
                     r->drivers[v.lowest_median].label, bc->median_ns);
        pgcb_rank_verdict_free(&v);
        return;
    case PGCB_VERDICT_WINNER:
        rivals_text(riv, sizeof riv, r, &v, 0);
        if (gr->concurrency) /* the verdict is on throughput per order */
            snprintf(buf, n, "Winner: %s (%.0f queries/s; %s)", r->drivers[v.winner].label,
                     bc->queries_per_s, riv);
        else
            snprintf(buf, n, "Winner: %s (%.0f ns median; %s)", r->drivers[v.winner].label,
                     bc->median_ns, riv);
        pgcb_rank_verdict_free(&v);
        return;
    case PGCB_VERDICT_TOO_FEW:
    case PGCB_VERDICT_NO_CLEAR:
        break;
    }
    char mean[160] = "no driver has a mean";
    if (v.lowest_mean != PGCB_RANK_NONE)
        snprintf(mean, sizeof mean, "lowest mean %s (%.0f ns)", r->drivers[v.lowest_mean].label,
                 gr->cells[v.lowest_mean].mean_ns);
    char why[1024];
    if (v.kind == PGCB_VERDICT_TOO_FEW)
        snprintf(why, sizeof why, "%zu execution order%s cannot reach alpha %s against %zu "
                 "rival%s (a winner needs %u)", v.orders, v.orders == 1 ? "" : "s", alpha,
                 v.nrivals, v.nrivals == 1 ? "" : "s", v.min_orders);
    else if (v.median_ties > 0)
        snprintf(why, sizeof why, "%zu drivers share the %s", v.median_ties + 1,
                 gr->concurrency ? "highest throughput" : "lowest median");
    else {
        rivals_text(riv, sizeof riv, r, &v, 1);
        snprintf(why, sizeof why, "not shown faster than every rival at alpha %s: %s", alpha,
                 riv);
    }
    if (gr->concurrency)
        snprintf(buf, n, "%s: highest throughput %s (%.0f queries/s); %s",
                 v.kind == PGCB_VERDICT_TOO_FEW ? "No verdict possible" : "No clear winner",
                 r->drivers[v.lowest_median].label, bc->queries_per_s, why);
    else
        snprintf(buf, n, "%s: lowest median %s (%.0f ns), %s; %s",
                 v.kind == PGCB_VERDICT_TOO_FEW ? "No verdict possible" : "No clear winner",
                 r->drivers[v.lowest_median].label, bc->median_ns, mean, why);
    pgcb_rank_verdict_free(&v);
}

void pgcb_report_verdict_line(char *buf, size_t n, const struct pgcb_result *r, size_t g)
{
    verdict_text(buf, n, r, g);
    size_t len = strlen(buf);
    if (r->groups[g].sla_failed && len < n)
        snprintf(buf + len, n - len, " — background SLA FAILED");
}
