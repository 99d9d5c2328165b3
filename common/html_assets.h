/*
 * html_assets.h -- the files the HTML report inlines, embedded into the
 * programs at build time (mk/report.mk generates $(B)/gen/html_assets.c from
 * them with xxd): an installed aggregate or runner needs no data directory.
 * Each is NUL-terminated; _len excludes the NUL.
 *
 *   pgcb_html_d3      d3 7.9.0, dist/d3.min.js (npm, scripts/report/package-lock.json)
 *   pgcb_html_plot    @observablehq/plot, dist/plot.umd.min.js (same lockfile)
 *   pgcb_html_js      scripts/report/report.js: renders the page from its data
 *   pgcb_html_css     scripts/report/report.css: screen, phone and print
 */
#ifndef PGCB_HTML_ASSETS_H
#define PGCB_HTML_ASSETS_H

#include <stddef.h>

extern const unsigned char pgcb_html_d3[], pgcb_html_plot[], pgcb_html_js[], pgcb_html_css[];
extern const size_t pgcb_html_d3_len, pgcb_html_plot_len, pgcb_html_js_len, pgcb_html_css_len;

#endif
