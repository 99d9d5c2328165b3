/*
 * br_proc.h -- the adapter process of one bridge connection: start it with
 * the protocol socket on fd 3 and its output on a pipe, keep the tail of
 * what it prints, pin its threads, read its CPU clock, stop it and say how
 * it ended (docs/bridge-protocol.md, "The process").
 *
 * Ownership: a struct br_proc owns the process and both descriptors until
 * br_proc_stop(). Nothing here prints or allocates after br_proc_start().
 */
#ifndef BR_PROC_H
#define BR_PROC_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Bytes of the adapter's output kept for error messages. */
#define BR_TAIL 2048

struct br_proc {
    pid_t pid;            /* 0: not running (or reaped) */
    int sock;             /* our end of the protocol socket; -1 when closed */
    int out;              /* read end of the adapter's stdout+stderr; -1 at EOF */
    clockid_t cpu_clock;  /* the adapter's process CPU clock */
    int have_cpu_clock;
    cpu_set_t pinned;     /* the affinity its threads were last given */
    int have_pinned;
    char tail[BR_TAIL];   /* the last bytes it printed, a ring */
    size_t tail_len;      /* bytes in the ring (<= BR_TAIL) */
    size_t tail_at;       /* where the next byte goes */
    int exited, status;   /* reaped: waitpid() status */
};

/* Start argv[0] (looked up in PATH) with argv, fd 3 the protocol socket,
 * fd 0 /dev/null, fds 1 and 2 the output pipe, the environment without
 * PGPASSWORD and PGCB_CONNINFO plus PGCB_BRIDGE_FD=3 and PGCB_BRIDGE_PROTOCOL=`protocol`,
 * dying with the calling thread (PR_SET_PDEATHSIG). Returns 0, or -1 with
 * err ("cannot run 'node': No such file or directory"). */
int br_proc_start(struct br_proc *p, char *const argv[], int protocol, char *err, size_t errlen);

/* Read whatever the adapter printed into the tail (non-blocking). */
void br_proc_drain(struct br_proc *p);

/* The last non-empty line of the tail, at most n - 1 bytes, into buf
 * ("" if nothing was printed). Control characters become spaces. */
void br_proc_last_line(const struct br_proc *p, char *buf, size_t n);

/* Reap the adapter, waiting up to wait_ms (0: do not wait) for it to exit,
 * then kill it (SIGKILL) and reap it. Closes the socket first. */
void br_proc_stop(struct br_proc *p, int wait_ms);

/* How it ended, for a message: "exited with status 1", "was killed by
 * SIGSEGV (Segmentation fault)", "is still running". Reaps it if it has
 * exited (without waiting). */
void br_proc_how(struct br_proc *p, char *buf, size_t n);

/* Pin every thread of the adapter to the calling thread's CPU affinity,
 * if that changed since the last call. 0, or -1 with err. */
int br_proc_pin(struct br_proc *p, char *err, size_t errlen);

/* The adapter's process CPU time (all threads), ns; 0 if unknown. */
uint64_t br_proc_cpu_ns(const struct br_proc *p);

#endif
