/* versus.c -- see versus.h. */
#include "versus.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgcb/driver.h"
#include "rank.h"
#include "util.h"

static int same_transport(const struct pgcb_res_group *a, const struct pgcb_res_group *b)
{
    return !a->transport == !b->transport &&
           (!a->transport || strcmp(a->transport, b->transport) == 0);
}

/* h is gr's twin: gr's versus in gr's step and transport. */
static int twin_of(const struct pgcb_res_group *gr, const struct pgcb_res_group *h)
{
    return strcmp(h->query, gr->versus) == 0 && strcmp(h->suite, gr->suite) == 0 &&
           h->depth == gr->depth && h->threads == gr->threads &&
           !h->transaction == !gr->transaction && h->ops == gr->ops &&
           !h->connect == !gr->connect && same_transport(gr, h);
}

size_t pgcb_versus_pairs(const struct pgcb_result *r, struct pgcb_versus_pair **out)
{
    struct pgcb_versus_pair *pairs = NULL;
    size_t n = 0;
    for (size_t g = 0; g < r->ngroups; g++) {
        const struct pgcb_res_group *gr = &r->groups[g];
        if (!gr->versus || !gr->query || !gr->suite)
            continue;
        for (size_t h = 0; h < r->ngroups; h++) {
            if (h == g || !r->groups[h].query || !r->groups[h].suite ||
                !twin_of(gr, &r->groups[h]))
                continue;
            pairs = pgcb_xrealloc(pairs, (n + 1) * sizeof *pairs);
            pairs[n++] = (struct pgcb_versus_pair){.group = g, .twin = h};
            break;
        }
    }
    *out = pairs;
    return n;
}

double pgcb_versus_values(const struct pgcb_res_group *gr, size_t d)
{
    double rows;
    if (gr->rows >= 0)
        rows = (double)gr->rows;
    else
        rows = (double)gr->cells[d].rows_per_batch / (gr->depth ? (double)gr->depth : 1.0);
    if (gr->columns == 0 || !(rows > 0))
        return NAN;
    return rows * (double)gr->columns;
}

void pgcb_versus_cell(const struct pgcb_result *r, const struct pgcb_versus_pair *p, size_t d,
                      struct pgcb_versus_cell *out)
{
    const struct pgcb_res_group *gr = &r->groups[p->group], *tw = &r->groups[p->twin];
    int ok = pgcb_rank_cell_valid(r, p->group, d), tok = pgcb_rank_cell_valid(r, p->twin, d);
    double v = pgcb_versus_values(gr, d), tv = pgcb_versus_values(tw, d);
    out->values = v;
    out->cpu_ns = ok ? gr->cells[d].cpu_ns_per_query : NAN;
    out->twin_cpu_ns = tok ? tw->cells[d].cpu_ns_per_query : NAN;
    out->valid = isfinite(out->cpu_ns) && isfinite(out->twin_cpu_ns) && isfinite(v) && v == tv;
    out->ns_per_value = out->valid ? (out->cpu_ns - out->twin_cpu_ns) / v : NAN;
}

int pgcb_versus_driver(const struct pgcb_result *r, const struct pgcb_versus_pair *p, size_t n,
                       size_t d)
{
    if (r->drivers[d].caps & PGCB_CAP_NO_IO)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (pgcb_rank_cell_valid(r, p[i].group, d) && pgcb_rank_cell_valid(r, p[i].twin, d))
            return 1;
    return 0;
}

int pgcb_versus_same_table(const struct pgcb_result *r, const struct pgcb_versus_pair *a,
                           const struct pgcb_versus_pair *b)
{
    const struct pgcb_res_group *x = &r->groups[a->group], *y = &r->groups[b->group];
    return strcmp(x->suite, y->suite) == 0 && x->depth == y->depth &&
           x->threads == y->threads && !x->transaction == !y->transaction && x->ops == y->ops &&
           !x->connect == !y->connect && same_transport(x, y);
}
