/*
 * cpuidle.h -- how this machine's idle CPUs wait while a run measures
 * ([bench] cpu_idle; docs/measuring.md, "How idle CPUs wait").
 *
 * A client asleep in poll() on the client CPU is woken by the backend's
 * send: when that CPU is halted, the waker sends it an inter-processor
 * interrupt, and on a VM each one is a trip to the hypervisor that lands in
 * the *sender's* system time (seen here: 1.6 to 2.3 IPIs per query from a
 * backend at pipelined LIMIT 500, and the faster a client parses the more
 * often it is asleep when the next 8 kB arrive). Over a real network the
 * NIC wakes the client on its own machine and the server pays nothing of
 * it; co-located on a VM the server pays for the client's waiting.
 *
 * Holding a PM QoS request of 0 us on /dev/cpu_dma_latency makes the
 * cpuidle governor pick its polling state: an idle CPU spins with
 * TIF_POLLING_NRFLAG set, and a wake-up needs no interrupt. The request
 * lasts while the file stays open (the kernel drops it when the last
 * descriptor closes: at exit, SIGKILL included).
 */
#ifndef PGCB_CPUIDLE_H
#define PGCB_CPUIDLE_H

#include <stddef.h>
#include <stdint.h>

/* Where PM QoS takes a CPU latency request, and where cpuidle shows itself. */
#define PGCB_CPU_DMA_LATENCY "/dev/cpu_dma_latency"
#define PGCB_CPUIDLE_SYSFS "/sys/devices/system/cpu"

/* [bench] cpu_idle. */
enum pgcb_cpu_idle {
    PGCB_IDLE_AUTO = 0, /* poll when the request can be made, else as the system has it */
    PGCB_IDLE_POLL,     /* poll, or the run stops before measuring */
    PGCB_IDLE_SYSTEM    /* leave it to the system (usually: halt when idle) */
};

/* "auto", "poll", "system"; -1 for anything else. */
int pgcb_idle_parse(const char *s);
const char *pgcb_idle_name(enum pgcb_cpu_idle m);

/* Idle entries of a set of CPUs, from cpuidle's per-state usage counters:
 * into a polling state (the one named "POLL") and into every other (halt,
 * C-states). Both UINT64_MAX when the machine shows no cpuidle states. */
struct pgcb_idle_entries {
    uint64_t poll, other;
};

/* Sum of cpus[0..ncpus-1]'s counters under root (PGCB_CPUIDLE_SYSFS, or a
 * fake tree in tests): ROOT/cpuN/cpuidle/stateK/{name,usage}. */
void pgcb_idle_entries_read(const char *root, const int *cpus, size_t ncpus,
                            struct pgcb_idle_entries *out);

/* A run's hold. fd >= 0 while the request is held. */
struct pgcb_idle_hold {
    int fd;
    int polling;            /* 1: the request of 0 us is held */
    char driver[32];        /* cpuidle/current_driver ("" when not shown) */
    char governor[32];      /* cpuidle/current_governor_ro or current_governor */
    char why[256];          /* mode system or auto without it: why ("" when polling) */
};

/*
 * Take (or not) the request for mode m: path is PGCB_CPU_DMA_LATENCY or a
 * file of a test's; root as for pgcb_idle_entries_read. The descriptor is
 * O_CLOEXEC (a bridged client's adapter does not inherit it; the hosts
 * forked from the runner share it and die with it). Returns 0, or -1 with
 * err set (one line) when m is poll and the request cannot be made.
 */
int pgcb_idle_hold(struct pgcb_idle_hold *h, enum pgcb_cpu_idle m, const char *path,
                   const char *root, char *err, size_t errlen);

/* Drop the request (close the file); idempotent. */
void pgcb_idle_release(struct pgcb_idle_hold *h);

#endif
