/*
 * pq_fold.h -- fold every value of a libpq result into the checksum, by the
 * column kinds learnt at prepare time. Part of lib/pqutil, the libpq
 * helpers both libpq drivers (libpq_sync, libpq_pipeline) link.
 */
#ifndef PGCB_PQ_FOLD_H
#define PGCB_PQ_FOLD_H

#include <locale.h>
#include <stddef.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

/* A prepared statement of the libpq drivers: one allocation holding its
 * name and the conversion kind of each column, learnt once from the
 * statement's description. Owned by its connection's list. */
struct pgcb_stmt {
    struct pgcb_stmt *next; /* the connection's list */
    int ncols;
    unsigned char *kinds;   /* enum pgcb_value_kind per column (type and result
                               format); in this allocation */
    char name[];            /* server-side statement name */
};

/* Check statement `name`'s description `desc` (in binary format, every
 * column foldable as its text form) and build the statement. Parameters
 * ($1 ...) are allowed: their types are the server's inference, their
 * values come with each batch (run_batch_params); run without values, such
 * a statement fails on the server (08P01, PGCB_ERR_QUERY). PGCB_OK with
 * *out set, or PGCB_ERR_UNSUPPORTED / PGCB_ERR_NOMEM with err set. */
int pgcb_pq_stmt_new(const char *name, const PGresult *desc, int binary, struct pgcb_stmt **out,
                     char *err, size_t errlen);

/* Free a connection's list of statements. */
void pgcb_pq_stmts_free(struct pgcb_stmt *list);

/* Fold the rows of a PGRES_TUPLES_OK result `res` of statement `st`, in the
 * result format `st` was built for (pgcb_value_fold; `c_locale` for text
 * floats). Returns PGCB_OK, or PGCB_ERR_PROTOCOL with a message naming the
 * row, column and type of a value that does not parse, or the column counts
 * that differ. */
int pgcb_pq_fold_result(const PGresult *res, const struct pgcb_stmt *st, locale_t c_locale,
                        struct pgcb_sum *sum, char *err, size_t errlen);

#endif
