/*
 * report_profile.c -- the console's part of a profiled run (report.h): the
 * header's line and the short top table under each group. Reads only the
 * result (its cells' profile, result.h): aggregate could print it too.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

#define WIDTH 100

void pgcb_report_profile_header(FILE *out, const struct pgcb_result *r)
{
    const struct pgcb_res_run_profile *p = &r->profile;
    if (!p->mode)
        return;
    if (p->profiled)
        fprintf(out, "Profile  : profiled (perf %s, %u Hz, call graphs %s): not comparable with "
                     "unprofiled runs; %s\n", p->event ? p->event : "?", p->frequency,
                p->call_graph ? p->call_graph : "?", p->dir ? p->dir : "");
    else
        fprintf(out, "Profile  : not profiled (profile = %s): %s\n", p->mode,
                p->why ? p->why : "unknown");
}

/* "1,234" */
static void fmt_ns(double v, char *buf, size_t n)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "-");
        return;
    }
    char raw[32];
    snprintf(raw, sizeof raw, "%.0f", v);
    size_t len = strlen(raw), k = 0;
    for (size_t i = 0; i < len && k + 2 < n; i++) {
        if (i && (len - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = raw[i];
    }
    buf[k] = '\0';
}

/* A function's name for the console: a JIT frame's path ("JS:*parse
 * /x/node_modules/pg-protocol/dist/parser.js:26:10") from its package on
 * ("pg-protocol/dist/parser.js:26:10"), or its base name; the rest as is. */
static void short_name(const char *name, char *buf, size_t n)
{
    const char *path = strstr(name, " /");
    if (!path) {
        snprintf(buf, n, "%s", name);
        return;
    }
    const char *from = path + 1, *nm = NULL;
    for (const char *q = from; (q = strstr(q, "/node_modules/")) != NULL; q++)
        nm = q + strlen("/node_modules/");
    if (nm)
        from = nm;
    else {
        const char *end = strchr(from, ' '), *slash = from;
        for (const char *q = from; *q && (!end || q < end); q++)
            if (*q == '/')
                slash = q + 1;
        from = slash;
    }
    snprintf(buf, n, "%.*s %s", (int)(path - name), name, from);
}

static void side_lines(FILE *out, const char *driver, const char *name,
                       const struct pgcb_res_prof_side *sd, double cpu_ns)
{
    char cpu[32];
    fmt_ns(cpu_ns, cpu, sizeof cpu);
    if (!sd->recorded) {
        if (sd->none && strcmp(name, "backend") == 0)
            fprintf(out, "  %s %s: none (%.*s)\n", driver, name, WIDTH - 20, sd->none);
        return;
    }
    if (!sd->samples) {
        fprintf(out, "  %s %s: no samples%s%.*s\n", driver, name, sd->failed ? ": " : "",
                WIDTH - 30, sd->failed ? sd->failed : "");
        return;
    }
    char line[512];
    int len = snprintf(line, sizeof line, "  %s %s (%llu samples, %s ns CPU/query):", driver,
                       name, (unsigned long long)sd->samples, cpu);
    /* The categories that round to 1% or more (the JSON has every one). */
    size_t shown = 0;
    for (size_t i = 0; i < sd->ncategories; i++)
        shown += lround(100 * sd->categories[i].share) >= 1;
    for (size_t i = 0, k0 = 0; i < sd->ncategories; i++) {
        long pct = lround(100 * sd->categories[i].share);
        if (pct < 1)
            continue;
        char item[96];
        int k = snprintf(item, sizeof item, " %s %ld%%%s", sd->categories[i].name, pct,
                         ++k0 < shown ? "," : "");
        if (len + k > WIDTH) {
            fprintf(out, "%s\n", line);
            len = snprintf(line, sizeof line, "   ");
        }
        len += snprintf(line + len, sizeof line - (size_t)len, "%s", item);
    }
    fprintf(out, "%s\n", line);
    for (size_t i = 0; i < sd->nfunctions && i < 5; i++) {
        char ns[32], fn[512];
        fmt_ns(sd->functions[i].ns_per_query, ns, sizeof ns);
        short_name(sd->functions[i].name, fn, sizeof fn);
        /* "    29.1%   2,860 ns  NAME": the name cut to the width. */
        fprintf(out, "    %5.1f%% %9s ns  %.*s\n", 100 * sd->functions[i].share, ns,
                WIDTH - 28, fn);
    }
    if (sd->failed)
        fprintf(out, "    (partial: %.*s)\n", WIDTH - 16, sd->failed);
}

void pgcb_report_profile(FILE *out, const struct pgcb_result *r, size_t g)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    int any = 0;
    for (size_t d = 0; d < r->ndrivers; d++)
        any |= gr->cells[d].profile.profiled;
    if (!any)
        return;
    fprintf(out, "Profile (self time: share of each side's samples, ns per query = share x its "
                 "CPU per query):\n");
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        if (!c->profile.profiled)
            continue;
        const char *name = r->drivers[d].label;
        if (c->profile.failed && !c->profile.client.samples) {
            fprintf(out, "  %s: profile failed: %.*s\n", name, WIDTH - 24, c->profile.failed);
            continue;
        }
        side_lines(out, name, "client", &c->profile.client, c->cpu_ns_per_query);
        side_lines(out, name, "backend", &c->profile.backend, c->backend.cpu_ns_per_query);
    }
}
