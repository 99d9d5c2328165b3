/*
 * feedtest.h -- feeding a reply parser of lib/pgwire's rw_feed_fn shape
 * (rawwire's rw_reply_feed, rw_copy_feed) scripted bytes in pieces, as the
 * socket would give them: the unit tests of both parsers share it.
 */
#ifndef PGCB_TESTS_FEEDTEST_H
#define PGCB_TESTS_FEEDTEST_H

#include <stddef.h>

#include "pgwire/rw_io.h"

/* Feed p (n bytes, at most 4096) to feed(ctx, ...) in pieces of `step`
 * bytes, keeping what it did not use and completing it with the next piece,
 * until it returns something other than RW_FEED_MORE or the bytes run out;
 * that last return. Asserts (cmocka) that it never uses more than it had. */
int feedtest_pieces(rw_feed_fn feed, void *ctx, const unsigned char *p, size_t n, size_t step,
                    char *err, size_t errlen);

#endif
