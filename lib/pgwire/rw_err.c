/*
 * rw_err.c -- see rw_err.h.
 */
#include "rw_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void rw_oneline(char *s)
{
    size_t n = 0;

    for (char *p = s; *p; p++, n++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
}

void rw_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    rw_oneline(err);
}
