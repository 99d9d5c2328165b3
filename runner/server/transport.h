/*
 * transport.h -- how a group's connections reach the server: over the unix
 * socket, TCP in clear text or TLS ([suite.NAME] transport). The words, the
 * part of a connection string each transport adds (derived from the
 * server's own settings, or the [server] key of the same name), and what
 * the server saw of a host's connections (pg_stat_ssl and
 * pg_stat_activity.client_addr, read by server.c), put in words.
 *
 * Nothing here connects or allocates; the strings are the caller's.
 */
#ifndef PGCB_TRANSPORT_H
#define PGCB_TRANSPORT_H

#include <stddef.h>

enum pgcb_transport {
    PGCB_TRANSPORT_UNIX = 0,  /* the server's unix socket */
    PGCB_TRANSPORT_TCP,       /* TCP, sslmode=disable */
    PGCB_TRANSPORT_TLS,       /* TCP, sslmode=require (or what [server] tls says) */
    PGCB_TRANSPORT_N
};

/* "unix", "tcp", "tls". */
const char *pgcb_transport_name(enum pgcb_transport t);

/* The transport a word names (exactly one of the names): 0, or -1. */
int pgcb_transport_parse(const char *word, enum pgcb_transport *out);

/* What the server says of itself, read on the runner's setup connection
 * (SHOW port, listen_addresses, unix_socket_directories, ssl). */
struct pgcb_transport_facts {
    int known;                        /* 0: never read (no server, or SHOW failed) */
    int port;
    char listen_addresses[256];
    char unix_socket_directories[512];
    int ssl;                          /* ssl = on */
};

/*
 * The part of a connection string transport t adds, derived from the
 * server's facts, into buf (libpq key=value):
 *   unix  host=<first unix_socket_directories entry> port=<port>
 *   tcp   host=<first listen_addresses entry> port=<port> sslmode=disable
 *         (* and 0.0.0.0 become 127.0.0.1, :: becomes ::1)
 *   tls   the same with sslmode=require
 * Returns 0, or -1 with why (n bytes) saying what the server lacks and how
 * to give it ("the server does not listen on TCP (listen_addresses is
 * empty): start it with scripts/pgserver.sh --tcp, or set [server] tcp");
 * buf then holds what could be derived: the tls part of a server with ssl =
 * off (for a [server] tls over it), else "".
 */
int pgcb_transport_derive(enum pgcb_transport t, const struct pgcb_transport_facts *f, char *buf,
                          size_t n, char *why, size_t whylen);

/* One connection as pg_stat_activity and pg_stat_ssl show it. */
struct pgcb_transport_conn {
    int pid;
    int ssl;                  /* 1 TLS, 0 not, -1 not shown to the runner's session */
    int client_port;          /* -1: the unix socket */
    int bits;                 /* 0: unknown */
    char version[32];         /* "TLSv1.3"; "" without TLS */
    char cipher[96];
    char client_addr[64];     /* "" for the unix socket or when not shown */
};

/* What a host's connections used, as the server saw them. */
struct pgcb_transport_seen {
    int recorded;             /* 0: nothing to say (a driver that does no I/O) */
    char seen[8];             /* "unix", "tcp", "tls", "mixed" or "unknown" */
    char why[256];            /* seen = unknown or mixed: why */
    char version[32];         /* TLS: of the first connection */
    char cipher[96];
    int bits;
    char client_addr[64];     /* tcp / tls: of the first connection */
};

/* Fill *out from the n connections the server listed for a host: the
 * first one's details; unknown when none is listed or their details are
 * not shown to the runner's session, mixed when they differ. */
void pgcb_transport_classify(const struct pgcb_transport_conn *conns, size_t n,
                             struct pgcb_transport_seen *out);

/* *out unknown for `why` (printf-style). */
void pgcb_transport_unknown(struct pgcb_transport_seen *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
