/*
 * doccheck.c -- the context of the docs checks and the checks of links,
 * paths, JSON, C and shell blocks; see doccheck.h. The INI and key-table
 * checks are in doccheck_keys.c.
 */
#include "doccheck.h"
#include "doccheck_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* ---- the context ---------------------------------------------------------------- */

void doccheck_problem(struct doccheck *c, const struct mdoc *d, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *one = pgcb_xasprintf("%s:%d: %s\n", d ? d->path : "docs", line, msg);
    size_t n = strlen(one);
    if (c->plen + n + 1 > c->pcap) {
        c->pcap = (c->plen + n + 1) * 2;
        c->problems = pgcb_xrealloc(c->problems, c->pcap);
    }
    memcpy(c->problems + c->plen, one, n + 1);
    c->plen += n;
    c->nproblems++;
    free(one);
}

void doccheck_reset(struct doccheck *c)
{
    c->plen = 0;
    c->nproblems = 0;
    if (c->problems)
        c->problems[0] = '\0';
}

int doccheck_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int ok = fputs(text, f) >= 0;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

int doccheck_run(char *const argv[], char **out)
{
    char path[] = "/tmp/pgcb_docs_out_XXXXXX";
    int fd = mkstemp(path);
    *out = NULL;
    if (fd < 0)
        return -1;
    unlink(path);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        return -1;
    }
    if (pid == 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        execvp(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    off_t len = lseek(fd, 0, SEEK_END);
    char *buf = pgcb_xmalloc(len > 0 ? (size_t)len + 1 : 1);
    ssize_t got = len > 0 ? pread(fd, buf, (size_t)len, 0) : 0;
    buf[got > 0 ? got : 0] = '\0';
    close(fd);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *help_of(const char *build, const char *prog)
{
    char *path = pgcb_xasprintf("%s/%s", build, prog), *out;
    char *argv[] = {path, "--help", NULL};
    int rc = doccheck_run(argv, &out);
    free(path);
    if (rc != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb, (void)flag, (void)f;
    return remove(p) == 0 ? 0 : -1;
}

int doccheck_init(struct doccheck *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->problems = pgcb_xcalloc(1, 1);
    c->pcap = 1;
    if (!getcwd(c->top, sizeof c->top)) {
        snprintf(err, errlen, "getcwd: %s", strerror(errno));
        return -1;
    }
    const char *b = getenv("PGCB_BUILD");
    if (!b || !*b)
        b = "build";
    if (!realpath(b, c->build)) {
        snprintf(err, errlen, "build directory %s: %s (run make tests first)", b, strerror(errno));
        return -1;
    }
    snprintf(c->tmp, sizeof c->tmp, "/tmp/pgcb_test_docs_XXXXXX");
    if (!mkdtemp(c->tmp)) {
        snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
        c->tmp[0] = '\0';
        return -1;
    }
    /* A tree like the checkout's, for the configs to resolve their paths in. */
    char p[1400], q[1100];
    snprintf(p, sizeof p, "%s/conf", c->tmp);
    int bad = mkdir(p, 0700) != 0;
    snprintf(p, sizeof p, "%s/results", c->tmp);
    bad |= mkdir(p, 0700) != 0;
    snprintf(p, sizeof p, "%s/build", c->tmp);
    bad |= symlink(c->build, p) != 0;
    snprintf(p, sizeof p, "%s/sql", c->tmp);
    snprintf(q, sizeof q, "%s/sql", c->top);
    bad |= symlink(q, p) != 0;
    if (bad) {
        snprintf(err, errlen, "%s: cannot make the scratch tree: %s", c->tmp, strerror(errno));
        return -1;
    }
    c->runner_help = help_of(c->build, "runner");
    c->aggregate_help = help_of(c->build, "aggregate");
    if (!c->runner_help || !c->aggregate_help) {
        snprintf(err, errlen, "%s/runner --help or %s/aggregate --help failed (built?)", c->build,
                 c->build);
        return -1;
    }
    return doccheck_probe_loader(c, err, errlen);
}

void doccheck_fini(struct doccheck *c)
{
    if (c->tmp[0])
        nftw(c->tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    for (size_t i = 0; i < c->nsections; i++)
        for (size_t k = 0; k < c->sections[i].nkeys; k++)
            free(c->sections[i].keys[k]);
    free(c->runner_help);
    free(c->aggregate_help);
    free(c->problems);
    memset(c, 0, sizeof *c);
}

/* ---- links and paths ------------------------------------------------------------ */

/* "https:", "mailto:" ...: a scheme before any '/'. */
static int has_scheme(const char *t)
{
    if (!isalpha((unsigned char)*t))
        return strncmp(t, "//", 2) == 0;
    const char *p = t;
    while (isalnum((unsigned char)*p) || *p == '+' || *p == '.' || *p == '-')
        p++;
    return *p == ':';
}

/* The directory of a page's path ("." for a bare name), into buf. */
static void dir_of(const char *path, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, n, ".");
    else
        snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

size_t doccheck_links(struct doccheck *c, const struct mdoc *d)
{
    size_t before = c->nproblems;
    char dir[1024], file[2048];
    dir_of(d->path, dir, sizeof dir);
    for (size_t i = 0; i < d->nlinks; i++) {
        const struct mdoc_link *l = &d->links[i];
        if (has_scheme(l->target))
            continue;
        const char *hash = strchr(l->target, '#');
        size_t flen = hash ? (size_t)(hash - l->target) : strlen(l->target);
        const char *anchor = hash ? hash + 1 : NULL;
        if (flen == 0) {
            if (anchor && !mdoc_has_anchor(d, anchor))
                doccheck_problem(c, d, l->line, "broken link '%s': no heading here has the anchor "
                                 "#%s", l->target, anchor);
            continue;
        }
        snprintf(file, sizeof file, "%s/%.*s", dir, (int)flen, l->target);
        struct stat st;
        if (stat(file, &st) != 0) {
            doccheck_problem(c, d, l->line, "broken link '%s': %s: %s", l->target, file,
                             strerror(errno));
            continue;
        }
        if (!anchor)
            continue;
        if (flen < 3 || strncmp(l->target + flen - 3, ".md", 3) != 0) {
            doccheck_problem(c, d, l->line, "link '%s': an anchor into a file that is not a "
                             "Markdown page", l->target);
            continue;
        }
        struct mdoc t;
        if (mdoc_read(file, &t) != 0) {
            doccheck_problem(c, d, l->line, "link '%s': cannot read %s: %s", l->target, file,
                             strerror(errno));
            continue;
        }
        if (!mdoc_has_anchor(&t, anchor))
            doccheck_problem(c, d, l->line, "broken link '%s': %s has no heading with the anchor "
                             "#%s", l->target, file, anchor);
        mdoc_free(&t);
    }
    return c->nproblems - before;
}

static int name_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_' || ch == '-' || ch == '.';
}

size_t doccheck_paths(struct doccheck *c, const struct mdoc *d)
{
    static const struct {
        const char *dir, *ext;
    } kinds[] = {{"conf/", ".ini"}, {"sql/", ".sql"}, {"scripts/", ".sh"}};
    size_t before = c->nproblems;
    int line = 1;
    const char *text = d->text;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            line++;
            continue;
        }
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            size_t dl = strlen(kinds[k].dir);
            if (strncmp(p, kinds[k].dir, dl) != 0)
                continue;
            /* A path of the tree: at a word's start, or after "../". */
            if (p > text && (name_char(p[-1]) || p[-1] == '/') &&
                !(p - text >= 3 && strncmp(p - 3, "../", 3) == 0))
                continue;
            const char *e = p + dl;
            while (name_char(*e))
                e++;
            while (e > p + dl && e[-1] == '.') /* a sentence's full stop */
                e--;
            size_t el = strlen(kinds[k].ext), n = (size_t)(e - p);
            if (n <= dl + el || strncmp(e - el, kinds[k].ext, el) != 0)
                continue; /* a glob, a directory: not one file */
            char rel[512], full[1600];
            snprintf(rel, sizeof rel, "%.*s", (int)n, p);
            snprintf(full, sizeof full, "%s/%s", c->top, rel);
            if (access(full, F_OK) != 0)
                doccheck_problem(c, d, line, "%s is named here but does not exist", rel);
        }
    }
    return c->nproblems - before;
}

/* ---- JSON, C and shell blocks --------------------------------------------------- */

size_t doccheck_json(struct doccheck *c, const struct mdoc *d)
{
    size_t before = c->nproblems;
    for (size_t i = 0; i < d->nblocks; i++) {
        const struct mdoc_block *b = &d->blocks[i];
        if (strcmp(b->info, "json") != 0 || mdoc_marked(b->marks, b->nmarks, "fragment"))
            continue;
        json_error_t e;
        json_t *j = json_loads(b->text, JSON_DECODE_ANY, &e);
        if (!j)
            doccheck_problem(c, d, b->line + e.line, "```json block: %s (mark a part of a "
                             "message <!-- fragment -->)", e.text);
        json_decref(j);
    }
    return c->nproblems - before;
}

/* What a ```c block is compiled after: the operations it may name. */
static const char c_prelude[] =
    "#include <stddef.h>\n#include <stdint.h>\n"
    "struct pgcb_option; struct pgcb_conn; struct pgcb_stmt; struct pgcb_sum;\n"
    "int my_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,\n"
    "            struct pgcb_conn **out, char *err, size_t errlen);\n"
    "void my_close(struct pgcb_conn *conn);\n"
    "int my_prepare(struct pgcb_conn *conn, const char *name, const char *sql,\n"
    "               struct pgcb_stmt **out, char *err, size_t errlen);\n"
    "int my_run_batch(struct pgcb_conn *conn, struct pgcb_stmt *stmt, uint32_t depth,\n"
    "                 struct pgcb_sum *sum, char *err, size_t errlen);\n"
    "#line 1 \"block\"\n";

size_t doccheck_c(struct doccheck *c, const struct mdoc *d)
{
    size_t before = c->nproblems;
    const char *cc = getenv("CC");
    if (!cc || !*cc)
        cc = "cc";
    for (size_t i = 0; i < d->nblocks; i++) {
        const struct mdoc_block *b = &d->blocks[i];
        if (strcmp(b->info, "c") != 0 || mdoc_marked(b->marks, b->nmarks, "fragment"))
            continue;
        char *src = pgcb_xasprintf("%s/block%u.c", c->tmp, c->seq++);
        char *text = pgcb_xasprintf("%s%s", c_prelude, b->text);
        char *inc = pgcb_xasprintf("-I%s/include", c->top);
        char *out = NULL;
        char *argv[] = {(char *)cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                        inc, src, NULL};
        int rc = doccheck_write(src, text) != 0 ? -1 : doccheck_run(argv, &out);
        if (rc != 0)
            doccheck_problem(c, d, b->line, "```c block does not compile (%s -std=c11 "
                             "-fsyntax-only): %s", cc, out ? out : "cannot write it");
        free(out);
        free(inc);
        free(text);
        free(src);
    }
    return c->nproblems - before;
}

/* Is `flag` ("--detail", "-c") in the help text? */
static int in_help(const char *help, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = help; (p = strstr(p, flag)) != NULL; p++) {
        if (p > help && (isalnum((unsigned char)p[-1]) || p[-1] == '-'))
            continue;
        char next = p[n];
        if (!(isalnum((unsigned char)next) || next == '-' || next == '_'))
            return 1;
    }
    return 0;
}

size_t doccheck_sh(struct doccheck *c, const struct mdoc *d)
{
    size_t before = c->nproblems;
    for (size_t i = 0; i < d->nblocks; i++) {
        const struct mdoc_block *b = &d->blocks[i];
        if (strcmp(b->info, "sh") != 0)
            continue;
        char *text = pgcb_xstrdup(b->text), *next;
        int line = b->line;
        for (char *l = text; *l; l = next) {
            next = strchr(l, '\n');
            if (next)
                *next++ = '\0';
            else
                next = l + strlen(l);
            line++;
            const char *help = NULL, *prog = NULL;
            char *wsave = NULL;
            for (char *w = strtok_r(l, " \t", &wsave); w; w = strtok_r(NULL, " \t", &wsave)) {
                if (w[0] == '#')
                    break; /* a comment: the rest of the line */
                if (strcmp(w, "&&") == 0 || strcmp(w, "||") == 0 || strcmp(w, "|") == 0 ||
                    strcmp(w, ";") == 0 || w[0] == '>' || w[0] == '<') {
                    help = NULL;
                    continue;
                }
                if (strcmp(w, "build/runner") == 0) {
                    help = c->runner_help, prog = "runner";
                    continue;
                }
                if (strcmp(w, "build/aggregate") == 0) {
                    help = c->aggregate_help, prog = "aggregate";
                    continue;
                }
                if (!help || w[0] != '-' || !w[1])
                    continue;
                char *eq = strchr(w, '=');
                if (eq)
                    *eq = '\0';
                if (!in_help(help, w))
                    doccheck_problem(c, d, line, "%s %s: not in %s --help", prog, w, prog);
            }
        }
        free(text);
    }
    return c->nproblems - before;
}
