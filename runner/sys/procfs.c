/* procfs.c -- see procfs.h. */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pgcb_procfs_parse_stat(const char *text, struct pgcb_procfs_stat *st)
{
    const char *open = strchr(text, '(');
    const char *close = strrchr(text, ')');
    if (!open || !close || close < open)
        return -1;
    size_t len = (size_t)(close - open - 1);
    if (len >= sizeof st->comm)
        len = sizeof st->comm - 1;
    memcpy(st->comm, open + 1, len);
    st->comm[len] = '\0';
    const char *p = close + 1;
    while (*p == ' ')
        p++;
    if (!*p || p[1] != ' ')
        return -1;
    st->state = *p++;
    /* Fields 4 .. 20; tpgid (8), priority (18) and nice (19) may be
     * negative, the ones kept may not. */
    long long v[21] = {0};
    for (int f = 4; f <= 20; f++) {
        char *end;
        errno = 0;
        v[f] = strtoll(p, &end, 10);
        if (end == p || errno || (*end != ' ' && *end != '\n' && *end != '\0'))
            return -1;
        p = end;
    }
    if (v[4] < 0 || v[14] < 0 || v[15] < 0 || v[16] < 0 || v[17] < 0 || v[20] < 0)
        return -1;
    st->ppid = (int)v[4];
    st->utime = (uint64_t)v[14];
    st->stime = (uint64_t)v[15];
    st->cutime = (uint64_t)v[16];
    st->cstime = (uint64_t)v[17];
    st->threads = (long)v[20];
    return 0;
}

/* The value of the line "KEY:\tN" of a status text, or -1 if missing. */
static int status_value(const char *text, const char *key, uint64_t *out)
{
    size_t klen = strlen(key);
    for (const char *line = text; *line;) {
        if (strncmp(line, key, klen) != 0 || line[klen] != ':') {
            const char *nl = strchr(line, '\n');
            if (!nl)
                break;
            line = nl + 1;
            continue;
        }
        char *end;
        errno = 0;
        unsigned long long v = strtoull(line + klen + 1, &end, 10);
        if (end == line + klen + 1 || errno)
            return -1;
        *out = v;
        return 0;
    }
    return -1;
}

int pgcb_procfs_parse_switches(const char *text, uint64_t *voluntary, uint64_t *involuntary)
{
    uint64_t v, n;
    if (status_value(text, "voluntary_ctxt_switches", &v) != 0 ||
        status_value(text, "nonvoluntary_ctxt_switches", &n) != 0)
        return -1;
    *voluntary = v;
    *involuntary = n;
    return 0;
}

int pgcb_procfs_parse_memory(const char *text, uint64_t *rss_kib, uint64_t *hwm_kib)
{
    uint64_t r, h;
    if (status_value(text, "VmRSS", &r) != 0 || status_value(text, "VmHWM", &h) != 0)
        return -1;
    *rss_kib = r;
    *hwm_kib = h;
    return 0;
}

int pgcb_procfs_parse_schedstat(const char *text, uint64_t *run_ns)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || errno || (*end != ' ' && *end != '\n' && *end != '\0'))
        return -1;
    *run_ns = v;
    return 0;
}

/* /proc/PID/NAME into buf (n bytes, terminated). 0, or -1. */
static int slurp(int pid, const char *name, char *buf, size_t n)
{
    char path[64];
    if (pid <= 0)
        return -1;
    snprintf(path, sizeof path, "/proc/%d/%s", pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    ssize_t got;
    while (len < n - 1 && (got = read(fd, buf + len, n - 1 - len)) > 0)
        len += (size_t)got;
    close(fd);
    buf[len] = '\0';
    return len ? 0 : -1;
}

int pgcb_procfs_stat(int pid, struct pgcb_procfs_stat *st)
{
    char buf[1024];
    return slurp(pid, "stat", buf, sizeof buf) == 0 ? pgcb_procfs_parse_stat(buf, st) : -1;
}

int pgcb_procfs_switches(int pid, uint64_t *voluntary, uint64_t *involuntary)
{
    char buf[8192]; /* the switches are the last lines of status, ~1.5 kB in */
    return slurp(pid, "status", buf, sizeof buf) == 0
               ? pgcb_procfs_parse_switches(buf, voluntary, involuntary)
               : -1;
}

int pgcb_procfs_schedstat(int pid, uint64_t *run_ns)
{
    char buf[128];
    return slurp(pid, "schedstat", buf, sizeof buf) == 0
               ? pgcb_procfs_parse_schedstat(buf, run_ns)
               : -1;
}

uint64_t pgcb_procfs_tick_ns(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    return 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
}

int pgcb_procfs_memory(int pid, uint64_t *rss_kib, uint64_t *hwm_kib)
{
    char buf[8192];
    return slurp(pid, "status", buf, sizeof buf) == 0
               ? pgcb_procfs_parse_memory(buf, rss_kib, hwm_kib)
               : -1;
}

int pgcb_procfs_reset_peak(int pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/clear_refs", pid);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int ok = write(fd, "5", 1) == 1;
    close(fd);
    return ok ? 0 : -1;
}

int pgcb_procfs_children(int pid, int *out, int max)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *dir = opendir(path);
    if (!dir)
        return 0;
    int n = 0;
    struct dirent *e;
    while (n < max && (e = readdir(dir))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char cpath[300];
        snprintf(cpath, sizeof cpath, "/proc/%d/task/%s/children", pid, e->d_name);
        FILE *f = fopen(cpath, "re");
        if (!f)
            continue;
        int c;
        while (n < max && fscanf(f, "%d", &c) == 1)
            out[n++] = c;
        fclose(f);
    }
    closedir(dir);
    return n;
}
