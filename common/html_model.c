/*
 * html_model.c -- the HTML report's data of one run (html.h): the result
 * JSON, and beside it the console report's own words, so the page says
 * every title, verdict and mark exactly as the text does (report.h makes
 * them; nothing here words them again).
 */
#include "html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

/* What fn prints for (r, g) as a new string; "" if it cannot be captured. */
static char *captured(void (*fn)(FILE *, const struct pgcb_result *, size_t),
                      const struct pgcb_result *r, size_t g)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return pgcb_xstrdup("");
    fn(f, r, g);
    if (fclose(f) != 0) {
        free(text);
        return pgcb_xstrdup("");
    }
    return text;
}

static void header_of(FILE *f, const struct pgcb_result *r, size_t g)
{
    (void)g;
    pgcb_report_header(f, r, r->conninfo && r->conninfo[0] ? r->conninfo : "the recorded server");
}

static json_t *group_json(const struct pgcb_result *r, size_t g)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    char *text = captured(pgcb_report_group, r, g);
    char *nl = strchr(text, '\n');
    json_t *title = nl ? json_stringn(text, (size_t)(nl - text)) : json_string(text);
    char verdict[1024];
    pgcb_report_verdict_line(verdict, sizeof verdict, r, g);
    json_t *marks = json_array(), *floors = json_array();
    for (size_t d = 0; d < r->ndrivers; d++) {
        char mark[64];
        snprintf(mark, sizeof mark, "%s%s", pgcb_report_mark(r, g, d),
                 pgcb_report_variant_mark(r, d));
        json_array_append_new(marks, json_string(mark));
        double fl = pgcb_report_floor_median(r, gr, d), med = gr->cells[d].median_ns;
        json_array_append_new(floors, gr->cells[d].status == PGCB_CELL_OK && isfinite(fl) &&
                                              fl > 0 && isfinite(med)
                                          ? json_real(med / fl)
                                          : json_null());
    }
    json_t *o = json_pack("{s:o, s:s, s:o, s:o, s:s}", "title", title ? title : json_null(),
                          "verdict", verdict, "marks", marks, "x_floor", floors, "text", text);
    free(text);
    return o;
}

json_t *pgcb_html_run_json(const struct pgcb_html_run *run)
{
    const struct pgcb_result *r = run->res;
    json_t *result = pgcb_result_json(r);
    if (!result)
        return NULL;
    json_t *groups = json_array();
    for (size_t g = 0; g < r->ngroups; g++) {
        json_t *one = group_json(r, g);
        if (!one) {
            json_decref(groups);
            json_decref(result);
            return NULL;
        }
        json_array_append_new(groups, one);
    }
    char *header = captured(header_of, r, 0);
    char *label = run->label ? pgcb_xstrdup(run->label) : pgcb_result_label(r);
    json_t *o = json_pack("{s:s, s:s?, s:s, s:o, s:o}", "label", label, "file", run->file,
                          "header", header, "groups", groups, "result", result);
    free(label);
    free(header);
    return o;
}
