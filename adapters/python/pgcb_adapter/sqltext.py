"""SQL text helpers, used at prepare/connect time only (never in a timed block).

find_limit(sql)            the last whole-word `LIMIT <digits>` (the null client)
to_psycopg(sql)            $n placeholders -> psycopg's %s / %(pN)s
parse_backend_options(s)   libpq's `options` -> server settings (asyncpg)
"""
import re

# drivers/null/null.c's rule: "limit" not preceded by a word character,
# whitespace, digits not followed by a word character; case-insensitive.
_LIMIT = re.compile(r"(?<![A-Za-z0-9_\x80-\U0010ffff])limit[ \t\n\v\f\r]+([0-9]+)"
                    r"(?![A-Za-z0-9_\x80-\U0010ffff])", re.IGNORECASE)


_PARAM = re.compile(r"\$([0-9]+)")
_DOLLAR_TAG = re.compile(r"\$([A-Za-z_\x80-\U0010ffff][A-Za-z0-9_\x80-\U0010ffff]*)?\$")
_SENTINEL = re.compile("\0P([0-9]+)\0")  # a placeholder while % are doubled (SQL has no NUL)


def find_limit(sql: str):
    """n of the last `LIMIT n` in sql, or None when there is none."""
    found = None
    for m in _LIMIT.finditer(sql):
        found = int(m.group(1))
    return found


def _is_ident_start(ch: str) -> bool:
    return ch.isascii() and (ch.isalpha() or ch == "_") or ord(ch) >= 0x80


def _is_ident_char(ch: str) -> bool:
    return _is_ident_start(ch) or ch.isdigit() and ch.isascii() or ch == "$"


def to_psycopg(sql: str):
    """sql (PostgreSQL's $1, $2 ... placeholders) rewritten for psycopg, whose
    placeholders are %s (positional) or %(name)s (named, may repeat), and which
    reads every % of the text when parameters are passed.

    Returns (text, order, named):
        order  the 0-based parameter index of each placeholder, in text order
        named  False: each parameter appears once, $1..$N in order, and text
               uses %s (a parameter list binds as is); True: text uses
               %(pN)s (N 1-based) and the parameters must be passed as a dict
               {"p1": ..., ...} (psycopg numbers them by first appearance and
               reuses a repeated name, as the server would).
    Every % is doubled. Placeholders inside string literals ('', E'', $$..$$,
    $tag$..$tag$), quoted identifiers and comments are left alone; a $ inside
    an identifier (a$1) is no placeholder.
    """
    out = []
    order = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch == "'":
            j = _end_quoted(sql, i, "'", backslash=False)
            out.append(sql[i:j])
            i = j
        elif ch == '"':
            j = _end_quoted(sql, i, '"', backslash=False)
            out.append(sql[i:j])
            i = j
        elif ch == "-" and sql.startswith("--", i):
            j = sql.find("\n", i)
            j = n if j < 0 else j
            out.append(sql[i:j])
            i = j
        elif ch == "/" and sql.startswith("/*", i):
            j = _end_block_comment(sql, i)
            out.append(sql[i:j])
            i = j
        elif ch == "$":
            m = _PARAM.match(sql, i)
            if m:
                order.append(int(m.group(1)) - 1)
                out.append("\0P%d\0" % int(m.group(1)))
                i = m.end()
                continue
            m = _DOLLAR_TAG.match(sql, i)
            if m:
                tag = m.group(0)
                j = sql.find(tag, m.end())
                j = n if j < 0 else j + len(tag)
                out.append(sql[i:j])
                i = j
            else:
                out.append(ch)
                i += 1
        elif _is_ident_start(ch):
            j = i + 1
            while j < n and _is_ident_char(sql[j]):
                j += 1
            word = sql[i:j]
            if j < n and sql[j] == "'" and word in ("e", "E"):
                k = _end_quoted(sql, j, "'", backslash=True)
                out.append(sql[i:k])
                i = k
            else:
                out.append(word)
                i = j
        else:
            out.append(ch)
            i += 1
    named = order != list(range(len(order)))
    text = "".join(out).replace("%", "%%")
    text = _SENTINEL.sub(
                         (lambda m: "%%(p%s)s" % m.group(1)) if named else (lambda m: "%s"), text)
    return text, order, named


def _end_quoted(sql: str, i: int, q: str, backslash: bool) -> int:
    """Index just past the literal/identifier opened by sql[i] == q (a doubled
    q is one q; with backslash, \\x escapes x); len(sql) when unterminated."""
    j, n = i + 1, len(sql)
    while j < n:
        c = sql[j]
        if backslash and c == "\\":
            j += 2
        elif c == q:
            if j + 1 < n and sql[j + 1] == q:
                j += 2
            else:
                return j + 1
        else:
            j += 1
    return n


def _end_block_comment(sql: str, i: int) -> int:
    """Index just past the (nested) /* */ comment at i; len(sql) if unterminated."""
    depth, j, n = 0, i, len(sql)
    while j < n:
        if sql.startswith("/*", j):
            depth += 1
            j += 2
        elif sql.startswith("*/", j):
            depth -= 1
            j += 2
            if depth == 0:
                return j
        else:
            j += 1
    return n


def parse_backend_options(options: str) -> dict:
    """libpq's `options` (the server's command-line switches, e.g.
    "-c search_path=x --work-mem=4MB"; backslash escapes the next character,
    as libpq sends them) as {setting: value}. Only -c name=value, -cname=value
    and --name=value are settings; anything else raises ValueError. As the
    server does, '-' in a name reads as '_'."""
    args, cur, have, esc = [], [], False, False
    for ch in options:
        if esc:
            cur.append(ch)
            esc = False
        elif ch == "\\":
            esc = have = True
        elif ch in " \t\n\v\f\r":
            if have:
                args.append("".join(cur))
                cur, have = [], False
        else:
            cur.append(ch)
            have = True
    if have:
        args.append("".join(cur))
    settings = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-c":
            i += 1
            if i >= len(args):
                raise ValueError("-c without name=value")
            kv = args[i]
        elif a.startswith("-c"):
            kv = a[2:]
        elif a.startswith("--"):
            kv = a[2:]
        else:
            raise ValueError("switch %r: only -c name=value and --name=value are supported" % a)
        name, sep, value = kv.partition("=")
        if not sep or not name:
            raise ValueError("%r: expected name=value" % kv)
        settings[name.replace("-", "_")] = value
        i += 1
    return settings
