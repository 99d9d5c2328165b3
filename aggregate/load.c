/* load.c -- reading and checking the result files, what they share, the
 * rankings; see agg.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agg.h"
#include "pgcb/driver.h"
#include "stats.h"
#include "util.h"

char *pgcb_agg_group_name(const struct pgcb_res_group *gr)
{
    char shape[64];
    pgcb_res_group_shape(gr, shape, sizeof shape);
    char rtt[40] = "";
    if (gr->has_rtt) /* groups at two RTTs are two groups */
        snprintf(rtt, sizeof rtt, ", rtt %g ms", gr->rtt_ms);
    return pgcb_xasprintf("%s / %s, %s%s%s%s", gr->suite, gr->query, shape,
                          gr->transport ? ", " : "", gr->transport ? gr->transport : "", rtt);
}

/* Record a note, and warn about it (naming the file when there is one). */
static void note(struct pgcb_agg *a, FILE *warn, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note(struct pgcb_agg *a, FILE *warn, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) {
        va_end(ap);
        return;
    }
    va_end(ap);
    a->notes = pgcb_xrealloc(a->notes, (a->nnotes + 1) * sizeof *a->notes);
    a->notes[a->nnotes++] = s;
    if (warn)
        fprintf(warn, "aggregate: warning: %s%s%s\n", path ? path : "", path ? ": " : "", s);
}

/* "run 2" or "runs 1, 3" for the runs where has[i] is set. */
static char *run_list(const int *has, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += has[i] != 0;
    char *s = pgcb_xstrdup(count == 1 ? "run" : "runs");
    const char *sep = " ";
    for (size_t i = 0; i < n; i++) {
        if (!has[i])
            continue;
        char *t = pgcb_xasprintf("%s%s%zu", s, sep, i + 1);
        free(s);
        s = t;
        sep = ", ";
    }
    return s;
}

static size_t find_label(const struct pgcb_result *r, const char *label)
{
    for (size_t d = 0; d < r->ndrivers; d++)
        if (strcmp(r->drivers[d].label, label) == 0)
            return d;
    return SIZE_MAX;
}

/* Notes for every client driver that is not a client driver in every run. */
static void check_drivers(struct pgcb_agg *a, FILE *warn)
{
    int *has = pgcb_xcalloc(a->nruns, sizeof *has);
    for (size_t i = 0; i < a->nruns; i++) {
        const struct pgcb_result *r = a->res[i];
        for (size_t d = 0; d < r->ndrivers; d++) {
            const char *label = r->drivers[d].label;
            if (r->drivers[d].caps & PGCB_CAP_REFERENCE)
                continue;
            int seen_before = 0, everywhere = 1, reference_somewhere = 0;
            for (size_t j = 0; j < a->nruns; j++) {
                size_t e = find_label(a->res[j], label);
                has[j] = e != SIZE_MAX;
                everywhere &= has[j];
                if (has[j] && (a->res[j]->drivers[e].caps & PGCB_CAP_REFERENCE)) {
                    reference_somewhere = 1;
                    has[j] = 0;
                }
                if (j < i && e != SIZE_MAX && !(a->res[j]->drivers[e].caps & PGCB_CAP_REFERENCE))
                    seen_before = 1;
            }
            if (seen_before || pgcb_rank_driver_shared(a->res, a->nruns, label))
                continue;
            char *runs = run_list(has, a->nruns);
            if (everywhere && reference_somewhere)
                note(a, warn, NULL, "Driver %s is a client driver only in %s (a reference "
                     "elsewhere): not ranked.", label, runs);
            else
                note(a, warn, NULL, "Driver %s is only in %s: not ranked.", label, runs);
            free(runs);
        }
    }
    free(has);
}

static int has_group(const struct pgcb_result *r, const struct pgcb_res_group *gr)
{
    for (size_t g = 0; g < r->ngroups; g++)
        if (pgcb_rank_same_group(&r->groups[g], gr))
            return 1;
    return 0;
}

/* Notes for every group that is not in every run; returns the shared count. */
static size_t check_groups(struct pgcb_agg *a, FILE *warn)
{
    int *has = pgcb_xcalloc(a->nruns, sizeof *has);
    size_t shared = 0;
    for (size_t i = 0; i < a->nruns; i++) {
        const struct pgcb_result *r = a->res[i];
        for (size_t g = 0; g < r->ngroups; g++) {
            const struct pgcb_res_group *gr = &r->groups[g];
            int seen_before = 0;
            for (size_t j = 0; j < i && !seen_before; j++)
                seen_before = has_group(a->res[j], gr);
            /* a group listed twice in one run counts once */
            for (size_t h = 0; h < g && !seen_before; h++)
                seen_before = pgcb_rank_same_group(&r->groups[h], gr);
            if (seen_before)
                continue;
            for (size_t j = 0; j < a->nruns; j++)
                has[j] = has_group(a->res[j], gr);
            if (pgcb_rank_group_shared(a->res, a->nruns, gr)) {
                shared++;
                continue;
            }
            char *name = pgcb_agg_group_name(gr);
            char *runs = run_list(has, a->nruns);
            note(a, warn, NULL, "Group %s is only in %s: left out.", name, runs);
            free(runs);
            free(name);
        }
    }
    free(has);
    return shared;
}

/* Issue 13: per run whose file records the noise (a runner that does), a
 * note with the machine's steal over the run and how many client cells'
 * per-order medians spread more than the run's noise_warn_pct. */
static void check_noise(struct pgcb_agg *a)
{
    for (size_t i = 0; i < a->nruns; i++) {
        const struct pgcb_result *r = a->res[i];
        if (r->nnoise_cpus == 0 && !isfinite(r->run_steal_pct))
            continue;
        double warn = r->noise_warn_pct > 0 ? r->noise_warn_pct : PGCB_STATS_NOISE_WARN_PCT;
        size_t cells = 0, noisy = 0;
        for (size_t g = 0; g < r->ngroups; g++)
            for (size_t d = 0; d < r->ndrivers; d++) {
                const struct pgcb_res_cell *c = &r->groups[g].cells[d];
                if ((r->drivers[d].caps & PGCB_CAP_REFERENCE) || c->status != PGCB_CELL_OK ||
                    !isfinite(c->spread_cv_pct))
                    continue;
                cells++;
                noisy += c->spread_cv_pct > warn;
            }
        char steal[96] = "steal not known";
        if (isfinite(r->run_steal_pct))
            snprintf(steal, sizeof steal, "steal %.2f%% of the machine's CPU time over the run",
                     r->run_steal_pct);
        note(a, NULL, NULL, "Run %zu: %s; %zu of %zu client results with per-order medians "
             "spread more than noise_warn_pct %g%%.", i + 1, steal, noisy, cells, warn);
    }
}

/* How run i's idle CPUs waited ([bench] cpu_idle): 0 unknown (a file from
 * before it), 1 polling, 2 as the system had it. */
static int idle_kind(const struct pgcb_result *r)
{
    return !r->idle.asked ? 0 : r->idle.polling ? 1 : 2;
}

/* Runs whose idle CPUs waited differently: a warning naming which ran how
 * (docs/measuring.md#how-idle-cpus-wait: halting CPUs put each wake-up's
 * interrupt into both sides' figures, up to 3x at sequential LIMIT 1). */
static void check_idle(struct pgcb_agg *a, FILE *warn)
{
    static const char *const said[] = {"not recorded (before cpu_idle)", "polling",
                                       "as the system had it (halting)"};
    char runs[3][256] = {"", "", ""};
    int kinds = 0;
    for (size_t i = 0; i < a->nruns; i++) {
        int k = idle_kind(a->res[i]);
        size_t n = strlen(runs[k]);
        kinds += n == 0;
        snprintf(runs[k] + n, sizeof runs[k] - n, "%s%zu", n ? ", " : "", i + 1);
    }
    if (kinds < 2)
        return;
    char list[900] = "";
    for (int k = 1; k <= 3; k++) { /* polling, halting, then unknown */
        size_t n = strlen(list);
        if (runs[k % 3][0])
            snprintf(list + n, sizeof list - n, "%sruns %s %s", n ? "; " : "", runs[k % 3],
                     said[k % 3]);
    }
    note(a, warn, NULL, "The runs' idle CPUs did not wait alike (%s): halting CPUs put the "
         "hypervisor's wake-ups into both sides' figures ([bench] cpu_idle; "
         "docs/measuring.md#how-idle-cpus-wait).", list);
}

/* The file must exist, be readable and not be a directory: a message that
 * says so beats the JSON parser's. */
static int check_readable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    int dir = fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode);
    fclose(f);
    if (dir) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(EISDIR));
        return -1;
    }
    return 0;
}

/* A profiled run beside an unprofiled one: refused (DESIGN.md: a profiled
 * run is never compared with an unprofiled one; sampling costs the
 * profiled run's client and server CPU). 0, or -1 with the line in err. */
static int check_profiles(const struct pgcb_agg *a, char *err, size_t errlen)
{
    long prof = -1, plain = -1;
    for (size_t i = 0; i < a->nruns; i++) {
        if (a->runs[i].res.profile.profiled && prof < 0)
            prof = (long)i;
        if (!a->runs[i].res.profile.profiled && plain < 0)
            plain = (long)i;
    }
    if (prof < 0 || plain < 0)
        return 0;
    const struct pgcb_res_run_profile *p = &a->runs[prof].res.profile;
    snprintf(err, errlen, "%s is a profiled run (perf %s, %u Hz) and %s is not: profiled "
             "figures are never combined with or compared to unprofiled ones (aggregate "
             "each kind apart)", a->runs[prof].path, p->event ? p->event : "?", p->frequency,
             a->runs[plain].path);
    return -1;
}

char *pgcb_agg_profile_path(const struct pgcb_agg *a, size_t i)
{
    const struct pgcb_res_run_profile *p = &a->runs[i].res.profile;
    const char *rel = p->index ? p->index : p->dir;
    if (!p->profiled || !rel)
        return NULL;
    const char *path = a->runs[i].path, *slash = strrchr(path, '/');
    if (rel[0] == '/' || !slash)
        return pgcb_xstrdup(rel);
    return pgcb_xasprintf("%.*s/%s", (int)(slash - path), path, rel);
}

char *pgcb_agg_profile_line(const struct pgcb_agg *a, size_t i)
{
    const struct pgcb_res_run_profile *p = &a->runs[i].res.profile;
    if (!p->profiled)
        return NULL;
    char *path = pgcb_agg_profile_path(a, i);
    char *line = pgcb_xasprintf("profiled (perf %s, %u Hz): %s%s", p->event ? p->event : "?",
                                p->frequency, path ? path : "(no profile directory recorded)",
                                p->index ? "" : " (no flame graph index)");
    free(path);
    return line;
}

int pgcb_agg_load(struct pgcb_agg *a, char *const *paths, size_t n, char *const *labels,
                  size_t nlabels, FILE *warn, char *err, size_t errlen)
{
    *a = (struct pgcb_agg){0};
    a->runs = pgcb_xcalloc(n, sizeof *a->runs);
    a->res = pgcb_xcalloc(n, sizeof *a->res);
    for (size_t i = 0; i < n; i++) {
        struct pgcb_agg_run *run = &a->runs[i];
        if (check_readable(paths[i], err, errlen) != 0 ||
            pgcb_result_read(paths[i], &run->res, err, errlen) != 0) {
            pgcb_agg_free(a);
            return -1;
        }
        a->nruns++;
        a->res[i] = &run->res;
        run->path = pgcb_xstrdup(paths[i]);
        run->label = i < nlabels ? pgcb_xstrdup(labels[i]) : pgcb_result_label(&run->res);
        if (run->res.ngroups == 0) {
            snprintf(err, errlen, "%s: the result has no group", paths[i]);
            pgcb_agg_free(a);
            return -1;
        }
    }
    if (check_profiles(a, err, errlen) != 0) {
        pgcb_agg_free(a);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (a->runs[i].res.verdict_defaults)
            note(a, warn, a->runs[i].path, "Run %zu is a schema %u result: its verdicts and "
                 "intervals are recomputed from its per-order medians at alpha 1/64 and 95%% "
                 "(not recorded in it); figures added since are missing.", i + 1,
                 a->runs[i].res.schema_version);
    for (size_t i = 0; i < n; i++)
        if (!a->runs[i].res.complete)
            note(a, warn, a->runs[i].path, "Run %zu is partial (%s): what it did not run is "
                 "left out.", i + 1, a->runs[i].res.stop_reason ? a->runs[i].res.stop_reason
                                                                 : "no reason recorded");
    check_noise(a);
    check_idle(a, warn);
    check_drivers(a, warn);
    size_t shared = check_groups(a, warn);
    if (shared == 0) {
        snprintf(err, errlen, "the results share no group (suite, query, depth): nothing to "
                 "rank");
        pgcb_agg_free(a);
        return -1;
    }
    if (pgcb_rank_compute(a->res, n, NULL, &a->overall) != 0) {
        const char *why = a->overall.nranked == 0 && a->overall.nunranked == 0
                              ? "the results share no client driver"
                          : a->overall.nranked == 0
                              ? "no shared client driver has a valid result"
                              : "no group has a valid result from every ranked driver";
        snprintf(err, errlen, "%s: nothing to rank", why);
        pgcb_agg_free(a);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        pgcb_rank_compute_within(&a->res[i], 1, a->res, n, NULL, &a->runs[i].rank);
    return 0;
}

double pgcb_agg_run_rel(const struct pgcb_agg *a, size_t i, const char *driver, int *first)
{
    const struct pgcb_ranking *rk = &a->runs[i].rank;
    *first = 0;
    for (size_t k = 0; k < rk->nrows; k++)
        if (strcmp(rk->rows[k].driver, driver) == 0) {
            *first = rk->rows[k].rank == 1;
            return rk->rows[k].rel;
        }
    return NAN;
}

void pgcb_agg_free(struct pgcb_agg *a)
{
    for (size_t i = 0; i < a->nruns; i++) {
        free(a->runs[i].path);
        free(a->runs[i].label);
        pgcb_result_free(&a->runs[i].res);
        pgcb_rank_free(&a->runs[i].rank);
    }
    free(a->runs);
    free(a->res);
    pgcb_rank_free(&a->overall);
    for (size_t i = 0; i < a->nnotes; i++)
        free(a->notes[i]);
    free(a->notes);
    *a = (struct pgcb_agg){0};
}
