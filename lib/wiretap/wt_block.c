/*
 * wt_block.c -- the shared counter block of wt_block.h: an anonymous memory
 * file (memfd_create) mapped shared by the proxy and its starter.
 */
#include "wt_block.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const uint64_t wt_late_bounds[WT_LATE_NBUCKETS - 1] = {
    2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000,
};

struct wt_block *wt_block_create(int *fd, char *why, size_t whylen)
{
    int f = memfd_create("pgcb-wire", MFD_CLOEXEC); /* the starter clears it for the proxy */
    if (f < 0) {
        snprintf(why, whylen, "memfd_create: %s", strerror(errno));
        return NULL;
    }
    if (ftruncate(f, sizeof(struct wt_block)) != 0) {
        snprintf(why, whylen, "ftruncate of the counter block: %s", strerror(errno));
        close(f);
        return NULL;
    }
    struct wt_block *b = wt_block_map(f, why, whylen);
    if (!b) {
        close(f);
        return NULL;
    }
    *fd = f;
    return b;
}

struct wt_block *wt_block_map(int fd, char *why, size_t whylen)
{
    void *p = mmap(NULL, sizeof(struct wt_block), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(why, whylen, "mmap of the counter block (fd %d): %s", fd, strerror(errno));
        return NULL;
    }
    return p;
}

void wt_block_unmap(struct wt_block *b)
{
    if (b)
        munmap(b, sizeof *b);
}

void wt_block_read(const struct wt_block *b, struct wt_block *out)
{
    const uint64_t *f = (const uint64_t *)b;
    uint64_t *o = (uint64_t *)out;
    size_t nwords = offsetof(struct wt_block, last_error) / sizeof(uint64_t);
    for (size_t k = 0; k < nwords; k++)
        o[k] = __atomic_load_n(&f[k], __ATOMIC_ACQUIRE);
    memcpy(out->last_error, b->last_error, sizeof out->last_error);
    out->last_error[sizeof out->last_error - 1] = '\0';
}

void wt_block_late(struct wt_block *b, uint64_t late_ns)
{
    struct wt_delay *d = &b->delay;
    size_t k = 0;
    while (k < WT_LATE_NBUCKETS - 1 && late_ns >= wt_late_bounds[k])
        k++;
    __atomic_fetch_add(&d->late_hist[k], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&d->late_sum_ns, late_ns, __ATOMIC_RELAXED);
    if (late_ns > __atomic_load_n(&d->late_max_ns, __ATOMIC_RELAXED))
        __atomic_store_n(&d->late_max_ns, late_ns, __ATOMIC_RELAXED); /* one writer */
    __atomic_fetch_add(&d->chunks, 1, __ATOMIC_RELEASE);
}

void wt_block_error(struct wt_block *b, int refused, const char *msg)
{
    snprintf(b->last_error, sizeof b->last_error, "%s", msg);
    __atomic_fetch_add(refused ? &b->refused : &b->errors, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&b->error_seq, 1, __ATOMIC_RELEASE);
}
