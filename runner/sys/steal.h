/*
 * steal.h -- steal time from /proc/stat: the time a virtual CPU of this
 * machine was ready to run but the hypervisor ran something else (another
 * guest, its own work). On a VM it is the noise no pinning can remove; on
 * bare metal it stays 0.
 *
 * /proc/stat counts it per CPU ("cpuN" lines) and for the whole machine
 * (the "cpu" line, the sum), as the 8th value of the line, in clock ticks
 * (USER_HZ: 10 ms at the usual 100 Hz). The kernel keeps nanoseconds and
 * truncates to ticks when the file is read, so a difference of two reads is
 * exact to within a tick -- for each line on its own: a CPU's line and the
 * machine's sum can differ by a tick over the same interval. Reading the
 * file costs tens of microseconds: the
 * runner reads it around each order's job, never in a timed loop.
 */
#ifndef PGCB_STEAL_H
#define PGCB_STEAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One reading, in clock ticks. */
struct pgcb_steal {
    uint64_t machine;     /* the "cpu" line: every CPU together */
    uint64_t cpus;        /* the CPUs asked for, each counted once */
    size_t ncpus_found;   /* how many of those have a "cpuN" line */
    size_t ncpus_online;  /* "cpuN" lines in the text (online CPUs) */
};

/*
 * Parse /proc/stat text from f (read to the end of its "cpu" lines, which
 * come first). cpus[0..ncpus-1] are the CPUs whose steal is summed into
 * out->cpus (duplicates counted once; a CPU without a line is not counted,
 * and ncpus_found says so). Returns 0, or -1 if there is no "cpu" line
 * with a steal value (not /proc/stat, or a kernel before 2.6.11).
 */
int pgcb_steal_parse(FILE *f, const int *cpus, size_t ncpus, struct pgcb_steal *out);

/* pgcb_steal_parse() of /proc/stat. 0, or -1 (unreadable). */
int pgcb_steal_read(const int *cpus, size_t ncpus, struct pgcb_steal *out);

/* Nanoseconds per clock tick of /proc/stat: 1e9 / sysconf(_SC_CLK_TCK). */
double pgcb_steal_tick_ns(void);

/* Parse /proc/uptime text ("12345.67 23456.78"): the seconds since boot, in
 * ns. Returns 0, or -1. */
int pgcb_steal_parse_uptime(FILE *f, uint64_t *ns);

/* The machine's steal time since boot as a percentage of its CPU time
 * (uptime x online CPUs); NAN when /proc does not say. */
double pgcb_steal_since_boot_pct(void);

#endif
