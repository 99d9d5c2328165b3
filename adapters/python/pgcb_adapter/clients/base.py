"""What every client implements; the session drives it.

Lifecycle: Client(options, result_format) at hello (a bad option: AdapterError config),
info() for hello's reply, connect(conn, pool) once, prepare(...) per statement,
then per run: plan(...) outside timing, run_block(...) timed, describe(...)
for a dump, failure(exc) when a batch raised, release_run() at the end (a
pool's connection held for the run goes back); per load (a pool only, when
the class says load = True): run_load(...) timed; per stream (one
connection, when the class says stream = True): run_stream(...) timed, then
failure(exc) when it failed; phase() for gc; close() at `close`,
terminate() at end of file.
"""
from ..errors import AdapterError
from ..malloc import CHOICES as MALLOC_CHOICES


class Plan:
    """One run's batches, built outside the timed loop.

    batch     callable i -> the list of the executions' row lists of batch i
              (a coroutine function for an async client)
    runnable  batches that may run (fewer than asked when the parameters of
              batch `runnable` cannot be bound: then `pending` is its error)
    pending   AdapterError to report after the `runnable` batches, or None
    columns   callable k -> [(name, type oid)] of execution k of the last
              batch, for dumps
    """

    __slots__ = ("batch", "runnable", "pending", "columns")

    def __init__(self, batch, runnable, pending=None, columns=None):
        self.batch = batch
        self.runnable = runnable
        self.pending = pending
        self.columns = columns or (lambda k: [])


# The keys of a connect request (docs/bridge-protocol.md, "connect").
CONN_KEYS = ("host", "port", "user", "password", "dbname", "application_name", "options",
             "sslmode")


def check_conn(conn, client: str) -> dict:
    """The connect request's settings, checked: a dict of strings with known
    keys (AdapterError otherwise)."""
    if conn is None:
        raise AdapterError("config", "client %s needs a server (connect had conn null)" % client)
    for k, v in conn.items():
        if k not in CONN_KEYS:
            raise AdapterError("protocol", "connect: unknown key %r (known: %s)"
                               % (k, ", ".join(CONN_KEYS)))
        if not isinstance(v, str):
            raise AdapterError("protocol", "connect: %s is not a string" % k)
    return conn


class Client:
    name = "?"
    no_io = False
    load = False  # hello "load": connect with a pool, and the load request
    stream = False  # hello "stream": the stream request (run_stream)
    json_parsed = False  # json/jsonb values delivered parsed (dump.encode_result)
    options = {}  # option name -> (default, allowed values or None, help)
    # Options every client takes (the session applies them), beside its own.
    common_options = {"mmap_threshold": ("raised", MALLOC_CHOICES,
                                         "glibc malloc's mmap and trim thresholds, held: raised "
                                         "(1 MiB / 2 MiB), initial (128 KiB, a fresh process's) "
                                         "or dynamic (glibc's own adjustment): pgcb_adapter/malloc.py")}

    def __init__(self, options: dict, result_format=None):
        # hello's result_format: "text", "binary", or None (not asked: the
        # client's own default). A client that cannot choose ignores it and
        # says what it does in wire().
        self.result_format = result_format
        known = dict(self.common_options, **self.options)
        self.opts = {k: v[0] for k, v in known.items()}
        for key, value in options.items():
            if key not in known:
                raise AdapterError("config", "unknown option %r (= %r); %s knows %s" % (
                    key, value, self.name, ", ".join(known) if known else "no options"))
            allowed = known[key][1]
            if allowed is not None and value not in allowed:
                raise AdapterError("config", "option %s = %r: expected %s" % (
                    key, value, " or ".join(allowed)))
            self.opts[key] = value

    # hello: {"client_version", "links", "pipeline"}
    def info(self) -> dict:
        raise NotImplementedError

    def wire(self):
        """hello's "wire": what the client really sends the server, a dict of
        result_format (text | binary), describe (per_execution | once), sync
        (per_query | per_batch), statements (named | unnamed) -- read in the
        client's source and checked on the wire by
        tests/server/test_wire_claims.c. None: nothing to say (no I/O)."""
        return None

    def connect(self, conn, pool=None) -> None:
        """pool None: one connection; P >= 1: the client's own pool of P
        connections, every one open before this returns (load = True)."""
        raise NotImplementedError

    def prepare(self, number: int, name: str, sql: str, nparams: int):
        """A statement object (opaque to the session)."""
        raise NotImplementedError

    def param_count(self, stmt):
        """How many parameters an execution of stmt binds, to check each
        params entry before timing; None: no check (the null client)."""
        raise NotImplementedError

    def plan(self, stmt, depth, begin, commit, params, runnable) -> Plan:
        """The run's Plan. params: None or a list of batches*depth lists of
        str/None, already checked against param_count; runnable: how many
        batches have valid parameters."""
        raise NotImplementedError

    def run_block(self, n, plan, kinds, buf):
        """(done, cpu_ns, exc) of n batches of plan: block.run_sync/run_async."""
        raise NotImplementedError

    def failure(self, exc) -> AdapterError:
        """The failure reply for an exception a batch raised (or a request
        raised), after making the connection usable again when it is not
        broken (a failed transaction rolled back, a pipeline left)."""
        raise NotImplementedError

    def release_run(self) -> None:
        """The run is over (its failure, if any, handled): give back what
        plan() took for it (a pool's connection)."""

    def run_load(self, stmt, spec, params, kinds, buf):
        """(done, wall_ns, cpu_ns, late_ns, exc) of a timed load (load.run_load)
        of stmt over the pool; params None or one list of str/None per query
        (max_queries of them), checked against param_count up to spec.limit.
        A client that converts parameters before the load and cannot convert
        those of query k < spec.limit sets spec.limit = k and spec.pending to
        the error. exc is the first failure, for load_failure()."""
        raise AdapterError("unsupported", "client %s cannot run loads" % self.name)

    def run_stream(self, stmt, mode, fetch, params, fold):
        """(idiom, first_ns, total_ns, cpu_ns, exc) of one execution of stmt
        read whole (stream.read_sync/read_async) in mode "buffered" (the
        client's default call) or "streamed" (its streaming idiom, `fetch`
        rows per round trip where it fetches in chunks), every row folded
        into fold (a fold.ColumnFold); params None or one list of str/None,
        checked against param_count; idiom the reply's line. exc, the
        failure, is for failure(), after the idiom's own clean-up (its
        cursor closed, its transaction rolled back)."""
        raise AdapterError("unsupported", "client %s cannot stream results" % self.name)

    def load_failure(self, exc) -> AdapterError:
        """The failure reply for an exception a query of a load raised; the
        pool stays usable after kind query."""
        return self.failure(exc)

    def phase(self) -> None:
        pass

    def close(self) -> None:
        pass

    def terminate(self) -> None:
        """End of file: drop the connection at once, quietly."""
        try:
            self.close()
        except Exception:
            pass


# The `loop` option of the asyncio clients: the event loop a client's
# coroutines run on.
LOOP_OPTION = ("asyncio", ("asyncio", "uvloop"),
               "the event loop: asyncio's own selector loop, or uvloop (PyPI's, in the "
               "adapter's venv; MagicStack's pgbench runs its Python drivers on uvloop)")


def check_loop(kind):
    """AdapterError config when the loop `kind` cannot be made here."""
    if kind == "uvloop":
        try:
            import uvloop  # noqa: F401
        except ImportError:
            raise AdapterError("config", "option loop = uvloop: uvloop is not installed "
                               "(adapters/python/install.sh installs it from PyPI)") from None


def new_loop(kind):
    """A new event loop of `kind` ("asyncio" or "uvloop"), made the current
    one. uvloop missing: AdapterError config naming the package."""
    import asyncio
    check_loop(kind)
    if kind == "uvloop":
        import uvloop
        loop = uvloop.new_event_loop()
    else:
        loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    return loop


def loop_links(kind):
    """What `links` says of the loop."""
    if kind != "uvloop":
        return "asyncio event loop"
    import uvloop
    return "uvloop %s event loop" % uvloop.__version__
