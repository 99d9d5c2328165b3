/*
 * rw_passfile.c -- see rw_passfile.h.
 */
#include "rw_passfile.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rw_conninfo.h"

/* Does the next field of line (at *pp) match `want`? Advances *pp past the
 * field and its ':'. A field "*" matches anything. */
static int rw_pf_field(char **pp, const char *want)
{
    char *p = *pp;
    int star = p[0] == '*' && (p[1] == ':' || p[1] == '\0');
    int match = 1;
    const char *w = want;

    while (*p && *p != ':') {
        char c = *p;
        if (c == '\\' && p[1])
            c = *++p;
        if (*w == c)
            w++;
        else
            match = 0;
        p++;
    }
    if (*w)
        match = 0;
    if (*p == ':')
        p++;
    else
        match = 0; /* a line with too few fields matches nothing */
    *pp = p;
    return star || match;
}

/* The password field at p (the rest of the line), unescaped in place. */
static char *rw_pf_password(char *p)
{
    char *o = p, *start = p;

    for (; *p && *p != '\n' && *p != '\r'; p++) {
        if (*p == '\\' && p[1] && p[1] != '\n')
            p++;
        *o++ = *p;
    }
    *o = '\0';
    return start;
}

char *rw_passfile_lookup(const char *path, const char *host, const char *port, const char *dbname,
                         const char *user, const char **ignored_why)
{
    char pathbuf[4096], *line = NULL, *found = NULL;
    size_t cap = 0;
    struct stat st;
    FILE *f;

    if (ignored_why)
        *ignored_why = NULL;
    if (!path || !*path) {
        const char *home = getenv("HOME");
        struct passwd pw, *res = NULL;
        char buf[4096];
        if ((!home || !*home) && getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res) == 0 && res)
            home = pw.pw_dir;
        if (!home || (size_t)snprintf(pathbuf, sizeof pathbuf, "%s/.pgpass", home) >= sizeof pathbuf)
            return NULL;
        path = pathbuf;
    }
    if (!host || !*host || strcmp(host, RW_DEFAULT_SOCKET_DIR) == 0)
        host = "localhost";
    if (stat(path, &st) != 0)
        return NULL;
    if (!S_ISREG(st.st_mode)) {
        if (ignored_why)
            *ignored_why = "the password file is not a plain file";
        return NULL;
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        if (ignored_why)
            *ignored_why = "the password file has group or world access; permissions should be u=rw (0600) or less";
        return NULL;
    }
    if (!(f = fopen(path, "r")))
        return NULL;
    while (getline(&line, &cap, f) > 0) {
        char *p = line;
        if (line[0] == '#')
            continue;
        if (rw_pf_field(&p, host) && rw_pf_field(&p, port) && rw_pf_field(&p, dbname) &&
            rw_pf_field(&p, user)) {
            found = strdup(rw_pf_password(p));
            break;
        }
    }
    if (line) {
        explicit_bzero(line, cap);
        free(line);
    }
    fclose(f);
    return found;
}
