/*
 * br_stream.c -- the `stream` request: one whole result, read by the
 * adapter's client buffered or through its streaming idiom (ABI 1.6
 * run_stream; docs/bridge-protocol.md, "stream"). See br_conn.h.
 *
 * Before the exchange, outside the adapter's timing, the bridge reads the
 * same execution itself (br_ref.h: once per statement and parameters). The
 * adapter answers with its rows, its times, its CPU time, its idiom and,
 * per column, the kind it chose, the nulls and the sum. A kind the column's
 * type cannot have is a protocol error; a reply whose counts or sums differ
 * from the reference's counts as another checksum (INVALID in the runner);
 * one that agrees counts as the reference's checksum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "br_conn.h"
#include "br_ref.h"

static uint64_t br_stream_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int is_int_type(uint32_t oid)
{
    return oid == 21 || oid == 23 || oid == 20 || oid == 26;
}

/* A kind the column of type `oid` cannot have: why, else NULL. */
static const char *kind_refused(enum br_kind k, uint32_t oid)
{
    if (k == BR_KIND_INT && !is_int_type(oid))
        return "int for a column whose type is not an integer type";
    if (k == BR_KIND_BOOL && oid != 16)
        return "bool for a column that is not boolean";
    if (k == BR_KIND_ANY && (is_int_type(oid) || oid == 16 || oid == 25 || oid == 1043))
        return "any for an integer, boolean or text column (the client must deliver its "
               "values as integers, booleans or strings)";
    return NULL;
}

static int kind_of(const char *s, enum br_kind *k)
{
    static const char *const names[] = {"any", "bool", "int", "str"};
    for (int i = 0; i < 4; i++)
        if (s && strcmp(s, names[i]) == 0) {
            *k = (enum br_kind)i;
            return 0;
        }
    return -1;
}

/* A required non-negative integer of the reply. 0, or -1. */
static int u64_of(const json_t *r, const char *key, uint64_t *v)
{
    const json_t *j = json_object_get(r, key);
    if (!json_is_integer(j) || json_integer_value(j) < 0)
        return -1;
    *v = (uint64_t)json_integer_value(j);
    return 0;
}

/* The reply's columns against the reference: 1 (they agree), 0 (they do
 * not), -1 (malformed or a refused kind: why set). */
static int columns_agree(const json_t *cols, const struct br_ref *ref, enum br_textlen tl,
                         uint64_t rows, char *why, size_t whylen)
{
    if (!json_is_array(cols)) {
        snprintf(why, whylen, "no \"columns\" array");
        return -1;
    }
    size_t n = json_array_size(cols);
    if (rows == 0 && n == 0)
        return 1;
    if (n != ref->ncols)
        return 0;
    int agree = 1;
    for (size_t j = 0; j < n; j++) {
        const json_t *c = json_array_get(cols, j);
        enum br_kind k;
        const json_t *nulls = json_array_get(c, 1), *sum = json_array_get(c, 2);
        if (!json_is_array(c) || json_array_size(c) != 3 ||
            kind_of(json_string_value(json_array_get(c, 0)), &k) != 0 ||
            !json_is_integer(nulls) || !json_is_integer(sum) || json_integer_value(sum) < 0 ||
            json_integer_value(sum) > 0xffffffffll) {
            snprintf(why, whylen, "column %zu is not [kind, nulls, sum] (kind any, bool, int "
                     "or str; sum in 0..2^32-1)", j + 1);
            return -1;
        }
        const struct br_ref_col *rc = &ref->cols[j];
        const char *refused = kind_refused(k, rc->oid);
        if (refused && rc->nulls < ref->rows) {
            snprintf(why, whylen, "column %zu (type oid %u): kind %s", j + 1, rc->oid, refused);
            return -1;
        }
        uint32_t want = k == BR_KIND_INT ? rc->sum_int : k == BR_KIND_BOOL ? rc->sum_bool
                        : k == BR_KIND_STR ? rc->sum_len[tl] : 0;
        agree &= (uint64_t)json_integer_value(nulls) == rc->nulls &&
                 (uint32_t)json_integer_value(sum) == want;
    }
    return agree;
}

/* The stream request, or NULL with why (parameters JSON cannot carry). */
static json_t *stream_req(const struct pgcb_stream *s, char *why, size_t whylen)
{
    json_t *all = br_params(s->params, 1, why, whylen), *one;
    if (!all)
        return NULL;
    one = json_is_array(all) ? json_incref(json_array_get(all, 0)) : json_null();
    json_decref(all);
    return json_pack("{s:s, s:I, s:s, s:I, s:o}", "op", "stream", "stmt",
                     (json_int_t)s->stmt->id, "mode",
                     s->mode == PGCB_RESULT_STREAMED ? "streamed" : "buffered", "fetch",
                     (json_int_t)s->fetch, "params", one);
}

int br_run_stream(struct pgcb_conn *c, const struct pgcb_stream *s, struct pgcb_stream_out *out,
                  char *err, size_t errlen)
{
    char why[PGCB_ERRLEN];
    struct pgcb_stmt *st = s->stmt;
    if (!c->hello.stream) {
        snprintf(err, errlen, "%s cannot read a whole result in one request (its hello did not "
                 "say \"stream\": true)", c->cfg.what);
        return PGCB_ERR_UNSUPPORTED;
    }
    if (c->hello.no_io) {
        snprintf(err, errlen, "%s talks to no server: it has no result to stream", c->cfg.what);
        return PGCB_ERR_UNSUPPORTED;
    }
    if (!st->have_ref || !br_ref_matches(&st->ref, s->params)) {
        st->have_ref = 0;
        int rc = br_ref_read(c->conninfo, st->sql, s->params, c->c_locale, &st->ref, err,
                             errlen);
        if (rc != PGCB_OK)
            return rc;
        st->have_ref = 1;
    }
    if (br_proc_pin(&c->proc, why, sizeof why) != 0)
        return br_conn_fail(c, err, errlen, "%s", why);
    json_t *req = stream_req(s, why, sizeof why);
    if (!req) {
        snprintf(err, errlen, "%s", why);
        return PGCB_ERR_UNSUPPORTED;
    }
    const uint64_t t0 = br_stream_now_ns();
    json_t *r;
    int rc = br_call(c, req, -1, &r, err, errlen);
    const uint64_t took = br_stream_now_ns() - t0;
    if (!r)
        return rc;
    uint64_t rows = 0, first = 0, total = 0, cpu = 0;
    if (rc != PGCB_OK) { /* the rows delivered before the failure */
        if (u64_of(r, "rows", &rows) == 0)
            out->sum.rows = rows;
        json_decref(r);
        return rc;
    }
    const char *idiom = json_string_value(json_object_get(r, "idiom"));
    int verdict = 0;
    if (u64_of(r, "rows", &rows) || u64_of(r, "first_row_ns", &first) ||
        u64_of(r, "total_ns", &total) || u64_of(r, "cpu_ns", &cpu))
        snprintf(why, sizeof why, "no \"rows\", \"first_row_ns\", \"total_ns\" and \"cpu_ns\" "
                 "(non-negative integers)");
    else if (total == 0 || first == 0 || first > total || total > took)
        snprintf(why, sizeof why, "first_row_ns %llu and total_ns %llu are not 0 < first <= "
                 "total <= the %llu ns the exchange took", (unsigned long long)first,
                 (unsigned long long)total, (unsigned long long)took);
    else if (!idiom || !idiom[0])
        snprintf(why, sizeof why, "no \"idiom\" (what the client called)");
    else
        verdict = columns_agree(json_object_get(r, "columns"), &st->ref, c->hello.text_length,
                                rows, why, sizeof why) >= 0 ? 1 : 0;
    if (!verdict) {
        json_decref(r);
        return br_conn_fail(c, err, errlen, "its reply to a stream is malformed: %s", why);
    }
    int agree = rows == st->ref.rows &&
                columns_agree(json_object_get(r, "columns"), &st->ref, c->hello.text_length,
                              rows, why, sizeof why) == 1;
    snprintf(out->idiom, sizeof out->idiom, "%s", idiom);
    json_decref(r);
    out->sum.rows = rows;
    /* Another checksum than the reference's when the reply disagrees. */
    out->sum.hash = agree ? st->ref.sum.hash : st->ref.sum.hash ^ 0x9e3779b97f4a7c15ull;
    out->first_row_ns = first;
    out->total_ns = total;
    out->cpu_ns = cpu ? cpu : 1;
    return PGCB_OK;
}
