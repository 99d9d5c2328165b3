/*
 * pv_fold.c -- pgcb_value_fold_more: the kinds pgcb_value_fold() does not
 * inline (every type of ABI 1.4), one switch, each case its type's
 * conversion (pv_datetime.c, pv_numeric.c, pv_bytes.c, pv_array.c).
 */
#include <pgcb/value.h>

int pgcb_value_fold_more(struct pgcb_sum *s, enum pgcb_value_kind k, const char *p, size_t len,
                         locale_t c_locale)
{
    switch (k) {
    case PGCB_VALUE_T_TIMESTAMP:
    case PGCB_VALUE_T_TIMESTAMPTZ: {
        int64_t us;
        int tz = k == PGCB_VALUE_T_TIMESTAMPTZ;
        if (pgcb_value_parse_timestamp(p, len, tz, &us))
            return -1;
        if (tz)
            pgcb_sum_timestamptz(s, us);
        else
            pgcb_sum_timestamp(s, us);
        return 0;
    }
    case PGCB_VALUE_T_DATE: {
        int32_t d;
        if (pgcb_value_parse_date(p, len, &d))
            return -1;
        pgcb_sum_date(s, d);
        return 0;
    }
    case PGCB_VALUE_T_TIME: {
        int64_t us;
        if (pgcb_value_parse_time(p, len, &us))
            return -1;
        pgcb_sum_time(s, us);
        return 0;
    }
    case PGCB_VALUE_T_INTERVAL: {
        int64_t us;
        int32_t days, months;
        if (pgcb_value_parse_interval(p, len, &us, &days, &months))
            return -1;
        pgcb_sum_interval(s, us, days, months);
        return 0;
    }
    case PGCB_VALUE_T_UUID: {
        unsigned char b[16];
        if (pgcb_value_parse_uuid(p, len, b))
            return -1;
        pgcb_sum_uuid(s, b);
        return 0;
    }
    case PGCB_VALUE_T_NUMERIC:
        return pgcb_value_fold_numeric_text(s, p, len);
    case PGCB_VALUE_JSON: /* json and jsonb text, json binary: the text itself */
        pgcb_sum_json(s, p, len);
        return 0;
    case PGCB_VALUE_T_BYTEA:
        return pgcb_value_fold_bytea_text(s, p, len);
    case PGCB_VALUE_T_ARRAY_INT:
    case PGCB_VALUE_T_ARRAY_TEXT:
    case PGCB_VALUE_T_ARRAY_FLOAT8:
        return pgcb_value_fold_array_text(s, k, p, len, c_locale);

    case PGCB_VALUE_B_TIMESTAMP:
    case PGCB_VALUE_B_TIMESTAMPTZ:
        if (len != 8)
            return -1;
        if (k == PGCB_VALUE_B_TIMESTAMPTZ)
            pgcb_sum_timestamptz(s, pgcb_value_be_int8(p));
        else
            pgcb_sum_timestamp(s, pgcb_value_be_int8(p));
        return 0;
    case PGCB_VALUE_B_DATE:
        if (len != 4)
            return -1;
        pgcb_sum_date(s, (int32_t)pgcb_value_be_int4(p));
        return 0;
    case PGCB_VALUE_B_TIME: {
        int64_t us;
        if (len != 8 || (us = pgcb_value_be_int8(p)) < 0 || us > INT64_C(86400000000))
            return -1;
        pgcb_sum_time(s, us);
        return 0;
    }
    case PGCB_VALUE_B_INTERVAL:
        if (len != 16)
            return -1;
        pgcb_sum_interval(s, pgcb_value_be_int8(p), (int32_t)pgcb_value_be_int4(p + 8),
                          (int32_t)pgcb_value_be_int4(p + 12));
        return 0;
    case PGCB_VALUE_B_UUID:
        if (len != 16)
            return -1;
        pgcb_sum_uuid(s, (const unsigned char *)p);
        return 0;
    case PGCB_VALUE_B_NUMERIC:
        return pgcb_value_fold_numeric_binary(s, p, len);
    case PGCB_VALUE_B_JSONB: /* jsonb_send: version 1, then the text */
        if (len < 1 || p[0] != 1)
            return -1;
        pgcb_sum_json(s, p + 1, len - 1);
        return 0;
    case PGCB_VALUE_B_BYTEA:
        pgcb_sum_bytea(s, p, len);
        return 0;
    case PGCB_VALUE_B_ARRAY_INT4:
    case PGCB_VALUE_B_ARRAY_INT8:
    case PGCB_VALUE_B_ARRAY_TEXT:
    case PGCB_VALUE_B_ARRAY_FLOAT8:
        return pgcb_value_fold_array_binary(s, k, p, len);
    default:
        return -1; /* the kinds pgcb_value_fold inlines, or no kind */
    }
}
