/*
 * pq_params.h -- the text parameters of a batch (ABI 1.1, struct
 * pgcb_params) as libpq wants them. Part of lib/pqutil, which both libpq
 * drivers (libpq_sync, libpq_pipeline) link.
 *
 * libpq reads a text-format parameter up to its NUL (it ignores paramLengths
 * unless the format is binary), while the ABI's values are not
 * NUL-terminated: each query's values are copied, with a NUL after each,
 * into a buffer the connection keeps and reuses. It grows only when a batch
 * has a query larger than any before, so a warmed-up run_batch allocates
 * nothing here.
 */
#ifndef PGCB_PQ_PARAMS_H
#define PGCB_PQ_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

/* The most parameters one query may have: the protocol's Bind counts them
 * in an int16 (libpq refuses more). */
#define PGCB_PQ_MAX_PARAMS 65535u

/* A connection's scratch for one query's parameters. Zero-initialised (a
 * calloc'd connection) is empty and valid; owned by the connection, freed
 * with pgcb_pq_params_free. */
struct pgcb_pq_params {
    char *buf;           /* the copies, each followed by a NUL */
    size_t cap;          /* bytes of buf */
    const char **vals;   /* pointers into buf; NULL for SQL NULL */
    uint32_t vcap;       /* entries of vals */
};

/* Free what pp holds and leave it empty. */
void pgcb_pq_params_free(struct pgcb_pq_params *pp);

/* Before a batch of `depth` queries with parameters `p` (NULL, or nparams
 * 0: none): check them (at most PGCB_PQ_MAX_PARAMS per query, arrays
 * present, no negative length on a non-NULL value) and make pp large enough
 * for the largest query, so that pgcb_pq_params_query cannot fail during
 * the batch. PGCB_OK, or PGCB_ERR_UNSUPPORTED / PGCB_ERR_NOMEM with err set
 * (nothing has been sent then). */
int pgcb_pq_params_reserve(struct pgcb_pq_params *pp, const struct pgcb_params *p,
                           uint32_t depth, char *err, size_t errlen);

/* The values of query i (0-based) of the batch reserved for, NUL-terminated
 * copies in pp, valid until the next call on pp; *lengths their lengths
 * (the runner's array). NULL (and *lengths NULL) when p has no parameters.
 * Does not allocate. */
const char *const *pgcb_pq_params_query(struct pgcb_pq_params *pp, const struct pgcb_params *p,
                                        uint32_t i, const int **lengths);

/* The number of parameters per query of p (0 for NULL), as libpq's nParams;
 * call after pgcb_pq_params_reserve accepted p. */
static inline int pgcb_pq_nparams(const struct pgcb_params *p)
{
    return p ? (int)p->nparams : 0;
}

#endif /* PGCB_PQ_PARAMS_H */
