/*
 * pq_stream.h -- one execution of a prepared statement read whole through
 * libpq, buffered (PQsendQueryPrepared, then the one PGresult of every row)
 * or streamed (PQsetSingleRowMode: a PGresult per row, folded and cleared
 * as it arrives), timed from just before the send (ABI 1.6 run_stream).
 * Part of lib/pqutil: libpq_sync's run_stream and the bridge's reference
 * reading of an adapter's stream use it.
 */
#ifndef PGCB_PQ_STREAM_H
#define PGCB_PQ_STREAM_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

#include "pq_fold.h"

/* Called with every PGresult of rows as it is folded (one row when
 * streamed, all of them when buffered), before it is cleared; returns
 * PGCB_OK or a status with err to stop the reading. NULL: none. */
typedef int (*pgcb_pq_rows_fn)(void *arg, const PGresult *res, char *err, size_t errlen);

/* Execute `st` on the idle, blocking connection `pg` with the text
 * parameters of query 0 of `p` (NULL: none) in `result_format` (0 text, 1
 * binary), read the whole result in `mode` (enum pgcb_result_mode), fold
 * every row into out->sum by st's kinds, call `fn` per PGresult, and time
 * it (out->first_row_ns, out->total_ns; out->cpu_ns 0: the caller's thread
 * stands for it); out->idiom names the libpq calls. Every result is read to
 * the end, so the connection is idle again on return unless it broke.
 * Returns PGCB_OK; PGCB_ERR_QUERY (the server's error, the connection
 * usable); PGCB_ERR_IO (the connection broke); PGCB_ERR_PROTOCOL from the
 * fold; PGCB_ERR_NOMEM. `scratch` is the caller's parameter buffer
 * (pq_params.h), `loc` the "C" locale for text floats. */
struct pgcb_pq_params;
int pgcb_pq_stream(PGconn *pg, const struct pgcb_stmt *st, const struct pgcb_params *p,
                   struct pgcb_pq_params *scratch, int result_format, uint32_t mode,
                   locale_t loc, pgcb_pq_rows_fn fn, void *arg, struct pgcb_stream_out *out,
                   char *err, size_t errlen);

#endif
