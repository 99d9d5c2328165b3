/* baseline.c -- queries/s per run label relative to a baseline label; see
 * agg.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "stats.h"
#include "util.h"

static int same_group(const struct pgcb_res_group *x, const struct pgcb_res_group *y)
{
    return strcmp(x->suite, y->suite) == 0 && strcmp(x->query, y->query) == 0 &&
           x->depth == y->depth && x->threads == y->threads;
}

/* Geometric mean of `driver`'s queries/s in group gr over the runs labelled
 * `label` where its result is valid; NAN if none is. v: scratch, nruns. */
static double label_qps(const struct pgcb_agg *a, const char *label, const char *driver,
                        const struct pgcb_res_group *gr, double *v)
{
    size_t m = 0;
    for (size_t i = 0; i < a->nruns; i++) {
        if (strcmp(a->runs[i].label, label) != 0)
            continue;
        const struct pgcb_result *r = a->res[i];
        size_t d = 0;
        while (d < r->ndrivers && strcmp(r->drivers[d].label, driver) != 0)
            d++;
        for (size_t g = 0; d < r->ndrivers && g < r->ngroups; g++) {
            const struct pgcb_res_cell *c = &r->groups[g].cells[d];
            if (same_group(&r->groups[g], gr) && c->status == PGCB_CELL_OK &&
                isfinite(c->queries_per_s) && c->queries_per_s > 0) {
                v[m++] = c->queries_per_s;
                break;
            }
        }
    }
    return m ? pgcb_stats_geomean(v, m) : NAN;
}

int pgcb_agg_baseline_compute(const struct pgcb_agg *a, const char *label, double threshold_pct,
                              struct pgcb_agg_baseline *b, char *err, size_t errlen)
{
    *b = (struct pgcb_agg_baseline){.threshold_pct = threshold_pct};
    b->labels = pgcb_xcalloc(a->nruns, sizeof *b->labels);
    for (size_t i = 0; i < a->nruns; i++) {
        size_t l = 0;
        while (l < b->nlabels && strcmp(b->labels[l], a->runs[i].label) != 0)
            l++;
        if (l == b->nlabels)
            b->labels[b->nlabels++] = a->runs[i].label;
        if (strcmp(a->runs[i].label, label) == 0)
            b->label = a->runs[i].label;
    }
    if (!b->label) {
        size_t n = (size_t)snprintf(err, errlen, "--baseline '%s': no run has that label (",
                                    label);
        for (size_t l = 0; l < b->nlabels && n < errlen; l++)
            n += (size_t)snprintf(err + n, errlen - n, "%s'%s'", l ? ", " : "", b->labels[l]);
        if (n < errlen)
            snprintf(err + n, errlen - n, ")");
        pgcb_agg_baseline_free(b);
        return -1;
    }
    const struct pgcb_result *first = a->res[0];
    b->groups = pgcb_xcalloc(first->ngroups, sizeof *b->groups);
    for (size_t g = 0; g < first->ngroups; g++) {
        const struct pgcb_res_group *gr = &first->groups[g];
        int dup = 0;
        for (size_t k = 0; k < b->ngroups && !dup; k++)
            dup = same_group(b->groups[k], gr);
        if (!dup && pgcb_rank_group_shared(a->res, a->nruns, gr))
            b->groups[b->ngroups++] = gr;
    }
    size_t ndrivers = a->overall.nrows, w = b->ngroups + 1;
    b->ratio = pgcb_xcalloc(ndrivers * b->nlabels * w, sizeof *b->ratio);
    double *v = pgcb_xcalloc(a->nruns, sizeof *v);
    double *row = pgcb_xcalloc(w, sizeof *row);
    for (size_t d = 0; d < ndrivers; d++) {
        const char *driver = a->overall.rows[d].driver;
        for (size_t l = 0; l < b->nlabels; l++) {
            double *out = &b->ratio[(d * b->nlabels + l) * w];
            size_t m = 0;
            for (size_t g = 0; g < b->ngroups; g++) {
                double base = label_qps(a, b->label, driver, b->groups[g], v);
                double mine = label_qps(a, b->labels[l], driver, b->groups[g], v);
                out[g] = mine / base; /* NAN when either is */
                if (isfinite(out[g]))
                    row[m++] = out[g];
            }
            out[b->ngroups] = m ? pgcb_stats_geomean(row, m) : NAN;
        }
    }
    free(row);
    free(v);
    return 0;
}

double pgcb_agg_baseline_ratio(const struct pgcb_agg_baseline *b, size_t d, size_t l, size_t g)
{
    return b->ratio[(d * b->nlabels + l) * (b->ngroups + 1) + g];
}

const char *pgcb_agg_baseline_mark(const struct pgcb_agg_baseline *b, double ratio)
{
    if (!isfinite(ratio))
        return "";
    if (ratio > 1 + b->threshold_pct / 100)
        return "▲";
    if (ratio < 1 - b->threshold_pct / 100)
        return "▼";
    return "";
}

void pgcb_agg_baseline_free(struct pgcb_agg_baseline *b)
{
    free(b->labels);
    free(b->groups);
    free(b->ratio);
    *b = (struct pgcb_agg_baseline){0};
}
