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

#endif
