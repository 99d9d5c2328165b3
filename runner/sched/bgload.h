/*
 * bgload.h -- background load (module prefix pgcb_bgload_): the
 * [background.NAME] loads a suite names, each its own driver load in its own
 * host (struct pgcb_sbg, session.h), running from before a group's warm-up
 * to after its last order. Internal to the session's files; called in the
 * runner's own thread.
 */
#ifndef PGCB_BGLOAD_H
#define PGCB_BGLOAD_H

#include <stddef.h>

#include "session.h"

/* Background b's host: its connections, CPUs and [server] conninfo (load on
 * the server, whatever the group's transport). */
struct pgcb_host_spec pgcb_bgload_spec(struct pgcb_session *s, size_t b);

/* Start every background load of suite su for group g (of ngroups; its host
 * again, if it died) and fill gr->backgrounds (owned by the result). A load
 * that cannot start is recorded in gr->backgrounds[k].error. */
void pgcb_bgload_start(struct pgcb_session *s, struct pgcb_res_group *gr, size_t g,
                       size_t ngroups, const struct pgcb_cfg_suite *su);

/* Stop the loads pgcb_bgload_start started and record what they achieved
 * (rates, latencies, the SLA) in gr->backgrounds. */
void pgcb_bgload_stop(struct pgcb_session *s, struct pgcb_res_group *gr,
                      const struct pgcb_cfg_suite *su);

#endif
