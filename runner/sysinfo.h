/*
 * sysinfo.h -- facts about the machine, and CPU pinning.
 */
#ifndef PGCB_SYSINFO_H
#define PGCB_SYSINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pgcb_sysinfo {
    char cpu_model[128];
    unsigned cores;         /* online CPUs */
    uint64_t ram_bytes;
    char kernel[256];       /* "Linux 6.1.0 x86_64" */
    char hostname[72];
};

void pgcb_sysinfo_read(struct pgcb_sysinfo *si);

/* Check that each CPU in cpus[] is one this process may run on. Returns 0,
 * or -1 naming the first that is not (and the allowed set) in err. */
int pgcb_cpus_check(const int *cpus, size_t n, char *err, size_t errlen);

/* Pin the calling thread to one CPU. Returns 0, or -1 with a message. */
int pgcb_pin_self(int cpu, char *err, size_t errlen);

/* The CPUs process `pid` may run on, as a list ("1", "0-3"), into buf.
 * Returns 0, or -1 if the process does not exist or cannot be read. */
int pgcb_cpus_of_pid(pid_t pid, char *buf, size_t n);

/* Format cpus[] as a list "0,2-3". */
void pgcb_cpus_format(const int *cpus, size_t n, char *buf, size_t len);

/* 1 if the two CPU lists (as formatted above) share a CPU. */
int pgcb_cpus_overlap(const char *a, const char *b);

#endif
