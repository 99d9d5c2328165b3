-- The benchmark table: 500 rows of small values of several types.
-- The runner splits this file into statements and sends each on its own,
-- so every statement ends at the end of a line.
DROP TABLE IF EXISTS benchmark_rows;
CREATE TABLE benchmark_rows (
    id           int PRIMARY KEY,
    int_value    int,
    string_value text,
    null_value   text,
    bool_value   boolean
);
INSERT INTO benchmark_rows (id, int_value, string_value, null_value, bool_value)
SELECT i, 1337, 'wat', NULL, false FROM generate_series(1, 500) AS i;
ANALYZE benchmark_rows;
