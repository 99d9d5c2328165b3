/*
 * result_profile.c -- the profiles' part of the result JSON (issue 28,
 * docs/profiling.md): the run's "profile" object ({mode, profiled, why,
 * event, frequency, call_graph, dir, index}) and, in each profiled cell,
 * "profile": {"client": SIDE, "backend": SIDE} or {"failed": why}, a SIDE
 * being {perf, folded, top, call_graph, samples, categories [{name, samples, share,
 * ns_per_query}], functions [...]} or {"none": why} or {"failed": why, ...}.
 * An unprofiled run's JSON has none of these keys, so files from before
 * read as they did (schema 2, additive). Reading is tolerant: what is
 * absent or mistyped reads as not profiled.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_util.h"
#include "result.h"
#include "util.h"

static json_t *entries_json(const struct pgcb_res_prof_entry *e, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:s, s:I, s:o, s:o}", "name", e[i].name, "samples",
                                           (json_int_t)e[i].samples, "share",
                                           pgcb_json_real(e[i].share), "ns_per_query",
                                           pgcb_json_real(e[i].ns_per_query)));
    return a;
}

static json_t *side_json(const struct pgcb_res_prof_side *sd)
{
    if (!sd->recorded)
        return json_pack("{s:o}", "none", pgcb_json_str(sd->none ? sd->none : "not recorded"));
    json_t *j = json_object();
    if (sd->failed)
        json_object_set_new(j, "failed", json_string(sd->failed));
    json_object_set_new(j, "perf", pgcb_json_str(sd->perf));
    json_object_set_new(j, "folded", pgcb_json_str(sd->folded));
    json_object_set_new(j, "top", pgcb_json_str(sd->top));
    json_object_set_new(j, "call_graph", pgcb_json_str(sd->call_graph));
    json_object_set_new(j, "samples", json_integer((json_int_t)sd->samples));
    json_object_set_new(j, "categories", entries_json(sd->categories, sd->ncategories));
    json_object_set_new(j, "functions", entries_json(sd->functions, sd->nfunctions));
    return j;
}

void pgcb_result_profile_group_json(json_t *one, const struct pgcb_res_group *gr)
{
    json_t *results = json_object_get(one, "results");
    for (size_t d = 0; d < json_array_size(results); d++) {
        const struct pgcb_res_profile *p = &gr->cells[d].profile;
        if (!p->profiled)
            continue;
        json_t *j = json_object();
        if (p->failed)
            json_object_set_new(j, "failed", json_string(p->failed));
        json_object_set_new(j, "client", side_json(&p->client));
        json_object_set_new(j, "backend", side_json(&p->backend));
        json_object_set_new(json_array_get(results, d), "profile", j);
    }
}

static struct pgcb_res_prof_entry *entries_read(json_t *a, size_t *n)
{
    *n = json_array_size(a);
    struct pgcb_res_prof_entry *e = pgcb_xcalloc(*n ? *n : 1, sizeof *e);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        json_t *o = json_array_get(a, i);
        const char *name = json_string_value(json_object_get(o, "name"));
        if (!name)
            continue;
        json_t *share = json_object_get(o, "share"), *ns = json_object_get(o, "ns_per_query");
        json_t *samples = json_object_get(o, "samples");
        e[k++] = (struct pgcb_res_prof_entry){
            .name = pgcb_xstrdup(name),
            .samples = json_is_integer(samples) ? (uint64_t)json_integer_value(samples) : 0,
            .share = json_is_number(share) ? json_number_value(share) : NAN,
            .ns_per_query = json_is_number(ns) ? json_number_value(ns) : NAN};
    }
    *n = k;
    return e;
}

static void side_read(json_t *o, struct pgcb_res_prof_side *sd)
{
    if (!json_is_object(o))
        return;
    sd->none = pgcb_json_dup_str(o, "none");
    if (sd->none || !json_object_get(o, "samples"))
        return;
    sd->recorded = 1;
    sd->failed = pgcb_json_dup_str(o, "failed");
    sd->perf = pgcb_json_dup_str(o, "perf");
    sd->folded = pgcb_json_dup_str(o, "folded");
    sd->top = pgcb_json_dup_str(o, "top");
    sd->call_graph = pgcb_json_dup_str(o, "call_graph");
    json_t *n = json_object_get(o, "samples");
    sd->samples = json_is_integer(n) ? (uint64_t)json_integer_value(n) : 0;
    sd->categories = entries_read(json_object_get(o, "categories"), &sd->ncategories);
    sd->functions = entries_read(json_object_get(o, "functions"), &sd->nfunctions);
}

void pgcb_result_profile_group_read(json_t *o, struct pgcb_res_group *gr, size_t ncells)
{
    json_t *results = json_object_get(o, "results");
    for (size_t d = 0; d < ncells && d < json_array_size(results); d++) {
        json_t *p = json_object_get(json_array_get(results, d), "profile");
        struct pgcb_res_profile *rp = &gr->cells[d].profile;
        if (!json_is_object(p))
            continue;
        rp->profiled = 1;
        rp->failed = pgcb_json_dup_str(p, "failed");
        side_read(json_object_get(p, "client"), &rp->client);
        side_read(json_object_get(p, "backend"), &rp->backend);
    }
}

static void entries_free(struct pgcb_res_prof_entry *e, size_t n)
{
    for (size_t i = 0; e && i < n; i++)
        free(e[i].name);
    free(e);
}

static void side_free(struct pgcb_res_prof_side *sd)
{
    free(sd->none);
    free(sd->failed);
    free(sd->perf);
    free(sd->folded);
    free(sd->top);
    free(sd->call_graph);
    entries_free(sd->categories, sd->ncategories);
    entries_free(sd->functions, sd->nfunctions);
    *sd = (struct pgcb_res_prof_side){0};
}

void pgcb_result_profile_cell_free(struct pgcb_res_profile *p)
{
    free(p->failed);
    side_free(&p->client);
    side_free(&p->backend);
    *p = (struct pgcb_res_profile){0};
}

json_t *pgcb_result_profile_run_json(const struct pgcb_res_run_profile *p)
{
    if (!p->mode)
        return NULL;
    json_t *j = json_pack("{s:s, s:b}", "mode", p->mode, "profiled", p->profiled);
    if (!p->profiled) {
        json_object_set_new(j, "why", pgcb_json_str(p->why));
        return j;
    }
    json_object_set_new(j, "event", pgcb_json_str(p->event));
    json_object_set_new(j, "frequency", json_integer((json_int_t)p->frequency));
    json_object_set_new(j, "call_graph", pgcb_json_str(p->call_graph));
    json_object_set_new(j, "dir", pgcb_json_str(p->dir));
    json_object_set_new(j, "index", pgcb_json_str(p->index));
    return j;
}

void pgcb_result_profile_run_read(json_t *root, struct pgcb_res_run_profile *p)
{
    json_t *o = json_object_get(root, "profile");
    const char *mode = json_string_value(json_object_get(o, "mode"));
    if (!mode)
        return;
    p->mode = pgcb_xstrdup(mode);
    p->profiled = json_is_true(json_object_get(o, "profiled"));
    p->why = pgcb_json_dup_str(o, "why");
    p->event = pgcb_json_dup_str(o, "event");
    json_t *f = json_object_get(o, "frequency");
    p->frequency = json_is_integer(f) ? (unsigned)json_integer_value(f) : 0;
    p->call_graph = pgcb_json_dup_str(o, "call_graph");
    p->dir = pgcb_json_dup_str(o, "dir");
    p->index = pgcb_json_dup_str(o, "index");
}

void pgcb_result_profile_run_free(struct pgcb_res_run_profile *p)
{
    free(p->mode);
    free(p->why);
    free(p->event);
    free(p->call_graph);
    free(p->dir);
    free(p->index);
    *p = (struct pgcb_res_run_profile){0};
}
