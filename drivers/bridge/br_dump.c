/* br_dump.c -- see br_dump.h. */
#include "br_dump.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pgcb/value.h>

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

/* The text a dumped value stands for, where it has one: a string's bytes, an
 * integer's digits, the text of {"int"|"float"|"other": ...}, "\x" + hex of
 * {"bytes": ...}. Points into v or into buf (n bytes). Returns the length,
 * or -1 when v has no text form. */
static long br_value_text(const json_t *v, char *buf, size_t n, const char **out)
{
    if (json_is_string(v)) {
        *out = json_string_value(v);
        return (long)json_string_length(v);
    }
    if (json_is_integer(v)) {
        *out = buf;
        return snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    }
    if (json_is_boolean(v)) {
        *out = json_is_true(v) ? "t" : "f";
        return 1;
    }
    if (json_is_real(v)) {
        *out = buf;
        return snprintf(buf, n, "%.17g", json_real_value(v));
    }
    if (!json_is_object(v) || json_object_size(v) < 1)
        return -1;
    const json_t *s;
    if ((s = json_object_get(v, "int")) || (s = json_object_get(v, "float")) ||
        (s = json_object_get(v, "other"))) {
        if (!json_is_string(s))
            return -1;
        *out = json_string_value(s);
        return (long)json_string_length(s);
    }
    return -1;
}

/* The number a float column's dumped value stands for. 0, or -1. */
static int br_value_double(const json_t *v, locale_t c_locale, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return 0;
    }
    const char *t = NULL;
    size_t len = 0;
    if (json_is_string(v)) {
        t = json_string_value(v);
        len = json_string_length(v);
    } else if (json_is_object(v) && json_is_string(json_object_get(v, "float"))) {
        const json_t *f = json_object_get(v, "float");
        t = json_string_value(f);
        len = json_string_length(f);
        if (strcmp(t, "-0") == 0) {
            *out = -0.0;
            return 0;
        }
    }
    return t ? pgcb_value_parse_float8(t, len, c_locale, out) : -1;
}

/* Fold one non-null dumped value of a column converted as `k` into s, as
 * libpq_sync folds the server's text of it. A value that is not of the
 * column's type folds as the text of its JSON, which no driver's checksum
 * matches: the runner then marks the driver invalid in that group. */
static void br_fold_value(struct pgcb_sum *s, enum pgcb_value_kind k, const json_t *v,
                          locale_t c_locale)
{
    char buf[64];
    const char *t;
    long len;
    switch (k) {
    case PGCB_VALUE_T_BOOL:
        if (json_is_boolean(v)) {
            pgcb_sum_bool(s, json_is_true(v));
            return;
        }
        break;
    case PGCB_VALUE_T_INT:
        if (json_is_integer(v)) {
            pgcb_sum_int(s, (int64_t)json_integer_value(v));
            return;
        }
        if ((json_is_string(v) || json_is_object(v)) &&
            (len = br_value_text(v, buf, sizeof buf, &t)) >= 0 &&
            pgcb_value_fold(s, k, t, (size_t)len, c_locale) == 0)
            return;
        break;
    case PGCB_VALUE_T_FLOAT4: {
        double d;
        if (br_value_double(v, c_locale, &d) == 0) {
            pgcb_sum_float4(s, (float)d);
            return;
        }
        break;
    }
    case PGCB_VALUE_T_FLOAT8: {
        double d;
        if (br_value_double(v, c_locale, &d) == 0) {
            pgcb_sum_float8(s, d);
            return;
        }
        break;
    }
    default: /* PGCB_VALUE_TEXT: text, numeric and every other type */
        if (json_is_object(v) && json_is_string(json_object_get(v, "bytes"))) {
            /* bytea: the server's text is \x and the lower-case hex. */
            const json_t *h = json_object_get(v, "bytes");
            size_t hl = json_string_length(h);
            char *x = malloc(hl + 3);
            if (x) {
                x[0] = '\\';
                x[1] = 'x';
                memcpy(x + 2, json_string_value(h), hl);
                pgcb_sum_text(s, x, hl + 2);
                free(x);
                return;
            }
            break;
        }
        if ((len = br_value_text(v, buf, sizeof buf, &t)) >= 0) {
            pgcb_sum_text(s, t, (size_t)len);
            return;
        }
        break;
    }
    /* Not a value of the column's type: fold its JSON text. */
    char *j = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    pgcb_sum_text(s, j ? j : "?", j ? strlen(j) : 1);
    free(j);
}

/* The columns of one result: names and OIDs. Returns the count, or -1. */
static long br_columns(const json_t *r, uint32_t *oids, size_t max, char *err, size_t errlen,
                       size_t ri)
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
        if (j < max)
            oids[j] = (uint32_t)json_integer_value(type);
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
            long n = br_columns(r, NULL, 0, err, errlen, ri);
            if (n < 0)
                goto fail;
            ncols = (uint32_t)n;
            out->ncols = ncols;
            size_t k = ncols ? ncols : 1;
            oids = calloc(k, sizeof *oids);
            can_bool = calloc(k, 1), can_int = calloc(k, 1), can_str = calloc(k, 1);
            seen = calloc(k, 1);
            out->cols = calloc((size_t)depth * k, sizeof *out->cols);
            out->kinds = calloc(k, 1);
            if (!oids || !can_bool || !can_int || !can_str || !seen || !out->cols || !out->kinds)
                goto nomem;
            memset(can_bool, 1, k), memset(can_int, 1, k), memset(can_str, 1, k);
            br_columns(r, oids, ncols, err, errlen, ri);
        } else {
            uint32_t other[1];
            long n = br_columns(r, other, 0, err, errlen, ri);
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
                br_fold_value(&out->sum, pgcb_value_kind_of(oids[j], 0), v, c_locale);
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
    free(oids), free(can_bool), free(can_int), free(can_str), free(seen);
    return 0;
nomem:
    snprintf(err, errlen, "out of memory reading a dump");
fail:
    free(oids), free(can_bool), free(can_int), free(can_str), free(seen);
    br_dump_free(out);
    return -1;
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
