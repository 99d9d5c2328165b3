/*
 * procmem.h -- the resident memory of a process and every process it
 * started (a driver's host and, for the bridge, its adapters: the client
 * processes), read from the kernel the same way for every client. Module
 * prefix pgcb_procmem_.
 *
 * Per process, /proc/PID/status's VmRSS (resident now) and VmHWM (its peak
 * since the last reset: pgcb_procmem_reset writes "5" to each process's
 * /proc/PID/clear_refs). A tree's figures are the sums over its processes:
 * its peak is the sum of each process's own peak, an upper bound of the
 * tree's peak at any one moment (the same for one process). Never called in
 * a timed loop: each read is a few /proc files.
 */
#ifndef PGCB_PROCMEM_H
#define PGCB_PROCMEM_H

#include <stdint.h>

/* The most processes of a tree that are counted. */
#define PGCB_PROCMEM_MAX 256

struct pgcb_procmem {
    uint64_t rss_kib;   /* resident now, summed */
    uint64_t hwm_kib;   /* peak since the reset, summed */
    int nprocs;         /* processes read */
};

/* root and its descendants (breadth first, root first), at most max; returns
 * how many (0 when root is 0 or gone). */
int pgcb_procmem_tree(int root, int *pids, int max);

/* Reset the peak of every process of root's tree to its current resident
 * memory. Returns the processes reset, or -1 when one could not be (a
 * kernel without clear_refs' "5": the peaks then run from each process's
 * start). */
int pgcb_procmem_reset(int root);

/* Read root's tree into *m. 0, or -1 when no process could be read. */
int pgcb_procmem_read(int root, struct pgcb_procmem *m);

#endif
