/* journal.c -- see journal.h. */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "server/server.h" /* pgcb_conninfo_redact() */
#include "util.h"

/* Every line is dumped so: one line, keys in their order, doubles exact
 * (the result file's precision, so that a figure reads back bit for bit). */
#define JOURNAL_DUMP_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

/* ---- the config's hash ----------------------------------------------------- */

static const char *const hashed_env[] = {"BENCH_TIME_MS", "BENCH_QUERIES", "PGCB_CONNINFO"};

int pgcb_journal_config_hash(const char *ini_path, char out[65], char *err, size_t n)
{
    return pgcb_journal_config_hash_with(ini_path, NULL, out, err, n);
}

int pgcb_journal_config_hash_with(const char *ini_path, const char *extra, char out[65],
                                  char *err, size_t n)
{
    FILE *f = fopen(ini_path, "rb");
    if (!f) {
        snprintf(err, n, "%s: cannot read it: %s", ini_path, strerror(errno));
        return -1;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
    char buf[8192];
    size_t got;
    while (ok && (got = fread(buf, 1, sizeof buf, f)) > 0)
        ok = EVP_DigestUpdate(ctx, buf, got) == 1;
    ok = ok && !ferror(f);
    fclose(f);
    /* Each override as "\0NAME=VALUE" or "\0NAME unset": no two settings
     * hash alike. */
    for (size_t i = 0; ok && i < sizeof hashed_env / sizeof hashed_env[0]; i++) {
        const char *v = getenv(hashed_env[i]);
        char *red = v && strcmp(hashed_env[i], "PGCB_CONNINFO") == 0 ? pgcb_conninfo_redact(v)
                                                                     : NULL;
        char *s = v ? pgcb_xasprintf("%s=%s", hashed_env[i], red ? red : v)
                    : pgcb_xasprintf("%s unset", hashed_env[i]);
        ok = EVP_DigestUpdate(ctx, "", 1) == 1 && EVP_DigestUpdate(ctx, s, strlen(s)) == 1;
        free(s);
        free(red);
    }
    /* What the command line made of the config (config.h's digest), when it
     * made anything: without it the hash is what it always was. */
    if (ok && extra && extra[0])
        ok = EVP_DigestUpdate(ctx, "\0command line\n", 14) == 1 &&
             EVP_DigestUpdate(ctx, extra, strlen(extra)) == 1;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;
    ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 32;
    EVP_MD_CTX_free(ctx);
    if (!ok) {
        snprintf(err, n, "%s: cannot hash it (read error or libcrypto failure)", ini_path);
        return -1;
    }
    for (unsigned i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    return 0;
}

/* ---- writing ------------------------------------------------------------- */

/* Append o as one line and sync it; consumes o (NULL: it could not be
 * built). 0, or an errno value. */
static int append_line(struct pgcb_journal *j, json_t *o)
{
    char *text = o ? json_dumps(o, JOURNAL_DUMP_FLAGS) : NULL;
    json_decref(o);
    if (!text)
        return EINVAL;
    size_t len = strlen(text);
    text = pgcb_xrealloc(text, len + 2);
    text[len++] = '\n';
    /* One write for the whole line (O_APPEND): a kill cuts at most this
     * line, which the reader drops. */
    for (size_t off = 0; off < len;) {
        ssize_t w = write(j->fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : ENOSPC;
            free(text);
            return e;
        }
        off += (size_t)w;
    }
    free(text);
    return fdatasync(j->fd) != 0 ? errno : 0;
}

/* Append o (consumed) to an open journal. The first error is said once on
 * stderr, then the journal is given up: the run goes on, and its result
 * file is written at the end. */
static void append_or_give_up(struct pgcb_journal *j, json_t *o)
{
    if (j->fd < 0) {
        json_decref(o);
        return;
    }
    int e = append_line(j, o);
    if (e == 0)
        return;
    fprintf(stderr, "runner: %s: cannot write the journal: %s; the run goes on without it\n",
            j->path, strerror(e));
    close(j->fd);
    j->fd = -1;
}

/* Sync the directory holding path, so that a new journal survives a crash. */
static void sync_dir(const char *path)
{
    char *p = pgcb_xstrdup(path);
    int d = open(dirname(p), O_RDONLY | O_DIRECTORY);
    free(p);
    if (d >= 0) {
        (void)fsync(d);
        close(d);
    }
}

/* Lock the journal for this runner (released when the process dies). */
static int lock_journal(int fd, const char *path, char *err, size_t n)
{
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    if (errno == EWOULDBLOCK)
        snprintf(err, n, "%s: another runner is writing this journal", path);
    else
        snprintf(err, n, "%s: cannot lock the journal: %s", path, strerror(errno));
    return -1;
}

int pgcb_journal_create(struct pgcb_journal *j, const char *path,
                        const struct pgcb_journal_head *h, char *err, size_t n)
{
    j->fd = -1;
    j->path = pgcb_xstrdup(path);
    if (pgcb_mkdir_parents(path) != 0) {
        snprintf(err, n, "%s: cannot create its directory: %s", path, strerror(errno));
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, n, "%s: cannot create the journal: %s", path, strerror(errno));
        return -1;
    }
    if (lock_journal(fd, path, err, n) != 0) {
        close(fd);
        return -1;
    }
    if (ftruncate(fd, 0) != 0) {
        snprintf(err, n, "%s: cannot truncate the journal: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    json_t *o = json_pack("{s:i, s:s?, s:s?, s:s, s:s, s:s?, s:I, s:I}", "journal",
                          PGCB_JOURNAL_FORMAT, "runner_version", h->runner_version,
                          "config_file", h->config_file, "config_sha256", h->config_sha256,
                          "result", h->result, "started_at", h->started_at, "ngroups",
                          (json_int_t)h->ngroups, "norders", (json_int_t)h->norders);
    j->fd = fd;
    int e = append_line(j, o);
    if (e != 0) {
        snprintf(err, n, "%s: cannot write the journal: %s", path, strerror(e));
        close(fd);
        j->fd = -1;
        return -1;
    }
    sync_dir(path);
    return 0;
}

int pgcb_journal_reopen(struct pgcb_journal *j, const char *path, off_t valid_len, char *err,
                        size_t n)
{
    j->fd = -1;
    j->path = pgcb_xstrdup(path);
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, n, "%s: cannot open the journal: %s", path, strerror(errno));
        return -1;
    }
    if (lock_journal(fd, path, err, n) != 0) {
        close(fd);
        return -1;
    }
    if (ftruncate(fd, valid_len) != 0 || fdatasync(fd) != 0) {
        snprintf(err, n, "%s: cannot cut the journal's last line: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    j->fd = fd;
    return 0;
}

void pgcb_journal_group(struct pgcb_journal *j, const struct pgcb_result *r, size_t g)
{
    if (j->fd < 0)
        return;
    json_t *data = pgcb_result_group_json(r, g);
    append_or_give_up(j, data ? json_pack("{s:I, s:o}", "group", (json_int_t)g, "data", data)
                              : NULL);
}

void pgcb_journal_end(struct pgcb_journal *j, int complete)
{
    append_or_give_up(j, json_pack("{s:b, s:b}", "end", 1, "complete", complete));
}

void pgcb_journal_close(struct pgcb_journal *j)
{
    if (j->fd >= 0)
        close(j->fd);
    j->fd = -1;
    free(j->path);
    j->path = NULL;
}

/* ---- reading ------------------------------------------------------------- */

void pgcb_journal_state_free(struct pgcb_journal_state *st)
{
    for (size_t g = 0; st->groups && g < st->ngroups; g++)
        json_decref(st->groups[g]);
    free(st->groups);
    free(st->group_line);
    free(st->runner_version);
    free(st->config_file);
    free(st->config_sha256);
    free(st->result);
    free(st->started_at);
    *st = (struct pgcb_journal_state){0};
}

static char *dup_key(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? pgcb_xstrdup(s) : NULL;
}

/* The whole file, NUL-terminated, its length in *len; NULL with errno. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = pgcb_xmalloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0)
            buf = pgcb_xrealloc(buf, cap *= 2);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The head line (line 1) into st. 0, or -1: not a journal. */
static int read_head(json_t *o, struct pgcb_journal_state *st)
{
    json_t *fmt = json_object_get(o, "journal");
    json_t *ng = json_object_get(o, "ngroups"), *no = json_object_get(o, "norders");
    if (!json_is_integer(fmt) || json_integer_value(fmt) != PGCB_JOURNAL_FORMAT ||
        !json_is_integer(ng) || json_integer_value(ng) < 0 || json_integer_value(ng) > 1000000 ||
        !json_is_integer(no) || json_integer_value(no) < 0)
        return -1;
    st->runner_version = dup_key(o, "runner_version");
    st->config_file = dup_key(o, "config_file");
    st->config_sha256 = dup_key(o, "config_sha256");
    st->result = dup_key(o, "result");
    st->started_at = dup_key(o, "started_at");
    if (!st->config_sha256 || !st->result)
        return -1;
    st->ngroups = (size_t)json_integer_value(ng);
    st->norders = (size_t)json_integer_value(no);
    st->groups = pgcb_xcalloc(st->ngroups ? st->ngroups : 1, sizeof *st->groups);
    st->group_line = pgcb_xcalloc(st->ngroups ? st->ngroups : 1, sizeof *st->group_line);
    return 0;
}

/* A line after the head: a group, or the end. 0, or -1 with why. */
static int read_line(json_t *o, size_t lineno, struct pgcb_journal_state *st, char *why,
                     size_t n)
{
    if (!json_is_object(o)) {
        snprintf(why, n, "not a JSON object");
        return -1;
    }
    if (st->ended) {
        snprintf(why, n, "a line after the end line");
        return -1;
    }
    json_t *end = json_object_get(o, "end");
    if (end) {
        if (!json_is_true(end) || !json_is_boolean(json_object_get(o, "complete"))) {
            snprintf(why, n, "an end line without \"end\": true and \"complete\"");
            return -1;
        }
        st->ended = 1;
        st->complete = json_is_true(json_object_get(o, "complete"));
        return 0;
    }
    json_t *g = json_object_get(o, "group"), *data = json_object_get(o, "data");
    if (!json_is_integer(g) || !json_is_object(data)) {
        snprintf(why, n, "neither a group line (\"group\", \"data\") nor an end line");
        return -1;
    }
    json_int_t gi = json_integer_value(g);
    if (gi < 0 || (size_t)gi >= st->ngroups) {
        snprintf(why, n, "group %lld: the run has %zu groups", (long long)gi, st->ngroups);
        return -1;
    }
    if (st->groups[gi]) {
        snprintf(why, n, "group %lld is already on line %zu", (long long)gi,
                 st->group_line[gi]);
        return -1;
    }
    st->groups[gi] = json_incref(data);
    st->group_line[gi] = lineno;
    st->nkept++;
    return 0;
}

int pgcb_journal_read(const char *path, struct pgcb_journal_state *st, char *warn, size_t wn,
                      char *err, size_t n)
{
    *st = (struct pgcb_journal_state){0};
    if (wn)
        warn[0] = '\0';
    size_t len = 0;
    char *text = slurp(path, &len);
    if (!text) {
        snprintf(err, n, "%s: cannot read it: %s", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    size_t lineno = 0;
    for (char *p = text; p < text + len && rc == 0;) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        char *next = nl ? nl + 1 : text + len;
        int last = next == text + len;
        lineno++;
        json_error_t je;
        json_t *o = nl ? json_loadb(p, (size_t)(nl - p), 0, &je) : NULL;
        if (lineno == 1) {
            if (!o || read_head(o, st) != 0) {
                snprintf(err, n, "%s: not a pgclientbench journal (its first line is not "
                         "{\"journal\": %d, ...})", path, PGCB_JOURNAL_FORMAT);
                rc = -1;
            }
        } else if (!o && last) {
            /* Cut by the interruption (no '\n', or not JSON): dropped. */
            st->dropped_line = lineno;
            snprintf(warn, wn, "%s:%zu: dropping the last line, cut by the interruption",
                     path, lineno);
            json_decref(o);
            break;
        } else {
            char why[200];
            if (!o)
                pgcb_oneline(why, sizeof why, je.text);
            if (!o || read_line(o, lineno, st, why, sizeof why) != 0) {
                snprintf(err, n, "%s:%zu: corrupt line: %s", path, lineno, why);
                rc = -1;
            }
        }
        json_decref(o);
        if (rc == 0)
            st->valid_len = (off_t)(next - text);
        p = next;
    }
    if (rc == 0 && lineno == 0) {
        snprintf(err, n, "%s: not a pgclientbench journal (it is empty)", path);
        rc = -1;
    }
    free(text);
    return rc;
}

int pgcb_journal_check(const struct pgcb_journal_state *st, const char *path,
                       const char *runner_version, const char *config_sha256, char *err,
                       size_t n)
{
    if (!st->runner_version || strcmp(st->runner_version, runner_version) != 0) {
        snprintf(err, n, "%s was written by runner %s; this is runner %s: finish it with that "
                 "runner, or start the run anew", path,
                 st->runner_version ? st->runner_version : "(unknown)", runner_version);
        return -1;
    }
    if (strcmp(st->config_sha256, config_sha256) != 0) {
        snprintf(err, n, "%s was written for a different config (or BENCH_*/PGCB_CONNINFO "
                 "overrides, or command-line drivers, selection or budget: resume with the "
                 "same -c, --driver, --only, --suite, --query, -T/--time-ms and --queries, "
                 "and the same driver_dir)", path);
        return -1;
    }
    if (st->ended) {
        snprintf(err, n, "%s: this run finished; its result is %s", path, st->result);
        return -1;
    }
    return 0;
}

int pgcb_journal_restore(const struct pgcb_journal_state *st, const char *path,
                         struct pgcb_result *r, char *err, size_t n)
{
    if (st->ngroups != r->ngroups || st->norders != r->norders) {
        snprintf(err, n, "%s was written for a different config (%zu groups, %zu orders; this "
                 "one has %zu, %zu)", path, st->ngroups, st->norders, r->ngroups, r->norders);
        return -1;
    }
    for (size_t g = 0; g < st->ngroups; g++) {
        if (!st->groups[g])
            continue;
        struct pgcb_res_group tmp = {0};
        char why[200];
        int rc = pgcb_result_group_read(st->groups[g], r, &tmp, why, sizeof why);
        const struct pgcb_res_group *want = &r->groups[g];
        if (rc == 0 && (strcmp(tmp.suite, want->suite) != 0 ||
                        strcmp(tmp.query, want->query) != 0 || tmp.depth != want->depth ||
                        strcmp(tmp.transport ? tmp.transport : "",
                               want->transport ? want->transport : "") != 0)) {
            snprintf(why, sizeof why, "group %zu is %s / %s depth %u%s%s, the config's is %s / "
                     "%s depth %u%s%s", g, tmp.suite, tmp.query, tmp.depth,
                     tmp.transport ? " " : "", tmp.transport ? tmp.transport : "", want->suite,
                     want->query, want->depth, want->transport ? " " : "",
                     want->transport ? want->transport : "");
            rc = -1;
        }
        if (rc != 0) {
            pgcb_result_group_free(&tmp, r->ndrivers);
            snprintf(err, n, "%s:%zu: corrupt line: %s", path, st->group_line[g], why);
            return -1;
        }
        pgcb_result_group_free(&r->groups[g], r->ndrivers);
        r->groups[g] = tmp;
    }
    if (st->started_at) {
        free(r->started_at);
        r->started_at = pgcb_xstrdup(st->started_at);
    }
    return 0;
}
