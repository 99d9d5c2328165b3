/* report.c -- see report.h. */
#include "report.h"

#include "proto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgcb/driver.h"
#include "rank.h"
#include "stats.h"
#include "table.h"
#include "util.h"

static void fmt_int(char *buf, size_t n, double v)
{
    if (isfinite(v))
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "-");
}

int pgcb_report_is_floor(const struct pgcb_result *r, size_t d)
{
    unsigned caps = r->drivers[d].caps;
    return (caps & PGCB_CAP_REFERENCE) && !(caps & PGCB_CAP_NO_IO);
}

static int is_client(const struct pgcb_result *r, size_t d)
{
    return !(r->drivers[d].caps & PGCB_CAP_REFERENCE);
}

/* ---- noise (issue 13): the header's line and notes ------------------------ */

/* At most this many CPUs are named one by one on the header's Noise line. */
#define NOISE_CPUS_SHOWN 8

/* The threshold of the spread warning: the run's, else the default. */
/* Driver d asks the server for other work than the run's choices (a field
 * it says that differs, in *diff) or does not say what it asks (*unknown).
 * Nothing for a driver without I/O or a result that recorded no choices. */
static int unlike(const struct pgcb_result *r, size_t d, unsigned *diff, unsigned *unknown)
{
    *diff = *unknown = 0;
    if ((r->drivers[d].caps & PGCB_CAP_NO_IO) || !r->proto.result_format)
        return 0;
    *diff = pgcb_proto_differs(&r->drivers[d].proto, &r->proto, unknown);
    return *diff || *unknown;
}

/* "rawwire_bin: binary results; asyncpg: binary results, Describe once" for
 * every driver that differs from the run's choices (want_unknown 0), or
 * "a, b" for every driver that does not say what it asks (want_unknown 1);
 * "" if none. */
static void unlike_list(const struct pgcb_result *r, int want_unknown, char *buf, size_t n)
{
    buf[0] = '\0';
    for (size_t d = 0; d < r->ndrivers; d++) {
        unsigned diff, unk;
        if (!unlike(r, d, &diff, &unk) || (want_unknown ? !unk : !diff))
            continue;
        char what[192] = "";
        if (!want_unknown)
            pgcb_proto_phrases(&r->drivers[d].proto, diff, what, sizeof what);
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s%s%s", len ? (want_unknown ? ", " : "; ") : "",
                 r->drivers[d].label, want_unknown ? "" : ": ", what);
    }
}

const char *pgcb_report_variant_mark(const struct pgcb_result *r, size_t d)
{
    unsigned diff, unk;
    if (!unlike(r, d, &diff, &unk))
        return "";
    return diff ? " *" : " ?";
}

static double noise_warn_pct(const struct pgcb_result *r)
{
    return r->noise_warn_pct > 0 ? r->noise_warn_pct : PGCB_STATS_NOISE_WARN_PCT;
}

/* The SMT siblings of u other than itself into buf ("" if none). Returns
 * how many, or -1 when the machine does not show them. */
static int smt_others(const struct pgcb_res_cpu *u, int *sib, char *buf, size_t n)
{
    int all[PGCB_MAX_CPUS], k = 0;
    char e[160];
    int m = u->smt_siblings ? pgcb_parse_cpus(u->smt_siblings, all, PGCB_MAX_CPUS, e, sizeof e)
                            : -1;
    buf[0] = '\0';
    if (m < 0)
        return -1;
    for (int i = 0; i < m; i++)
        if (all[i] != u->cpu)
            sib[k++] = all[i];
    pgcb_cpus_format(sib, (size_t)k, buf, n);
    return k;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* "cpufreq governor performance on CPUs 0-1 (CPU 0 at 2.45 GHz, 1.50-3.50)"
 * or "cpufreq not shown by this machine (CPUs 0,1)", into buf. */
static void noise_governors(const struct pgcb_result *r, char *buf, size_t n)
{
    int same = 1, cpus[PGCB_MAX_CPUS] = {0};
    const char *g0 = r->noise_cpus[0].governor;
    size_t ncpus = r->nnoise_cpus < PGCB_MAX_CPUS ? r->nnoise_cpus : PGCB_MAX_CPUS;
    for (size_t i = 0; i < ncpus; i++) {
        const char *g = r->noise_cpus[i].governor;
        same &= (!g && !g0) || (g && g0 && strcmp(g, g0) == 0);
        cpus[i] = r->noise_cpus[i].cpu;
    }
    char list[256];
    qsort(cpus, ncpus, sizeof *cpus, cmp_int);
    pgcb_cpus_format(cpus, ncpus, list, sizeof list);
    const char *s = ncpus == 1 ? "" : "s";
    buf[0] = '\0';
    if (same && !g0)
        snprintf(buf, n, "cpufreq not shown by this machine (CPU%s %s)", s, list);
    else if (same)
        snprintf(buf, n, "cpufreq governor %s on CPU%s %s", g0, s, list);
    else
        for (size_t i = 0, used = 0; i < r->nnoise_cpus && i < NOISE_CPUS_SHOWN; i++) {
            const struct pgcb_res_cpu *u = &r->noise_cpus[i];
            used = strlen(buf);
            snprintf(buf + used, n - used, "%sCPU %d governor %s", i ? ", " : "", u->cpu,
                     u->governor ? u->governor : "not shown");
        }
    /* The frequency of the first client CPU that shows one. */
    for (size_t i = 0; i < r->nnoise_cpus; i++) {
        const struct pgcb_res_cpu *u = &r->noise_cpus[i];
        if (!isfinite(u->cur_khz) || strncmp(u->role ? u->role : "", "client", 6) != 0)
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, " (CPU %d at %.2f GHz", u->cpu, u->cur_khz / 1e6);
        used = strlen(buf);
        if (isfinite(u->min_khz) && isfinite(u->max_khz))
            snprintf(buf + used, n - used, ", %.2f-%.2f", u->min_khz / 1e6, u->max_khz / 1e6);
        used = strlen(buf);
        snprintf(buf + used, n - used, ")");
        break;
    }
}

/* "SMT: CPU 0 (client) alone on its core, CPU 1 (server) with 5", into buf. */
static void noise_smt(const struct pgcb_result *r, char *buf, size_t n)
{
    int shown = 0, sib[PGCB_MAX_CPUS];
    snprintf(buf, n, "SMT:");
    for (size_t i = 0; i < r->nnoise_cpus; i++) {
        const struct pgcb_res_cpu *u = &r->noise_cpus[i];
        char others[128];
        int k = smt_others(u, sib, others, sizeof others);
        size_t used = strlen(buf);
        if (k < 0)
            continue;
        if (shown == NOISE_CPUS_SHOWN) {
            snprintf(buf + used, n - used, ", ...");
            break;
        }
        snprintf(buf + used, n - used, "%s CPU %d (%s) %s%s", shown ? "," : "", u->cpu,
                 u->role ? u->role : "?", k ? "shares its core with " : "alone on its core",
                 others);
        shown++;
    }
    if (!shown)
        snprintf(buf, n, "SMT siblings not shown by this machine");
}

/* Header notes: a measuring CPU that shares its core (SMT) with a server
 * CPU or with another measuring CPU. */
static void noise_smt_notes(FILE *out, const struct pgcb_result *r)
{
    int sib[PGCB_MAX_CPUS];
    for (size_t i = 0; i < r->nnoise_cpus; i++) {
        const struct pgcb_res_cpu *u = &r->noise_cpus[i];
        char others[128];
        if (!u->role || strncmp(u->role, "client", 6) != 0)
            continue;
        int k = smt_others(u, sib, others, sizeof others);
        for (int j = 0; j < k; j++)
            for (size_t m = 0; m < r->nnoise_cpus; m++) {
                const struct pgcb_res_cpu *v = &r->noise_cpus[m];
                if (v->cpu != sib[j] || !v->role)
                    continue;
                if (strstr(v->role, "server"))
                    fprintf(out, "Note     : measuring CPU %d and server CPU %d are SMT "
                                 "siblings: they share one core, so the server's work slows "
                                 "the client's\n", u->cpu, v->cpu);
                else if (v->cpu > u->cpu) /* each pair once */
                    fprintf(out, "Note     : measuring CPUs %d and %d are SMT siblings: "
                                 "threads measured on them share one core\n", u->cpu, v->cpu);
            }
    }
}

/* The header's Noise line and its notes; nothing for a file without them. */
static void noise_header(FILE *out, const struct pgcb_result *r)
{
    if (r->nnoise_cpus == 0)
        return;
    char gov[512], smt[512], boot[96] = "";
    noise_governors(r, gov, sizeof gov);
    noise_smt(r, smt, sizeof smt);
    if (isfinite(r->steal_boot_pct))
        snprintf(boot, sizeof boot, "; steal since boot %.2f%% of the machine's CPU time",
                 r->steal_boot_pct);
    fprintf(out, "Noise    : %s; %s%s; orders spread warned above %g%% (noise_warn_pct)\n",
            gov, smt, boot, noise_warn_pct(r));
    noise_smt_notes(out, r);
}

void pgcb_report_header(FILE *out, const struct pgcb_result *r, const char *where)
{
    fprintf(out, "pgclientbench %s — %s, started %s\n", r->runner_version, r->config_file,
            r->started_at);
    fprintf(out, "Machine  : %s, %u CPUs, %.1f GiB RAM, %s\n", r->cpu_model, r->cores,
            (double)r->ram_bytes / (1024.0 * 1024 * 1024), r->kernel);
    if (r->server_version)
        fprintf(out, "Server   : PostgreSQL %s via %s; libpq %s\n", r->server_version, where,
                r->libpq_version);
    else
        fprintf(out, "Server   : none (every driver does no I/O); libpq %s\n", r->libpq_version);
    fprintf(out, "Pinning  : client CPUs %s; server CPUs %s (%s)", r->client_cpus,
            r->server_cpus ? r->server_cpus : "unknown", r->server_cpus_source);
    if (r->runner_cpus)
        fprintf(out, "; the runner itself on CPU %s", r->runner_cpus);
    fputc('\n', out);
    if (r->cpus_shared)
        fprintf(out, "Note     : client and server share CPU(s): latency includes their "
                     "contention\n");
    noise_header(out, r);
    pgcb_report_profile_header(out, r);
    if (r->proto.result_format) {
        char run[192], odd[768], unk[512];
        pgcb_proto_phrases(&r->proto, (1u << PGCB_PROTO_NFIELDS) - 1, run, sizeof run);
        unlike_list(r, 0, odd, sizeof odd);
        unlike_list(r, 1, unk, sizeof unk);
        fprintf(out, "Protocol : every driver is asked for %s ([bench] result_format, describe, "
                     "sync)%s%s%s%s%s\n", run,
                odd[0] ? "; not like for like (* in the tables): " : "", odd,
                unk[0] ? "; not saying what they ask (? in the tables): " : "", unk,
                odd[0] || unk[0] ? "" : "; every driver does so");
    }
    /* Connection groups count connections instead of queries: their floor,
     * one value or "as its suite says". */
    uint64_t conns = 0;
    int conns_vary = 0;
    for (size_t g = 0; g < r->ngroups; g++)
        if (r->groups[g].connect) {
            conns_vary |= conns && conns != r->groups[g].connections;
            conns = r->groups[g].connections;
        }
    char conn_floor[160] = "";
    if (conns && conns_vary)
        snprintf(conn_floor, sizeof conn_floor, " (a connection group: its suite's "
                 "connections per order instead)");
    else if (conns)
        snprintf(conn_floor, sizeof conn_floor, " (a connection group: >= %llu connections "
                 "per order instead)", (unsigned long long)conns);
    fprintf(out, "Budget   : per group and driver >= %llu ms timed (%llu ms in each of %zu "
                 "execution orders) and >= %llu queries per order%s; warm-up %llu ms\n",
            (unsigned long long)r->time_ms,
            (unsigned long long)(r->norders ? r->time_ms / r->norders : 0), r->norders,
            (unsigned long long)r->min_queries, conn_floor, (unsigned long long)r->warmup_ms);

    /* What a verdict can say with these orders (rank.h). */
    size_t clients = 0;
    for (size_t d = 0; d < r->ndrivers; d++)
        clients += is_client(r, d);
    char alpha[32];
    pgcb_rank_fmt_alpha(alpha, sizeof alpha, pgcb_rank_alpha(r));
    if (clients >= 2) {
        unsigned need = pgcb_stats_sign_min_orders(pgcb_rank_alpha(r), clients - 1);
        char rep[160] = "";
        if (r->orders_repeats > 1)
            snprintf(rep, sizeof rep, " (orders = auto: the set of %zu, %zu times, so that a "
                     "winner is possible)", r->norders / r->orders_repeats, r->orders_repeats);
        fprintf(out, "Verdicts : exact two-sided sign test over the %zu execution orders%s, "
                     "Holm over %zu rivals, alpha %s: a winner needs >= %u orders without "
                     "ties; ratio intervals %g%%\n",
                r->norders, rep, clients - 1, alpha, need, 100 * pgcb_rank_level(r));
        if (r->checksum_reference)
            fprintf(out, "Checksums: %s's is every group's where it is valid "
                         "([bench] checksum_reference); a client that differs is INVALID\n",
                    r->checksum_reference);
        if (r->until_decided && r->looks > 0) {
            char base[32];
            pgcb_rank_fmt_alpha(base, sizeof base, pgcb_rank_alpha(r) * (double)r->looks);
            fprintf(out, "Until    : decided: a group stops after any whole set of %zu orders "
                         "once every pair of clients is decided and every ratio interval is "
                         "within %g%% (cap %zu orders, %zu looks: alpha %s / %zu per look)\n",
                    r->norders / r->looks, 100 * r->until_width, r->norders, r->looks, base,
                    r->looks);
        }
        if (r->norders < need)
            fprintf(out, "Warning  : %zu execution orders cannot crown a winner at alpha %s "
                         "against %zu rivals: no group will have one (set orders to %u or "
                         "more, or orders = auto)\n",
                    r->norders, alpha, clients - 1, need);
    }

    static const char *const head[] = {"Driver", "Version", "Links", "Caps", "Asks the server for",
                                       "Path"};
    struct pgcb_table *t = pgcb_table_new(6, head);
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_driver *rd = &r->drivers[d];
        char caps[64] = "";
        if (rd->caps & PGCB_CAP_PIPELINE)
            strcat(caps, "pipeline ");
        if (rd->caps & PGCB_CAP_NO_IO)
            strcat(caps, "no-io ");
        if (rd->caps & PGCB_CAP_REFERENCE)
            strcat(caps, "reference ");
        if (rd->caps & PGCB_CAP_SELF_TIMED)
            strcat(caps, "self-timed ");
        size_t n = strlen(caps);
        if (n)
            caps[n - 1] = '\0';
        else
            strcpy(caps, "-");
        char name[160];
        if (strcmp(rd->label, rd->name) == 0)
            snprintf(name, sizeof name, "%s", rd->label);
        else
            snprintf(name, sizeof name, "%s (%s)", rd->label, rd->name);
        char asks[256] = "-";
        if (!(rd->caps & PGCB_CAP_NO_IO)) {
            unsigned diff, unk;
            int odd = unlike(r, d, &diff, &unk);
            pgcb_proto_phrases(&rd->proto, (1u << PGCB_PROTO_NFIELDS) - 1, asks + 2,
                               sizeof asks - 2);
            asks[0] = odd ? (diff ? '*' : '?') : ' ';
            asks[1] = ' ';
        }
        const char *row[] = {name, rd->version, rd->links[0] ? rd->links : "-", caps,
                             asks[0] == ' ' ? asks + 2 : asks, rd->path};
        pgcb_table_add_row(t, row);
    }
    pgcb_table_print(t, out);
    pgcb_table_free(t);
    fputc('\n', out);
}

/* "faster than A, B in 14/14 orders, p = 0.00012 each; than C in 21/24 orders
 * (2 ties), p = 0.0003": the rivals that share a result are named together.
 * `only_open`: just the rivals it was not shown to be faster than, with
 * their Holm level. */
static void rivals_text(char *buf, size_t n, const struct pgcb_result *r,
                        const struct pgcb_verdict *v, int only_open)
{
    size_t len = 0;
    buf[0] = '\0';
    int first = 1;
    unsigned char *done = pgcb_xcalloc(v->nrivals ? v->nrivals : 1, 1);
    for (size_t i = 0; i < v->nrivals && len < n; i++) {
        const struct pgcb_verdict_rival *rv = &v->rivals[i];
        if (done[i] || (only_open && rv->rejected))
            continue;
        char names[512] = "";
        size_t same = 0;
        for (size_t k = i; k < v->nrivals; k++) {
            const struct pgcb_verdict_rival *o = &v->rivals[k];
            if (done[k] || o->wins != rv->wins || o->losses != rv->losses ||
                o->ties != rv->ties || o->rejected != rv->rejected)
                continue;
            done[k] = 1;
            size_t nl = strlen(names);
            snprintf(names + nl, sizeof names - nl, "%s%s", same++ ? ", " : "",
                     r->drivers[o->driver].label);
        }
        char p[32], ties[32] = "", level[64] = "";
        pgcb_rank_fmt_p(p, sizeof p, rv->p);
        if (rv->ties)
            snprintf(ties, sizeof ties, " (%u tie%s)", rv->ties, rv->ties == 1 ? "" : "s");
        if (only_open)
            snprintf(level, sizeof level, " (Holm level %.2g)", rv->level);
        int k = snprintf(buf + len, n - len, "%s%s %s in %u/%u orders%s, %s%s%s",
                         first ? "" : "; ", first ? (only_open ? "faster than" : "faster than")
                                                  : "than",
                         names, rv->wins, rv->wins + rv->losses + rv->ties, ties, p,
                         same > 1 ? " each" : "", rv->wins > rv->losses ? level : "");
        first = 0;
        if (k < 0)
            break;
        len += (size_t)k;
    }
    free(done);
}

/* The verdict proper (pgcb_report_verdict_line() adds the SLA mark). */
static void verdict_text(char *buf, size_t n, const struct pgcb_result *r, size_t g)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    struct pgcb_verdict v;
    pgcb_rank_verdict(r, g, &v);
    const struct pgcb_res_cell *bc = v.lowest_median != PGCB_RANK_NONE
                                         ? &gr->cells[v.lowest_median] : NULL;
    char alpha[32], riv[768];
    pgcb_rank_fmt_alpha(alpha, sizeof alpha, v.alpha);
    switch (v.kind) {
    case PGCB_VERDICT_NO_VALID: {
        size_t clients = 0, skipped = 0;
        for (size_t d = 0; d < r->ndrivers; d++) {
            clients += is_client(r, d);
            skipped += is_client(r, d) && gr->cells[d].status == PGCB_CELL_SKIPPED;
        }
        snprintf(buf, n, "No valid client driver result in this group%s.",
                 clients > 0 && skipped == clients ? " (every client driver skipped it)" : "");
        pgcb_rank_verdict_free(&v);
        return;
    }
    case PGCB_VERDICT_ONLY_ONE:
        if (gr->concurrency)
            snprintf(buf, n, "Highest throughput: %s (%.0f queries/s; the only valid client "
                     "driver)", r->drivers[v.lowest_median].label, bc->queries_per_s);
        else
            snprintf(buf, n, "Lowest median: %s (%.0f ns; the only valid client driver)",
                     r->drivers[v.lowest_median].label, bc->median_ns);
        pgcb_rank_verdict_free(&v);
        return;
    case PGCB_VERDICT_WINNER:
        rivals_text(riv, sizeof riv, r, &v, 0);
        if (gr->concurrency) /* the verdict is on throughput per order */
            snprintf(buf, n, "Winner: %s (%.0f queries/s; %s)", r->drivers[v.winner].label,
                     bc->queries_per_s, riv);
        else
            snprintf(buf, n, "Winner: %s (%.0f ns median; %s)", r->drivers[v.winner].label,
                     bc->median_ns, riv);
        pgcb_rank_verdict_free(&v);
        return;
    case PGCB_VERDICT_TOO_FEW:
    case PGCB_VERDICT_NO_CLEAR:
        break;
    }
    char mean[160] = "no driver has a mean";
    if (v.lowest_mean != PGCB_RANK_NONE)
        snprintf(mean, sizeof mean, "lowest mean %s (%.0f ns)", r->drivers[v.lowest_mean].label,
                 gr->cells[v.lowest_mean].mean_ns);
    char why[1024];
    if (v.kind == PGCB_VERDICT_TOO_FEW)
        snprintf(why, sizeof why, "%zu execution order%s cannot reach alpha %s against %zu "
                 "rival%s (a winner needs %u)", v.orders, v.orders == 1 ? "" : "s", alpha,
                 v.nrivals, v.nrivals == 1 ? "" : "s", v.min_orders);
    else if (v.median_ties > 0)
        snprintf(why, sizeof why, "%zu drivers share the %s", v.median_ties + 1,
                 gr->concurrency ? "highest throughput" : "lowest median");
    else {
        rivals_text(riv, sizeof riv, r, &v, 1);
        snprintf(why, sizeof why, "not shown faster than every rival at alpha %s: %s", alpha,
                 riv);
    }
    if (gr->concurrency)
        snprintf(buf, n, "%s: highest throughput %s (%.0f queries/s); %s",
                 v.kind == PGCB_VERDICT_TOO_FEW ? "No verdict possible" : "No clear winner",
                 r->drivers[v.lowest_median].label, bc->queries_per_s, why);
    else
        snprintf(buf, n, "%s: lowest median %s (%.0f ns), %s; %s",
                 v.kind == PGCB_VERDICT_TOO_FEW ? "No verdict possible" : "No clear winner",
                 r->drivers[v.lowest_median].label, bc->median_ns, mean, why);
    pgcb_rank_verdict_free(&v);
}

void pgcb_report_verdict_line(char *buf, size_t n, const struct pgcb_result *r, size_t g)
{
    verdict_text(buf, n, r, g);
    size_t len = strlen(buf);
    if (r->groups[g].sla_failed && len < n)
        snprintf(buf + len, n - len, " — background SLA FAILED");
}

/* A duration in ns with a unit that keeps it short: "850 ns", "412 µs",
 * "1.9 ms", "2.3 s"; "-" if not finite. */
static void fmt_duration(char *buf, size_t n, double ns)
{
    static const struct { double scale; const char *unit; } units[] = {
        {1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
    if (!isfinite(ns) || ns < 0) {
        snprintf(buf, n, "-");
        return;
    }
    size_t u = 0; /* the largest unit the value rounds to at least 1 of */
    while (u < 3 && ns < units[u].scale * 0.9995)
        u++;
    double x = ns / units[u].scale;
    snprintf(buf, n, x < 9.95 && u < 3 ? "%.1f %s" : "%.0f %s", x, units[u].unit);
}

void pgcb_report_background_line(char *buf, size_t n, const struct pgcb_res_background *b)
{
    char target[32], achieved[64], med[32], p99[32], max[32];
    if (!isfinite(b->target_rate))
        snprintf(target, sizeof target, "-");
    else
        snprintf(target, sizeof target, b->target_rate == floor(b->target_rate) ? "%.0f/s"
                                                                                 : "%.1f/s",
                 b->target_rate);
    if (!isfinite(b->achieved_rate))
        snprintf(achieved, sizeof achieved, "-");
    else if (isfinite(b->target_rate) && b->target_rate > 0)
        snprintf(achieved, sizeof achieved, "%.1f/s (%.1f%%)", b->achieved_rate,
                 100 * b->achieved_rate / b->target_rate);
    else
        snprintf(achieved, sizeof achieved, "%.1f/s", b->achieved_rate);
    fmt_duration(med, sizeof med, b->median_ns);
    fmt_duration(p99, sizeof p99, b->p99_ns);
    fmt_duration(max, sizeof max, b->max_ns);
    char sla[48];
    if (isfinite(b->sla))
        snprintf(sla, sizeof sla, b->sla_met ? "SLA met (>= %g%%)" : "SLA FAILED (< %g%%)",
                 b->sla * 100);
    else
        snprintf(sla, sizeof sla, "%s", b->sla_met ? "SLA met" : "SLA FAILED");
    char error[512] = "";
    if (b->error) {
        char one[480];
        pgcb_oneline(one, sizeof one, b->error);
        snprintf(error, sizeof error, "; error: %s", one);
    }
    char elapsed[32];
    if (isfinite(b->elapsed_s))
        snprintf(elapsed, sizeof elapsed, " in %.2f s", b->elapsed_s);
    else
        elapsed[0] = '\0';
    snprintf(buf, n, "Background %s: %s x %u connection%s on query %s, target %s, achieved %s, "
                     "%llu execution%s%s, latency from schedule median %s p99 %s max %s — %s%s",
             b->name ? b->name : "?", b->driver ? b->driver : "?", b->connections,
             b->connections == 1 ? "" : "s", b->query ? b->query : "?",
             target, achieved, (unsigned long long)b->executions,
             b->executions == 1 ? "" : "s", elapsed, med, p99, max, sla, error);
}

/* How many CPUs the server can keep busy for a group: one per connection,
 * at most its CPUs (when known). */
static double server_bound_cpus(const struct pgcb_result *r, const struct pgcb_res_group *gr)
{
    double n = gr->threads ? gr->threads : 1;
    int cpus[PGCB_MAX_CPUS];
    char e[160];
    int k = r->server_cpus ? pgcb_parse_cpus(r->server_cpus, cpus, PGCB_MAX_CPUS, e,
                                                    sizeof e) : -1;
    return k > 0 && k < n ? k : n;
}

/* ---- noise (issue 13): the notes under a group's table -------------------- */

/* Steal time on the measuring CPUs gets a note above this share of the
 * time, if it is also at least two clock ticks of /proc/stat (a difference
 * of two readings is exact to a tick: one tick, 10 ms, is already 1% of a
 * 1 s cell). */
#define STEAL_NOTE_PCT 1.0
#define STEAL_NOTE_MIN_NS 20e6

/* "CPU 0" or "CPUs 0,2" for the group's measuring threads, into buf. */
static void measuring_cpus(const struct pgcb_res_group *gr, char *buf, size_t n)
{
    int cpus[64] = {0};
    size_t k = 0;
    for (uint32_t t = 0; gr->thread_cpus && t < gr->threads && k < 64; t++) {
        int seen = 0;
        for (size_t i = 0; i < k; i++)
            seen |= cpus[i] == gr->thread_cpus[t];
        if (!seen)
            cpus[k++] = gr->thread_cpus[t];
    }
    char list[256];
    pgcb_cpus_format(cpus, k, list, sizeof list);
    snprintf(buf, n, "%s %s", k == 1 ? "CPU" : "CPUs", k ? list : "?");
}

/* One line for the group: steal on the measuring CPUs and on the machine
 * (over every driver's orders) and each driver's involuntary context
 * switches per 1000 queries. Nothing when no cell recorded them. */
static int noise_summary(FILE *out, const struct pgcb_result *r, const struct pgcb_res_group *gr,
                         const char *bullet)
{
    double wall = 0, cpus = 0, machine = 0;
    char sw[1024] = "";
    int known = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        if (!c->noise_known)
            continue;
        known = 1;
        if (isfinite(c->steal_cpus_pct) && isfinite(c->steal_machine_pct) &&
            c->steal_window_ns > 0) {
            wall += c->steal_window_ns;
            cpus += c->steal_cpus_pct * c->steal_window_ns;
            machine += c->steal_machine_pct * c->steal_window_ns;
        }
        size_t used = strlen(sw);
        if (c->queries)
            snprintf(sw + used, sizeof sw - used, "%s%s %.1f", used ? ", " : "",
                     r->drivers[d].label,
                     1000.0 * (double)c->involuntary_switches / (double)c->queries);
    }
    if (!known)
        return 0;
    char where[300], steal[400];
    measuring_cpus(gr, where, sizeof where);
    if (wall > 0)
        snprintf(steal, sizeof steal, "steal %.1f%% of %s (%.1f%% of the machine)",
                 cpus / wall, where, machine / wall);
    else
        snprintf(steal, sizeof steal, "steal not known (/proc/stat)");
    fprintf(out, "%sNoise: %s; involuntary context switches of the measuring thread%s per "
                 "1000 %s: %s\n", bullet, steal, gr->threads > 1 ? "s" : "",
            gr->connect ? "connections" : "queries", sw[0] ? sw : "-");
    return 1;
}

/* Per driver: a warning when a client driver's per-order medians spread
 * more than noise_warn_pct, and a note when steal on its measuring CPUs
 * went over STEAL_NOTE_PCT. Returns the lines written. */
static int noise_notes(FILE *out, const struct pgcb_result *r, const struct pgcb_res_group *gr,
                       size_t d, const char *bullet)
{
    const struct pgcb_res_cell *c = &gr->cells[d];
    const double warn = noise_warn_pct(r);
    int lines = 0;
    if (c->status == PGCB_CELL_OK && is_client(r, d) && isfinite(c->spread_cv_pct) &&
        c->spread_cv_pct > warn) {
        size_t n = 0;
        for (size_t o = 0; o < c->norders; o++)
            n += isfinite(c->order_medians_ns[o]) != 0;
        if (gr->concurrency) /* its order figures are throughputs */
            fprintf(out, "%s%s: noisy: its per-order throughputs spread %.1f%% (robust CV; "
                         "%.0f to %.0f queries/s over %zu orders), above noise_warn_pct %g%%: "
                         "a lead under about twice that is likely to stay unresolved\n",
                    bullet, r->drivers[d].label, c->spread_cv_pct, 1e9 / c->spread_max_ns,
                    1e9 / c->spread_min_ns, n, warn);
        else
            fprintf(out, "%s%s: noisy: its per-order medians spread %.1f%% (robust CV; %.0f "
                         "to %.0f ns over %zu orders), above noise_warn_pct %g%%: a lead under "
                         "about twice that is likely to stay unresolved\n", bullet,
                    r->drivers[d].label, c->spread_cv_pct, c->spread_min_ns, c->spread_max_ns,
                    n, warn);
        lines++;
    }
    if (c->noise_known && isfinite(c->steal_cpus_pct) && c->steal_cpus_pct > STEAL_NOTE_PCT &&
        c->steal_cpus_ns >= STEAL_NOTE_MIN_NS) {
        char where[300], ns[32];
        measuring_cpus(gr, where, sizeof where);
        fmt_duration(ns, sizeof ns, c->steal_cpus_ns);
        fprintf(out, "%s%s: steal time %.1f%% of %s while it ran (%s; %.1f%% of the "
                     "machine): the hypervisor ran something else there, and its latencies "
                     "include those waits\n", bullet, r->drivers[d].label, c->steal_cpus_pct,
                where, ns, c->steal_machine_pct);
        lines++;
    }
    return lines;
}

/* ---- the drivers' own backends (backend.h) -------------------------------- */

/* Driver d's backends are unknown in group g for a reason not given in an
 * earlier group. */
static int backend_why_new(const struct pgcb_result *r, size_t g, size_t d)
{
    const char *why = r->groups[g].cells[d].backend.why;
    if (!why || pgcb_res_backend_known(&r->groups[g].cells[d].backend))
        return 0;
    for (size_t k = 0; k < g; k++) {
        const char *before = r->groups[k].cells[d].backend.why;
        if (before && strcmp(before, why) == 0)
            return 0;
    }
    return 1;
}

/* Why a driver's Backend CPU is unknown, once per run and reason: under the
 * first group where it is, naming every driver it applies to there. Returns
 * the lines written. */
static int backend_notes(FILE *out, const struct pgcb_result *r, size_t g, const char *bullet)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    int lines = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        if (!backend_why_new(r, g, d))
            continue;
        const char *why = gr->cells[d].backend.why;
        int said = 0; /* an earlier driver of this group had the same reason */
        for (size_t k = 0; k < d && !said; k++)
            said = backend_why_new(r, g, k) && strcmp(gr->cells[k].backend.why, why) == 0;
        if (said)
            continue;
        char names[512] = "";
        for (size_t k = d; k < r->ndrivers; k++)
            if (backend_why_new(r, g, k) && strcmp(gr->cells[k].backend.why, why) == 0)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         names[0] ? ", " : "", r->drivers[k].label);
        char one[512];
        pgcb_oneline(one, sizeof one, why);
        fprintf(out, "%sBackend CPU unknown for %s: %s\n", bullet, names, one);
        lines++;
    }
    return lines;
}

void pgcb_report_group(FILE *out, const struct pgcb_result *r, size_t g)
{
    pgcb_report_group_styled(out, r, g, PGCB_TABLE_BOX);
}

void pgcb_report_group_styled(FILE *out, const struct pgcb_result *r, size_t g,
                              enum pgcb_table_style style)
{
    pgcb_report_group_ex(out, r, g, style, 0);
}

const char *pgcb_report_mark(const struct pgcb_result *r, size_t g, size_t d)
{
    switch (r->groups[g].cells[d].status) {
    case PGCB_CELL_FAILED: return " (FAILED)";
    case PGCB_CELL_INVALID: return " (INVALID)";
    case PGCB_CELL_NOT_RUN: return " (not run)";
    case PGCB_CELL_SKIPPED: return " (skipped)";
    case PGCB_CELL_OK: break;
    }
    return is_client(r, d) ? "" : " (reference)";
}

double pgcb_report_floor_median(const struct pgcb_result *r, const struct pgcb_res_group *gr, size_t d)
{
    double same = NAN, alike = NAN, any = NAN;
    for (size_t f = 0; f < r->ndrivers; f++) {
        const struct pgcb_res_cell *c = &gr->cells[f];
        if (!pgcb_report_is_floor(r, f) || c->status != PGCB_CELL_OK ||
            !isfinite(c->median_ns) || c->median_ns <= 0)
            continue;
        unsigned diff, unk;
        if (!isfinite(same) && r->drivers[f].proto.result_format &&
            r->drivers[d].proto.result_format &&
            !pgcb_proto_differs(&r->drivers[f].proto, &r->drivers[d].proto, &unk) && !unk)
            same = c->median_ns;
        if (!isfinite(alike) && !unlike(r, f, &diff, &unk))
            alike = c->median_ns;
        if (!isfinite(any))
            any = c->median_ns;
    }
    return isfinite(same) ? same : isfinite(alike) ? alike : any;
}

void pgcb_report_group_ex(FILE *out, const struct pgcb_result *r, size_t g,
                          enum pgcb_table_style style, unsigned flags)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    int md = style == PGCB_TABLE_MARKDOWN;
    char shape[96];
    pgcb_res_group_shape(gr, shape, sizeof shape);
    if (gr->connect && gr->connections) /* a sample is a connection: said for the depth */
        snprintf(shape, sizeof shape, "connect: one connection per sample, >= %llu per order",
                 (unsigned long long)gr->connections);
    else if (gr->connect)
        snprintf(shape, sizeof shape, "connect: one connection per sample");
    else if (gr->concurrency)
        pgcb_report_conc_shape(gr, shape, sizeof shape);
    /* The transport the suite asked for, when it did: "sequential / limit_1 / tls". */
    const char *tsep = gr->transport ? " / " : "", *tname = gr->transport ? gr->transport : "";
    if (md)
        fprintf(out, "**%s / %s%s%s**  (%s, ", gr->suite, gr->query, tsep, tname, shape);
    else
        fprintf(out, "%s / %s%s%s  (%s, ", gr->suite, gr->query, tsep, tname, shape);
    if (gr->rows >= 0)
        fprintf(out, "%lld row%s, ", (long long)gr->rows, gr->rows == 1 ? "" : "s");
    if (gr->nparams > 0)
        fprintf(out, "%u param%s, ", gr->nparams, gr->nparams == 1 ? "" : "s");
    if (gr->ops > 0)
        fprintf(out, "ops %llu, ", (unsigned long long)gr->ops);
    if (gr->threads > 1) {
        fprintf(out, "%u threads on CPUs", gr->threads);
        for (uint32_t t = 0; gr->thread_cpus && t < gr->threads; t++)
            fprintf(out, "%s%d", t ? "," : " ", gr->thread_cpus[t]);
        fprintf(out, ", %s/s summed over them, ", gr->connect ? "Connections" : "Queries");
        if (gr->concurrency)
            fprintf(out, "one instance each, ");
    }
    size_t ran = pgcb_rank_group_orders(r, g);
    if (gr->partial)
        fprintf(out, "PARTIAL: interrupted after %zu of %zu execution orders, never crowned)\n%s",
                gr->partial_orders, r->norders, md ? "\n" : "");
    else if (ran < r->norders)
        fprintf(out, "pooled over %zu execution orders, decided after %zu of %zu)\n%s", ran,
                ran, r->norders, md ? "\n" : "");
    else
        fprintf(out, "pooled over %zu execution order%s)\n%s", ran, ran == 1 ? "" : "s",
                md ? "\n" : "");

    /* The wire floor: a reference driver that does I/O (drivers/floor). When
     * it has a median here, every driver's median is also shown as a ratio
     * to it: how much of the latency is the client's. */
    int with_floor = 0;
    for (size_t d = 0; d < r->ndrivers; d++)
        with_floor |= isfinite(pgcb_report_floor_median(r, gr, d));
    /* The server's CPU column when the server runs here: each driver's own
     * backends' when they are known (backend.h), else the whole server's
     * (srvcpu.h); never both (the table is wide enough). */
    int with_backend = 0, with_server = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        with_backend |= pgcb_res_backend_known(&gr->cells[d].backend);
        with_server |= isfinite(gr->cells[d].server_cpu_ns_per_query);
    }
    with_server |= with_backend;
    size_t no_interval = 0, ci_orders = 0;
    if (gr->concurrency) {
        pgcb_report_conc_table(out, r, g, style, &no_interval, &ci_orders);
        goto notes;
    }
    /* Columns: the optional ones are dropped by their flags. */
    /* Each driver's median over the leader's, with its interval. */
    struct pgcb_verdict v;
    pgcb_rank_verdict(r, g, &v);
    const size_t leader = v.lowest_median;
    const int with_ratio = leader != PGCB_RANK_NONE && v.nvalid >= 2;
    pgcb_rank_verdict_free(&v);
    char ratio_head[64];
    snprintf(ratio_head, sizeof ratio_head, "x lowest [%g%% CI]", 100 * pgcb_rank_level(r));
    enum { C_NAME, C_AVG, C_MED, C_RATIO, C_FLOOR, C_OPS, C_QPS, C_N, C_CPU, C_SRV, C_COUNT };
    /* A connection group's figures are per connection (one query each). */
    const int conn = gr->connect;
    const char *const head_all[C_COUNT] = {
        "Task name", "Latency avg (ns)", "Latency med (ns)", ratio_head, "x floor",
        "Throughput avg (ops/s)", conn ? "Connections/s" : "Queries/s", "Samples",
        conn ? "Client CPU (ns/conn)" : "Client CPU (ns/query)",
        with_backend ? "Backend CPU (ns/query)"
                     : conn ? "Server CPU (ns/conn)" : "Server CPU (ns/query)"};
    const int keep[C_COUNT] = {1, 1, 1, with_ratio, with_floor, 1, 1, 1, 1, with_server};
    const char *head[C_COUNT];
    size_t ncols = 0;
    for (int k = 0; k < C_COUNT; k++)
        if (keep[k])
            head[ncols++] = head_all[k];
    struct pgcb_table *t = pgcb_table_new(ncols, head);
    pgcb_table_set_style(t, style);
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        char name[160], avg[64], med[32], ops[32], qps[32], n[32], cpu[32], srv[32];
        snprintf(name, sizeof name, "%s%s%s", r->drivers[d].label, pgcb_report_mark(r, g, d),
                 pgcb_report_variant_mark(r, d));
        if (isfinite(c->mean_ns) && isfinite(c->rme_pct))
            snprintf(avg, sizeof avg, "%.0f ± %.2f%%", c->mean_ns, c->rme_pct);
        else if (isfinite(c->mean_ns))
            snprintf(avg, sizeof avg, "%.0f ± n/a", c->mean_ns);
        else
            snprintf(avg, sizeof avg, "-");
        fmt_int(med, sizeof med, c->median_ns);
        fmt_int(ops, sizeof ops, c->ops_per_s);
        fmt_int(qps, sizeof qps, c->queries_per_s);
        snprintf(n, sizeof n, "%llu", (unsigned long long)c->samples);
        fmt_int(cpu, sizeof cpu, c->cpu_ns_per_query);
        fmt_int(srv, sizeof srv,
                with_backend ? (pgcb_res_backend_known(&c->backend) ? c->backend.cpu_ns_per_query
                                                                    : NAN)
                             : c->server_cpu_ns_per_query);
        char xf[32] = "-";
        if (with_floor && isfinite(c->median_ns) && isfinite(pgcb_report_floor_median(r, gr, d)))
            snprintf(xf, sizeof xf, "%.2f", c->median_ns / pgcb_report_floor_median(r, gr, d));
        char xr[64] = "-";
        struct pgcb_ratio q;
        if (with_ratio && d == leader)
            snprintf(xr, sizeof xr, "1.000");
        else if (with_ratio && pgcb_rank_ratio(r, g, d, leader, &q) == 0) {
            if (isfinite(q.lo))
                snprintf(xr, sizeof xr, "%.3f [%.3f, %.3f]", q.ratio, q.lo, q.hi);
            else {
                snprintf(xr, sizeof xr, "%.3f [n/a]", q.ratio);
                no_interval++;
                ci_orders = q.orders;
            }
        }
        const char *all[C_COUNT] = {name, avg, med, xr, xf, ops, qps, n, cpu, srv};
        const char *row[C_COUNT];
        size_t k = 0;
        for (int i = 0; i < C_COUNT; i++)
            if (keep[i])
                row[k++] = all[i];
        pgcb_table_add_row(t, row);
    }
    pgcb_table_print(t, out);
    pgcb_table_free(t);
notes:
    if (md)
        fputc('\n', out); /* a Markdown table runs on to the next blank line */
    if (flags & PGCB_REPORT_DETAIL && !gr->concurrency) /* its table has the percentiles */
        pgcb_report_detail(out, r, g, style);
    const char *bullet = md ? "- " : "  ";
    int notes = 0;
    if (gr->bulk_rows) { /* a bulk group: rows written per second, per driver */
        fprintf(out, "%srows/s (%llu rows per %s):", bullet, (unsigned long long)gr->bulk_rows,
                gr->bulk_copy ? "COPY" : "batch");
        for (size_t d = 0; d < r->ndrivers; d++) {
            char rps[32];
            fmt_int(rps, sizeof rps, gr->cells[d].rows_per_s);
            fprintf(out, "%s %s %s", d ? "," : "", r->drivers[d].label, rps);
        }
        fputc('\n', out);
        notes++;
    }
    if (no_interval) {
        fprintf(out, "%sx lowest: no %g%% interval from %zu execution order%s (it needs %u)\n",
                bullet, 100 * pgcb_rank_level(r), ci_orders, ci_orders == 1 ? "" : "s",
                pgcb_rank_ci_min_orders(pgcb_rank_level(r)));
        notes++;
    }
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        if (c->error) {
            char one[1024];
            pgcb_oneline(one, sizeof one, c->error);
            /* a skip note says "skipped: why" itself */
            const char *status = pgcb_cell_status_str(c->status);
            size_t sl = strlen(status);
            int said = strncmp(one, status, sl) == 0 && one[sl] == ':';
            fprintf(out, "%s%s: %s%s%s\n", bullet, r->drivers[d].label, said ? "" : status,
                    said ? "" : ": ", one);
            notes++;
        }
        if (c->status != PGCB_CELL_SKIPPED && gr->depth > 1 &&
            !(r->drivers[d].caps & PGCB_CAP_PIPELINE) &&
            !(r->drivers[d].caps & PGCB_CAP_NO_IO)) {
            fprintf(out, "%s%s: no pipelining: runs the %u queries of a batch one after "
                         "another\n", bullet, r->drivers[d].label, gr->depth);
            notes++;
        }
        if (c->blocks > 0 && isfinite(c->overhead_ns_per_block)) {
            char per[32], over[32], cpu[32], pin[64] = "";
            double block = (double)c->wall_ns / (double)c->blocks;
            fmt_duration(per, sizeof per, block);
            fmt_duration(over, sizeof over, c->overhead_ns_per_block);
            fmt_duration(cpu, sizeof cpu, c->overhead_cpu_ns_per_block);
            for (uint32_t k = 0; gr->thread_cpus && k < gr->threads && k < 8; k++)
                snprintf(pin + strlen(pin), sizeof pin - strlen(pin), "%s%d", k ? "," : " CPU ",
                         gr->thread_cpus[k]);
            fprintf(out, "%s%s: self-timed in %llu blocks of %s of samples; beyond them the "
                         "bridge took %s per block (%.1f%%) and %s of CPU outside the timed "
                         "batches; Client CPU is the adapter process's, all its threads, pinned "
                         "with %s%s\n",
                    bullet, r->drivers[d].label, (unsigned long long)c->blocks, per, over,
                    100.0 * c->overhead_ns_per_block / (c->overhead_ns_per_block + block), cpu,
                    gr->threads > 1 ? "their measuring threads to" : "its measuring thread to",
                    pin[0] ? pin : " its CPU");
            notes++;
        }
        double bound = server_bound_cpus(r, gr);
        if (isfinite(c->server_busy) && c->server_busy >= 0.9 * bound) {
            fprintf(out, "%s%s: the server was busy %.0f%% of %s while it ran: the server, "
                         "not the client, bounds this figure%s\n", bullet, r->drivers[d].label,
                    100.0 * c->server_busy / bound, bound == 1 ? "one CPU" : "its CPUs",
                    pgcb_report_is_floor(r, d)
                        ? "; the floor here is the server's limit, not the client's: x floor "
                          "compares each driver with what this server can do"
                        : "");
            notes++;
        }
    }
    char odd[768], unk_list[512];
    unlike_list(r, 0, odd, sizeof odd);
    unlike_list(r, 1, unk_list, sizeof unk_list);
    if (odd[0]) {
        char run[192];
        unsigned all = 0, diff, unk;
        for (size_t d = 0; d < r->ndrivers; d++)
            if (unlike(r, d, &diff, &unk))
                all |= diff;
        pgcb_proto_phrases(&r->proto, all, run, sizeof run);
        fprintf(out, "%s* not like for like: %s (the run: %s)\n", bullet, odd, run);
        notes++;
    }
    if (unk_list[0]) {
        fprintf(out, "%s? does not say what it asks of the server (no ABI 1.3 protocol()): %s\n",
                bullet, unk_list);
        notes++;
    }
    notes += backend_notes(out, r, g, bullet);
    notes += pgcb_report_transport_notes(out, r, g, bullet);
    notes += pgcb_report_folded_notes(out, r, g, bullet);
    for (size_t d = 0; d < r->ndrivers; d++)
        notes += noise_notes(out, r, gr, d, bullet);
    notes += noise_summary(out, r, gr, bullet);
    char line[1024];
    for (size_t b = 0; b < gr->nbackgrounds; b++, notes++) {
        pgcb_report_background_line(line, sizeof line, &gr->backgrounds[b]);
        fprintf(out, "%s%s\n", md ? "- " : "", line);
    }
    if (md && notes)
        fputc('\n', out);
    pgcb_report_verdict_line(line, sizeof line, r, g);
    fprintf(out, "%s\n\n", line);
}

/* ---- rankings -------------------------------------------------------------- */

/* At most this many left-out groups are named under a ranking table. */
#define LEFT_OUT_SHOWN 8

void pgcb_report_ranking(FILE *out, const char *title, const struct pgcb_ranking *rk,
                         const struct pgcb_result *const *runs, int with_run,
                         enum pgcb_table_style style)
{
    int md = style == PGCB_TABLE_MARKDOWN;
    const char *b0 = md ? "**" : "", *b1 = md ? "**" : "";
    if (rk->nrows == 0) {
        const char *why = rk->nranked == 0 && rk->nunranked > 0 ? "no client driver has a valid result"
                          : rk->nranked == 0                    ? "no client driver to rank"
                          : rk->ncandidates == 0                ? "no group"
                                                                : "every group is left out";
        fprintf(out, "%s%s%s: nothing to rank (%s)\n", b0, title, b1, why);
    } else if (rk->ngroups == rk->ncandidates) {
        fprintf(out, "%s%s%s  (%zu group%s)\n", b0, title, b1, rk->ngroups,
                rk->ngroups == 1 ? "" : "s");
    } else {
        fprintf(out, "%s%s%s  (%zu of %zu groups; %zu left out, where a ranked driver is not "
                     "valid)\n", b0, title, b1, rk->ngroups, rk->ncandidates, rk->nleft_out);
    }
    if (rk->nrows > 0) {
        char rel_head[64];
        snprintf(rel_head, sizeof rel_head, "Relative latency [%g%% CI]", 100 * rk->level);
        const char *const head[] = {"", "Driver", rel_head, "Slower than best",
                                    "Fastest median", "Outright wins"};
        struct pgcb_table *t = pgcb_table_new(6, head);
        pgcb_table_set_style(t, style);
        for (size_t c = 2; c < 6; c++)
            pgcb_table_set_align(t, c, PGCB_TABLE_RIGHT);
        for (size_t k = 0; k < rk->nrows; k++) {
            const struct pgcb_rank_row *row = &rk->rows[k];
            char rel[80], slower[32], fastest[48], wins[48];
            if (isfinite(row->rel_lo))
                snprintf(rel, sizeof rel, "%.3f [%.3f, %.3f]", row->rel, row->rel_lo,
                         row->rel_hi);
            else
                snprintf(rel, sizeof rel, "%.3f", row->rel);
            snprintf(slower, sizeof slower, "+%.1f%%", row->slower_pct);
            snprintf(fastest, sizeof fastest, "%zu/%zu", row->fastest, rk->ngroups);
            snprintf(wins, sizeof wins, "%zu/%zu", row->wins, rk->ngroups);
            const char *cells[] = {pgcb_rank_medal(row->rank), row->driver, rel, slower,
                                   fastest, wins};
            pgcb_table_add_row(t, cells);
        }
        if (md)
            fputc('\n', out);
        pgcb_table_print(t, out);
        pgcb_table_free(t);
        if (md)
            fputc('\n', out);
    }
    const char *bullet = md ? "- " : "  ";
    int notes = 0;
    for (size_t i = 0; i < rk->nleft_out; i++, notes++) {
        if (i == LEFT_OUT_SHOWN) {
            fprintf(out, "%s... and %zu more groups left out\n", bullet,
                    rk->nleft_out - LEFT_OUT_SHOWN);
            notes++;
            break;
        }
        const struct pgcb_rank_left_out *lo = &rk->left_out[i];
        const struct pgcb_res_group *gr = &runs[lo->run]->groups[lo->group];
        char run[32] = "";
        if (with_run)
            snprintf(run, sizeof run, "run %zu: ", lo->run + 1);
        char shape[64];
        pgcb_res_group_shape(gr, shape, sizeof shape);
        fprintf(out, "%sLeft out: %s%s / %s, %s%s%s (%s)\n", bullet, run, gr->suite, gr->query,
                shape, gr->transport ? ", " : "", gr->transport ? gr->transport : "", lo->why);
    }
    for (size_t i = 0; i < rk->nunranked; i++, notes++)
        fprintf(out, "%sNot ranked: %s (%s)\n", bullet, rk->unranked[i].driver,
                rk->unranked[i].why);
    /* One blank line after the block (Markdown: the table already ends with one). */
    if (!md || notes || rk->nrows == 0)
        fputc('\n', out);
}

void pgcb_report_ranking_legend(FILE *out, enum pgcb_table_style style)
{
    static const char *const terms[][2] = {
        {"Relative latency", "geometric mean over the groups of median / the group's lowest "
                             "median (1.000: always the lowest); its interval: a bootstrap "
                             "over the execution orders of the per-order ratios"},
        {"Slower than best", "relative latency / the lowest relative latency - 1"},
        {"Fastest median", "groups where the driver had the lowest median"},
        {"Outright wins", "groups it won: the lowest median, and more often faster than each "
                          "rival over the execution orders than chance allows (exact "
                          "two-sided sign test, Holm, at the run's alpha)"},
    };
    static const char *const last = "A group is ranked only when every ranked driver is valid "
                                    "in it; reference drivers are never ranked. In a "
                                    "concurrency group the median is the time per query at "
                                    "its throughput (1e9 / queries per second).";
    if (style == PGCB_TABLE_MARKDOWN) {
        fprintf(out, "Legend:\n\n");
        for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++)
            fprintf(out, "- **%s**: %s\n", terms[i][0], terms[i][1]);
        fprintf(out, "- %s\n\n", last);
        return;
    }
    fprintf(out, "Legend:\n");
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++)
        fprintf(out, "  %-17s %s\n", terms[i][0], terms[i][1]);
    fprintf(out, "  %s\n\n", last);
}

void pgcb_report_rankings_within(FILE *out, const struct pgcb_result *const *runs, size_t nruns,
                                 const struct pgcb_result *const *scope, size_t nscope,
                                 int with_run, enum pgcb_table_style style)
{
    size_t nsuites;
    const char **suites = pgcb_rank_suites(scope, nscope, &nsuites);
    struct pgcb_ranking rk;
    char title[256];
    for (size_t s = 0; s < nsuites && nsuites > 1; s++) {
        pgcb_rank_compute_within(runs, nruns, scope, nscope, suites[s], &rk);
        snprintf(title, sizeof title, "Ranking: suite %s", suites[s]);
        pgcb_report_ranking(out, title, &rk, runs, with_run, style);
        pgcb_rank_free(&rk);
    }
    pgcb_rank_compute_within(runs, nruns, scope, nscope, NULL, &rk);
    if (nsuites == 1)
        snprintf(title, sizeof title, "Ranking: overall = suite %s", suites[0]);
    else
        snprintf(title, sizeof title, "Ranking: overall, %zu suites", nsuites);
    pgcb_report_ranking(out, title, &rk, runs, with_run, style);
    pgcb_rank_free(&rk);
    free(suites);
    pgcb_report_ranking_legend(out, style);
}

void pgcb_report_rankings(FILE *out, const struct pgcb_result *r)
{
    pgcb_report_rankings_within(out, &r, 1, &r, 1, 0, PGCB_TABLE_BOX);
}

void pgcb_report_run_noise(FILE *out, const struct pgcb_result *r)
{
    if (!isfinite(r->run_steal_pct))
        return;
    char ns[32];
    fmt_duration(ns, sizeof ns, r->run_steal_ns);
    fprintf(out, "Steal    : %.2f%% of the machine's CPU time over the run (%s in all, "
                 "/proc/stat)\n", r->run_steal_pct, ns);
}
