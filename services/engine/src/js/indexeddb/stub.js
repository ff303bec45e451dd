// IndexedDB's place in every realm, evaluated after the DOM prelude (see
// js/realm.rs): most pages never open a database, so IndexedDB itself (the
// files of js/indexeddb/ joined in order, a sixth of the preludes) is
// evaluated the first time a page reads or writes one of the globals it
// defines (`structuredClone` among them), or clones a value for
// `history.state`, which uses its serialization. Until then each of those globals is an accessor with the
// enumerability the loaded one has; `in`, `for…in` and `Object.keys` see
// them as they will be, and only `Object.getOwnPropertyDescriptor` tells.
(function (native, internals) {
  'use strict';
  const g = globalThis;
  const { defineProperty, getOwnPropertyNames } = Object;
  const { clone } = internals;
  // `indexedDB` is an attribute of the window and `structuredClone` (which
  // QuickJS lacks) an operation, both enumerable; the interfaces are not
  // (js/webidl.js).
  const GLOBALS = [
    ['indexedDB', true],
    ['structuredClone', true],
    ...['IDBFactory', 'IDBDatabase', 'IDBTransaction', 'IDBObjectStore', 'IDBIndex', 'IDBCursor', 'IDBCursorWithValue',
      'IDBKeyRange', 'IDBRequest', 'IDBOpenDBRequest', 'IDBVersionChangeEvent'].map((name) => [name, false]),
  ];
  const stub = { serialize: clone.serialize, deserialize: clone.deserialize };

  let loaded = false;
  const load = () => {
    if (loaded) return;
    loaded = true;
    for (const [name] of GLOBALS) delete g[name];
    clone.serialize = stub.serialize;
    clone.deserialize = stub.deserialize;
    // Every global but the ones IndexedDB defines is skipped by the WebIDL
    // walk, which the page's own globals must never meet.
    const others = getOwnPropertyNames(g);
    native.prelude('indexeddb')(native, internals);
    native.shapeInterfaces(others);
  };

  for (const [name, enumerable] of GLOBALS) {
    defineProperty(g, name, {
      get() { load(); return g[name]; },
      set(value) { load(); g[name] = value; },
      enumerable,
      configurable: true,
    });
  }
  clone.serialize = (value) => { load(); return clone.serialize(value); };
  clone.deserialize = (value) => { load(); return clone.deserialize(value); };
})
