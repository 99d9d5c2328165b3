/*
 * progress.h -- the progress of a run on stderr: where it is, how long it
 * has run and how long it has left (the estimate is eta.h's). Module prefix
 * pgcb_progress_.
 *
 * Two forms:
 *   - on a terminal (the default when stderr is one): one line redrawn in
 *     place, at most five times a second:
 *       [group 2/6] sequential / limit_100 depth 1: rawwire order 3/14  45%  elapsed 1m12s, left ~4m05s
 *   - plain (runner -P SEC, pgbench's flag; also when stderr is a file or a
 *     CI log): a line every SEC seconds of the run, no carriage return:
 *       progress: 72.0 s elapsed, 45/588 steps, group 2/6 sequential / limit_100 depth 1, driver rawwire order 3/14, eta 245.3 s
 *     and, when the run completes, a last one:
 *       progress: 317.9 s elapsed, 588/588 steps, finished, eta 0.0 s
 *     A step is one driver's warm-up or one execution order in a group.
 *
 * Where it runs: only in the runner's own thread -- when a job starts and
 * ends, and while the runner waits for a host's answer (the session hands
 * host.c a tick, struct pgcb_host_tick, that the wait calls every 200 ms;
 * host.c itself knows nothing of progress) -- from what the hosts already
 * publish in their shared region between blocks (each measuring thread's
 * timed ns and batches of the current job, host.h). Nothing of it runs in a host or inside a timed
 * block: it adds no clock read, print, allocation or lock to the measuring
 * threads.
 *
 * Every function accepts a NULL progress (no progress shown) and does
 * nothing then.
 */
#ifndef PGCB_PROGRESS_H
#define PGCB_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct pgcb_eta_group;
struct pgcb_job;
struct pgcb_host_thread;
struct pgcb_progress;

/* -P's value: a whole number of seconds, 1 to 86400. 0, or -1. */
int pgcb_progress_parse_interval(const char *s, unsigned *out);

/* The progress of a run that is about to measure ngroups groups of ndrivers
 * drivers, named names[d] (strings that outlive it; the array is copied),
 * budgets[g] each group's budget as the run computes it
 * (pgcb_group_budget; copied), started at t0_ns (CLOCK_MONOTONIC: elapsed
 * counts from there); every_s > 0: plain lines that often. Its caller feeds
 * it (job, tick, ends): it never calls up into the scheduler. NULL when
 * nothing is to be shown: quiet, or neither every_s nor a terminal on
 * stderr. Free with pgcb_progress_free(). */
struct pgcb_progress *pgcb_progress_new(const char *const *names, size_t ndrivers,
                                        const struct pgcb_eta_group *budgets, size_t ngroups,
                                        int quiet, unsigned every_s, uint64_t t0_ns);
void pgcb_progress_free(struct pgcb_progress *p);

/* Driver d is about to run `job` (a warm-up or an order of group g; read
 * now, not kept); `t0` is its host's first measuring thread, whose live
 * figures are read until pgcb_progress_job_end(). */
void pgcb_progress_job(struct pgcb_progress *p, size_t g, size_t d, const struct pgcb_job *job,
                       const struct pgcb_host_thread *t0);

/* That job is over; failed: nothing more of that driver runs in the group. */
void pgcb_progress_job_end(struct pgcb_progress *p, int failed);

/* Nothing (more) of driver d runs in group g. */
void pgcb_progress_drop(struct pgcb_progress *p, size_t g, size_t d);

/* Group g is over (every order run, decided early, or interrupted), or was
 * kept from a journal (--resume). */
void pgcb_progress_group_end(struct pgcb_progress *p, size_t g);

/* Show the progress if it is due (the terminal line: 200 ms since the last;
 * a plain line: every SEC seconds). */
void pgcb_progress_tick(struct pgcb_progress *p);

/* Erase the terminal line, if one is shown, before something else is written
 * to the terminal (it is drawn again at the next tick). */
void pgcb_progress_clear(struct pgcb_progress *p);

/* The run is over: erase the terminal line; plain, when complete, the last
 * line (every step done, eta 0). */
void pgcb_progress_finish(struct pgcb_progress *p, int complete);

#endif
