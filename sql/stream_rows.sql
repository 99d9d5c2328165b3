-- The table of conf/stream.ini (issue 42): 1,000,000 rows with the columns of
-- benchmark_rows (an integer key, an integer, a short text, a NULL and a
-- boolean), generated deterministically, so that every run and machine
-- reads the same rows. Read in key order (an index scan: rows leave the
-- server as they are found, never after a sort of the whole result).
-- The runner splits this file into statements and sends each on its own,
-- so every statement ends at the end of a line.
DROP TABLE IF EXISTS pgcb_stream_rows;
CREATE TABLE pgcb_stream_rows (
    id           int PRIMARY KEY,
    int_value    int,
    string_value text,
    null_value   text,
    bool_value   boolean
);
INSERT INTO pgcb_stream_rows (id, int_value, string_value, null_value, bool_value)
SELECT i, i % 1000, 'row ' || i, NULL, i % 2 = 0 FROM generate_series(1, 1000000) AS i;
VACUUM ANALYZE pgcb_stream_rows;
