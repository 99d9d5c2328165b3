/*
 * config_value.c -- the value parsers every section of the INI file uses,
 * and the name lists of the command line's pieces (config_int.h). Messages
 * are recorded through pgcb_cfgi_fail().
 */
#include "config_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pqutil/pq_errmsg.h"
#include "util.h"

int pgcb_cfgi_parse_fraction(const char *s, double *out)
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

int pgcb_cfgi_key_index(const char *const *keys, const char *key)
{
    for (int i = 0; keys[i]; i++)
        if (strcmp(keys[i], key) == 0)
            return i;
    return -1;
}

int pgcb_cfgi_valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63)
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

int pgcb_cfgi_valid_driver_name(const char *s)
{
    const char *at = strchr(s, '@');
    if (!at)
        return pgcb_cfgi_valid_name(s);
    size_t n = strlen(s), base = (size_t)(at - s);
    if (base == 0 || base > 62 || n > 63 || !at[1])
        return 0;
    char head[64];
    memcpy(head, s, base);
    head[base] = '\0';
    if (!pgcb_cfgi_valid_name(head) || !(isdigit((unsigned char)at[1]) || at[1] == 'v'))
        return 0;
    for (const char *p = at + 1; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '.' ||
              *p == '_' || *p == '-' || *p == '+'))
            return 0;
    return 1;
}

char *pgcb_cfgi_resolve_path(const struct pgcb_config *cfg, const char *p)
{
    if (p[0] == '/' || !cfg->dir[0])
        return pgcb_xstrdup(p);
    return pgcb_xasprintf("%s/%s", cfg->dir, p);
}

int pgcb_cfgi_int_key(struct pgcb_cfgi_ctx *c, const char *key, const char *value, uint64_t min,
                      uint64_t max, uint64_t *out)
{
    if (pgcb_parse_u64(value, min, max, out) == 0)
        return 1;
    pgcb_cfgi_fail(c, "[%s] %s: '%s' is not an integer from %llu to %llu", c->section, key,
                   value, (unsigned long long)min, (unsigned long long)max);
    return 0;
}

int pgcb_cfgi_conninfo_key(struct pgcb_cfgi_ctx *c, const char *key, const char *value)
{
    char why[PGCB_ERRLEN];
    if (pgcb_pq_check_conninfo(value, why, sizeof why) == PGCB_OK)
        return 1;
    pgcb_cfgi_fail(c, "[%s] %s: %s", c->section, key, why);
    return 0;
}

int pgcb_cfgi_real_key(struct pgcb_cfgi_ctx *c, const char *key, const char *value, double max,
                       const char *what, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (errno || end == value || *end || !(v > 0) || v > max) {
        pgcb_cfgi_fail(c, "[%s] %s: '%s' is not %s", c->section, key, value, what);
        return 0;
    }
    *out = v;
    return 1;
}

int pgcb_cfgi_parse_bool(const char *v)
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

void pgcb_cfgi_list(char *buf, size_t n, size_t count,
                    const char *(*name_of)(const struct pgcb_config *, size_t),
                    const struct pgcb_config *cfg)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        const char *name = name_of(cfg, i);
        size_t need = strlen(name) + (i ? 2 : 0);
        if (len + need + 5 > n) { /* room for ", ..." and the NUL */
            snprintf(buf + len, n - len, "%s...", i ? ", " : "");
            return;
        }
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", name);
    }
}

void pgcb_cfgi_names_add(struct pgcb_cfg_names *l, const char *name)
{
    l->v = pgcb_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
    l->v[l->n++] = pgcb_xstrdup(name);
}

void pgcb_cfgi_names_free(struct pgcb_cfg_names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    *l = (struct pgcb_cfg_names){0};
}
