"""The Python adapter's option mmap_threshold (pgcb_adapter/malloc.py) against
the real server, driven over the bridge protocol (tests/server/adapter_load.py's
Adapter, no bridge driver):

    build/adapters/python/venv/bin/python3 tests/server/python_malloc.py BUILD_DIR

asyncpg reads each reply with asyncio's sock.recv(256 KiB). With glibc's
thresholds held at their starting 128 KiB ("initial") every read maps a fresh
block and unmaps it: at least one minor page fault per read (the first touch
of a new mapping). Held at 1 MiB / 2 MiB ("raised", the default) the block
comes from the heap, whose pages stay: a page fault per read would be a
regression. Per setting: hello (links name the setting), connect, prepare
a LIMIT 1 query, a warm-up run, then a run of 2000 batches with the adapter
process's minor faults (/proc/PID/stat) read around it:
  initial   >= 2000 faults (one per read at least)
  raised    < 200 (under one per ten reads; 1-3 here)
  dynamic   links say so (the faults then depend on the process's history:
            not asserted)
and a bad value: one line naming the option, the client not started.
Creates sql/benchmark_rows.sql's table.
One line per check; exit 1 if any failed, 2 if the setup failed.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from adapter_load import KINDS, SQL1, Adapter, check, command, conninfo, setup_table  # noqa: E402
import adapter_load  # noqa: E402

BATCHES = 2000


def minflt(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[7])  # field 10, minflt


def run(ad, batches):
    r, arr = ad.call({"op": "run", "stmt": 0, "depth": 1, "batches": batches, "begin": None,
                      "commit": None, "kinds": KINDS, "params": None, "dump": False})
    return r.get("ok") is True and arr is not None, r


def one(build, setting, phrase, lo, hi):
    ad = Adapter(command(build, "python"))
    tag = "asyncpg mmap_threshold=%s" % setting
    try:
        r, _ = ad.call({"op": "hello", "protocol": 1, "client": "asyncpg",
                        "options": {"mmap_threshold": setting}, "result_format": "text"})
        if not check(tag + ": hello", r.get("ok") is True, json.dumps(r)[:300]):
            return
        check(tag + ": links say " + phrase, phrase in r.get("links", ""), r.get("links", ""))
        r, _ = ad.call({"op": "connect", "conn": conninfo("pgcb_python_malloc")})
        if not check(tag + ": connect", r.get("ok") is True, json.dumps(r)[:300]):
            return
        r, _ = ad.call({"op": "prepare", "stmt": 0, "name": "p", "sql": SQL1, "nparams": 0})
        if not check(tag + ": prepare", r.get("ok") is True, json.dumps(r)[:300]):
            return
        ok, r = run(ad, 500)
        if not check(tag + ": warm-up run", ok, json.dumps(r)[:300]):
            return
        f0 = minflt(ad.proc.pid)
        ok, r = run(ad, BATCHES)
        faults = minflt(ad.proc.pid) - f0
        if not check(tag + ": run of %d batches" % BATCHES, ok, json.dumps(r)[:300]):
            return
        if lo is not None:
            check(tag + ": %d <= minor faults < %s" % (lo, hi), lo <= faults < hi,
                  "%d faults over %d reads" % (faults, BATCHES))
        else:
            print("     %s: %d minor faults over %d reads (not asserted)" % (tag, faults, BATCHES))
    finally:
        ad.close()


def bad(build):
    ad = Adapter(command(build, "python"))
    try:
        r, _ = ad.call({"op": "hello", "protocol": 1, "client": "asyncpg",
                        "options": {"mmap_threshold": "often"}, "result_format": "text"})
        check("mmap_threshold=often: kind config naming the option",
              r.get("ok") is False and r.get("kind") == "config"
              and "option mmap_threshold = 'often'" in r.get("error", ""), json.dumps(r)[:300])
    finally:
        ad.close()


def main(argv):
    if len(argv) != 1:
        print("usage: build/adapters/python/venv/bin/python3 tests/server/python_malloc.py "
              "BUILD_DIR", file=sys.stderr)
        return 2
    build = argv[0]
    if not setup_table("python_malloc.py"):
        return 2
    try:
        one(build, "initial", "mmap 128 KiB, trim 128 KiB (initial)", BATCHES, float("inf"))
        one(build, "raised", "mmap 1 MiB, trim 2 MiB (raised)", 0, BATCHES // 10)
        one(build, "dynamic", "glibc's dynamic ones", None, None)
        bad(build)
    except (OSError, EOFError, ValueError) as e:
        print("SETUP FAILED: %s" % e)
        return 2
    return 1 if adapter_load.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
