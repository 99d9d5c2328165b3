/*
 * result_selection.c -- the result file's record of what the runner's
 * command line and [bench] driver_dir made of the config (result.h): which
 * drivers were added, what --only, --suite and --query asked for, what the
 * config had that the run left out, and where the budget came from. The
 * rest of the file describes the run that happened (its drivers, groups);
 * this says how it differs from the config file alone.
 */
#include "result.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "util.h"

static json_t *names_json(const struct pgcb_res_names *l)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < l->n; i++)
        json_array_append_new(a, json_string(l->v[i]));
    return a;
}

json_t *pgcb_result_selection_json(const struct pgcb_res_selection *s)
{
    json_t *added = json_array();
    for (size_t i = 0; added && i < s->nadded; i++)
        json_array_append_new(added, json_pack("{s:s?, s:s?, s:s?}", "name", s->added[i].name,
                                               "path", s->added[i].path, "from",
                                               s->added[i].from));
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o}}",
                     "driver_dir", pgcb_json_str(s->driver_dir), "added_drivers", added,
                     "only", s->only_given ? names_json(&s->only) : json_null(),
                     "suites", s->suites_given ? names_json(&s->suites) : json_null(),
                     "queries", s->queries_given ? names_json(&s->queries) : json_null(),
                     "left_out", "drivers", names_json(&s->left_out_drivers), "suites",
                     names_json(&s->left_out_suites), "queries",
                     names_json(&s->left_out_queries));
}

void pgcb_result_selection_budget(const struct pgcb_res_selection *s, json_t *budget)
{
    if (!s->recorded || !budget)
        return;
    json_object_set_new(budget, "time_ms_source", pgcb_json_str(s->time_source));
    json_object_set_new(budget, "queries_source", pgcb_json_str(s->queries_source));
}

/* The strings of array a (others skipped); 1 if a is an array. */
static int read_names(json_t *a, struct pgcb_res_names *l)
{
    if (!json_is_array(a))
        return 0;
    l->v = pgcb_xcalloc(json_array_size(a) + 1, sizeof *l->v);
    for (size_t i = 0; i < json_array_size(a); i++) {
        const char *v = json_string_value(json_array_get(a, i));
        if (v)
            l->v[l->n++] = pgcb_xstrdup(v);
    }
    return 1;
}

void pgcb_result_selection_read(json_t *root, struct pgcb_res_selection *s)
{
    *s = (struct pgcb_res_selection){0};
    json_t *o = json_object_get(root, "selection");
    if (!json_is_object(o))
        return;
    s->recorded = 1;
    s->driver_dir = pgcb_json_dup_str(o, "driver_dir");
    json_t *added = json_object_get(o, "added_drivers");
    s->added = pgcb_xcalloc(json_array_size(added) + 1, sizeof *s->added);
    for (size_t i = 0; i < json_array_size(added); i++) {
        json_t *one = json_array_get(added, i);
        struct pgcb_res_added_driver *a = &s->added[s->nadded];
        a->name = pgcb_json_dup_str(one, "name");
        a->path = pgcb_json_dup_str(one, "path");
        a->from = pgcb_json_dup_str(one, "from");
        if (!a->name) {
            free(a->path);
            free(a->from);
            continue;
        }
        s->nadded++;
    }
    s->only_given = read_names(json_object_get(o, "only"), &s->only);
    s->suites_given = read_names(json_object_get(o, "suites"), &s->suites);
    s->queries_given = read_names(json_object_get(o, "queries"), &s->queries);
    json_t *left = json_object_get(o, "left_out");
    read_names(json_object_get(left, "drivers"), &s->left_out_drivers);
    read_names(json_object_get(left, "suites"), &s->left_out_suites);
    read_names(json_object_get(left, "queries"), &s->left_out_queries);
    json_t *budget = json_object_get(root, "budget");
    s->time_source = pgcb_json_dup_str(budget, "time_ms_source");
    s->queries_source = pgcb_json_dup_str(budget, "queries_source");
}

static void names_free(struct pgcb_res_names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

void pgcb_result_selection_free(struct pgcb_res_selection *s)
{
    for (size_t i = 0; i < s->nadded; i++) {
        free(s->added[i].name);
        free(s->added[i].path);
        free(s->added[i].from);
    }
    free(s->added);
    free(s->driver_dir);
    names_free(&s->only);
    names_free(&s->suites);
    names_free(&s->queries);
    names_free(&s->left_out_drivers);
    names_free(&s->left_out_suites);
    names_free(&s->left_out_queries);
    free(s->time_source);
    free(s->queries_source);
    *s = (struct pgcb_res_selection){0};
}
