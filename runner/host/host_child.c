/* host_child.c -- see host_child.h: the host process, its pinned measuring
 * threads and the timed blocks. */
#include "host_child.h"

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

#include "measure.h"
#include "sys/memcg.h"
#include "sys/sysinfo.h"
#include "util.h"
#include "server/bulk.h"

/* A worker's block target with `left_ns` of its time budget left: its own
 * target, but no longer than that time (and never under the in-process
 * target), so that a self-timed driver's long blocks do not overrun a small
 * budget. */
static uint64_t block_target(const struct pgcb_hworker *w, uint64_t left_ns)
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
void pgcb_hchild_failed(struct pgcb_hworker *w, struct pgcb_host_thread *ht,
                        const struct pgcb_job *job, int rc, const char *when, const char *why)
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
        pgcb_hconn_close(w->c, w->index);
}

/* Tell the driver what starts (ABI 1.2 phase: an adapter collects garbage),
 * outside any timing. Returns 0, or -1 with the thread failed. */
int pgcb_hchild_phase(struct pgcb_hworker *w, struct pgcb_host_thread *ht,
                      const struct pgcb_job *job, enum pgcb_phase phase)
{
    const struct pgcb_driver *drv = w->c->hd.drv;
    /* A connection job has no connection to tell: each sample opens its own. */
    if (job->connect || !PGCB_DRIVER_HAS(drv, 2, phase))
        return 0;
    char why[PGCB_ERRLEN] = "";
    int rc = drv->phase(w->c->conns[w->index], phase, why, sizeof why);
    atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
    if (rc == PGCB_OK)
        return 0;
    pgcb_hchild_failed(w, ht, job, rc, phase == PGCB_PHASE_WARMUP ? "before the warm-up" :
                  "before the order", why);
    return -1;
}

static void worker_warmup(struct pgcb_hworker *w, struct pgcb_host_thread *ht,
                          const struct pgcb_job *job, struct pgcb_plan *plan, size_t cap)
{
    struct pgcb_hchild *c = w->c;
    const struct pgcb_cfg_query *cq = &c->env->cfg->queries[job->query];
    char why[PGCB_ERRLEN] = "";
    struct pgcb_measured b;
    if (pgcb_hchild_phase(w, ht, job, PGCB_PHASE_WARMUP) != 0)
        return;
    pgcb_hconn_params_draw(w, cq, job->depth, 1);
    /* The first batch sets the group's checksum: one run_batch, even for a
     * self-timed driver (whose run_batch checks every value). */
    struct pgcb_plan first = *plan;
    first.check_rows = first.check_sum = 0;
    first.sums = NULL;
    pgcb_measure_block(&first, 1, w->samples, &b, why, sizeof why);
    atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
    if (b.rc != PGCB_OK) {
        pgcb_hchild_failed(w, ht, job, b.rc, job->connect ? "first connection" : "first batch", why);
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
        pgcb_hconn_params_draw(w, cq, job->depth, n);
        pgcb_measure_block(plan, n, w->samples, &b, why, sizeof why);
        atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
        if (b.rc != PGCB_OK) {
            pgcb_hchild_failed(w, ht, job, b.rc, "warm-up", why);
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
void pgcb_hchild_switches(uint64_t *inv, uint64_t *vol)
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
static void worker_measure(struct pgcb_hworker *w, struct pgcb_host_thread *ht,
                           const struct pgcb_job *job, const struct pgcb_plan *plan, size_t cap)
{
    struct pgcb_hchild *c = w->c;
    const struct pgcb_cfg_query *cq = &c->env->cfg->queries[job->query];
    uint64_t spent = 0, batches = 0;
    char why[PGCB_ERRLEN] = "";
    if (pgcb_hchild_phase(w, ht, job, PGCB_PHASE_ORDER) != 0)
        return;
    uint64_t inv0, vol0, inv1, vol1;
    pgcb_hchild_switches(&inv0, &vol0);

    while ((spent < job->time_floor_ns || batches < job->batch_floor) &&
           !atomic_load(&c->sh->stop)) {
        uint64_t left = 0;
        if (spent >= job->time_floor_ns)
            left = job->batch_floor - batches;
        else if (batches >= job->batch_floor && w->est_ns > 0)
            left = (uint64_t)((double)(job->time_floor_ns - spent) / w->est_ns) + 1;
        /* Once the time floor is met, what is left is `left` batches of the
         * query floor: the worker's own target again (a self-timed driver's
         * 100 ms), capped by them. block_target(w, 0) would be the in-process
         * 10 ms: blocks of one batch for a slow client (psycopg at LIMIT 500,
         * 12 ms a query), and the bridge's exchange per block 13% of them. */
        uint64_t target = spent < job->time_floor_ns ? block_target(w, job->time_floor_ns - spent)
                                                     : w->block_ns;
        size_t n = block_size(target, w->est_ns, left, cap);
        pgcb_hconn_params_draw(w, cq, job->depth, n);
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
        ht->blocks += plan->sums != NULL ? 1 : plan->stream ? b.n : 0;
        if (plan->stream && b.n)
            ht->stream_rows = b.last_rows;
        for (size_t i = 0; plan->stream && i < b.n && ht->nfirst < PGCB_FIRST_MAX; i++)
            ht->first_ns[ht->nfirst++] = w->firsts[i];
        ht->overhead_ns += b.overhead_ns;
        ht->overhead_cpu_ns += b.overhead_cpu_ns;
        if (b.n)
            w->est_ns = (double)b.wall_ns / (double)b.n;
        if (b.rc != PGCB_OK) {
            char when[96];
            snprintf(when, sizeof when, "order %zu, %s %llu", job->order + 1,
                     job->connect ? "connection" : "batch", (unsigned long long)batches + 1);
            pgcb_hchild_failed(w, ht, job, b.rc, when, why);
            break;
        }
    }
    pgcb_hchild_switches(&inv1, &vol1);
    ht->nivcsw += inv1 - inv0;
    ht->nvcsw += vol1 - vol0;
    ht->batches += batches;
}

/* Sleep until CLOCK_MONOTONIC `until_ns`, in slices, keeping the heartbeat
 * fresh; returns early when the background job is stopped. */
static void sleep_until(struct pgcb_hchild *c, struct pgcb_host_thread *ht, uint64_t until_ns)
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
static void worker_background(struct pgcb_hworker *w, struct pgcb_host_thread *ht,
                              const struct pgcb_job *job, const struct pgcb_plan *plan)
{
    struct pgcb_hchild *c = w->c;
    const struct pgcb_cfg_query *cq = &c->env->cfg->queries[job->query];
    const double period = 1e9 / job->rate;
    char why[PGCB_ERRLEN] = "";
    /* Connections spread over the period, not all due at once. */
    uint64_t start = pgcb_now_ns() + (uint64_t)(period * w->index / job->nthreads);
    uint64_t k = 0, done = 0;
    for (;; k++) {
        uint64_t due = start + (uint64_t)(period * (double)k);
        pgcb_hconn_params_draw(w, cq, job->depth, 1);
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
            pgcb_hchild_failed(w, ht, job, rc, when, why);
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

static void run_job(struct pgcb_hworker *w)
{
    struct pgcb_hchild *c = w->c;
    const struct pgcb_job *job = &c->sh->job;
    const struct pgcb_config *cfg = c->env->cfg;
    struct pgcb_host_thread *ht = &c->sh->threads[w->index];
    ht->batches = ht->cpu_ns = ht->rows_bad = ht->sum_bad = ht->elapsed_ns = 0;
    ht->blocks = ht->overhead_ns = ht->overhead_cpu_ns = 0;
    ht->nivcsw = ht->nvcsw = ht->minflt = 0;
    ht->load_wall_ns = ht->late_ns = 0;
    ht->nfirst = 0;
    ht->idiom[0] = '\0';
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
        while (pgcb_hconn_open(c, w->index, 0, why, sizeof why) != 0) {
            atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
            if (pgcb_now_ns() >= until || atomic_load(&c->sh->stop)) {
                pgcb_hchild_failed(w, ht, job, PGCB_ERR_CONNECT, "reconnect", why);
                return;
            }
            usleep(pause_ms * 1000u);
            pause_ms = pause_ms < 800 ? pause_ms * 2 : pause_ms;
        }
        atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
    }
    const struct pgcb_cfg_query *cq = &cfg->queries[job->query];
    struct pgcb_plan plan = {
        .drv = c->hd.drv,
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
        .sums = c->hd.self_timed ? w->sums : NULL, /* loads: w->sums */
    };
    /* A connection job: every sample opens its own connection on the
     * host's connection string (the group's: the session started the host
     * with it) and prepares the statement under the same name as the host's
     * connections do. */
    char stmt_name[80];
    struct pgcb_connect connect = {.conninfo = c->conninfo,
                                   .opts = c->hd.opts, .nopts = c->hd.nopts,
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
        pgcb_hchild_failed(w, ht, job, PGCB_ERR_QUERY, "prepare",
                      c->sh->queries[job->query].err[0] ? c->sh->queries[job->query].err
                                                         : "the statement is not prepared");
        return;
    }
    size_t cap = pgcb_hconn_params_reserve(w, cq, job->depth);
    /* A streaming job: each sample one whole result (measure.h), a few per
     * block, each one's time to first row kept. */
    struct pgcb_stream stream = {.mode = job->result_mode, .fetch = job->fetch_rows};
    if (job->result_mode) {
        plan.stream = &stream;
        plan.sums = NULL;
        plan.firsts = w->firsts;
        plan.idiom = ht->idiom;
        cap = cap && cap < PGCB_STREAM_BLOCK_MAX ? cap : PGCB_STREAM_BLOCK_MAX;
    }
    plan.values = w->values;
    plan.lengths = w->lengths;
    /* Every driver draws the same random stream in the same order of the
     * same group; sequences are shared and go on. */
    pgcb_rng_seed(&w->rng, cfg->seed, job->query, job->group, job->stream, w->index);
    if (job->concurrency && job->kind == PGCB_JOB_WARMUP)
        pgcb_hload_warmup(w, ht, job, &plan, cap);
    else if (job->concurrency && job->kind == PGCB_JOB_MEASURE)
        pgcb_hload_measure(w, ht, job, &plan, cap);
    else if (job->kind == PGCB_JOB_WARMUP)
        worker_warmup(w, ht, job, &plan, cap);
    else if (job->kind == PGCB_JOB_BACKGROUND)
        worker_background(w, ht, job, &plan);
    else
        worker_measure(w, ht, job, &plan, cap);
}

static void *worker_main(void *arg)
{
    struct pgcb_hworker *w = arg;
    struct pgcb_hchild *c = w->c;
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
static void child_fail(struct pgcb_hchild *c, int reply_fd, const char *why)
{
    snprintf(c->sh->err, sizeof c->sh->err, "%s", why);
    char f = 'F';
    if (write(reply_fd, &f, 1) != 1)
        _exit(3);
    _exit(2);
}

void pgcb_host_child_main(struct pgcb_host *h, const struct pgcb_host_env *env,
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
    /* Into the driver's memory cgroup before anything is allocated or
     * started: the processes it starts (adapters) are in it too. */
    if (spec->memcg && pgcb_memcg_join(spec->memcg) != 0) {
        snprintf(h->sh->err, sizeof h->sh->err, "cannot join the memory cgroup %s: %s",
                 spec->memcg->dir, strerror(errno));
        char f = 'F';
        _exit(write(reply_fd, &f, 1) == 1 ? 2 : 3);
    }
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    /* Tag our connections (libpq, rawwire and the bridge read PGAPPNAME)
     * so that the runner can end what they leave running if we die. */
    char tag[PGCB_HOST_TAG_LEN];
    pgcb_host_tag(tag, sizeof tag, getppid(), getpid());
    if (tag[0])
        setenv("PGAPPNAME", tag, 1);

    struct pgcb_hchild c = {.env = env, .hd = spec->drv, .sh = h->sh, .nthreads = spec->nthreads,
                      .role = spec->role, .conninfo = spec->conninfo ? spec->conninfo : "",
                      .pool = spec->pool};
    size_t nq = env->cfg->nqueries;
    c.conns = pgcb_xcalloc(c.nthreads, sizeof *c.conns);
    c.stmts = pgcb_xcalloc((size_t)c.nthreads * (nq ? nq : 1), sizeof *c.stmts);
    c.txn = pgcb_xcalloc((size_t)c.nthreads * 2, sizeof *c.txn);
    c.bulk = pgcb_xcalloc((size_t)c.nthreads * (nq ? nq : 1) * BULK_NSTMTS, sizeof *c.bulk);
    memset(h->sh->queries, 0, (nq ? nq : 1) * sizeof *h->sh->queries);
    char why[PGCB_ERRLEN + 256];
    for (uint32_t t = 0; t < c.nthreads; t++)
        if (pgcb_hconn_open(&c, t, check_rows, why, sizeof why) != 0)
            child_fail(&c, reply_fd, why);

    c.workers = pgcb_xcalloc(c.nthreads, sizeof *c.workers);
    pthread_barrier_init(&c.start, NULL, c.nthreads + 1);
    pthread_barrier_init(&c.end, NULL, c.nthreads + 1);
    for (uint32_t t = 0; t < c.nthreads; t++) {
        struct pgcb_hworker *w = &c.workers[t];
        w->c = &c;
        w->index = t;
        w->cpu = spec->cpus[t % spec->ncpus];
        w->samples = pgcb_xcalloc(PGCB_BLOCK_MAX, sizeof *w->samples);
        w->block_ns = PGCB_BLOCK_TARGET_NS;
        if (c.pool) /* a load's sums, one per query */
            w->sums = pgcb_xcalloc(PGCB_BLOCK_MAX, sizeof *w->sums);
        if (c.hd.self_timed) {
            if (!w->sums)
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
        struct pgcb_hworker *w = &c.workers[t];
        pthread_join(w->tid, NULL);
        free(w->samples);
        free(w->sums);
        free(w->values);
        free(w->lengths);
        free(w->arena);
    }
    for (uint32_t t = 0; t < c.nthreads; t++)
        pgcb_hconn_close(&c, t);
    free(c.workers);
    free(c.conns);
    free(c.stmts);
    free(c.txn);
    free(c.bulk);
    _exit(0);
}
