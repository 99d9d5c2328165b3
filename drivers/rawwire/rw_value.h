/*
 * rw_value.h -- one column value, as the server sent it (text or binary
 * format), converted into its C value and folded into a struct pgcb_sum with
 * the helpers of driver.h, exactly as libpq_sync folds it.
 *
 * A column's conversion is chosen once per statement (rw_kind_of) as one
 * small enum that combines type and wire format, so the hot path switches
 * once per value. rw_fold_value is inline for the DataRow loop.
 *
 * The bytes need not be NUL-terminated and are never read past `len`.
 * Return convention: 0 folded; -1 the bytes are not a valid value of the
 * type (the caller reports PGCB_ERR_PROTOCOL). Nothing allocates.
 */
#ifndef RW_VALUE_H
#define RW_VALUE_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <pgcb/driver.h>

enum rw_kind {
    RW_K_TEXT = 0, /* fold the bytes as text: text types either format, numeric and others in text */
    RW_K_T_BOOL,
    RW_K_T_INT,
    RW_K_T_FLOAT4,
    RW_K_T_FLOAT8,
    RW_K_B_BOOL,
    RW_K_B_INT2,
    RW_K_B_INT4,
    RW_K_B_INT8,
    RW_K_B_FLOAT4,
    RW_K_B_FLOAT8
};

/* The conversion of a column of type `oid` when the driver wants `binary`
 * results, and in *format the result format code to ask for it in Bind (0
 * text, 1 binary). In binary mode, types whose binary form is not their
 * folded value (numeric, dates, anything not converted) are asked for in
 * text: their text form is what every driver folds. */
enum rw_kind rw_kind_of(uint32_t oid, int binary, int16_t *format);

/* Text forms, as PostgreSQL prints them (see libpq_sync's pq_decode.h). */
int rw_parse_float4(const char *p, size_t len, locale_t c_locale, float *out);
int rw_parse_float8(const char *p, size_t len, locale_t c_locale, double *out);

/* A decimal int2/int4/int8 as PostgreSQL prints it: optional '-', 1..19
 * digits, within int64. */
static inline int rw_parse_int(const char *p, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    uint64_t v = 0;

    if (len > 0 && p[0] == '-') {
        neg = 1;
        i = 1;
    }
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

static inline uint64_t rw_be_n(const char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | (unsigned char)p[i];
    return v;
}

static inline int rw_fold_value(struct pgcb_sum *s, enum rw_kind k, const char *p, size_t len,
                                locale_t c_locale)
{
    switch (k) {
    case RW_K_TEXT:
        pgcb_sum_text(s, p, len);
        return 0;
    case RW_K_T_BOOL:
        if (len != 1 || (p[0] != 't' && p[0] != 'f'))
            return -1;
        pgcb_sum_bool(s, p[0] == 't');
        return 0;
    case RW_K_T_INT: {
        int64_t v;
        if (rw_parse_int(p, len, &v))
            return -1;
        pgcb_sum_int(s, v);
        return 0;
    }
    case RW_K_T_FLOAT4: {
        float f;
        if (rw_parse_float4(p, len, c_locale, &f))
            return -1;
        pgcb_sum_float4(s, f);
        return 0;
    }
    case RW_K_T_FLOAT8: {
        double d;
        if (rw_parse_float8(p, len, c_locale, &d))
            return -1;
        pgcb_sum_float8(s, d);
        return 0;
    }
    case RW_K_B_BOOL:
        if (len != 1 || (unsigned char)p[0] > 1)
            return -1;
        pgcb_sum_bool(s, p[0]);
        return 0;
    case RW_K_B_INT2:
        if (len != 2)
            return -1;
        pgcb_sum_int(s, (int16_t)rw_be_n(p, 2));
        return 0;
    case RW_K_B_INT4:
        if (len != 4)
            return -1;
        pgcb_sum_int(s, (int32_t)(uint32_t)rw_be_n(p, 4));
        return 0;
    case RW_K_B_INT8:
        if (len != 8)
            return -1;
        pgcb_sum_int(s, (int64_t)rw_be_n(p, 8));
        return 0;
    case RW_K_B_FLOAT4: {
        uint32_t bits;
        float f;
        if (len != 4)
            return -1;
        bits = (uint32_t)rw_be_n(p, 4);
        memcpy(&f, &bits, sizeof f);
        pgcb_sum_float4(s, f);
        return 0;
    }
    case RW_K_B_FLOAT8: {
        uint64_t bits;
        double d;
        if (len != 8)
            return -1;
        bits = rw_be_n(p, 8);
        memcpy(&d, &bits, sizeof d);
        pgcb_sum_float8(s, d);
        return 0;
    }
    }
    return -1;
}

#endif /* RW_VALUE_H */
