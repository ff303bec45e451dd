  // Part of the IndexedDB prelude (js/indexeddb/, joined in order by js/mod.rs):
  // working copies of databases.
  // ---- working copies of databases ----------------------------------------
  class DbState {
    constructor(name, version) {
      this.name = name;
      this.version = version;
      this.stores = new Map();
      this.connections = new Set();
      // Opens and deletes waiting for other connections to close ("blocked").
      this.blocked = [];
    }
  }
  class StoreState {
    constructor(name, keyPath, autoIncrement) {
      this.name = name;
      this.keyPath = keyPath;
      this.autoIncrement = autoIncrement;
      this.keyGen = 1;
      this.keys = []; // encoded keys, sorted
      this.records = new Map(); // encoded key → {k, v: value tree, ix: {index name: [encoded index keys]}}
      this.indexes = new Map();
      this.deleted = false;
    }
  }
  class IndexState {
    constructor(name, keyPath, unique, multiEntry) {
      this.name = name;
      this.keyPath = keyPath;
      this.unique = unique;
      this.multiEntry = multiEntry;
      this.entries = []; // {c: ik + k, ik, k}, sorted by c
      this.deleted = false;
    }
  }
  // Databases of this realm's origin opened so far, by name.
  const cache = new Map();
  const addIndexEntries = (store, rec) => {
    for (const name of Object.keys(rec.ix)) {
      const index = store.indexes.get(name);
      if (!index) continue;
      for (const ik of rec.ix[name]) insertSorted(index.entries, { c: ik + rec.k, ik, k: rec.k }, ik + rec.k, entryKey);
    }
  };
  const removeIndexEntries = (store, rec) => {
    for (const name of Object.keys(rec.ix)) {
      const index = store.indexes.get(name);
      if (!index) continue;
      for (const ik of rec.ix[name]) removeSorted(index.entries, ik + rec.k, entryKey);
    }
  };
  // Fills a new index from the store's records. Returns what each record
  // held for that index name before (to restore on rollback) and whether a
  // unique index found a duplicate.
  const buildIndex = (store, index) => {
    const previous = [];
    let duplicate = false;
    for (const k of store.keys) {
      const rec = store.records.get(k);
      previous.push([rec, rec.ix[index.name]]);
      const keys = indexKeys(index, deserialize(rec.v));
      if (keys.length) rec.ix[index.name] = keys; else delete rec.ix[index.name];
      for (const ik of keys) index.entries.push({ c: ik + k, ik, k });
    }
    index.entries.sort((a, b) => (a.c < b.c ? -1 : a.c > b.c ? 1 : 0));
    if (index.unique) {
      for (let i = 1; i < index.entries.length; i++) if (index.entries[i].ik === index.entries[i - 1].ik) duplicate = true;
    }
    return { previous, duplicate };
  };
  // The database as committed in Rust, or null if there is none.
  const loadState = (name) => {
    if (cache.has(name)) return cache.get(name);
    const json = native.idbLoad(name);
    if (json === undefined || json === null) return null;
    const data = JSON.parse(json);
    const state = new DbState(name, data.version);
    for (const storeName of Object.keys(data.stores)) {
      const s = data.stores[storeName];
      const store = new StoreState(storeName, s.keyPath, s.autoIncrement);
      store.keyGen = s.keyGenerator;
      // Rust keeps records sorted bytewise, which is string order for ASCII.
      for (const [k, v] of s.records) {
        store.keys.push(k);
        store.records.set(k, { k, v, ix: Object.create(null) });
      }
      for (const indexName of Object.keys(s.indexes)) {
        const d = s.indexes[indexName];
        const index = new IndexState(indexName, d.keyPath, d.unique, d.multiEntry);
        store.indexes.set(indexName, index);
        buildIndex(store, index);
      }
      state.stores.set(storeName, store);
    }
    cache.set(name, state);
    return state;
  };

