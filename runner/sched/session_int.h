/*
 * session_int.h -- what session.c lends the files that measure a group
 * (group.c, group_order.c, bgload.c): the hosts' tick and env, a driver's
 * host spec, its backends found. Internal to runner/sched/.
 */
#ifndef PGCB_SESSION_INT_H
#define PGCB_SESSION_INT_H

#include <stddef.h>

#include "host/host.h"
#include "session.h"

/* The tick of every wait of the session on a host (host.h): it feeds the
 * progress line, s->progress (progress.h; nothing while that is NULL). */
struct pgcb_host_tick pgcb_session_tick(struct pgcb_session *s);

/* What every host of the session is told of the run (host.h): the config,
 * the stop flag, the sequences, and how a new host closes the others'
 * pipes. Valid while s is. */
struct pgcb_host_env pgcb_session_env(struct pgcb_session *s);

/* Section sd's driver as a host runs it (host.h). */
struct pgcb_host_driver pgcb_session_host_driver(const struct pgcb_sdriver *sd);

/* Driver d's host, its connections opened with `conninfo` (not copied: it
 * must outlive the host). */
struct pgcb_host_spec pgcb_session_driver_spec(struct pgcb_session *s, size_t d,
                                               const char *conninfo);

/* Driver d's host has just started (or may have reopened a connection):
 * find its backends (backend.h) by the host's tag, or record in its set why
 * they cannot be known, and how the server sees its connections
 * (transport.h; also for a server elsewhere). Nothing for a driver that
 * does no I/O. */
void pgcb_session_find_backends(struct pgcb_session *s, size_t d);

#endif
