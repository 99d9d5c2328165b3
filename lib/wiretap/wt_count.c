/*
 * wt_count.c -- the PostgreSQL v3 message accounting of wt_count.h: a
 * header-and-length parser per direction that never buffers a body, and the
 * round-trip rule driven by each message's type (and, for 'R' and the
 * untyped requests, the first four bytes of its body).
 */
#include "wt_count.h"

#include <string.h>

/* The untyped requests' codes (the first 4 bytes of their bodies). */
#define WT_CODE_SSL 80877103u
#define WT_CODE_GSSENC 80877104u
#define WT_CODE_CANCEL 80877102u

/* A length no PostgreSQL peer sends (the server's own limit for a startup
 * packet is 10000 bytes; any message is under 1 GiB + headers). */
#define WT_MAX_LEN 0x40000100u

static void add(uint64_t *f, uint64_t n) { __atomic_fetch_add(f, n, __ATOMIC_RELAXED); }

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void wt_conn_init(struct wt_conn *c, struct wt_totals *tot)
{
    memset(c, 0, sizeof *c);
    c->tot = tot;
    c->side[WT_TO_SERVER].untyped_next = 1;
    c->side[WT_TO_SERVER].hdr_need = 4;
    c->side[WT_TO_CLIENT].hdr_need = 5;
    c->delivered = 1; /* the first message starts a round trip */
    add(&tot->connections, 1);
}

/* A client message of type t (WT_UNTYPED: a request or StartupMessage)
 * begins: the round-trip rule, and what it owes. */
static void client_begins(struct wt_conn *c, unsigned t)
{
    if (t != 'X' && c->awaiting <= 0 && !c->flush_wait && c->delivered)
        add(&c->tot->round_trips, 1);
    c->delivered = 0;
    switch (t) {
    case 'S': case 'Q': case 'F': case 'c': case 'f': case 'p':
        c->awaiting++;
        break;
    case 'H':
        c->flush_wait = 1;
        break;
    default:
        break;
    }
}

/* A complete client message: an untyped one is known by its code. */
static void client_ends(struct wt_conn *c, unsigned t, const struct wt_side *s)
{
    if (t != WT_UNTYPED)
        return;
    uint32_t code = s->body_seen >= 4 ? be32(s->body4) : 0;
    struct wt_side *srv = &c->side[WT_TO_CLIENT];
    if (code == WT_CODE_SSL || code == WT_CODE_GSSENC) {
        srv->answer_byte_next = 1; /* answered by one byte; the next request is untyped too */
        c->awaiting++;
        c->side[WT_TO_SERVER].untyped_next = 1;
        c->side[WT_TO_SERVER].hdr_need = 4;
    } else if (code != WT_CODE_CANCEL) {
        c->awaiting++; /* the StartupMessage: answered by 'R' or 'Z' */
    }
}

/* A complete server message of type t. */
static void server_ends(struct wt_conn *c, unsigned t, const struct wt_side *s)
{
    switch (t) {
    case 'Z': case 'G':
        if (c->awaiting > 0)
            c->awaiting--;
        break;
    case 'R': {
        uint32_t code = s->body_seen >= 4 ? be32(s->body4) : 0;
        if ((code == 3 || code == 5 || code == 7 || code == 8 || code == 10 || code == 11) &&
            c->awaiting > 0)
            c->awaiting--;
        break;
    }
    default:
        break;
    }
}

/* The message of side s is complete. */
static void message_done(struct wt_conn *c, enum wt_dir d, struct wt_side *s)
{
    unsigned t = s->hdr_need == 5 ? s->hdr[0] & 127u : WT_UNTYPED;
    add(&c->tot->msgs[d], 1);
    add(&c->tot->by_type[d][t], 1);
    if (d == WT_TO_SERVER) {
        client_ends(c, t, s);
        if (s->hdr_need == 4 && !s->untyped_next) {
            /* after the StartupMessage, every client message is typed */
            s->hdr_need = 5;
        }
    } else {
        server_ends(c, t, s);
    }
    s->hdr_len = 0;
    s->body_seen = 0;
    s->remaining = 0;
}

/* The server's one-byte answer to an SSLRequest or GSSENCRequest. */
static void answer_byte(struct wt_conn *c, uint8_t b)
{
    c->side[WT_TO_CLIENT].answer_byte_next = 0;
    add(&c->tot->msgs[WT_TO_CLIENT], 1);
    add(&c->tot->by_type[WT_TO_CLIENT][WT_UNTYPED], 1);
    if (c->awaiting > 0)
        c->awaiting--;
    if (b == 'S' || b == 'G')
        c->opaque = 1;
}

/* Opaque (TLS) or unparseable: bytes, and chunks as round trips. */
static void opaque_feed(struct wt_conn *c, enum wt_dir d, size_t n)
{
    add(&c->tot->opaque_bytes[d], n);
    if (d == WT_TO_CLIENT) {
        c->delivered = 1;
    } else if (c->delivered) {
        add(&c->tot->round_trips, 1);
        c->delivered = 0;
    }
}

void wt_conn_feed(struct wt_conn *c, enum wt_dir d, const uint8_t *buf, size_t n)
{
    if (n == 0)
        return;
    add(&c->tot->bytes[d], n);
    add(&c->tot->chunks[d], 1);
    if (c->opaque || c->bad) {
        opaque_feed(c, d, n);
        return;
    }
    struct wt_side *s = &c->side[d];
    if (d == WT_TO_CLIENT)
        c->delivered = 1;
    size_t i = 0;
    while (i < n) {
        if (c->opaque) {
            opaque_feed(c, d, n - i);
            return;
        }
        if (d == WT_TO_CLIENT && s->answer_byte_next && s->hdr_len == 0) {
            answer_byte(c, buf[i++]);
            continue;
        }
        if (s->hdr_len < s->hdr_need) {
            if (s->hdr_len == 0) {
                if (d == WT_TO_SERVER) {
                    if (s->untyped_next) {
                        s->untyped_next = 0;
                        client_begins(c, WT_UNTYPED);
                    } else {
                        client_begins(c, buf[i] & 127u);
                    }
                } else if (c->flush_wait) {
                    c->flush_wait = 0; /* the Flush's first reply */
                }
            }
            s->hdr[s->hdr_len++] = buf[i++];
            if (s->hdr_len < s->hdr_need)
                continue;
            uint32_t len = be32(s->hdr + s->hdr_need - 4);
            if (len < 4 || len > WT_MAX_LEN) {
                c->bad = 1; /* not PostgreSQL: count bytes only from here */
                opaque_feed(c, d, n - i);
                return;
            }
            s->remaining = len - 4;
            s->body_seen = 0;
            if (s->remaining == 0)
                message_done(c, d, s);
            continue;
        }
        size_t take = n - i < s->remaining ? n - i : s->remaining;
        for (size_t k = 0; s->body_seen + k < 4 && k < take; k++)
            s->body4[s->body_seen + k] = buf[i + k];
        s->body_seen += (uint32_t)take;
        s->remaining -= (uint32_t)take;
        i += take;
        if (s->remaining == 0)
            message_done(c, d, s);
    }
}

void wt_totals_add_delta(struct wt_totals *sum, const struct wt_totals *after,
                         const struct wt_totals *before)
{
    const uint64_t *a = (const uint64_t *)after, *b = (const uint64_t *)before;
    uint64_t *s = (uint64_t *)sum;
    for (size_t k = 0; k < sizeof *sum / sizeof(uint64_t); k++)
        s[k] += a[k] - b[k];
}

void wt_totals_read(const struct wt_totals *src, struct wt_totals *out)
{
    const uint64_t *f = (const uint64_t *)src;
    uint64_t *o = (uint64_t *)out;
    for (size_t k = 0; k < sizeof *src / sizeof(uint64_t); k++)
        o[k] = __atomic_load_n(&f[k], __ATOMIC_RELAXED);
}

const char *wt_type_name(enum wt_dir d, unsigned type)
{
    static const char *const to_server[WT_NTYPES] = {
        [WT_UNTYPED] = "Startup", ['B'] = "Bind", ['C'] = "Close", ['D'] = "Describe",
        ['E'] = "Execute", ['F'] = "FunctionCall", ['H'] = "Flush", ['P'] = "Parse",
        ['Q'] = "Query", ['S'] = "Sync", ['X'] = "Terminate", ['d'] = "CopyData",
        ['c'] = "CopyDone", ['f'] = "CopyFail", ['p'] = "Password",
    };
    static const char *const to_client[WT_NTYPES] = {
        [WT_UNTYPED] = "SSLAnswer", ['1'] = "ParseComplete", ['2'] = "BindComplete",
        ['3'] = "CloseComplete", ['A'] = "Notification", ['C'] = "CommandComplete",
        ['D'] = "DataRow", ['E'] = "ErrorResponse", ['G'] = "CopyInResponse",
        ['H'] = "CopyOutResponse", ['I'] = "EmptyQueryResponse", ['K'] = "BackendKeyData",
        ['N'] = "NoticeResponse", ['R'] = "Authentication", ['S'] = "ParameterStatus",
        ['T'] = "RowDescription", ['V'] = "FunctionCallResponse", ['W'] = "CopyBothResponse",
        ['Z'] = "ReadyForQuery", ['c'] = "CopyDone", ['d'] = "CopyData",
        ['n'] = "NoData", ['s'] = "PortalSuspended", ['t'] = "ParameterDescription",
        ['v'] = "NegotiateProtocolVersion",
    };
    if (type >= WT_NTYPES)
        return NULL;
    return d == WT_TO_SERVER ? to_server[type] : to_client[type];
}
