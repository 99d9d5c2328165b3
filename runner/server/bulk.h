/*
 * bulk.h -- what the bulk-write queries need from the server before anything
 * runs: the payload of a COPY query and the rows of a params_from query,
 * fetched once on the runner's own libpq connection (after the [server]
 * setup script, before the driver hosts start, outside any timing), and the
 * statements that check them by reading back.
 *
 * A COPY query ([query] copy = TABLE, copy_from = SQL, copy_format):
 *   payload   COPY (copy_from) TO STDOUT (FORMAT f): the bytes are what the
 *             server itself produces for those rows and types, in that format;
 *   copy_sql  COPY TABLE (c1, c2, ...) FROM STDIN (FORMAT f), the columns
 *             named as copy_from's result columns (quoted);
 * A params_from query: the rows of params_from in text format, bound as
 * $1..$ncols (gen.h PGCB_GEN_ROWS), the query's nparams and generators set
 * from them.
 * Both: read_back_sql = SELECT c1, c2, ... FROM TABLE ORDER BY 1 (TABLE: copy,
 * or read_back), whose checksum through a driver must equal source_sql's
 * (copy_from or params_from, as given: it must be ordered by its first
 * column, which must be unique), and truncate_sql = TRUNCATE TABLE, which
 * empties the table outside every sample.
 *
 * Ownership: a struct pgcb_bulk owns every string and array it points to;
 * the query that holds it frees it (pgcb_bulk_free). Hosts are forked after
 * the fetch: they read it, never write it.
 */
#ifndef PGCB_BULK_H
#define PGCB_BULK_H

#include <stddef.h>
#include <stdint.h>

#include "config/gen.h"

struct pgcb_config;

struct pgcb_bulk {
    int is_copy;
    char *copy_sql;         /* COPY only */
    char *payload;          /* COPY only: len bytes */
    size_t len;
    uint64_t rows;          /* COPY: rows in the payload; params_from: rows.nrows */
    char *source_sql;       /* copy_from or params_from as given */
    char *read_back_sql;    /* NULL: no read-back (params_from without read_back) */
    char *truncate_sql;     /* NULL: none (as read_back_sql) */
    struct pgcb_gen_rows rows_view; /* params_from: the rows (arrays below) */
    const char **values;
    int *lengths;
    char *arena;
};

/* 1 if s is NAME or SCHEMA.NAME of [A-Za-z0-9_] (not starting with a digit),
 * at most 127 bytes: used as it is in the runner's COPY, SELECT and
 * TRUNCATE statements. */
int pgcb_bulk_valid_table(const char *s);

/* 1 if cfg has a COPY or params_from query (a fetch is needed). */
int pgcb_bulk_needed(const struct pgcb_config *cfg);

/* Fetch what every COPY and params_from query of cfg needs (above), on a
 * connection of its own to `conninfo`, and store it in the query's bulk;
 * a COPY query's sql becomes its copy_sql, a params_from query gets its
 * nparams and generators. Returns 0, or -1 with one line in err:
 * "FILE:LINE: [query.NAME] copy_from: SQLSTATE: message", a source with no
 * rows, or [query] rows that the source's count contradicts. */
int pgcb_bulk_fetch(const char *conninfo, struct pgcb_config *cfg, char *err, size_t errlen);

void pgcb_bulk_free(struct pgcb_bulk *b);

#endif
