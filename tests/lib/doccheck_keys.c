/*
 * doccheck_keys.c -- the docs checks that need the runner's loader: the INI
 * blocks and the key tables; see doccheck.h.
 *
 * The keys each section accepts are asked of the loader (runner/config/config.c)
 * itself, by loading a one-section file with an unknown key: its message
 * lists the known keys, and that of an unknown section the known sections.
 * A driver's options are asked of the driver (runner/host/loader.c dlopen()s it
 * and reads its descriptor's option list).
 */
#include "doccheck.h"
#include "doccheck_int.h"

#include <glob.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "host/loader.h"
#include "util.h"

#define PROBE_KEY "pgcb_docs_probe"

/* The loader's own keys of a [driver.NAME] section (runner/config/config.c, apply():
 * SEC_DRIVER); every other key of the section goes to the driver. */
static const char *const driver_section_keys[] = {"path", "measure", NULL};

/* ---- the loader's keys ---------------------------------------------------------- */

/* Load `ini` (written to the scratch directory) with the runner's loader:
 * its error into msg ("" when it loads). */
static void load_probe(struct doccheck *c, const char *ini, char *msg, size_t n)
{
    char *path = pgcb_xasprintf("%s/probe.ini", c->tmp);
    struct pgcb_config cfg;
    msg[0] = '\0';
    if (doccheck_write(path, ini) != 0)
        snprintf(msg, n, "cannot write %s", path);
    else if (pgcb_config_load(path, &cfg, msg, n) == 0)
        pgcb_config_free(&cfg);
    unlink(path);
    free(path);
}

/* The list of "(known: a, b, c)" in msg, split into words at ", " (into
 * buf). Returns how many, or -1 if msg has no such list. */
static int known_list(const char *msg, char *buf, size_t n, char **words, int max)
{
    const char *k = strstr(msg, "(known: ");
    const char *e = k ? strrchr(k, ')') : NULL;
    if (!k || !e)
        return -1;
    k += strlen("(known: ");
    snprintf(buf, n, "%.*s", (int)(e - k), k);
    int nw = 0;
    for (char *p = buf; p && *p && nw < max;) {
        char *sep = strstr(p, ", ");
        if (sep)
            *sep = '\0';
        words[nw++] = p;
        p = sep ? sep + 2 : NULL;
    }
    return nw;
}

int doccheck_probe_loader(struct doccheck *c, char *err, size_t errlen)
{
    char msg[1024], buf[1024], kbuf[1024];
    char *secs[16], *keys[DOCCHECK_MAX_KEYS];
    load_probe(c, "[" PROBE_KEY "]\n", msg, sizeof msg);
    int ns = known_list(msg, buf, sizeof buf, secs, 16);
    if (ns <= 0) {
        snprintf(err, errlen, "the loader's message for an unknown section lists no known "
                 "sections (update tests/lib/doccheck_keys.c): %s", msg);
        return -1;
    }
    for (int i = 0; i < ns && c->nsections < sizeof c->sections / sizeof c->sections[0]; i++) {
        /* "[bench]" or "[driver.NAME]" */
        struct doccheck_section *s = &c->sections[c->nsections];
        size_t len = strcspn(secs[i] + 1, ".]");
        snprintf(s->name, sizeof s->name, "%.*s", (int)len, secs[i] + 1);
        s->named = secs[i][1 + len] == '.';
        c->nsections++;
        if (strcmp(s->name, "driver") == 0) {
            for (size_t k = 0; driver_section_keys[k]; k++)
                s->keys[s->nkeys++] = pgcb_xstrdup(driver_section_keys[k]);
            continue;
        }
        char *ini = pgcb_xasprintf("[%s%s]\n" PROBE_KEY " = 1\n", s->name,
                                   s->named ? ".docs" : "");
        load_probe(c, ini, msg, sizeof msg);
        free(ini);
        int nk = known_list(msg, kbuf, sizeof kbuf, keys, DOCCHECK_MAX_KEYS);
        if (nk <= 0 || !strstr(msg, "unknown key '" PROBE_KEY "'")) {
            snprintf(err, errlen, "the loader's message for an unknown key in [%s] lists no known "
                     "keys (update tests/lib/doccheck_keys.c): %s", s->name, msg);
            return -1;
        }
        for (int k = 0; k < nk; k++) {
            if (strcmp(keys[k], "param1 .. param64") == 0)
                s->params = 1;
            else
                s->keys[s->nkeys++] = pgcb_xstrdup(keys[k]);
        }
    }
    return 0;
}

/* The section kind of a header ("bench", "query.limit_1"), or NULL. */
static const struct doccheck_section *section_of(const struct doccheck *c, const char *header)
{
    const char *dot = strchr(header, '.');
    size_t len = dot ? (size_t)(dot - header) : strlen(header);
    for (size_t i = 0; i < c->nsections; i++) {
        const struct doccheck_section *s = &c->sections[i];
        if (strlen(s->name) == len && strncmp(s->name, header, len) == 0 &&
            s->named == (dot && dot[1]))
            return s;
    }
    return NULL;
}

static int is_param(const char *key)
{
    if (strncmp(key, "param", 5) != 0 || key[5] < '1' || key[5] > '9')
        return 0;
    char *end;
    long n = strtol(key + 5, &end, 10);
    return !*end && n >= 1 && n <= PGCB_MAX_PARAMS;
}

static int section_has(const struct doccheck_section *s, const char *key)
{
    for (size_t i = 0; i < s->nkeys; i++)
        if (strcmp(s->keys[i], key) == 0)
            return 1;
    return s->params && is_param(key);
}

/* The option keys the driver at `path` declares (copies; the caller frees
 * them and the array). -1 with err when it does not load. */
static int driver_options(const char *path, char ***out, size_t *n, char *err, size_t errlen)
{
    struct pgcb_loaded ld;
    *out = NULL;
    *n = 0;
    if (pgcb_loader_open("docs", path, &ld, err, errlen) != 0)
        return -1;
    for (const struct pgcb_option_spec *o = ld.drv->options; o && o->key; o++) {
        *out = pgcb_xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = pgcb_xstrdup(o->key);
    }
    pgcb_loader_close(&ld);
    return 0;
}

static void free_words(char **w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(w[i]);
    free(w);
}

static int in_words(char *const *w, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(w[i], s) == 0)
            return 1;
    return 0;
}

/* ---- INI blocks ------------------------------------------------------------------ */

struct frag {
    char **sec, **key, **val;
    size_t n;
};

static int frag_kv(void *user, const char *section, const char *name, const char *value)
{
    struct frag *f = user;
    f->sec = pgcb_xrealloc(f->sec, (f->n + 1) * sizeof *f->sec);
    f->key = pgcb_xrealloc(f->key, (f->n + 1) * sizeof *f->key);
    f->val = pgcb_xrealloc(f->val, (f->n + 1) * sizeof *f->val);
    f->sec[f->n] = pgcb_xstrdup(section);
    f->key[f->n] = pgcb_xstrdup(name);
    f->val[f->n++] = pgcb_xstrdup(value);
    return 1;
}

/* A fragment: inih must parse it, and each key must be one its section takes. */
static void check_fragment(struct doccheck *c, const struct mdoc *d, const struct mdoc_block *b)
{
    struct frag f = {0};
    int rc = ini_parse_string(b->text, frag_kv, &f);
    if (rc != 0)
        doccheck_problem(c, d, b->line + (rc > 0 ? rc : 0), "```ini fragment: inih cannot parse "
                         "it (%s)", rc > 0 ? "this line" : "no memory");
    for (size_t i = 0; i < f.n; i++) {
        const struct doccheck_section *s = section_of(c, f.sec[i]);
        if (!s) {
            doccheck_problem(c, d, b->line, "```ini fragment: unknown section [%s]", f.sec[i]);
            continue;
        }
        if (strcmp(s->name, "driver") != 0 || section_has(s, f.key[i])) {
            if (!section_has(s, f.key[i]))
                doccheck_problem(c, d, b->line, "```ini fragment: unknown key '%s' in [%s]",
                                 f.key[i], f.sec[i]);
            continue;
        }
        /* A driver's own key: ask the driver its section's path names. */
        const char *path = NULL;
        for (size_t k = 0; k < f.n; k++)
            if (strcmp(f.sec[k], f.sec[i]) == 0 && strcmp(f.key[k], "path") == 0)
                path = f.val[k];
        if (!path) {
            doccheck_problem(c, d, b->line, "```ini fragment: [%s] has no path: its key '%s' "
                             "cannot be checked", f.sec[i], f.key[i]);
            continue;
        }
        char *full = path[0] == '/' ? pgcb_xstrdup(path)
                                    : pgcb_xasprintf("%s/conf/%s", c->tmp, path);
        char **opts, err[512];
        size_t nopts;
        if (driver_options(full, &opts, &nopts, err, sizeof err) != 0)
            doccheck_problem(c, d, b->line, "```ini fragment: [%s]: %s", f.sec[i], err);
        else if (!in_words(opts, nopts, f.key[i]))
            doccheck_problem(c, d, b->line, "```ini fragment: unknown key '%s' in [%s]: the "
                             "driver %s does not declare it", f.key[i], f.sec[i], path);
        free_words(opts, nopts);
        free(full);
    }
    free_words(f.sec, f.n);
    free_words(f.key, f.n);
    free_words(f.val, f.n);
}

/* A complete config: runner -c FILE --list-drivers must accept it. */
static void check_complete(struct doccheck *c, const struct mdoc *d, const struct mdoc_block *b)
{
    char *path = pgcb_xasprintf("%s/conf/block%u.ini", c->tmp, c->seq++);
    char *runner = pgcb_xasprintf("%s/runner", c->build);
    char *out = NULL;
    char *argv[] = {runner, "-c", path, "--list-drivers", NULL};
    int rc = doccheck_write(path, b->text) != 0 ? -1 : doccheck_run(argv, &out);
    if (rc != 0) {
        /* "runner: PATH:LINE: what": report it at the page's line. */
        const char *msg = out ? out : "cannot write it", *at = out ? strstr(out, path) : NULL;
        int line = 0;
        if (at && at[strlen(path)] == ':' && sscanf(at + strlen(path) + 1, "%d", &line) == 1) {
            msg = strchr(at + strlen(path) + 1, ':');
            msg = msg ? msg + 1 + (msg[1] == ' ') : out;
        }
        size_t len = strcspn(msg, "\n");
        doccheck_problem(c, d, b->line + line, "```ini block (a complete config: mark a part "
                         "of one <!-- fragment -->): runner --list-drivers: %.*s", (int)len, msg);
    }
    free(out);
    free(runner);
    unlink(path);
    free(path);
}

size_t doccheck_ini(struct doccheck *c, const struct mdoc *d)
{
    size_t before = c->nproblems;
    for (size_t i = 0; i < d->nblocks; i++) {
        const struct mdoc_block *b = &d->blocks[i];
        if (strcmp(b->info, "ini") != 0)
            continue;
        if (mdoc_marked(b->marks, b->nmarks, "fragment"))
            check_fragment(c, d, b);
        else
            check_complete(c, d, b);
    }
    return c->nproblems - before;
}

/* ---- key tables ------------------------------------------------------------------ */

/* The first code span of a cell (into buf), or NULL. */
static const char *first_span(const char *cell, char *buf, size_t n)
{
    const char *w[1];
    return mdoc_code_spans(cell, buf, n, w, 1) ? w[0] : NULL;
}

/* The table marked "keys: config": its keys against the loader's. */
static void check_config_table(struct doccheck *c, const struct mdoc *d, const struct mdoc_table *t)
{
    /* documented[i]: the keys of the table for c->sections[i]. */
    char **doc[8] = {0};
    size_t ndoc[8] = {0};
    int params[8] = {0}, rows[8] = {0};
    const struct doccheck_section *cur = NULL;
    for (size_t r = 1; r < t->nrows; r++) {
        char buf[512];
        const char *w[4];
        if (t->ncells[r] < 2) {
            doccheck_problem(c, d, t->lines[r], "config table: a row of fewer than 2 cells");
            continue;
        }
        if (t->cells[r][0][0]) { /* a new section: `[bench]`, `[driver.NAME]` */
            const char *sec = first_span(t->cells[r][0], buf, sizeof buf);
            size_t len = sec ? strlen(sec) : 0;
            char name[128];
            snprintf(name, sizeof name, "%.*s", len > 2 ? (int)len - 2 : 0, sec ? sec + 1 : "");
            cur = sec && sec[0] == '[' && sec[len - 1] == ']' ? section_of(c, name) : NULL;
            if (!cur) {
                doccheck_problem(c, d, t->lines[r], "config table: '%s' is not a section the "
                                 "loader knows", t->cells[r][0]);
                continue;
            }
        }
        if (!cur) {
            doccheck_problem(c, d, t->lines[r], "config table: a key before any section");
            continue;
        }
        size_t si = (size_t)(cur - c->sections);
        rows[si]++;
        size_t nw = mdoc_code_spans(t->cells[r][1], buf, sizeof buf, w, 4);
        if (nw == 0)
            continue; /* e.g. "*other keys*": the driver's, in their own tables */
        if (nw == 2 && is_param(w[0]) && is_param(w[1])) {
            params[si] = 1;
            if (!cur->params)
                doccheck_problem(c, d, t->lines[r], "config table: [%s] takes no %s .. %s",
                                 cur->name, w[0], w[1]);
            continue;
        }
        if (!section_has(cur, w[0]) || is_param(w[0]))
            doccheck_problem(c, d, t->lines[r], "config table: key '%s' of [%s] is not one the "
                             "loader knows", w[0], cur->name);
        doc[si] = pgcb_xrealloc(doc[si], (ndoc[si] + 1) * sizeof *doc[si]);
        doc[si][ndoc[si]++] = pgcb_xstrdup(w[0]);
    }
    /* The other way: everything the loader knows is in the table. */
    for (size_t i = 0; i < c->nsections; i++) {
        const struct doccheck_section *s = &c->sections[i];
        if (!rows[i])
            doccheck_problem(c, d, t->lines[0], "config table: no row for [%s%s]", s->name,
                             s->named ? ".NAME" : "");
        for (size_t k = 0; k < s->nkeys; k++)
            if (!in_words(doc[i], ndoc[i], s->keys[k]))
                doccheck_problem(c, d, t->lines[0], "config table: key '%s' of [%s] is not "
                                 "documented", s->keys[k], s->name);
        if (s->params && !params[i])
            doccheck_problem(c, d, t->lines[0], "config table: param1 .. param64 of [%s] are not "
                             "documented", s->name);
        free_words(doc[i], ndoc[i]);
    }
}

/* A table marked "keys: driver NAME": its keys against the driver's options. */
static void check_driver_table(struct doccheck *c, const struct mdoc *d, const struct mdoc_table *t,
                               const char *name)
{
    char *so = pgcb_xasprintf("%s/drivers/%s.so", c->build, name), **opts, err[512];
    size_t nopts;
    if (driver_options(so, &opts, &nopts, err, sizeof err) != 0) {
        doccheck_problem(c, d, t->lines[0], "keys of driver %s: %s", name, err);
        free(so);
        return;
    }
    char **doc = NULL;
    size_t ndoc = 0;
    for (size_t r = 1; r < t->nrows; r++) {
        char buf[256];
        const char *key = t->ncells[r] ? first_span(t->cells[r][0], buf, sizeof buf) : NULL;
        if (!key) {
            doccheck_problem(c, d, t->lines[r], "keys of driver %s: a row without a `key`", name);
            continue;
        }
        if (!in_words(opts, nopts, key))
            doccheck_problem(c, d, t->lines[r], "keys of driver %s: '%s' is not one of its options",
                             name, key);
        doc = pgcb_xrealloc(doc, (ndoc + 1) * sizeof *doc);
        doc[ndoc++] = pgcb_xstrdup(key);
    }
    for (size_t k = 0; k < nopts; k++)
        if (!in_words(doc, ndoc, opts[k]))
            doccheck_problem(c, d, t->lines[0], "keys of driver %s: its option '%s' is not "
                             "documented", name, opts[k]);
    free_words(doc, ndoc);
    free_words(opts, nopts);
    free(so);
}

size_t doccheck_keys(struct doccheck *c, const struct mdoc *docs, size_t ndocs)
{
    size_t before = c->nproblems, nconfig = 0;
    char **tabled = NULL;
    size_t ntabled = 0;
    for (size_t i = 0; i < ndocs; i++)
        for (size_t k = 0; k < docs[i].ntables; k++) {
            const struct mdoc_table *t = &docs[i].tables[k];
            for (size_t m = 0; m < t->nmarks; m++) {
                if (strcmp(t->marks[m], "keys: config") == 0) {
                    nconfig++;
                    check_config_table(c, &docs[i], t);
                } else if (strncmp(t->marks[m], "keys: driver ", 13) == 0) {
                    check_driver_table(c, &docs[i], t, t->marks[m] + 13);
                    tabled = pgcb_xrealloc(tabled, (ntabled + 1) * sizeof *tabled);
                    tabled[ntabled++] = pgcb_xstrdup(t->marks[m] + 13);
                }
            }
        }
    if (nconfig != 1)
        doccheck_problem(c, NULL, 0, "%zu tables marked <!-- keys: config -->: there must be one, "
                         "the reference of the INI keys", nconfig);
    /* Every built driver with options has its table. */
    char *pat = pgcb_xasprintf("%s/drivers/*.so", c->build);
    glob_t g;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const char *base = strrchr(g.gl_pathv[i], '/') + 1;
            char name[128], **opts, err[512];
            size_t nopts;
            snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 3), base);
            if (in_words(tabled, ntabled, name))
                continue;
            if (driver_options(g.gl_pathv[i], &opts, &nopts, err, sizeof err) != 0)
                doccheck_problem(c, NULL, 0, "driver %s: %s", name, err);
            else if (nopts)
                doccheck_problem(c, NULL, 0, "driver %s declares %zu option(s) and has no table "
                                 "marked <!-- keys: driver %s -->", name, nopts, name);
            free_words(opts, nopts);
        }
        globfree(&g);
    } else {
        doccheck_problem(c, NULL, 0, "no driver in %s", pat);
    }
    free(pat);
    free_words(tabled, ntabled);
    return c->nproblems - before;
}
