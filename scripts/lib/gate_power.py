#!/usr/bin/env python3
"""gate_power.py -- the tables of scripts/gate-power.sh (issue 43).

Reads DIR/size-S/run-I/{result.json,run.json} as gate-power.sh leaves them,
judges every run with `aggregate --ab base:head` for each paired test and
each order count asked (--ab-test, --ab-orders), and writes DIR/power.md and
DIR/power.json, printing the Markdown. Python's standard library only.

A run "flags" when the gate fails (exit 3 of aggregate: a group or the
overall test shown slower by more than --fail-above, or a side failed a
group). For size 0 (A/A) that is a false alarm; for a planted size, a
detection. Rates come with exact (Clopper-Pearson) 95 % intervals. A run
whose ab.sh wrote no result is counted as failed and left out of the rates.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys


def binom_cdf(k, n, p):
    """P(X <= k), X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def clopper_pearson(x, n, level=0.95):
    """The exact interval for a binomial proportion x / n, by bisection."""
    if n == 0:
        return (float("nan"), float("nan"))
    a = (1 - level) / 2

    def solve(f):  # f increasing in p on [0, 1]: the p where f(p) = 0
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            if f(mid) < 0:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    lower = 0.0 if x == 0 else solve(lambda p: (1 - binom_cdf(x - 1, n, p)) - a)
    upper = 1.0 if x == n else solve(lambda p: a - binom_cdf(x, n, p))
    return (lower, upper)


def fmt_rate(x, n):
    if n == 0:
        return "—"
    lo, hi = clopper_pearson(x, n)
    return f"{x}/{n} [{lo * 100:.0f}–{hi * 100:.0f}%]"


def group_name(g):
    return f"{g['suite']} / {g['query']} / depth {g['depth']}"


def judge(aggregate, result, test, orders, fail_above):
    cmd = [aggregate, "--ab", "base:head", "--ab-test", test, "--fail-above", str(fail_above),
           "--format", "json"]
    if orders != "all":
        cmd += ["--ab-orders", str(orders)]
    p = subprocess.run(cmd + [result], capture_output=True, text=True)
    if p.returncode not in (0, 3):
        raise RuntimeError(f"{' '.join(cmd)} {result}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--aggregate", required=True)
    ap.add_argument("--fail-above", type=float, default=2)
    ap.add_argument("--orders", default="12 24 all")
    ap.add_argument("--tests", default="sign+overall sign")
    a = ap.parse_args()
    tests = a.tests.split()
    orders = a.orders.split()

    sizes = sorted((float(m.group(1)), d) for d in os.listdir(a.dir)
                   if (m := re.fullmatch(r"size-([0-9.]+)", d)))
    if not sizes:
        print(f"gate_power.py: {a.dir}: no size-* directory (no run made)", file=sys.stderr)
        return 1
    out = {"fail_above_pct": a.fail_above, "sizes": []}
    failed_runs = []
    for size, sd in sizes:
        srec = {"size_pct": size, "runs": [], "judged": {}}
        rdirs = sorted((int(m.group(1)), r) for r in os.listdir(os.path.join(a.dir, sd))
                       if (m := re.fullmatch(r"run-([0-9]+)", r)))
        for i, rd in rdirs:
            path = os.path.join(a.dir, sd, rd)
            info = {}
            try:
                with open(os.path.join(path, "run.json")) as f:
                    info = json.load(f)
            except (OSError, ValueError):
                pass
            res = os.path.join(path, "result.json")
            ok = os.path.exists(res) and info.get("exit") in (0, 3)
            srec["runs"].append({"run": i, "seconds": info.get("seconds"), "ok": ok,
                                 "exit": info.get("exit")})
            if not ok:
                failed_runs.append(f"size {size:g} % run {i}: ab.sh exit {info.get('exit')}")
                continue
            # A side that failed a group (crashed, hung, wrong rows): the run
            # is not evidence about the change; counted as failed, said why.
            broken = [f"{group_name(g)}: {g.get('why')}"
                      for g in judge(a.aggregate, res, tests[0], "all", a.fail_above)["groups"]
                      if g["verdict"] == "failed"]
            if broken:
                srec["runs"][-1]["ok"] = False
                failed_runs.append(f"size {size:g} % run {i}: {broken[0]}")
                continue
            for t in tests:
                for k in orders:
                    j = judge(a.aggregate, res, t, k, a.fail_above)
                    ov = j["overall"].get("test") or {}
                    srec["judged"].setdefault(f"{t}@{k}", []).append({
                        "run": i,
                        "gate_failed": j["gate"]["failed"],
                        "orders": max(g["orders"]["head"] for g in j["groups"]),
                        "groups": {group_name(g): g["verdict"] for g in j["groups"]},
                        "overall": ov.get("verdict"),
                        "overall_p": ov.get("p"),
                        "geomean_ratio": j["overall"]["geomean_ratio"],
                    })
        out["sizes"].append(srec)

    md = []
    md.append(f"Gate: `--fail-above {a.fail_above:g}`. A run flags when the gate fails. "
              "Size 0 is the A/A (a flag is a false alarm); a planted size flags when it is "
              "caught. Intervals: exact 95 % (Clopper-Pearson).\n")
    head = ["test", "orders used"] + [("A/A flagged" if s == 0 else f"{s:g} % caught")
                                      for s, _ in sizes] + ["run (s), median [min, max]"]
    md.append("| " + " | ".join(head) + " |")
    md.append("|" + "---|" * len(head))
    secs = [r["seconds"] for s in out["sizes"] for r in s["runs"] if r["ok"] and r["seconds"]]
    secs.sort()
    span = (f"{secs[len(secs) // 2]:.0f} [{secs[0]:.0f}, {secs[-1]:.0f}]" if secs else "—")
    kmax = max((r["orders"] for srec in out["sizes"]
                for r in srec["judged"].get(f"{tests[0]}@all", [])), default=0)
    for t in tests:
        for k in orders:
            row = [t, k if k != "all" else f"all ({kmax})"]
            for srec in out["sizes"]:
                js = srec["judged"].get(f"{t}@{k}", [])
                x = sum(1 for r in js if r["gate_failed"])
                row.append(fmt_rate(x, len(js)))
            if k == "all" or not secs or not kmax:
                row.append(span)
            else:  # the same orders, cut: the run's length scaled to them
                row.append(f"≈ {secs[len(secs) // 2] * int(k) / kmax:.0f} (scaled)")
            md.append("| " + " | ".join(row) + " |")
    md.append("")
    # Per group: which verdicts, for every test at all orders.
    for t in tests:
        key = f"{t}@{orders[-1]}"
        names = []
        for srec in out["sizes"]:
            for r in srec["judged"].get(key, []):
                for n in r["groups"]:
                    if n not in names:
                        names.append(n)
        if not names:
            continue
        md.append(f"Per group, test {t}, orders {orders[-1]}: runs with the verdict "
                  "*slower* (A/A: *slower* or *faster*, a false verdict)\n")
        hdr = ["group"] + [("A/A" if s == 0 else f"{s:g} %") for s, _ in sizes]
        md.append("| " + " | ".join(hdr) + " |")
        md.append("|" + "---|" * len(hdr))
        for n in names + (["overall test"] if t != "sign" else []):
            row = [n]
            for srec in out["sizes"]:
                js = srec["judged"].get(key, [])
                if n == "overall test":
                    v = [r["overall"] for r in js]
                else:
                    v = [r["groups"].get(n) for r in js]
                bad = ("slower", "faster") if srec["size_pct"] == 0 else ("slower",)
                row.append(fmt_rate(sum(1 for x in v if x in bad), len(v)))
            md.append("| " + " | ".join(row) + " |")
        md.append("")
    if failed_runs:
        md.append("Runs that failed (left out of the rates): " + "; ".join(failed_runs) + "\n")
    text = "\n".join(md) + "\n"
    out["failed_runs"] = failed_runs
    for name, body in (("power.md", text), ("power.json", json.dumps(out, indent=1) + "\n")):
        tmp = os.path.join(a.dir, "." + name + ".tmp")
        with open(tmp, "w") as f:
            f.write(body)
        os.replace(tmp, os.path.join(a.dir, name))
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
