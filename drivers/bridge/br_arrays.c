/*
 * br_arrays.c -- the samples, rows and folds a run or load reply accounts
 * for, decoded: from the arrays frame that followed the reply, or from its
 * JSON arrays or base64 strings (docs/bridge-protocol.md, "run"). No
 * connection: tests/unit/test_vectors.c checks it against the shared
 * vectors of tests/vectors/frames.json, which every adapter's self-test
 * reproduces.
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

#include "br_arrays.h"

/* `n` unsigned integers of `width` bytes (8 or 4) from v: a JSON array of
 * integers, or the base64 of their little-endian bytes. Into dst64 (width
 * 8) or dst32 (width 4). 0, or -1 with why. */
static int br_uints(const json_t *v, size_t n, int width, uint64_t *dst64, uint32_t *dst32,
                    const char *key, char *why, size_t whylen)
{
    if (json_is_array(v)) {
        if (json_array_size(v) != n) {
            snprintf(why, whylen, "\"%s\" has %zu entries, not %zu", key, json_array_size(v), n);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            const json_t *e = json_array_get(v, i);
            json_int_t x = json_integer_value(e);
            if (!json_is_integer(e) || x < 0 || (width == 4 && x > (json_int_t)UINT32_MAX)) {
                snprintf(why, whylen, "\"%s\"[%zu] is not an unsigned %d-bit integer", key, i,
                         width * 8);
                return -1;
            }
            if (width == 8)
                dst64[i] = (uint64_t)x;
            else
                dst32[i] = (uint32_t)x;
        }
        return 0;
    }
    if (!json_is_string(v)) {
        snprintf(why, whylen, "\"%s\" is neither an array nor a base64 string", key);
        return -1;
    }
    size_t bytes = n * (size_t)width, len = json_string_length(v);
    size_t want = (bytes + 2) / 3 * 4;
    if (len != want) {
        snprintf(why, whylen, "\"%s\" is %zu base64 characters; %zu little-endian %d-byte "
                 "integers take %zu", key, len, n, width, want);
        return -1;
    }
    if (n == 0)
        return 0;
    unsigned char *raw = malloc(len / 4 * 3 + 3);
    if (!raw) {
        snprintf(why, whylen, "out of memory decoding \"%s\"", key);
        return -1;
    }
    int got = EVP_DecodeBlock(raw, (const unsigned char *)json_string_value(v), (int)len);
    if (got < 0 || (size_t)got < bytes) {
        free(raw);
        snprintf(why, whylen, "\"%s\" is not valid base64", key);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t x = 0;
        for (int b = width - 1; b >= 0; b--)
            x = x << 8 | raw[i * (size_t)width + (size_t)b];
        if (width == 8)
            dst64[i] = x;
        else
            dst32[i] = (uint32_t)x;
    }
    free(raw);
    return 0;
}

int br_arrays_decode(const char *arr, size_t arr_len, const json_t *r, size_t n,
                     uint64_t *samples, uint64_t *rows, uint32_t *folds, char *why,
                     size_t whylen)
{
    if (arr_len == 0)
        return br_uints(json_object_get(r, "samples"), n, 8, samples, NULL, "samples", why,
                        whylen) ||
               br_uints(json_object_get(r, "rows"), n, 8, rows, NULL, "rows", why, whylen) ||
               br_uints(json_object_get(r, "folds"), n, 4, NULL, folds, "folds", why, whylen)
                   ? -1 : 0;
    if (arr_len != 20 * n) {
        snprintf(why, whylen, "the arrays frame has %zu bytes; %zu batches take %zu", arr_len,
                 n, 20 * n);
        return -1;
    }
    const unsigned char *p = (const unsigned char *)arr;
    for (size_t i = 0; i < n; i++) {
        uint64_t s = 0, w = 0;
        for (int b = 7; b >= 0; b--) {
            s = s << 8 | p[8 * i + (size_t)b];
            w = w << 8 | p[8 * (n + i) + (size_t)b];
        }
        samples[i] = s;
        rows[i] = w;
        const unsigned char *f = p + 16 * n + 4 * i;
        folds[i] = (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 |
                   (uint32_t)f[3] << 24;
    }
    return 0;
}

