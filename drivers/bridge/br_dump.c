/* br_dump.c -- see br_dump.h. */
#include "br_dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pgcb/value.h>

#include "br_dumpval.h"

const char *br_kind_name(unsigned k)
{
    switch (k) {
    case BR_KIND_BOOL: return "bool";
    case BR_KIND_INT:  return "int";
    case BR_KIND_STR:  return "str";
    default:           return "any";
    }
}

void br_dump_free(struct br_dump *d)
{
    free(d->rows);
    free(d->cols);
    free(d->kinds);
    *d = (struct br_dump){0};
}

/* Length of `len` bytes of UTF-8 in unit tl. */
static uint32_t br_text_len(const char *s, size_t len, enum br_textlen tl)
{
    if (tl == BR_LEN_BYTES)
        return (uint32_t)len;
    uint32_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char b = (unsigned char)s[i];
        if ((b & 0xc0) == 0x80)
            continue; /* continuation byte */
        /* A 4-byte sequence is a code point beyond U+FFFF: two UTF-16 units. */
        n += (tl == BR_LEN_UTF16 && b >= 0xf0) ? 2 : 1;
    }
    return n;
}

/* Add to d->note what the client delivered for column j (0-based) of type
 * oid, once per column: a value of a converted type that the client turned
 * into a value of its language ({"other": ..., "type": T}), or one that is
 * no value of the column's type at all (a stand-in). */
static void br_dump_note(struct br_dump *d, uint32_t j, const char *name, uint32_t oid,
                         const json_t *v, enum br_dumpval_rc vr)
{
    const json_t *t = json_is_object(v) ? json_object_get(v, "type") : NULL;
    const char *lang = json_is_string(t) ? json_string_value(t) : NULL;
    if (j < 64 && (d->noted & (UINT64_C(1) << j)))
        return;
    if (vr != BR_DUMPVAL_STANDIN && !(lang && br_dumpval_converted(oid)))
        return;
    if (j < 64)
        d->noted |= UINT64_C(1) << j;
    size_t used = strlen(d->note);
    if (used + 8 >= sizeof d->note)
        return; /* full: the first columns say enough */
    char tb[32];
    const char *tn = br_dumpval_type_name(oid, tb, sizeof tb);
    char what[96];
    if (vr == BR_DUMPVAL_STANDIN) {
        char *j_text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf(what, sizeof what, "%s%s%.40s%s, not a %s value", lang ? lang : "",
                 lang ? " " : "", j_text ? j_text : "?",
                 j_text && strlen(j_text) > 40 ? "..." : "", tn);
        free(j_text);
    } else {
        snprintf(what, sizeof what, "%s", lang);
    }
    snprintf(d->note + used, sizeof d->note - used, "%scolumn %u \"%s\" (%s): the client "
             "delivered %s", used ? "; " : "", j + 1, name, tn, what);
}

/* The columns of one result: names and OIDs. Returns the count, or -1. */
static long br_columns(const json_t *r, uint32_t *oids, const char **names, size_t max,
                       char *err, size_t errlen, size_t ri)
{
    const json_t *cols = json_object_get(r, "columns");
    if (!json_is_array(cols)) {
        snprintf(err, errlen, "dump result %zu has no \"columns\" array", ri + 1);
        return -1;
    }
    size_t n = json_array_size(cols);
    for (size_t j = 0; j < n; j++) {
        const json_t *c = json_array_get(cols, j);
        const json_t *type = json_object_get(c, "type");
        if (!json_is_object(c) || !json_is_integer(type) || json_integer_value(type) < 0 ||
            json_integer_value(type) > UINT32_MAX) {
            snprintf(err, errlen, "dump result %zu, column %zu: no integer \"type\" (the "
                     "column's type OID)", ri + 1, j + 1);
            return -1;
        }
        if (j < max) {
            const json_t *name = json_object_get(c, "name");
            oids[j] = (uint32_t)json_integer_value(type);
            names[j] = json_is_string(name) ? json_string_value(name) : "?";
        }
    }
    return (long)n;
}

int br_dump_read(const json_t *results, uint32_t depth, enum br_textlen tl, locale_t c_locale,
                 const struct pgcb_sum *start, struct br_dump *out, char *err, size_t errlen)
{
    *out = (struct br_dump){.sum = *start};
    if (!json_is_array(results) || json_array_size(results) != depth) {
        snprintf(err, errlen, "a dump of a batch of %u executions needs \"results\", an array "
                 "of %u (got %s)", depth, depth,
                 json_is_array(results) ? "another count" : "none");
        return -1;
    }
    uint32_t *oids = NULL, ncols = 0;
    const char **names = NULL;
    int rc = -1;
    /* Per column: may it be bool / int / str (every non-null value so). */
    unsigned char *can_bool = NULL, *can_int = NULL, *can_str = NULL, *seen = NULL;
    out->nresults = depth;
    out->rows = calloc(depth ? depth : 1, sizeof *out->rows);
    if (!out->rows)
        goto nomem;
    for (uint32_t ri = 0; ri < depth; ri++) {
        const json_t *r = json_array_get(results, ri);
        if (!json_is_object(r)) {
            snprintf(err, errlen, "dump result %u is not an object", ri + 1);
            goto fail;
        }
        const json_t *rows = json_object_get(r, "rows");
        if (!json_is_array(rows)) {
            snprintf(err, errlen, "dump result %u has no \"rows\" array", ri + 1);
            goto fail;
        }
        if (ri == 0) {
            long n = br_columns(r, NULL, NULL, 0, err, errlen, ri);
            if (n < 0)
                goto fail;
            ncols = (uint32_t)n;
            out->ncols = ncols;
            size_t k = ncols ? ncols : 1;
            oids = calloc(k, sizeof *oids);
            names = calloc(k, sizeof *names);
            can_bool = calloc(k, 1), can_int = calloc(k, 1), can_str = calloc(k, 1);
            seen = calloc(k, 1);
            out->cols = calloc((size_t)depth * k, sizeof *out->cols);
            out->kinds = calloc(k, 1);
            if (!oids || !names || !can_bool || !can_int || !can_str || !seen || !out->cols || !out->kinds)
                goto nomem;
            memset(can_bool, 1, k), memset(can_int, 1, k), memset(can_str, 1, k);
            br_columns(r, oids, names, ncols, err, errlen, ri);
        } else {
            uint32_t other[1];
            long n = br_columns(r, other, NULL, 0, err, errlen, ri);
            if (n < 0)
                goto fail;
            if ((uint32_t)n != ncols) {
                snprintf(err, errlen, "dump result %u has %ld columns, result 1 has %u", ri + 1, n,
                         ncols);
                goto fail;
            }
        }
        size_t nrows = json_array_size(rows);
        out->rows[ri] = nrows;
        out->total_rows += nrows;
        struct br_colstat *st = out->cols + (size_t)ri * ncols;
        for (size_t i = 0; i < nrows; i++) {
            const json_t *row = json_array_get(rows, i);
            if (!json_is_array(row) || json_array_size(row) != ncols) {
                snprintf(err, errlen, "dump result %u, row %zu: not an array of %u values",
                         ri + 1, i + 1, ncols);
                goto fail;
            }
            for (uint32_t j = 0; j < ncols; j++) {
                const json_t *v = json_array_get(row, j);
                if (json_is_null(v)) {
                    st[j].nulls++;
                    pgcb_sum_null(&out->sum);
                    continue;
                }
                seen[j] = 1;
                if (json_is_boolean(v))
                    st[j].sum_bool += json_is_true(v) ? 1u : 0u;
                else
                    can_bool[j] = 0;
                if (json_is_integer(v))
                    st[j].sum_int += (uint32_t)(uint64_t)json_integer_value(v);
                else
                    can_int[j] = 0;
                if (json_is_string(v))
                    st[j].sum_len += br_text_len(json_string_value(v), json_string_length(v), tl);
                else
                    can_str[j] = 0;
                enum br_dumpval_rc vr = br_dumpval_fold(&out->sum, oids[j], v, c_locale);
                if (vr == BR_DUMPVAL_UNSUPPORTED) {
                    char tb[32];
                    snprintf(err, errlen, "column %u \"%s\" (%s), row %zu: an array of more "
                             "than one dimension, which the fold does not take", j + 1,
                             names[j], br_dumpval_type_name(oids[j], tb, sizeof tb), i + 1);
                    rc = -2;
                    goto fail;
                }
                br_dump_note(out, j, names[j], oids[j], v, vr);
            }
            pgcb_sum_row(&out->sum);
        }
    }
    for (uint32_t j = 0; j < ncols; j++) {
        int intcol = oids[j] == PGCB_OID_INT2 || oids[j] == PGCB_OID_INT4 ||
                     oids[j] == PGCB_OID_INT8 || oids[j] == 26 /* oid */;
        out->kinds[j] = !seen[j]                ? BR_KIND_ANY
                        : can_bool[j]           ? BR_KIND_BOOL
                        : can_int[j] && intcol  ? BR_KIND_INT
                        : can_str[j]            ? BR_KIND_STR
                                                : BR_KIND_ANY;
    }
    free(oids), free(names), free(can_bool), free(can_int), free(can_str), free(seen);
    return 0;
nomem:
    snprintf(err, errlen, "out of memory reading a dump");
fail:
    free(oids), free(names), free(can_bool), free(can_int), free(can_str), free(seen);
    br_dump_free(out);
    return rc;
}

uint32_t br_dump_fold(const struct br_dump *d, const unsigned char *kinds)
{
    uint32_t h = BR_FOLD_START;
    for (uint32_t r = 0; r < d->nresults; r++) {
        h = br_fold_mix(h, (uint32_t)d->rows[r]);
        if (d->rows[r] == 0)
            continue;
        const struct br_colstat *st = d->cols + (size_t)r * d->ncols;
        for (uint32_t j = 0; j < d->ncols; j++) {
            uint32_t agg = 0;
            switch (kinds ? kinds[j] : BR_KIND_ANY) {
            case BR_KIND_BOOL: agg = st[j].sum_bool; break;
            case BR_KIND_INT:  agg = st[j].sum_int; break;
            case BR_KIND_STR:  agg = st[j].sum_len; break;
            default:           agg = 0; break;
            }
            h = br_fold_mix(h, st[j].nulls);
            h = br_fold_mix(h, agg);
        }
    }
    return h;
}
