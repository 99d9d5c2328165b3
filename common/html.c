/*
 * html.c -- the HTML report's page (html.h): the template, the inlined
 * assets (html_assets.h) and the escaped data block.
 */
#include "html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_assets.h"
#include "util.h"

char *pgcb_html_script_json(const char *json)
{
    size_t n = strlen(json);
    char *out = pgcb_xmalloc(n * 6 + 1), *o = out; /* at most 6 bytes per input byte */
    for (const unsigned char *p = (const unsigned char *)json; *p; p++) {
        if (*p == '<' || *p == '>' || *p == '&') {
            o += sprintf(o, "\\u%04x", *p);
        } else if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
            o += sprintf(o, "\\u%04x", p[2] == 0xA8 ? 0x2028 : 0x2029);
            p += 2;
        } else {
            *o++ = (char)*p;
        }
    }
    *o = '\0';
    return out;
}

/* Fetching nothing is the page's contract: a policy that allows only its
 * own inline scripts and styles, and images from data: URLs (none today),
 * makes any request the page tried fail in the browser (and the browser
 * test with it). */
static const char page_head[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\">\n"
    "<head>\n"
    "<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
    "<meta name=\"generator\" content=\"pgclientbench\">\n"
    "<title>pgclientbench report</title>\n"
    "<style>\n";

char *pgcb_html_page(const json_t *data)
{
    char *json = json_dumps(data, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    if (!json)
        return NULL;
    char *safe = pgcb_html_script_json(json);
    free(json);
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    if (!f) {
        free(safe);
        return NULL;
    }
    fputs(page_head, f);
    fputs((const char *)pgcb_html_css, f);
    fputs("</style>\n</head>\n<body>\n"
          "<noscript>This report is drawn by its inlined scripts: enable JavaScript to see "
          "it.</noscript>\n"
          "<main id=\"report\"></main>\n"
          "<script type=\"application/json\" id=\"pgcb-data\">",
          f);
    fputs(safe, f);
    fputs("</script>\n<script>\n", f);
    fputs((const char *)pgcb_html_d3, f);
    fputs("\n</script>\n<script>\n", f);
    fputs((const char *)pgcb_html_plot, f);
    fputs("\n</script>\n<script>\n", f);
    fputs((const char *)pgcb_html_js, f);
    fputs("\n</script>\n</body>\n</html>\n", f);
    free(safe);
    if (fclose(f) != 0) {
        free(page);
        return NULL;
    }
    return page;
}

int pgcb_html_write(const char *path, const char *generator, const struct pgcb_html_run *runs,
                    size_t nruns, const json_t *combined, char *err, size_t errlen)
{
    json_t *list = json_array();
    for (size_t i = 0; i < nruns; i++) {
        json_t *one = pgcb_html_run_json(&runs[i]);
        if (!one) {
            snprintf(err, errlen, "%s: cannot build the page's data of %s (a field is invalid)",
                     path, runs[i].file ? runs[i].file : runs[i].label);
            json_decref(list);
            return -1;
        }
        json_array_append_new(list, one);
    }
    json_t *data = json_pack("{s:s, s:o, s:O}", "generator", generator, "runs", list, "combined",
                             combined ? (json_t *)combined : json_null());
    char *page = data ? pgcb_html_page(data) : NULL;
    json_decref(data);
    if (!page) {
        snprintf(err, errlen, "%s: out of memory for the page", path);
        return -1;
    }
    int rc = pgcb_write_text(path, page, err, errlen);
    free(page);
    return rc;
}
