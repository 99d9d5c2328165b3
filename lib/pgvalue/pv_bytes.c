/*
 * pv_bytes.c -- uuid's text form, and bytea's text forms (bytea_output
 * hex, the default, and escape), decoded as they are folded.
 */
#include <pgcb/value.h>

#include "pv_stream.h"

/* Each byte's hex digit value plus one; 0: not a hex digit. */
static const unsigned char pv_hex1[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
    ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

int pgcb_value_parse_uuid(const char *p, size_t len, unsigned char out[16])
{
    /* 8-4-4-4-12 hex digits, as uuid_out prints them */
    unsigned char b[16];
    size_t k = 0;
    if (len != 36)
        return -1;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (p[i] != '-')
                return -1;
            i++;
            continue;
        }
        int hi = pv_hex1[(unsigned char)p[i]] - 1, lo = pv_hex1[(unsigned char)p[i + 1]] - 1;
        if (hi < 0 || lo < 0)
            return -1;
        b[k++] = (unsigned char)(hi << 4 | lo);
        i += 2;
    }
    memcpy(out, b, 16);
    return 0;
}

/* bytea escape format: a byte is itself, "\\" a backslash, "\ooo" an octal
 * byte. The decoded length, or -1. */
static long pv_escape_len(const char *p, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; n++) {
        if (p[i] != '\\') {
            i++;
        } else if (i + 1 < len && p[i + 1] == '\\') {
            i += 2;
        } else if (i + 3 < len && p[i + 1] >= '0' && p[i + 1] <= '3' && p[i + 2] >= '0' &&
                   p[i + 2] <= '7' && p[i + 3] >= '0' && p[i + 3] <= '7') {
            i += 4;
        } else {
            return -1;
        }
    }
    return (long)n;
}

int pgcb_value_fold_bytea_text(struct pgcb_sum *s, const char *p, size_t len)
{
    struct pv_stream st;
    uint64_t h = pgcb_sum_mix(s->hash, PGCB_TAG_BYTEA);

    if (len >= 2 && p[0] == '\\' && p[1] == 'x') {
        const unsigned char *u = (const unsigned char *)p + 2;
        size_t n = (len - 2) / 2, i = 0;
        unsigned bad = 0;
        if ((len - 2) % 2)
            return -1;
        /* one pass, a word of 8 bytes (16 digits) at a time; the hash is
         * stored only if every digit was one */
        pv_stream_start(&st, h, n);
        for (; i + 8 <= n; i += 8) {
            uint64_t w = 0;
            for (int k = 0; k < 8; k++) {
                unsigned hi = pv_hex1[u[2 * (i + k)]], lo = pv_hex1[u[2 * (i + k) + 1]];
                bad |= (hi == 0) | (lo == 0);
                w |= (uint64_t)(((hi - 1) << 4 | (lo - 1)) & 0xff) << (8 * k);
            }
            st.h = pgcb_sum_mix(st.h, w);
        }
        for (; i < n; i++) {
            unsigned hi = pv_hex1[u[2 * i]], lo = pv_hex1[u[2 * i + 1]];
            bad |= (hi == 0) | (lo == 0);
            pv_stream_put(&st, (unsigned char)((hi - 1) << 4 | (lo - 1)));
        }
        if (bad)
            return -1;
        s->hash = pv_stream_end(&st);
        return 0;
    }
    long n = pv_escape_len(p, len);
    if (n < 0)
        return -1;
    pv_stream_start(&st, h, (size_t)n);
    for (size_t i = 0; i < len;) {
        if (p[i] != '\\') {
            pv_stream_put(&st, (unsigned char)p[i++]);
        } else if (p[i + 1] == '\\') {
            pv_stream_put(&st, '\\');
            i += 2;
        } else {
            pv_stream_put(&st, (unsigned char)((p[i + 1] - '0') << 6 | (p[i + 2] - '0') << 3 |
                                               (p[i + 3] - '0')));
            i += 4;
        }
    }
    s->hash = pv_stream_end(&st);
    return 0;
}
