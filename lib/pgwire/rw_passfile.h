/*
 * rw_passfile.h -- the password file (~/.pgpass, PGPASSFILE, passfile=), read
 * as libpq reads it: lines hostname:port:database:username:password, '*'
 * matching anything, '\' escaping ':' and '\', '#' lines ignored. Exactly
 * libpq 15's passwordFromFile: a field "*" is a wildcard only when a ':'
 * follows it; the password ends at the next unescaped ':' (more fields are
 * ignored); a line with fewer than five fields matches nothing. A file
 * that is not a regular file or that group or others may access is ignored
 * (libpq warns; a driver cannot print, so *ignored_why says why).
 *
 * For a unix socket in the default directory (or no host), the host matched
 * is "localhost"; any other socket directory is matched as written.
 */
#ifndef RW_PASSFILE_H
#define RW_PASSFILE_H

#include <stddef.h>

/* The password for (host, port, dbname, user) from file `path` (NULL or "":
 * $HOME/.pgpass), malloc'd, or NULL (none, no file, out of memory). When the
 * file exists but is ignored, *ignored_why (if non-NULL) is set to a static
 * string saying why. */
char *rw_passfile_lookup(const char *path, const char *host, const char *port, const char *dbname,
                         const char *user, const char **ignored_why);

#endif /* RW_PASSFILE_H */
