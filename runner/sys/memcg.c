/* memcg.c -- see memcg.h. */
#include "memcg.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define V2_ROOT "/sys/fs/cgroup"
#define V1_ROOT "/sys/fs/cgroup/memory"

/* Write s into DIR/file. 0, or -1 with errno. */
static int put(const char *dir, const char *file, const char *s)
{
    char path[320];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = strlen(s);
    ssize_t w = write(fd, s, n);
    int e = errno;
    close(fd);
    errno = e;
    return w == (ssize_t)n ? 0 : -1;
}

/* The value after `key ` on its line of DIR/file; 0 if absent. */
static uint64_t keyed(const char *dir, const char *file, const char *key)
{
    char path[320], line[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "re");
    uint64_t v = 0;
    size_t k = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, k) == 0 && line[k] == ' ')
            v = strtoull(line + k + 1, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

int pgcb_memcg_create(struct pgcb_memcg *m, const char *name, uint64_t limit_mb, char *err,
                      size_t errlen)
{
    struct stat st;
    *m = (struct pgcb_memcg){.limit_bytes = limit_mb * 1024 * 1024};
    m->v2 = stat(V2_ROOT "/cgroup.controllers", &st) == 0;
    const char *root = m->v2 ? V2_ROOT : V1_ROOT;
    if (!m->v2 && stat(V1_ROOT "/memory.limit_in_bytes", &st) != 0) {
        snprintf(err, errlen, "max_rss_mb: this machine has no memory cgroup (neither %s/"
                 "cgroup.controllers nor %s/memory.limit_in_bytes)", V2_ROOT, V1_ROOT);
        return -1;
    }
    char dir[sizeof m->dir];
    if ((size_t)snprintf(dir, sizeof dir, "%s/pgcb-%ld-%s", root, (long)getpid(), name) >=
        sizeof dir) {
        snprintf(err, errlen, "max_rss_mb: driver name %s too long for a cgroup", name);
        return -1;
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "max_rss_mb: cannot make the memory cgroup %s: %s (it needs root, "
                 "or a delegated cgroup)", dir, strerror(errno));
        return -1;
    }
    snprintf(m->dir, sizeof m->dir, "%s", dir);
    char v[32];
    snprintf(v, sizeof v, "%" PRIu64, m->limit_bytes);
    int rc = put(dir, m->v2 ? "memory.max" : "memory.limit_in_bytes", v);
    if (rc == 0 && m->v2)
        (void)put(dir, "memory.swap.max", "0"); /* absent without swap accounting */
    else if (rc == 0)
        (void)put(dir, "memory.memsw.limit_in_bytes", v); /* likewise */
    if (rc != 0) {
        snprintf(err, errlen, "max_rss_mb: cannot set the limit of %s: %s", dir,
                 strerror(errno));
        pgcb_memcg_destroy(m);
        return -1;
    }
    return 0;
}

int pgcb_memcg_join(const struct pgcb_memcg *m)
{
    char v[32];
    if (!m->dir[0])
        return 0;
    snprintf(v, sizeof v, "%ld", (long)getpid());
    return put(m->dir, "cgroup.procs", v);
}

uint64_t pgcb_memcg_oom_kills(const struct pgcb_memcg *m)
{
    if (!m->dir[0])
        return 0;
    return m->v2 ? keyed(m->dir, "memory.events", "oom_kill")
                 : keyed(m->dir, "memory.oom_control", "oom_kill");
}

void pgcb_memcg_destroy(struct pgcb_memcg *m)
{
    if (!m->dir[0])
        return;
    /* A process still in it (a host that outlived the run) back to the
     * root, so that the directory can go. */
    char path[320], line[32];
    snprintf(path, sizeof path, "%s/cgroup.procs", m->dir);
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f))
        (void)put(m->v2 ? V2_ROOT : V1_ROOT, "cgroup.procs", line);
    if (f)
        fclose(f);
    /* An adapter killed with its host may take a moment to be gone. */
    for (int i = 0; i < 100 && rmdir(m->dir) != 0 && errno == EBUSY; i++)
        usleep(10000);
    m->dir[0] = '\0';
}
