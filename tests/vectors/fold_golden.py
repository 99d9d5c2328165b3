#!/usr/bin/env python3
"""A second implementation of the checksum fold of include/pgcb/driver.h,
written from the header's comments (the documented algorithm), not from the
C: it prints the golden values that tests/unit/test_checksum.c pins for every
fold helper, so that a change to any helper -- which would make every other
test's expected sums move with it -- fails there.

    tests/vectors/fold_golden.py     the values, as C assertions
"""
import struct

M = (1 << 64) - 1
TAG = dict(NULL=1, BOOL=2, INT=3, FLOAT4=4, FLOAT8=5, TEXT=6, ROW=7, TIMESTAMP=8,
           TIMESTAMPTZ=9, DATE=10, TIME=11, INTERVAL=12, UUID=13, NUMERIC=14, JSON=15,
           BYTEA=16, ARRAY=17)


def mix(h, v):
    """h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2); h *= 0xff51afd7ed558ccd (mod 2^64)."""
    v &= M
    h ^= (v + 0x9e3779b97f4a7c15 + ((h << 6) & M) + (h >> 2)) & M
    return (h * 0xff51afd7ed558ccd) & M


def u64(v):  # a signed value as its two's complement 64 bits (sign-extended)
    return v & M


def bytes_(h, b):
    """The length, then 8-byte little-endian words, the tail zero-padded."""
    h = mix(h, len(b))
    for i in range(0, len(b), 8):
        h = mix(h, int.from_bytes(b[i:i + 8].ljust(8, b"\0"), "little"))
    return h


class Sum:
    def __init__(self):
        self.h = 0
        self.rows = 0

    def tagged(self, tag, *vals):
        h = mix(self.h, TAG[tag])
        for v in vals:
            h = mix(h, u64(v))
        self.h = h

    def int_(self, v): self.tagged("INT", v)
    def null(self): self.h = mix(self.h, TAG["NULL"])
    def bool_(self, v): self.tagged("BOOL", 1 if v else 0)
    def text(self, b): self.h = bytes_(mix(self.h, TAG["TEXT"]), b)
    def float8(self, x): self.tagged("FLOAT8", struct.unpack("<Q", struct.pack("<d", x))[0])
    def float4(self, x): self.tagged("FLOAT4", struct.unpack("<I", struct.pack("<f", x))[0])
    def timestamp(self, us): self.tagged("TIMESTAMP", us)
    def timestamptz(self, us): self.tagged("TIMESTAMPTZ", us)
    def date(self, days): self.tagged("DATE", days)
    def time(self, us): self.tagged("TIME", us)
    def interval(self, us, days, months): self.tagged("INTERVAL", us, days, months)

    def uuid(self, b):  # two big-endian halves
        self.tagged("UUID", int.from_bytes(b[:8], "big"), int.from_bytes(b[8:], "big"))

    def numeric(self, cls, scale, digits):
        h = mix(mix(self.h, TAG["NUMERIC"]), cls)
        self.h = bytes_(mix(h, u64(scale)), digits)

    def json(self, b): self.h = bytes_(mix(self.h, TAG["JSON"]), b)
    def bytea(self, b): self.h = bytes_(mix(self.h, TAG["BYTEA"]), b)
    def array(self, n, lbound): self.tagged("ARRAY", n, lbound)

    def row(self):
        self.h = mix(self.h, TAG["ROW"])
        self.rows += 1


def case(name, steps):
    s = Sum()
    steps(s)
    print("    /* %s */ 0x%016xull," % (name, s.h))


if __name__ == "__main__":
    # The existing golden row, as a check of this implementation.
    def row1(s):
        s.int_(1); s.int_(1337); s.text(b"wat"); s.null(); s.bool_(False); s.row()
    case("row1 (pinned before: 0xbc1b38fece8c55f1)", row1)
    case("int -5 (int2, int4 or int8)", lambda s: s.int_(-5))
    case("int INT64_MIN", lambda s: s.int_(-(1 << 63)))
    case("int INT64_MAX", lambda s: s.int_((1 << 63) - 1))
    # 2024-02-29 13:14:15.123456 is 762,527,655,123,456 us after 2000-01-01.
    case("timestamp 2024-02-29 13:14:15.123456", lambda s: s.timestamp(762527655123456))
    case("timestamp -infinity", lambda s: s.timestamp(-(1 << 63)))
    case("timestamptz 1999-12-31 23:59:59 UTC", lambda s: s.timestamptz(-1000000))
    case("timestamptz infinity", lambda s: s.timestamptz((1 << 63) - 1))
    case("date 1970-01-01", lambda s: s.date(-10957))
    case("date infinity", lambda s: s.date((1 << 31) - 1))
    case("time 24:00:00", lambda s: s.time(86400000000))
    case("interval 1 year 2 mons 3 days 04:05:06.789",
         lambda s: s.interval(14706789000, 3, 14))
    case("interval -25:00:00", lambda s: s.interval(-90000000000, 0, 0))
    case("uuid a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
         lambda s: s.uuid(bytes.fromhex("a0eebc999c0b4ef8bb6d6bb9bd380a11")))
    case("numeric 1.50", lambda s: s.numeric(0, 2, b"150"))
    case("numeric -0.001", lambda s: s.numeric(1, 3, b"1"))
    case("numeric 0", lambda s: s.numeric(0, 0, b"0"))
    case("numeric NaN", lambda s: s.numeric(2, 0, b""))
    case("numeric -Infinity", lambda s: s.numeric(4, 0, b""))
    case('json {"a": [1, 2]}', lambda s: s.json(b'{"a": [1, 2]}'))
    case("bytea \\x00ff", lambda s: s.bytea(b"\x00\xff"))
    case("bytea empty", lambda s: s.bytea(b""))

    def arr(s):
        s.array(3, 1); s.int_(1); s.null(); s.int_(3)
    case("int4[] {1,NULL,3}", arr)
    case("int4[] [0:1] head", lambda s: s.array(2, 0))
    case("int4[] {} head", lambda s: s.array(0, 1))
