/* svg.c -- the chart: relative latency per group and driver as grouped
 * horizontal bars (one block per shared group, one bar per ranked driver,
 * pooled over the runs), then the overall ranking as a last block; see agg.h.
 *
 * Bars start at 0 so that their lengths compare honestly; each bar is
 * labelled with its value, and a dashed line marks 1.0 (the group's lowest
 * median). Plain SVG 1.1, no script, no external font or file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "util.h"

#define WIDTH 960.0
#define LABEL_W 300.0   /* group names, right-aligned left of the plot */
#define PLOT_X0 LABEL_W
#define PLOT_X1 (WIDTH - 70.0) /* room for the value after the longest bar */
#define TOP 110.0       /* title, subtitle, legend above */
#define BAR_H 16.0
#define BAR_GAP 3.0
#define GROUP_GAP 16.0

static double xpos(double v, double xmax)
{
    return PLOT_X0 + (PLOT_X1 - PLOT_X0) * v / xmax;
}

/* One block: a label and one bar per driver. Returns the next y. */
static double block(FILE *f, double y, const char *label, const double *rel, size_t n,
                    double xmax)
{
    double h = (double)n * BAR_H + (double)(n ? n - 1 : 0) * BAR_GAP;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"group\">", LABEL_W - 12,
            y + h / 2 + 4);
    pgcb_agg_xml(f, label);
    fprintf(f, "</text>\n");
    for (size_t k = 0; k < n; k++) {
        double by = y + (double)k * (BAR_H + BAR_GAP);
        if (!isfinite(rel[k])) {
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"value\">not ranked</text>\n",
                    PLOT_X0 + 4, by + BAR_H - 4);
            continue;
        }
        double x1 = xpos(rel[k], xmax);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                PLOT_X0, by, x1 - PLOT_X0, BAR_H, pgcb_agg_svg_color(k));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"value\">%.3f</text>\n", x1 + 4,
                by + BAR_H - 4, rel[k]);
    }
    return y + h + GROUP_GAP;
}

char *pgcb_agg_svg(const struct pgcb_agg *a)
{
    const struct pgcb_ranking *rk = &a->overall;
    struct pgcb_agg_grouprel *g;
    size_t ng = pgcb_agg_grouprel(a, &g);
    size_t n = rk->nrows;

    double vmax = 1;
    for (size_t i = 0; i < ng; i++)
        for (size_t k = 0; k < n; k++)
            if (isfinite(g[i].rel[k]) && g[i].rel[k] > vmax)
                vmax = g[i].rel[k];
    double step = pgcb_agg_nice_step(vmax, 8), xmax = ceil(vmax / step - 1e-9) * step;
    if (xmax < vmax * 1.02) /* leave a little room after the longest bar */
        xmax += step;
    double block_h = (double)n * BAR_H + (double)(n ? n - 1 : 0) * BAR_GAP + GROUP_GAP;
    double plot_h = (double)(ng + 1) * block_h + 8;
    double height = TOP + plot_h + 60;

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    pgcb_agg_svg_open(f, WIDTH, height, "pgclientbench: relative latency per group and driver");
    fprintf(f, "<style>text{fill:#222;font-size:12px}.title{font-size:18px;font-weight:bold}"
               ".sub{fill:#555}.group{font-size:12px}.value{font-size:11px;fill:#333;"
               "paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}"
               ".tick{fill:#555;font-size:11px}.grid{stroke:#e3e3e3;stroke-width:1}"
               ".axis{stroke:#888;stroke-width:1}.one{stroke:#222;stroke-width:1;"
               "stroke-dasharray:4 3}</style>\n");
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");

    /* Title and subtitle. */
    fprintf(f, "<text x=\"20\" y=\"32\" class=\"title\">Relative latency per group "
               "(lower is better)</text>\n");
    fprintf(f, "<text x=\"20\" y=\"54\" class=\"sub\">Median / the group's lowest median among "
               "the ranked drivers, geometric mean over %zu run%s; 1.000 = fastest</text>\n",
            a->nruns, a->nruns == 1 ? "" : "s");
    pgcb_agg_svg_runs(f, a, 72, NULL);

    /* Legend: one swatch per driver, in ranking order. */
    const char **names = pgcb_xcalloc(n ? n : 1, sizeof *names);
    for (size_t k = 0; k < n; k++)
        names[k] = rk->rows[k].driver;
    pgcb_agg_svg_legend(f, names, n, 84);
    free(names);

    /* Grid and ticks. */
    double y_axis = TOP + plot_h;
    for (int i = 0; i <= 16 && (double)i * step <= xmax + step / 2; i++) { /* xmax may be inf */
        double t = (double)i * step, x = xpos(t, xmax);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", x,
                TOP - 6, x, y_axis);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">%g</text>\n",
                x, y_axis + 16, t);
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n",
            PLOT_X0, y_axis, PLOT_X1, y_axis);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n",
            PLOT_X0, TOP - 6, PLOT_X0, y_axis);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"sub\">Relative "
               "latency (median / the group's lowest median)</text>\n",
            (PLOT_X0 + PLOT_X1) / 2, y_axis + 38);

    /* 1.0 under the bars, then the blocks (a group ranked in fewer runs
     * than all says so). */
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"one\"/>\n",
            xpos(1, xmax), TOP - 6, xpos(1, xmax), y_axis);
    double y = TOP;
    for (size_t i = 0; i < ng; i++) {
        char *name = pgcb_agg_group_name(g[i].group);
        char *label = g[i].nruns == a->nruns
                          ? pgcb_xstrdup(name)
                          : pgcb_xasprintf("%s (%zu of %zu runs)", name, g[i].nruns, a->nruns);
        y = block(f, y, label, g[i].rel, n, xmax);
        free(label);
        free(name);
    }
    fprintf(f, "<line x1=\"20\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n",
            y - GROUP_GAP / 2, PLOT_X1, y - GROUP_GAP / 2);
    double *overall = pgcb_xcalloc(n ? n : 1, sizeof *overall);
    for (size_t k = 0; k < n; k++)
        overall[k] = rk->rows[k].rel;
    block(f, y + 4, "Overall (geometric mean)", overall, n, xmax);
    free(overall);
    fprintf(f, "</svg>\n");
    pgcb_agg_grouprel_free(g, ng);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int pgcb_agg_svg_write(const struct pgcb_agg *a, const char *path, char *err, size_t errlen)
{
    return pgcb_agg_write_chart(path, pgcb_agg_svg(a), err, errlen);
}
