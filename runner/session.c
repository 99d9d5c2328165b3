/*
 * session.c -- the drivers of a run; the measurement of a group.
 *
 * Every driver runs in its own host process (host.c), with one connection
 * and one pinned measuring thread per thread of the widest suite. This file,
 * in the runner's process, hands the hosts one job at a time -- warm up, or
 * measure in order O -- and turns what they recorded into figures. A group
 * is measured as:
 *   1. each driver: every thread runs one batch (its rows and checksum are
 *      the expected ones for this group) and warms up for warmup_ms;
 *   2. each execution order, each driver in that order: every thread runs
 *      blocks of batches until both floors are met: time_ms / orders of timed
 *      batches, and its share of [bench] queries executed queries;
 *   3. per driver: figures from the pooled histogram (all threads, all
 *      orders), one median per order; rows and checksums compared within
 *      and across drivers.
 * A host that crashes or stops answering fails the driver's group; it is
 * started again for the next group.
 */
#include "session.h"

#include "bulk.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "connplan.h"
#include "measure.h"
#include "orders.h"
#include "pct.h"
#include "progress.h"
#include "proto.h"
#include "rank.h"
#include "server.h"
#include "srvcpu.h"
#include "stats.h"
#include "steal.h"
#include "sysinfo.h"
#include "util.h"


/* ---- loading and opening ---------------------------------------------- */

/* What every wait of the session on a host does (host.h): feed the progress
 * line (progress.h; nothing while s->progress is NULL). */
static void tick_progress(void *session)
{
    pgcb_progress_tick(((struct pgcb_session *)session)->progress);
}

static struct pgcb_host_tick session_tick(struct pgcb_session *s)
{
    return (struct pgcb_host_tick){.fn = tick_progress, .arg = s};
}

/* Where a message about driver cd points, ending in ':': "FILE:LINE:" and,
 * with tag, "[driver.NAME]:" after it; a driver without a section is named
 * by its driver_dir line ("FILE:LINE: [bench] driver_dir: NAME.so:") or its
 * flag ("--driver NAME=PATH:"). */
static const char *drv_where(const struct pgcb_config *cfg, const struct pgcb_cfg_driver *cd,
                             int line, int tag, char *buf, size_t n)
{
    if (cd->origin == PGCB_CFG_FROM_CLI)
        snprintf(buf, n, "--driver %s=%s:", cd->name, cd->path);
    else if (!tag)
        snprintf(buf, n, "%s:%d:", cfg->file, line);
    else if (cd->has_section)
        snprintf(buf, n, "%s:%d: [driver.%s]:", cfg->file, line, cd->name);
    else
        snprintf(buf, n, "%s:%d: [bench] driver_dir: %s.so:", cfg->file, line, cd->name);
    return buf;
}

static int check_options(const struct pgcb_config *cfg, struct pgcb_sdriver *sd, char *err,
                         size_t errlen)
{
    const struct pgcb_option_spec *spec = sd->ld.drv->options;
    for (size_t i = 0; i < sd->cfg->nopts; i++) {
        const struct pgcb_cfg_kv *kv = &sd->cfg->opts[i];
        int known = 0;
        for (const struct pgcb_option_spec *o = spec; o && o->key; o++)
            known |= strcmp(o->key, kv->key) == 0;
        if (!known) {
            char list[256] = "";
            for (const struct pgcb_option_spec *o = spec; o && o->key; o++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         list[0] ? ", " : "", o->key);
            snprintf(err, errlen, "%s:%d: unknown key '%s' in [driver.%s] (%s accepts: %s)",
                     cfg->file, kv->line, kv->key, sd->cfg->name, sd->ld.drv->name,
                     list[0] ? list : "path only");
            return -1;
        }
    }
    /* The run's choices (result_format, describe, sync) go to every driver
     * that takes them as options and whose section does not set them. */
    sd->nopts = sd->cfg->nopts;
    sd->opts = pgcb_xcalloc(sd->nopts + PGCB_PROTO_NFIELDS, sizeof *sd->opts);
    for (size_t i = 0; i < sd->nopts; i++) {
        sd->opts[i] = (struct pgcb_option){sd->cfg->opts[i].key, sd->cfg->opts[i].value};
        for (int f = 0; f < PGCB_PROTO_NFIELDS; f++)
            if (strcmp(sd->cfg->opts[i].key, pgcb_proto_key((enum pgcb_proto_field)f)) == 0)
                sd->proto_explicit |= 1u << f;
    }
    for (int f = 0; f < PGCB_PROTO_NFIELDS; f++) {
        const char *v = pgcb_proto_value((enum pgcb_proto_field)f,
                                         pgcb_proto_get(&cfg->proto, (enum pgcb_proto_field)f));
        const char *key = pgcb_proto_key((enum pgcb_proto_field)f);
        int offered = 0;
        for (const struct pgcb_option_spec *o = spec; o && o->key; o++)
            offered |= strcmp(o->key, key) == 0;
        if (!v || !offered || (sd->proto_explicit & (1u << f)))
            continue;
        sd->opts[sd->nopts++] = (struct pgcb_option){key, v};
        sd->proto_injected |= 1u << f;
    }
    return 0;
}

/* What this section's connections ask of the server (ABI 1.3 protocol).
 * A choice the section set itself and the driver does not honour refuses
 * the driver; one the run passed it and it does not honour is marked in the
 * tables (report.c). */
static int describe_protocol(const struct pgcb_config *cfg, struct pgcb_sdriver *sd, char *err,
                             size_t errlen)
{
    const struct pgcb_driver *d = sd->ld.drv;
    char at[PGCB_ERRLEN];
    memset(&sd->proto, 0, sizeof sd->proto);
    if (!PGCB_DRIVER_HAS(d, 3, protocol))
        return 0;
    char why[PGCB_ERRLEN] = "";
    if (d->protocol(sd->opts, sd->nopts, &sd->proto, why, sizeof why) != PGCB_OK) {
        snprintf(err, errlen, "%s %s", drv_where(cfg, sd->cfg, sd->cfg->line, 1, at, sizeof at),
                 why[0] ? why : "the driver refused these options");
        return -1;
    }
    char odd[64];
    if (pgcb_proto_out_of_range(&sd->proto, odd, sizeof odd)) {
        snprintf(err, errlen, "%s driver %s says %s, which ABI %d.%d does not know",
                 drv_where(cfg, sd->cfg, sd->cfg->line, 1, at, sizeof at), d->name, odd,
                 PGCB_ABI_MAJOR, PGCB_ABI_MINOR);
        return -1;
    }
    for (int f = 0; f < PGCB_PROTO_NFIELDS; f++) {
        enum pgcb_proto_field pf = (enum pgcb_proto_field)f;
        uint32_t got = pgcb_proto_get(&sd->proto, pf);
        if (!(sd->proto_explicit & (1u << f)) || !got)
            continue;
        const struct pgcb_cfg_kv *kv = NULL;
        for (size_t i = 0; i < sd->cfg->nopts; i++)
            if (strcmp(sd->cfg->opts[i].key, pgcb_proto_key(pf)) == 0)
                kv = &sd->cfg->opts[i];
        uint32_t asked = kv ? pgcb_proto_parse(pf, kv->value) : 0;
        if (asked && asked != got) {
            snprintf(err, errlen, "%s:%d: [driver.%s] %s = %s: driver %s cannot honour it (its "
                     "connections ask for %s)", cfg->file, kv->line, sd->cfg->name,
                     pgcb_proto_key(pf), kv->value, d->name, pgcb_proto_phrase(pf, got));
            return -1;
        }
    }
    return 0;
}

/* What this section makes of the driver: its instance() for these options
 * (ABI 1.2: a bridge starts its adapter once to ask), else the descriptor. */
static int describe_instance(const struct pgcb_config *cfg, struct pgcb_sdriver *sd, char *err,
                             size_t errlen)
{
    const struct pgcb_driver *d = sd->ld.drv;
    char at[PGCB_ERRLEN];
    sd->caps = d->caps;
    snprintf(sd->links, sizeof sd->links, "%s", d->links);
    if (!PGCB_DRIVER_HAS(d, 2, instance))
        return 0;
    struct pgcb_instance in;
    memset(&in, 0, sizeof in);
    char why[PGCB_ERRLEN] = "";
    if (d->instance(sd->opts, sd->nopts, &in, why, sizeof why) != PGCB_OK) {
        snprintf(err, errlen, "%s %s", drv_where(cfg, sd->cfg, sd->cfg->line, 1, at, sizeof at),
                 why[0] ? why : "the driver refused these options");
        return -1;
    }
    sd->caps = in.caps;
    in.links[sizeof in.links - 1] = '\0';
    if (in.links[0])
        snprintf(sd->links, sizeof sd->links, "%s", in.links);
    if ((sd->caps & PGCB_CAP_SELF_TIMED) && !PGCB_DRIVER_HAS(d, 2, run_block)) {
        snprintf(err, errlen, "%s driver %s says it times its own blocks "
                 "(PGCB_CAP_SELF_TIMED) but has no run_block",
                 drv_where(cfg, sd->cfg, sd->cfg->line, 1, at, sizeof at), d->name);
        return -1;
    }
    return 0;
}

/* Load driver `cd` into sd. 0, or -1 with one line in err. */
static int load_driver(const struct pgcb_config *cfg, const struct pgcb_cfg_driver *cd,
                       struct pgcb_sdriver *sd, char *err, size_t errlen)
{
    sd->cfg = cd;
    sd->host = (struct pgcb_host){.cmd_fd = -1, .reply_fd = -1};
    char why[PGCB_ERRLEN];
    if (pgcb_loader_open(cd->name, cd->path, &sd->ld, why, sizeof why) != 0) {
        char at[PGCB_ERRLEN];
        snprintf(err, errlen, "%s %s", drv_where(cfg, cd, cd->path_line, 0, at, sizeof at), why);
        return -1;
    }
    if (check_options(cfg, sd, err, errlen) != 0 || describe_instance(cfg, sd, err, errlen) != 0)
        return -1;
    return describe_protocol(cfg, sd, err, errlen);
}

int pgcb_session_load(struct pgcb_session *s, const struct pgcb_config *cfg, char *err,
                      size_t errlen)
{
    static volatile sig_atomic_t never;
    *s = (struct pgcb_session){.cfg = cfg, .nthreads = 1, .stop = &never};
    for (size_t i = 0; i < cfg->nsuites; i++)
        if (cfg->suites[i].threads > s->nthreads)
            s->nthreads = cfg->suites[i].threads;
    s->drivers = pgcb_xcalloc(cfg->ndrivers, sizeof *s->drivers);
    for (size_t i = 0; i < cfg->ndrivers; i++)
        if (cfg->drivers[i].measure &&
            load_driver(cfg, &cfg->drivers[i], &s->drivers[s->ndrivers++], err, errlen) != 0)
            return -1;
    s->bgs = pgcb_xcalloc(cfg->nbackgrounds ? cfg->nbackgrounds : 1, sizeof *s->bgs);
    for (size_t i = 0; i < cfg->nbackgrounds; i++) {
        s->bgs[i].cfg = &cfg->backgrounds[i];
        if (load_driver(cfg, &cfg->drivers[cfg->backgrounds[i].driver], &s->bgs[s->nbgs++].sd,
                        err, errlen) != 0)
            return -1;
    }
    char why[256];
    s->orders = pgcb_orders_make(cfg->orders, cfg->orders_n, s->ndrivers, &s->norders, why,
                                 sizeof why);
    if (!s->orders) {
        snprintf(err, errlen, "%s: [bench] orders: %s", cfg->file, why);
        return -1;
    }
    s->orders_repeats = 1;
    s->looks = 1;
    if (cfg->until_decided) {
        /* The set repeated up to the cap: a group may stop after any whole
         * set (each keeps the set's balance), and the verdicts test at alpha
         * / looks (rank.h). */
        s->block = s->norders;
        s->looks = (cfg->until_max_orders + s->block - 1) / s->block;
        size_t **more = pgcb_orders_repeat(s->orders, s->norders, s->ndrivers, s->looks);
        pgcb_orders_free(s->orders, s->norders);
        s->orders = more;
        s->norders *= s->looks;
    } else if (cfg->orders == PGCB_ORDERS_AUTO) {
        /* Enough orders for a winner to be possible at alpha against every
         * other client (rank.h): repeat the set, keeping its balance. */
        size_t clients = 0;
        for (size_t d = 0; d < s->ndrivers; d++)
            clients += !(s->drivers[d].caps & PGCB_CAP_REFERENCE);
        size_t need = clients > 1 ? pgcb_stats_sign_min_orders(cfg->alpha, clients - 1) : 0;
        if (s->norders < need) {
            size_t times = (need + s->norders - 1) / s->norders;
            size_t **more = pgcb_orders_repeat(s->orders, s->norders, s->ndrivers, times);
            pgcb_orders_free(s->orders, s->norders);
            s->orders = more;
            s->norders *= times;
            s->orders_repeats = times;
        }
    }
    return 0;
}

int pgcb_session_thread_cpu(const struct pgcb_session *s, uint32_t t)
{
    return s->cfg->cpus[t % s->cfg->ncpus];
}

/* Driver d's host, its connections opened with `conninfo`. */
static struct pgcb_host_spec driver_spec(struct pgcb_session *s, size_t d, const char *conninfo)
{
    return (struct pgcb_host_spec){.sd = &s->drivers[d], .nthreads = s->nthreads,
                                   .cpus = s->cfg->cpus, .ncpus = s->cfg->ncpus,
                                   .role = "driver", .conninfo = conninfo};
}

/* Driver d's host has just started: find its backends (backend.h) by the
 * host's tag, or record in its set why they cannot be known, and how the
 * server sees its connections (transport.h; also for a server elsewhere).
 * Nothing for a driver that does no I/O. */
static void find_backends(struct pgcb_session *s, size_t d)
{
    struct pgcb_sdriver *sd = &s->drivers[d];
    struct pgcb_backend_set *set = &sd->host.backends;
    struct pgcb_transport_seen *seen = &sd->host.transport;
    char app[128], err[400];
    struct pgcb_transport_conn conns[PGCB_MAX_THREADS];
    int pids[PGCB_MAX_THREADS];
    if (sd->caps & PGCB_CAP_NO_IO) {
        *set = (struct pgcb_backend_set){0};
        *seen = (struct pgcb_transport_seen){0};
        return;
    }
    if (!sd->host.tag[0]) {
        pgcb_backend_set_unknown(set, "PGAPPNAME gives the connections an application_name of "
                                      "the user's own, by which the backends cannot be told "
                                      "from others");
        pgcb_transport_unknown(seen, "%s", set->why);
    } else if (pgcb_conninfo_appname(sd->host.conninfo, app, sizeof app)) {
        pgcb_backend_set_unknown(set, "the conninfo sets application_name=%s, by which the "
                                      "backends cannot be told from others", app);
        pgcb_transport_unknown(seen, "%s", set->why);
    } else {
        /* The runner's own session: [server] conninfo, as for setup. */
        int n = pgcb_server_tagged_conns(s->cfg->conninfo, sd->host.tag, conns,
                                         PGCB_MAX_THREADS, err, sizeof err);
        if (n < 0) {
            pgcb_backend_set_unknown(set, "its backends could not be listed: %s", err);
            pgcb_transport_unknown(seen, "%s", set->why);
        } else {
            size_t got = (size_t)n < PGCB_MAX_THREADS ? (size_t)n : PGCB_MAX_THREADS;
            for (size_t i = 0; i < got; i++)
                pids[i] = conns[i].pid;
            pgcb_transport_classify(conns, got, seen);
            pgcb_backend_set_init(set, pids, (size_t)n, s->nthreads, s->postmaster_pid);
        }
    }
    if (!s->postmaster_pid) /* its reason first: no tag can help there */
        pgcb_backend_set_init(set, NULL, 0, s->nthreads, 0);
}

static struct pgcb_host_spec bg_spec(struct pgcb_session *s, size_t b)
{
    const struct pgcb_cfg_background *cb = s->bgs[b].cfg;
    /* Background load is load on the server: [server] conninfo, whatever
     * the group's transport. */
    return (struct pgcb_host_spec){.sd = &s->bgs[b].sd, .nthreads = cb->connections,
                                   .cpus = cb->cpus, .ncpus = cb->ncpus,
                                   .role = "background", .conninfo = s->cfg->conninfo};
}

int pgcb_session_open(struct pgcb_session *s, char *err, size_t errlen)
{
    const struct pgcb_config *cfg = s->cfg;
    const struct pgcb_host_tick tick = session_tick(s);
    /* The sequences, shared with every host (mapped before any fork). */
    size_t bytes = (cfg->nseqs ? cfg->nseqs : 1) * sizeof *s->seqs;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "cannot map the parameter sequences: %s", strerror(errno));
        return -1;
    }
    s->seqs = p;
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_host *h = &s->drivers[d].host;
        if (pgcb_host_map(h, s->nthreads, cfg->nqueries) != 0) {
            snprintf(err, errlen, "out of memory for driver %s's shared region",
                     s->drivers[d].cfg->name);
            return -1;
        }
        struct pgcb_host_spec spec = driver_spec(s, d, pgcb_connplan_first(s->plan, cfg));
        if (pgcb_host_start(h, s, &spec, 1, &tick, err, errlen) != 0)
            return -1;
        find_backends(s, d);
    }
    for (size_t b = 0; b < s->nbgs; b++) {
        struct pgcb_host *h = &s->bgs[b].sd.host;
        if (pgcb_host_map(h, s->bgs[b].cfg->connections, cfg->nqueries) != 0) {
            snprintf(err, errlen, "out of memory for background %s's shared region",
                     s->bgs[b].cfg->name);
            return -1;
        }
        struct pgcb_host_spec spec = bg_spec(s, b);
        if (pgcb_host_start(h, s, &spec, 1, &tick, err, errlen) != 0)
            return -1;
        const struct pgcb_host_query *hq = &h->sh->queries[s->bgs[b].cfg->query];
        if (hq->failed) {
            snprintf(err, errlen, "%s:%d: [background.%s]: %s", cfg->file, s->bgs[b].cfg->line,
                     s->bgs[b].cfg->name, hq->err);
            return -1;
        }
    }
    /* A query the server refused is not fatal while some driver that talks
     * to a server can run some query. */
    const char *first = NULL;
    int runnable = 0, io = 0;
    for (size_t d = 0; d < s->ndrivers; d++) {
        if (s->drivers[d].caps & PGCB_CAP_NO_IO)
            continue;
        io = 1;
        for (size_t q = 0; q < cfg->nqueries; q++) {
            const char *e = pgcb_session_query_error(s, d, q);
            if (e && !first)
                first = e;
            /* A query whose rows read back wrong (bulk.h) is a result to
             * report (INVALID), not a reason to stop. */
            if (s->drivers[d].host.sh->queries[q].invalid)
                e = NULL;
            for (size_t i = 0; i < cfg->nsuites && !e; i++)
                for (size_t k = 0; k < cfg->suites[i].nqueries; k++)
                    runnable |= cfg->suites[i].queries[k] == q;
        }
    }
    if (io && !runnable && first) {
        snprintf(err, errlen, "%s", first);
        return -1;
    }
    return 0;
}

const char *pgcb_session_query_error(const struct pgcb_session *s, size_t d, size_t q)
{
    const struct pgcb_host_shared *sh = s->drivers[d].host.sh;
    return sh && sh->queries[q].failed ? sh->queries[q].err : NULL;
}

void pgcb_session_describe(const struct pgcb_session *s, struct pgcb_result *r)
{
    r->ndrivers = s->ndrivers;
    r->drivers = pgcb_xcalloc(s->ndrivers, sizeof *r->drivers);
    for (size_t i = 0; i < s->ndrivers; i++) {
        const struct pgcb_driver *d = s->drivers[i].ld.drv;
        char *real = realpath(s->drivers[i].cfg->path, NULL);
        r->drivers[i] = (struct pgcb_res_driver){
            .label = pgcb_xstrdup(s->drivers[i].cfg->name),
            .name = pgcb_xstrdup(d->name),
            .version = pgcb_xstrdup(d->version),
            .links = pgcb_xstrdup(s->drivers[i].links),
            .path = real ? real : pgcb_xstrdup(s->drivers[i].cfg->path),
            .description = d->description ? pgcb_xstrdup(d->description) : NULL,
            .caps = s->drivers[i].caps,
            .proto = s->drivers[i].proto,
            .proto_explicit = s->drivers[i].proto_explicit,
            .abi_major = d->abi_major,
            .abi_minor = d->abi_minor,
        };
    }
    r->norders = s->norders;
    r->orders_repeats = s->orders_repeats;
    r->looks = s->looks;
    r->until_decided = s->cfg->until_decided;
    r->until_width = s->cfg->until_width;
    r->orders = pgcb_xcalloc(s->norders, sizeof *r->orders);
    for (size_t o = 0; o < s->norders; o++) {
        r->orders[o] = pgcb_xcalloc(s->ndrivers, sizeof **r->orders);
        memcpy(r->orders[o], s->orders[o], s->ndrivers * sizeof **r->orders);
    }
}

static void free_driver(struct pgcb_sdriver *sd)
{
    pgcb_host_stop(&sd->host);
    pgcb_host_unmap(&sd->host);
    pgcb_loader_close(&sd->ld);
    free(sd->opts);
}

void pgcb_session_free(struct pgcb_session *s)
{
    for (size_t i = 0; i < s->ndrivers; i++)
        free_driver(&s->drivers[i]);
    for (size_t i = 0; i < s->nbgs; i++)
        free_driver(&s->bgs[i].sd);
    free(s->drivers);
    free(s->bgs);
    if (s->seqs)
        munmap((void *)s->seqs, (s->cfg->nseqs ? s->cfg->nseqs : 1) * sizeof *s->seqs);
    pgcb_orders_free(s->orders, s->norders);
    *s = (struct pgcb_session){0};
}

/* ---- measuring a group (the coordinating thread) ----------------------- */

/* Per driver, for the group being measured. */
struct gstate {
    uint64_t expect_sum;         /* thread 1's first batch */
    char note[256];              /* the driver's note() of it (host.h) */
    uint64_t batches, rows_bad, sum_bad, cpu_ns;
    uint64_t blocks, overhead_ns, overhead_cpu_ns; /* self-timed: measured orders */
    int threads_disagree;        /* the threads' first checksums differ */
    int check_rows;              /* the rows per batch are known and checked */
    uint64_t srv_cpu_ns, srv_wall_ns; /* the server's CPU time over the measured jobs */
    int srv_known;
    struct pgcb_backend_acc bk;  /* its own backends over the measured jobs (backend.h) */
    /* Noise (issue 13): the measured orders whose job answered, the
     * threads' context switches in them, and the steal time (clock ticks)
     * around each order's job over steal_wall_ns. */
    uint64_t noise_orders, nivcsw, nvcsw, minflt;
    uint64_t steal_cpus, steal_machine, steal_wall_ns, steal_cpu_ns_x; /* x: wall x CPUs */
    uint64_t steal_machine_x;    /* wall x online CPUs */
    int steal_failed;            /* a /proc/stat read failed: steal unknown */
    int failed;
    struct pgcb_hist pooled;
};

static void cell_fail(struct pgcb_res_cell *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void cell_fail(struct pgcb_res_cell *c, const char *fmt, ...)
{
    char buf[PGCB_ERRLEN + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->status = PGCB_CELL_FAILED;
    free(c->error);
    c->error = pgcb_xstrdup(buf);
}

/* After a job: counts are summed; the first thread error fails the cell. */
static void collect(const struct pgcb_host_shared *sh, uint32_t nthreads, struct gstate *gs,
                    struct pgcb_res_cell *cell)
{
    for (uint32_t t = 0; t < nthreads; t++) {
        const struct pgcb_host_thread *ht = &sh->threads[t];
        gs->batches += ht->batches;
        gs->cpu_ns += ht->cpu_ns;
        gs->rows_bad += ht->rows_bad;
        gs->sum_bad += ht->sum_bad;
        gs->blocks += ht->blocks;
        gs->overhead_ns += ht->overhead_ns;
        gs->overhead_cpu_ns += ht->overhead_cpu_ns;
        gs->nivcsw += ht->nivcsw;
        gs->nvcsw += ht->nvcsw;
        gs->minflt += ht->minflt;
        if (ht->rc != PGCB_OK && !gs->failed) {
            gs->failed = 1;
            cell_fail(cell, "%s", ht->err);
        }
    }
}

/* The noise figures of a cell (issue 13): context switches and steal. */
static void cell_noise(struct pgcb_res_cell *c, const struct gstate *gs)
{
    const double tick = pgcb_steal_tick_ns();
    c->noise_known = gs->noise_orders > 0;
    c->involuntary_switches = gs->nivcsw;
    c->voluntary_switches = gs->nvcsw;
    c->timed_minor_faults = gs->minflt;
    c->steal_window_ns = c->steal_cpus_ns = c->steal_cpus_pct = NAN;
    c->steal_machine_ns = c->steal_machine_pct = NAN;
    if (!c->noise_known)
        return;
    c->steal_window_ns = (double)gs->steal_wall_ns;
    if (gs->steal_failed || !gs->steal_cpu_ns_x || !gs->steal_machine_x)
        return;
    c->steal_cpus_ns = (double)gs->steal_cpus * tick;
    c->steal_machine_ns = (double)gs->steal_machine * tick;
    c->steal_cpus_pct = 100.0 * c->steal_cpus_ns / (double)gs->steal_cpu_ns_x;
    c->steal_machine_pct = 100.0 * c->steal_machine_ns / (double)gs->steal_machine_x;
}

/* set_why: why the driver's host's backends are unknown ("" if they are
 * known or it does no I/O). */
static void cell_figures(struct pgcb_res_cell *c, const struct gstate *gs, uint32_t depth,
                         uint32_t threads, const char *set_why)
{
    pgcb_result_cell_spread(c);
    cell_noise(c, gs);
    const struct pgcb_hist *h = &gs->pooled;
    pgcb_backend_figures(&gs->bk, h->n * depth, set_why, &c->backend);
    c->samples = h->n;
    c->queries = h->n * depth;
    c->checksum = gs->expect_sum;
    c->blocks = gs->blocks;
    c->overhead_ns_per_block = c->overhead_cpu_ns_per_block = NAN;
    if (gs->blocks) {
        c->overhead_ns_per_block = (double)gs->overhead_ns / (double)gs->blocks;
        c->overhead_cpu_ns_per_block = (double)gs->overhead_cpu_ns / (double)gs->blocks;
    }
    pgcb_pct_fill(h, c->pct_ns); /* NAN without samples */
    if (h->n == 0) {
        c->mean_ns = c->sd_ns = c->rme_pct = c->median_ns = c->p99_ns = NAN;
        c->ops_per_s = c->queries_per_s = c->cpu_ns_per_query = NAN;
        c->server_cpu_ns_per_query = c->server_busy = NAN;
        return;
    }
    c->mean_ns = h->mean;
    c->sd_ns = pgcb_hist_stddev(h);
    c->rme_pct = pgcb_stats_rme_pct(c->mean_ns, c->sd_ns, h->n);
    c->median_ns = pgcb_hist_median(h);
    c->p99_ns = (double)pgcb_hist_quantile(h, 0.99);
    c->ncurve = pgcb_pct_curve(h, &c->curve);
    c->min_ns = h->min;
    c->max_ns = h->max;
    c->wall_ns = (uint64_t)(h->mean * (double)h->n + 0.5);
    /* Per thread, batches follow one another: 1e9 / mean per thread; the
     * threads run side by side for the same time. */
    c->ops_per_s = c->mean_ns > 0 ? 1e9 / c->mean_ns : NAN;
    c->queries_per_s = c->ops_per_s * depth * threads;
    c->cpu_ns_per_query = (double)gs->cpu_ns / (double)c->queries;
    c->server_cpu_ns_per_query = c->server_busy = NAN;
    if (gs->srv_known && gs->srv_wall_ns) {
        c->server_cpu_ns_per_query = (double)gs->srv_cpu_ns / (double)c->queries;
        c->server_busy = (double)gs->srv_cpu_ns / (double)gs->srv_wall_ns;
    }
}

/* "; NOTE" after buf's n bytes when driver d's first batch has a note. */
static void append_note(char *buf, size_t size, int n, const struct gstate *g)
{
    if (g->note[0] && n > 0 && (size_t)n < size)
        snprintf(buf + (size_t)n, size - (size_t)n, "; %s", g->note);
}

/* [bench] checksum_reference: when that driver measured this group with a
 * valid result, its checksum is the group's: every other client driver
 * that differs is invalid. Returns 1 when it decided, 0 when the majority
 * rule must (no reference, or it is not valid in this group). */
static int reference_checks(const struct pgcb_session *s, struct pgcb_res_group *gr,
                            const struct gstate *gs)
{
    const char *ref = s->cfg->checksum_reference;
    size_t rd = SIZE_MAX;
    if (!ref)
        return 0;
    for (size_t d = 0; d < s->ndrivers; d++)
        if (strcmp(s->drivers[d].cfg->name, ref) == 0)
            rd = d;
    if (rd == SIZE_MAX || gr->cells[rd].status != PGCB_CELL_OK)
        return 0;
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        if (d == rd || c->status != PGCB_CELL_OK || (s->drivers[d].caps & PGCB_CAP_REFERENCE) ||
            gs[d].expect_sum == gs[rd].expect_sum)
            continue;
        char buf[640];
        int n = snprintf(buf, sizeof buf, "checksum %016llx differs from %016llx, %s's "
                         "([bench] checksum_reference)", (unsigned long long)gs[d].expect_sum,
                         (unsigned long long)gs[rd].expect_sum, ref);
        append_note(buf, sizeof buf, n, &gs[d]);
        c->status = PGCB_CELL_INVALID;
        c->error = pgcb_xstrdup(buf);
    }
    return 1;
}

/* Rows and checksums: within each driver, then across the client drivers. */
static void cell_checks(struct pgcb_session *s, struct pgcb_result *r, size_t g,
                        struct gstate *gs, int check_sum, int cross_sum)
{
    struct pgcb_res_group *gr = &r->groups[g];
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        if (c->status != PGCB_CELL_OK)
            continue;
        char buf[320];
        if (gs[d].rows_bad) {
            snprintf(buf, sizeof buf, "%llu of %llu batches did not return %llu rows",
                     (unsigned long long)gs[d].rows_bad, (unsigned long long)gs[d].batches,
                     (unsigned long long)c->rows_per_batch);
        } else if (check_sum && gs[d].threads_disagree) {
            snprintf(buf, sizeof buf, "the measuring threads' connections returned different "
                     "checksums for the same batch");
        } else if (check_sum && gs[d].sum_bad && pgcb_sdriver_self_timed(&s->drivers[d])) {
            snprintf(buf, sizeof buf, "the fold of %llu of %llu batches did not match the rows "
                     "the client returned: the adapter did not consume every value alike in "
                     "every batch (or a non-deterministic query: set [query] check = rows)",
                     (unsigned long long)gs[d].sum_bad, (unsigned long long)gs[d].batches);
        } else if (check_sum && gs[d].sum_bad) {
            snprintf(buf, sizeof buf, "checksum changed in %llu of %llu batches (a "
                     "non-deterministic query? set [query] check = rows)",
                     (unsigned long long)gs[d].sum_bad, (unsigned long long)gs[d].batches);
        } else {
            continue;
        }
        c->status = PGCB_CELL_INVALID;
        c->error = pgcb_xstrdup(buf);
    }
    if (!cross_sum)
        return;
    if (reference_checks(s, gr, gs))
        return;
    /* Across drivers: the checksum most client drivers agree on is right;
     * without a strict majority, every client driver is suspect. */
    size_t nclients = 0, best = SIZE_MAX, best_votes = 0;
    for (size_t d = 0; d < s->ndrivers; d++) {
        if (gr->cells[d].status != PGCB_CELL_OK ||
            (s->drivers[d].caps & PGCB_CAP_REFERENCE))
            continue;
        nclients++;
        size_t votes = 0;
        for (size_t k = 0; k < s->ndrivers; k++)
            if (gr->cells[k].status == PGCB_CELL_OK &&
                !(s->drivers[k].caps & PGCB_CAP_REFERENCE) &&
                gs[k].expect_sum == gs[d].expect_sum)
                votes++;
        if (votes > best_votes) {
            best_votes = votes;
            best = d;
        }
    }
    if (nclients < 2 || best_votes == nclients)
        return;
    int majority = 2 * best_votes > nclients;
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        if (c->status != PGCB_CELL_OK || (s->drivers[d].caps & PGCB_CAP_REFERENCE))
            continue;
        if (majority && gs[d].expect_sum == gs[best].expect_sum)
            continue;
        char buf[640];
        int n;
        if (majority)
            n = snprintf(buf, sizeof buf, "checksum %016llx differs from %016llx, which %zu of "
                         "%zu client drivers returned (%s among them)",
                         (unsigned long long)gs[d].expect_sum,
                         (unsigned long long)gs[best].expect_sum, best_votes, nclients,
                         s->drivers[best].cfg->name);
        else
            n = snprintf(buf, sizeof buf, "checksum %016llx: the client drivers disagree and no "
                         "checksum has a majority", (unsigned long long)gs[d].expect_sum);
        append_note(buf, sizeof buf, n, &gs[d]);
        c->status = PGCB_CELL_INVALID;
        c->error = pgcb_xstrdup(buf);
    }
}

/* Run sh->job on driver d's host. A host that crashes or hangs fails the
 * cell (and is said so on stderr at once); it is restarted for the next
 * group. Returns 0 when the host answered. */
static int run_job(struct pgcb_session *s, struct pgcb_result *r, size_t g, size_t d,
                   struct gstate *gs)
{
    struct pgcb_sdriver *sd = &s->drivers[d];
    const struct pgcb_host_tick tick = session_tick(s);
    char why[PGCB_ERRLEN + 256];
    if (pgcb_host_run(&sd->host, s, &tick, why, sizeof why) == 0)
        return 0;
    const struct pgcb_res_group *gr = &r->groups[g];
    /* The host is gone (crashed, exited, or killed as hung): what its
     * connections were running on the server goes on without it; end it
     * before the next driver or group is measured. */
    pgcb_progress_clear(s->progress);
    if (sd->host.tag[0] && !(sd->caps & PGCB_CAP_NO_IO)) {
        char e[400];
        int n = pgcb_server_terminate_tagged(s->cfg->conninfo, sd->host.tag, e, sizeof e);
        if (n < 0)
            fprintf(stderr, "runner: note: cannot end the server sessions of driver %s's "
                            "host: %s\n", sd->cfg->name, e);
        else if (n > 0 && !s->quiet)
            fprintf(stderr, "runner: ended %d server session%s driver %s's host left running\n",
                    n, n == 1 ? "" : "s", sd->cfg->name);
    }
    fprintf(stderr, "runner: driver %s %s in group %s / %s (depth %u)%s\n", sd->cfg->name, why,
            gr->suite, gr->query, gr->depth, "; it is restarted for the next group");
    gs->failed = 1;
    cell_fail(&r->groups[g].cells[d], "driver %s %s", sd->cfg->name, why);
    return -1;
}

/* ---- background load ---------------------------------------------------- */

/* Start every background load of suite su for group g (its host again, if it
 * died). A load that cannot start is recorded in gr->backgrounds[k].error. */
static void bg_start(struct pgcb_session *s, struct pgcb_res_group *gr, size_t g, size_t ngroups,
                     const struct pgcb_cfg_suite *su)
{
    const struct pgcb_host_tick tick = session_tick(s);
    gr->nbackgrounds = su->nbackgrounds;
    gr->backgrounds = pgcb_xcalloc(su->nbackgrounds ? su->nbackgrounds : 1,
                                   sizeof *gr->backgrounds);
    for (size_t k = 0; k < su->nbackgrounds; k++) {
        size_t b = su->backgrounds[k];
        const struct pgcb_cfg_background *cb = s->bgs[b].cfg;
        struct pgcb_host *h = &s->bgs[b].sd.host;
        struct pgcb_res_background *rb = &gr->backgrounds[k];
        *rb = (struct pgcb_res_background){
            .name = pgcb_xstrdup(cb->name),
            .driver = pgcb_xstrdup(s->bgs[b].sd.cfg->name),
            .query = pgcb_xstrdup(s->cfg->queries[cb->query].name),
            .connections = cb->connections,
            .target_rate = cb->rate * cb->connections,
            .achieved_rate = NAN, .elapsed_s = NAN,
            .median_ns = NAN, .p99_ns = NAN, .max_ns = NAN,
            .sla = cb->sla,
        };
        char cpus[256];
        pgcb_cpus_format(cb->cpus, cb->ncpus, cpus, sizeof cpus);
        rb->cpus = pgcb_xstrdup(cpus);
        char why[PGCB_ERRLEN + 256];
        struct pgcb_host_spec spec = bg_spec(s, b);
        if (h->pid == 0 && pgcb_host_start(h, s, &spec, 0, &tick, why, sizeof why) != 0) {
            rb->error = pgcb_xasprintf("restart failed: %s", why);
            continue;
        }
        struct pgcb_job *job = &h->sh->job;
        *job = (struct pgcb_job){.kind = PGCB_JOB_BACKGROUND, .query = cb->query, .group = g,
                                 .ngroups = ngroups, .depth = 1, .nthreads = cb->connections,
                                 .stream = PGCB_STREAM_BACKGROUND, .rate = cb->rate};
        snprintf(job->label, sizeof job->label, "background %s", cb->name);
        if (pgcb_host_send(h, s, why, sizeof why) != 0)
            rb->error = pgcb_xasprintf("background %s %s", cb->name, why);
    }
}

/* Stop the loads bg_start started and record what they achieved. */
static void bg_stop(struct pgcb_session *s, struct pgcb_res_group *gr,
                    const struct pgcb_cfg_suite *su)
{
    const struct pgcb_host_tick tick = session_tick(s);
    struct pgcb_hist lat;
    if (pgcb_hist_init(&lat) != 0) {
        fprintf(stderr, "runner: out of memory for a histogram\n");
        exit(70);
    }
    for (size_t k = 0; k < su->nbackgrounds; k++) {
        size_t b = su->backgrounds[k];
        struct pgcb_host *h = &s->bgs[b].sd.host;
        struct pgcb_res_background *rb = &gr->backgrounds[k];
        if (!rb->error) {
            char why[PGCB_ERRLEN + 256];
            atomic_store(&h->sh->bg_stop, 1);
            if (pgcb_host_wait(h, s, &tick, why, sizeof why) != 0)
                rb->error = pgcb_xasprintf("background %s %s", rb->name, why);
        }
        if (!rb->error) {
            pgcb_hist_reset(&lat);
            double elapsed = 0;
            for (uint32_t t = 0; t < rb->connections; t++) {
                const struct pgcb_host_thread *ht = &h->sh->threads[t];
                if (ht->rc != PGCB_OK && !rb->error)
                    rb->error = pgcb_xstrdup(ht->err);
                rb->executions += ht->batches;
                pgcb_hist_merge(&lat, &ht->hist);
                if ((double)ht->elapsed_ns > elapsed)
                    elapsed = (double)ht->elapsed_ns;
            }
            /* Every execution over the load's whole span (the longest
             * connection's, from its first scheduled execution to the stop):
             * a connection that failed early counts for the time it was
             * missing, instead of a per-connection rate ending with it. */
            rb->achieved_rate = elapsed > 0 ? (double)rb->executions * 1e9 / elapsed : 0;
            rb->elapsed_s = elapsed / 1e9;
            if (lat.n) {
                rb->median_ns = pgcb_hist_median(&lat);
                rb->p99_ns = (double)pgcb_hist_quantile(&lat, 0.99);
                rb->max_ns = (double)lat.max;
            }
        }
        rb->sla_met = !rb->error && rb->achieved_rate >= rb->sla * rb->target_rate;
        gr->sla_failed |= !rb->sla_met;
    }
    pgcb_hist_free(&lat);
}

static const struct pgcb_cfg_suite *suite_of(const struct pgcb_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->nsuites; i++)
        if (strcmp(cfg->suites[i].name, name) == 0)
            return &cfg->suites[i];
    return NULL;
}

/* The connection string of group gr (connplan.h). */
static const char *group_conninfo(const struct pgcb_session *s, const struct pgcb_res_group *gr)
{
    const struct pgcb_cfg_suite *su = suite_of(s->cfg, gr->suite);
    enum pgcb_transport t;
    int ti = gr->transport && pgcb_transport_parse(gr->transport, &t) == 0 ? (int)t : -1;
    return pgcb_connplan_get(s->plan, s->cfg, su ? (size_t)(su - s->cfg->suites) : 0, ti);
}

/* What driver d's connections used, as its host's last look at them found
 * (find_backends), into cell c of a group that asked for `asked` (NULL: the
 * suite did not ask). */
static void cell_transport(struct pgcb_res_cell *c, const struct pgcb_transport_seen *seen,
                           const char *asked)
{
    struct pgcb_res_transport *t = &c->transport;
    if (!seen->recorded)
        return;
    t->recorded = 1;
    t->asked = asked ? pgcb_xstrdup(asked) : NULL;
    t->seen = pgcb_xstrdup(seen->seen);
    t->why = seen->why[0] ? pgcb_xstrdup(seen->why) : NULL;
    t->tls_version = seen->version[0] ? pgcb_xstrdup(seen->version) : NULL;
    t->cipher = seen->cipher[0] ? pgcb_xstrdup(seen->cipher) : NULL;
    t->bits = seen->bits;
    t->client_addr = seen->client_addr[0] ? pgcb_xstrdup(seen->client_addr) : NULL;
    t->mismatch = asked && strcmp(seen->seen, "unknown") != 0 && strcmp(seen->seen, asked) != 0;
}

/* Steal time around one order's job (steal.h): /proc/stat read just
 * before the job is sent and just after its answer, never while a host
 * measures. */
struct steal_mark {
    struct pgcb_steal st;
    uint64_t t0;
    int ok;
};

static void steal_begin(struct steal_mark *m, const struct pgcb_res_group *gr)
{
    m->ok = pgcb_steal_read(gr->thread_cpus, gr->threads, &m->st) == 0;
    m->t0 = pgcb_now_ns();
}

/* The job answered: add the order's steal and wall time to gs. */
static void steal_end(const struct steal_mark *m, const struct pgcb_res_group *gr,
                      struct gstate *gs)
{
    uint64_t wall = pgcb_now_ns() - m->t0;
    struct pgcb_steal st;
    gs->noise_orders++;
    gs->steal_wall_ns += wall;
    if (!m->ok || pgcb_steal_read(gr->thread_cpus, gr->threads, &st) != 0 ||
        st.machine < m->st.machine || st.cpus < m->st.cpus || !st.ncpus_found ||
        !st.ncpus_online) {
        gs->steal_failed = 1;
        return;
    }
    gs->steal_cpus += st.cpus - m->st.cpus;
    gs->steal_machine += st.machine - m->st.machine;
    gs->steal_cpu_ns_x += wall * st.ncpus_found;
    gs->steal_machine_x += wall * st.ncpus_online;
}

/* Driver d's own backends around one order's job (backend.h), read next to
 * the job, inside the whole server's reading. */
struct backend_mark {
    struct pgcb_backend_sample before;
    int ok;
};

static void backend_begin(struct backend_mark *m, const struct pgcb_sdriver *sd,
                          struct gstate *gs)
{
    char why[256];
    const struct pgcb_backend_set *set = &sd->host.backends;
    m->ok = set->n && !gs->bk.lost;
    if (m->ok && pgcb_backend_read(set, &m->before, why, sizeof why) != 0) {
        m->ok = 0;
        pgcb_backend_lose(&gs->bk, why);
    }
}

/* job_ok: the host answered (else its backends are gone with it, and the
 * cell failed: nothing to add). */
static void backend_end(const struct backend_mark *m, const struct pgcb_sdriver *sd,
                        struct gstate *gs, int job_ok)
{
    char why[256];
    struct pgcb_backend_sample after;
    if (!m->ok || !job_ok)
        return;
    if (pgcb_backend_read(&sd->host.backends, &after, why, sizeof why) != 0)
        pgcb_backend_lose(&gs->bk, why);
    else
        pgcb_backend_add(&gs->bk, &sd->host.backends, &m->before, &after);
}

void pgcb_session_budget(const struct pgcb_session *s, const struct pgcb_res_group *gr,
                         struct pgcb_eta_group *out)
{
    const struct pgcb_config *cfg = s->cfg;
    const struct pgcb_cfg_suite *su = suite_of(cfg, gr->suite);
    const uint32_t nthreads = gr->threads ? gr->threads : 1;
    const uint64_t warmup_ms = su->warmup_ms >= 0 ? (uint64_t)su->warmup_ms : cfg->warmup_ms;
    uint64_t queries_per_thread = (cfg->min_queries + nthreads - 1) / nthreads;
    *out = (struct pgcb_eta_group){
        .warmup = !su->ops, /* a fixed-operation step has no warm-up */
        .warmup_ns = warmup_ms * 1000000ull,
        .time_floor_ns = cfg->time_ms * 1000000ull / s->norders,
        .batch_floor = (queries_per_thread + gr->depth - 1) / gr->depth,
        .depth = gr->depth,
        .norders = s->norders,
    };
    if (su->ops) { /* exactly ops queries: config_suite.c checked the division */
        out->time_floor_ns = 0;
        out->batch_floor = su->ops / ((uint64_t)nthreads * gr->depth);
    }
    if (su->connect) { /* a sample is a connection: its count floor instead of queries */
        out->connect = 1;
        out->batch_floor = (su->connections + nthreads - 1) / nthreads;
    }
}

int pgcb_session_run_group(struct pgcb_session *s, struct pgcb_result *r, size_t g, size_t q)
{
    const struct pgcb_config *cfg = s->cfg;
    struct pgcb_res_group *gr = &r->groups[g];
    const struct pgcb_cfg_query *cq = &cfg->queries[q];
    const struct pgcb_cfg_suite *su = suite_of(cfg, gr->suite);
    const uint32_t nthreads = gr->threads;
    struct gstate *gs = pgcb_xcalloc(s->ndrivers, sizeof *gs);
    const struct pgcb_host_tick tick = session_tick(s);
    struct pgcb_hist order_hist;
    int stopped = 0;
    /* A fixed-operation step has no warm-up, hence no reference checksum. */
    const int check_sum = cq->check == PGCB_CHECK_CHECKSUM && !su->ops;
    /* Random keys: every driver's first batch binds the same values (the
     * same stream), so the first batches' checksums still agree across
     * drivers -- unless a sequence, a write or background load makes the
     * rows differ. */
    int seq = 0;
    for (size_t j = 0; j < cq->nparams; j++)
        seq |= cq->params[j].kind == PGCB_GEN_SEQ;
    const int cross_sum = check_sum || (cq->check == PGCB_CHECK_ROWS && cq->nparams && !seq &&
                                        !su->ops && !su->nbackgrounds &&
                                        pgcb_config_read_only(cq->sql));
    struct pgcb_eta_group budget;
    pgcb_session_budget(s, gr, &budget);
    gr->transaction = su->transaction;
    gr->ops = su->ops;
    gr->connect = su->connect;
    gr->connections = su->connect ? su->connections : 0;
    gr->nparams = (uint32_t)cq->nparams;
    gr->bulk_copy = cq->copy != NULL;
    gr->bulk_rows = cq->copy && cq->bulk ? cq->bulk->rows : cq->read_back ? gr->depth : 0;

    if (pgcb_hist_init(&order_hist) != 0) {
        fprintf(stderr, "runner: out of memory for a histogram\n");
        exit(70);
    }
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        c->norders = s->norders;
        c->order_medians_ns = pgcb_xcalloc(s->norders, sizeof(double));
        for (size_t o = 0; o < s->norders; o++)
            c->order_medians_ns[o] = NAN;
        if (pgcb_hist_init(&gs[d].pooled) != 0) {
            fprintf(stderr, "runner: out of memory for a histogram\n");
            exit(70);
        }
    }
    struct pgcb_job base = {.query = q, .group = g, .ngroups = r->ngroups,
                            .norders = s->norders, .depth = gr->depth, .nthreads = nthreads,
                            .transaction = su->transaction, .check_sum = check_sum,
                            .connect = su->connect};
    char shape[64];
    pgcb_res_group_shape(gr, shape, sizeof shape);
    snprintf(base.label, sizeof base.label, "%s / %s %s%s%s", gr->suite, gr->query, shape,
             gr->transport ? " " : "", gr->transport ? gr->transport : "");

    /* 0. The background load runs from before the warm-up to after the last
     * order. */
    bg_start(s, gr, g, r->ngroups, su);

    /* 1. A host for every driver (again, if one died); the query must have
     * prepared; first batch and warm-up (none for a fixed-operation step). */
    for (size_t d = 0; d < s->ndrivers && !stopped; d++) {
        struct pgcb_sdriver *sd = &s->drivers[d];
        struct pgcb_res_cell *c = &gr->cells[d];
        c->status = PGCB_CELL_OK;
        char why[PGCB_ERRLEN + 256];
        if (su->connect && pgcb_sdriver_self_timed(sd)) {
            /* Its connection is an adapter process of its own, started by
             * open: a sample would time a process start, not a client's
             * connection. */
            cell_fail(c, "skipped: a self-timed driver (the bridge) cannot be measured by a "
                         "connection suite: its connection is an adapter process, so a "
                         "sample would time a process start and the adapter's start-up");
            c->status = PGCB_CELL_SKIPPED;
            gs[d].failed = 1;
            continue;
        }
        const char *ci = group_conninfo(s, gr);
        struct pgcb_host_spec spec = driver_spec(s, d, ci);
        /* Another connection string than its connections have (another
         * transport or suite): the host is started again with the group's,
         * here, before the warm-up. A driver without I/O ignores it. */
        int switched = sd->host.pid != 0 && !(sd->caps & PGCB_CAP_NO_IO) &&
                       strcmp(sd->host.conninfo ? sd->host.conninfo : "", ci) != 0;
        if (switched)
            pgcb_host_stop(&sd->host);
        const int started = sd->host.pid == 0;
        if (started) {
            if (pgcb_host_start(&sd->host, s, &spec, 0, &tick, why, sizeof why) != 0) {
                cell_fail(c, "%s failed: %s", switched ? "reconnecting with the group's "
                                                          "connection string" : "restart", why);
                pgcb_transport_unknown(&sd->host.transport, "its host could not connect");
                cell_transport(c, &sd->host.transport, gr->transport);
                gs[d].failed = 1;
                continue;
            }
            find_backends(s, d); /* new connections, new backends */
        }
        cell_transport(c, &sd->host.transport, gr->transport);
        const char *qerr = pgcb_session_query_error(s, d, q);
        if (qerr) {
            cell_fail(c, "%s", qerr);
            if (sd->host.sh->queries[q].skipped)
                c->status = PGCB_CELL_SKIPPED;
            else if (sd->host.sh->queries[q].invalid)
                c->status = PGCB_CELL_INVALID;
            gs[d].failed = 1;
            continue;
        }
        const struct pgcb_host_query *hq = &sd->host.sh->queries[q];
        /* Rows per query: as the file says, else as the first execution
         * returned; not checked if neither is known or check = none. */
        int rows_known = cq->rows >= 0 || hq->primed;
        uint64_t per_query = cq->rows >= 0 ? (uint64_t)cq->rows : hq->prime_rows;
        gs[d].check_rows = rows_known && cq->check != PGCB_CHECK_NONE;
        c->rows_per_batch = rows_known ? per_query * gr->depth : 0;
        if (su->ops)
            continue;
        struct pgcb_job *job = &sd->host.sh->job;
        *job = base;
        job->kind = PGCB_JOB_WARMUP;
        job->stream = PGCB_STREAM_WARMUP;
        job->expect_rows = c->rows_per_batch;
        job->check_rows = gs[d].check_rows;
        job->warmup_ns = budget.warmup_ns;
        pgcb_progress_job(s->progress, g, d, job, &sd->host.sh->threads[0]);
        if (run_job(s, r, g, d, &gs[d]) == 0) {
            const struct pgcb_host_shared *sh = sd->host.sh;
            collect(sh, nthreads, &gs[d], c);
            gs[d].expect_sum = sh->threads[0].expect_sum;
            memcpy(gs[d].note, sh->threads[0].note, sizeof gs[d].note);
            gs[d].note[sizeof gs[d].note - 1] = '\0';
            for (uint32_t t = 1; t < nthreads; t++)
                gs[d].threads_disagree |= sh->threads[t].expect_sum != gs[d].expect_sum;
            /* A host kept from the last group may have reopened a connection
             * in the warm-up (one that failed there): its backends and how
             * they connect are read again for this group, outside any
             * timing. Not after a connection group's warm-up: it used no
             * connection of the host's, and its samples' backends may still
             * be exiting. */
            if (!started && !gs[d].failed && !su->connect) {
                find_backends(s, d);
                pgcb_result_transport_free(&c->transport);
                cell_transport(c, &sd->host.transport, gr->transport);
            }
        }
        pgcb_progress_job_end(s->progress, gs[d].failed);
        /* Warm-up batches are not counted, but each thread's first batch is
         * in the row check (so it stays in the count of batches the "N of
         * M batches did not return" note divides by). */
        gs[d].cpu_ns = gs[d].sum_bad = 0;
        gs[d].blocks = gs[d].overhead_ns = gs[d].overhead_cpu_ns = 0;
        gs[d].nivcsw = gs[d].nvcsw = gs[d].minflt = 0;
        stopped = *s->stop != 0;
    }

    /* 2. The execution orders (those that failed above run none). */
    for (size_t d = 0; d < s->ndrivers; d++)
        if (gs[d].failed)
            pgcb_progress_drop(s->progress, g, d);
    size_t complete_orders = 0; /* every driver finished them */
    for (size_t o = 0; o < s->norders && !stopped; o++) {
        for (size_t k = 0; k < s->ndrivers && !stopped; k++) {
            size_t d = s->orders[o][k];
            if (gs[d].failed)
                continue;
            struct pgcb_host_shared *sh = s->drivers[d].host.sh;
            struct pgcb_job *job = &sh->job;
            *job = base;
            job->kind = PGCB_JOB_MEASURE;
            job->order = o;
            job->stream = o;
            job->expect_rows = gr->cells[d].rows_per_batch;
            job->check_rows = gs[d].check_rows;
            job->time_floor_ns = budget.time_floor_ns;
            job->batch_floor = budget.batch_floor;
            pgcb_progress_job(s->progress, g, d, job, &sh->threads[0]);
            struct steal_mark sm;
            steal_begin(&sm, gr);
            uint64_t cpu0 = 0, cpu1 = 0, wall0 = pgcb_now_ns();
            int srv = s->postmaster_pid && !(s->drivers[d].caps & PGCB_CAP_NO_IO) &&
                      pgcb_srvcpu_read(s->postmaster_pid, &cpu0) == 0;
            /* A connection group's backends come and go with its samples:
             * the host's, found once, serve none of them (cell_figures says
             * so); the whole server's CPU time still applies. */
            struct backend_mark bm = {.ok = 0};
            if (!su->connect)
                backend_begin(&bm, &s->drivers[d], &gs[d]);
            int ok = run_job(s, r, g, d, &gs[d]) == 0;
            backend_end(&bm, &s->drivers[d], &gs[d], ok);
            if (srv && pgcb_srvcpu_read(s->postmaster_pid, &cpu1) == 0 && cpu1 >= cpu0) {
                gs[d].srv_cpu_ns += cpu1 - cpu0;
                gs[d].srv_wall_ns += pgcb_now_ns() - wall0;
                gs[d].srv_known = 1;
            }
            if (ok) {
                steal_end(&sm, gr, &gs[d]);
                collect(sh, nthreads, &gs[d], &gr->cells[d]);
                pgcb_hist_reset(&order_hist);
                for (uint32_t t = 0; t < nthreads; t++)
                    pgcb_hist_merge(&order_hist, &sh->threads[t].hist);
                gr->cells[d].order_medians_ns[o] =
                    order_hist.n ? pgcb_hist_median(&order_hist) : NAN;
                pgcb_hist_merge(&gs[d].pooled, &order_hist);
            }
            pgcb_progress_job_end(s->progress, gs[d].failed);
            stopped = *s->stop != 0;
        }
        complete_orders += !stopped;
        /* until = decided: after each whole set, stop once every pair is
         * decided (rank.h); the orders not run are the budget saved. */
        if (s->block && (o + 1) % s->block == 0 && o + 1 < s->norders && !stopped) {
            gr->orders_run = o + 1;
            if (pgcb_rank_decided(r, g, cfg->until_width))
                break;
            gr->orders_run = 0;
        }
    }
    if (gr->orders_run)
        for (size_t d = 0; d < s->ndrivers; d++)
            gr->cells[d].norders = gr->orders_run;
    bg_stop(s, gr, su);
    pgcb_progress_group_end(s->progress, g);
    pgcb_progress_clear(s->progress);

    /* 3. Figures and checks. */
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_res_cell *c = &gr->cells[d];
        const char *bwhy = s->drivers[d].host.backends.why;
        if (su->connect && !(s->drivers[d].caps & PGCB_CAP_NO_IO))
            bwhy = "a connection suite: each sample's backend starts and exits within it, "
                   "and the backends found when the driver's host started serve none of its "
                   "connections; Server CPU is the whole server's";
        cell_figures(c, &gs[d], gr->depth, nthreads, bwhy);
        c->rows_per_s = gr->bulk_rows && isfinite(c->ops_per_s)
                            ? c->ops_per_s * (double)gr->bulk_rows * nthreads : NAN;
        if (stopped && c->status == PGCB_CELL_OK) {
            c->status = PGCB_CELL_NOT_RUN;
            c->error = pgcb_xasprintf("interrupted before the group was complete (partial: %zu "
                                      "of %zu orders; never crowned)", complete_orders,
                                      s->norders);
        }
    }
    if (stopped) { /* the orders it completed are kept, the group says how many */
        gr->partial = 1;
        gr->partial_orders = complete_orders;
    }
    if (!stopped)
        cell_checks(s, r, g, gs, check_sum, cross_sum);
    for (size_t d = 0; d < s->ndrivers; d++)
        pgcb_hist_free(&gs[d].pooled);
    pgcb_hist_free(&order_hist);
    free(gs);
    return stopped;
}
