/*
 * rw_prepare.h -- the statement object rw_prepare() builds from the
 * server's description of a statement. rw_conn.h has the operations
 * (prepare, encode a batch); this is the step between them, apart so that
 * the encoder can be tested on a description no server sent.
 */
#ifndef PGCB_RW_PREPARE_H
#define PGCB_RW_PREPARE_H

#include <stdint.h>

#include "rw_conn.h"

/* What the replies to Parse/Describe/Sync said. */
struct rw_described {
    unsigned nparams, ncols;
    uint32_t *oids;          /* malloc'd, ncols entries; the caller frees it */
    int failed;              /* an ErrorResponse came */
};

/* The statement object for the described parameters and columns, with its
 * execution without parameters pre-encoded; it copies what it keeps of d.
 * NULL on out of memory. Freed with the connection's statements (rw_stmt_free). */
struct pgcb_stmt *rw_stmt_new(const struct pgcb_conn *c, const char *name,
                              const struct rw_described *d);

/* Free a statement rw_stmt_new made and everything it owns (NULL: nothing). */
void rw_stmt_free(struct pgcb_stmt *st);

#endif
