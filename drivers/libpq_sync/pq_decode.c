/*
 * pq_decode.c -- see pq_decode.h. Pure functions over bytes; no libpq.
 */
#include "pq_decode.h"

#include <stdlib.h>
#include <string.h>

enum pgcb_pq_kind pgcb_pq_kind_of(uint32_t oid)
{
    switch (oid) {
    case PGCB_OID_BOOL:   return PGCB_PQ_BOOL;
    case PGCB_OID_INT2:   return PGCB_PQ_INT2;
    case PGCB_OID_INT4:   return PGCB_PQ_INT4;
    case PGCB_OID_INT8:   return PGCB_PQ_INT8;
    case PGCB_OID_FLOAT4: return PGCB_PQ_FLOAT4;
    case PGCB_OID_FLOAT8: return PGCB_PQ_FLOAT8;
    default:              return PGCB_PQ_TEXT;
    }
}

int pgcb_pq_binary_foldable(uint32_t oid)
{
    switch (oid) {
    case PGCB_OID_TEXT:
    case PGCB_OID_VARCHAR:
    case PGCB_OID_NAME:
    case PGCB_OID_BPCHAR:
        return 1; /* binary form == text form (client encoding) */
    default:
        return pgcb_pq_kind_of(oid) != PGCB_PQ_TEXT;
    }
}

const char *pgcb_pq_type_name(uint32_t oid)
{
    switch (oid) {
    case PGCB_OID_BOOL:    return "bool";
    case PGCB_OID_NAME:    return "name";
    case PGCB_OID_INT8:    return "int8";
    case PGCB_OID_INT2:    return "int2";
    case PGCB_OID_INT4:    return "int4";
    case PGCB_OID_TEXT:    return "text";
    case PGCB_OID_FLOAT4:  return "float4";
    case PGCB_OID_FLOAT8:  return "float8";
    case PGCB_OID_BPCHAR:  return "bpchar";
    case PGCB_OID_VARCHAR: return "varchar";
    case PGCB_OID_NUMERIC: return "numeric";
    default:               return NULL;
    }
}

/* ---- text --------------------------------------------------------------- */

int pgcb_pq_parse_int(const char *p, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    uint64_t v = 0;

    if (len > 0 && p[0] == '-') {
        neg = 1;
        i = 1;
    }
    /* 1..19 digits: 19 nines < 2^64, so the loop cannot overflow v. */
    if (i == len || len - i > 19)
        return -1;
    for (; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)p[i] - '0';
        if (d > 9)
            return -1;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return -1;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX)
            return -1;
        *out = (int64_t)v;
    }
    return 0;
}

/* strto*_l skip leading white space; the server never sends any, and a
 * value that starts with it is not one of its forms. */
static int pq_float_start_ok(const char *p, size_t len)
{
    return len > 0 && !(p[0] == ' ' || (p[0] >= '\t' && p[0] <= '\r'));
}

int pgcb_pq_parse_float4(const char *p, size_t len, locale_t c_locale, float *out)
{
    char *end;
    float v;

    if (!pq_float_start_ok(p, len))
        return -1;
    v = strtof_l(p, &end, c_locale); /* ERANGE (denormals) is irrelevant */
    if (end != p + len)
        return -1;
    *out = v;
    return 0;
}

int pgcb_pq_parse_float8(const char *p, size_t len, locale_t c_locale, double *out)
{
    char *end;
    double v;

    if (!pq_float_start_ok(p, len))
        return -1;
    v = strtod_l(p, &end, c_locale);
    if (end != p + len)
        return -1;
    *out = v;
    return 0;
}

int pgcb_pq_parse_bool(const char *p, size_t len, int *out)
{
    if (len != 1 || (p[0] != 't' && p[0] != 'f'))
        return -1;
    *out = p[0] == 't';
    return 0;
}

int pgcb_pq_fold_text(struct pgcb_sum *s, enum pgcb_pq_kind k, const char *p, size_t len,
                      locale_t c_locale)
{
    switch (k) {
    case PGCB_PQ_TEXT:
        pgcb_sum_text(s, p, len);
        return 0;
    case PGCB_PQ_BOOL: {
        int b;
        if (pgcb_pq_parse_bool(p, len, &b))
            return -1;
        pgcb_sum_bool(s, b);
        return 0;
    }
    case PGCB_PQ_INT2:
    case PGCB_PQ_INT4:
    case PGCB_PQ_INT8: {
        int64_t v;
        if (pgcb_pq_parse_int(p, len, &v))
            return -1;
        pgcb_sum_int(s, v);
        return 0;
    }
    case PGCB_PQ_FLOAT4: {
        float f;
        if (pgcb_pq_parse_float4(p, len, c_locale, &f))
            return -1;
        pgcb_sum_float4(s, f);
        return 0;
    }
    case PGCB_PQ_FLOAT8: {
        double d;
        if (pgcb_pq_parse_float8(p, len, c_locale, &d))
            return -1;
        pgcb_sum_float8(s, d);
        return 0;
    }
    }
    return -1;
}

/* ---- binary ------------------------------------------------------------- */

/* Big-endian unsigned of n (1..8) bytes. */
static uint64_t pq_be(const char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | (unsigned char)p[i];
    return v;
}

/* Two's-complement reinterpretation of the low `bits` bits of u, without
 * implementation-defined conversions. */
static int64_t pq_signed(uint64_t u, unsigned bits)
{
    uint64_t sign = (uint64_t)1 << (bits - 1);
    if (!(u & sign))
        return (int64_t)u;
    /* negative: -(2^bits - u) == -((~u & mask) + 1) */
    uint64_t mag_minus_1 = ~u & (bits == 64 ? ~(uint64_t)0 : (sign << 1) - 1);
    return -(int64_t)mag_minus_1 - 1;
}

int pgcb_pq_fold_binary(struct pgcb_sum *s, enum pgcb_pq_kind k, const char *p, size_t len)
{
    switch (k) {
    case PGCB_PQ_TEXT:
        pgcb_sum_text(s, p, len);
        return 0;
    case PGCB_PQ_BOOL:
        if (len != 1 || (unsigned char)p[0] > 1)
            return -1;
        pgcb_sum_bool(s, p[0]);
        return 0;
    case PGCB_PQ_INT2:
        if (len != 2)
            return -1;
        pgcb_sum_int(s, pq_signed(pq_be(p, 2), 16));
        return 0;
    case PGCB_PQ_INT4:
        if (len != 4)
            return -1;
        pgcb_sum_int(s, pq_signed(pq_be(p, 4), 32));
        return 0;
    case PGCB_PQ_INT8:
        if (len != 8)
            return -1;
        pgcb_sum_int(s, pq_signed(pq_be(p, 8), 64));
        return 0;
    case PGCB_PQ_FLOAT4: {
        uint32_t bits;
        float f;
        if (len != 4)
            return -1;
        bits = (uint32_t)pq_be(p, 4);
        memcpy(&f, &bits, sizeof f);
        pgcb_sum_float4(s, f);
        return 0;
    }
    case PGCB_PQ_FLOAT8: {
        uint64_t bits;
        double d;
        if (len != 8)
            return -1;
        bits = pq_be(p, 8);
        memcpy(&d, &bits, sizeof d);
        pgcb_sum_float8(s, d);
        return 0;
    }
    }
    return -1;
}
