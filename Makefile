# The two commands: `make run` (the whole fleet in one process) and `make test`.
# Builds share a target directory outside the clone, so a second clone or CI run on
# the same machine reuses it; override CARGO_TARGET_DIR to put it elsewhere.
CARGO_TARGET_DIR ?= $(HOME)/.cache/servo-fleet/target
FLEET_ENGINE_CACHE_DIR ?= $(HOME)/.cache/servo-fleet/engine
export CARGO_TARGET_DIR FLEET_ENGINE_CACHE_DIR

.PHONY: run test deps services check

run: deps
	cargo run --release -- serve

test: deps services tests/clients/ts/node_modules
	cargo test --no-fail-fast

# The official MCP TypeScript SDK, for the test that drives the gateway with it.
tests/clients/ts/node_modules: tests/clients/ts/package-lock.json
	cd tests/clients/ts && npm ci --no-audit --no-fund
	touch $@

deps:
	./scripts/setup.sh

services:
	./scripts/services.sh

check: deps
	cargo fmt --all -- --check
	cargo clippy --all-targets -- -D warnings
