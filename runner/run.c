/*
 * run.c -- one run (run.h): load, set up, describe, measure, write. Each
 * phase is a function over struct run, which holds everything the run owns
 * and frees it in one place (run_free), whatever phase stopped it.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

#include "server/bulk.h"
#include "server/connplan.h"
#include "server/wproxy.h"
#include "server/describe.h"
#include "html.h"
#include "out/journal.h"
#include "host/loader.h"
#include "profile/profile.h"
#include "out/progress.h"
#include "proto.h"
#include "report.h"
#include "result.h"
#include "server/server.h"
#include "sched/group.h"
#include "sched/session.h"
#include "sys/cpuidle.h"
#include "sys/steal.h"
#include "sys/sysinfo.h"
#include "util.h"

#define DEFAULT_OUTPUT "results/pgcb-%Y%m%dT%H%M%SZ.json"

/* The runner's version (pgcb_run_opts), for the result and the journal. */
static const char *run_version = "unknown";

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    stop_requested = sig;
}

static void iso_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static char *expand_output(const char *pattern)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    char buf[4096];
    if (strftime(buf, sizeof buf, pattern, &tm) == 0)
        return pgcb_xstrdup(pattern);
    return pgcb_xstrdup(buf);
}

/* --html auto: the result's path with .html for its .json (or appended). */
static char *html_beside(const char *output)
{
    size_t n = strlen(output);
    if (n > 5 && strcmp(output + n - 5, ".json") == 0)
        return pgcb_xasprintf("%.*s.html", (int)(n - 5), output);
    return pgcb_xasprintf("%s.html", output);
}

/* A written file's path as a user types it: without ./ and dir/../, and
 * relative to the working directory when it is under it
 * ("results/bench-X.json", not "conf/../results/bench-X.json"); the path as
 * given when it cannot be resolved. Owned by the caller. */
static char *shown_path(const char *path)
{
    char *real = realpath(path, NULL), *cwd = getcwd(NULL, 0), *out;
    size_t n = cwd ? strlen(cwd) : 0;
    if (real && cwd && strncmp(real, cwd, n) == 0 && real[n] == '/')
        out = pgcb_xstrdup(real + n + 1);
    else
        out = pgcb_xstrdup(real ? real : path);
    free(real);
    free(cwd);
    return out;
}

static void list_drivers(const struct pgcb_session *s)
{
    for (size_t i = 0; i < s->ndrivers; i++) {
        const struct pgcb_driver *d = s->drivers[i].ld.drv;
        char caps[96];
        pgcb_loader_caps_str(s->drivers[i].caps, caps, sizeof caps);
        printf("%s: %s %s (ABI %u.%u), links: %s, caps: %s\n", s->drivers[i].cfg->name, d->name,
               d->version, (unsigned)d->abi_major, (unsigned)d->abi_minor,
               s->drivers[i].links[0] ? s->drivers[i].links : "-", caps);
        printf("  path: %s\n", s->drivers[i].cfg->path);
        if (!(s->drivers[i].caps & PGCB_CAP_NO_IO)) {
            char asks[192];
            unsigned unk, diff = pgcb_proto_differs(&s->drivers[i].proto, &s->cfg->proto, &unk);
            pgcb_proto_phrases(&s->drivers[i].proto, (1u << PGCB_PROTO_NFIELDS) - 1, asks,
                               sizeof asks);
            if (unk == (1u << PGCB_PROTO_NFIELDS) - 1)
                printf("  asks the server for: unknown (the driver has no ABI 1.3 protocol())\n");
            else
                printf("  asks the server for: %s%s\n", asks,
                       diff ? " (not the run's choice: not like for like)" : "");
        }
        if (!(s->drivers[i].caps & PGCB_CAP_NO_IO))
            printf("  COPY FROM STDIN: %s\n", PGCB_DRIVER_HAS(d, 4, run_copy)
                       ? "yes (run_copy, ABI 1.4)"
                       : "no (no ABI 1.4 run_copy): COPY queries skip it");
        if (!(s->drivers[i].caps & PGCB_CAP_NO_IO))
            printf("  whole results (streaming suites): %s\n", PGCB_DRIVER_HAS(d, 6, run_stream)
                       ? "yes (run_stream, ABI 1.6)"
                       : "no (no ABI 1.6 run_stream): streaming suites skip it");
        if (d->description)
            printf("  %s\n", d->description);
        for (const struct pgcb_option_spec *o = d->options; o && o->key; o++)
            printf("  option %s (default %s): %s\n", o->key,
                   o->default_value ? o->default_value : "none", o->help ? o->help : "");
    }
}

/* Everything the header and the JSON say about the machine and server. */
static void fill_environment(struct pgcb_result *r, const struct pgcb_config *cfg,
                             const struct pgcb_session *s, const struct pgcb_server_info *si,
                             int have_server)
{
    struct pgcb_sysinfo sys;
    pgcb_sysinfo_read(&sys);
    char buf[256];
    r->runner_version = pgcb_xstrdup(run_version);
    r->config_file = pgcb_xstrdup(cfg->file);
    r->cpu_model = pgcb_xstrdup(sys.cpu_model);
    r->cores = sys.cores;
    r->ram_bytes = sys.ram_bytes;
    r->kernel = pgcb_xstrdup(sys.kernel);
    r->hostname = pgcb_xstrdup(sys.hostname);
    /* The CPUs the measuring threads are pinned to. */
    size_t used = s->nthreads < cfg->ncpus ? s->nthreads : cfg->ncpus;
    pgcb_cpus_format(cfg->cpus, used, buf, sizeof buf);
    r->client_cpus = pgcb_xstrdup(buf);
    pgcb_libpq_version(buf, sizeof buf);
    r->libpq_version = pgcb_xstrdup(buf);
    if (have_server) {
        r->server_version = pgcb_xstrdup(si->version);
        r->server_cpus = si->cpus[0] ? pgcb_xstrdup(si->cpus) : NULL;
        r->server_cpus_source = pgcb_xstrdup(si->cpus_source);
        /* Shared when they overlap, or when there is only one CPU. */
        r->cpus_shared = (si->cpus[0] && pgcb_cpus_overlap(r->client_cpus, si->cpus)) ||
                         sys.cores < 2;
    } else {
        r->server_cpus_source = pgcb_xstrdup("no server");
    }
    r->conninfo = pgcb_conninfo_redact(cfg->conninfo);
    r->time_ms = cfg->time_ms;
    r->min_queries = cfg->min_queries;
    r->warmup_ms = cfg->warmup_ms;
    r->orders_mode = pgcb_xstrdup(pgcb_orders_mode_str(cfg->orders));
    r->checksum_reference = cfg->checksum_reference ? pgcb_xstrdup(cfg->checksum_reference) : NULL;
    r->alpha = cfg->alpha;
    r->wire_off = !cfg->wire;
    r->interval_level = cfg->interval_level;
    r->proto = cfg->proto;
    pgcb_config_record_selection(cfg, &r->selection);
    r->schema_version = PGCB_RESULT_SCHEMA_VERSION;
}

static int in_list(const int *v, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

/* Append CPU `cpu` as sysfs shows it to r->noise_cpus (room made by the
 * caller). */
static void add_noise_cpu(struct pgcb_result *r, int cpu, const char *role)
{
    struct pgcb_cpu_facts f;
    pgcb_cpu_facts_read(PGCB_SYSFS_CPU_ROOT, cpu, &f);
    r->noise_cpus[r->nnoise_cpus++] = (struct pgcb_res_cpu){
        .cpu = cpu,
        .role = pgcb_xstrdup(role),
        .governor = f.governor[0] ? pgcb_xstrdup(f.governor) : NULL,
        .cur_khz = f.cur_khz, .min_khz = f.min_khz, .max_khz = f.max_khz,
        .smt_siblings = f.siblings[0] ? pgcb_xstrdup(f.siblings) : NULL,
    };
}

/* Issue 13's environment: the threshold, each pinned CPU as sysfs shows it
 * (the client CPUs, then the server CPUs that are not also client CPUs),
 * the machine's steal since boot. */
static void fill_noise(struct pgcb_result *r, const struct pgcb_config *cfg)
{
    int client[PGCB_MAX_CPUS], server[PGCB_MAX_CPUS];
    char e[160];
    int nc = pgcb_parse_cpus(r->client_cpus, client, PGCB_MAX_CPUS, e, sizeof e);
    int ns = r->server_cpus ? pgcb_parse_cpus(r->server_cpus, server, PGCB_MAX_CPUS, e,
                                              sizeof e) : 0;
    nc = nc > 0 ? nc : 0;
    ns = ns > 0 ? ns : 0;
    r->noise_warn_pct = cfg->noise_warn_pct;
    r->steal_boot_pct = pgcb_steal_since_boot_pct();
    r->run_steal_ns = r->run_steal_pct = NAN;
    r->noise_cpus = pgcb_xcalloc((size_t)(nc + ns) + 1, sizeof *r->noise_cpus);
    for (int i = 0; i < nc; i++)
        add_noise_cpu(r, client[i], in_list(server, ns, client[i]) ? "client+server" : "client");
    for (int i = 0; i < ns; i++)
        if (!in_list(client, nc, server[i]))
            add_noise_cpu(r, server[i], "server");
}

/* [bench] cpu_idle as asked and as held; the entries are counted by
 * run_measure. */
static void fill_idle(struct pgcb_result *r, const struct pgcb_config *cfg,
                      const struct pgcb_idle_hold *h)
{
    r->idle = (struct pgcb_res_idle){
        .asked = pgcb_xstrdup(pgcb_idle_name(cfg->cpu_idle)),
        .polling = h->polling,
        .why = h->polling ? NULL : pgcb_xstrdup(h->why),
        .driver = h->driver[0] ? pgcb_xstrdup(h->driver) : NULL,
        .governor = h->governor[0] ? pgcb_xstrdup(h->governor) : NULL,
        .entries_poll = NAN,
        .entries_other = NAN,
    };
}

/* The pinned CPUs' idle entries (noise_cpus: client and server). */
static void idle_entries(const struct pgcb_result *r, struct pgcb_idle_entries *e)
{
    int cpus[PGCB_MAX_CPUS];
    size_t n = 0;
    for (size_t i = 0; i < r->nnoise_cpus && n < PGCB_MAX_CPUS; i++)
        cpus[n++] = r->noise_cpus[i].cpu;
    pgcb_idle_entries_read(PGCB_CPUIDLE_SYSFS, cpus, n, e);
}

/* The machine's steal over the run, from `start` (read before the first
 * group at t0_ns) to now. */
static void fill_run_steal(struct pgcb_result *r, const struct pgcb_steal *start, int ok,
                           uint64_t t0_ns)
{
    struct pgcb_steal end;
    uint64_t wall = pgcb_now_ns() - t0_ns;
    if (!ok || pgcb_steal_read(NULL, 0, &end) != 0 || end.machine < start->machine ||
        !end.ncpus_online || !wall)
        return;
    r->run_steal_ns = (double)(end.machine - start->machine) * pgcb_steal_tick_ns();
    r->run_steal_pct = 100.0 * r->run_steal_ns / ((double)wall * (double)end.ncpus_online);
}

/* One group per (suite, query, depth, transport, rtt), in file order, the
 * transports of one depth one after another, the RTTs of one transport
 * one after another. */
static size_t *build_groups(struct pgcb_result *r, const struct pgcb_config *cfg,
                            const struct pgcb_session *sess, const struct pgcb_connplan *plan,
                            const struct pgcb_wproxies *net)
{
    size_t n = 0;
    for (size_t s = 0; s < cfg->nsuites; s++)
        n += cfg->suites[s].nqueries * cfg->suites[s].ndepths *
             (cfg->suites[s].ntransports ? cfg->suites[s].ntransports : 1) *
             (cfg->suites[s].rtt.nrtts ? cfg->suites[s].rtt.nrtts : 1);
    r->groups = pgcb_xcalloc(n, sizeof *r->groups);
    size_t *query_of = pgcb_xcalloc(n, sizeof *query_of);
    for (size_t s = 0; s < cfg->nsuites; s++) {
        const struct pgcb_cfg_suite *su = &cfg->suites[s];
        size_t nt = su->ntransports ? su->ntransports : 1;
        size_t nr = su->rtt.nrtts ? su->rtt.nrtts : 1;
        for (size_t k = 0; k < su->nqueries; k++)
            for (size_t dtr = 0; dtr < su->ndepths * nt * nr; dtr++) {
                const struct pgcb_cfg_query *q = &cfg->queries[su->queries[k]];
                struct pgcb_res_group *g = &r->groups[r->ngroups];
                size_t d = dtr / nr, ri = dtr % nr;
                int tr = su->ntransports ? (int)su->transports[d % nt] : -1;
                if (su->rtt.nrtts) {
                    g->has_rtt = 1;
                    g->rtt_ms = su->rtt.rtts[ri];
                    g->rtt_index = ri;
                }
                g->suite = pgcb_xstrdup(su->name);
                if (tr >= 0)
                    g->transport = pgcb_xstrdup(pgcb_transport_name((enum pgcb_transport)tr));
                if (su->rtt.nrtts)
                    g->conninfo = pgcb_conninfo_redact(pgcb_wproxies_conninfo(net, s, tr, ri));
                else if (tr >= 0 || su->conninfo)
                    g->conninfo = pgcb_conninfo_redact(pgcb_connplan_get(plan, cfg, s, tr));
                g->query = pgcb_xstrdup(q->name);
                g->sql = pgcb_xstrdup(q->sql);
                g->versus = q->versus ? pgcb_xstrdup(q->versus) : NULL;
                g->depth = su->depths[d / nt];
                g->threads = su->threads;
                g->thread_cpus = pgcb_xcalloc(su->threads, sizeof *g->thread_cpus);
                for (uint32_t t = 0; t < su->threads; t++)
                    g->thread_cpus[t] = pgcb_session_thread_cpu(sess, t);
                g->rows = q->rows;
                g->connect = su->connect; /* the header says its budget */
                g->connections = su->connect ? su->connections : 0;
                g->cells = pgcb_xcalloc(r->ndrivers, sizeof *g->cells);
                query_of[r->ngroups++] = su->queries[k];
            }
    }
    return query_of;
}

/* Each group's columns and those folded as text, from the runner's own
 * Describe of its query (describe.h; best effort, nothing printed). */
static void describe_groups(struct pgcb_result *r, const struct pgcb_config *cfg,
                            const size_t *query_of)
{
    struct pgcb_desc *desc = pgcb_xcalloc(cfg->nqueries ? cfg->nqueries : 1, sizeof *desc);
    pgcb_describe_queries(cfg->conninfo, cfg, desc);
    for (size_t g = 0; g < r->ngroups; g++)
        pgcb_describe_group(&r->groups[g], &desc[query_of[g]]);
    pgcb_describe_free(desc, cfg->nqueries);
    free(desc);
}

/* runner --resume JOURNAL, before anything is set up: read the journal and
 * check it against this runner and config (one line on stderr and -1 when
 * it cannot be resumed; a dropped last line is said and is no error). */
static int resume_read(const char *journal, const char *config_hash,
                       struct pgcb_journal_state *st)
{
    char err[1024], warn[512];
    if (pgcb_journal_read(journal, st, warn, sizeof warn, err, sizeof err) != 0 ||
        pgcb_journal_check(st, journal, run_version, config_hash, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        return -1;
    }
    if (warn[0])
        fprintf(stderr, "runner: %s\n", warn);
    return 0;
}

/* A new run is about to (re)create `journal`: refuse when an unfinished
 * run's journal is there (its groups would be lost), with one line. */
static int journal_in_the_way(const char *journal)
{
    if (access(journal, F_OK) != 0)
        return 0;
    struct pgcb_journal_state st;
    char err[1024], warn[512];
    int rc = pgcb_journal_read(journal, &st, warn, sizeof warn, err, sizeof err);
    int ended = rc == 0 && st.ended;
    pgcb_journal_state_free(&st);
    if (ended)
        return 0; /* a finished run's: its result is written, the journal may go */
    if (rc == 0)
        fprintf(stderr, "runner: %s: an interrupted run's journal is there: finish that run "
                        "with --resume %s, or remove the journal\n", journal, journal);
    else
        fprintf(stderr, "runner: %s (remove it, or write the result elsewhere with -o)\n", err);
    return 1;
}

/* Start the journal once measuring starts: a new one, or (resume) the one
 * resumed, cut to its valid lines. A new journal that cannot be written is
 * said and the run goes on without it; a resumed one that cannot be
 * reopened ends the run (-1): nothing is measured yet. */
static int journal_start(struct pgcb_journal *j, const char *path,
                         const struct pgcb_journal_state *resumed, const struct pgcb_result *r,
                         const char *config_hash, const char *output)
{
    char err[1024];
    if (resumed) {
        if (pgcb_journal_reopen(j, path, resumed->valid_len, err, sizeof err) == 0)
            return 0;
        fprintf(stderr, "runner: %s\n", err);
        return -1;
    }
    struct pgcb_journal_head h = {
        .runner_version = r->runner_version, .config_file = r->config_file,
        .config_sha256 = config_hash, .result = output, .started_at = r->started_at,
        .ngroups = r->ngroups, .norders = r->norders,
    };
    if (pgcb_journal_create(j, path, &h, err, sizeof err) != 0)
        fprintf(stderr, "runner: %s; the run goes on without a journal\n", err);
    return 0;
}

/* The config's hash for the journal: the file, the environment's overrides
 * and what the command line made of it. 0, or -1 said on stderr. */
static int journal_hash(const char *path, const struct pgcb_config *cfg, char out[65])
{
    char err[1024];
    char *digest = pgcb_config_cli_digest(cfg);
    int rc = pgcb_journal_config_hash_with(path, digest, out, err, sizeof err);
    free(digest);
    if (rc != 0)
        fprintf(stderr, "runner: %s\n", err);
    return rc;
}

/* Everything one run owns, freed by run_free whatever phase it reached. */
struct run {
    const struct pgcb_run_opts *o;
    int cfg_loaded;
    struct pgcb_config cfg;
    char config_hash[65];
    struct pgcb_journal_state resumed;
    struct pgcb_journal journal;
    struct pgcb_session s;
    int profiling;                  /* pgcb_profile_check's */
    char prof_why[700];
    struct pgcb_profile *prof;
    char runner_cpus[256];
    int away;                       /* pgcb_pin_away's */
    int need_server;
    struct pgcb_server_info si;
    struct pgcb_connplan plan;
    struct pgcb_wproxies net;       /* the wire proxies of rtt_ms groups (wproxy.h) */
    struct pgcb_idle_hold idle;     /* [bench] cpu_idle's request, held until run_free */
    struct pgcb_result r;
    size_t *query_of;
    char *output, *journal_path;
    char stamp[32];
};

/* The config, the journal's hash (and with --resume the journal read and
 * checked), the drivers, the profile's check: before anything is set up.
 * 0; 1 to exit with (said on stderr); -1 to exit 0 (--list-drivers). */
static int run_load(struct run *u)
{
    const struct pgcb_run_opts *o = u->o;
    char err[1024];
    if (pgcb_config_load_cli(o->config_path, o->cli, &u->cfg, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        return 1;
    }
    u->cfg_loaded = 1;
    if (journal_hash(o->config_path, &u->cfg, u->config_hash) != 0 ||
        (o->resume && resume_read(o->resume, u->config_hash, &u->resumed) != 0))
        return 1;
    if (pgcb_session_load(&u->s, &u->cfg, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        return 1;
    }
    if (o->list) {
        list_drivers(&u->s);
        return -1;
    }
    /* A client that cannot run here (its release did not install or
     * build): one line now; its cells fail with the reason, the others
     * are measured, and the exit status is 2. */
    for (size_t i = 0; i < u->s.ndrivers; i++)
        if (u->s.drivers[i].unavailable[0])
            fprintf(stderr, "runner: %s:%d: [driver.%s]: %s: its cells fail; the other drivers "
                    "are measured\n", u->cfg.file, u->s.drivers[i].cfg->line,
                    u->s.drivers[i].cfg->name, u->s.drivers[i].unavailable);
    /* A profiled run (profile.h): perf must record here, before anything is
     * measured; with profile = try the run goes on unprofiled. The bridge's
     * adapters (started by the hosts, later) learn it from PGCB_PROFILE
     * (docs/bridge-protocol.md). */
    u->profiling = pgcb_profile_check(&u->cfg, u->prof_why, sizeof u->prof_why);
    return u->profiling < 0 ? 1 : 0;
}

/* CPUs, the server, the COPY payloads, each group's connection string, the
 * hosts started. 0, or -1 (said on stderr). */
static int run_setup(struct run *u)
{
    struct pgcb_config *cfg = &u->cfg;
    char err[1024], cpu_err[256];
    if (pgcb_cpus_check(cfg->cpus, cfg->ncpus, cpu_err, sizeof cpu_err) != 0) {
        fprintf(stderr, "runner: %s: [bench] cpus: %s\n", cfg->file, cpu_err);
        return -1;
    }
    /* How idle CPUs wait (cpuidle.h): taken before any host or server
     * connection, held until the run ends; cpu_idle = poll without it stops
     * here. */
    if (pgcb_idle_hold(&u->idle, cfg->cpu_idle, PGCB_CPU_DMA_LATENCY, PGCB_CPUIDLE_SYSFS,
                       cpu_err, sizeof cpu_err) != 0) {
        fprintf(stderr, "runner: %s:%d: %s\n", cfg->file, cfg->cpu_idle_line, cpu_err);
        return -1;
    }
    /* The runner's own thread (and the hosts' main threads, forked from it)
     * away from the measuring CPUs when there is another (issue 14). */
    int others[PGCB_MAX_CPUS];
    size_t nothers = pgcb_cpus_other(cfg->cpus, cfg->ncpus, others, PGCB_MAX_CPUS);
    u->away = pgcb_pin_away(cfg->cpus, cfg->ncpus, u->runner_cpus, sizeof u->runner_cpus);
    /* Background loads without cpus = run there too, not on the measuring
     * CPUs (they used to share them, preempting the measured driver). */
    for (size_t i = 0; i < cfg->nbackgrounds && nothers > 0; i++)
        if (cfg->backgrounds[i].cpus_default) {
            memcpy(cfg->backgrounds[i].cpus, others, nothers * sizeof *others);
            cfg->backgrounds[i].ncpus = nothers;
        }
    for (size_t i = 0; i < cfg->nsuites; i++)
        if (cfg->suites[i].threads > cfg->ncpus)
            fprintf(stderr, "runner: note: [suite.%s] threads = %u on %zu CPU%s of [bench] "
                            "cpus: threads share CPUs\n", cfg->suites[i].name,
                    cfg->suites[i].threads, cfg->ncpus, cfg->ncpus == 1 ? "" : "s");

    /* The server: needed unless every driver does no I/O and there is no
     * setup script. */
    u->need_server = cfg->setup != NULL;
    for (size_t i = 0; i < u->s.ndrivers; i++)
        u->need_server |= !(u->s.drivers[i].caps & PGCB_CAP_NO_IO);
    if (u->need_server &&
        pgcb_server_prepare(cfg->conninfo, cfg->setup, &u->si, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        return -1;
    }
    /* The COPY payloads and params_from rows (bulk.h), before the hosts are
     * forked, outside any timing. */
    if (u->need_server && pgcb_bulk_fetch(cfg->conninfo, cfg, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        return -1;
    }
    /* Each group's connection string (a transport the server cannot offer
     * stops the run here, before anything is measured). */
    if (pgcb_connplan_build(&u->plan, cfg, u->need_server ? &u->si : NULL, err, sizeof err) !=
        0) {
        fprintf(stderr, "runner: %s\n", err);
        return -1;
    }
    /* The wire proxies of the rtt_ms groups, started and probed before any
     * host, on the CPUs away from the measuring ones (issue 41). */
    char proxy_exe[4096];
    if (pgcb_wproxy_exe(proxy_exe, sizeof proxy_exe, err, sizeof err) != 0 ||
        pgcb_wproxies_start(&u->net, cfg, &u->plan, proxy_exe, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        return -1;
    }
    if (u->away == 1)
        pgcb_wproxies_pin(&u->net, u->runner_cpus);
    pgcb_wproxies_probe(&u->net);
    u->s.net = &u->net;
    u->s.plan = &u->plan;
    u->s.quiet = u->o->quiet;
    u->s.postmaster_pid = u->si.postmaster_pid;
    if (pgcb_session_open(&u->s, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        return -1;
    }
    /* Queries the server refused: their groups fail for those drivers; the
     * others run. */
    for (size_t d = 0; d < u->s.ndrivers; d++)
        for (size_t q = 0; q < cfg->nqueries; q++)
            if (pgcb_session_query_error(&u->s, d, q))
                fprintf(stderr, "runner: %s\n", pgcb_session_query_error(&u->s, d, q));
    return 0;
}

/* The result's frame: where it goes (and its journal), the environment, the
 * groups, what a resumed journal kept; the header printed, the journal
 * started. 0, or -1 (said on stderr). */
static int run_describe(struct run *u)
{
    const struct pgcb_run_opts *o = u->o;
    struct pgcb_config *cfg = &u->cfg;
    struct pgcb_result *r = &u->r;
    char err[1024];
    if (o->resume && !o->output_arg)
        u->output = pgcb_xstrdup(u->resumed.result);
    else
        u->output = expand_output(o->output_arg ? o->output_arg
                                                : cfg->output ? cfg->output : DEFAULT_OUTPUT);
    u->journal_path = o->resume ? pgcb_xstrdup(o->resume)
                                : pgcb_xasprintf("%s" PGCB_JOURNAL_SUFFIX, u->output);
    if (!o->resume && journal_in_the_way(u->journal_path))
        return -1;
    iso_now(u->stamp, sizeof u->stamp);
    r->started_at = pgcb_xstrdup(u->stamp);
    fill_environment(r, cfg, &u->s, &u->si, u->need_server);
    if (u->profiling) {
        u->prof = pgcb_profile_new(u->output, u->s.ndrivers, err, sizeof err);
        if (!u->prof) {
            fprintf(stderr, "runner: %s\n", err);
            return -1;
        }
        pgcb_profile_record(u->prof, pgcb_profile_mode_name(cfg->profile), &r->profile);
        u->s.profile = u->prof;
    } else if (cfg->profile != PGCB_PROFILE_OFF) {
        r->profile.mode = pgcb_xstrdup(pgcb_profile_mode_name(cfg->profile));
        r->profile.why = pgcb_xstrdup(u->prof_why);
    }
    r->runner_cpus = pgcb_xasprintf("%s%s", u->runner_cpus,
                                    u->away == 1   ? ""
                                    : u->away == 0 ? " (no other CPU: it shares the measuring ones)"
                                                   : " (could not be moved)");
    fill_noise(r, cfg);
    fill_idle(r, cfg, &u->idle);
    pgcb_session_describe(&u->s, r);
    u->query_of = build_groups(r, cfg, &u->s, &u->plan, &u->net);
    if (u->need_server)
        describe_groups(r, cfg, u->query_of);
    if (o->resume) {
        if (pgcb_journal_restore(&u->resumed, o->resume, r, err, sizeof err) != 0) {
            fprintf(stderr, "runner: %s\n", err);
            return -1;
        }
        r->resumed_from = pgcb_xstrdup(o->resume);
        r->resumed_groups_kept = u->resumed.nkept;
        r->resumed_at = pgcb_xstrdup(u->stamp);
    }
    if (!o->quiet)
        pgcb_report_header(stdout, r, u->si.where);
    if (o->resume)
        fprintf(o->quiet ? stderr : stdout, "Resumed from %s: %zu of %zu groups kept\n",
                o->resume, u->resumed.nkept, r->ngroups);
    fflush(stdout);
    return journal_start(&u->journal, u->journal_path, o->resume ? &u->resumed : NULL, r,
                         u->config_hash, u->output);
}

/* The progress line (progress.h): none with -q; the groups kept from a
 * journal are done already. */
static void run_progress(struct run *u)
{
    struct pgcb_session *s = &u->s;
    const size_t ngroups = u->r.ngroups;
    const char **names = pgcb_xcalloc(s->ndrivers ? s->ndrivers : 1, sizeof *names);
    struct pgcb_eta_group *budgets = pgcb_xcalloc(ngroups ? ngroups : 1, sizeof *budgets);
    for (size_t d = 0; d < s->ndrivers; d++)
        names[d] = s->drivers[d].cfg->name;
    for (size_t g = 0; g < ngroups; g++)
        pgcb_group_budget(s, &u->r.groups[g], &budgets[g]);
    s->progress = pgcb_progress_new(names, s->ndrivers, budgets, ngroups, u->o->quiet,
                                    u->o->progress_s, u->o->t0_ns);
    free(names);
    free(budgets);
    for (size_t g = 0; g < ngroups && u->o->resume; g++)
        if (u->resumed.groups[g])
            pgcb_progress_group_end(s->progress, g);
}

/* Every group measured (or kept from the journal) and reported as it
 * ends, until a signal; then the run's closing tables. Returns the groups
 * done. */
static size_t run_measure(struct run *u)
{
    const struct pgcb_run_opts *o = u->o;
    struct pgcb_result *r = &u->r;
    /* From here on, a signal stops the run between blocks and what was
     * measured is written. */
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sa.sa_flags = (int)SA_RESETHAND; /* a second signal kills at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    u->s.stop = &stop_requested;
    run_progress(u);

    struct pgcb_idle_entries idle0, idle1;
    idle_entries(r, &idle0);
    struct pgcb_steal steal0;
    int steal_ok = pgcb_steal_read(NULL, 0, &steal0) == 0;
    uint64_t steal_t0 = pgcb_now_ns();
    size_t done = 0;
    for (size_t g = 0; g < r->ngroups; g++) {
        int kept = o->resume && u->resumed.groups[g]; /* measured before the interruption */
        int stopped = kept ? 0 : pgcb_group_run(&u->s, r, g, u->query_of[g]);
        if (!stopped && !kept)
            pgcb_journal_group(&u->journal, r, g);
        pgcb_result_wire_expect(r); /* this group's expectation, from its rtt-0 sibling */
        if (!o->quiet) {
            pgcb_report_group_ex(stdout, r, g, PGCB_TABLE_BOX,
                                 o->detail ? PGCB_REPORT_DETAIL : 0);
            pgcb_report_profile(stdout, r, g);
            fflush(stdout);
        }
        if (stopped)
            break;
        done++;
    }
    pgcb_progress_finish(u->s.progress, done == r->ngroups);
    pgcb_profile_finish(u->prof, r, o->quiet ? NULL : stdout);
    fill_run_steal(r, &steal0, steal_ok, steal_t0);
    idle_entries(r, &idle1);
    if (idle0.poll != UINT64_MAX && idle1.poll != UINT64_MAX && idle1.poll >= idle0.poll &&
        idle1.other >= idle0.other) {
        r->idle.entries_poll = (double)(idle1.poll - idle0.poll);
        r->idle.entries_other = (double)(idle1.other - idle0.other);
    }
    pgcb_result_stream_verdicts(r);
    pgcb_result_wire_expect(r);
    if (!o->quiet && done > 0) {
        pgcb_report_stream_summary(stdout, r, PGCB_TABLE_BOX);
        pgcb_report_transport_summary(stdout, r, PGCB_TABLE_BOX);
        pgcb_report_distance_summary(stdout, r, PGCB_TABLE_BOX);
        pgcb_report_conversion_cost(stdout, r, PGCB_TABLE_BOX);
        pgcb_report_rankings(stdout, r);
    }
    if (!o->quiet)
        pgcb_report_run_noise(stdout, r);
    return done;
}

/* The result written (and the page after it, so that a page that cannot be
 * written loses nothing measured). Returns the exit status. */
static int run_write(struct run *u, size_t done)
{
    const struct pgcb_run_opts *o = u->o;
    struct pgcb_result *r = &u->r;
    char err[1024];
    iso_now(u->stamp, sizeof u->stamp);
    r->finished_at = pgcb_xstrdup(u->stamp);
    r->complete = done == r->ngroups;
    if (!r->complete)
        r->stop_reason = pgcb_xasprintf("interrupted by signal %d after %zu of %zu groups",
                                        (int)stop_requested, done, r->ngroups);
    int rc = r->complete ? 0 : 2;
    for (size_t g = 0; g < r->ngroups; g++)
        for (size_t d = 0; d < r->ndrivers; d++)
            if (r->groups[g].cells[d].status != PGCB_CELL_OK &&
                r->groups[g].cells[d].status != PGCB_CELL_SKIPPED)
                rc = 2;
    if (pgcb_result_write(r, u->output, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        rc = 3;
    } else {
        pgcb_journal_end(&u->journal, r->complete);
        char *shown = shown_path(u->output);
        fprintf(o->quiet ? stderr : stdout, "Result: %s%s\n", shown,
                r->complete ? "" : " (partial: the run was interrupted)");
        free(shown);
        if (rc == 2)
            fprintf(stderr, "runner: some results failed or are invalid: see the notes under "
                            "the tables and the 'status' fields in %s\n", u->output);
    }
    /* The page, from the result as written (html.h). */
    struct pgcb_html_run page = {r, NULL, u->output};
    char *html_path = o->html && strcmp(o->html, "auto") == 0 ? html_beside(u->output)
                      : o->html                               ? pgcb_xstrdup(o->html)
                                                              : NULL;
    if (html_path &&
        pgcb_html_write(html_path, "runner", &page, 1, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        rc = 3;
    } else if (html_path) {
        char *shown = shown_path(html_path);
        fprintf(o->quiet ? stderr : stdout, "Report: %s\n", shown);
        free(shown);
    }
    free(html_path);
    return rc;
}

static void run_free(struct run *u)
{
    pgcb_profile_free(u->prof);
    pgcb_progress_free(u->s.progress);
    u->s.progress = NULL;
    pgcb_journal_close(&u->journal);
    pgcb_journal_state_free(&u->resumed);
    free(u->journal_path);
    free(u->output);
    free(u->query_of);
    pgcb_result_free(&u->r);
    pgcb_session_free(&u->s);
    pgcb_wproxies_stop(&u->net);
    pgcb_idle_release(&u->idle);
    pgcb_connplan_free(&u->plan);
    if (u->cfg_loaded)
        pgcb_config_free(&u->cfg);
}

int pgcb_run(const struct pgcb_run_opts *o)
{
    struct run u = {.o = o, .journal = {.fd = -1}, .idle = {.fd = -1}};
    run_version = o->version ? o->version : "unknown";
    int rc = run_load(&u);
    if (rc == 0)
        rc = run_setup(&u) != 0 || run_describe(&u) != 0 ? 1 : run_write(&u, run_measure(&u));
    else if (rc < 0)
        rc = 0; /* --list-drivers */
    run_free(&u);
    return rc;
}
