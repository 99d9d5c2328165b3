/*
 * perfrec.h -- perf as the runner uses it (issue 28, docs/profiling.md):
 * whether it can record at all, one `perf record` process attached to a set
 * of pids and switched on and off through its control fifo, and the folding
 * of its perf.data by `perf script -s fold.py` (the viewer half's script).
 *
 * Every perf process is a child of the runner in a process group of its own
 * (so that the terminal's Ctrl-C reaches the runner, which stops it), with
 * its output in a log file; the runner waits for each with a bound and
 * kills it past that. A perf that dies is never an error of the run: the
 * calls return -1 with `failed` saying why, and the caller marks the profile
 * failed. Nothing here runs inside a timed block: the enable and disable
 * acknowledgements are awaited before a job is sent and after it answered.
 */
#ifndef PGCB_PERFREC_H
#define PGCB_PERFREC_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* What every recording of a run is made with. */
struct pgcb_perf_opts {
    const char *perf;          /* the program: $PGCB_PERF, else "perf" (PATH) */
    const char *event;         /* "cpu-clock" */
    unsigned frequency;        /* Hz */
    const char *call_graph;    /* "dwarf,16384" */
};

/* The program: $PGCB_PERF when set and not empty, else "perf". */
const char *pgcb_perf_program(void);

/* Can perf record here, as this user? A 0.1 s `perf record` of a sleeping
 * child with opts. Returns 0, or -1 with one line in why saying what to
 * install (apt-get install linux-perf) or set (sysctl
 * kernel.perf_event_paranoid=...), with perf's own words. */
int pgcb_perf_check(const struct pgcb_perf_opts *opts, char *why, size_t n);

struct pgcb_perfrec {
    pid_t pid;                 /* 0: not running (never started, or reaped) */
    int ctl_fd, ack_fd;        /* the control fifos, both opened read-write; -1: closed */
    int enabled;               /* events on */
    int waited_ready;          /* perf acknowledged once */
    char fifo_dir[64];         /* a mkdtemp directory holding ctl and ack */
    char out[PATH_MAX];        /* perf.data */
    char log[PATH_MAX];        /* perf's stdout and stderr */
    char failed[512];          /* "" or why the recording failed */
};

/* Start `perf record -e EVENT -F FREQ --call-graph CG -D -1 --control
 * fifo:CTL,ACK -o out -p PIDS`, events off; its output to `log`. Returns 0,
 * or -1 with p->failed set (nothing runs then). p is overwritten. */
int pgcb_perfrec_start(struct pgcb_perfrec *p, const struct pgcb_perf_opts *opts,
                       const int *pids, size_t npids, const char *out, const char *log);

/* Switch the events on / off and wait for perf's acknowledgement (the first
 * time up to 20 s, perf may still be starting; then 5 s). Returns 0, or -1
 * with p->failed set: perf exited (its log's last line says why) or did not
 * answer (it is killed then). No-ops returning -1 once failed. */
int pgcb_perfrec_enable(struct pgcb_perfrec *p);
int pgcb_perfrec_disable(struct pgcb_perfrec *p);

/* Stop the recording: SIGINT, up to 60 s for perf to write its file, then
 * SIGKILL. Returns 0 when perf exited by itself with status 0 (or at the
 * SIGINT), else -1 with p->failed set. Closes and removes the fifos.
 * Accepts a recording that failed or never started. */
int pgcb_perfrec_stop(struct pgcb_perfrec *p);

/* Run argv (argv[0] looked up in PATH) to its end, its output appended to
 * log, up to timeout_ms (then killed). Returns 0 when it exited with status
 * 0, else -1 with one line in why (its last line of output included). */
int pgcb_perf_run(char *const argv[], const char *log, int timeout_ms, char *why, size_t n);

/* `perf script --no-inline -i data -s fold_py -- prefix` (the contract with fold.py: it
 * writes prefix.folded and prefix.top.tsv), its output appended to log, up
 * to 600 s. Returns 0, or -1 with one line in why. */
int pgcb_perf_fold(const char *perf, const char *fold_py, const char *data, const char *prefix,
                   const char *log, char *why, size_t n);

#endif
