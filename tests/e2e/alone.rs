//! Tests that time the engine against headless Chromium on the same machine:
//! the bench's suite, and the real-world pages, whose bar has a script budget
//! measured in wall-clock time. On a two-core machine, a test beside them that
//! runs its own fleet takes the cores they are timing, and a page's scripts
//! (a search index built at load, as Chromium builds it in a worker) can run
//! past the budget for that reason alone. `make test` runs every other test
//! first, then these one at a time (`--test-threads 1 alone::`).

pub(crate) mod bench_suite;
pub(crate) mod realworld;
