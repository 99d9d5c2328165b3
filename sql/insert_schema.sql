-- The table of conf/insert.ini (a small Insert Benchmark): made empty at the
-- start of every run. Like the Insert Benchmark's table: a bigint primary key
-- filled in key order, a secondary key and a price drawn at random, and a
-- padding column; the secondary indexes come in the l_x step.
-- The runner splits this file into statements and sends each on its own,
-- so every statement ends at the end of a line.
DROP TABLE IF EXISTS ib_t;
CREATE TABLE ib_t (
    id     bigint PRIMARY KEY,
    k      int NOT NULL,
    price  int NOT NULL,
    pad    text NOT NULL
);
