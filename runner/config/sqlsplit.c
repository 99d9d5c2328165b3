/* sqlsplit.c -- see sqlsplit.h. */
#include "sqlsplit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int emit(const char *s, const char *e, int line, pgcb_sql_fn fn, void *user)
{
    while (s < e && isspace((unsigned char)*s)) {
        if (*s == '\n')
            line++;
        s++;
    }
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    if (s == e)
        return 0;
    /* A statement of comments only is not sent. */
    char *stmt = pgcb_xstrndup(s, (size_t)(e - s));
    int rc = fn(user, stmt, line);
    free(stmt);
    return rc;
}

/* Length of a dollar-quote tag at p ("$$" or "$tag$"), 0 if none. */
static size_t dollar_tag(const char *p)
{
    if (*p != '$')
        return 0;
    size_t i = 1;
    if (isdigit((unsigned char)p[1]))
        return 0; /* $1 is a parameter */
    while (isalnum((unsigned char)p[i]) || p[i] == '_')
        i++;
    return p[i] == '$' ? i + 1 : 0;
}

int pgcb_sql_split(const char *text, pgcb_sql_fn fn, void *user, int *bad_line)
{
    const char *start = text, *p = text;
    int line = 1, start_line = 1;
    int only_comments = 1; /* the statement so far is whitespace and comments */
    while (*p) {
        int open_line = line;
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        if (p[0] == '/' && p[1] == '*') {
            int depth = 1;
            p += 2;
            while (*p && depth) {
                if (p[0] == '/' && p[1] == '*') { depth++; p += 2; continue; }
                if (p[0] == '*' && p[1] == '/') { depth--; p += 2; continue; }
                if (*p == '\n')
                    line++;
                p++;
            }
            if (depth) {
                *bad_line = open_line;
                return -1;
            }
            continue;
        }
        if (*p == '\'' || *p == '"') {
            char q = *p;
            int backslash = q == '\'' && p > text && (p[-1] == 'E' || p[-1] == 'e') &&
                            (p - 1 == text || !isalnum((unsigned char)p[-2]));
            only_comments = 0;
            p++;
            for (;;) {
                if (!*p) {
                    *bad_line = open_line;
                    return -1;
                }
                if (*p == '\n')
                    line++;
                if (backslash && *p == '\\' && p[1]) {
                    p += 2;
                    continue;
                }
                if (*p == q) {
                    if (p[1] == q) { p += 2; continue; }
                    p++;
                    break;
                }
                p++;
            }
            continue;
        }
        size_t tag = dollar_tag(p);
        if (tag && !(p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
            const char *close = p + tag;
            only_comments = 0;
            for (;;) {
                if (!*close) {
                    *bad_line = open_line;
                    return -1;
                }
                if (*close == '\n')
                    line++;
                if (strncmp(close, p, tag) == 0)
                    break;
                close++;
            }
            p = close + tag;
            continue;
        }
        if (*p == ';') {
            if (!only_comments) {
                int rc = emit(start, p, start_line, fn, user);
                if (rc)
                    return rc;
            }
            start = p + 1;
            start_line = line;
            only_comments = 1;
            p++;
            continue;
        }
        if (*p == '\n')
            line++;
        else if (!isspace((unsigned char)*p))
            only_comments = 0;
        p++;
    }
    if (!only_comments)
        return emit(start, p, start_line, fn, user);
    return 0;
}
