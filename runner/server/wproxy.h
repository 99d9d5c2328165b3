/*
 * wproxy.h -- the run's wire proxies (issue 41): one build/pgcb-proxy
 * process per distinct (upstream, round-trip time) of the suites' rtt_ms
 * groups, started before anything is measured and stopped at the end; each
 * dies with the runner (its parent-death signal), so not even a SIGKILL of
 * the runner leaves one behind. A group at an RTT connects to its proxy
 * (its connection string: the suite's TCP string with host, hostaddr and
 * port of the proxy); the proxy counts what crosses into a shared block
 * (wiretap/wt_block.h) that the runner reads around each job.
 *
 * Ownership: struct pgcb_wproxies owns its proxies, their blocks and the
 * connection strings; pgcb_wproxies_stop ends the processes and frees all.
 */
#ifndef PGCB_WPROXY_H
#define PGCB_WPROXY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"
#include "connplan.h"
#include "wiretap/wt_block.h"

struct pgcb_wproxy {
    char upstream[160];       /* "127.0.0.1:5433" */
    double rtt_ms;
    int count;                /* it counts what crosses ([bench] wire; 0: --no-count) */
    pid_t pid;                /* 0: not running (stopped, or never started) */
    int port;
    int blk_fd;
    struct wt_block *blk;
    char pinned[64];          /* the CPUs it runs on ("1"), "" unpinned */
    char *base;               /* the connection string it stands in for (owned) */
    /* The accuracy probe (pgcb_wproxies_probe): medians of PGCB_PROBE_N
     * round trips (SELECT 1) straight to the server and through the proxy,
     * alternating; NAN when not probed (probe_why says why). */
    double direct_ns, proxied_ns;
    char probe_why[200];
};

struct pgcb_wproxies {
    struct pgcb_wproxy *p;
    size_t n;
    size_t nsuites;
    /* per (suite, transport, rtt index): [((s * PGCB_TRANSPORT_N) + t) * PGCB_MAX_RTTS + k] */
    char **conninfo;          /* the proxied connection string (owned) */
    size_t *proxy_of;         /* its proxy's index in p */
};

/*
 * Start a proxy for every (upstream, RTT) the suites' rtt_ms groups need,
 * from the plan's TCP / TLS strings, with the program `exe` (the runner's
 * build/pgcb-proxy), and build each group's string. Nothing is started for
 * a config without rtt_ms (w stays empty). Returns 0, or -1 with one line
 * in err naming the suite (a string without a TCP host, a proxy that did
 * not start); the proxies already started are stopped then.
 */
int pgcb_wproxies_start(struct pgcb_wproxies *w, const struct pgcb_config *cfg,
                        const struct pgcb_connplan *plan, const char *exe, char *err,
                        size_t errlen);

/* The proxy program beside the runner (/proc/self/exe's directory +
 * "/pgcb-proxy"): 0, or -1 with why. */
int pgcb_wproxy_exe(char *out, size_t n, char *why, size_t whylen);

/* The accuracy probe of every proxy (see struct pgcb_wproxy): before any
 * host starts, outside any measurement. Best effort: a probe that cannot
 * connect leaves NAN and says why. */
void pgcb_wproxies_probe(struct pgcb_wproxies *w);

/* Pin every proxy to `cpus` (a list such as "1" or "1-3"; NULL or "": leave
 * them). Best effort: a proxy that cannot be pinned keeps pinned = "". */
void pgcb_wproxies_pin(struct pgcb_wproxies *w, const char *cpus);

/* The string and the proxy of suite s, transport t, RTT index k; NULL when
 * that group has no proxy. */
const char *pgcb_wproxies_conninfo(const struct pgcb_wproxies *w, size_t s, int t, size_t k);
struct pgcb_wproxy *pgcb_wproxies_of(const struct pgcb_wproxies *w, size_t s, int t, size_t k);

/* The proxy's CPU time so far (user + system), ns: 0, or -1 (gone). */
int pgcb_wproxy_cpu_ns(const struct pgcb_wproxy *p, uint64_t *out);

/* Is the proxy still running? (0: it exited, and is reaped) */
int pgcb_wproxy_alive(struct pgcb_wproxy *p);

/* Stop every proxy (SIGTERM, then SIGKILL after a second), free all. */
void pgcb_wproxies_stop(struct pgcb_wproxies *w);

#endif
