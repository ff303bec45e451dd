  // Part of the IndexedDB prelude (js/indexeddb/, joined in order by js/mod.rs):
  // key paths and sorted arrays.
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

