/*
 * pq_fold.h -- fold every value of a libpq result into the checksum, by the
 * column kinds learnt at prepare time. Shared by the libpq drivers
 * (libpq_sync, and libpq_pipeline, which compiles these sources in).
 */
#ifndef PGCB_PQ_FOLD_H
#define PGCB_PQ_FOLD_H

#include <locale.h>
#include <stddef.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

/* Fold the rows of a PGRES_TUPLES_OK result `res` of statement `stmt_name`,
 * described with `ncols` columns of kinds `kinds` (enum pgcb_pq_kind), in
 * binary or text format (`c_locale` for text floats). Returns PGCB_OK, or
 * PGCB_ERR_PROTOCOL with a message naming the row, column and type of a
 * value that does not parse, or the column counts that differ. */
int pgcb_pq_fold_result(const PGresult *res, const char *stmt_name, int ncols,
                        const unsigned char *kinds, int binary, locale_t c_locale,
                        struct pgcb_sum *sum, char *err, size_t errlen);

#endif
