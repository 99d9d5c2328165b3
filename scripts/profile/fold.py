# fold.py -- perf script's Python handler: perf.data -> folded stacks + top.tsv.
#
#   perf script --no-inline -i X.perf -s build/profile/fold.py -- OUT_PREFIX
#
# --no-inline matters: perf 6.1's script otherwise asks addr2line for the
# inlined functions of every frame of a binary with debug info (the node
# binary here has 100+ MB of it): 104 s instead of 1.0 s to fold 3 s of a
# Node.js client recorded with --call-graph dwarf (C clients: 0.2-0.3 s either
# way). The stacks are the same but for those inline frames.
#
# writes OUT_PREFIX.folded (Brendan Gregg's folded stacks: "comm;root;...;leaf
# COUNT", sorted by stack text, counts in samples) and OUT_PREFIX.top.tsv
# ("total\t\tN", then "category\tNAME\tSELF" by SELF descending, then the 20
# leaf functions "function\tSYMBOL (DSO)\tSELF"): the contract of issue 28,
# docs/flamegraphs.md. Both files are written (through a temporary file renamed
# into place) even when the recording holds no sample ("total\t\t0").
#
# How perf 6.1 passes arguments: every word after the script's path is the
# script's sys.argv[1:] (perf stops parsing its own options there); a `--`
# before them is consumed by perf's option parser and never reaches the
# script, so `-s fold.py OUT` and `-s fold.py -- OUT` are the same, and the
# `--` form is the safe one (an OUT_PREFIX starting with '-'). Exactly one
# argument; anything else: a usage line and exit status 2.
#
# It runs inside perf's embedded Python (Debian's perf 6.1: Python 3.11), which
# calls process_event(param_dict) once per sample with its callchain (leaf
# first) already resolved by perf: symbols from each DSO's .symtab/.dynsym
# (and debug info when present), JIT frames from /tmp/perf-PID.map. The
# folding and the categories are in foldlib.py beside this file (a test
# imports it without perf). A failure to write exits with status 1 and a line
# naming the file.

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import foldlib  # noqa: E402  (after the path insert)

if len(sys.argv) != 2 or not sys.argv[1]:
    sys.stderr.write("usage: perf script -i X.perf -s %s -- OUT_PREFIX\n" % os.path.basename(__file__))
    sys.exit(2)

_OUT_PREFIX = sys.argv[1]
_folder = foldlib.Folder()


def process_event(param_dict):
    _folder.add(param_dict)


def trace_end():
    try:
        _folder.write(_OUT_PREFIX)
    except OSError as e:
        sys.stderr.write("fold.py: cannot write %s: %s\n" % (e.filename or _OUT_PREFIX, e.strerror or e))
        sys.exit(1)
