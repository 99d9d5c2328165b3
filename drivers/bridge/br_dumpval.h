/*
 * br_dumpval.h -- one dumped value (docs/bridge-protocol.md, "Dumps")
 * folded into a struct pgcb_sum by the type OID of its column, as
 * libpq_sync folds the server's value of that type (pgcb/value.h).
 *
 * A value in a text form -- a string (the server's text, which the client
 * kept), an integer's digits, {"int"|"float"|"other": text}, "\x" and the
 * hex of {"bytes": hex} -- goes through the column type's text conversion
 * (pgcb_value_fold with the text kind of the type): an adapter renders a
 * client's converted value (a date, a decimal, a UUID, a re-serialised
 * JSON value) in the server's output syntax, with every digit it holds.
 * Values that carry the value itself are folded directly: the 16 bytes of a
 * uuid, an array of a converted element type as a JSON array of its
 * elements (lower bound 1: a client's list has none).
 *
 * Nothing here allocates beyond a value's scratch copy, prints or keeps
 * state.
 */
#ifndef BR_DUMPVAL_H
#define BR_DUMPVAL_H

#include <jansson.h>
#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

/* What br_dumpval_fold made of a value. */
enum br_dumpval_rc {
    BR_DUMPVAL_OK = 0,           /* folded as a value of the column's type */
    BR_DUMPVAL_STANDIN = 1,      /* not a value of the type: folded as the TEXT of its
                                    JSON, which no driver's checksum matches */
    BR_DUMPVAL_UNSUPPORTED = -2  /* an array of more than one dimension, which the fold
                                    does not take (nor do the C drivers): nothing folded */
};

/* Fold the non-null dumped value v of a column of type `oid` into *s.
 * `c_locale` is the "C" locale (text floats). */
enum br_dumpval_rc br_dumpval_fold(struct pgcb_sum *s, uint32_t oid, const json_t *v,
                                   locale_t c_locale);

/* The element type of an array type the fold takes element by element
 * (int4[], int8[], text[], float8[]), else 0. */
uint32_t br_dumpval_elem(uint32_t oid);

/* The type's name for messages ("timestamptz"), or "type OID" in buf. */
const char *br_dumpval_type_name(uint32_t oid, char *buf, size_t n);

/* True for the types the fold converts beyond bool, the integers, the
 * floats and text (ABI 1.4: dates and times, uuid, numeric, json, bytea,
 * the arrays): those whose client conversion a dump's note reports. */
int br_dumpval_converted(uint32_t oid);

#endif
