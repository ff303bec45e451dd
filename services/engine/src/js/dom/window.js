  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // window: its constructors (Image, Option, Audio), media queries,
  // selection, channels, navigator, performance, screen and globals.
  // ---- window --------------------------------------------------------------
  const viewport = () => native.viewport();
  // navigator.appVersion, and the user agent after `Mozilla/`.
  const APP_VERSION = '5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
  // Media queries scripts test: viewport widths/heights, orientation, color
  // scheme (light) and reduced motion (no); anything else does not match.
  const mediaMatches = (media) => {
    const [w, h] = viewport();
    const query = String(media).toLowerCase();
    return query.split(',').some((part) => {
      const features = [...part.matchAll(/\(\s*([a-z-]+)\s*(?::\s*([^)]+))?\)/g)];
      if (/\bnot\b/.test(part) || (features.length === 0 && !/^\s*(all|screen)\s*$/.test(part))) return false;
      return features.every(([, name, value = '']) => {
        const px = parseFloat(value) * (/em/.test(value) ? 16 : 1);
        switch (name) {
          case 'min-width': return w >= px;
          case 'max-width': return w <= px;
          case 'min-height': return h >= px;
          case 'max-height': return h <= px;
          case 'orientation': return value.trim() === (w >= h ? 'landscape' : 'portrait');
          case 'prefers-color-scheme': return value.trim() === 'light';
          case 'prefers-reduced-motion': return value.trim() === 'no-preference';
          case 'hover': case 'any-hover': return value.trim() === 'hover';
          case 'pointer': case 'any-pointer': return value.trim() === 'fine';
          default: return false;
        }
      });
    });
  };
  // CSS.supports(property, value) or CSS.supports('(property: value)' with
  // `not`, `and`, `or`, `selector()`): what Stylo parses is supported.
  const declarationSupported = (property, value) => native.cssSupports(String(property), String(value).trim());
  const conditionSupported = (text) => {
    const t = text.trim();
    const or = splitTop(t, ' or ');
    if (or.length > 1) return or.some(conditionSupported);
    const and = splitTop(t, ' and ');
    if (and.length > 1) return and.every(conditionSupported);
    if (/^not\s/i.test(t)) return !conditionSupported(t.replace(/^not\s+/i, ''));
    const inner = /^\((.*)\)$/s.exec(t);
    if (!inner) return /^selector\((.*)\)$/s.test(t) ? (() => { try { document.querySelector(/^selector\((.*)\)$/s.exec(t)[1]); return true; } catch (_) { return false; } })() : false;
    const body = inner[1].trim();
    const colon = body.indexOf(':');
    if (colon > 0 && !body.startsWith('(')) return declarationSupported(body.slice(0, colon), body.slice(colon + 1));
    return conditionSupported(body);
  };
  // `text` split on `sep` outside parentheses.
  const splitTop = (text, sep) => {
    const out = [];
    let depth = 0;
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')') depth--;
      else if (depth === 0 && text.slice(i, i + sep.length).toLowerCase() === sep) { out.push(text.slice(from, i)); from = i + sep.length; i += sep.length - 1; }
    }
    out.push(text.slice(from));
    return out;
  };
  const cssSupports = (...args) => (args.length >= 2 ? declarationSupported(args[0], args[1]) : conditionSupported(String(args[0])));
  // `new Image(w, h)`, `new Option(text, value, defaultSelected, selected)`,
  // `new Audio(src)`: elements made by constructor.
  function Image(width, height) {
    const img = document.createElement('img');
    if (width !== undefined) img.setAttribute('width', String(width));
    if (height !== undefined) img.setAttribute('height', String(height));
    return img;
  }
  Image.prototype = HTMLImageElement.prototype;
  function Option(text = '', value, defaultSelected = false, selected = false) {
    const option = document.createElement('option');
    option.textContent = toText(text);
    if (value !== undefined) option.setAttribute('value', toText(value));
    if (defaultSelected) option.setAttribute('selected', '');
    if (selected) option.selected = true;
    return option;
  }
  Option.prototype = HTMLOptionElement.prototype;
  function Audio(src) {
    const audio = document.createElement('audio');
    if (src !== undefined) audio.setAttribute('src', toText(src));
    return audio;
  }
  Audio.prototype = HTMLAudioElement.prototype;
  class MediaQueryList extends EventTarget {
    constructor(media) { super(); hidden(this, '_media', String(media)); this.onchange = null; }
    get media() { return this._media; }
    get matches() { return mediaMatches(this._media); }
    addListener() {}
    removeListener() {}
  }
  // No text is ever selected in this engine's documents.
  class Selection {
    get rangeCount() { return 0; }
    get isCollapsed() { return true; }
    get type() { return 'None'; }
    get anchorNode() { return null; }
    get focusNode() { return null; }
    get anchorOffset() { return 0; }
    get focusOffset() { return 0; }
    toString() { return ''; }
    removeAllRanges() {}
    addRange() {}
    empty() {}
    collapse() {}
    selectAllChildren() {}
    extend() {}
    getRangeAt() { throw new DOMException("Failed to execute 'getRangeAt' on 'Selection': 0 is not a valid index.", 'IndexSizeError'); }
    containsNode() { return false; }
  }
  const selection = new Selection();
  // BroadcastChannel between the channels of one tab (the only context).
  const channels = new Map();
  class BroadcastChannel extends EventTarget {
    constructor(name) {
      super();
      hidden(this, '_name', toText(name));
      hidden(this, '_closed', false);
      if (!channels.has(this._name)) channels.set(this._name, new Set());
      channels.get(this._name).add(this);
    }
    get name() { return this._name; }
    postMessage(message) {
      if (this._closed) throw new DOMException("Failed to execute 'postMessage' on 'BroadcastChannel': Channel is closed", 'InvalidStateError');
      const data = g.structuredClone(message);
      for (const other of channels.get(this._name) || []) {
        if (other !== this) queueTask(() => { if (!other._closed) other.dispatchEvent(new MessageEvent('message', { data, origin: location.origin })); });
      }
    }
    close() { this._closed = true; const set = channels.get(this._name); if (set) set.delete(this); }
  }
  defineHandlers(BroadcastChannel.prototype);
  const visualViewport = new (class VisualViewport extends EventTarget {
    get width() { return viewport()[0]; }
    get height() { return viewport()[1]; }
    get scale() { return 1; }
    get offsetLeft() { return 0; }
    get offsetTop() { return 0; }
    get pageLeft() { return g.scrollX; }
    get pageTop() { return g.scrollY; }
  })();
  // The navigator's, the performance timeline's and the screen's interfaces.
  class Navigator {
    sendBeacon(url, data = null) { void url; void data; return true; }
    javaEnabled() { return false; }
  }
  class Performance extends EventTarget {
    now() { return elapsed(); }
    get timeOrigin() { return timeOrigin; }
    mark(name) { void name; }
    measure(name) { void name; }
    getEntriesByName(name) { void name; return []; }
    getEntriesByType(type) { void type; return []; }
    getEntries() { return []; }
    clearMarks() {}
    clearMeasures() {}
    toJSON() { return { timeOrigin }; }
  }
  class Screen extends EventTarget {
    get width() { return viewport()[0]; }
    get height() { return viewport()[1]; }
    get availWidth() { return viewport()[0]; }
    get availHeight() { return viewport()[1]; }
    get colorDepth() { return 24; }
    get pixelDepth() { return 24; }
  }
  const dialog = (kind, message, fallback) => native.dialog(kind, message === undefined ? '' : toText(message), toText(fallback));
  Object.assign(g, {
    window: g, self: g, top: g, parent: g, frames: g, opener: null, closed: false, name: '', frameElement: null,
    document, location, history, localStorage, sessionStorage,
    Node, Element, HTMLElement, CharacterData, Text, Comment, Document, HTMLDocument, DocumentFragment,
    EventTarget, Event, CustomEvent, UIEvent, FocusEvent, MouseEvent, PointerEvent, WheelEvent, KeyboardEvent,
    InputEvent, SubmitEvent, PopStateEvent, HashChangeEvent, ProgressEvent, ErrorEvent, PageTransitionEvent,
    DOMTokenList, URL, URLSearchParams, Location, History, MutationObserver, ...ELEMENT_CLASS_NAMES,
    customElements, CustomElementRegistry, NodeFilter, TreeWalker, NodeIterator, Range, ShadowRoot,
    StorageEvent, MessageEvent, CloseEvent, AnimationEvent, TransitionEvent, CompositionEvent, TouchEvent, DragEvent,
    ClipboardEvent, BeforeUnloadEvent, Storage, Image, Option, Audio, MediaQueryList, Selection, BroadcastChannel,
    visualViewport, Window, CSSStyleDeclaration, DOMStringMap, DocumentType,
    setTimeout: (handler, timeout = 0, ...args) => addTimer(handler, timeout, args, false),
    setInterval: (handler, timeout = 0, ...args) => addTimer(handler, timeout, args, true),
    clearTimeout: (id = undefined) => clearTimer(id), clearInterval: (id = undefined) => clearTimer(id),
    requestAnimationFrame,
    cancelAnimationFrame: (id) => { frameCallbacks.delete(id); },
    requestIdleCallback: (fn) => addTimer(() => fn({ didTimeout: false, timeRemaining: () => 50 }), 1, [], false),
    cancelIdleCallback: (id) => clearTimer(id),
    devicePixelRatio: 1,
    scrollTo(...args) { const [x, y] = scrollArgs(args, native.scrollPosition()); scrollViewportTo(x, y); },
    scroll(...args) { g.scrollTo(...args); },
    scrollBy(...args) {
      const [x, y] = native.scrollPosition();
      const [dx, dy] = scrollArgs(args, [0, 0]);
      scrollViewportTo(x + dx, y + dy);
    },
    focus() {}, blur() {}, print() {}, stop() {}, moveTo() {}, resizeTo() {},
    // Dialogs are answered by the session's dialog policy and recorded for
    // the agent (tab.rs).
    alert(message) { dialog('alert', message, ''); },
    confirm(message) { return dialog('confirm', message, '').accepted; },
    prompt(message, fallback = '') { const r = dialog('prompt', message, fallback); return r.accepted ? r.answer ?? '' : null; },
    // One tab per session: a new window's URL loads in this tab, and no
    // window object is returned.
    open(url) {
      if (url !== undefined && url !== null && toText(url) !== '') navigateTo(url, false);
      native.console('info', `window.open(${toText(url)}): loaded in the same tab`);
      return null;
    },
    close() {},
    postMessage(message) {
      const data = g.structuredClone(message);
      queueTask(() => g.dispatchEvent(Object.assign(new Event('message'), { data, origin: location.origin, source: g })));
    },
    getComputedStyle: (el) => {
      if (!(el instanceof Element)) throw new TypeError("Failed to execute 'getComputedStyle': parameter 1 is not of type 'Element'");
      return computedStyle(el);
    },
    getSelection: () => selection,
    matchMedia: (media) => new MediaQueryList(media),
    CSS: { escape: cssEscape, supports: cssSupports },
    navigator: Object.assign(Object.create(Navigator.prototype), {
      // Chromium's form, as Servo takes Firefox's: pages sniff it (MathJax 2
      // disables itself for a browser it cannot name) and the engine is
      // compared with Chromium; the last token says what it is.
      userAgent: `Mozilla/${APP_VERSION} servo-fleet/0.1`,
      appName: 'Netscape', appVersion: APP_VERSION, product: 'Gecko', vendor: '',
      platform: 'Linux x86_64', language: 'en-US', languages: ['en-US', 'en'],
      cookieEnabled: true, onLine: true, webdriver: true, hardwareConcurrency: 1, maxTouchPoints: 0,
      doNotTrack: null, pdfViewerEnabled: false, plugins: [], mimeTypes: [],
    }),
    performance: new Performance(),
    Navigator, Performance, Screen,
    ResizeObserver: class { observe() {} unobserve() {} disconnect() {} },
    IntersectionObserver: class {
      constructor(callback) { hidden(this, '_callback', callback); }
      // Everything observed is reported visible once, so lazy content loads.
      observe(el) { queueTask(() => { try { this._callback([{ target: el, isIntersecting: true, intersectionRatio: 1, boundingClientRect: el.getBoundingClientRect(), time: 0 }], this); } catch (e) { reportError(e); } }); }
      unobserve() {} disconnect() {} takeRecords() { return []; }
    },
  });
  defineHandlers(g);
  Object.defineProperty(g, 'origin', { get: () => location.origin, configurable: true });
  Object.defineProperty(g, 'isSecureContext', { get: () => location.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(location.hostname), configurable: true });
  // Named access on the window, as browsers give it: an element's id is a
  // global of that name when no real global has it. The lookup sits in the
  // window's prototype chain, behind every own property, so `q` finds
  // <input id=q> but never hides a variable or a built-in. (Browsers also
  // name forms, images and frames by their `name`; that lookup would walk the
  // tree on every miss, such as each `typeof undefinedThing`, so it is left
  // out: ids are a hash lookup.)
  const namedElement = (key) => {
    if (typeof key !== 'string' || key === '') return undefined;
    const index = arrayIndex(key);
    if (index >= 0) { const frame = frameElements()[index]; return frame ? frameWindow(frame) || undefined : undefined; }
    return document.getElementById(key) || undefined;
  };
  Object.defineProperty(Window.prototype, Symbol.toStringTag, { value: 'Window', configurable: true });
  Object.setPrototypeOf(g, new Proxy(Object.create(Window.prototype), {
    has: (target, key) => Reflect.has(target, key) || namedElement(key) !== undefined,
    get: (target, key, receiver) => (Reflect.has(target, key) ? Reflect.get(target, key, receiver) : namedElement(key)),
  }));
  for (const [name, axis] of [['scrollX', 0], ['scrollY', 1], ['pageXOffset', 0], ['pageYOffset', 1]]) {
    Object.defineProperty(g, name, { get: () => native.scrollPosition()[axis], configurable: true });
  }
  Object.defineProperty(g, 'length', { get: () => frameElements().length, set(v) { Object.defineProperty(g, 'length', { value: v, writable: true, enumerable: true, configurable: true }); }, enumerable: true, configurable: true });
  Object.defineProperty(g, 'innerWidth', { get: () => viewport()[0], configurable: true });
  Object.defineProperty(g, 'innerHeight', { get: () => viewport()[1], configurable: true });
  Object.defineProperty(g, 'outerWidth', { get: () => viewport()[0], configurable: true });
  Object.defineProperty(g, 'outerHeight', { get: () => viewport()[1], configurable: true });
  g.screen = new Screen();
  if (typeof g.queueMicrotask !== 'function') g.queueMicrotask = (fn) => { Promise.resolve().then(fn); };


