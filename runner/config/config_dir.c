/*
 * config_dir.c -- [bench] driver_dir = DIR: every NAME.so in DIR is a
 * driver named NAME, with default options, in sorted (strcmp) order after
 * the file's [driver.NAME] sections. A [driver.NAME] section of the same
 * NAME gives that driver its keys (options, measure) and its place in the
 * order; it may leave out `path =` (it takes DIR/NAME.so), or give the same
 * file, but not another. DIR holds drivers only: an entry that is not a
 * regular NAME.so file (NAME a driver name) is an error, one starting with
 * '.' is skipped; an empty DIR is an error. Nothing is loaded here: the
 * session dlopen()s the drivers (session.c). See config_int.h.
 */
#include "config_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir, '.'-files left out, sorted, into *out (*n of them; the
 * caller frees each and the array). 0, or -1 with errno set when dir cannot
 * be read. */
static int list_dir(const char *dir, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **names = NULL;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] != '.') {
            names = pgcb_xrealloc(names, (*n + 1) * sizeof *names);
            names[(*n)++] = pgcb_xstrdup(e->d_name);
        }
        errno = 0;
    }
    int saved = errno;
    closedir(d);
    if (*n)
        qsort(names, *n, sizeof *names, by_name);
    *out = names;
    errno = saved;
    return saved ? -1 : 0;
}

/* 1 if a and b name the same file. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Entry `name` of the directory as a driver. 0, or -1 with the error. */
static int add_entry(struct pgcb_cfgi_ctx *c, const char *name)
{
    struct pgcb_config *cfg = c->cfg;
    const char *dir = cfg->driver_dir;
    int line = cfg->driver_dir_line;
    size_t len = strlen(name);
    if (len <= 3 || strcmp(name + len - 3, ".so") != 0)
        PGCB_CFGI_FAIL_AT(c, line, "[bench] driver_dir: %s/%s is not a driver (NAME.so): the "
                          "directory must hold drivers only", dir, name);
    char stem[64] = "";
    if (len - 3 < sizeof stem) {
        memcpy(stem, name, len - 3);
        stem[len - 3] = '\0';
    }
    if (!pgcb_cfgi_valid_name(stem))
        PGCB_CFGI_FAIL_AT(c, line, "[bench] driver_dir: %s/%s: the name before .so is not a "
                          "driver name: use 1 to 63 of a-z, 0-9 and _", dir, name);
    char *path = pgcb_xasprintf("%s/%s", dir, name);
    struct stat st;
    int bad = stat(path, &st) != 0 ? errno : S_ISREG(st.st_mode) ? 0 : -1;
    if (bad) {
        c->lineno = line;
        pgcb_cfgi_fail(c, "[bench] driver_dir: %s: %s", path,
                       bad > 0 ? strerror(bad) : "not a regular file (the directory must "
                       "hold drivers only)");
        free(path);
        return -1;
    }
    long k = pgcb_config_find_driver(cfg, stem);
    if (k < 0) {
        pgcb_cfgi_driver_add(cfg, stem, path, PGCB_CFG_FROM_DIR, line);
    } else if (!cfg->drivers[k].path) {
        cfg->drivers[k].path = path;
        cfg->drivers[k].path_line = line;
        cfg->drivers[k].origin = PGCB_CFG_FROM_DIR;
        return 0;
    } else if (!same_file(cfg->drivers[k].path, path)) {
        c->lineno = cfg->drivers[k].path_line;
        pgcb_cfgi_fail(c, "[driver.%s] path = %s is not driver_dir's %s: leave out path = "
                       "(the section then gives the directory's driver its keys), or rename "
                       "the section", stem, cfg->drivers[k].path, path);
        free(path);
        return -1;
    }
    free(path);
    return 0;
}

int pgcb_cfgi_dir_finish(struct pgcb_cfgi_ctx *c)
{
    const struct pgcb_config *cfg = c->cfg;
    if (!cfg->driver_dir)
        return 0;
    size_t n;
    char **names;
    int rc = list_dir(cfg->driver_dir, &names, &n);
    if (rc != 0) {
        c->lineno = cfg->driver_dir_line;
        pgcb_cfgi_fail(c, "[bench] driver_dir: %s: cannot read it: %s", cfg->driver_dir,
                       strerror(errno));
    }
    if (rc == 0 && n == 0) {
        c->lineno = cfg->driver_dir_line;
        pgcb_cfgi_fail(c, "[bench] driver_dir: %s has no driver in it (no NAME.so file)",
                       cfg->driver_dir);
        rc = -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = add_entry(c, names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}
