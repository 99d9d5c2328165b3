/*
 * fuzz_result.c -- libFuzzer target for the result file reader
 * (common/result_json.c: pgcb_result_read) and for everything the aggregate
 * program does with what it read: verdicts and rankings (common/rank.c),
 * the group and ranking tables (common/report.c, common/table.c), the
 * writer (pgcb_result_write), and every aggregate/ source but main.c (load, text,
 * Markdown, JSON, SVG, baseline). Built with clang
 * -fsanitize=fuzzer,address,undefined by mk/fuzz_inputs.mk (`make
 * fuzz-inputs`), from those sources.
 *
 * Input: the bytes of a result file, written to a memfd and read through its
 * /proc/self/fd path. Beyond what the sanitizers catch, a breach of these is
 * an abort():
 *   - a failed read returns -1 with one line "PATH: why" or "PATH:LINE: why"
 *     that fits the caller's buffer (exactly sized on the heap);
 *   - a successful read is consistent (labels, order indices, cells);
 *   - what pgcb_result_write writes reads back, and writing that again gives
 *     the same bytes;
 *   - aggregate's load fails only with one line; when it succeeds, every
 *     output is produced (to /dev/null) and --baseline with the run's own
 *     label succeeds. The file is aggregated alone, then together with its
 *     rewritten copy (two runs, two labels).
 * The rewritten copies go to a private directory in /dev/shm (fsync there
 * costs nothing), removed at exit.
 */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agg.h"
#include "rank.h"
#include "report.h"
#include "result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_ERRLEN 1024

static int fz_fd = -1;
static char fz_path[64];
static char fz_dir[256];
static char fz_out1[300], fz_out2[300];
static FILE *fz_null;

#define FZ_CHECK(cond) do { if (!(cond)) fz_fail(#cond, __LINE__); } while (0)

static void fz_fail(const char *what, int line)
{
    fprintf(stderr, "fuzz_result: contract broken at line %d: %s\n", line, what);
    abort();
}

static void fz_cleanup(void)
{
    DIR *d = opendir(fz_dir);
    if (d) { /* the two copies and any temporary file a crash left */
        struct dirent *e;
        char p[600];
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.') {
                snprintf(p, sizeof p, "%s/%s", fz_dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(fz_dir);
}

static void fz_init(void)
{
    fz_fd = memfd_create("fuzz_result.json", MFD_CLOEXEC);
    if (fz_fd < 0) {
        perror("fuzz_result: memfd_create");
        abort();
    }
    snprintf(fz_path, sizeof fz_path, "/proc/self/fd/%d", fz_fd);
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(fz_dir, sizeof fz_dir, "%s/pgcb_fuzz_result_XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(fz_dir)) {
        perror("fuzz_result: mkdtemp");
        abort();
    }
    atexit(fz_cleanup);
    snprintf(fz_out1, sizeof fz_out1, "%s/one.json", fz_dir);
    snprintf(fz_out2, sizeof fz_out2, "%s/two.json", fz_dir);
    fz_null = fopen("/dev/null", "w");
    if (!fz_null)
        abort();
}

/* A one-line message in an exactly sized buffer, starting with `prefix`
 * (NULL: any). */
static void fz_check_err(const char *err, size_t errlen, const char *prefix)
{
    size_t n = strnlen(err, errlen);
    FZ_CHECK(n > 0 && n < errlen);
    FZ_CHECK(!strchr(err, '\n') && !strchr(err, '\r'));
    if (prefix)
        FZ_CHECK(strncmp(err, prefix, strlen(prefix)) == 0 && err[strlen(prefix)] == ':');
}

static void fz_check_result(const struct pgcb_result *r)
{
    FZ_CHECK(r->ndrivers == 0 || r->drivers);
    for (size_t d = 0; d < r->ndrivers; d++)
        FZ_CHECK(r->drivers[d].label);
    FZ_CHECK(r->norders == 0 || r->orders);
    for (size_t o = 0; o < r->norders; o++)
        for (size_t k = 0; k < r->ndrivers; k++)
            FZ_CHECK(r->orders[o][k] < r->ndrivers);
    FZ_CHECK(r->ngroups == 0 || r->groups);
    for (size_t g = 0; g < r->ngroups; g++) {
        const struct pgcb_res_group *gr = &r->groups[g];
        FZ_CHECK(gr->suite && gr->query && gr->cells);
        FZ_CHECK(!gr->thread_cpus || gr->threads > 0);
        for (size_t d = 0; d < r->ndrivers; d++) {
            FZ_CHECK(gr->cells[d].norders == 0 || gr->cells[d].order_medians_ns);
            FZ_CHECK((gr->cells[d].ncurve == 0) == (gr->cells[d].curve == NULL));
            FZ_CHECK(gr->cells[d].ncurve <= PGCB_PCT_CURVE_MAX &&
                     pgcb_pct_curve_valid(gr->cells[d].curve, gr->cells[d].ncurve));
        }
        FZ_CHECK(gr->nbackgrounds == 0 || gr->backgrounds);
        for (size_t b = 0; b < gr->nbackgrounds; b++)
            FZ_CHECK(gr->backgrounds[b].name && gr->backgrounds[b].driver &&
                     gr->backgrounds[b].query);
    }
}

/* What the runner and aggregate derive from one result. */
static void fz_derive(const struct pgcb_result *r)
{
    const struct pgcb_result *rp = r;
    char line[1024];
    for (size_t g = 0; g < r->ngroups; g++) {
        struct pgcb_verdict v;
        pgcb_rank_verdict(r, g, &v);
        FZ_CHECK(v.winner == PGCB_RANK_NONE || v.winner < r->ndrivers);
        FZ_CHECK(v.lowest_median == PGCB_RANK_NONE || v.lowest_median < r->ndrivers);
        FZ_CHECK(v.lowest_mean == PGCB_RANK_NONE || v.lowest_mean < r->ndrivers);
        json_decref(pgcb_rank_verdict_json(r, &v));
        pgcb_rank_verdict_free(&v);
        pgcb_report_verdict_line(line, sizeof line, r, g);
        pgcb_report_group_ex(fz_null, r, g, PGCB_TABLE_BOX, PGCB_REPORT_DETAIL);
        pgcb_report_group_ex(fz_null, r, g, PGCB_TABLE_MARKDOWN, PGCB_REPORT_DETAIL);
    }
    struct pgcb_ranking rk;
    int rc = pgcb_rank_compute(&rp, 1, NULL, &rk);
    FZ_CHECK(rc == 0 ? rk.nrows > 0 && rk.ngroups > 0 : rk.nrows == 0);
    for (size_t k = 0; k < rk.nrows; k++)
        FZ_CHECK(rk.rows[k].driver && rk.rows[k].rank >= 1 && rk.rows[k].rank <= k + 1);
    FZ_CHECK(rk.ngroups + rk.nleft_out == rk.ncandidates);
    pgcb_rank_free(&rk);
    json_decref(pgcb_rank_rankings_json(&rp, 1, &rp, 1, 0));
    pgcb_report_rankings(fz_null, r);
}

/* Aggregate paths[0..n-1] as the program does, every output to /dev/null. */
static void fz_aggregate(char *const *paths, size_t n, char *const *labels, size_t nlabels)
{
    struct pgcb_agg a;
    char *err = malloc(FZ_ERRLEN);
    if (!err)
        abort();
    if (pgcb_agg_load(&a, paths, n, labels, nlabels, fz_null, err, FZ_ERRLEN) != 0) {
        fz_check_err(err, FZ_ERRLEN, NULL);
        free(err);
        return;
    }
    pgcb_agg_print(fz_null, &a, NULL, PGCB_TABLE_BOX, PGCB_REPORT_DETAIL);
    pgcb_agg_print(fz_null, &a, NULL, PGCB_TABLE_MARKDOWN, PGCB_REPORT_DETAIL);
    struct pgcb_agg_baseline b;
    FZ_CHECK(pgcb_agg_baseline_compute(&a, a.runs[n - 1].label, 5, &b, err, FZ_ERRLEN) == 0);
    pgcb_agg_print(fz_null, &a, &b, PGCB_TABLE_MARKDOWN, 0);
    json_t *j = pgcb_agg_json(&a, &b);
    FZ_CHECK(j);
    char *s = json_dumps(j, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    FZ_CHECK(s);
    free(s);
    json_decref(j);
    pgcb_agg_baseline_free(&b);
    if (pgcb_agg_baseline_compute(&a, "no such label", 5, &b, err, FZ_ERRLEN) == 0)
        fz_fail("a baseline no run has", __LINE__);
    fz_check_err(err, FZ_ERRLEN, NULL);
    char *svg = pgcb_agg_svg(&a);
    FZ_CHECK(svg);
    free(svg);
    svg = pgcb_agg_svg_pct(&a);
    FZ_CHECK(svg);
    free(svg);
    pgcb_agg_free(&a);
    free(err);
}

static char *fz_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    FZ_CHECK(f);
    char *buf = NULL;
    size_t cap = 0, n;
    *len = 0;
    do {
        if (*len + 4096 > cap) {
            cap = (*len + 4096) * 2;
            buf = realloc(buf, cap);
            FZ_CHECK(buf);
        }
        n = fread(buf + *len, 1, cap - *len, f);
        *len += n;
    } while (n > 0);
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fz_fd < 0)
        fz_init();
    if (ftruncate(fz_fd, 0) != 0 || (size && pwrite(fz_fd, data, size, 0) != (ssize_t)size)) {
        perror("fuzz_result: writing the memfd");
        abort();
    }

    struct pgcb_result r, r2;
    char *err = malloc(FZ_ERRLEN);
    if (!err)
        abort();
    if (pgcb_result_read(fz_path, &r, err, FZ_ERRLEN) != 0) {
        fz_check_err(err, FZ_ERRLEN, fz_path);
        FZ_CHECK(r.drivers == NULL && r.groups == NULL && r.orders == NULL);
        free(err);
        /* aggregate must fail on it too, with one line */
        char *paths[] = {fz_path};
        struct pgcb_agg a;
        err = malloc(FZ_ERRLEN);
        if (!err)
            abort();
        FZ_CHECK(pgcb_agg_load(&a, paths, 1, NULL, 0, fz_null, err, FZ_ERRLEN) != 0);
        fz_check_err(err, FZ_ERRLEN, fz_path);
        free(err);
        return 0;
    }
    fz_check_result(&r);
    fz_derive(&r);

    /* Written, read back, written again: the same bytes. */
    int wrote = pgcb_result_write(&r, fz_out1, err, FZ_ERRLEN) == 0;
    if (!wrote) {
        fz_check_err(err, FZ_ERRLEN, fz_out1);
    } else {
        if (pgcb_result_read(fz_out1, &r2, err, FZ_ERRLEN) != 0) {
            fprintf(stderr, "fuzz_result: cannot read back what was written: %s\n", err);
            abort();
        }
        FZ_CHECK(r2.ndrivers == r.ndrivers && r2.norders == r.norders &&
                 r2.ngroups == r.ngroups && r2.complete == r.complete);
        for (size_t d = 0; d < r.ndrivers; d++)
            FZ_CHECK(strcmp(r.drivers[d].label, r2.drivers[d].label) == 0 &&
                     r.drivers[d].caps == r2.drivers[d].caps);
        for (size_t o = 0; o < r.norders; o++)
            FZ_CHECK(memcmp(r.orders[o], r2.orders[o], r.ndrivers * sizeof **r.orders) == 0);
        for (size_t g = 0; g < r.ngroups; g++) {
            const struct pgcb_res_group *x = &r.groups[g], *y = &r2.groups[g];
            FZ_CHECK(strcmp(x->suite, y->suite) == 0 && strcmp(x->query, y->query) == 0 &&
                     x->depth == y->depth && x->threads == y->threads);
            for (size_t d = 0; d < r.ndrivers; d++)
                FZ_CHECK(x->cells[d].status == y->cells[d].status &&
                         x->cells[d].samples == y->cells[d].samples &&
                         x->cells[d].checksum == y->cells[d].checksum &&
                         x->cells[d].norders == y->cells[d].norders &&
                         (x->cells[d].median_ns == y->cells[d].median_ns ||
                          (isnan(x->cells[d].median_ns) && isnan(y->cells[d].median_ns))));
        }
        FZ_CHECK(pgcb_result_write(&r2, fz_out2, err, FZ_ERRLEN) == 0);
        pgcb_result_free(&r2);
        size_t n1, n2;
        char *b1 = fz_slurp(fz_out1, &n1), *b2 = fz_slurp(fz_out2, &n2);
        if (n1 != n2 || memcmp(b1, b2, n1) != 0)
            fz_fail("writing what was read back gives other bytes", __LINE__);
        free(b1);
        free(b2);
    }
    pgcb_result_free(&r);
    free(err);

    /* aggregate: the file alone, then with its rewritten copy */
    char *one[] = {fz_path};
    fz_aggregate(one, 1, NULL, 0);
    if (wrote) {
        char *two[] = {fz_path, fz_out1};
        char *labels[] = {"first", "second"};
        fz_aggregate(two, 2, labels, 2);
    }
    return 0;
}
