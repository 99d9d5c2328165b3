/* tsummary.c -- see tsummary.h. */
#include "tsummary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgcb/driver.h"
#include "rank.h"
#include "util.h"

size_t pgcb_tsum_sets(const struct pgcb_result *r, struct pgcb_tsum_set **out)
{
    size_t nsets = 0;
    struct pgcb_tsum_set *sets = NULL;
    int *taken = pgcb_xcalloc(r->ngroups ? r->ngroups : 1, sizeof *taken);
    for (size_t g = 0; g < r->ngroups; g++) {
        if (taken[g] || !r->groups[g].transport)
            continue;
        struct pgcb_tsum_set set = {.groups = pgcb_xcalloc(r->ngroups, sizeof *set.groups)};
        for (size_t h = g; h < r->ngroups; h++) {
            const struct pgcb_res_group *a = &r->groups[g], *b = &r->groups[h];
            if (taken[h] || !b->transport || !pgcb_rank_same_step(a, b) ||
                !a->has_rtt != !b->has_rtt || a->rtt_ms != b->rtt_ms)
                continue; /* an RTT's groups are compared in the distance table */
            taken[h] = 1;
            if (strcmp(b->transport, "unix") == 0 && strcmp(r->groups[set.groups[set.base]]
                                                                .transport, "unix") != 0)
                set.base = set.n;
            set.groups[set.n++] = h;
        }
        if (set.n < 2) {
            free(set.groups);
            continue;
        }
        sets = pgcb_xrealloc(sets, (nsets + 1) * sizeof *sets);
        sets[nsets++] = set;
    }
    free(taken);
    *out = sets;
    return nsets;
}

void pgcb_tsum_free(struct pgcb_tsum_set *sets, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(sets[i].groups);
    free(sets);
}

/* Median per batch of driver d in group g, NAN unless its cell is ok. */
static double batch_median(const struct pgcb_result *r, size_t g, size_t d)
{
    return pgcb_rank_cell_valid(r, g, d) ? pgcb_res_cell_figure(&r->groups[g].cells[d]) : NAN;
}

void pgcb_tsum_cell(const struct pgcb_result *r, const struct pgcb_tsum_set *set, size_t k,
                    size_t d, struct pgcb_tsum_cell *out)
{
    const struct pgcb_res_group *gr = &r->groups[set->groups[k]];
    double depth = gr->depth ? (double)gr->depth : 1.0;
    double b = batch_median(r, set->groups[k], d);
    double base = batch_median(r, set->groups[set->base], d);
    out->valid = isfinite(b);
    out->batch_ns = b;
    out->query_ns = b / depth;
    out->d_batch_ns = isfinite(b) && isfinite(base) ? b - base : NAN;
    out->d_query_ns = out->d_batch_ns / depth;
    out->d_pct = isfinite(out->d_batch_ns) && base > 0 ? 100.0 * out->d_batch_ns / base : NAN;
}

int pgcb_tsum_driver(const struct pgcb_result *r, const struct pgcb_tsum_set *set, size_t d)
{
    if (r->drivers[d].caps & PGCB_CAP_NO_IO)
        return 0;
    for (size_t k = 0; k < set->n; k++)
        if (pgcb_rank_cell_valid(r, set->groups[k], d))
            return 1;
    return 0;
}
