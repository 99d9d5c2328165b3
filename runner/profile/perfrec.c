/*
 * perfrec.c -- see perfrec.h. perf's control fifo protocol (perf-record(1),
 * --control): the runner writes "enable\n" or "disable\n" to CTL, perf
 * answers "ack\n" on ACK once done. Both fifos are opened O_RDWR here so
 * that neither open blocks whether or not perf has opened its end yet.
 */
#include "perfrec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char *pgcb_perf_program(void)
{
    const char *p = getenv("PGCB_PERF");
    return p && *p ? p : "perf";
}

/* Fork argv (argv[0] looked up in PATH) in a process group of its own,
 * stdin /dev/null, stdout and stderr appended to log. Returns the pid, or
 * -1 with errno. A program that cannot be run exits 127 (its reason in the
 * log). */
static pid_t spawn(char *const argv[], const char *log)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in >= 0)
        dup2(in, 0);
    if (out >= 0) {
        dup2(out, 1);
        dup2(out, 2);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Wait up to ms for pid: 1 exited (*status set), 0 still running. */
static int wait_for(pid_t pid, int ms, int *status)
{
    for (int waited = 0;; waited += 20) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return 1;
        if (waited >= ms)
            return 0;
        usleep(20000);
    }
}

/* The last non-empty line of a log file (perf's last word), in buf. */
static const char *last_line(const char *log, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(log, "r");
    if (!f)
        return buf;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            snprintf(buf, n, "%.300s", line);
    }
    fclose(f);
    return buf;
}

static void describe_status(int st, char *buf, size_t n)
{
    if (WIFSIGNALED(st))
        snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (WIFEXITED(st))
        snprintf(buf, n, "exited with status %d", WEXITSTATUS(st));
    else
        snprintf(buf, n, "ended");
}

static int paranoid_level(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int v = 2;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = 2;
        fclose(f);
    }
    return v;
}

int pgcb_perf_check(const struct pgcb_perf_opts *o, char *why, size_t n)
{
    char dir[] = "/tmp/pgcb-perfcheck-XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(why, n, "cannot make a directory for perf's test recording: %s",
                 strerror(errno));
        return -1;
    }
    char data[96], log[96], freq[16];
    snprintf(data, sizeof data, "%s/check.data", dir);
    snprintf(log, sizeof log, "%s/check.log", dir);
    snprintf(freq, sizeof freq, "%u", o->frequency);
    char *argv[] = {(char *)o->perf, "record", "-q", "--no-buildid-cache", "-e",
                    (char *)o->event, "-F", freq, "--call-graph", (char *)o->call_graph, "-o",
                    data, "--", "sleep", "0.1", NULL};
    int st = 0, rc = -1;
    pid_t pid = spawn(argv, log);
    if (pid < 0) {
        snprintf(why, n, "cannot start perf: %s", strerror(errno));
    } else if (!wait_for(pid, 20000, &st)) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        snprintf(why, n, "a 0.1 s test recording with %s did not end within 20 s", o->perf);
    } else {
        struct stat sb;
        char said[400];
        last_line(log, said, sizeof said);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && stat(data, &sb) == 0 && sb.st_size > 0)
            rc = 0;
        else if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
            snprintf(why, n, "perf cannot be run (%s): install it (apt-get install "
                     "linux-perf), or set PGCB_PERF to its path", said[0] ? said : o->perf);
        else if (strstr(said, "not found for kernel") || strstr(said, "linux-perf"))
            snprintf(why, n, "perf is not installed for this kernel (%s): apt-get install "
                     "linux-perf", said);
        else if (geteuid() != 0 && paranoid_level() > 1)
            snprintf(why, n, "perf may not record (kernel.perf_event_paranoid = %d): sysctl "
                     "kernel.perf_event_paranoid=1 (the backends of another user need -1 "
                     "or root); perf said: %s", paranoid_level(), said);
        else
            snprintf(why, n, "a test recording (%s record -e %s) failed: %s", o->perf,
                     o->event, said[0] ? said : "no output");
    }
    unlink(data);
    unlink(log);
    char old[128];
    snprintf(old, sizeof old, "%s.old", data);
    unlink(old);
    rmdir(dir);
    return rc;
}

static void close_fifos(struct pgcb_perfrec *p)
{
    if (p->ctl_fd >= 0)
        close(p->ctl_fd);
    if (p->ack_fd >= 0)
        close(p->ack_fd);
    p->ctl_fd = p->ack_fd = -1;
    if (p->fifo_dir[0]) {
        char f[96];
        snprintf(f, sizeof f, "%s/ctl", p->fifo_dir);
        unlink(f);
        snprintf(f, sizeof f, "%s/ack", p->fifo_dir);
        unlink(f);
        rmdir(p->fifo_dir);
        p->fifo_dir[0] = '\0';
    }
}

/* Record why the recording failed (the first reason stays). */
static void fail(struct pgcb_perfrec *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fail(struct pgcb_perfrec *p, const char *fmt, ...)
{
    if (p->failed[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->failed, sizeof p->failed, fmt, ap);
    va_end(ap);
}

int pgcb_perfrec_start(struct pgcb_perfrec *p, const struct pgcb_perf_opts *o, const int *pids,
                       size_t npids, const char *out, const char *log)
{
    *p = (struct pgcb_perfrec){.ctl_fd = -1, .ack_fd = -1};
    snprintf(p->out, sizeof p->out, "%s", out);
    snprintf(p->log, sizeof p->log, "%s", log);
    if (npids == 0) {
        fail(p, "no process to record");
        return -1;
    }
    snprintf(p->fifo_dir, sizeof p->fifo_dir, "/tmp/pgcb-perfctl-XXXXXX");
    if (!mkdtemp(p->fifo_dir)) {
        p->fifo_dir[0] = '\0';
        fail(p, "cannot make the control fifos' directory: %s", strerror(errno));
        return -1;
    }
    char ctl[96], ack[96], control[200], freq[16];
    snprintf(ctl, sizeof ctl, "%s/ctl", p->fifo_dir);
    snprintf(ack, sizeof ack, "%s/ack", p->fifo_dir);
    if (mkfifo(ctl, 0600) != 0 || mkfifo(ack, 0600) != 0 ||
        (p->ctl_fd = open(ctl, O_RDWR | O_CLOEXEC)) < 0 ||
        (p->ack_fd = open(ack, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0) {
        fail(p, "cannot make perf's control fifos: %s", strerror(errno));
        close_fifos(p);
        return -1;
    }
    snprintf(control, sizeof control, "fifo:%s,%s", ctl, ack);
    snprintf(freq, sizeof freq, "%u", o->frequency);
    size_t cap = npids * 12 + 1;
    char *list = pgcb_xcalloc(cap, 1);
    for (size_t i = 0; i < npids; i++)
        snprintf(list + strlen(list), cap - strlen(list), "%s%d", i ? "," : "", pids[i]);
    /* --no-buildid-cache: perf would copy every binary it saw (node, each
     * rebuilt .so) into ~/.debug, which grew past 100 MB here. */
    char *argv[] = {(char *)o->perf, "record", "-q", "--no-buildid-cache", "-e",
                    (char *)o->event, "-F", freq, "--call-graph", (char *)o->call_graph, "-D",
                    "-1", "--control", control, "-o", p->out, "-p", list, NULL};
    unlink(p->log);
    p->pid = spawn(argv, p->log);
    free(list);
    if (p->pid < 0) {
        p->pid = 0;
        fail(p, "cannot start perf: %s", strerror(errno));
        close_fifos(p);
        return -1;
    }
    return 0;
}

/* perf is gone (st: how), or not answering: fail with its last word. */
static void gone(struct pgcb_perfrec *p, int st)
{
    char how[96], said[400];
    describe_status(st, how, sizeof how);
    last_line(p->log, said, sizeof said);
    fail(p, "perf %s%s%s", how, said[0] ? ": " : "", said);
    p->pid = 0;
    close_fifos(p);
}

/* Send cmd and wait up to ms for "ack". */
static int command(struct pgcb_perfrec *p, const char *cmd, int ms)
{
    if (p->failed[0] || p->pid <= 0)
        return -1;
    char buf[64];
    while (read(p->ack_fd, buf, sizeof buf) > 0) /* nothing stale */
        ;
    size_t len = strlen(cmd);
    if (write(p->ctl_fd, cmd, len) != (ssize_t)len) {
        fail(p, "cannot write to perf's control fifo: %s", strerror(errno));
        return -1;
    }
    for (int waited = 0; waited < ms; waited += 50) {
        struct pollfd pfd = {.fd = p->ack_fd, .events = POLLIN};
        if (poll(&pfd, 1, 50) > 0 && read(p->ack_fd, buf, sizeof buf) > 0) {
            p->waited_ready = 1;
            return 0;
        }
        int st;
        if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
            gone(p, st);
            return -1;
        }
    }
    kill(p->pid, SIGKILL);
    int st;
    waitpid(p->pid, &st, 0);
    p->pid = 0;
    close_fifos(p);
    fail(p, "perf did not acknowledge '%.*s' within %d ms: killed", (int)len - 1, cmd, ms);
    return -1;
}

int pgcb_perfrec_enable(struct pgcb_perfrec *p)
{
    if (command(p, "enable\n", p->waited_ready ? 5000 : 20000) != 0)
        return -1;
    p->enabled = 1;
    return 0;
}

int pgcb_perfrec_disable(struct pgcb_perfrec *p)
{
    if (command(p, "disable\n", 5000) != 0)
        return -1;
    p->enabled = 0;
    return 0;
}

int pgcb_perfrec_stop(struct pgcb_perfrec *p)
{
    if (p->pid > 0) {
        int st = 0;
        if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
            /* It ended by itself before the stop: its processes exited (a
             * host that crashed; status 0, the file written), or it failed. */
            if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
                gone(p, st);
            p->pid = 0;
        } else {
            kill(p->pid, SIGINT);
            if (!wait_for(p->pid, 60000, &st)) {
                kill(p->pid, SIGKILL);
                waitpid(p->pid, &st, 0);
                fail(p, "perf did not write its file within 60 s of SIGINT: killed");
            } else if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) &&
                       !(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT)) {
                gone(p, st);
            }
            p->pid = 0;
        }
    }
    close_fifos(p);
    return p->failed[0] ? -1 : 0;
}

int pgcb_perf_run(char *const argv[], const char *log, int timeout_ms, char *why, size_t n)
{
    int st = 0;
    pid_t pid = spawn(argv, log);
    if (pid < 0) {
        snprintf(why, n, "cannot start %s: %s", argv[0], strerror(errno));
        return -1;
    }
    if (!wait_for(pid, timeout_ms, &st)) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        snprintf(why, n, "%s did not end within %d s: killed", argv[0], timeout_ms / 1000);
        return -1;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    char how[96], said[400];
    describe_status(st, how, sizeof how);
    last_line(log, said, sizeof said);
    snprintf(why, n, "%s %s%s%s", argv[0], how, said[0] ? ": " : "", said);
    return -1;
}

int pgcb_perf_fold(const char *perf, const char *fold_py, const char *data, const char *prefix,
                   const char *log, char *why, size_t n)
{
    /* fold.py's header: "--" is perf's, the script gets prefix alone as its
     * argv[1] even if it starts with '-'; --no-inline, or perf 6.1 asks
     * addr2line for the inlined frames of every frame of a binary with debug
     * info (node's: 104 s instead of 1 s for 3 s of a client). */
    char *argv[] = {(char *)perf, "script", "--no-inline", "-i", (char *)data, "-s",
                    (char *)fold_py, "--", (char *)prefix, NULL};
    return pgcb_perf_run(argv, log, 600000, why, n);
}
