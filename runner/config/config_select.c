/*
 * config_select.c -- the command line's selection: --only NAME,... (the
 * drivers measured), --suite NAME,... (the suites run) and --query
 * NAME,... (the queries each remaining suite runs), applied to a config that
 * has loaded. Each flag is repeatable and takes comma lists; each name must
 * exist (else one line naming it and what exists) and be given once.
 *
 * What is left out:
 *   - a driver --only does not name is not measured (measure = 0); if a
 *     background load of a remaining suite uses it, it is still loaded for
 *     that; --only may not name a driver that has `measure = no`;
 *   - a suite --suite does not name is removed, and so is a suite left with
 *     no query by --query (an error when --suite named it); every --query
 *     name must be run by some remaining suite;
 *   - a [background.NAME] that only removed suites named is removed, so that
 *     it is not started.
 * The config's queries stay (indices do not move); those no remaining suite
 * runs are not prepared (host.c). cfg->sel records what was asked and what
 * was left out; pgcb_config_record_selection() copies it for the result.
 * See config_int.h.
 */
#include "config_int.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The names of comma lists list[0..n) into out (each once: else -1). */
static int split(const char *const *list, size_t n, const char *flag, struct pgcb_cfg_names *out,
                 char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        char *copy = pgcb_xstrdup(list[i]), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            for (size_t k = 0; k < out->n; k++)
                if (strcmp(out->v[k], tok) == 0) {
                    snprintf(err, errlen, "%s: %s is given twice", flag, tok);
                    free(copy);
                    return -1;
                }
            pgcb_cfgi_names_add(out, tok);
        }
        free(copy);
    }
    return 0;
}

static int listed(const struct pgcb_cfg_names *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], name) == 0)
            return 1;
    return 0;
}

static const char *driver_name(const struct pgcb_config *cfg, size_t i)
{
    return cfg->drivers[i].name;
}

static const char *suite_name(const struct pgcb_config *cfg, size_t i)
{
    return cfg->suites[i].name;
}

static const char *query_name(const struct pgcb_config *cfg, size_t i)
{
    return cfg->queries[i].name;
}

static int select_drivers(struct pgcb_config *cfg, char *err, size_t errlen)
{
    struct pgcb_cfg_selection *sel = &cfg->sel;
    char known[256];
    for (size_t i = 0; i < sel->only.n; i++) {
        long d = pgcb_config_find_driver(cfg, sel->only.v[i]);
        if (d < 0) {
            pgcb_cfgi_list(known, sizeof known, cfg->ndrivers, driver_name, cfg);
            snprintf(err, errlen, "--only: no driver %s (the config's drivers: %s)",
                     sel->only.v[i], known);
            return -1;
        }
        if (!cfg->drivers[d].measure) {
            snprintf(err, errlen, "--only: driver %s has measure = no (it only runs "
                     "background loads)", sel->only.v[i]);
            return -1;
        }
    }
    for (size_t i = 0; i < cfg->ndrivers; i++)
        if (cfg->drivers[i].measure && !listed(&sel->only, cfg->drivers[i].name)) {
            cfg->drivers[i].measure = 0;
            pgcb_cfgi_names_add(&sel->dropped_drivers, cfg->drivers[i].name);
        }
    return 0;
}

/* Keep suite i's queries that --query names; 1 if any is left. */
static int filter_queries(struct pgcb_config *cfg, struct pgcb_cfg_suite *s)
{
    size_t kept = 0;
    for (size_t k = 0; k < s->nqueries; k++)
        if (listed(&cfg->sel.queries, cfg->queries[s->queries[k]].name))
            s->queries[kept++] = s->queries[k];
    s->nqueries = kept;
    return kept > 0;
}

/* Remove suite i (recorded as dropped). */
static void drop_suite(struct pgcb_config *cfg, size_t i)
{
    pgcb_cfgi_names_add(&cfg->sel.dropped_suites, cfg->suites[i].name);
    pgcb_cfgi_suite_free(&cfg->suites[i]);
    memmove(&cfg->suites[i], &cfg->suites[i + 1], (cfg->nsuites - i - 1) * sizeof *cfg->suites);
    cfg->nsuites--;
}

static int select_suites(struct pgcb_config *cfg, char *err, size_t errlen)
{
    struct pgcb_cfg_selection *sel = &cfg->sel;
    char known[256], suites[256];
    pgcb_cfgi_list(suites, sizeof suites, cfg->nsuites, suite_name, cfg);
    for (size_t i = 0; i < sel->suites.n; i++)
        if (pgcb_cfgi_find_suite(cfg, sel->suites.v[i]) < 0) {
            snprintf(err, errlen, "--suite: no suite %s (the config's suites: %s)",
                     sel->suites.v[i], suites);
            return -1;
        }
    for (size_t i = 0; i < sel->queries.n; i++)
        if (pgcb_config_find_query(cfg, sel->queries.v[i]) < 0) {
            pgcb_cfgi_list(known, sizeof known, cfg->nqueries, query_name, cfg);
            snprintf(err, errlen, "--query: no query %s (the config's queries: %s)",
                     sel->queries.v[i], known);
            return -1;
        }
    for (size_t i = 0; i < cfg->nsuites;) {
        struct pgcb_cfg_suite *s = &cfg->suites[i];
        int named = listed(&sel->suites, s->name);
        if (sel->suites_given && !named) {
            drop_suite(cfg, i);
            continue;
        }
        if (sel->queries_given && !filter_queries(cfg, s)) {
            if (named) {
                snprintf(err, errlen, "--suite %s: it runs none of the queries --query names",
                         s->name);
                return -1;
            }
            drop_suite(cfg, i);
            continue;
        }
        i++;
    }
    for (size_t i = 0; i < sel->queries.n; i++) {
        long q = pgcb_config_find_query(cfg, sel->queries.v[i]);
        int run = 0;
        for (size_t s = 0; s < cfg->nsuites; s++)
            for (size_t k = 0; k < cfg->suites[s].nqueries; k++)
                run |= cfg->suites[s].queries[k] == (size_t)q;
        if (!run) {
            pgcb_cfgi_list(known, sizeof known, cfg->nsuites, suite_name, cfg);
            if (sel->suites_given)
                snprintf(err, errlen, "--query: query %s is in none of the suites --suite "
                         "names (%s)", sel->queries.v[i], known);
            else
                snprintf(err, errlen, "--query: no suite runs query %s (the config's suites: "
                         "%s)", sel->queries.v[i], suites);
            return -1;
        }
    }
    return 0;
}

/* Remove the backgrounds that were_named[] says some suite named and no
 * remaining suite does; renumber the suites' indices. */
static void drop_backgrounds(struct pgcb_config *cfg, const int *were_named)
{
    size_t nb = cfg->nbackgrounds;
    size_t *to = pgcb_xcalloc(nb ? nb : 1, sizeof *to);
    int *named = pgcb_xcalloc(nb ? nb : 1, sizeof *named);
    for (size_t s = 0; s < cfg->nsuites; s++)
        for (size_t k = 0; k < cfg->suites[s].nbackgrounds; k++)
            named[cfg->suites[s].backgrounds[k]] = 1;
    size_t kept = 0;
    for (size_t b = 0; b < nb; b++) {
        if (were_named[b] && !named[b]) {
            free(cfg->backgrounds[b].name);
            continue;
        }
        to[b] = kept;
        cfg->backgrounds[kept++] = cfg->backgrounds[b];
    }
    cfg->nbackgrounds = kept;
    for (size_t s = 0; s < cfg->nsuites; s++)
        for (size_t k = 0; k < cfg->suites[s].nbackgrounds; k++)
            cfg->suites[s].backgrounds[k] = to[cfg->suites[s].backgrounds[k]];
    free(to);
    free(named);
}

/* 1 for each query some suite runs. The caller frees the array. */
static int *queries_run(const struct pgcb_config *cfg)
{
    int *run = pgcb_xcalloc(cfg->nqueries ? cfg->nqueries : 1, sizeof *run);
    for (size_t s = 0; s < cfg->nsuites; s++)
        for (size_t k = 0; k < cfg->suites[s].nqueries; k++)
            run[cfg->suites[s].queries[k]] = 1;
    return run;
}

int pgcb_cfgi_select(struct pgcb_config *cfg, const struct pgcb_config_cli *cli, char *err,
                     size_t errlen)
{
    struct pgcb_cfg_selection *sel = &cfg->sel;
    sel->only_given = cli->nonly > 0;
    sel->suites_given = cli->nsuites > 0;
    sel->queries_given = cli->nqueries > 0;
    if (split(cli->only, cli->nonly, "--only", &sel->only, err, errlen) != 0 ||
        split(cli->suites, cli->nsuites, "--suite", &sel->suites, err, errlen) != 0 ||
        split(cli->queries, cli->nqueries, "--query", &sel->queries, err, errlen) != 0)
        return -1;
    if (sel->only_given && select_drivers(cfg, err, errlen) != 0)
        return -1;
    if (!sel->suites_given && !sel->queries_given)
        return 0;
    int *before = queries_run(cfg);
    int *bg_named = pgcb_xcalloc(cfg->nbackgrounds ? cfg->nbackgrounds : 1, sizeof *bg_named);
    for (size_t s = 0; s < cfg->nsuites; s++)
        for (size_t k = 0; k < cfg->suites[s].nbackgrounds; k++)
            bg_named[cfg->suites[s].backgrounds[k]] = 1;
    int rc = select_suites(cfg, err, errlen);
    if (rc == 0) {
        drop_backgrounds(cfg, bg_named);
        int *after = queries_run(cfg);
        for (size_t q = 0; q < cfg->nqueries; q++)
            if (before[q] && !after[q])
                pgcb_cfgi_names_add(&sel->dropped_queries, cfg->queries[q].name);
        free(after);
    }
    free(bg_named);
    free(before);
    return rc;
}

static void copy_names(const struct pgcb_cfg_names *from, struct pgcb_res_names *to)
{
    to->v = pgcb_xcalloc(from->n + 1, sizeof *to->v);
    for (to->n = 0; to->n < from->n; to->n++)
        to->v[to->n] = pgcb_xstrdup(from->v[to->n]);
}

void pgcb_config_record_selection(const struct pgcb_config *cfg, struct pgcb_res_selection *out)
{
    const struct pgcb_cfg_selection *sel = &cfg->sel;
    *out = (struct pgcb_res_selection){
        .recorded = 1,
        .driver_dir = cfg->driver_dir ? pgcb_xstrdup(cfg->driver_dir) : NULL,
        .only_given = sel->only_given,
        .suites_given = sel->suites_given,
        .queries_given = sel->queries_given,
        .time_source = pgcb_xstrdup(cfg->time_source),
        .queries_source = pgcb_xstrdup(cfg->queries_source),
    };
    out->added = pgcb_xcalloc(cfg->ndrivers + 1, sizeof *out->added);
    for (size_t i = 0; i < cfg->ndrivers; i++) {
        const struct pgcb_cfg_driver *d = &cfg->drivers[i];
        if (d->origin == PGCB_CFG_FROM_SECTION)
            continue;
        out->added[out->nadded++] = (struct pgcb_res_added_driver){
            .name = pgcb_xstrdup(d->name), .path = pgcb_xstrdup(d->path),
            .from = pgcb_xstrdup(d->origin == PGCB_CFG_FROM_DIR ? "driver_dir" : "--driver")};
    }
    copy_names(&sel->only, &out->only);
    copy_names(&sel->suites, &out->suites);
    copy_names(&sel->queries, &out->queries);
    copy_names(&sel->dropped_drivers, &out->left_out_drivers);
    copy_names(&sel->dropped_suites, &out->left_out_suites);
    copy_names(&sel->dropped_queries, &out->left_out_queries);
}
