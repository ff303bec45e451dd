// IndexedDB, evaluated in a realm when its page first uses it (see
// indexeddb/stub.js; it is the other files of js/indexeddb/ joined in order,
// js/realm/preludes.rs). It
// receives the natives and the prelude's internals (events, the task queue)
// and defines `indexedDB` and the IDB* interfaces on the global object.
//
// A database a page opens is loaded from Rust (indexeddb.rs) into a working
// copy in this realm. Requests run against that copy as tasks, one per task so
// promise jobs run in between (see the `runTask`/`endTask` source at the end).
// Every write is logged twice: an undo step, to roll the copy back when the
// transaction aborts, and an operation, sent to Rust when it commits. Rust
// keeps the committed data across loads (the realm is dropped on each one) and
// in snapshots.
//
// Keys are handled in an encoded form: an ASCII string whose plain string
// order is IndexedDB's key order (see `encodeKey`), so sorted arrays, binary
// search and Map lookups need no comparator. Values are stored as a tagged
// JSON-compatible tree (see `serialize`), which is also how they reach Rust.
(function (native, internals) {
  'use strict';
  const g = globalThis;
  const { Event, EventTarget, Node, invoke, reportError, hidden, addTaskSource, queueTask } = internals;
  const DOMException = g.DOMException;
  const domError = (name, message) => new DOMException(message, name);
  const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const internal = (o, props) => { for (const k of Object.keys(props)) hidden(o, k, props[k]); };
  // Defines a data property the way structured clone does (a key such as
  // "__proto__" must not reach the prototype setter).
  const define = (o, k, value) => Object.defineProperty(o, k, { value, writable: true, enumerable: true, configurable: true });

