/* proto.c -- see proto.h. */
#include "proto.h"

#include <stdio.h>
#include <string.h>

/* Per field: its key, and the words and phrases of values 1 and 2. */
static const struct proto_field_desc {
    const char *key;
    const char *words[3];
    const char *phrases[3];
    const char *choices;
} proto_fields[PGCB_PROTO_NFIELDS] = {
    [PGCB_PROTO_RESULT_FORMAT] = {"result_format", {NULL, "text", "binary"},
                                  {"? result format", "text results", "binary results"},
                                  "text | binary"},
    [PGCB_PROTO_DESCRIBE] = {"describe", {NULL, "per_execution", "once"},
                             {"? Describe", "a Describe per execution", "Describe once"},
                             "per_execution | once"},
    [PGCB_PROTO_SYNC] = {"sync", {NULL, "per_query", "per_batch"},
                         {"? Sync", "a Sync per query", "a Sync per batch"},
                         "per_query | per_batch"},
    [PGCB_PROTO_STATEMENTS] = {"statements", {NULL, "named", "unnamed"},
                               {"? statements", "named statements", "unnamed statements"},
                               "named | unnamed"},
};

const char *pgcb_proto_key(enum pgcb_proto_field f)
{
    return proto_fields[f].key;
}

uint32_t pgcb_proto_get(const struct pgcb_protocol *p, enum pgcb_proto_field f)
{
    switch (f) {
    case PGCB_PROTO_RESULT_FORMAT: return p->result_format;
    case PGCB_PROTO_DESCRIBE: return p->describe;
    case PGCB_PROTO_SYNC: return p->sync;
    case PGCB_PROTO_STATEMENTS: return p->statements;
    default: return 0;
    }
}

void pgcb_proto_set(struct pgcb_protocol *p, enum pgcb_proto_field f, uint32_t v)
{
    switch (f) {
    case PGCB_PROTO_RESULT_FORMAT: p->result_format = v; break;
    case PGCB_PROTO_DESCRIBE: p->describe = v; break;
    case PGCB_PROTO_SYNC: p->sync = v; break;
    case PGCB_PROTO_STATEMENTS: p->statements = v; break;
    default: break;
    }
}

const char *pgcb_proto_value(enum pgcb_proto_field f, uint32_t v)
{
    return v >= 1 && v <= 2 ? proto_fields[f].words[v] : NULL;
}

uint32_t pgcb_proto_parse(enum pgcb_proto_field f, const char *s)
{
    for (uint32_t v = 1; v <= 2; v++)
        if (s && strcmp(s, proto_fields[f].words[v]) == 0)
            return v;
    return 0;
}

int pgcb_proto_out_of_range(const struct pgcb_protocol *p, char *buf, size_t n)
{
    for (int f = 0; f < PGCB_PROTO_NFIELDS; f++) {
        uint32_t v = pgcb_proto_get(p, (enum pgcb_proto_field)f);
        if (v > 2) {
            snprintf(buf, n, "%s %u", proto_fields[f].key, (unsigned)v);
            return 1;
        }
    }
    return 0;
}

const char *pgcb_proto_choices(enum pgcb_proto_field f)
{
    return proto_fields[f].choices;
}

const char *pgcb_proto_phrase(enum pgcb_proto_field f, uint32_t v)
{
    return proto_fields[f].phrases[v <= 2 ? v : 0];
}

struct pgcb_protocol pgcb_proto_default(void)
{
    return (struct pgcb_protocol){.result_format = PGCB_FORMAT_TEXT,
                                  .describe = PGCB_DESCRIBE_PER_EXECUTION,
                                  .sync = PGCB_SYNC_PER_QUERY,
                                  .statements = PGCB_STMT_NAMED};
}

unsigned pgcb_proto_differs(const struct pgcb_protocol *drv, const struct pgcb_protocol *run,
                            unsigned *unknown)
{
    unsigned diff = 0, unk = 0;
    for (int f = 0; f < PGCB_PROTO_NFIELDS; f++) {
        uint32_t want = pgcb_proto_get(run, (enum pgcb_proto_field)f);
        uint32_t got = pgcb_proto_get(drv, (enum pgcb_proto_field)f);
        if (!want)
            continue;
        if (!got)
            unk |= 1u << f;
        else if (got != want)
            diff |= 1u << f;
    }
    if (unknown)
        *unknown = unk;
    return diff;
}

void pgcb_proto_phrases(const struct pgcb_protocol *p, unsigned mask, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int f = 0; f < PGCB_PROTO_NFIELDS; f++) {
        if (!(mask & (1u << f)))
            continue;
        int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
                         pgcb_proto_phrase((enum pgcb_proto_field)f,
                                           pgcb_proto_get(p, (enum pgcb_proto_field)f)));
        if (w < 0 || (size_t)w >= n - len)
            return;
        len += (size_t)w;
    }
}
