"""Unit test of scripts/profile/foldlib.py (fold.py's logic) on hand-made samples
shaped like perf 6.1's process_event(param_dict): frame names and suffixes,
the categories of every kind of leaf, the folded text and top.tsv.

    /usr/bin/python3 tests/profile/test_foldlib.py       (tests/server/profile_foldlib.sh)
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "profile"))
import foldlib  # noqa: E402

K = 0xffffffff81000000  # a kernel address
LIBPQ = "/usr/lib/x86_64-linux-gnu/libpq.so.5.15"
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
RUNNER = "/work/x/build/runner"
DRIVER = "/work/x/build/drivers/libpq_sync.so"
PG = "/usr/lib/postgresql/15/bin/postgres"
NODE = "/usr/bin/node"
GO = "/work/x/build/adapters/go/pgcb-adapter-go"
ASYNCPG = "/usr/lib/python3/dist-packages/asyncpg/protocol/protocol.cpython-311-x86_64-linux-gnu.so"


def fr(sym, dso, ip=0x1000):
    """One callchain entry as perf gives it (no 'sym' when unresolved, no 'dso' when unmapped)."""
    e = {"ip": ip}
    if sym is not None:
        e["sym"] = {"name": sym, "start": 0, "end": 0, "binding": 1}
    if dso is not None:
        e["dso"] = dso
    return e


def sample(comm, *leaf_first):
    return {"comm": comm, "sample": {"pid": 1, "tid": 1, "ip": leaf_first[0]["ip"] if leaf_first else 0},
            "callchain": list(leaf_first)}


class FrameNames(unittest.TestCase):
    def test_resolved_unresolved_unknown(self):
        self.assertEqual(foldlib.make_frame(0x1, "PQgetResult", LIBPQ).folded(), "PQgetResult")
        self.assertEqual(foldlib.make_frame(0x1, None, LIBPQ).folded(), "[libpq.so.5.15]")
        self.assertEqual(foldlib.make_frame(0x1, None, None).folded(), "[unknown]")
        self.assertEqual(foldlib.make_frame(0x1, None, "[unknown]").folded(), "[unknown]")

    def test_kernel_and_jit_suffixes(self):
        self.assertEqual(foldlib.make_frame(K, "do_syscall_64", "[kernel.kallsyms]").folded(), "do_syscall_64_[k]")
        self.assertEqual(foldlib.make_frame(K, None, None).folded(), "[unknown]_[k]")
        self.assertEqual(foldlib.make_frame(0x7f00, "JS:*parse a.js:1", "/tmp/perf-42.map").folded(), "JS:*parse a.js:1_[j]")
        self.assertEqual(foldlib.make_frame(0x7f00, None, "/tmp/perf-42.map").folded(), "[perf-42.map]_[j]")
        # [vdso] is user space
        self.assertEqual(foldlib.make_frame(0x7fff0000, "__vdso_clock_gettime", "[vdso]").kind, "")

    def test_names_cannot_break_a_line(self):
        self.assertEqual(foldlib.make_frame(1, "a;b\nc\td", RUNNER).folded(), "a:b c d")


class Categories(unittest.TestCase):
    def cat(self, sym, dso, ip=0x1000, go=()):
        return foldlib.category(foldlib.make_frame(ip, sym, dso), frozenset(go))

    def test_every_category(self):
        self.assertEqual(self.cat("finish_task_switch", "[kernel.kallsyms]", K), "kernel")
        self.assertEqual(self.cat("nf_hook", "[nf_tables]", K), "kernel")
        self.assertEqual(self.cat(None, LIBPQ), "libpq")
        self.assertEqual(self.cat("PQgetvalue", LIBPQ), "libpq")
        self.assertEqual(self.cat("__memcpy_avx_unaligned", LIBC), "libc")
        self.assertEqual(self.cat("sqrt", "/usr/lib/x86_64-linux-gnu/libm.so.6"), "libc")
        self.assertEqual(self.cat("_dl_relocate", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"), "libc")
        self.assertEqual(self.cat(None, "/usr/lib/x86_64-linux-gnu/libpthread.so.0"), "libc")
        self.assertEqual(self.cat("SSL_read", "/usr/lib/x86_64-linux-gnu/libssl.so.3"), "openssl")
        self.assertEqual(self.cat(None, "/usr/lib/x86_64-linux-gnu/libcrypto.so.3"), "openssl")
        self.assertEqual(self.cat("pgcb_sum_mix", DRIVER), "driver")
        self.assertEqual(self.cat("pgcb_measure_block", RUNNER), "runner")
        self.assertEqual(self.cat("PortalRun", PG), "postgres")
        self.assertEqual(self.cat("plpgsql_exec_function", "/usr/lib/postgresql/15/lib/plpgsql.so"), "postgres")
        self.assertEqual(self.cat("Builtins_LoadIC", NODE), "node")
        self.assertEqual(self.cat("uv__io_poll", NODE), "libuv")
        self.assertEqual(self.cat("uv_run", "/usr/lib/x86_64-linux-gnu/libuv.so.1"), "libuv")
        self.assertEqual(self.cat("JS:*parseDataRowMessage", "/tmp/perf-9.map", 0x7f0000001000), "javascript")
        self.assertEqual(self.cat(None, "/root/.debug/jit/x/jitted-9-12.so"), "javascript")
        self.assertEqual(self.cat("_PyEval_EvalFrameDefault", "/usr/bin/python3.11"), "python")
        self.assertEqual(self.cat(None, "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"), "python")
        self.assertEqual(self.cat(None, "/usr/lib/python3.11/lib-dynload/_asyncio.cpython-311-x86_64-linux-gnu.so"), "python")
        self.assertEqual(self.cat(None, ASYNCPG), "python extension")
        self.assertEqual(self.cat(None, "/home/u/.venv/lib/python3.11/site-packages/x/_c.so"), "python extension")
        self.assertEqual(self.cat("runtime.mallocgc", GO, go=[GO]), "go runtime")
        self.assertEqual(self.cat("github.com/jackc/pgx/v4.(*connRows).Values", GO, go=[GO]), "go")
        self.assertEqual(self.cat(None, GO, go=[GO]), "go")
        self.assertEqual(self.cat("main.main", GO), "other")  # not known as Go: no runtime.* frame seen
        self.assertEqual(self.cat("__vdso_clock_gettime", "[vdso]", 0x7fff0000), "other")
        self.assertEqual(self.cat("std::string::append", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"), "other")
        self.assertEqual(self.cat(None, None), "unknown")
        for c in ("kernel", "libpq", "libc", "openssl", "driver", "runner", "postgres", "node", "javascript",
                  "python", "python extension", "go runtime", "go", "libuv", "other", "unknown"):
            self.assertIn(c, foldlib.CATEGORIES)


class Folding(unittest.TestCase):
    def setUp(self):
        f = foldlib.Folder()
        # runner: main -> pq_run_batch -> PQgetResult -> [libpq] -> recv -> kernel (x3)
        for _ in range(3):
            f.add(sample("runner", fr("finish_task_switch", "[kernel.kallsyms]", K), fr("__libc_recv", LIBC),
                         fr(None, LIBPQ), fr("PQgetResult", LIBPQ), fr("pq_run_batch", DRIVER), fr("main", RUNNER)))
        # two unresolved libpq leaves
        for _ in range(2):
            f.add(sample("runner", fr(None, LIBPQ), fr("PQgetResult", LIBPQ), fr("pq_run_batch", DRIVER), fr("main", RUNNER)))
        # a Go thread: the runtime marks the binary as Go, so its other frames are "go"
        f.add(sample("pgcb-adapter-go", fr("github.com/jackc/pgx/v4.(*connRows).Values", GO), fr("main.main", GO),
                     fr("runtime.main", GO), fr("runtime.goexit.abi0", GO)))
        # no callchain: the sample's own symbol and dso
        f.add({"comm": "node", "symbol": "Builtins_LoadIC", "dso": NODE, "sample": {"ip": 0x5000}})
        # no dso at all
        f.add(sample("node", fr(None, None)))
        self.f = f

    def test_folded(self):
        self.assertEqual(self.f.folded_text(), "".join([
            "node;Builtins_LoadIC 1\n",
            "node;[unknown] 1\n",
            "pgcb-adapter-go;runtime.goexit.abi0;runtime.main;main.main;github.com/jackc/pgx/v4.(*connRows).Values 1\n",
            "runner;main;pq_run_batch;PQgetResult;[libpq.so.5.15] 2\n",
            "runner;main;pq_run_batch;PQgetResult;[libpq.so.5.15];__libc_recv;finish_task_switch_[k] 3\n",
        ]))

    def test_top(self):
        self.assertEqual(self.f.top_text(), "".join([
            "total\t\t8\n",
            "category\tkernel\t3\n",
            "category\tlibpq\t2\n",
            "category\tgo\t1\n",
            "category\tnode\t1\n",
            "category\tunknown\t1\n",
            "function\tfinish_task_switch ([kernel.kallsyms])\t3\n",
            "function\t[libpq.so.5.15] (libpq.so.5.15)\t2\n",
            "function\tBuiltins_LoadIC (node)\t1\n",
            "function\t[unknown] (unknown)\t1\n",
            "function\tgithub.com/jackc/pgx/v4.(*connRows).Values (pgcb-adapter-go)\t1\n",
        ]))

    def test_top_20_functions_only(self):
        f = foldlib.Folder()
        for i in range(25):
            for _ in range(i + 1):
                f.add(sample("runner", fr("fn%02d" % i, RUNNER)))
        fns = [l for l in f.top_text().splitlines() if l.startswith("function\t")]
        self.assertEqual(len(fns), 20)
        self.assertEqual(fns[0], "function\tfn24 (runner)\t25")
        self.assertEqual(fns[-1], "function\tfn05 (runner)\t6")

    def test_write_and_empty(self):
        with tempfile.TemporaryDirectory() as d:
            prefix = os.path.join(d, "x.client")
            foldlib.Folder().write(prefix)
            with open(prefix + ".top.tsv") as t:
                self.assertEqual(t.read(), "total\t\t0\n")
            with open(prefix + ".folded") as t:
                self.assertEqual(t.read(), "")
            self.assertEqual(sorted(os.listdir(d)), ["x.client.folded", "x.client.top.tsv"])
            with self.assertRaises(OSError):
                foldlib.Folder().write(os.path.join(d, "missing", "y"))
            self.assertEqual(sorted(os.listdir(d)), ["x.client.folded", "x.client.top.tsv"])


if __name__ == "__main__":
    unittest.main(verbosity=1)
