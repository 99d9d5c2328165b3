/*
 * report_versus.c -- the console's lines of the types workload (report.h):
 * under a group's table, the columns folded as text; after the group
 * tables, what converting costs (versus.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "versus.h"

int pgcb_report_folded_notes(FILE *out, const struct pgcb_result *r, size_t g,
                             const char *bullet)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    if (gr->nfolded == 0)
        return 0;
    fprintf(out, "%sFolded as text:", bullet);
    for (size_t i = 0; i < gr->nfolded; i++) {
        const struct pgcb_res_folded *f = &gr->folded[i];
        fprintf(out, "%s column %u \"%s\" (%s, oid %u)", i ? "," : "", f->column,
                f->name ? f->name : "?", f->type ? f->type : "?", f->oid);
    }
    fputc('\n', out);
    return 1;
}

/* The pairs at p[0 .. n-1] (one table's): a row per pair, a column per
 * driver that has a value in one of them. */
static void cost_table(FILE *out, const struct pgcb_result *r, const struct pgcb_versus_pair *p,
                       size_t n, enum pgcb_table_style style)
{
    size_t ncols = 3, *col = calloc(r->ndrivers ? r->ndrivers : 1, sizeof *col);
    const char **head = calloc(3 + r->ndrivers, sizeof *head);
    const char **row = calloc(3 + r->ndrivers, sizeof *row);
    char (*cells)[32] = calloc(r->ndrivers ? r->ndrivers : 1, sizeof *cells);
    if (!col || !head || !row || !cells)
        goto out;
    head[0] = "Query";
    head[1] = "Versus";
    head[2] = "Values/query";
    for (size_t d = 0; d < r->ndrivers; d++)
        if (pgcb_versus_driver(r, p, n, d)) {
            col[d] = ncols;
            head[ncols++] = r->drivers[d].label;
        }
    struct pgcb_table *t = pgcb_table_new(ncols, head);
    if (!t)
        goto out;
    pgcb_table_set_style(t, style);
    for (size_t c = 2; c < ncols; c++)
        pgcb_table_set_align(t, c, PGCB_TABLE_RIGHT);
    for (size_t i = 0; i < n; i++) {
        const struct pgcb_res_group *gr = &r->groups[p[i].group];
        char values[32] = "-";
        row[0] = gr->query;
        row[1] = gr->versus;
        row[2] = values;
        for (size_t d = 0; d < r->ndrivers; d++) {
            if (!col[d])
                continue;
            struct pgcb_versus_cell c;
            pgcb_versus_cell(r, &p[i], d, &c);
            if (isfinite(c.values) && strcmp(values, "-") == 0)
                snprintf(values, sizeof values, "%.0f", c.values);
            if (c.valid)
                snprintf(cells[d], sizeof cells[d], "%.1f", c.ns_per_value);
            else
                snprintf(cells[d], sizeof cells[d], "-");
            row[col[d]] = cells[d];
        }
        pgcb_table_add_row(t, row);
    }
    pgcb_table_print(t, out);
    pgcb_table_free(t);
out:
    free(col);
    free(head);
    free(row);
    free(cells);
}

void pgcb_report_conversion_cost_caption(FILE *out, enum pgcb_table_style style)
{
    int md = style == PGCB_TABLE_MARKDOWN;
    fprintf(out, "%sWhat converting costs%s: each driver's client CPU per value (ns) of a "
                 "query beyond that of its twin of the same shape with the columns cast to "
                 "text ([query] versus): (CPU per query - the twin's) / (rows x columns); "
                 "the server sends the twin as text, which every driver folds as bytes; the "
                 "two groups ran one after another, not interleaved, so a difference also "
                 "holds whatever changed on the machine between them\n\n",
            md ? "**" : "", md ? "**" : "");
}

void pgcb_report_conversion_cost(FILE *out, const struct pgcb_result *r,
                                 enum pgcb_table_style style)
{
    struct pgcb_versus_pair *pairs;
    size_t n = pgcb_versus_pairs(r, &pairs);
    free(pairs);
    if (n == 0)
        return;
    pgcb_report_conversion_cost_caption(out, style);
    pgcb_report_conversion_cost_tables(out, r, style);
}

int pgcb_report_conversion_cost_tables(FILE *out, const struct pgcb_result *r,
                                       enum pgcb_table_style style)
{
    struct pgcb_versus_pair *pairs;
    size_t n = pgcb_versus_pairs(r, &pairs);
    if (n == 0)
        return 0;
    int md = style == PGCB_TABLE_MARKDOWN;
    /* One table per suite, shape and transport, in the order of their first pair. */
    int *done = calloc(n, sizeof *done);
    struct pgcb_versus_pair *set = calloc(n, sizeof *set);
    for (size_t i = 0; done && set && i < n; i++) {
        if (done[i])
            continue;
        size_t k = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && pgcb_versus_same_table(r, &pairs[i], &pairs[j])) {
                done[j] = 1;
                set[k++] = pairs[j];
            }
        const struct pgcb_res_group *g0 = &r->groups[set[0].group];
        char shape[64], threads[32] = "", tr[64] = "";
        pgcb_res_group_shape(g0, shape, sizeof shape);
        if (g0->threads > 1)
            snprintf(threads, sizeof threads, ", %u threads", g0->threads);
        if (g0->transport)
            snprintf(tr, sizeof tr, ", %s", g0->transport);
        fprintf(out, "%s%s%s  (%s%s%s; ns per value)\n%s", md ? "**" : "", g0->suite,
                md ? "**" : "", shape, threads, tr, md ? "\n" : "");
        cost_table(out, r, set, k, style);
        fputc('\n', out);
    }
    free(done);
    free(set);
    free(pairs);
    return 1;
}
