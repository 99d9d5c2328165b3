/*
 * cpuidle.c -- see cpuidle.h.
 */
#include "cpuidle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysinfo.h"
#include "util.h"

int pgcb_idle_parse(const char *s)
{
    if (strcmp(s, "auto") == 0)
        return PGCB_IDLE_AUTO;
    if (strcmp(s, "poll") == 0)
        return PGCB_IDLE_POLL;
    if (strcmp(s, "system") == 0)
        return PGCB_IDLE_SYSTEM;
    return -1;
}

const char *pgcb_idle_name(enum pgcb_cpu_idle m)
{
    return m == PGCB_IDLE_POLL ? "poll" : m == PGCB_IDLE_SYSTEM ? "system" : "auto";
}

void pgcb_idle_entries_read(const char *root, const int *cpus, size_t ncpus,
                            struct pgcb_idle_entries *out)
{
    int seen = 0;
    *out = (struct pgcb_idle_entries){0, 0};
    for (size_t i = 0; i < ncpus; i++)
        for (int k = 0; k < 64; k++) {
            char rel[64], name[32], usage[32];
            uint64_t v;
            snprintf(rel, sizeof rel, "cpuidle/state%d/name", k);
            if (pgcb_cpu_file_read(root, cpus[i], rel, name, sizeof name) != 0)
                break; /* states are numbered from 0 without gaps */
            snprintf(rel, sizeof rel, "cpuidle/state%d/usage", k);
            if (pgcb_cpu_file_read(root, cpus[i], rel, usage, sizeof usage) != 0 ||
                pgcb_parse_u64(usage, 0, UINT64_MAX, &v) != 0)
                continue;
            seen = 1;
            *(strcmp(name, "POLL") == 0 ? &out->poll : &out->other) += v;
        }
    if (!seen)
        out->poll = out->other = UINT64_MAX;
}

/* The cpuidle driver and governor, as sysfs shows them ("" if not). */
static void read_cpuidle(const char *root, struct pgcb_idle_hold *h)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/cpuidle/current_driver", root);
    pgcb_sysfs_line(path, h->driver, sizeof h->driver);
    snprintf(path, sizeof path, "%s/cpuidle/current_governor_ro", root);
    if (pgcb_sysfs_line(path, h->governor, sizeof h->governor) != 0) {
        snprintf(path, sizeof path, "%s/cpuidle/current_governor", root);
        pgcb_sysfs_line(path, h->governor, sizeof h->governor);
    }
}

int pgcb_idle_hold(struct pgcb_idle_hold *h, enum pgcb_cpu_idle m, const char *path,
                   const char *root, char *err, size_t errlen)
{
    *h = (struct pgcb_idle_hold){.fd = -1};
    read_cpuidle(root, h);
    if (m == PGCB_IDLE_SYSTEM) {
        snprintf(h->why, sizeof h->why, "[bench] cpu_idle = system");
        return 0;
    }
    const int32_t zero = 0; /* microseconds of wake-up latency allowed */
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0 && write(fd, &zero, sizeof zero) != (ssize_t)sizeof zero) {
        int e = errno;
        close(fd);
        fd = -1;
        errno = e ? e : EIO;
    }
    if (fd < 0) {
        snprintf(h->why, sizeof h->why, "%s: %s%s", path, strerror(errno),
                 errno == EACCES || errno == EPERM ? " (root may write it)" : "");
        if (m == PGCB_IDLE_POLL) {
            snprintf(err, errlen, "[bench] cpu_idle = poll: %s", h->why);
            return -1;
        }
        return 0;
    }
    h->fd = fd;
    h->polling = 1;
    return 0;
}

void pgcb_idle_release(struct pgcb_idle_hold *h)
{
    if (h->fd >= 0)
        close(h->fd);
    h->fd = -1;
}
