  // Part of the web prelude (js/web/, joined in order by js/mod.rs):
  // MessageChannel and FileReader.
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
