/*
 * config_driver.c -- [driver.NAME] sections: the .so's path, `measure`,
 * and the driver's own keys, kept in file order for the driver (which
 * checks them against its option list when it is loaded, session.c); and
 * drivers without a section (driver_dir's, --driver's: default options).
 * See config_int.h for the contracts.
 */
#include "config_int.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void pgcb_cfgi_driver_begin(struct pgcb_cfgi_ctx *c, const char *name)
{
    struct pgcb_config *cfg = c->cfg;
    cfg->drivers = pgcb_xrealloc(cfg->drivers, (cfg->ndrivers + 1) * sizeof *cfg->drivers);
    cfg->drivers[cfg->ndrivers] = (struct pgcb_cfg_driver){
        .name = pgcb_xstrdup(name), .line = c->lineno, .measure = 1, .has_section = 1};
    c->idx = cfg->ndrivers++;
}

struct pgcb_cfg_driver *pgcb_cfgi_driver_add(struct pgcb_config *cfg, const char *name,
                                             const char *path, enum pgcb_cfg_origin origin,
                                             int line)
{
    cfg->drivers = pgcb_xrealloc(cfg->drivers, (cfg->ndrivers + 1) * sizeof *cfg->drivers);
    struct pgcb_cfg_driver *d = &cfg->drivers[cfg->ndrivers++];
    *d = (struct pgcb_cfg_driver){.name = pgcb_xstrdup(name), .path = pgcb_xstrdup(path),
                                  .line = line, .path_line = line, .measure = 1,
                                  .origin = origin};
    return d;
}

int pgcb_cfgi_driver_repeated(const struct pgcb_cfgi_ctx *c, const char *key)
{
    const struct pgcb_cfg_driver *d = &c->cfg->drivers[c->idx];
    int dup = (strcmp(key, "path") == 0 && d->path_line) ||
              (strcmp(key, "measure") == 0 && d->measure_line);
    for (size_t i = 0; i < d->nopts; i++)
        dup |= strcmp(d->opts[i].key, key) == 0;
    return dup;
}

int pgcb_cfgi_driver_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value)
{
    struct pgcb_cfg_driver *d = &c->cfg->drivers[c->idx];
    if (strcmp(key, "path") == 0) {
        free(d->path);
        d->path = pgcb_cfgi_resolve_path(c->cfg, value);
        d->path_line = c->lineno;
        return 1;
    }
    if (strcmp(key, "measure") == 0) {
        int b = pgcb_cfgi_parse_bool(value);
        if (b < 0) {
            pgcb_cfgi_fail(c, "[%s] measure: '%s' is not yes or no", c->section, value);
            return 0;
        }
        d->measure = b;
        d->measure_line = c->lineno;
        return 1;
    }
    /* A continuation line re-applies the key with the longer value. */
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

int pgcb_cfgi_driver_finish(struct pgcb_cfgi_ctx *c)
{
    const struct pgcb_config *cfg = c->cfg;
    if (cfg->ndrivers == 0)
        PGCB_CFGI_FAIL_AT(c, 0, "no [driver.NAME] section: nothing to measure");
    for (size_t i = 0; i < cfg->ndrivers; i++)
        if (!cfg->drivers[i].path && cfg->driver_dir)
            PGCB_CFGI_FAIL_AT(c, cfg->drivers[i].line, "[driver.%s] has no 'path =' and "
                              "driver_dir %s has no %s.so", cfg->drivers[i].name,
                              cfg->driver_dir, cfg->drivers[i].name);
        else if (!cfg->drivers[i].path)
            PGCB_CFGI_FAIL_AT(c, cfg->drivers[i].line, "[driver.%s] has no 'path ='",
                              cfg->drivers[i].name);
    return 0;
}

int pgcb_cfgi_driver_finish_measured(struct pgcb_cfgi_ctx *c)
{
    const struct pgcb_config *cfg = c->cfg;
    size_t measured = 0;
    for (size_t i = 0; i < cfg->ndrivers; i++)
        measured += cfg->drivers[i].measure != 0;
    if (measured == 0)
        PGCB_CFGI_FAIL_AT(c, 0, "every driver has 'measure = no': nothing to measure");
    return 0;
}

long pgcb_config_find_driver(const struct pgcb_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->ndrivers; i++)
        if (strcmp(cfg->drivers[i].name, name) == 0)
            return (long)i;
    return -1;
}

void pgcb_cfgi_driver_free(struct pgcb_cfg_driver *d)
{
    for (size_t k = 0; k < d->nopts; k++) {
        free(d->opts[k].key);
        free(d->opts[k].value);
    }
    free(d->opts);
    free(d->name);
    free(d->path);
}
