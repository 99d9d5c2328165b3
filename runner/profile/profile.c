/*
 * profile.c -- see profile.h. The recordings of one group live in struct
 * prof_drv (one per driver of the session), started lazily at the driver's
 * first measured job of the group and stopped, folded and summed up at the
 * group's end.
 */
#include "profile.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitmap.h"
#include "sched/session.h"
#include "sys/procmem.h"
#include "util.h"

enum { SIDE_CLIENT, SIDE_BACKEND, NSIDES };
static const char *const side_name[NSIDES] = {"client", "backend"};

struct prof_drv {
    int active;                   /* its recordings of the current group were started */
    int want[NSIDES];             /* the side is recorded (else none[] says why) */
    char none[NSIDES][320];
    struct pgcb_perfrec rec[NSIDES];
    int said[NSIDES];             /* its failure was said on stderr */
    char call_graph[NSIDES][32];  /* what each side records with */
    int *client_pids;             /* the client side's processes (owned) */
    size_t nclient;
};

struct pgcb_profile {
    struct pgcb_perf_opts opts;
    char *dir;                    /* the profile directory, as made */
    char *dir_rel;                /* ... relative to the result file's directory */
    char *fold_py;                /* NULL: none found (folding is skipped, said once) */
    char *flame_dir;              /* build/profile/flame-dir; NULL: none */
    char group[PATH_MAX];         /* the current group's directory name */
    struct prof_drv *drv;
    size_t ndrivers;
    int *map_pids;                /* client pids recorded: their JIT maps are removed */
    size_t nmap, capmap;
    int fold_said;
};

struct pgcb_perf_opts pgcb_profile_opts(void)
{
    struct pgcb_perf_opts o = {.perf = pgcb_perf_program(), .event = PGCB_PROFILE_EVENT,
                               .frequency = PGCB_PROFILE_FREQUENCY,
                               .call_graph = PGCB_PROFILE_CALL_GRAPH};
    /* For experiments (docs/profiling.md): another unwinding or rate. */
    const char *cg = getenv("PGCB_PROFILE_CALL_GRAPH"), *hz = getenv("PGCB_PROFILE_FREQUENCY");
    uint64_t f;
    if (cg && *cg)
        o.call_graph = cg;
    if (hz && pgcb_parse_u64(hz, 1, 10000, &f) == 0)
        o.frequency = (unsigned)f;
    return o;
}

void pgcb_profile_safe_name(const char *name, char *buf, size_t n)
{
    size_t k = 0;
    for (; name[k] && k + 1 < n; k++) {
        char ch = name[k];
        int ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                 (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
        buf[k] = ok ? ch : '_';
    }
    if (n)
        buf[k] = '\0';
}

/* DIR/profile/NAME next to the runner's executable, if it exists. */
static char *beside_runner(const char *name)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return NULL;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    char *path = pgcb_xasprintf("%s/profile/%s", exe, name);
    if (access(path, F_OK) != 0) {
        free(path);
        return NULL;
    }
    return path;
}

int pgcb_profile_check(const struct pgcb_config *cfg, char *why, size_t n)
{
    why[0] = '\0';
    if (cfg->profile == PGCB_PROFILE_OFF)
        return 0;
    struct pgcb_perf_opts po = pgcb_profile_opts();
    char how[600];
    if (strcmp(cfg->profile_source, "--profile") == 0)
        snprintf(how, sizeof how, "--profile=%s", pgcb_profile_mode_name(cfg->profile));
    else
        snprintf(how, sizeof how, "%s:%d: [bench] profile = %s", cfg->file, cfg->profile_line,
                 pgcb_profile_mode_name(cfg->profile));
    /* perf follows a group's processes from its first job on (start_driver):
     * respawn = order starts new ones for every order, which it would miss. */
    if (cfg->respawn_order)
        snprintf(why, n, "not with [bench] respawn = order: the profiler follows a group's "
                         "processes from its first order, and respawn starts new ones for "
                         "every order");
    else if (pgcb_perf_check(&po, why, n) == 0) {
        setenv("PGCB_PROFILE", "1", 1);
        return 1;
    }
    if (cfg->profile == PGCB_PROFILE_ON) {
        fprintf(stderr, "runner: %s: %s (profile = try would run unprofiled instead)\n", how,
                why);
        return -1;
    }
    fprintf(stderr, "runner: note: %s: %s; the run goes on unprofiled\n", how, why);
    return 0;
}

struct pgcb_profile *pgcb_profile_new(const char *result_path, size_t ndrivers, char *why,
                                      size_t n)
{
    size_t len = strlen(result_path);
    if (len > 5 && strcmp(result_path + len - 5, ".json") == 0)
        len -= 5;
    char *dir = pgcb_xasprintf("%.*s.profiles", (int)len, result_path);
    char *probe = pgcb_xasprintf("%s/x", dir);
    int rc = pgcb_mkdir_parents(probe);
    free(probe);
    if (rc != 0) {
        snprintf(why, n, "cannot make the profile directory %s: %s", dir, strerror(errno));
        free(dir);
        return NULL;
    }
    struct pgcb_profile *p = pgcb_xcalloc(1, sizeof *p);
    p->opts = pgcb_profile_opts();
    p->dir = dir;
    const char *base = strrchr(dir, '/');
    p->dir_rel = pgcb_xstrdup(base ? base + 1 : dir);
    const char *fold = getenv("PGCB_PROFILE_FOLD");
    p->fold_py = fold && *fold ? pgcb_xstrdup(fold) : beside_runner("fold.py");
    p->flame_dir = beside_runner("flame-dir");
    p->ndrivers = ndrivers;
    p->drv = pgcb_xcalloc(ndrivers ? ndrivers : 1, sizeof *p->drv);
    return p;
}

void pgcb_profile_record(const struct pgcb_profile *p, const char *mode,
                         struct pgcb_res_run_profile *out)
{
    pgcb_result_profile_run_free(out);
    out->mode = pgcb_xstrdup(mode);
    out->profiled = 1;
    out->event = pgcb_xstrdup(p->opts.event);
    out->frequency = p->opts.frequency;
    out->call_graph = pgcb_xstrdup(p->opts.call_graph);
    out->dir = pgcb_xstrdup(p->dir_rel);
}

static void remember_pid(struct pgcb_profile *p, int pid)
{
    for (size_t i = 0; i < p->nmap; i++)
        if (p->map_pids[i] == pid)
            return;
    if (p->nmap == p->capmap) {
        p->capmap = p->capmap ? 2 * p->capmap : 16;
        p->map_pids = realloc(p->map_pids, p->capmap * sizeof *p->map_pids);
        if (!p->map_pids) {
            fprintf(stderr, "runner: out of memory\n");
            exit(70);
        }
    }
    p->map_pids[p->nmap++] = pid;
}

/* DIR/GROUP/DRIVER.SIDE + ext. */
static char *side_path(const struct pgcb_profile *p, const char *top, const char *driver, int side,
                       const char *ext)
{
    char safe[128];
    pgcb_profile_safe_name(driver, safe, sizeof safe);
    return pgcb_xasprintf("%s/%s/%s.%s%s", top, p->group, safe, side_name[side], ext);
}

static void say_failure(struct prof_drv *pd, int side, const char *driver)
{
    if (pd->said[side] || !pd->rec[side].failed[0])
        return;
    pd->said[side] = 1;
    fprintf(stderr, "runner: note: driver %s's %s profile failed (its figures are kept): %s\n",
            driver, side_name[side], pd->rec[side].failed);
}

/* The client's stacks need frame pointers rather than DWARF: a node
 * adapter (V8's JIT code has no unwind tables, so DWARF unwinding stops at
 * the first JavaScript frame; V8 and node keep frame pointers) or a Go one
 * (Go keeps frame pointers, and its binaries have no .eh_frame). Known by
 * the bridge's adapter option, or a node executable among the processes. */
static int frame_pointer_client(const struct pgcb_sdriver *sd, const int *pids, size_t n)
{
    for (size_t i = 0; i < sd->cfg->nopts; i++)
        if (strcmp(sd->cfg->opts[i].key, "adapter") == 0 &&
            (strcmp(sd->cfg->opts[i].value, "node") == 0 ||
             strcmp(sd->cfg->opts[i].value, "go") == 0))
            return 1;
    for (size_t i = 1; i < n; i++) {
        char link[64], exe[PATH_MAX];
        snprintf(link, sizeof link, "/proc/%d/exe", pids[i]);
        ssize_t len = readlink(link, exe, sizeof exe - 1);
        if (len <= 0)
            continue;
        exe[len] = '\0';
        const char *base = strrchr(exe, '/');
        if (strncmp(base ? base + 1 : exe, "node", 4) == 0)
            return 1;
    }
    return 0;
}

/* Start driver d's recordings for group g. */
static void start_driver(struct pgcb_profile *p, struct pgcb_session *s,
                         const struct pgcb_result *r, size_t g, size_t d)
{
    struct prof_drv *pd = &p->drv[d];
    struct pgcb_sdriver *sd = &s->drivers[d];
    const struct pgcb_res_group *gr = &r->groups[g];
    *pd = (struct prof_drv){.active = 1};
    char name[400];
    snprintf(name, sizeof name, "%s.%s.d%u%s%s", gr->suite, gr->query, gr->depth,
             gr->transport ? "." : "", gr->transport ? gr->transport : "");
    pgcb_profile_safe_name(name, p->group, sizeof p->group);
    char *probe = pgcb_xasprintf("%s/%s/x", p->dir, p->group);
    pgcb_mkdir_parents(probe);
    free(probe);
    /* The client: the host and whatever it started (a bridge's adapters). */
    static int pids[PGCB_MAX_BACKENDS];
    size_t n = (size_t)pgcb_procmem_tree((int)sd->host.pid, pids, PGCB_MAX_BACKENDS);
    for (size_t i = 0; i < n; i++)
        remember_pid(p, pids[i]);
    pd->client_pids = pgcb_xcalloc(n ? n : 1, sizeof *pd->client_pids);
    memcpy(pd->client_pids, pids, n * sizeof *pids);
    pd->nclient = n;
    pd->want[SIDE_CLIENT] = 1;
    /* The backend: the driver's own backends, when they are known. */
    if (sd->caps & PGCB_CAP_NO_IO)
        snprintf(pd->none[SIDE_BACKEND], sizeof pd->none[0], "a driver without I/O has no "
                 "backends");
    else if (gr->connect)
        snprintf(pd->none[SIDE_BACKEND], sizeof pd->none[0], "a connection group: each "
                 "sample's backend starts and exits within it, so there is no set of backends "
                 "to record");
    else if (!sd->host.backends.n)
        snprintf(pd->none[SIDE_BACKEND], sizeof pd->none[0], "its backends are unknown: %s",
                 sd->host.backends.why[0] ? sd->host.backends.why : "not found");
    else
        pd->want[SIDE_BACKEND] = 1;
    for (int side = 0; side < NSIDES; side++) {
        if (!pd->want[side])
            continue;
        struct pgcb_perf_opts o = p->opts;
        if (side == SIDE_CLIENT && !getenv("PGCB_PROFILE_CALL_GRAPH") &&
            frame_pointer_client(sd, pids, n))
            o.call_graph = PGCB_PROFILE_CALL_GRAPH_JIT;
        snprintf(pd->call_graph[side], sizeof pd->call_graph[side], "%s", o.call_graph);
        char *out = side_path(p, p->dir, sd->cfg->name, side, ".perf");
        char *log = side_path(p, p->dir, sd->cfg->name, side, ".log");
        if (side == SIDE_CLIENT)
            pgcb_perfrec_start(&pd->rec[side], &o, pids, n, out, log);
        else
            pgcb_perfrec_start(&pd->rec[side], &o, sd->host.backends.pids,
                               sd->host.backends.n, out, log);
        say_failure(pd, side, sd->cfg->name);
        free(out);
        free(log);
    }
}

void pgcb_profile_job_begin(struct pgcb_profile *p, struct pgcb_session *s,
                            const struct pgcb_result *r, size_t g, size_t d)
{
    if (!p || d >= p->ndrivers)
        return;
    if (!p->drv[d].active)
        start_driver(p, s, r, g, d);
    struct prof_drv *pd = &p->drv[d];
    for (int side = 0; side < NSIDES; side++)
        if (pd->want[side]) {
            pgcb_perfrec_enable(&pd->rec[side]);
            say_failure(pd, side, s->drivers[d].cfg->name);
        }
}

void pgcb_profile_job_end(struct pgcb_profile *p, size_t d)
{
    if (!p || d >= p->ndrivers || !p->drv[d].active)
        return;
    for (int side = 0; side < NSIDES; side++)
        if (p->drv[d].want[side])
            pgcb_perfrec_disable(&p->drv[d].rec[side]);
}

/* Read prefix.top.tsv into sd (shares of its total; ns per query from
 * cpu_ns). 0, or -1 with why. */
static int read_top(const char *path, double cpu_ns, struct pgcb_res_prof_side *sd, char *why,
                    size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[2048];
    size_t capc = 0, capf = 0;
    int total_seen = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t2)
            continue;
        *t1 = *t2 = '\0';
        uint64_t v = strtoull(t2 + 1, NULL, 10);
        if (strcmp(line, "total") == 0) {
            sd->samples = v;
            total_seen = 1;
            continue;
        }
        int cat = strcmp(line, "category") == 0;
        if (!cat && strcmp(line, "function") != 0)
            continue;
        struct pgcb_res_prof_entry **arr = cat ? &sd->categories : &sd->functions;
        size_t *cnt = cat ? &sd->ncategories : &sd->nfunctions, *cap = cat ? &capc : &capf;
        if (*cnt == *cap) {
            *cap = *cap ? 2 * *cap : 8;
            *arr = realloc(*arr, *cap * sizeof **arr);
            if (!*arr) {
                fprintf(stderr, "runner: out of memory\n");
                exit(70);
            }
        }
        (*arr)[(*cnt)++] = (struct pgcb_res_prof_entry){.name = pgcb_xstrdup(t1 + 1),
                                                        .samples = v};
    }
    fclose(f);
    if (!total_seen) {
        snprintf(why, n, "%s: no total line", path);
        return -1;
    }
    struct pgcb_res_prof_entry *lists[] = {sd->categories, sd->functions};
    size_t counts[] = {sd->ncategories, sd->nfunctions};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < counts[k]; i++) {
            double share = sd->samples ? (double)lists[k][i].samples / (double)sd->samples : NAN;
            lists[k][i].share = share;
            lists[k][i].ns_per_query = isfinite(cpu_ns) ? share * cpu_ns : NAN;
        }
    return 0;
}

/* Stop, fold and sum up one side of driver d into cell c. */
static void finish_side(struct pgcb_profile *p, struct prof_drv *pd, int side, const char *driver,
                        struct pgcb_res_cell *c)
{
    struct pgcb_res_prof_side *out = side == SIDE_CLIENT ? &c->profile.client
                                                         : &c->profile.backend;
    if (!pd->want[side]) {
        out->none = pgcb_xstrdup(pd->none[side]);
        return;
    }
    struct pgcb_perfrec *rec = &pd->rec[side];
    pgcb_perfrec_stop(rec);
    say_failure(pd, side, driver);
    out->recorded = 1;
    out->call_graph = pgcb_xstrdup(pd->call_graph[side]);
    char why[1024] = "";
    struct stat st;
    if (rec->failed[0])
        snprintf(why, sizeof why, "%s", rec->failed);
    if (stat(rec->out, &st) == 0)
        out->perf = side_path(p, p->dir_rel, driver, side, ".perf");
    char *prefix = side_path(p, p->dir, driver, side, "");
    char *top = pgcb_xasprintf("%s.top.tsv", prefix);
    if (!p->fold_py) {
        if (!why[0])
            snprintf(why, sizeof why, "no fold.py (build/profile/fold.py, or "
                     "PGCB_PROFILE_FOLD): the recording is kept, not folded");
    } else if (!out->perf) {
        if (!why[0])
            snprintf(why, sizeof why, "perf wrote no file");
    } else {
        char fwhy[600];
        unlink(top);
        /* A JIT's map, fit for folding for the while (jitmap.h). */
        int swapped[PGCB_MAX_BACKENDS] = {0};
        for (size_t i = 0; side == SIDE_CLIENT && i < pd->nclient && i < PGCB_MAX_BACKENDS; i++)
            swapped[i] = pgcb_jitmap_swap(pd->client_pids[i]) == 1;
        int frc = pgcb_perf_fold(p->opts.perf, p->fold_py, rec->out, prefix, rec->log, fwhy,
                                 sizeof fwhy);
        for (size_t i = 0; side == SIDE_CLIENT && i < pd->nclient && i < PGCB_MAX_BACKENDS; i++)
            if (swapped[i])
                pgcb_jitmap_restore(pd->client_pids[i]);
        if (frc != 0)
            snprintf(why + strlen(why), sizeof why - strlen(why), "%sfolding failed: %s",
                     why[0] ? "; " : "", fwhy);
        else {
            double cpu = side == SIDE_CLIENT ? c->cpu_ns_per_query : c->backend.cpu_ns_per_query;
            if (read_top(top, cpu, out, fwhy, sizeof fwhy) != 0)
                snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s",
                         why[0] ? "; " : "", fwhy);
            out->folded = side_path(p, p->dir_rel, driver, side, ".folded");
            out->top = side_path(p, p->dir_rel, driver, side, ".top.tsv");
        }
    }
    if (why[0])
        out->failed = pgcb_xstrdup(why);
    struct stat lst; /* perf's log: kept when it says something */
    if (stat(rec->log, &lst) == 0 && lst.st_size == 0)
        unlink(rec->log);
    free(top);
    free(prefix);
}

void pgcb_profile_group_end(struct pgcb_profile *p, struct pgcb_session *s,
                            struct pgcb_result *r, size_t g)
{
    if (!p)
        return;
    if (!p->fold_py && !p->fold_said) {
        p->fold_said = 1;
        fprintf(stderr, "runner: note: no fold.py beside the runner (build/profile/fold.py) "
                        "nor PGCB_PROFILE_FOLD: the recordings are kept, not folded\n");
    }
    for (size_t d = 0; d < p->ndrivers && d < r->ndrivers; d++) {
        struct prof_drv *pd = &p->drv[d];
        if (!pd->active)
            continue;
        struct pgcb_res_cell *c = &r->groups[g].cells[d];
        pgcb_result_profile_cell_free(&c->profile);
        c->profile.profiled = 1;
        for (int side = 0; side < NSIDES; side++)
            finish_side(p, pd, side, s->drivers[d].cfg->name, c);
        if (c->profile.client.failed && (!pd->want[SIDE_BACKEND] || c->profile.backend.failed))
            c->profile.failed = pgcb_xstrdup(c->profile.client.failed);
        free(pd->client_pids);
        *pd = (struct prof_drv){0};
    }
}

void pgcb_profile_finish(struct pgcb_profile *p, struct pgcb_result *r, FILE *out)
{
    if (!p)
        return;
    /* A JIT's map (node --perf-basic-prof) grows with the process: gone once
     * folded. */
    for (size_t i = 0; i < p->nmap; i++) {
        char map[64];
        snprintf(map, sizeof map, "/tmp/perf-%d.map", p->map_pids[i]);
        unlink(map);
    }
    if (!p->flame_dir) {
        if (out)
            fprintf(out, "Profiles: %s (no build/profile/flame-dir: no flame graph pages)\n",
                    p->dir);
        return;
    }
    char *log = pgcb_xasprintf("%s/flame-dir.log", p->dir);
    char why[700];
    /* The config's driver order (as file names): a group's page shows them
     * so, and its differentials compare each with the first. */
    size_t cap = 1;
    for (size_t d = 0; d < r->ndrivers; d++)
        cap += strlen(r->drivers[d].name) + 1;
    char *order = pgcb_xcalloc(cap, 1);
    for (size_t d = 0; d < r->ndrivers; d++) {
        char safe[128];
        pgcb_profile_safe_name(r->drivers[d].name, safe, sizeof safe);
        snprintf(order + strlen(order), cap - strlen(order), "%s%s", d ? "," : "", safe);
    }
    char *argv[] = {p->flame_dir, p->dir, "--order", order, NULL};
    if (pgcb_perf_run(argv, log, 600000, why, sizeof why) != 0) {
        fprintf(stderr, "runner: note: the flame graph pages could not be made (%s): %s\n",
                log, why);
        if (out)
            fprintf(out, "Profiles: %s (folded stacks; no flame graph pages)\n", p->dir);
    } else {
        char *index = pgcb_xasprintf("%s/index.html", p->dir);
        if (access(index, F_OK) == 0) {
            free(r->profile.index);
            r->profile.index = pgcb_xasprintf("%s/index.html", p->dir_rel);
        }
        if (out)
            fprintf(out, "Profiles: %s%s\n", access(index, F_OK) == 0 ? index : p->dir,
                    access(index, F_OK) == 0 ? " (flame graphs, open in a browser)" : "");
        free(index);
    }
    free(order);
    struct stat st;
    if (stat(log, &st) == 0 && st.st_size == 0)
        unlink(log);
    free(log);
}

void pgcb_profile_free(struct pgcb_profile *p)
{
    if (!p)
        return;
    for (size_t d = 0; d < p->ndrivers; d++)
        for (int side = 0; side < NSIDES; side++)
            if (p->drv[d].active && p->drv[d].want[side])
                pgcb_perfrec_stop(&p->drv[d].rec[side]);
    for (size_t d = 0; d < p->ndrivers; d++)
        free(p->drv[d].client_pids);
    free(p->drv);
    free(p->map_pids);
    free(p->dir);
    free(p->dir_rel);
    free(p->fold_py);
    free(p->flame_dir);
    free(p);
}
