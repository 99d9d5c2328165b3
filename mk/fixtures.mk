# mk/fixtures.mk -- the conformance suite's broken fixtures: one source,
# tests/fixtures/check_ok.c (a driver that passes every check), built once
# more per broken rule with the CHECK_FX_* macros its header documents. The
# other fixtures are one .c each (the Makefile's FIXTURE_SRC).
#
# abi10: an ABI 1.0 descriptor (abi_minor 0, struct_size PGCB_DRIVER_SIZE_1_0),
#   otherwise check_ok: the loader accepts it, every check passes, the
#   run_batch_params checks are skipped with one "SKIP params:" line, a run
#   skips it for parameterized queries only. The bytes after its descriptor
#   hold a function that abort()s: a runner that reads the slot without
#   PGCB_DRIVER_HAS() crashes rather than passing by luck on a NULL.
# check_crash: run_batch dereferences a bad pointer (SIGSEGV) at depth 10;
#   those checks fail "crashed (SIGSEGV) in run_batch", the later ones in the
#   same child "not run", every other check still runs.
# check_hang: run_batch never returns at depth 1000; those checks fail "timed
#   out after N s in run_batch" (PGCB_CHECK_TIMEOUT), every other runs.
# check_params: has run_batch_params, emulating the server for the checker's
#   parameter statement; passes every check, the params_* ones included.
# check_params_strlen: check_params reading each parameter up to a NUL, not
#   its length (libpq text parameters passed uncopied); the params_* checks
#   that bind values fail, the refused value still passes.
# check_raw_errors: copies its messages with memcpy() (no NUL, errlen
#   ignored: a 16-byte buffer overflows); the message checks fail.
# check_sloppy: empty version, an unknown capability bit, option "rows"
#   declared twice (the second without help), any option accepted, the bad
#   statement reported as PGCB_ERR_IO breaking the connection, its file
#   descriptor left open by close().
# check_wrong_sum: folds int_value as 1338, not the 1337 the server returns:
#   right row counts, wrong checksums; every "checksum" check fails.

FX_DEFS_abi10               = -DCHECK_FX_ABI10
FX_DEFS_check_crash         = -DCHECK_FX_CRASH_DEPTH=10
FX_DEFS_check_hang          = -DCHECK_FX_HANG_DEPTH=1000
FX_DEFS_check_params        = -DCHECK_FX_PARAMS
FX_DEFS_check_params_strlen = -DCHECK_FX_PARAMS -DCHECK_FX_PARAMS_STRLEN
FX_DEFS_check_raw_errors    = -DCHECK_FX_RAW_ERRORS=1
FX_DEFS_check_sloppy        = -DCHECK_FX_SLOPPY=1
FX_DEFS_check_wrong_sum     = -DCHECK_FX_INT_VALUE=1338

FX_VARIANTS = abi10 check_crash check_hang check_params check_params_strlen check_raw_errors \
              check_sloppy check_wrong_sum
FX_SOS      = $(FX_VARIANTS:%=$(B)/tests/fixtures/%.so)

fixtures: $(FX_SOS)

# The descriptor's name is the fixture's (CHECK_FX_NAME).
$(FX_SOS): $(B)/tests/fixtures/%.so: tests/fixtures/check_ok.c include/pgcb/driver.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SOFLAGS) $(LDFLAGS) -DCHECK_FX_NAME='"$*"' $(FX_DEFS_$*) -o $@ $<

# unlinked_value: folds a timestamptz through pgcb/value.h but is linked
#   without libpgcbvalue.a, as a driver author who forgot `pkg-config --libs
#   pgclientbench` builds it: the loader's dlopen error must say what to link.
FX_UNLINKED = $(B)/tests/fixtures/unlinked_value.so
fixtures: $(FX_UNLINKED)
$(FX_UNLINKED): tests/fixtures/unlinked_value.c include/pgcb/driver.h include/pgcb/value.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SOFLAGS) $(LDFLAGS) -o $@ $<

# libpq_sync_plant: libpq_sync with a planted regression (the A/B gate's
#   tests, tests/server/ab_gate.sh): PGCB_PLANT_ITERS_PER_ROW steps of a
#   dependent multiply-add per row received. 32 steps add about 5% to the
#   median latency per query at LIMIT 500 (calibrated in docs/regressions.md).
#   Its descriptor is libpq_sync's; only the extra work differs.
PLANT_ITERS = 32
FX_PLANT = $(B)/tests/fixtures/libpq_sync_plant.so
fixtures: $(FX_PLANT)
$(FX_PLANT): drivers/libpq_sync/libpq_sync.c $(PQUTIL_A) $(PGVALUE_A) include/pgcb/driver.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PQ_CFLAGS) $(SOFLAGS) $(LDFLAGS) \
	    -DPGCB_PLANT_ITERS_PER_ROW=$(PLANT_ITERS) -o $@ $< $(PQUTIL_A) $(PGVALUE_A) $(PQ_LIBS)
