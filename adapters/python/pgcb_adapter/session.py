"""The request loop (docs/bridge-protocol.md, "The requests, in order").

main() reads requests from PGCB_BRIDGE_FD (3) and answers each with exactly
one reply; it returns 0 at end of file (after dropping the connection) or
after `close`, 1 when the stream breaks (a bad frame length, end of file
inside a frame, the socket gone). Nothing is sent unasked.

Session.handle() turns every outcome into a reply, never an exception: an
AdapterError is its failure reply; any other exception is mapped by the
client (client.failure: query with the SQLSTATE, io when the connection is
broken ...) or, without a client, is kind protocol; its traceback goes to
stderr, which the bridge keeps the tail of. Every failure message is one
line and has the connect request's password replaced by ***.

Order: hello first and once; connect once, after it (with "pool": P, the
client's own pool of P connections); prepare, run, load (a pool only) and
stream (one connection only) after connect; phase and close at any time.
"""
import asyncio
import gc
import os
import sys
import traceback

from . import ADAPTER, ADAPTER_VERSION, PROTOCOL, clients, malloc, runtime
from .block import Buffers
from .dump import encode_result
from .errors import AdapterError, describe_exception
from .fold import ColumnFold, compile_kinds
from .frames import BadPayload, Channel, FrameError, FrameTooLarge
from .load import CLOSED, RATE, LoadSpec
from .stream import BUFFERED, STREAMED

_RUN_FIELDS = ("done", "samples", "rows", "folds", "cpu_ns")


def _int(req, key, lo, default=None):
    v = req.get(key, default)
    if type(v) is not int or v < lo:
        raise AdapterError("protocol", "%s: %s must be an integer >= %d, got %r"
                           % (req.get("op"), key, lo, v))
    return v


class Session:
    def __init__(self):
        self.client = None
        self.client_name = None
        self.connected = False
        self.stmts = {}
        self.password = None
        self.buf = Buffers()
        self.closed = False
        self.last_done = 0
        self.pool = None  # P of a pool connect, else None
        self.handlers = {"hello": self.hello, "connect": self.connect, "prepare": self.prepare,
                         "run": self.run, "load": self.load, "stream": self.stream,
                         "phase": self.phase, "close": self.close}

    # -- plumbing ---------------------------------------------------------

    def scrub(self, msg: str) -> str:
        """msg with the password replaced by ***. As the bridge does, a
        password shorter than 3 characters is left alone: replacing it would
        garble every message (and no client quotes passwords)."""
        if self.password and len(self.password) >= 3:
            msg = msg.replace(self.password, "***")
        return msg

    def handle(self, req) -> dict:
        try:
            if not isinstance(req, dict):
                raise AdapterError("protocol", "request is not a JSON object")
            op = req.get("op")
            handler = self.handlers.get(op) if isinstance(op, str) else None
            if handler is None:
                if isinstance(op, str):
                    raise AdapterError("unsupported", "unknown op %r (protocol %d: %s)"
                                       % (op, PROTOCOL, ", ".join(self.handlers)))
                raise AdapterError("protocol", "request without a string op")
            return handler(req)
        except AdapterError as e:
            return self._as_run(req, e.reply(self.scrub))
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            if self.client is not None and self.connected:
                try:
                    return self._as_run(req, self.client.failure(e).reply(self.scrub))
                except Exception:
                    traceback.print_exc(file=sys.stderr)
            return self._as_run(req, AdapterError(
                "protocol", "internal error: %s" % describe_exception(e)).reply(self.scrub))

    def _as_run(self, req, reply):
        """A failed run always says how many batches completed: a failure
        before the first batch (a bad request ...) completed none."""
        op = req.get("op") if isinstance(req, dict) else None
        if op == "run" and "done" not in reply:
            reply.update(done=0, samples="", rows="", folds="", cpu_ns=0)
        elif op == "load" and "done" not in reply:
            reply.update(done=0, wall_ns=0, cpu_ns=0, late_ns=0)
        elif op == "stream" and "rows" not in reply:
            reply["rows"] = 0
        return reply

    def too_large(self, reply: dict, exc) -> dict:
        """The failure sent instead of a reply that exceeds the frame limit (a
        huge dump): the block's own fields are kept."""
        out = AdapterError("unsupported", str(exc)).reply(self.scrub)
        for k in _RUN_FIELDS:
            if k in reply:
                out[k] = reply[k]
        if "samples" in reply and "done" not in reply:
            out["done"] = self.last_done
        return out

    def terminate(self) -> None:
        if self.client is not None:
            self.client.terminate()

    def _need_connection(self, op):
        if not self.connected:
            raise AdapterError("protocol", "%s before connect" % op)

    # -- requests ---------------------------------------------------------

    def hello(self, req):
        if self.client is not None:
            raise AdapterError("protocol", "hello was already answered")
        proto = req.get("protocol")
        if type(proto) is not int:
            raise AdapterError("protocol", "hello: protocol must be an integer")
        if proto != PROTOCOL:
            raise AdapterError("unsupported", "the Python adapter speaks bridge protocol %d, "
                               "not %d" % (PROTOCOL, proto))
        options = req.get("options")
        if options is None:
            options = {}
        if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
            raise AdapterError("config", "hello: options must be an object of strings")
        result_format = req.get("result_format")
        if result_format not in (None, "text", "binary"):
            raise AdapterError("protocol", "hello: result_format must be \"text\" or "
                               "\"binary\", not %r" % (result_format,))
        name = req.get("client")
        module_dir = req.get("module_dir")
        if module_dir is not None and not isinstance(module_dir, str):
            raise AdapterError("protocol", "hello: module_dir must be a string")
        if module_dir is not None:
            clients.use_module_dir(name, module_dir)
        cls = clients.load(name)
        client = cls(options, result_format)
        try:
            held = malloc.hold(client.opts["mmap_threshold"])
        except OSError as e:
            raise AdapterError("config", "option mmap_threshold = %s: %s"
                               % (client.opts["mmap_threshold"], e)) from None
        reply = {"ok": True, "protocol": PROTOCOL, "adapter": ADAPTER,
                 "adapter_version": ADAPTER_VERSION, "runtime": runtime(), "client": name}
        reply.update(client.info())
        reply["links"] = "%s; %s" % (reply.get("links"), held)
        if module_dir is not None:
            reply["links"] = "%s; loaded from %s" % (reply.get("links"),
                                                    clients.loaded_from(name))
        reply["no_io"] = client.no_io
        reply["load"] = client.load
        reply["stream"] = client.stream
        reply["text_length"] = "codepoints"
        wire = client.wire()
        if wire is not None:
            reply["wire"] = wire
        self.client, self.client_name = client, name
        return reply

    def connect(self, req):
        if self.client is None:
            raise AdapterError("protocol", "connect before hello")
        if self.connected:
            raise AdapterError("protocol", "connect was already answered")
        conn = req.get("conn")
        if conn is not None and not isinstance(conn, dict):
            raise AdapterError("protocol", "connect: conn must be an object or null")
        if conn and isinstance(conn.get("password"), str):
            self.password = conn["password"]
        pool = None
        if "pool" in req:
            pool = _int(req, "pool", 1)
            if not self.client.load:
                raise AdapterError("unsupported", "client %s has no pool (hello said load: "
                                   "false)" % self.client_name)
        try:
            self.client.connect(conn, pool)
        except AdapterError:
            raise
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            raise AdapterError("connect", describe_exception(e)) from None
        self.connected = True
        self.pool = pool
        return {"ok": True}

    def prepare(self, req):
        self._need_connection("prepare")
        number = _int(req, "stmt", 0)
        name, sql = req.get("name", ""), req.get("sql")
        if not isinstance(sql, str) or not isinstance(name, str):
            raise AdapterError("protocol", "prepare: sql and name must be strings")
        nparams = _int(req, "nparams", 0, default=0)
        self.stmts.pop(number, None)
        self.stmts[number] = self.client.prepare(number, name, sql, nparams)
        return {"ok": True}

    def _stmt(self, req, key):
        number = req.get(key)
        if type(number) is not int or number not in self.stmts:
            raise AdapterError("protocol", "%s: %s %r is not a prepared statement"
                               % (req.get("op"), key, number))
        return self.stmts[number]

    def run(self, req):
        self._need_connection("run")
        client = self.client
        st = self._stmt(req, "stmt")
        depth = _int(req, "depth", 1)
        batches = _int(req, "batches", 1)
        begin = commit = None
        if req.get("begin") is not None or req.get("commit") is not None:
            begin, commit = self._stmt(req, "begin"), self._stmt(req, "commit")
        try:
            kinds = compile_kinds(req.get("kinds"))
        except ValueError as e:
            raise AdapterError("protocol", "run: %s" % e) from None
        dump = req.get("dump", False)
        if type(dump) is not bool:
            raise AdapterError("protocol", "run: dump must be a boolean")
        if dump and batches != 1:
            raise AdapterError("protocol", "run: a dump needs batches = 1, got %d" % batches)
        params = req.get("params")
        if params is not None:
            if (not isinstance(params, list) or len(params) != batches * depth
                    or not all(isinstance(p, list) for p in params)):
                raise AdapterError("protocol", "run: params must be batches x depth = %d arrays"
                                   % (batches * depth))
            for p in params:
                for v in p:
                    if v is not None and not isinstance(v, str):
                        raise AdapterError("protocol", "run: a parameter is %r, not a string "
                                           "or null" % (v,))

        # Parameter counts, checked before timing: the first execution that
        # binds the wrong number fails its batch as the server refuses a Bind.
        runnable, pending = batches, None
        want = client.param_count(st)
        if want is not None and (params is not None or want):
            for idx in range(batches * depth):
                got = len(params[idx]) if params is not None else 0
                if got != want:
                    runnable = idx // depth
                    pending = AdapterError(
                        "query", 'bind message supplies %d parameters, but prepared statement '
                        '"" requires %d' % (got, want), "08P01")
                    break

        plan = client.plan(st, depth, begin, commit, params, runnable)
        if plan.runnable < runnable or plan.pending is not None:
            runnable, pending = plan.runnable, plan.pending
        kept = None
        if dump:
            kept = []
            inner = plan.batch
            if asyncio.iscoroutinefunction(inner):
                async def keep(i):
                    r = await inner(i)
                    kept.append(r)
                    return r
            else:
                def keep(i):
                    r = inner(i)
                    kept.append(r)
                    return r
            plan.batch = keep

        buf = self.buf
        buf.reserve(runnable)
        try:
            done, cpu_ns, exc = client.run_block(runnable, plan, kinds, buf)
            self.last_done = done
            if exc is not None:
                if not isinstance(exc, AdapterError):
                    pending = client.failure(exc)
                else:
                    pending = exc
        finally:
            client.release_run()
        if pending is not None:
            reply = pending.reply(self.scrub)
            reply["done"] = done
            reply.update(buf.encoded(done))
            reply["cpu_ns"] = cpu_ns
            return reply
        reply = {"ok": True}
        if dump:
            reply.update(buf.encoded(done))
        else:  # the arrays in a frame of their own: nothing to encode
            reply[Channel.ARRAYS] = buf.raw(done)
        reply["cpu_ns"] = cpu_ns
        if dump:
            jp = bool(getattr(self.client, "json_parsed", False))
            reply["results"] = [encode_result(plan.columns(k), rows, jp)
                                for k, rows in enumerate(kept[-1])]
        return reply

    def load(self, req):
        """A timed load over the pool (docs/bridge-protocol.md, "load"): the
        reply, then the arrays frame of the queries that completed."""
        self._need_connection("load")
        if self.pool is None:
            raise AdapterError("protocol", "load: connect had no pool (\"pool\": P)")
        client = self.client
        st = self._stmt(req, "stmt")
        mode = req.get("mode")
        if mode not in (CLOSED, RATE):
            raise AdapterError("protocol", "load: mode must be \"closed\" or \"rate\", not %r"
                               % (mode,))
        concurrency = _int(req, "concurrency", 1)
        rate = req.get("rate", 0)
        if type(rate) not in (int, float) or rate < 0 or (mode == RATE and not rate > 0):
            raise AdapterError("protocol", "load: rate must be a number (> 0 in rate mode), "
                               "got %r" % (rate,))
        duration_ns = _int(req, "duration_ns", 0)
        min_queries = _int(req, "min_queries", 0, default=0)
        max_queries = _int(req, "max_queries", 1)
        try:
            kinds = compile_kinds(req.get("kinds"))
        except ValueError as e:
            raise AdapterError("protocol", "load: %s" % e) from None
        params = req.get("params")
        if params is not None:
            if (not isinstance(params, list) or len(params) < max_queries
                    or not all(isinstance(p, list) for p in params)):
                raise AdapterError("protocol", "load: params must be max_queries = %d arrays"
                                   % max_queries)
            params = params[:max_queries]
            for p in params:
                for v in p:
                    if v is not None and not isinstance(v, str):
                        raise AdapterError("protocol", "load: a parameter is %r, not a string "
                                           "or null" % (v,))
        # As in run: a query that binds the wrong number of parameters is
        # where issuing stops; the server's refusal is reported after the
        # queries before it.
        limit, pending = max_queries, None
        want = client.param_count(st)
        if want is not None and (params is not None or want):
            for idx in range(max_queries):
                got = len(params[idx]) if params is not None else 0
                if got != want:
                    limit = idx
                    pending = AdapterError(
                        "query", 'bind message supplies %d parameters, but prepared statement '
                        '"" requires %d' % (got, want), "08P01")
                    break
        spec = LoadSpec(mode, concurrency, float(rate), duration_ns, min_queries, limit, pending)
        buf = self.buf
        buf.reserve(max_queries)
        done, wall_ns, cpu_ns, late_ns, exc = client.run_load(st, spec, params, kinds, buf)
        pending = spec.pending  # the client may have found an earlier one (its parameters)
        if exc is not None:
            pending = exc if isinstance(exc, AdapterError) else client.load_failure(exc)
        reply = pending.reply(self.scrub) if pending is not None else {"ok": True}
        reply.update(done=done, wall_ns=wall_ns, cpu_ns=cpu_ns, late_ns=late_ns)
        if done:  # a frame is never empty: a failure before any query has none
            reply[Channel.ARRAYS] = buf.raw(done)
        return reply

    def stream(self, req):
        """One whole result, buffered or streamed (docs/bridge-protocol.md,
        "stream"): its rows, timings, idiom and per-column fold, or the
        failure with the rows delivered before it."""
        self._need_connection("stream")
        client = self.client
        st = self._stmt(req, "stmt")
        mode = req.get("mode")
        if mode not in (BUFFERED, STREAMED):
            raise AdapterError("protocol", "stream: mode must be \"buffered\" or \"streamed\", "
                               "not %r" % (mode,))
        fetch = _int(req, "fetch", 1)
        params = req.get("params")
        if params is not None:
            if not isinstance(params, list) or not all(
                    v is None or isinstance(v, str) for v in params):
                raise AdapterError("protocol", "stream: params must be an array of strings "
                                   "and nulls")
        if not client.stream:
            raise AdapterError("unsupported", "client %s cannot stream results (%s)" % (
                self.client_name, "it talks to no server" if client.no_io
                else "hello said stream: false"))
        if self.pool is not None:
            raise AdapterError("unsupported", "stream: reads on one connection; this one "
                               "connected with a pool (\"pool\": %d)" % self.pool)
        # As in run: the wrong number of parameters is the server's refusal.
        want = client.param_count(st)
        got = len(params) if params is not None else 0
        if want is not None and got != want:
            raise AdapterError("query", 'bind message supplies %d parameters, but prepared '
                               'statement "" requires %d' % (got, want), "08P01")
        fold = ColumnFold()
        idiom, first_ns, total_ns, cpu_ns, exc = client.run_stream(st, mode, fetch, params, fold)
        if exc is not None:
            pending = exc if isinstance(exc, AdapterError) else client.failure(exc)
            reply = pending.reply(self.scrub)
            reply["rows"] = fold.rows
            return reply
        return {"ok": True, "rows": fold.rows, "first_row_ns": first_ns, "total_ns": total_ns,
                "cpu_ns": cpu_ns, "idiom": idiom, "columns": fold.columns()}

    def phase(self, req):
        # Garbage is collected before a group's warm-up only, never right
        # before an execution order: each order runs in the state the warm-up
        # left (docs/bridge-protocol.md, "phase").
        if req.get("phase") != "warmup":
            return {"ok": True, "gc": False}
        gc.collect()
        if self.client is not None:
            self.client.phase()
        return {"ok": True, "gc": True}

    def close(self, req):
        self.closed = True
        if self.client is not None:
            try:
                self.client.close()
            except Exception:
                traceback.print_exc(file=sys.stderr)
        return {"ok": True}


def main() -> int:
    try:
        fd = int(os.environ.get("PGCB_BRIDGE_FD", "3"))
    except ValueError:
        fd = 3
    chan = Channel(fd)
    session = Session()
    while True:
        try:
            req = chan.read()
        except BadPayload as e:
            reply = AdapterError("protocol", str(e)).reply()
        except (FrameError, OSError) as e:
            print("pgcb python adapter: fd %d: %s" % (fd, e), file=sys.stderr)
            session.terminate()
            return 1
        else:
            if req is None:
                session.terminate()
                return 0
            reply = session.handle(req)
        try:
            frame = chan.encode(reply)
        except FrameTooLarge as e:
            frame = chan.encode(session.too_large(reply, e))
        except ValueError as e:
            frame = chan.encode(AdapterError(
                "protocol", "internal error: reply not encodable: %s" % e).reply())
        try:
            chan.write_frame(frame)
        except OSError as e:
            print("pgcb python adapter: fd %d: %s" % (fd, e), file=sys.stderr)
            session.terminate()
            return 1
        if session.closed:
            return 0
