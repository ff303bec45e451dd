  // Part of the web prelude (js/web/, joined in order by js/mod.rs):
  // XMLHttpRequest.
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

