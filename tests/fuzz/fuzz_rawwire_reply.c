/*
 * fuzz_rawwire_reply.c -- libFuzzer target for rawwire's two reply
 * parsers -- a batch's (rw_reply_feed: framing, message order, DataRow
 * fields, every value conversion) and a COPY FROM STDIN's (rw_copy_feed:
 * CopyInResponse, CommandComplete "COPY n", errors) -- and the
 * backend-message decoders used at startup and prepare. Built with clang
 * -fsanitize=fuzzer,address,undefined by mk/rawwire.mk (`make fuzz`).
 *
 * Input: byte 0 the batch depth (1 + b % 4), its bits 2-3 the reply flags
 * and bit 4 the parser (set: COPY's); byte 1 the column count (b % 6), one
 * byte per column its kind (b % PGCB_VALUE_NKINDS, enum pgcb_value_kind of
 * include/pgcb/value.h), one byte the chunk size the bytes arrive in
 * (1 + b), then the server's bytes. Every feed call sees an exactly-sized
 * heap copy of the unconsumed bytes, so any read past what arrived is an
 * ASan error.
 */
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgcb/value.h"
#include "pgwire/rw_codec.h"
#include "pgwire/rw_err.h"
#include "../../drivers/rawwire/rw_copy.h"
#include "../../drivers/rawwire/rw_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static locale_t fz_locale;

static void fz_decoders(const char *p, size_t n)
{
    struct rw_pgerr e;
    unsigned u;
    uint32_t oids[4], code, a, b;
    const char *d;
    size_t dl;
    char st, err[PGCB_ERRLEN];

    if (rw_dec_error(p, n, &e) == 0)
        rw_pgerr_format(&e, err, sizeof err);
    (void)rw_dec_rowdesc(p, n, &u, oids, 4);
    (void)rw_dec_paramdesc(p, n, &u);
    if (rw_dec_auth(p, n, &code, &d, &dl) == 0)
        (void)rw_dec_sasl_has(d, dl, "SCRAM-SHA-256");
    (void)rw_dec_backend_key(p, n, &a, &b);
    (void)rw_dec_ready(p, n, &st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char kinds[8];
    struct pgcb_sum sum = {0, 0};
    struct rw_reply r;
    struct rw_copy_reply cr;
    rw_feed_fn feed = rw_reply_feed;
    void *ctx = &r;
    char err[PGCB_ERRLEN];
    size_t i = 0, ncols, step, have = 0, off;
    uint32_t depth;
    unsigned flags;
    char *pending = NULL;

    if (!fz_locale && !(fz_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0)))
        abort();
    if (size < 3)
        return 0;
    flags = (data[i] >> 2) & 3u; /* RW_REPLY_DESCRIBE, RW_REPLY_SYNC_PER_BATCH */
    if (data[i] & 0x10u) {
        feed = rw_copy_feed;
        ctx = &cr;
    }
    depth = 1 + data[i++] % 4;
    ncols = data[i++] % 6;
    for (size_t c = 0; c < ncols; c++)
        kinds[c] = i < size ? data[i++] % PGCB_VALUE_NKINDS : 0;
    step = i < size ? 1 + (size_t)data[i++] : 1;
    off = i;

    {   /* the decoders on the whole payload, exactly sized */
        char *copy = malloc(size - off + 1);
        if (!copy)
            return 0;
        memcpy(copy, data + off, size - off);
        fz_decoders(copy, size - off);
        free(copy);
    }

    rw_reply_init(&r, kinds, (unsigned)ncols, &sum, fz_locale, depth, flags);
    rw_copy_reply_init(&cr);
    while (off < size) {
        size_t take = size - off < step ? size - off : step, used = 0, need = 0;
        char *buf = malloc(have + take);
        int ret;
        if (!buf)
            break;
        if (have)
            memcpy(buf, pending, have);
        memcpy(buf + have, data + off, take);
        free(pending);
        pending = NULL;
        have += take;
        off += take;
        ret = feed(ctx, buf, have, &used, &need, err, sizeof err);
        if (used > have || (ret == RW_FEED_MORE && need && need <= have - used))
            abort(); /* the parser's own contract */
        if (ret != RW_FEED_MORE) {
            free(buf);
            have = 0;
            break;
        }
        have -= used;
        if (have) {
            pending = malloc(have);
            if (!pending) {
                free(buf);
                break;
            }
            memcpy(pending, buf + used, have);
        }
        free(buf);
    }
    free(pending);
    return 0;
}
