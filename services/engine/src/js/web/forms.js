  // Part of the web prelude (js/web/, joined in order by js/mod.rs):
  // Blob, File, FormData and form submission.
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

