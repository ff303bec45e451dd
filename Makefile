# The two commands: `make run` (the whole fleet in one process) and `make test`.
# Builds share a target directory outside the clone, so a second clone or CI run on
# the same machine reuses it; override CARGO_TARGET_DIR to put it elsewhere.
CARGO_TARGET_DIR ?= $(HOME)/.cache/servo-fleet/target
FLEET_ENGINE_CACHE_DIR ?= $(HOME)/.cache/servo-fleet/engine
# helm, kubectl and the Python chart checkers (scripts/k8s-tools.sh installs them).
FLEET_K8S_TOOLS ?= $(HOME)/.cache/servo-fleet/k8s-tools
export CARGO_TARGET_DIR FLEET_ENGINE_CACHE_DIR FLEET_K8S_TOOLS

.PHONY: run test engine-unit-tests bench bench-quick load realworld realworld-pages goldens deps services check k8s-check image image-prebuilt

run: deps
	cargo run --release --bin servo-fleet -- serve

# The benchmark against headless Chromium (Debian's `chromium`, installed if
# missing; the real-world pages its rows load) and the load test; they use the
# local Postgres and Redis. `servo-fleet bench --compare old.json bench.json`
# prints what changed since an earlier report.
bench: deps services realworld-pages
	cargo run --release --bin servo-fleet -- bench --json bench.json

bench-quick: deps services realworld-pages
	cargo run --release --bin servo-fleet -- bench --quick

load: deps services
	cargo run --release --bin servo-fleet -- bench --load

# The engine against headless Chromium on every page of the real-world corpus
# (tests/realworld), page by page; `make test` checks its subset.
realworld: deps services realworld-pages
	cargo run --release --bin servo-fleet -- bench --realworld

# Chromium, and the pinned Debian and npm packages the real-world pages come from.
realworld-pages:
	./scripts/chromium.sh
	./scripts/realworld.sh

# Rewrites tests/corpus/golden/*.json from headless Chromium after a corpus page
# changed (commit them with the page); `make test` compares the engine with them.
goldens: deps tests/corpus/vendor/node_modules
	./scripts/goldens.sh

# Besides the Rust tests (the engine's unit tests among them): the chart checks (lint, strict validation, policies,
# the Dockerfile) and, with the binary the tests use, the image's prebuilt target
# built by Debian's buildah on a debootstrap base (scripts/image.sh check).
test: deps services k8s-check realworld-pages tests/clients/ts/node_modules tests/clients/python/venv tests/clients/grpc/venv tests/clients/s3/venv tests/clients/conformance/node_modules tests/clients/browser/node_modules tests/corpus/vendor/node_modules
	cargo test --no-run
	./scripts/image.sh check $(CARGO_TARGET_DIR)/debug/servo-fleet
	$(MAKE) engine-unit-tests
# Every test but those timed against Chromium, then those one at a time
# (tests/e2e/alone.rs says why); the second runs even if the first failed.
	cargo test --no-fail-fast -- --skip alone:: ; rest=$$?; \
	cargo test --test e2e -- --test-threads 1 alone:: && exit $$rest

# The engine's own unit tests, built for wasm32-wasip2 beside the engine guest
# (so only the engine crate is compiled again) and run under wasmtime by
# fleet-wasi-run.
engine-unit-tests: deps
	cargo build --bin fleet-wasi-run
	CARGO_TARGET_WASM32_WASIP2_RUNNER=$(CARGO_TARGET_DIR)/debug/fleet-wasi-run \
		cargo test --release --target wasm32-wasip2 -p fleet-engine --target-dir $(CARGO_TARGET_DIR)/engine-guest

# Lint, render, strictly validate and policy-check the Helm chart; lint the Dockerfile.
k8s-check:
	./scripts/k8s-check.sh

# The image, compiled inside the build (needs a builder that can pull the Rust
# and Debian base images): docker, podman or buildah, whichever is installed.
image:
	./scripts/image.sh source

# The image around a release binary built here (the Dockerfile's prebuilt target).
image-prebuilt: deps
	cargo build --release --bin servo-fleet
	./scripts/image.sh prebuilt $(CARGO_TARGET_DIR)/release/servo-fleet

# The official MCP TypeScript SDK, for the test that drives the gateway with it.
tests/clients/ts/node_modules: tests/clients/ts/package-lock.json
	cd tests/clients/ts && npm ci --no-audit --no-fund
	touch $@

# puppeteer-core, for the test that opens a live view in headless Chromium
# (Debian's, which realworld-pages installs) and drives a session through it.
tests/clients/browser/node_modules: tests/clients/browser/package-lock.json
	cd tests/clients/browser && npm ci --no-audit --no-fund
	touch $@

# moto in server mode: the local S3-compatible server the recordings test
# stores to.
tests/clients/s3/venv: tests/clients/s3/requirements.txt
	rm -rf $@
	python3 -m venv $@
	$@/bin/pip install --quiet --no-deps --require-hashes -r $<
	touch $@

# The official MCP conformance suite and the Node 22 it runs on.
tests/clients/conformance/node_modules: tests/clients/conformance/package-lock.json
	cd tests/clients/conformance && npm ci --no-audit --no-fund
	touch $@

# The official MCP Python SDK, for the test that drives `servo-fleet stdio` with it.
tests/clients/python/venv: tests/clients/python/requirements.txt
	rm -rf $@
	python3 -m venv $@
	$@/bin/pip install --quiet --no-deps --require-hashes -r $<
	touch $@

# grpcio and grpcio-tools, for the test that watches a session from Python
# with stubs it generates from proto/fleet/v1.
tests/clients/grpc/venv: tests/clients/grpc/requirements.txt
	rm -rf $@
	python3 -m venv $@
	$@/bin/pip install --quiet --no-deps --require-hashes -r $<
	touch $@

# Published libraries the corpus page frameworks.html loads (jQuery, React,
# Vue, Alpine, Preact), pinned by their package-lock.json.
tests/corpus/vendor/node_modules: tests/corpus/vendor/package-lock.json
	cd tests/corpus/vendor && npm ci --no-audit --no-fund
	touch $@

deps:
	./scripts/setup.sh

services:
	./scripts/services.sh

check: deps
	cargo fmt --all -- --check
	cargo clippy --all-targets -- -D warnings
