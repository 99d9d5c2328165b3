/* sysinfo.c -- see sysinfo.h. */
#include "sysinfo.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "config/config.h"
#include "util.h"

void pgcb_sysinfo_read(struct pgcb_sysinfo *si)
{
    *si = (struct pgcb_sysinfo){0};
    snprintf(si->cpu_model, sizeof si->cpu_model, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) != 0)
                continue;
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                pgcb_oneline(si->cpu_model, sizeof si->cpu_model, colon);
            }
            break;
        }
        fclose(f);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    si->cores = n > 0 ? (unsigned)n : 1;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    si->ram_bytes = (pages > 0 && psize > 0) ? (uint64_t)pages * (uint64_t)psize : 0;
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(si->kernel, sizeof si->kernel, "%s %s %s", u.sysname, u.release, u.machine);
        snprintf(si->hostname, sizeof si->hostname, "%s", u.nodename);
    }
}

static void format_set(const cpu_set_t *set, char *buf, size_t len)
{
    int cpus[PGCB_MAX_CPUS];
    size_t n = 0;
    for (int c = 0; c < PGCB_MAX_CPUS && c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set))
            cpus[n++] = c;
    pgcb_cpus_format(cpus, n, buf, len);
}

int pgcb_cpus_check(const int *cpus, size_t n, char *err, size_t errlen)
{
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (cpus[i] >= CPU_SETSIZE || !CPU_ISSET(cpus[i], &allowed)) {
            char list[256];
            format_set(&allowed, list, sizeof list);
            snprintf(err, errlen, "CPU %d is not available to this process (allowed: %s)",
                     cpus[i], list);
            return -1;
        }
    }
    return 0;
}

size_t pgcb_cpus_other(const int *cpus, size_t n, int *out, size_t max)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE)
            CPU_CLR(cpus[i], &set);
    size_t k = 0;
    for (int c = 0; c < CPU_SETSIZE && k < max; c++)
        if (CPU_ISSET(c, &set))
            out[k++] = c;
    return k;
}

int pgcb_pin_away(const int *cpus, size_t n, char *buf, size_t len)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(buf, len, "unknown");
        return -1;
    }
    cpu_set_t away = set;
    for (size_t i = 0; i < n; i++)
        if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE)
            CPU_CLR(cpus[i], &away);
    if (CPU_COUNT(&away) == 0) {
        format_set(&set, buf, len);
        return 0;
    }
    if (sched_setaffinity(0, sizeof away, &away) != 0) {
        format_set(&set, buf, len);
        return -1;
    }
    format_set(&away, buf, len);
    return 1;
}

int pgcb_pin_self(int cpu, char *err, size_t errlen)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        snprintf(err, errlen, "cannot pin to CPU %d: sched_setaffinity: %s", cpu, strerror(errno));
        return -1;
    }
    return 0;
}

int pgcb_cpus_of_pid(pid_t pid, char *buf, size_t n)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(pid, sizeof set, &set) != 0)
        return -1;
    format_set(&set, buf, n);
    return 0;
}

int pgcb_sysfs_line(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    if (fgets(line, sizeof line, f))
        pgcb_oneline(buf, n, line);
    fclose(f);
    return buf[0] ? 0 : -1;
}

int pgcb_cpu_file_read(const char *root, int cpu, const char *rel, char *buf, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/cpu%d/%s", root, cpu, rel);
    return pgcb_sysfs_line(path, buf, n);
}

/* A frequency in kHz (a positive integer), or NAN. */
static double read_khz(const char *root, int cpu, const char *rel)
{
    char buf[64];
    uint64_t v;
    if (pgcb_cpu_file_read(root, cpu, rel, buf, sizeof buf) != 0 ||
        pgcb_parse_u64(buf, 1, UINT32_MAX, &v) != 0)
        return NAN;
    return (double)v;
}

void pgcb_cpu_facts_read(const char *root, int cpu, struct pgcb_cpu_facts *out)
{
    *out = (struct pgcb_cpu_facts){.cpu = cpu};
    pgcb_cpu_file_read(root, cpu, "cpufreq/scaling_governor", out->governor, sizeof out->governor);
    out->cur_khz = read_khz(root, cpu, "cpufreq/scaling_cur_freq");
    out->min_khz = read_khz(root, cpu, "cpufreq/scaling_min_freq");
    out->max_khz = read_khz(root, cpu, "cpufreq/scaling_max_freq");
    pgcb_cpu_file_read(root, cpu, "topology/thread_siblings_list", out->siblings,
                  sizeof out->siblings);
}
