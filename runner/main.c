/*
 * main.c -- the runner's command line: load the config and the drivers,
 * prepare the server, measure every group, print tables, write the JSON.
 *
 * Exit status: 0 every driver measured and valid in every group; 1 an error
 * before anything was measured (no result file is written); 2 the result
 * was written but a driver failed or was invalid somewhere, or the run was
 * interrupted (the file says which); 3 measured, but the result (or its
 * --html page) could not be written.
 */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check/check.h"
#include "server/bulk.h"
#include "config/config.h"
#include "server/connplan.h"
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
#include "sched/session.h"
#include "sys/steal.h"
#include "sys/sysinfo.h"
#include "util.h"

#ifndef PGCB_VERSION
#define PGCB_VERSION "unknown"
#endif

#define DEFAULT_OUTPUT "results/pgcb-%Y%m%dT%H%M%SZ.json"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    stop_requested = sig;
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: runner -c FILE [-o RESULT.json] [SELECTION] [--detail] [-P SEC] [--list-drivers]\n"
            "              [-q]\n"
            "       runner -c FILE --resume RESULT.json.journal [-o RESULT.json] [SELECTION]\n"
            "       runner --check-driver FILE.so [-O KEY=VALUE ...] [-c FILE]\n"
            "       runner -h | -V\n"
            "\n"
            "Measure the client-side cost of talking to PostgreSQL for every driver in the\n"
            "INI file, over every execution order, and write a JSON result.\n"
            "\n"
            "  -c, --config FILE    the run's INI file (required; docs/configuration.md)\n"
            "  -o, --output FILE    where to write the JSON result (default: [bench] output,\n"
            "                       else results/pgcb-%%Y%%m%%dT%%H%%M%%SZ.json;\n"
            "                       strftime %%-sequences are expanded, UTC)\n"
            "      --resume JOURNAL finish the interrupted run whose journal this is (every\n"
            "                       run appends each finished group to RESULT.journal): keep\n"
            "                       its groups, run the others, write the result to the\n"
            "                       journal's result path (or -o). -c must name the same\n"
            "                       config, with the same BENCH_*/PGCB_CONNINFO overrides\n"
            "                       and SELECTION\n"
            "      --list-drivers   load every driver the run would measure (the config's,\n"
            "                       driver_dir's, --driver's, after --only), print what each\n"
            "                       is and accepts, and exit\n"
            "      --detail         after each group's table, a second one: each driver's\n"
            "                       latency percentiles (min, p50, p90, p99, p99.9, max)\n"
            "  -P, --progress SEC   a plain progress line on stderr every SEC seconds (1 to\n"
            "                       86400), also when it is not a terminal (CI logs): time\n"
            "                       elapsed, steps done of all, group, driver, estimated\n"
            "                       time left (eta). Without -P a terminal gets one line\n"
            "                       redrawn in place; -q shows neither\n"
            "      --html FILE      also write the result as one self-contained HTML page\n"
            "                       (the page aggregate --html writes; docs/report.md);\n"
            "                       --html auto: beside the result, its name ending .html\n"
            "  -q, --quiet          no progress and no tables: only errors and the result path\n"
            "      --check-driver SO  run the driver conformance suite on SO and exit: one\n"
            "                       PASS/FAIL line per check, then \"N passed, N failed\";\n"
            "                       with -c, the config's queries, conninfo and setup, else\n"
            "                       the built-in queries on the PG* server\n"
            "                       (docs/checking-a-driver.md)\n"
            "  -O, --driver-option KEY=VALUE  with --check-driver: open the driver with this\n"
            "                       option (repeatable), e.g. -O adapter=node -O client=pg\n"
            "\n"
            "SELECTION (docs/cli.md; each flag repeatable, NAME lists comma-separated):\n"
            "      --driver NAME=PATH  add the driver PATH (a .so, relative to here) as NAME,\n"
            "                       with default options; NAME must be new to the config\n"
            "      --only NAME,...  measure only these drivers (the config's, driver_dir's\n"
            "                       or --driver's); the others are left out\n"
            "      --suite NAME,... run only these suites\n"
            "      --query NAME,... run only these queries (in the suites that have them)\n"
            "  -T SEC               time budget per group and driver, in seconds (e.g. 10 or\n"
            "                       0.5), over BENCH_TIME_MS and [bench] time_ms\n"
            "      --time-ms MS     the same in milliseconds (one of -T and --time-ms)\n"
            "      --queries N      queries per execution order, at least, over\n"
            "                       BENCH_QUERIES and [bench] queries\n"
            "  What is left out is recorded in the result's \"selection\"; a --resume must\n"
            "  be given the same SELECTION.\n"
            "\n"
            "      --profile[=MODE] sample each driver's measured orders with perf (client\n"
            "                       processes and its own backends), over [bench] profile:\n"
            "                       on (alone: --profile; stops before measuring if perf\n"
            "                       cannot record), try (unprofiled then), off. Folded stacks,\n"
            "                       top tables and flame graphs in RESULT.profiles/; the\n"
            "                       figures are marked profiled (docs/profiling.md)\n"
            "\n"
            "  -V, --version        print the runner's version and exit\n"
            "  -h, --help           this help\n"
            "\n"
            "Environment: BENCH_TIME_MS and BENCH_QUERIES override [bench] time_ms and\n"
            "queries, and -T/--time-ms and --queries override them; PGCB_CONNINFO\n"
            "overrides [server] conninfo; an empty conninfo means the PG* variables\n"
            "(PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD ...), as libpq.\n"
            "--check-driver: PGCB_CHECK_TIMEOUT (seconds per driver call, default 10),\n"
            "PGCB_CHECK_REFERENCE (the libpq_sync.so whose checksums are the reference).\n"
            "\n"
            "Exit status: 0 all measured and valid; 1 error before measuring (no result);\n"
            "2 result written, but some driver failed, was invalid, or the run was\n"
            "interrupted; 3 the result (or the --html page) could not be written.\n"
            "--check-driver: 0 every check passed; 1 a check failed; 2 nothing could be\n"
            "checked.\n");
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
    r->runner_version = pgcb_xstrdup(PGCB_VERSION);
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

/* One group per (suite, query, depth, transport), in file order, the
 * transports of one depth one after another. */
static size_t *build_groups(struct pgcb_result *r, const struct pgcb_config *cfg,
                            const struct pgcb_session *sess, const struct pgcb_connplan *plan)
{
    size_t n = 0;
    for (size_t s = 0; s < cfg->nsuites; s++)
        n += cfg->suites[s].nqueries * cfg->suites[s].ndepths *
             (cfg->suites[s].ntransports ? cfg->suites[s].ntransports : 1);
    r->groups = pgcb_xcalloc(n, sizeof *r->groups);
    size_t *query_of = pgcb_xcalloc(n, sizeof *query_of);
    for (size_t s = 0; s < cfg->nsuites; s++) {
        const struct pgcb_cfg_suite *su = &cfg->suites[s];
        size_t nt = su->ntransports ? su->ntransports : 1;
        for (size_t k = 0; k < su->nqueries; k++)
            for (size_t d = 0; d < su->ndepths * nt; d++) {
                const struct pgcb_cfg_query *q = &cfg->queries[su->queries[k]];
                struct pgcb_res_group *g = &r->groups[r->ngroups];
                int tr = su->ntransports ? (int)su->transports[d % nt] : -1;
                g->suite = pgcb_xstrdup(su->name);
                if (tr >= 0)
                    g->transport = pgcb_xstrdup(pgcb_transport_name((enum pgcb_transport)tr));
                if (tr >= 0 || su->conninfo)
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
        pgcb_journal_check(st, journal, PGCB_VERSION, config_hash, err, sizeof err) != 0) {
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

/* getopt codes of the selection flags without a short form: OPT_CLI + the
 * flag (config.h). */
#define OPT_CLI 0x100

/* A selection flag (config.h's pgcb_config_cli): 1 recorded, 0 not one,
 * -1 bad value (said on stderr). */
static int cli_option(struct pgcb_config_cli *cli, int opt, const char *arg)
{
    if (opt == 'T')
        opt = OPT_CLI + PGCB_CLI_TIME_S;
    if (opt < OPT_CLI || opt >= OPT_CLI + PGCB_CLI_NFLAGS)
        return 0;
    char err[512];
    if (pgcb_config_cli_arg(cli, (enum pgcb_cli_flag)(opt - OPT_CLI), arg, err, sizeof err)) {
        fprintf(stderr, "runner: %s\n", err);
        return -1;
    }
    return 1;
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

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"config", required_argument, NULL, 'c'}, {"output", required_argument, NULL, 'o'},
        {"list-drivers", no_argument, NULL, 'L'}, {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},         {"version", no_argument, NULL, 'V'},
        {"check-driver", required_argument, NULL, 'K'},
        {"driver-option", required_argument, NULL, 'O'},
        {"detail", no_argument, NULL, 'D'},
        {"resume", required_argument, NULL, 'R'},
        {"html", required_argument, NULL, 'H'},
        {"progress", required_argument, NULL, 'P'},
        {"driver", required_argument, NULL, OPT_CLI + PGCB_CLI_DRIVER},
        {"only", required_argument, NULL, OPT_CLI + PGCB_CLI_ONLY},
        {"suite", required_argument, NULL, OPT_CLI + PGCB_CLI_SUITE},
        {"query", required_argument, NULL, OPT_CLI + PGCB_CLI_QUERY},
        {"time-ms", required_argument, NULL, OPT_CLI + PGCB_CLI_TIME_MS},
        {"queries", required_argument, NULL, OPT_CLI + PGCB_CLI_QUERIES},
        {"profile", optional_argument, NULL, OPT_CLI + PGCB_CLI_PROFILE},
        {NULL, 0, NULL, 0}};
    struct pgcb_config_cli cli = {0}; /* points into argv */
    struct pgcb_option dopts[64];
    size_t ndopts = 0;
    const char *config_path = NULL, *output_arg = NULL, *check_so = NULL, *resume = NULL;
    const char *html = NULL;
    /* A write to a host that died while idle (kill -9, the OOM killer) is
     * EPIPE, handled as that host's death (host.c), never the end of the
     * run. */
    signal(SIGPIPE, SIG_IGN);
    const uint64_t t0_ns = pgcb_now_ns(); /* the run's start, for its elapsed time */
    unsigned progress_s = 0;
    int list = 0, quiet = 0, detail = 0, opt;
    while ((opt = getopt_long(argc, argv, "c:o:O:P:T:qhV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c': config_path = optarg; break;
        case 'o': output_arg = optarg; break;
        case 'L': list = 1; break;
        case 'R': resume = optarg; break;
        case 'H': html = optarg; break;
        case 'K': check_so = optarg; break;
        case 'O': {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || ndopts == sizeof dopts / sizeof dopts[0]) {
                fprintf(stderr, "runner: -O %s: expected KEY=VALUE (at most 64 of them)\n",
                        optarg);
                return 1;
            }
            *eq = '\0';
            dopts[ndopts++] = (struct pgcb_option){optarg, eq + 1};
            break;
        }
        case 'q': quiet = 1; break;
        case 'P':
            if (pgcb_progress_parse_interval(optarg, &progress_s) != 0) {
                fprintf(stderr, "runner: -P %s: expected a whole number of seconds from 1 to "
                                "86400\n", optarg);
                return 1;
            }
            break;
        case 'D': detail = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pgclientbench runner %s (driver ABI %d.%d)\n", PGCB_VERSION,
                         PGCB_ABI_MAJOR, PGCB_ABI_MINOR);
                  return 0;
        default: {
            int known = cli_option(&cli, opt, optarg);
            if (known > 0)
                break;
            if (known == 0)
                fprintf(stderr, "runner: bad usage; see 'runner -h'\n");
            return 1;
        }
        }
    }
    if (optind < argc) {
        fprintf(stderr, "runner: unexpected argument '%s'; see 'runner -h'\n", argv[optind]);
        return 1;
    }
    char err[1024];
    if (ndopts && !check_so) {
        fprintf(stderr, "runner: -O is for --check-driver (a run takes a driver's options from "
                        "its [driver.NAME] section)\n");
        return 1;
    }
    if (check_so && pgcb_config_cli_given(&cli)) {
        fprintf(stderr, "runner: --driver, --only, --suite, --query, -T, --time-ms, "
                        "--queries and --profile are for a run, not --check-driver\n");
        return 1;
    }
    if (check_so) {
        struct pgcb_config ccfg;
        if (config_path && pgcb_config_load(config_path, &ccfg, err, sizeof err) != 0) {
            fprintf(stderr, "runner: %s\n", err);
            return 2;
        }
        int crc = pgcb_check_driver(check_so, dopts, ndopts, config_path ? &ccfg : NULL, stdout);
        if (config_path)
            pgcb_config_free(&ccfg);
        return crc;
    }
    if (!config_path) {
        fprintf(stderr, resume ? "runner: --resume needs the run's config: -c FILE\n"
                               : "runner: no config file: use -c FILE (e.g. -c conf/bench.ini)\n");
        return 1;
    }
    if (resume && list) {
        fprintf(stderr, "runner: --resume and --list-drivers do not go together\n");
        return 1;
    }

    struct pgcb_config cfg;
    if (pgcb_config_load_cli(config_path, &cli, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        return 1;
    }
    /* The journal (journal.h): its config hash, and with --resume the
     * journal read and checked before anything is set up. */
    char config_hash[65];
    struct pgcb_journal_state resumed = {0};
    struct pgcb_journal journal = {.fd = -1};
    if (journal_hash(config_path, &cfg, config_hash) != 0 ||
        (resume && resume_read(resume, config_hash, &resumed) != 0)) {
        pgcb_journal_state_free(&resumed);
        pgcb_config_free(&cfg);
        return 1;
    }
    struct pgcb_session s;
    if (pgcb_session_load(&s, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        pgcb_session_free(&s);
        pgcb_journal_state_free(&resumed);
        pgcb_config_free(&cfg);
        return 1;
    }
    if (list) {
        list_drivers(&s);
        pgcb_session_free(&s);
        pgcb_config_free(&cfg);
        return 0;
    }
    /* A client that cannot run here (its release did not install or
     * build): one line now; its cells fail with the reason, the others
     * are measured, and the exit status is 2. */
    for (size_t i = 0; i < s.ndrivers; i++)
        if (s.drivers[i].unavailable[0])
            fprintf(stderr, "runner: %s:%d: [driver.%s]: %s: its cells fail; the other drivers "
                    "are measured\n", cfg.file, s.drivers[i].cfg->line, s.drivers[i].cfg->name,
                    s.drivers[i].unavailable);

    /* A profiled run (profile.h): perf must record here, before anything is
     * measured; with profile = try the run goes on unprofiled. The bridge's
     * adapters (started by the hosts, below) learn it from PGCB_PROFILE
     * (docs/bridge-protocol.md). */
    char prof_why[700] = "";
    int profiling = pgcb_profile_check(&cfg, prof_why, sizeof prof_why);
    if (profiling < 0) {
        pgcb_session_free(&s);
        pgcb_journal_state_free(&resumed);
        pgcb_config_free(&cfg);
        return 1;
    }
    struct pgcb_profile *prof = NULL;

    int rc = 1;
    struct pgcb_result r = {0};
    struct pgcb_connplan plan = {0};
    size_t *query_of = NULL;
    char *output = NULL, *journal_path = NULL;
    char cpu_err[256];
    if (pgcb_cpus_check(cfg.cpus, cfg.ncpus, cpu_err, sizeof cpu_err) != 0) {
        fprintf(stderr, "runner: %s: [bench] cpus: %s\n", cfg.file, cpu_err);
        goto out;
    }
    /* The runner's own thread (and the hosts' main threads, forked from it)
     * away from the measuring CPUs when there is another (issue 14). */
    char runner_cpus[256];
    int others[PGCB_MAX_CPUS];
    size_t nothers = pgcb_cpus_other(cfg.cpus, cfg.ncpus, others, PGCB_MAX_CPUS);
    int away = pgcb_pin_away(cfg.cpus, cfg.ncpus, runner_cpus, sizeof runner_cpus);
    /* Background loads without cpus = run there too, not on the measuring
     * CPUs (they used to share them, preempting the measured driver). */
    for (size_t i = 0; i < cfg.nbackgrounds && nothers > 0; i++)
        if (cfg.backgrounds[i].cpus_default) {
            memcpy(cfg.backgrounds[i].cpus, others, nothers * sizeof *others);
            cfg.backgrounds[i].ncpus = nothers;
        }
    for (size_t i = 0; i < cfg.nsuites; i++)
        if (cfg.suites[i].threads > cfg.ncpus)
            fprintf(stderr, "runner: note: [suite.%s] threads = %u on %zu CPU%s of [bench] "
                            "cpus: threads share CPUs\n", cfg.suites[i].name,
                    cfg.suites[i].threads, cfg.ncpus, cfg.ncpus == 1 ? "" : "s");

    /* The server: needed unless every driver does no I/O and there is no
     * setup script. */
    int need_server = cfg.setup != NULL;
    for (size_t i = 0; i < s.ndrivers; i++)
        need_server |= !(s.drivers[i].caps & PGCB_CAP_NO_IO);
    struct pgcb_server_info si = {0};
    if (need_server && pgcb_server_prepare(cfg.conninfo, cfg.setup, &si, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        goto out;
    }
    /* The COPY payloads and params_from rows (bulk.h), before the hosts are
     * forked, outside any timing. */
    if (need_server && pgcb_bulk_fetch(cfg.conninfo, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        goto out;
    }
    /* Each group's connection string (a transport the server cannot offer
     * stops the run here, before anything is measured). */
    if (pgcb_connplan_build(&plan, &cfg, need_server ? &si : NULL, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        goto out;
    }
    s.plan = &plan;
    s.quiet = quiet;
    s.postmaster_pid = si.postmaster_pid;
    if (pgcb_session_open(&s, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        goto out;
    }
    /* Queries the server refused: their groups fail for those drivers; the
     * others run. */
    for (size_t d = 0; d < s.ndrivers; d++)
        for (size_t q = 0; q < cfg.nqueries; q++)
            if (pgcb_session_query_error(&s, d, q))
                fprintf(stderr, "runner: %s\n", pgcb_session_query_error(&s, d, q));

    if (resume && !output_arg)
        output = pgcb_xstrdup(resumed.result);
    else
        output = expand_output(output_arg ? output_arg
                                          : cfg.output ? cfg.output : DEFAULT_OUTPUT);
    journal_path = resume ? pgcb_xstrdup(resume) : pgcb_xasprintf("%s" PGCB_JOURNAL_SUFFIX,
                                                                   output);
    if (!resume && journal_in_the_way(journal_path))
        goto out;
    char stamp[32];
    iso_now(stamp, sizeof stamp);
    r.started_at = pgcb_xstrdup(stamp);
    fill_environment(&r, &cfg, &s, &si, need_server);
    if (profiling) {
        prof = pgcb_profile_new(output, s.ndrivers, err, sizeof err);
        if (!prof) {
            fprintf(stderr, "runner: %s\n", err);
            goto out;
        }
        pgcb_profile_record(prof, pgcb_profile_mode_name(cfg.profile), &r.profile);
        s.profile = prof;
    } else if (cfg.profile != PGCB_PROFILE_OFF) {
        r.profile.mode = pgcb_xstrdup(pgcb_profile_mode_name(cfg.profile));
        r.profile.why = pgcb_xstrdup(prof_why);
    }
    r.runner_cpus = pgcb_xasprintf("%s%s", runner_cpus,
                                   away == 1   ? ""
                                   : away == 0 ? " (no other CPU: it shares the measuring ones)"
                                               : " (could not be moved)");
    fill_noise(&r, &cfg);
    pgcb_session_describe(&s, &r);
    query_of = build_groups(&r, &cfg, &s, &plan);
    if (need_server)
        describe_groups(&r, &cfg, query_of);
    if (resume) {
        if (pgcb_journal_restore(&resumed, resume, &r, err, sizeof err) != 0) {
            fprintf(stderr, "runner: %s\n", err);
            goto out;
        }
        r.resumed_from = pgcb_xstrdup(resume);
        r.resumed_groups_kept = resumed.nkept;
        r.resumed_at = pgcb_xstrdup(stamp);
    }
    if (!quiet)
        pgcb_report_header(stdout, &r, si.where);
    if (resume)
        fprintf(quiet ? stderr : stdout, "Resumed from %s: %zu of %zu groups kept\n", resume,
                resumed.nkept, r.ngroups);
    fflush(stdout);
    if (journal_start(&journal, journal_path, resume ? &resumed : NULL, &r, config_hash,
                      output) != 0)
        goto out;

    /* From here on, a signal stops the run between blocks and what was
     * measured is written. */
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sa.sa_flags = (int)SA_RESETHAND; /* a second signal kills at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    s.stop = &stop_requested;

    /* Progress (progress.h): none with -q; the groups kept from a journal
     * are done already. */
    {
        const char **names = pgcb_xcalloc(s.ndrivers ? s.ndrivers : 1, sizeof *names);
        struct pgcb_eta_group *budgets = pgcb_xcalloc(r.ngroups ? r.ngroups : 1,
                                                      sizeof *budgets);
        for (size_t d = 0; d < s.ndrivers; d++)
            names[d] = s.drivers[d].cfg->name;
        for (size_t g = 0; g < r.ngroups; g++)
            pgcb_session_budget(&s, &r.groups[g], &budgets[g]);
        s.progress = pgcb_progress_new(names, s.ndrivers, budgets, r.ngroups, quiet, progress_s,
                                       t0_ns);
        free(names);
        free(budgets);
    }
    for (size_t g = 0; g < r.ngroups && resume; g++)
        if (resumed.groups[g])
            pgcb_progress_group_end(s.progress, g);

    struct pgcb_steal steal0;
    int steal_ok = pgcb_steal_read(NULL, 0, &steal0) == 0;
    uint64_t steal_t0 = pgcb_now_ns();
    size_t done = 0;
    for (size_t g = 0; g < r.ngroups; g++) {
        int kept = resume && resumed.groups[g]; /* measured before the interruption */
        int stopped = kept ? 0 : pgcb_session_run_group(&s, &r, g, query_of[g]);
        if (!stopped && !kept)
            pgcb_journal_group(&journal, &r, g);
        if (!quiet) {
            pgcb_report_group_ex(stdout, &r, g, PGCB_TABLE_BOX,
                                 detail ? PGCB_REPORT_DETAIL : 0);
            pgcb_report_profile(stdout, &r, g);
            fflush(stdout);
        }
        if (stopped)
            break;
        done++;
    }
    pgcb_progress_finish(s.progress, done == r.ngroups);
    pgcb_profile_finish(prof, &r, quiet ? NULL : stdout);
    fill_run_steal(&r, &steal0, steal_ok, steal_t0);
    if (!quiet && done > 0)
        pgcb_report_transport_summary(stdout, &r, PGCB_TABLE_BOX);
    if (!quiet && done > 0)
        pgcb_report_conversion_cost(stdout, &r, PGCB_TABLE_BOX);
    if (!quiet && done > 0)
        pgcb_report_rankings(stdout, &r);
    if (!quiet)
        pgcb_report_run_noise(stdout, &r);
    iso_now(stamp, sizeof stamp);
    r.finished_at = pgcb_xstrdup(stamp);
    r.complete = done == r.ngroups;
    if (!r.complete)
        r.stop_reason = pgcb_xasprintf("interrupted by signal %d after %zu of %zu groups",
                                       (int)stop_requested, done, r.ngroups);

    rc = r.complete ? 0 : 2;
    for (size_t g = 0; g < r.ngroups; g++)
        for (size_t d = 0; d < r.ndrivers; d++)
            if (r.groups[g].cells[d].status != PGCB_CELL_OK &&
                r.groups[g].cells[d].status != PGCB_CELL_SKIPPED)
                rc = 2;
    if (pgcb_result_write(&r, output, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        rc = 3;
    } else {
        pgcb_journal_end(&journal, r.complete);
        char *shown = shown_path(output);
        fprintf(quiet ? stderr : stdout, "Result: %s%s\n", shown,
                r.complete ? "" : " (partial: the run was interrupted)");
        free(shown);
        if (rc == 2)
            fprintf(stderr, "runner: some results failed or are invalid: see the notes under "
                            "the tables and the 'status' fields in %s\n", output);
    }
    /* The page, from the result as written (html.h): after it, so a page
     * that cannot be written loses nothing measured. */
    struct pgcb_html_run page = {&r, NULL, output};
    char *html_path = html && strcmp(html, "auto") == 0 ? html_beside(output)
                      : html                            ? pgcb_xstrdup(html)
                                                        : NULL;
    if (html_path && pgcb_html_write(html_path, "runner", &page, 1, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        rc = 3;
    } else if (html_path) {
        char *shown = shown_path(html_path);
        fprintf(quiet ? stderr : stdout, "Report: %s\n", shown);
        free(shown);
    }
    free(html_path);

out:
    pgcb_profile_free(prof);
    pgcb_progress_free(s.progress);
    s.progress = NULL;
    pgcb_journal_close(&journal);
    pgcb_journal_state_free(&resumed);
    free(journal_path);
    free(output);
    free(query_of);
    pgcb_result_free(&r);
    pgcb_session_free(&s);
    pgcb_connplan_free(&plan);
    pgcb_config_free(&cfg);
    return rc;
}
