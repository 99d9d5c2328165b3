/*
 * rw_batch.h -- rawwire's run_batch and run_batch_params (the ABI
 * operations): one implementation, the batch with or without parameters
 * (rw_conn_batch_bytes), sent in one write, the replies parsed in place.
 */
#ifndef RW_BATCH_H
#define RW_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "pgwire/rw_conn.h"

/* Execute st depth times in one pipelined batch; see struct pgcb_driver. */
int rw_run_batch(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth, struct pgcb_sum *sum,
                 char *err, size_t errlen);

/* The same with query i binding params' values i * nparams .. (text);
 * params NULL (or nparams 0) is run_batch. */
int rw_run_batch_params(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                        const struct pgcb_params *params, struct pgcb_sum *sum, char *err,
                        size_t errlen);

#endif /* RW_BATCH_H */
