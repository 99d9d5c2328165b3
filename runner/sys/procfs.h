/*
 * procfs.h -- what the runner reads of one process in /proc: its stat line
 * (parent, CPU time in clock ticks, threads), its exact run time
 * (schedstat) and its context switches (status). Shared by the whole
 * server's CPU time (srvcpu.h) and a driver's own backends (backend.h), so
 * that /proc is parsed in one place.
 *
 * The parsers take the file's text and never touch the file system (unit
 * tested on fixtures); the readers read /proc/PID/... and parse it. Nothing
 * here allocates. Reading costs a few microseconds per file: never in a
 * timed loop.
 */
#ifndef PGCB_PROCFS_H
#define PGCB_PROCFS_H

#include <stddef.h>
#include <stdint.h>

/* The fields of /proc/PID/stat the runner uses. Times are in clock ticks
 * (sysconf(_SC_CLK_TCK): 100 Hz, 10 ms, almost everywhere); for a thread
 * group, every thread's together. */
struct pgcb_procfs_stat {
    char comm[32];          /* field 2, without its parentheses (the kernel keeps 15
                               characters) */
    char state;             /* 3 */
    int ppid;               /* 4 */
    uint64_t utime, stime;  /* 14, 15: user and system time */
    uint64_t cutime, cstime;/* 16, 17: those of its reaped children */
    long threads;           /* 20 */
};

/* Parse the text of /proc/PID/stat. The command name is everything between
 * the first "(" and the last ")" (it may hold spaces and parentheses).
 * Returns 0, or -1 if the text is not a stat line. */
int pgcb_procfs_parse_stat(const char *text, struct pgcb_procfs_stat *st);

/* From the text of /proc/PID/status: voluntary_ctxt_switches and
 * nonvoluntary_ctxt_switches (the whole thread group). Returns 0, or -1 if
 * either is missing. */
int pgcb_procfs_parse_switches(const char *text, uint64_t *voluntary, uint64_t *involuntary);

/* From the text of /proc/PID/schedstat: its first field, the time the
 * process's main thread has run, in ns (exact, not sampled). Returns 0, or
 * -1. A kernel without CONFIG_SCHED_INFO writes "0 0 0": read as 0, which
 * the caller cannot tell from a thread that never ran. */
int pgcb_procfs_parse_schedstat(const char *text, uint64_t *run_ns);

/* From the text of /proc/PID/status: VmRSS (resident now) and VmHWM (the
 * peak resident since the process started or its peak was last reset),
 * in KiB. Returns 0, or -1 if either is missing (a kernel thread, a zombie). */
int pgcb_procfs_parse_memory(const char *text, uint64_t *rss_kib, uint64_t *hwm_kib);

/* Read and parse /proc/PID/stat, /proc/PID/status, /proc/PID/schedstat.
 * Each returns 0, or -1 (no such process, not visible, unparsable). */
int pgcb_procfs_stat(int pid, struct pgcb_procfs_stat *st);
int pgcb_procfs_switches(int pid, uint64_t *voluntary, uint64_t *involuntary);
int pgcb_procfs_schedstat(int pid, uint64_t *run_ns);

/* The length of a clock tick, in ns (10000000 at USER_HZ 100). */
uint64_t pgcb_procfs_tick_ns(void);

/* /proc/PID/status's VmRSS and VmHWM (KiB). 0, or -1. */
int pgcb_procfs_memory(int pid, uint64_t *rss_kib, uint64_t *hwm_kib);

/* Reset the process's peak resident memory to its current one (writes "5"
 * to /proc/PID/clear_refs: Linux 4.0 and later; the caller's own user's
 * processes). 0, or -1. */
int pgcb_procfs_reset_peak(int pid);

/* The direct children of pid, every thread's (/proc/PID/task/TID/children),
 * at most max into out; returns how many (0 when none or unreadable). */
int pgcb_procfs_children(int pid, int *out, int max);

#endif
