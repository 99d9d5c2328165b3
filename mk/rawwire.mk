# mk/rawwire.mk -- the rawwire and floor drivers' build needs, their tests'
# libcrypto and libidn, and the libFuzzer run of rawwire's reply parser.
#
# floor compiles rawwire's connection code in (drivers/floor/base_rawwire.c
# #includes drivers/rawwire/*.c), so it links libcrypto (SCRAM, MD5) and
# libidn (SASLprep) too; its object's dependency file makes it rebuild when
# rawwire's sources change.

RW_CRYPTO_LIBS = $(shell pkg-config --libs libcrypto libidn)
RW_SOURCES     = $(wildcard drivers/rawwire/*.c drivers/rawwire/*.h)

DRIVER_LIBS_floor = $(RW_CRYPTO_LIBS)

# Unit tests that compile rawwire's .c files in (their .d files track them).
$(B)/tests/test_rawwire_%: DEP_LIBS += $(RW_CRYPTO_LIBS)

# libFuzzer on rawwire's reply parser: `make fuzz` (run by `make test` via
# TEST_EXTRA) builds tests/fuzz/fuzz_rawwire_reply.c with clang and runs it
# for RW_FUZZ_SECONDS (default 60) from the seeds in tests/fuzz/seeds/, the
# corpus kept in $(B)/fuzz/corpus. clang is in scripts/install-deps.sh: a
# missing clang is a failure, not a skip.
RW_FUZZ_SECONDS ?= 60
# A fixed seed: make test explores the same inputs on every run (CI is
# reproducible); `make fuzz FUZZ_SEED=0` picks a random one for a hunt.
FUZZ_SEED       ?= 1
RW_FUZZ_BIN      = $(B)/fuzz/fuzz_rawwire_reply
TEST_EXTRA      += fuzz
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

$(RW_FUZZ_BIN): tests/fuzz/fuzz_rawwire_reply.c $(RW_SOURCES) $(wildcard include/pgcb/*.h)
	@command -v clang >/dev/null || { echo "fuzz: clang is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	clang $(CSTD) $(WARN) -g -O1 -Iinclude -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=all -o $@ $<
