"""scripts/lib/callgrind_count.py -- the counts of one callgrind run of the
runner (scripts/lib/callgrind.sh's cg_count calls it):

    python3 callgrind_count.py RESULT.json RUNNER DRIVER.so CALLGRIND.OUT...

prints "TOTAL DRIVER WAITS QUERIES": TOTAL the instructions collected (the timed
loop, the host process's file: the largest total), DRIVER those of the calls
the runner's code made into DRIVER.so inside it (the inclusive cost of every
call edge from an object that is RUNNER to one that is DRIVER.so: run_batch
and all it calls, libpq and libc included; not the loop's own clock reads and
block bookkeeping, whose count depends on how the runner cut the order into
blocks, i.e. on timing), WAITS the calls made to libc's read and wait
wrappers (recv, read, poll, epoll_wait ... from outside libc): how many times
the client went to its socket, which depends on how much of the reply had
arrived each time, i.e. on timing -- two runs that read alike execute alike;
QUERIES the queries the runner counted (the result's first group; 0 unless
its status is ok).

Reads callgrind's format (valgrind's docs/cl-format): names compressed as
"(id) name" on first use and "(id)" after; "ob=" the current function's object,
"cob=" the called function's for the next "calls=" line only (absent: the
caller's object), "cfn=" the called function, and the line after
"calls=COUNT TARGET" is "POSITION INCLUSIVE_COST".
"""
import json
import os
import re
import sys

# libc's read and wait wrappers (the names callgrind gives them).
WAITS = re.compile(r"(__libc_|__GI___|__)?(recv|recvfrom|recvmsg|read|poll|ppoll|select|pselect|"
                   r"epoll_wait|epoll_pwait)(@.*)?$")


def count(path, runner, driver):
    names = {}
    total = calls = waits = 0
    ob = cob = cfn = None
    pending = None

    def name(kind, v):
        m = re.match(r"\((\d+)\)(?: (.*))?$", v)
        if not m:
            return v
        if m.group(2) is not None:
            names[kind, m.group(1)] = m.group(2)
        return names.get((kind, m.group(1)), "?")

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if pending is not None:  # the cost line of the call just read
                if pending:
                    calls += int(line.split()[1])
                pending = None
            elif line.startswith(("totals:", "summary:")):
                total = total or int(line.split()[1])
            elif line.startswith("ob="):
                ob = os.path.realpath(name("ob", line[3:]))
            elif line.startswith("cob="):
                cob = os.path.realpath(name("ob", line[4:]))
            elif line.startswith(("fn=", "cfn=")):
                f = name("fn", line.split("=", 1)[1])
                if line.startswith("cfn="):
                    cfn = f
            elif line.startswith("calls="):
                callee = cob or ob
                pending = ob == runner and callee == driver
                if (cfn and WAITS.match(cfn) and os.path.basename(callee).startswith("libc.")
                        and not os.path.basename(ob).startswith("libc.")):
                    waits += int(line[6:].split()[0])
                cob = cfn = None
    return total, calls, waits


def main():
    results, runner, driver = sys.argv[1], os.path.realpath(sys.argv[2]), os.path.realpath(sys.argv[3])
    queries = 0
    try:
        r = json.load(open(results))["groups"][0]["results"][0]
        queries = r["queries"] if r.get("status") == "ok" else 0
    except (OSError, ValueError, KeyError, IndexError):
        pass
    best = max((count(f, runner, driver) for f in sys.argv[4:]), default=(0, 0, 0))
    print(best[0], best[1], best[2], queries)


main()
