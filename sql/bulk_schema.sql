-- The tables of conf/bulk.ini (bulk writes: COPY FROM STDIN and a 1000-row
-- insert batch), made anew at the start of every run.
--
-- pgcb_bulk_src holds 10000 rows of mixed types, generated deterministically
-- (no random(): every run and every machine has the same rows): the source
-- of the COPY payloads (the runner asks the server for them with COPY (...)
-- TO STDOUT, text and binary) and, its first 1000 rows, of the insert
-- batch's parameters. pgcb_copy_target and pgcb_insert_target have the same
-- columns; the runner empties them (TRUNCATE) outside every sample and reads
-- them back to check what a driver wrote.
-- The runner splits this file into statements and sends each on its own,
-- so every statement ends at the end of a line.
DROP TABLE IF EXISTS pgcb_bulk_src;
CREATE TABLE pgcb_bulk_src (
    id       int PRIMARY KEY,
    sku      text NOT NULL,
    price    numeric(12,2) NOT NULL,
    qty      bigint NOT NULL,
    weight   float8,
    created  timestamptz NOT NULL,
    active   bool NOT NULL,
    note     text
);
INSERT INTO pgcb_bulk_src
SELECT i,
       'SKU-' || lpad(to_hex(i * 2654435761 % 4294967296), 8, '0'),
       ((i * 7919) % 1000000) / 100.0,
       (i::bigint * 104729) % 100000,
       CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 31) % 10007) / 8.0 END,
       timestamptz '2024-01-01 00:00:00+00' + (i * interval '37 seconds 123456 microseconds'),
       i % 3 <> 0,
       CASE WHEN i % 5 = 0 THEN NULL
            WHEN i % 7 = 0 THEN 'größe ' || i || E' tab\there, "quoted", back\\slash'
            ELSE repeat('note ', 1 + i % 9) || i END
FROM generate_series(1, 10000) AS i;
DROP TABLE IF EXISTS pgcb_copy_target;
CREATE TABLE pgcb_copy_target (LIKE pgcb_bulk_src);
DROP TABLE IF EXISTS pgcb_insert_target;
CREATE TABLE pgcb_insert_target (LIKE pgcb_bulk_src);
