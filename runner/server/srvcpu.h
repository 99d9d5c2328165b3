/*
 * srvcpu.h -- CPU time of a PostgreSQL server that runs on this machine,
 * read from /proc: the postmaster's, every live child's (backends,
 * background processes, parallel workers) and that of the children it has
 * already reaped (a backend that exited). Sampled before and after a job, it
 * tells how busy the server was while one driver ran -- whether the server,
 * not the client, bounds a figure.
 *
 * Resolution: nanoseconds for live processes (/proc/PID/schedstat), the
 * kernel's clock tick (10 ms at USER_HZ 100) for reaped ones and where
 * schedstat is missing.
 * Reading walks /proc (about a millisecond): never in the timed loop.
 */
#ifndef PGCB_SRVCPU_H
#define PGCB_SRVCPU_H

#include <stdint.h>

struct pgcb_procfs_stat; /* procfs.h */

/* The postmaster of backend `pid` if that is a postgres process on this
 * machine (its parent), else 0. */
int pgcb_srvcpu_postmaster(int backend_pid);

/* CPU time (user + system) of the server of `postmaster_pid`, in ns.
 * Returns 0, or -1 if the postmaster is gone. */
int pgcb_srvcpu_read(int postmaster_pid, uint64_t *ns);

/* The CPU time of live process `pid`, whose stat `st` was just read, in ns:
 * its schedstat run time (exact) when it has one thread (schedstat is the
 * main thread's), else its stat ticks x tick_ns. */
uint64_t pgcb_srvcpu_live_ns(int pid, const struct pgcb_procfs_stat *st, uint64_t tick_ns);

#endif
