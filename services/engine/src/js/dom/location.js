  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // URL, URLSearchParams, location and history.
  // ---- URL, location -------------------------------------------------------
  const URL_PARTS = ['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash', 'origin'];
  const parts = (href, base) => {
    const p = native.parseUrl(String(href), base === undefined || base === null ? null : String(base));
    if (!p) throw new TypeError(`Invalid URL: ${href}`);
    return Object.fromEntries(URL_PARTS.map((k, i) => [k, p[i]]));
  };

  class URLSearchParams {
    constructor(init = '') {
      hidden(this, '_list', []);
      if (typeof init === 'object' && init !== null) {
        const entries = typeof init[Symbol.iterator] === 'function' ? init : Object.entries(init);
        for (const [k, v] of entries) this._list.push([String(k), String(v)]);
      } else {
        for (const pair of String(init).replace(/^\?/, '').split('&')) {
          if (!pair) continue;
          const i = pair.indexOf('=');
          const dec = (s) => { try { return decodeURIComponent(s.replace(/\+/g, ' ')); } catch (_) { return s; } };
          this._list.push(i < 0 ? [dec(pair), ''] : [dec(pair.slice(0, i)), dec(pair.slice(i + 1))]);
        }
      }
    }
    get size() { return this._list.length; }
    get(k) { const e = this._list.find(([n]) => n === String(k)); return e ? e[1] : null; }
    getAll(k) { return this._list.filter(([n]) => n === String(k)).map(([, v]) => v); }
    has(k) { return this._list.some(([n]) => n === String(k)); }
    append(k, v) { this._list.push([String(k), String(v)]); }
    set(k, v) { this.delete(k); this.append(k, v); }
    delete(k) { const key = String(k); for (let i = this._list.length - 1; i >= 0; i--) if (this._list[i][0] === key) this._list.splice(i, 1); }
    sort() { this._list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)); }
    forEach(fn, thisArg) { for (const [k, v] of this._list) fn.call(thisArg, v, k, this); }
    keys() { return this._list.map(([k]) => k)[Symbol.iterator](); }
    values() { return this._list.map(([, v]) => v)[Symbol.iterator](); }
    entries() { return this._list.map((e) => e.slice())[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
    toString() {
      const enc = (s) => encodeURIComponent(s).replace(/%20/g, '+');
      return this._list.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
    }
  }

  class URL {
    constructor(href, base) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'URL': 1 argument required");
      hidden(this, '_parts', parts(href, base));
    }
    get searchParams() {
      const params = new URLSearchParams(this._parts.search);
      // Changes to the params write back to the URL, as in browsers.
      hidden(params, '_url', this);
      return params;
    }
    toString() { return this._parts.href; }
    toJSON() { return this._parts.href; }
    static canParse(href, base) { try { parts(href, base); return true; } catch (_) { return false; } }
    static parse(href, base) { try { return new URL(href, base); } catch (_) { return null; } }
    static createObjectURL() { return 'blob:' + native.url() + '/' + g.crypto.randomUUID(); }
    static revokeObjectURL() {}
  }
  for (const k of URL_PARTS) {
    Object.defineProperty(URL.prototype, k, {
      get() { return this._parts[k]; },
      set: k === 'origin' ? undefined : { set(v) { this._parts = parts(withPart(this._parts, k, toText(v))); } }.set,
      configurable: true,
    });
  }
  // The href of `p` with one part replaced.
  const withPart = (p, k, v) => {
    const user = p.username ? p.username + (p.password ? ':' + p.password : '') + '@' : '';
    const q = { ...p };
    switch (k) {
      case 'href': return v;
      case 'protocol': q.protocol = v.replace(/:?$/, ':'); break;
      case 'host': q.host = v; break;
      case 'hostname': q.host = v + (p.port ? ':' + p.port : ''); break;
      case 'port': q.host = p.hostname + (v ? ':' + v : ''); break;
      case 'pathname': q.pathname = v.startsWith('/') ? v : '/' + v; break;
      case 'search': q.search = v === '' || v === '?' ? '' : (v.startsWith('?') ? v : '?' + v); break;
      case 'hash': q.hash = v === '' || v === '#' ? '' : (v.startsWith('#') ? v : '#' + v); break;
      case 'username': return `${p.protocol}//${v}${p.password ? ':' + p.password : ''}@${p.host}${p.pathname}${p.search}${p.hash}`;
      case 'password': return `${p.protocol}//${p.username}:${v}@${p.host}${p.pathname}${p.search}${p.hash}`;
      default: return p.href;
    }
    return `${q.protocol}//${user}${q.host}${q.pathname}${q.search}${q.hash}`;
  };
  // URLSearchParams obtained from a URL write their changes back to it.
  for (const m of ['append', 'set', 'delete', 'sort']) {
    const inner = URLSearchParams.prototype[m];
    const { [m]: wrapped } = { [m](...args) {
      inner.apply(this, args);
      if (this._url) { const q = this.toString(); this._url._parts = parts(withPart(this._url._parts, 'search', q)); }
    } };
    Object.defineProperty(wrapped, 'length', { value: inner.length });
    URLSearchParams.prototype[m] = wrapped;
  }

  // Navigation: a new document is loaded by the tab once the current task is
  // over (native.navigate); a change of fragment only stays in this document.
  const navigateTo = (url, replace) => {
    const href = toText(url);
    if (/^\s*javascript:/i.test(href)) {
      const code = decodeURIComponent(href.replace(/^\s*javascript:/i, ''));
      queueTask(() => { try { (0, eval)(code); } catch (e) { reportError(e); } });
      return;
    }
    const base = native.url();
    let target;
    try { target = new URL(href, native.baseUrl()); } catch (_) {
      throw new DOMException(`'${href}' is not a valid URL.`, 'SyntaxError');
    }
    const here = base === 'about:blank' ? null : new URL(base);
    if (here && target.href.includes('#') && target.href.split('#')[0] === here.href.split('#')[0]) {
      fragmentNavigation(here.href, target.href, replace);
      return;
    }
    native.navigate(target.href, 'GET', null, null, !!replace);
  };
  const fragmentNavigation = (from, to, replace) => {
    native.historyPush(null, to, !!replace);
    stateCache.json = undefined;
    scrollToFragment(new URL(to).hash);
    if (from !== to) {
      g.dispatchEvent(uaEvent(new PopStateEvent('popstate', { state: null })));
      queueTask(() => g.dispatchEvent(new HashChangeEvent('hashchange', { oldURL: from, newURL: to })));
    }
  };
  const scrollToFragment = (hash) => {
    let id = hash.replace(/^#/, '');
    try { id = decodeURIComponent(id); } catch (_) { /* keep it as written */ }
    if (id === '' || id.toLowerCase() === 'top') { scrollViewportTo(0, 0); return; }
    const el = document.getElementById(id) || document.querySelector(`a[name="${cssEscape(id)}"]`);
    if (el) el.scrollIntoView();
  };
  class Location {
    toString() { return native.url(); }
    assign(url) { navigateTo(url, false); }
    replace(url) { navigateTo(url, true); }
    reload() { native.historyGo(0); }
    get ancestorOrigins() { return []; }
  }
  for (const k of URL_PARTS) {
    Object.defineProperty(Location.prototype, k, {
      get() { const p = native.parseUrl(native.url(), null); return p ? p[URL_PARTS.indexOf(k)] : ''; },
      set(v) {
        if (k === 'href') { this.assign(v); return; }
        if (k === 'hash') { this.assign(native.url().split('#')[0] + '#' + toText(v).replace(/^#/, '')); return; }
        const p = native.parseUrl(native.url(), null);
        if (!p || k === 'origin') return;
        this.assign(withPart(Object.fromEntries(URL_PARTS.map((name, i) => [name, p[i]])), k, toText(v)));
      },
      configurable: true,
    });
  }
  const location = new Location();

  // ---- history -------------------------------------------------------------
  // Entries live in the tab (navigation.rs); a state is kept there as the
  // JSON text of its structured serialization (indexeddb/'s, set in
  // `clone`), so a Date, a Map or a cycle comes back as it went in.
  const clone = { serialize: (v) => v, deserialize: (v) => v };
  const stateOf = (json) => (json === null || json === undefined ? null : clone.deserialize(JSON.parse(json)));
  const stateCache = { json: undefined, value: null };
  class History {
    get length() { return native.historyLength(); }
    get state() {
      const json = native.historyState() ?? null;
      if (json !== stateCache.json) { stateCache.json = json; stateCache.value = stateOf(json); }
      return stateCache.value;
    }
    get scrollRestoration() { return this._scroll || 'auto'; }
    set scrollRestoration(v) { if (v === 'auto' || v === 'manual') hidden(this, '_scroll', v); }
    pushState(state, _unused, url) { changeState(state, url, false); }
    replaceState(state, _unused, url) { changeState(state, url, true); }
    back() { this.go(-1); }
    forward() { this.go(1); }
    // Traversal is a task of its own, as in browsers: the caller goes on first.
    go(delta = 0) {
      const n = Math.trunc(Number(delta)) || 0;
      if (n === 0) { native.historyGo(0); return; }
      queueTask(() => {
        const moved = native.historyTraverse(n);
        if (moved) traversed(moved[0], moved[1], moved[2]);
      });
    }
  }
  const changeState = (state, url, replace) => {
    // Throws DataCloneError for what cannot be cloned, before anything changes.
    const json = state === undefined || state === null ? null : JSON.stringify(clone.serialize(state));
    native.historyPush(json, url === undefined || url === null ? null : String(url), replace);
    stateCache.json = json;
    stateCache.value = stateOf(json);
  };
  const history = new History();
  // A traversal within this document: popstate, and hashchange when only
  // the fragment differs.
  const traversed = (from, to, stateJson) => {
    stateCache.json = undefined;
    const state = stateOf(stateJson);
    g.dispatchEvent(uaEvent(new PopStateEvent('popstate', { state })));
    if (from !== to && from.split('#')[0] === to.split('#')[0]) {
      scrollToFragment(new URL(to).hash);
      queueTask(() => g.dispatchEvent(uaEvent(new HashChangeEvent('hashchange', { oldURL: from, newURL: to }))));
    }
  };

