#!/usr/bin/env python3
"""Read `aggregate --format csv` back with Python's csv module and check it
against the result files it was made from (test_aggregate_cli.c runs this).

    csv_check.py --csv OUT.csv [--label NAME]... RESULT.json...

--label names the first runs, as aggregate's own --label did. Checks: RFC
4180 records (CRLF), one header row naming the documented columns, every
row as wide as the header, one row per run x group x driver in file order,
and per row the run, group, driver and the figures the result file has
(exact integers, reals to 12 significant digits, empty where the file has
none). Prints one line and exits 0, or names the first difference and
exits 1.
"""
import argparse
import csv
import json
import math
import sys

COLUMNS = [
    "run", "file", "label", "cpu_model", "cores", "server_version", "started_at", "suite",
    "query", "depth", "transaction", "connect", "threads", "ops", "group", "driver", "reference",
    "status", "error", "samples", "queries", "mean_ns", "rme_pct", "median_ns", "p90_ns",
    "p99_ns", "p999_ns", "min_ns", "max_ns", "ops_per_s", "queries_per_s",
    "client_cpu_ns_per_query", "server_cpu_ns_per_query", "backend_cpu_ns_per_query",
    "spread_cv_pct", "relative_latency", "relative_lo", "relative_hi", "lowest_median",
    "winner", "orders", "orders_won", "orders_lost", "sign_p", "concurrency", "pool", "mode",
    "rate", "time_per_query_ns", "client_busy", "bottleneck", "peak_rss_kib", "rss_growth_kib",
    "stream", "stream_rows", "first_row_ns", "rows_per_s", "memory_verdict", "bytes_per_row",
    "rtt_ms", "round_trips", "bytes_out", "bytes_in", "expected_ns", "stalls_40ms",
]


def fail(msg):
    print("csv_check: " + msg)
    sys.exit(1)


def same_real(field, want, what):
    """field (a CSV string) is the real `want` (None/NaN: empty)."""
    if want is None or (isinstance(want, float) and math.isnan(want)):
        if field != "":
            fail(f"{what}: '{field}', want an empty field")
        return
    if field == "":
        fail(f"{what}: empty, want {want}")
    got = float(field)
    if not math.isclose(got, float(want), rel_tol=1e-11, abs_tol=1e-300):
        fail(f"{what}: {got!r}, want {want!r}")


def same_str(field, want, what):
    if field != ("" if want is None else str(want)):
        fail(f"{what}: {field!r}, want {want!r}")


def default_label(env):
    cpu = env.get("cpu_model") or "unknown CPU"
    cores = env.get("cores") or 0
    return cpu if not cores else f"{cpu}, {cores} core{'' if cores == 1 else 's'}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--label", action="append", default=[])
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    raw = open(args.csv, "rb").read()
    with open(args.csv, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, strict=True))
    if not rows or rows[0] != COLUMNS:
        fail(f"header {rows[0] if rows else None}, want {COLUMNS}")
    # Records end with CRLF; no field of these files holds a line break.
    crlf, lf = raw.count(b"\r\n"), raw.count(b"\n")
    if crlf != len(rows) or lf != len(rows) or not raw.endswith(b"\r\n"):
        fail(f"{len(rows)} records, but {crlf} CRLF and {lf} LF")
    col = {name: i for i, name in enumerate(COLUMNS)}
    for n, row in enumerate(rows):
        if len(row) != len(COLUMNS):
            fail(f"record {n + 1} has {len(row)} fields, the header {len(COLUMNS)}")

    body = rows[1:]
    want_rows = 0
    k = 0
    for i, path in enumerate(args.files):
        res = json.load(open(path, encoding="utf-8"))
        env = res["environment"]
        label = args.label[i] if i < len(args.label) else default_label(env)
        drivers = res["drivers"]
        want_rows += len(res["groups"]) * len(drivers)
        for g in res["groups"]:
            for d, drv in enumerate(drivers):
                if k >= len(body):
                    fail(f"{len(body)} rows, want more ({path})")
                row = body[k]
                k += 1
                cell = g["results"][d]
                at = f"row {k + 1} ({path}, {g['suite']} / {g['query']}, {drv['name']})"
                get = lambda name: row[col[name]]
                same_str(get("run"), i + 1, at + " run")
                same_str(get("file"), path, at + " file")
                same_str(get("label"), label, at + " label")
                same_str(get("cpu_model"), env.get("cpu_model"), at + " cpu_model")
                same_str(get("suite"), g["suite"], at + " suite")
                same_str(get("query"), g["query"], at + " query")
                same_str(get("depth"), g["depth"], at + " depth")
                same_str(get("threads"), g.get("threads", 1), at + " threads")
                txn = bool(g.get("transaction", False))
                same_str(get("transaction"), "true" if txn else "false", at + " transaction")
                conn = bool(g.get("connect", False))
                same_str(get("connect"), "true" if conn else "false", at + " connect")
                same_str(get("ops"), g.get("ops") or None, at + " ops")
                kind = "rows_per_txn" if txn else "depth"
                shape = "connect" if conn else f"{kind} {g['depth']}"
                tail = (f", {g['transport']}" if g.get("transport") else "") + \
                    (f", rtt {g['rtt_ms']:g} ms" if g.get("rtt_ms") is not None else "")
                same_str(get("group"), f"{g['suite']} / {g['query']}, {shape}{tail}", at + " group")
                same_str(get("driver"), drv["name"], at + " driver")
                same_str(get("driver"), cell["driver"], at + " driver of the result")
                ref = "reference" in (drv.get("caps") or [])
                same_str(get("reference"), "true" if ref else "false", at + " reference")
                same_str(get("status"), cell["status"], at + " status")
                same_str(get("error"), cell.get("error"), at + " error")
                same_str(get("samples"), cell["samples"], at + " samples")
                same_str(get("queries"), cell["queries"], at + " queries")
                for name, key in (("mean_ns", "mean_ns"), ("rme_pct", "rme_pct"),
                                  ("median_ns", "median_ns"), ("p99_ns", "p99_ns"),
                                  ("ops_per_s", "ops_per_s"),
                                  ("queries_per_s", "queries_per_s"),
                                  ("client_cpu_ns_per_query", "cpu_ns_per_query"),
                                  ("server_cpu_ns_per_query", "server_cpu_ns_per_query")):
                    same_real(get(name), cell.get(key), f"{at} {name}")
                pct = cell.get("percentiles_ns") or {}
                mem = cell.get("memory") or {}
                same_str(get("peak_rss_kib"), mem.get("peak_kib"), at + " peak_rss_kib")
                same_str(get("rss_growth_kib"), mem.get("growth_kib"), at + " rss_growth_kib")
                st, cst = g.get("stream") or {}, cell.get("stream") or {}
                same_str(get("stream"), st.get("mode"), at + " stream")
                same_str(get("stream_rows"), cst.get("rows"), at + " stream_rows")
                same_real(get("first_row_ns"), cst.get("first_row_ns"), at + " first_row_ns")
                same_str(get("memory_verdict"), cst.get("memory_verdict"), at + " memory_verdict")
                same_real(get("bytes_per_row"), cst.get("bytes_per_row"), at + " bytes_per_row")
                wire = cell.get("wire") or {}
                same_real(get("rtt_ms"), g.get("rtt_ms"), at + " rtt_ms")
                for name in ("round_trips", "bytes_out", "bytes_in", "expected_ns"):
                    same_real(get(name), wire.get(name), f"{at} {name}")
                same_str(get("stalls_40ms"), cell.get("stalls_40ms"), at + " stalls_40ms")
                same_real(get("p90_ns"), pct.get("90"), at + " p90_ns")
                same_real(get("p999_ns"), pct.get("99.9"), at + " p999_ns")
                if cell["samples"]:
                    same_str(get("min_ns"), cell["min_ns"], at + " min_ns")
                    same_str(get("max_ns"), cell["max_ns"], at + " max_ns")
                else:
                    same_str(get("min_ns"), None, at + " min_ns")
                for name in ("lowest_median", "winner"):
                    if get(name) not in ("true", "false"):
                        fail(f"{at} {name}: {get(name)!r}")
                if get("lowest_median") == "true":
                    same_real(get("relative_latency"), 1.0, at + " relative_latency")
                if cell["status"] != "ok":
                    same_str(get("relative_latency"), None, at + " relative_latency")
                rel = get("relative_latency")
                if rel and ref is False and float(rel) < 1:
                    fail(f"{at}: a client driver below the group's lowest median: {rel}")
    if len(body) != want_rows:
        fail(f"{len(body)} rows, want {want_rows} (runs x groups x drivers)")
    print(f"csv_check: {len(body)} rows of {len(args.files)} runs match their files")


main()
