/*
 * pv_numeric.c -- numeric values, text and binary, folded exactly
 * (pgcb_sum_numeric: class, display scale, the digits of the unscaled
 * value) without a buffer: a numeric may have 147,455 digits.
 */
#include <pgcb/value.h>

#include "pv_stream.h"

int pgcb_value_fold_numeric_text(struct pgcb_sum *s, const char *p, size_t len)
{
    size_t i = 0, point = len, first = len, ndig;
    int neg = 0;
    struct pv_stream st;

    if (len == 3 && memcmp(p, "NaN", 3) == 0) {
        pgcb_sum_numeric(s, PGCB_NUMERIC_NAN, 0, "", 0);
        return 0;
    }
    if (len == 8 && memcmp(p, "Infinity", 8) == 0) {
        pgcb_sum_numeric(s, PGCB_NUMERIC_PINF, 0, "", 0);
        return 0;
    }
    if (len == 9 && memcmp(p, "-Infinity", 9) == 0) {
        pgcb_sum_numeric(s, PGCB_NUMERIC_NINF, 0, "", 0);
        return 0;
    }
    if (len > 0 && p[0] == '-') {
        neg = 1;
        i = 1;
    }
    /* [-]D+[.D+]: find the point and the first non-zero digit */
    if (i == len || (unsigned)(p[i] - '0') > 9)
        return -1;
    for (size_t k = i; k < len; k++) {
        if (p[k] == '.') {
            if (point != len || k + 1 == len)
                return -1;
            point = k;
        } else if ((unsigned)(p[k] - '0') > 9) {
            return -1;
        } else if (p[k] != '0' && first == len) {
            first = k;
        }
    }
    size_t scale = point == len ? 0 : len - point - 1;
    if (scale > INT32_MAX)
        return -1;
    if (first == len) {
        /* zero, of its scale: never negative */
        pgcb_sum_numeric(s, PGCB_NUMERIC_POS, (int32_t)scale, "0", 1);
        return 0;
    }
    ndig = len - first - (first < point && point != len ? 1 : 0);
    uint64_t h = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_NUMERIC),
                              neg ? PGCB_NUMERIC_NEG : PGCB_NUMERIC_POS);
    h = pgcb_sum_mix(h, (uint64_t)scale);
    pv_stream_start(&st, h, ndig);
    for (size_t k = first; k < len; k++)
        if (p[k] != '.')
            pv_stream_put(&st, (unsigned char)p[k]);
    s->hash = pv_stream_end(&st);
    return 0;
}

/* The binary form (numeric_send): ndigits, weight, sign, dscale (16 bits
 * each), then ndigits base-10000 digits; value = sum d[i] x 10000^(weight - i).
 * The digits of the display form: 4 per base-10000 group from the group of
 * weight max(weight, 0) down to the fraction's ceil(dscale / 4) groups,
 * truncated to dscale fraction digits (as numeric_out prints them). */
struct pv_num {
    const char *d;     /* the base-10000 digits, big-endian 16 bits each */
    int ndigits, weight;
    int top;           /* weight of the first group printed: max(weight, 0) */
    int64_t total;     /* decimal digits printed: 4 x (top + 1) + dscale */
};

/* The base-10000 group of weight g (0 where none is stored). */
static unsigned pv_num_group(const struct pv_num *n, int64_t g)
{
    int64_t idx = n->weight - g;
    return idx >= 0 && idx < n->ndigits ? pgcb_value_be16(n->d + 2 * idx) : 0;
}

int pgcb_value_fold_numeric_binary(struct pgcb_sum *s, const char *p, size_t len)
{
    struct pv_num n;
    unsigned sign, dscale;
    struct pv_stream st;

    if (len < 8)
        return -1;
    n.ndigits = (int16_t)pgcb_value_be16(p);
    n.weight = (int16_t)pgcb_value_be16(p + 2);
    sign = pgcb_value_be16(p + 4);
    dscale = pgcb_value_be16(p + 6);
    n.d = p + 8;
    if (n.ndigits < 0 || len != 8 + 2 * (size_t)n.ndigits)
        return -1;
    if (sign == 0xC000 || sign == 0xD000 || sign == 0xF000) {
        if (n.ndigits != 0)
            return -1;
        pgcb_sum_numeric(s, sign == 0xC000   ? PGCB_NUMERIC_NAN
                            : sign == 0xD000 ? PGCB_NUMERIC_PINF
                                             : PGCB_NUMERIC_NINF,
                         0, "", 0);
        return 0;
    }
    if ((sign != 0 && sign != 0x4000) || dscale > 0x3FFF)
        return -1;
    for (int i = 0; i < n.ndigits; i++)
        if (pgcb_value_be16(n.d + 2 * i) > 9999)
            return -1;
    n.top = n.weight > 0 ? n.weight : 0;
    n.total = 4 * ((int64_t)n.top + 1) + dscale;
    /* the printed digits, group by group from weight `top` down, the last
     * group cut to the scale; the unscaled value's digits start at the
     * first non-zero one */
    const int64_t last = -(int64_t)((dscale + 3) / 4); /* weight of the last group printed */
    const enum pgcb_numeric_class cls = sign ? PGCB_NUMERIC_NEG : PGCB_NUMERIC_POS;
    if (n.total <= 128) {
        /* the common case: the digits written out, then folded at once */
        char buf[132];
        int64_t k = 0, f = 0;
        for (int64_t g = n.top; g >= last; g--, k += 4) {
            unsigned v = pv_num_group(&n, g);
            buf[k] = (char)('0' + v / 1000);
            buf[k + 1] = (char)('0' + v / 100 % 10);
            buf[k + 2] = (char)('0' + v / 10 % 10);
            buf[k + 3] = (char)('0' + v % 10);
        }
        while (f < n.total && buf[f] == '0')
            f++;
        if (f == n.total)
            pgcb_sum_numeric(s, PGCB_NUMERIC_POS, (int32_t)dscale, "0", 1);
        else
            pgcb_sum_numeric(s, cls, (int32_t)dscale, buf + f, (size_t)(n.total - f));
        return 0;
    }
    /* a long one (up to 147,455 digits): streamed, two passes */
    int64_t first = 0, k = 0;
    for (int64_t g = n.top; g >= last; g--, k += 4) {
        unsigned v = pv_num_group(&n, g);
        if (v) {
            first = k + (v < 10 ? 3 : v < 100 ? 2 : v < 1000 ? 1 : 0);
            break;
        }
        first = k + 4;
    }
    if (first >= n.total) {
        pgcb_sum_numeric(s, PGCB_NUMERIC_POS, (int32_t)dscale, "0", 1);
        return 0;
    }
    uint64_t h = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_NUMERIC), cls);
    h = pgcb_sum_mix(h, dscale);
    pv_stream_start(&st, h, (size_t)(n.total - first));
    k = 0;
    for (int64_t g = n.top; g >= last; g--) {
        unsigned v = pv_num_group(&n, g);
        const unsigned char dig[4] = {(unsigned char)('0' + v / 1000), (unsigned char)('0' + v / 100 % 10),
                                      (unsigned char)('0' + v / 10 % 10), (unsigned char)('0' + v % 10)};
        for (int j = 0; j < 4; j++, k++)
            if (k >= first && k < n.total)
                pv_stream_put(&st, dig[j]);
    }
    s->hash = pv_stream_end(&st);
    return 0;
}
