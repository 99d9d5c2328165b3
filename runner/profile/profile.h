/*
 * profile.h -- a profiled run ([bench] profile = on | try, --profile; issue
 * 28, docs/profiling.md): per group and driver, one perf recording of the
 * driver's client processes (its host and every process the host started: a
 * bridge's adapters) and one of its own backends (backend.h), each started
 * with events off before the driver's first measured order of the group,
 * switched on just before each of its measured jobs and off just after
 * (never a warm-up, never another driver's job), stopped after the group's
 * orders; then folded by fold.py (perf script -s) into
 *   DIR/<suite>.<query>.d<depth>/<driver>.{client,backend}.{perf,folded,top.tsv}
 * and summed up into each cell's profile (result.h). A perf that fails marks
 * that profile failed and never the figures. Everything here runs in the
 * runner's own thread, between jobs.
 */
#ifndef PGCB_PROFILE_H
#define PGCB_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "config/config.h"
#include "perfrec.h"
#include "result.h"

struct pgcb_session;
struct pgcb_profile;

/* The settings every recording uses (docs/profiling.md says why). */
#define PGCB_PROFILE_EVENT "cpu-clock"
#define PGCB_PROFILE_FREQUENCY 499
#define PGCB_PROFILE_CALL_GRAPH "dwarf,16384"
/* ... the client side of a JIT or Go runtime (a node or Go adapter). */
#define PGCB_PROFILE_CALL_GRAPH_JIT "fp"

/* The options above with pgcb_perf_program(); PGCB_PROFILE_CALL_GRAPH (e.g.
 * "fp") and PGCB_PROFILE_FREQUENCY (1..10000 Hz) override them. */
struct pgcb_perf_opts pgcb_profile_opts(void);

/* Before anything is measured: can perf record here (pgcb_perf_check)?
 * cfg->profile off: 0. It can: 1, and PGCB_PROFILE=1 is set for the hosts'
 * adapters (docs/bridge-protocol.md). It cannot: profile = on prints one line
 * naming file:line or --profile and returns -1 (the run stops); try prints a
 * note and returns 0. why (n bytes): perf's reason, or "". */
int pgcb_profile_check(const struct pgcb_config *cfg, char *why, size_t n);

/* A profiled run writing its result to result_path: its profile directory
 * (RESULT without .json, + ".profiles", beside it) is made. Returns the
 * profiler, or NULL with one line in why. ndrivers: the session's. */
struct pgcb_profile *pgcb_profile_new(const char *result_path, size_t ndrivers, char *why,
                                      size_t n);

/* Driver d's measured job in group g is about to be sent / has answered:
 * the first call of a group for d starts its recordings; then events on /
 * off. Failures are kept for the group's end (and said once on stderr). */
void pgcb_profile_job_begin(struct pgcb_profile *p, struct pgcb_session *s,
                            const struct pgcb_result *r, size_t g, size_t d);
void pgcb_profile_job_end(struct pgcb_profile *p, size_t d);

/* After group g's orders and figures: stop every recording of the group,
 * fold each, fill each profiled cell's profile (its shares, and ns per query
 * from the cell's CPU per query). */
void pgcb_profile_group_end(struct pgcb_profile *p, struct pgcb_session *s,
                            struct pgcb_result *r, size_t g);

/* At the run's end: the flame graph pages (build/profile/flame-dir DIR, when
 * there; a failure is a note), r->profile filled, the JIT maps of the
 * profiled processes (/tmp/perf-PID.map) removed. Says on `out` where the
 * pages are (NULL: nothing said). */
void pgcb_profile_finish(struct pgcb_profile *p, struct pgcb_result *r, FILE *out);

/* The run's "profile" record for the JSON before the first group (mode on
 * or try, profiled). */
void pgcb_profile_record(const struct pgcb_profile *p, const char *mode,
                         struct pgcb_res_run_profile *out);

void pgcb_profile_free(struct pgcb_profile *p);

/* name with every byte outside [A-Za-z0-9_.-] made '_', into buf. */
void pgcb_profile_safe_name(const char *name, char *buf, size_t n);

#endif
