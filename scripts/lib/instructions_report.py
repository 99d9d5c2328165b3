"""scripts/lib/instructions_report.py -- the verdicts and the report of the
instruction-count A/B (scripts/lib/instructions-ab.sh calls it):

    python3 instructions_report.py OUT BASE HEAD QUERIES SECONDS THRESHOLD FAIL_ABOVE VALGRIND

reads OUT/instructions.tsv (one line per group and side: SUITE QUERY DEPTH FN
SIDE DRIVER_INSTRUCTIONS LOOP_INSTRUCTIONS WAITS QUERIES; zeros: not counted),
writes OUT/instructions.json and OUT/instructions.md (atomically), prints the
Markdown, and exits 3 when FAIL_ABOVE (a percentage, or empty) fails, else 0.

The verdict of a group: HEAD / BASE of the instructions per query (the
driver's calls from the timed loop), against the group's threshold t, in %:

    t = THRESHOLD (default 0.1) + 100 x |waits per query, HEAD - BASE| x WAIT_COST / BASE

"more instructions" above 1 + t/100, "fewer instructions" below 1 - t/100,
else "no change". The waits are the calls to libc's read and wait wrappers
(recv, poll ...). Where both sides went to the socket as often -- every group
of a driver that waits for each reply before the next query, measured here --
the count is deterministic to a few instructions in a million and t is the
base threshold. Where they did not -- a pipelining driver reading ten replies
as they come -- each extra trip to the socket costs about 150 instructions
(measured: libpq_pipeline 147, rawwire 155-162), which is timing, not the
build; t then allows WAIT_COST (500, three times that) per extra trip.
docs/instructions.md has the figures.
"""
import json
import os
import sys

WAIT_COST = 500

VERDICT_MD = {"more instructions": "🔴 **more instructions**",
              "fewer instructions": "🟢 **fewer instructions**", "failed": "**failed**"}


def read_rows(path):
    rows, order = {}, []
    with open(path) as f:
        for line in f:
            suite, query, depth, fn, side, driver, total, waits, nq = line.split()
            key = (suite, query, int(depth))
            if key not in rows:
                rows[key] = {"function": fn}
                order.append(key)
            nq = int(nq)
            rows[key][side] = {
                "instructions": int(driver), "loop_instructions": int(total), "waits": int(waits),
                "queries": nq, "per_query": int(driver) / nq if nq else None,
                "waits_per_query": int(waits) / nq if nq else None}
    return [(k, rows[k]) for k in order]


def judge(key, r, base_t):
    suite, query, depth = key
    g = {"suite": suite, "query": query, "depth": depth, "function": r["function"],
         "base": r["base"], "head": r["head"]}
    b, h = r["base"]["per_query"], r["head"]["per_query"]
    if not b or not h:
        g.update(ratio=None, change_pct=None, threshold_pct=None, verdict="failed")
        return g
    dw = abs(r["head"]["waits_per_query"] - r["base"]["waits_per_query"])
    t = base_t + 100 * dw * WAIT_COST / b
    change = (h / b - 1) * 100
    g.update(ratio=h / b, change_pct=change, threshold_pct=t, waits_differ=dw > 0,
             verdict="more instructions" if change > t else
             "fewer instructions" if change < -t else "no change")
    return g


def markdown(doc):
    groups = doc["groups"]
    limit = doc["fail_above_pct"]
    count = {v: sum(g["verdict"] == v for g in groups)
             for v in ("more instructions", "fewer instructions", "no change", "failed")}
    md = ["#### Instructions per query (callgrind): `%s` (HEAD) vs `%s` (BASE)" % (doc["head"], doc["base"]), ""]
    if limit is not None:
        md += ["**Instructions gate: %s** (`--fail-instructions %g`: a group with more than %g %% more "
               "instructions, or one not counted, fails)" % ("FAILED" if doc["gate_failed"] else "passed",
                                                             limit, limit), ""]
    md += ["Groups: %d more instructions, %d fewer, %d no change, %d failed, of %d" %
           (count["more instructions"], count["fewer instructions"], count["no change"],
            count["failed"], len(groups)), ""]
    md += ["| group | BASE instr./query | HEAD instr./query | HEAD / BASE | waits/query BASE, HEAD | threshold | verdict |",
           "|---|---:|---:|---:|---:|---:|---|"]
    for g in groups:
        b, h = g["base"], g["head"]
        num = lambda v: "—" if v is None else f"{v:,.0f}"
        waits = "—" if b["waits_per_query"] is None or h["waits_per_query"] is None else \
            f"{b['waits_per_query']:.2f}, {h['waits_per_query']:.2f}"
        md.append("| %s / %s / depth %d | %s | %s | %s | %s | %s | %s |" % (
            g["suite"], g["query"], g["depth"], num(b["per_query"]), num(h["per_query"]),
            "—" if g["ratio"] is None else f"{g['ratio']:.5f}", waits,
            "—" if g["threshold_pct"] is None else f"±{g['threshold_pct']:.3g}%",
            VERDICT_MD.get(g["verdict"], g["verdict"])))
    md += ["", "Counted by callgrind (%s) over %d queries per group and side in one execution order: "
           "the instructions of the driver's calls from the runner's timed loop, everything they "
           "execute in the client process (%d s for %s). Instructions do not see the "
           "kernel (system calls, the socket), the server, or waiting, and an instruction is not a "
           "unit of time (cache misses, branches): a change here that the wall-time comparison does "
           "not resolve is work added to or removed from the client, not proof that a query is "
           "slower, and it never passes a run that the wall-time gate failed. Threshold: %g %% (what "
           "two runs of one build differ by is a few instructions in a million), widened by %d "
           "instructions per extra trip to the socket where the two sides made different numbers "
           "of them (waits/query: a pipelining driver reads replies as they come, which is timing); "
           "docs/instructions.md." % (doc["tool"].split()[0], doc["queries_per_group"], doc["seconds"],
                                      "1 group" if len(groups) == 1 else "the %d groups" % len(groups),
                                      doc["threshold_base_pct"], WAIT_COST), ""]
    return "\n".join(md)


def main():
    out, base, head, queries, seconds, threshold, fail_above, valgrind = sys.argv[1:]
    base_t = float(threshold) if threshold else 0.1
    groups = [judge(k, r, base_t) for k, r in read_rows(os.path.join(out, "instructions.tsv"))]
    limit = float(fail_above) if fail_above else None
    gate_failed = limit is not None and any(
        g["verdict"] == "failed" or (g["verdict"] == "more instructions" and g["change_pct"] > limit)
        for g in groups)
    doc = {
        "schema": "pgclientbench-instructions/1",
        "tool": valgrind + " --tool=callgrind",
        "counted": "per group and side, over one execution order without warm-up: instructions, "
                   "those of the calls the runner's timed loop (pgcb_measure_block or "
                   "pgcb_measure_load) made into the driver -- run_batch and all it calls, the "
                   "driver, libpq, libc, in user space; loop_instructions, the whole timed loop "
                   "(its clock reads and block bookkeeping too); waits, the calls to libc's read "
                   "and wait wrappers (recv, read, poll, epoll_wait ...)",
        "base": base, "head": head, "queries_per_group": int(queries), "seconds": int(seconds),
        "threshold_base_pct": base_t, "wait_cost_instructions": WAIT_COST,
        "fail_above_pct": limit, "gate_failed": gate_failed, "groups": groups,
    }
    tmp = os.path.join(out, ".instructions.json.tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(out, "instructions.json"))
    md = markdown(doc)
    tmp = os.path.join(out, ".instructions.md.tmp")
    with open(tmp, "w") as f:
        f.write(md)
    os.replace(tmp, os.path.join(out, "instructions.md"))
    print(md)
    sys.exit(3 if gate_failed else 0)


main()
