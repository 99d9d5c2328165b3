/*
 * describe.h -- the runner's own Describe of each query (issue 19): its
 * result columns and their types, from a libpq session of its own once the
 * setup has run, before anything is measured; and which of them every
 * driver folds as their text although their type is not a text type
 * (value.h does not convert it: pgcb_value_kind_of(oid, 0) is
 * PGCB_VALUE_TEXT). The groups carry both (result.h: columns, folded):
 * the tables say "Folded as text", and the conversion-cost table counts
 * values per query with the columns.
 */
#ifndef PGCB_DESCRIBE_H
#define PGCB_DESCRIBE_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "result.h"

struct pgcb_desc_col {
    char *name;
    uint32_t oid;
    char *type;       /* folded columns: the server's format_type(); else NULL */
    int folded;       /* pgcb_describe_folded(oid) */
};

/* One query. Owns its columns. */
struct pgcb_desc {
    int known;        /* described: the server prepared it */
    size_t ncols;
    struct pgcb_desc_col *cols;
};

/* Describe every query of cfg (an unnamed statement each, prepared and
 * described, never executed) on a session of conninfo ("" = the PG*
 * variables) into out[0 .. cfg->nqueries - 1], which the caller zeroed.
 * Best effort: a query the server will not prepare now (a table a later
 * step makes) stays unknown, and so does every query when the session
 * cannot be opened; nothing of it fails the run (the drivers report what
 * the server refuses). Nothing is printed. */
void pgcb_describe_queries(const char *conninfo, const struct pgcb_config *cfg,
                           struct pgcb_desc *out);

void pgcb_describe_free(struct pgcb_desc *d, size_t n);

/* Group gr's columns and folded columns from its query's description
 * (nothing when it is unknown). */
void pgcb_describe_group(struct pgcb_res_group *gr, const struct pgcb_desc *d);

/* 1 for the text types, whose text is their value: text, varchar, bpchar,
 * name. */
int pgcb_describe_text_type(uint32_t oid);

/* 1 if a column of type oid is folded as its text although it is not a
 * text type: value.h has no conversion for it. */
int pgcb_describe_folded(uint32_t oid);

#endif
