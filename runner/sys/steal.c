/* steal.c -- see steal.h. */
#include "steal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The 8th value after the line's name (user nice system idle iowait irq
 * softirq steal), p just after the name. 0, or -1 if there are fewer. */
static int line_steal(const char *p, uint64_t *steal)
{
    for (int k = 0; k < 8; k++) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno)
            return -1;
        p = end;
        if (k == 7)
            *steal = (uint64_t)v;
    }
    return 0;
}

static int listed(const int *cpus, size_t n, long cpu)
{
    for (size_t i = 0; i < n; i++)
        if (cpus[i] == cpu)
            return 1;
    return 0;
}

int pgcb_steal_parse(FILE *f, const int *cpus, size_t ncpus, struct pgcb_steal *out)
{
    char line[1024];
    int have_total = 0;
    *out = (struct pgcb_steal){0};
    /* The "cpu" lines come first; the "intr" line after them can be very
     * long, and is not read. */
    while (fgets(line, sizeof line, f) && strncmp(line, "cpu", 3) == 0) {
        const char *p = line + 3;
        uint64_t steal;
        if (*p == ' ') {
            if (line_steal(p, &steal) == 0) {
                out->machine = steal;
                have_total = 1;
            }
            continue;
        }
        if (!isdigit((unsigned char)*p))
            continue;
        char *end;
        long cpu = strtol(p, &end, 10);
        if (*end != ' ' || line_steal(end, &steal) != 0)
            continue;
        out->ncpus_online++;
        if (listed(cpus, ncpus, cpu)) {
            out->cpus += steal;
            out->ncpus_found++;
        }
    }
    return have_total ? 0 : -1;
}

int pgcb_steal_read(const int *cpus, size_t ncpus, struct pgcb_steal *out)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f) {
        *out = (struct pgcb_steal){0};
        return -1;
    }
    int rc = pgcb_steal_parse(f, cpus, ncpus, out);
    fclose(f);
    return rc;
}

double pgcb_steal_tick_ns(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    return 1e9 / (double)(hz > 0 ? hz : 100);
}

int pgcb_steal_parse_uptime(FILE *f, uint64_t *ns)
{
    double s;
    if (fscanf(f, "%lf", &s) != 1 || !(s >= 0) || s > 1e12)
        return -1;
    *ns = (uint64_t)(s * 1e9);
    return 0;
}

double pgcb_steal_since_boot_pct(void)
{
    struct pgcb_steal st;
    uint64_t up = 0;
    FILE *f = fopen("/proc/uptime", "r");
    if (!f)
        return NAN;
    int rc = pgcb_steal_parse_uptime(f, &up);
    fclose(f);
    if (rc != 0 || up == 0 || pgcb_steal_read(NULL, 0, &st) != 0 || st.ncpus_online == 0)
        return NAN;
    return 100.0 * (double)st.machine * pgcb_steal_tick_ns() /
           ((double)up * (double)st.ncpus_online);
}
