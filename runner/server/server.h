/*
 * server.h -- the runner's own libpq connection to the server: version,
 * where the backend runs, and the [server] setup script.
 */
#ifndef PGCB_SERVER_H
#define PGCB_SERVER_H

#include <stddef.h>

#include "transport.h"

struct pgcb_server_info {
    char version[64];          /* server_version, e.g. "15.18 (Debian 15.18-0+deb12u1)" */
    int version_num;           /* e.g. 150018 */
    char cpus[256];            /* CPUs of the backend process, "" if unknown */
    char cpus_source[32];      /* "PGCB_SERVER_CPUS", "detected" or "unknown" */
    char where[256];           /* "socket /tmp/x (port 5433)" or "host h port p" */
    int postmaster_pid;        /* the server's postmaster if it runs here, else 0 */
    struct pgcb_transport_facts transport; /* port, listen_addresses, unix_socket_directories,
                                  ssl: what the transports' defaults are derived from */
};

/* Connect with `conninfo` ("" = PG* environment variables), read the server
 * facts (a SHOW that fails leaves info->transport unknown, no error), run the setup script `setup_path` (NULL: none) one statement at a
 * time, disconnect. Returns 0, or -1 with one line in err: the server that
 * could not be reached, or "FILE:LINE: SQLSTATE: message". */
int pgcb_server_prepare(const char *conninfo, const char *setup_path,
                        struct pgcb_server_info *info, char *err, size_t errlen);

/* `conninfo` with any password removed, as a new string (caller frees). */
char *pgcb_conninfo_redact(const char *conninfo);

/* The connection string of `base` with the keys `extra` sets replacing or
 * adding to its own (as if extra were written after it), both parsed by
 * libpq (key=value or URI; NULL is ""), as one key='value' string: new,
 * caller frees. NULL with one line in err if either does not parse. */
char *pgcb_conninfo_merge(const char *base, const char *extra, char *err, size_t errlen);

/* libpq's version, "15.18". */
void pgcb_libpq_version(char *buf, size_t n);

/*
 * Terminate, from a session of the runner's own, every backend whose
 * application_name is `tag` (a host's tag, host.h): what a killed or crashed
 * host left running (a long statement goes on after its client died, and
 * would load the server during the next group). Returns the number of
 * backends signalled, or -1 with a one-line message in err (the server is
 * gone, or the user may not signal them).
 */
int pgcb_server_terminate_tagged(const char *conninfo, const char *tag, char *err,
                                 size_t errlen);

/*
 * The backends whose application_name is `tag` (a host's tag, host.h),
 * from a session of the runner's own (pg_stat_activity), with how each is
 * connected: pg_stat_ssl (ssl, version, cipher, bits) and
 * pg_stat_activity (client_addr, client_port: -1 for the unix socket). A
 * backend whose details the runner's session may not see has ssl = -1.
 * Returns how many the server lists (the first `max` in out), or -1 with a
 * one-line message in err.
 */
int pgcb_server_tagged_conns(const char *conninfo, const char *tag,
                             struct pgcb_transport_conn *out, size_t max, char *err,
                             size_t errlen);

/* 1 if `conninfo` itself sets application_name (a non-empty value, copied
 * into buf): it wins over PGAPPNAME, so the hosts' tags do not reach the
 * server. 0 otherwise (also for a conninfo libpq cannot parse). */
int pgcb_conninfo_appname(const char *conninfo, char *buf, size_t n);

#endif
