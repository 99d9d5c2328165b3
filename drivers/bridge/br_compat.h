/*
 * br_compat.h -- TEMPORARY: the ABI 1.4 names of the new type conversions
 * (issue 19: tags, OIDs, pgcb_sum_* helpers), for building the bridge
 * against a driver.h that does not have them yet. Transcribed from the
 * contract (the lead's driver.h); inert once driver.h says ABI 1.4, and to
 * be deleted then. Not part of include/pgcb.
 */
#ifndef BR_COMPAT_H
#define BR_COMPAT_H

#include <pgcb/driver.h>

#if PGCB_ABI_MINOR < 4
#define PGCB_TAG_UUID 13
#define PGCB_TAG_ARRAY 17
#define PGCB_OID_BYTEA 17
#define PGCB_OID_JSON 114
#define PGCB_OID_INT4_ARRAY 1007
#define PGCB_OID_TEXT_ARRAY 1009
#define PGCB_OID_INT8_ARRAY 1016
#define PGCB_OID_FLOAT8_ARRAY 1022
#define PGCB_OID_DATE 1082
#define PGCB_OID_TIME 1083
#define PGCB_OID_TIMESTAMP 1114
#define PGCB_OID_TIMESTAMPTZ 1184
#define PGCB_OID_INTERVAL 1186
#define PGCB_OID_UUID 2950
#define PGCB_OID_JSONB 3802

static inline void pgcb_sum_uuid(struct pgcb_sum *s, const unsigned char b[16])
{
    uint64_t hi = 0, lo = 0;
    for (int k = 0; k < 8; k++) {
        hi = hi << 8 | b[k];
        lo = lo << 8 | b[8 + k];
    }
    s->hash = pgcb_sum_mix(pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_UUID), hi), lo);
}

static inline void pgcb_sum_array(struct pgcb_sum *s, uint32_t nelems, int32_t lbound)
{
    uint64_t h = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_ARRAY), nelems);
    s->hash = pgcb_sum_mix(h, (uint64_t)(int64_t)lbound);
}

/* pgcb_value_type_name() of ABI 1.4 for the new types. */
static inline const char *br_compat_type_name(uint32_t oid)
{
    switch (oid) {
    case PGCB_OID_BYTEA:        return "bytea";
    case PGCB_OID_JSON:         return "json";
    case PGCB_OID_INT4_ARRAY:   return "int4[]";
    case PGCB_OID_TEXT_ARRAY:   return "text[]";
    case PGCB_OID_INT8_ARRAY:   return "int8[]";
    case PGCB_OID_FLOAT8_ARRAY: return "float8[]";
    case PGCB_OID_DATE:         return "date";
    case PGCB_OID_TIME:         return "time";
    case PGCB_OID_TIMESTAMP:    return "timestamp";
    case PGCB_OID_TIMESTAMPTZ:  return "timestamptz";
    case PGCB_OID_INTERVAL:     return "interval";
    case PGCB_OID_UUID:         return "uuid";
    case PGCB_OID_JSONB:        return "jsonb";
    default:                    return NULL;
    }
}
#endif

#endif
