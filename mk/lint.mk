# mk/lint.mk -- `make lint`: static checks of the scripts, the Docker files and the
# CI workflow (scripts/lint.sh says what each runs); `make test` runs it last.
# The tools come from scripts/install-deps.sh (the deps target); the npm
# linters are installed into $(B)/lint/ on first use.

.PHONY: lint
lint: deps
	@PGCB_LINT_DIR=$(B)/lint scripts/lint.sh

TEST_EXTRA += lint
