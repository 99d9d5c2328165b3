#!/usr/bin/env python3
"""lint-layers.py -- the layering rule of the C tree (docs/layers.md), checked.

    scripts/lint-layers.py [--root DIR]    check the tree (default: this checkout)
    scripts/lint-layers.py --self-test     plant each kind of violation in a
                                           scratch tree and check that each is
                                           found, and that a clean tree passes

Every #include of every .c and .h file is resolved as the compiler resolves
it with the Makefile's flags (quoted: the including file's folder first, then
-Iinclude -Ilib -Icommon -Irunner; angle brackets: the -I folders only; what
resolves to none of them is a system header and allowed). Two rules:

  1. No .c file is #included, anywhere (shared code is a library that its
     users link).
  2. A file's layer may include only the layers LAYERS names for it: a driver
     knows include/ and lib/, never common/, runner/ or another driver;
     common/ knows no program; aggregate/ knows common/ and never runner/;
     a library knows only include/ and itself; the runner links lib/pqutil
     (its own libpq session words errors as the libpq drivers do) and no
     driver.

One line per violation, "FILE:LINE: why", then "layers: N files, N
includes, N violations"; exit status 1 when there is any.
"""
import os
import re
import shutil
import sys
import tempfile

# -I folders of the Makefile's CFLAGS, in order.
INCLUDE_PATH = ["include", "lib", "common", "runner"]

# Layer of a path (the first matching prefix; None: not a C layer). A lib's
# and a driver's layer is its own folder.
def layer_of(rel):
    parts = rel.split("/")
    if parts[0] == "include":
        return "include"
    if parts[0] in ("lib", "drivers") and len(parts) > 2:
        return parts[0] + "/" + parts[1]
    if parts[0] == "runner" and len(parts) > 2:
        return "runner/" + parts[1]  # a folder of the runner: a sub-layer
    if parts[0] in ("common", "runner", "aggregate", "templates", "proxy"):
        return parts[0]
    if parts[0] == "tests":
        if len(parts) > 2 and parts[1] == "fixtures":
            return "tests/fixtures"
        return "tests"
    return None

# What each layer may include, besides itself. "lib/*": any library;
# "*": anything (the tests test internals).
LAYERS = {
    "include": [],
    "common": ["include"],
    "lib/*": ["include"],
    "drivers/*": ["include", "lib/*"],
    "runner": ["include", "common", "lib/pqutil", "lib/wiretap"],
    "aggregate": ["include", "common"],
    "proxy": ["include", "lib/wiretap"],
    "templates": ["include"],
    "tests/fixtures": ["include"],
    "tests": ["*"],
}

# The runner's folders, lowest first: each may include the folders before it
# (and include/, common/, lib/pqutil), never one after it; runner/main.c (the
# layer "runner") may include them all.
RUNNER_SUBLAYERS = ["sys", "config", "server", "host", "profile", "out", "sched", "check"]
for _i, _sub in enumerate(RUNNER_SUBLAYERS):
    LAYERS["runner/" + _sub] = ["include", "common", "lib/pqutil", "lib/wiretap"] + \
        ["runner/" + b for b in RUNNER_SUBLAYERS[:_i]]
LAYERS["runner"] = ["include", "common", "lib/pqutil", "lib/wiretap", "runner/*"]

# Today's back-edges between the runner's folders (issue 40): each is
# allowed by name, FILE -> the file it includes, until a cut removes it; a
# new one is a violation. Shorten this list; never lengthen it.
RUNNER_BACK_EDGES = {
    # config.h names the orders' kinds and the transports' words
    ("runner/config/config.h", "runner/sched/orders.h"),
    ("runner/config/config.h", "runner/server/transport.h"),
    ("runner/config/config_query.c", "runner/server/bulk.h"),
    ("runner/profile/profile.c", "runner/sched/session.h"),
    ("runner/sys/sysinfo.c", "runner/config/config.h"),
}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SKIP_DIRS = {".git", "build", "build-san", "node_modules", "results"}


def allowed(src_layer, dst_layer):
    if src_layer == dst_layer:
        return True
    key = src_layer
    if key not in LAYERS:
        key = src_layer.split("/")[0] + "/*"
    rules = LAYERS.get(key)
    if rules is None:
        return True  # not a C layer we know: nothing to enforce
    for r in rules:
        if r == "*" or r == dst_layer:
            return True
        if r.endswith("/*") and dst_layer.startswith(r[:-1]):
            return True
    return False


def resolve(root, src_rel, quoted, name):
    """The path (relative to root) the compiler would open, or None."""
    cands = []
    if quoted:
        cands.append(os.path.join(os.path.dirname(src_rel), name))
    cands += [os.path.join(d, name) for d in INCLUDE_PATH]
    for c in cands:
        full = os.path.normpath(os.path.join(root, c))
        if os.path.isfile(full):
            return os.path.relpath(full, root)
    return None


def c_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for f in sorted(filenames):
            if f.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(dirpath, f), root)


def check(root, out=sys.stdout):
    nfiles = nincl = 0
    bad = []
    used = set()
    for rel in c_files(root):
        nfiles += 1
        src_layer = layer_of(rel)
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                nincl += 1
                quoted, name = m.group(1) == '"', m.group(2)
                target = resolve(root, rel, quoted, name)
                if name.endswith(".c") or (target and target.endswith(".c")):
                    bad.append(f"{rel}:{lineno}: #include of a .c file ({name}): link the code "
                               "(a library in lib/, or the object) instead")
                    continue
                if target is None or src_layer is None:
                    continue  # a system header, or a file outside the layers
                dst_layer = layer_of(target)
                if dst_layer is None or allowed(src_layer, dst_layer):
                    continue
                if (rel, target) in RUNNER_BACK_EDGES:
                    used.add((rel, target))
                    continue
                if src_layer.startswith("runner/") and dst_layer.startswith("runner/"):
                    bad.append(f"{rel}:{lineno}: {src_layer}/ may not include {target} "
                               f"(a back-edge: {dst_layer}/ is above {src_layer}/; "
                               "docs/layers.md)")
                    continue
                bad.append(f"{rel}:{lineno}: {src_layer}/ may not include {target} "
                           f"(layer {dst_layer}/; docs/layers.md)")
    # An allowed back-edge that no longer exists: the list must shrink with
    # the cuts (only a real tree is checked for it, not the self-test's).
    if os.path.isfile(os.path.join(root, "runner", "main.c")) and \
            os.path.isfile(os.path.join(root, "runner", "sched", "group.c")):
        for rel, target in sorted(RUNNER_BACK_EDGES - used):
            bad.append(f"{rel}: RUNNER_BACK_EDGES allows its #include of {target}, which is gone: "
                       "remove that line from scripts/lint-layers.py")
    for b in bad:
        print(b, file=out)
    print(f"layers: {nfiles} files, {nincl} includes, {len(bad)} violations", file=out)
    return 0 if not bad else 1


# ---------------------------------------------------------------- self-test
CLEAN = {
    "include/pgcb/driver.h": "#include <stddef.h>\n",
    "lib/pgwire/rw_io.h": '#include "rw_err.h"\n#include <pgcb/driver.h>\n',
    "lib/pgwire/rw_err.h": "\n",
    "lib/pqutil/pq_errmsg.h": "#include <libpq-fe.h>\n",
    "common/util.h": "\n",
    "common/report.h": '#include "util.h"\n#include "pgcb/driver.h"\n',
    "runner/server/server.c": '#include "util.h"\n#include "pqutil/pq_errmsg.h"\n',
    "runner/check/check.c": '#include "server/server.h"\n#include "sched/session.h"\n',
    "runner/sched/session.h": "\n",
    "runner/host/host.c": '#include "server/server.h"\n#include "host.h"\n',
    "runner/host/host.h": "\n",
    "runner/main.c": '#include "check/check.h"\n#include "sched/session.h"\n',
    "runner/check/check.h": "\n",
    "runner/server/server.h": "\n",
    "drivers/rawwire/rawwire.c": '#include "pgwire/rw_io.h"\n#include "rw_batch.h"\n',
    "drivers/rawwire/rw_batch.h": "\n",
    "aggregate/text.c": '#include "report.h"\n',
    "tests/unit/test_x.c": '#include "../../drivers/rawwire/rw_batch.h"\n#include "server/server.h"\n',
}

# name -> (file, content, what the message must say)
PLANTED = {
    "c-include": ("drivers/floor/floor.c", '#include "../rawwire/rawwire.c"\n', "#include of a .c file"),
    "c-include-test": ("tests/unit/test_y.c", '#include "../../lib/pgwire/rw_io.c"\n',
                       "#include of a .c file"),
    "driver-to-driver": ("drivers/floor/floor.c", '#include "../rawwire/rw_batch.h"\n',
                         "drivers/floor/ may not include drivers/rawwire/rw_batch.h"),
    "driver-to-common": ("drivers/floor/floor.c", '#include "util.h"\n',
                         "drivers/floor/ may not include common/util.h"),
    "driver-to-runner": ("drivers/floor/floor.c", '#include "server/server.h"\n',
                         "drivers/floor/ may not include runner/server/server.h"),
    "aggregate-to-runner": ("aggregate/load.c", '#include "server/server.h"\n',
                            "aggregate/ may not include runner/server/server.h"),
    "common-to-runner": ("common/rank.c", '#include "server/server.h"\n',
                         "common/ may not include runner/server/server.h"),
    "lib-to-common": ("lib/pgwire/rw_conn.c", '#include "util.h"\n',
                      "lib/pgwire/ may not include common/util.h"),
    "lib-to-lib": ("lib/pgwire/rw_conn.c", '#include "pqutil/pq_errmsg.h"\n',
                   "lib/pgwire/ may not include lib/pqutil/pq_errmsg.h"),
    "runner-to-driver": ("runner/host/loader.c", '#include "../drivers/rawwire/rw_batch.h"\n',
                         "runner/host/ may not include drivers/rawwire/rw_batch.h"),
    "runner-to-pgwire": ("runner/host/loader.c", '#include "pgwire/rw_io.h"\n',
                         "runner/host/ may not include lib/pgwire/rw_io.h"),
    "runner-back-edge": ("runner/server/x.c", '#include "sched/session.h"\n',
                         "runner/server/ may not include runner/sched/session.h (a back-edge"),
    "runner-back-edge-host": ("runner/host/x.c", '#include "check/check.h"\n',
                              "runner/host/ may not include runner/check/check.h (a back-edge"),
    "include-to-common": ("include/pgcb/value.h", '#include "../../common/util.h"\n',
                          "include/ may not include common/util.h"),
    "fixture-to-runner": ("tests/fixtures/f.c", '#include "server/server.h"\n',
                          "tests/fixtures/ may not include runner/server/server.h"),
}


def make_tree(files):
    d = tempfile.mkdtemp(prefix="pgcb-layers.")
    for rel, text in files.items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as fh:
            fh.write(text)
    return d


def self_test():
    import io
    failures = 0
    d = make_tree(CLEAN)
    buf = io.StringIO()
    rc = check(d, buf)
    shutil.rmtree(d)
    if rc != 0:
        print("lint-layers self-test: the clean tree was refused:\n" + buf.getvalue())
        failures += 1
    for name, (rel, text, want) in sorted(PLANTED.items()):
        files = dict(CLEAN)
        files[rel] = text
        d = make_tree(files)
        buf = io.StringIO()
        rc = check(d, buf)
        shutil.rmtree(d)
        lines = [l for l in buf.getvalue().splitlines() if not l.startswith("layers:")]
        if rc != 1 or len(lines) != 1 or want not in lines[0] or not lines[0].startswith(rel + ":1: "):
            print(f"lint-layers self-test: planted {name} ({rel}: {text.strip()}) not reported "
                  f"as '{want}':\n{buf.getvalue()}")
            failures += 1
    print(f"lint-layers self-test: {len(PLANTED) + 1 - failures} of {len(PLANTED) + 1} cases "
          "behaved (a clean tree passes, each planted violation is the one line found)")
    return 0 if failures == 0 else 1


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if len(argv) == 3 and argv[1] == "--root":
        root = argv[2]
    elif len(argv) != 1:
        print("usage: lint-layers.py [--root DIR | --self-test]", file=sys.stderr)
        return 2
    return check(os.path.normpath(root))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
