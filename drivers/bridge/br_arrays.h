/*
 * br_arrays.h -- the arrays of a run or load reply (samples, rows, folds of
 * n batches or queries), decoded from the arrays frame or the reply's JSON.
 */
#ifndef BR_ARRAYS_H
#define BR_ARRAYS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The samples, rows and folds of the n entries reply r accounts for, into
 * the caller's arrays (n each): from the arrays frame `arr` of arr_len
 * bytes that followed it (exactly 20 x n: the n samples, then the n rows,
 * as little-endian unsigned 8-byte integers, then the n folds as
 * little-endian unsigned 4-byte integers), or, with arr_len 0, from its
 * "samples", "rows" and "folds" fields: JSON arrays of integers or the
 * base64 of the same little-endian integers. 0, or -1 with why. */
int br_arrays_decode(const char *arr, size_t arr_len, const json_t *r, size_t n,
                     uint64_t *samples, uint64_t *rows, uint32_t *folds, char *why,
                     size_t whylen);

#endif
