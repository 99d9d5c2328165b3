/* svg_pct.c -- the percentile chart: latency by percentile, as HdrHistogram
 * plots it, in small multiples; see agg.h.
 *
 * One panel per group and run. Groups are those of every run, in the order
 * they first appear. With one run the panels flow in rows of up to three;
 * with several, one row per group and one column per run, and a row shares
 * its y axis so that the runs compare across it.
 *
 * In a panel, one polyline per driver with a valid result and a curve
 * (status ok; reference drivers too), in the colour the bar chart gives it
 * (ranked drivers in ranking order, then the others as they appear), and a
 * dot at its max. x: the percentile on a log scale of 1 / (1 - q), ticks at
 * 0%, 90%, 99%, 99.9% ... up to what the largest sample count supports; the
 * max is drawn where its curve ends, at q = 1 - 1/samples. y: latency,
 * linear from 0, or logarithmic when the row's values span more than a
 * decade (the axis caption says which). Invalid and failed results are not
 * drawn (the panel says so); a file without curves (older than them) gets
 * a note in each of its panels and beside its label.
 *
 * Plain SVG 1.1, no script, no external font or file; a function of the
 * input only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "pgcb/driver.h"
#include "util.h"

#define LEFT 20.0
#define TOP 110.0       /* title, subtitles, legend above */
#define PANEL_W 300.0
#define PANEL_H 250.0
#define GAP_X 24.0
#define GAP_Y 16.0
/* The plot inside a panel at (px, py). */
#define PX0 62.0        /* room for the y tick labels */
#define PX1 (PANEL_W - 14)
#define PY0 38.0        /* title, y caption */
#define PY1 (PANEL_H - 52) /* x ticks, caption, note below */
#define MIN_WIDTH 960.0
#define PER_ROW 3       /* panels per row with one run */

/* The drivers with a colour: names[k] has colour k. */
struct drivers {
    char **names;       /* labels */
    char **legend;      /* labels as in the legend ("floor (reference)") */
    size_t n;
};

/* A y axis: linear from 0 to hi, or log from lo to hi (powers of ten). */
struct yscale {
    int log;
    double lo, hi, step; /* step: linear only */
};

static int drawable(const struct pgcb_res_cell *c)
{
    return c->status == PGCB_CELL_OK && c->ncurve > 0;
}

int pgcb_agg_run_has_curves(const struct pgcb_agg *a, size_t i)
{
    const struct pgcb_result *r = a->res[i];
    for (size_t g = 0; g < r->ngroups; g++)
        for (size_t d = 0; d < r->ndrivers; d++)
            if (r->groups[g].cells[d].ncurve > 0)
                return 1;
    return 0;
}

static size_t driver_index(const struct drivers *dr, const char *label)
{
    for (size_t k = 0; k < dr->n; k++)
        if (strcmp(dr->names[k], label) == 0)
            return k;
    return SIZE_MAX;
}

static void drivers_add(struct drivers *dr, const char *label, int reference)
{
    dr->names = pgcb_xrealloc(dr->names, (dr->n + 1) * sizeof *dr->names);
    dr->legend = pgcb_xrealloc(dr->legend, (dr->n + 1) * sizeof *dr->legend);
    dr->names[dr->n] = pgcb_xstrdup(label);
    dr->legend[dr->n] = reference ? pgcb_xasprintf("%s (reference)", label) : pgcb_xstrdup(label);
    dr->n++;
}

/* The ranked drivers (the bar chart's colours), then every other driver
 * that has a curve to draw, in the order of the runs. */
static void drivers_collect(const struct pgcb_agg *a, struct drivers *dr)
{
    *dr = (struct drivers){0};
    for (size_t k = 0; k < a->overall.nrows; k++)
        drivers_add(dr, a->overall.rows[k].driver, 0);
    for (size_t i = 0; i < a->nruns; i++) {
        const struct pgcb_result *r = a->res[i];
        for (size_t d = 0; d < r->ndrivers; d++) {
            int any = 0;
            for (size_t g = 0; g < r->ngroups && !any; g++)
                any = drawable(&r->groups[g].cells[d]);
            if (any && driver_index(dr, r->drivers[d].label) == SIZE_MAX)
                drivers_add(dr, r->drivers[d].label, (r->drivers[d].caps & PGCB_CAP_REFERENCE) != 0);
        }
    }
}

static void drivers_free(struct drivers *dr)
{
    for (size_t k = 0; k < dr->n; k++) {
        free(dr->names[k]);
        free(dr->legend[k]);
    }
    free(dr->names);
    free(dr->legend);
}

/* Run i's group like ref, or NULL. */
static const struct pgcb_res_group *find_group(const struct pgcb_result *r,
                                               const struct pgcb_res_group *ref)
{
    for (size_t g = 0; g < r->ngroups; g++)
        if (pgcb_rank_same_group(&r->groups[g], ref))
            return &r->groups[g];
    return NULL;
}

/* Every group of every run once, first appearance first. Borrowed pointers. */
static size_t collect_groups(const struct pgcb_agg *a, const struct pgcb_res_group ***out)
{
    size_t total = 0, n = 0;
    for (size_t i = 0; i < a->nruns; i++)
        total += a->res[i]->ngroups;
    const struct pgcb_res_group **gs = pgcb_xcalloc(total ? total : 1, sizeof *gs);
    for (size_t i = 0; i < a->nruns; i++)
        for (size_t g = 0; g < a->res[i]->ngroups; g++) {
            const struct pgcb_res_group *gr = &a->res[i]->groups[g];
            size_t k = 0;
            while (k < n && !pgcb_rank_same_group(gs[k], gr))
                k++;
            if (k == n)
                gs[n++] = gr;
        }
    *out = gs;
    return n;
}

/* Where a curve ends on x: its last percentile, or 1 - 1/samples where the
 * max is drawn. */
static double x_end(const struct pgcb_res_cell *c)
{
    double x = 0;
    for (size_t k = 0; k < c->ncurve; k++)
        if (c->curve[k].q < 1 && pgcb_pct_x(c->curve[k].q) > x)
            x = pgcb_pct_x(c->curve[k].q);
    if (c->samples > 0 && log10((double)c->samples) > x)
        x = log10((double)c->samples);
    return x;
}

static double point_x(const struct pgcb_res_cell *c, size_t k)
{
    return c->curve[k].q < 1 ? pgcb_pct_x(c->curve[k].q) : x_end(c);
}

/* The y axis of the row of group ref: over every run's drawable curves. */
static struct yscale y_scale(const struct pgcb_agg *a, const struct pgcb_res_group *ref)
{
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < a->nruns; i++) {
        const struct pgcb_res_group *gr = find_group(a->res[i], ref);
        for (size_t d = 0; gr && d < a->res[i]->ndrivers; d++) {
            const struct pgcb_res_cell *c = &gr->cells[d];
            if (!drawable(c))
                continue;
            lo = fmin(lo, c->curve[0].ns);
            hi = fmax(hi, c->curve[c->ncurve - 1].ns);
        }
    }
    struct yscale ys = {0};
    if (lo > 0 && isfinite(lo) && hi > 10 * lo) {
        ys.log = 1;
        ys.lo = pow(10, floor(log10(lo)));
        ys.hi = pow(10, ceil(log10(hi)));
        return ys;
    }
    if (!(hi > 0))
        hi = 1;
    ys.step = pgcb_agg_nice_step(hi, 5);
    ys.hi = ceil(hi / ys.step - 1e-9) * ys.step;
    return ys;
}

static double ypos(const struct yscale *ys, double v, double y0, double y1)
{
    double t = ys->log ? (log10(v) - log10(ys->lo)) / (log10(ys->hi) - log10(ys->lo))
                       : v / ys->hi;
    return y1 - (y1 - y0) * t;
}

/* A tick's latency: "0", "250 µs", "2.5 ms". */
static void fmt_tick(char *buf, size_t n, double ns)
{
    static const struct { double scale; const char *unit; } units[] = {
        {1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
    size_t u = 0;
    while (u < 3 && ns < units[u].scale * 0.9999)
        u++;
    if (ns == 0)
        snprintf(buf, n, "0");
    else
        snprintf(buf, n, "%g %s", ns / units[u].scale, units[u].unit);
}

/* "0%", "90%", "99%", "99.9%" ... for x = log10(1 / (1 - q)) = k. */
static void fmt_pct(char *buf, size_t n, int k)
{
    snprintf(buf, n, "%.*f%%", k > 2 ? k - 2 : 0, k == 0 ? 0.0 : 100 - pow(10, 2 - k));
}

static void y_axis(FILE *f, const struct yscale *ys, double x0, double x1, double y0, double y1)
{
    char lab[32];
    if (!ys->log) {
        for (int i = 0; i <= 20 && (double)i * ys->step <= ys->hi * (1 + 1e-9); i++) {
            double v = (double)i * ys->step, y = ypos(ys, v, y0, y1);
            fmt_tick(lab, sizeof lab, v);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
                    x0, y, x1, y);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%s</text>\n",
                    x0 - 5, y + 4, lab);
        }
        return;
    }
    /* 1, 2, 5 x 10^e; all labelled over two decades or less, else the 1s. */
    int e0 = (int)lround(log10(ys->lo)), e1 = (int)lround(log10(ys->hi));
    static const double m[] = {1, 2, 5};
    for (int e = e0; e <= e1; e++)
        for (size_t k = 0; k < 3 && (e < e1 || k == 0); k++) {
            double v = m[k] * pow(10, e), y = ypos(ys, v, y0, y1);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
                    x0, y, x1, y);
            if (k > 0 && e1 - e0 > 2)
                continue;
            fmt_tick(lab, sizeof lab, v);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%s</text>\n",
                    x0 - 5, y + 4, lab);
        }
}

static void x_axis(FILE *f, int xmax, double x0, double x1, double y0, double y1)
{
    char lab[32];
    for (int k = 0; k <= xmax; k++) {
        double x = x0 + (x1 - x0) * k / xmax;
        fmt_pct(lab, sizeof lab, k);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", x,
                y0, x, y1);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">%s</text>\n",
                x, y1 + 14, lab);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"cap\">percentile "
               "(log scale of 1/(1 − q))</text>\n", (x0 + x1) / 2, y1 + 28);
}

/* A sentence in the middle of an empty plot. */
static void empty(FILE *f, const char *what, double x0, double x1, double y0, double y1)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"cap\">%s</text>\n",
            (x0 + x1) / 2, (y0 + y1) / 2, what);
}

/* One curve: a polyline through its points and a dot at its max. */
static void curve(FILE *f, const struct pgcb_res_cell *c, const char *color,
                  const struct yscale *ys, int xmax, double x0, double x1, double y0, double y1)
{
    fprintf(f, "<polyline class=\"curve\" stroke=\"%s\" points=\"", color);
    double x = 0, y = 0;
    for (size_t k = 0; k < c->ncurve; k++) {
        /* a log axis cannot show 0: such a point sits on the axis */
        double v = ys->log ? fmax(c->curve[k].ns, ys->lo) : c->curve[k].ns;
        x = x0 + (x1 - x0) * point_x(c, k) / xmax;
        y = ypos(ys, v, y0, y1);
        fprintf(f, "%s%.1f,%.1f", k ? " " : "", x, y);
    }
    fprintf(f, "\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", x, y, color);
}

/* The panel of group gr (NULL: the run has no such group) of run r at
 * (px, py). */
static void panel(FILE *f, double px, double py, const char *title, const struct pgcb_result *r,
                  const struct pgcb_res_group *gr, int has_curves, const struct drivers *dr,
                  const struct yscale *ys, int xmax)
{
    double x0 = px + PX0, x1 = px + PX1, y0 = py + PY0, y1 = py + PY1;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ptitle\">", px, py + 14);
    pgcb_agg_xml(f, title);
    fprintf(f, "</text>\n");
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n",
            x0, y0, x1 - x0, y1 - y0);
    if (!gr) {
        empty(f, "not in this run", x0, x1, y0, y1);
        return;
    }
    size_t drawn = 0;
    for (size_t d = 0; d < r->ndrivers; d++)
        drawn += drawable(&gr->cells[d]);
    if (drawn) { /* axes only where there is something to read off them */
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"cap\">latency (%s)</text>\n", px,
                py + 30, ys->log ? "log scale" : "linear");
        y_axis(f, ys, x0, x1, y0, y1);
        x_axis(f, xmax, x0, x1, y0, y1);
    } else {
        empty(f, has_curves ? "no valid result with a curve" : "no percentile curves in this file",
              x0, x1, y0, y1);
    }
    char *left_out = pgcb_xstrdup("");
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        if (drawable(c)) {
            size_t k = driver_index(dr, r->drivers[d].label);
            curve(f, c, pgcb_agg_svg_color(k), ys, xmax, x0, x1, y0, y1);
        } else if (c->ncurve > 0) {
            char *s = pgcb_xasprintf("%s%s%s (%s)", left_out, *left_out ? ", " : "not drawn: ",
                                     r->drivers[d].label, pgcb_cell_status_str(c->status));
            free(left_out);
            left_out = s;
        }
    }
    if (*left_out) {
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"cap\">", px, y1 + 42);
        pgcb_agg_xml(f, left_out);
        fprintf(f, "</text>\n");
    }
    free(left_out);
}

char *pgcb_agg_svg_pct(const struct pgcb_agg *a)
{
    struct drivers dr;
    drivers_collect(a, &dr);
    const struct pgcb_res_group **groups;
    size_t ng = collect_groups(a, &groups);
    int *has = pgcb_xcalloc(a->nruns, sizeof *has);
    const char **suffix = pgcb_xcalloc(a->nruns, sizeof *suffix);
    for (size_t i = 0; i < a->nruns; i++) {
        has[i] = pgcb_agg_run_has_curves(a, i);
        suffix[i] = has[i] ? NULL : " (no percentile curves)";
    }
    /* x: up to the decade the most samples reach, at least 90%. */
    double xe = 1;
    for (size_t i = 0; i < a->nruns; i++)
        for (size_t g = 0; g < a->res[i]->ngroups; g++)
            for (size_t d = 0; d < a->res[i]->ndrivers; d++)
                if (drawable(&a->res[i]->groups[g].cells[d]))
                    xe = fmax(xe, x_end(&a->res[i]->groups[g].cells[d]));
    int xmax = (int)fmin(ceil(xe - 1e-9), 20);
    size_t cols = a->nruns > 1 ? a->nruns : ng < PER_ROW ? ng : PER_ROW;
    if (cols == 0) /* no group: pgcb_agg_load() refuses such runs */
        cols = 1;
    size_t rows = a->nruns > 1 ? ng : (ng + cols - 1) / cols;
    double width = fmax(MIN_WIDTH, LEFT + (double)cols * PANEL_W + (double)(cols - 1) * GAP_X + 20);
    double height = TOP + (double)rows * (PANEL_H + GAP_Y) + 10;

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        free(suffix);
        free(has);
        free(groups);
        drivers_free(&dr);
        return NULL;
    }
    pgcb_agg_svg_open(f, width, height, "pgclientbench: latency by percentile per group and driver");
    fprintf(f, "<style>text{fill:#222;font-size:12px}.title{font-size:18px;font-weight:bold}"
               ".sub{fill:#555}.ptitle{font-size:12px;font-weight:bold}"
               ".tick{fill:#555;font-size:10px}.cap{fill:#555;font-size:10px}"
               ".grid{stroke:#e3e3e3;stroke-width:1}.frame{fill:none;stroke:#888;stroke-width:1}"
               ".curve{fill:none;stroke-width:1.5;stroke-linejoin:round}</style>\n");
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    fprintf(f, "<text x=\"20\" y=\"32\" class=\"title\">Latency by percentile (HdrHistogram "
               "style)</text>\n");
    fprintf(f, "<text x=\"20\" y=\"54\" class=\"sub\">Batch latency at each percentile of the "
               "pooled samples, one line per driver, a dot at its max; %s</text>\n",
            a->nruns > 1 ? "a row per group, a column per run" : "a panel per group");
    pgcb_agg_svg_runs(f, a, 72, suffix);
    pgcb_agg_svg_legend(f, (const char *const *)dr.legend, dr.n, 84);

    for (size_t k = 0; k < ng; k++) {
        struct yscale ys = y_scale(a, groups[k]);
        char *name = pgcb_agg_group_name(groups[k]);
        for (size_t i = 0; i < a->nruns; i++) {
            size_t row = a->nruns > 1 ? k : k / cols, col = a->nruns > 1 ? i : k % cols;
            double px = LEFT + (double)col * (PANEL_W + GAP_X);
            double py = TOP + (double)row * (PANEL_H + GAP_Y);
            char *title = a->nruns > 1 ? pgcb_xasprintf("%s — run %zu", name, i + 1)
                                       : pgcb_xstrdup(name);
            panel(f, px, py, title, a->res[i], find_group(a->res[i], groups[k]), has[i], &dr,
                  &ys, xmax);
            free(title);
        }
        free(name);
    }
    fprintf(f, "</svg>\n");
    free(suffix);
    free(has);
    free(groups);
    drivers_free(&dr);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int pgcb_agg_svg_pct_write(const struct pgcb_agg *a, const char *path, FILE *warn, char *err,
                           size_t errlen)
{
    int rc = pgcb_agg_write_chart(path, pgcb_agg_svg_pct(a), err, errlen);
    for (size_t i = 0; rc == 0 && warn && i < a->nruns; i++)
        if (!pgcb_agg_run_has_curves(a, i))
            fprintf(warn, "aggregate: warning: %s: no percentile curves (a result file from "
                          "before they were recorded): its panels in %s are empty\n",
                    a->runs[i].path, path);
    return rc;
}
