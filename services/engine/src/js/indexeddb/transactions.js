  // Part of the IndexedDB prelude (js/indexeddb/, joined in order by js/mod.rs):
  // transactions and the task queue.
  // ---- transactions and the task queue ---------------------------------------
  const ACTIVE = 'active';
  const INACTIVE = 'inactive';
  const COMMITTING = 'committing';
  const FINISHED = 'finished';
  // A FIFO with O(1) shift: one transaction can queue many thousand requests.
  class Queue {
    constructor() { this.items = []; this.head = 0; }
    get size() { return this.items.length - this.head; }
    push(item) { this.items.push(item); }
    shift() {
      const item = this.items[this.head];
      this.items[this.head++] = undefined;
      if (this.head * 2 >= this.items.length) { this.items = this.items.slice(this.head); this.head = 0; }
      return item;
    }
    drain() { const out = this.items.slice(this.head); this.items = []; this.head = 0; return out; }
  }
  const transactions = []; // unfinished, in creation order
  const tasks = []; // {ready?: () => boolean, run: () => void}, in order
  const MAX_GENERATED_KEY = 2 ** 53;

  const fire = (target, event, path) => {
    const state = event[internals.EV];
    state.target = target;
    for (const t of path) {
      state.eventPhase = t === target ? 2 : 3;
      invoke(t, event);
      if (state.stop) break;
    }
    state.currentTarget = null;
    state.eventPhase = 0;
    return event;
  };
  const errorEvent = () => new Event('error', { bubbles: true, cancelable: true });
  const requestPath = (req) => (req._tx ? [req, req._tx, req._tx._db] : [req]);

  const overlaps = (a, b) => a.some((name) => b.includes(name));
  // Whether `tx` may run: transactions created earlier on the same database
  // that it conflicts with (a version change conflicts with everything,
  // readwrite with whatever shares a store) must have finished.
  const startable = (tx) => {
    if (tx._started) return true;
    for (const t of transactions) {
      if (t === tx) break;
      if (t._db._state !== tx._db._state) continue;
      if (t._mode === 'versionchange' || tx._mode === 'versionchange') return false;
      if ((t._mode === 'readwrite' || tx._mode === 'readwrite') && overlaps(t._scope, tx._scope)) return false;
    }
    tx._started = true;
    return true;
  };
  const finish = (tx) => {
    tx._status = FINISHED;
    const i = transactions.indexOf(tx);
    if (i >= 0) transactions.splice(i, 1);
  };
  const abortTransaction = (tx, error) => {
    if (tx._status === FINISHED) return;
    const undo = tx._undo;
    for (let i = undo.length - 1; i >= 0; i--) {
      try { undo[i](); } catch (e) { reportError(e); }
    }
    tx._undo = [];
    tx._ops = [];
    tx._error = error;
    finish(tx);
    const pending = tx._queue.drain();
    tasks.push({
      run: () => {
        for (const req of pending) {
          req._done(undefined, domError('AbortError', 'The transaction was aborted'));
          fire(req, errorEvent(), requestPath(req));
        }
        fire(tx, new Event('abort', { bubbles: true }), [tx, tx._db]);
        if (tx._onFinish) tx._onFinish(false);
      },
    });
  };
  const commitTransaction = (tx) => {
    tx._status = COMMITTING;
    tasks.push({
      run: () => {
        if (tx._status !== COMMITTING) return;
        if (tx._ops.length) {
          try {
            native.idbCommit(tx._db._state.name, JSON.stringify(tx._ops));
          } catch (e) {
            const quota = e && e.name === 'QuotaExceededError';
            abortTransaction(tx, domError(quota ? 'QuotaExceededError' : 'UnknownError', String(e && e.message ? e.message : e)));
            return;
          }
        }
        tx._undo = [];
        tx._ops = [];
        finish(tx);
        fire(tx, new Event('complete'), [tx]);
        if (tx._onFinish) tx._onFinish(true);
      },
    });
  };
  // A transaction commits once it is inactive with no request left to run.
  const maybeCommit = (tx) => {
    if (tx._status === INACTIVE && tx._queue.size === 0 && startable(tx)) commitTransaction(tx);
  };
  const runRequest = (req) => {
    const tx = req._tx;
    let result;
    let error = null;
    try {
      result = req._op();
    } catch (e) {
      error = e && typeof e.name === 'string' ? e : domError('UnknownError', String(e));
    }
    if (!tx._commitRequested) tx._status = ACTIVE;
    if (error) {
      req._done(undefined, error);
      const event = fire(req, errorEvent(), requestPath(req));
      // An error nobody handled (or a listener that threw) aborts the
      // transaction, taking back the writes of its earlier requests.
      if (event[internals.EV].threw) abortTransaction(tx, domError('AbortError', 'An error event listener threw'));
      else if (!event.defaultPrevented) abortTransaction(tx, error);
    } else {
      req._done(result, null);
      const event = fire(req, new Event('success'), [req]);
      if (event[internals.EV].threw) abortTransaction(tx, domError('AbortError', 'A success event listener threw'));
    }
  };
  // Tasks of other sources than timers (see js/dom/tasks.js): the first ready
  // generic task, else the next request of the oldest runnable transaction.
  addTaskSource({
    runTask() {
      for (let i = 0; i < tasks.length; i++) {
        const task = tasks[i];
        if (task.ready && !task.ready()) continue;
        tasks.splice(i, 1);
        task.run();
        return true;
      }
      for (const tx of transactions) {
        if (tx._queue.size && tx._status !== FINISHED && startable(tx)) {
          runRequest(tx._queue.shift());
          return true;
        }
      }
      return false;
    },
    // The task that created or reactivated a transaction is over.
    endTask() {
      for (const tx of transactions.slice()) {
        if (tx._status === ACTIVE) tx._status = INACTIVE;
        maybeCommit(tx);
      }
    },
  });

  // Logged writes: each applies to the working copy and records its undo step
  // and the operation for Rust (indexeddb.rs `apply`).
  const writeRecord = (tx, store, k, v, ix) => {
    const old = store.records.get(k);
    if (old) removeIndexEntries(store, old); else insertSorted(store.keys, k, k, ident);
    const rec = { k, v, ix };
    store.records.set(k, rec);
    addIndexEntries(store, rec);
    tx._undo.push(() => {
      removeIndexEntries(store, rec);
      if (old) { store.records.set(k, old); addIndexEntries(store, old); } else { store.records.delete(k); removeSorted(store.keys, k, ident); }
    });
    tx._ops.push(['put', store.name, k, v]);
  };
  const removeRecord = (tx, store, k) => {
    const old = store.records.get(k);
    if (!old) return;
    removeIndexEntries(store, old);
    store.records.delete(k);
    removeSorted(store.keys, k, ident);
    tx._undo.push(() => { insertSorted(store.keys, k, k, ident); store.records.set(k, old); addIndexEntries(store, old); });
    tx._ops.push(['delete', store.name, k]);
  };
  const clearStore = (tx, store) => {
    const saved = { keys: store.keys, records: store.records, entries: [...store.indexes.values()].map((i) => [i, i.entries]) };
    store.keys = [];
    store.records = new Map();
    for (const index of store.indexes.values()) index.entries = [];
    tx._undo.push(() => {
      store.keys = saved.keys;
      store.records = saved.records;
      for (const [index, entries] of saved.entries) index.entries = entries;
    });
    tx._ops.push(['clear', store.name]);
  };
  const setKeyGenerator = (tx, store, n) => {
    const old = store.keyGen;
    store.keyGen = n;
    tx._undo.push(() => { store.keyGen = old; });
    tx._ops.push(['keyGenerator', store.name, n]);
  };

