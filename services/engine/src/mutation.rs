//! The document's mutation count. Every change the engine makes to the tree or
//! to an attribute goes through [`mutate`], which counts it, so that what
//! scripts derive from the tree (the live collections of
//! `getElementsByTagName` and `getElementsByClassName`) is computed again only
//! after the tree changed, not on every read: a loop over a live collection
//! of 1,500 elements would otherwise run the query 3,000 times.

use std::cell::Cell;

use blitz_dom::{BaseDocument, DocumentMutator};

thread_local! {
    static VERSION: Cell<u64> = const { Cell::new(0) };
}

/// A mutator of `doc`; the mutation count moves on first.
pub(crate) fn mutate(doc: &mut BaseDocument) -> DocumentMutator<'_> {
    changed();
    doc.mutate()
}

/// Count a change made without a mutator (a new document).
pub(crate) fn changed() {
    VERSION.with(|v| v.set(v.get().wrapping_add(1)));
}

/// The count: equal counts mean an unchanged tree.
pub(crate) fn version() -> u64 {
    VERSION.with(Cell::get)
}
