/*
 * memcg.h -- a memory limit per client, enforced by the kernel (issue 42,
 * [bench] max_rss_mb): a memory cgroup per driver, which the driver's host
 * joins before it opens anything, so that every process it starts (the
 * bridge's adapters) is in it too; when the group's memory reaches the
 * limit, the kernel reclaims and then its OOM killer ends a process of that
 * group only. Nothing polls: the runner reads the group's OOM-kill count
 * afterwards, to say why a cell failed.
 *
 * cgroup v2 (/sys/fs/cgroup/cgroup.controllers: memory.max, memory.events)
 * and v1 (/sys/fs/cgroup/memory: memory.limit_in_bytes, memory.oom_control)
 * are both used as the machine has them. Needs root (or a delegated
 * hierarchy); without one the caller refuses the run with the reason.
 */
#ifndef PGCB_MEMCG_H
#define PGCB_MEMCG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pgcb_memcg {
    char dir[256];              /* the group's directory; "" when none */
    int v2;                     /* cgroup v2 (else v1) */
    uint64_t limit_bytes;
};

/* Make the group DIR/pgcb-RUNNERPID-NAME under the machine's memory
 * hierarchy with a limit of limit_mb MiB (swap included where the kernel
 * counts it: v1's memsw, v2's swap.max 0). 0, or -1 with err (one line:
 * what is missing or refused). */
int pgcb_memcg_create(struct pgcb_memcg *m, const char *name, uint64_t limit_mb, char *err,
                      size_t errlen);

/* Move the calling process into the group (a host calls it first thing
 * after fork). 0, or -1 with errno. Async-signal-safe enough for a child:
 * open, write, close. */
int pgcb_memcg_join(const struct pgcb_memcg *m);

/* How many processes of the group the OOM killer has ended so far; 0 when
 * unknown (an old kernel without the count). */
uint64_t pgcb_memcg_oom_kills(const struct pgcb_memcg *m);

/* Remove the group once its processes are gone (moving any left to the
 * root first). Best effort; accepts a group never made. */
void pgcb_memcg_destroy(struct pgcb_memcg *m);

#endif
