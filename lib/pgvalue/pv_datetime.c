/*
 * pv_datetime.c -- the text forms of date, time, timestamp, timestamptz and
 * interval, as PostgreSQL prints them with DateStyle ISO and IntervalStyle
 * postgres (its defaults), into the counts their binary forms carry
 * (pgcb/value.h). Proleptic Gregorian calendar, as the server's; a year
 * "N BC" is the astronomical year 1 - N.
 */
#include <pgcb/value.h>

#include <stdint.h>

#define PV_US_PER_SEC INT64_C(1000000)
#define PV_US_PER_DAY (INT64_C(86400) * PV_US_PER_SEC)

/* Days from 2000-01-01 to astronomical date y-m-d (Hinnant's
 * days_from_civil, shifted: 1970-01-01 is day 10957 before 2000). */
static int64_t pv_days(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468 - 10957;
}

static unsigned pv_month_days(int64_t y, unsigned m)
{
    static const unsigned char md[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return md[m - 1] + (m == 2 && leap);
}

/* Exactly n digits at *p (advanced), as a number. -1 if not. */
static int64_t pv_digits(const char **p, const char *end, int n)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (*p >= end || (unsigned)(**p - '0') > 9)
            return -1;
        v = v * 10 + (**p - '0');
        (*p)++;
    }
    return v;
}

/* 1..max digits at *p (advanced). -1 if none or too many. */
static int64_t pv_number(const char **p, const char *end, int max)
{
    int64_t v = 0;
    int n = 0;
    while (*p < end && (unsigned)(**p - '0') <= 9) {
        if (++n > max)
            return -1;
        v = v * 10 + (**p - '0');
        (*p)++;
    }
    return n ? v : -1;
}

static int pv_is(const char *p, size_t len, const char *word)
{
    size_t n = strlen(word);
    return len == n && memcmp(p, word, n) == 0;
}

/* "YYYY-MM-DD" (4 to 7 year digits) at *p: the astronomical year, month, day
 * before any " BC", which the caller applies. */
static int pv_ymd(const char **p, const char *end, int64_t *y, unsigned *m, unsigned *d)
{
    const char *s = *p;
    int64_t yy = pv_number(p, end, 7), mm, dd;
    if (yy < 0 || *p - s < 4 || *p >= end || **p != '-')
        return -1;
    (*p)++;
    if ((mm = pv_digits(p, end, 2)) < 1 || mm > 12 || *p >= end || **p != '-')
        return -1;
    (*p)++;
    if ((dd = pv_digits(p, end, 2)) < 1)
        return -1;
    *y = yy;
    *m = (unsigned)mm;
    *d = (unsigned)dd;
    return 0;
}

/* The ymd of pv_ymd with `bc`, checked, as days since 2000-01-01. */
static int pv_ymd_days(int64_t y, unsigned m, unsigned d, int bc, int64_t *days)
{
    if (bc) {
        if (y == 0)
            return -1; /* there is no year 0 BC */
        y = 1 - y;
    } else if (y == 0) {
        return -1;
    }
    if (d > pv_month_days(y, m))
        return -1;
    *days = pv_days(y, m, d);
    return 0;
}

/* "HH:MM:SS[.f{1,6}]" at *p, as microseconds; at most 24:00:00. */
static int pv_hms(const char **p, const char *end, int64_t *us)
{
    int64_t h = pv_digits(p, end, 2), mi, s, f = 0;
    if (h < 0 || *p >= end || **p != ':')
        return -1;
    (*p)++;
    if ((mi = pv_digits(p, end, 2)) < 0 || mi > 59 || *p >= end || **p != ':')
        return -1;
    (*p)++;
    if ((s = pv_digits(p, end, 2)) < 0 || s > 60)
        return -1;
    if (*p < end && **p == '.') {
        int n = 0;
        (*p)++;
        while (*p < end && (unsigned)(**p - '0') <= 9) {
            if (++n > 6)
                return -1;
            f = f * 10 + (**p - '0');
            (*p)++;
        }
        if (n == 0)
            return -1;
        for (; n < 6; n++)
            f *= 10;
    }
    *us = ((h * 60 + mi) * 60 + s) * PV_US_PER_SEC + f;
    return *us > PV_US_PER_DAY ? -1 : 0;
}

int pgcb_value_parse_date(const char *p, size_t len, int32_t *out)
{
    const char *end = p + len;
    int64_t y, days;
    unsigned m, d;
    int bc = 0;

    if (pv_is(p, len, "infinity")) {
        *out = INT32_MAX;
        return 0;
    }
    if (pv_is(p, len, "-infinity")) {
        *out = INT32_MIN;
        return 0;
    }
    if (pv_ymd(&p, end, &y, &m, &d))
        return -1;
    if (end - p == 3 && memcmp(p, " BC", 3) == 0) {
        bc = 1;
        p += 3;
    }
    if (p != end || pv_ymd_days(y, m, d, bc, &days) || days <= INT32_MIN || days >= INT32_MAX)
        return -1;
    *out = (int32_t)days;
    return 0;
}

int pgcb_value_parse_time(const char *p, size_t len, int64_t *out)
{
    const char *end = p + len;
    int64_t us;
    if (pv_hms(&p, end, &us) || p != end)
        return -1;
    *out = us;
    return 0;
}

int pgcb_value_parse_timestamp(const char *p, size_t len, int with_zone, int64_t *out)
{
    const char *end = p + len;
    int64_t y, days, us, off = 0, t;
    unsigned m, d;
    int bc = 0;

    if (pv_is(p, len, "infinity")) {
        *out = INT64_MAX;
        return 0;
    }
    if (pv_is(p, len, "-infinity")) {
        *out = INT64_MIN;
        return 0;
    }
    /* the date, ' ' (or ISO 8601's 'T', which the server never prints) and the time */
    if (pv_ymd(&p, end, &y, &m, &d) || p >= end || (*p != ' ' && *p != 'T'))
        return -1;
    p++;
    if (pv_hms(&p, end, &us))
        return -1;
    if (with_zone) {
        /* the offset the server's TimeZone gave it: +HH, +HH:MM or +HH:MM:SS */
        int sign;
        int64_t oh, om = 0, os = 0;
        if (p >= end || (*p != '+' && *p != '-'))
            return -1;
        sign = *p++ == '-' ? -1 : 1;
        if ((oh = pv_digits(&p, end, 2)) < 0)
            return -1;
        if (p < end && *p == ':') {
            p++;
            if ((om = pv_digits(&p, end, 2)) < 0 || om > 59)
                return -1;
            if (p < end && *p == ':') {
                p++;
                if ((os = pv_digits(&p, end, 2)) < 0 || os > 59)
                    return -1;
            }
        }
        off = sign * ((oh * 60 + om) * 60 + os) * PV_US_PER_SEC;
    }
    if (end - p == 3 && memcmp(p, " BC", 3) == 0) {
        bc = 1;
        p += 3;
    }
    if (p != end || pv_ymd_days(y, m, d, bc, &days))
        return -1;
    /* 7 year digits: |days| < 3.7e9, |days x us per day| < 3.2e20 > INT64_MAX:
     * the server's range (294276 AD) is far inside INT64, so check. */
    if (days > INT64_MAX / PV_US_PER_DAY - 1 || days < INT64_MIN / PV_US_PER_DAY + 1)
        return -1;
    t = days * PV_US_PER_DAY + us - off;
    if (t == INT64_MAX || t == INT64_MIN)
        return -1; /* the infinities' own values */
    *out = t;
    return 0;
}

/* One signed decimal integer of at most 10 digits at *p (advanced). */
static int pv_signed(const char **p, const char *end, int64_t *v)
{
    int sign = 1;
    if (*p < end && (**p == '-' || **p == '+'))
        sign = *(*p)++ == '-' ? -1 : 1;
    int64_t n = pv_number(p, end, 10);
    if (n < 0)
        return -1;
    *v = sign * n;
    return 0;
}

/* The word at *p up to a space or the end (advanced past it and one
 * space): 1 year(s), 2 mon(s), 3 day(s), 0 anything else. */
static int pv_unit(const char **p, const char *end)
{
    const char *s = *p;
    while (*p < end && **p != ' ')
        (*p)++;
    size_t n = (size_t)(*p - s);
    if (*p < end)
        (*p)++;
    if (pv_is(s, n, "year") || pv_is(s, n, "years"))
        return 1;
    if (pv_is(s, n, "mon") || pv_is(s, n, "mons"))
        return 2;
    if (pv_is(s, n, "day") || pv_is(s, n, "days"))
        return 3;
    return 0;
}

int pgcb_value_parse_interval(const char *p, size_t len, int64_t *us_out, int32_t *days_out,
                              int32_t *months_out)
{
    const char *end = p + len;
    int64_t months = 0, days = 0, us = 0;
    int seen_unit = 0, seen_time = 0;

    if (len == 0)
        return -1;
    while (p < end) {
        int64_t v;
        /* a time part: [+-]H+:MM:SS[.f], the last field */
        const char *q = p;
        if (q < end && (*q == '-' || *q == '+'))
            q++;
        while (q < end && (unsigned)(*q - '0') <= 9)
            q++;
        if (q < end && *q == ':') {
            int sign = 1;
            int64_t h, mi, s, f = 0;
            if (*p == '-' || *p == '+')
                sign = *p++ == '-' ? -1 : 1;
            if ((h = pv_number(&p, end, 12)) < 0 || p >= end || *p != ':')
                return -1;
            p++;
            if ((mi = pv_digits(&p, end, 2)) < 0 || mi > 59 || p >= end || *p != ':')
                return -1;
            p++;
            if ((s = pv_digits(&p, end, 2)) < 0 || s > 59)
                return -1;
            if (p < end && *p == '.') {
                int n = 0;
                p++;
                while (p < end && (unsigned)(*p - '0') <= 9) {
                    if (++n > 6)
                        return -1;
                    f = f * 10 + (*p++ - '0');
                }
                if (n == 0)
                    return -1;
                for (; n < 6; n++)
                    f *= 10;
            }
            /* up to 12 hour digits: the magnitude is computed unsigned and
             * checked (the server's limits are +-2562047788:00:54.775807
             * and .775808) */
            uint64_t mag;
            if (__builtin_mul_overflow((uint64_t)h, (uint64_t)3600 * PV_US_PER_SEC, &mag) ||
                __builtin_add_overflow(mag, (uint64_t)((mi * 60 + s) * PV_US_PER_SEC + f), &mag) ||
                mag > (uint64_t)INT64_MAX + (sign < 0))
                return -1;
            us = sign < 0 ? (int64_t)(0 - mag) : (int64_t)mag;
            seen_time = 1;
            if (p != end)
                return -1;
            break;
        }
        if (pv_signed(&p, end, &v) || p >= end || *p != ' ')
            return -1;
        p++;
        switch (pv_unit(&p, end)) {
        case 1: months += v * 12; break;
        case 2: months += v; break;
        case 3: days += v; break;
        default: return -1;
        }
        /* a field ends at the end or before another ("1 day " is not one) */
        if (p[-1] == ' ' && p == end)
            return -1;
        seen_unit = 1;
    }
    if ((!seen_unit && !seen_time) || months < INT32_MIN || months > INT32_MAX ||
        days < INT32_MIN || days > INT32_MAX)
        return -1;
    *us_out = us;
    *days_out = (int32_t)days;
    *months_out = (int32_t)months;
    return 0;
}
