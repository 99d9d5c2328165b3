/* feedtest.c -- see feedtest.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "feedtest.h"

int feedtest_pieces(rw_feed_fn feed, void *ctx, const unsigned char *p, size_t n, size_t step,
                    char *err, size_t errlen)
{
    unsigned char buf[4096];
    size_t have = 0, off = 0;
    int ret = RW_FEED_MORE;

    assert_true(n <= sizeof buf);
    while (ret == RW_FEED_MORE && off < n) {
        size_t take = n - off < step ? n - off : step, used = 0, need = 0;
        memcpy(buf + have, p + off, take);
        have += take;
        off += take;
        ret = feed(ctx, (const char *)buf, have, &used, &need, err, errlen);
        assert_true(used <= have);
        memmove(buf, buf + used, have - used);
        have -= used;
    }
    return ret;
}
