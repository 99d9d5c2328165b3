/*
 * main.c -- the runner's command line: the flags parsed, then either
 * --check-driver (check/check.h) or one run (run.h): load the config and
 * the drivers, prepare the server, measure every group, print tables,
 * write the JSON.
 *
 * Exit status: 0 every driver measured and valid in every group; 1 an error
 * before anything was measured (no result file is written); 2 the result
 * was written but a driver failed or was invalid somewhere, or the run was
 * interrupted (the file says which); 3 measured, but the result (or its
 * --html page) could not be written.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "config/config.h"
#include "out/progress.h"
#include "run.h"
#include "util.h"

#ifndef PGCB_VERSION
#define PGCB_VERSION "unknown"
#endif

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

    const struct pgcb_run_opts run = {
        .version = PGCB_VERSION, .config_path = config_path, .cli = &cli,
        .output_arg = output_arg, .resume = resume, .html = html, .list = list,
        .quiet = quiet, .detail = detail, .progress_s = progress_s, .t0_ns = t0_ns};
    return pgcb_run(&run);
}
