/* br_dumpval.c -- see br_dumpval.h. */
#include "br_dumpval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pgcb/value.h>


uint32_t br_dumpval_elem(uint32_t oid)
{
    switch (oid) {
    case PGCB_OID_INT4_ARRAY:   return PGCB_OID_INT4;
    case PGCB_OID_INT8_ARRAY:   return PGCB_OID_INT8;
    case PGCB_OID_TEXT_ARRAY:   return PGCB_OID_TEXT;
    case PGCB_OID_FLOAT8_ARRAY: return PGCB_OID_FLOAT8;
    default:                    return 0;
    }
}

int br_dumpval_converted(uint32_t oid)
{
    /* exactly the types value.h converts out of line (text kinds from
     * PGCB_VALUE_FIRST_MORE on) */
    return pgcb_value_kind_of(oid, 0) >= PGCB_VALUE_FIRST_MORE;
}

const char *br_dumpval_type_name(uint32_t oid, char *buf, size_t n)
{
    const char *name = pgcb_value_type_name(oid);
    if (name)
        return name;
    snprintf(buf, n, "type %u", oid);
    return buf;
}

/* The text a dumped value stands for, where it has one: a string's bytes, an
 * integer's digits, the text of {"int"|"float"|"other": ...}. Points into v
 * or into buf (n bytes). Returns the length, or -1 when v has no text form
 * ({"bytes": ...} is the caller's). */
static long dv_text(const json_t *v, char *buf, size_t n, const char **out)
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
static int dv_double(const json_t *v, locale_t c_locale, double *out)
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

/* The hex digit value of c, or -1. */
static int dv_hex(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* {"bytes": hex} of exactly 16 bytes into b. 0, or -1. */
static int dv_bytes16(const json_t *v, unsigned char b[16])
{
    const json_t *h = json_object_get(v, "bytes");
    if (!json_is_string(h) || json_string_length(h) != 32)
        return -1;
    const char *x = json_string_value(h);
    for (int i = 0; i < 16; i++) {
        int hi = dv_hex(x[2 * i]), lo = dv_hex(x[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

/* Not a value of the column's type: the TEXT of its JSON. */
static enum br_dumpval_rc dv_standin(struct pgcb_sum *s, const json_t *v)
{
    char *j = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    pgcb_sum_text(s, j ? j : "?", j ? strlen(j) : 1);
    free(j);
    return BR_DUMPVAL_STANDIN;
}

/* A scalar of kind k (the text or converted kind of its type). */
static enum br_dumpval_rc dv_scalar(struct pgcb_sum *s, enum pgcb_value_kind k,
                                    const json_t *v, locale_t c_locale)
{
    char buf[64];
    const char *t;
    long len;
    int rc;
    switch (k) {
    case PGCB_VALUE_T_BOOL:
        if (json_is_boolean(v)) {
            pgcb_sum_bool(s, json_is_true(v));
            return BR_DUMPVAL_OK;
        }
        break;
    case PGCB_VALUE_T_INT:
        if (json_is_integer(v)) {
            pgcb_sum_int(s, (int64_t)json_integer_value(v));
            return BR_DUMPVAL_OK;
        }
        if ((json_is_string(v) || json_is_object(v)) &&
            (len = dv_text(v, buf, sizeof buf, &t)) >= 0 &&
            pgcb_value_fold(s, k, t, (size_t)len, c_locale) == 0)
            return BR_DUMPVAL_OK;
        break;
    case PGCB_VALUE_T_FLOAT4: {
        double d;
        if (dv_double(v, c_locale, &d) == 0) {
            pgcb_sum_float4(s, (float)d);
            return BR_DUMPVAL_OK;
        }
        break;
    }
    case PGCB_VALUE_T_FLOAT8: {
        double d;
        if (dv_double(v, c_locale, &d) == 0) {
            pgcb_sum_float8(s, d);
            return BR_DUMPVAL_OK;
        }
        break;
    }
    default:
        /* Text, and every other type: its text conversion. */
        if (json_is_object(v) && json_is_string(json_object_get(v, "bytes"))) {
            /* The server's text of bytes is \x and the lower-case hex. */
            const json_t *h = json_object_get(v, "bytes");
            size_t hl = json_string_length(h);
            char *x = malloc(hl + 3);
            if (!x)
                break;
            x[0] = '\\';
            x[1] = 'x';
            memcpy(x + 2, json_string_value(h), hl);
            rc = pgcb_value_fold(s, k, x, hl + 2, c_locale);
            free(x);
        } else if ((len = dv_text(v, buf, sizeof buf, &t)) >= 0) {
            rc = pgcb_value_fold(s, k, t, (size_t)len, c_locale);
        } else {
            break;
        }
        if (rc == 0)
            return BR_DUMPVAL_OK;
        if (rc == PGCB_VALUE_UNSUPPORTED) /* the text of a 2-D array */
            return BR_DUMPVAL_UNSUPPORTED;
        break;
    }
    return dv_standin(s, v);
}

/* An array of element type `elem` as a JSON array of its elements. */
static enum br_dumpval_rc dv_array(struct pgcb_sum *s, uint32_t elem, const json_t *v,
                                   locale_t c_locale)
{
    size_t n = json_array_size(v);
    for (size_t i = 0; i < n; i++)
        if (json_is_array(json_array_get(v, i)))
            return BR_DUMPVAL_UNSUPPORTED;
    pgcb_sum_array(s, (uint32_t)n, 1);
    enum pgcb_value_kind k = pgcb_value_kind_of(elem, 0);
    enum br_dumpval_rc rc = BR_DUMPVAL_OK;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(v, i);
        if (json_is_null(e))
            pgcb_sum_null(s);
        else if (dv_scalar(s, k, e, c_locale) != BR_DUMPVAL_OK)
            rc = BR_DUMPVAL_STANDIN;
    }
    return rc;
}

/* PostgreSQL's "char" (OID 18): one byte. */
#define DV_OID_CHAR 18u

/* A binary client's "char" -- an integer (pgx: an int8, -128..127; a byte
 * 0..255) or {"bytes": two hex digits} (asyncpg) -- as the server's text of
 * it (charout: the byte itself, "\ooo" for one with the high bit set, ""
 * for 0) into buf (at least 5 bytes). Returns the length, or -1 when v is
 * neither (a string: the text clients', folded as any text is). */
static long dv_char_text(const json_t *v, char *buf)
{
    int c;
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < -128 || x > 255)
            return -1;
        c = (int)(x & 0xff);
    } else if (json_is_object(v) && json_object_size(v) == 1 &&
               json_is_string(json_object_get(v, "bytes")) &&
               json_string_length(json_object_get(v, "bytes")) == 2) {
        const char *h = json_string_value(json_object_get(v, "bytes"));
        int hi = dv_hex(h[0]), lo = dv_hex(h[1]);
        if (hi < 0 || lo < 0)
            return -1;
        c = hi << 4 | lo;
    } else {
        return -1;
    }
    if (c == 0)
        return 0;
    if (c & 0x80)
        return snprintf(buf, 5, "\\%03o", (unsigned)c);
    buf[0] = (char)c;
    return 1;
}

enum br_dumpval_rc br_dumpval_fold(struct pgcb_sum *s, uint32_t oid, const json_t *v,
                                   locale_t c_locale)
{
    if (oid == DV_OID_CHAR) {
        char cb[8];
        long n = dv_char_text(v, cb);
        if (n >= 0 &&
            pgcb_value_fold(s, pgcb_value_kind_of(oid, 0), cb, (size_t)n, c_locale) == 0)
            return BR_DUMPVAL_OK;
    }
    uint32_t elem = br_dumpval_elem(oid);
    if (elem && json_is_array(v))
        return dv_array(s, elem, v, c_locale);
    unsigned char b[16];
    if (oid == PGCB_OID_UUID && json_is_object(v) && dv_bytes16(v, b) == 0) {
        pgcb_sum_uuid(s, b);
        return BR_DUMPVAL_OK;
    }
    return dv_scalar(s, pgcb_value_kind_of(oid, 0), v, c_locale);
}
