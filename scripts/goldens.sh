#!/usr/bin/env bash
# Regenerates the fidelity corpus's golden files (tests/corpus/golden/*.json)
# from headless Chromium: installs Debian's chromium if missing, then runs
# `servo-fleet goldens`, which serves tests/corpus/pages on loopback, loads
# every page in Chromium at 1280x720, runs tests/corpus/extract.js and writes
# what it read. Run it after changing a page, an asset or extract.js, and
# commit the goldens with the change. Extra arguments go to `servo-fleet
# goldens`: `--page dom.html` for one page, `--check` to only verify.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/chromium.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/servo-fleet/target}"
# A debug build: the generator's work is Chromium's, and `make test` has
# already built the debug binary.
cargo run --quiet --bin servo-fleet -- goldens --corpus tests/corpus "$@"
