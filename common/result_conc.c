/*
 * result_conc.c -- a concurrency group's part of the result JSON (issue
 * 27): the group's "concurrency" object and, in each of its cells, the
 * throughput figure, the client's busy share, the bottleneck and how late a
 * rate load ran. Other groups' JSON has none of it, so files from before
 * read as they did.
 */
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "json_util.h"
#include "result.h"

static const char *const bottleneck_names[] = {"unknown", "client", "server", "neither"};

const char *pgcb_bottleneck_name(int b)
{
    return b >= 0 && b <= PGCB_BOTTLENECK_NEITHER ? bottleneck_names[b] : "unknown";
}

int pgcb_bottleneck_parse(const char *s)
{
    for (int b = 1; s && b <= PGCB_BOTTLENECK_NEITHER; b++)
        if (strcmp(s, bottleneck_names[b]) == 0)
            return b;
    return PGCB_BOTTLENECK_UNKNOWN;
}

void pgcb_result_conc_group_json(json_t *one, const struct pgcb_res_group *gr)
{
    if (!gr->concurrency)
        return;
    json_object_set_new(one, "concurrency",
                        json_pack("{s:I, s:I, s:s, s:o}", "in_flight",
                                  (json_int_t)gr->concurrency, "pool", (json_int_t)gr->pool,
                                  "mode", gr->load_mode == PGCB_LOAD_RATE ? "rate" : "closed",
                                  "rate", gr->load_mode == PGCB_LOAD_RATE
                                              ? json_real(gr->rate) : json_null()));
    json_t *results = json_object_get(one, "results");
    for (size_t d = 0; d < json_array_size(results); d++) {
        json_t *j = json_array_get(results, d);
        const struct pgcb_res_cell *c = &gr->cells[d];
        json_object_set_new(j, "time_per_query_ns", pgcb_json_real(c->time_per_query_ns));
        json_object_set_new(j, "client_busy", pgcb_json_real(c->client_busy));
        json_object_set_new(j, "bottleneck", json_string(pgcb_bottleneck_name(c->bottleneck)));
        json_object_set_new(j, "late_ns", json_integer((json_int_t)c->late_ns));
    }
}

void pgcb_result_conc_group_read(json_t *o, struct pgcb_res_group *gr, size_t ncells)
{
    json_t *k = json_object_get(o, "concurrency");
    for (size_t d = 0; d < ncells; d++)
        gr->cells[d].time_per_query_ns = gr->cells[d].client_busy = NAN;
    if (!json_is_object(k))
        return;
    json_t *n = json_object_get(k, "in_flight"), *p = json_object_get(k, "pool");
    const char *mode = json_string_value(json_object_get(k, "mode"));
    gr->concurrency = json_is_integer(n) ? (uint32_t)json_integer_value(n) : 0;
    gr->pool = json_is_integer(p) ? (uint32_t)json_integer_value(p) : gr->concurrency;
    gr->load_mode = mode && strcmp(mode, "rate") == 0 ? PGCB_LOAD_RATE : PGCB_LOAD_CLOSED;
    gr->rate = pgcb_json_num(json_object_get(k, "rate"));
    json_t *results = json_object_get(o, "results");
    for (size_t d = 0; d < ncells && d < json_array_size(results); d++) {
        json_t *j = json_array_get(results, d);
        struct pgcb_res_cell *c = &gr->cells[d];
        c->time_per_query_ns = pgcb_json_num(json_object_get(j, "time_per_query_ns"));
        c->client_busy = pgcb_json_num(json_object_get(j, "client_busy"));
        c->bottleneck = pgcb_bottleneck_parse(json_string_value(json_object_get(j,
                                                                                "bottleneck")));
        json_t *late = json_object_get(j, "late_ns");
        c->late_ns = json_is_integer(late) ? (uint64_t)json_integer_value(late) : 0;
    }
}
