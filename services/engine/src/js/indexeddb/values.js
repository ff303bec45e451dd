  // Part of the IndexedDB prelude (js/indexeddb/, joined in order by js/mod.rs):
  // values (structured clone).
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

