/*
 * proto.h -- the protocol choices of a driver's connections (struct
 * pgcb_protocol, ABI 1.3) as words: the option values a config uses
 * ("text", "per_execution" ...), the phrases the tables print, and the
 * comparison with the run's choices that says whether a driver runs like
 * for like.
 *
 * Every field is 0 when unknown. Pure functions on values; nothing is
 * allocated.
 */
#ifndef PGCB_PROTO_H
#define PGCB_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "pgcb/driver.h"

/* The choices a run makes for every driver, in the order of struct
 * pgcb_protocol's fields. */
enum pgcb_proto_field {
    PGCB_PROTO_RESULT_FORMAT = 0,
    PGCB_PROTO_DESCRIBE,
    PGCB_PROTO_SYNC,
    PGCB_PROTO_STATEMENTS,
    PGCB_PROTO_NFIELDS
};

/* The option key of a field ("result_format", "describe", "sync",
 * "statements"). */
const char *pgcb_proto_key(enum pgcb_proto_field f);

/* A field's value in *p, and setting it. */
uint32_t pgcb_proto_get(const struct pgcb_protocol *p, enum pgcb_proto_field f);
void pgcb_proto_set(struct pgcb_protocol *p, enum pgcb_proto_field f, uint32_t v);

/* The option value of `v` in field `f` ("text", "binary", "per_execution",
 * "once", "per_query", "per_batch", "named", "unnamed"), or NULL for 0 or
 * a value out of range. */
const char *pgcb_proto_value(enum pgcb_proto_field f, uint32_t v);

/* The value of word `s` in field `f`, or 0 if it is not one. */
uint32_t pgcb_proto_parse(enum pgcb_proto_field f, const char *s);

/* A field of *p holding a value this ABI does not know (not 0, 1 or 2):
 * 1 with "KEY VALUE" (e.g. "sync 7") in buf (n bytes), else 0. */
int pgcb_proto_out_of_range(const struct pgcb_protocol *p, char *buf, size_t n);

/* The words a field accepts, "text | binary", for messages. */
const char *pgcb_proto_choices(enum pgcb_proto_field f);

/* A phrase for a field's value, for the tables: "text results", "binary
 * results", "a Describe per execution", "Describe once", "a Sync per query",
 * "a Sync per batch", "named statements", "unnamed statements"; "? <key>"
 * for 0. */
const char *pgcb_proto_phrase(enum pgcb_proto_field f, uint32_t v);

/* The run's choices for every driver: text, per_execution, per_query,
 * named. */
struct pgcb_protocol pgcb_proto_default(void);

/* Bit f set for every field where `drv` says something other than `run`
 * (both known); *unknown gets bit f for every field `drv` does not say and
 * `run` does. */
unsigned pgcb_proto_differs(const struct pgcb_protocol *drv, const struct pgcb_protocol *run,
                            unsigned *unknown);

/* The phrases of the fields in `mask`, joined with ", ", into buf (n bytes,
 * n >= 1). */
void pgcb_proto_phrases(const struct pgcb_protocol *p, unsigned mask, char *buf, size_t n);

#endif
