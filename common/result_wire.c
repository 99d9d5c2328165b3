/*
 * result_wire.c -- the wire in the result JSON (issue 41): a group at an
 * RTT has "rtt_ms" and "proxy" (the proxy's own accuracy), each counted
 * cell a "wire" object (round trips, bytes and messages per query, by
 * type; the proxy's CPU per query; at an RTT above 0 the expectation and
 * its note). Groups and cells without them have no such keys, so files
 * from before read as they did. And the expectations themselves.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "json_util.h"
#include "result.h"

static json_t *types_json(const struct pgcb_res_wire_type *t, size_t n)
{
    json_t *o = json_object();
    for (size_t k = 0; k < n; k++)
        json_object_set_new(o, t[k].name, json_real(t[k].per_query));
    return o;
}

static json_t *cell_json(const struct pgcb_res_wire *w)
{
    json_t *o = json_object();
    json_object_set_new(o, "round_trips", pgcb_json_real(w->round_trips));
    json_object_set_new(o, "bytes_out", pgcb_json_real(w->bytes_out));
    json_object_set_new(o, "bytes_in", pgcb_json_real(w->bytes_in));
    json_object_set_new(o, "messages_out", pgcb_json_real(w->msgs_out));
    json_object_set_new(o, "messages_in", pgcb_json_real(w->msgs_in));
    json_object_set_new(o, "chunks_out", pgcb_json_real(w->chunks_out));
    json_object_set_new(o, "chunks_in", pgcb_json_real(w->chunks_in));
    json_object_set_new(o, "by_type_out", types_json(w->out, w->nout));
    json_object_set_new(o, "by_type_in", types_json(w->in, w->nin));
    json_object_set_new(o, "proxy_cpu_ns", pgcb_json_real(w->proxy_cpu_ns));
    json_object_set_new(o, "opaque_share", pgcb_json_real(w->opaque_share));
    json_object_set_new(o, "expected_ns", pgcb_json_real(w->expected_ns));
    json_object_set_new(o, "note", w->note[0] ? json_string(w->note) : json_null());
    return o;
}

void pgcb_result_wire_group_json(json_t *one, const struct pgcb_res_group *gr)
{
    if (gr->has_rtt)
        json_object_set_new(one, "rtt_ms", json_real(gr->rtt_ms));
    const struct pgcb_res_proxy *p = &gr->proxy;
    if (p->known)
        json_object_set_new(
            one, "proxy",
            json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:o}", "chunks",
                      (json_int_t)p->chunks, "late_mean_ns", pgcb_json_real(p->late_mean_ns),
                      "late_max_ns", pgcb_json_real(p->late_max_ns), "probe_direct_ns",
                      pgcb_json_real(p->direct_ns), "probe_proxied_ns",
                      pgcb_json_real(p->proxied_ns), "added_ns", pgcb_json_real(p->added_ns),
                      "refused", (json_int_t)p->refused, "errors", (json_int_t)p->errors,
                      "last_error", p->last_error[0] ? json_string(p->last_error)
                                                     : json_null()));
    json_t *results = json_object_get(one, "results");
    for (size_t d = 0; d < json_array_size(results); d++) {
        if (gr->cells[d].wire.known)
            json_object_set_new(json_array_get(results, d), "wire", cell_json(&gr->cells[d].wire));
        if (gr->cells[d].stalls)
            json_object_set_new(json_array_get(results, d), "stalls_40ms",
                                json_integer((json_int_t)gr->cells[d].stalls));
    }
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static size_t types_read(json_t *o, struct pgcb_res_wire_type *t)
{
    size_t n = 0;
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        if (n == PGCB_WIRE_MAXTYPES || !json_is_number(v))
            continue;
        snprintf(t[n].name, sizeof t[n].name, "%s", key);
        t[n++].per_query = json_number_value(v);
    }
    return n;
}

void pgcb_result_wire_group_read(json_t *o, struct pgcb_res_group *gr, size_t ncells)
{
    json_t *rtt = json_object_get(o, "rtt_ms");
    gr->has_rtt = json_is_number(rtt);
    gr->rtt_ms = gr->has_rtt ? json_number_value(rtt) : 0;
    json_t *p = json_object_get(o, "proxy");
    if (json_is_object(p)) {
        struct pgcb_res_proxy *x = &gr->proxy;
        x->known = 1;
        x->chunks = (uint64_t)json_integer_value(json_object_get(p, "chunks"));
        x->late_mean_ns = num(p, "late_mean_ns");
        x->late_max_ns = num(p, "late_max_ns");
        x->direct_ns = num(p, "probe_direct_ns");
        x->proxied_ns = num(p, "probe_proxied_ns");
        x->added_ns = num(p, "added_ns");
        x->refused = (uint64_t)json_integer_value(json_object_get(p, "refused"));
        x->errors = (uint64_t)json_integer_value(json_object_get(p, "errors"));
        const char *e = json_string_value(json_object_get(p, "last_error"));
        snprintf(x->last_error, sizeof x->last_error, "%s", e ? e : "");
    }
    json_t *results = json_object_get(o, "results");
    for (size_t d = 0; d < ncells && d < json_array_size(results); d++) {
        json_t *st = json_object_get(json_array_get(results, d), "stalls_40ms");
        gr->cells[d].stalls = json_is_integer(st) ? (uint64_t)json_integer_value(st) : 0;
        json_t *w = json_object_get(json_array_get(results, d), "wire");
        struct pgcb_res_wire *c = &gr->cells[d].wire;
        if (!json_is_object(w))
            continue;
        c->known = 1;
        c->round_trips = num(w, "round_trips");
        c->bytes_out = num(w, "bytes_out");
        c->bytes_in = num(w, "bytes_in");
        c->msgs_out = num(w, "messages_out");
        c->msgs_in = num(w, "messages_in");
        c->chunks_out = num(w, "chunks_out");
        c->chunks_in = num(w, "chunks_in");
        c->nout = types_read(json_object_get(w, "by_type_out"), c->out);
        c->nin = types_read(json_object_get(w, "by_type_in"), c->in);
        c->proxy_cpu_ns = num(w, "proxy_cpu_ns");
        c->opaque_share = num(w, "opaque_share");
        c->expected_ns = num(w, "expected_ns");
        const char *note = json_string_value(json_object_get(w, "note"));
        snprintf(c->note, sizeof c->note, "%s", note ? note : "");
    }
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The rtt-0 group of gr's suite, query, depth and transport, or NULL. */
static const struct pgcb_res_group *baseline(const struct pgcb_result *r,
                                             const struct pgcb_res_group *gr)
{
    for (size_t h = 0; h < r->ngroups; h++) {
        const struct pgcb_res_group *o = &r->groups[h];
        if (o->has_rtt && o->rtt_ms == 0 && o->depth == gr->depth &&
            strcmp(o->suite, gr->suite) == 0 && strcmp(o->query, gr->query) == 0 &&
            same_str(o->transport, gr->transport))
            return o;
    }
    return NULL;
}

void pgcb_result_wire_expect(struct pgcb_result *r)
{
    for (size_t g = 0; g < r->ngroups; g++) {
        struct pgcb_res_group *gr = &r->groups[g];
        if (!gr->has_rtt)
            continue;
        const struct pgcb_res_group *base = gr->rtt_ms > 0 ? baseline(r, gr) : NULL;
        for (size_t d = 0; d < r->ndrivers; d++) {
            struct pgcb_res_wire *w = &gr->cells[d].wire;
            w->expected_ns = NAN;
            w->note[0] = '\0';
            if (!w->known || !base || gr->concurrency)
                continue;
            const struct pgcb_res_cell *b = &base->cells[d], *c = &gr->cells[d];
            if (b->status != PGCB_CELL_OK || c->status != PGCB_CELL_OK || !(b->median_ns > 0) ||
                !isfinite(w->round_trips))
                continue;
            /* a sample is one batch of depth queries (one connection in a
             * connection group) */
            w->expected_ns = b->median_ns + gr->rtt_ms * 1e6 * w->round_trips * gr->depth;
            double dev = 100.0 * (c->median_ns - w->expected_ns) / w->expected_ns;
            if (fabs(dev) > PGCB_WIRE_DEPART_PCT)
                snprintf(w->note, sizeof w->note,
                         "measured %.0f us, expected %.0f us (%.0f us at rtt 0 + %.3g ms x "
                         "%.2f round trips x depth %u): %+.0f%%",
                         c->median_ns / 1e3, w->expected_ns / 1e3, b->median_ns / 1e3,
                         gr->rtt_ms, w->round_trips, (unsigned)gr->depth, dev);
        }
    }
}
