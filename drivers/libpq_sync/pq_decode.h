/*
 * pq_decode.h -- value decoding for the libpq_sync driver: one PostgreSQL
 * value (text or binary wire format, as libpq hands it over) into its C
 * value, folded into a struct pgcb_sum.
 *
 * No libpq dependency: the functions see only bytes and type OIDs, so that
 * tests/unit/test_pq_decode.c can #include pq_decode.c and test them alone.
 * Nothing here allocates, prints or keeps state.
 *
 * Return convention: 0 on success, -1 if the bytes are not a valid value of
 * the type (the caller reports PGCB_ERR_PROTOCOL). On failure nothing has
 * been folded and *out is unchanged.
 */
#ifndef PGCB_PQ_DECODE_H
#define PGCB_PQ_DECODE_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

/* How a column's values are converted, chosen once per column from its
 * type OID (pgcb_pq_kind_of) so the hot path switches on a small enum. */
enum pgcb_pq_kind {
    PGCB_PQ_TEXT = 0, /* folded as its text: text types, numeric, the rest */
    PGCB_PQ_BOOL,
    PGCB_PQ_INT2,
    PGCB_PQ_INT4,
    PGCB_PQ_INT8,
    PGCB_PQ_FLOAT4,
    PGCB_PQ_FLOAT8
};

/* The conversion for type `oid` (PGCB_PQ_TEXT for any type not listed in
 * enum pgcb_oid as converted). */
enum pgcb_pq_kind pgcb_pq_kind_of(uint32_t oid);

/* True if values of type `oid` in binary format fold exactly as their text
 * form does: the converted types, and text/varchar/name/bpchar (whose binary
 * form is their text). False for numeric and every other type, whose binary
 * form would have to be turned into text first; the driver refuses those in
 * binary mode. */
int pgcb_pq_binary_foldable(uint32_t oid);

/* A short name for `oid` for messages ("int4", "numeric"), or NULL for a
 * type this file does not know. Static storage. */
const char *pgcb_pq_type_name(uint32_t oid);

/* --- Text format ---------------------------------------------------------
 * `p` points at `len` bytes. The float parsers additionally need p[len] ==
 * '\0' (libpq guarantees it for every value of PQgetvalue). */

/* A decimal integer as PostgreSQL prints int2/int4/int8: an optional '-'
 * then 1..19 digits, within [INT64_MIN, INT64_MAX]. No '+', no spaces, no
 * locale. */
int pgcb_pq_parse_int(const char *p, size_t len, int64_t *out);

/* float4/float8 as PostgreSQL prints them, including "NaN", "Infinity" and
 * "-Infinity", parsed in locale `c_locale` (which must be the "C" locale:
 * the server always writes '.'). Correctly rounded (strtof_l/strtod_l). */
int pgcb_pq_parse_float4(const char *p, size_t len, locale_t c_locale, float *out);
int pgcb_pq_parse_float8(const char *p, size_t len, locale_t c_locale, double *out);

/* "t" or "f". */
int pgcb_pq_parse_bool(const char *p, size_t len, int *out);

/* Convert one non-NULL text-format value of kind `k` and fold it into *s. */
int pgcb_pq_fold_text(struct pgcb_sum *s, enum pgcb_pq_kind k, const char *p, size_t len,
                      locale_t c_locale);

/* --- Binary format -------------------------------------------------------
 * Network byte order; the length must be exactly the type's width (2/4/8 for
 * the integers, 4/8 for the floats, 1 for bool). PGCB_PQ_TEXT columns are
 * folded as they are (only valid for pgcb_pq_binary_foldable types). */
int pgcb_pq_fold_binary(struct pgcb_sum *s, enum pgcb_pq_kind k, const char *p, size_t len);

#endif /* PGCB_PQ_DECODE_H */
