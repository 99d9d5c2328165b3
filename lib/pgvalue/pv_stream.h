/*
 * pv_stream.h -- a byte string folded as it is produced: the same hash as
 * pgcb_sum_bytes() (driver.h) over the whole string, for strings that are
 * not in memory as one piece (a numeric's digits, an unescaped array
 * element, decoded bytea). Internal to lib/pgvalue.
 *
 * Use: pv_stream_start(&st, h, len) with the string's final length, then
 * pv_stream_put() exactly `len` times, then h = pv_stream_end(&st).
 */
#ifndef PGCB_PV_STREAM_H
#define PGCB_PV_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

struct pv_stream {
    uint64_t h;  /* the hash so far */
    uint64_t w;  /* the word being filled, little-endian */
    unsigned k;  /* bytes in w */
};

static inline void pv_stream_start(struct pv_stream *st, uint64_t h, size_t len)
{
    st->h = pgcb_sum_mix(h, len);
    st->w = 0;
    st->k = 0;
}

static inline void pv_stream_put(struct pv_stream *st, unsigned char b)
{
    st->w |= (uint64_t)b << (8 * st->k);
    if (++st->k == 8) {
        st->h = pgcb_sum_mix(st->h, st->w);
        st->w = 0;
        st->k = 0;
    }
}

static inline uint64_t pv_stream_end(struct pv_stream *st)
{
    if (st->k)
        st->h = pgcb_sum_mix(st->h, st->w);
    return st->h;
}

#endif
