/*
 * result_types.c -- the JSON of the types workload (result.h): a group's
 * "columns", "folded_as_text" and "versus", and the derived top-level
 * "conversion_cost" (versus.h). Reading is tolerant: absent, null or
 * mistyped reads as not recorded.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "json_util.h"
#include "util.h"
#include "versus.h"

void pgcb_result_types_group_json(json_t *one, const struct pgcb_res_group *gr)
{
    json_object_set_new(one, "columns",
                        gr->columns ? json_integer((json_int_t)gr->columns) : json_null());
    json_t *folded = json_array();
    for (size_t i = 0; i < gr->nfolded; i++) {
        const struct pgcb_res_folded *f = &gr->folded[i];
        json_array_append_new(folded, json_pack("{s:I, s:o, s:o, s:I}", "column",
                                                (json_int_t)f->column, "name",
                                                pgcb_json_str(f->name), "type",
                                                pgcb_json_str(f->type), "oid",
                                                (json_int_t)f->oid));
    }
    json_object_set_new(one, "folded_as_text", folded);
    json_object_set_new(one, "versus", pgcb_json_str(gr->versus));
}

/* A non-negative integer below 2^32 at key, or 0. */
static uint32_t get_u32(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    json_int_t i = json_is_integer(v) ? json_integer_value(v) : 0;
    return i > 0 && i <= (json_int_t)UINT32_MAX ? (uint32_t)i : 0;
}

void pgcb_result_types_group_read(json_t *o, struct pgcb_res_group *gr)
{
    gr->columns = get_u32(o, "columns");
    gr->versus = pgcb_json_dup_str(o, "versus");
    json_t *folded = json_object_get(o, "folded_as_text");
    size_t n = json_is_array(folded) ? json_array_size(folded) : 0;
    gr->folded = n ? pgcb_xcalloc(n, sizeof *gr->folded) : NULL;
    for (size_t i = 0; i < n; i++) {
        json_t *f = json_array_get(folded, i);
        if (!json_is_object(f) || get_u32(f, "column") == 0)
            continue; /* not one: skipped */
        struct pgcb_res_folded *out = &gr->folded[gr->nfolded++];
        out->column = get_u32(f, "column");
        out->name = pgcb_json_dup_str(f, "name");
        out->type = pgcb_json_dup_str(f, "type");
        out->oid = get_u32(f, "oid");
    }
}

void pgcb_result_types_group_free(struct pgcb_res_group *gr)
{
    for (size_t i = 0; i < gr->nfolded; i++) {
        free(gr->folded[i].name);
        free(gr->folded[i].type);
    }
    free(gr->folded);
    free(gr->versus);
    gr->folded = NULL;
    gr->nfolded = 0;
    gr->versus = NULL;
}

static json_t *cost_driver(const struct pgcb_result *r, const struct pgcb_versus_pair *p, size_t d)
{
    struct pgcb_versus_cell c;
    pgcb_versus_cell(r, p, d, &c);
    return json_pack("{s:s, s:o, s:o, s:o, s:o}", "driver", r->drivers[d].label,
                     "values_per_query", pgcb_json_real(c.values), "cpu_ns_per_query",
                     pgcb_json_real(c.cpu_ns), "versus_cpu_ns_per_query",
                     pgcb_json_real(c.twin_cpu_ns), "ns_per_value", pgcb_json_real(c.ns_per_value));
}

json_t *pgcb_result_conversion_cost_json(const struct pgcb_result *r)
{
    struct pgcb_versus_pair *pairs;
    size_t n = pgcb_versus_pairs(r, &pairs);
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++) {
        const struct pgcb_res_group *gr = &r->groups[pairs[i].group];
        json_t *drivers = json_array();
        for (size_t d = 0; d < r->ndrivers; d++)
            if (!(r->drivers[d].caps & PGCB_CAP_NO_IO))
                json_array_append_new(drivers, cost_driver(r, &pairs[i], d));
        json_array_append_new(
            out, json_pack("{s:s, s:s, s:s, s:I, s:I, s:b, s:o, s:o, s:b, s:o}", "suite",
                           gr->suite, "query", gr->query, "versus", gr->versus, "depth",
                           (json_int_t)gr->depth, "threads", (json_int_t)gr->threads,
                           "transaction", gr->transaction, "ops",
                           gr->ops ? json_integer((json_int_t)gr->ops) : json_null(),
                           "transport", pgcb_json_str(gr->transport), "interleaved", 0,
                           "drivers", drivers));
    }
    free(pairs);
    return out;
}
