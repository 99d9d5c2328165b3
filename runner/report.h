/*
 * report.h -- the console report: header, one box table per group and its
 * verdict line. Writes only to the FILE the caller gives.
 */
#ifndef PGCB_REPORT_H
#define PGCB_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "result.h"

/* Versions, machine, pinning, budget and the drivers. `where` describes the
 * server connection (e.g. "socket /tmp/x/.s.PGSQL.5433"). */
void pgcb_report_header(FILE *out, const struct pgcb_result *r, const char *where);

/* Group g's table, its notes (errors, drivers without pipelining) and the
 * verdict line. */
void pgcb_report_group(FILE *out, const struct pgcb_result *r, size_t g);

#endif
