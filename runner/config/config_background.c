/*
 * config_background.c -- [background.NAME] sections: a driver running a
 * query at a fixed rate on its own connections while the suites that name
 * it are measured. The driver and query names are resolved once the whole
 * file is read. See config_int.h for the contracts.
 */
#include "config_int.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *const pgcb_cfgi_bg_keys[] = {"driver", "query", "rate", "connections", "cpus",
                                         "sla", NULL};

void pgcb_cfgi_bg_begin(struct pgcb_cfgi_ctx *c, const char *name)
{
    struct pgcb_config *cfg = c->cfg;
    size_t n = cfg->nbackgrounds;
    cfg->backgrounds = pgcb_xrealloc(cfg->backgrounds, (n + 1) * sizeof *cfg->backgrounds);
    cfg->backgrounds[n] = (struct pgcb_cfg_background){
        .name = pgcb_xstrdup(name), .connections = 1, .sla = PGCB_DEFAULT_SLA,
        .line = c->lineno};
    c->bg_seen = pgcb_xrealloc(c->bg_seen, (n + 1) * sizeof *c->bg_seen);
    c->bg_seen[n] = 0;
    c->bg_driver = pgcb_xrealloc(c->bg_driver, (n + 1) * sizeof *c->bg_driver);
    c->bg_driver[n] = (struct pgcb_cfgi_names){0};
    c->bg_query = pgcb_xrealloc(c->bg_query, (n + 1) * sizeof *c->bg_query);
    c->bg_query[n] = (struct pgcb_cfgi_names){0};
    c->idx = cfg->nbackgrounds++;
}

long pgcb_cfgi_find_bg(const struct pgcb_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->nbackgrounds; i++)
        if (strcmp(cfg->backgrounds[i].name, name) == 0)
            return (long)i;
    return -1;
}

int pgcb_cfgi_bg_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value)
{
    struct pgcb_cfg_background *b = &c->cfg->backgrounds[c->idx];
    uint64_t u;
    if (strcmp(key, "driver") == 0 || strcmp(key, "query") == 0) {
        struct pgcb_cfgi_names *pn = key[0] == 'd' ? &c->bg_driver[c->idx]
                                                   : &c->bg_query[c->idx];
        free(pn->names);
        pn->names = pgcb_xstrdup(value);
        pn->line = c->lineno;
    } else if (strcmp(key, "rate") == 0) {
        return pgcb_cfgi_real_key(c, key, value, 1e7, "a number of executions per second "
                                  "above 0 and up to 10000000", &b->rate);
    } else if (strcmp(key, "connections") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 1, PGCB_MAX_THREADS, &u))
            return 0;
        b->connections = (uint32_t)u;
    } else if (strcmp(key, "cpus") == 0) {
        char e[160];
        int n = pgcb_parse_cpus(value, b->cpus, PGCB_MAX_CPUS, e, sizeof e);
        if (n < 0) {
            pgcb_cfgi_fail(c, "[%s] cpus: %s", c->section, e);
            return 0;
        }
        b->ncpus = (size_t)n;
    } else if (strcmp(key, "sla") == 0) {
        return pgcb_cfgi_real_key(c, key, value, 1, "a fraction of the target rate above 0 "
                                  "and up to 1 (e.g. 0.95)", &b->sla);
    }
    return 1;
}

int pgcb_cfgi_bg_finish(struct pgcb_cfgi_ctx *c)
{
    struct pgcb_config *cfg = c->cfg;
    for (size_t i = 0; i < cfg->nbackgrounds; i++) {
        struct pgcb_cfg_background *b = &cfg->backgrounds[i];
        const struct pgcb_cfgi_names *dn = &c->bg_driver[i], *qn = &c->bg_query[i];
        if (!dn->names)
            PGCB_CFGI_FAIL_AT(c, b->line, "[background.%s] has no 'driver =' (a "
                              "[driver.NAME] of this file)", b->name);
        if (!qn->names)
            PGCB_CFGI_FAIL_AT(c, b->line, "[background.%s] has no 'query ='", b->name);
        if (!(b->rate > 0))
            PGCB_CFGI_FAIL_AT(c, b->line, "[background.%s] has no 'rate =' (executions per "
                              "second per connection)", b->name);
        long d = pgcb_config_find_driver(cfg, dn->names);
        if (d < 0)
            PGCB_CFGI_FAIL_AT(c, dn->line, "[background.%s] driver: no [driver.%s] section",
                              b->name, dn->names);
        long q = pgcb_config_find_query(cfg, qn->names);
        if (q < 0)
            PGCB_CFGI_FAIL_AT(c, qn->line, "[background.%s] query: no [query.%s] section",
                              b->name, qn->names);
        b->driver = (size_t)d;
        b->query = (size_t)q;
        if (b->ncpus == 0) { /* main.c moves them off the measuring CPUs when it can */
            memcpy(b->cpus, cfg->cpus, cfg->ncpus * sizeof *cfg->cpus);
            b->ncpus = cfg->ncpus;
            b->cpus_default = 1;
        }
    }
    return 0;
}
