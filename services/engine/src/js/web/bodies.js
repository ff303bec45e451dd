  // Part of the web prelude (js/web/, joined in order by js/mod.rs):
  // Headers, Request, Response and streams.
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

