# mk/fuzz_inputs.mk -- libFuzzer on the two readers of files a user hands
# us: the INI loader (tests/fuzz/fuzz_config.c: runner/config/config*.c through inih)
# and the result file reader with everything aggregate does with what it
# read (tests/fuzz/fuzz_result.c: common/result_json.c, rank, report,
# aggregate/*.c). The hand-made bad files and their exact messages are in
# tests/bad/ (tests/unit/test_bad_inputs.c).
#
# `make fuzz-inputs` (`make test` runs both halves through fuzz-all) builds both targets
# with clang -fsanitize=fuzzer,address,undefined from the sources each needs
# (not the $(B) libraries, which have no sanitizer coverage) and runs each for
# FUZZ_INPUTS_SECONDS (default 20); `make -j2 fuzz-inputs` runs the two side
# by side. Seeds: tests/fuzz/seeds_config/, conf/ and tests/bad/ini/ for the
# INI target; tests/fuzz/seeds_result/, tests/aggregate/ and tests/bad/json/
# for the result target. What libFuzzer adds is kept in
# $(B)/fuzz/corpus_config and $(B)/fuzz/corpus_result; a crashing input is
# written to $(B)/fuzz/ and its path printed. clang is in
# scripts/install-deps.sh: a missing clang is a failure, not a skip.
#
# Replay one input:  build/fuzz/fuzz_config build/fuzz/config-crash-...

FUZZ_INPUTS_SECONDS ?= 20
FI_CC     = clang
FI_FLAGS  = $(CSTD) $(WARN) -g -O1 -Iinclude -Icommon -Irunner -Iaggregate \
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FI_COMMON = common/util.c common/proto.c
# The loader is runner/config/config.c and its pieces (runner/config/config_int.h lists them).
# A connection string in it (conninfo, [server] unix/tcp/tls) is checked by libpq's
# parser (lib/pqutil), the transports' words by runner/server/transport.c.
FI_CONFIG_SRC = tests/fuzz/fuzz_config.c $(sort $(wildcard runner/config/config*.c)) runner/sched/orders.c runner/config/gen.c \
                runner/server/transport.c runner/server/bulk.c runner/sys/cpuidle.c runner/sys/sysinfo.c \
                lib/pqutil/pq_errmsg.c $(FI_COMMON)
# The result reader and everything of common/ it may reach (common/ is one
# library that knows no program: all of it, so that a new file there is in).
FI_RESULT_SRC = tests/fuzz/fuzz_result.c $(sort $(wildcard common/*.c)) \
                $(filter-out aggregate/main.c,$(wildcard aggregate/*.c)) \
                $(B)/gen/html_assets.c
FI_CONFIG_BIN = $(B)/fuzz/fuzz_config
FI_RESULT_BIN = $(B)/fuzz/fuzz_result
FI_OPTS   = -seed=$(FUZZ_SEED) -max_total_time=$(FUZZ_INPUTS_SECONDS) -timeout=10 -rss_limit_mb=2048 \
            -max_len=16384 -print_final_stats=1

.PHONY: fuzz-inputs fuzz-inputs-config fuzz-inputs-result
fuzz-inputs: fuzz-inputs-config fuzz-inputs-result
	@echo "fuzz-inputs: 2 passed, 0 failed"

# fi_run NAME BIN SEED_DIRS: run BIN on $(B)/fuzz/corpus_NAME plus the seeds;
# on a crash, leak, timeout or broken contract print the log's end and the
# path of the input that did it.
define fi_run
	@mkdir -p $(B)/fuzz/corpus_$(1)
	@echo "fuzz-inputs: $(2) for $(FUZZ_INPUTS_SECONDS) s"
	@$(2) $(FI_OPTS) -artifact_prefix=$(B)/fuzz/$(1)- $(B)/fuzz/corpus_$(1) $(3) \
	    >$(B)/fuzz/$(1).log 2>&1 \
	    || { tail -n 40 $(B)/fuzz/$(1).log >&2; \
	         art=$$(sed -n 's/.*Test unit written to \(.*\)$$/\1/p' $(B)/fuzz/$(1).log | tail -n 1); \
	         echo "fuzz-inputs: $(1) FAILED: input $${art:-(none written)}, log $(B)/fuzz/$(1).log" >&2; \
	         echo "fuzz-inputs: replay with $(2) $${art:-INPUT}" >&2; exit 1; }
	@grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(B)/fuzz/$(1).log | tail -n 2
	@echo "fuzz-inputs: $(1) PASS (no crash in $(FUZZ_INPUTS_SECONDS) s)"
endef

fuzz-inputs-config: $(FI_CONFIG_BIN)
	$(call fi_run,config,$(FI_CONFIG_BIN),tests/fuzz/seeds_config conf tests/bad/ini)

fuzz-inputs-result: $(FI_RESULT_BIN)
	$(call fi_run,result,$(FI_RESULT_BIN),tests/fuzz/seeds_result tests/aggregate tests/bad/json)

$(FI_CONFIG_BIN): $(FI_CONFIG_SRC) $(wildcard runner/*/*.h common/*.h)
	@command -v $(FI_CC) >/dev/null || { echo "fuzz-inputs: clang is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(FI_CC) $(FI_FLAGS) -Ilib $(shell pkg-config --cflags inih libpq) -o $@ $(FI_CONFIG_SRC) \
	    $(shell pkg-config --libs inih libpq)

$(FI_RESULT_BIN): $(FI_RESULT_SRC) $(wildcard runner/*/*.h common/*.h aggregate/*.h) include/pgcb/driver.h
	@command -v $(FI_CC) >/dev/null || { echo "fuzz-inputs: clang is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(FI_CC) $(FI_FLAGS) $(shell pkg-config --cflags jansson) -o $@ $(FI_RESULT_SRC) \
	    $(shell pkg-config --libs jansson) -lm
