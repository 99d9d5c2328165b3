/*
 * br_wire.c -- the hello reply's optional "wire" object: what the adapter's
 * client really sends the server (result format, Describe, Sync,
 * statements), as docs/bridge-protocol.md ("hello") defines it, mapped onto
 * ABI 1.3's struct pgcb_protocol. See br_conn.h.
 *
 * No state: the tables below are constant.
 */
#include <stdio.h>
#include <string.h>

#include "br_conn.h"

/* One field of "wire": its name, the values the protocol allows, and the
 * pgcb_protocol enum value of each (same order, 0-terminated). */
static const struct br_wire_field {
    const char *key;
    const char *names[3];
    uint32_t values[3];
    size_t offset; /* of its uint32_t in struct pgcb_protocol */
} br_wire_fields[] = {
    {"result_format", {"text", "binary", NULL}, {PGCB_FORMAT_TEXT, PGCB_FORMAT_BINARY, 0},
     offsetof(struct pgcb_protocol, result_format)},
    {"describe", {"per_execution", "once", NULL},
     {PGCB_DESCRIBE_PER_EXECUTION, PGCB_DESCRIBE_ONCE, 0},
     offsetof(struct pgcb_protocol, describe)},
    {"sync", {"per_query", "per_batch", NULL}, {PGCB_SYNC_PER_QUERY, PGCB_SYNC_PER_BATCH, 0},
     offsetof(struct pgcb_protocol, sync)},
    {"statements", {"named", "unnamed", NULL}, {PGCB_STMT_NAMED, PGCB_STMT_UNNAMED, 0},
     offsetof(struct pgcb_protocol, statements)},
};

const char *br_format_name(enum pgcb_format f)
{
    return f == PGCB_FORMAT_BINARY ? "binary" : "text";
}

int br_wire_read(const json_t *hello, struct pgcb_protocol *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    const json_t *wire = json_object_get(hello, "wire");
    if (!wire || json_is_null(wire))
        return 0;
    if (!json_is_object(wire)) {
        snprintf(why, whylen, "its hello's \"wire\" is not an object");
        return -1;
    }
    for (size_t i = 0; i < sizeof br_wire_fields / sizeof br_wire_fields[0]; i++) {
        const struct br_wire_field *f = &br_wire_fields[i];
        const json_t *v = json_object_get(wire, f->key);
        if (!v || json_is_null(v))
            continue;
        const char *s = json_string_value(v);
        uint32_t value = 0;
        for (size_t k = 0; s && f->names[k]; k++)
            if (strcmp(s, f->names[k]) == 0)
                value = f->values[k];
        if (!value) {
            char shown[48];
            if (s)
                snprintf(shown, sizeof shown, "'%.40s'", s);
            else
                snprintf(shown, sizeof shown, "a JSON %s", json_is_number(v) ? "number"
                                                             : json_is_boolean(v) ? "boolean"
                                                                                  : "non-string");
            for (char *p = shown; *p; p++)
                if ((unsigned char)*p < 0x20)
                    *p = ' ';
            snprintf(why, whylen, "its hello's wire.%s is %s, none of %s, %s", f->key, shown,
                     f->names[0], f->names[1]);
            return -1;
        }
        memcpy((char *)out + f->offset, &value, sizeof value);
    }
    return 0;
}
