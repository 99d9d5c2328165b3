# mk/rawwire.mk -- the libFuzzer run of rawwire's reply parser. (rawwire and
# floor link lib/pgwire, the wire-protocol library: the Makefile's
# DRIVER_AR_* and TEST_OBJS_* say who links what.)

# libFuzzer on rawwire's reply parser: `make fuzz` (run by `make test` via
# fuzz-all) builds tests/fuzz/fuzz_rawwire_reply.c with clang and runs it
# for RW_FUZZ_SECONDS (default 40) from the seeds in tests/fuzz/seeds/, the
# corpus kept in $(B)/fuzz/corpus. clang is in scripts/install-deps.sh: a
# missing clang is a failure, not a skip.
RW_FUZZ_SECONDS ?= 40
# A fixed seed: make test explores the same inputs on every run (CI is
# reproducible); `make fuzz FUZZ_SEED=0` picks a random one for a hunt.
FUZZ_SEED       ?= 1
RW_FUZZ_BIN      = $(B)/fuzz/fuzz_rawwire_reply
.PHONY: fuzz
fuzz: $(RW_FUZZ_BIN)
	@mkdir -p $(B)/fuzz/corpus
	@echo "fuzz: $(RW_FUZZ_BIN) for $(RW_FUZZ_SECONDS) s"
	@$(RW_FUZZ_BIN) -seed=$(FUZZ_SEED) -max_total_time=$(RW_FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=$(B)/fuzz/ $(B)/fuzz/corpus tests/fuzz/seeds \
	    >$(B)/fuzz/fuzz.log 2>&1 \
	    || { tail -n 40 $(B)/fuzz/fuzz.log >&2; echo "fuzz: FAILED (crash input in $(B)/fuzz/, log $(B)/fuzz/fuzz.log)" >&2; exit 1; }
	@grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(B)/fuzz/fuzz.log | tail -n 2
	@echo "fuzz: PASS (no crash in $(RW_FUZZ_SECONDS) s)"

# The parser and what it calls, compiled with the fuzzer's instrumentation
# (not the $(B) objects, which have none).
RW_FUZZ_SRC = tests/fuzz/fuzz_rawwire_reply.c drivers/rawwire/rw_reply.c drivers/rawwire/rw_copy_reply.c \
              lib/pgwire/rw_codec.c \
              lib/pgwire/rw_err.c $(sort $(wildcard lib/pgvalue/*.c))
$(RW_FUZZ_BIN): $(RW_FUZZ_SRC) $(wildcard drivers/rawwire/*.h lib/pgwire/*.h lib/pgvalue/*.h include/pgcb/*.h)
	@command -v clang >/dev/null || { echo "fuzz: clang is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	clang $(CSTD) $(WARN) -g -O1 -Iinclude -Ilib -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=all -o $@ $(RW_FUZZ_SRC)
