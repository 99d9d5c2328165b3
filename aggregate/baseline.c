/* baseline.c -- queries/s per step and run label relative to a baseline
 * label; see agg.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "stats.h"
#include "util.h"

char *pgcb_agg_step_name(const struct pgcb_res_group *gr)
{
    char threads[32] = "";
    if (gr->threads > 1)
        snprintf(threads, sizeof threads, ", %u threads", gr->threads);
    char shape[64];
    pgcb_res_group_shape(gr, shape, sizeof shape);
    return pgcb_xasprintf("%s / %s / %s%s%s%s", gr->suite, gr->query, shape, threads,
                          gr->transport ? " / " : "", gr->transport ? gr->transport : "");
}

/* `driver` in group gr over the runs labelled `label`: the geometric mean of
 * its valid queries/s (NAN if none is valid), whether it was skipped there
 * (and valid nowhere), and whether the group's background missed its SLA in
 * one of those runs. v: scratch, nruns. */
static struct pgcb_agg_bcell label_cell(const struct pgcb_agg *a, const char *label,
                                        const char *driver, const struct pgcb_res_group *gr,
                                        double *v)
{
    struct pgcb_agg_bcell c = {.ratio = NAN};
    size_t m = 0, skipped = 0;
    for (size_t i = 0; i < a->nruns; i++) {
        if (strcmp(a->runs[i].label, label) != 0)
            continue;
        const struct pgcb_result *r = a->res[i];
        size_t d = 0;
        while (d < r->ndrivers && strcmp(r->drivers[d].label, driver) != 0)
            d++;
        for (size_t g = 0; d < r->ndrivers && g < r->ngroups; g++) {
            if (!pgcb_rank_same_group(&r->groups[g], gr))
                continue;
            const struct pgcb_res_cell *rc = &r->groups[g].cells[d];
            c.sla_failed |= r->groups[g].sla_failed != 0;
            if (rc->status == PGCB_CELL_OK && isfinite(rc->queries_per_s) &&
                rc->queries_per_s > 0) {
                v[m++] = rc->queries_per_s;
                break; /* a group listed twice in one run counts once */
            }
            skipped += rc->status == PGCB_CELL_SKIPPED;
        }
    }
    if (m) {
        c.kind = PGCB_AGG_CELL_VALUE;
        c.ratio = pgcb_stats_geomean(v, m);
    } else if (skipped) {
        c.kind = PGCB_AGG_CELL_SKIPPED;
    }
    return c;
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
    b->groups = pgcb_xcalloc(first->ngroups ? first->ngroups : 1, sizeof *b->groups);
    for (size_t g = 0; g < first->ngroups; g++) {
        const struct pgcb_res_group *gr = &first->groups[g];
        int dup = 0;
        for (size_t k = 0; k < b->ngroups && !dup; k++)
            dup = pgcb_rank_same_group(b->groups[k], gr);
        if (!dup && pgcb_rank_group_shared(a->res, a->nruns, gr))
            b->groups[b->ngroups++] = gr;
    }
    size_t ndrivers = a->overall.nrows, rows = b->ngroups + 1;
    b->cells = pgcb_xcalloc(ndrivers * rows * b->nlabels, sizeof *b->cells);
    b->base_qps = pgcb_xcalloc(ndrivers * (b->ngroups ? b->ngroups : 1), sizeof *b->base_qps);
    double *v = pgcb_xcalloc(a->nruns, sizeof *v);
    double *col = pgcb_xcalloc(rows, sizeof *col);
    b->in_overall = pgcb_xcalloc(ndrivers * (b->ngroups ? b->ngroups : 1), 1);
    b->overall_steps = pgcb_xcalloc(ndrivers ? ndrivers : 1, sizeof *b->overall_steps);
    for (size_t d = 0; d < ndrivers; d++) {
        const char *driver = a->overall.rows[d].driver;
        for (size_t g = 0; g < b->ngroups; g++) {
            struct pgcb_agg_bcell base = label_cell(a, b->label, driver, b->groups[g], v);
            b->base_qps[d * b->ngroups + g] = base.ratio; /* the pooled queries/s */
            for (size_t l = 0; l < b->nlabels; l++) {
                struct pgcb_agg_bcell c = label_cell(a, b->labels[l], driver, b->groups[g], v);
                if (c.kind == PGCB_AGG_CELL_VALUE) {
                    c.ratio /= base.ratio; /* NAN when the baseline has none */
                    if (!isfinite(c.ratio))
                        c.kind = PGCB_AGG_CELL_NONE;
                }
                b->any_sla_failed |= c.sla_failed;
                b->cells[(d * rows + g) * b->nlabels + l] = c;
            }
        }
        /* The steps every label has a ratio in. */
        for (size_t g = 0; g < b->ngroups; g++) {
            int all = 1;
            for (size_t l = 0; l < b->nlabels && all; l++)
                all = b->cells[(d * rows + g) * b->nlabels + l].kind == PGCB_AGG_CELL_VALUE;
            b->in_overall[d * b->ngroups + g] = (unsigned char)all;
            b->overall_steps[d] += (size_t)all;
        }
        for (size_t l = 0; l < b->nlabels; l++) {
            struct pgcb_agg_bcell o = {.ratio = NAN};
            size_t m = 0;
            for (size_t g = 0; g < b->ngroups; g++) {
                const struct pgcb_agg_bcell *c = &b->cells[(d * rows + g) * b->nlabels + l];
                if (!b->in_overall[d * b->ngroups + g])
                    continue;
                col[m++] = c->ratio;
                o.sla_failed |= c->sla_failed;
            }
            if (m) {
                o.kind = PGCB_AGG_CELL_VALUE;
                o.ratio = pgcb_stats_geomean(col, m);
            }
            b->cells[(d * rows + b->ngroups) * b->nlabels + l] = o;
        }
    }
    free(col);
    free(v);
    return 0;
}

const struct pgcb_agg_bcell *pgcb_agg_baseline_cell(const struct pgcb_agg_baseline *b, size_t d,
                                                    size_t g, size_t l)
{
    return &b->cells[(d * (b->ngroups + 1) + g) * b->nlabels + l];
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
    free(b->cells);
    free(b->base_qps);
    free(b->in_overall);
    free(b->overall_steps);
    *b = (struct pgcb_agg_baseline){0};
}
