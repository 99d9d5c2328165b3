/*
 * session.c -- the drivers of a run: loaded and checked against their
 * options (load), a host started for each (open), described for the result
 * (describe), stopped and unloaded (free). Every driver runs in its own host
 * process (host.c), with one connection and one pinned measuring thread per
 * thread of the widest suite. Measuring a group is group.c's (and
 * group_order.c, cells.c, bgload.c); what this file lends them is declared
 * in group_int.h.
 */
#include "session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "server/backend.h"
#include "bgload.h"
#include "server/connplan.h"
#include "group_int.h"
#include "session_int.h"
#include "orders.h"
#include "out/progress.h"
#include "proto.h"
#include "server/server.h"
#include "stats.h"
#include "util.h"


/* ---- loading and opening ---------------------------------------------- */

static void tick_progress(void *session)
{
    pgcb_progress_tick(((struct pgcb_session *)session)->progress);
}

struct pgcb_host_tick pgcb_session_tick(struct pgcb_session *s)
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
 * (ABI 1.2: a bridge starts its adapter once to ask), else the descriptor.
 * 0; 1 when instance() said the client cannot run here (PGCB_ERR_UNSUPPORTED:
 * sd->unavailable says why) and `measured` allows it; -1 with err. */
static int describe_instance(const struct pgcb_config *cfg, struct pgcb_sdriver *sd,
                             int measured, char *err, size_t errlen)
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
    int rc = d->instance(sd->opts, sd->nopts, &in, why, sizeof why);
    if (rc == PGCB_ERR_UNSUPPORTED && measured) {
        snprintf(sd->unavailable, sizeof sd->unavailable, "%s",
                 why[0] ? why : "the driver says this client cannot run here");
        snprintf(sd->links, sizeof sd->links, "unavailable here (see its cells)");
        return 1;
    }
    if (rc != PGCB_OK) {
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

/* Load driver `cd` into sd (measured: one of the run's drivers, which may
 * be unavailable; else a background's, which may not). 0, or -1 with one
 * line in err. */
static int load_driver(const struct pgcb_config *cfg, const struct pgcb_cfg_driver *cd,
                       int measured, struct pgcb_sdriver *sd, char *err, size_t errlen)
{
    sd->cfg = cd;
    sd->host = (struct pgcb_host){.cmd_fd = -1, .reply_fd = -1};
    char why[PGCB_ERRLEN];
    if (pgcb_loader_open(cd->name, cd->path, &sd->ld, why, sizeof why) != 0) {
        char at[PGCB_ERRLEN];
        snprintf(err, errlen, "%s %s", drv_where(cfg, cd, cd->path_line, 0, at, sizeof at), why);
        return -1;
    }
    if (check_options(cfg, sd, err, errlen) != 0)
        return -1;
    int r = describe_instance(cfg, sd, measured, err, errlen);
    if (r != 0)
        return r < 0 ? -1 : 0; /* unavailable: nothing more to ask it */
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
            load_driver(cfg, &cfg->drivers[i], 1, &s->drivers[s->ndrivers++], err, errlen) != 0)
            return -1;
    /* Some driver must be able to run: with none, the first one's reason. */
    size_t avail = 0;
    for (size_t d = 0; d < s->ndrivers; d++)
        avail += !s->drivers[d].unavailable[0];
    if (s->ndrivers && !avail) {
        const struct pgcb_sdriver *sd = &s->drivers[0];
        char at[PGCB_ERRLEN];
        snprintf(err, errlen, "%s %s (and no other driver can run)",
                 drv_where(cfg, sd->cfg, sd->cfg->line, 1, at, sizeof at), sd->unavailable);
        return -1;
    }
    s->bgs = pgcb_xcalloc(cfg->nbackgrounds ? cfg->nbackgrounds : 1, sizeof *s->bgs);
    for (size_t i = 0; i < cfg->nbackgrounds; i++) {
        s->bgs[i].cfg = &cfg->backgrounds[i];
        if (load_driver(cfg, &cfg->drivers[cfg->backgrounds[i].driver], 0,
                        &s->bgs[s->nbgs++].sd, err, errlen) != 0)
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

/* In a new host's process (host.h, close_others): the pipes of every
 * other host of the session. */
static void close_other_hosts(void *arg, const struct pgcb_host *self)
{
    struct pgcb_session *s = arg;
    for (size_t i = 0; i < s->ndrivers + s->nbgs; i++) {
        struct pgcb_host *o = i < s->ndrivers ? &s->drivers[i].host
                                              : &s->bgs[i - s->ndrivers].sd.host;
        if (o != self && o->cmd_fd >= 0)
            close(o->cmd_fd);
        if (o != self && o->reply_fd >= 0)
            close(o->reply_fd);
    }
}

struct pgcb_host_env pgcb_session_env(struct pgcb_session *s)
{
    return (struct pgcb_host_env){.cfg = s->cfg, .stop = s->stop, .seqs = s->seqs,
                                  .close_others = close_other_hosts, .arg = s};
}

struct pgcb_host_driver pgcb_session_host_driver(const struct pgcb_sdriver *sd)
{
    return (struct pgcb_host_driver){.drv = sd->ld.drv, .name = sd->cfg->name,
                                     .opts = sd->opts, .nopts = sd->nopts, .caps = sd->caps,
                                     .self_timed = pgcb_sdriver_self_timed(sd)};
}

struct pgcb_host_spec pgcb_session_driver_spec(struct pgcb_session *s, size_t d,
                                               const char *conninfo)
{
    return (struct pgcb_host_spec){.drv = pgcb_session_host_driver(&s->drivers[d]),
                                   .nthreads = s->nthreads,
                                   .cpus = s->cfg->cpus, .ncpus = s->cfg->ncpus,
                                   .role = "driver", .conninfo = conninfo,
                                   .memcg = s->drivers[d].memcg.dir[0] ? &s->drivers[d].memcg
                                                                       : NULL};
}

void pgcb_session_find_backends(struct pgcb_session *s, size_t d)
{
    struct pgcb_sdriver *sd = &s->drivers[d];
    struct pgcb_backend_set *set = &sd->host.backends;
    struct pgcb_transport_seen *seen = &sd->host.transport;
    char app[128], err[400];
    static struct pgcb_transport_conn conns[PGCB_MAX_BACKENDS]; /* the runner's thread only */
    static int pids[PGCB_MAX_BACKENDS];
    /* A concurrency suite's host: each thread's connection is a pool. */
    const size_t expected = (size_t)s->nthreads * (sd->host.pool ? sd->host.pool : 1);
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
                                         PGCB_MAX_BACKENDS, err, sizeof err);
        if (n < 0) {
            pgcb_backend_set_unknown(set, "its backends could not be listed: %s", err);
            pgcb_transport_unknown(seen, "%s", set->why);
        } else {
            size_t got = (size_t)n < PGCB_MAX_BACKENDS ? (size_t)n : PGCB_MAX_BACKENDS;
            for (size_t i = 0; i < got; i++)
                pids[i] = conns[i].pid;
            pgcb_transport_classify(conns, got, seen);
            pgcb_backend_set_init(set, pids, (size_t)n, expected, s->postmaster_pid);
        }
    }
    if (!s->postmaster_pid) /* its reason first: no tag can help there */
        pgcb_backend_set_init(set, NULL, 0, expected, 0);
}

int pgcb_session_open(struct pgcb_session *s, char *err, size_t errlen)
{
    const struct pgcb_config *cfg = s->cfg;
    const struct pgcb_host_tick tick = pgcb_session_tick(s);
    /* The sequences, shared with every host (mapped before any fork). */
    size_t bytes = (cfg->nseqs ? cfg->nseqs : 1) * sizeof *s->seqs;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "cannot map the parameter sequences: %s", strerror(errno));
        return -1;
    }
    s->seqs = p;
    const struct pgcb_host_env env = pgcb_session_env(s);
    for (size_t d = 0; cfg->max_rss_mb && d < s->ndrivers; d++) {
        char why[400];
        if (pgcb_memcg_create(&s->drivers[d].memcg, s->drivers[d].cfg->name, cfg->max_rss_mb,
                              why, sizeof why) != 0) {
            snprintf(err, errlen, "%s:%d: [bench] %s", cfg->file, cfg->max_rss_mb_line, why);
            return -1;
        }
    }
    for (size_t d = 0; d < s->ndrivers; d++) {
        struct pgcb_host *h = &s->drivers[d].host;
        if (pgcb_host_map(h, s->nthreads, cfg->nqueries) != 0) {
            snprintf(err, errlen, "out of memory for driver %s's shared region",
                     s->drivers[d].cfg->name);
            return -1;
        }
        if (s->drivers[d].unavailable[0])
            continue; /* never started: its cells fail (group.c) */
        struct pgcb_host_spec spec =
            pgcb_session_driver_spec(s, d, pgcb_connplan_first(s->plan, cfg));
        if (pgcb_host_start(h, &env, &spec, 1, &tick, err, errlen) != 0)
            return -1;
        pgcb_session_find_backends(s, d);
    }
    for (size_t b = 0; b < s->nbgs; b++) {
        struct pgcb_host *h = &s->bgs[b].sd.host;
        if (pgcb_host_map(h, s->bgs[b].cfg->connections, cfg->nqueries) != 0) {
            snprintf(err, errlen, "out of memory for background %s's shared region",
                     s->bgs[b].cfg->name);
            return -1;
        }
        struct pgcb_host_spec spec = pgcb_bgload_spec(s, b);
        if (pgcb_host_start(h, &env, &spec, 1, &tick, err, errlen) != 0)
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
        if ((s->drivers[d].caps & PGCB_CAP_NO_IO) || s->drivers[d].unavailable[0])
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
    r->respawn_order = s->cfg->respawn_order;
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
    pgcb_memcg_destroy(&sd->memcg);
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
