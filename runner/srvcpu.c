/* srvcpu.c -- see srvcpu.h. */
#include "srvcpu.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fields of /proc/PID/stat after the ")" that ends the command name:
 * state (3), ppid (4), ..., utime (14), stime (15), cutime (16), cstime (17).
 * Returns 0 with *ppid, *own (utime + stime) and *reaped (cutime + cstime)
 * in clock ticks, or -1. */
static int read_stat(const char *pid, int *ppid, uint64_t *own, uint64_t *reaped)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    p++;
    unsigned long long v[15] = {0}; /* fields 3 .. 17 */
    char state;
    if (sscanf(p, " %c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
               &state, &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
               &v[11], &v[12], &v[13], &v[14]) != 15)
        return -1;
    *ppid = (int)v[1];
    *own = v[11] + v[12];
    *reaped = v[13] + v[14];
    return 0;
}

/* CPU time of a live process in ns: /proc/PID/schedstat's first field
 * (exact), else its stat ticks. */
static uint64_t live_ns(const char *pid, uint64_t own_ticks, uint64_t tick_ns)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/schedstat", pid);
    FILE *f = fopen(path, "r");
    unsigned long long ns;
    int ok = f && fscanf(f, "%llu", &ns) == 1;
    if (f)
        fclose(f);
    return ok ? (uint64_t)ns : own_ticks * tick_ns;
}

int pgcb_srvcpu_postmaster(int backend_pid)
{
    char path[64], comm[64] = "", pid[24];
    snprintf(path, sizeof path, "/proc/%d/comm", backend_pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (!fgets(comm, sizeof comm, f))
        comm[0] = '\0';
    fclose(f);
    if (strncmp(comm, "postgres", 8) != 0)
        return 0;
    snprintf(pid, sizeof pid, "%d", backend_pid);
    int ppid;
    uint64_t own, reaped;
    return read_stat(pid, &ppid, &own, &reaped) == 0 && ppid > 1 ? ppid : 0;
}

int pgcb_srvcpu_read(int postmaster_pid, uint64_t *ns)
{
    long hz = sysconf(_SC_CLK_TCK);
    const uint64_t tick_ns = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
    char pm[24];
    snprintf(pm, sizeof pm, "%d", postmaster_pid);
    int ppid;
    uint64_t own, reaped;
    if (postmaster_pid <= 0 || read_stat(pm, &ppid, &own, &reaped) != 0)
        return -1;
    /* The postmaster, the children it reaped (ticks: all the kernel keeps
     * of them), and every live child. */
    uint64_t total = live_ns(pm, own, tick_ns) + reaped * tick_ns;
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        uint64_t o, r;
        if (isdigit((unsigned char)e->d_name[0]) && read_stat(e->d_name, &ppid, &o, &r) == 0 &&
            ppid == postmaster_pid)
            total += live_ns(e->d_name, o, tick_ns) + r * tick_ns;
    }
    closedir(d);
    *ns = total;
    return 0;
}
