"""standalone.py -- one Python client timed in the tightest plain loop Python
allows, outside pgclientbench: no benchmark library, no bridge.
scripts/compare-standalone.sh runs it before and after the runner measures
the same client through the bridge, on the same server, query and pinning,
to show that the bridge adds nothing to what it measures. It shares only the
query text with the adapter (adapters/python/adapter.py): nothing of
pgcb_adapter is imported; the client is set up here with its public API the
way the adapter sets it up for its default options (docs/clients.md):

  psycopg   as pgcb_adapter/clients/psycopg_client.py (Client.connect,
            Client.plan, option pipeline=auto, result_format text):
            psycopg.connect(conninfo, autocommit=True), DEPTH text cursors
            (conn.cursor(binary=False)) reused across batches, every
            execution cursor.execute(sql, None, prepare=True) (a server-side
            prepared statement, _pg3_N), rows by fetchall(). DEPTH 1:
            execute + fetchall. DEPTH > 1: `with conn.pipeline():` the DEPTH
            executes (one Sync for the batch), then fetchall() of each
            cursor in order; without libpq pipeline mode the executes one
            after another, as the adapter falls back. Its C core
            (psycopg-binary), as the venv has it.
  psycopg_python  the same with PSYCOPG_IMPL=python set before psycopg is
            imported: its pure-Python implementation
            (pgcb_adapter/clients/psycopg_python_client.py).
  psycopg2  as pgcb_adapter/clients/psycopg2_client.py (Client.connect,
            Client.plan): psycopg2.connect(make_dsn(...)), autocommit, DEPTH
            cursors reused across batches, each execution cursor.execute(sql)
            (a simple Query: psycopg2 has no prepared statements) and
            fetchall(); DEPTH > 1: one after another.
  asyncpg   as pgcb_adapter/clients/asyncpg_client.py (Client.__init__,
            Client.connect, Client.prepare, Client.plan): one
            asyncio.new_event_loop() (no uvloop), asyncpg.connect(host,
            port, user, password, database, ssl=SSLMODE), stmt = await
            conn.prepare(sql), each execution await stmt.fetch() (binary
            results, its only format). DEPTH 1: one fetch. DEPTH > 1: DEPTH
            fetches one after another (asyncpg runs one query at a time per
            connection), then their rows; the whole run in one coroutine,
            as pgcb_adapter/block.py's run_async holds a whole block.

  Both, as the adapter does by default (its option mmap_threshold,
  pgcb_adapter/malloc.py): glibc malloc's mmap and trim thresholds held at
  1 MiB and 2 MiB before the client is imported; PGCB_MMAP_THRESHOLD=initial
  holds them at glibc's starting 128 KiB, =dynamic leaves glibc's own
  adjustment (then asyncio's 256 KiB read buffer is mapped and unmapped per
  read, or not, by what the process freed before: docs/clients.md).

    build/adapters/python/venv/bin/python3 standalone.py CLIENT DEPTH TIME_MS SQL

CLIENT: psycopg, psycopg_python, psycopg2 or asyncpg (PyPI's, in the Python
adapter's venv: adapters/python/install.sh). DEPTH: executions per batch (an integer >=
1). TIME_MS: how long the timed loop runs. Connection: PGHOST (a socket
directory; default /var/run/postgresql), PGPORT (default 5432), PGUSER,
PGDATABASE, PGPASSWORD if set, PGSSLMODE if set (else disable, what the
bridge hands the adapter for a connection without TLS). One priming batch
(which names the columns), gc.collect(), then an untimed warm-up of 1 s and
at least 200 batches (no collection between it and the timed loop), then
batches for TIME_MS: one time.perf_counter_ns() read per batch (the end of
one is the start of the next), each sample stored in a preallocated
array('Q'), every row consumed with the public benchmark's consume() (every
value read, the sum checked: 1340 a row of benchmark_rows). The process's CPU
time (time.process_time_ns(): every thread) is read just before the first
batch and just after the last. Prints one JSON line: client, depth, batches,
median_ns, mean_ns, p90_ns, cpu_ns_per_query, sink, links (the client's and
the runtime's versions, as the adapter's hello says them).
Bad arguments: a usage line, exit 2. A missing module: the PyPI package
(run scripts/install-deps.sh), exit 1. A failure of the client: one line, exit 1.
"""
import gc
import json
import os
import sys
from array import array
from time import perf_counter_ns, process_time_ns

PROG = "standalone.py"
USAGE = ("usage: build/adapters/python/venv/bin/python3 standalone.py "
         "psycopg|psycopg_python|psycopg2|asyncpg DEPTH TIME_MS SQL")
# client -> (module, PyPI package)
PACKAGES = {"psycopg": ("psycopg", "psycopg[binary]"), "psycopg_python": ("psycopg", "psycopg"),
            "psycopg2": ("psycopg2", "psycopg2-binary"), "asyncpg": ("asyncpg", "asyncpg")}
CAP = 1 << 22  # samples at most, as the Node.js script


def runtime():
    """The interpreter, e.g. "Python 3.11.2" (as pgcb_adapter.runtime)."""
    name = "Python" if sys.implementation.name == "cpython" else sys.implementation.name
    v = sys.version_info
    return "%s %d.%d.%d" % (name, v[0], v[1], v[2])


def hold_malloc(setting):
    """glibc's mmap and trim thresholds fixed for `setting` (raised, initial
    or dynamic), as the adapter's option mmap_threshold: the phrase for
    links, or None for an unknown setting."""
    import ctypes
    values = {"raised": (1 << 20, 2 << 20), "initial": (128 << 10, 128 << 10)}
    if setting == "dynamic":
        return "malloc thresholds: glibc's dynamic ones"
    if setting not in values:
        return None
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return "malloc thresholds: not held (no glibc mallopt)"
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mmap_at, trim_at = values[setting]
    if mallopt(-3, mmap_at) != 1 or mallopt(-1, trim_at) != 1:  # M_MMAP_, M_TRIM_THRESHOLD
        raise OSError("mallopt refused %d / %d" % (mmap_at, trim_at))
    kib = lambda n: "%d MiB" % (n >> 20) if n % (1 << 20) == 0 else "%d KiB" % (n >> 10)
    return "malloc thresholds held: mmap %s, trim %s (%s)" % (kib(mmap_at), kib(trim_at), setting)


def parse_args(argv):
    if len(argv) != 4 or argv[0] not in PACKAGES or not argv[3]:
        return None
    try:
        depth = int(argv[1])
        time_ms = float(argv[2])
    except ValueError:
        return None
    if depth < 1 or not time_ms > 0 or time_ms == float("inf"):
        return None
    return argv[0], depth, time_ms, argv[3]


def conn_settings():
    """The PG* variables: host, port, user, dbname, password, sslmode."""
    env = os.environ
    s = {"host": env.get("PGHOST") or "/var/run/postgresql",
         "port": env.get("PGPORT") or "5432",
         "sslmode": env.get("PGSSLMODE") or "disable"}
    for key, var in (("user", "PGUSER"), ("dbname", "PGDATABASE"), ("password", "PGPASSWORD")):
        if env.get(var):
            s[key] = env[var]
    return s


class Consumer:
    """The public benchmark's consume(): every value of every row, the sum
    checked. Rows are the client's own (psycopg tuples, asyncpg Records),
    read by position: the columns' positions come from their names, once,
    before the warm-up."""

    def __init__(self):
        self.sink = 0
        self.consume = None

    def bind(self, names):
        try:
            iv, sv, nv, bv = (names.index(c) for c in
                              ("int_value", "string_value", "null_value", "bool_value"))
        except ValueError:
            raise RuntimeError("the query's columns %s are not benchmark_rows' "
                               "(int_value, string_value, null_value, bool_value)"
                               % ", ".join(names)) from None

        def consume(rows):
            total = 0
            for r in rows:
                total += r[iv]
                total += len(r[sv])
                total += r[nv] or 0
                total += 1 if r[bv] else 0
            if 1340 * len(rows) != total:
                raise RuntimeError("unexpected sum %d for %d rows" % (total, len(rows)))
            self.sink += total
        self.consume = consume
        return consume


def timed(batch, time_ms):
    """Warm-up, then the timed loop for a blocking client: (samples, n, cpu_ns)."""
    clock = perf_counter_ns
    gc.collect()
    warm_until = clock() + 1000000000
    i = 0
    while i < 200 or clock() < warm_until:
        batch()
        i += 1

    samples = array("Q", [0]) * CAP
    cap = CAP
    n = 0
    cpu0 = process_time_ns()
    stop = clock() + int(round(time_ms * 1e6))
    t0 = clock()
    while True:
        batch()
        t1 = clock()
        samples[n] = t1 - t0
        n += 1
        t0 = t1
        if t1 >= stop or n == cap:
            break
    cpu1 = process_time_ns()
    return samples, n, cpu1 - cpu0


async def timed_async(batch, time_ms):
    """The same for an asyncio client, in one coroutine."""
    clock = perf_counter_ns
    gc.collect()
    warm_until = clock() + 1000000000
    i = 0
    while i < 200 or clock() < warm_until:
        await batch()
        i += 1

    samples = array("Q", [0]) * CAP
    cap = CAP
    n = 0
    cpu0 = process_time_ns()
    stop = clock() + int(round(time_ms * 1e6))
    t0 = clock()
    while True:
        await batch()
        t1 = clock()
        samples[n] = t1 - t0
        n += 1
        t0 = t1
        if t1 >= stop or n == cap:
            break
    cpu1 = process_time_ns()
    return samples, n, cpu1 - cpu0


def run_psycopg(psycopg, depth, time_ms, sql):
    from psycopg import pq
    from psycopg.conninfo import make_conninfo

    impl = {"python": "pure Python", "c": "C core, psycopg-c", "binary": "C core, psycopg-binary"}
    v = pq.version()
    libpq = "%d.%d" % (v // 10000, v % 100) if v >= 100000 else str(v)
    what = impl.get(pq.__impl__, pq.__impl__)
    if pq.__impl__ == "binary":
        import psycopg_binary
        what += " %s" % psycopg_binary.__version__
    links = "psycopg %s (pq.__impl__ %s: %s, libpq %s); %s" % (
        psycopg.__version__, pq.__impl__, what, libpq, runtime())
    use_pipeline = psycopg.Pipeline.is_supported()
    if not use_pipeline:  # as the adapter's hello says it
        why = getattr(psycopg.Pipeline, "_not_supported_reason", None)
        links += " [no pipeline mode: %s]" % (
            (why() if why else None) or "libpq or psycopg's wrapper lacks pipeline mode")

    conn = psycopg.connect(make_conninfo(**conn_settings()), autocommit=True)
    try:
        curs = [conn.cursor(binary=False) for _ in range(depth)]
        ex = [c.execute for c in curs]
        fa = [c.fetchall for c in curs]
        cons = Consumer()

        # Priming: the statement prepared (prepare=True) and its columns named.
        curs[0].execute(sql, None, prepare=True)
        rows = curs[0].fetchall()
        consume = cons.bind([c.name for c in curs[0].description or ()])
        consume(rows)

        if depth == 1:
            ex0, fa0 = ex[0], fa[0]

            def batch():
                ex0(sql, None, prepare=True)
                consume(fa0())
        elif use_pipeline:
            pipe = conn.pipeline

            def batch():
                with pipe():
                    for e in ex:
                        e(sql, None, prepare=True)
                for f in fa:
                    consume(f())
        else:
            ef = list(zip(ex, fa))

            def batch():
                out = []
                for e, f in ef:
                    e(sql, None, prepare=True)
                    out.append(f())
                for rows in out:
                    consume(rows)

        samples, n, cpu_ns = timed(batch, time_ms)
    finally:
        conn.close()
    return samples, n, cpu_ns, cons.sink, links


def run_psycopg2(psycopg2, depth, time_ms, sql):
    import psycopg2.extensions as ext

    v = ext.libpq_version()
    libpq = "%d.%d" % (v // 10000, v % 100) if v >= 100000 else str(v)
    links = "psycopg2 %s (psycopg2-binary: C extension, libpq %s; simple query protocol); %s" % (
        psycopg2.__version__.split()[0], libpq, runtime())
    conn = psycopg2.connect(ext.make_dsn(**conn_settings()))
    try:
        conn.autocommit = True
        curs = [conn.cursor() for _ in range(depth)]
        ex = [c.execute for c in curs]
        fa = [c.fetchall for c in curs]
        cons = Consumer()

        # Priming: the columns named.
        curs[0].execute(sql)
        rows = curs[0].fetchall()
        consume = cons.bind([c.name for c in curs[0].description or ()])
        consume(rows)

        if depth == 1:
            ex0, fa0 = ex[0], fa[0]

            def batch():
                ex0(sql)
                consume(fa0())
        else:
            ef = list(zip(ex, fa))

            def batch():
                out = []
                for e, f in ef:
                    e(sql)
                    out.append(f())
                for rows in out:
                    consume(rows)

        samples, n, cpu_ns = timed(batch, time_ms)
    finally:
        conn.close()
    return samples, n, cpu_ns, cons.sink, links


def run_asyncpg(asyncpg, depth, time_ms, sql):
    import asyncio

    links = "asyncpg %s (binary results), asyncio event loop; %s" % (asyncpg.__version__, runtime())
    s = conn_settings()
    kw = {"host": s["host"], "port": int(s["port"]), "ssl": s["sslmode"]}
    for key, arg in (("user", "user"), ("password", "password"), ("dbname", "database")):
        if key in s:
            kw[arg] = s[key]

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    async def main():
        conn = await asyncpg.connect(**kw)
        try:
            stmt = await conn.prepare(sql)
            fetch = stmt.fetch
            cons = Consumer()
            consume = cons.bind([a.name for a in stmt.get_attributes()])
            consume(await fetch())  # priming, as for psycopg
            rng = range(depth)

            if depth == 1:
                async def batch():
                    consume(await fetch())
            else:
                async def batch():
                    out = [await fetch() for _ in rng]
                    for rows in out:
                        consume(rows)

            samples, n, cpu_ns = await timed_async(batch, time_ms)
        finally:
            await conn.close(timeout=2)
        return samples, n, cpu_ns, cons.sink, links

    try:
        return loop.run_until_complete(main())
    finally:
        loop.close()


def main(argv):
    args = parse_args(argv)
    if args is None:
        print(USAGE, file=sys.stderr)
        return 2
    client, depth, time_ms, sql = args
    setting = os.environ.get("PGCB_MMAP_THRESHOLD") or "raised"
    held = hold_malloc(setting)
    if held is None:
        print("%s: PGCB_MMAP_THRESHOLD=%s: expected raised, initial or dynamic" % (PROG, setting),
              file=sys.stderr)
        return 2
    name, package = PACKAGES[client]
    if client == "psycopg_python":
        os.environ["PSYCOPG_IMPL"] = "python"
    try:
        module = __import__(name)
    except ImportError as e:
        print("%s: %s: cannot import %s into %s (PyPI's %s: run scripts/install-deps.sh)"
              % (PROG, client, e.name or name, sys.executable, package), file=sys.stderr)
        return 1
    run = {"psycopg": run_psycopg, "psycopg_python": run_psycopg, "psycopg2": run_psycopg2,
           "asyncpg": run_asyncpg}[client]
    try:
        samples, n, cpu_ns, sink, links = run(module, depth, time_ms, sql)
        links += "; " + held
    except Exception as e:  # the client's failure, in one line
        msg = " ".join(str(e).split()) or type(e).__name__
        print("%s: %s: %s: %s" % (PROG, client, type(e).__name__, msg), file=sys.stderr)
        return 1

    s = sorted(samples[:n])
    half = n // 2
    median = s[half] if n % 2 else (s[half - 1] + s[half]) / 2

    def rnd(x):  # JavaScript's Math.round, as the Node.js script prints
        return int(x + 0.5) if x >= 0 else -int(-x + 0.5)

    print(json.dumps({
        "client": client, "depth": depth, "batches": n, "median_ns": rnd(median),
        "mean_ns": rnd(sum(s) / n), "p90_ns": rnd(s[min(n - 1, int(0.9 * n))]),
        "cpu_ns_per_query": rnd(cpu_ns / (n * depth)), "sink": sink > 0, "links": links,
    }, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
