/*
 * json_util.h -- the small conversions every writer and reader of the
 * result JSON shares (result_json.c, result_selection.c,
 * result_transport.c, result_types.c): one copy of each.
 */
#ifndef PGCB_JSON_UTIL_H
#define PGCB_JSON_UTIL_H

#include <jansson.h>

/* A new JSON string of s, or null for NULL. A string that is not UTF-8
 * (json_string() refuses it: Latin-1 SQL from an INI file, a server
 * message) keeps its valid sequences, each invalid byte U+FFFD. */
json_t *pgcb_json_str(const char *s);

/* A new JSON real of v, or null when v is not finite (JSON has no NaN). */
json_t *pgcb_json_real(double v);

/* v's value if it is a JSON number, else NAN (absent, null, mistyped). */
double pgcb_json_num(const json_t *v);

/* A malloc'd copy of o's string member `key`, or NULL (absent, not a string). */
char *pgcb_json_dup_str(json_t *o, const char *key);

#endif
