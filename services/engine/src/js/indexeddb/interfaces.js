  // Part of the IndexedDB prelude (js/indexeddb/, joined in order by js/mod.rs):
  // the IDB* interfaces: factory, database, object store, index, requests.
  // ---- interfaces ----------------------------------------------------------
  const stringList = (names) => {
    const list = names.slice().sort();
    hidden(list, 'item', (i) => list[i] ?? null);
    hidden(list, 'contains', (s) => list.includes(String(s)));
    return list;
  };
  const toCount = (count) => {
    if (count === undefined) return 0;
    const n = Number(count);
    if (!Number.isFinite(n) || n < 0 || n > 0xffffffff) throw new TypeError('The count is out of range');
    return Math.trunc(n);
  };
  const DIRECTIONS = ['next', 'nextunique', 'prev', 'prevunique'];
  const toDirection = (d) => {
    const dir = d === undefined ? 'next' : String(d);
    if (!DIRECTIONS.includes(dir)) throw new TypeError(`"${dir}" is not a valid cursor direction`);
    return dir;
  };

  class IDBVersionChangeEvent extends Event {
    constructor(type, init = {}) {
      super(type, init);
      this.oldVersion = Number(init.oldVersion || 0);
      this.newVersion = init.newVersion === undefined ? null : init.newVersion;
    }
  }

  class IDBRequest extends EventTarget {
    constructor(source, tx) {
      super();
      internal(this, { _source: source, _tx: tx, _ready: 'pending', _result: undefined, _error: null, _op: null });
      this.onsuccess = null;
      this.onerror = null;
    }
    get result() {
      if (this._ready === 'pending') throw domError('InvalidStateError', 'The request has not finished');
      return this._result;
    }
    get error() {
      if (this._ready === 'pending') throw domError('InvalidStateError', 'The request has not finished');
      return this._error;
    }
    get source() { return this._source; }
    get transaction() { return this._tx; }
    get readyState() { return this._ready; }
    _done(result, error) { this._ready = 'done'; this._result = result; this._error = error; }
  }
  class IDBOpenDBRequest extends IDBRequest {
    constructor() {
      super(null, null);
      this.onupgradeneeded = null;
      this.onblocked = null;
    }
  }
  // Queues the request `op` computes the result of.
  const request = (tx, source, op) => {
    const req = new IDBRequest(source, tx);
    req._op = op;
    tx._queue.push(req);
    return req;
  };

  const toRange = (query, nullAllowed) => {
    if (query === undefined || query === null) {
      if (nullAllowed) return null;
      throw domError('DataError', 'No key or key range was given');
    }
    if (query instanceof IDBKeyRange) return query;
    const k = encodeKey(query);
    return { _lo: k, _hi: k, lowerOpen: false, upperOpen: false };
  };

  const RANGE = Symbol('key range');
  class IDBKeyRange {
    constructor(token, lo, hi, lowerOpen, upperOpen) {
      if (token !== RANGE) throw new TypeError('Illegal constructor');
      internal(this, { _lo: lo, _hi: hi, _lower: lo === null ? undefined : decodeKey(lo), _upper: hi === null ? undefined : decodeKey(hi) });
      hidden(this, '_lowerOpen', lowerOpen);
      hidden(this, '_upperOpen', upperOpen);
    }
    get lower() { return this._lower; }
    get upper() { return this._upper; }
    get lowerOpen() { return this._lowerOpen; }
    get upperOpen() { return this._upperOpen; }
    includes(key) {
      const k = encodeKey(key);
      if (this._lo !== null && (this._lowerOpen ? k <= this._lo : k < this._lo)) return false;
      if (this._hi !== null && (this._upperOpen ? k >= this._hi : k > this._hi)) return false;
      return true;
    }
    static only(value) { const k = encodeKey(value); return new IDBKeyRange(RANGE, k, k, false, false); }
    static lowerBound(lower, open = false) { return new IDBKeyRange(RANGE, encodeKey(lower), null, !!open, true); }
    static upperBound(upper, open = false) { return new IDBKeyRange(RANGE, null, encodeKey(upper), true, !!open); }
    static bound(lower, upper, lowerOpen = false, upperOpen = false) {
      const lo = encodeKey(lower);
      const hi = encodeKey(upper);
      if (lo > hi || (lo === hi && (lowerOpen || upperOpen))) throw domError('DataError', 'The lower bound is greater than the upper bound');
      return new IDBKeyRange(RANGE, lo, hi, !!lowerOpen, !!upperOpen);
    }
  }

  class IDBDatabase extends EventTarget {
    constructor(state, version) {
      super();
      internal(this, { _state: state, _version: version, _closePending: false, _upgradeTx: null });
      this.onabort = null;
      this.onclose = null;
      this.onerror = null;
      this.onversionchange = null;
    }
    get name() { return this._state.name; }
    get version() { return this._version; }
    get objectStoreNames() { return stringList([...this._state.stores.keys()]); }
    // The running version change transaction, which schema changes need.
    _upgrade() {
      const tx = this._upgradeTx;
      if (!tx || tx._status === FINISHED) throw domError('InvalidStateError', 'The database is not running a version change transaction');
      if (tx._status !== ACTIVE) throw domError('TransactionInactiveError', 'The version change transaction is not active');
      return tx;
    }
    createObjectStore(name, options) {
      const tx = this._upgrade();
      name = String(name);
      const opts = options || {};
      const keyPath = opts.keyPath === undefined || opts.keyPath === null ? null : normKeyPath(opts.keyPath);
      const autoIncrement = !!opts.autoIncrement;
      if (keyPath !== null && !validKeyPath(keyPath)) throw domError('SyntaxError', 'The keyPath is not a valid key path');
      const state = this._state;
      if (state.stores.has(name)) throw domError('ConstraintError', `An object store named "${name}" already exists`);
      if (autoIncrement && (keyPath === '' || Array.isArray(keyPath))) {
        throw domError('InvalidAccessError', 'autoIncrement needs a non-empty, single key path (or none)');
      }
      const store = new StoreState(name, keyPath, autoIncrement);
      state.stores.set(name, store);
      tx._undo.push(() => { state.stores.delete(name); store.deleted = true; });
      tx._ops.push(['createStore', name, keyPath, autoIncrement]);
      return tx.objectStore(name);
    }
    deleteObjectStore(name) {
      const tx = this._upgrade();
      name = String(name);
      const state = this._state;
      const store = state.stores.get(name);
      if (!store) throw domError('NotFoundError', `No object store named "${name}"`);
      state.stores.delete(name);
      store.deleted = true;
      tx._undo.push(() => { state.stores.set(name, store); store.deleted = false; });
      tx._ops.push(['deleteStore', name]);
    }
    transaction(storeNames, mode, _options) {
      if (this._closePending) throw domError('InvalidStateError', 'The database connection is closing');
      if (this._upgradeTx && this._upgradeTx._status !== FINISHED) {
        throw domError('InvalidStateError', 'A version change transaction is running');
      }
      const names = [...new Set(typeof storeNames === 'string' ? [storeNames] : Array.from(storeNames || [], String))].sort();
      if (!names.length) throw domError('InvalidAccessError', 'The transaction needs at least one object store');
      for (const n of names) if (!this._state.stores.has(n)) throw domError('NotFoundError', `No object store named "${n}"`);
      const m = mode === undefined ? 'readonly' : String(mode);
      if (m !== 'readonly' && m !== 'readwrite') throw new TypeError(`"${m}" is not a valid transaction mode`);
      return new IDBTransaction(this, names, m);
    }
    close() {
      this._closePending = true;
      this._state.connections.delete(this);
      unblock(this._state);
    }
  }

  class IDBTransaction extends EventTarget {
    constructor(db, scope, mode) {
      super();
      internal(this, {
        _db: db, _scope: scope, _mode: mode, _status: ACTIVE, _queue: new Queue(), _undo: [], _ops: [],
        _error: null, _started: false, _commitRequested: false, _handles: new Map(), _onFinish: null,
      });
      this.oncomplete = null;
      this.onerror = null;
      this.onabort = null;
      transactions.push(this);
    }
    get db() { return this._db; }
    get mode() { return this._mode; }
    get durability() { return 'default'; }
    get error() { return this._error; }
    get objectStoreNames() {
      return stringList(this._mode === 'versionchange' ? [...this._db._state.stores.keys()] : this._scope);
    }
    objectStore(name) {
      if (this._status === FINISHED) throw domError('InvalidStateError', 'The transaction has finished');
      name = String(name);
      const store = this._db._state.stores.get(name);
      if (!store || (this._mode !== 'versionchange' && !this._scope.includes(name))) {
        throw domError('NotFoundError', `No object store named "${name}" in this transaction`);
      }
      let handle = this._handles.get(store);
      if (!handle) { handle = new IDBObjectStore(this, store); this._handles.set(store, handle); }
      return handle;
    }
    abort() {
      if (this._status === FINISHED || this._status === COMMITTING) throw domError('InvalidStateError', 'The transaction has finished');
      abortTransaction(this, null);
    }
    commit() {
      if (this._status !== ACTIVE) throw domError('InvalidStateError', 'The transaction is not active');
      this._commitRequested = true;
      this._status = INACTIVE;
      maybeCommit(this);
    }
  }

  const checkActive = (tx) => {
    if (tx._status !== ACTIVE) throw domError('TransactionInactiveError', 'The transaction is not active');
  };

  class IDBObjectStore {
    constructor(tx, store) { internal(this, { _tx: tx, _store: store, _indexes: new Map() }); }
    get name() { return this._store.name; }
    // Renaming is for version change transactions, as creating is.
    set name(value) {
      const tx = this._tx;
      const store = this._store;
      if (tx._mode !== 'versionchange' || store.deleted) throw domError('InvalidStateError', 'Object stores are renamed in a version change transaction');
      checkActive(tx);
      const to = String(value);
      const from = store.name;
      if (to === from) return;
      const stores = tx._db._state.stores;
      if (stores.has(to)) throw domError('ConstraintError', `An object store named "${to}" already exists`);
      stores.delete(from);
      stores.set(to, store);
      store.name = to;
      tx._undo.push(() => { stores.delete(to); stores.set(from, store); store.name = from; });
      tx._ops.push(['renameStore', from, to]);
    }
    get keyPath() { const kp = this._store.keyPath; return Array.isArray(kp) ? kp.slice() : kp; }
    get autoIncrement() { return this._store.autoIncrement; }
    get indexNames() { return stringList([...this._store.indexes.keys()]); }
    get transaction() { return this._tx; }
    _check(write) {
      if (this._store.deleted) throw domError('InvalidStateError', 'The object store has been deleted');
      checkActive(this._tx);
      if (write && this._tx._mode === 'readonly') throw domError('ReadOnlyError', 'The transaction is read-only');
    }
    put(value, key) { return this._put(value, key, false, this); }
    add(value, key) { return this._put(value, key, true, this); }
    _put(value, key, noOverwrite, source) {
      this._check(true);
      const tx = this._tx;
      const store = this._store;
      const inline = store.keyPath !== null;
      if (inline && key !== undefined) throw domError('DataError', 'The object store uses in-line keys and a key was given');
      if (!inline && !store.autoIncrement && key === undefined) {
        throw domError('DataError', 'The object store uses out-of-line keys, has no key generator, and no key was given');
      }
      let k = key === undefined ? null : encodeKey(key);
      const tree = serialize(value);
      let clone = null;
      if (inline) {
        clone = deserialize(tree);
        const kv = evalPath(clone, store.keyPath);
        if (kv !== NO_VALUE) {
          k = tryEncodeKey(kv);
          if (k === null) throw domError('DataError', 'The key path yields no valid key');
        } else if (!store.autoIncrement) {
          throw domError('DataError', 'The key path yields no value');
        } else if (!canInject(clone, store.keyPath)) {
          throw domError('DataError', 'The generated key could not be put into the value');
        }
      }
      return request(tx, source, () => {
        let key = k;
        let v = tree;
        let nextKeyGen = null;
        if (key === null) {
          if (store.keyGen > MAX_GENERATED_KEY) throw domError('ConstraintError', 'The key generator has run out of keys');
          const generated = store.keyGen;
          key = encodeKey(generated);
          nextKeyGen = generated + 1;
          if (inline) {
            // `clone` is this request's own copy, made when it was queued.
            inject(clone, store.keyPath, generated);
            v = serialize(clone);
          }
        } else if (store.autoIncrement && key[0] === '1') {
          // An explicit numeric key moves the generator past it.
          const n = Math.floor(Math.min(decodeKey(key), MAX_GENERATED_KEY));
          if (n >= store.keyGen) nextKeyGen = n >= MAX_GENERATED_KEY ? MAX_GENERATED_KEY + 2 : n + 1;
        }
        if (noOverwrite && store.records.has(key)) throw domError('ConstraintError', 'A record with this key already exists');
        const ix = Object.create(null);
        if (store.indexes.size) {
          const indexed = clone || deserialize(v);
          for (const index of store.indexes.values()) {
            const keys = indexKeys(index, indexed);
            if (index.unique) {
              for (const ik of keys) {
                const e = index.entries[lowerBound(index.entries, ik, entryKey)];
                if (e && e.ik === ik && e.k !== key) throw domError('ConstraintError', `The unique index "${index.name}" already holds this key`);
              }
            }
            if (keys.length) ix[index.name] = keys;
          }
        }
        if (nextKeyGen !== null) setKeyGenerator(tx, store, nextKeyGen);
        writeRecord(tx, store, key, v, ix);
        return decodeKey(key);
      });
    }
    get(query) {
      this._check(false);
      const range = toRange(query, false);
      const store = this._store;
      return request(this._tx, this, () => {
        const [s, e] = span(store.keys, range, ident);
        return s < e ? deserialize(store.records.get(store.keys[s]).v) : undefined;
      });
    }
    getKey(query) {
      this._check(false);
      const range = toRange(query, false);
      const store = this._store;
      return request(this._tx, this, () => {
        const [s, e] = span(store.keys, range, ident);
        return s < e ? decodeKey(store.keys[s]) : undefined;
      });
    }
    getAll(query, count) { return this._getAll(query, count, true); }
    getAllKeys(query, count) { return this._getAll(query, count, false); }
    _getAll(query, count, values) {
      this._check(false);
      const range = toRange(query, true);
      const n = toCount(count);
      const store = this._store;
      return request(this._tx, this, () => {
        const [s, e] = span(store.keys, range, ident);
        const end = n ? Math.min(e, s + n) : e;
        const out = [];
        for (let i = s; i < end; i++) out.push(values ? deserialize(store.records.get(store.keys[i]).v) : decodeKey(store.keys[i]));
        return out;
      });
    }
    count(query) {
      this._check(false);
      const range = toRange(query, true);
      const store = this._store;
      return request(this._tx, this, () => { const [s, e] = span(store.keys, range, ident); return e - s; });
    }
    delete(query) {
      this._check(true);
      const range = toRange(query, false);
      const tx = this._tx;
      const store = this._store;
      return request(tx, this, () => {
        const [s, e] = span(store.keys, range, ident);
        for (const k of store.keys.slice(s, e)) removeRecord(tx, store, k);
        return undefined;
      });
    }
    clear() {
      this._check(true);
      const tx = this._tx;
      const store = this._store;
      return request(tx, this, () => { clearStore(tx, store); return undefined; });
    }
    openCursor(query, direction) { return openCursor(this, null, query, direction, true); }
    openKeyCursor(query, direction) { return openCursor(this, null, query, direction, false); }
    createIndex(name, keyPath, options) {
      const tx = this._tx;
      const store = this._store;
      if (tx._mode !== 'versionchange' || store.deleted) throw domError('InvalidStateError', 'Indexes are created in a version change transaction');
      checkActive(tx);
      name = String(name);
      if (store.indexes.has(name)) throw domError('ConstraintError', `An index named "${name}" already exists`);
      const kp = normKeyPath(keyPath);
      if (!validKeyPath(kp)) throw domError('SyntaxError', 'The keyPath is not a valid key path');
      const unique = !!(options && options.unique);
      const multiEntry = !!(options && options.multiEntry);
      if (multiEntry && Array.isArray(kp)) throw domError('InvalidAccessError', 'A multiEntry index needs a single key path');
      const index = new IndexState(name, kp, unique, multiEntry);
      const { previous, duplicate } = buildIndex(store, index);
      store.indexes.set(name, index);
      tx._undo.push(() => {
        store.indexes.delete(name);
        index.deleted = true;
        for (const [rec, keys] of previous) { if (keys) rec.ix[name] = keys; else delete rec.ix[name]; }
      });
      tx._ops.push(['createIndex', store.name, name, kp, unique, multiEntry]);
      // Records that break a new unique index abort the upgrade, as a
      // request failing would.
      if (duplicate) {
        tasks.push({ run: () => abortTransaction(tx, domError('ConstraintError', `Existing records break the unique index "${name}"`)) });
      }
      return this.index(name);
    }
    deleteIndex(name) {
      const tx = this._tx;
      const store = this._store;
      if (tx._mode !== 'versionchange' || store.deleted) throw domError('InvalidStateError', 'Indexes are deleted in a version change transaction');
      checkActive(tx);
      name = String(name);
      const index = store.indexes.get(name);
      if (!index) throw domError('NotFoundError', `No index named "${name}"`);
      store.indexes.delete(name);
      index.deleted = true;
      tx._undo.push(() => { store.indexes.set(name, index); index.deleted = false; });
      tx._ops.push(['deleteIndex', store.name, name]);
    }
    index(name) {
      if (this._store.deleted || this._tx._status === FINISHED) throw domError('InvalidStateError', 'The object store or its transaction is gone');
      name = String(name);
      const index = this._store.indexes.get(name);
      if (!index) throw domError('NotFoundError', `No index named "${name}"`);
      let handle = this._indexes.get(index);
      if (!handle) { handle = new IDBIndex(this, index); this._indexes.set(index, handle); }
      return handle;
    }
  }

  class IDBIndex {
    constructor(objectStore, index) { internal(this, { _os: objectStore, _index: index }); }
    get name() { return this._index.name; }
    set name(value) {
      const tx = this._os._tx;
      const store = this._os._store;
      const index = this._index;
      if (tx._mode !== 'versionchange' || store.deleted || index.deleted) throw domError('InvalidStateError', 'Indexes are renamed in a version change transaction');
      checkActive(tx);
      const to = String(value);
      const from = index.name;
      if (to === from) return;
      if (store.indexes.has(to)) throw domError('ConstraintError', `An index named "${to}" already exists`);
      // The working copy keeps each record's index keys by index name.
      const move = (a, b) => {
        store.indexes.delete(a);
        store.indexes.set(b, index);
        index.name = b;
        for (const rec of store.records.values()) if (a in rec.ix) { rec.ix[b] = rec.ix[a]; delete rec.ix[a]; }
      };
      move(from, to);
      tx._undo.push(() => move(to, from));
      tx._ops.push(['renameIndex', store.name, from, to]);
    }
    get objectStore() { return this._os; }
    get keyPath() { const kp = this._index.keyPath; return Array.isArray(kp) ? kp.slice() : kp; }
    get unique() { return this._index.unique; }
    get multiEntry() { return this._index.multiEntry; }
    _check() {
      if (this._index.deleted || this._os._store.deleted) throw domError('InvalidStateError', 'The index has been deleted');
      checkActive(this._os._tx);
    }
    _first(query, map) {
      this._check();
      const range = toRange(query, false);
      const index = this._index;
      return request(this._os._tx, this, () => {
        const [s, e] = span(index.entries, range, entryKey);
        return s < e ? map(index.entries[s]) : undefined;
      });
    }
    get(query) { const store = this._os._store; return this._first(query, (e) => deserialize(store.records.get(e.k).v)); }
    getKey(query) { return this._first(query, (e) => decodeKey(e.k)); }
    getAll(query, count) { return this._getAll(query, count, true); }
    getAllKeys(query, count) { return this._getAll(query, count, false); }
    _getAll(query, count, values) {
      this._check();
      const range = toRange(query, true);
      const n = toCount(count);
      const index = this._index;
      const store = this._os._store;
      return request(this._os._tx, this, () => {
        const [s, e] = span(index.entries, range, entryKey);
        const end = n ? Math.min(e, s + n) : e;
        const out = [];
        for (let i = s; i < end; i++) {
          const entry = index.entries[i];
          out.push(values ? deserialize(store.records.get(entry.k).v) : decodeKey(entry.k));
        }
        return out;
      });
    }
    count(query) {
      this._check();
      const range = toRange(query, true);
      const index = this._index;
      return request(this._os._tx, this, () => { const [s, e] = span(index.entries, range, entryKey); return e - s; });
    }
    openCursor(query, direction) { return openCursor(this._os, this, query, direction, true); }
    openKeyCursor(query, direction) { return openCursor(this._os, this, query, direction, false); }
  }

