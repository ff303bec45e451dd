  // Part of the IndexedDB prelude (js/indexeddb/, joined in order by js/mod.rs):
  // cursors.
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

