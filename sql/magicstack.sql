-- The tables of conf/magicstack.ini: the setup statements of MagicStack's
-- pgbench query files (queries/3-large_object.json, 4-arrays.json,
-- 5-copyfrom.json, 6-batch.json), made anew at the start of every run.
--
-- MagicStack runs each file's "setup" before that file's benchmark and its
-- "teardown" (DROP TABLE) after it, and two of its files use the same table
-- name (_test) with different columns. Our [server] setup runs once, before
-- every suite, and there is no teardown key: each table gets its own name
-- here, and DROP ... IF EXISTS at the top stands in for the teardown of the
-- previous run (docs/magicstack.md). The rows are theirs, word for word.
-- The runner splits this file into statements and sends each on its own,
-- so every statement ends at the end of a line.

-- 3-large_object.json: 100 rows of a 1000-byte bytea.
DROP TABLE IF EXISTS pgcb_ms_bytes;
CREATE TABLE pgcb_ms_bytes (b bytea);
INSERT INTO pgcb_ms_bytes (b) (SELECT repeat('a', 1000)::bytea FROM generate_series(1, 100));

-- 4-arrays.json: 100 rows of a 100-element int[].
DROP TABLE IF EXISTS pgcb_ms_arrays;
CREATE TABLE pgcb_ms_arrays (a int[]);
INSERT INTO pgcb_ms_arrays (a) (SELECT (SELECT array_agg(i) FROM generate_series(1, 100) AS s(i)) FROM generate_series(1, 100));

-- 5-copyfrom.json: the COPY target (their _test) ...
DROP TABLE IF EXISTS pgcb_ms_copy;
CREATE TABLE pgcb_ms_copy (a int, b int, c int, d text, e float, f int, g text);

-- ... and 6-batch.json: the INSERT target (their _test too). It grows by
-- 1000 rows a batch while measuring, as theirs does.
DROP TABLE IF EXISTS pgcb_ms_batch;
CREATE TABLE pgcb_ms_batch (a int, b int, c int, d text, e float, f int, g text);
