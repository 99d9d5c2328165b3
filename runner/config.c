/*
 * config.c -- INI loading with inih, validation with file:line messages.
 *
 * inih gives the handler no line number, so the file is fed through our own
 * fgets-style reader that counts lines, sees section headers (inih reports
 * no empty section) and tells continuation lines apart from repeated keys.
 */
#include "config.h"

#include "proto.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stats.h"
#include "util.h"

enum sec_kind { SEC_NONE, SEC_BENCH, SEC_SERVER, SEC_DRIVER, SEC_QUERY, SEC_SUITE,
                SEC_BACKGROUND };

/* A suite's `queries =` names, resolved after the whole file is read. */
struct pending_names {
    char *names;
    int line;
};

struct ctx {
    struct pgcb_config *cfg;
    FILE *fp;
    int lineno;
    int cont;                 /* the current line continues the previous value */
    char err[512];            /* first error, "" if none */
    enum sec_kind kind;
    size_t idx;               /* index of the current driver/query/suite */
    char section[256];
    char last_key[128];       /* key of the previous key line in this section */
    char *last_value;         /* its accumulated value (for continuation) */
    unsigned bench_seen, server_seen; /* bitmasks of keys seen */
    int bench_line, server_line;      /* where [bench] / [server] began; 0: not yet */
    unsigned *query_seen, *suite_seen, *bg_seen;
    struct pending_names *suite_names;  /* queries = */
    struct pending_names *suite_bgs;    /* background = */
    struct pending_names *bg_driver, *bg_query;
    int *query_check_line;              /* line of `check =`, 0 if not given */
    int *query_prime_line;              /* line of `prime =`, 0 if not given */
};

static const char *const bench_keys[] = {"time_ms", "queries", "warmup_ms", "cpus",
                                         "output", "orders", "batch_timeout_ms", "seed",
                                         "alpha", "interval_level", "until", "until_max_orders",
                                         "until_width", "noise_warn_pct", "result_format", "describe",
                                         "sync", NULL};
static const char *const server_keys[] = {"conninfo", "setup", NULL};
/* Besides these, a query takes param1 .. param64. */
static const char *const query_keys[] = {"sql", "rows", "check", "prime", NULL};
static const char *const suite_keys[] = {"depth", "queries", "threads", "rows_per_txn",
                                         "ops", "warmup_ms", "background", NULL};
static const char *const bg_keys[] = {"driver", "query", "rate", "connections", "cpus", "sla",
                                      NULL};

/* "0.01", "1e-3" or "1/64": a finite number, no junk. 0, or -1. */
static int parse_fraction(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno)
        return -1;
    while (*end == ' ')
        end++;
    if (*end == '/') {
        const char *t = end + 1;
        double y = strtod(t, &end);
        if (end == t || errno || !(y > 0))
            return -1;
        x /= y;
        while (*end == ' ')
            end++;
    }
    if (*end || !isfinite(x))
        return -1;
    *out = x;
    return 0;
}

static void fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct ctx *c, const char *fmt, ...)
{
    if (c->err[0])
        return; /* keep the first error */
    int n = snprintf(c->err, sizeof c->err, "%s:%d: ", c->cfg->file, c->lineno);
    if (n < 0 || (size_t)n >= sizeof c->err)
        return; /* a path that fills the buffer: the message is (part of) the path */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, sizeof c->err - (size_t)n, fmt, ap);
    va_end(ap);
    for (char *p = c->err; *p; p++) /* a value continued over lines: still one line */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

static int key_index(const char *const *keys, const char *key)
{
    for (int i = 0; keys[i]; i++)
        if (strcmp(keys[i], key) == 0)
            return i;
    return -1;
}

static void unknown_key(struct ctx *c, const char *const *keys, const char *key)
{
    char known[256] = "";
    for (int i = 0; keys[i]; i++) {
        if (i)
            strncat(known, ", ", sizeof known - strlen(known) - 1);
        strncat(known, keys[i], sizeof known - strlen(known) - 1);
    }
    fail(c, "unknown key '%s' in [%s] (known: %s%s)", key, c->section, known,
         keys == query_keys ? ", param1 .. param64" : "");
}

/* Names of drivers, queries and suites: [a-z0-9_]+, at most 63 bytes (they
 * become statement names and JSON keys). */
static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63)
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

static char *resolve_path(const struct pgcb_config *cfg, const char *p)
{
    if (p[0] == '/' || !cfg->dir[0])
        return pgcb_xstrdup(p);
    return pgcb_xasprintf("%s/%s", cfg->dir, p);
}

/* Start section `name` (from a header line). */
static void begin_section(struct ctx *c, const char *name)
{
    struct pgcb_config *cfg = c->cfg;
    snprintf(c->section, sizeof c->section, "%s", name);
    c->last_key[0] = '\0';
    const char *dot = strchr(name, '.');
    const char *sub = dot ? dot + 1 : "";
    size_t plen = dot ? (size_t)(dot - name) : strlen(name);

    if (!dot && strcmp(name, "bench") == 0) {
        c->kind = SEC_BENCH;
    } else if (!dot && strcmp(name, "server") == 0) {
        c->kind = SEC_SERVER;
    } else if (dot && (plen == 6 && strncmp(name, "driver", 6) == 0)) {
        c->kind = SEC_DRIVER;
    } else if (dot && (plen == 5 && strncmp(name, "query", 5) == 0)) {
        c->kind = SEC_QUERY;
    } else if (dot && (plen == 5 && strncmp(name, "suite", 5) == 0)) {
        c->kind = SEC_SUITE;
    } else if (dot && (plen == 10 && strncmp(name, "background", 10) == 0)) {
        c->kind = SEC_BACKGROUND;
    } else {
        c->kind = SEC_NONE;
        fail(c, "unknown section [%s] (known: [bench], [server], [driver.NAME], "
                "[query.NAME], [suite.NAME], [background.NAME])", name);
        return;
    }
    if (c->kind == SEC_BENCH || c->kind == SEC_SERVER) {
        /* Once each: a second [bench] would quietly merge with the first. */
        int *seen = c->kind == SEC_BENCH ? &c->bench_line : &c->server_line;
        if (*seen) {
            fail(c, "section [%s] appears twice (first at line %d)", name, *seen);
            c->kind = SEC_NONE;
            return;
        }
        *seen = c->lineno;
        return;
    }
    if (!valid_name(sub)) {
        fail(c, "bad name in [%s]: use 1 to 63 of a-z, 0-9 and _", name);
        c->kind = SEC_NONE;
        return;
    }
    long found = -1;
    if (c->kind == SEC_DRIVER)
        found = pgcb_config_find_driver(cfg, sub);
    else if (c->kind == SEC_QUERY)
        found = pgcb_config_find_query(cfg, sub);
    else if (c->kind == SEC_BACKGROUND)
        for (size_t i = 0; i < cfg->nbackgrounds; i++)
            found = strcmp(cfg->backgrounds[i].name, sub) == 0 ? (long)i : found;
    else
        for (size_t i = 0; i < cfg->nsuites; i++)
            if (strcmp(cfg->suites[i].name, sub) == 0)
                found = (long)i;
    if (found >= 0) {
        fail(c, "section [%s] appears twice", name);
        c->kind = SEC_NONE;
        return;
    }
    if (c->kind == SEC_DRIVER) {
        cfg->drivers = pgcb_xrealloc(cfg->drivers, (cfg->ndrivers + 1) * sizeof *cfg->drivers);
        cfg->drivers[cfg->ndrivers] = (struct pgcb_cfg_driver){
            .name = pgcb_xstrdup(sub), .line = c->lineno, .measure = 1};
        c->idx = cfg->ndrivers++;
    } else if (c->kind == SEC_QUERY) {
        cfg->queries = pgcb_xrealloc(cfg->queries, (cfg->nqueries + 1) * sizeof *cfg->queries);
        cfg->queries[cfg->nqueries] = (struct pgcb_cfg_query){
            .name = pgcb_xstrdup(sub), .rows = -1, .prime = -1, .line = c->lineno};
        c->query_seen = pgcb_xrealloc(c->query_seen, (cfg->nqueries + 1) * sizeof *c->query_seen);
        c->query_seen[cfg->nqueries] = 0;
        c->query_check_line = pgcb_xrealloc(c->query_check_line,
                                            (cfg->nqueries + 1) * sizeof *c->query_check_line);
        c->query_check_line[cfg->nqueries] = 0;
        c->query_prime_line = pgcb_xrealloc(c->query_prime_line,
                                            (cfg->nqueries + 1) * sizeof *c->query_prime_line);
        c->query_prime_line[cfg->nqueries] = 0;
        c->idx = cfg->nqueries++;
    } else if (c->kind == SEC_BACKGROUND) {
        size_t n = cfg->nbackgrounds;
        cfg->backgrounds = pgcb_xrealloc(cfg->backgrounds, (n + 1) * sizeof *cfg->backgrounds);
        cfg->backgrounds[n] = (struct pgcb_cfg_background){
            .name = pgcb_xstrdup(sub), .connections = 1, .sla = PGCB_DEFAULT_SLA,
            .line = c->lineno};
        c->bg_seen = pgcb_xrealloc(c->bg_seen, (n + 1) * sizeof *c->bg_seen);
        c->bg_seen[n] = 0;
        c->bg_driver = pgcb_xrealloc(c->bg_driver, (n + 1) * sizeof *c->bg_driver);
        c->bg_driver[n] = (struct pending_names){0};
        c->bg_query = pgcb_xrealloc(c->bg_query, (n + 1) * sizeof *c->bg_query);
        c->bg_query[n] = (struct pending_names){0};
        c->idx = cfg->nbackgrounds++;
    } else {
        cfg->suites = pgcb_xrealloc(cfg->suites, (cfg->nsuites + 1) * sizeof *cfg->suites);
        cfg->suites[cfg->nsuites] = (struct pgcb_cfg_suite){
            .name = pgcb_xstrdup(sub), .threads = 1, .warmup_ms = -1, .line = c->lineno};
        c->suite_seen = pgcb_xrealloc(c->suite_seen, (cfg->nsuites + 1) * sizeof *c->suite_seen);
        c->suite_seen[cfg->nsuites] = 0;
        c->suite_names = pgcb_xrealloc(c->suite_names,
                                       (cfg->nsuites + 1) * sizeof *c->suite_names);
        c->suite_names[cfg->nsuites] = (struct pending_names){0};
        c->suite_bgs = pgcb_xrealloc(c->suite_bgs, (cfg->nsuites + 1) * sizeof *c->suite_bgs);
        c->suite_bgs[cfg->nsuites] = (struct pending_names){0};
        c->idx = cfg->nsuites++;
    }
}

/* fgets-style reader for inih: counts lines, handles section headers and
 * marks continuation lines. */
static char *reader(char *str, int num, void *stream)
{
    struct ctx *c = stream;
    if (!fgets(str, num, c->fp)) {
        if (ferror(c->fp)) /* e.g. a directory: not an empty file */
            fail(c, "cannot read: %s", strerror(errno));
        return NULL;
    }
    c->lineno++;
    size_t len = strlen(str);
    if (len == (size_t)num - 1 && str[len - 1] != '\n' && !feof(c->fp)) {
        int ch = fgetc(c->fp);
        if (!(str[len - 1] == '\r' && ch == '\n')) { /* CRLF after num - 2 characters fits */
            fail(c, "line longer than %d characters: continue a long value on indented lines",
                 num - 2);
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
            fail(c, "section header without ']'");
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

static int parse_depths(struct ctx *c, struct pgcb_cfg_suite *s, const char *key, const char *v)
{
    unsigned both = (1u << key_index(suite_keys, "depth")) |
                    (1u << key_index(suite_keys, "rows_per_txn"));
    if ((c->suite_seen[c->idx] & both) == both) {
        fail(c, "[%s] %s: give either depth or rows_per_txn, not both", c->section, key);
        return 0;
    }
    free(s->depths);
    s->depths = NULL;
    s->ndepths = 0;
    char *copy = pgcb_xstrdup(v), *save = NULL;
    for (char *tok = strtok_r(copy, ", \t\n", &save); tok; tok = strtok_r(NULL, ", \t\n", &save)) {
        uint64_t d;
        if (pgcb_parse_u64(tok, 1, 1000000, &d)) {
            fail(c, "[%s] %s: '%s' is not an integer from 1 to 1000000", c->section, key, tok);
            free(copy);
            return 0;
        }
        for (size_t i = 0; i < s->ndepths; i++)
            if (s->depths[i] == d) {
                fail(c, "[%s] %s: %s listed twice", c->section, key, tok);
                free(copy);
                return 0;
            }
        s->depths = pgcb_xrealloc(s->depths, (s->ndepths + 1) * sizeof *s->depths);
        s->depths[s->ndepths++] = (uint32_t)d;
    }
    free(copy);
    if (s->ndepths == 0) {
        fail(c, "[%s] %s: empty", c->section, key);
        return 0;
    }
    return 1;
}

/* `value` of `key` in the current section as an integer in [min, max]: 1,
 * or 0 with the error "[SECTION] KEY: 'VALUE' is not an integer from MIN to
 * MAX" recorded. */
static int int_key(struct ctx *c, const char *key, const char *value, uint64_t min, uint64_t max,
                   uint64_t *out)
{
    if (pgcb_parse_u64(value, min, max, out) == 0)
        return 1;
    fail(c, "[%s] %s: '%s' is not an integer from %llu to %llu", c->section, key, value,
         (unsigned long long)min, (unsigned long long)max);
    return 0;
}

/* `value` of `key` as a number above 0 and at most max: 1, or 0 with the
 * error "[SECTION] KEY: 'VALUE' is not WHAT" recorded. */
static int real_key(struct ctx *c, const char *key, const char *value, double max,
                    const char *what, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (errno || end == value || *end || !(v > 0) || v > max) {
        fail(c, "[%s] %s: '%s' is not %s", c->section, key, value, what);
        return 0;
    }
    *out = v;
    return 1;
}

/* yes/no, true/false, on/off, 1/0; -1 for anything else. */
static int parse_bool(const char *v)
{
    static const char *const yes[] = {"yes", "true", "on", "1", NULL};
    static const char *const no[] = {"no", "false", "off", "0", NULL};
    for (int i = 0; yes[i]; i++) {
        if (strcmp(v, yes[i]) == 0)
            return 1;
        if (strcmp(v, no[i]) == 0)
            return 0;
    }
    return -1;
}

/* `paramN` of the current query: N is 1 .. PGCB_MAX_PARAMS; 0 if key is
 * not of that form. */
static unsigned param_number(const char *key)
{
    uint64_t n;
    if (strncmp(key, "param", 5) != 0 || key[5] == '0' ||
        pgcb_parse_u64(key + 5, 1, PGCB_MAX_PARAMS, &n))
        return 0;
    return (unsigned)n;
}

static int apply_param(struct ctx *c, struct pgcb_cfg_query *q, const char *key, const char *value)
{
    unsigned n = param_number(key);
    if (n == 0)
        return 1; /* unknown keys were refused by the handler */
    if (n > q->nparams) {
        q->params = pgcb_xrealloc(q->params, n * sizeof *q->params);
        memset(q->params + q->nparams, 0, (n - q->nparams) * sizeof *q->params);
        for (size_t i = q->nparams; i < n; i++)
            q->params[i].kind = (enum pgcb_gen_kind)-1; /* not given (yet) */
        q->nparams = n;
    }
    struct pgcb_gen *g = &q->params[n - 1];
    if ((int)g->kind != -1)
        pgcb_gen_free(g);
    char e[160];
    if (pgcb_gen_parse(value, g, e, sizeof e) != 0) {
        g->kind = (enum pgcb_gen_kind)-1;
        fail(c, "[%s] %s: %s", c->section, key, e);
        return 0;
    }
    return 1;
}

static int apply_background(struct ctx *c, struct pgcb_cfg_background *b, const char *key,
                            const char *value)
{
    uint64_t u;
    if (strcmp(key, "driver") == 0 || strcmp(key, "query") == 0) {
        struct pending_names *pn = key[0] == 'd' ? &c->bg_driver[c->idx] : &c->bg_query[c->idx];
        free(pn->names);
        pn->names = pgcb_xstrdup(value);
        pn->line = c->lineno;
    } else if (strcmp(key, "rate") == 0) {
        return real_key(c, key, value, 1e7, "a number of executions per second above 0 and up "
                        "to 10000000", &b->rate);
    } else if (strcmp(key, "connections") == 0) {
        if (!int_key(c, key, value, 1, PGCB_MAX_THREADS, &u))
            return 0;
        b->connections = (uint32_t)u;
    } else if (strcmp(key, "cpus") == 0) {
        char e[160];
        int n = pgcb_parse_cpus(value, b->cpus, PGCB_MAX_CPUS, e, sizeof e);
        if (n < 0) {
            fail(c, "[%s] cpus: %s", c->section, e);
            return 0;
        }
        b->ncpus = (size_t)n;
    } else if (strcmp(key, "sla") == 0) {
        return real_key(c, key, value, 1, "a fraction of the target rate above 0 and up to 1 "
                        "(e.g. 0.95)", &b->sla);
    }
    return 1;
}

/* Apply `key = value` in the current section. `value` is the whole value,
 * continuation lines included. Returns 1 on success. */
static int apply(struct ctx *c, const char *key, const char *value)
{
    struct pgcb_config *cfg = c->cfg;
    uint64_t u;
    switch (c->kind) {
    case SEC_NONE:
        return 1; /* the section error is already recorded */
    case SEC_BENCH:
        if (strcmp(key, "time_ms") == 0) {
            if (!int_key(c, key, value, 0, 86400000ull, &u))
                return 0;
            cfg->time_ms = u;
            cfg->time_source = "file";
        } else if (strcmp(key, "queries") == 0) {
            if (!int_key(c, key, value, 1, UINT32_MAX, &u))
                return 0;
            cfg->min_queries = u;
            cfg->queries_source = "file";
        } else if (strcmp(key, "warmup_ms") == 0) {
            if (!int_key(c, key, value, 0, 3600000ull, &u))
                return 0;
            cfg->warmup_ms = u;
        } else if (strcmp(key, "batch_timeout_ms") == 0) {
            if (!int_key(c, key, value, 1, 86400000ull, &u))
                return 0;
            cfg->batch_timeout_ms = u;
        } else if (strcmp(key, "cpus") == 0) {
            char e[160];
            int n = pgcb_parse_cpus(value, cfg->cpus, PGCB_MAX_CPUS, e, sizeof e);
            if (n < 0) {
                fail(c, "[bench] cpus: %s", e);
                return 0;
            }
            cfg->ncpus = (size_t)n;
        } else if (strcmp(key, "output") == 0) {
            free(cfg->output);
            cfg->output = value[0] ? resolve_path(cfg, value) : NULL;
        } else if (strcmp(key, "seed") == 0) {
            if (pgcb_parse_u64(value, 0, UINT64_MAX, &u)) {
                fail(c, "[bench] seed: '%s' is not a non-negative integer", value);
                return 0;
            }
            cfg->seed = u;
        } else if (strcmp(key, "alpha") == 0) {
            if (parse_fraction(value, &cfg->alpha) != 0 || !(cfg->alpha > 0) ||
                !(cfg->alpha <= 0.5)) {
                fail(c, "[bench] alpha: '%s' is not a level in (0, 0.5] (e.g. 1/64 or 0.01)",
                     value);
                return 0;
            }
        } else if (strcmp(key, "interval_level") == 0) {
            if (parse_fraction(value, &cfg->interval_level) != 0 ||
                !(cfg->interval_level > 0) || !(cfg->interval_level < 1)) {
                fail(c, "[bench] interval_level: '%s' is not a level in (0, 1) (e.g. 0.95)",
                     value);
                return 0;
            }
        } else if (strcmp(key, "until") == 0) {
            if (strcmp(value, "budget") == 0)
                cfg->until_decided = 0;
            else if (strcmp(value, "decided") == 0)
                cfg->until_decided = 1;
            else {
                fail(c, "[bench] until: '%s' is not budget or decided", value);
                return 0;
            }
            cfg->until_line = c->lineno;
        } else if (strcmp(key, "until_max_orders") == 0) {
            if (!int_key(c, key, value, 1, PGCB_ORDERS_MAX, &u))
                return 0;
            cfg->until_max_orders = (size_t)u;
            cfg->until_max_line = c->lineno;
        } else if (strcmp(key, "until_width") == 0) {
            if (parse_fraction(value, &cfg->until_width) != 0 || !(cfg->until_width > 0) ||
                !(cfg->until_width <= 1)) {
                fail(c, "[bench] until_width: '%s' is not a relative width in (0, 1] (e.g. "
                     "0.05: every ratio interval within 5%% of its ratio)", value);
                return 0;
            }
            cfg->until_width_line = c->lineno;
        } else if (strcmp(key, "orders") == 0) {
            char e[160];
            if (pgcb_orders_parse(value, &cfg->orders, &cfg->orders_n, e, sizeof e) != 0) {
                fail(c, "[bench] orders: %s", e);
                return 0;
            }
        } else if (strcmp(key, "noise_warn_pct") == 0) {
            return real_key(c, key, value, 1000, "a percentage above 0 and up to 1000 (the "
                            "robust CV of the per-order medians, e.g. 10)",
                            &cfg->noise_warn_pct);
        } else {
            /* result_format, describe, sync: the run's protocol choices */
            for (int f = 0; f < PGCB_PROTO_STATEMENTS; f++) {
                if (strcmp(key, pgcb_proto_key((enum pgcb_proto_field)f)) != 0)
                    continue;
                uint32_t v = pgcb_proto_parse((enum pgcb_proto_field)f, value);
                if (!v) {
                    fail(c, "[bench] %s: '%s' is not one of %s", key, value,
                         pgcb_proto_choices((enum pgcb_proto_field)f));
                    return 0;
                }
                pgcb_proto_set(&cfg->proto, (enum pgcb_proto_field)f, v);
            }
        }
        return 1;
    case SEC_SERVER:
        if (strcmp(key, "conninfo") == 0) {
            free(cfg->conninfo);
            cfg->conninfo = pgcb_xstrdup(value);
        } else if (strcmp(key, "setup") == 0) {
            free(cfg->setup);
            cfg->setup = value[0] ? resolve_path(cfg, value) : NULL;
        }
        return 1;
    case SEC_DRIVER: {
        struct pgcb_cfg_driver *d = &cfg->drivers[c->idx];
        if (strcmp(key, "path") == 0) {
            free(d->path);
            d->path = resolve_path(cfg, value);
            d->path_line = c->lineno;
            return 1;
        }
        if (strcmp(key, "measure") == 0) {
            int b = parse_bool(value);
            if (b < 0) {
                fail(c, "[%s] measure: '%s' is not yes or no", c->section, value);
                return 0;
            }
            d->measure = b;
            d->measure_line = c->lineno;
            return 1;
        }
        for (size_t i = 0; i < d->nopts; i++)
            if (strcmp(d->opts[i].key, key) == 0) {
                free(d->opts[i].value);
                d->opts[i].value = pgcb_xstrdup(value);
                return 1;
            }
        d->opts = pgcb_xrealloc(d->opts, (d->nopts + 1) * sizeof *d->opts);
        d->opts[d->nopts++] = (struct pgcb_cfg_kv){
            .key = pgcb_xstrdup(key), .value = pgcb_xstrdup(value), .line = c->lineno};
        return 1;
    }
    case SEC_QUERY: {
        struct pgcb_cfg_query *q = &cfg->queries[c->idx];
        if (strcmp(key, "sql") == 0) {
            free(q->sql);
            q->sql = pgcb_xstrdup(value);
        } else if (strcmp(key, "rows") == 0) {
            if (pgcb_parse_u64(value, 0, INT32_MAX, &u)) {
                fail(c, "[%s] rows: '%s' is not a non-negative integer", c->section, value);
                return 0;
            }
            q->rows = (int64_t)u;
        } else if (strcmp(key, "check") == 0) {
            if (strcmp(value, "checksum") == 0)
                q->check = PGCB_CHECK_CHECKSUM;
            else if (strcmp(value, "rows") == 0)
                q->check = PGCB_CHECK_ROWS;
            else if (strcmp(value, "none") == 0)
                q->check = PGCB_CHECK_NONE;
            else {
                fail(c, "[%s] check: '%s' is not 'checksum', 'rows' or 'none'", c->section,
                     value);
                return 0;
            }
            c->query_check_line[c->idx] = c->lineno;
        } else if (strcmp(key, "prime") == 0) {
            q->prime = parse_bool(value);
            if (q->prime < 0) {
                fail(c, "[%s] prime: '%s' is not yes or no", c->section, value);
                return 0;
            }
            c->query_prime_line[c->idx] = c->lineno;
        } else {
            return apply_param(c, q, key, value);
        }
        return 1;
    }
    case SEC_BACKGROUND:
        return apply_background(c, &cfg->backgrounds[c->idx], key, value);
    case SEC_SUITE: {
        struct pgcb_cfg_suite *s = &cfg->suites[c->idx];
        if (strcmp(key, "depth") == 0)
            return parse_depths(c, s, key, value);
        if (strcmp(key, "rows_per_txn") == 0) {
            s->transaction = 1;
            return parse_depths(c, s, key, value);
        }
        if (strcmp(key, "ops") == 0) {
            if (!int_key(c, key, value, 1, UINT32_MAX, &u))
                return 0;
            s->ops = u;
            return 1;
        }
        if (strcmp(key, "warmup_ms") == 0) {
            if (!int_key(c, key, value, 0, 3600000ull, &u))
                return 0;
            s->warmup_ms = (int64_t)u;
            return 1;
        }
        if (strcmp(key, "background") == 0) {
            free(c->suite_bgs[c->idx].names);
            c->suite_bgs[c->idx].names = pgcb_xstrdup(value);
            c->suite_bgs[c->idx].line = c->lineno;
            return 1;
        }
        if (strcmp(key, "threads") == 0) {
            if (!int_key(c, key, value, 1, PGCB_MAX_THREADS, &u))
                return 0;
            s->threads = (uint32_t)u;
            return 1;
        }
        if (strcmp(key, "queries") == 0) {
            free(c->suite_names[c->idx].names);
            c->suite_names[c->idx].names = pgcb_xstrdup(value);
            c->suite_names[c->idx].line = c->lineno;
        }
        return 1;
    }
    }
    return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    struct ctx *c = user;
    (void)section; /* tracked by the reader, which also sees empty sections */
    if (c->kind == SEC_NONE && !c->section[0]) {
        fail(c, "key '%s' before any [section]", name);
        return 1;
    }
    if (c->cont && strcmp(name, c->last_key) == 0) {
        /* A continuation line: the value goes on. */
        const char *sep = (c->kind == SEC_QUERY) ? "\n" : " ";
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
    case SEC_BENCH: keys = bench_keys; seen = &c->bench_seen; break;
    case SEC_SERVER: keys = server_keys; seen = &c->server_seen; break;
    case SEC_QUERY:
        if (param_number(name)) {
            const struct pgcb_cfg_query *q = &c->cfg->queries[c->idx];
            unsigned n = param_number(name);
            if (n <= q->nparams && (int)q->params[n - 1].kind != -1) {
                fail(c, "key '%s' repeated in [%s]", name, c->section);
                return 1;
            }
            break;
        }
        keys = query_keys;
        seen = &c->query_seen[c->idx];
        break;
    case SEC_SUITE: keys = suite_keys; seen = &c->suite_seen[c->idx]; break;
    case SEC_BACKGROUND: keys = bg_keys; seen = &c->bg_seen[c->idx]; break;
    case SEC_DRIVER: {
        /* Driver keys are checked against the driver's own list once it is
         * loaded; here only repetition. */
        struct pgcb_cfg_driver *d = &c->cfg->drivers[c->idx];
        int dup = (strcmp(name, "path") == 0 && d->path_line) ||
                  (strcmp(name, "measure") == 0 && d->measure_line);
        for (size_t i = 0; i < d->nopts; i++)
            dup |= strcmp(d->opts[i].key, name) == 0;
        if (dup) {
            fail(c, "key '%s' repeated in [%s]", name, c->section);
            return 1;
        }
        break;
    }
    case SEC_NONE: return 1;
    }
    if (keys) {
        int k = key_index(keys, name);
        if (k < 0) {
            unknown_key(c, keys, name);
            return 1;
        }
        if (*seen & (1u << k)) {
            fail(c, "key '%s' repeated in [%s]", name, c->section);
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

/* After the file: resolve suite query names, check required keys. */
static void finish(struct ctx *c)
{
    struct pgcb_config *cfg = c->cfg;
    if (c->err[0])
        return;
    c->lineno = 0;
#define FAIL_AT(line, ...) do { c->lineno = (line); fail(c, __VA_ARGS__); return; } while (0)
    if (cfg->until_decided && !cfg->until_max_orders)
        FAIL_AT(cfg->until_line, "[bench] until = decided needs until_max_orders, the most "
                "execution orders a group may run (its cap)");
    if (!cfg->until_decided && cfg->until_max_orders)
        FAIL_AT(cfg->until_max_line, "[bench] until_max_orders is the cap of until = decided; "
                "this file has no until = decided");
    if (!cfg->until_decided && cfg->until_width_line)
        FAIL_AT(cfg->until_width_line, "[bench] until_width belongs to until = decided; this "
                "file has no until = decided");
    if (cfg->ndrivers == 0)
        FAIL_AT(0, "no [driver.NAME] section: nothing to measure");
    for (size_t i = 0; i < cfg->ndrivers; i++)
        if (!cfg->drivers[i].path)
            FAIL_AT(cfg->drivers[i].line, "[driver.%s] has no 'path ='", cfg->drivers[i].name);
    if (cfg->nqueries == 0)
        FAIL_AT(0, "no [query.NAME] section: nothing to run");
    for (size_t i = 0; i < cfg->nqueries; i++)
        if (!cfg->queries[i].sql || !cfg->queries[i].sql[0])
            FAIL_AT(cfg->queries[i].line, "[query.%s] has no 'sql ='", cfg->queries[i].name);
    for (size_t i = 0; i < cfg->nqueries; i++) {
        struct pgcb_cfg_query *q = &cfg->queries[i];
        for (size_t j = 0; j < q->nparams; j++) {
            if ((int)q->params[j].kind == -1)
                FAIL_AT(q->line, "[query.%s] has param%zu but no param%zu: number the "
                        "parameters from 1 without gaps", q->name, q->nparams, j + 1);
            if (q->params[j].kind == PGCB_GEN_SEQ)
                q->params[j].seq_slot = cfg->nseqs++;
        }
        /* Random keys give different rows each batch: the checksum cannot be
         * compared, the row count only when the file gives it. */
        if (q->nparams && !c->query_check_line[i])
            q->check = q->rows >= 0 ? PGCB_CHECK_ROWS : PGCB_CHECK_NONE;
        /* Primed at connect time, before any suite has run: a query whose
         * keys come from generators may look for rows a write step has not
         * made yet, so only a read-only query without parameters is. */
        if (q->prime < 0)
            q->prime = !q->nparams && pgcb_config_read_only(q->sql);
    }
    if (cfg->nsuites == 0)
        FAIL_AT(0, "no [suite.NAME] section: say which queries to run at which depth");
    for (size_t i = 0; i < cfg->nsuites; i++) {
        struct pgcb_cfg_suite *s = &cfg->suites[i];
        if (s->ndepths == 0) {
            s->depths = pgcb_xmalloc(sizeof *s->depths);
            s->depths[0] = 1;
            s->ndepths = 1;
        }
        if (s->ops && s->ops % ((uint64_t)s->threads * s->depths[0]) != 0)
            FAIL_AT(s->line, "[suite.%s] ops = %llu is not a multiple of threads x %s (%u x %u)",
                    s->name, (unsigned long long)s->ops, s->transaction ? "rows_per_txn" : "depth",
                    s->threads, s->depths[0]);
        if (s->ops && s->ndepths > 1)
            FAIL_AT(s->line, "[suite.%s] ops: give one %s with ops", s->name,
                    s->transaction ? "rows_per_txn" : "depth");
        struct pending_names *bn = &c->suite_bgs[i];
        char *bsave = NULL;
        for (char *tok = bn->names ? strtok_r(bn->names, ", \t\n", &bsave) : NULL; tok;
             tok = strtok_r(NULL, ", \t\n", &bsave)) {
            long b = -1;
            for (size_t k = 0; k < cfg->nbackgrounds; k++)
                b = strcmp(cfg->backgrounds[k].name, tok) == 0 ? (long)k : b;
            if (b < 0)
                FAIL_AT(bn->line, "[suite.%s] background: no [background.%s] section", s->name,
                        tok);
            for (size_t k = 0; k < s->nbackgrounds; k++)
                if (s->backgrounds[k] == (size_t)b)
                    FAIL_AT(bn->line, "[suite.%s] background: %s listed twice", s->name, tok);
            s->backgrounds = pgcb_xrealloc(s->backgrounds,
                                           (s->nbackgrounds + 1) * sizeof *s->backgrounds);
            s->backgrounds[s->nbackgrounds++] = (size_t)b;
        }
        struct pending_names *pn = &c->suite_names[i];
        if (!pn->names) { /* all queries, in file order */
            s->queries = pgcb_xmalloc(cfg->nqueries * sizeof *s->queries);
            for (size_t q = 0; q < cfg->nqueries; q++)
                s->queries[q] = q;
            s->nqueries = cfg->nqueries;
            continue;
        }
        char *save = NULL;
        for (char *tok = strtok_r(pn->names, ", \t\n", &save); tok;
             tok = strtok_r(NULL, ", \t\n", &save)) {
            long q = pgcb_config_find_query(cfg, tok);
            if (q < 0)
                FAIL_AT(pn->line, "[suite.%s] queries: no [query.%s] section", s->name, tok);
            for (size_t k = 0; k < s->nqueries; k++)
                if (s->queries[k] == (size_t)q)
                    FAIL_AT(pn->line, "[suite.%s] queries: %s listed twice", s->name, tok);
            s->queries = pgcb_xrealloc(s->queries, (s->nqueries + 1) * sizeof *s->queries);
            s->queries[s->nqueries++] = (size_t)q;
        }
        if (s->nqueries == 0)
            FAIL_AT(pn->line, "[suite.%s] queries: empty", s->name);
    }
    for (size_t i = 0; i < cfg->nbackgrounds; i++) {
        struct pgcb_cfg_background *b = &cfg->backgrounds[i];
        if (!c->bg_driver[i].names)
            FAIL_AT(b->line, "[background.%s] has no 'driver =' (a [driver.NAME] of this file)",
                    b->name);
        if (!c->bg_query[i].names)
            FAIL_AT(b->line, "[background.%s] has no 'query ='", b->name);
        if (!(b->rate > 0))
            FAIL_AT(b->line, "[background.%s] has no 'rate =' (executions per second per "
                    "connection)", b->name);
        long d = pgcb_config_find_driver(cfg, c->bg_driver[i].names);
        if (d < 0)
            FAIL_AT(c->bg_driver[i].line, "[background.%s] driver: no [driver.%s] section",
                    b->name, c->bg_driver[i].names);
        long q = pgcb_config_find_query(cfg, c->bg_query[i].names);
        if (q < 0)
            FAIL_AT(c->bg_query[i].line, "[background.%s] query: no [query.%s] section",
                    b->name, c->bg_query[i].names);
        b->driver = (size_t)d;
        b->query = (size_t)q;
        if (b->ncpus == 0) { /* main.c moves them off the measuring CPUs when it can */
            memcpy(b->cpus, cfg->cpus, cfg->ncpus * sizeof *cfg->cpus);
            b->ncpus = cfg->ncpus;
            b->cpus_default = 1;
        }
    }
    size_t measured = 0;
    for (size_t i = 0; i < cfg->ndrivers; i++)
        measured += cfg->drivers[i].measure != 0;
    if (measured == 0)
        FAIL_AT(0, "every driver has 'measure = no': nothing to measure");
#undef FAIL_AT
}

/* Environment overrides: BENCH_TIME_MS, BENCH_QUERIES, PGCB_CONNINFO. */
static int apply_env(struct pgcb_config *cfg, char *err, size_t errlen)
{
    const char *v = getenv("BENCH_TIME_MS");
    uint64_t u;
    if (v && *v) {
        if (pgcb_parse_u64(v, 0, 86400000ull, &u)) {
            snprintf(err, errlen, "BENCH_TIME_MS: '%s' is not an integer from 0 to 86400000", v);
            return -1;
        }
        cfg->time_ms = u;
        cfg->time_source = "BENCH_TIME_MS";
    }
    v = getenv("BENCH_QUERIES");
    if (v && *v) {
        if (pgcb_parse_u64(v, 1, UINT32_MAX, &u)) {
            snprintf(err, errlen, "BENCH_QUERIES: '%s' is not an integer from 1 to %u", v,
                     UINT32_MAX);
            return -1;
        }
        cfg->min_queries = u;
        cfg->queries_source = "BENCH_QUERIES";
    }
    v = getenv("PGCB_CONNINFO");
    if (v) {
        free(cfg->conninfo);
        cfg->conninfo = pgcb_xstrdup(v);
        cfg->conninfo_source = "PGCB_CONNINFO";
    } else if (!cfg->conninfo) {
        cfg->conninfo = pgcb_xstrdup("");
        cfg->conninfo_source = "environment";
    } else {
        cfg->conninfo_source = cfg->conninfo[0] ? "file" : "environment";
    }
    return 0;
}

int pgcb_config_load(const char *path, struct pgcb_config *cfg, char *err, size_t errlen)
{
    *cfg = (struct pgcb_config){
        .time_ms = PGCB_DEFAULT_TIME_MS,
        .min_queries = PGCB_DEFAULT_QUERIES,
        .warmup_ms = PGCB_DEFAULT_WARMUP_MS,
        .batch_timeout_ms = PGCB_DEFAULT_BATCH_TIMEOUT_MS,
        .cpus = {0},
        .ncpus = 1,
        .orders = PGCB_ORDERS_AUTO,
        .alpha = PGCB_DEFAULT_ALPHA,
        .until_width = PGCB_DEFAULT_UNTIL_WIDTH,
        .interval_level = PGCB_DEFAULT_INTERVAL_LEVEL,
        .time_source = "default",
        .queries_source = "default",
        .seed = PGCB_DEFAULT_SEED,
        .noise_warn_pct = PGCB_STATS_NOISE_WARN_PCT,
        .proto = pgcb_proto_default(),
    };
    cfg->file = pgcb_xstrdup(path);
    const char *slash = strrchr(path, '/');
    cfg->dir = slash ? pgcb_xstrndup(path, (size_t)(slash - path) + (slash == path)) : pgcb_xstrdup("");

    struct ctx c = {.cfg = cfg};
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
        fail(&c, "syntax error (expected [section], key = value, or a ; comment)");
    }
    finish(&c);
    for (size_t i = 0; i < cfg->nsuites; i++) {
        free(c.suite_names[i].names);
        free(c.suite_bgs[i].names);
    }
    for (size_t i = 0; i < cfg->nbackgrounds; i++) {
        free(c.bg_driver[i].names);
        free(c.bg_query[i].names);
    }
    free(c.suite_names);
    free(c.suite_bgs);
    free(c.bg_driver);
    free(c.bg_query);
    free(c.bg_seen);
    free(c.query_check_line);
    free(c.query_prime_line);
    free(c.query_seen);
    free(c.suite_seen);
    free(c.last_value);
    if (c.err[0]) {
        /* ":0: " right after the path means the whole file rather than a line. */
        size_t flen = strlen(cfg->file);
        if (strlen(c.err) >= flen + 4 && memcmp(c.err + flen, ":0: ", 4) == 0)
            memmove(c.err + flen + 1, c.err + flen + 3, strlen(c.err + flen + 3) + 1);
        snprintf(err, errlen, "%s", c.err);
        pgcb_config_free(cfg);
        return -1;
    }
    if (apply_env(cfg, err, errlen)) {
        pgcb_config_free(cfg);
        return -1;
    }
    return 0;
}

long pgcb_config_find_query(const struct pgcb_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->nqueries; i++)
        if (strcmp(cfg->queries[i].name, name) == 0)
            return (long)i;
    return -1;
}

int pgcb_config_read_only(const char *sql)
{
    static const char *const words[] = {"select", "with", "values", "table", "show", NULL};
    while (*sql == ' ' || *sql == '\t' || *sql == '\n' || *sql == '\r' || *sql == '(')
        sql++;
    int ro = 0;
    for (int i = 0; words[i] && !ro; i++) {
        size_t n = strlen(words[i]);
        ro = strncasecmp(sql, words[i], n) == 0 && !isalnum((unsigned char)sql[n]) &&
             sql[n] != '_';
    }
    if (!ro || strncasecmp(sql, "with", 4) != 0)
        return ro;
    /* A WITH that names a writing verb anywhere (a data-modifying CTE), to
     * be safe. */
    static const char *const verbs[] = {"insert", "update", "delete", "merge", NULL};
    for (const char *p = sql; *p; p++) {
        if (p != sql && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        for (int i = 0; verbs[i]; i++) {
            size_t n = strlen(verbs[i]);
            if (strncasecmp(p, verbs[i], n) == 0 && !isalnum((unsigned char)p[n]) &&
                p[n] != '_')
                return 0;
        }
    }
    return 1;
}

long pgcb_config_find_driver(const struct pgcb_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->ndrivers; i++)
        if (strcmp(cfg->drivers[i].name, name) == 0)
            return (long)i;
    return -1;
}

void pgcb_config_free(struct pgcb_config *cfg)
{
    if (!cfg)
        return;
    for (size_t i = 0; i < cfg->ndrivers; i++) {
        struct pgcb_cfg_driver *d = &cfg->drivers[i];
        for (size_t k = 0; k < d->nopts; k++) {
            free(d->opts[k].key);
            free(d->opts[k].value);
        }
        free(d->opts);
        free(d->name);
        free(d->path);
    }
    for (size_t i = 0; i < cfg->nqueries; i++) {
        free(cfg->queries[i].name);
        free(cfg->queries[i].sql);
        for (size_t j = 0; j < cfg->queries[i].nparams; j++)
            if ((int)cfg->queries[i].params[j].kind != -1)
                pgcb_gen_free(&cfg->queries[i].params[j]);
        free(cfg->queries[i].params);
    }
    for (size_t i = 0; i < cfg->nsuites; i++) {
        free(cfg->suites[i].name);
        free(cfg->suites[i].depths);
        free(cfg->suites[i].queries);
        free(cfg->suites[i].backgrounds);
    }
    for (size_t i = 0; i < cfg->nbackgrounds; i++)
        free(cfg->backgrounds[i].name);
    free(cfg->backgrounds);
    free(cfg->drivers);
    free(cfg->queries);
    free(cfg->suites);
    free(cfg->file);
    free(cfg->dir);
    free(cfg->output);
    free(cfg->conninfo);
    free(cfg->setup);
    *cfg = (struct pgcb_config){0};
}
