/*
 * html.h -- the HTML report (issue 30, docs/report.md): one self-contained
 * page of one or several runs, written by `aggregate --html` and `runner
 * --html`. Module prefix pgcb_html_.
 *
 *   html.c        the page: the inlined scripts and style (html_assets.h,
 *                 embedded at build time), the data block, the escaping
 *   html_model.c  the data the page renders: each run's result JSON as the
 *                 result file holds it, with the text report's own words
 *                 (group titles, verdict lines, marks, header) beside it
 *
 * The page renders every figure in the browser (scripts/report/report.js,
 * Observable Plot on d3) from one `<script type="application/json">` block;
 * it fetches nothing (its Content-Security-Policy forbids it) and sets
 * every string as text, never as markup.
 */
#ifndef PGCB_HTML_H
#define PGCB_HTML_H

#include <jansson.h>
#include <stddef.h>

#include "result.h"

/* One run as the page shows it; the caller owns every pointer. */
struct pgcb_html_run {
    const struct pgcb_result *res;
    const char *label; /* its name on the page (--label), or NULL: pgcb_result_label() */
    const char *file;  /* the result file it came from, or NULL */
};

/*
 * The page's data of one run (the caller owns the object): {"label", "file",
 * "header" (the console header's text), "groups" [{"title" (the table's
 * title line), "verdict" (the verdict line), "marks" [per driver: the text
 * tables' mark after its name, e.g. " (FAILED)", " *"], "x_floor" [per
 * driver: its median over its wire floor's, or null], "text" (the group's
 * console table)}], "result" (pgcb_result_json())}. NULL if the result
 * cannot be packed.
 */
json_t *pgcb_html_run_json(const struct pgcb_html_run *run);

/*
 * JSON text made safe inside <script type="application/json">: '<', '>' and
 * '&' become \u003c, \u003e, \u0026, and U+2028 / U+2029 become \u2028 /
 * \u2029, so no string in it (a driver name "</script>", an error message
 * "<!--") can end the element or start a comment; JSON.parse() reads it back
 * unchanged. Those characters occur only inside JSON strings, where these
 * escapes mean the same characters. A new string the caller frees.
 */
char *pgcb_html_script_json(const char *json);

/*
 * The whole page (a new string the caller frees): its title, the scripts
 * and style inlined, `data` (the caller's; {"generator", "runs" [...],
 * "combined"}) in the data block.
 */
char *pgcb_html_page(const json_t *data);

/*
 * Write the page of runs[0..nruns-1] to path atomically. `generator` names
 * the writer ("aggregate", "runner"); `combined` (may be NULL; borrowed) is
 * what the runs make together (aggregate's --format json object). Returns
 * 0, or -1 with one line "PATH: why" in err.
 */
int pgcb_html_write(const char *path, const char *generator, const struct pgcb_html_run *runs,
                    size_t nruns, const json_t *combined, char *err, size_t errlen);

#endif
