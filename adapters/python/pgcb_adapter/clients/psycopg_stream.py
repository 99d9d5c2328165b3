"""psycopg's readings of one whole result (the `stream` request; the clients
psycopg and psycopg_python, on their one autocommit connection).

buffered   cursor.execute(sql, params, prepare=True) then fetchall(), as a
           `run` executes (psycopg holds the whole PGresult, fetchall()
           converts every row into a list of tuples).
streamed   cursor.stream(sql, params): libpq's single-row mode (one PGresult
           per row, each row converted as it is yielded), or, where psycopg
           (>= 3.2) and its libpq (>= 17) can, stream(size=fetch): libpq's
           chunked rows mode, PGresults of up to `fetch` rows, still yielded
           row by row. No server-side cursor, no transaction: the server
           sends the rows as it makes them and libpq reads them as they are
           asked for, so memory holds one PGresult at a time. stream() has
           no prepare=: it runs the unnamed statement (Parse with every
           execution). Its generator, closed after a failure, cancels and
           drains a result still in flight (its own `finally`).
"""
import psycopg
from psycopg import pq

from ..stream import BUFFERED, FOLD_ROWS, Idiom


def _libpq():
    v = pq.version()
    return "%d.%d" % (v // 10000, v % 100) if v >= 100000 else str(v)


def chunked_reason():
    """None when cursor.stream() takes size > 1 here, else why not (checked
    once, at hello: psycopg.capabilities is psycopg 3.2's)."""
    caps = getattr(psycopg, "capabilities", None)
    if caps is None:
        return "psycopg %s has no stream(size=)" % psycopg.__version__
    try:
        if caps.has_stream_chunked():
            return None
    except psycopg.Error:
        pass
    return "chunked rows need libpq >= 17"


def idiom(cur, st, mode, fetch, params, reader, no_chunks):
    """The Idiom (stream.py) of one execution of st (psycopg_client's
    Statement) on cursor `cur`; params: None, a list or a dict as psycopg
    takes them; reader: psycopg_client._reader(cur, st); no_chunks:
    chunked_reason()."""
    sql = st.sql if params is None else st.pysql
    if mode == BUFFERED:
        ex = cur.execute

        def open_():
            ex(sql, params, prepare=True)
            return reader()
        return Idiom(open_, "psycopg Cursor.execute(prepare=True) + fetchall()")
    if no_chunks is None and fetch > 1:
        rows = cur.stream(sql, params, size=fetch)  # a generator: nothing sent yet
        line = ("psycopg Cursor.stream(size=%d) (libpq %s chunked rows mode, %d rows per "
                "PGresult)" % (fetch, _libpq(), fetch))
        chunk = min(fetch, FOLD_ROWS)
    else:
        rows = cur.stream(sql, params)
        line = "psycopg Cursor.stream() (libpq %s single-row mode%s)" % (
            _libpq(), "; " + no_chunks if no_chunks else "")
        chunk = FOLD_ROWS

    def abort():
        try:
            rows.close()
        except Exception:
            pass  # the connection broke: failure() says so
    return Idiom(lambda: rows, line, chunk, abort=abort, streamed=True)
