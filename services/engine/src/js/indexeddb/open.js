  // Part of the IndexedDB prelude (js/indexeddb/, joined in order by js/mod.rs):
  // opening and deleting databases.
  // ---- opening and deleting databases --------------------------------------
  // Whether a database has transactions still running (open and delete wait).
  const busy = (name) => {
    const state = cache.get(name);
    return !!state && transactions.some((t) => t._db._state === state);
  };
  const failRequest = (req, error) => {
    req._done(undefined, error);
    fire(req, errorEvent(), [req]);
  };
  const openDatabase = (req, name, requested) => {
    let state;
    try { state = loadState(name); } catch (e) { failRequest(req, e); return; }
    const oldVersion = state ? state.version : 0;
    const version = requested === undefined ? (state ? state.version : 1) : requested;
    if (version < oldVersion) {
      failRequest(req, domError('VersionError', `The requested version (${version}) is less than the existing version (${oldVersion})`));
      return;
    }
    const created = !state;
    if (created) { state = new DbState(name, 0); cache.set(name, state); }
    const db = new IDBDatabase(state, oldVersion);
    state.connections.add(db);
    if (version === oldVersion) {
      req._done(db, null);
      fire(req, new Event('success'), [req]);
      return;
    }
    // Other connections are told; the upgrade waits for them to close, and
    // the request hears `blocked` while any stays open.
    whenOthersClose(state, db, req, oldVersion, version, () => upgrade(req, db, state, created, name, oldVersion, version));
  };
  const upgrade = (req, db, state, created, name, oldVersion, version) => {
    if (db._closePending) {
      state.connections.delete(db);
      failRequest(req, domError('AbortError', 'The connection was closed before the upgrade'));
      return;
    }
    const tx = new IDBTransaction(db, [], 'versionchange');
    tx._started = true;
    db._upgradeTx = tx;
    state.version = version;
    db._version = version;
    tx._undo.push(() => { state.version = oldVersion; db._version = oldVersion; });
    tx._ops.push(['version', version]);
    tx._onFinish = (committed) => {
      req._tx = null;
      if (committed && !db._closePending) {
        // In the task that fired `complete`, so that an open or delete
        // waiting for this upgrade cannot get its answer first.
        req._done(db, null);
        fire(req, new Event('success'), [req]);
        return;
      }
      db._closePending = true;
      state.connections.delete(db);
      if (created && !committed) cache.delete(name);
      failRequest(req, domError('AbortError', committed ? 'The connection was closed during the upgrade' : 'The version change transaction was aborted'));
    };
    req._tx = tx;
    req._done(db, null);
    const event = fire(req, new IDBVersionChangeEvent('upgradeneeded', { oldVersion, newVersion: version }), [req]);
    if (event[internals.EV].threw) abortTransaction(tx, domError('AbortError', 'An upgradeneeded listener threw'));
  };
  const deleteDatabase = (req, name) => {
    let state;
    try { state = loadState(name); } catch (e) { failRequest(req, e); return; }
    const oldVersion = state ? state.version : 0;
    const remove = () => {
      if (state) cache.delete(name);
      try { native.idbDelete(name); } catch (e) { failRequest(req, e); return; }
      req._done(undefined, null);
      fire(req, new IDBVersionChangeEvent('success', { oldVersion, newVersion: null }), [req]);
    };
    if (state) whenOthersClose(state, null, req, oldVersion, null, remove);
    else remove();
  };
  // Tell the connections of `state` other than `self` that the version
  // changes; once none of them is open, `proceed`. Until then the request
  // hears `blocked` and waits, as in browsers (a connection that never
  // closes keeps it waiting).
  const whenOthersClose = (state, self, req, oldVersion, newVersion, proceed) => {
    const open = () => [...state.connections].filter((c) => c !== self && !c._closePending);
    for (const other of open()) fire(other, new IDBVersionChangeEvent('versionchange', { oldVersion, newVersion }), [other]);
    if (!open().length) { proceed(); return; }
    // Waiting before `blocked` fires: a listener may close the last one.
    state.blocked.push({ ready: () => !open().length, proceed });
    fire(req, new IDBVersionChangeEvent('blocked', { oldVersion, newVersion }), [req]);
  };
  // A connection closed: run the opens and deletes it was blocking, each in
  // a task of its own.
  const unblock = (state) => {
    const waiting = state.blocked;
    state.blocked = [];
    for (const w of waiting) {
      if (w.ready()) queueTask(w.proceed); else state.blocked.push(w);
    }
  };
  const toVersion = (version) => {
    const n = Number(version);
    if (!Number.isFinite(n) || Math.trunc(n) < 1 || n > Number.MAX_SAFE_INTEGER) {
      throw new TypeError('The version must be an integer between 1 and 2^53 - 1');
    }
    return Math.trunc(n);
  };

  class IDBFactory {
    open(name, version) {
      if (arguments.length < 1) throw new TypeError('open() needs a database name');
      name = String(name);
      const requested = version === undefined ? undefined : toVersion(version);
      native.idbOrigin(); // SecurityError where the origin has no storage
      const req = new IDBOpenDBRequest();
      tasks.push({ ready: () => !busy(name), run: () => openDatabase(req, name, requested) });
      return req;
    }
    deleteDatabase(name) {
      if (arguments.length < 1) throw new TypeError('deleteDatabase() needs a database name');
      name = String(name);
      native.idbOrigin();
      const req = new IDBOpenDBRequest();
      tasks.push({ ready: () => !busy(name), run: () => deleteDatabase(req, name) });
      return req;
    }
    databases() {
      try {
        const list = native.idbDatabases().map(([name, version]) => ({ name, version: Number(version) }));
        return Promise.resolve(list);
      } catch (e) {
        return Promise.reject(e);
      }
    }
    cmp(a, b) {
      const x = encodeKey(a);
      const y = encodeKey(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }

  Object.assign(g, {
    indexedDB: new IDBFactory(),
    IDBFactory, IDBDatabase, IDBTransaction, IDBObjectStore, IDBIndex, IDBCursor, IDBCursorWithValue,
    IDBKeyRange, IDBRequest, IDBOpenDBRequest, IDBVersionChangeEvent,
  });
  if (typeof g.structuredClone !== 'function') g.structuredClone = (value) => deserialize(serialize(value));
  // history.state is kept in this serialization too (js/dom/location.js).
  internals.clone.serialize = serialize;
  internals.clone.deserialize = deserialize;
})
