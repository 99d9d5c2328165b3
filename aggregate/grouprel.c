/* grouprel.c -- relative latency per group and driver, pooled over the runs;
 * see agg.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "stats.h"
#include "util.h"

size_t pgcb_agg_grouprel(const struct pgcb_agg *a, struct pgcb_agg_grouprel **out)
{
    const struct pgcb_ranking *rk = &a->overall;
    const struct pgcb_result *first = a->res[0];
    struct pgcb_agg_grouprel *g = pgcb_xcalloc(first->ngroups ? first->ngroups : 1, sizeof *g);
    double *v = pgcb_xcalloc(rk->ngroups ? rk->ngroups : 1, sizeof *v);
    size_t n = 0;
    for (size_t k = 0; k < first->ngroups; k++) {
        const struct pgcb_res_group *gr = &first->groups[k];
        if (!pgcb_rank_group_shared(a->res, a->nruns, gr))
            continue;
        int dup = 0; /* the same group twice in run 1: once */
        for (size_t j = 0; j < n && !dup; j++)
            dup = pgcb_rank_same_group(g[j].group, gr);
        if (dup)
            continue;
        g[n].group = gr;
        g[n].rel = pgcb_xcalloc(rk->nrows ? rk->nrows : 1, sizeof(double));
        for (size_t row = 0; row < rk->nrows; row++) {
            size_t m = 0;
            for (size_t i = 0; i < rk->ngroups; i++) {
                const struct pgcb_rank_group *rg = &rk->groups[i];
                if (pgcb_rank_same_group(&a->res[rg->run]->groups[rg->group], gr))
                    v[m++] = rg->ratio[row];
            }
            g[n].nruns = m;
            g[n].rel[row] = m ? pgcb_stats_geomean(v, m) : NAN;
        }
        n++;
    }
    free(v);
    *out = g;
    return n;
}

void pgcb_agg_grouprel_free(struct pgcb_agg_grouprel *g, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(g[i].rel);
    free(g);
}
