/*
 * result_transport.c -- the JSON of the transports (result.h): a cell's
 * "transport" (what its driver's connections used, as the server saw
 * them), a group's "transport" and "conninfo", and the derived top-level
 * "transport_summary" (tsummary.h). Reading is tolerant: absent, null or
 * mistyped reads as not recorded.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "tsummary.h"
#include "json_util.h"
#include "util.h"

json_t *pgcb_result_transport_json(const struct pgcb_res_transport *t)
{
    if (!t->recorded)
        return json_null();
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o}", "asked", pgcb_json_str(t->asked),
                     "seen", pgcb_json_str(t->seen), "tls_version", pgcb_json_str(t->tls_version),
                     "cipher", pgcb_json_str(t->cipher), "bits",
                     t->bits > 0 ? json_integer(t->bits) : json_null(), "client_addr",
                     pgcb_json_str(t->client_addr), "mismatch", t->mismatch, "why",
                     pgcb_json_str(t->why));
}

void pgcb_result_transport_read(json_t *cell, struct pgcb_res_transport *t)
{
    json_t *o = json_object_get(cell, "transport");
    *t = (struct pgcb_res_transport){0};
    if (!json_is_object(o) || !json_is_string(json_object_get(o, "seen")))
        return;
    t->recorded = 1;
    t->asked = pgcb_json_dup_str(o, "asked");
    t->seen = pgcb_json_dup_str(o, "seen");
    t->why = pgcb_json_dup_str(o, "why");
    t->tls_version = pgcb_json_dup_str(o, "tls_version");
    t->cipher = pgcb_json_dup_str(o, "cipher");
    t->client_addr = pgcb_json_dup_str(o, "client_addr");
    json_t *bits = json_object_get(o, "bits");
    t->bits = json_is_integer(bits) && json_integer_value(bits) > 0 &&
                      json_integer_value(bits) < 1 << 20
                  ? (int)json_integer_value(bits)
                  : 0;
    t->mismatch = json_is_true(json_object_get(o, "mismatch"));
}

void pgcb_result_transport_free(struct pgcb_res_transport *t)
{
    free(t->asked);
    free(t->seen);
    free(t->why);
    free(t->tls_version);
    free(t->cipher);
    free(t->client_addr);
    *t = (struct pgcb_res_transport){0};
}

/* One driver of one step: a result per transport. */
static json_t *summary_driver(const struct pgcb_result *r, const struct pgcb_tsum_set *set,
                              size_t d)
{
    json_t *res = json_array();
    for (size_t k = 0; k < set->n; k++) {
        struct pgcb_tsum_cell c;
        pgcb_tsum_cell(r, set, k, d, &c);
        json_array_append_new(
            res, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "transport",
                           r->groups[set->groups[k]].transport, "median_ns_per_query",
                           pgcb_json_real(c.query_ns), "median_ns_per_batch",
                           pgcb_json_real(c.batch_ns), "vs_baseline_ns_per_query",
                           pgcb_json_real(k == set->base ? NAN : c.d_query_ns),
                           "vs_baseline_ns_per_batch",
                           pgcb_json_real(k == set->base ? NAN : c.d_batch_ns), "vs_baseline_pct",
                           pgcb_json_real(k == set->base ? NAN : c.d_pct)));
    }
    return json_pack("{s:s, s:b, s:o}", "driver", r->drivers[d].label, "reference",
                     (r->drivers[d].caps & PGCB_CAP_REFERENCE) != 0, "results", res);
}

json_t *pgcb_result_transport_summary_json(const struct pgcb_result *r)
{
    struct pgcb_tsum_set *sets;
    size_t n = pgcb_tsum_sets(r, &sets);
    json_t *steps = json_array();
    for (size_t i = 0; i < n; i++) {
        const struct pgcb_res_group *g0 = &r->groups[sets[i].groups[0]];
        json_t *names = json_array(), *drivers = json_array();
        for (size_t k = 0; k < sets[i].n; k++)
            json_array_append_new(names, json_string(r->groups[sets[i].groups[k]].transport));
        for (size_t d = 0; d < r->ndrivers; d++)
            if (pgcb_tsum_driver(r, &sets[i], d))
                json_array_append_new(drivers, summary_driver(r, &sets[i], d));
        json_array_append_new(
            steps,
            json_pack("{s:s, s:s, s:I, s:I, s:b, s:o, s:o, s:s, s:b, s:o}", "suite", g0->suite,
                      "query", g0->query, "depth", (json_int_t)g0->depth, "threads",
                      (json_int_t)g0->threads, "transaction", g0->transaction, "ops",
                      g0->ops ? json_integer((json_int_t)g0->ops) : json_null(), "transports",
                      names, "baseline", r->groups[sets[i].groups[sets[i].base]].transport,
                      "interleaved", 0, "drivers", drivers));
    }
    pgcb_tsum_free(sets, n);
    return steps;
}
