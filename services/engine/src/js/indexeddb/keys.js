  // Part of the IndexedDB prelude (js/indexeddb/, joined in order by js/mod.rs):
  // keys, encoded so that string order is key order.
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

