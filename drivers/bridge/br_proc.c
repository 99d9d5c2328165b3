/* br_proc.c -- see br_proc.h. */
#include "br_proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The file execve() should run for `name`: itself when it has a slash,
 * else the first executable PATH entry. Returns a malloc'd path or NULL. */
static char *br_resolve(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char buf[4096];
        if (len == 0)
            snprintf(buf, sizeof buf, "./%s", name);
        else
            snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, name);
        struct stat st;
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
            return strdup(buf);
        if (!end)
            return NULL;
        p = end + 1;
    }
}

/* The adapter's environment: ours without the passwords it might hold
 * (PGPASSWORD, PGCB_CONNINFO: the bridge resolves the conninfo and hands
 * the adapter what it needs) and our own two variables, then those two. A malloc'd array of pointers into environ
 * and into `own` (which the caller keeps until the exec). */
static char **br_env(char own[2][64], int protocol)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 3, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "PGPASSWORD=", 11) != 0 &&
            strncmp(environ[i], "PGCB_CONNINFO=", 14) != 0 &&
            strncmp(environ[i], "PGCB_BRIDGE_FD=", 15) != 0 &&
            strncmp(environ[i], "PGCB_BRIDGE_PROTOCOL=", 21) != 0)
            env[k++] = environ[i];
    snprintf(own[0], 64, "PGCB_BRIDGE_FD=3");
    snprintf(own[1], 64, "PGCB_BRIDGE_PROTOCOL=%d", protocol);
    env[k++] = own[0];
    env[k++] = own[1];
    env[k] = NULL;
    return env;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void br_child(const char *file, char *const argv[], char **env, int sock, int out,
                     int errpipe) __attribute__((noreturn));
static void br_child(const char *file, char *const argv[], char **env, int sock, int out,
                     int errpipe)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* Its own process group: a SIGTERM or Ctrl-C to the runner's group
     * (timeout(1), systemd, a terminal) must not kill the client mid-order;
     * the runner stops the run between blocks, and the adapter dies with
     * its host (PDEATHSIG) or at close. */
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    /* Move what we keep above 0..4 first, so that no dup2 below clobbers it. */
    int s = fcntl(sock, F_DUPFD_CLOEXEC, 10), o = fcntl(out, F_DUPFD_CLOEXEC, 10);
    int ep = fcntl(errpipe, F_DUPFD_CLOEXEC, 10);
    int e = errno;
    if (ep < 0)
        _exit(127);
    if (devnull < 0 || s < 0 || o < 0)
        goto fail;
    if (dup2(devnull, 0) < 0 || dup2(o, 1) < 0 || dup2(o, 2) < 0 || dup2(s, 3) < 0 ||
        dup2(ep, 4) < 0 || fcntl(4, F_SETFD, FD_CLOEXEC) < 0) {
        e = errno;
        goto fail;
    }
    ep = 4;
    /* Every other descriptor of the host (its pipes, other connections). */
    close_range(5, ~0u, 0);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(file, argv, env);
    e = errno;
fail:
    if (write(ep, &e, sizeof e) < 0)
        _exit(127);
    _exit(127);
}

int br_proc_start(struct br_proc *p, char *const argv[], int protocol, char *err, size_t errlen)
{
    *p = (struct br_proc){.sock = -1, .out = -1};
    char *file = br_resolve(argv[0]);
    if (!file) {
        snprintf(err, errlen, "cannot run '%s': %s", argv[0],
                 strchr(argv[0], '/') ? strerror(errno) : "not found in PATH");
        return -1;
    }
    int sv[2] = {-1, -1}, op[2] = {-1, -1}, ep[2] = {-1, -1};
    char own[2][64];
    char **env = br_env(own, protocol);
    if (!env || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
        pipe2(op, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot start '%s': %s", argv[0], strerror(errno));
        goto fail;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start '%s': fork: %s", argv[0], strerror(errno));
        goto fail;
    }
    if (pid == 0)
        br_child(file, argv, env, sv[1], op[1], ep[1]);
    close(sv[1]);
    close(op[1]);
    close(ep[1]);
    sv[1] = op[1] = ep[1] = -1;
    int child_errno = 0;
    ssize_t got;
    do
        got = read(ep[0], &child_errno, sizeof child_errno);
    while (got < 0 && errno == EINTR);
    close(ep[0]);
    ep[0] = -1;
    p->pid = pid;
    p->sock = sv[0];
    p->out = op[0];
    fcntl(p->out, F_SETFL, fcntl(p->out, F_GETFL) | O_NONBLOCK);
    if (got == (ssize_t)sizeof child_errno) {
        snprintf(err, errlen, "cannot run '%s': %s", file, strerror(child_errno));
        br_proc_stop(p, 1000);
        free(file);
        free(env);
        return -1;
    }
    p->have_cpu_clock = clock_getcpuclockid(pid, &p->cpu_clock) == 0;
    free(file);
    free(env);
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0)
            close(sv[i]);
        if (op[i] >= 0)
            close(op[i]);
        if (ep[i] >= 0)
            close(ep[i]);
    }
    free(file);
    free(env);
    return -1;
}

void br_proc_drain(struct br_proc *p)
{
    char buf[4096];
    while (p->out >= 0) {
        ssize_t n = read(p->out, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                close(p->out);
                p->out = -1;
            }
            return;
        }
        for (ssize_t i = 0; i < n; i++) {
            p->tail[p->tail_at] = buf[i];
            p->tail_at = (p->tail_at + 1) % BR_TAIL;
            if (p->tail_len < BR_TAIL)
                p->tail_len++;
        }
    }
}

void br_proc_last_line(const struct br_proc *p, char *buf, size_t n)
{
    char lin[BR_TAIL + 1];
    size_t start = (p->tail_at + BR_TAIL - p->tail_len) % BR_TAIL;
    for (size_t i = 0; i < p->tail_len; i++)
        lin[i] = p->tail[(start + i) % BR_TAIL];
    size_t len = p->tail_len;
    /* Drop trailing blank lines, then take the last line. */
    while (len > 0 && (lin[len - 1] == '\n' || lin[len - 1] == '\r' || lin[len - 1] == ' '))
        len--;
    size_t b = len;
    while (b > 0 && lin[b - 1] != '\n')
        b--;
    size_t k = 0;
    for (size_t i = b; i < len && k + 1 < n; i++)
        buf[k++] = (unsigned char)lin[i] < 0x20 ? ' ' : lin[i];
    if (n)
        buf[k] = '\0';
}

static int br_reap(struct br_proc *p, int options)
{
    if (p->pid <= 0)
        return 1;
    int st;
    pid_t r;
    do
        r = waitpid(p->pid, &st, options);
    while (r < 0 && errno == EINTR);
    if (r == p->pid || (r < 0 && errno == ECHILD)) {
        /* A profiled run's node wrote its JIT map (br_config.c): it grows
         * with the process and is of no use once the process is gone (the
         * runner folded its recordings before it stops a host). */
        const char *prof = getenv("PGCB_PROFILE");
        if (prof && strcmp(prof, "1") == 0) {
            char map[64];
            snprintf(map, sizeof map, "/tmp/perf-%d.map", (int)p->pid);
            unlink(map);
        }
        p->exited = 1;
        p->status = r == p->pid ? st : 0;
        p->pid = 0;
        return 1;
    }
    return 0;
}

void br_proc_stop(struct br_proc *p, int wait_ms)
{
    if (p->sock >= 0) {
        close(p->sock);
        p->sock = -1;
    }
    for (int waited = 0; p->pid > 0; waited += 10) {
        br_proc_drain(p);
        if (br_reap(p, WNOHANG))
            break;
        if (waited >= wait_ms) {
            kill(p->pid, SIGKILL);
            br_reap(p, 0);
            break;
        }
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    br_proc_drain(p);
    if (p->out >= 0) {
        close(p->out);
        p->out = -1;
    }
}

void br_proc_how(struct br_proc *p, char *buf, size_t n)
{
    if (p->pid > 0)
        br_reap(p, WNOHANG);
    if (p->pid > 0) {
        snprintf(buf, n, "is still running");
    } else if (WIFSIGNALED(p->status)) {
        int sig = WTERMSIG(p->status);
        const char *abbrev = sigabbrev_np(sig);
        snprintf(buf, n, "was killed by SIG%s (%s)", abbrev ? abbrev : "?", strsignal(sig));
    } else if (WIFEXITED(p->status)) {
        snprintf(buf, n, "exited with status %d", WEXITSTATUS(p->status));
    } else {
        snprintf(buf, n, "ended");
    }
}

int br_proc_pin(struct br_proc *p, char *err, size_t errlen)
{
    cpu_set_t want;
    CPU_ZERO(&want);
    if (sched_getaffinity(0, sizeof want, &want) != 0) {
        snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
        return -1;
    }
    if (p->have_pinned && CPU_EQUAL(&want, &p->pinned))
        return 0;
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)p->pid);
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot pin the adapter: %s: %s", dir, strerror(errno));
        return -1;
    }
    /* Over the threads until a pass finds every one pinned: a thread started
     * while we pinned the others may have been created by one not pinned yet
     * (threads inherit their creator's affinity). */
    int rc = 0, changed = 1;
    for (int pass = 0; changed && rc == 0; pass++) {
        if (pass == 50) {
            snprintf(err, errlen, "cannot pin the adapter: its threads keep changing");
            rc = -1;
            break;
        }
        changed = 0;
        rewinddir(d);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9')
                continue;
            pid_t tid = (pid_t)atoi(e->d_name);
            cpu_set_t has;
            CPU_ZERO(&has);
            if (sched_getaffinity(tid, sizeof has, &has) == 0 && CPU_EQUAL(&has, &want))
                continue;
            changed = 1;
            if (sched_setaffinity(tid, sizeof want, &want) != 0 && errno != ESRCH) {
                snprintf(err, errlen, "cannot pin the adapter's thread %d: %s", (int)tid,
                         strerror(errno));
                rc = -1;
                break;
            }
        }
    }
    closedir(d);
    if (rc == 0) {
        p->pinned = want;
        p->have_pinned = 1;
    }
    return rc;
}

uint64_t br_proc_cpu_ns(const struct br_proc *p)
{
    struct timespec ts;
    if (!p->have_cpu_clock || p->pid <= 0 || clock_gettime(p->cpu_clock, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
