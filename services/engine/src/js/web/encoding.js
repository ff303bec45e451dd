  // Part of the web prelude (js/web/, joined in order by js/mod.rs):
  // text encodings, base64, crypto and AbortController.
  // ---- text encodings, base64 ----------------------------------------------
  const toBytes = (data) => {
    if (data instanceof ArrayBuffer) return new Uint8Array(data);
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    throw new TypeError('The provided value is not of type (ArrayBuffer or ArrayBufferView)');
  };
  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(text = '') { return new Uint8Array(native.encodeUtf8(toText(text))); }
    encodeInto(text, dest) {
      const bytes = this.encode(text);
      const n = Math.min(bytes.length, dest.length);
      dest.set(bytes.subarray(0, n));
      return { read: toText(text).length, written: n };
    }
  }
  class TextDecoder {
    constructor(label = 'utf-8', options = {}) {
      hidden(this, '_label', String(label).trim().toLowerCase());
      hidden(this, '_fatal', !!(options && options.fatal));
      hidden(this, '_ignoreBOM', !!(options && options.ignoreBOM));
      // Checks the label now, as the constructor does in browsers.
      native.decodeText(new Uint8Array(0), this._label, false);
    }
    get encoding() { return this._label === 'utf8' || this._label === 'unicode-1-1-utf-8' ? 'utf-8' : this._label; }
    get fatal() { return this._fatal; }
    get ignoreBOM() { return this._ignoreBOM; }
    decode(data) {
      if (data === undefined) return '';
      const bytes = toBytes(data);
      const text = native.decodeText(bytes, this._label, this._fatal);
      // The native decoder drops a UTF-8 BOM; ignoreBOM keeps it.
      const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
      return this._ignoreBOM && bom && this.encoding === 'utf-8' ? '\ufeff' + text : text;
    }
  }
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const btoa = (input) => {
    const s = toText(input);
    let out = '';
    for (let i = 0; i < s.length; i += 3) {
      const a = s.charCodeAt(i); const b = s.charCodeAt(i + 1); const c = s.charCodeAt(i + 2);
      if (a > 255 || b > 255 || c > 255) throw new DOMException('The string to be encoded contains characters outside of the Latin1 range.', 'InvalidCharacterError');
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      out += B64[n >> 18 & 63] + B64[n >> 12 & 63] + (i + 1 < s.length ? B64[n >> 6 & 63] : '=') + (i + 2 < s.length ? B64[n & 63] : '=');
    }
    return out;
  };
  const atob = (input) => {
    let s = toText(input).replace(/[\t\n\f\r ]/g, '');
    if (s.length % 4 === 0) s = s.replace(/==?$/, '');
    if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) throw new DOMException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
    let out = '';
    let bits = 0; let n = 0;
    for (const ch of s) {
      n = (n << 6) | B64.indexOf(ch); bits += 6;
      if (bits >= 8) { bits -= 8; out += String.fromCharCode((n >> bits) & 255); }
    }
    return out;
  };

  // ---- crypto --------------------------------------------------------------
  const crypto = {
    getRandomValues(array) {
      if (!ArrayBuffer.isView(array) || array instanceof Float32Array || array instanceof Float64Array) {
        throw new DOMException('The provided ArrayBufferView is of a type not supported.', 'TypeMismatchError');
      }
      if (array.byteLength > 65536) throw new DOMException(`The ArrayBufferView's byte length (${array.byteLength}) exceeds the number of bytes of entropy available via this API (65536).`, 'QuotaExceededError');
      new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(new Uint8Array(native.randomBytes(array.byteLength)));
      return array;
    },
    randomUUID() {
      const b = new Uint8Array(native.randomBytes(16));
      b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
      const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
    subtle: {},
  };

  // ---- abort ---------------------------------------------------------------
  class AbortSignal extends EventTarget {
    constructor() { super(); hidden(this, '_aborted', false); hidden(this, '_reason', undefined); }
    get aborted() { return this._aborted; }
    get reason() { return this._reason; }
    throwIfAborted() { if (this._aborted) throw this._reason; }
    static abort(reason) { const c = new AbortController(); c.abort(reason); return c.signal; }
    static timeout(ms) { const c = new AbortController(); g.setTimeout(() => c.abort(new DOMException('signal timed out', 'TimeoutError')), ms); return c.signal; }
  }
  defineHandlers(AbortSignal.prototype);
  class AbortController {
    constructor() { hidden(this, '_signal', new AbortSignal()); }
    get signal() { return this._signal; }
    abort(reason) {
      const s = this._signal;
      if (s._aborted) return;
      s._aborted = true;
      s._reason = reason === undefined ? new DOMException('signal is aborted without reason', 'AbortError') : reason;
      s.dispatchEvent(new Event('abort'));
    }
  }

