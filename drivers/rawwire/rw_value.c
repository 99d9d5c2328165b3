/*
 * rw_value.c -- see rw_value.h.
 */
#include "rw_value.h"

#include <stdlib.h>

enum rw_kind rw_kind_of(uint32_t oid, int binary, int16_t *format)
{
    *format = binary ? 1 : 0;
    switch (oid) {
    case PGCB_OID_BOOL:   return binary ? RW_K_B_BOOL : RW_K_T_BOOL;
    case PGCB_OID_INT2:   return binary ? RW_K_B_INT2 : RW_K_T_INT;
    case PGCB_OID_INT4:   return binary ? RW_K_B_INT4 : RW_K_T_INT;
    case PGCB_OID_INT8:   return binary ? RW_K_B_INT8 : RW_K_T_INT;
    case PGCB_OID_FLOAT4: return binary ? RW_K_B_FLOAT4 : RW_K_T_FLOAT4;
    case PGCB_OID_FLOAT8: return binary ? RW_K_B_FLOAT8 : RW_K_T_FLOAT8;
    case PGCB_OID_TEXT:
    case PGCB_OID_VARCHAR:
    case PGCB_OID_NAME:
    case PGCB_OID_BPCHAR:
        return RW_K_TEXT; /* binary form == text form (client encoding) */
    default:
        *format = 0;      /* numeric and the rest: their text form, always */
        return RW_K_TEXT;
    }
}

/* Copy a text float (no leading white space, at most 63 bytes: the longest
 * float8 PostgreSQL prints is 24) into a NUL-terminated buffer for strto*_l,
 * which must consume all of it. */
static int rw_float_copy(const char *p, size_t len, char *buf, size_t cap)
{
    if (len == 0 || len >= cap || p[0] == ' ' || (p[0] >= '\t' && p[0] <= '\r'))
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return 0;
}

int rw_parse_float4(const char *p, size_t len, locale_t c_locale, float *out)
{
    char buf[64], *end;
    float v;

    if (rw_float_copy(p, len, buf, sizeof buf))
        return -1;
    v = strtof_l(buf, &end, c_locale);
    if (end != buf + len)
        return -1;
    *out = v;
    return 0;
}

int rw_parse_float8(const char *p, size_t len, locale_t c_locale, double *out)
{
    char buf[64], *end;
    double v;

    if (rw_float_copy(p, len, buf, sizeof buf))
        return -1;
    v = strtod_l(buf, &end, c_locale);
    if (end != buf + len)
        return -1;
    *out = v;
    return 0;
}
