/*
 * rw_pool.h -- rawwire's pools (ABI 1.5 pool_open, run_load): N rawwire
 * connections in one thread, on lib/pgload's epoll loop, each query one
 * Bind/[Describe/]Execute/Sync sent without blocking and its reply parsed in
 * place (rw_reply.c) as its bytes arrive, exactly the bytes run_batch sends
 * at depth 1.
 *
 * The pool is its first connection: the struct pgcb_conn that pool_open
 * returns is connection 1 of N, with c->pool holding the others. prepare,
 * run_batch and every other operation on it work on that connection
 * (prepare: on every connection of the pool); close closes them all.
 */
#ifndef RW_POOL_H
#define RW_POOL_H

#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

#include "pgwire/rw_options.h"

int rw_pool_open(const char *conninfo, const struct rw_options *opt, uint32_t nconns,
                 struct pgcb_conn **out, char *err, size_t errlen);

/* rw_conn_close, and first the pool's other connections if c heads one. */
void rw_pool_close(struct pgcb_conn *c);

/* rw_conn_prepare on c, and on every other connection of its pool. */
int rw_pool_prepare(struct pgcb_conn *c, const char *name, const char *sql,
                    struct pgcb_stmt **out, char *err, size_t errlen);

int rw_pool_run_load(struct pgcb_conn *c, const struct pgcb_load *load,
                     struct pgcb_load_out *out, char *err, size_t errlen);

#endif /* RW_POOL_H */
