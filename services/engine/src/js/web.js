// The web prelude, evaluated after bootstrap.js (see js/mod.rs): network
// (fetch, XMLHttpRequest, with same-origin and CORS rules), Blob and
// FormData, form submission, text encodings, base64 and crypto. Requests go
// through the host's `network.fetch` import synchronously; their results are
// delivered in tasks, so pages see them asynchronously as in a browser.
(function (native, internals) {
  'use strict';
  const g = globalThis;
  const { Event, EventTarget, ProgressEvent, SubmitEvent, hidden, toText, queueTask, reportError, defineHandlers, InertDocument, inertHtml } = internals;

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

  // ---- Blob, File ----------------------------------------------------------
  const concatBytes = (chunks) => {
    const total = chunks.reduce((n, c) => n + c.length, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) { out.set(c, at); at += c.length; }
    return out;
  };
  const encoder = new TextEncoder();
  class Blob {
    constructor(parts = [], options = {}) {
      const chunks = [];
      for (const p of parts) {
        if (p instanceof Blob) chunks.push(p._bytes);
        else if (p instanceof ArrayBuffer || ArrayBuffer.isView(p)) chunks.push(toBytes(p).slice());
        else chunks.push(encoder.encode(toText(p)));
      }
      hidden(this, '_bytes', concatBytes(chunks));
      hidden(this, '_type', toText(options && options.type).toLowerCase());
    }
    get size() { return this._bytes.length; }
    get type() { return this._type; }
    text() { return Promise.resolve(native.decodeText(this._bytes, 'utf-8', false)); }
    arrayBuffer() { return Promise.resolve(this._bytes.slice().buffer); }
    bytes() { return Promise.resolve(this._bytes.slice()); }
    slice(start = 0, end = this.size, type = '') { return new Blob([this._bytes.slice(start, end)], { type }); }
  }
  class File extends Blob {
    constructor(parts, name, options = {}) {
      super(parts, options);
      hidden(this, '_name', toText(name));
      hidden(this, '_modified', options && options.lastModified !== undefined ? Number(options.lastModified) : Date.now());
    }
    get name() { return this._name; }
    get lastModified() { return this._modified; }
  }

  // ---- FormData and form submission ----------------------------------------
  // The form data set of `form` (HTML's "constructing the entry list").
  const entryList = (form, submitter) => {
    const entries = [];
    for (const el of form.elements) {
      const tag = el.localName;
      if (el.closest('datalist') || el.disabled || (el.closest('fieldset') && el.closest('fieldset').disabled)) continue;
      const name = el.getAttribute('name');
      if (tag === 'button' || (tag === 'input' && ['submit', 'image', 'reset', 'button'].includes(el.type))) {
        if (el !== submitter || !name) continue;
        entries.push([name, el.value]);
        continue;
      }
      if (!name) continue;
      if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
        if (el.checked) entries.push([name, el.value]);
      } else if (tag === 'select') {
        for (const o of el.selectedOptions) entries.push([name, o.value]);
      } else if (tag === 'input' && el.type === 'file') {
        entries.push([name, new File([], '', { type: 'application/octet-stream' })]);
      } else if (tag === 'input' || tag === 'textarea') {
        entries.push([name, el.value]);
      }
    }
    return entries;
  };
  class FormData {
    constructor(form, submitter) {
      hidden(this, '_list', []);
      if (form !== undefined && form !== null) {
        if (!(form instanceof internals.HTMLFormElement)) throw new TypeError("Failed to construct 'FormData': parameter 1 is not of type 'HTMLFormElement'.");
        this._list.push(...entryList(form, submitter || null));
      }
    }
    _value(v, filename) {
      if (v instanceof Blob) return v instanceof File && filename === undefined ? v : new File([v], filename === undefined ? 'blob' : toText(filename), { type: v.type });
      return toText(v);
    }
    append(k, v, filename) { this._list.push([toText(k), this._value(v, filename)]); }
    set(k, v, filename) {
      const key = toText(k);
      const i = this._list.findIndex(([n]) => n === key);
      const entry = [key, this._value(v, filename)];
      this.delete(key);
      if (i < 0) this._list.push(entry); else this._list.splice(i, 0, entry);
    }
    get(k) { const e = this._list.find(([n]) => n === toText(k)); return e ? e[1] : null; }
    getAll(k) { return this._list.filter(([n]) => n === toText(k)).map(([, v]) => v); }
    has(k) { return this._list.some(([n]) => n === toText(k)); }
    delete(k) { const key = toText(k); this._list = this._list.filter(([n]) => n !== key); }
    forEach(fn, thisArg) { for (const [k, v] of this._list) fn.call(thisArg, v, k, this); }
    keys() { return this._list.map(([k]) => k)[Symbol.iterator](); }
    values() { return this._list.map(([, v]) => v)[Symbol.iterator](); }
    entries() { return this._list.map((e) => e.slice())[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
  }
  let boundarySeq = 0;
  // A body for `entries`: urlencoded or multipart/form-data.
  // Newlines become CRLF when a form's entries are serialized.
  const crlf = (v) => v.replace(/\r\n|\r|\n/g, '\r\n');
  const urlencode = (entries) => new g.URLSearchParams(entries.map(([k, v]) => [crlf(k), v instanceof File ? v.name : crlf(v)])).toString();
  const multipart = (entries) => {
    const boundary = `----servofleet${Date.now().toString(16)}${(++boundarySeq).toString(16)}`;
    const quote = (s) => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
    const chunks = [];
    for (const [k, v] of entries) {
      if (v instanceof File) {
        chunks.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(k)}"; filename="${quote(v.name)}"\r\nContent-Type: ${v.type || 'application/octet-stream'}\r\n\r\n`));
        chunks.push(v._bytes);
        chunks.push(encoder.encode('\r\n'));
      } else {
        chunks.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(k)}"\r\n\r\n${v.replace(/\r?\n/g, '\r\n')}\r\n`));
      }
    }
    chunks.push(encoder.encode(`--${boundary}--\r\n`));
    return { bytes: concatBytes(chunks), type: `multipart/form-data; boundary=${boundary}` };
  };
  // HTML's form submission: GET replaces the query, POST sends a body; the
  // new document loads once the current task is over. `target=_blank` loads
  // in this tab too (one tab per session).
  const submitForm = (form, submitter) => {
    const attr = (name, formName) => (submitter && submitter.hasAttribute(formName) ? submitter.getAttribute(formName) : form.getAttribute(name));
    const method = toText(attr('method', 'formmethod')).toLowerCase() === 'post' ? 'post' : 'get';
    if (toText(attr('method', 'formmethod')).toLowerCase() === 'dialog') {
      const dialog = form.closest('dialog');
      if (dialog) dialog.close(submitter ? submitter.value : undefined);
      return;
    }
    const actionAttr = attr('action', 'formaction');
    const action = new g.URL(actionAttr === null || actionAttr === '' ? native.url() : actionAttr, native.baseUrl());
    const enctype = toText(attr('enctype', 'formenctype')).toLowerCase();
    const entries = entryList(form, submitter);
    if (/^javascript:/i.test(action.protocol)) { internals.navigateTo(action.href, false); return; }
    if (method === 'get') {
      action.search = urlencode(entries);
      action.hash = '';
      native.navigate(action.href, 'GET', null, null, false);
    } else if (enctype === 'multipart/form-data') {
      const body = multipart(entries);
      native.navigate(action.href, 'POST', native.decodeText(body.bytes, 'utf-8', false), body.type, false);
    } else if (enctype === 'text/plain') {
      native.navigate(action.href, 'POST', entries.map(([k, v]) => `${k}=${v instanceof File ? v.name : v}\r\n`).join(''), 'text/plain', false);
    } else {
      native.navigate(action.href, 'POST', urlencode(entries), 'application/x-www-form-urlencoded', false);
    }
  };
  const { requestSubmit } = { requestSubmit(submitter = null) {
    if (submitter !== null && (!submitter.form || submitter.form[internals.ID] !== this[internals.ID] || !['submit', 'image'].includes(submitter.type))) {
      throw new TypeError("Failed to execute 'requestSubmit': The specified element is not a submit button of this form.");
    }
    const skipValidation = this.hasAttribute('novalidate') || (submitter && submitter.hasAttribute('formnovalidate'));
    if (!skipValidation && !this.checkValidity()) {
      native.console('info', 'the form was not submitted: a field is invalid');
      return;
    }
    if (this.dispatchEvent(new SubmitEvent('submit', { bubbles: true, cancelable: true, submitter }))) submitForm(this, submitter);
  } };
  Object.defineProperties(internals.HTMLFormElement.prototype, {
    submit: { value() { submitForm(this, null); }, configurable: true, writable: true },
    requestSubmit: { value: requestSubmit, configurable: true, writable: true },
  });
  internals.requestSubmit = (form, submitter) => requestSubmit.call(form, submitter);

  // ---- Headers, Request, Response ------------------------------------------
  const FORBIDDEN = ['accept-charset', 'accept-encoding', 'access-control-request-headers', 'access-control-request-method',
    'connection', 'content-length', 'cookie', 'cookie2', 'date', 'dnt', 'expect', 'host', 'keep-alive', 'origin', 'referer',
    'te', 'trailer', 'transfer-encoding', 'upgrade', 'via'];
  const forbiddenHeader = (name) => FORBIDDEN.includes(name) || name.startsWith('proxy-') || name.startsWith('sec-');
  const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
  class Headers {
    constructor(init) {
      hidden(this, '_list', []);
      hidden(this, '_guard', 'none');
      if (init instanceof Headers) for (const [k, v] of init._list) this.append(k, v);
      else if (init && typeof init[Symbol.iterator] === 'function') for (const pair of init) { const [k, v] = [...pair]; this.append(k, v); }
      else if (init && typeof init === 'object') for (const [k, v] of Object.entries(init)) this.append(k, v);
    }
    _check(name) {
      const n = toText(name).toLowerCase();
      if (!TOKEN.test(n)) throw new TypeError(`Failed to execute on 'Headers': Invalid name '${name}'`);
      if (this._guard === 'immutable') throw new TypeError("Failed to execute on 'Headers': Headers are immutable");
      return n;
    }
    append(name, value) {
      const n = this._check(name);
      if (this._guard === 'request' && forbiddenHeader(n)) return;
      this._list.push([n, toText(value).trim()]);
    }
    set(name, value) {
      const n = this._check(name);
      if (this._guard === 'request' && forbiddenHeader(n)) return;
      const i = this._list.findIndex(([k]) => k === n);
      this._list = this._list.filter(([k]) => k !== n);
      this._list.splice(i < 0 ? this._list.length : i, 0, [n, toText(value).trim()]);
    }
    get(name) {
      const n = toText(name).toLowerCase();
      const values = this._list.filter(([k]) => k === n).map(([, v]) => v);
      return values.length ? values.join(n === 'set-cookie' ? ', ' : ', ') : null;
    }
    getSetCookie() { return []; }
    has(name) { const n = toText(name).toLowerCase(); return this._list.some(([k]) => k === n); }
    delete(name) { const n = this._check(name); this._list = this._list.filter(([k]) => k !== n); }
    forEach(fn, thisArg = undefined) { for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this); }
    entries() {
      const names = [...new Set(this._list.map(([k]) => k))].sort();
      return names.map((n) => [n, this.get(n)])[Symbol.iterator]();
    }
    keys() { return [...this.entries()].map(([k]) => k)[Symbol.iterator](); }
    values() { return [...this.entries()].map(([, v]) => v)[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
  }
  // A body and its Content-Type, from what `fetch`/`send` accept.
  const extractBody = (body) => {
    if (body === undefined || body === null) return { bytes: null, type: null };
    if (typeof body === 'string') return { bytes: encoder.encode(body), type: 'text/plain;charset=UTF-8' };
    if (body instanceof g.URLSearchParams) return { bytes: encoder.encode(body.toString()), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
    if (body instanceof FormData) { const m = multipart(body._list); return { bytes: m.bytes, type: m.type }; }
    if (body instanceof Blob) return { bytes: body._bytes, type: body.type || null };
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return { bytes: toBytes(body).slice(), type: null };
    return { bytes: encoder.encode(toText(body)), type: 'text/plain;charset=UTF-8' };
  };
  // ---- streams ------------------------------------------------------------
  // ReadableStream with a default reader and async iteration: what pages
  // read response bodies with (a body arrives whole here, so its stream is
  // one chunk). Chunks queue until read; `pull` is asked for more on demand.
  class ReadableStreamDefaultReader {
    constructor(stream) {
      if (stream._reader) throw new TypeError("Failed to construct 'ReadableStreamDefaultReader': ReadableStream is locked.");
      hidden(this, '_stream', stream);
      stream._reader = this;
    }
    get closed() { return this._stream._closedPromise; }
    read() { return this._stream ? this._stream._read() : Promise.reject(new TypeError('The reader has been released.')); }
    cancel(reason) { return this._stream ? this._stream.cancel(reason) : Promise.resolve(); }
    releaseLock() { if (this._stream) { this._stream._reader = null; this._stream = null; } }
  }
  class ReadableStream {
    constructor(source = {}, strategy = {}) {
      source = source || {};
      hidden(this, '_queue', []);
      hidden(this, '_waiting', []);
      hidden(this, '_state', 'readable');
      hidden(this, '_error', undefined);
      hidden(this, '_reader', null);
      hidden(this, '_source', source);
      let closeResolve;
      hidden(this, '_closedPromise', new Promise((resolve) => { closeResolve = resolve; }));
      hidden(this, '_closeResolve', closeResolve);
      const stream = this;
      hidden(this, '_controller', {
        get desiredSize() { return (strategy.highWaterMark ?? 1) - stream._queue.length; },
        enqueue(chunk) { if (stream._state !== 'readable') throw new TypeError('Cannot enqueue a chunk into a closed stream'); const w = stream._waiting.shift(); if (w) w.resolve({ value: chunk, done: false }); else stream._queue.push(chunk); },
        close() { stream._state = 'closed'; stream._closeResolve(); if (!stream._queue.length) for (const w of stream._waiting.splice(0)) w.resolve({ value: undefined, done: true }); },
        error(e) { stream._state = 'errored'; stream._error = e; for (const w of stream._waiting.splice(0)) w.reject(e); },
      });
      if (typeof source.start === 'function') {
        try { source.start(this._controller); } catch (e) { this._controller.error(e); }
      }
    }
    get locked() { return this._reader !== null; }
    getReader(options) {
      if (options && options.mode === 'byob') throw new TypeError("This engine's streams have no BYOB readers.");
      return new ReadableStreamDefaultReader(this);
    }
    _read() {
      if (this._queue.length) {
        const value = this._queue.shift();
        if (!this._queue.length && this._state === 'closed') for (const w of this._waiting.splice(0)) w.resolve({ value: undefined, done: true });
        return Promise.resolve({ value, done: false });
      }
      if (this._state === 'closed') return Promise.resolve({ value: undefined, done: true });
      if (this._state === 'errored') return Promise.reject(this._error);
      const waiting = new Promise((resolve, reject) => this._waiting.push({ resolve, reject }));
      if (typeof this._source.pull === 'function') {
        try { const pulled = this._source.pull(this._controller); if (pulled && pulled.catch) pulled.catch((e) => this._controller.error(e)); } catch (e) { this._controller.error(e); }
      }
      return waiting;
    }
    cancel(reason) {
      this._queue = [];
      this._state = 'closed';
      this._closeResolve();
      for (const w of this._waiting.splice(0)) w.resolve({ value: undefined, done: true });
      if (typeof this._source.cancel === 'function') { try { this._source.cancel(reason); } catch (_) { /* the source's own error is not the caller's */ } }
      return Promise.resolve();
    }
    async *[Symbol.asyncIterator]() {
      const reader = this.getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          yield value;
        }
      } finally {
        reader.releaseLock();
      }
    }
    values() { return this[Symbol.asyncIterator](); }
    tee() {
      const chunks = [];
      const reader = this.getReader();
      const pump = () => reader.read().then(({ value, done }) => { if (done) return; chunks.push(value); return pump(); });
      const done = pump();
      const branch = () => new ReadableStream({ start: (c) => done.then(() => { for (const ch of chunks) c.enqueue(ch); c.close(); }, (e) => c.error(e)) });
      return [branch(), branch()];
    }
  }
  // A stream of the one chunk a body is; the body counts as used once the
  // stream is read, not when it is looked at.
  const bodyStream = (owner) => new ReadableStream({
    pull(controller) {
      if (owner._used) { controller.error(new TypeError('body stream already read')); return; }
      owner._used = true;
      const bytes = owner._bytes || new Uint8Array(0);
      if (bytes.length) controller.enqueue(bytes.slice());
      controller.close();
    },
  });

  const bodyMixin = {
    get bodyUsed() { return this._used; },
    _consume() {
      if (this._used) return Promise.reject(new TypeError('Failed to execute: body stream already read'));
      this._used = true;
      return Promise.resolve(this._bytes || new Uint8Array(0));
    },
    text() { return this._consume().then((b) => native.decodeText(b, 'utf-8', false)); },
    json() { return this.text().then((t) => JSON.parse(t)); },
    arrayBuffer() { return this._consume().then((b) => b.slice().buffer); },
    bytes() { return this._consume().then((b) => b.slice()); },
    blob() { return this._consume().then((b) => new Blob([b], { type: this.headers.get('content-type') || '' })); },
    formData() {
      return this.text().then((t) => {
        const fd = new FormData();
        for (const [k, v] of new g.URLSearchParams(t)) fd.append(k, v);
        return fd;
      });
    },
  };
  const Mixin = (Cls) => Object.defineProperties(Cls.prototype, Object.getOwnPropertyDescriptors(bodyMixin));
  const METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH'];
  class Request {
    constructor(input, init = {}) {
      init = init || {};
      const from = input instanceof Request ? input : null;
      let url;
      try { url = new g.URL(from ? from.url : toText(input), native.baseUrl()).href; } catch (_) {
        throw new TypeError(`Failed to construct 'Request': Invalid URL '${toText(input)}'`);
      }
      if (/^[a-z]+:\/\/[^/]*@/i.test(url)) throw new TypeError(`Failed to construct 'Request': Request cannot be constructed from a URL that includes credentials: ${url}`);
      let method = toText(init.method ?? (from ? from.method : 'GET'));
      if (!TOKEN.test(method)) throw new TypeError(`Failed to construct 'Request': '${method}' is not a valid HTTP method.`);
      if (METHODS.includes(method.toUpperCase())) method = method.toUpperCase();
      if (['CONNECT', 'TRACE', 'TRACK'].includes(method.toUpperCase())) throw new TypeError(`Failed to construct 'Request': '${method}' HTTP method is unsupported.`);
      hidden(this, '_url', url);
      hidden(this, '_method', method);
      const headers = new Headers(init.headers ?? (from ? from.headers : undefined));
      headers._guard = 'request';
      for (const [k] of headers._list.slice()) if (forbiddenHeader(k)) headers.delete(k);
      hidden(this, '_headers', headers);
      const body = init.body !== undefined ? extractBody(init.body) : { bytes: from ? from._bytes : null, type: null };
      if (body.bytes && (method === 'GET' || method === 'HEAD')) throw new TypeError("Failed to construct 'Request': Request with GET/HEAD method cannot have body.");
      if (body.type && !headers.has('content-type')) headers.set('content-type', body.type);
      hidden(this, '_bytes', body.bytes);
      hidden(this, '_used', false);
      hidden(this, '_mode', init.mode ?? (from ? from.mode : 'cors'));
      hidden(this, '_credentials', init.credentials ?? (from ? from.credentials : 'same-origin'));
      hidden(this, '_signal', init.signal ?? (from ? from.signal : null));
      hidden(this, '_redirect', init.redirect ?? 'follow');
      hidden(this, '_cache', init.cache ?? 'default');
    }
    get url() { return this._url; }
    get method() { return this._method; }
    get headers() { return this._headers; }
    get mode() { return this._mode; }
    get credentials() { return this._credentials; }
    get signal() { return this._signal || new AbortController().signal; }
    get redirect() { return this._redirect; }
    get cache() { return this._cache; }
    get referrer() { return 'about:client'; }
    get destination() { return ''; }
    clone() { if (this._used) throw new TypeError("Failed to execute 'clone' on 'Request': Request body is already used"); return new Request(this); }
  }
  Mixin(Request);
  const STATUS_TEXT = { 200: 'OK', 201: 'Created', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found', 304: 'Not Modified', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' };
  class Response {
    constructor(body = null, init = {}) {
      init = init || {};
      const status = init.status === undefined ? 200 : Number(init.status);
      if (!(status >= 200 && status <= 599)) throw new RangeError(`Failed to construct 'Response': The status provided (${status}) is outside the range [200, 599].`);
      const extracted = extractBody(body);
      const headers = new Headers(init.headers);
      if (extracted.type && !headers.has('content-type')) headers.set('content-type', extracted.type);
      hidden(this, '_status', status);
      hidden(this, '_statusText', init.statusText === undefined ? '' : toText(init.statusText));
      hidden(this, '_headers', headers);
      hidden(this, '_bytes', extracted.bytes);
      hidden(this, '_used', false);
      hidden(this, '_url', '');
      hidden(this, '_type', 'default');
      hidden(this, '_redirected', false);
    }
    get status() { return this._status; }
    get statusText() { return this._statusText; }
    get ok() { return this._status >= 200 && this._status < 300; }
    get headers() { return this._headers; }
    get url() { return this._url; }
    get type() { return this._type; }
    get redirected() { return this._redirected; }
    get body() {
      if (this._bytes === null) return null;
      if (!this._stream) hidden(this, '_stream', bodyStream(this));
      return this._stream;
    }
    clone() { if (this._used) throw new TypeError("Failed to execute 'clone' on 'Response': Response body is already used"); const r = new Response(null, { status: this._status || 200, statusText: this._statusText }); Object.assign(r, { _status: this._status, _headers: new Headers(this._headers), _bytes: this._bytes, _url: this._url, _type: this._type }); return r; }
    static json(data, init = {}) { const r = new Response(JSON.stringify(data), init); r.headers.set('content-type', 'application/json'); return r; }
    static error() { const r = new Response(null, { status: 200 }); r._status = 0; r._type = 'error'; return r; }
    static redirect(url, status = 302) { const r = new Response(null, { status, headers: { location: new g.URL(url, native.baseUrl()).href } }); return r; }
  }
  Mixin(Response);

  // ---- CORS ----------------------------------------------------------------
  const SAFE_REQUEST_HEADERS = ['accept', 'accept-language', 'content-language', 'content-type', 'range'];
  const SIMPLE_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];
  const SAFE_RESPONSE_HEADERS = ['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma'];
  const documentOrigin = () => {
    try { const o = new g.URL(native.url()).origin; return o === 'null' ? null : o; } catch (_) { return null; }
  };
  // `headers` is a Headers object or anything with its `_list` of pairs.
  const unsafeHeaders = (headers) => headers._list
    .filter(([k, v]) => !SAFE_REQUEST_HEADERS.includes(k) || (k === 'content-type' && !SIMPLE_TYPES.includes(v.split(';')[0].trim().toLowerCase())))
    .map(([k]) => k);
  const headerOf = (raw, name) => { const h = raw.find(([k]) => k === name); return h ? h[1] : null; };
  // Whether a cross-origin response may be read: its Access-Control-Allow-Origin
  // names this origin (or `*` without credentials, where credentials also
  // need Access-Control-Allow-Credentials: true).
  const corsAllows = (raw, origin, credentials) => {
    const allow = headerOf(raw, 'access-control-allow-origin');
    if (allow === null) return 'No \'Access-Control-Allow-Origin\' header is present on the requested resource.';
    if (allow.trim() === '*' && !credentials) return null;
    if (allow.trim() !== origin) return `The 'Access-Control-Allow-Origin' header has a value '${allow}' that is not equal to the supplied origin.`;
    if (credentials && toText(headerOf(raw, 'access-control-allow-credentials')).trim() !== 'true') {
      return "The value of the 'Access-Control-Allow-Credentials' header in the response is '' which must be 'true' when the request's credentials mode is 'include'.";
    }
    return null;
  };
  const listHeader = (raw, name) => toText(headerOf(raw, name)).split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const REDIRECT_STATUSES = [301, 302, 303, 307, 308];
  const MAX_REDIRECTS = 20;
  // One request by the rules of the Fetch standard that matter here:
  // same-origin requests carry cookies; cross-origin ones are CORS requests
  // (a preflight first when not "simple"), or opaque with `no-cors`.
  // Redirects are followed here, hop by hop (the host returns each 3xx as
  // it is), so every hop gets the checks a browser gives it: a CORS check of
  // each cross-origin hop's response, a new preflight where one is needed,
  // the origin turned to `null` after a cross-origin redirect, the body and
  // method dropped for 303 (and 301/302 after a POST), credentials only
  // where the mode allows them, `authorization` dropped across origins.
  // Returns the native response, marked with its type, or throws a
  // TypeError with the reason (also logged, as browsers do).
  const performFetch = (request) => {
    const origin = documentOrigin();
    const first = new g.URL(request.url);
    if (first.protocol === 'data:') {
      const r = native.httpFetch('GET', request.url, [], null, false);
      return { ...r, type: 'basic' };
    }
    const blocked = (url, reason) => {
      native.console('error', `Access to fetch at '${url}' from origin '${origin}' has been blocked by CORS policy: ${reason}`);
      return new TypeError('Failed to fetch');
    };
    let url = request.url;
    let method = request.method;
    let headers = request.headers._list.map(([k, v]) => [k, v]);
    let body = request._bytes;
    // Once a request went cross-origin, the rest of its hops are CORS hops
    // even if they come back; after a redirect between two other origins
    // the request's origin is sent as `null`.
    let tainting = 'basic';
    let sentOrigin = origin;
    for (let hop = 0; ; hop++) {
      const target = new g.URL(url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TypeError(`Failed to fetch: the URL scheme '${target.protocol.slice(0, -1)}' is not supported.`);
      const sameOrigin = origin !== null && target.origin === origin && tainting === 'basic';
      let r;
      if (sameOrigin) {
        r = native.httpFetch(method, url, headers, body, request.credentials !== 'omit', false);
      } else {
        if (request.mode === 'same-origin') throw blocked(url, 'the request mode is same-origin');
        const credentials = request.credentials === 'include';
        if (request.mode === 'no-cors') {
          if (!['GET', 'HEAD', 'POST'].includes(method)) throw new TypeError(`Failed to execute 'fetch': '${method}' is unsupported in no-cors mode.`);
          r = native.httpFetch(method, url, headers, body, credentials, false);
          tainting = 'opaque';
        } else {
          tainting = 'cors';
          const originValue = sentOrigin === null ? 'null' : sentOrigin;
          const unsafe = unsafeHeaders({ _list: headers });
          if (!['GET', 'HEAD', 'POST'].includes(method) || unsafe.length) {
            const preflightHeaders = [['origin', originValue], ['access-control-request-method', method]];
            if (unsafe.length) preflightHeaders.push(['access-control-request-headers', unsafe.sort().join(',')]);
            const pre = native.httpFetch('OPTIONS', url, preflightHeaders, null, false, false);
            if (pre.status < 200 || pre.status > 299) throw blocked(url, "Response to preflight request doesn't pass access control check: It does not have HTTP ok status.");
            const refused = corsAllows(pre.headers, originValue, credentials);
            if (refused) throw blocked(url, `Response to preflight request doesn't pass access control check: ${refused}`);
            const methods = listHeader(pre.headers, 'access-control-allow-methods');
            if (!['GET', 'HEAD', 'POST'].includes(method) && !methods.includes(method.toLowerCase()) && !(methods.includes('*') && !credentials)) {
              throw blocked(url, `Method ${method} is not allowed by Access-Control-Allow-Methods in preflight response.`);
            }
            const allowed = listHeader(pre.headers, 'access-control-allow-headers');
            const missing = unsafe.find((h) => !allowed.includes(h) && !(allowed.includes('*') && !credentials));
            if (missing) throw blocked(url, `Request header field ${missing} is not allowed by Access-Control-Allow-Headers in preflight response.`);
          }
          r = native.httpFetch(method, url, headers.concat([['origin', originValue]]), body, credentials, false);
          // Redirect responses are checked too: a hop that does not allow
          // this origin ends the request.
          const refused = corsAllows(r.headers, originValue, credentials);
          if (refused) throw blocked(url === request.url ? url : `${url}' (redirected from '${request.url}`, refused);
        }
      }
      const location = REDIRECT_STATUSES.includes(r.status) ? headerOf(r.headers, 'location') : null;
      if (location === null) return finish(r, url, tainting, request);
      if (request.redirect === 'error') throw new TypeError(`Failed to fetch: ${url} redirected and the request's redirect mode is 'error'.`);
      if (request.redirect === 'manual') return { status: 0, url, headers: [], body: new ArrayBuffer(0), type: 'opaqueredirect' };
      if (hop >= MAX_REDIRECTS) throw new TypeError('Failed to fetch: too many redirects.');
      let next;
      try { next = new g.URL(location, url); } catch (_) { throw new TypeError(`Failed to fetch: the redirect location '${location}' is not a valid URL.`); }
      if (next.username || next.password) throw new TypeError('Failed to fetch: a redirect location may not include credentials.');
      if (tainting === 'cors' && target.origin !== next.origin && sentOrigin !== null && sentOrigin !== target.origin) sentOrigin = null;
      if (target.origin !== next.origin) headers = headers.filter(([k]) => k !== 'authorization');
      if ((r.status === 303 && method !== 'GET' && method !== 'HEAD') || ((r.status === 301 || r.status === 302) && method === 'POST')) {
        method = 'GET';
        body = null;
        headers = headers.filter(([k]) => !['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'].includes(k));
      }
      url = next.href;
    }
  };
  // The response a page may see: opaque ones are empty, CORS ones show only
  // the safelisted headers and those the server exposed.
  const finish = (r, url, tainting, request) => {
    if (tainting === 'opaque') return { status: 0, url: '', headers: [], body: new ArrayBuffer(0), type: 'opaque' };
    const finalUrl = r.url || url;
    if (tainting === 'basic') return { ...r, url: finalUrl, type: 'basic' };
    const credentials = request.credentials === 'include';
    const exposed = listHeader(r.headers, 'access-control-expose-headers');
    const visible = r.headers.filter(([k]) => SAFE_RESPONSE_HEADERS.includes(k) || exposed.includes(k) || (exposed.includes('*') && !credentials));
    return { ...r, url: finalUrl, headers: visible, type: 'cors' };
  };
  const toResponse = (raw, request) => {
    const response = new Response(null, { status: 200 });
    response._status = raw.status;
    response._statusText = STATUS_TEXT[raw.status] || '';
    response._headers = new Headers(raw.headers.filter(([k]) => k !== 'set-cookie' && k !== 'set-cookie2'));
    response._headers._guard = 'immutable';
    response._bytes = request.method === 'HEAD' ? new Uint8Array(0) : new Uint8Array(raw.body);
    response._url = raw.url;
    response._type = raw.type;
    response._redirected = raw.url !== '' && raw.url.split('#')[0] !== request.url.split('#')[0];
    return response;
  };
  const fetch = (input, init) => new Promise((resolve, reject) => {
    let request;
    try { request = new Request(input, init); } catch (e) { reject(e); return; }
    const signal = request._signal;
    if (signal && signal.aborted) { reject(signal.reason); return; }
    // The request goes out in a task of its own, and so does its response.
    queueTask(() => {
      if (signal && signal.aborted) { reject(signal.reason); return; }
      let raw;
      try { raw = performFetch(request); } catch (e) { reject(e instanceof TypeError ? e : new TypeError(`Failed to fetch: ${e && e.message ? e.message : e}`)); return; }
      queueTask(() => {
        if (signal && signal.aborted) reject(signal.reason); else resolve(toResponse(raw, request));
      });
    });
  });

  // ---- XMLHttpRequest --------------------------------------------------------
  class XMLHttpRequestEventTarget extends EventTarget {}
  class XMLHttpRequestUpload extends XMLHttpRequestEventTarget {}
  class XMLHttpRequest extends XMLHttpRequestEventTarget {
    constructor() {
      super();
      hidden(this, '_state', 0);
      hidden(this, '_request', null);
      hidden(this, '_headers', []);
      hidden(this, '_response', null);
      hidden(this, '_responseType', '');
      hidden(this, '_withCredentials', false);
      hidden(this, '_sent', false);
      hidden(this, '_async', true);
      hidden(this, '_mime', null);
      hidden(this, '_generation', 0);
      hidden(this, '_upload', new XMLHttpRequestUpload());
      hidden(this, '_timeout', 0);
    }
    get timeout() { return this._timeout; }
    set timeout(ms) { this._timeout = Math.max(0, Math.trunc(Number(ms)) || 0); }
    get readyState() { return this._state; }
    get upload() { return this._upload; }
    get status() { return this._response && this._state >= 2 ? this._response.status : 0; }
    get statusText() { return this._response && this._state >= 2 ? STATUS_TEXT[this._response.status] || '' : ''; }
    get responseURL() { return this._response ? this._response.url : ''; }
    get withCredentials() { return this._withCredentials; }
    set withCredentials(v) { if (this._sent) throw new DOMException('The value may only be set if the object\'s state is UNSENT or OPENED.', 'InvalidStateError'); this._withCredentials = !!v; }
    get responseType() { return this._responseType; }
    set responseType(v) { if (['', 'text', 'json', 'arraybuffer', 'blob', 'document'].includes(v)) this._responseType = v; }
    get responseText() {
      if (this._responseType !== '' && this._responseType !== 'text') throw new DOMException(`The value is only accessible if the object's 'responseType' is '' or 'text' (was '${this._responseType}').`, 'InvalidStateError');
      return this._state < 3 || !this._response ? '' : native.decodeText(new Uint8Array(this._response.body), 'utf-8', false);
    }
    // The response parsed as a document: HTML for `document`, XML when
    // the response is XML (as XHR decides by its type).
    get responseXML() {
      if ((this._responseType !== '' && this._responseType !== 'document') || this._state !== 4 || !this._response) return null;
      if (this._document === undefined) {
        const mime = toText(this.getResponseHeader('content-type')).split(';')[0].trim().toLowerCase();
        const text = native.decodeText(new Uint8Array(this._response.body), 'utf-8', false);
        const xml = mime === 'text/xml' || mime === 'application/xml' || mime.endsWith('+xml');
        hidden(this, '_document', xml ? parseXml(text, mime) : (this._responseType === 'document' && mime === 'text/html' ? inertHtml(text) : null));
      }
      return this._document;
    }
    get response() {
      if (this._responseType === '' || this._responseType === 'text') return this.responseText;
      if (this._state !== 4 || !this._response) return null;
      const bytes = new Uint8Array(this._response.body);
      switch (this._responseType) {
        case 'json': try { return JSON.parse(native.decodeText(bytes, 'utf-8', false)); } catch (_) { return null; }
        case 'arraybuffer': return bytes.slice().buffer;
        case 'blob': return new Blob([bytes], { type: this.getResponseHeader('content-type') || '' });
        case 'document': return this.responseXML;
        default: return null;
      }
    }
    open(method, url, async = true) {
      let m = toText(method);
      if (!TOKEN.test(m)) throw new DOMException(`'${m}' is not a valid HTTP method.`, 'SyntaxError');
      if (METHODS.includes(m.toUpperCase())) m = m.toUpperCase();
      if (['CONNECT', 'TRACE', 'TRACK'].includes(m)) throw new DOMException(`'${m}' HTTP method is unsupported.`, 'SecurityError');
      let href;
      try { href = new g.URL(toText(url), native.baseUrl()).href; } catch (_) { throw new DOMException(`Failed to execute 'open' on 'XMLHttpRequest': Invalid URL`, 'SyntaxError'); }
      this._generation++;
      this._request = { method: m, url: href };
      this._async = async !== false;
      this._headers = [];
      this._response = null;
      this._sent = false;
      this._setState(1);
    }
    setRequestHeader(name, value) {
      if (this._state !== 1 || this._sent) throw new DOMException("Failed to execute 'setRequestHeader' on 'XMLHttpRequest': The object's state must be OPENED.", 'InvalidStateError');
      const n = toText(name).toLowerCase();
      if (!TOKEN.test(n)) throw new DOMException(`'${name}' is not a valid HTTP header field name.`, 'SyntaxError');
      if (forbiddenHeader(n)) { native.console('error', `Refused to set unsafe header "${name}"`); return; }
      const existing = this._headers.find(([k]) => k === n);
      if (existing) existing[1] += ', ' + toText(value); else this._headers.push([n, toText(value)]);
    }
    overrideMimeType(mime) { this._mime = toText(mime); }
    getResponseHeader(name) {
      if (!this._response || this._state < 2) return null;
      const n = toText(name).toLowerCase();
      const values = this._response.headers.filter(([k]) => k === n && k !== 'set-cookie').map(([, v]) => v);
      return values.length ? values.join(', ') : null;
    }
    getAllResponseHeaders() {
      if (!this._response || this._state < 2) return '';
      return this._response.headers.filter(([k]) => k !== 'set-cookie')
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => `${k}: ${v}\r\n`).join('');
    }
    abort() {
      this._generation++;
      if ((this._state === 1 && this._sent) || this._state === 2 || this._state === 3) {
        this._response = null;
        this._setState(4);
        this._fire('abort');
        this._fire('loadend');
      }
      this._state = 0;
      this._sent = false;
    }
    send(body = null) {
      if (this._state !== 1 || this._sent) throw new DOMException("Failed to execute 'send' on 'XMLHttpRequest': The object's state must be OPENED.", 'InvalidStateError');
      this._sent = true;
      const { method, url } = this._request;
      const init = { method, headers: this._headers, credentials: this._withCredentials ? 'include' : 'same-origin' };
      if (method !== 'GET' && method !== 'HEAD' && body !== null && body !== undefined) init.body = body;
      const generation = this._generation;
      const run = () => {
        let raw = null;
        let error = null;
        try { raw = performFetch(new Request(url, init)); } catch (e) { error = e; }
        if (generation !== this._generation) return;
        if (error) {
          this._state = 4;
          this._fire('readystatechange');
          this._fire('error');
          this._fire('loadend');
          if (!this._async) throw new DOMException(`Failed to execute 'send' on 'XMLHttpRequest': Failed to load '${url}'.`, 'NetworkError');
          return;
        }
        this._response = raw;
        this._setState(2);
        this._setState(3);
        this._fire('progress', raw.body.byteLength);
        this._setState(4);
        this._fire('load', raw.body.byteLength);
        this._fire('loadend', raw.body.byteLength);
      };
      if (!this._async) { run(); return; }
      this._fire('loadstart');
      queueTask(run);
    }
    _setState(state) { this._state = state; this._fire('readystatechange'); }
    _fire(type, loaded = 0) {
      const event = type === 'readystatechange' ? new Event(type) : new ProgressEvent(type, { lengthComputable: loaded > 0, loaded, total: loaded });
      this.dispatchEvent(event);
    }
  }
  Object.assign(XMLHttpRequest, { UNSENT: 0, OPENED: 1, HEADERS_RECEIVED: 2, LOADING: 3, DONE: 4 });
  defineHandlers(XMLHttpRequestEventTarget.prototype);
  // `onreadystatechange` is the request's own handler, not its event target's.
  Object.defineProperty(XMLHttpRequest.prototype, 'onreadystatechange', Object.getOwnPropertyDescriptor(XMLHttpRequestEventTarget.prototype, 'onreadystatechange'));
  delete XMLHttpRequestEventTarget.prototype.onreadystatechange;

  // ---- XML and DOMParser ----------------------------------------------------
  // A small XML parser for what scripts parse (feeds, SVG, API answers):
  // elements with their case and namespace, attributes, text, CDATA and
  // comments, the five predefined entities and character references. Markup
  // that is not well-formed gives a document whose root is <parsererror>,
  // as Chromium's does.
  const XML_ENTITIES = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
  const decodeXml = (text) => text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g, (all, e) => {
    if (e[0] !== '#') { if (!(e in XML_ENTITIES)) throw new SyntaxError(`undefined entity &${e};`); return XML_ENTITIES[e]; }
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return String.fromCodePoint(code);
  });
  const XML_NAME = /^[A-Za-z_:][-A-Za-z0-9_:.\u00b7-\uffff]*/;
  const XMLNS = 'http://www.w3.org/2000/xmlns/';
  const parseXmlTree = (text) => {
    const doc = g.document;
    const top = { children: [], ns: { '': '', xml: 'http://www.w3.org/XML/1998/namespace' } };
    const stack = [top];
    const attach = (node) => { const parent = stack[stack.length - 1]; if (parent.el) parent.el.appendChild(node); else parent.children.push(node); };
    let i = 0;
    while (i < text.length) {
      const lt = text.indexOf('<', i);
      const chunk = text.slice(i, lt < 0 ? text.length : lt);
      if (chunk) {
        if (stack.length > 1) attach(doc.createTextNode(decodeXml(chunk)));
        else if (chunk.trim()) throw new SyntaxError('text outside the root element');
      }
      if (lt < 0) break;
      const skipTo = (end, what) => { const at = text.indexOf(end, lt); if (at < 0) throw new SyntaxError(`unterminated ${what}`); return at; };
      if (text.startsWith('<?', lt)) { i = skipTo('?>', 'processing instruction') + 2; continue; }
      if (text.startsWith('<!--', lt)) { const end = skipTo('-->', 'comment'); if (stack.length > 1) attach(doc.createComment(text.slice(lt + 4, end))); i = end + 3; continue; }
      if (text.startsWith('<![CDATA[', lt)) { const end = skipTo(']]>', 'CDATA section'); if (stack.length === 1) throw new SyntaxError('CDATA outside the root element'); attach(doc.createTextNode(text.slice(lt + 9, end))); i = end + 3; continue; }
      if (text.startsWith('<!', lt)) {
        let depth = 0; let j = lt + 2;
        for (; j < text.length; j++) { if (text[j] === '[') depth++; else if (text[j] === ']') depth--; else if (text[j] === '>' && depth <= 0) break; }
        i = j + 1;
        continue;
      }
      if (text[lt + 1] === '/') {
        const end = skipTo('>', 'end tag');
        const name = text.slice(lt + 2, end).trim();
        const open = stack.pop();
        if (!open.el || open.name !== name) throw new SyntaxError(`end tag </${name}> does not match <${open.name || ''}>`);
        i = end + 1;
        continue;
      }
      const match = XML_NAME.exec(text.slice(lt + 1));
      if (!match) throw new SyntaxError('a tag without a name');
      const name = match[0];
      let j = lt + 1 + name.length;
      const attrs = [];
      for (;;) {
        while (/\s/.test(text[j] || '')) j++;
        if (text[j] === '>' || text.startsWith('/>', j) || j >= text.length) break;
        const attr = XML_NAME.exec(text.slice(j));
        if (!attr) throw new SyntaxError(`a malformed attribute in <${name}>`);
        j += attr[0].length;
        while (/\s/.test(text[j] || '')) j++;
        if (text[j] !== '=') throw new SyntaxError(`the attribute ${attr[0]} has no value`);
        j++;
        while (/\s/.test(text[j] || '')) j++;
        const quote = text[j];
        if (quote !== '"' && quote !== "'") throw new SyntaxError(`the value of ${attr[0]} is not quoted`);
        const close = text.indexOf(quote, j + 1);
        if (close < 0) throw new SyntaxError('an unterminated attribute value');
        attrs.push([attr[0], decodeXml(text.slice(j + 1, close))]);
        j = close + 1;
      }
      if (j >= text.length) throw new SyntaxError(`unterminated <${name}>`);
      const selfClosing = text.startsWith('/>', j);
      const ns = { ...stack[stack.length - 1].ns };
      for (const [k, v] of attrs) { if (k === 'xmlns') ns[''] = v; else if (k.startsWith('xmlns:')) ns[k.slice(6)] = v; }
      const prefix = name.includes(':') ? name.split(':')[0] : '';
      if (!(prefix in ns)) throw new SyntaxError(`the namespace prefix ${prefix} is not defined`);
      if (stack.length === 1 && top.children.some((c) => c.nodeType === 1)) throw new SyntaxError('more than one root element');
      const el = doc.createElementNS(ns[prefix], name);
      for (const [k, v] of attrs) el.setAttribute(k, v);
      attach(el);
      if (!selfClosing) stack.push({ el, name, ns });
      i = j + (selfClosing ? 2 : 1);
    }
    if (stack.length > 1) throw new SyntaxError(`<${stack[stack.length - 1].name}> is not closed`);
    const root = top.children.find((c) => c.nodeType === 1);
    if (!root) throw new SyntaxError('no root element');
    return root;
  };
  const parseXml = (text, contentType) => {
    try {
      return new InertDocument(parseXmlTree(toText(text)), contentType);
    } catch (e) {
      const error = g.document.createElementNS('http://www.mozilla.org/newlayout/xml/parsererror.xml', 'parsererror');
      error.textContent = `This page contains the following errors: ${e && e.message ? e.message : e}`;
      return new InertDocument(error, contentType);
    }
  };
  const XML_TYPES = ['text/xml', 'application/xml', 'application/xhtml+xml', 'image/svg+xml'];
  class DOMParser {
    parseFromString(string, type) {
      const kind = toText(type);
      if (kind === 'text/html') return inertHtml(toText(string));
      if (XML_TYPES.includes(kind)) return parseXml(string, kind);
      throw new TypeError(`Failed to execute 'parseFromString' on 'DOMParser': The provided value '${kind}' is not a valid enum value of type DOMParserSupportedType.`);
    }
  }
  class XMLSerializer {
    serializeToString(node) {
      if (node instanceof InertDocument) return node.documentElement.outerHTML;
      return node.nodeType === 1 ? node.outerHTML : node.nodeType === 3 ? toText(node.textContent).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : '';
    }
  }

  // ---- MessageChannel ---------------------------------------------------------
  // Two entangled ports: a message posted on one is a task on the other,
  // delivered once the port is started (by `onmessage` or `start()`).
  class MessagePort extends EventTarget {
    constructor() {
      super();
      hidden(this, '_other', null);
      hidden(this, '_queue', []);
      hidden(this, '_started', false);
      hidden(this, '_closed', false);
      hidden(this, '_onmessage', null);
    }
    get onmessage() { return this._onmessage; }
    set onmessage(fn) {
      if (this._onmessage) this.removeEventListener('message', this._onmessage);
      this._onmessage = typeof fn === 'function' ? fn : null;
      if (this._onmessage) { this.addEventListener('message', this._onmessage); this.start(); }
    }
    postMessage(message) {
      const other = this._other;
      if (!other || this._closed) return;
      const data = g.structuredClone(message);
      other._queue.push(data);
      if (other._started) other._flush();
    }
    start() { if (this._started) return; this._started = true; this._flush(); }
    _flush() {
      while (this._queue.length) {
        const data = this._queue.shift();
        queueTask(() => { if (!this._closed) this.dispatchEvent(Object.assign(new Event('message'), { data, ports: [] })); });
      }
    }
    close() { this._closed = true; }
  }
  class MessageChannel {
    constructor() {
      const port1 = new MessagePort();
      const port2 = new MessagePort();
      port1._other = port2;
      port2._other = port1;
      hidden(this, '_ports', [port1, port2]);
    }
    get port1() { return this._ports[0]; }
    get port2() { return this._ports[1]; }
  }

  // ---- FileReader -------------------------------------------------------------
  class FileReader extends EventTarget {
    constructor() {
      super();
      hidden(this, '_reading', { readyState: 0, result: null, error: null });
    }
    get readyState() { return this._reading.readyState; }
    get result() { return this._reading.result; }
    get error() { return this._reading.error; }
    _read(blob, as, encoding) {
      if (!(blob instanceof Blob)) throw new TypeError("Failed to execute 'read' on 'FileReader': parameter 1 is not of type 'Blob'.");
      if (this._reading.readyState === 1) throw new DOMException('The object is already busy reading Blobs.', 'InvalidStateError');
      this._reading.readyState = 1;
      this._reading.result = null;
      const bytes = blob._bytes;
      queueTask(() => {
        this.dispatchEvent(new ProgressEvent('loadstart', { lengthComputable: true, loaded: 0, total: bytes.length }));
        switch (as) {
          case 'text': this._reading.result = new g.TextDecoder(encoding || 'utf-8').decode(bytes); break;
          case 'dataurl': this._reading.result = `data:${blob.type || 'application/octet-stream'};base64,${btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''))}`; break;
          case 'binary': this._reading.result = Array.from(bytes, (b) => String.fromCharCode(b)).join(''); break;
          default: this._reading.result = bytes.slice().buffer; break;
        }
        this._reading.readyState = 2;
        const done = { lengthComputable: true, loaded: bytes.length, total: bytes.length };
        this.dispatchEvent(new ProgressEvent('progress', done));
        this.dispatchEvent(new ProgressEvent('load', done));
        this.dispatchEvent(new ProgressEvent('loadend', done));
      });
    }
    readAsText(blob, encoding = undefined) { this._read(blob, 'text', encoding); }
    readAsDataURL(blob) { this._read(blob, 'dataurl'); }
    readAsArrayBuffer(blob) { this._read(blob, 'buffer'); }
    readAsBinaryString(blob) { this._read(blob, 'binary'); }
    abort() { this._reading.readyState = 2; this._reading.result = null; }
  }
  Object.assign(FileReader, { EMPTY: 0, LOADING: 1, DONE: 2 });
  defineHandlers(FileReader.prototype);

  Object.assign(g, {
    TextEncoder, TextDecoder, atob, btoa, crypto, AbortController, AbortSignal, Blob, File, FormData,
    Headers, Request, Response, fetch, XMLHttpRequest, XMLHttpRequestEventTarget, XMLHttpRequestUpload, DOMParser,
    XMLSerializer, MessageChannel, MessagePort, FileReader, ReadableStream, ReadableStreamDefaultReader,
  });
  void reportError;
});
