/*
 * group.h -- measuring one group of a session (group.c; its phases share
 * group_int.h): its budget, for the progress line, and the measurement
 * itself. Module prefix pgcb_group_.
 */
#ifndef PGCB_GROUP_H
#define PGCB_GROUP_H

#include <stddef.h>

#include "out/eta.h"
#include "result.h"
#include "session.h"

/* The budget of group gr (one of r's groups, built from s->cfg): its
 * warm-up, floors per order and orders, as pgcb_group_run() runs them; for
 * the progress line's estimate (eta.h). */
void pgcb_group_budget(const struct pgcb_session *s, const struct pgcb_res_group *gr,
                       struct pgcb_eta_group *out);

/* Measure group `g` of r (suite/query/depth/threads/transport set, cells
 * zeroed): a host whose connections were opened with another connection
 * string than the group's is restarted with the group's first (outside any
 * timing), then warm-up, then every execution order. Each cell records what
 * its driver's connections used (transport). Fills every cell. Returns 0, or
 * 1 if the run was asked to stop (cells not reached stay NOT_RUN). */
int pgcb_group_run(struct pgcb_session *s, struct pgcb_result *r, size_t g, size_t query_index);

#endif
