// The DOM prelude, evaluated once per realm (see js/mod.rs; it is
// the files of js/dom/ joined in order). It receives the
// object of native functions (js/natives/), builds the Web API surface on
// them, and returns the hooks the engine calls (load events, timers, tasks) and
// the internals that indexeddb/ builds on. Nodes are thin wrappers around
// Blitz node ids; the document itself lives in Rust.
(function (native) {
  'use strict';
  const g = globalThis;
  // The globals the JavaScript engine itself defines, before any prelude
  // adds the platform's (webidl.js shapes only the latter).
  const builtinGlobals = new Set(Object.getOwnPropertyNames(g));
  const ID = Symbol('node id');
  const wrappers = new Map();
  // Elements that stand in for DocumentFragments (Blitz has no fragment node).
  const fragmentIds = new Set();
  const listeners = new WeakMap();
  // A realm made after the document loaded (a page without scripts that an
  // agent then acts on) sees it complete; `startLoad` says otherwise.
  let readyState = 'complete';

  const hidden = (obj, name, value) =>
    Object.defineProperty(obj, name, { value, writable: true, configurable: true, enumerable: false });

