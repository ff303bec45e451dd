//! Navigation requested by the page, and the session history.
//!
//! Scripts never load a document in the middle of running: `location.assign`,
//! a link click or a form submission records a [`Pending`] navigation, and the
//! tab carries it out once the current task is over (`tab::follow`), the way
//! a browser queues a navigation task. The last request wins, as in browsers
//! (a click handler that sets `location` before the link's default action
//! runs is overridden by the link).
//!
//! The history is a list of entries with a current index. Entries made by
//! `pushState` or a fragment change share their document (`doc`), so moving
//! between them fires `popstate`/`hashchange` without a load; moving to an
//! entry of another document loads its URL again (with GET: a form POST is
//! not resent) or, for inline documents, its source.

use std::rc::Rc;

/// Entries kept; the oldest are dropped beyond this.
const MAX_ENTRIES: usize = 50;

/// A document load the page asked for.
#[derive(Clone, Debug)]
pub(crate) struct Request {
    /// Absolute URL.
    pub url: String,
    /// `GET` or `POST`.
    pub method: String,
    /// Request body (form submissions with POST).
    pub body: Option<Vec<u8>>,
    /// Its `Content-Type`.
    pub content_type: Option<String>,
    /// Whether the new entry replaces the current one (`location.replace`).
    pub replace: bool,
    /// Set for an `<a download>` link: the response is saved as a download
    /// (the attribute's value, maybe empty, suggests its name), never shown.
    pub download: Option<String>,
}

impl Request {
    /// A plain GET that adds a history entry.
    pub fn get(url: impl Into<String>) -> Self {
        Request {
            url: url.into(),
            method: "GET".to_owned(),
            body: None,
            content_type: None,
            replace: false,
            download: None,
        }
    }
}

/// What the tab does once the current task is over.
#[derive(Clone, Debug)]
pub(crate) enum Pending {
    /// Load a new document.
    Load(Request),
    /// Move `delta` entries through the history.
    Traverse(i32),
    /// Load the current entry again.
    Reload,
}

/// One history entry.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// Its URL.
    pub url: String,
    /// `history.state`: the JSON text of its structured serialization (see
    /// the DOM prelude, `js/dom/`; `None` is `null`).
    pub state: Option<String>,
    /// The document it belongs to (a sequence number per load).
    pub doc: u64,
    /// The source of an inline document, to load it again.
    pub html: Option<Rc<str>>,
}

/// The session history.
#[derive(Default)]
pub(crate) struct History {
    entries: Vec<Entry>,
    index: usize,
    /// The sequence number of the newest document.
    docs: u64,
}

/// How a new document enters the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Commit {
    /// After the current entry, dropping the forward entries.
    Push,
    /// In place of the current entry.
    Replace,
    /// At an existing index (a traversal to another document).
    At(usize),
}

impl History {
    /// The current entry, if any document was loaded.
    pub fn current(&self) -> Option<&Entry> {
        self.entries.get(self.index)
    }

    /// `history.length`.
    pub fn len(&self) -> usize {
        self.entries.len().max(1)
    }

    /// Record a newly loaded document at `url`; returns its document number.
    pub fn commit_document(&mut self, url: &str, html: Option<Rc<str>>, how: Commit) -> u64 {
        self.docs += 1;
        let entry = Entry {
            url: url.to_owned(),
            state: None,
            doc: self.docs,
            html,
        };
        match how {
            Commit::At(index) if index < self.entries.len() => {
                self.entries[index] = entry;
                self.index = index;
            }
            Commit::Replace if !self.entries.is_empty() => self.entries[self.index] = entry,
            _ => self.push(entry),
        }
        self.docs
    }

    /// `pushState`/`replaceState` or a fragment navigation: an entry of the
    /// current document.
    pub fn same_document(&mut self, url: &str, state: Option<String>, replace: bool) {
        let Some(current) = self.current().cloned() else {
            return;
        };
        let entry = Entry {
            url: url.to_owned(),
            state,
            ..current
        };
        if replace {
            self.entries[self.index] = entry;
        } else {
            self.push(entry);
        }
    }

    fn push(&mut self, entry: Entry) {
        self.entries.truncate(self.index + 1);
        self.entries.push(entry);
        if self.entries.len() > MAX_ENTRIES {
            self.entries.remove(0);
        }
        self.index = self.entries.len() - 1;
    }

    /// The entry `delta` steps away and its index, if there is one.
    pub fn target(&self, delta: i32) -> Option<(usize, Entry)> {
        let index = i64::try_from(self.index).ok()? + i64::from(delta);
        let index = usize::try_from(index).ok()?;
        self.entries.get(index).map(|e| (index, e.clone()))
    }

    /// Make `index` current (a traversal within the current document).
    pub fn set_index(&mut self, index: usize) {
        if index < self.entries.len() {
            self.index = index;
        }
    }
}
