-- The tables of conf/types.ini (issue 19): the types the drivers convert.
--
--   pgcb_types       10,000 rows, one column of each converted type, values
--                    that are pure functions of the row number (md5(),
--                    modular arithmetic, exact float arithmetic: no random()),
--                    so every run and every machine has the same rows; each
--                    column but id is NULL in about one row in 17 to 29.
--   pgcb_types_edge  the same columns: the edge cases, a few per row (BC,
--                    year 10000+, infinities, numeric NaN and 1000 digits,
--                    24:00:00, negative interval parts, nil uuid, json
--                    escapes, every byte value, empty arrays, NULL and quoted
--                    elements, lower bounds other than 1, non-ASCII text).
--   pgcb_blob        one row holding a 1 MiB bytea (md5 of 1 .. 65536).
--   pgcb_arrays      100 rows of 100-element arrays of each array type.
--
-- The text forms depend on the session's DateStyle (ISO), IntervalStyle
-- (postgres), TimeZone and extra_float_digits: the server's defaults; the
-- drivers set none of them.
-- The runner splits this file into statements and sends each on its own,
-- so every statement ends at the end of a line.
DROP TABLE IF EXISTS pgcb_types;
DROP TABLE IF EXISTS pgcb_types_edge;
DROP TABLE IF EXISTS pgcb_blob;
DROP TABLE IF EXISTS pgcb_arrays;
CREATE TABLE pgcb_types (
    id    int4 PRIMARY KEY,
    i2    int2,
    i4    int4,
    i8    int8,
    f4    float4,
    f8    float8,
    b     bool,
    t     text,
    vc    varchar(64),
    num   numeric,
    ts    timestamp,
    tstz  timestamptz,
    d     date,
    tm    time,
    iv    interval,
    u     uuid,
    j     json,
    jb    jsonb,
    by    bytea,
    a_i4  int4[],
    a_i8  int8[],
    a_t   text[],
    a_f8  float8[]
);
CREATE TABLE pgcb_types_edge (LIKE pgcb_types INCLUDING ALL, what text NOT NULL);
-- One row per i; "CASE WHEN i % k = r THEN NULL" leaves a column NULL in one
-- row of k (a different k and r per column, so that the NULLs do not line up).
INSERT INTO pgcb_types
SELECT i,
       CASE WHEN i % 17 = 1 THEN NULL ELSE ((i * 7919) % 65536 - 32768)::int2 END,
       CASE WHEN i % 19 = 2 THEN NULL ELSE ((i::int8 * 2654435761) % 4294967296 - 2147483648)::int4 END,
       CASE WHEN i % 23 = 3 THEN NULL ELSE (i::int8 * 1000000007 * 9176) - 4611686018427387904 END,
       CASE WHEN i % 29 = 4 THEN NULL ELSE (i::float4 / 7::float4) END,
       CASE WHEN i % 17 = 5 THEN NULL ELSE (i::float8 * 1000.5 / 3::float8) - 1234567.25 END,
       CASE WHEN i % 19 = 6 THEN NULL ELSE i % 3 = 0 END,
       CASE WHEN i % 23 = 7 THEN NULL
            WHEN i % 13 = 0 THEN 'Zoë Ångström ' || i || ' — ☃ 日本 😀'
            ELSE 'user ' || i || ' ' || md5(i::text) END,
       CASE WHEN i % 29 = 8 THEN NULL ELSE substr(md5('vc' || i), 1, 1 + i % 32) END,
       CASE WHEN i % 17 = 9 THEN NULL
            WHEN i % 5 = 0 THEN (i::numeric * 1000003) / 97
            ELSE round(((i * 7919) % 1000000)::numeric / 100 - 5000, 2) END,
       CASE WHEN i % 19 = 10 THEN NULL
            ELSE timestamp '2020-01-01 00:00:00' + (i::int8 * 3733123457) * interval '1 microsecond' END,
       CASE WHEN i % 23 = 11 THEN NULL
            ELSE timestamptz '1999-12-31 23:00:00+00' + (i::int8 * 987654321013) * interval '1 microsecond' END,
       CASE WHEN i % 29 = 12 THEN NULL ELSE date '2000-01-01' + (i * 7 - 30000) END,
       CASE WHEN i % 17 = 13 THEN NULL
            ELSE time '00:00:00' + ((i::int8 * 86399999 * 7919) % 86400000000) * interval '1 microsecond' END,
       CASE WHEN i % 19 = 14 THEN NULL
            ELSE make_interval(years => i % 3, months => i % 12 - 6, days => i % 40 - 20,
                               secs => ((i * 7919) % 200000 - 100000)::float8 / 1000) END,
       CASE WHEN i % 23 = 15 THEN NULL ELSE md5('u' || i)::uuid END,
       CASE WHEN i % 29 = 16 THEN NULL
            ELSE json_build_object('id', i, 'name', 'user ' || i, 'active', i % 2 = 0,
                                   'score', i / 8.0, 'tags', json_build_array('t' || i % 10, 'x'),
                                   'note', CASE WHEN i % 7 = 0 THEN 'café "quoted" \ 😀' END) END,
       CASE WHEN i % 17 = 0 THEN NULL
            ELSE jsonb_build_object('id', i, 'items', jsonb_build_array(i, i * 2, jsonb_build_object('k', md5(i::text))),
                                    'price', round(i / 3.0, 2), 'ok', i % 3 <> 0) END,
       CASE WHEN i % 19 = 1 THEN NULL ELSE decode(repeat(md5('b' || i), 1 + i % 4), 'hex') END,
       CASE WHEN i % 23 = 2 THEN NULL
            WHEN i % 31 = 0 THEN ARRAY[i, NULL, -i]
            ELSE (ARRAY[i, i % 100, -i, i * 3, 7, 2147483647 - i])[1:1 + i % 6] END,
       CASE WHEN i % 29 = 3 THEN NULL
            ELSE (ARRAY[i::int8 * 1000000007, -i, 0, i::int8 << 32])[1:1 + i % 4] END,
       CASE WHEN i % 17 = 2 THEN NULL
            WHEN i % 11 = 0 THEN ARRAY['tag' || i % 10, 'with space', 'a,b', NULL, 'ü']
            ELSE ARRAY['tag' || i % 10, substr(md5(i::text), 1, 8)] END,
       CASE WHEN i % 19 = 3 THEN NULL
            ELSE (ARRAY[i::float8 / 3, -i::float8 / 7, i::float8 * 1e10, 0.5])[1:1 + i % 4] END
FROM generate_series(1, 10000) AS i;
-- The edge cases. A row's other columns are NULL.
INSERT INTO pgcb_types_edge (id, what, i2, i4, i8, f4, f8, b, t, vc, num, ts, tstz, d, tm, iv, u, j, jb, by, a_i4, a_i8, a_t, a_f8) VALUES
(1, 'lowest', -32768, -2147483648, -9223372036854775808, '-Infinity', '-Infinity', false, '', '', '-Infinity', '-infinity', '-infinity', '-infinity', '00:00:00', '-178000000 years', '00000000-0000-0000-0000-000000000000', '{}', '{}', '\x', '{}', '{-9223372036854775808,9223372036854775807}', '{}', '{}'),
(2, 'highest', 32767, 2147483647, 9223372036854775807, 'Infinity', 'Infinity', true, 'x', 'x', 'Infinity', 'infinity', 'infinity', 'infinity', '24:00:00', '178000000 years', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '[]', '[]', NULL, '{-2147483648,2147483647}', '{}', '{"",NULL,"NULL","null","a,b","{","}","\\","\"","  spaced  ","ü ☃ 😀"}', '{NaN,Infinity,-Infinity,-0,0}'),
(3, 'bc', 0, 0, 0, 'NaN', 'NaN', NULL, 'Zoë — ☃ 日本語 😀 𝄞', 'ñ😀', 'NaN', '0044-03-15 12:30:45.123456 BC', '0044-03-15 12:30:45.5+00 BC', '0044-03-15 BC', '00:00:00.000001', '-1 years -2 mons +3 days -04:05:06.789', '00000000-0000-0000-0000-000000000001', '{"s": "caf\u00e9 \ud83d\ude00 \n \" \\ \/ \t", "raw": "é😀"}', '{"a": {"b": [1, 2, {"c": null}], "e": ""}, "d": true, "n": 1.5e300, "u": "\u00e9 😀"}', NULL, '[0:2]={1,2,3}', '[-3:-2]={-1,NULL}', '[-5:-4]={a,b}', '[2:3]={1.5,-2.5}'),
(4, 'earliest', -1, -1, -1, '-0', '-0', false, ' ', ' ', '0', '4713-01-01 00:00:00 BC', '4713-01-01 00:00:00+00 BC', '4713-01-01 BC', '23:59:59.999999', '1 year 2 mons', '123e4567-e89b-12d3-a456-426614174000', 'null', 'null', NULL, '{NULL}', '{1,NULL,3}', '{NULL,"NULL",""}', '{NULL,1.5,NULL}'),
(5, 'latest', 1, 1, 1, '1e-45', '4.9e-324', true, E'tab\there\nnewline \\ backslash', 'a"b', '0.000', '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00', '5874897-12-31', '12:00:00', '-00:00:00.000001', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '"a string"', '"a string"', '\x00', '{0}', '{0}', '{"x"}', '{1e-308,4.9e-324,1.7976931348623157e308,-1.7976931348623157e308}'),
(6, 'year10000', 100, 100, 100, '3.4028235e38', '1.7976931348623157e308', false, repeat('é', 1000), repeat('x', 64), repeat('9', 1000)::numeric, '10000-01-01 00:00:00', '12345-06-07 08:09:10.111111+00', '10000-03-01', '00:00:01', '1 day', '00000000-0000-0000-ffff-000000000000', '{ "spaced" :  [ 1 , 2 ] }', '{"deep": [[[[[[[[[[1]]]]]]]]]]}', '\xdeadbeef', '{1,2,3,4,5,6,7,8,9,10}', '{-1,-2}', '{"a b","c\\d"}', '{0.1,0.2,0.30000000000000004}'),
(7, 'small', 2, 2, 2, '1.17549435e-38', '2.2250738585072014e-308', true, 'plain', 'plain', '0.000000000000000000000000000001', '2000-01-01 00:00:00', '2000-01-01 00:00:00+00', '2000-01-01', '00:00:00', '00:00:00', '00000000-0000-0000-0000-000000000000', '[1, "two", null, true, {"three": 3}]', '[1, "two", null, true, {"three": 3}]', '\x0102', '{2147483647}', '{9223372036854775807}', '{"NULL"}', '{-0}'),
(8, 'negative', -2, -2, -2, '-1.5', '-1.5', false, 'neg', 'neg', '-0.5', '1999-12-31 23:59:59.999999', '1999-12-31 23:59:59.999999+00', '1999-12-31', '23:59:59', '-3 days -00:00:01', 'ffffffff-ffff-ffff-0000-000000000000', '{"k": -0.0}', '{"k": -0.0}', '\xff', '{-2147483648}', '{-9223372036854775808}', '{"-"}', '{-1e-300}'),
(9, 'manydigits', 3, 3, 3, '0.1', '0.1', true, 'm', 'm', '-123456789012345678901234567890.123456789012345678901234567890', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00', '1970-01-01', '01:02:03.456789', '1 year -1 mons -1 days +01:00:00', '00000000-0000-0001-0000-000000000000', '{"n": 123456789012345678901234567890}', '{"n": 123456789012345678901234567890}', NULL, NULL, NULL, NULL, NULL),
(10, 'tiny', 4, 4, 4, NULL, NULL, NULL, NULL, NULL, ('0.' || repeat('0', 999) || '1')::numeric, '0001-01-01 00:00:00', '0001-01-01 00:00:00+00', '0001-01-01', NULL, '-178000000 years -11 mons -30 days -23:59:59.999999', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
(11, 'allnull', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
(12, 'round', 5, 5, 5, '1', '1', true, 'r', 'r', '100', '2024-02-29 12:00:00', '2024-02-29 12:00:00+00', '2024-02-29', '12:34:56.5', '100 years', 'deadbeef-dead-beef-dead-beefdeadbeef', '"\u0000 is fine in json"', '{"big": 1e400}', NULL, NULL, NULL, NULL, NULL);
-- Every byte value, 0 .. 255, in order (row 2).
UPDATE pgcb_types_edge SET by = (SELECT decode(string_agg(lpad(to_hex(b), 2, '0'), '' ORDER BY b), 'hex') FROM generate_series(0, 255) AS b) WHERE id = 2;
-- 1 MiB: the 16-byte md5 of each of 1 .. 65536.
CREATE TABLE pgcb_blob (id int4 PRIMARY KEY, data bytea NOT NULL);
INSERT INTO pgcb_blob SELECT 1, decode(string_agg(md5(g::text), '' ORDER BY g), 'hex') FROM generate_series(1, 65536) AS g;
CREATE TABLE pgcb_arrays (id int4 PRIMARY KEY, a_i4 int4[], a_i8 int8[], a_t text[], a_f8 float8[]);
INSERT INTO pgcb_arrays
SELECT i,
       ARRAY(SELECT ((i * 100 + g) * 7919 % 2000000 - 1000000)::int4 FROM generate_series(1, 100) AS g ORDER BY g),
       ARRAY(SELECT (i * 100 + g)::int8 * 1000000007 FROM generate_series(1, 100) AS g ORDER BY g),
       ARRAY(SELECT CASE WHEN g % 10 = 0 THEN NULL ELSE substr(md5((i * 100 + g)::text), 1, 1 + g % 12) END FROM generate_series(1, 100) AS g ORDER BY g),
       ARRAY(SELECT (i * 100 + g)::float8 / 7 FROM generate_series(1, 100) AS g ORDER BY g)
FROM generate_series(1, 100) AS i;
ANALYZE pgcb_types;
ANALYZE pgcb_types_edge;
ANALYZE pgcb_blob;
ANALYZE pgcb_arrays;
