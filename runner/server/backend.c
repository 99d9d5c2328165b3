/* backend.c -- see backend.h. */
#include "backend.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sys/procfs.h"
#include "util.h"

void pgcb_backend_set_unknown(struct pgcb_backend_set *set, const char *fmt, ...)
{
    set->n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(set->why, sizeof set->why, fmt, ap);
    va_end(ap);
}

int pgcb_backend_set_init(struct pgcb_backend_set *set, const int *pids, size_t n,
                          size_t expected, int postmaster)
{
    set->n = 0;
    set->postmaster = postmaster;
    set->why[0] = '\0';
    if (postmaster <= 0) {
        pgcb_backend_set_unknown(set, "the server does not run on this machine (its processes "
                                      "are not visible here)");
        return -1;
    }
    if (n != expected || n > PGCB_MAX_BACKENDS) {
        pgcb_backend_set_unknown(set, "the server lists %zu backend%s under the host's "
                                      "application_name, not its %zu connection%s", n,
                                 n == 1 ? "" : "s", expected, expected == 1 ? "" : "s");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        struct pgcb_procfs_stat st;
        if (pgcb_procfs_stat(pids[i], &st) != 0 || strncmp(st.comm, "postgres", 8) != 0 ||
            st.ppid != postmaster) {
            pgcb_backend_set_unknown(set, "backend %d is not a postgres process of this "
                                          "machine's server (postmaster %d)", pids[i],
                                     postmaster);
            return -1;
        }
    }
    memcpy(set->pids, pids, n * sizeof *pids);
    set->n = n;
    return 0;
}

int pgcb_backend_read(const struct pgcb_backend_set *set, struct pgcb_backend_sample *out,
                      char *why, size_t n)
{
    *out = (struct pgcb_backend_sample){.run_exact = 1};
    for (size_t i = 0; i < set->n; i++) {
        int pid = set->pids[i];
        struct pgcb_procfs_stat st;
        uint64_t vol, inv, ns;
        if (pgcb_procfs_stat(pid, &st) != 0 || st.ppid != set->postmaster ||
            pgcb_procfs_switches(pid, &vol, &inv) != 0) {
            snprintf(why, n, "backend %d exited during the group", pid);
            return -1;
        }
        out->utime += st.utime;
        out->stime += st.stime;
        out->voluntary += vol;
        out->involuntary += inv;
        if (st.threads == 1 && pgcb_procfs_schedstat(pid, &ns) == 0)
            out->run_ns += ns;
        else
            out->run_exact = 0;
    }
    return 0;
}

void pgcb_backend_lose(struct pgcb_backend_acc *acc, const char *why)
{
    if (acc->lost)
        return;
    acc->lost = 1;
    snprintf(acc->why, sizeof acc->why, "%s", why);
}

void pgcb_backend_add(struct pgcb_backend_acc *acc, const struct pgcb_backend_set *set,
                      const struct pgcb_backend_sample *before,
                      const struct pgcb_backend_sample *after)
{
    const struct pgcb_backend_sample *a = after, *b = before;
    if (a->utime < b->utime || a->stime < b->stime || a->voluntary < b->voluntary ||
        a->involuntary < b->involuntary || (a->run_exact && b->run_exact && a->run_ns < b->run_ns)) {
        pgcb_backend_lose(acc, "a backend's counters went back (another process took its pid?)");
        return;
    }
    int exact = a->run_exact && b->run_exact && (acc->orders == 0 || acc->sum.run_exact);
    acc->sum.utime += a->utime - b->utime;
    acc->sum.stime += a->stime - b->stime;
    acc->sum.voluntary += a->voluntary - b->voluntary;
    acc->sum.involuntary += a->involuntary - b->involuntary;
    acc->sum.run_ns = exact ? acc->sum.run_ns + (a->run_ns - b->run_ns) : 0;
    acc->sum.run_exact = exact;
    acc->pids = (uint32_t)set->n;
    acc->orders++;
}

void pgcb_backend_figures(const struct pgcb_backend_acc *acc, uint64_t queries,
                          const char *set_why, struct pgcb_res_backend *out)
{
    *out = (struct pgcb_res_backend){.cpu_ns_per_query = NAN, .user_ns_per_query = NAN,
                                     .sys_ns_per_query = NAN,
                                     .voluntary_switches_per_query = NAN,
                                     .involuntary_switches_per_query = NAN};
    if (acc->lost || !acc->orders || !queries) {
        const char *why = acc->lost ? acc->why : set_why;
        out->why = why && why[0] ? pgcb_xstrdup(why) : NULL;
        return;
    }
    const double q = (double)queries, tick = (double)pgcb_procfs_tick_ns();
    const struct pgcb_backend_sample *s = &acc->sum;
    out->user_ns_per_query = (double)s->utime * tick / q;
    out->sys_ns_per_query = (double)s->stime * tick / q;
    out->cpu_exact = s->run_exact;
    out->cpu_ns_per_query = s->run_exact ? (double)s->run_ns / q
                                         : out->user_ns_per_query + out->sys_ns_per_query;
    out->voluntary_switches_per_query = (double)s->voluntary / q;
    out->involuntary_switches_per_query = (double)s->involuntary / q;
    out->pids = acc->pids;
}
