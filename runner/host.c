/*
 * host.c -- see host.h. The first half is the parent's side (fork, run a
 * job under a watchdog, stop); the second half is the host process: its
 * connections, its pinned measuring threads and the timed blocks.
 */
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bulk.h"
#include "measure.h"
#include "progress.h"
#include "session.h"
#include "sysinfo.h"
#include "util.h"

/* Watchdog poll interval. */
/* How often the runner looks at a working host's heartbeats and the stop
 * flag (a signal interrupts the wait at once): rarely, so that the runner
 * wakes up rarely (it runs away from the measuring CPUs, main.c). */
#define HOST_TICK_MS 200

static void child_main(struct pgcb_host *h, struct pgcb_session *s,
                       const struct pgcb_host_spec *spec, int check_rows, int cmd_fd,
                       int reply_fd) __attribute__((noreturn));

/* ---- the parent's side ------------------------------------------------- */

int pgcb_host_map(struct pgcb_host *h, uint32_t nthreads, size_t nqueries)
{
    size_t head = sizeof(struct pgcb_host_shared);
    size_t threads = nthreads * sizeof(struct pgcb_host_thread);
    size_t queries = (nqueries ? nqueries : 1) * sizeof(struct pgcb_host_query);
    size_t counts = (size_t)nthreads * PGCB_HIST_NCOUNTS * sizeof(uint64_t);
    size_t size = head + threads + queries + counts;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    *h = (struct pgcb_host){.cmd_fd = -1, .reply_fd = -1};
    if (p == MAP_FAILED)
        return -1;
    h->sh = p;
    h->sh_size = size;
    char *base = p;
    h->sh->threads = (struct pgcb_host_thread *)(base + head);
    h->sh->queries = (struct pgcb_host_query *)(base + head + threads);
    uint64_t *c = (uint64_t *)(base + head + threads + queries);
    for (uint32_t t = 0; t < nthreads; t++)
        pgcb_hist_init_in(&h->sh->threads[t].hist, c + (size_t)t * PGCB_HIST_NCOUNTS);
    return 0;
}

void pgcb_host_unmap(struct pgcb_host *h)
{
    if (h->sh)
        munmap(h->sh, h->sh_size);
    h->sh = NULL;
}

static void close_fds(struct pgcb_host *h)
{
    if (h->cmd_fd >= 0)
        close(h->cmd_fd);
    if (h->reply_fd >= 0)
        close(h->reply_fd);
    h->cmd_fd = h->reply_fd = -1;
}

/* Reap the host (it is dead or dying) and describe how it ended. */
static void reap(struct pgcb_host *h, char *why, size_t n)
{
    int st = 0;
    pid_t r;
    do
        r = waitpid(h->pid, &st, 0);
    while (r < 0 && errno == EINTR);
    if (why) {
        if (r == h->pid && WIFSIGNALED(st))
            snprintf(why, n, "crashed (%s: %s)", sigabbrev_np(WTERMSIG(st)) ?
                     sigabbrev_np(WTERMSIG(st)) : "signal", strsignal(WTERMSIG(st)));
        else if (r == h->pid && WIFEXITED(st))
            snprintf(why, n, "exited with status %d", WEXITSTATUS(st));
        else
            snprintf(why, n, "vanished");
        /* SIG prefix: "SIGSEGV", as people say it. */
        if (strncmp(why, "crashed (", 9) == 0 && strncmp(why + 9, "SIG", 3) != 0) {
            char tmp[256];
            snprintf(tmp, sizeof tmp, "crashed (SIG%s", why + 9);
            snprintf(why, n, "%s", tmp);
        }
    }
    h->pid = 0;
    h->conninfo = NULL;
    close_fds(h);
}

static void kill_host(struct pgcb_host *h)
{
    if (h->pid > 0) {
        kill(h->pid, SIGKILL);
        reap(h, NULL, 0);
    }
}

/* Wait for one byte from the host, watching heartbeats: `beats` are the
 * heartbeats to watch (n of them). Returns the byte, or -1 with err set
 * (the host is gone then). */
static int wait_reply(struct pgcb_host *h, struct pgcb_session *s, _Atomic uint64_t *const *beats,
                      size_t n, char *err, size_t errlen)
{
    uint64_t timeout_ns = s->cfg->batch_timeout_ms * 1000000ull;
    uint64_t all_done = 0; /* when every watched thread had finished; 0: not yet */
    for (;;) {
        struct pollfd p = {.fd = h->reply_fd, .events = POLLIN};
        int r = poll(&p, 1, HOST_TICK_MS);
        if (r > 0) {
            char c;
            ssize_t got = read(h->reply_fd, &c, 1);
            if (got == 1)
                return (unsigned char)c;
            if (got < 0 && errno == EINTR)
                continue;
            char why[256];
            reap(h, why, sizeof why);
            snprintf(err, errlen, "%s", why);
            return -1;
        }
        if (r < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            kill_host(h);
            return -1;
        }
        if (*s->stop)
            atomic_store(&h->sh->stop, 1);
        pgcb_progress_tick(s->progress);
        /* A thread that finished its job (done, failed, or floors met early)
         * set its heartbeat to 0: it is no longer watched, the others are.
         * When every one has finished, the host must answer within the
         * timeout too. */
        uint64_t now = pgcb_now_ns();
        size_t finished = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t beat = atomic_load(beats[i]);
            finished += beat == 0;
            if (beat && now > beat && now - beat > timeout_ns) {
                kill_host(h);
                snprintf(err, errlen, "timed out: no progress for %llu ms ([bench] "
                         "batch_timeout_ms): the driver or the server stopped answering; its "
                         "process was killed", (unsigned long long)s->cfg->batch_timeout_ms);
                return -1;
            }
        }
        if (n > 0 && finished == n) {
            if (!all_done)
                all_done = now;
            else if (now - all_done > timeout_ns) {
                kill_host(h);
                snprintf(err, errlen, "timed out: every thread finished, but the driver's "
                         "process did not answer for %llu ms ([bench] batch_timeout_ms); it was "
                         "killed", (unsigned long long)s->cfg->batch_timeout_ms);
                return -1;
            }
        }
    }
}

/* The tag of host `host` of runner `runner`, or "" when the user set an
 * application_name of their own (PGAPPNAME; in the conninfo it would win
 * over PGAPPNAME anyway): theirs is kept, and nothing can be found by it. */
static void host_tag(char *buf, size_t n, pid_t runner, pid_t host)
{
    const char *app = getenv("PGAPPNAME");
    if (app && *app && strncmp(app, "pgcb-", 5) != 0)
        buf[0] = '\0';
    else
        snprintf(buf, n, "pgcb-%d-%d", (int)runner, (int)host);
}

/* In a new host: close the pipes of every other host of the session. */
static void close_other_hosts(struct pgcb_session *s, const struct pgcb_host *h)
{
    for (size_t i = 0; i < s->ndrivers + s->nbgs; i++) {
        struct pgcb_host *o = i < s->ndrivers ? &s->drivers[i].host
                                              : &s->bgs[i - s->ndrivers].sd.host;
        if (o != h && o->cmd_fd >= 0)
            close(o->cmd_fd);
        if (o != h && o->reply_fd >= 0)
            close(o->reply_fd);
    }
}

int pgcb_host_start(struct pgcb_host *h, struct pgcb_session *s, const struct pgcb_host_spec *spec,
                    int check_rows, char *err, size_t errlen)
{
    int cmd[2], reply[2];
    if (pipe2(cmd, O_CLOEXEC) != 0 || pipe2(reply, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    atomic_store(&h->sh->stop, 0);
    atomic_store(&h->sh->bg_stop, 0);
    atomic_store(&h->sh->heartbeat_ns, pgcb_now_ns());
    h->sh->err[0] = '\0';
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(cmd[0]), close(cmd[1]), close(reply[0]), close(reply[1]);
        return -1;
    }
    if (pid == 0) {
        close(cmd[1]);
        close(reply[0]);
        /* The other hosts' pipes must not stay open here. */
        close_other_hosts(s, h);
        child_main(h, s, spec, check_rows, cmd[0], reply[1]);
    }
    close(cmd[0]);
    close(reply[1]);
    h->pid = pid;
    h->conninfo = spec->conninfo;
    host_tag(h->tag, sizeof h->tag, getpid(), pid);
    h->cmd_fd = cmd[1];
    h->reply_fd = reply[0];
    _Atomic uint64_t *beat = &h->sh->heartbeat_ns;
    char why[256];
    int c = wait_reply(h, s, &beat, 1, why, sizeof why);
    if (c == 'R')
        return 0;
    if (c == 'F') {
        snprintf(err, errlen, "%s", h->sh->err);
        reap(h, NULL, 0);
    } else if (c >= 0) {
        snprintf(err, errlen, "driver host answered '%c' at start", c);
        kill_host(h);
    } else {
        snprintf(err, errlen, "%s %s %s while connecting and preparing", spec->role,
                 spec->sd->cfg->name, why);
    }
    return -1;
}

int pgcb_host_send(struct pgcb_host *h, struct pgcb_session *s, char *err, size_t errlen)
{
    uint32_t n = h->sh->job.nthreads;
    uint64_t now = pgcb_now_ns();
    for (uint32_t t = 0; t < n; t++) {
        atomic_store(&h->sh->threads[t].heartbeat_ns, now);
        atomic_store(&h->sh->threads[t].live_ns, 0);
        atomic_store(&h->sh->threads[t].live_batches, 0);
    }
    atomic_store(&h->sh->stop, *s->stop ? 1 : 0);
    atomic_store(&h->sh->bg_stop, 0);
    char c = 'J';
    if (write(h->cmd_fd, &c, 1) != 1) {
        char why[256];
        reap(h, why, sizeof why);
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    return 0;
}

int pgcb_host_run(struct pgcb_host *h, struct pgcb_session *s, char *err, size_t errlen)
{
    if (pgcb_host_send(h, s, err, errlen) != 0)
        return -1;
    return pgcb_host_wait(h, s, err, errlen);
}

int pgcb_host_wait(struct pgcb_host *h, struct pgcb_session *s, char *err, size_t errlen)
{
    uint32_t n = h->sh->job.nthreads;
    _Atomic uint64_t *beats[PGCB_MAX_THREADS];
    for (uint32_t t = 0; t < n; t++)
        beats[t] = &h->sh->threads[t].heartbeat_ns;
    int r = wait_reply(h, s, beats, n, err, errlen);
    if (r == 'D')
        return 0;
    if (r >= 0) {
        snprintf(err, errlen, "driver host answered '%c'", r);
        kill_host(h);
    }
    return -1;
}

void pgcb_host_stop(struct pgcb_host *h)
{
    if (h->pid <= 0)
        return;
    char c = 'X';
    if (write(h->cmd_fd, &c, 1) == 1) {
        /* Up to 5 s to close its connections and exit. */
        for (int i = 0; i < 100; i++) {
            int st;
            pid_t r = waitpid(h->pid, &st, WNOHANG);
            if (r == h->pid) {
                h->pid = 0;
                h->conninfo = NULL;
                close_fds(h);
                return;
            }
            usleep(50000);
        }
    }
    kill_host(h);
}

/* ---- the host process -------------------------------------------------- */

/* Parameter rows drawn per block at most (a block is cut to fit), and the
 * most arena bytes they may take (one batch always fits). */
#define HOST_PARAM_ROWS 65536
#define HOST_PARAM_BYTES (8u << 20)

struct child;

struct cworker {
    struct child *c;
    uint32_t index;
    int cpu;
    pthread_t tid;
    int pin_rc;
    char pin_err[160];
    uint64_t *samples;          /* PGCB_BLOCK_MAX */
    struct pgcb_sum *sums;      /* PGCB_BLOCK_MAX, for a self-timed driver; else NULL */
    double est_ns;              /* ns per batch, for block sizing */
    uint64_t block_ns;          /* a block's target duration (PGCB_BLOCK_TARGET*_NS) */
    /* Parameters of the current block (grown per job, outside the loop). */
    const char **values;
    int *lengths;
    char *arena;
    size_t param_rows;          /* rows the arrays hold */
    size_t arena_size;
    struct pgcb_rng rng;
};

struct child {
    struct pgcb_session *s;
    struct pgcb_sdriver *sd;
    struct pgcb_host_shared *sh;
    const char *role;
    const char *conninfo;       /* every connection's (the spec's) */
    uint32_t nthreads;
    struct pgcb_conn **conns;   /* per thread; NULL when not connected */
    struct pgcb_stmt **stmts;   /* [thread * nqueries + query] */
    struct pgcb_stmt **txn;     /* [thread * 2]: BEGIN, COMMIT; NULL if no suite needs them */
    struct pgcb_stmt **bulk;    /* [(thread * nqueries + query) * BULK_NSTMTS]: a bulk query's
                                   read-back, source and TRUNCATE statements (bulk.h) */
    struct cworker *workers;
    pthread_barrier_t start, end;
    int exiting;
};

static int query_used(const struct pgcb_config *cfg, size_t q)
{
    for (size_t i = 0; i < cfg->nsuites; i++)
        for (size_t k = 0; k < cfg->suites[i].nqueries; k++)
            if (cfg->suites[i].queries[k] == q)
                return 1;
    for (size_t i = 0; i < cfg->nbackgrounds; i++)
        if (cfg->backgrounds[i].query == q)
            return 1;
    return 0;
}

static int txn_used(const struct pgcb_config *cfg)
{
    for (size_t i = 0; i < cfg->nsuites; i++)
        if (cfg->suites[i].transaction)
            return 1;
    return 0;
}

enum { BULK_READ_BACK = 0, BULK_SOURCE, BULK_TRUNCATE, BULK_NSTMTS };

static void close_conn(struct child *c, uint32_t t)
{
    size_t nq = c->s->cfg->nqueries;
    if (c->conns[t])
        c->sd->ld.drv->close(c->conns[t]);
    c->conns[t] = NULL;
    memset(&c->stmts[(size_t)t * nq], 0, nq * sizeof *c->stmts);
    memset(&c->bulk[(size_t)t * nq * BULK_NSTMTS], 0, nq * BULK_NSTMTS * sizeof *c->bulk);
    c->txn[2 * t] = c->txn[2 * t + 1] = NULL;
}

/* Size w's parameter arrays for query q at `depth`: enough rows for at
 * least one batch. Returns the most batches one block can draw (0: the
 * query has no parameters, no limit). */
static size_t params_reserve(struct cworker *w, const struct pgcb_cfg_query *q, uint32_t depth)
{
    if (q->nparams == 0)
        return 0;
    size_t row_bytes = 0;
    for (size_t j = 0; j < q->nparams; j++)
        row_bytes += pgcb_gen_max_len(&q->params[j]);
    size_t rows = HOST_PARAM_ROWS / q->nparams;
    if (row_bytes && rows > HOST_PARAM_BYTES / row_bytes)
        rows = HOST_PARAM_BYTES / row_bytes;
    if (rows < depth)
        rows = depth;
    rows -= rows % depth;
    if (rows > w->param_rows) {
        free(w->values);
        free(w->lengths);
        w->values = pgcb_xcalloc(rows * q->nparams, sizeof *w->values);
        w->lengths = pgcb_xcalloc(rows * q->nparams, sizeof *w->lengths);
        w->param_rows = rows;
    }
    if (rows * row_bytes + 1 > w->arena_size) {
        free(w->arena);
        w->arena_size = rows * row_bytes + 1;
        w->arena = pgcb_xmalloc(w->arena_size);
    }
    return rows / depth;
}

/* Draw the parameters of `batches` batches into w's arrays. */
static void params_draw(struct cworker *w, const struct pgcb_cfg_query *q, uint32_t depth,
                        size_t batches)
{
    if (q->nparams)
        pgcb_gen_fill(q->params, q->nparams, &w->rng, w->c->s->seqs, batches * depth, w->values,
                      w->lengths, w->arena);
}

/* What one bulk check step gave: PGCB_OK, or a status with why. */
static int bulk_step(struct child *c, uint32_t t, size_t q, int k, const char *what,
                     struct pgcb_sum *sum, char *why, size_t n)
{
    const struct pgcb_driver *drv = c->sd->ld.drv;
    struct pgcb_stmt *st = c->bulk[((size_t)t * c->s->cfg->nqueries + q) * BULK_NSTMTS + k];
    char e[PGCB_ERRLEN] = "";
    memset(sum, 0, sizeof *sum);
    int rc = drv->run_batch(c->conns[t], st, 1, sum, e, sizeof e);
    if (rc != PGCB_OK)
        snprintf(why, n, "%s failed: %s", what, e);
    return rc;
}

/* Write the bulk query q's rows once on thread t's connection -- the COPY
 * of its payload, or one batch binding every params_from row in order --
 * into the emptied table, read them back, and compare with the source
 * rows through the same driver; then empty the table again. A server error
 * is the query's failure (recorded); a mismatch marks the driver invalid
 * for the query (recorded); an I/O error fails the host (-1). */
static int bulk_verify(struct child *c, uint32_t t, size_t q, const char *who, char *err,
                       size_t errlen)
{
    const struct pgcb_config *cfg = c->s->cfg;
    const struct pgcb_cfg_query *cq = &cfg->queries[q];
    const struct pgcb_bulk *b = cq->bulk;
    const struct pgcb_driver *drv = c->sd->ld.drv;
    struct pgcb_host_query *hq = &c->sh->queries[q];
    char why[PGCB_ERRLEN + 96] = "", e[PGCB_ERRLEN] = "";
    struct pgcb_sum back, src, ignored;
    uint64_t rows = 0;
    atomic_store(&c->sh->heartbeat_ns, pgcb_now_ns());
    int rc = bulk_step(c, t, q, BULK_TRUNCATE, b->truncate_sql, &ignored, why, sizeof why);
    if (rc == PGCB_OK && cq->copy) {
        struct pgcb_copy copy = {b->copy_sql, b->payload, b->len, b->rows};
        rc = drv->run_copy(c->conns[t], &copy, &rows, e, sizeof e);
        if (rc != PGCB_OK)
            snprintf(why, sizeof why, "%s failed: %s", b->copy_sql, e);
    } else if (rc == PGCB_OK) {
        struct pgcb_params p = {(uint32_t)b->rows_view.ncols, b->values, b->lengths};
        struct pgcb_stmt *st = c->stmts[(size_t)t * cfg->nqueries + q];
        rc = drv->run_batch_params(c->conns[t], st, (uint32_t)b->rows, &p, &ignored, e,
                                   sizeof e);
        rows = b->rows;
        if (rc != PGCB_OK)
            snprintf(why, sizeof why, "a batch of its %llu params_from rows failed: %s",
                     (unsigned long long)b->rows, e);
    }
    if (rc == PGCB_OK)
        rc = bulk_step(c, t, q, BULK_READ_BACK, "reading back", &back, why, sizeof why);
    if (rc == PGCB_OK)
        rc = bulk_step(c, t, q, BULK_SOURCE, "the source query", &src, why, sizeof why);
    if (rc == PGCB_OK)
        rc = bulk_step(c, t, q, BULK_TRUNCATE, b->truncate_sql, &ignored, why, sizeof why);
    if (rc == PGCB_ERR_QUERY) {
        hq->failed = 1;
        snprintf(hq->err, sizeof hq->err, "query %s: %s: %s", cq->name, who, why);
        return 0;
    }
    if (rc != PGCB_OK) {
        snprintf(err, errlen, "query %s: %s: %s", cq->name, who, why);
        close_conn(c, t);
        return -1;
    }
    if (rows != b->rows || back.rows != src.rows || back.hash != src.hash) {
        hq->failed = hq->invalid = 1;
        snprintf(hq->err, sizeof hq->err, "read back: %s wrote %llu rows of %llu; the table "
                 "read back gave %llu rows, checksum %016llx, the source through the same "
                 "driver %llu rows, checksum %016llx", cq->copy ? "the COPY" : "the batch",
                 (unsigned long long)rows, (unsigned long long)b->rows,
                 (unsigned long long)back.rows, (unsigned long long)back.hash,
                 (unsigned long long)src.rows, (unsigned long long)src.hash);
        return 0;
    }
    hq->primed = 1;
    hq->prime_rows = cq->copy ? rows : 0;
    return 0;
}

/* Prepare bulk query q's read-back, source and TRUNCATE statements on
 * thread t's connection; a COPY query's TRUNCATE is also its statement (the
 * COPY plan's reset, measure.h), and a COPY is verified here. Returns 0,
 * 1 when the server refused one (recorded in the query), or -1 (the
 * connection failed; err set). */
static int bulk_open(struct child *c, uint32_t t, size_t q, const char *who, char *err,
                     size_t errlen)
{
    const struct pgcb_config *cfg = c->s->cfg;
    const struct pgcb_cfg_query *cq = &cfg->queries[q];
    const struct pgcb_bulk *b = cq->bulk;
    const struct pgcb_driver *drv = c->sd->ld.drv;
    struct pgcb_host_query *hq = &c->sh->queries[q];
    const char *sql[BULK_NSTMTS] = {b->read_back_sql, b->source_sql, b->truncate_sql};
    static const char *const what[BULK_NSTMTS] = {"rb", "src", "tr"};
    struct pgcb_stmt **st = &c->bulk[((size_t)t * cfg->nqueries + q) * BULK_NSTMTS];
    for (int k = 0; k < BULK_NSTMTS; k++) {
        char name[96], why[PGCB_ERRLEN] = "";
        snprintf(name, sizeof name, "pgcb%s_%s", what[k], cq->name);
        int rc = drv->prepare(c->conns[t], name, sql[k], &st[k], why, sizeof why);
        if (rc == PGCB_ERR_QUERY && t == 0) {
            hq->failed = 1;
            snprintf(hq->err, sizeof hq->err, "query %s: %s: prepare of %s failed: %s",
                     cq->name, who, sql[k], why);
            return 1;
        }
        if (rc != PGCB_OK) {
            snprintf(err, errlen, "query %s: %s: prepare of %s failed: %s", cq->name, who,
                     sql[k], why);
            close_conn(c, t);
            return -1;
        }
    }
    if (!cq->copy)
        return 0;
    c->stmts[(size_t)t * cfg->nqueries + q] = st[BULK_TRUNCATE];
    if (t != 0)
        return 0;
    if (bulk_verify(c, t, q, who, err, errlen) != 0)
        return -1;
    return hq->failed ? 1 : 0;
}

/* Connect thread t, prepare and prime every used query the first
 * connection could prepare. A query the server refuses on the first
 * connection is recorded in sh->queries; anything else fails (-1). */
static int open_conn(struct child *c, uint32_t t, int check_rows, char *err, size_t errlen)
{
    const struct pgcb_config *cfg = c->s->cfg;
    const struct pgcb_driver *drv = c->sd->ld.drv;
    const int has_params = PGCB_DRIVER_HAS(drv, 1, run_batch_params);
    char why[PGCB_ERRLEN] = "", who[112];
    if (c->nthreads > 1)
        snprintf(who, sizeof who, "%s %s (connection %u)", c->role, c->sd->cfg->name, t + 1);
    else
        snprintf(who, sizeof who, "%s %s", c->role, c->sd->cfg->name);
    close_conn(c, t);
    atomic_store(&c->sh->heartbeat_ns, pgcb_now_ns());
    int rc = drv->open(c->conninfo, c->sd->opts, c->sd->nopts, &c->conns[t], why, sizeof why);
    if (rc != PGCB_OK) {
        c->conns[t] = NULL;
        snprintf(err, errlen, "%s: cannot connect: %s", who, why);
        return -1;
    }
    if (txn_used(cfg)) {
        static const char *const sql[2] = {"BEGIN", "COMMIT"};
        static const char *const name[2] = {"pgcbtx_begin", "pgcbtx_commit"};
        for (int k = 0; k < 2; k++)
            if (drv->prepare(c->conns[t], name[k], sql[k], &c->txn[2 * t + k], why,
                             sizeof why) != PGCB_OK) {
                snprintf(err, errlen, "%s: cannot prepare %s: %s", who, sql[k], why);
                close_conn(c, t);
                return -1;
            }
    }
    for (size_t q = 0; q < cfg->nqueries; q++) {
        if (!query_used(cfg, q) || c->sh->queries[q].failed)
            continue;
        atomic_store(&c->sh->heartbeat_ns, pgcb_now_ns());
        const struct pgcb_cfg_query *cq = &cfg->queries[q];
        struct pgcb_host_query *hq = &c->sh->queries[q];
        if (cq->nparams && !has_params) {
            if (t == 0) {
                hq->failed = hq->skipped = 1;
                snprintf(hq->err, sizeof hq->err, "skipped: query %s has parameters and driver "
                         "%s has ABI %u.%u, without run_batch_params (ABI 1.1)", cq->name,
                         c->sd->cfg->name, (unsigned)drv->abi_major, (unsigned)drv->abi_minor);
            }
            continue;
        }
        if (cq->copy && !PGCB_DRIVER_HAS(drv, 4, run_copy)) {
            if (t == 0) {
                hq->failed = hq->skipped = 1;
                if (drv->abi_minor < 4)
                    snprintf(hq->err, sizeof hq->err, "skipped: query %s is a COPY and driver "
                             "%s has ABI %u.%u, without run_copy (ABI 1.4)", cq->name,
                             c->sd->cfg->name, (unsigned)drv->abi_major,
                             (unsigned)drv->abi_minor);
                else
                    snprintf(hq->err, sizeof hq->err, "skipped: query %s is a COPY and driver "
                             "%s has no run_copy (ABI 1.4, optional)", cq->name,
                             c->sd->cfg->name);
            }
            continue;
        }
        struct pgcb_stmt **stmt = &c->stmts[(size_t)t * cfg->nqueries + q];
        /* A driver without I/O writes nothing: there is nothing to read back. */
        if (cq->bulk && cq->bulk->read_back_sql && !(c->sd->caps & PGCB_CAP_NO_IO)) {
            int v = bulk_open(c, t, q, who, err, errlen);
            if (v < 0)
                return -1;
            if (v > 0 || cq->copy)
                continue; /* refused (recorded), or a COPY: nothing else to prepare */
        }
        char name[80];
        snprintf(name, sizeof name, "pgcb_%s", cq->name);
        rc = drv->prepare(c->conns[t], name, cq->sql, stmt, why, sizeof why);
        if (rc == PGCB_ERR_QUERY && t == 0) {
            hq->failed = 1;
            snprintf(hq->err, sizeof hq->err, "query %s: %s: prepare failed: %s", cq->name, who,
                     why);
            continue;
        }
        /* A statement the driver cannot run as asked (a column type it cannot
         * fold in binary, libpq asking one format for all columns): its groups
         * are skipped for this driver, with the driver's reason; the rest runs. */
        if (rc == PGCB_ERR_UNSUPPORTED && t == 0) {
            hq->failed = hq->skipped = 1;
            snprintf(hq->err, sizeof hq->err, "skipped: query %s: %s cannot run it: %s",
                     cq->name, who, why);
            continue;
        }
        if (rc != PGCB_OK) {
            snprintf(err, errlen, "query %s: %s: prepare failed: %s", cq->name, who, why);
            close_conn(c, t);
            return -1;
        }
        if (!cq->prime)
            continue;
        /* One execution, with the first row of a stream every driver shares. */
        struct pgcb_sum sum = {0, 0};
        const char *values[PGCB_MAX_PARAMS];
        int lengths[PGCB_MAX_PARAMS];
        char *arena = NULL;
        struct pgcb_plan plan = {.drv = drv, .conn = c->conns[t], .stmt = *stmt, .depth = 1,
                                 .nparams = (uint32_t)cq->nparams, .values = values,
                                 .lengths = lengths};
        if (cq->nparams) {
            size_t bytes = 1;
            for (size_t j = 0; j < cq->nparams; j++)
                bytes += pgcb_gen_max_len(&cq->params[j]);
            arena = pgcb_xmalloc(bytes);
            struct pgcb_rng rng;
            pgcb_rng_seed(&rng, cfg->seed, q, PGCB_STREAM_PRIME, t, 0);
            pgcb_gen_fill(cq->params, cq->nparams, &rng, c->s->seqs, 1, values, lengths, arena);
        }
        rc = pgcb_measure_batch(&plan, 0, &sum, why, sizeof why);
        free(arena);
        if (rc == PGCB_ERR_QUERY && t == 0) {
            hq->failed = 1;
            snprintf(hq->err, sizeof hq->err, "query %s: %s: first execution failed: %s",
                     cq->name, who, why);
            continue;
        }
        if (rc != PGCB_OK) {
            snprintf(err, errlen, "query %s: %s: first execution failed: %s", cq->name, who, why);
            close_conn(c, t);
            return -1;
        }
        if (check_rows && cq->rows >= 0 && cq->check != PGCB_CHECK_NONE &&
            sum.rows != (uint64_t)cq->rows) {
            snprintf(err, errlen, "query %s: expected %lld rows per execution ([query.%s] rows "
                     "at %s:%d), %s got %llu", cq->name, (long long)cq->rows, cq->name,
                     cfg->file, cq->line, who, (unsigned long long)sum.rows);
            close_conn(c, t);
            return -1;
        }
        if (t == 0) {
            hq->prime_rows = sum.rows;
            hq->primed = 1;
        }
    }
    /* The insert batches read back (bulk.h): now that the statement is
     * prepared, on the first connection. */
    for (size_t q = 0; q < cfg->nqueries; q++) {
        const struct pgcb_cfg_query *cq = &cfg->queries[q];
        if (t != 0 || !query_used(cfg, q) || c->sh->queries[q].failed || cq->copy || !cq->bulk ||
            !cq->bulk->read_back_sql || (c->sd->caps & PGCB_CAP_NO_IO))
            continue;
        if (bulk_verify(c, t, q, who, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* A worker's block target with `left_ns` of its time budget left: its own
 * target, but no longer than that time (and never under the in-process
 * target), so that a self-timed driver's long blocks do not overrun a small
 * budget. */
static uint64_t block_target(const struct cworker *w, uint64_t left_ns)
{
    uint64_t t = left_ns < PGCB_BLOCK_TARGET_NS ? PGCB_BLOCK_TARGET_NS : left_ns;
    return t < w->block_ns ? t : w->block_ns;
}

/* Batches in the next block: about target_ns of them, at most
 * `remaining` (0: no limit) and `cap` (0: no limit). */
static size_t block_size(uint64_t target_ns, double est_ns, uint64_t remaining_batches,
                         size_t cap)
{
    double n = est_ns > 0 ? (double)target_ns / est_ns : 1.0;
    if (n < 1)
        n = 1;
    if (n > PGCB_BLOCK_MAX)
        n = PGCB_BLOCK_MAX;
    size_t k = (size_t)n;
    if (remaining_batches && remaining_batches < k)
        k = (size_t)remaining_batches;
    if (cap && cap < k)
        k = cap;
    return k ? k : 1;
}

/* A failed batch: keep the message; the connection is closed, to be
 * reopened at the start of the next job. */
static void worker_failed(struct cworker *w, struct pgcb_host_thread *ht, const struct pgcb_job *job,
                          int rc, const char *when, const char *why)
{
    ht->rc = rc;
    if (job->nthreads > 1)
        snprintf(ht->err, sizeof ht->err, "thread %u, %s: %s", w->index + 1, when, why);
    else
        snprintf(ht->err, sizeof ht->err, "%s: %s", when, why);
    /* Whatever failed, the next job starts on a fresh connection: a driver
     * that misjudged a broken connection as a query error cannot make the
     * next group fail too. A connection job's failure was on a connection of
     * its own, already closed: the host's was not used and stays. */
    if (!job->connect)
        close_conn(w->c, w->index);
}

/* Tell the driver what starts (ABI 1.2 phase: an adapter collects garbage),
 * outside any timing. Returns 0, or -1 with the thread failed. */
static int worker_phase(struct cworker *w, struct pgcb_host_thread *ht, const struct pgcb_job *job,
                        enum pgcb_phase phase)
{
    const struct pgcb_driver *drv = w->c->sd->ld.drv;
    /* A connection job has no connection to tell: each sample opens its own. */
    if (job->connect || !PGCB_DRIVER_HAS(drv, 2, phase))
        return 0;
    char why[PGCB_ERRLEN] = "";
    int rc = drv->phase(w->c->conns[w->index], phase, why, sizeof why);
    atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
    if (rc == PGCB_OK)
        return 0;
    worker_failed(w, ht, job, rc, phase == PGCB_PHASE_WARMUP ? "before the warm-up" :
                  "before the order", why);
    return -1;
}

static void worker_warmup(struct cworker *w, struct pgcb_host_thread *ht,
                          const struct pgcb_job *job, struct pgcb_plan *plan, size_t cap)
{
    struct child *c = w->c;
    const struct pgcb_cfg_query *cq = &c->s->cfg->queries[job->query];
    char why[PGCB_ERRLEN] = "";
    struct pgcb_measured b;
    if (worker_phase(w, ht, job, PGCB_PHASE_WARMUP) != 0)
        return;
    params_draw(w, cq, job->depth, 1);
    /* The first batch sets the group's checksum: one run_batch, even for a
     * self-timed driver (whose run_batch checks every value). */
    struct pgcb_plan first = *plan;
    first.check_rows = first.check_sum = 0;
    first.sums = NULL;
    pgcb_measure_block(&first, 1, w->samples, &b, why, sizeof why);
    atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
    if (b.rc != PGCB_OK) {
        worker_failed(w, ht, job, b.rc, job->connect ? "first connection" : "first batch", why);
        return;
    }
    ht->expect_sum = plan->expect_sum = b.last_sum;
    /* what the driver can say of those values beyond their checksum
     * (ABI 1.4), shown if the checksum disagrees */
    ht->note[0] = '\0';
    if (plan->stmt && PGCB_DRIVER_HAS(plan->drv, 4, note)) {
        plan->drv->note(plan->conn, plan->stmt, ht->note, sizeof ht->note);
        ht->note[sizeof ht->note - 1] = '\0';
    }
    w->est_ns = (double)b.wall_ns;
    ht->rows_bad += job->check_rows && b.last_rows != job->expect_rows;
    ht->batches++;
    uint64_t spent = b.wall_ns, done = 1;
    atomic_store_explicit(&ht->live_ns, spent, memory_order_relaxed);
    atomic_store_explicit(&ht->live_batches, done, memory_order_relaxed);
    while (spent < job->warmup_ns && !atomic_load(&c->sh->stop)) {
        size_t n = block_size(block_target(w, job->warmup_ns - spent), w->est_ns, 0, cap);
        params_draw(w, cq, job->depth, n);
        pgcb_measure_block(plan, n, w->samples, &b, why, sizeof why);
        atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
        if (b.rc != PGCB_OK) {
            worker_failed(w, ht, job, b.rc, "warm-up", why);
            return;
        }
        spent += b.wall_ns;
        done += b.n;
        atomic_store_explicit(&ht->live_ns, spent, memory_order_relaxed);
        atomic_store_explicit(&ht->live_batches, done, memory_order_relaxed);
        w->est_ns = (double)b.wall_ns / (double)b.n;
    }
}

/* The calling thread's involuntary and voluntary context switches so far;
 * 0 if getrusage fails (it does not for RUSAGE_THREAD on Linux). */
static void thread_switches(uint64_t *inv, uint64_t *vol)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        ru.ru_nivcsw = ru.ru_nvcsw = 0;
    *inv = (uint64_t)ru.ru_nivcsw;
    *vol = (uint64_t)ru.ru_nvcsw;
}

/* The calling thread's minor page faults so far (0 if unknown). */
static uint64_t thread_minflt(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? (uint64_t)ru.ru_minflt : 0;
}

/*
 * The context switches of a measuring thread over an order's timed part
 * are read around the loop of blocks (two system calls per order, outside
 * every block): involuntary ones are preemptions -- something else ran on
 * the pinned CPU while the thread wanted to run (another process, a kernel
 * thread, for a bridge its own adapter's threads, which are pinned to the
 * same CPU) -- and voluntary ones are the thread giving up the CPU, mostly
 * waiting for the server's reply. For a self-timed driver (the bridge) the
 * measuring thread only waits on the adapter's socket while the adapter
 * times the batches: its voluntary switches count the exchanges (about one
 * per block), its involuntary ones the times it was preempted on the shared
 * CPU; the adapter process's own switches are not in the figure.
 */
static void worker_measure(struct cworker *w, struct pgcb_host_thread *ht,
                           const struct pgcb_job *job, const struct pgcb_plan *plan, size_t cap)
{
    struct child *c = w->c;
    const struct pgcb_cfg_query *cq = &c->s->cfg->queries[job->query];
    uint64_t spent = 0, batches = 0;
    char why[PGCB_ERRLEN] = "";
    if (worker_phase(w, ht, job, PGCB_PHASE_ORDER) != 0)
        return;
    uint64_t inv0, vol0, inv1, vol1;
    thread_switches(&inv0, &vol0);

    while ((spent < job->time_floor_ns || batches < job->batch_floor) &&
           !atomic_load(&c->sh->stop)) {
        uint64_t left = 0;
        if (spent >= job->time_floor_ns)
            left = job->batch_floor - batches;
        else if (batches >= job->batch_floor && w->est_ns > 0)
            left = (uint64_t)((double)(job->time_floor_ns - spent) / w->est_ns) + 1;
        uint64_t target = block_target(w, spent < job->time_floor_ns ? job->time_floor_ns - spent : 0);
        size_t n = block_size(target, w->est_ns, left, cap);
        params_draw(w, cq, job->depth, n);
        struct pgcb_measured b;
        uint64_t flt0 = thread_minflt(); /* around the timed block only */
        pgcb_measure_block(plan, n, w->samples, &b, why, sizeof why);
        ht->minflt += thread_minflt() - flt0;
        /* Outside the timed loop: the heartbeat, and the block into the
         * histogram. */
        atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
        pgcb_hist_add_many(&ht->hist, w->samples, b.n);
        spent += b.wall_ns;
        batches += b.n;
        atomic_store_explicit(&ht->live_ns, spent, memory_order_relaxed);
        atomic_store_explicit(&ht->live_batches, batches, memory_order_relaxed);
        ht->cpu_ns += b.cpu_ns;
        ht->rows_bad += b.rows_bad;
        ht->sum_bad += b.sum_bad;
        ht->blocks += plan->sums != NULL;
        ht->overhead_ns += b.overhead_ns;
        ht->overhead_cpu_ns += b.overhead_cpu_ns;
        if (b.n)
            w->est_ns = (double)b.wall_ns / (double)b.n;
        if (b.rc != PGCB_OK) {
            char when[96];
            snprintf(when, sizeof when, "order %zu, %s %llu", job->order + 1,
                     job->connect ? "connection" : "batch", (unsigned long long)batches + 1);
            worker_failed(w, ht, job, b.rc, when, why);
            break;
        }
    }
    thread_switches(&inv1, &vol1);
    ht->nivcsw += inv1 - inv0;
    ht->nvcsw += vol1 - vol0;
    ht->batches += batches;
}

/* Sleep until CLOCK_MONOTONIC `until_ns`, in slices, keeping the heartbeat
 * fresh; returns early when the background job is stopped. */
static void sleep_until(struct child *c, struct pgcb_host_thread *ht, uint64_t until_ns)
{
    for (;;) {
        uint64_t now = pgcb_now_ns();
        if (now >= until_ns || atomic_load(&c->sh->bg_stop) || atomic_load(&c->sh->stop))
            return;
        uint64_t to = until_ns - now > 50000000ull ? now + 50000000ull : until_ns;
        struct timespec ts = {.tv_sec = (time_t)(to / 1000000000ull),
                              .tv_nsec = (long)(to % 1000000000ull)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
    }
}

/* Background load: execution k is due at start + k / rate. Each is timed
 * from when it was due, not from when it began, so an execution held up
 * behind a slow one shows the wait (no coordinated omission); a late loop
 * runs the next at once and never skips one. */
static void worker_background(struct cworker *w, struct pgcb_host_thread *ht,
                              const struct pgcb_job *job, const struct pgcb_plan *plan)
{
    struct child *c = w->c;
    const struct pgcb_cfg_query *cq = &c->s->cfg->queries[job->query];
    const double period = 1e9 / job->rate;
    char why[PGCB_ERRLEN] = "";
    /* Connections spread over the period, not all due at once. */
    uint64_t start = pgcb_now_ns() + (uint64_t)(period * w->index / job->nthreads);
    uint64_t k = 0, done = 0;
    for (;; k++) {
        uint64_t due = start + (uint64_t)(period * (double)k);
        params_draw(w, cq, job->depth, 1);
        sleep_until(c, ht, due);
        if (atomic_load(&c->sh->bg_stop) || atomic_load(&c->sh->stop))
            break;
        struct pgcb_sum sum;
        int rc = pgcb_measure_batch(plan, 0, &sum, why, sizeof why);
        uint64_t end = pgcb_now_ns();
        atomic_store(&ht->heartbeat_ns, end);
        if (rc != PGCB_OK) {
            char when[64];
            snprintf(when, sizeof when, "background execution %llu", (unsigned long long)k + 1);
            worker_failed(w, ht, job, rc, when, why);
            break;
        }
        pgcb_hist_add(&ht->hist, end - due);
        ht->rows_bad += job->check_rows && sum.rows != job->expect_rows;
        done++;
    }
    uint64_t stop = pgcb_now_ns();
    ht->batches = done;
    ht->elapsed_ns = stop > start ? stop - start : 0;
}

static void run_job(struct cworker *w)
{
    struct child *c = w->c;
    const struct pgcb_job *job = &c->sh->job;
    const struct pgcb_config *cfg = c->s->cfg;
    struct pgcb_host_thread *ht = &c->sh->threads[w->index];
    ht->batches = ht->cpu_ns = ht->rows_bad = ht->sum_bad = ht->elapsed_ns = 0;
    ht->blocks = ht->overhead_ns = ht->overhead_cpu_ns = 0;
    ht->nivcsw = ht->nvcsw = ht->minflt = 0;
    /* The first block of every job is sized from that job (one batch, then
     * grown), never from the previous job's speed: a fast group followed by
     * a slow one without warm-up (an ops suite) ran one enormous first
     * block with no heartbeat and was killed as "timed out". */
    w->est_ns = 0;
    ht->rc = PGCB_OK;
    ht->err[0] = '\0';
    pgcb_hist_reset(&ht->hist);
    if (!job->connect && !c->conns[w->index]) {
        /* Reconnect, waiting up to batch_timeout_ms for a server that is
         * coming back (a restart) before failing the group. */
        char why[PGCB_ERRLEN + 160];
        uint64_t until = pgcb_now_ns() + cfg->batch_timeout_ms * 1000000ull / 2;
        unsigned pause_ms = 50;
        while (open_conn(c, w->index, 0, why, sizeof why) != 0) {
            atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
            if (pgcb_now_ns() >= until || atomic_load(&c->sh->stop)) {
                worker_failed(w, ht, job, PGCB_ERR_CONNECT, "reconnect", why);
                return;
            }
            usleep(pause_ms * 1000u);
            pause_ms = pause_ms < 800 ? pause_ms * 2 : pause_ms;
        }
        atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
    }
    const struct pgcb_cfg_query *cq = &cfg->queries[job->query];
    struct pgcb_plan plan = {
        .drv = c->sd->ld.drv,
        .conn = c->conns[w->index],
        .stmt = c->stmts[(size_t)w->index * cfg->nqueries + job->query],
        .begin = job->transaction ? c->txn[2 * w->index] : NULL,
        .commit = job->transaction ? c->txn[2 * w->index + 1] : NULL,
        .depth = job->depth,
        .nparams = (uint32_t)cq->nparams,
        .check_rows = job->check_rows,
        .check_sum = job->check_sum,
        .expect_rows = job->expect_rows,
        .expect_sum = ht->expect_sum,
        .sums = w->sums,
    };
    /* A connection job: every sample opens its own connection on the
     * host's connection string (the group's: the session started the host
     * with it) and prepares the statement under the same name as the host's
     * connections do. */
    char stmt_name[80];
    struct pgcb_connect connect = {.conninfo = c->conninfo,
                                   .opts = c->sd->opts, .nopts = c->sd->nopts,
                                   .name = stmt_name, .sql = cq->sql};
    snprintf(stmt_name, sizeof stmt_name, "pgcb_%s", cq->name);
    const struct pgcb_bulk *bk = cq->bulk;
    struct pgcb_copy copy = {0};
    if (cq->copy && bk) {
        copy = (struct pgcb_copy){bk->copy_sql, bk->payload, bk->len, bk->rows};
        plan.copy = &copy;
        plan.sums = NULL;
    }
    if (job->connect) {
        plan.connect = &connect;
        plan.conn = NULL;
        plan.stmt = plan.begin = plan.commit = NULL;
        plan.sums = NULL;
        plan.depth = 1;
    } else if (!plan.stmt) {
        worker_failed(w, ht, job, PGCB_ERR_QUERY, "prepare",
                      c->sh->queries[job->query].err[0] ? c->sh->queries[job->query].err
                                                         : "the statement is not prepared");
        return;
    }
    size_t cap = params_reserve(w, cq, job->depth);
    plan.values = w->values;
    plan.lengths = w->lengths;
    /* Every driver draws the same random stream in the same order of the
     * same group; sequences are shared and go on. */
    pgcb_rng_seed(&w->rng, cfg->seed, job->query, job->group, job->stream, w->index);
    if (job->kind == PGCB_JOB_WARMUP)
        worker_warmup(w, ht, job, &plan, cap);
    else if (job->kind == PGCB_JOB_BACKGROUND)
        worker_background(w, ht, job, &plan);
    else
        worker_measure(w, ht, job, &plan, cap);
}

static void *worker_main(void *arg)
{
    struct cworker *w = arg;
    struct child *c = w->c;
    w->pin_rc = pgcb_pin_self(w->cpu, w->pin_err, sizeof w->pin_err);
    /* Fault the block buffers in here, pinned, before anything is timed: a
     * fresh calloc'd page is mapped at its first store, which would
     * otherwise be a timed one (128 minor faults per 512 KiB block). */
    memset(w->samples, 0, PGCB_BLOCK_MAX * sizeof *w->samples);
    if (w->sums)
        memset(w->sums, 0, PGCB_BLOCK_MAX * sizeof *w->sums);
    pthread_barrier_wait(&c->end);
    for (;;) {
        pthread_barrier_wait(&c->start);
        if (c->exiting)
            break;
        if (w->index < c->sh->job.nthreads) {
            run_job(w);
            /* Finished: the runner stops watching this thread (wait_reply);
             * the others may still be measuring. */
            atomic_store(&c->sh->threads[w->index].heartbeat_ns, 0);
        }
        pthread_barrier_wait(&c->end);
    }
    return NULL;
}

/* Start-up failed: say why in the region, answer 'F', exit. */
static void child_fail(struct child *c, int reply_fd, const char *why)
{
    snprintf(c->sh->err, sizeof c->sh->err, "%s", why);
    char f = 'F';
    if (write(reply_fd, &f, 1) != 1)
        _exit(3);
    _exit(2);
}

static void child_main(struct pgcb_host *h, struct pgcb_session *s,
                       const struct pgcb_host_spec *spec, int check_rows, int cmd_fd,
                       int reply_fd)
{
    /* Die with the runner; leave Ctrl-C and SIGTERM to it (it stops us
     * through the region between blocks, keeping what was measured: a
     * SIGTERM to the whole process group, from timeout(1) or systemd, must
     * not kill us mid-order); a parent killed by SIGKILL cannot stop us
     * otherwise. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        _exit(1);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    /* Tag our connections (libpq, rawwire and the bridge read PGAPPNAME)
     * so that the runner can end what they leave running if we die. */
    char tag[PGCB_HOST_TAG_LEN];
    host_tag(tag, sizeof tag, getppid(), getpid());
    if (tag[0])
        setenv("PGAPPNAME", tag, 1);

    struct child c = {.s = s, .sd = spec->sd, .sh = h->sh, .nthreads = spec->nthreads,
                      .role = spec->role, .conninfo = spec->conninfo ? spec->conninfo : ""};
    size_t nq = s->cfg->nqueries;
    c.conns = pgcb_xcalloc(c.nthreads, sizeof *c.conns);
    c.stmts = pgcb_xcalloc((size_t)c.nthreads * (nq ? nq : 1), sizeof *c.stmts);
    c.txn = pgcb_xcalloc((size_t)c.nthreads * 2, sizeof *c.txn);
    c.bulk = pgcb_xcalloc((size_t)c.nthreads * (nq ? nq : 1) * BULK_NSTMTS, sizeof *c.bulk);
    memset(h->sh->queries, 0, (nq ? nq : 1) * sizeof *h->sh->queries);
    char why[PGCB_ERRLEN + 256];
    for (uint32_t t = 0; t < c.nthreads; t++)
        if (open_conn(&c, t, check_rows, why, sizeof why) != 0)
            child_fail(&c, reply_fd, why);

    c.workers = pgcb_xcalloc(c.nthreads, sizeof *c.workers);
    pthread_barrier_init(&c.start, NULL, c.nthreads + 1);
    pthread_barrier_init(&c.end, NULL, c.nthreads + 1);
    for (uint32_t t = 0; t < c.nthreads; t++) {
        struct cworker *w = &c.workers[t];
        w->c = &c;
        w->index = t;
        w->cpu = spec->cpus[t % spec->ncpus];
        w->samples = pgcb_xcalloc(PGCB_BLOCK_MAX, sizeof *w->samples);
        w->block_ns = PGCB_BLOCK_TARGET_NS;
        if (pgcb_sdriver_self_timed(c.sd)) {
            w->sums = pgcb_xcalloc(PGCB_BLOCK_MAX, sizeof *w->sums);
            w->block_ns = PGCB_BLOCK_TARGET_SELF_TIMED_NS;
        }
        if (pthread_create(&w->tid, NULL, worker_main, w) != 0)
            child_fail(&c, reply_fd, "cannot start a measuring thread");
    }
    pthread_barrier_wait(&c.end); /* every thread has pinned itself */
    for (uint32_t t = 0; t < c.nthreads; t++)
        if (c.workers[t].pin_rc != 0) {
            snprintf(why, sizeof why, "%s thread %u: %s",
                     strcmp(c.role, "driver") == 0 ? "measuring" : c.role, t + 1,
                     c.workers[t].pin_err);
            child_fail(&c, reply_fd, why);
        }
    char r = 'R';
    if (write(reply_fd, &r, 1) != 1)
        _exit(3);

    for (;;) {
        char cmd;
        ssize_t got = read(cmd_fd, &cmd, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got != 1 || cmd != 'J')
            break; /* 'X' or the runner is gone */
        pthread_barrier_wait(&c.start);
        pthread_barrier_wait(&c.end);
        char done = 'D';
        if (write(reply_fd, &done, 1) != 1)
            break;
    }

    /* Exit: threads first, then the connections, then our own memory. */
    c.exiting = 1;
    pthread_barrier_wait(&c.start);
    for (uint32_t t = 0; t < c.nthreads; t++) {
        struct cworker *w = &c.workers[t];
        pthread_join(w->tid, NULL);
        free(w->samples);
        free(w->sums);
        free(w->values);
        free(w->lengths);
        free(w->arena);
    }
    for (uint32_t t = 0; t < c.nthreads; t++)
        close_conn(&c, t);
    free(c.workers);
    free(c.conns);
    free(c.stmts);
    free(c.txn);
    free(c.bulk);
    _exit(0);
}
