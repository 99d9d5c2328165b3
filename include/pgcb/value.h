/*
 * pgcb/value.h -- one PostgreSQL value, as the server sends it (text or
 * binary wire format), converted into its C value and folded into a struct
 * pgcb_sum, exactly as the shipped drivers fold it. Optional for a driver
 * author (driver.h is the ABI); with it, a driver's checksums match the
 * shipped drivers' by construction.
 *
 * Use: once per statement, for each result column of type `oid` (from
 * RowDescription, or PQftype), pick the format code to ask for
 * (pgcb_value_format) and the conversion (pgcb_value_kind_of); then, in
 * run_batch, for each non-NULL value call pgcb_value_fold() with the
 * column's kind (pgcb_sum_null for a NULL, pgcb_sum_row after each row).
 *
 * The types of ABI 1.0 (bool, integers, floats, text) are static inline
 * (but for the text float parsers): the hot path switches once per value on
 * a small enum and is inlined into the driver's row loop. The types of ABI
 * 1.4 (dates and times, interval, uuid, numeric, json, bytea, arrays) are
 * converted out of line, in lib/pgvalue, which a driver using this header
 * links. Nothing allocates, prints or keeps state; bytes are never read
 * past `len` and need not be NUL-terminated.
 *
 * Return convention of the parsers and of pgcb_value_fold: 0 on success;
 * -1 if the bytes are not a valid value of the type (a driver reports
 * PGCB_ERR_PROTOCOL), and then nothing has been folded and *out is
 * unchanged.
 *
 * Text floats are parsed with strtof_l/strtod_l in a "C" locale_t the
 * driver creates once per connection (newlocale(LC_ALL_MASK, "C", 0)): the
 * server always writes '.', and the global locale is not the driver's to
 * read or set.
 *
 * Feature macro: strtof_l and strtod_l are GNU extensions, which glibc (and
 * musl) declare only with _GNU_SOURCE (locale_t and newlocale need POSIX
 * 2008, which _GNU_SOURCE includes); plain -std=c11 declares neither. Compile
 * with -D_GNU_SOURCE, which `pkg-config --cflags pgclientbench` adds, or
 * #define _GNU_SOURCE before the file's first #include. Without it this
 * header stops with an #error that says so, not with an unknown locale_t.
 */
#ifndef PGCB_VALUE_H
#define PGCB_VALUE_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A feature macro counts only if it was defined before the first system
 * header, which is what glibc's __USE_GNU records (<features.h>, included
 * by <locale.h> above); elsewhere on Linux (musl), _GNU_SOURCE itself. */
#if (defined(__GLIBC__) && !defined(__USE_GNU)) || \
    (!defined(__GLIBC__) && defined(__linux__) && !defined(_GNU_SOURCE))
#error "pgcb/value.h needs strtof_l, strtod_l and locale_t, declared only with _GNU_SOURCE: compile with -D_GNU_SOURCE (pkg-config --cflags pgclientbench adds it) or #define _GNU_SOURCE before the first #include"
#else /* the rest of the header: skipped after the #error, so that it is the only message */

#include "driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the values of one column are converted: its type and its wire format
 * together, so that folding a value is one switch. Chosen per column by
 * pgcb_value_kind_of. A driver may store it in an unsigned char. */
enum pgcb_value_kind {
    PGCB_VALUE_TEXT = 0, /* folded as its bytes (pgcb_sum_text): the text types in
                            either format; any type not below, in text */
    PGCB_VALUE_T_BOOL,   /* text "t" or "f" */
    PGCB_VALUE_T_INT,    /* text int2, int4 or int8 (pgcb_value_parse_int) */
    PGCB_VALUE_T_FLOAT4, /* text float4 (pgcb_value_parse_float4) */
    PGCB_VALUE_T_FLOAT8, /* text float8 (pgcb_value_parse_float8) */
    PGCB_VALUE_B_BOOL,   /* binary bool: 1 byte, 0 or 1 */
    PGCB_VALUE_B_INT2,   /* binary integers and floats: big-endian, exactly */
    PGCB_VALUE_B_INT4,   /* the type's width (2, 4, 8; 4, 8) */
    PGCB_VALUE_B_INT8,
    PGCB_VALUE_B_FLOAT4,
    PGCB_VALUE_B_FLOAT8,
    /* ABI 1.4: converted by lib/pgvalue (pgcb_value_fold_more), each into
     * its tag's value (driver.h). Text: */
    PGCB_VALUE_T_TIMESTAMP,   /* DateStyle ISO: 2000-01-01 12:00:00.5[ BC] */
    PGCB_VALUE_T_TIMESTAMPTZ, /* the same with the offset the server printed */
    PGCB_VALUE_T_DATE,
    PGCB_VALUE_T_TIME,
    PGCB_VALUE_T_INTERVAL,    /* IntervalStyle postgres: 1 year 2 mons -3 days 04:05:06 */
    PGCB_VALUE_T_UUID,
    PGCB_VALUE_T_NUMERIC,     /* digits, scale, NaN, Infinity, -Infinity */
    PGCB_VALUE_JSON,          /* json in either format, jsonb in text: the text */
    PGCB_VALUE_T_BYTEA,       /* bytea_output hex (\x...) or escape */
    PGCB_VALUE_T_ARRAY_INT,   /* int4[] and int8[] (array_out: {1,NULL,3}) */
    PGCB_VALUE_T_ARRAY_TEXT,  /* text[]: quoted and escaped elements */
    PGCB_VALUE_T_ARRAY_FLOAT8,
    /* binary: */
    PGCB_VALUE_B_TIMESTAMP,   /* int64 us since 2000-01-01 */
    PGCB_VALUE_B_TIMESTAMPTZ,
    PGCB_VALUE_B_DATE,        /* int32 days since 2000-01-01 */
    PGCB_VALUE_B_TIME,        /* int64 us */
    PGCB_VALUE_B_INTERVAL,    /* int64 us, int32 days, int32 months */
    PGCB_VALUE_B_UUID,        /* 16 bytes */
    PGCB_VALUE_B_NUMERIC,     /* ndigits, weight, sign, dscale, base-10000 digits */
    PGCB_VALUE_B_JSONB,       /* version byte 1, then the text */
    PGCB_VALUE_B_BYTEA,       /* the bytes */
    PGCB_VALUE_B_ARRAY_INT4,  /* array_send: ndim, flags, element type, dims, elements */
    PGCB_VALUE_B_ARRAY_INT8,
    PGCB_VALUE_B_ARRAY_TEXT,
    PGCB_VALUE_B_ARRAY_FLOAT8
};
/* The number of kinds (they are 0 .. PGCB_VALUE_NKINDS - 1). */
#define PGCB_VALUE_NKINDS (PGCB_VALUE_B_ARRAY_FLOAT8 + 1)
/* The first kind pgcb_value_fold() leaves to pgcb_value_fold_more(). */
#define PGCB_VALUE_FIRST_MORE PGCB_VALUE_T_TIMESTAMP

/* What pgcb_value_fold() returns for a valid value that it does not fold:
 * an array of more than one dimension (a driver reports
 * PGCB_ERR_UNSUPPORTED). */
#define PGCB_VALUE_UNSUPPORTED (-2)

/* ---- per column ---------------------------------------------------------- */

/* True if values of type `oid` are converted in binary format too (the
 * kinds PGCB_VALUE_B_*, and the text types, whose binary form is their text
 * in the client encoding): every type pgcb_value_kind_of knows. False for
 * any other type, which is folded as its text form: ask for those in text. */
static inline int pgcb_value_binary_foldable(uint32_t oid)
{
    switch (oid) {
    case PGCB_OID_BOOL:
    case PGCB_OID_INT2:
    case PGCB_OID_INT4:
    case PGCB_OID_INT8:
    case PGCB_OID_FLOAT4:
    case PGCB_OID_FLOAT8:
    case PGCB_OID_TEXT:
    case PGCB_OID_VARCHAR:
    case PGCB_OID_NAME:
    case PGCB_OID_BPCHAR:
    case PGCB_OID_NUMERIC:
    case PGCB_OID_BYTEA:
    case PGCB_OID_JSON:
    case PGCB_OID_JSONB:
    case PGCB_OID_DATE:
    case PGCB_OID_TIME:
    case PGCB_OID_TIMESTAMP:
    case PGCB_OID_TIMESTAMPTZ:
    case PGCB_OID_INTERVAL:
    case PGCB_OID_UUID:
    case PGCB_OID_INT4_ARRAY:
    case PGCB_OID_INT8_ARRAY:
    case PGCB_OID_TEXT_ARRAY:
    case PGCB_OID_FLOAT8_ARRAY:
        return 1;
    default:
        return 0;
    }
}

/* The result format code (0 text, 1 binary) to ask for a column of type
 * `oid` in, for a driver that prefers binary results (`binary` non-zero) or
 * text: binary only where pgcb_value_binary_foldable. A driver that can only
 * ask for one format for all columns (libpq's resultFormat) refuses a
 * statement with a column where this is not its format. */
static inline int pgcb_value_format(uint32_t oid, int binary)
{
    return binary && pgcb_value_binary_foldable(oid);
}

/* The conversion of a column of type `oid` whose values arrive in binary
 * (`binary` non-zero) or text format. A type that pgcb_value_format keeps
 * in text is PGCB_VALUE_TEXT either way, so a driver may pass the same
 * preference it passed to pgcb_value_format. */
static inline enum pgcb_value_kind pgcb_value_kind_of(uint32_t oid, int binary)
{
    switch (oid) {
    case PGCB_OID_BOOL:   return binary ? PGCB_VALUE_B_BOOL : PGCB_VALUE_T_BOOL;
    case PGCB_OID_INT2:   return binary ? PGCB_VALUE_B_INT2 : PGCB_VALUE_T_INT;
    case PGCB_OID_INT4:   return binary ? PGCB_VALUE_B_INT4 : PGCB_VALUE_T_INT;
    case PGCB_OID_INT8:   return binary ? PGCB_VALUE_B_INT8 : PGCB_VALUE_T_INT;
    case PGCB_OID_FLOAT4: return binary ? PGCB_VALUE_B_FLOAT4 : PGCB_VALUE_T_FLOAT4;
    case PGCB_OID_FLOAT8: return binary ? PGCB_VALUE_B_FLOAT8 : PGCB_VALUE_T_FLOAT8;
    case PGCB_OID_TIMESTAMP:   return binary ? PGCB_VALUE_B_TIMESTAMP : PGCB_VALUE_T_TIMESTAMP;
    case PGCB_OID_TIMESTAMPTZ: return binary ? PGCB_VALUE_B_TIMESTAMPTZ : PGCB_VALUE_T_TIMESTAMPTZ;
    case PGCB_OID_DATE:        return binary ? PGCB_VALUE_B_DATE : PGCB_VALUE_T_DATE;
    case PGCB_OID_TIME:        return binary ? PGCB_VALUE_B_TIME : PGCB_VALUE_T_TIME;
    case PGCB_OID_INTERVAL:    return binary ? PGCB_VALUE_B_INTERVAL : PGCB_VALUE_T_INTERVAL;
    case PGCB_OID_UUID:        return binary ? PGCB_VALUE_B_UUID : PGCB_VALUE_T_UUID;
    case PGCB_OID_NUMERIC:     return binary ? PGCB_VALUE_B_NUMERIC : PGCB_VALUE_T_NUMERIC;
    case PGCB_OID_JSON:        return PGCB_VALUE_JSON;
    case PGCB_OID_JSONB:       return binary ? PGCB_VALUE_B_JSONB : PGCB_VALUE_JSON;
    case PGCB_OID_BYTEA:       return binary ? PGCB_VALUE_B_BYTEA : PGCB_VALUE_T_BYTEA;
    case PGCB_OID_INT4_ARRAY:  return binary ? PGCB_VALUE_B_ARRAY_INT4 : PGCB_VALUE_T_ARRAY_INT;
    case PGCB_OID_INT8_ARRAY:  return binary ? PGCB_VALUE_B_ARRAY_INT8 : PGCB_VALUE_T_ARRAY_INT;
    case PGCB_OID_TEXT_ARRAY:  return binary ? PGCB_VALUE_B_ARRAY_TEXT : PGCB_VALUE_T_ARRAY_TEXT;
    case PGCB_OID_FLOAT8_ARRAY:
        return binary ? PGCB_VALUE_B_ARRAY_FLOAT8 : PGCB_VALUE_T_ARRAY_FLOAT8;
    default:              return PGCB_VALUE_TEXT;
    }
}

/* True if kind `k` reads the binary format (PGCB_VALUE_JSON, which reads
 * json's either way, counts as text), for messages. */
static inline int pgcb_value_kind_binary(enum pgcb_value_kind k)
{
    return (k >= PGCB_VALUE_B_BOOL && k <= PGCB_VALUE_B_FLOAT8) || k >= PGCB_VALUE_B_TIMESTAMP;
}

/* A short name of type `oid` for messages ("int4", "numeric"), or NULL for
 * a type not in enum pgcb_oid. Static storage. */
static inline const char *pgcb_value_type_name(uint32_t oid)
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
    case PGCB_OID_BYTEA:       return "bytea";
    case PGCB_OID_JSON:        return "json";
    case PGCB_OID_JSONB:       return "jsonb";
    case PGCB_OID_DATE:        return "date";
    case PGCB_OID_TIME:        return "time";
    case PGCB_OID_TIMESTAMP:   return "timestamp";
    case PGCB_OID_TIMESTAMPTZ: return "timestamptz";
    case PGCB_OID_INTERVAL:    return "interval";
    case PGCB_OID_UUID:        return "uuid";
    case PGCB_OID_INT4_ARRAY:  return "int4[]";
    case PGCB_OID_INT8_ARRAY:  return "int8[]";
    case PGCB_OID_TEXT_ARRAY:  return "text[]";
    case PGCB_OID_FLOAT8_ARRAY: return "float8[]";
    default:               return NULL;
    }
}

/* ---- text format ----------------------------------------------------------
 * `p` points at `len` bytes, as PostgreSQL prints the type. */

/* int2/int4/int8: an optional '-' then 1..19 digits, within
 * [INT64_MIN, INT64_MAX]. No '+', no spaces, no locale. */
static inline int pgcb_value_parse_int(const char *p, size_t len, int64_t *out)
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

/* bool: "t" or "f". */
static inline int pgcb_value_parse_bool(const char *p, size_t len, int *out)
{
    if (len != 1 || (p[0] != 't' && p[0] != 'f'))
        return -1;
    *out = p[0] == 't';
    return 0;
}

/* The longest text float accepted, in bytes (PostgreSQL prints at most 24). */
#define PGCB_VALUE_FLOAT_MAXLEN 63

/* Copy a text float into buf (PGCB_VALUE_FLOAT_MAXLEN + 1 bytes) with a NUL
 * for strto*_l. -1 if it is empty, too long, or starts with white space
 * (which strto*_l would skip; the server never sends it). */
static inline int pgcb_value_float_copy(const char *p, size_t len, char *buf)
{
    if (len == 0 || len > PGCB_VALUE_FLOAT_MAXLEN || p[0] == ' ' ||
        (p[0] >= '\t' && p[0] <= '\r'))
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return 0;
}

/* float4/float8, including "NaN", "Infinity" and "-Infinity", correctly
 * rounded (strtof_l, not a rounded strtod), in `c_locale`, which must be the
 * "C" locale. At most PGCB_VALUE_FLOAT_MAXLEN bytes, all of them consumed.
 * Denormals parse (strto*_l's ERANGE is ignored).
 * Not inlined (`unused`: no warning in a file that does not call them):
 * inlined into pgcb_value_fold, their buffer and library call took
 * registers from the row loop around it, which cost rawwire 4 instructions
 * a row of the benchmark query (which has no float), for nothing next to
 * the cost of strto*_l. */
__attribute__((noinline, unused)) static int pgcb_value_parse_float4(const char *p, size_t len,
                                                                     locale_t c_locale, float *out)
{
    char buf[PGCB_VALUE_FLOAT_MAXLEN + 1], *end;
    float v;

    if (pgcb_value_float_copy(p, len, buf))
        return -1;
    v = strtof_l(buf, &end, c_locale);
    if (end != buf + len)
        return -1;
    *out = v;
    return 0;
}

__attribute__((noinline, unused)) static int pgcb_value_parse_float8(const char *p, size_t len,
                                                                     locale_t c_locale, double *out)
{
    char buf[PGCB_VALUE_FLOAT_MAXLEN + 1], *end;
    double v;

    if (pgcb_value_float_copy(p, len, buf))
        return -1;
    v = strtod_l(buf, &end, c_locale);
    if (end != buf + len)
        return -1;
    *out = v;
    return 0;
}

/* ---- binary format --------------------------------------------------------- */

/* The big-endian unsigned integers of 2, 4 and 8 bytes at p, spelled out
 * byte by byte (compilers make each one load and a byte swap; a loop over
 * n bytes stays a loop at -O2). */
static inline uint16_t pgcb_value_be16(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint16_t)(u[0] << 8 | u[1]);
}

static inline uint32_t pgcb_value_be32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static inline uint64_t pgcb_value_be64(const char *p)
{
    return (uint64_t)pgcb_value_be32(p) << 32 | pgcb_value_be32(p + 4);
}

/* The 2-, 4- and 8-byte big-endian two's-complement integers at p, read
 * through the exact-width types (two's complement by definition: no
 * implementation-defined conversion; a sign extension once compiled). */
static inline int64_t pgcb_value_be_int2(const char *p)
{
    uint16_t u = pgcb_value_be16(p);
    int16_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static inline int64_t pgcb_value_be_int4(const char *p)
{
    uint32_t u = pgcb_value_be32(p);
    int32_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static inline int64_t pgcb_value_be_int8(const char *p)
{
    uint64_t u = pgcb_value_be64(p);
    int64_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* ---- the types of ABI 1.4: lib/pgvalue --------------------------------------
 * Not inline: a driver that includes this header links lib/pgvalue
 * (libpgvalue.a in the tree; `pkg-config --libs pgclientbench` names the
 * installed copy, libpgcbvalue.a). Each returns 0, or -1 for bytes that are
 * not a valid value of the type (then nothing is folded, *out unchanged). */

/* date: YYYY-MM-DD[ BC] (4 to 7 year digits), infinity, -infinity -> days
 * since 2000-01-01 (INT32_MAX, INT32_MIN). */
int pgcb_value_parse_date(const char *p, size_t len, int32_t *out);
/* time: HH:MM:SS[.ffffff], at most 24:00:00 -> microseconds. */
int pgcb_value_parse_time(const char *p, size_t len, int64_t *out);
/* timestamp (with_zone 0) or timestamptz (1): the date, ' ', the time, for
 * timestamptz the offset (+HH[:MM[:SS]], required), then [ BC]; infinity,
 * -infinity -> microseconds since 2000-01-01 (UTC for timestamptz;
 * INT64_MAX, INT64_MIN). ISO 8601's 'T' is taken for the ' '. */
int pgcb_value_parse_timestamp(const char *p, size_t len, int with_zone, int64_t *out);
/* interval, IntervalStyle postgres: [N year(s)] [N mon(s)] [N day(s)]
 * [[+-]H:MM:SS[.f]] -> its three fields (months = years x 12 + mons). */
int pgcb_value_parse_interval(const char *p, size_t len, int64_t *us, int32_t *days,
                              int32_t *months);
/* uuid: 8-4-4-4-12 hex digits (either case) -> its 16 bytes. */
int pgcb_value_parse_uuid(const char *p, size_t len, unsigned char out[16]);

/* Fold one numeric (pgcb_sum_numeric), in text or binary form; bytea in
 * text form (hex or escape); a one-dimensional array in text (kind
 * PGCB_VALUE_T_ARRAY_*) or binary (PGCB_VALUE_B_ARRAY_*) form. 0, -1, or
 * PGCB_VALUE_UNSUPPORTED for an array of two or more dimensions. */
int pgcb_value_fold_numeric_text(struct pgcb_sum *s, const char *p, size_t len);
int pgcb_value_fold_numeric_binary(struct pgcb_sum *s, const char *p, size_t len);
int pgcb_value_fold_bytea_text(struct pgcb_sum *s, const char *p, size_t len);
int pgcb_value_fold_array_text(struct pgcb_sum *s, enum pgcb_value_kind k, const char *p,
                               size_t len, locale_t c_locale);
int pgcb_value_fold_array_binary(struct pgcb_sum *s, enum pgcb_value_kind k, const char *p,
                                 size_t len);

/* Fold one value of a kind from PGCB_VALUE_FIRST_MORE on (pgcb_value_fold
 * calls it for those): as pgcb_value_fold. */
int pgcb_value_fold_more(struct pgcb_sum *s, enum pgcb_value_kind k, const char *p, size_t len,
                         locale_t c_locale);

/* ---- folding ---------------------------------------------------------------- */

/* Convert one non-NULL value of kind `k` (`len` bytes at p) and fold it
 * into *s. `c_locale` is read only for the text floats. 0, -1 (malformed),
 * or PGCB_VALUE_UNSUPPORTED (a valid value it does not fold). */
static inline int pgcb_value_fold(struct pgcb_sum *s, enum pgcb_value_kind k, const char *p,
                                  size_t len, locale_t c_locale)
{
    switch (k) {
    case PGCB_VALUE_TEXT:
        pgcb_sum_text(s, p, len);
        return 0;
    case PGCB_VALUE_T_BOOL: {
        int b;
        if (pgcb_value_parse_bool(p, len, &b))
            return -1;
        pgcb_sum_bool(s, b);
        return 0;
    }
    case PGCB_VALUE_T_INT: {
        int64_t v;
        if (pgcb_value_parse_int(p, len, &v))
            return -1;
        pgcb_sum_int(s, v);
        return 0;
    }
    case PGCB_VALUE_T_FLOAT4: {
        float f;
        if (pgcb_value_parse_float4(p, len, c_locale, &f))
            return -1;
        pgcb_sum_float4(s, f);
        return 0;
    }
    case PGCB_VALUE_T_FLOAT8: {
        double d;
        if (pgcb_value_parse_float8(p, len, c_locale, &d))
            return -1;
        pgcb_sum_float8(s, d);
        return 0;
    }
    case PGCB_VALUE_B_BOOL:
        if (len != 1 || (unsigned char)p[0] > 1)
            return -1;
        pgcb_sum_bool(s, p[0]);
        return 0;
    case PGCB_VALUE_B_INT2:
        if (len != 2)
            return -1;
        pgcb_sum_int(s, pgcb_value_be_int2(p));
        return 0;
    case PGCB_VALUE_B_INT4:
        if (len != 4)
            return -1;
        pgcb_sum_int(s, pgcb_value_be_int4(p));
        return 0;
    case PGCB_VALUE_B_INT8:
        if (len != 8)
            return -1;
        pgcb_sum_int(s, pgcb_value_be_int8(p));
        return 0;
    case PGCB_VALUE_B_FLOAT4: {
        uint32_t bits;
        float f;
        if (len != 4)
            return -1;
        bits = pgcb_value_be32(p);
        memcpy(&f, &bits, sizeof f);
        pgcb_sum_float4(s, f);
        return 0;
    }
    case PGCB_VALUE_B_FLOAT8: {
        uint64_t bits;
        double d;
        if (len != 8)
            return -1;
        bits = pgcb_value_be64(p);
        memcpy(&d, &bits, sizeof d);
        pgcb_sum_float8(s, d);
        return 0;
    }
    default: {
        /* the kinds of ABI 1.4: out of line, so that this switch (inlined
         * into every driver's row loop) stays as small as before them. On
         * a copy: the caller's sum, whose address never reaches the call,
         * can stay in registers across the row. */
        struct pgcb_sum t = *s;
        int r = pgcb_value_fold_more(&t, k, p, len, c_locale);
        *s = t;
        return r;
    }
    }
}

#ifdef __cplusplus
}
#endif

#endif /* _GNU_SOURCE check */
#endif /* PGCB_VALUE_H */
