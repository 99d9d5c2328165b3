"""The bridge's frames: a 4-byte big-endian length N (1 <= N <= 64 MiB), then N
bytes of UTF-8 JSON, one object; both ways, on one file descriptor (a blocking
AF_UNIX stream socket the bridge passes as fd 3).

Contract:
    read()  -> the next request (any JSON value; the session checks it is an
               object), None at end of file between frames. Raises
               FrameError when the stream itself is broken (a bad length,
               end of file inside a frame): the stream cannot be resynced,
               the caller exits. Raises BadPayload when the frame was read
               whole but is not JSON: the stream is still in sync.
    write() -> sends one reply, whole. A reply longer than the limit raises
               FrameTooLarge before anything is sent.
"""
import json
import os

MAX_FRAME = 64 * 1024 * 1024


class FrameError(Exception):
    """The stream is unusable (bad length, cut short)."""


class BadPayload(Exception):
    """A whole frame whose payload is not UTF-8 JSON."""


class FrameTooLarge(Exception):
    """A reply longer than MAX_FRAME."""


class Channel:
    """Frames on one file descriptor, blocking."""

    def __init__(self, fd: int):
        self.fd = fd

    def _read_exact(self, n: int, eof_ok: bool):
        fd = self.fd
        buf = os.read(fd, n)
        if len(buf) == n:
            return buf
        if not buf and eof_ok:
            return None
        parts = [buf]
        got = len(buf)
        while got < n:
            chunk = os.read(fd, min(n - got, 1 << 20))
            if not chunk:
                raise FrameError("end of file after %d of %d bytes" % (got, n))
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    def read(self):
        head = self._read_exact(4, eof_ok=True)
        if head is None:
            return None
        n = int.from_bytes(head, "big")
        if n < 1 or n > MAX_FRAME:
            raise FrameError("frame length %d outside 1..%d" % (n, MAX_FRAME))
        payload = self._read_exact(n, eof_ok=False)
        try:
            return json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise BadPayload("request is not UTF-8 JSON: %s" % e) from None

    # A reply's key for the payload of an arrays frame that follows it (bytes,
    # never in the JSON): encode() writes "arrays": "frame" and that frame.
    ARRAYS = "\0arrays"

    @staticmethod
    def encode(obj: dict) -> bytes:
        """The reply obj (a dict) as a frame. Never emits NaN/Infinity
        (allow_nan=False: ValueError). A lone surrogate in a string
        (undecodable text) becomes "?". A top-level value of type bytes is
        base64 (ASCII that needs no escaping): it is spliced in as a JSON
        string as is, sparing json.dumps a pass over a block's megabytes."""
        arrays = obj.get(Channel.ARRAYS)
        if arrays is not None:
            obj = {k: v for k, v in obj.items() if k != Channel.ARRAYS}
            obj["arrays"] = "frame"
        raw = [(k, v) for k, v in obj.items() if type(v) is bytes]
        if raw:
            obj = {k: v for k, v in obj.items() if type(v) is not bytes}
        text = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        payload = text.encode("utf-8", "replace")
        if raw:
            parts = [payload[:-1]]  # without its closing brace
            sep = b"," if obj else b""
            for k, v in raw:
                parts += (sep, json.dumps(k).encode("ascii"), b':"', v, b'"')
                sep = b","
            parts.append(b"}")
            payload = b"".join(parts)
        if len(payload) > MAX_FRAME or (arrays is not None and len(arrays) > MAX_FRAME):
            raise FrameTooLarge("reply of %d bytes exceeds the %d-byte frame limit"
                                % (len(payload), MAX_FRAME))
        frame = len(payload).to_bytes(4, "big") + payload
        if arrays is not None:
            frame += len(arrays).to_bytes(4, "big") + arrays
        return frame

    def write_frame(self, frame: bytes) -> None:
        view = memoryview(frame)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]
