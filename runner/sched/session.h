/*
 * session.h -- the drivers of a run and the measurement of groups.
 *
 * A session owns the loaded drivers and, per driver, a host process
 * (host.h) that holds that driver's connections (one per measuring thread)
 * and its pinned measuring threads. The session (in the runner's own
 * process) schedules warm-ups and execution orders, and turns the hosts'
 * samples into the figures of a struct pgcb_result, which the caller owns.
 * A driver that crashes or hangs fails its group and is restarted for the
 * next one. The config must outlive the session.
 */
#ifndef PGCB_SESSION_H
#define PGCB_SESSION_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "out/eta.h"
#include "host/host.h"
#include "host/loader.h"
#include "server/wproxy.h"
#include "sys/memcg.h"
#include "result.h"


struct pgcb_sdriver {
    const struct pgcb_cfg_driver *cfg;
    struct pgcb_loaded ld;
    struct pgcb_option *opts;     /* the driver's INI keys, pointing into cfg */
    size_t nopts;
    /* What this section of the driver is: the descriptor's caps and links,
     * or what its instance() said for these options (ABI 1.2). */
    unsigned caps;
    char links[PGCB_LINKS_LEN];
    /* What its connections ask of the server (ABI 1.3 protocol; zero:
     * unknown), and which of the run's choices (bit per enum
     * pgcb_proto_field) the section set itself, and which the runner passed
     * it as an option. */
    struct pgcb_protocol proto;
    unsigned proto_explicit, proto_injected;
    struct pgcb_host host;        /* the process that runs it */
    /* Non-empty: the client these options name cannot run on this machine
     * (instance() said PGCB_ERR_UNSUPPORTED: its release did not install or
     * build); its host is never started and every cell of it fails with
     * this reason, while the other drivers are measured. */
    char unavailable[PGCB_ERRLEN];
    /* [bench] max_rss_mb: its memory cgroup (memcg.h; dir "" when none)
     * and the OOM kills in it already accounted to a cell. */
    struct pgcb_memcg memcg;
    uint64_t oom_seen;
};

/* The driver times its own blocks (run_block) in this section. */
static inline int pgcb_sdriver_self_timed(const struct pgcb_sdriver *sd)
{
    return (sd->caps & PGCB_CAP_SELF_TIMED) && PGCB_DRIVER_HAS(sd->ld.drv, 2, run_block);
}

/* A [background.NAME]: its own load of the driver, its own host. */
struct pgcb_sbg {
    const struct pgcb_cfg_background *cfg;
    struct pgcb_sdriver sd;
};

struct pgcb_connplan;
struct pgcb_profile;

struct pgcb_session {
    const struct pgcb_config *cfg;
    const struct pgcb_connplan *plan; /* each group's connection string (connplan.h); NULL:
                                     [server] conninfo everywhere. Not owned; set before
                                     pgcb_session_open() */
    const struct pgcb_wproxies *net; /* the wire proxies of rtt_ms groups (wproxy.h); NULL or
                                     empty: none. Not owned */
    struct pgcb_sdriver *drivers; /* the measured drivers (not `measure = no`) */
    size_t ndrivers;
    struct pgcb_sbg *bgs;         /* one per [background.NAME], in file order */
    size_t nbgs;
    _Atomic int64_t *seqs;        /* cfg->nseqs counters, shared with every host */
    int postmaster_pid;           /* a local server's, for its CPU time; 0: none */
    size_t **orders;              /* orders[o][k]: driver index */
    size_t norders;
    size_t orders_repeats;        /* auto: how often the base set was repeated so that a
                                     verdict can reach alpha (1: not repeated) */
    size_t block;                 /* until = decided: the orders of one set, the step at
                                     which a group may stop; 0 otherwise */
    size_t looks;                 /* until = decided: norders / block; 1 otherwise */
    uint32_t nthreads;            /* the most threads any suite uses */
    int quiet;                    /* no notes beyond errors */
    struct pgcb_progress *progress; /* where the progress goes (progress.h); NULL: none.
                                     Not owned */
    volatile sig_atomic_t *stop;  /* set by a signal handler: stop between blocks */
    struct pgcb_profile *profile; /* a profiled run's recordings (profile.h); NULL: not
                                     profiled. Not owned */
};

/* ---- session.c: the drivers ------------------------------------------- */

/* Load every driver of cfg and check its INI keys against its options.
 * Returns 0, or -1 with one line in err (naming file:line or the driver). */
int pgcb_session_load(struct pgcb_session *s, const struct pgcb_config *cfg, char *err,
                      size_t errlen);

/* Start a host per driver: connect every thread (with the first group's
 * connection string, s->plan), prepare every query a suite
 * uses, prime each once (checking its row count against [query] rows), pin
 * the measuring threads. A query the server refuses is not fatal: its groups
 * fail for that driver (pgcb_session_query_error says why), unless no query
 * is left that some driver doing I/O can run. Returns 0, or -1 with one line
 * in err. */
int pgcb_session_open(struct pgcb_session *s, char *err, size_t errlen);

/* Why driver d could not prepare query q, or NULL. */
const char *pgcb_session_query_error(const struct pgcb_session *s, size_t d, size_t q);

/* The CPU measuring thread t is pinned to. */
int pgcb_session_thread_cpu(const struct pgcb_session *s, uint32_t t);

/* Fill r->drivers and r->orders from the session. */
void pgcb_session_describe(const struct pgcb_session *s, struct pgcb_result *r);

/* Stop the hosts (closing every connection), unload the drivers. */
void pgcb_session_free(struct pgcb_session *s);

#endif
