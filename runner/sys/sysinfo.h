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

/*
 * Move the calling thread (the runner's main thread, before it forks any
 * host: they inherit it) to the CPUs it may use other than cpus[0..n-1], the
 * measuring ones, so that its wake-ups never preempt a measuring thread.
 * Returns 1 (moved; buf: the CPUs it now runs on), 0 (no other CPU: it
 * stays; buf: its CPUs), -1 (sched_*affinity failed; it stays).
 */
int pgcb_pin_away(const int *cpus, size_t n, char *buf, size_t len);

/* The CPUs this thread may use other than cpus[0..n-1], at most max, in
 * ascending order, into out; returns how many (0: none, or unknown). Call it
 * before pgcb_pin_away() moves the thread. */
size_t pgcb_cpus_other(const int *cpus, size_t n, int *out, size_t max);

/* Pin the calling thread to one CPU. Returns 0, or -1 with a message. */
int pgcb_pin_self(int cpu, char *err, size_t errlen);

/* The CPUs process `pid` may run on, as a list ("1", "0-3"), into buf.
 * Returns 0, or -1 if the process does not exist or cannot be read. */
int pgcb_cpus_of_pid(pid_t pid, char *buf, size_t n);


/* Where Linux shows each CPU's cpufreq policy and topology. */
#define PGCB_SYSFS_CPU_ROOT "/sys/devices/system/cpu"

/* What sysfs shows of one CPU (issue 13): its frequency governor and
 * frequencies, and the CPUs that share its core (SMT siblings). A field the
 * machine does not show -- a VM often has no cpufreq, some kernels no
 * topology -- is "" (strings) or NAN (frequencies). */
struct pgcb_cpu_facts {
    int cpu;
    char governor[32];      /* cpufreq/scaling_governor, e.g. "performance" */
    double cur_khz;         /* cpufreq/scaling_cur_freq */
    double min_khz, max_khz;/* cpufreq/scaling_min_freq, scaling_max_freq */
    char siblings[128];     /* topology/thread_siblings_list, e.g. "0,8" (itself included) */
};

/* The first line of the file at path, as one line (pgcb_oneline), into
 * buf: 0, or -1 (absent, unreadable or empty: buf is ""). For sysfs and
 * /proc files of one short line. */
int pgcb_sysfs_line(const char *path, char *buf, size_t n);

/* pgcb_sysfs_line of ROOT/cpuN/rel. */
int pgcb_cpu_file_read(const char *root, int cpu, const char *rel, char *buf, size_t n);

/* Read CPU `cpu`'s facts under `root` (PGCB_SYSFS_CPU_ROOT; a fake tree in
 * tests): ROOT/cpuN/cpufreq/... and ROOT/cpuN/topology/... Never fails:
 * what cannot be read is left "not shown". */
void pgcb_cpu_facts_read(const char *root, int cpu, struct pgcb_cpu_facts *out);

#endif
