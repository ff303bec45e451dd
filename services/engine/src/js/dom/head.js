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
  // Node wrappers, by the slot of their node id: its low 32 bits, the high
  // ones being the slot's generation, which the wrapper's own id is checked
  // against. A document numbers its slots from 0, so the array stays dense:
  // 8 bytes a slot where a Map entry cost ≈50 a node, and a script that walks
  // a large tree wraps every node. The slot is `id >>> 0`, the id modulo
  // 2^32 for any id (a whole number below 2^53), where `id % 2 ** 32` was a
  // call to fmod in QuickJS on every wrapper lookup.
  const wrappers = {
    slots: [],
    get(id) {
      const node = this.slots[id >>> 0];
      return node !== undefined && node[ID] === id ? node : undefined;
    },
    set(id, node) {
      const slot = id >>> 0;
      while (this.slots.length < slot) this.slots.push(undefined);
      this.slots[slot] = node;
    },
    delete(id) {
      const slot = id >>> 0;
      if (this.get(id) !== undefined) this.slots[slot] = undefined;
    },
  };
  // Elements that stand in for DocumentFragments (Blitz has no fragment node).
  const fragmentIds = new Set();
  const listeners = new WeakMap();
  // A realm made after the document loaded (a page without scripts that an
  // agent then acts on) sees it complete; `startLoad` says otherwise.
  let readyState = 'complete';

  const hidden = (obj, name, value) =>
    Object.defineProperty(obj, name, { value, writable: true, configurable: true, enumerable: false });

