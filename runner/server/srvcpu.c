/* srvcpu.c -- see srvcpu.h. */
#include "srvcpu.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "sys/procfs.h"

uint64_t pgcb_srvcpu_live_ns(int pid, const struct pgcb_procfs_stat *st, uint64_t tick_ns)
{
    uint64_t ns;
    if (st->threads == 1 && pgcb_procfs_schedstat(pid, &ns) == 0)
        return ns;
    return (st->utime + st->stime) * tick_ns;
}

int pgcb_srvcpu_postmaster(int backend_pid)
{
    struct pgcb_procfs_stat st;
    if (pgcb_procfs_stat(backend_pid, &st) != 0 || strncmp(st.comm, "postgres", 8) != 0)
        return 0;
    return st.ppid > 1 ? st.ppid : 0;
}

int pgcb_srvcpu_read(int postmaster_pid, uint64_t *ns)
{
    const uint64_t tick_ns = pgcb_procfs_tick_ns();
    struct pgcb_procfs_stat st;
    if (postmaster_pid <= 0 || pgcb_procfs_stat(postmaster_pid, &st) != 0)
        return -1;
    /* The postmaster, the children it reaped (ticks: all the kernel keeps
     * of them), and every live child. */
    uint64_t total = pgcb_srvcpu_live_ns(postmaster_pid, &st, tick_ns) +
                     (st.cutime + st.cstime) * tick_ns;
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        int pid = atoi(e->d_name);
        if (pgcb_procfs_stat(pid, &st) == 0 && st.ppid == postmaster_pid)
            total += pgcb_srvcpu_live_ns(pid, &st, tick_ns) + (st.cutime + st.cstime) * tick_ns;
    }
    closedir(d);
    *ns = total;
    return 0;
}
