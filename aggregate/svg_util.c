/* svg_util.c -- what the charts share (svg.c, svg_pct.c): XML escaping, the
 * palette, axis steps, the document's opening, the runs line and legend,
 * writing a file; see agg.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "util.h"

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define NCOLORS (sizeof palette / sizeof palette[0])

const char *pgcb_agg_svg_color(size_t k)
{
    return palette[k % NCOLORS];
}

void pgcb_agg_xml(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

double pgcb_agg_nice_step(double max, double steps)
{
    double raw = max / steps, p = pow(10, floor(log10(raw)));
    if (raw <= p)
        return p;
    if (raw <= 2 * p)
        return 2 * p;
    if (raw <= 5 * p)
        return 5 * p;
    return 10 * p;
}

void pgcb_agg_svg_open(FILE *f, double width, double height, const char *title)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, "
               "sans-serif\">\n", width, height, width, height);
    fprintf(f, "<title>");
    pgcb_agg_xml(f, title);
    fprintf(f, "</title>\n");
}

void pgcb_agg_svg_runs(FILE *f, const struct pgcb_agg *a, double y, const char *const *suffix)
{
    fprintf(f, "<text x=\"20\" y=\"%.0f\" class=\"sub\">", y);
    for (size_t i = 0; i < a->nruns && i < 4; i++) {
        fprintf(f, "%sRun %zu: ", i ? "; " : "", i + 1);
        pgcb_agg_xml(f, a->runs[i].label);
        if (suffix && suffix[i])
            pgcb_agg_xml(f, suffix[i]);
    }
    if (a->nruns > 4)
        fprintf(f, "; and %zu more", a->nruns - 4);
    fprintf(f, "</text>\n");
}

void pgcb_agg_svg_legend(FILE *f, const char *const *names, size_t n, double y)
{
    double lx = 20;
    for (size_t k = 0; k < n; k++) {
        fprintf(f, "<rect x=\"%.1f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", lx,
                y, pgcb_agg_svg_color(k));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", lx + 17, y + 10.5);
        pgcb_agg_xml(f, names[k]);
        fprintf(f, "</text>\n");
        lx += 17 + 7.0 * (double)strlen(names[k]) + 22;
    }
}

int pgcb_agg_write_chart(const char *path, char *svg, char *err, size_t errlen)
{
    if (!svg) {
        snprintf(err, errlen, "%s: out of memory for the chart", path);
        return -1;
    }
    int rc = pgcb_write_text(path, svg, err, errlen);
    free(svg);
    return rc;
}
