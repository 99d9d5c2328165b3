"""glibc malloc's mmap and trim thresholds, held for the adapter's life.

Why: asyncio's selector transport reads with sock.recv(256 KiB) (its
max_size), a fresh bytes object per read, shrunk to what arrived. Whether
glibc serves that block from the heap or maps it (mmap, then mremap to
shrink, munmap when freed: three system calls and a page fault per read)
depends on thresholds that glibc moves by itself: each time the process
frees a mapped block larger than the mmap threshold, the threshold becomes
that block's size and the trim threshold twice it (glibc's "dynamic mmap
threshold"). So the client's cost per query depended on what the process
had happened to free before: the adapter's imports (three .pyc files of
140-204 KiB raised it) against the standalone loop's fewer ones. At LIMIT 1
asyncpg cost 20-30 us more CPU a query in the loop (mmap + mremap + munmap per
read, strace -c) than through the bridge (one in eleven reads); see
docs/clients.md, "Python: the allocator's thresholds", and CPython issue
85451, which reports the same pattern.

hold(setting) fixes both thresholds with mallopt() (which also switches
glibc's adjustment off), so that nothing the process frees later moves them:

    raised   (the default) mmap 1 MiB, trim 2 MiB: where glibc's own
             adjustment leaves a process once it has freed a block of 1 MiB,
             as a long-running application has; asyncio's read buffer comes
             from the heap
    initial  mmap 128 KiB, trim 128 KiB: glibc's values at process start;
             every read of asyncio's transport maps and unmaps its buffer
    dynamic  not touched: glibc's own adjustment, wherever the process's
             history takes it

It returns what `links` says of it. Not glibc (no mallopt in the C library):
the thresholds do not exist there; said, not an error.
"""
import ctypes

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
# setting -> (mmap threshold, trim threshold), bytes
SETTINGS = {"raised": (1 << 20, 2 << 20), "initial": (128 << 10, 128 << 10)}
CHOICES = ("raised", "initial", "dynamic")


def _kib(n):
    return "%d MiB" % (n >> 20) if n % (1 << 20) == 0 else "%d KiB" % (n >> 10)


def hold(setting: str) -> str:
    """Fix glibc's thresholds for `setting` (one of CHOICES); the phrase for
    links. Raises ValueError for another setting, OSError if mallopt
    refuses a value."""
    if setting not in CHOICES:
        raise ValueError("expected %s" % " or ".join(CHOICES))
    if setting == "dynamic":
        return "malloc thresholds: glibc's dynamic ones"
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return "malloc thresholds: not held (no glibc mallopt)"
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    mmap_at, trim_at = SETTINGS[setting]
    for param, value in ((M_MMAP_THRESHOLD, mmap_at), (M_TRIM_THRESHOLD, trim_at)):
        if mallopt(param, value) != 1:
            raise OSError("mallopt(%d, %d) failed" % (param, value))
    return "malloc thresholds held: mmap %s, trim %s (%s)" % (_kib(mmap_at), _kib(trim_at), setting)
