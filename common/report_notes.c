/* report_notes.c -- see report.h and report_int.h: the notes under a
 * group's table (failures, blocks, the server's load, like for like, the
 * backends, the transport, noise, background load), then its verdict line. */

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

/* Steal time on the measuring CPUs gets a note above this share of the
 * time, if it is also at least two clock ticks of /proc/stat (a difference
 * of two readings is exact to a tick: one tick, 10 ms, is already 1% of a
 * 1 s cell). */
#define STEAL_NOTE_PCT 1.0
#define STEAL_NOTE_MIN_NS 20e6

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
    pgcb_rep_fmt_duration(med, sizeof med, b->median_ns);
    pgcb_rep_fmt_duration(p99, sizeof p99, b->p99_ns);
    pgcb_rep_fmt_duration(max, sizeof max, b->max_ns);
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
    const double warn = pgcb_rep_noise_warn_pct(r);
    int lines = 0;
    if (c->status == PGCB_CELL_OK && pgcb_rep_is_client(r, d) && isfinite(c->spread_cv_pct) &&
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
        pgcb_rep_fmt_duration(ns, sizeof ns, c->steal_cpus_ns);
        fprintf(out, "%s%s: steal time %.1f%% of %s while it ran (%s; %.1f%% of the "
                     "machine): the hypervisor ran something else there, and its latencies "
                     "include those waits\n", bullet, r->drivers[d].label, c->steal_cpus_pct,
                where, ns, c->steal_machine_pct);
        lines++;
    }
    return lines;
}

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

/* The client processes' memory (result.h), when the group has it: one line,
 * every driver's peak and growth after the warm-up. Returns the lines. */
static int memory_note(FILE *out, const struct pgcb_result *r, const struct pgcb_res_group *gr,
                       const char *bullet)
{
    int any = 0;
    for (size_t d = 0; d < r->ndrivers; d++)
        any |= gr->cells[d].mem_known;
    if (!any)
        return 0;
    fprintf(out, "%speak RSS of the client's processes (growth in the orders above the "
                 "level after the warm-up):", bullet);
    int first = 1;
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        if (!c->mem_known)
            continue;
        fprintf(out, "%s %s %.1f MiB (+%.1f", first ? "" : ",", r->drivers[d].label,
                c->mem_peak_kib / 1024.0, c->mem_growth_kib / 1024.0);
        if (c->mem_processes > 1)
            fprintf(out, "; %d processes", c->mem_processes);
        fputc(')', out);
        first = 0;
    }
    fputc('\n', out);
    return 1;
}

/* A group's notes under its table, then its verdict line. no_interval and
 * ci_orders: group_table's (or the concurrency table's). */
void pgcb_rep_group_notes(FILE *out, const struct pgcb_result *r, size_t g,
                        enum pgcb_table_style style, unsigned flags, size_t no_interval,
                        size_t ci_orders)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    int md = style == PGCB_TABLE_MARKDOWN;
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
            pgcb_rep_fmt_int(rps, sizeof rps, gr->cells[d].rows_per_s);
            fprintf(out, "%s %s %s", d ? "," : "", r->drivers[d].label, rps);
        }
        fputc('\n', out);
        notes++;
    }
    notes += memory_note(out, r, gr, bullet);
    notes += pgcb_rep_wire_notes(out, r, g, bullet);
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
            pgcb_rep_fmt_duration(per, sizeof per, block);
            pgcb_rep_fmt_duration(over, sizeof over, c->overhead_ns_per_block);
            pgcb_rep_fmt_duration(cpu, sizeof cpu, c->overhead_cpu_ns_per_block);
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
    pgcb_rep_unlike_list(r, 0, odd, sizeof odd);
    pgcb_rep_unlike_list(r, 1, unk_list, sizeof unk_list);
    if (odd[0]) {
        char run[192];
        unsigned all = 0, diff, unk;
        for (size_t d = 0; d < r->ndrivers; d++)
            if (pgcb_rep_unlike(r, d, &diff, &unk))
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
