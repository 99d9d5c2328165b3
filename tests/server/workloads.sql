-- The table of tests/server/test_workloads.c, made anew by each run that
-- names this file in [server] setup.
DROP TABLE IF EXISTS wl_t;
CREATE TABLE wl_t (id bigint PRIMARY KEY, k int NOT NULL, v text NOT NULL);
