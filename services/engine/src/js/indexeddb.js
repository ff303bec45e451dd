// IndexedDB, evaluated once per realm after bootstrap.js (see js/mod.rs). It
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

  // ---- keys ----------------------------------------------------------------
  // Encoding (indexeddb.rs checks the same grammar): number `1` + 16 hex
  // digits, date `2` + 16 hex digits, string `3` + 4 hex digits per UTF-16
  // code unit + `.`, binary `4` + 2 hex digits per byte + `.`, array `5` +
  // encoded elements + `.`. The type digit orders number < date < string <
  // binary < array; numbers map their IEEE-754 bits to an unsigned order; `.`
  // sorts before every digit, so a prefix sorts first. No encoding is a proper
  // prefix of another, which makes `a + b` sort by `a`, then `b` (index
  // entries), and `a + '~'` sort after `a` and before anything greater.
  const view = new DataView(new ArrayBuffer(8));
  const hex = (n, width) => n.toString(16).padStart(width, '0');
  const encodeNumber = (n) => {
    view.setFloat64(0, n === 0 ? 0 : n); // -0 and +0 are one key
    let hi = view.getUint32(0);
    let lo = view.getUint32(4);
    if (hi >= 0x80000000) { hi = ~hi >>> 0; lo = ~lo >>> 0; } else hi = (hi | 0x80000000) >>> 0;
    return hex(hi, 8) + hex(lo, 8);
  };
  const decodeNumber = (s) => {
    let hi = parseInt(s.slice(0, 8), 16);
    let lo = parseInt(s.slice(8, 16), 16);
    if (hi >= 0x80000000) hi = (hi & 0x7fffffff) >>> 0; else { hi = ~hi >>> 0; lo = ~lo >>> 0; }
    view.setUint32(0, hi);
    view.setUint32(4, lo);
    return view.getFloat64(0);
  };
  const isDate = (v) => Object.prototype.toString.call(v) === '[object Date]';
  const bytesOf = (v) => {
    if (v instanceof ArrayBuffer) return new Uint8Array(v);
    if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    return null;
  };
  const bytesHex = (bytes) => { const out = []; for (const b of bytes) out.push(hex(b, 2)); return out.join(''); };
  const hexBytes = (s) => {
    const out = new Uint8Array(s.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
    return out;
  };
  const invalidKey = () => domError('DataError', 'The value is not a valid key');
  // IndexedDB's "convert a value to a key", encoded; throws DataError.
  const encodeKey = (v, seen) => {
    if (typeof v === 'number') {
      if (Number.isNaN(v)) throw invalidKey();
      return '1' + encodeNumber(v);
    }
    if (typeof v === 'string') {
      const out = ['3'];
      for (let i = 0; i < v.length; i++) out.push(hex(v.charCodeAt(i), 4));
      out.push('.');
      return out.join('');
    }
    if (v === null || typeof v !== 'object') throw invalidKey();
    if (isDate(v)) {
      const t = v.getTime();
      if (Number.isNaN(t)) throw invalidKey();
      return '2' + encodeNumber(t);
    }
    const bytes = bytesOf(v);
    if (bytes) return '4' + bytesHex(bytes) + '.';
    if (Array.isArray(v)) {
      seen = seen || new Set();
      // As in the spec, an array seen before (a cycle, or the same array
      // twice) makes the key invalid.
      if (seen.has(v)) throw invalidKey();
      seen.add(v);
      const out = ['5'];
      for (let i = 0; i < v.length; i++) {
        if (!hasOwn(v, i)) throw invalidKey();
        out.push(encodeKey(v[i], seen));
      }
      out.push('.');
      return out.join('');
    }
    throw invalidKey();
  };
  const tryEncodeKey = (v) => { try { return encodeKey(v); } catch (_) { return null; } };
  const fromUnits = (units) => {
    let s = '';
    for (let i = 0; i < units.length; i += 4096) s += String.fromCharCode.apply(null, units.slice(i, i + 4096));
    return s;
  };
  const decodeKeyAt = (s, i) => {
    const tag = s[i];
    if (tag === '1' || tag === '2') {
      const n = decodeNumber(s.slice(i + 1, i + 17));
      return [tag === '1' ? n : new Date(n), i + 17];
    }
    if (tag === '3' || tag === '4') {
      const end = s.indexOf('.', i + 1);
      if (tag === '4') return [hexBytes(s.slice(i + 1, end)).buffer, end + 1];
      const units = [];
      for (let j = i + 1; j < end; j += 4) units.push(parseInt(s.slice(j, j + 4), 16));
      return [fromUnits(units), end + 1];
    }
    if (tag === '5') {
      const out = [];
      i++;
      while (s[i] !== '.') {
        const [v, next] = decodeKeyAt(s, i);
        out.push(v);
        i = next;
      }
      return [out, i + 1];
    }
    throw domError('UnknownError', 'A stored key is corrupt');
  };
  const decodeKey = (s) => decodeKeyAt(s, 0)[0];

  // ---- values (structured clone) -------------------------------------------
  // A value becomes a JSON-compatible tree: strings, booleans, null and finite
  // numbers stay themselves; everything else is an array whose first element
  // names its type. Objects are numbered in the order they are met, so a
  // second reference (or a cycle) is `['@', n]`.
  const TYPED_ARRAYS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
    'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'DataView'];
  const ERRORS = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  const UNCLONEABLE = ['[object Promise]', '[object WeakMap]', '[object WeakSet]', '[object WeakRef]',
    '[object FinalizationRegistry]', '[object Symbol]'];
  const cloneError = (what) => domError('DataCloneError', `${what} could not be cloned`);
  const serialize = (value) => {
    const memo = new Map();
    const enc = (v) => {
      switch (typeof v) {
        case 'string': case 'boolean': return v;
        case 'number': return Number.isFinite(v) && !Object.is(v, -0) ? v : ['n', Object.is(v, -0) ? '-0' : String(v)];
        case 'undefined': return ['u'];
        case 'bigint': return ['bi', String(v)];
        case 'symbol': throw cloneError('A symbol');
        case 'function': throw cloneError(`function ${v.name || '(anonymous)'}`);
        default: break;
      }
      if (v === null) return null;
      if (memo.has(v)) return ['@', memo.get(v)];
      const tag = Object.prototype.toString.call(v);
      if (v instanceof Node) throw cloneError('A DOM node');
      if (UNCLONEABLE.includes(tag)) throw cloneError(`A ${tag.slice(8, -1)}`);
      memo.set(v, memo.size);
      switch (tag) {
        case '[object Date]': { const t = v.getTime(); return ['d', Number.isNaN(t) ? null : t]; }
        case '[object RegExp]': return ['r', v.source, v.flags];
        case '[object Boolean]': return ['B', v.valueOf()];
        case '[object Number]': return ['N', enc(v.valueOf())];
        case '[object String]': return ['S', v.valueOf()];
        case '[object BigInt]': return ['BI', String(v.valueOf())];
        case '[object ArrayBuffer]': return ['ab', bytesHex(new Uint8Array(v))];
        case '[object Map]': { const out = ['m']; for (const [k, x] of v) out.push(enc(k), enc(x)); return out; }
        case '[object Set]': { const out = ['s']; for (const x of v) out.push(enc(x)); return out; }
        case '[object Error]': return ['e', String(v.name), String(v.message)];
        default: break;
      }
      if (ArrayBuffer.isView(v)) return ['t', tag.slice(8, -1), bytesHex(bytesOf(v))];
      const keys = Object.keys(v);
      if (Array.isArray(v)) {
        let dense = keys.length === v.length;
        for (let i = 0; dense && i < keys.length; i++) dense = keys[i] === String(i);
        if (dense) { const out = ['a']; for (let i = 0; i < v.length; i++) out.push(enc(v[i])); return out; }
        const out = ['A', v.length];
        for (const k of keys) out.push(k, enc(v[k]));
        return out;
      }
      // Any other object clones as a plain object of its own enumerable properties.
      const out = ['o'];
      for (const k of keys) out.push(k, enc(v[k]));
      return out;
    };
    try {
      return enc(value);
    } catch (e) {
      if (e instanceof DOMException || (e && e.name === 'DataCloneError')) throw e;
      // A getter that threw, or nesting deeper than the stack.
      throw domError('DataCloneError', `The value could not be cloned: ${e && e.message ? e.message : e}`);
    }
  };
  const deserialize = (tree) => {
    const refs = [];
    const made = (o) => { refs.push(o); return o; };
    const dec = (x) => {
      if (x === null || typeof x !== 'object') return x;
      switch (x[0]) {
        case 'n': return Number(x[1]);
        case 'u': return undefined;
        case 'bi': return BigInt(x[1]);
        case '@': return refs[x[1]];
        case 'd': return made(new Date(x[1] === null ? NaN : x[1]));
        case 'r': return made(new RegExp(x[1], x[2]));
        case 'B': return made(new Boolean(x[1]));
        case 'N': return made(new Number(dec(x[1])));
        case 'S': return made(new String(x[1]));
        case 'BI': return made(Object(BigInt(x[1])));
        case 'ab': return made(hexBytes(x[1]).buffer);
        case 't': {
          if (!TYPED_ARRAYS.includes(x[1])) throw domError('UnknownError', 'A stored value is corrupt');
          const buffer = hexBytes(x[2]).buffer;
          return made(new g[x[1]](buffer));
        }
        case 'e': {
          const E = hasOwn(ERRORS, x[1]) ? ERRORS[x[1]] : Error;
          return made(new E(x[2]));
        }
        case 'm': {
          const out = made(new Map());
          for (let i = 1; i < x.length; i += 2) out.set(dec(x[i]), dec(x[i + 1]));
          return out;
        }
        case 's': {
          const out = made(new Set());
          for (let i = 1; i < x.length; i++) out.add(dec(x[i]));
          return out;
        }
        case 'a': {
          const out = made(new Array(x.length - 1));
          for (let i = 1; i < x.length; i++) out[i - 1] = dec(x[i]);
          return out;
        }
        case 'A': {
          const out = made(new Array(x[1]));
          for (let i = 2; i < x.length; i += 2) define(out, x[i], dec(x[i + 1]));
          return out;
        }
        case 'o': {
          const out = made({});
          for (let i = 1; i < x.length; i += 2) define(out, x[i], dec(x[i + 1]));
          return out;
        }
        default: throw domError('UnknownError', 'A stored value is corrupt');
      }
    };
    return dec(tree);
  };

  // ---- key paths -----------------------------------------------------------
  const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;
  const normKeyPath = (kp) => (Array.isArray(kp) ? kp.map(String) : String(kp));
  const validKeyPath = (kp) => {
    if (Array.isArray(kp)) return kp.length > 0 && kp.every((p) => typeof p === 'string' && validKeyPath(p));
    return kp === '' || kp.split('.').every((id) => IDENTIFIER.test(id));
  };
  const NO_VALUE = Symbol('no value');
  const evalPath = (value, kp) => {
    if (Array.isArray(kp)) {
      const out = [];
      for (const p of kp) {
        const v = evalPath(value, p);
        if (v === NO_VALUE) return NO_VALUE;
        out.push(v);
      }
      return out;
    }
    if (kp === '') return value;
    for (const id of kp.split('.')) {
      if ((typeof value === 'string' || Array.isArray(value)) && id === 'length') value = value.length;
      else if (value === null || typeof value !== 'object' || !hasOwn(value, id)) return NO_VALUE;
      else value = value[id];
    }
    return value;
  };
  const canInject = (value, kp) => {
    const ids = kp.split('.');
    ids.pop();
    for (const id of ids) {
      if (value === null || typeof value !== 'object') return false;
      if (!hasOwn(value, id)) return true;
      value = value[id];
    }
    return value !== null && typeof value === 'object';
  };
  const inject = (value, kp, key) => {
    const ids = kp.split('.');
    const last = ids.pop();
    for (const id of ids) {
      if (!hasOwn(value, id)) define(value, id, {});
      value = value[id];
    }
    define(value, last, key);
  };
  // The encoded keys an index holds for a record value.
  const indexKeys = (index, value) => {
    const v = evalPath(value, index.keyPath);
    if (v === NO_VALUE) return [];
    if (index.multiEntry && Array.isArray(v)) {
      const keys = new Set();
      for (const x of v) { const k = tryEncodeKey(x); if (k !== null) keys.add(k); }
      return [...keys];
    }
    const k = tryEncodeKey(v);
    return k === null ? [] : [k];
  };

  // ---- sorted arrays -------------------------------------------------------
  const ident = (s) => s;
  const entryKey = (e) => e.c;
  const lowerBound = (arr, s, get) => {
    let lo = 0;
    let hi = arr.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (get(arr[mid]) < s) lo = mid + 1; else hi = mid;
    }
    return lo;
  };
  const insertSorted = (arr, item, s, get) => {
    // Appending in key order (generated keys) is the common case.
    if (arr.length === 0 || get(arr[arr.length - 1]) < s) { arr.push(item); return; }
    const i = lowerBound(arr, s, get);
    if (i < arr.length && get(arr[i]) === s) arr[i] = item; else arr.splice(i, 0, item);
  };
  const removeSorted = (arr, s, get) => {
    const i = lowerBound(arr, s, get);
    if (i < arr.length && get(arr[i]) === s) arr.splice(i, 1);
  };
  // The [start, end) positions of a key range (null: everything) in a sorted
  // array of encoded keys, or of index entries (`ik + k`, which the same
  // bounds select by index key).
  const span = (arr, range, get) => {
    let start = 0;
    let end = arr.length;
    if (range) {
      if (range._lo !== null) start = lowerBound(arr, range.lowerOpen ? range._lo + '~' : range._lo, get);
      if (range._hi !== null) end = lowerBound(arr, range.upperOpen ? range._hi : range._hi + '~', get);
    }
    return [start, Math.max(start, end)];
  };

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
      if (event._stop) break;
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
      if (event._threw) abortTransaction(tx, domError('AbortError', 'An error event listener threw'));
      else if (!event.defaultPrevented) abortTransaction(tx, error);
    } else {
      req._done(result, null);
      const event = fire(req, new Event('success'), [req]);
      if (event._threw) abortTransaction(tx, domError('AbortError', 'A success event listener threw'));
    }
  };
  // Tasks of other sources than timers (see bootstrap.js): the first ready
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

  // ---- cursors -------------------------------------------------------------
  // A cursor's position is the encoded key (store) or index entry (`ik + k`)
  // it is at; each step searches from there, so records written or deleted
  // while iterating are seen the way the spec's key comparisons see them.
  const seek = (cur, target, targetPk) => {
    const index = cur._idx;
    const arr = index ? index._index.entries : cur._os._store.keys;
    const get = index ? entryKey : ident;
    const [start, end] = span(arr, cur._range, get);
    const unique = index !== null && cur._dir.endsWith('unique');
    if (cur._dir.startsWith('next')) {
      // The first element at or after `bound`.
      let bound = cur._pos === null ? null : (unique ? cur._key : cur._pos) + '~';
      if (target !== undefined) {
        const t = targetPk !== undefined ? target + targetPk : target;
        if (bound === null || t > bound) bound = t;
      }
      const i = bound === null ? start : Math.max(start, lowerBound(arr, bound, get));
      return i < end ? i : -1;
    }
    // The last element before `bound`.
    let bound = cur._pos === null ? null : (unique ? cur._key : cur._pos);
    if (target !== undefined) {
      const t = (targetPk !== undefined ? target + targetPk : target) + '~';
      if (bound === null || t < bound) bound = t;
    }
    let i = (bound === null ? end : Math.min(end, lowerBound(arr, bound, get))) - 1;
    if (i < start) return -1;
    // `prevunique` yields the first entry of each index key.
    if (unique) i = Math.max(start, lowerBound(arr, arr[i].ik, get));
    return i;
  };
  const step = (cur, target, targetPk, count) => {
    let i = -1;
    for (let n = 0; n < count; n++) {
      i = seek(cur, n === 0 ? target : undefined, n === 0 ? targetPk : undefined);
      if (i < 0) break;
      if (cur._idx) {
        const e = cur._idx._index.entries[i];
        cur._pos = e.c;
        cur._key = e.ik;
        cur._pk = e.k;
      } else {
        cur._pos = cur._key = cur._pk = cur._os._store.keys[i];
      }
    }
    if (i < 0) {
      cur._key = cur._pk = null;
      cur._keyValue = cur._pkValue = cur._value = undefined;
      cur._got = false;
      return null;
    }
    cur._keyValue = decodeKey(cur._key);
    cur._pkValue = cur._idx ? decodeKey(cur._pk) : cur._keyValue;
    cur._value = cur._withValue ? deserialize(cur._os._store.records.get(cur._pk).v) : undefined;
    cur._got = true;
    return cur;
  };
  const openCursor = (os, index, query, direction, withValue) => {
    if (index) index._check(); else os._check(false);
    const range = toRange(query, true);
    const dir = toDirection(direction);
    const Cursor = withValue ? IDBCursorWithValue : IDBCursor;
    const cur = new Cursor(index || os, os, index, range, dir, withValue);
    const req = request(os._tx, index || os, () => step(cur, undefined, undefined, 1));
    cur._req = req;
    return req;
  };

  class IDBCursor {
    constructor(source, os, index, range, direction, withValue) {
      internal(this, {
        _source: source, _os: os, _idx: index, _range: range, _dir: direction, _withValue: withValue,
        _pos: null, _key: null, _pk: null, _keyValue: undefined, _pkValue: undefined, _value: undefined,
        _got: false, _req: null,
      });
    }
    get source() { return this._source; }
    get direction() { return this._dir; }
    get key() { return this._keyValue; }
    get primaryKey() { return this._pkValue; }
    get request() { return this._req; }
    _checkIterate() {
      const tx = this._os._tx;
      checkActive(tx);
      if (this._os._store.deleted || (this._idx && this._idx._index.deleted)) throw domError('InvalidStateError', 'The cursor\'s source has been deleted');
      if (!this._got) throw domError('InvalidStateError', 'The cursor is being iterated or has iterated past its end');
    }
    _again(op) {
      this._got = false;
      const req = this._req;
      req._ready = 'pending';
      req._op = op;
      this._os._tx._queue.push(req);
    }
    advance(count) {
      const n = Number(count);
      if (!Number.isFinite(n) || Math.trunc(n) < 1 || n > 0xffffffff) throw new TypeError('advance() needs a count of at least 1');
      this._checkIterate();
      this._again(() => step(this, undefined, undefined, Math.trunc(n)));
    }
    continue(key) {
      this._checkIterate();
      let target;
      if (key !== undefined) {
        target = encodeKey(key);
        const forward = this._dir.startsWith('next');
        if (forward ? target <= this._key : target >= this._key) {
          throw domError('DataError', `continue() needs a key ${forward ? 'after' : 'before'} the cursor's key`);
        }
      }
      this._again(() => step(this, target, undefined, 1));
    }
    continuePrimaryKey(key, primaryKey) {
      this._checkIterate();
      if (!this._idx) throw domError('InvalidAccessError', 'continuePrimaryKey() needs an index cursor');
      if (this._dir !== 'next' && this._dir !== 'prev') throw domError('InvalidAccessError', 'continuePrimaryKey() needs a "next" or "prev" cursor');
      const k = encodeKey(key);
      const pk = encodeKey(primaryKey);
      const forward = this._dir === 'next';
      const combined = k + pk;
      if (forward ? combined <= this._pos : combined >= this._pos) {
        throw domError('DataError', `continuePrimaryKey() needs a position ${forward ? 'after' : 'before'} the cursor's`);
      }
      this._again(() => step(this, k, pk, 1));
    }
    update(value) {
      const tx = this._os._tx;
      checkActive(tx);
      if (tx._mode === 'readonly') throw domError('ReadOnlyError', 'The transaction is read-only');
      if (this._os._store.deleted || !this._got || !this._withValue) throw domError('InvalidStateError', 'The cursor cannot update now');
      const store = this._os._store;
      if (store.keyPath !== null) {
        const k = tryEncodeKey(evalPath(deserialize(serialize(value)), store.keyPath));
        if (k !== this._pk) throw domError('DataError', 'The new value\'s key differs from the cursor\'s primary key');
        return this._os._put(value, undefined, false, this);
      }
      return this._os._put(value, this._pkValue, false, this);
    }
    delete() {
      const tx = this._os._tx;
      checkActive(tx);
      if (tx._mode === 'readonly') throw domError('ReadOnlyError', 'The transaction is read-only');
      if (this._os._store.deleted || !this._got || !this._withValue) throw domError('InvalidStateError', 'The cursor cannot delete now');
      const store = this._os._store;
      const pk = this._pk;
      return request(tx, this, () => { removeRecord(tx, store, pk); return undefined; });
    }
  }
  class IDBCursorWithValue extends IDBCursor {
    get value() { return this._value; }
  }

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
    if (event._threw) abortTransaction(tx, domError('AbortError', 'An upgradeneeded listener threw'));
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
  // history.state is kept in this serialization too (bootstrap.js).
  internals.clone.serialize = serialize;
  internals.clone.deserialize = deserialize;
})
