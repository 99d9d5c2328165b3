/*
 * util.h -- allocation that cannot fail (the program exits on ENOMEM with a
 * one-line message) and small string helpers. For setup code only: the timed
 * loop never allocates.
 */
#ifndef PGCB_UTIL_H
#define PGCB_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

void *pgcb_xmalloc(size_t n);
void *pgcb_xcalloc(size_t n, size_t size);
void *pgcb_xrealloc(void *p, size_t n);
char *pgcb_xstrdup(const char *s);
char *pgcb_xstrndup(const char *s, size_t n);
/* printf into a new string; the caller frees it. */
char *pgcb_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Copy src into dst (size n >= 1) as one line: newlines and tabs become
 * spaces, trailing whitespace is dropped, the result is always terminated. */
void pgcb_oneline(char *dst, size_t n, const char *src);

/* Most CPUs in a CPU list. */
#define PGCB_MAX_CPUS 1024

/* Parse a CPU list ("0", "0,2", "1-3,6") into out (at most max); order
 * kept, duplicates refused. Returns the count, or -1 with a message in err. */
int pgcb_parse_cpus(const char *s, int *out, size_t max, char *err, size_t errlen);

/* Format cpus[] as a list "0,2-3". */
void pgcb_cpus_format(const int *cpus, size_t n, char *buf, size_t len);

/* 1 if the two CPU lists (as pgcb_cpus_format writes them) share a CPU. */
int pgcb_cpus_overlap(const char *a, const char *b);

/* Parse a decimal integer (digits only: no sign, no junk, no overflow)
 * within [min, max]. Returns 0, or -1. */
int pgcb_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* CLOCK_MONOTONIC in nanoseconds (vDSO, no system call on Linux with a TSC
 * clocksource). Inline: it is read once per sample in the timed loop. */
static inline uint64_t pgcb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
/* CLOCK_THREAD_CPUTIME_ID of the calling thread in nanoseconds. */
uint64_t pgcb_thread_cpu_ns(void);

/* mkdir -p of the directory part of path (what precedes its last '/').
 * Returns 0, or -1 with errno set. */
int pgcb_mkdir_parents(const char *path);

/* Write text to path atomically (a temporary file in the same directory,
 * then rename: a reader never sees half a file). 0, or -1 with "PATH:
 * cannot write: why" in err (errlen bytes) and no file left behind. */
int pgcb_write_text(const char *path, const char *text, char *err, size_t errlen);

#endif
