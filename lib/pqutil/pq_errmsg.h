/*
 * pq_errmsg.h -- error messages of the libpq drivers (and of the runner's
 * own libpq session), in the form the ABI asks for: one line,
 * NUL-terminated, no trailing newline, never a password. Part of
 * lib/pqutil.
 *
 * All functions write into the caller's buffer `err` of `errlen` >= 1 bytes,
 * truncating (at a UTF-8 character boundary) if needed. They do not allocate
 * and keep no state.
 */
#ifndef PGCB_PQ_ERRMSG_H
#define PGCB_PQ_ERRMSG_H

#include <stddef.h>

#include <libpq-fe.h>

/* printf into err (plain, for messages the driver composes itself). */
void pgcb_pq_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* `prefix` (may be NULL) then `msg` made one line: leading and trailing
 * white space dropped, every line break and the indentation after it
 * replaced by "; ". If `secret` is non-NULL and non-empty, each occurrence of
 * it in msg is replaced by "***" (libpq messages should never quote the
 * password; this makes sure). */
void pgcb_pq_err_oneline(char *err, size_t errlen, const char *prefix, const char *msg,
                         const char *secret);

/* The message for a failed result `res` (NULL allowed) on `conn`:
 * "SQLSTATE: primary message" when the server sent an error, else libpq's
 * own message (PQresultErrorMessage, or PQerrorMessage if res is NULL),
 * made one line. */
void pgcb_pq_err_result(char *err, size_t errlen, const PGresult *res, const PGconn *conn);

/* True if `conninfo` could contain a password (a "password" key anywhere,
 * or a URI with a user-info part): libpq's parse errors quote pieces of the
 * string, so the driver withholds them for such strings. Conservative. */
int pgcb_pq_conninfo_may_hold_password(const char *conninfo);

/* Check that libpq can parse `conninfo`. libpq's own parse errors quote
 * parts of the string: they are withheld when those parts could be a
 * password. PGCB_OK, PGCB_ERR_NOMEM or PGCB_ERR_CONNECT with err set. */
int pgcb_pq_check_conninfo(const char *conninfo, char *err, size_t errlen);

/* A libpq notice processor that drops every notice: drivers never print
 * (libpq's default writes NOTICEs and WARNINGs to stderr). */
void pgcb_pq_ignore_notice(void *arg, const char *message);

#endif /* PGCB_PQ_ERRMSG_H */
