/*
 * config_cli.c -- what the runner's command line adds to the config:
 * --driver NAME=PATH (a driver with default options; a NAME the config
 * already has is an error: --driver adds, it never replaces), the budget
 * flags -T SEC, --time-ms MS and --queries N (over the environment and the
 * file), the first checks of every flag's value, and the digest of it all
 * for the journal. The selection flags are applied by config_select.c.
 * See config.h (the API) and config_int.h.
 */
#include "config_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

#define MAX_TIME_MS 86400000ull /* as [bench] time_ms and BENCH_TIME_MS */

static const char *const flag_names[PGCB_CLI_NFLAGS] = {
    [PGCB_CLI_DRIVER] = "--driver", [PGCB_CLI_ONLY] = "--only",
    [PGCB_CLI_SUITE] = "--suite",   [PGCB_CLI_QUERY] = "--query",
    [PGCB_CLI_TIME_S] = "-T",       [PGCB_CLI_TIME_MS] = "--time-ms",
    [PGCB_CLI_QUERIES] = "--queries", [PGCB_CLI_PROFILE] = "--profile",
};

const char *pgcb_config_cli_flag_name(enum pgcb_cli_flag f)
{
    return f < PGCB_CLI_NFLAGS ? flag_names[f] : "?";
}

/* Append arg to list (at most PGCB_CLI_MAX). 0, or -1 with the error. */
static int push(const char **list, size_t *n, const char *flag, const char *arg, char *err,
                size_t errlen)
{
    if (*n == PGCB_CLI_MAX) {
        snprintf(err, errlen, "%s: given more than %d times", flag, PGCB_CLI_MAX);
        return -1;
    }
    list[(*n)++] = arg;
    return 0;
}

/* A comma list: no empty name ("a,,b", "", "a,"). */
static int check_list(const char *flag, const char *arg, char *err, size_t errlen)
{
    for (const char *p = arg;; p++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0) {
            snprintf(err, errlen, "%s '%s': an empty name (give NAME or NAME,NAME,...)", flag,
                     arg);
            return -1;
        }
        if (!end)
            return 0;
        p = end;
    }
}

/* -T SEC: seconds above 0, fractions to the millisecond (1.5 is 1500 ms). */
static int parse_seconds(const char *arg, uint64_t *ms)
{
    char *end;
    errno = 0;
    double s = strtod(arg, &end);
    if (end == arg || *end || errno || !isfinite(s) || !(s > 0) ||
        s * 1000 > (double)MAX_TIME_MS)
        return -1;
    double r = round(s * 1000);
    if (r < 1)
        return -1;
    *ms = (uint64_t)r;
    return 0;
}

int pgcb_config_cli_arg(struct pgcb_config_cli *cli, enum pgcb_cli_flag f, const char *arg,
                        char *err, size_t errlen)
{
    const char *flag = pgcb_config_cli_flag_name(f);
    uint64_t u = 0;
    switch (f) {
    case PGCB_CLI_DRIVER: {
        const char *eq = strchr(arg, '=');
        char name[64] = "";
        if (!eq || eq == arg || !eq[1]) {
            snprintf(err, errlen, "%s '%s': expected NAME=PATH (e.g. --driver "
                     "mine=./mine.so)", flag, arg);
            return -1;
        }
        if ((size_t)(eq - arg) < sizeof name)
            memcpy(name, arg, (size_t)(eq - arg));
        if (!pgcb_cfgi_valid_name(name)) {
            snprintf(err, errlen, "%s '%s': bad NAME: use 1 to 63 of a-z, 0-9 and _", flag, arg);
            return -1;
        }
        return push(cli->drivers, &cli->ndrivers, flag, arg, err, errlen);
    }
    case PGCB_CLI_ONLY:
    case PGCB_CLI_SUITE:
    case PGCB_CLI_QUERY:
        if (check_list(flag, arg, err, errlen) != 0)
            return -1;
        return f == PGCB_CLI_ONLY    ? push(cli->only, &cli->nonly, flag, arg, err, errlen)
               : f == PGCB_CLI_SUITE ? push(cli->suites, &cli->nsuites, flag, arg, err, errlen)
                                     : push(cli->queries, &cli->nqueries, flag, arg, err, errlen);
    case PGCB_CLI_TIME_S:
    case PGCB_CLI_TIME_MS:
        if (cli->time_flag) {
            snprintf(err, errlen, "%s: the time budget is already given (%s): give one of -T "
                     "and --time-ms, once", flag, cli->time_flag);
            return -1;
        }
        if (f == PGCB_CLI_TIME_S && parse_seconds(arg, &u) != 0) {
            snprintf(err, errlen, "-T '%s': not a number of seconds above 0 and up to 86400 "
                     "(e.g. -T 10 or -T 0.5; the time per group and driver)", arg);
            return -1;
        }
        if (f == PGCB_CLI_TIME_MS && pgcb_parse_u64(arg, 1, MAX_TIME_MS, &u) != 0) {
            snprintf(err, errlen, "--time-ms '%s': not an integer from 1 to %llu", arg,
                     (unsigned long long)MAX_TIME_MS);
            return -1;
        }
        cli->time_flag = flag;
        cli->time_ms = u;
        return 0;
    case PGCB_CLI_QUERIES:
        if (cli->queries_given) {
            snprintf(err, errlen, "--queries: given twice");
            return -1;
        }
        if (pgcb_parse_u64(arg, 1, UINT32_MAX, &u) != 0) {
            snprintf(err, errlen, "--queries '%s': not an integer from 1 to %u", arg,
                     UINT32_MAX);
            return -1;
        }
        cli->queries_given = 1;
        cli->min_queries = u;
        return 0;
    case PGCB_CLI_PROFILE:
        if (cli->profile_given) {
            snprintf(err, errlen, "--profile: given twice");
            return -1;
        }
        if (pgcb_profile_mode_parse(arg ? arg : "on", &cli->profile) != 0) {
            snprintf(err, errlen, "--profile=%s: not on, try or off (--profile alone: on)", arg);
            return -1;
        }
        cli->profile_given = 1;
        return 0;
    case PGCB_CLI_NFLAGS:
        break;
    }
    snprintf(err, errlen, "unknown command-line flag %d", (int)f);
    return -1;
}

int pgcb_config_cli_given(const struct pgcb_config_cli *cli)
{
    return cli && (cli->ndrivers || cli->nonly || cli->nsuites || cli->nqueries ||
                   cli->time_flag || cli->queries_given || cli->profile_given);
}

int pgcb_cfgi_cli_drivers(struct pgcb_cfgi_ctx *c)
{
    struct pgcb_config *cfg = c->cfg;
    for (size_t i = 0; c->cli && i < c->cli->ndrivers; i++) {
        const char *arg = c->cli->drivers[i];
        const char *eq = strchr(arg, '='); /* pgcb_config_cli_arg() checked the form */
        char *name = pgcb_xstrndup(arg, (size_t)(eq - arg));
        const char *path = eq + 1;
        long k = pgcb_config_find_driver(cfg, name);
        struct stat st;
        int bad = stat(path, &st) != 0 ? errno : S_ISREG(st.st_mode) ? 0 : -1;
        if (k >= 0 && cfg->drivers[k].origin == PGCB_CFG_FROM_CLI)
            pgcb_cfgi_fail_plain(c, "--driver %s: the name %s is given twice", arg, name);
        else if (k >= 0 && cfg->drivers[k].has_section)
            pgcb_cfgi_fail_plain(c, "--driver %s: %s:%d has [driver.%s] already (--driver "
                                 "adds a driver, it does not replace one: choose another "
                                 "NAME, and --only to leave the config's out)", arg, cfg->file,
                                 cfg->drivers[k].line, name);
        else if (k >= 0)
            pgcb_cfgi_fail_plain(c, "--driver %s: %s:%d: driver_dir has %s.so already "
                                 "(--driver adds a driver, it does not replace one: choose "
                                 "another NAME)", arg, cfg->file, cfg->driver_dir_line, name);
        else if (bad)
            pgcb_cfgi_fail_plain(c, "--driver %s: %s: %s", arg, path,
                                 bad > 0 ? strerror(bad) : "not a regular file");
        else
            pgcb_cfgi_driver_add(cfg, name, path, PGCB_CFG_FROM_CLI, 0);
        free(name);
        if (c->err[0])
            return -1;
    }
    return 0;
}

void pgcb_cfgi_apply_cli_budget(struct pgcb_config *cfg, const struct pgcb_config_cli *cli)
{
    if (cli->time_flag) {
        cfg->time_ms = cli->time_ms;
        cfg->time_source = cli->time_flag;
    }
    if (cli->queries_given) {
        cfg->min_queries = cli->min_queries;
        cfg->queries_source = "--queries";
    }
    if (cli->profile_given) {
        cfg->profile = cli->profile;
        cfg->profile_source = "--profile";
    }
}

/* Append "KEY=VALUE\n" to *s. */
static void add_line(char **s, const char *key, const char *value)
{
    char *more = pgcb_xasprintf("%s%s=%s\n", *s, key, value);
    free(*s);
    *s = more;
}

static const char *origin_str(enum pgcb_cfg_origin o)
{
    return o == PGCB_CFG_FROM_DIR ? "driver_dir" : o == PGCB_CFG_FROM_CLI ? "--driver"
                                                                           : "section";
}

char *pgcb_config_cli_digest(const struct pgcb_config *cfg)
{
    char *s = pgcb_xstrdup("");
    char buf[PATH_MAX + 128];
    for (size_t i = 0; i < cfg->ndrivers; i++) {
        const struct pgcb_cfg_driver *d = &cfg->drivers[i];
        if (d->origin == PGCB_CFG_FROM_SECTION)
            continue; /* in the file's bytes */
        char real[PATH_MAX];
        snprintf(buf, sizeof buf, "%s %s %s", d->name, origin_str(d->origin),
                 realpath(d->path, real) ? real : d->path);
        add_line(&s, "driver", buf);
    }
    /* The selection in effect (not as typed: --only b,a and --only a,b run
     * the same). */
    if (cfg->sel.only_given)
        for (size_t i = 0; i < cfg->ndrivers; i++)
            if (cfg->drivers[i].measure)
                add_line(&s, "measured", cfg->drivers[i].name);
    if (cfg->sel.suites_given || cfg->sel.queries_given)
        for (size_t i = 0; i < cfg->nsuites; i++)
            for (size_t k = 0; k < cfg->suites[i].nqueries; k++) {
                snprintf(buf, sizeof buf, "%s/%s", cfg->suites[i].name,
                         cfg->queries[cfg->suites[i].queries[k]].name);
                add_line(&s, "group", buf);
            }
    if (cfg->time_source[0] == '-') {
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)cfg->time_ms);
        add_line(&s, "time_ms", buf);
    }
    if (cfg->queries_source[0] == '-') {
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)cfg->min_queries);
        add_line(&s, "queries", buf);
    }
    /* A profiled run's figures are not an unprofiled one's: a --resume must
     * keep the mode. */
    if (cfg->profile_source[0] == '-')
        add_line(&s, "profile", pgcb_profile_mode_name(cfg->profile));
    return s;
}
