/* rw_copy_reply.c -- see rw_copy_reply.h. */
#include "rw_copy_reply.h"

#include <string.h>

#include "pgwire/rw_codec.h"
#include "pgwire/rw_err.h"
#include "pgwire/rw_io.h"

void rw_copy_reply_init(struct rw_copy_reply *r)
{
    memset(r, 0, sizeof *r);
    r->state = RW_CS_START;
}

static int copy_unexpected(const struct rw_copy_reply *r, char type, char *err, size_t errlen)
{
    static const char *const states[] = {"CopyInResponse", "CommandComplete of the COPY",
                                         "ReadyForQuery", "ReadyForQuery after the results",
                                         "ReadyForQuery after an error"};
    if ((unsigned char)type >= 0x20 && (unsigned char)type < 0x7f)
        rw_errf(err, errlen, "unexpected message type '%c' in a COPY (expecting %s)", type,
                states[r->state]);
    else
        rw_errf(err, errlen, "unknown message type 0x%02x in a COPY", (unsigned char)type);
    return RW_FEED_ERROR;
}

/* CopyInResponse: int8 format, int16 columns, int16 format per column. */
static int copy_in_ok(const char *b, size_t n)
{
    return n >= 3 && (unsigned char)b[0] <= 1 && n == 3 + 2 * (size_t)rw_be16(b + 1);
}

/* CommandComplete "COPY n": *rows. -1 if the tag is not that. */
static int copy_tag(const char *b, size_t n, uint64_t *rows)
{
    if (n < 7 || b[n - 1] != '\0' || memcmp(b, "COPY ", 5) != 0)
        return -1;
    uint64_t v = 0;
    for (const char *d = b + 5; d < b + n - 1; d++) {
        if (*d < '0' || *d > '9' || v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*d - '0');
    }
    *rows = v;
    return 0;
}

int rw_copy_feed(void *ctx, const char *p, size_t n, size_t *used, size_t *need, char *err,
                 size_t errlen)
{
    struct rw_copy_reply *r = ctx;
    const char *q = p, *end = p + n;
    int ret = RW_FEED_MORE;

    *need = 0;
    for (;;) {
        uint32_t len;
        char type;
        int h = rw_dec_header(q, (size_t)(end - q), &type, &len);
        if (h == RW_HDR_MORE)
            break;
        if (h == RW_HDR_BAD) {
            rw_errf(err, errlen, "invalid message length %u (type 0x%02x) in a COPY", len,
                    (unsigned char)type);
            return RW_FEED_ERROR;
        }
        if ((size_t)(end - q) - 1 < len) {
            *need = (size_t)len + 1;
            break;
        }
        const char *b = q + 5;
        size_t bn = len - 4;
        switch (type) {
        case 'G': /* CopyInResponse */
            if (r->state != RW_CS_START)
                return copy_unexpected(r, type, err, errlen);
            if (!copy_in_ok(b, bn)) {
                rw_errf(err, errlen, "malformed CopyInResponse (%zu bytes)", bn);
                return RW_FEED_ERROR;
            }
            r->state = RW_CS_IN;
            break;
        case 'C': /* CommandComplete */
            if (r->state == RW_CS_IN) {
                if (copy_tag(b, bn, &r->rows)) {
                    rw_errf(err, errlen, "CommandComplete of a COPY without a row count");
                    return RW_FEED_ERROR;
                }
                r->state = RW_CS_DONE;
                break;
            }
            /* a statement of another kind: */
            __attribute__((fallthrough));
        case 'T': case 'D': case 'I': case 'H': case 'W': case 'd': case 'c':
            if (r->state != RW_CS_START && r->state != RW_CS_OTHER)
                return copy_unexpected(r, type, err, errlen);
            r->not_copy = 1;
            r->state = RW_CS_OTHER;
            break;
        case 'E': {
            struct rw_pgerr e;
            if (rw_dec_error(b, bn, &e)) {
                rw_errf(err, errlen, "malformed ErrorResponse in a COPY");
                return RW_FEED_ERROR;
            }
            if (!r->have_error) {
                r->have_error = 1;
                rw_pgerr_format(&e, r->qerr, sizeof r->qerr);
            }
            r->state = RW_CS_ERROR;
            if (rw_pgerr_is_fatal(&e)) {
                r->fatal = 1;
                q += (size_t)len + 1;
                ret = RW_FEED_FATAL;
                goto out;
            }
            break;
        }
        case 'Z': {
            char status;
            if (r->state == RW_CS_START || r->state == RW_CS_IN || rw_dec_ready(b, bn, &status))
                return copy_unexpected(r, type, err, errlen);
            q += (size_t)len + 1;
            ret = RW_FEED_DONE;
            goto out;
        }
        case 'N': /* NoticeResponse */
        case 'S': /* ParameterStatus */
        case 'A': /* NotificationResponse */
            break;
        default:
            return copy_unexpected(r, type, err, errlen);
        }
        q += (size_t)len + 1;
    }
out:
    *used = (size_t)(q - p);
    return ret;
}
