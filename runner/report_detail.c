/* report_detail.c -- a group's detail table: each driver's latency
 * distribution (pct.h) from its pooled histogram; see report.h. */
#include <math.h>
#include <stdio.h>

#include "pct.h"
#include "report.h"

/* Columns: the name, Min, the PGCB_PCT_N percentiles, Max. */
#define NCOLS (3 + PGCB_PCT_N)

static void fmt_ns(char *buf, size_t n, double v, int mark)
{
    if (isfinite(v))
        snprintf(buf, n, "%.0f%s", v, mark ? "*" : "");
    else
        snprintf(buf, n, "-");
}

void pgcb_report_detail(FILE *out, const struct pgcb_result *r, size_t g,
                        enum pgcb_table_style style)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    const int md = style == PGCB_TABLE_MARKDOWN;
    const char *head[NCOLS] = {"Task name", "Min"};
    for (size_t k = 0; k < PGCB_PCT_N; k++)
        head[2 + k] = pgcb_pct_name[k];
    head[NCOLS - 1] = "Max";
    struct pgcb_table *t = pgcb_table_new(NCOLS, head);
    pgcb_table_set_style(t, style);
    for (size_t c = 1; c < NCOLS; c++)
        pgcb_table_set_align(t, c, PGCB_TABLE_RIGHT);
    int short_of_samples = 0, missing = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        char name[160], cells[NCOLS][32];
        const char *row[NCOLS];
        snprintf(name, sizeof name, "%s%s", r->drivers[d].label, pgcb_report_mark(r, g, d));
        row[0] = name;
        fmt_ns(cells[1], sizeof cells[1], c->samples ? (double)c->min_ns : NAN, 0);
        for (size_t k = 0; k < PGCB_PCT_N; k++) {
            /* With fewer samples than 1 / (1 - q), the value at q is the max. */
            int mark = c->samples && c->samples < pgcb_pct_min_samples[k] &&
                       isfinite(c->pct_ns[k]);
            short_of_samples |= mark;
            missing |= c->samples && !isfinite(c->pct_ns[k]);
            fmt_ns(cells[2 + k], sizeof cells[2 + k], c->samples ? c->pct_ns[k] : NAN, mark);
        }
        fmt_ns(cells[NCOLS - 1], sizeof cells[NCOLS - 1], c->samples ? (double)c->max_ns : NAN,
               0);
        for (size_t k = 1; k < NCOLS; k++)
            row[k] = cells[k];
        pgcb_table_add_row(t, row);
    }
    fprintf(out, md ? "_Latency percentiles (ns), from the pooled histogram:_\n\n"
                    : "Latency percentiles (ns), from the pooled histogram:\n");
    pgcb_table_print(t, out);
    pgcb_table_free(t);
    if (md)
        fputc('\n', out);
    const char *bullet = md ? "- " : "  ";
    if (short_of_samples)
        fprintf(out, "%s%s fewer samples than the percentile needs (1 / (1 - q): 1000 for "
                     "p99.9): the value is the max\n", bullet, md ? "\\*" : "*");
    if (missing)
        fprintf(out, "%sno percentiles in this result file (written before they were "
                     "recorded)\n", bullet);
    if (md && (short_of_samples || missing))
        fputc('\n', out);
}
