"""Folding perf samples into flame graph stacks, and their self-time categories.

The logic of fold.py (which perf's embedded Python runs), apart from perf so
that a test can drive it with hand-made samples (tests/profile/test_foldlib.py).
A sample is what perf 6.1 passes to a script's process_event(param_dict):

    {"comm": "postgres", "dso": "/usr/lib/postgresql/15/bin/postgres",
     "symbol": "PortalRun",                          # absent when unresolved
     "sample": {"pid": 123, "tid": 123, "ip": ...},
     "callchain": [                                  # leaf first; absent or
        {"ip": ..., "sym": {"name": "PortalRun"},    # empty without -g
         "dso": "/usr/lib/postgresql/15/bin/postgres"},
        ...]}

Conventions (Brendan Gregg's FlameGraph, stackcollapse-perf.pl --all):
- a stack is "comm;root;...;leaf", comm being the sampled thread's name (the
  process's for a single-threaded process: `postgres`, `runner`; Node.js's
  and Go's helper threads keep their own: `V8 DefaultWorke`, `libuv-worker`);
- a frame is its symbol when perf resolved one, else `[DSO-BASENAME]`, else
  `[unknown]`; kernel frames end in `_[k]`, JIT frames (/tmp/perf-PID.map,
  jitdump's jitted-PID-N.so) in `_[j]`;
- `;` inside a name becomes `:` and control characters become spaces, so that
  every line stays one stack.

The category of a sample is that of its leaf frame (where the CPU was),
decided by the frame's DSO, and by its symbol where the DSO holds several
(Go's runtime in a Go binary, libuv inside the node binary): see category().
"""

import collections
import os
import re

# Every category top.tsv may name (the contract's list, in its order).
CATEGORIES = (
    "kernel", "libpq", "libc", "openssl", "driver", "runner", "postgres", "node",
    "javascript", "python", "python extension", "go runtime", "go", "libuv",
    "other", "unknown",
)

# How many leaf functions top.tsv lists.
TOP_FUNCTIONS = 20

# DSO names perf gives to user-space pseudo mappings (not the kernel).
_USER_PSEUDO = frozenset(("[vdso]", "[vsyscall]", "[vectors]", "[heap]", "[stack]", "[anon]", "[unknown]"))
_JIT_RE = re.compile(r"^(perf-\d+\.map|jitted-\d+-\d+\.so)$")
_GLIBC_RE = re.compile(r"^(libc|libm|libpthread|libdl|librt|libresolv|libmvec|ld-linux[-\w.]*)(\.so|-)")
_PYTHON_RE = re.compile(r"^(python\d(\.\d+)?[a-z]*|libpython\d[\d.]*[a-z]*\.so.*)$")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
# Kernel text lives in the upper half of the address space (x86-64, arm64).
_KERNEL_IP = 1 << 63


def _clean(name):
    """A name that cannot break a folded line: no ';', no control characters."""
    return _CONTROL_RE.sub(" ", name.replace(";", ":"))


def dso_basename(dso):
    """The DSO's file name ('[kernel.kallsyms]' and other pseudo names stay as they are)."""
    if not dso:
        return ""
    return dso if dso.startswith("[") else os.path.basename(dso)


class Frame(collections.namedtuple("Frame", "name dso kind")):
    """One resolved frame: name (symbol, '[dso]' or '[unknown]', without the
    suffix), dso (the full path perf gave, '' if none) and kind ('k' kernel,
    'j' JIT, '' user)."""

    __slots__ = ()

    def folded(self):
        """The frame as written in a folded stack (with _[k] / _[j])."""
        return self.name + "_[" + self.kind + "]" if self.kind else self.name


def make_frame(ip, symbol, dso):
    """A Frame from perf's fields: ip (int or None), symbol name (None when
    unresolved) and dso path (None when perf knows no mapping)."""
    dso = dso or ""
    base = dso_basename(dso)
    if base == "[unknown]":
        dso = base = ""
    kind = ""
    if (ip is not None and ip >= _KERNEL_IP) or (
            base.startswith("[") and base not in _USER_PSEUDO and not base.startswith("[anon")):
        kind = "k"
    elif _JIT_RE.match(base):
        kind = "j"
    if symbol:
        name = _clean(symbol)
    elif base:
        name = base if base.startswith("[") else "[" + _clean(base) + "]"
    else:
        name = "[unknown]"
    return Frame(name, dso, kind)


def sample_frames(param):
    """The frames of one perf sample (param_dict), root first."""
    chain = param.get("callchain") or ()
    frames = []
    for node in chain:
        sym = node.get("sym")
        frames.append(make_frame(node.get("ip"), sym.get("name") if sym else None, node.get("dso")))
    if not frames:
        # No call graph (recorded without -g, or nothing unwound): the sample's own ip.
        sample = param.get("sample") or {}
        frames.append(make_frame(sample.get("ip"), param.get("symbol"), param.get("dso")))
    frames.reverse()
    return frames


def is_go_symbol(name):
    """Go's runtime (runtime.*, runtime/internal/*): marks its DSO as a Go binary."""
    return name.startswith("runtime.") or name.startswith("runtime/")


def category(frame, go_dsos=frozenset()):
    """The self-time category of a leaf frame (one of CATEGORIES). go_dsos:
    the DSOs known to be Go binaries (a frame of theirs named runtime.*)."""
    if frame.kind == "k":
        return "kernel"
    if frame.kind == "j":
        return "javascript"
    dso = frame.dso
    if not dso:
        return "unknown"
    base = dso_basename(dso)
    parent = os.path.basename(os.path.dirname(dso))
    if base.startswith("libpq.so"):
        return "libpq"
    if _GLIBC_RE.match(base):
        return "libc"
    if base.startswith("libssl.so") or base.startswith("libcrypto.so"):
        return "openssl"
    if base.startswith("libuv.so"):
        return "libuv"
    if parent == "drivers" and ".so" in base:
        return "driver"
    if base in ("runner", "pgclientbench"):
        return "runner"
    if base in ("postgres", "postmaster") or ("/postgresql/" in dso and ".so" in base):
        return "postgres"
    if base in ("node", "nodejs") or base.startswith("libnode.so"):
        # libuv is linked into the node binary: its functions are uv_*.
        if frame.name.startswith("uv_") or frame.name.startswith("uv__"):
            return "libuv"
        return "node"
    if _PYTHON_RE.match(base) or "/lib-dynload/" in dso:
        return "python"
    if "/site-packages/" in dso or "/dist-packages/" in dso:
        return "python extension"
    if dso in go_dsos:
        return "go runtime" if is_go_symbol(frame.name) else "go"
    return "other"


def function_label(frame):
    """top.tsv's function name: 'SYMBOL (DSO-BASENAME)'; JIT frames' DSO is
    'JIT' (a perf-PID.map per process would split one function)."""
    if frame.kind == "j":
        where = "JIT"
    else:
        where = dso_basename(frame.dso) or "unknown"
    return "%s (%s)" % (frame.name, where)


class Folder:
    """Accumulates samples; writes the folded stacks and top.tsv."""

    def __init__(self):
        self.total = 0
        self.stacks = collections.Counter()   # folded stack text -> samples
        self.leaves = collections.Counter()   # leaf Frame -> self samples
        self.go_dsos = set()

    def add(self, param):
        """Add one perf sample (process_event's param_dict)."""
        frames = sample_frames(param)
        for f in frames:
            if f.dso and f.dso not in self.go_dsos and is_go_symbol(f.name):
                self.go_dsos.add(f.dso)
        comm = _clean(param.get("comm") or "[unknown]")
        self.stacks[";".join([comm] + [f.folded() for f in frames])] += 1
        self.leaves[frames[-1]] += 1
        self.total += 1

    def categories(self):
        """[(category, self samples)] with samples > 0, most first (then by name)."""
        counts = collections.Counter()
        for frame, n in self.leaves.items():
            counts[category(frame, self.go_dsos)] += n
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

    def functions(self, limit=TOP_FUNCTIONS):
        """[(function label, self samples)]: the `limit` leaf functions with the most self samples."""
        counts = collections.Counter()
        for frame, n in self.leaves.items():
            counts[function_label(frame)] += n
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]

    def folded_text(self):
        return "".join("%s %d\n" % (stack, n) for stack, n in sorted(self.stacks.items()))

    def top_text(self):
        lines = ["total\t\t%d\n" % self.total]
        lines += ["category\t%s\t%d\n" % kv for kv in self.categories()]
        lines += ["function\t%s\t%d\n" % (_clean(name).replace("\t", " "), n) for name, n in self.functions()]
        return "".join(lines)

    def write(self, prefix):
        """Write PREFIX.folded and PREFIX.top.tsv (each through a temporary
        file renamed into place: a failure leaves no half-written file)."""
        for suffix, text in ((".folded", self.folded_text()), (".top.tsv", self.top_text())):
            path = prefix + suffix
            tmp = "%s.tmp%d" % (path, os.getpid())
            try:
                with open(tmp, "w", encoding="utf-8", errors="backslashreplace") as out:
                    out.write(text)
                os.replace(tmp, path)
            except BaseException as e:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                if isinstance(e, OSError):
                    raise OSError(e.errno, e.strerror, path) from e
                raise
