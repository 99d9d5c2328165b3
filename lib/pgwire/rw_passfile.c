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

/* Does the field at p match `want`? libpq's pwdfMatchesString: "*:" matches
 * anything; otherwise the field, '\' escaping the next character, must equal
 * `want` and end in an unescaped ':'. The text after that ':', or NULL. */
static char *rw_pf_match(char *p, const char *want)
{
    if (!p)
        return NULL;
    if (p[0] == '*' && p[1] == ':')
        return p + 2;
    while (*p) {
        int escaped = 0;
        if (*p == '\\') {
            p++;
            escaped = 1;
        }
        if (*p == ':' && !escaped && !*want)
            return p + 1;
        if (!*want || *p != *want)
            return NULL;
        p++;
        want++;
    }
    return NULL;
}

/* The password at p, unescaped in place: up to the first unescaped ':' or
 * the end (libpq: extra fields after the password are ignored). */
static char *rw_pf_password(char *p)
{
    char *o = p, *start = p;

    for (; *p && *p != ':'; p++, o++) {
        if (*p == '\\' && p[1])
            p++;
        *o = *p;
    }
    *o = '\0';
    return start;
}

/* Strip a trailing "\n" / "\r\n" (any run of them); the new length. */
static size_t rw_pf_strip_crlf(char *line)
{
    size_t n = strlen(line);

    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    return n;
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
        char *p;
        if (line[0] == '#' || rw_pf_strip_crlf(line) == 0)
            continue;
        p = rw_pf_match(rw_pf_match(rw_pf_match(rw_pf_match(line, host), port), dbname), user);
        if (p) {
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
