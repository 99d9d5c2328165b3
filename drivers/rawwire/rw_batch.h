/*
 * rw_batch.h -- rawwire's run_batch (the ABI operation).
 */
#ifndef RW_BATCH_H
#define RW_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "rw_conn.h"

/* Execute st depth times in one pipelined batch; see struct pgcb_driver. */
int rw_run_batch(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth, struct pgcb_sum *sum,
                 char *err, size_t errlen);

#endif /* RW_BATCH_H */
