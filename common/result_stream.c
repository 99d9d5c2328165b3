/*
 * result_stream.c -- a streaming group's part of the result JSON (issue 42):
 * the group's "stream" object (mode, fetch_rows) and, in each of its cells, a
 * "stream" object (time to first row, rows per read, idiom, and in the
 * suite's largest group the memory verdict); and the verdict itself, over
 * the groups of one streaming suite. Other groups' JSON has none of it, so
 * files from before read as they did.
 */
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "json_util.h"
#include "pgcb/driver.h"
#include "result.h"
#include "util.h"

static const char *const verdict_names[] = {"unknown", "bounded", "grows"};

const char *pgcb_mem_verdict_name(int v)
{
    return v >= 0 && v <= PGCB_MEM_GROWS ? verdict_names[v] : "unknown";
}

const char *pgcb_result_mode_name(int mode)
{
    return mode == PGCB_RESULT_BUFFERED ? "buffered"
           : mode == PGCB_RESULT_STREAMED ? "streamed" : "unknown";
}

void pgcb_result_stream_group_json(json_t *one, const struct pgcb_res_group *gr)
{
    if (!gr->result_mode)
        return;
    json_object_set_new(one, "stream", json_pack("{s:s, s:I}", "mode",
                                                 pgcb_result_mode_name(gr->result_mode),
                                                 "fetch_rows", (json_int_t)gr->fetch_rows));
    json_t *results = json_object_get(one, "results");
    for (size_t d = 0; d < json_array_size(results); d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        json_t *s = json_object();
        json_object_set_new(s, "first_row_ns", pgcb_json_real(c->first_row_ns));
        json_object_set_new(s, "rows", json_integer((json_int_t)c->stream_rows));
        json_object_set_new(s, "idiom", c->idiom ? json_string(c->idiom) : json_null());
        if (c->mem_verdict) {
            json_object_set_new(s, "memory_verdict",
                                json_string(pgcb_mem_verdict_name(c->mem_verdict)));
            json_object_set_new(s, "bytes_per_row", pgcb_json_real(c->mem_bytes_per_row));
        }
        json_object_set_new(json_array_get(results, d), "stream", s);
    }
}

void pgcb_result_stream_group_read(json_t *o, struct pgcb_res_group *gr, size_t ncells)
{
    for (size_t d = 0; d < ncells; d++)
        gr->cells[d].first_row_ns = gr->cells[d].mem_bytes_per_row = NAN;
    json_t *k = json_object_get(o, "stream");
    if (!json_is_object(k))
        return;
    const char *mode = json_string_value(json_object_get(k, "mode"));
    gr->result_mode = mode && strcmp(mode, "streamed") == 0 ? PGCB_RESULT_STREAMED
                                                             : PGCB_RESULT_BUFFERED;
    json_t *f = json_object_get(k, "fetch_rows");
    gr->fetch_rows = json_is_integer(f) ? (uint32_t)json_integer_value(f) : 0;
    json_t *results = json_object_get(o, "results");
    for (size_t d = 0; d < ncells && d < json_array_size(results); d++) {
        json_t *s = json_object_get(json_array_get(results, d), "stream");
        struct pgcb_res_cell *c = &gr->cells[d];
        if (!json_is_object(s))
            continue;
        c->first_row_ns = pgcb_json_num(json_object_get(s, "first_row_ns"));
        json_t *rows = json_object_get(s, "rows");
        c->stream_rows = json_is_integer(rows) ? (uint64_t)json_integer_value(rows) : 0;
        const char *idiom = json_string_value(json_object_get(s, "idiom"));
        c->idiom = idiom ? pgcb_xstrdup(idiom) : NULL;
        const char *v = json_string_value(json_object_get(s, "memory_verdict"));
        c->mem_verdict = !v ? PGCB_MEM_UNKNOWN
                         : strcmp(v, "bounded") == 0 ? PGCB_MEM_BOUNDED
                         : strcmp(v, "grows") == 0 ? PGCB_MEM_GROWS : PGCB_MEM_UNKNOWN;
        c->mem_bytes_per_row = pgcb_json_num(json_object_get(s, "bytes_per_row"));
    }
}

/* Driver d's cell of group gr, if it measured a streaming read with its
 * memory known; else NULL. */
static const struct pgcb_res_cell *measured(const struct pgcb_res_group *gr, size_t d)
{
    const struct pgcb_res_cell *c = &gr->cells[d];
    return c->status == PGCB_CELL_OK && c->mem_known && c->stream_rows ? c : NULL;
}

void pgcb_result_stream_verdicts(struct pgcb_result *r)
{
    for (size_t g = 0; g < r->ngroups; g++) {
        struct pgcb_res_group *big = &r->groups[g];
        if (!big->result_mode)
            continue;
        for (size_t d = 0; d < r->ndrivers; d++) {
            struct pgcb_res_cell *cb = &big->cells[d];
            cb->mem_verdict = PGCB_MEM_UNKNOWN;
            cb->mem_bytes_per_row = NAN;
            if (!measured(big, d))
                continue;
            /* The same suite's group of the fewest rows for this driver;
             * this group must be the one of the most. */
            const struct pgcb_res_cell *small = NULL, *largest = cb;
            for (size_t h = 0; h < r->ngroups; h++) {
                const struct pgcb_res_group *o = &r->groups[h];
                const struct pgcb_res_cell *c = measured(o, d);
                if (!c || o->result_mode != big->result_mode || strcmp(o->suite, big->suite))
                    continue;
                if (!small || c->stream_rows < small->stream_rows)
                    small = c;
                if (c->stream_rows > largest->stream_rows)
                    largest = c;
            }
            if (largest != cb || !small || small->stream_rows >= cb->stream_rows)
                continue;
            double extra = (double)cb->stream_rows - (double)small->stream_rows;
            double grew = ((double)cb->mem_peak_kib - (double)small->mem_peak_kib) * 1024.0;
            cb->mem_bytes_per_row = grew / extra;
            cb->mem_verdict = cb->mem_bytes_per_row >= PGCB_MEM_GROWS_BYTES_PER_ROW
                                  ? PGCB_MEM_GROWS : PGCB_MEM_BOUNDED;
        }
    }
}
