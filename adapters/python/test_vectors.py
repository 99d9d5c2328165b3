"""The Python adapter's self-test against the shared bridge test vectors
(tests/vectors/folds.json and frames.json; docs/bridge-protocol.md, "Frames",
"run" and "The fold"): the adapter's OWN code, never a copy of it -- the
fold as a timed block runs it (block.run_sync -> fold.fold_batch, with the
kinds compile_kinds makes of a run's `kinds`), the frame reader and writer
(frames.Channel on a real socket pair), the arrays of a block
(block.Buffers: the arrays frame and the base64 of JSON replies) and, for a
block of no batches, the session's own reply. No server, no network.

    build/adapters/python/venv/bin/python3 build/adapters/python/test_vectors.py [DIR]

DIR (the vectors): the argument, else $PGCB_VECTORS, else tests/vectors (run
from the checkout's top, after make copied this file beside adapter.py). It
prints one line per failed check on stdout, naming the vector, the case and
what the adapter gave against what the vector wants, and as its last line

    vectors: python: F folds, R frames checked

F: the fold cases checked (every case of every vector, once); R: the
entries of frames.json checked (arrays + requests + replies). Exit 0 when
every check passed, 1 otherwise: a missing or unreadable vectors file is a
failure, never a skip. unittest's own summary goes to stderr.
"""
import fcntl
import json
import os
import socket
import struct
import sys
import termios
import threading
import time
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pgcb_adapter.block import Buffers, run_sync  # noqa: E402  (needs the path above)
from pgcb_adapter.fold import compile_kinds  # noqa: E402
from pgcb_adapter.frames import Channel  # noqa: E402
from pgcb_adapter.session import Session  # noqa: E402

VECTORS_DIR = "tests/vectors"  # main() sets it from the argument or PGCB_VECTORS


class Count:
    """What was checked and what failed, for the last line and the exit status."""
    folds = 0
    frames = 0
    failed = 0


def short(v, limit=160):
    """A value for a failure line: JSON (ASCII, so a line stays one line), cut."""
    try:
        s = json.dumps(v, ensure_ascii=True, sort_keys=True)
    except (TypeError, ValueError):
        s = repr(v)
    return s if len(s) <= limit else s[:limit] + "...(%d chars)" % len(s)


def report(where, what, got, want):
    """One failed check: one line on stdout."""
    Count.failed += 1
    print("FAIL %s: %s: got %s, want %s" % (where, what, short(got), short(want)), flush=True)


def same(a, b):
    """Deep equality that also tells true from 1 and 1 from 1.0 (JSON's
    kinds), as a bridge reading the object would."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def load(name, key):
    """The non-empty list `key` of DIR/name; a file that is missing, unreadable
    or without it is a failed check, and fails the test."""
    path = os.path.join(VECTORS_DIR, name)
    try:
        with open(path, encoding="utf-8") as f:
            entries = json.load(f)[key]
        if not isinstance(entries, list) or not entries:
            raise ValueError("%r is not a non-empty array" % key)
        return entries
    except Exception as e:  # noqa: BLE001  (any reason is a failure)
        report(path, "cannot read the vectors", "%s: %s" % (type(e).__name__, e),
               "a JSON object with a non-empty array %r" % key)
        raise AssertionError("cannot read %s" % path) from None


class Checks(unittest.TestCase):
    """Each test checks every entry of its kind, reports each failed check as
    one line, and fails at its end if any did (an exception in the adapter's
    code is one failed check of that entry, not the end of the test)."""

    def setUp(self):
        self.failed_before = Count.failed

    def tearDown(self):
        self.assertEqual(Count.failed, self.failed_before, "failed checks: see the FAIL lines")

    def check(self, where, what, got, want):
        if not same(got, want):
            report(where, what, got, want)

    def guarded(self, where, fn, *args):
        """fn(*args); an exception it raises is a failed check at `where`."""
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001
            report(where, "raised", "%s: %s" % (type(e).__name__, e), "no exception")


# -- the fold ---------------------------------------------------------------

class Other:
    """An opaque non-null value (a date, decimal, uuid ... as a client
    delivers them): kind any, whatever its text."""
    __slots__ = ("text", "type")

    def __init__(self, text, type_name):
        self.text, self.type = text, type_name


def native(v):
    """A dumped value as the Python value a client delivers: None, bool, int
    (any size: {"int": "N"}), float ({"float": "NaN" | "Infinity" |
    "-Infinity" | "-0"}: float() reads those four), str, bytes, a list (an
    array), an opaque object (other)."""
    if v is None or type(v) in (bool, int, float, str):
        return v
    if isinstance(v, list):
        return [native(x) for x in v]
    if isinstance(v, dict):
        if v.keys() == {"int"}:
            return int(v["int"])
        if v.keys() == {"float"}:
            return float(v["float"])
        if v.keys() == {"bytes"}:
            return bytes.fromhex(v["bytes"])
        if "other" in v:
            return Other(v["other"], v.get("type"))
    raise ValueError("not a dump value: %s" % short(v))


def adapter_text_length():
    """The text_length unit the adapter's hello declares (null client: no
    server; mmap_threshold dynamic: the test process's malloc left alone)."""
    reply = Session().handle({"op": "hello", "protocol": 1, "client": "null",
                              "options": {"mmap_threshold": "dynamic"}})
    return reply.get("text_length")


class Folds(Checks):
    def test_folds(self):
        """Every case of every vector: the batch's executions, rows as the
        clients' fetchall() gives them (a list of tuples per execution), folded
        by the adapter's timed block loop with the case's kinds, against the
        fold in the unit the adapter's hello declares."""
        unit = adapter_text_length()
        self.check("hello", "text_length", unit, "codepoints")
        buf = Buffers()
        for vector in load("folds.json", "vectors"):
            name = vector.get("name")
            try:
                batch = [[tuple(native(x) for x in row) for row in result["rows"]]
                         for result in vector["results"]]
            except Exception as e:  # noqa: BLE001
                report("folds.json %r" % name, "results", "%s: %s" % (type(e).__name__, e),
                       "values encoded as in a dump")
                batch = None
            for i, case in enumerate(vector["cases"]):
                Count.folds += 1
                where = "folds.json %r case %d kinds %s" % (name, i, short(case["kinds"]))
                if batch is not None:
                    self.guarded(where, self.fold_case, where, batch, case, unit, buf)

    def fold_case(self, where, batch, case, unit, buf):
        want_rows = sum(len(rows) for rows in batch)
        done, _, exc = run_sync(1, lambda i: batch, compile_kinds(case["kinds"]), buf)
        if exc is not None:
            raise exc
        self.check(where, "batches done", done, 1)
        self.check(where, "rows", buf.rows[0], want_rows)
        self.check(where, "fold[%s]" % unit, buf.folds[0], case["fold"][unit])


# -- frames -----------------------------------------------------------------

def written(write):
    """The bytes that write(channel) puts on one end of a socket pair, read
    whole from the other end (until the writer's end is closed)."""
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    err = []

    def writer():
        try:
            write(Channel(a.fileno()))
        except Exception as e:  # noqa: BLE001
            err.append(e)
        finally:
            a.shutdown(socket.SHUT_WR)
    t = threading.Thread(target=writer)
    t.start()
    parts = []
    try:
        while True:
            chunk = b.recv(1 << 16)
            if not chunk:
                break
            parts.append(chunk)
    finally:
        t.join()
        a.close()
        b.close()
    if err:
        raise err[0]
    return b"".join(parts)


def split_frame(data):
    """(payload, rest) of the first frame of data: its 4-byte big-endian
    length, then that many bytes."""
    if len(data) < 4:
        raise ValueError("%d bytes, no 4-byte length" % len(data))
    n = int.from_bytes(data[:4], "big")
    if len(data) < 4 + n:
        raise ValueError("length %d, but %d bytes follow it" % (n, len(data) - 4))
    return data[4:4 + n], data[4 + n:]


def queued(fd):
    """Bytes waiting in the receive queue of socket fd (FIONREAD)."""
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


# Piece sizes for a frame delivered in pieces: the 4-byte length split 1 + 2
# + 1, then payload pieces of a few bytes and of 4 KiB.
PIECES = (1, 2, 1, 3, 5, 8, 13, 4096)


def decoded(data, in_pieces):
    """What the adapter's frame reader (Channel.read on a socket pair) makes of
    the bytes data: the list of values it read before end of file. In pieces:
    each piece is sent only once the reader has taken the last one, so that
    every read returns part of a length or a payload."""
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    stop = threading.Event()

    def writer():
        try:
            if not in_pieces:
                a.sendall(data)
                return
            i = k = 0
            while i < len(data) and not stop.is_set():
                n = PIECES[k % len(PIECES)]
                a.sendall(data[i:i + n])
                i, k = i + n, k + 1
                deadline = time.monotonic() + 10
                while queued(b.fileno()) and not stop.is_set() and time.monotonic() < deadline:
                    time.sleep(0.00005)
        finally:
            a.shutdown(socket.SHUT_WR)
    t = threading.Thread(target=writer)
    t.start()
    try:
        chan, out = Channel(b.fileno()), []
        while True:
            v = chan.read()
            if v is None:
                return out
            out.append(v)
    finally:
        stop.set()
        t.join()
        a.close()
        b.close()


class Frames(Checks):
    def test_arrays(self):
        """Each block's arrays as a timed block leaves them in Buffers: the
        arrays frame after the run's reply (Session.run: reply[Channel.ARRAYS]
        = buf.raw(done), framed by Channel.encode, sent by write_frame), byte
        for byte; and their base64 in a JSON reply (buf.encoded: dumps and
        failures). With no batches, no frame: the session's reply to a run
        whose first batch failed."""
        buf = Buffers()  # one for all, as a session reuses it
        for a in load("frames.json", "arrays"):
            Count.frames += 1
            self.guarded("frames.json arrays %r" % a.get("name"), self.arrays, a, buf)

    def arrays(self, a, buf):
        where = "frames.json arrays %r" % a["name"]
        n = len(a["samples"])
        if not len(a["rows"]) == len(a["folds"]) == n:
            raise ValueError("samples, rows and folds of different lengths")
        buf.reserve(n)
        for i in range(n):
            buf.samples[i] = int(a["samples"][i])
            buf.rows[i] = int(a["rows"][i])
            buf.folds[i] = a["folds"][i]
        if n == 0:
            return self.no_batches(where, a)
        frame = Channel.encode({"ok": True, Channel.ARRAYS: buf.raw(n), "cpu_ns": 1})
        reply, rest = split_frame(written(lambda ch: ch.write_frame(frame)))
        self.check(where, "the reply's arrays", json.loads(reply).get("arrays"), "frame")
        self.check(where, "arrays frame (hex)", rest.hex(), a["frame_hex"])
        reply, rest = split_frame(Channel.encode(dict({"ok": True}, **buf.encoded(n))))
        got = json.loads(reply)
        self.check(where, "base64 arrays", {k: got.get(k) for k in a["base64"]}, a["base64"])

    def no_batches(self, where, a):
        """n = 0: the null client fails every batch after its first (fail_after
        = 1); a run of one batch then completes none, and its failure reply
        carries the empty arrays in JSON, with no frame after it."""
        s = Session()
        for req in ({"op": "hello", "protocol": 1, "client": "null",
                     "options": {"fail_after": "1", "mmap_threshold": "dynamic"}},
                    {"op": "connect", "conn": None},
                    {"op": "prepare", "stmt": 0, "name": "s", "sql": "SELECT 1 LIMIT 1",
                     "nparams": 0},
                    {"op": "run", "stmt": 0, "depth": 1, "batches": 1, "kinds": None}):
            self.check(where, "setup %s ok" % req["op"], s.handle(req).get("ok"), True)
        reply = s.handle({"op": "run", "stmt": 0, "depth": 1, "batches": 1, "kinds": None})
        self.check(where, "done", reply.get("done"), 0)
        frame = Channel.encode(reply)
        payload, rest = split_frame(written(lambda ch: ch.write_frame(frame)))
        got = json.loads(payload)
        self.check(where, "frames after the reply (hex)", rest.hex() or None, a["frame_hex"])
        self.check(where, "the reply's arrays", got.get("arrays"), None)
        self.check(where, "base64 arrays", {k: got.get(k) for k in a["base64"]}, a["base64"])

    def test_requests(self):
        """Each request frame, alone, read by Channel.read from a socket pair:
        delivered whole, then in pieces; the value it decodes must be the
        request, and end of file must follow. Then all of them back to back on
        one socket."""
        entries = load("frames.json", "requests")
        for r in entries:
            Count.frames += 1
            where = "frames.json requests %r" % r.get("name")
            for in_pieces in (False, True):
                how = "%s, %s" % (where, "in pieces" if in_pieces else "whole")
                self.guarded(how, self.request, how, r, in_pieces)
        where = "frames.json requests: all %d back to back" % len(entries)
        self.guarded(where, lambda: self.check(
            where, "decoded", decoded(b"".join(bytes.fromhex(r["wire_hex"]) for r in entries),
                                      False), [r["request"] for r in entries]))

    def request(self, where, r, in_pieces):
        got = decoded(bytes.fromhex(r["wire_hex"]), in_pieces)
        self.check(where, "decoded, then end of file", got, [r["request"]])

    def test_replies(self):
        """Each reply, framed by Channel.encode and sent by write_frame: one
        frame, its big-endian length the UTF-8 payload's byte count, the
        payload reading back as the reply."""
        for r in load("frames.json", "replies"):
            Count.frames += 1
            where = "frames.json replies %r" % r.get("name")
            self.guarded(where, self.reply, where, r["reply"])

    def reply(self, where, want):
        data = written(lambda ch: ch.write_frame(Channel.encode(want)))
        self.check(where, "length prefix", int.from_bytes(data[:4], "big"), len(data) - 4)
        payload = data[4:]
        self.check(where, "payload", json.loads(payload.decode("utf-8")), want)


def main(argv):
    global VECTORS_DIR
    VECTORS_DIR = argv[1] if len(argv) > 1 else os.environ.get("PGCB_VECTORS") or VECTORS_DIR
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Folds)
    suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(Frames))
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(suite)
    print("vectors: python: %d folds, %d frames checked" % (Count.folds, Count.frames), flush=True)
    return 0 if result.wasSuccessful() and not Count.failed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
