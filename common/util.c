/* util.c -- see util.h. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void oom(size_t n)
{
    fprintf(stderr, "pgclientbench: out of memory (allocating %zu bytes)\n", n);
    exit(70);
}

void *pgcb_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *pgcb_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *pgcb_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *pgcb_xstrdup(const char *s)
{
    return pgcb_xstrndup(s, strlen(s));
}

char *pgcb_xstrndup(const char *s, size_t n)
{
    char *p = pgcb_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *pgcb_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *p = pgcb_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void pgcb_oneline(char *dst, size_t n, const char *src)
{
    size_t j = 0;
    for (size_t i = 0; src[i] && j + 1 < n; i++) {
        char ch = src[i];
        dst[j++] = (ch == '\n' || ch == '\r' || ch == '\t') ? ' ' : ch;
    }
    while (j > 0 && dst[j - 1] == ' ')
        j--;
    dst[j] = '\0';
}

uint64_t pgcb_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int pgcb_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s))
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int pgcb_parse_cpus(const char *s, int *out, size_t max, char *err, size_t errlen)
{
    size_t n = 0;
    char *copy = pgcb_xstrdup(s);
    char *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        char *dash = strchr(tok, '-');
        uint64_t lo, hi;
        if (dash) {
            *dash = '\0';
            if (pgcb_parse_u64(tok, 0, PGCB_MAX_CPUS - 1, &lo) ||
                pgcb_parse_u64(dash + 1, 0, PGCB_MAX_CPUS - 1, &hi) || hi < lo) {
                snprintf(err, errlen, "bad CPU range '%s-%s'", tok, dash + 1);
                rc = -1;
                break;
            }
        } else if (pgcb_parse_u64(tok, 0, PGCB_MAX_CPUS - 1, &lo)) {
            snprintf(err, errlen, "bad CPU number '%s'", tok);
            rc = -1;
            break;
        } else {
            hi = lo;
        }
        for (uint64_t cpu = lo; cpu <= hi && rc == 0; cpu++) {
            for (size_t i = 0; i < n; i++)
                if (out[i] == (int)cpu) {
                    snprintf(err, errlen, "CPU %d listed twice", (int)cpu);
                    rc = -1;
                }
            if (rc == 0 && n == max) {
                snprintf(err, errlen, "more than %zu CPUs listed", max);
                rc = -1;
            }
            if (rc == 0)
                out[n++] = (int)cpu;
        }
        if (rc)
            break;
    }
    free(copy);
    if (rc == 0 && n == 0) {
        snprintf(err, errlen, "empty CPU list");
        rc = -1;
    }
    return rc ? -1 : (int)n;
}

int pgcb_mkdir_parents(const char *path)
{
    char *p = pgcb_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    free(p);
    return 0;
}

void pgcb_cpus_format(const int *cpus, size_t n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
            j++;
        size_t used = strlen(buf);
        if (j > i + 1)
            snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", cpus[i], cpus[j]);
        else if (j == i + 1)
            snprintf(buf + used, len - used, "%s%d,%d", used ? "," : "", cpus[i], cpus[j]);
        else
            snprintf(buf + used, len - used, "%s%d", used ? "," : "", cpus[i]);
        i = j + 1;
    }
}

int pgcb_cpus_overlap(const char *a, const char *b)
{
    int ca[PGCB_MAX_CPUS], cb[PGCB_MAX_CPUS];
    char err[128];
    int na = pgcb_parse_cpus(a, ca, PGCB_MAX_CPUS, err, sizeof err);
    int nb = pgcb_parse_cpus(b, cb, PGCB_MAX_CPUS, err, sizeof err);
    for (int i = 0; i < na; i++)
        for (int k = 0; k < nb; k++)
            if (ca[i] == cb[k])
                return 1;
    return 0;
}

int pgcb_write_text(const char *path, const char *text, char *err, size_t errlen)
{
    char *tmp = pgcb_xasprintf("%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    fchmod(fd, 0644);
    size_t n = strlen(text), done = 0;
    int saved = 0;
    while (done < n) {
        ssize_t w = write(fd, text + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            saved = w < 0 ? errno : EIO;
            break;
        }
        done += (size_t)w;
    }
    if (close(fd) != 0 && !saved)
        saved = errno;
    if (!saved && rename(tmp, path) != 0)
        saved = errno;
    if (saved) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return saved ? -1 : 0;
}
