/* procmem.c -- see procmem.h. */
#include "procmem.h"

#include "procfs.h"

int pgcb_procmem_tree(int root, int *pids, int max)
{
    if (root <= 0 || max <= 0)
        return 0;
    int n = 0;
    pids[n++] = root;
    /* Breadth first over what is found: pids[i]'s children appended. */
    for (int i = 0; i < n && n < max; i++)
        n += pgcb_procfs_children(pids[i], pids + n, max - n);
    return n;
}

int pgcb_procmem_reset(int root)
{
    int pids[PGCB_PROCMEM_MAX];
    int n = pgcb_procmem_tree(root, pids, PGCB_PROCMEM_MAX), failed = 0;
    for (int i = 0; i < n; i++)
        failed |= pgcb_procfs_reset_peak(pids[i]) != 0;
    return failed ? -1 : n;
}

int pgcb_procmem_read(int root, struct pgcb_procmem *m)
{
    int pids[PGCB_PROCMEM_MAX];
    int n = pgcb_procmem_tree(root, pids, PGCB_PROCMEM_MAX);
    *m = (struct pgcb_procmem){0};
    for (int i = 0; i < n; i++) {
        uint64_t rss, hwm;
        if (pgcb_procfs_memory(pids[i], &rss, &hwm) != 0)
            continue; /* exited meanwhile */
        m->rss_kib += rss;
        m->hwm_kib += hwm;
        m->nprocs++;
    }
    return m->nprocs ? 0 : -1;
}
