/* connplan.c -- see connplan.h. */
#include "connplan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define SLOTS (PGCB_TRANSPORT_N + 1)

/* Transport t's part: its derived default with [server] KEY over it; a
 * default that cannot be derived is an error unless the key is set (then
 * the key over what could be derived -- host and port of a server with ssl
 * = off -- tried as it is). New string, or NULL with err. */
static char *transport_part(const struct pgcb_config *cfg, const struct pgcb_cfg_suite *su,
                            enum pgcb_transport t, const struct pgcb_server_info *si, char *err,
                            size_t errlen)
{
    char derived[700] = "", why[400];
    const char *given = cfg->transport_conninfo[t];
    if (si && pgcb_transport_derive(t, &si->transport, derived, sizeof derived, why,
                                    sizeof why) != 0) {
        if (!given) {
            if (su->transport_by_rtt)
                snprintf(err, errlen, "%s:%d: [suite.%s] rtt_ms: the round-trip time is added "
                         "by a proxy that reaches the server over TCP: %s", cfg->file,
                         su->transport_line, su->name, why);
            else
                snprintf(err, errlen, "%s:%d: [suite.%s] transport = %s: %s", cfg->file,
                         su->transport_line, su->name, pgcb_transport_name(t), why);
            return NULL;
        }
    }
    char merr[400];
    char *part = pgcb_conninfo_merge(derived, given, merr, sizeof merr);
    if (!part)
        snprintf(err, errlen, "%s:%d: [server] %s: %s", cfg->file, cfg->transport_line[t],
                 pgcb_transport_name(t), merr);
    return part;
}

/* [server] conninfo, then `part` (NULL: none), then the suite's conninfo. */
static char *suite_string(const struct pgcb_config *cfg, const struct pgcb_cfg_suite *su,
                          const char *part, char *err, size_t errlen)
{
    char merr[400];
    char *a = pgcb_conninfo_merge(cfg->conninfo, part, merr, sizeof merr);
    if (!a) {
        snprintf(err, errlen, "%s: [server] conninfo: %s", cfg->file, merr);
        return NULL;
    }
    if (!su->conninfo)
        return a;
    char *b = pgcb_conninfo_merge(a, su->conninfo, merr, sizeof merr);
    free(a);
    if (!b)
        snprintf(err, errlen, "%s:%d: [suite.%s] conninfo: %s", cfg->file, su->conninfo_line,
                 su->name, merr);
    return b;
}

int pgcb_connplan_build(struct pgcb_connplan *p, const struct pgcb_config *cfg,
                        const struct pgcb_server_info *si, char *err, size_t errlen)
{
    p->nsuites = cfg->nsuites;
    p->conninfo = pgcb_xcalloc(cfg->nsuites * SLOTS + 1, sizeof *p->conninfo);
    for (size_t s = 0; s < cfg->nsuites; s++) {
        const struct pgcb_cfg_suite *su = &cfg->suites[s];
        char **row = &p->conninfo[s * SLOTS];
        if (su->ntransports == 0) {
            /* As given, unless the suite adds keys of its own. */
            row[PGCB_TRANSPORT_N] = su->conninfo ? suite_string(cfg, su, NULL, err, errlen)
                                                 : pgcb_xstrdup(cfg->conninfo);
            if (!row[PGCB_TRANSPORT_N])
                return -1;
            continue;
        }
        for (size_t k = 0; k < su->ntransports; k++) {
            enum pgcb_transport t = su->transports[k];
            char *part = transport_part(cfg, su, t, si, err, errlen);
            if (!part)
                return -1;
            row[t] = suite_string(cfg, su, part, err, errlen);
            free(part);
            if (!row[t])
                return -1;
        }
    }
    return 0;
}

const char *pgcb_connplan_get(const struct pgcb_connplan *p, const struct pgcb_config *cfg,
                              size_t suite, int t)
{
    size_t slot = t < 0 || t >= PGCB_TRANSPORT_N ? PGCB_TRANSPORT_N : (size_t)t;
    const char *ci = p && p->conninfo && suite < p->nsuites ? p->conninfo[suite * SLOTS + slot]
                                                           : NULL;
    return ci ? ci : cfg->conninfo;
}

const char *pgcb_connplan_first(const struct pgcb_connplan *p, const struct pgcb_config *cfg)
{
    if (cfg->nsuites == 0)
        return cfg->conninfo;
    const struct pgcb_cfg_suite *su = &cfg->suites[0];
    return pgcb_connplan_get(p, cfg, 0, su->ntransports ? (int)su->transports[0] : -1);
}

void pgcb_connplan_free(struct pgcb_connplan *p)
{
    for (size_t i = 0; p->conninfo && i < p->nsuites * SLOTS; i++)
        free(p->conninfo[i]);
    free(p->conninfo);
    *p = (struct pgcb_connplan){0};
}
