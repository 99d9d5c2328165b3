/* report_header.c -- see report.h: the run's header, with its Noise line
 * and notes (issue 13), and the run's noise summary at the end. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgcb/driver.h"
#include "proto.h"
#include "rank.h"
#include "report.h"
#include "report_int.h"
#include "stats.h"
#include "table.h"
#include "util.h"

/* At most this many CPUs are named one by one on the header's Noise line. */
#define NOISE_CPUS_SHOWN 8

/* The threshold of the spread warning: the run's, else the default. */
double pgcb_rep_noise_warn_pct(const struct pgcb_result *r)
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

/* The header's Idle line ([bench] cpu_idle); nothing for a file from
 * before it. */
static void idle_header(FILE *out, const struct pgcb_result *r)
{
    const struct pgcb_res_idle *i = &r->idle;
    if (!i->asked)
        return;
    char idle[96] = "no cpuidle driver shown";
    if (i->driver)
        snprintf(idle, sizeof idle, "cpuidle %s, governor %s", i->driver,
                 i->governor ? i->governor : "not shown");
    if (i->polling)
        fprintf(out, "Idle     : poll ([bench] cpu_idle = %s; %s): a PM QoS request of 0 us "
                     "held, so an idle CPU spins and a wake-up sends no interrupt "
                     "(docs/measuring.md#how-idle-cpus-wait)\n", i->asked, idle);
    else
        fprintf(out, "Idle     : as the system has it (%s; %s): a backend waking a halted client "
                     "CPU pays for the interrupt in its own CPU time "
                     "(docs/measuring.md#how-idle-cpus-wait)\n",
                i->why ? i->why : i->asked, idle);
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
            gov, smt, boot, pgcb_rep_noise_warn_pct(r));
    noise_smt_notes(out, r);
    idle_header(out, r);
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
        pgcb_rep_unlike_list(r, 0, odd, sizeof odd);
        pgcb_rep_unlike_list(r, 1, unk, sizeof unk);
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

    /* Which groups count the wire (issue 41): only those at an RTT, whose
     * connections go through the proxy; counting the others would put the
     * proxy's hop into their figures. */
    size_t at_rtt = 0;
    for (size_t g = 0; g < r->ngroups; g++)
        at_rtt += r->groups[g].has_rtt;
    if (at_rtt)
        fprintf(out, "Wire     : %zu of %zu groups at an emulated RTT, through the wire proxy "
                     "(rtt_ms): %s; the other groups' are not counted (docs/network.md)\n",
                at_rtt, r->ngroups,
                r->wire_off ? "not counted there either ([bench] wire = off)"
                            : "round trips, messages and bytes counted there");
    else
        fprintf(out, "Wire     : not counted (no suite has rtt_ms: the proxy that counts would "
                     "add its hop to the figures; docs/network.md)\n");

    /* What a verdict can say with these orders (rank.h). */
    size_t clients = 0;
    for (size_t d = 0; d < r->ndrivers; d++)
        clients += pgcb_rep_is_client(r, d);
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
        if (r->respawn_order)
            fprintf(out, "Processes: respawn = order: each driver's process (a bridged client's "
                         "adapter too) started anew, connected and warmed up for %llu ms before "
                         "each of its orders: the orders are independent processes\n",
                    (unsigned long long)r->warmup_ms);
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
            int odd = pgcb_rep_unlike(r, d, &diff, &unk);
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

void pgcb_report_run_noise(FILE *out, const struct pgcb_result *r)
{
    if (!isfinite(r->run_steal_pct))
        return;
    char ns[32];
    pgcb_rep_fmt_duration(ns, sizeof ns, r->run_steal_ns);
    fprintf(out, "Steal    : %.2f%% of the machine's CPU time over the run (%s in all, "
                 "/proc/stat)\n", r->run_steal_pct, ns);
    if (r->idle.asked && isfinite(r->idle.entries_poll) && isfinite(r->idle.entries_other))
        fprintf(out, "Idle     : the pinned CPUs went idle %.0f times while measuring: %.0f polling, "
                     "%.0f halting (cpuidle's usage counters)\n",
                r->idle.entries_poll + r->idle.entries_other, r->idle.entries_poll,
                r->idle.entries_other);
}
