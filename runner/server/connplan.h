/*
 * connplan.h -- the connection string of every group: [server] conninfo,
 * then the part of the group's transport ([suite] transport; the [server]
 * unix / tcp / tls keys over what the runner derives from the server,
 * transport.h), then the suite's own [suite] conninfo, merged with
 * pgcb_conninfo_merge() (server.h: later keys win).
 *
 * A suite without `transport` and `conninfo` gets [server] conninfo exactly
 * as given. Built once, before anything is measured; the strings are owned
 * by the plan and live until pgcb_connplan_free().
 */
#ifndef PGCB_CONNPLAN_H
#define PGCB_CONNPLAN_H

#include <stddef.h>

#include "config/config.h"
#include "server.h"

struct pgcb_connplan {
    size_t nsuites;
    /* [suite * (PGCB_TRANSPORT_N + 1) + t]: t a transport, or PGCB_TRANSPORT_N for a
     * suite without the key; NULL where the suite has no such group */
    char **conninfo;
};

/*
 * Build the plan for cfg's suites. `si` is what pgcb_server_prepare() read
 * (NULL: no server is needed, every driver does no I/O: the transports'
 * parts are not derived). Returns 0, or -1 with one line in err naming the
 * suite and its file:line: a transport the server cannot offer
 * ("FILE:LINE: [suite.NAME] transport = tls: the server has ssl = off:
 * ..."), or a string libpq cannot parse.
 */
int pgcb_connplan_build(struct pgcb_connplan *p, const struct pgcb_config *cfg,
                        const struct pgcb_server_info *si, char *err, size_t errlen);

/* The connection string of suite `suite` under transport t (-1: the suite has
 * no transport key), never NULL: [server] conninfo when the plan holds
 * nothing for it (p NULL, or no such group). */
const char *pgcb_connplan_get(const struct pgcb_connplan *p, const struct pgcb_config *cfg,
                              size_t suite, int t);

/* The string of the first group of the run (the first suite's first
 * transport): what the hosts connect with when they start. */
const char *pgcb_connplan_first(const struct pgcb_connplan *p, const struct pgcb_config *cfg);

void pgcb_connplan_free(struct pgcb_connplan *p);

#endif
