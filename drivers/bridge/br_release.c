/*
 * br_release.c -- `client = NAME@RELEASE`: a client at a release of its own
 * registry, installed once into its own directory by the adapter's
 * release script, then run like the shipped one (docs/clients.md,
 * "Releases side by side").
 *
 * The contract with ADAPTERS/LANG/release.sh NAME RELEASE DEST (each
 * adapter's README says what it installs):
 *   - exit 0: DEST holds the release, and DEST/.pgcb-release exists; DEST
 *     is either a module directory (node: DEST/node_modules; python: DEST
 *     first on sys.path), handed to the adapter as hello's module_dir, or
 *     holds an executable DEST/adapter, the whole adapter built or set up
 *     for that release (go, rust, java), run instead of the shipped one;
 *   - exit non-zero: the last line it wrote (stdout or stderr) says why,
 *     naming the registry and its answer; the bridge quotes that line.
 *     Exit 2: the registry answered that it has no such release (the
 *     config is wrong: the run is refused); any other: the release exists
 *     but could not be installed or built here, or the registry could not
 *     be asked (only that driver's cells fail).
 * The script is idempotent and safe to run concurrently (it locks DEST);
 * the bridge does not even start it when the stamp is there.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "br_release.h"

/* A release is a registry's version string: letters, digits and . _ + -
 * (semver, PEP 440, Go's v-prefixed versions, Maven's), 1 to 64 of them,
 * starting with a letter or digit. */
static int br_release_ok(const char *r)
{
    size_t n = strlen(r);
    if (n == 0 || n > 64 || !(r[0] == 'v' || (r[0] >= '0' && r[0] <= '9') ||
                              (r[0] >= 'a' && r[0] <= 'z') || (r[0] >= 'A' && r[0] <= 'Z')))
        return 0;
    for (const char *p = r; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              *p == '.' || *p == '_' || *p == '+' || *p == '-'))
            return 0;
    return 1;
}

int br_release_split(const char *client, char **name, char **release, char *err, size_t errlen)
{
    *name = *release = NULL;
    const char *at = strrchr(client, '@');
    /* A leading @ is an npm scope (@scope/pkg), not a release. */
    if (!at || at == client)
        return 0;
    if (!br_release_ok(at + 1)) {
        snprintf(err, errlen, "client = '%s': '%s' is not a release (letters, digits and . _ + -, "
                 "as the registry spells it)", client, at + 1);
        return -1;
    }
    *name = strndup(client, (size_t)(at - client));
    *release = strdup(at + 1);
    if (!*name || !*release) {
        free(*name);
        free(*release);
        *name = *release = NULL;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 1;
}

/* The last non-empty line of buf (n bytes) into out. */
static void br_last_line(const char *buf, size_t n, char *out, size_t outlen)
{
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
        n--;
    size_t start = n;
    while (start > 0 && buf[start - 1] != '\n')
        start--;
    snprintf(out, outlen, "%.*s", (int)(n - start), buf + start);
}

/* Run argv with stdin from /dev/null and stdout + stderr into one pipe,
 * keeping the output's last 16 KiB in tail; its exit status (as waitpid), or
 * -1 with errno. */
static int br_run_script(char *const argv[], char *tail, size_t taillen, size_t *tail_n)
{
    int fds[2];
    *tail_n = 0;
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        signal(SIGPIPE, SIG_DFL);
        execv(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    char chunk[4096];
    ssize_t r;
    while ((r = read(fds[0], chunk, sizeof chunk)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        size_t k = (size_t)r;
        if (*tail_n + k > taillen) {  /* keep the end: drop the oldest bytes */
            size_t drop = *tail_n + k - taillen;
            if (drop > *tail_n)
                drop = *tail_n;
            memmove(tail, tail + drop, *tail_n - drop);
            *tail_n -= drop;
        }
        if (k > taillen)
            k = taillen;
        memcpy(tail + *tail_n, chunk + (size_t)r - k, k);
        *tail_n += k;
    }
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

int br_release_install(const char *adapters_dir, const char *lang, const char *name,
                       const char *release, char **dest_out, char *err, size_t errlen)
{
    *dest_out = NULL;
    char *script = NULL, *dest = NULL, *stamp = NULL;
    int rc = -1;
    if (asprintf(&script, "%s/%s/release.sh", adapters_dir, lang) < 0)
        script = NULL;
    /* build/adapters -> build/releases/LANG/NAME@RELEASE (NAME's / of an
     * npm scope or a Go module path made a -). */
    char *flat = strdup(name);
    for (char *p = flat; p && *p; p++)
        if (*p == '/')
            *p = '-';
    /* The build directory, resolved: messages name build/releases/..., not
     * build/adapters/../releases/... */
    char *adir = realpath(adapters_dir, NULL);
    char *top = adir ? strdup(adir) : NULL;
    char *slash = top ? strrchr(top, '/') : NULL;
    if (slash)
        *(slash == top ? slash + 1 : slash) = '\0';
    if (flat && top && asprintf(&dest, "%s/releases/%s/%s@%s", top, lang, flat, release) < 0)
        dest = NULL;
    free(adir);
    free(top);
    free(flat);
    if (dest && asprintf(&stamp, "%s/.pgcb-release", dest) < 0)
        stamp = NULL;
    if (!script || !dest || !stamp) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    struct stat st;
    if (stat(stamp, &st) == 0) {
        rc = 0;
        goto out;
    }
    if (stat(script, &st) != 0 || !(st.st_mode & S_IXUSR)) {
        snprintf(err, errlen, "client = %s@%s: adapter %s installs no releases (%s: %s)", name,
                 release, lang, script, errno ? strerror(errno) : "not executable");
        goto out;
    }
    char *argv[] = {script, (char *)name, (char *)release, dest, NULL};
    char tail[16384];
    size_t n;
    int status = br_run_script(argv, tail, sizeof tail, &n);
    if (status == -1) {
        snprintf(err, errlen, "client = %s@%s: cannot run %s: %s", name, release, script,
                 strerror(errno));
        goto out;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || stat(stamp, &st) != 0) {
        char line[512];
        br_last_line(tail, n, line, sizeof line);
        snprintf(err, errlen, "client = %s@%s: %s", name, release,
                 line[0] ? line : "the release script failed and said nothing");
        if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
            rc = -2;
        goto out;
    }
    rc = 0;
out:
    if (rc == 0) {
        *dest_out = realpath(dest, NULL);
        if (!*dest_out) {
            snprintf(err, errlen, "client = %s@%s: %s: %s", name, release, dest, strerror(errno));
            rc = -1;
        }
    }
    free(script);
    free(dest);
    free(stamp);
    return rc;
}
