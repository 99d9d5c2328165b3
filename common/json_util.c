/* json_util.c -- see json_util.h. */
#include "json_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0: an invalid byte. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n;
    unsigned min;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        n = 2, min = 0x80;
    else if ((s[0] & 0xF0) == 0xE0)
        n = 3, min = 0x800;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        n = 4, min = 0x10000;
    else
        return 0;
    unsigned cp = s[0] & (0x3Fu >> (n - 1));
    for (size_t i = 1; i < n; i++) { /* stops at the terminating NUL */
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    return cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0 : n;
}

/* JSON strings are UTF-8 (json_string() refuses anything else): a string
 * that is not, e.g. Latin-1 SQL from the INI file or a server message, is
 * written with each invalid byte replaced by U+FFFD rather than lost. */
json_t *pgcb_json_str(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    char *t = pgcb_xmalloc(3 * strlen(s) + 1), *o = t;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (n) {
            memcpy(o, p, n);
            o += n;
            p += n;
        } else {
            memcpy(o, "\xEF\xBF\xBD", 3); /* U+FFFD */
            o += 3;
            p++;
        }
    }
    *o = '\0';
    j = json_string(t);
    free(t);
    return j;
}

/* JSON has no NaN: unknown figures are null. */
json_t *pgcb_json_real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

char *pgcb_json_dup_str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? pgcb_xstrdup(s) : NULL;
}

double pgcb_json_num(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}
