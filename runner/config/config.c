/*
 * config.c -- INI loading with inih, validation with file:line messages:
 * the line reader, the handler, section dispatch, unknown and repeated
 * keys, the order of the checks after the file, and freeing. What each
 * section's keys mean is in its own file (config_int.h lists them).
 *
 * inih gives the handler no line number, so the file is fed through our own
 * fgets-style reader that counts lines, sees section headers (inih reports
 * no empty section) and tells continuation lines apart from repeated keys.
 */
#include "config.h"

#include "config_int.h"
#include "proto.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* The first error: "FILE:LINE: " (with_line) and the message, on one line. */
static void vfail(struct pgcb_cfgi_ctx *c, int with_line, const char *fmt, va_list ap)
{
    if (c->err[0])
        return; /* keep the first error */
    int n = with_line ? snprintf(c->err, sizeof c->err, "%s:%d: ", c->cfg->file, c->lineno) : 0;
    if (n < 0 || (size_t)n >= sizeof c->err)
        return; /* a path that fills the buffer: the message is (part of) the path */
    vsnprintf(c->err + n, sizeof c->err - (size_t)n, fmt, ap);
    for (char *p = c->err; *p; p++) /* a value continued over lines: still one line */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

void pgcb_cfgi_fail(struct pgcb_cfgi_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(c, 1, fmt, ap);
    va_end(ap);
}

void pgcb_cfgi_fail_plain(struct pgcb_cfgi_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(c, 0, fmt, ap);
    va_end(ap);
}

static void unknown_key(struct pgcb_cfgi_ctx *c, const char *const *keys, const char *key)
{
    char known[400] = "";
    for (int i = 0; keys[i]; i++) {
        if (i)
            strncat(known, ", ", sizeof known - strlen(known) - 1);
        strncat(known, keys[i], sizeof known - strlen(known) - 1);
    }
    pgcb_cfgi_fail(c, "unknown key '%s' in [%s] (known: %s%s)", key, c->section, known,
                   keys == pgcb_cfgi_query_keys ? ", param1 .. param64" : "");
}

/* The kind of section `name` (the part before the first dot, which a named
 * kind must have and [bench]/[server] must not). */
static enum pgcb_cfgi_sec section_kind(const char *name)
{
    static const struct {
        const char *prefix;
        int named;
        enum pgcb_cfgi_sec kind;
    } kinds[] = {
        {"bench", 0, PGCB_CFGI_SEC_BENCH},   {"server", 0, PGCB_CFGI_SEC_SERVER},
        {"driver", 1, PGCB_CFGI_SEC_DRIVER}, {"query", 1, PGCB_CFGI_SEC_QUERY},
        {"suite", 1, PGCB_CFGI_SEC_SUITE},   {"background", 1, PGCB_CFGI_SEC_BACKGROUND},
    };
    const char *dot = strchr(name, '.');
    size_t plen = dot ? (size_t)(dot - name) : strlen(name);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].named == (dot != NULL) && strlen(kinds[i].prefix) == plen &&
            strncmp(name, kinds[i].prefix, plen) == 0)
            return kinds[i].kind;
    return PGCB_CFGI_SEC_NONE;
}

/* Start section `name` (from a header line). */
static void begin_section(struct pgcb_cfgi_ctx *c, const char *name)
{
    struct pgcb_config *cfg = c->cfg;
    snprintf(c->section, sizeof c->section, "%s", name);
    c->last_key[0] = '\0';
    const char *dot = strchr(name, '.');
    const char *sub = dot ? dot + 1 : "";

    c->kind = section_kind(name);
    if (c->kind == PGCB_CFGI_SEC_NONE) {
        pgcb_cfgi_fail(c, "unknown section [%s] (known: [bench], [server], [driver.NAME], "
                          "[query.NAME], [suite.NAME], [background.NAME])", name);
        return;
    }
    if (c->kind == PGCB_CFGI_SEC_BENCH || c->kind == PGCB_CFGI_SEC_SERVER) {
        /* Once each: a second [bench] would quietly merge with the first. */
        int *seen = c->kind == PGCB_CFGI_SEC_BENCH ? &c->bench_line : &c->server_line;
        if (*seen) {
            pgcb_cfgi_fail(c, "section [%s] appears twice (first at line %d)", name, *seen);
            c->kind = PGCB_CFGI_SEC_NONE;
            return;
        }
        *seen = c->lineno;
        return;
    }
    if (c->kind == PGCB_CFGI_SEC_DRIVER ? !pgcb_cfgi_valid_driver_name(sub)
                                        : !pgcb_cfgi_valid_name(sub)) {
        pgcb_cfgi_fail(c, c->kind == PGCB_CFGI_SEC_DRIVER
                              ? "bad name in [%s]: use 1 to 63 of a-z, 0-9 and _, or "
                                "NAME@RELEASE (e.g. pg@8.11.5)"
                              : "bad name in [%s]: use 1 to 63 of a-z, 0-9 and _", name);
        c->kind = PGCB_CFGI_SEC_NONE;
        return;
    }
    long found = c->kind == PGCB_CFGI_SEC_DRIVER  ? pgcb_config_find_driver(cfg, sub)
                 : c->kind == PGCB_CFGI_SEC_QUERY ? pgcb_config_find_query(cfg, sub)
                 : c->kind == PGCB_CFGI_SEC_SUITE ? pgcb_cfgi_find_suite(cfg, sub)
                                                  : pgcb_cfgi_find_bg(cfg, sub);
    if (found >= 0) {
        pgcb_cfgi_fail(c, "section [%s] appears twice", name);
        c->kind = PGCB_CFGI_SEC_NONE;
        return;
    }
    switch (c->kind) {
    case PGCB_CFGI_SEC_DRIVER: pgcb_cfgi_driver_begin(c, sub); break;
    case PGCB_CFGI_SEC_QUERY: pgcb_cfgi_query_begin(c, sub); break;
    case PGCB_CFGI_SEC_SUITE: pgcb_cfgi_suite_begin(c, sub); break;
    default: pgcb_cfgi_bg_begin(c, sub); break;
    }
}

/* fgets-style reader for inih: counts lines, handles section headers and
 * marks continuation lines. */
static char *reader(char *str, int num, void *stream)
{
    struct pgcb_cfgi_ctx *c = stream;
    if (!fgets(str, num, c->fp)) {
        if (ferror(c->fp)) /* e.g. a directory: not an empty file */
            pgcb_cfgi_fail(c, "cannot read: %s", strerror(errno));
        return NULL;
    }
    c->lineno++;
    size_t len = strlen(str);
    if (len == (size_t)num - 1 && str[len - 1] != '\n' && !feof(c->fp)) {
        int ch = fgetc(c->fp);
        if (!(str[len - 1] == '\r' && ch == '\n')) { /* CRLF after num - 2 characters fits */
            pgcb_cfgi_fail(c, "line longer than %d characters: continue a long value on "
                              "indented lines", num - 2);
            while (ch != EOF && ch != '\n')
                ch = fgetc(c->fp);
        }
    }
    const char *p = str;
    if (c->lineno == 1 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
        (unsigned char)p[2] == 0xBF)
        p += 3;
    int indented = (*p == ' ' || *p == '\t');
    while (*p == ' ' || *p == '\t')
        p++;
    int blank = (*p == '\0' || *p == '\n' || *p == '\r' || *p == ';' || *p == '#');
    c->cont = indented && !blank && c->last_key[0];
    if (*p == '[' && !c->cont) { /* an indented '[' continues a value, as inih reads it */
        const char *end = strchr(p, ']');
        if (!end) {
            pgcb_cfgi_fail(c, "section header without ']'");
        } else {
            char name[256];
            size_t n = (size_t)(end - p - 1);
            if (n >= sizeof name)
                n = sizeof name - 1;
            memcpy(name, p + 1, n);
            name[n] = '\0';
            begin_section(c, name);
        }
    }
    return str;
}

/* Apply `key = value` in the current section. `value` is the whole value,
 * continuation lines included. Returns 1 on success. */
static int apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value)
{
    switch (c->kind) {
    case PGCB_CFGI_SEC_NONE: return 1; /* the section error is already recorded */
    case PGCB_CFGI_SEC_BENCH: return pgcb_cfgi_bench_apply(c, key, value);
    case PGCB_CFGI_SEC_SERVER: return pgcb_cfgi_server_apply(c, key, value);
    case PGCB_CFGI_SEC_DRIVER: return pgcb_cfgi_driver_apply(c, key, value);
    case PGCB_CFGI_SEC_QUERY: return pgcb_cfgi_query_apply(c, key, value);
    case PGCB_CFGI_SEC_SUITE: return pgcb_cfgi_suite_apply(c, key, value);
    case PGCB_CFGI_SEC_BACKGROUND: return pgcb_cfgi_bg_apply(c, key, value);
    }
    return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    struct pgcb_cfgi_ctx *c = user;
    (void)section; /* tracked by the reader, which also sees empty sections */
    if (c->kind == PGCB_CFGI_SEC_NONE && !c->section[0]) {
        pgcb_cfgi_fail(c, "key '%s' before any [section]", name);
        return 1;
    }
    if (c->cont && strcmp(name, c->last_key) == 0) {
        /* A continuation line: the value goes on. */
        const char *sep = (c->kind == PGCB_CFGI_SEC_QUERY) ? "\n" : " ";
        char *joined = pgcb_xasprintf("%s%s%s", c->last_value, sep, value);
        free(c->last_value);
        c->last_value = joined;
        apply(c, name, joined);
        return 1;
    }
    /* A new key line: check it is known and not repeated. */
    const char *const *keys = NULL;
    unsigned *seen = NULL;
    switch (c->kind) {
    case PGCB_CFGI_SEC_BENCH: keys = pgcb_cfgi_bench_keys; seen = &c->bench_seen; break;
    case PGCB_CFGI_SEC_SERVER: keys = pgcb_cfgi_server_keys; seen = &c->server_seen; break;
    case PGCB_CFGI_SEC_QUERY:
        if (pgcb_cfgi_param_number(name)) {
            if (pgcb_cfgi_query_param_repeated(c, name)) {
                pgcb_cfgi_fail(c, "key '%s' repeated in [%s]", name, c->section);
                return 1;
            }
            break;
        }
        keys = pgcb_cfgi_query_keys;
        seen = &c->query_seen[c->idx];
        break;
    case PGCB_CFGI_SEC_SUITE: keys = pgcb_cfgi_suite_keys; seen = &c->suite_seen[c->idx]; break;
    case PGCB_CFGI_SEC_BACKGROUND: keys = pgcb_cfgi_bg_keys; seen = &c->bg_seen[c->idx]; break;
    case PGCB_CFGI_SEC_DRIVER:
        /* Driver keys are checked against the driver's own list once it is
         * loaded; here only repetition. */
        if (pgcb_cfgi_driver_repeated(c, name)) {
            pgcb_cfgi_fail(c, "key '%s' repeated in [%s]", name, c->section);
            return 1;
        }
        break;
    case PGCB_CFGI_SEC_NONE: return 1;
    }
    if (keys) {
        int k = pgcb_cfgi_key_index(keys, name);
        if (k < 0) {
            unknown_key(c, keys, name);
            return 1;
        }
        if (*seen & (1u << k)) {
            pgcb_cfgi_fail(c, "key '%s' repeated in [%s]", name, c->section);
            return 1;
        }
        *seen |= 1u << k;
    }
    snprintf(c->last_key, sizeof c->last_key, "%s", name);
    free(c->last_value);
    c->last_value = pgcb_xstrdup(value);
    apply(c, name, value);
    return 1; /* errors are kept in c->err, with their line */
}

/* After the file: the checks of each section, in this order (the first
 * error is the one reported); driver_dir's and the command line's drivers
 * join the sections' before the drivers are checked. */
static void finish(struct pgcb_cfgi_ctx *c)
{
    if (c->err[0])
        return;
    c->lineno = 0;
    if (pgcb_cfgi_bench_finish(c) == 0 && pgcb_cfgi_dir_finish(c) == 0 &&
        pgcb_cfgi_cli_drivers(c) == 0 && pgcb_cfgi_driver_finish(c) == 0 &&
        pgcb_cfgi_query_finish(c) == 0 && pgcb_cfgi_suite_finish(c) == 0 &&
        pgcb_cfgi_bg_finish(c) == 0 && pgcb_cfgi_bench_reference(c) == 0)
        pgcb_cfgi_driver_finish_measured(c);
}

/* Release what the context owns (not the config). */
static void ctx_free(struct pgcb_cfgi_ctx *c)
{
    for (size_t i = 0; i < c->cfg->nsuites; i++) {
        free(c->suite_names[i].names);
        free(c->suite_bgs[i].names);
    }
    for (size_t i = 0; i < c->cfg->nbackgrounds; i++) {
        free(c->bg_driver[i].names);
        free(c->bg_query[i].names);
    }
    free(c->suite_names);
    free(c->suite_bgs);
    free(c->bg_driver);
    free(c->bg_query);
    free(c->bg_seen);
    free(c->query_check_line);
    free(c->query_prime_line);
    free(c->query_versus_line);
    free(c->query_seen);
    free(c->suite_seen);
    free(c->last_value);
}

int pgcb_config_load(const char *path, struct pgcb_config *cfg, char *err, size_t errlen)
{
    return pgcb_config_load_cli(path, NULL, cfg, err, errlen);
}

int pgcb_config_load_cli(const char *path, const struct pgcb_config_cli *cli,
                         struct pgcb_config *cfg, char *err, size_t errlen)
{
    *cfg = (struct pgcb_config){
        .time_ms = PGCB_DEFAULT_TIME_MS,
        .min_queries = PGCB_DEFAULT_QUERIES,
        .warmup_ms = PGCB_DEFAULT_WARMUP_MS,
        .batch_timeout_ms = PGCB_DEFAULT_BATCH_TIMEOUT_MS,
        .memory = 1,
        .wire = 1,
        .cpus = {0},
        .ncpus = 1,
        .orders = PGCB_ORDERS_AUTO,
        .alpha = PGCB_DEFAULT_ALPHA,
        .until_width = PGCB_DEFAULT_UNTIL_WIDTH,
        .interval_level = PGCB_DEFAULT_INTERVAL_LEVEL,
        .time_source = "default",
        .queries_source = "default",
        .profile_source = "default",
        .seed = PGCB_DEFAULT_SEED,
        .noise_warn_pct = PGCB_STATS_NOISE_WARN_PCT,
        .proto = pgcb_proto_default(),
    };
    cfg->file = pgcb_xstrdup(path);
    const char *slash = strrchr(path, '/');
    cfg->dir = slash ? pgcb_xstrndup(path, (size_t)(slash - path) + (slash == path)) : pgcb_xstrdup("");

    struct pgcb_cfgi_ctx c = {.cfg = cfg, .cli = cli};
    c.fp = fopen(path, "r");
    if (!c.fp) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        pgcb_config_free(cfg);
        return -1;
    }
    int rc = ini_parse_stream(reader, &c, handler, &c);
    fclose(c.fp);
    if (!c.err[0] && rc > 0) {
        c.lineno = rc;
        pgcb_cfgi_fail(&c, "syntax error (expected [section], key = value, or a ; comment)");
    }
    finish(&c);
    ctx_free(&c);
    if (c.err[0]) {
        /* ":0: " right after the path means the whole file rather than a line. */
        size_t flen = strlen(cfg->file);
        if (strlen(c.err) >= flen + 4 && memcmp(c.err + flen, ":0: ", 4) == 0)
            memmove(c.err + flen + 1, c.err + flen + 3, strlen(c.err + flen + 3) + 1);
        snprintf(err, errlen, "%s", c.err);
        pgcb_config_free(cfg);
        return -1;
    }
    if (pgcb_cfgi_apply_env(cfg, err, errlen)) {
        pgcb_config_free(cfg);
        return -1;
    }
    if (cli) {
        pgcb_cfgi_apply_cli_budget(cfg, cli);
        if (pgcb_cfgi_select(cfg, cli, err, errlen) != 0) {
            pgcb_config_free(cfg);
            return -1;
        }
    }
    return 0;
}

void pgcb_config_free(struct pgcb_config *cfg)
{
    if (!cfg)
        return;
    for (size_t i = 0; i < cfg->ndrivers; i++)
        pgcb_cfgi_driver_free(&cfg->drivers[i]);
    for (size_t i = 0; i < cfg->nqueries; i++)
        pgcb_cfgi_query_free(&cfg->queries[i]);
    for (size_t i = 0; i < cfg->nsuites; i++)
        pgcb_cfgi_suite_free(&cfg->suites[i]);
    for (size_t i = 0; i < cfg->nbackgrounds; i++)
        free(cfg->backgrounds[i].name);
    free(cfg->backgrounds);
    free(cfg->rtt.rtts);
    free(cfg->drivers);
    free(cfg->queries);
    free(cfg->suites);
    free(cfg->file);
    free(cfg->dir);
    free(cfg->output);
    free(cfg->checksum_reference);
    free(cfg->conninfo);
    free(cfg->setup);
    for (int t = 0; t < PGCB_TRANSPORT_N; t++)
        free(cfg->transport_conninfo[t]);
    free(cfg->driver_dir);
    struct pgcb_cfg_selection *sel = &cfg->sel;
    pgcb_cfgi_names_free(&sel->only);
    pgcb_cfgi_names_free(&sel->suites);
    pgcb_cfgi_names_free(&sel->queries);
    pgcb_cfgi_names_free(&sel->dropped_drivers);
    pgcb_cfgi_names_free(&sel->dropped_suites);
    pgcb_cfgi_names_free(&sel->dropped_queries);
    *cfg = (struct pgcb_config){0};
}
