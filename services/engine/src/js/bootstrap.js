// The DOM prelude, evaluated once per realm (see js/mod.rs). It receives the
// object of native functions (js/natives.rs), builds the Web API surface on
// them, and returns the hooks the engine calls (load events, timers, tasks) and
// the internals that indexeddb.js builds on. Nodes are thin wrappers around
// Blitz node ids; the document itself lives in Rust.
(function (native) {
  'use strict';
  const g = globalThis;
  const ID = Symbol('node id');
  const wrappers = new Map();
  const listeners = new WeakMap();
  let readyState = 'loading';

  const hidden = (obj, name, value) =>
    Object.defineProperty(obj, name, { value, writable: true, configurable: true, enumerable: false });

  // ---- console -------------------------------------------------------------
  const format = (v) => {
    if (typeof v === 'string') return v;
    if (v instanceof Error) return `${v.name}: ${v.message}`;
    if (typeof v === 'function') return `function ${v.name || '(anonymous)'}`;
    if (typeof v === 'symbol' || typeof v === 'bigint' || v === undefined) return String(v);
    if (v instanceof Node) return `<${v.nodeName.toLowerCase()}>`;
    try {
      const json = JSON.stringify(v);
      if (json !== undefined) return json;
    } catch (_) { /* cycles and the like: fall back to String() */ }
    return String(v);
  };
  const logger = (level) => (...args) => native.console(level, args.map(format).join(' '));
  const counters = new Map();
  const console = {
    log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'),
    debug: logger('debug'), trace: logger('debug'), dir: logger('log'), dirxml: logger('log'),
    table: logger('log'), group: logger('log'), groupCollapsed: logger('log'), groupEnd() {},
    time() {}, timeEnd() {}, timeLog() {},
    assert(condition, ...args) { if (!condition) logger('error')('Assertion failed:', ...args); },
    count(label = 'default') { const n = (counters.get(label) || 0) + 1; counters.set(label, n); logger('log')(`${label}: ${n}`); },
  };
  // Not a web API: lets an agent read what the page logged, as [[level, text], ...].
  hidden(console, '__fleetMessages', () => native.consoleMessages());
  g.console = console;
  const reportError = (e) => native.console('error', `Uncaught ${format(e)}`);
  g.reportError = reportError;

  // ---- events --------------------------------------------------------------
  class Event {
    constructor(type, init = {}) {
      this.type = String(type);
      this.bubbles = !!init.bubbles;
      this.cancelable = !!init.cancelable;
      this.composed = !!init.composed;
      this.defaultPrevented = false;
      this.target = null;
      this.currentTarget = null;
      this.eventPhase = 0;
      this.isTrusted = false;
      this.timeStamp = Date.now();
      hidden(this, '_stop', false);
      hidden(this, '_stopNow', false);
      // Set when a listener threw: IndexedDB aborts the transaction then.
      hidden(this, '_threw', false);
    }
    preventDefault() { if (this.cancelable) this.defaultPrevented = true; }
    stopPropagation() { this._stop = true; }
    stopImmediatePropagation() { this._stop = true; this._stopNow = true; }
    composedPath() { return []; }
  }
  class CustomEvent extends Event {
    constructor(type, init = {}) { super(type, init); this.detail = init.detail === undefined ? null : init.detail; }
  }

  const addEventListener = function (type, fn, options) {
    if (typeof fn !== 'function' && !(fn && typeof fn.handleEvent === 'function')) return;
    let map = listeners.get(this);
    if (!map) { map = new Map(); listeners.set(this, map); }
    const list = map.get(type) || [];
    if (!list.some((l) => l.fn === fn)) list.push({ fn, once: !!(options && options.once) });
    map.set(type, list);
  };
  const removeEventListener = function (type, fn) {
    const list = listeners.get(this) && listeners.get(this).get(type);
    if (!list) return;
    const i = list.findIndex((l) => l.fn === fn);
    if (i >= 0) list.splice(i, 1);
  };
  const invoke = (target, event) => {
    event.currentTarget = target;
    const list = ((listeners.get(target) && listeners.get(target).get(event.type)) || []).slice();
    for (const l of list) {
      if (l.once) removeEventListener.call(target, event.type, l.fn);
      try {
        if (typeof l.fn === 'function') l.fn.call(target, event); else l.fn.handleEvent(event);
      } catch (e) { event._threw = true; reportError(e); }
      if (event._stopNow) return;
    }
    const handler = target['on' + event.type];
    if (typeof handler === 'function') {
      try { if (handler.call(target, event) === false) event.preventDefault(); } catch (e) { event._threw = true; reportError(e); }
    }
  };
  const dispatchEvent = function (event) {
    if (!(event instanceof Event)) throw new TypeError('parameter 1 is not of type Event');
    event.target = this;
    // The propagation path: the target, then (when bubbling) its ancestors,
    // the document and the window.
    const path = [this];
    if (event.bubbles && this instanceof Node) {
      for (let p = this.parentNode; p; p = p.parentNode) path.push(p);
      if (path[path.length - 1] === document) path.push(g);
    }
    for (const target of path) {
      invoke(target, event);
      if (event._stop) break;
    }
    event.currentTarget = null;
    return !event.defaultPrevented;
  };
  class EventTarget {}
  for (const [name, fn] of Object.entries({ addEventListener, removeEventListener, dispatchEvent })) {
    hidden(EventTarget.prototype, name, fn);
    // Page scripts call these bare (`addEventListener('load', f)`), which
    // passes no `this` from sloppy code into this strict prelude.
    hidden(g, name, function (...args) { return fn.apply(this === undefined ? g : this, args); });
  }

  // ---- nodes ---------------------------------------------------------------
  const wrap = (id) => {
    if (id === null || id === undefined) return null;
    let node = wrappers.get(id);
    if (node) return node;
    switch (native.nodeType(id)) {
      case 1: node = new HTMLElement(id); break;
      case 3: node = new Text(id); break;
      case 8: node = new Comment(id); break;
      case 9: node = new Document(id); break;
      default: return null;
    }
    wrappers.set(id, node);
    return node;
  };
  const idOf = (node) => {
    if (!(node instanceof Node)) throw new TypeError('parameter is not of type Node');
    return node[ID];
  };
  const nodeList = (ids) => {
    const list = ids.map(wrap).filter((n) => n !== null);
    hidden(list, 'item', (i) => list[i] || null);
    return list;
  };
  const toText = (v) => (v === null || v === undefined ? '' : String(v));

  class Node extends EventTarget {
    constructor(id) { super(); Object.defineProperty(this, ID, { value: id }); }
    get nodeType() { return native.nodeType(this[ID]); }
    get nodeName() { return native.nodeName(this[ID]); }
    get ownerDocument() { return this === document ? null : document; }
    get isConnected() { return native.isConnected(this[ID]); }
    get parentNode() { return wrap(native.parent(this[ID])); }
    get parentElement() { const p = this.parentNode; return p && p.nodeType === 1 ? p : null; }
    get childNodes() { return nodeList(native.childNodes(this[ID])); }
    get firstChild() { const c = native.childNodes(this[ID]); return c.length ? wrap(c[0]) : null; }
    get lastChild() { const c = native.childNodes(this[ID]); return c.length ? wrap(c[c.length - 1]) : null; }
    get nextSibling() { return this._sibling(1); }
    get previousSibling() { return this._sibling(-1); }
    _sibling(step) {
      const p = native.parent(this[ID]);
      if (p === null) return null;
      const siblings = native.childNodes(p);
      const i = siblings.indexOf(this[ID]);
      return i < 0 ? null : wrap(siblings[i + step]);
    }
    get textContent() { return native.textContent(this[ID]); }
    set textContent(v) { native.setTextContent(this[ID], toText(v)); }
    get nodeValue() { return this.nodeType === 3 || this.nodeType === 8 ? this.textContent : null; }
    set nodeValue(v) { if (this.nodeType === 3 || this.nodeType === 8) this.textContent = v; }
    hasChildNodes() { return native.childNodes(this[ID]).length > 0; }
    contains(other) {
      for (let n = other; n; n = n.parentNode) if (n === this) return true;
      return false;
    }
    appendChild(child) { native.insertBefore(this[ID], idOf(child), null); return child; }
    insertBefore(child, ref) { native.insertBefore(this[ID], idOf(child), ref == null ? null : idOf(ref)); return child; }
    removeChild(child) { native.removeChild(this[ID], idOf(child)); return child; }
    replaceChild(child, old) { this.insertBefore(child, old); this.removeChild(old); return old; }
    isSameNode(other) { return this === other; }
    getRootNode() { let n = this; while (n.parentNode) n = n.parentNode; return n; }
  }
  const toNode = (n) => (n instanceof Node ? n : document.createTextNode(toText(n)));
  const childNodeMixin = {
    remove() { const p = native.parent(this[ID]); if (p !== null) native.removeChild(p, this[ID]); },
    before(...nodes) { const p = this.parentNode; if (p) for (const n of nodes) p.insertBefore(toNode(n), this); },
    after(...nodes) { const p = this.parentNode; if (!p) return; const next = this.nextSibling; for (const n of nodes) p.insertBefore(toNode(n), next); },
    replaceWith(...nodes) { const p = this.parentNode; if (!p) return; this.before(...nodes); this.remove(); },
  };
  const parentNodeMixin = {
    get children() { return nodeList(native.children(this[ID])); },
    get childElementCount() { return native.children(this[ID]).length; },
    get firstElementChild() { const c = native.children(this[ID]); return c.length ? wrap(c[0]) : null; },
    get lastElementChild() { const c = native.children(this[ID]); return c.length ? wrap(c[c.length - 1]) : null; },
    querySelector(selector) { return wrap(native.querySelector(this[ID], String(selector))); },
    querySelectorAll(selector) { return nodeList(native.querySelectorAll(this[ID], String(selector))); },
    getElementsByTagName(tag) { return this.querySelectorAll(String(tag)); },
    getElementsByClassName(names) {
      const classes = String(names).trim().split(/\s+/).filter(Boolean);
      return classes.length ? this.querySelectorAll(classes.map((c) => '.' + cssEscape(c)).join('')) : nodeList([]);
    },
    append(...nodes) { for (const n of nodes) this.appendChild(toNode(n)); },
    prepend(...nodes) { const first = this.firstChild; for (const n of nodes) this.insertBefore(toNode(n), first); },
    replaceChildren(...nodes) { this.textContent = ''; this.append(...nodes); },
  };
  const mixin = (target, source) => Object.defineProperties(target.prototype, Object.getOwnPropertyDescriptors(source));

  class CharacterData extends Node {
    get data() { return this.textContent; }
    set data(v) { this.textContent = v; }
    get length() { return this.textContent.length; }
  }
  class Text extends CharacterData {}
  class Comment extends CharacterData {}
  mixin(CharacterData, childNodeMixin);

  const kebab = (s) => s.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
  const camel = (s) => s.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  // CSS.escape: backslash-escape everything but word characters and '-', and
  // a leading digit as a code point (`1a` → `\31 a`).
  const cssEscape = (s) => String(s)
    .replace(/[^\w-]/g, (c) => '\\' + c)
    .replace(/^(-?)(\d)/, (_, dash, d) => `${dash}\\3${d} `);

  class DOMTokenList {
    constructor(el, attr) { hidden(this, '_el', el); hidden(this, '_attr', attr); }
    _get() { return toText(this._el.getAttribute(this._attr)).split(/\s+/).filter(Boolean); }
    _set(list) { this._el.setAttribute(this._attr, list.join(' ')); }
    get length() { return this._get().length; }
    get value() { return toText(this._el.getAttribute(this._attr)); }
    item(i) { return this._get()[i] || null; }
    contains(t) { return this._get().includes(String(t)); }
    add(...tokens) { const l = this._get(); for (const t of tokens) if (!l.includes(String(t))) l.push(String(t)); this._set(l); }
    remove(...tokens) { this._set(this._get().filter((t) => !tokens.map(String).includes(t))); }
    toggle(t, force) {
      const has = this.contains(t);
      const want = force === undefined ? !has : !!force;
      if (want && !has) this.add(t); else if (!want && has) this.remove(t);
      return want;
    }
    replace(a, b) { const l = this._get(); const i = l.indexOf(String(a)); if (i < 0) return false; l[i] = String(b); this._set(l); return true; }
    forEach(fn, thisArg) { this._get().forEach(fn, thisArg); }
    [Symbol.iterator]() { return this._get()[Symbol.iterator](); }
    toString() { return this.value; }
  }

  class Element extends Node {
    get tagName() { return this.nodeName; }
    get localName() { return this.nodeName.toLowerCase(); }
    get id() { return toText(this.getAttribute('id')); }
    set id(v) { this.setAttribute('id', v); }
    get className() { return toText(this.getAttribute('class')); }
    set className(v) { this.setAttribute('class', v); }
    get classList() { return new DOMTokenList(this, 'class'); }
    // A missing attribute comes back from Rust as `undefined`; the DOM says null
    // (hasAttribute and the boolean reflections below compare against null).
    getAttribute(name) { return native.getAttribute(this[ID], String(name)) ?? null; }
    getAttributeNames() { return native.attributeNames(this[ID]); }
    get attributes() {
      const list = native.attributeNames(this[ID]).map((name) => ({ name, value: this.getAttribute(name) }));
      hidden(list, 'item', (i) => list[i] || null);
      hidden(list, 'getNamedItem', (n) => list.find((a) => a.name === String(n).toLowerCase()) || null);
      return list;
    }
    setAttribute(name, value) { native.setAttribute(this[ID], String(name), String(value)); }
    removeAttribute(name) { native.removeAttribute(this[ID], String(name)); }
    hasAttribute(name) { return this.getAttribute(name) !== null; }
    hasAttributes() { return native.attributeNames(this[ID]).length > 0; }
    toggleAttribute(name, force) {
      const has = this.hasAttribute(name);
      const want = force === undefined ? !has : !!force;
      if (want && !has) this.setAttribute(name, ''); else if (!want && has) this.removeAttribute(name);
      return want;
    }
    matches(selector) { return native.matches(this[ID], String(selector)); }
    closest(selector) { return wrap(native.closest(this[ID], String(selector))); }
    get innerHTML() { return native.innerHTML(this[ID]); }
    set innerHTML(html) { native.setInnerHTML(this[ID], toText(html)); }
    get outerHTML() { return native.outerHTML(this[ID]); }
    get innerText() { return native.innerText(this[ID]); }
    set innerText(v) { this.textContent = v; }
    get outerText() { return this.innerText; }
    getBoundingClientRect() {
      const [x, y, width, height] = native.boundingRect(this[ID]);
      return { x, y, width, height, left: x, top: y, right: x + width, bottom: y + height, toJSON() { return { x, y, width, height }; } };
    }
    getClientRects() { return [this.getBoundingClientRect()]; }
    get offsetWidth() { return native.boundingRect(this[ID])[2]; }
    get offsetHeight() { return native.boundingRect(this[ID])[3]; }
    // The root element's client area is the viewport (what scroll math such
    // as `scrollHeight - clientHeight` expects).
    get clientWidth() { return isRoot(this) ? native.viewport()[0] : this.offsetWidth; }
    get clientHeight() { return isRoot(this) ? native.viewport()[1] : this.offsetHeight; }
    get scrollTop() { return elementScroll(this)[1]; }
    set scrollTop(v) { scrollElementTo(this, elementScroll(this)[0], Number(v)); }
    get scrollLeft() { return elementScroll(this)[0]; }
    set scrollLeft(v) { scrollElementTo(this, Number(v), elementScroll(this)[1]); }
    get scrollWidth() { return Math.round(elementScrollSize(this)[0]); }
    get scrollHeight() { return Math.round(elementScrollSize(this)[1]); }
    scrollTo(...args) { const [x, y] = scrollArgs(args, elementScroll(this)); scrollElementTo(this, x, y); }
    scroll(...args) { this.scrollTo(...args); }
    scrollBy(...args) {
      const [x, y] = elementScroll(this);
      const [dx, dy] = scrollArgs(args, [0, 0]);
      scrollElementTo(this, x + dx, y + dy);
    }
    scrollIntoView(arg) {
      let block = 'start';
      let inline = 'nearest';
      if (arg === false) block = 'end';
      else if (arg && typeof arg === 'object') { block = String(arg.block ?? 'start'); inline = String(arg.inline ?? 'nearest'); }
      if (native.scrollIntoView(this[ID], block, inline)) queueScrollEvent(document);
    }
    focus() {}
    blur() {}
  }
  mixin(Element, parentNodeMixin);
  mixin(Element, childNodeMixin);

  // ---- scrolling -----------------------------------------------------------
  // The viewport's position lives in the Blitz document, so screenshots show
  // what the page scrolled to. The root element scrolls the viewport (CSSOM);
  // other elements scroll their own box when their overflow allows it.
  const isRoot = (el) => el[ID] === native.documentElement();
  const elementScroll = (el) => (isRoot(el) ? native.scrollPosition() : native.elementScroll(el[ID]));
  const elementScrollSize = (el) => (isRoot(el) ? native.documentScrollSize() : native.elementScrollSize(el[ID]));
  const finite = (v) => { const n = Number(v); return Number.isFinite(n) ? n : 0; };
  // `(x, y)` or `({left, top})`; a member left out keeps `base`.
  const scrollArgs = (args, base) => {
    if (args.length >= 2) return [finite(args[0]), finite(args[1])];
    const o = args[0];
    if (o === null || typeof o !== 'object') return base;
    return [o.left === undefined ? base[0] : finite(o.left), o.top === undefined ? base[1] : finite(o.top)];
  };
  // One `scroll` event per target per task, like browsers' per-frame events;
  // at the document it bubbles to the window.
  const pendingScrollEvents = new Set();
  const queueScrollEvent = (target) => {
    if (pendingScrollEvents.has(target)) return;
    pendingScrollEvents.add(target);
    addTimer(() => {
      pendingScrollEvents.delete(target);
      target.dispatchEvent(new Event('scroll', { bubbles: target === document }));
    }, 0, [], false);
  };
  const scrollViewportTo = (x, y) => { if (native.scrollViewportTo(x, y)) queueScrollEvent(document); };
  const scrollElementTo = (el, x, y) => {
    if (isRoot(el)) scrollViewportTo(x, y);
    else if (native.elementScrollTo(el[ID], finite(x), finite(y))) queueScrollEvent(el);
  };

  const styleProxy = (el) => new Proxy({}, {
    get(_, key) {
      if (key === 'setProperty') return (name, value) => native.setStyleProperty(el[ID], String(name), toText(value));
      if (key === 'removeProperty') return (name) => native.setStyleProperty(el[ID], String(name), '');
      if (key === 'getPropertyValue') return (name) => readStyle(el, String(name));
      if (key === 'cssText') return toText(el.getAttribute('style'));
      if (typeof key !== 'string') return undefined;
      return readStyle(el, kebab(key));
    },
    set(_, key, value) {
      if (key === 'cssText') { el.setAttribute('style', toText(value)); return true; }
      if (typeof key === 'string') native.setStyleProperty(el[ID], kebab(key), toText(value));
      return true;
    },
  });
  // Reads the inline style attribute (not computed style).
  const readStyle = (el, name) => {
    for (const decl of toText(el.getAttribute('style')).split(';')) {
      const i = decl.indexOf(':');
      if (i > 0 && decl.slice(0, i).trim().toLowerCase() === name) return decl.slice(i + 1).trim();
    }
    return '';
  };
  const datasetProxy = (el) => new Proxy({}, {
    get(_, key) { if (typeof key !== 'string') return undefined; const v = el.getAttribute('data-' + kebab(key)); return v === null ? undefined : v; },
    set(_, key, value) { if (typeof key === 'string') el.setAttribute('data-' + kebab(key), String(value)); return true; },
    has(_, key) { return typeof key === 'string' && el.hasAttribute('data-' + kebab(key)); },
    deleteProperty(_, key) { if (typeof key === 'string') el.removeAttribute('data-' + kebab(key)); return true; },
    ownKeys() { return el.getAttributeNames().filter((n) => n.startsWith('data-')).map((n) => camel(n.slice(5))); },
    getOwnPropertyDescriptor(_, key) {
      if (typeof key !== 'string' || !el.hasAttribute('data-' + kebab(key))) return undefined;
      return { value: el.getAttribute('data-' + kebab(key)), writable: true, enumerable: true, configurable: true };
    },
  });
  const urlAttr = (name) => ({
    get() { const v = this.getAttribute(name); return v === null ? '' : native.resolveUrl(v) || v; },
    set(v) { this.setAttribute(name, v); },
  });
  const stringAttr = (name) => ({
    get() { return toText(this.getAttribute(name)); },
    set(v) { this.setAttribute(name, v); },
  });
  const boolAttr = (name) => ({
    get() { return this.hasAttribute(name); },
    set(v) { this.toggleAttribute(name, !!v); },
  });

  class HTMLElement extends Element {
    get style() { return styleProxy(this); }
    get dataset() { return datasetProxy(this); }
    get hidden() { return this.hasAttribute('hidden'); }
    set hidden(v) { this.toggleAttribute('hidden', !!v); }
    get value() { return toText(this.getAttribute('value')); }
    set value(v) { this.setAttribute('value', v); }
    click() { this.dispatchEvent(new Event('click', { bubbles: true, cancelable: true })); }
  }
  for (const name of ['href', 'src', 'action']) Object.defineProperty(HTMLElement.prototype, name, { ...urlAttr(name), configurable: true });
  for (const name of ['title', 'lang', 'name', 'type', 'alt', 'rel', 'target', 'placeholder']) {
    Object.defineProperty(HTMLElement.prototype, name, { ...stringAttr(name), configurable: true });
  }
  for (const name of ['disabled', 'checked', 'selected', 'required', 'readOnly', 'multiple']) {
    Object.defineProperty(HTMLElement.prototype, name, { ...boolAttr(name.toLowerCase()), configurable: true });
  }

  class Document extends Node {
    get documentElement() { return wrap(native.documentElement()); }
    get head() { return wrap(native.head()); }
    get body() { return wrap(native.body()); }
    get title() { return native.title(); }
    set title(v) { native.setTitle(toText(v)); }
    get URL() { return native.url(); }
    get documentURI() { return native.url(); }
    get baseURI() { return native.resolveUrl('') || native.url(); }
    get location() { return location; }
    get readyState() { return readyState; }
    get defaultView() { return g; }
    get characterSet() { return 'UTF-8'; }
    get contentType() { return 'text/html'; }
    get compatMode() { return 'CSS1Compat'; }
    get visibilityState() { return 'visible'; }
    get hidden() { return false; }
    get referrer() { return ''; }
    // Cookies are a later issue: reads see none, writes are dropped.
    get cookie() { return ''; }
    set cookie(_) {}
    get activeElement() { return this.body; }
    get scrollingElement() { return this.documentElement; }
    get forms() { return this.querySelectorAll('form'); }
    get images() { return this.querySelectorAll('img'); }
    get links() { return this.querySelectorAll('a[href], area[href]'); }
    get scripts() { return this.querySelectorAll('script'); }
    getElementById(id) { return wrap(native.getElementById(String(id))); }
    createElement(tag) { return wrap(native.createElement(String(tag))); }
    createElementNS(_ns, tag) { return wrap(native.createElement(String(tag))); }
    createTextNode(text) { return wrap(native.createTextNode(toText(text))); }
    createEvent() { return new Event(''); }
    hasFocus() { return true; }
  }
  mixin(Document, parentNodeMixin);

  const document = wrap(native.documentNode());

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
    constructor(href, base) { hidden(this, '_parts', parts(href, base)); }
    get searchParams() { return new URLSearchParams(this._parts.search); }
    toString() { return this._parts.href; }
    toJSON() { return this._parts.href; }
    static canParse(href, base) { try { parts(href, base); return true; } catch (_) { return false; } }
  }
  for (const k of URL_PARTS) Object.defineProperty(URL.prototype, k, { get() { return this._parts[k]; }, configurable: true });

  class Location {
    toString() { return native.url(); }
    assign(url) { native.console('warn', `navigation to ${url} from a script is not supported yet`); }
    replace(url) { this.assign(url); }
    reload() { native.console('warn', 'reload from a script is not supported yet'); }
  }
  for (const k of URL_PARTS) {
    Object.defineProperty(Location.prototype, k, {
      get() { const p = native.parseUrl(native.url(), null); return p ? p[URL_PARTS.indexOf(k)] : ''; },
      set(v) { if (k === 'href') this.assign(v); },
      configurable: true,
    });
  }
  const location = new Location();

  // ---- storage -------------------------------------------------------------
  // A Storage object is a Proxy so that `localStorage.key = v` and
  // `localStorage.key` work as in browsers, not only getItem/setItem.
  const makeStorage = (backend) => {
    const methods = {
      getItem: (k) => backend.get(String(k)),
      setItem: (k, v) => backend.set(String(k), String(v)),
      removeItem: (k) => backend.remove(String(k)),
      clear: () => backend.clear(),
      key: (i) => backend.key(Number(i) || 0),
    };
    return new Proxy({}, {
      get(_, k) {
        if (k === 'length') return backend.length();
        if (k === Symbol.toStringTag) return 'Storage';
        if (typeof k !== 'string') return undefined;
        if (Object.prototype.hasOwnProperty.call(methods, k)) return methods[k];
        const v = backend.get(k);
        return v === null ? undefined : v;
      },
      set(_, k, v) { if (typeof k === 'string') backend.set(k, String(v)); return true; },
      has(_, k) { return typeof k === 'string' && (k in methods || k === 'length' || backend.get(k) !== null); },
      deleteProperty(_, k) { if (typeof k === 'string') backend.remove(k); return true; },
      ownKeys() { return backend.keys(); },
      getOwnPropertyDescriptor(_, k) {
        if (typeof k !== 'string') return undefined;
        const v = backend.get(k);
        return v === null ? undefined : { value: v, writable: true, enumerable: true, configurable: true };
      },
    });
  };
  // Both areas live in Rust (storage.rs) so that they outlive this realm and
  // are carried by snapshots; the first native argument selects the area.
  const storageBackend = (session) => ({
    // Missing entries come back from Rust as `undefined`; Storage says null.
    get: (k) => native.storageGet(session, k) ?? null,
    set: (k, v) => native.storageSet(session, k, v),
    remove: (k) => native.storageRemove(session, k),
    clear: () => native.storageClear(session),
    key: (i) => native.storageKey(session, i) ?? null,
    length: () => native.storageLength(session),
    keys: () => native.storageKeys(session),
  });
  const localStorage = makeStorage(storageBackend(false));
  const sessionStorage = makeStorage(storageBackend(true));

  // ---- timers (virtual clock, run by the engine) ---------------------------
  let clock = 0;
  let timerSeq = 0;
  const timers = new Map();
  const addTimer = (fn, ms, args, repeat) => {
    if (typeof fn === 'string') { const src = fn; fn = () => (0, eval)(src); }
    if (typeof fn !== 'function') return 0;
    const delay = Math.max(0, Number(ms) || 0);
    const id = ++timerSeq;
    timers.set(id, { fn, args, at: clock + delay, delay, repeat });
    return id;
  };
  const clearTimer = (id) => { timers.delete(id); };
  // Other task sources (IndexedDB): `runTask()` runs one due task and says
  // whether it did; `endTask()` is called when a task and its microtasks end.
  const taskSources = [];
  // Runs one task: 2 for a task of another source (always due), 1 for a timer
  // due by `horizon` virtual ms, 0 when nothing was due.
  const runNextTimer = (horizon) => {
    for (const source of taskSources) if (source.runTask()) return 2;
    let nextId = 0;
    let next = null;
    for (const [id, t] of timers) if (!next || t.at < next.at) { next = t; nextId = id; }
    if (!next || next.at > horizon) return 0;
    clock = Math.max(clock, next.at);
    if (next.repeat) next.at = clock + Math.max(next.delay, 4); else timers.delete(nextId);
    try { next.fn.apply(g, next.args); } catch (e) { reportError(e); }
    return 1;
  };
  const endTask = () => {
    for (const source of taskSources) {
      try { source.endTask(); } catch (e) { reportError(e); }
    }
  };

  // ---- window --------------------------------------------------------------
  const start = Date.now();
  const viewport = () => native.viewport();
  Object.assign(g, {
    window: g, self: g, top: g, parent: g, frames: g, opener: null, closed: false, name: '',
    document, location, localStorage, sessionStorage,
    Node, Element, HTMLElement, CharacterData, Text, Comment, Document, HTMLDocument: Document,
    EventTarget, Event, CustomEvent, DOMTokenList, URL, URLSearchParams, Location,
    setTimeout: (fn, ms, ...args) => addTimer(fn, ms, args, false),
    setInterval: (fn, ms, ...args) => addTimer(fn, ms, args, true),
    clearTimeout: clearTimer, clearInterval: clearTimer,
    requestAnimationFrame: (fn) => addTimer(() => fn(clock), 16, [], false),
    cancelAnimationFrame: clearTimer,
    requestIdleCallback: (fn) => addTimer(() => fn({ didTimeout: false, timeRemaining: () => 50 }), 1, [], false),
    cancelIdleCallback: clearTimer,
    devicePixelRatio: 1,
    scrollTo(...args) { const [x, y] = scrollArgs(args, native.scrollPosition()); scrollViewportTo(x, y); },
    scroll(...args) { g.scrollTo(...args); },
    scrollBy(...args) {
      const [x, y] = native.scrollPosition();
      const [dx, dy] = scrollArgs(args, [0, 0]);
      scrollViewportTo(x + dx, y + dy);
    },
    focus() {}, blur() {}, print() {},
    alert(message) { native.console('info', `alert: ${toText(message)}`); },
    confirm(message) { native.console('info', `confirm: ${toText(message)}`); return false; },
    prompt(message) { native.console('info', `prompt: ${toText(message)}`); return null; },
    // No media query evaluation from scripts yet: nothing matches.
    matchMedia: (media) => ({ matches: false, media: String(media), onchange: null, addListener() {}, removeListener() {}, addEventListener() {}, removeEventListener() {} }),
    CSS: { escape: cssEscape, supports: () => false },
    navigator: {
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) servo-fleet/0.1 (Blitz; QuickJS)',
      appName: 'Netscape', appVersion: '5.0', product: 'Gecko', vendor: '',
      platform: 'Linux x86_64', language: 'en-US', languages: ['en-US', 'en'],
      cookieEnabled: false, onLine: true, webdriver: true, hardwareConcurrency: 1, maxTouchPoints: 0,
    },
    performance: { now: () => Date.now() - start, timeOrigin: start, mark() {}, measure() {}, getEntriesByName: () => [] },
  });
  for (const [name, axis] of [['scrollX', 0], ['scrollY', 1], ['pageXOffset', 0], ['pageYOffset', 1]]) {
    Object.defineProperty(g, name, { get: () => native.scrollPosition()[axis], configurable: true });
  }
  Object.defineProperty(g, 'innerWidth', { get: () => viewport()[0], configurable: true });
  Object.defineProperty(g, 'innerHeight', { get: () => viewport()[1], configurable: true });
  Object.defineProperty(g, 'outerWidth', { get: () => viewport()[0], configurable: true });
  Object.defineProperty(g, 'outerHeight', { get: () => viewport()[1], configurable: true });
  g.screen = { get width() { return viewport()[0]; }, get height() { return viewport()[1]; }, get availWidth() { return viewport()[0]; }, get availHeight() { return viewport()[1]; }, colorDepth: 24, pixelDepth: 24 };
  if (typeof g.queueMicrotask !== 'function') g.queueMicrotask = (fn) => { Promise.resolve().then(fn); };

  // ---- hooks for the engine ------------------------------------------------
  return {
    fireLoad() {
      readyState = 'interactive';
      document.dispatchEvent(new Event('readystatechange'));
      document.dispatchEvent(new Event('DOMContentLoaded', { bubbles: true }));
      readyState = 'complete';
      document.dispatchEvent(new Event('readystatechange'));
      g.dispatchEvent(new Event('load'));
    },
    runNextTimer,
    endTask,
    // For indexeddb.js (see js/mod.rs); not reachable from page scripts.
    internals: {
      Event, EventTarget, Node, invoke, reportError, hidden,
      addTaskSource: (source) => { taskSources.push(source); },
    },
  };
})
