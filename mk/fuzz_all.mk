# mk/fuzz_all.mk -- every libFuzzer run, as `make test` runs them (via
# TEST_EXTRA; tests/all.sh calls make with -j(CPUs)): rawwire's reply parser
# (`fuzz`, mk/rawwire.mk, RW_FUZZ_SECONDS) and the two readers of user files
# (`fuzz-inputs-config`, `fuzz-inputs-result`, mk/fuzz_inputs.mk,
# FUZZ_INPUTS_SECONDS). Listed longest first, so that with -j2 the two short
# runs follow each other beside the long one: the whole takes about
# RW_FUZZ_SECONDS instead of the sum.

TEST_EXTRA += fuzz-all
.PHONY: fuzz-all
fuzz-all: fuzz fuzz-inputs-config fuzz-inputs-result
	@echo "fuzz-all: 3 passed, 0 failed"
