/*
 * wirespy.h -- a recording proxy for the tests: what a client really sends a
 * PostgreSQL server, counted message by message.
 *
 * wirespy_start() listens on 127.0.0.1 at a free port and serves, on a
 * thread of its own, every connection made to it: each is forwarded byte for
 * byte to the real server (a unix socket DIR/.s.PGSQL.PORT when host starts
 * with '/', else TCP), both ways, while the frontend's messages after the
 * startup packet are parsed and counted per connection. An SSLRequest or
 * GSSENCRequest is forwarded like anything else (the server's 'N' comes
 * back): connect with sslmode=disable gssencmode=disable.
 *
 * Counts are cumulative per connection; take a snapshot before and after
 * what is measured (wirespy_snapshot) and subtract. Connections are
 * numbered in the order they were accepted, from 0.
 *
 * Ownership and threads: the struct wirespy is the caller's, opaque, made by
 * wirespy_start and released by wirespy_stop (which ends the thread and
 * closes every socket). Snapshots are copies, taken under the proxy's lock.
 * Nothing here asserts: failures are return values, messages go to stderr.
 */
#ifndef PGCB_TESTS_WIRESPY_H
#define PGCB_TESTS_WIRESPY_H

#include <stddef.h>
#include <stdint.h>

/* Bind result format codes recorded per connection, the first ones. */
#define WIRESPY_MAX_BINDS 64
#define WIRESPY_MAX_FORMATS 32

/* What one Bind asked for: its result format codes (count 0: all text; 1:
 * that code for every column; n: per column), the first
 * WIRESPY_MAX_FORMATS of them. */
struct wirespy_bind {
    uint16_t nformats;
    int16_t formats[WIRESPY_MAX_FORMATS];
};

/* The frontend messages of one connection, counted after the startup. */
struct wirespy_counts {
    uint32_t parse, bind, describe_portal, describe_stmt, execute, sync, flush, query, other;
    uint32_t nbinds;                         /* Binds recorded (<= WIRESPY_MAX_BINDS) */
    struct wirespy_bind binds[WIRESPY_MAX_BINDS];
    int closed;                              /* the client has closed it */
};

struct wirespy;

/* Start a proxy to the server at `host` (a directory: unix socket) and
 * `port`. Returns NULL with a message on stderr. */
struct wirespy *wirespy_start(const char *host, const char *port);

/* The port it listens on, on 127.0.0.1. */
int wirespy_port(const struct wirespy *w);

/* Connections accepted so far. */
size_t wirespy_nconns(struct wirespy *w);

/* A copy of connection i's counts into *out; -1 when there is no such
 * connection. */
int wirespy_snapshot(struct wirespy *w, size_t i, struct wirespy_counts *out);

/* Counts of b minus a (the messages between two snapshots); the Binds are
 * those b recorded after a's. */
struct wirespy_counts wirespy_diff(const struct wirespy_counts *a, const struct wirespy_counts *b);

/* Wait up to timeout_ms for the proxy to have forwarded everything
 * connection i's client sent so far (the proxy's parse can trail the client
 * by a scheduling delay): returns when its counts stop changing for 50 ms.
 * 0, or -1 on a bad i. */
int wirespy_settle(struct wirespy *w, size_t i, int timeout_ms);

/* Stop the thread, close every socket, free w. Accepts NULL. */
void wirespy_stop(struct wirespy *w);

#endif
