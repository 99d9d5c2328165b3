/*
 * pv_array.c -- one-dimensional arrays of int4, int8, text and float8, in
 * text (array_out) and binary (array_send) format, folded element by
 * element (pgcb_sum_array, then each element as a scalar of its type). An
 * array of two or more dimensions is PGCB_VALUE_UNSUPPORTED. Every value is
 * folded into a copy of the sum, kept only if the whole array converts.
 */
#include <pgcb/value.h>

#include "pv_stream.h"

/* ---- text ---------------------------------------------------------------- */

/* One element of the text form: [b, e) is its text between the quotes for
 * a quoted one; `n` its length once unescaped. */
struct pv_elem {
    const char *b, *e;
    size_t n;
    int quoted, null;
};

/* Scan the element at *p (advanced to the ',' or '}' after it). -1 if it is
 * not one. */
static int pv_elem_scan(const char **p, const char *end, struct pv_elem *el)
{
    const char *q = *p;
    el->quoted = el->null = 0;
    el->n = 0;
    if (q < end && *q == '"') {
        el->quoted = 1;
        el->b = ++q;
        for (;; q++) {
            if (q >= end)
                return -1;
            if (*q == '"')
                break;
            if (*q == '\\' && ++q >= end)
                return -1;
            el->n++;
        }
        el->e = q++;
    } else {
        el->b = q;
        while (q < end && *q != ',' && *q != '}') {
            if (*q == '"' || *q == '\\' || *q == '{')
                return -1; /* the server quotes such an element */
            q++;
        }
        el->e = q;
        el->n = (size_t)(q - el->b);
        if (el->n == 0)
            return -1; /* an empty string is always quoted */
        el->null = el->n == 4 && (el->b[0] | 0x20) == 'n' && (el->b[1] | 0x20) == 'u' &&
                   (el->b[2] | 0x20) == 'l' && (el->b[3] | 0x20) == 'l';
    }
    if (q >= end || (*q != ',' && *q != '}'))
        return -1;
    *p = q;
    return 0;
}

/* A number element into buf (unescaped, NUL-terminated): -1 if too long. */
static int pv_elem_copy(const struct pv_elem *el, char *buf, size_t cap)
{
    size_t k = 0;
    if (el->n >= cap)
        return -1;
    for (const char *q = el->b; q < el->e; q++) {
        if (el->quoted && *q == '\\')
            q++;
        buf[k++] = *q;
    }
    buf[k] = '\0';
    return 0;
}

static int pv_elem_fold(struct pgcb_sum *t, const struct pv_elem *el, enum pgcb_value_kind k,
                        locale_t c_locale)
{
    char buf[PGCB_VALUE_FLOAT_MAXLEN + 1];

    if (el->null) {
        pgcb_sum_null(t);
        return 0;
    }
    if (k == PGCB_VALUE_T_ARRAY_TEXT) {
        struct pv_stream st;
        if (!el->quoted) {
            pgcb_sum_text(t, el->b, el->n);
            return 0;
        }
        pv_stream_start(&st, pgcb_sum_mix(t->hash, PGCB_TAG_TEXT), el->n);
        for (const char *q = el->b; q < el->e; q++) {
            if (*q == '\\')
                q++;
            pv_stream_put(&st, (unsigned char)*q);
        }
        t->hash = pv_stream_end(&st);
        return 0;
    }
    if (pv_elem_copy(el, buf, sizeof buf))
        return -1;
    if (k == PGCB_VALUE_T_ARRAY_INT) {
        int64_t v;
        if (pgcb_value_parse_int(buf, el->n, &v))
            return -1;
        pgcb_sum_int(t, v);
        return 0;
    }
    double d;
    if (pgcb_value_parse_float8(buf, el->n, c_locale, &d))
        return -1;
    pgcb_sum_float8(t, d);
    return 0;
}

/* [lo:hi]= before the braces: the lower bound and the count it declares. */
static int pv_dims(const char **p, const char *end, int64_t *lo, int64_t *count)
{
    const char *q = *p + 1;
    int64_t v[2];
    for (int i = 0; i < 2; i++) {
        int neg = 0;
        int64_t x = 0;
        int nd = 0;
        if (q < end && (*q == '-' || *q == '+'))
            neg = *q++ == '-';
        while (q < end && (unsigned)(*q - '0') <= 9) {
            if (++nd > 10)
                return -1;
            x = x * 10 + (*q++ - '0');
        }
        if (nd == 0 || q >= end || *q != (i == 0 ? ':' : ']'))
            return -1;
        q++;
        v[i] = neg ? -x : x;
    }
    if (q < end && *q == '[')
        return PGCB_VALUE_UNSUPPORTED; /* [a:b][c:d]=: two dimensions */
    if (q >= end || *q != '=' || v[0] < INT32_MIN || v[0] > INT32_MAX || v[1] < v[0] - 1)
        return -1;
    *lo = v[0];
    *count = v[1] - v[0] + 1;
    *p = q + 1;
    return 0;
}

int pgcb_value_fold_array_text(struct pgcb_sum *s, enum pgcb_value_kind k, const char *p,
                               size_t len, locale_t c_locale)
{
    const char *end = p + len, *q;
    int64_t lo = 1, declared = -1;
    uint32_t n = 0;
    struct pv_elem el;
    struct pgcb_sum t = *s;

    if (p < end && *p == '[') {
        int r = pv_dims(&p, end, &lo, &declared);
        if (r)
            return r;
    }
    if (p >= end || *p != '{')
        return -1;
    if (p + 1 < end && p[1] == '{')
        return PGCB_VALUE_UNSUPPORTED;
    /* pass 1: the structure, and the count */
    q = p + 1;
    if (q < end && *q == '}') {
        q++;
    } else {
        for (;;) {
            if (pv_elem_scan(&q, end, &el))
                return -1;
            if (n == UINT32_MAX)
                return -1;
            n++;
            if (*q++ == '}')
                break;
        }
    }
    if (q != end || (declared >= 0 && declared != n) || (n == 0 && declared > 0))
        return -1;
    /* pass 2: fold */
    pgcb_sum_array(&t, n, n ? (int32_t)lo : 1);
    q = p + 1;
    for (uint32_t i = 0; i < n; i++) {
        pv_elem_scan(&q, end, &el);
        if (pv_elem_fold(&t, &el, k, c_locale))
            return -1;
        q++;
    }
    *s = t;
    return 0;
}

/* ---- binary ------------------------------------------------------------- */

int pgcb_value_fold_array_binary(struct pgcb_sum *s, enum pgcb_value_kind k, const char *p,
                                 size_t len)
{
    const char *end = p + len;
    uint32_t want, width;
    int32_t ndim, flags, lb = 1;
    uint32_t n = 0;
    struct pgcb_sum t = *s;

    switch (k) {
    case PGCB_VALUE_B_ARRAY_INT4:   want = PGCB_OID_INT4;   width = 4; break;
    case PGCB_VALUE_B_ARRAY_INT8:   want = PGCB_OID_INT8;   width = 8; break;
    case PGCB_VALUE_B_ARRAY_FLOAT8: want = PGCB_OID_FLOAT8; width = 8; break;
    default:                        want = PGCB_OID_TEXT;   width = 0; break;
    }
    if (len < 12)
        return -1;
    ndim = (int32_t)pgcb_value_be32(p);
    flags = (int32_t)pgcb_value_be32(p + 4);
    if (ndim < 0 || (flags != 0 && flags != 1) || pgcb_value_be32(p + 8) != want)
        return -1;
    if (ndim > 1)
        return PGCB_VALUE_UNSUPPORTED;
    p += 12;
    if (ndim == 1) {
        int32_t dim;
        if (end - p < 8)
            return -1;
        dim = (int32_t)pgcb_value_be32(p);
        lb = (int32_t)pgcb_value_be32(p + 4);
        if (dim < 0)
            return -1;
        n = (uint32_t)dim;
        p += 8;
    }
    pgcb_sum_array(&t, n, n ? lb : 1);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t elen;
        if (end - p < 4)
            return -1;
        elen = pgcb_value_be32(p);
        p += 4;
        if (elen == 0xffffffffu) {
            pgcb_sum_null(&t);
            continue;
        }
        if (elen > (size_t)(end - p) || (width && elen != width))
            return -1;
        if (k == PGCB_VALUE_B_ARRAY_INT4) {
            pgcb_sum_int(&t, pgcb_value_be_int4(p));
        } else if (k == PGCB_VALUE_B_ARRAY_INT8) {
            pgcb_sum_int(&t, pgcb_value_be_int8(p));
        } else if (k == PGCB_VALUE_B_ARRAY_FLOAT8) {
            uint64_t bits = pgcb_value_be64(p);
            double d;
            memcpy(&d, &bits, sizeof d);
            pgcb_sum_float8(&t, d);
        } else {
            pgcb_sum_text(&t, p, elen);
        }
        p += elen;
    }
    if (p != end)
        return -1;
    *s = t;
    return 0;
}
