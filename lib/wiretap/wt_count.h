/*
 * wt_count.h -- what crossed the wire of PostgreSQL v3 connections, counted
 * from the bytes themselves (never from a client's word): the protocol
 * messages each way by type, the bytes each way, and the round trips.
 *
 * A connection's two byte streams are fed as they pass (wt_conn_feed), in
 * chunks of any size: a message may be split anywhere, several may share a
 * chunk. The caller feeds each direction at the moment the *receiving* side
 * gets the bytes -- client-to-server bytes when the client sent them,
 * server-to-client bytes when they are delivered to the client (after any
 * delay the caller adds) -- so that the round-trip rule sees what the client
 * had seen when it sent.
 *
 * Round trips. A client message *starts a round trip* when, at the moment
 * it begins, the client owed nothing to wait for -- every sync point it sent
 * was answered and no Flush is waiting for its first reply -- and the server
 * has delivered something since the client's previous message began (so the
 * client may have been waiting for it; a new connection counts as spoken
 * to). The sync points and their answers:
 *   - Sync ('S'), Query ('Q'), FunctionCall ('F'), CopyDone ('c'),
 *     CopyFail ('f') and the StartupMessage each owe one answer, given by
 *     the ReadyForQuery ('Z') that ends it (a CopyInResponse 'G' also ends
 *     the Query that asked for it: the client sends its data next);
 *   - an authentication request that asks for a reply ('R' with code 3, 5,
 *     7, 8, 10 or 11: cleartext, MD5, GSS, SSPI, SASL, SASL continue) ends
 *     the StartupMessage or password message before it; AuthenticationOk and
 *     SASLFinal ask for nothing;
 *   - an SSLRequest or GSSENCRequest owes the server's one-byte answer ('S'
 *     or 'G': the stream turns to TLS, not parsed further; 'N': go on);
 *   - a Flush ('H') owes the first server message after it.
 * Terminate ('X') never starts a round trip (the client waits for nothing),
 * nor does CopyData after the first (a copy's rows stream).
 * So a client that sends Bind/Execute/Sync and reads to ReadyForQuery makes
 * one round trip per query; one that pipelines ten makes one per ten; one
 * that sends Parse/Describe/Flush, waits, then Bind/Execute/Sync makes two.
 * Once a stream is opaque (TLS), a round trip is a client chunk that follows
 * server bytes delivered since the client's previous chunk.
 *
 * Totals are kept in a struct wt_totals that many connections add to (the
 * proxy's shared counter block): every field only grows, each is added with
 * a relaxed atomic add, so another process may read them at any time (each
 * field is exact; fields read one after another may be a chunk apart).
 *
 * Nothing here allocates, blocks or does I/O.
 */
#ifndef WT_COUNT_H
#define WT_COUNT_H

#include <stddef.h>
#include <stdint.h>

/* The two directions. */
enum wt_dir { WT_TO_SERVER = 0, WT_TO_CLIENT = 1 };

/* Message types are counted by their type byte & 127; untyped ones (the
 * StartupMessage, SSLRequest, GSSENCRequest, CancelRequest and the server's
 * one-byte answer to the two requests) at index WT_UNTYPED. */
#define WT_UNTYPED 0
#define WT_NTYPES 128

struct wt_totals {
    uint64_t bytes[2];            /* every byte, [enum wt_dir] */
    uint64_t msgs[2];             /* every complete message (and answer byte) */
    uint64_t by_type[2][WT_NTYPES];
    uint64_t opaque_bytes[2];     /* bytes after TLS began: counted, not parsed */
    uint64_t round_trips;
    uint64_t connections;         /* wt_conn_init calls */
    uint64_t chunks[2];           /* wt_conn_feed calls: the pieces the bytes came in (to the
                                     server: the client's writes as the proxy read them) */
};

/* One direction's parser. */
struct wt_side {
    uint8_t hdr[5];               /* the message's header so far */
    uint8_t body4[4];             /* the first 4 bytes of its body */
    uint32_t hdr_len;             /* bytes of hdr read: 0 = between messages */
    uint32_t hdr_need;            /* 5 (typed) or 4 (untyped) */
    uint32_t remaining;           /* body bytes still to come */
    uint32_t body_seen;           /* body bytes read, for body4 */
    uint8_t untyped_next;         /* the next message has no type byte */
    uint8_t answer_byte_next;     /* the server's one-byte SSL/GSS answer is next */
};

/* One connection. Zeroed by wt_conn_init; no resources. */
struct wt_conn {
    struct wt_side side[2];
    struct wt_totals *tot;        /* not owned */
    int64_t awaiting;             /* sync points sent and not answered */
    uint8_t flush_wait;           /* a Flush waits for the first server message */
    uint8_t opaque;               /* TLS began: bytes only */
    uint8_t delivered;            /* server bytes since the client's last message (chunk, opaque) */
    uint8_t bad;                  /* a length no PostgreSQL peer sends: bytes only */
};

/* Start counting a new connection into tot (tot->connections + 1). */
void wt_conn_init(struct wt_conn *c, struct wt_totals *tot);

/* Count n bytes of direction d (see the header for when). */
void wt_conn_feed(struct wt_conn *c, enum wt_dir d, const uint8_t *buf, size_t n);

/* sum += after - before, field by field (two reads of one block around a
 * span: what crossed in it). */
void wt_totals_add_delta(struct wt_totals *sum, const struct wt_totals *after,
                         const struct wt_totals *before);

/* A plain, consistent-enough copy of *src (each field read atomically). */
void wt_totals_read(const struct wt_totals *src, struct wt_totals *out);

/* The name of a message type for a direction ("Bind", "DataRow" ...;
 * "Startup" for WT_UNTYPED to the server, "SSLAnswer" to the client),
 * or NULL for a type the protocol does not define that way. */
const char *wt_type_name(enum wt_dir d, unsigned type);

#endif
