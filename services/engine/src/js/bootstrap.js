// The DOM prelude, evaluated once per realm (see js/mod.rs). It receives the
// object of native functions (js/natives.rs), builds the Web API surface on
// them, and returns the hooks the engine calls (load events, timers, tasks) and
// the internals that indexeddb.js builds on. Nodes are thin wrappers around
// Blitz node ids; the document itself lives in Rust.
(function (native) {
  'use strict';
  const g = globalThis;
  // The globals the JavaScript engine itself defines, before any prelude
  // adds the platform's (webidl.js shapes only the latter).
  const builtinGlobals = new Set(Object.getOwnPropertyNames(g));
  const ID = Symbol('node id');
  const wrappers = new Map();
  // Elements that stand in for DocumentFragments (Blitz has no fragment node).
  const fragmentIds = new Set();
  const listeners = new WeakMap();
  // A realm made after the document loaded (a page without scripts that an
  // agent then acts on) sees it complete; `startLoad` says otherwise.
  let readyState = 'complete';

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
  // An uncaught exception: an `error` event on the window (which a listener
  // may cancel), then the console, as browsers report it.
  let reportingError = false;
  const reportError = (e, filename = '') => {
    if (!reportingError && typeof g.dispatchEvent === 'function' && typeof ErrorEvent === 'function') {
      reportingError = true;
      let cancelled = false;
      try {
        const event = new ErrorEvent('error', { cancelable: true, message: e && e.message !== undefined ? `Uncaught ${format(e)}` : `Uncaught ${format(e)}`, error: e, filename: toText(filename) });
        cancelled = !g.dispatchEvent(event);
      } catch (_) { /* a broken listener must not hide the error */ }
      reportingError = false;
      if (cancelled) return;
    }
    native.console('error', `Uncaught ${format(e)}`);
  };
  g.reportError = (e) => reportError(e);

  // ---- events --------------------------------------------------------------
  // An event's state lives in a slot of its own (a symbol, which neither
  // `Object.keys` nor `for…in` sees), read by accessors on the prototypes as
  // browsers define them; only `isTrusted` is the event's own property. The
  // dispatch code writes the slot (`event[EV].target = …`).
  const EV = Symbol('event state');
  const isTrusted = Object.getOwnPropertyDescriptor({ get isTrusted() { return this[EV].trusted; } }, 'isTrusted').get;
  class Event {
    constructor(type, init = undefined) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'Event': 1 argument required, but only 0 present.");
      init = init || {};
      Object.defineProperty(this, EV, { value: {
        type: String(type), bubbles: !!init.bubbles, cancelable: !!init.cancelable, composed: !!init.composed,
        defaultPrevented: false, target: null, currentTarget: null, eventPhase: 0, trusted: false,
        timeStamp: g.performance ? g.performance.now() : 0,
      } });
      Object.defineProperty(this, 'isTrusted', { get: isTrusted, enumerable: true });
      hidden(this, '_stop', false);
      hidden(this, '_stopNow', false);
      hidden(this, '_passive', false);
      hidden(this, '_path', []);
      hidden(this, '_dispatching', false);
      // Set when a listener threw: IndexedDB aborts the transaction then.
      hidden(this, '_threw', false);
    }
    get type() { return this[EV].type; }
    get target() { return this[EV].target; }
    get currentTarget() { return this[EV].currentTarget; }
    get eventPhase() { return this[EV].eventPhase; }
    get bubbles() { return this[EV].bubbles; }
    get cancelable() { return this[EV].cancelable; }
    get defaultPrevented() { return this[EV].defaultPrevented; }
    get composed() { return this[EV].composed; }
    get timeStamp() { return this[EV].timeStamp; }
    get srcElement() { return this.target; }
    get returnValue() { return !this.defaultPrevented; }
    set returnValue(v) { if (!v) this.preventDefault(); }
    get cancelBubble() { return this._stop; }
    set cancelBubble(v) { if (v) this._stop = true; }
    preventDefault() { if (this.cancelable && !this._passive) this[EV].defaultPrevented = true; }
    stopPropagation() { this._stop = true; }
    stopImmediatePropagation() { this._stop = true; this._stopNow = true; }
    composedPath() { return this._dispatching ? this._path.slice() : []; }
    initEvent(type, bubbles = false, cancelable = false) {
      if (this._dispatching) return;
      Object.assign(this[EV], { type: String(type), bubbles: !!bubbles, cancelable: !!cancelable });
    }
  }
  Object.assign(Event, { NONE: 0, CAPTURING_PHASE: 1, AT_TARGET: 2, BUBBLING_PHASE: 3 });
  const trust = (event) => { event[EV].trusted = true; return event; };
  // An event interface named `name` whose init dictionary adds `fields`
  // (defaults, or functions of the init dictionary): each is a read-only
  // accessor on its prototype, as in browsers.
  const eventClass = (name, Base, fields) => {
    const entries = Object.entries(fields);
    const Cls = { [name]: class extends Base {
      constructor(type, init = undefined) {
        super(type, init);
        init = init || {};
        const state = this[EV];
        for (const [k, d] of entries) state[k] = init[k] === undefined ? (typeof d === 'function' ? d(init) : d) : init[k];
      }
    } }[name];
    for (const [k] of entries) {
      if (!(k in Base.prototype)) Object.defineProperty(Cls.prototype, k, { get: Object.getOwnPropertyDescriptor({ get [k]() { return this[EV][k]; } }, k).get, configurable: true });
    }
    return Cls;
  };
  const CustomEvent = eventClass('CustomEvent', Event, { detail: null });
  CustomEvent.prototype.initCustomEvent = { initCustomEvent(type, bubbles = false, cancelable = false, detail = null) { this.initEvent(type, bubbles, cancelable); this[EV].detail = detail; } }.initCustomEvent;
  const UIEvent = eventClass('UIEvent', Event, { view: null, detail: 0 });
  const FocusEvent = eventClass('FocusEvent', UIEvent, { relatedTarget: null });
  const modifiers = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };
  const MouseEvent = eventClass('MouseEvent', UIEvent, {
    screenX: 0, screenY: 0, clientX: 0, clientY: 0, button: 0, buttons: 0, relatedTarget: null, ...modifiers,
  });
  Object.defineProperties(MouseEvent.prototype, {
    x: { get() { return this.clientX; }, configurable: true },
    y: { get() { return this.clientY; }, configurable: true },
    pageX: { get() { return this.clientX + g.scrollX; }, configurable: true },
    pageY: { get() { return this.clientY + g.scrollY; }, configurable: true },
    offsetX: { get() { return this.target && this.target.getBoundingClientRect ? this.clientX - this.target.getBoundingClientRect().left : this.clientX; }, configurable: true },
    offsetY: { get() { return this.target && this.target.getBoundingClientRect ? this.clientY - this.target.getBoundingClientRect().top : this.clientY; }, configurable: true },
    which: { get() { return this.button + 1; }, configurable: true },
  });
  MouseEvent.prototype.getModifierState = { getModifierState(key) { return !!({ Control: this.ctrlKey, Shift: this.shiftKey, Alt: this.altKey, Meta: this.metaKey })[key]; } }.getModifierState;
  const PointerEvent = eventClass('PointerEvent', MouseEvent, { pointerId: 1, pointerType: 'mouse', isPrimary: true, width: 1, height: 1, pressure: 0 });
  const WheelEvent = eventClass('WheelEvent', MouseEvent, { deltaX: 0, deltaY: 0, deltaZ: 0, deltaMode: 0 });
  const KeyboardEvent = eventClass('KeyboardEvent', UIEvent, {
    key: '', code: '', location: 0, repeat: false, isComposing: false, keyCode: 0, charCode: 0, which: (i) => i.keyCode || 0, ...modifiers,
  });
  KeyboardEvent.prototype.getModifierState = MouseEvent.prototype.getModifierState;
  Object.assign(KeyboardEvent, { DOM_KEY_LOCATION_STANDARD: 0, DOM_KEY_LOCATION_LEFT: 1, DOM_KEY_LOCATION_RIGHT: 2, DOM_KEY_LOCATION_NUMPAD: 3 });
  const InputEvent = eventClass('InputEvent', UIEvent, { data: null, inputType: '', isComposing: false, dataTransfer: null });
  InputEvent.prototype.getTargetRanges = function () { return []; };
  const SubmitEvent = eventClass('SubmitEvent', Event, { submitter: null });
  const PopStateEvent = eventClass('PopStateEvent', Event, { state: null });
  const HashChangeEvent = eventClass('HashChangeEvent', Event, { oldURL: '', newURL: '' });
  const ProgressEvent = eventClass('ProgressEvent', Event, { lengthComputable: false, loaded: 0, total: 0 });
  const ErrorEvent = eventClass('ErrorEvent', Event, { message: '', filename: '', lineno: 0, colno: 0, error: null });
  const PageTransitionEvent = eventClass('PageTransitionEvent', Event, { persisted: false });
  const StorageEvent = eventClass('StorageEvent', Event, { key: null, oldValue: null, newValue: null, url: '', storageArea: null });
  const MessageEvent = eventClass('MessageEvent', Event, { data: null, origin: '', lastEventId: '', source: null, ports: () => [] });
  const CloseEvent = eventClass('CloseEvent', Event, { wasClean: false, code: 0, reason: '' });
  const AnimationEvent = eventClass('AnimationEvent', Event, { animationName: '', elapsedTime: 0, pseudoElement: '' });
  const TransitionEvent = eventClass('TransitionEvent', Event, { propertyName: '', elapsedTime: 0, pseudoElement: '' });
  const CompositionEvent = eventClass('CompositionEvent', UIEvent, { data: '' });
  const TouchEvent = eventClass('TouchEvent', UIEvent, { touches: () => [], targetTouches: () => [], changedTouches: () => [], ...modifiers });
  const DragEvent = eventClass('DragEvent', MouseEvent, { dataTransfer: null });
  const ClipboardEvent = eventClass('ClipboardEvent', Event, { clipboardData: null });
  const BeforeUnloadEvent = eventClass('BeforeUnloadEvent', Event, {});

  // Listeners per target and type: {fn, capture, once, passive, handler?}.
  // An `on*` handler takes the place of its first assignment among them.
  const listenerList = (target, type, create) => {
    let map = listeners.get(target);
    if (!map) { if (!create) return null; map = new Map(); listeners.set(target, map); }
    let list = map.get(type);
    if (!list && create) { list = []; map.set(type, list); }
    return list || null;
  };
  const captureOf = (options) => (typeof options === 'boolean' ? options : !!(options && options.capture));
  const addEventListener = function (type, fn, options) {
    if (typeof fn !== 'function' && !(fn && typeof fn.handleEvent === 'function')) return;
    const capture = captureOf(options);
    const list = listenerList(this, String(type), true);
    if (list.some((l) => l.fn === fn && l.capture === capture)) return;
    const entry = { fn, capture, once: !!(options && options.once), passive: !!(options && options.passive), removed: false };
    list.push(entry);
    if (type === 'animationstart' && this instanceof Element) watchAnimation(this);
    const signal = options && options.signal;
    if (signal && typeof signal.addEventListener === 'function') {
      if (signal.aborted) { list.pop(); return; }
      signal.addEventListener('abort', () => removeEventListener.call(this, type, fn, options));
    }
  };
  const removeEventListener = function (type, fn, options) {
    const list = listenerList(this, String(type), false);
    if (!list) return;
    const capture = captureOf(options);
    const i = list.findIndex((l) => l.fn === fn && l.capture === capture);
    if (i >= 0) { list[i].removed = true; list.splice(i, 1); }
  };
  // `on*` handlers: a property assignment or a content attribute.
  const handlers = new WeakMap();
  const compiled = new WeakMap();
  const attributeHandler = (target, type) => {
    if (!(target instanceof Element)) {
      // <body onload> and friends are the window's handlers.
      if (target !== g || !BODY_WINDOW_EVENTS.includes(type)) return null;
      target = document.body;
      if (!target) return null;
    }
    const code = target.getAttribute('on' + type);
    if (code === null) return null;
    let cache = compiled.get(target);
    if (!cache) { cache = new Map(); compiled.set(target, cache); }
    const hit = cache.get(type);
    if (hit && hit.code === code) return hit.fn;
    let fn = null;
    try {
      // Sloppy code, with the element (and its form) in scope, as browsers do.
      fn = new Function('event', `with (this.ownerDocument || {}) { with (this.form || {}) { with (this) {\n${code}\n} } }`);
    } catch (e) { reportError(e); }
    cache.set(type, { code, fn });
    return fn;
  };
  const BODY_WINDOW_EVENTS = ['load', 'unload', 'beforeunload', 'hashchange', 'popstate', 'message', 'resize', 'pageshow', 'pagehide', 'storage', 'online', 'offline'];
  const handlerOf = (target, type) => {
    const own = handlers.get(target);
    if (own && own.has(type)) return own.get(type);
    return attributeHandler(target, type);
  };
  const invoke = (target, event, phase) => {
    event[EV].currentTarget = target;
    let list = listenerList(target, event.type, false);
    // A handler from a content attribute counts as registered first.
    if (handlerOf(target, event.type) && !(list && list.some((l) => l.handler))) {
      list = listenerList(target, event.type, true);
      list.unshift({ handler: true, capture: false, once: false, passive: false, removed: false });
    }
    if (list) invokeList(target, event, phase, list);
    // Objects outside the DOM (IndexedDB requests) keep `on*` as plain
    // properties: they run after the listeners.
    if (!(target instanceof Node) && target !== g && !event._stopNow && phase !== 'capture') {
      const own = Object.getOwnPropertyDescriptor(target, 'on' + event.type);
      const fn = own && own.value;
      if (typeof fn === 'function') {
        try { if (fn.call(target, event) === false) event.preventDefault(); } catch (e) { event._threw = true; reportError(e); }
      }
    }
  };
  const invokeList = (target, event, phase, list) => {
    for (const l of list.slice()) {
      if (l.removed) continue;
      if (phase === 'capture' && !l.capture) continue;
      if (phase === 'bubble' && l.capture) continue;
      if (l.handler) {
        const fn = handlerOf(target, event.type);
        if (typeof fn !== 'function') continue;
        try {
          const result = fn.call(target, event);
          if (result === false && event.type !== 'mouseover') event.preventDefault();
        } catch (e) { event._threw = true; reportError(e); }
      } else {
        if (l.once) removeEventListener.call(target, event.type, l.fn, { capture: l.capture });
        event._passive = l.passive;
        try {
          if (typeof l.fn === 'function') l.fn.call(target, event); else l.fn.handleEvent(event);
        } catch (e) { event._threw = true; reportError(e); }
        event._passive = false;
      }
      if (event._stopNow) return;
    }
  };
  // Activation behaviour (links, checkboxes, submit buttons...), set by input.js.
  let activation = null;
  const dispatchEvent = function (event) {
    if (!(event instanceof Event)) throw new TypeError("Failed to execute 'dispatchEvent': parameter 1 is not of type 'Event'");
    if (event._dispatching) throw new DOMException('The event is already being dispatched.', 'InvalidStateError');
    event._dispatching = true;
    event[EV].target = this;
    // The propagation path: the target, its ancestors, the document and the window.
    const path = [this];
    if (this instanceof Node) {
      for (let p = this.parentNode; p; p = p.parentNode) path.push(p);
      if (path[path.length - 1] === document && event.type !== 'load') path.push(g);
    }
    event._path = path;
    const activate = activation && event.type === 'click' && event instanceof MouseEvent ? activation(this, event) : null;
    for (let i = path.length - 1; i >= 1 && !event._stop; i--) { event[EV].eventPhase = 1; invoke(path[i], event, 'capture'); }
    // At the target, capturing listeners run before the others (as Chromium does).
    if (!event._stop) { event[EV].eventPhase = 2; invoke(this, event, 'capture'); }
    if (!event._stop) { event[EV].eventPhase = 2; invoke(this, event, 'bubble'); }
    if (event.bubbles) for (let i = 1; i < path.length && !event._stop; i++) { event[EV].eventPhase = 3; invoke(path[i], event, 'bubble'); }
    event[EV].eventPhase = 0;
    event[EV].currentTarget = null;
    event._dispatching = false;
    if (activate) activate(event.defaultPrevented);
    return !event.defaultPrevented;
  };
  // Page scripts call these bare (`addEventListener('load', f)`), which
  // passes no `this` from sloppy code into this strict prelude: that is the
  // window.
  class EventTarget {
    addEventListener(type, listener, options = undefined) { return addEventListener.call(this ?? g, type, listener, options); }
    removeEventListener(type, listener, options = undefined) { return removeEventListener.call(this ?? g, type, listener, options); }
    dispatchEvent(event) { return dispatchEvent.call(this ?? g, event); }
  }
  // `on*` properties for the events pages use them for.
  const HANDLER_EVENTS = [
    'abort', 'blur', 'change', 'click', 'close', 'contextmenu', 'dblclick', 'error', 'focus', 'focusin', 'focusout',
    'input', 'invalid', 'keydown', 'keypress', 'keyup', 'load', 'mousedown', 'mouseenter', 'mouseleave', 'mousemove',
    'mouseout', 'mouseover', 'mouseup', 'pointerdown', 'pointerup', 'reset', 'resize', 'scroll', 'select', 'submit',
    'toggle', 'wheel', 'beforeinput', 'readystatechange', 'DOMContentLoaded', 'hashchange', 'popstate', 'unload',
    'beforeunload', 'message', 'storage', 'pageshow', 'pagehide', 'success', 'upgradeneeded', 'complete', 'blocked',
    'versionchange', 'timeout', 'loadend', 'loadstart', 'progress',
  ];
  const defineHandlers = (proto) => {
    for (const type of HANDLER_EVENTS) {
      if (type === 'DOMContentLoaded') continue;
      Object.defineProperty(proto, 'on' + type, {
        get() { const fn = handlerOf(this, type); return typeof fn === 'function' ? fn : null; },
        set(fn) {
          let own = handlers.get(this);
          if (!own) { own = new Map(); handlers.set(this, own); }
          own.set(type, typeof fn === 'function' ? fn : null);
          const list = listenerList(this, type, true);
          if (!list.some((l) => l.handler)) list.push({ handler: true, capture: false, once: false, passive: false, removed: false });
        },
        configurable: true,
        enumerable: true,
      });
    }
  };

  // ---- nodes ---------------------------------------------------------------
  const wrap = (id) => {
    if (id === null || id === undefined) return null;
    let node = wrappers.get(id);
    if (node) return node;
    // One native call says what to make: a node type, or an element's
    // local name (after "svg ", "math " or "xml " outside HTML).
    const info = native.wrapInfo(id);
    if (typeof info === 'string') {
      if (fragmentIds.has(id)) { node = make(DocumentFragment, id); }
      else {
        const space = info.indexOf(' ');
        const tag = (space < 0 ? info : info.slice(space + 1)).toLowerCase();
        const def = customDefinitions.get(tag);
        if (def) return upgrade(id, def);
        const ns = space < 0 ? '' : info.slice(0, space);
        const Cls = ns === 'svg' ? (tag === 'svg' ? SVGSVGElement : SVGElement)
          : ns === 'math' ? MathMLElement
          : ns === 'xml' ? Element
          : ELEMENT_CLASSES[tag] || (tag.includes('-') ? HTMLElement : HTMLUnknownElement);
        node = make(Cls, id);
        // A form's controls are its named properties, and shadow its own
        // (`form.action` is a control named "action" if there is one).
        if (Cls === HTMLFormElement) node = formProxy(node);
      }
    } else {
      switch (info) {
        case 3: node = make(Text, id); break;
        case 8: node = make(Comment, id); break;
        case 9: node = make(HTMLDocument, id); break;
        default: return null;
      }
    }
    wrappers.set(id, node);
    unretained.push(id);
    return node;
  };
  // Nodes wrapped since Rust last heard of them: a replacement of children
  // (textContent, innerHTML) must keep them alive, so Rust is told first.
  let unretained = [];
  const retainWrapped = () => { if (unretained.length) { native.retain(unretained); unretained = []; } };
  const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const MATHML_NS = 'http://www.w3.org/1998/Math/MathML';
  // The wrapper of an existing node: the constructors below take no id (a
  // page calls `new Text('x')`), so the id to wrap is handed over here.
  let creating;
  const make = (Cls, id) => { creating = id; try { return new Cls(); } finally { creating = undefined; } };
  const idOf = (node) => {
    if (!(node instanceof Node)) throw new TypeError('parameter is not of type Node');
    return node[ID];
  };
  // Collections are arrays (so every array method works on them) whose
  // prototype is NodeList's or HTMLCollection's, for `instanceof`.
  class NodeList extends Array {
    item(i) { return this[i] || null; }
    static get [Symbol.species]() { return Array; }
  }
  // As in browsers, a NodeList's iteration methods are the array ones.
  for (const name of ['forEach', 'entries', 'keys', 'values']) hidden(NodeList.prototype, name, Array.prototype[name]);
  class HTMLCollection extends Array {
    item(i) { return this[i] || null; }
    namedItem(name) { return this.find((el) => el.id === name || el.getAttribute('name') === name) || null; }
    static get [Symbol.species]() { return Array; }
  }
  const nodeList = (ids, proto = NodeList.prototype) => {
    const list = ids.map(wrap).filter((n) => n !== null);
    Object.setPrototypeOf(list, proto);
    return list;
  };
  const toText = (v) => (v === null || v === undefined ? '' : String(v));

  class Node extends EventTarget {
    constructor(data) {
      super();
      let id = creating;
      creating = undefined;
      if (id === undefined) {
        // A page's `new`: a custom element's constructor chain (an upgrade
        // makes `super()` return the element being upgraded; `new
        // MyElement()` makes an element of the class's name), or the nodes
        // that have constructors: Text, Comment, DocumentFragment.
        if (upgrading) { const el = upgrading; upgrading = null; return el; }
        const is = (Cls) => new.target === Cls || new.target.prototype instanceof Cls;
        if (is(Text)) id = native.createTextNode(toText(data));
        else if (is(Comment)) id = commentId(toText(data));
        else if (is(DocumentFragment)) { id = native.createElement('fleet-fragment'); fragmentIds.add(id); }
        else {
          const def = definitionOf(new.target);
          if (!def) throw new TypeError('Illegal constructor');
          id = native.createElement(def.name);
          upgraded.add(this);
        }
        wrappers.set(id, this);
        unretained.push(id);
      }
      Object.defineProperty(this, ID, { value: id });
    }
    get nodeType() { return native.nodeType(this[ID]); }
    get nodeName() { return native.nodeName(this[ID]); }
    get ownerDocument() { return this === document ? null : document; }
    get isConnected() { return native.isConnected(this[ID]); }
    get parentNode() { return wrap(native.parent(this[ID])); }
    get parentElement() { const p = this.parentNode; return p && p.nodeType === 1 ? p : null; }
    get childNodes() {
      let list = childLists.get(this);
      if (!list) { const id = this[ID]; list = liveCollection(() => native.childNodes(id), NodeList.prototype); childLists.set(this, list); }
      return list;
    }
    get firstChild() { return wrap(native.firstChild(this[ID])); }
    get lastChild() { return wrap(native.lastChild(this[ID])); }
    get nextSibling() { return wrap(native.nextSibling(this[ID])); }
    get previousSibling() { return wrap(native.previousSibling(this[ID])); }
    get textContent() { return this === document ? null : native.textContent(this[ID]); }
    set textContent(v) {
      if (this === document) return;
      const removed = mutationObservers.length && this.nodeType === 1 ? kids(this) : null;
      retainWrapped();
      native.setTextContent(this[ID], toText(v));
      if (mutationObservers.length) {
        if (this.nodeType === 1) queueMutation(this, { type: 'childList', removedNodes: removed, addedNodes: kids(this) });
        else queueMutation(this, { type: 'characterData' });
      }
      if (this.localName === 'script' && this.isConnected) runInsertedScript(this);
    }
    get nodeValue() { return this.nodeType === 3 || this.nodeType === 8 ? this.textContent : null; }
    set nodeValue(v) { if (this.nodeType === 3 || this.nodeType === 8) this.textContent = v; }
    hasChildNodes() { return native.childNodes(this[ID]).length > 0; }
    contains(other) { return other === null || other === undefined ? false : native.contains(this[ID], idOf(other)); }
    appendChild(child) { return this.insertBefore(child, null); }
    insertBefore(child, ref) {
      const refId = ref == null ? null : idOf(ref);
      const moved = child instanceof DocumentFragment ? kids(child) : [child];
      for (const node of moved) {
        const from = node.parentNode;
        if (from && mutationObservers.length) queueMutation(from, { type: 'childList', removedNodes: [node] });
        native.insertBefore(this[ID], idOf(node), refId);
      }
      if (mutationObservers.length && moved.length) queueMutation(this, { type: 'childList', addedNodes: moved.slice(), nextSibling: ref == null ? null : ref });
      // Scripts inserted into the document run now (inline) or once fetched;
      // custom elements in it are upgraded or told they are connected.
      // Text put into a connected script that had none starts it.
      if (this.localName === 'script' && this.isConnected) runInsertedScript(this);
      for (const node of moved) {
        if (node.nodeType !== 1 || !node.isConnected) continue;
        if (node.localName === 'script') runInsertedScript(node);
        else if (native.querySelector(node[ID], 'script') !== null) node.querySelectorAll('script').forEach(runInsertedScript);
        connected(node);
      }
      return child;
    }
    removeChild(child) {
      const wasConnected = customDefinitions.size > 0 && child.isConnected;
      native.removeChild(this[ID], idOf(child));
      if (mutationObservers.length) queueMutation(this, { type: 'childList', removedNodes: [child] });
      if (wasConnected) disconnected(child);
      return child;
    }
    replaceChild(child, old) { this.insertBefore(child, old); this.removeChild(old); return old; }
    cloneNode(deep = false) {
      if (this instanceof DocumentFragment) {
        const copy = document.createDocumentFragment();
        if (deep) for (const c of kids(this)) copy.appendChild(c.cloneNode(true));
        return copy;
      }
      if (this === document) throw new DOMException('Cloning the document is not supported', 'NotSupportedError');
      return wrap(native.cloneNode(this[ID], !!deep));
    }
    isEqualNode(other) { return other instanceof Node && other.nodeType === this.nodeType && (this.nodeType === 1 ? other.outerHTML === this.outerHTML : other.textContent === this.textContent); }
    compareDocumentPosition(other) { return native.compareDocumentPosition(this[ID], idOf(other)); }
    get baseURI() { return native.baseUrl(); }
    normalize() {}
    isSameNode(other) { return this === other; }
    lookupNamespaceURI(prefix) { return prefix === null || prefix === undefined || prefix === '' ? (this.nodeType === 1 ? this.namespaceURI : null) : null; }
    getRootNode() { let n = this; while (n.parentNode) n = n.parentNode; return n; }
  }
  Object.assign(Node, {
    ELEMENT_NODE: 1, ATTRIBUTE_NODE: 2, TEXT_NODE: 3, CDATA_SECTION_NODE: 4, ENTITY_REFERENCE_NODE: 5, ENTITY_NODE: 6,
    PROCESSING_INSTRUCTION_NODE: 7, COMMENT_NODE: 8, DOCUMENT_NODE: 9, DOCUMENT_TYPE_NODE: 10, DOCUMENT_FRAGMENT_NODE: 11,
    NOTATION_NODE: 12, DOCUMENT_POSITION_DISCONNECTED: 1, DOCUMENT_POSITION_PRECEDING: 2, DOCUMENT_POSITION_FOLLOWING: 4,
    DOCUMENT_POSITION_CONTAINS: 8, DOCUMENT_POSITION_CONTAINED_BY: 16, DOCUMENT_POSITION_IMPLEMENTATION_SPECIFIC: 32,
  });
  // Void elements (no end tag), for document.write's balance check.
  const VOID = 'area|base|br|col|embed|hr|img|input|link|meta|source|track|wbr';
  const toNode = (n) => (n instanceof Node ? n : document.createTextNode(toText(n)));
  const childNodeMixin = {
    remove() { const p = this.parentNode; if (p) p.removeChild(this); },
    get previousElementSibling() { for (let n = this.previousSibling; n; n = n.previousSibling) if (n.nodeType === 1) return n; return null; },
    get nextElementSibling() { for (let n = this.nextSibling; n; n = n.nextSibling) if (n.nodeType === 1) return n; return null; },
    before(...nodes) { const p = this.parentNode; if (p) for (const n of nodes) p.insertBefore(toNode(n), this); },
    after(...nodes) { const p = this.parentNode; if (!p) return; const next = this.nextSibling; for (const n of nodes) p.insertBefore(toNode(n), next); },
    replaceWith(...nodes) { const p = this.parentNode; if (!p) return; this.before(...nodes); this.remove(); },
  };
  const parentNodeMixin = {
    get children() {
      let list = childrenLists.get(this);
      if (!list) { const id = this[ID]; list = liveCollection(() => native.children(id)); childrenLists.set(this, list); }
      return list;
    },
    get childElementCount() { return native.children(this[ID]).length; },
    get firstElementChild() { const c = native.children(this[ID]); return c.length ? wrap(c[0]) : null; },
    get lastElementChild() { const c = native.children(this[ID]); return c.length ? wrap(c[c.length - 1]) : null; },
    querySelector(selector) { return wrap(native.querySelector(this[ID], String(selector))); },
    querySelectorAll(selector) { return nodeList(native.querySelectorAll(this[ID], String(selector))); },
    getElementsByTagName(tag) {
      const selector = String(tag) === '*' ? '*' : cssEscape(String(tag));
      return liveCollection(() => native.querySelectorAll(this[ID], selector));
    },
    getElementsByClassName(names) {
      const classes = String(names).trim().split(/\s+/).filter(Boolean);
      const selector = classes.map((c) => '.' + cssEscape(c)).join('');
      return liveCollection(() => (classes.length ? native.querySelectorAll(this[ID], selector) : []));
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
    appendData(data) { this.data += toText(data); }
    substringData(offset, count) { return this.data.substr(offset >>> 0, count >>> 0); }
    insertData(offset, data) { this.replaceData(offset, 0, data); }
    deleteData(offset, count) { this.replaceData(offset, count, ''); }
    replaceData(offset, count, data) {
      const text = this.data;
      const at = offset >>> 0;
      if (at > text.length) throw new DOMException(`The offset ${at} is greater than the node's length (${text.length}).`, 'IndexSizeError');
      this.data = text.slice(0, at) + toText(data) + text.slice(at + (count >>> 0));
    }
  }
  class Text extends CharacterData {
    get wholeText() { return this.textContent; }
    splitText(offset) {
      const text = this.data;
      const rest = document.createTextNode(text.slice(offset));
      this.data = text.slice(0, offset);
      if (this.parentNode) this.parentNode.insertBefore(rest, this.nextSibling);
      return rest;
    }
  }
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
    set value(v) { this._el.setAttribute(this._attr, toText(v)); }
    supports(token) { throw new TypeError(`DOMTokenList has no supported tokens (${toText(token)}).`); }
    item(i) { return this._get()[i] || null; }
    contains(t) { return this._get().includes(String(t)); }
    add(...tokens) { const l = this._get(); for (const t of tokens) if (!l.includes(String(t))) l.push(String(t)); this._set(l); }
    remove(...tokens) { this._set(this._get().filter((t) => !tokens.map(String).includes(t))); }
    toggle(t, force = undefined) {
      const has = this.contains(t);
      const want = force === undefined ? !has : !!force;
      if (want && !has) this.add(t); else if (!want && has) this.remove(t);
      return want;
    }
    replace(a, b) { const l = this._get(); const i = l.indexOf(String(a)); if (i < 0) return false; l[i] = String(b); this._set(l); return true; }
    forEach(fn, thisArg = undefined) { this._get().forEach(fn, thisArg); }
    [Symbol.iterator]() { return this._get()[Symbol.iterator](); }
    toString() { return this.value; }
  }

  // The translation of a computed `transform` (other transforms: none).
  const translation = (transform) => {
    const t = toText(transform).trim();
    if (t === '' || t === 'none') return [0, 0];
    let dx = 0; let dy = 0;
    for (const [, fn, args] of t.matchAll(/([a-zA-Z0-9]+)\(([^)]*)\)/g)) {
      const n = args.split(',').map((a) => parseFloat(a) || 0);
      switch (fn) {
        case 'translate': case 'translate3d': dx += n[0] || 0; dy += n[1] || 0; break;
        case 'translateX': dx += n[0] || 0; break;
        case 'translateY': dy += n[0] || 0; break;
        case 'matrix': if (n.length === 6) { dx += n[4]; dy += n[5]; } break;
        case 'matrix3d': if (n.length === 16) { dx += n[12]; dy += n[13]; } break;
        default: break;
      }
    }
    return [dx, dy];
  };
  // A DOMTokenList whose tokens are also its indexed properties (`list[0]`).
  const tokenList = (el, attr) => new Proxy(new DOMTokenList(el, attr), {
    get(target, key) {
      if (typeof key === 'string' && /^\d+$/.test(key)) return target.item(Number(key)) ?? undefined;
      const v = Reflect.get(target, key, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  // A live collection: `ids()` is asked again on every read, as an
  // HTMLCollection reflects the tree at the time of each access.
  // A live collection runs its query again only when the tree changed since
  // the last read (the native mutation count), so a loop over it reads one
  // list, as in a browser. Its methods run on the collection itself: an
  // array method such as `forEach` reads the length once and each index as
  // the tree is then, as a browser's does on a live NodeList.
  // Whether a property key is an array index ("0", "17", not "01"). No
  // regular expression: page scripts read RegExp.$1 after their own match,
  // and an index read in between (`list[i].src.match(re); RegExp.$2`) must
  // not replace it.
  const isIndex = (key) => typeof key === 'string' && key !== '' && key.length < 16
    && (key === '0' || (key.charCodeAt(0) > 48 && key.charCodeAt(0) <= 57)) && String(Number(key)) === key;
  const liveCollection = (ids, proto = HTMLCollection.prototype) => {
    let version = -1;
    let list = [];
    const now = () => {
      const v = native.domVersion();
      if (v !== version) { version = v; list = ids().map(wrap).filter((n) => n !== null); }
      return list;
    };
    return new Proxy(Object.setPrototypeOf([], proto), {
      get(target, key, receiver) {
        if (key === 'length') return now().length;
        if (isIndex(key)) return now()[Number(key)];
        return Reflect.get(target, key, receiver);
      },
      has(target, key) { return key in now() || key in target; },
      ownKeys() { return Reflect.ownKeys(now()); },
      getOwnPropertyDescriptor(_, key) { return Reflect.getOwnPropertyDescriptor(now(), key); },
    });
  };
  // A node's own childNodes and children lists, kept, so that
  // `el.childNodes === el.childNodes` as in browsers.
  const childLists = new WeakMap();
  const childrenLists = new WeakMap();
  // The prelude's own walks read a snapshot of a node's children: moving
  // nodes while iterating a live list would skip some.
  const kids = (n) => (n instanceof InertDocument ? n.childNodes : nodeList(native.childNodes(n[ID])));

  class Element extends Node {
    get tagName() { return this.nodeName; }
    // HTML elements report an upper-case nodeName; other namespaces keep case.
    get localName() { const name = this.nodeName; return name === name.toUpperCase() ? name.toLowerCase() : name; }
    get namespaceURI() { return native.namespaceUri(this[ID]) ?? null; }
    get id() { return toText(this.getAttribute('id')); }
    set id(v) { this.setAttribute('id', v); }
    get className() { return toText(this.getAttribute('class')); }
    set className(v) { this.setAttribute('class', v); }
    get classList() { return tokenList(this, 'class'); }
    set classList(v) { this.setAttribute('class', toText(v)); }
    // A missing attribute comes back from Rust as `undefined`; the DOM says null
    // (hasAttribute and the boolean reflections below compare against null).
    getAttribute(name) { return native.getAttribute(this[ID], String(name)) ?? null; }
    getAttributeNames() { return native.attributeNames(this[ID]); }
    get attributes() {
      const list = native.attributeNames(this[ID]).map((name) => new Attr(this, name));
      Object.setPrototypeOf(list, NamedNodeMap.prototype);
      // Attributes by name too (`el.attributes['data-x'].value`), unenumerable as in browsers.
      for (const attr of list) if (!(attr.name in list)) hidden(list, attr.name, attr);
      return list;
    }
    setAttribute(name, value) {
      const observed = observesAttribute(this, name);
      const old = mutationObservers.length || observed ? this.getAttribute(name) : null;
      native.setAttribute(this[ID], String(name), String(value));
      if (mutationObservers.length) queueMutation(this, { type: 'attributes', attributeName: String(name).toLowerCase(), oldValue: old });
      if (observed) reaction(this, 'attributeChangedCallback', String(name).toLowerCase(), old, String(value));
      if (this.localName === 'script' && String(name).toLowerCase() === 'src' && this.isConnected) runInsertedScript(this);
    }
    removeAttribute(name) {
      if (!this.hasAttribute(name)) return;
      const observed = observesAttribute(this, name);
      const old = mutationObservers.length || observed ? this.getAttribute(name) : null;
      native.removeAttribute(this[ID], String(name));
      if (mutationObservers.length) queueMutation(this, { type: 'attributes', attributeName: String(name).toLowerCase(), oldValue: old });
      if (observed) reaction(this, 'attributeChangedCallback', String(name).toLowerCase(), old, null);
    }
    setAttributeNS(_ns, name, value) { this.setAttribute(name, value); }
    getAttributeNS(_ns, name) { return this.getAttribute(name); }
    removeAttributeNS(_ns, name) { this.removeAttribute(name); }
    hasAttributeNS(_ns, name) { return this.hasAttribute(name); }
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
    set innerHTML(html) {
      const removed = mutationObservers.length ? kids(this) : null;
      const wasConnected = customDefinitions.size > 0 && this.isConnected;
      if (wasConnected) for (const c of nodeList(native.children(this[ID]))) disconnected(c);
      retainWrapped(); native.setInnerHTML(this[ID], toText(html));
      // Scripts parsed by innerHTML never run.
      if (native.querySelector(this[ID], 'script') !== null) this.querySelectorAll('script').forEach((sc) => startedScripts.add(sc));
      if (wasConnected) for (const c of nodeList(native.children(this[ID]))) connected(c);
      if (mutationObservers.length) queueMutation(this, { type: 'childList', removedNodes: removed, addedNodes: kids(this) });
    }
    get outerHTML() { return native.outerHTML(this[ID]); }
    set outerHTML(html) {
      const parent = this.parentNode;
      if (!parent) return;
      const holder = document.createElement('div');
      holder.innerHTML = toText(html);
      const fragment = document.createDocumentFragment();
      fragment.append(...kids(holder));
      parent.replaceChild(fragment, this);
    }
    insertAdjacentHTML(position, html) {
      const holder = document.createElement('div');
      holder.innerHTML = toText(html);
      const fragment = document.createDocumentFragment();
      fragment.append(...kids(holder));
      this.insertAdjacentElement(position, fragment);
    }
    insertAdjacentElement(position, el) {
      switch (String(position).toLowerCase()) {
        case 'beforebegin': if (this.parentNode) this.parentNode.insertBefore(el, this); break;
        case 'afterbegin': this.insertBefore(el, this.firstChild); break;
        case 'beforeend': this.appendChild(el); break;
        case 'afterend': if (this.parentNode) this.parentNode.insertBefore(el, this.nextSibling); break;
        default: throw new DOMException(`'${position}' is not a valid position`, 'SyntaxError');
      }
      return el;
    }
    insertAdjacentText(position, text) { this.insertAdjacentElement(position, document.createTextNode(toText(text))); }
    getBoundingClientRect() {
      // An element that is not rendered has an empty box at the origin.
      let [x, y, width, height] = native.boxMetrics(this[ID]) ? native.boundingRect(this[ID]) : [0, 0, 0, 0];
      if (width || height) {
        // Layout leaves transforms out; translations (the common case) of
        // the element and its ancestors move its box.
        for (let e = this; e && e.nodeType === 1; e = e.parentElement) {
          const [dx, dy] = translation(native.computedStyle(e[ID], 'transform'));
          x += dx; y += dy;
        }
      }
      return new DOMRect(x, y, width, height);
    }
    getClientRects() { return native.boxMetrics(this[ID]) ? [this.getBoundingClientRect()] : []; }
    // The padding box. The root element's client area is the viewport (what
    // scroll math such as `scrollHeight - clientHeight` expects).
    get clientWidth() {
      if (isRoot(this)) return native.viewport()[0];
      const m = native.boxMetrics(this[ID]);
      return m ? Math.round(m[0] - m[6] - m[8]) : 0;
    }
    get clientHeight() {
      if (isRoot(this)) return native.viewport()[1];
      const m = native.boxMetrics(this[ID]);
      return m ? Math.round(m[1] - m[7] - m[9]) : 0;
    }
    get clientLeft() { const m = native.boxMetrics(this[ID]); return m ? Math.round(m[6]) : 0; }
    get clientTop() { const m = native.boxMetrics(this[ID]); return m ? Math.round(m[7]) : 0; }
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
    get slot() { return toText(this.getAttribute('slot')); }
    set slot(v) { this.setAttribute('slot', v); }
    get shadowRoot() { return null; }
    attachShadow() { throw new DOMException('Shadow DOM is not supported', 'NotSupportedError'); }
    animate() { return { finished: Promise.resolve(), cancel() {}, play() {}, pause() {} }; }
    getAnimations() { return []; }
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

  // Inline style: the style attribute, read and written as declarations, so
  // that `getAttribute('style')` and Stylo see the same text.
  const styleDeclarations = (el) => {
    const out = [];
    for (const decl of toText(el.getAttribute('style')).split(';')) {
      const i = decl.indexOf(':');
      if (i > 0) out.push([decl.slice(0, i).trim().toLowerCase(), decl.slice(i + 1).trim()]);
    }
    return out;
  };
  const writeStyle = (el, name, value) => {
    const decls = styleDeclarations(el).filter(([n]) => n !== name);
    const v = toText(value).trim();
    if (v !== '') {
      const existing = styleDeclarations(el).findIndex(([n]) => n === name);
      if (existing >= 0) decls.splice(existing, 0, [name, v]); else decls.push([name, v]);
    }
    if (decls.length === 0 && v === '') { el.removeAttribute('style'); return; }
    el.setAttribute('style', decls.map(([n, val]) => `${n}: ${val};`).join(' '));
  };
  class CSSStyleDeclaration {}
  class DOMStringMap {}
  // A style declaration (an element's `style`, or what getComputedStyle
  // returns) is a Proxy over an object of CSSStyleDeclaration.prototype that
  // holds its backing store in a slot: the methods live on the prototype, as
  // in browsers, and property names (`style.color`) reach the store.
  const DECL = Symbol('declarations');
  const declarationProxy = (decl) => new Proxy(Object.defineProperty(Object.create(CSSStyleDeclaration.prototype), DECL, { value: decl }), {
    get(target, key, receiver) {
      if (typeof key !== 'string' || key in target) return Reflect.get(target, key, receiver);
      if (isIndex(key)) return decl.names()[Number(key)];
      return decl.read(key === 'cssFloat' ? 'float' : kebab(key));
    },
    set(target, key, value, receiver) {
      if (typeof key !== 'string' || key in target) return Reflect.set(target, key, value, receiver);
      decl.write(key === 'cssFloat' ? 'float' : kebab(key), value === null ? '' : value);
      return true;
    },
  });
  Object.defineProperties(CSSStyleDeclaration.prototype, Object.getOwnPropertyDescriptors({
    getPropertyValue(property) { return this[DECL].read(toText(property).toLowerCase()); },
    getPropertyPriority(property) { void property; return ''; },
    setProperty(property, value, priority = '') { void priority; this[DECL].write(toText(property).toLowerCase(), value === null ? '' : value); },
    removeProperty(property) { const name = toText(property).toLowerCase(); const old = this[DECL].read(name); this[DECL].write(name, ''); return old; },
    item(index) { return this[DECL].names()[index >>> 0] || ''; },
    get cssText() { return this[DECL].text(); },
    set cssText(v) { this[DECL].setText(toText(v)); },
    get length() { return this[DECL].names().length; },
  }));
  const styleProxy = (el) => declarationProxy({
    read: (name) => readStyle(el, name),
    write: (name, value) => writeStyle(el, name, value),
    names: () => styleDeclarations(el).map(([n]) => n),
    text: () => toText(el.getAttribute('style')),
    setText: (v) => el.setAttribute('style', v),
  });
  const readStyle = (el, name) => {
    const found = styleDeclarations(el).reverse().find(([n]) => n === name);
    return found ? found[1] : '';
  };
  const datasetProxy = (el) => new Proxy(Object.create(DOMStringMap.prototype), {
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
    get innerText() { return native.innerText(this[ID]); }
    set innerText(v) { this.textContent = v; }
    get outerText() { return this.innerText; }
    set outerText(v) { this.replaceWith(toText(v)); }
    get offsetWidth() { const m = native.boxMetrics(this[ID]); return m ? Math.round(m[0]) : 0; }
    get offsetHeight() { const m = native.boxMetrics(this[ID]); return m ? Math.round(m[1]) : 0; }
    focus() { focusElement(this); }
    blur() { if (activeElement === this) focusElement(null); }
    get tabIndex() { const v = parseInt(this.getAttribute('tabindex'), 10); return Number.isNaN(v) ? (isFocusable(this) && !this.hasAttribute('tabindex') ? 0 : -1) : v; }
    set tabIndex(v) { this.setAttribute('tabindex', String(v)); }
    get style() { return styleProxy(this); }
    set style(v) { this.setAttribute('style', toText(v)); }
    get dataset() { return datasetProxy(this); }
    get hidden() { return this.hasAttribute('hidden'); }
    set hidden(v) { this.toggleAttribute('hidden', !!v); }
    get offsetParent() {
      if (!native.boxMetrics(this[ID]) || this.localName === 'body' || this.localName === 'html') return null;
      if (native.computedStyle(this[ID], 'position') === 'fixed') return null;
      for (let p = this.parentElement; p; p = p.parentElement) {
        if (p.localName === 'body' || native.computedStyle(p[ID], 'position') !== 'static' || ['td', 'th', 'table'].includes(p.localName)) return p;
      }
      return null;
    }
    // Relative to the offset parent's padding edge (the page for body).
    get offsetTop() { const r = this.getBoundingClientRect(); const p = this.offsetParent; return Math.round(r.top - (p && p.localName !== 'body' ? p.getBoundingClientRect().top + p.clientTop : -g.scrollY)); }
    get offsetLeft() { const r = this.getBoundingClientRect(); const p = this.offsetParent; return Math.round(r.left - (p && p.localName !== 'body' ? p.getBoundingClientRect().left + p.clientLeft : -g.scrollX)); }
    get isContentEditable() { for (let e = this; e; e = e.parentElement) { const v = e.getAttribute('contenteditable'); if (v !== null) return v !== 'false'; } return false; }
    get contentEditable() { const v = this.getAttribute('contenteditable'); return v === null ? 'inherit' : v === '' ? 'true' : v; }
    set contentEditable(v) { this.setAttribute('contenteditable', v); }
    get accessKey() { return toText(this.getAttribute('accesskey')); }
    set accessKey(v) { this.setAttribute('accesskey', v); }
    get draggable() { return this.getAttribute('draggable') === 'true'; }
    set draggable(v) { this.setAttribute('draggable', v ? 'true' : 'false'); }
    click() {
      if (this.hasAttribute('disabled') && FORM_CONTROLS.includes(this.localName)) return;
      this.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, composed: true, view: g, detail: 1 }));
    }
  }
  defineHandlers(HTMLElement.prototype);
  // Content attributes reflected as properties, on the interfaces HTML gives
  // them to (so that `'download' in a` holds and `'download' in div` does
  // not, as feature detection expects). Interfaces are named here and looked
  // up once every element class exists (see `reflectAttributes`).
  const REFLECTED = {
    url: {
      href: 'Anchor Area Link Base', src: 'Image Script IFrame Input Media Source Track Embed', action: 'Form',
      formAction: 'Input Button', cite: 'Quote Mod', poster: 'Video',
    },
    string: {
      title: '', lang: '', dir: '', nonce: '', inputMode: '', enterKeyHint: '',
      name: 'Input Button Select TextArea Form IFrame Anchor Image Meta Map Param Output FieldSet Slot Object Embed',
      alt: 'Image Input Area', rel: 'Anchor Area Link', target: 'Anchor Area Form Base', placeholder: 'Input TextArea',
      autocomplete: 'Input Select TextArea Form', pattern: 'Input', accept: 'Input', step: 'Input', min: 'Input', max: 'Input',
      dirName: 'Input TextArea', formMethod: 'Input Button', formEnctype: 'Input Button', formTarget: 'Input Button',
      download: 'Anchor Area', hreflang: 'Anchor Link', media: 'Link Style Source Meta', charset: 'Script Anchor Link',
      crossOrigin: 'Image Script Link Media', integrity: 'Script Link', referrerPolicy: 'Anchor Area Image IFrame Link Script',
      htmlFor: 'Label', headers: 'TableCell', scope: 'TableCell', abbr: 'TableCell', kind: 'Track', srclang: 'Track',
      label: 'Track Option OptGroup', loading: 'Image IFrame', decoding: 'Image', sizes: 'Image Source Link',
      srcset: 'Image Source', useMap: 'Image Object', wrap: 'TextArea',
      type: 'Input Button Script Link Style Source Object Embed OList UList LI', content: 'Meta', httpEquiv: 'Meta',
      enctype: 'Form', srcdoc: 'IFrame', value: 'Button Data Param',
    },
    bool: {
      autofocus: '', inert: '', disabled: 'Button Input Select TextArea Option OptGroup FieldSet Link',
      required: 'Input Select TextArea', readOnly: 'Input TextArea', multiple: 'Input Select', noValidate: 'Form',
      formNoValidate: 'Input Button', open: 'Details Dialog', async: 'Script', defer: 'Script', noModule: 'Script',
      reversed: 'OList', allowFullscreen: 'IFrame', default: 'Track', isMap: 'Image',
    },
    number: {
      maxLength: 'Input TextArea', minLength: 'Input TextArea', size: 'Input Select', rows: 'TextArea FrameSet',
      cols: 'TextArea FrameSet', width: 'Image Canvas IFrame Video Embed Object Input Source',
      height: 'Image Canvas IFrame Video Embed Object Input Source', colSpan: 'TableCell', rowSpan: 'TableCell',
      span: 'TableCol', start: 'OList',
    },
  };
  const NUMBER_FALLBACK = { maxLength: -1, minLength: -1, size: 20, rows: 2, cols: 20, colSpan: 1, rowSpan: 1, span: 1, start: 1 };
  const numberAttr = (name, attr) => {
    const fallback = NUMBER_FALLBACK[name] ?? 0;
    return {
      get() { const v = parseInt(this.getAttribute(attr), 10); return Number.isNaN(v) ? fallback : v; },
      set(v) { this.setAttribute(attr, String(Math.trunc(Number(v)))); },
    };
  };
  const reflectAttributes = (classes) => {
    for (const [kind, names] of Object.entries(REFLECTED)) {
      for (const [name, owners] of Object.entries(names)) {
        const attr = name === 'htmlFor' ? 'for' : name === 'httpEquiv' ? 'http-equiv' : name.toLowerCase();
        const accessor = kind === 'url' ? urlAttr(attr) : kind === 'string' ? stringAttr(attr) : kind === 'bool' ? boolAttr(attr) : numberAttr(name, attr);
        const targets = owners === '' ? [HTMLElement] : owners.split(' ').map((o) => classes[`HTML${o}Element`]);
        for (const Cls of targets) {
          // A class's own definition (HTMLInputElement's type) wins.
          if (Cls && !Object.prototype.hasOwnProperty.call(Cls.prototype, name)) {
            const { get, set } = accessor;
            Object.defineProperty(Cls.prototype, name, { get, set, configurable: true });
          }
        }
      }
    }
  };
  const FORM_CONTROLS = ['button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset'];
  const LISTED = ['button', 'fieldset', 'input', 'object', 'output', 'select', 'textarea'];
  const formOf = (el) => {
    const id = el.getAttribute('form');
    if (id !== null) { const f = document.getElementById(id); return f && f.localName === 'form' ? f : null; }
    return el.closest('form');
  };
  const labelsOf = (el) => {
    const out = [];
    const id = el.id;
    for (const label of document.querySelectorAll('label')) {
      const control = label.control;
      if (control === el) out.push(label);
    }
    return out.length || !id ? out : out;
  };
  // Validity, as far as an agent's form filling needs it.
  const validityOf = (el) => {
    const value = el.value;
    const valueMissing = el.required && !el.disabled && (el.type === 'checkbox' || el.type === 'radio' ? !el.checked : value === '');
    const tooLong = el.maxLength >= 0 && value.length > el.maxLength;
    let typeMismatch = false;
    if (value && el.type === 'email') typeMismatch = !/^[^\s@]+@[^\s@]+$/.test(value);
    if (value && el.type === 'url') typeMismatch = !URL.canParse(value);
    let patternMismatch = false;
    const pattern = el.getAttribute && el.getAttribute('pattern');
    if (value && pattern) { try { patternMismatch = !new RegExp(`^(?:${pattern})$`, 'u').test(value); } catch (_) { patternMismatch = false; } }
    let rangeUnderflow = false;
    let rangeOverflow = false;
    if (value !== '' && (el.type === 'number' || el.type === 'range')) {
      const n = Number(value);
      const min = parseFloat(el.getAttribute('min'));
      const max = parseFloat(el.getAttribute('max'));
      rangeUnderflow = !Number.isNaN(min) && n < min;
      rangeOverflow = !Number.isNaN(max) && n > max;
    }
    const custom = customValidity.get(el) || '';
    const valid = !(valueMissing || tooLong || typeMismatch || patternMismatch || rangeUnderflow || rangeOverflow || custom);
    return { valueMissing, tooLong, tooShort: false, typeMismatch, patternMismatch, rangeOverflow, rangeUnderflow, stepMismatch: false, badInput: false, customError: !!custom, valid };
  };
  const customValidity = new WeakMap();
  const controlMixin = {
    get form() { return formOf(this); },
    get labels() { return labelsOf(this); },
    get validity() { return validityOf(this); },
    get validationMessage() { const v = validityOf(this); return v.valid ? '' : customValidity.get(this) || (v.valueMissing ? 'Please fill out this field.' : 'Please match the requested format.'); },
    get willValidate() { return !this.disabled && this.type !== 'hidden'; },
    setCustomValidity(message) { customValidity.set(this, toText(message)); },
    checkValidity() {
      if (validityOf(this).valid) return true;
      this.dispatchEvent(new Event('invalid', { cancelable: true }));
      return false;
    },
    reportValidity() { return this.checkValidity(); },
  };
  class HTMLInputElement extends HTMLElement {
    get type() {
      const t = toText(this.getAttribute('type')).toLowerCase();
      return INPUT_TYPES.includes(t) ? t : 'text';
    }
    set type(v) { this.setAttribute('type', v); }
    // The live value and checkedness live in the Blitz control (what it
    // paints, see forms.rs); the attributes are the defaults.
    get value() {
      const live = native.controlValue(this[ID]);
      if (live !== null && live !== undefined) return live;
      const v = this.getAttribute('value');
      if (v === null) return this.type === 'checkbox' || this.type === 'radio' ? 'on' : '';
      return this.type === 'checkbox' || this.type === 'radio' || this.type === 'hidden' ? v : v.replace(/[\r\n]/g, '');
    }
    set value(v) {
      let text = toText(v);
      if (this.type === 'number' && text !== '' && !Number.isFinite(Number(text))) text = '';
      if (['text', 'search', 'tel', 'url', 'email', 'password'].includes(this.type)) text = text.replace(/[\r\n]/g, '');
      const changed = text !== this.value;
      if (!native.setControlValue(this[ID], text)) this.setAttribute('value', text);
      if (changed) caretAtEnd(this);
    }
    get defaultValue() { return toText(this.getAttribute('value')); }
    set defaultValue(v) { this.setAttribute('value', toText(v)); }
    get checked() {
      const live = native.controlChecked(this[ID]);
      return live === null || live === undefined ? this.hasAttribute('checked') : live;
    }
    set checked(v) {
      if (!!v && this.type === 'radio') uncheckGroup(this);
      if (!native.setControlChecked(this[ID], !!v)) this.toggleAttribute('checked', !!v);
    }
    get defaultChecked() { return this.hasAttribute('checked'); }
    set defaultChecked(v) { this.toggleAttribute('checked', !!v); }
    get valueAsNumber() { const n = parseFloat(this.value); return Number.isNaN(n) ? NaN : n; }
    set valueAsNumber(n) { this.value = String(n); }
    get files() { return this.type === 'file' ? [] : null; }
    set files(_) { /* a FileList only the user gives: kept empty */ }
    showPicker() {}
    stepUp(n = 1) { this.valueAsNumber = (this.valueAsNumber || 0) + n * (Number(this.step) || 1); }
    stepDown(n = 1) { this.stepUp(-n); }
  }
  const INPUT_TYPES = ['text', 'search', 'tel', 'url', 'email', 'password', 'date', 'month', 'week', 'time', 'datetime-local', 'number', 'range', 'color', 'checkbox', 'radio', 'file', 'submit', 'image', 'reset', 'button', 'hidden'];
  // ---- text selection of inputs and textareas ------------------------------
  // Each text control has a selection [start, end, direction] in UTF-16
  // offsets of its value, which typing replaces and the arrow keys move
  // (input.js). As in Chromium, a control starts with its caret at 0,
  // setting its value to something else puts the caret at the end, and a
  // direction of 'none' reads as 'forward'.
  const selections = new WeakMap();
  // Input types whose selection scripts may read and set (others answer
  // null and throw, as in browsers, though typing still uses the caret).
  const SELECTION_TYPES = ['text', 'search', 'tel', 'url', 'password'];
  const selectionOf = (el) => {
    const length = el.value.length;
    const s = selections.get(el);
    if (!s) return [0, 0, 'forward'];
    const end = Math.min(s[1], length);
    return [Math.min(s[0], end), end, s[2] === 'backward' ? 'backward' : 'forward'];
  };
  // An offset as the IDL's `unsigned long` takes it (-3 wraps to a huge
  // number), clamped to the value.
  const offset = (v, length) => Math.min(Number(v) >>> 0, length);
  const caretAtEnd = (el) => { const n = el.value.length; selections.set(el, [n, n, 'none']); };
  const setSelection = (el, start, end, direction = 'none') => {
    const length = el.value.length;
    const e = offset(end, length);
    const st = Math.min(offset(start, length), e);
    selections.set(el, [st, e, ['forward', 'backward'].includes(direction) ? direction : 'none']);
  };
  const hasSelectionApi = (el) => el.localName === 'textarea' || SELECTION_TYPES.includes(el.type);
  const noSelectionApi = (el) => new DOMException(`Failed to execute on 'HTMLInputElement': The input element's type ('${el.type}') does not support selection.`, 'InvalidStateError');
  const queueSelect = (el) => queueTask(() => el.dispatchEvent(uaEvent(new Event('select', { bubbles: true }))));
  const selectionMixin = {
    get selectionStart() { return hasSelectionApi(this) ? selectionOf(this)[0] : null; },
    set selectionStart(v) {
      if (!hasSelectionApi(this)) throw noSelectionApi(this);
      const [, end, dir] = selectionOf(this);
      const start = offset(v, this.value.length);
      setSelection(this, start, Math.max(start, end), dir);
    },
    get selectionEnd() { return hasSelectionApi(this) ? selectionOf(this)[1] : null; },
    set selectionEnd(v) {
      if (!hasSelectionApi(this)) throw noSelectionApi(this);
      const [start, , dir] = selectionOf(this);
      setSelection(this, start, v, dir);
    },
    get selectionDirection() { return hasSelectionApi(this) ? selectionOf(this)[2] : null; },
    set selectionDirection(v) {
      if (!hasSelectionApi(this)) throw noSelectionApi(this);
      const [start, end] = selectionOf(this);
      setSelection(this, start, end, toText(v));
    },
    setSelectionRange(start, end, direction = 'none') {
      if (!hasSelectionApi(this)) throw noSelectionApi(this);
      setSelection(this, start, end, direction);
      queueSelect(this);
    },
    // setRangeText(replacement[, start, end[, selectMode]]): replaces a range
    // of the value and places the selection by `selectMode` ('preserve' by
    // default, 'select', 'start', 'end').
    setRangeText(replacement, ...rest) {
      if (!hasSelectionApi(this)) throw noSelectionApi(this);
      const text = toText(replacement);
      const value = this.value;
      let [selStart, selEnd] = selectionOf(this);
      let start = selStart;
      let end = selEnd;
      let mode = 'preserve';
      if (rest.length >= 2) {
        start = offset(rest[0], value.length);
        end = offset(rest[1], value.length);
        if (start > end) throw new DOMException("Failed to execute 'setRangeText': The provided start value is larger than the provided end value.", 'IndexSizeError');
        if (rest.length >= 3) mode = toText(rest[2]);
      }
      this.value = value.slice(0, start) + text + value.slice(end);
      const newEnd = start + text.length;
      if (mode === 'select') [selStart, selEnd] = [start, newEnd];
      else if (mode === 'start') [selStart, selEnd] = [start, start];
      else if (mode === 'end') [selStart, selEnd] = [newEnd, newEnd];
      else {
        // 'preserve': what was after the replaced range moves with it; a
        // selection edge inside it goes to the range's start (the selection's
        // start) or the new end (its end).
        const delta = text.length - (end - start);
        selStart = selStart > end ? selStart + delta : selStart > start ? start : selStart;
        selEnd = selEnd > end ? selEnd + delta : selEnd > start ? newEnd : selEnd;
      }
      setSelection(this, selStart, selEnd);
    },
    select() {
      setSelection(this, 0, this.value.length);
      queueSelect(this);
    },
  };
  const uncheckGroup = (radio) => {
    const name = radio.name;
    if (!name) return;
    const scope = radio.form || document;
    for (const other of scope.querySelectorAll('input[type=radio]')) {
      if (other !== radio && other.name === name && other.form === radio.form && other.checked) other.checked = false;
    }
  };
  class HTMLTextAreaElement extends HTMLElement {
    get type() { return 'textarea'; }
    get value() { const live = native.controlValue(this[ID]); return live === null || live === undefined ? this.textContent : live; }
    set value(v) {
      const text = toText(v);
      const changed = text !== this.value;
      if (!native.setControlValue(this[ID], text)) this.textContent = text;
      if (changed) caretAtEnd(this);
    }
    get defaultValue() { return this.textContent; }
    set defaultValue(v) { this.textContent = toText(v); }
    get textLength() { return this.value.length; }
  }
  class HTMLSelectElement extends HTMLElement {
    get type() { return this.multiple ? 'select-multiple' : 'select-one'; }
    get options() {
      const list = nodeList(native.querySelectorAll(this[ID], 'option'));
      hidden(list, 'namedItem', (n) => list.find((o) => o.id === n || o.getAttribute('name') === n) || null);
      return list;
    }
    get length() { return this.options.length; }
    set length(n) {
      const options = this.options;
      const want = n >>> 0;
      for (let i = options.length - 1; i >= want; i--) options[i].remove();
      for (let i = options.length; i < want; i++) this.appendChild(document.createElement('option'));
    }
    item(i) { return this.options[i] || null; }
    get selectedOptions() {
      const options = this.options;
      const chosen = options.filter((o) => o.hasAttribute('selected'));
      if (chosen.length || this.multiple) return chosen;
      return options.length ? [options[0]] : [];
    }
    get selectedIndex() {
      const first = this.selectedOptions[0];
      return first ? this.options.indexOf(first) : -1;
    }
    set selectedIndex(i) {
      const options = this.options;
      options.forEach((o, j) => o.toggleAttribute('selected', j === Number(i)));
    }
    get value() { const o = this.selectedOptions[0]; return o ? o.value : ''; }
    set value(v) {
      const options = this.options;
      const want = toText(v);
      const match = options.find((o) => o.value === want);
      options.forEach((o) => o.toggleAttribute('selected', o === match));
    }
    add(option, before) { this.insertBefore(option, typeof before === 'number' ? this.options[before] || null : before || null); }
    remove(i) { if (arguments.length === 0) { childNodeMixin.remove.call(this); return; } const o = this.options[i]; if (o) o.remove(); }
  }
  class HTMLOptionElement extends HTMLElement {
    get value() { const v = this.getAttribute('value'); return v === null ? this.text : v; }
    set value(v) { this.setAttribute('value', v); }
    get text() { return this.textContent.replace(/\s+/g, ' ').trim(); }
    set text(v) { this.textContent = v; }
    get label() { const l = this.getAttribute('label'); return l === null ? this.text : l; }
    get selected() {
      if (this.hasAttribute('selected')) return true;
      const select = this.closest('select');
      return !!select && !select.multiple && select.selectedOptions[0] === this;
    }
    set selected(v) {
      const select = this.closest('select');
      if (v && select && !select.multiple) for (const o of select.options) if (o !== this) o.removeAttribute('selected');
      this.toggleAttribute('selected', !!v);
    }
    get defaultSelected() { return this.hasAttribute('selected'); }
    set defaultSelected(v) { this.toggleAttribute('selected', !!v); }
    get index() { const select = this.closest('select'); return select ? select.options.indexOf(this) : 0; }
    get form() { const select = this.closest('select'); return select ? select.form : null; }
  }
  class HTMLButtonElement extends HTMLElement {
    get type() { const t = toText(this.getAttribute('type')).toLowerCase(); return t === 'button' || t === 'reset' ? t : 'submit'; }
    set type(v) { this.setAttribute('type', v); }
    get value() { return toText(this.getAttribute('value')); }
    set value(v) { this.setAttribute('value', v); }
  }
  for (const Cls of [HTMLInputElement, HTMLTextAreaElement, HTMLSelectElement, HTMLButtonElement]) mixin(Cls, controlMixin);
  for (const Cls of [HTMLInputElement, HTMLTextAreaElement]) mixin(Cls, selectionMixin);
  class HTMLFormElement extends HTMLElement {
    get elements() {
      // Compared by node: `this` may be the form or the proxy that wraps it.
      const me = this[ID];
      const own = this.querySelectorAll(LISTED.join(',')).filter((el) => { const f = formOf(el); return f !== null && f[ID] === me; });
      const id = this.id;
      const outside = id ? document.querySelectorAll(`[form="${cssEscape(id)}"]`).filter((el) => !own.includes(el)) : [];
      const list = own.concat(outside).filter((el) => el.localName !== 'input' || el.type !== 'image');
      hidden(list, 'namedItem', (n) => namedControl(list, toText(n)));
      for (const el of list) for (const key of [el.id, el.getAttribute('name')]) if (key && !(key in list)) hidden(list, key, namedControl(list, key));
      return list;
    }
    get length() { return this.elements.length; }
    get method() { return toText(this.getAttribute('method')).toLowerCase() === 'post' ? 'post' : toText(this.getAttribute('method')).toLowerCase() === 'dialog' ? 'dialog' : 'get'; }
    set method(v) { this.setAttribute('method', v); }
    get action() { const a = this.getAttribute('action'); return a === null || a === '' ? native.url() : native.resolveUrl(a) || a; }
    set action(v) { this.setAttribute('action', v); }
    get enctype() { const e = toText(this.getAttribute('enctype')).toLowerCase(); return ['multipart/form-data', 'text/plain'].includes(e) ? e : 'application/x-www-form-urlencoded'; }
    set enctype(v) { this.setAttribute('enctype', v); }
    get encoding() { return this.enctype; }
    checkValidity() { return this.elements.filter((el) => el.checkValidity).every((el) => el.checkValidity()); }
    reportValidity() { return this.checkValidity(); }
    reset() {
      if (!this.dispatchEvent(new Event('reset', { bubbles: true, cancelable: true }))) return;
      for (const el of this.elements) resetControl(el);
    }
    // submit() and requestSubmit() come from web.js (form submission).
  }
  const formProxy = (form) => new Proxy(form, {
    get(target, key) {
      if (typeof key === 'string' && key !== 'constructor') {
        const list = target.elements;
        if (/^\d+$/.test(key)) return list[Number(key)];
        const control = namedControl(list, key);
        if (control) return control;
      }
      return Reflect.get(target, key, target);
    },
  });
  // The control(s) of a form named `n`: one element, or a RadioNodeList
  // when several share the name (a radio group).
  const namedControl = (list, n) => {
    const found = list.filter((el) => el.id === n || el.getAttribute('name') === n);
    if (found.length <= 1) return found[0] || null;
    hidden(found, 'item', (i) => found[i] || null);
    Object.defineProperty(found, 'value', {
      get() { const r = found.find((el) => el.localName === 'input' && el.type === 'radio' && el.checked); return r ? r.value : ''; },
      set(v) { const r = found.find((el) => el.localName === 'input' && el.type === 'radio' && el.value === toText(v)); if (r) r.checked = true; },
    });
    return found;
  };
  // Reset puts the defaults back: value and checked attributes, and the
  // options selected when the document was parsed.
  const resetControl = (el) => {
    if (el.localName === 'input') {
      if (el.type === 'checkbox' || el.type === 'radio') native.setControlChecked(el[ID], el.hasAttribute('checked'));
      else if (native.controlValue(el[ID]) !== null) native.setControlValue(el[ID], el.defaultValue);
    } else if (el.localName === 'textarea') {
      el.value = el.defaultValue;
    } else if (el.localName === 'select') {
      for (const o of el.options) {
        const initial = initialState.get(o);
        if (initial) o.toggleAttribute('selected', initial.selected !== null);
      }
    }
  };
  const initialState = new WeakMap();
  const rememberInitialState = () => {
    for (const el of document.querySelectorAll('option')) initialState.set(el, { selected: el.getAttribute('selected') });
  };
  class HTMLAnchorElement extends HTMLElement {
    toString() { return this.href; }
    get text() { return this.textContent; }
    set text(v) { this.textContent = v; }
    get relList() { return new DOMTokenList(this, 'rel'); }
  }
  for (const part of ['protocol', 'host', 'hostname', 'port', 'pathname', 'search', 'hash', 'origin', 'username', 'password']) {
    Object.defineProperty(HTMLAnchorElement.prototype, part, {
      get() { const href = this.href; if (!href) return ''; try { return new URL(href)[part]; } catch (_) { return ''; } },
      set: part === 'origin' ? undefined : { set(v) { try { const u = new URL(this.href); u[part] = v; this.setAttribute('href', u.href); } catch (_) { /* not a URL: unchanged */ } } }.set,
      configurable: true,
    });
  }
  class HTMLLabelElement extends HTMLElement {
    get control() {
      const id = this.getAttribute('for');
      if (id !== null) { const el = document.getElementById(id); return el && LABELABLE.includes(el.localName) ? el : null; }
      return this.querySelector(LABELABLE.join(','));
    }
    get form() { const c = this.control; return c ? c.form : null; }
  }
  const LABELABLE = ['button', 'input', 'meter', 'output', 'progress', 'select', 'textarea'];
  class HTMLImageElement extends HTMLElement {
    get complete() { return true; }
    get naturalWidth() { return this.offsetWidth; }
    get naturalHeight() { return this.offsetHeight; }
    get currentSrc() { return this.src; }
    decode() { return Promise.resolve(); }
  }
  class HTMLScriptElement extends HTMLElement {
    get text() { return this.textContent; }
    set text(v) { this.textContent = v; }
    // Scripts made by scripts are async unless told otherwise.
    get async() { return this.hasAttribute('async') || !parserScripts.has(this); }
    set async(v) { this.toggleAttribute('async', !!v); if (!v) parserScripts.add(this); }
  }
  // Scripts the document's parser (or innerHTML) made, and scripts that ran
  // or are about to: neither kind runs again when inserted.
  const parserScripts = new WeakSet();
  const startedScripts = new WeakSet();
  const CLASSIC_TYPES = ['', 'text/javascript', 'application/javascript', 'application/ecmascript', 'text/ecmascript', 'application/x-javascript'];
  // A script element inserted by a script: inline code runs at once, an
  // external script in a task of its own once fetched (or at once when
  // `blocking`: a script written with document.write blocks the parser),
  // then `load` (or `error`) fires at the element.
  const runInsertedScript = (script, blocking = false) => {
    if (startedScripts.has(script)) return;
    // A script with neither `src` nor text is not started: it runs when
    // one arrives (Sphinx's search appends an empty script, then sets src).
    if (!script.hasAttribute('src') && script.textContent === '') return;
    startedScripts.add(script);
    const type = toText(script.getAttribute('type')).trim().toLowerCase();
    if (type === 'module') { runInsertedModule(script); return; }
    if (!CLASSIC_TYPES.includes(type) || script.hasAttribute('nomodule')) return;
    const run = (code, name) => {
      const outer = currentScript;
      currentScript = script;
      try { native.evalScript(code, name); } catch (e) { reportError(e, name); }
      if (blocking) flushWrites();
      currentScript = outer;
    };
    const src = script.getAttribute('src');
    if (src === null) { run(script.textContent, 'inserted-inline-script'); return; }
    let url;
    try { url = new URL(src, native.baseUrl()).href; } catch (_) { queueTask(() => script.dispatchEvent(new Event('error'))); return; }
    (blocking ? (fn) => fn() : queueTask)(() => {
      let response = null;
      try { response = native.httpFetch('GET', url, [], null, true); } catch (_) { response = null; }
      if (!response || response.status >= 400) {
        native.console('error', `Failed to load script ${url}${response ? `: HTTP ${response.status}` : ''}`);
        script.dispatchEvent(new Event('error'));
        return;
      }
      run(native.decodeText(new Uint8Array(response.body), 'utf-8', false), url);
      script.dispatchEvent(new Event('load'));
    });
  };
  // document.write while the parser runs a script: the markup goes in at
  // the insertion point (after the script, then after what it wrote
  // before) as soon as what was written so far closes every element it
  // opened, and in any case when the script ends (`flushWrites`, called by
  // the engine). Inline scripts in it run at once, external ones when the
  // writing script ends, in order, blocking, as browsers run them. A written
  // script may write too, a few levels deep.
  const writeStates = new Map();
  let writeDepth = 0;
  const VOID_TAGS = VOID.split('|');
  // Whether `html` closes what it opens (void and self-closed tags aside)
  // and does not end inside a tag.
  const balanced = (html) => {
    if (/<[^>]*$/.test(html)) return false;
    let open = 0;
    for (const [, close, name, selfClosed] of html.matchAll(/<(\/?)([a-zA-Z][^\s/>]*)[^>]*?(\/?)>/g)) {
      if (VOID_TAGS.includes(name.toLowerCase()) || selfClosed) continue;
      open += close ? -1 : 1;
    }
    return open <= 0;
  };
  const insertWritten = (state, html) => {
    if (writeDepth >= 16) return;
    const anchor = state.anchor.parentNode ? state.anchor : null;
    const parent = anchor ? anchor.parentNode : document.body;
    if (!parent) return;
    writeDepth++;
    try {
      const holder = document.createElement('div');
      holder.innerHTML = html;
      const nodes = [...kids(holder)];
      if (!nodes.length) return;
      const fragment = document.createDocumentFragment();
      fragment.append(...nodes);
      parent.insertBefore(fragment, anchor ? anchor.nextSibling : null);
      state.anchor = nodes[nodes.length - 1];
      for (const node of nodes) {
        if (node.nodeType !== 1) continue;
        const scripts = node.localName === 'script' ? [node] : [...node.querySelectorAll('script')];
        for (const sc of scripts) {
          parserScripts.add(sc);
          startedScripts.delete(sc);
          if (sc.hasAttribute('src')) state.pending.push(sc);
          else runInsertedScript(sc, true);
        }
      }
    } finally {
      writeDepth--;
    }
  };
  const flushWrites = () => {
    const state = writeStates.get(currentScript);
    if (!state) return;
    writeStates.delete(currentScript);
    if (state.buffer) insertWritten(state, state.buffer);
    for (const sc of state.pending) runInsertedScript(sc, true);
  };
  const documentWrite = (text) => {
    if (readyState === 'loading' && currentScript && parserScripts.has(currentScript)) {
      let state = writeStates.get(currentScript);
      if (!state) { state = { buffer: '', anchor: currentScript, pending: [] }; writeStates.set(currentScript, state); }
      state.buffer += text;
      if (balanced(state.buffer)) { const html = state.buffer; state.buffer = ''; insertWritten(state, html); }
    } else if (readyState !== 'complete' && currentScript) {
      native.console('warn', 'A call to document.write() from an asynchronously-loaded script was ignored.');
    } else {
      native.console('warn', 'document.write after the document loaded: the text was appended to <body> (the document is not replaced)');
      if (document.body) document.body.insertAdjacentHTML('beforeend', text);
    }
  };
  // An inserted module script runs in a task of its own (modules never block
  // the inserting script), then `load` or `error` fires at the element.
  const runInsertedModule = (script) => {
    const src = script.getAttribute('src');
    let url = null;
    if (src !== null) {
      try { url = new URL(src, native.baseUrl()).href; } catch (_) { queueTask(() => script.dispatchEvent(new Event('error'))); return; }
    }
    const text = src === null ? script.textContent : '';
    queueTask(() => {
      let done;
      try { done = native.evalModule(url, text); } catch (e) {
        // A module that failed to load logged why; one that threw reports it.
        if (url === null || !(e instanceof TypeError)) reportError(e, url || 'inserted-inline-module');
        script.dispatchEvent(new Event('error'));
        return;
      }
      done.then(() => script.dispatchEvent(new Event('load')), (e) => { reportError(e, url || 'inserted-inline-module'); });
    });
  };
  // A template's content is a fragment of its own: what the parser (or
  // innerHTML) put inside the element moves there on first use.
  const templateContents = new Map();
  class HTMLTemplateElement extends HTMLElement {
    // The parser's "template contents" node, as a DocumentFragment; what
    // scripts put inside the element itself moves there on first use.
    get content() {
      let fragment = templateContents.get(this[ID]);
      if (!fragment) {
        const id = native.templateContents(this[ID]);
        fragmentIds.add(id);
        wrappers.delete(id);
        fragment = wrap(id);
        templateContents.set(this[ID], fragment);
      }
      const children = native.childNodes(this[ID]).map(wrap);
      for (const c of children) fragment.appendChild(c);
      return fragment;
    }
    get childNodes() { this.content; return nodeList([]); }
    get innerHTML() { return this.content.innerHTML; }
    // Parsed in the template's own context (so `<tr>` stays a row), then
    // moved into the content on its next use.
    set innerHTML(html) {
      const f = this.content;
      f.textContent = '';
      retainWrapped(); native.setInnerHTML(this[ID], toText(html));
    }
  }
  class HTMLDetailsElement extends HTMLElement {}
  class HTMLDialogElement extends HTMLElement {
    get returnValue() { return toText(this._returnValue); }
    set returnValue(v) { hidden(this, '_returnValue', toText(v)); }
    show() { this.setAttribute('open', ''); }
    showModal() { this.setAttribute('open', ''); }
    close(value) {
      if (!this.hasAttribute('open')) return;
      if (value !== undefined) this.returnValue = value;
      this.removeAttribute('open');
      queueTask(() => this.dispatchEvent(new Event('close')));
    }
  }
  class HTMLCanvasElement extends HTMLElement {
    getContext() { return null; }
    toDataURL() { return 'data:,'; }
  }
  class HTMLIFrameElement extends HTMLElement {
    get contentWindow() { return frameWindow(this); }
    get contentDocument() { const w = frameWindow(this); return w && w.sameOrigin ? w.document : null; }
  }
  // ---- frames --------------------------------------------------------------
  // A frame's document is static (its scripts do not run), so its window is
  // a small object: `document` is an inert copy of what the frame shows
  // (read once per document the frame loads), `frameElement` and `parent`
  // lead back here. A frame of another origin shows scripts no document, as
  // in browsers, where reading it throws.
  const frameWindows = new WeakMap();
  class FrameWindow {}
  const frameWindow = (iframe) => {
    if (!iframe.isConnected) return null;
    const source = native.frameSource(iframe[ID]);
    const [url, markup] = source || ['about:blank', ''];
    const known = frameWindows.get(iframe);
    if (known && known.url === url && known.markup === markup) return known.window;
    const sameOrigin = url === 'about:blank' || url === 'about:srcdoc' || (() => { try { return new URL(url).origin === location.origin; } catch (_) { return false; } })();
    let doc;
    const win = Object.create(FrameWindow.prototype, {
      document: { get() { if (!sameOrigin) throw new DOMException("Blocked a frame from accessing a cross-origin frame.", 'SecurityError'); if (!doc) doc = inertHtml(markup.replace(/^<html[^>]*>|<\/html>$/g, '')); return doc; }, enumerable: true },
      location: { get: () => ({ href: url, toString: () => url }), enumerable: true },
      frameElement: { get: () => (sameOrigin ? iframe : null), enumerable: true },
      sameOrigin: { value: sameOrigin },
    });
    for (const key of ['window', 'self', 'frames']) Object.defineProperty(win, key, { value: win, enumerable: true });
    Object.assign(win, { parent: g, top: g, length: 0, closed: false, postMessage() {}, addEventListener() {}, removeEventListener() {}, focus() {}, blur() {} });
    frameWindows.set(iframe, { url, markup, window: win });
    return win;
  };
  // The page's frames in document order, as `window[i]` and `window.length` see them.
  const frameElements = () => [...document.querySelectorAll('iframe, frame')];
  const simpleClass = (name) => ({ [name]: class extends HTMLElement {} })[name];
  const HTMLDivElement = simpleClass('HTMLDivElement');
  const HTMLSpanElement = simpleClass('HTMLSpanElement');
  const HTMLParagraphElement = simpleClass('HTMLParagraphElement');
  const HTMLHeadingElement = simpleClass('HTMLHeadingElement');
  const HTMLBodyElement = simpleClass('HTMLBodyElement');
  const HTMLHtmlElement = simpleClass('HTMLHtmlElement');
  const HTMLHeadElement = simpleClass('HTMLHeadElement');
  const HTMLUListElement = simpleClass('HTMLUListElement');
  const HTMLOListElement = simpleClass('HTMLOListElement');
  const HTMLLIElement = simpleClass('HTMLLIElement');
  class HTMLTableElement extends HTMLElement {
    get rows() { return this.querySelectorAll('tr').filter((tr) => tr.closest('table') === this); }
    get tBodies() { return this.children.filter((c) => c.localName === 'tbody'); }
    get tHead() { return this.children.find((c) => c.localName === 'thead') || null; }
    get tFoot() { return this.children.find((c) => c.localName === 'tfoot') || null; }
    get caption() { return this.children.find((c) => c.localName === 'caption') || null; }
    insertRow(index = -1) {
      const rows = this.rows;
      const tr = document.createElement('tr');
      if (index === -1 || index === rows.length) {
        const body = this.tBodies[this.tBodies.length - 1];
        (rows.length ? rows[rows.length - 1].parentNode : body || this).appendChild(tr);
      } else if (index >= 0 && index < rows.length) {
        rows[index].parentNode.insertBefore(tr, rows[index]);
      } else {
        throw new DOMException(`The index provided (${index}) is outside the range [-1, ${rows.length}].`, 'IndexSizeError');
      }
      return tr;
    }
    deleteRow(index) { const rows = this.rows; const row = rows[index === -1 ? rows.length - 1 : index]; if (row) row.remove(); }
    createTBody() { const b = document.createElement('tbody'); this.appendChild(b); return b; }
  }
  class HTMLTableRowElement extends HTMLElement {
    get cells() { return this.children.filter((c) => c.localName === 'td' || c.localName === 'th'); }
    get rowIndex() { const t = this.closest('table'); return t ? t.rows.indexOf(this) : -1; }
    get sectionRowIndex() { const p = this.parentElement; return p ? p.children.filter((c) => c.localName === 'tr').indexOf(this) : -1; }
    insertCell(index = -1) {
      const cells = this.cells;
      const td = document.createElement('td');
      if (index === -1 || index === cells.length) this.appendChild(td);
      else if (index >= 0 && index < cells.length) this.insertBefore(td, cells[index]);
      else throw new DOMException(`The index provided (${index}) is outside the range [-1, ${cells.length}].`, 'IndexSizeError');
      return td;
    }
    deleteCell(index) { const cells = this.cells; const c = cells[index === -1 ? cells.length - 1 : index]; if (c) c.remove(); }
  }
  class HTMLTableCellElement extends HTMLElement {
    get cellIndex() { const tr = this.parentElement; return tr && tr.cells ? tr.cells.indexOf(this) : -1; }
  }
  const HTMLStyleElement = simpleClass('HTMLStyleElement');
  const HTMLLinkElement = simpleClass('HTMLLinkElement');
  const HTMLMetaElement = simpleClass('HTMLMetaElement');
  const HTMLTitleElement = simpleClass('HTMLTitleElement');
  const HTMLPreElement = simpleClass('HTMLPreElement');
  const HTMLBRElement = simpleClass('HTMLBRElement');
  const HTMLHRElement = simpleClass('HTMLHRElement');
  const HTMLFieldSetElement = simpleClass('HTMLFieldSetElement');
  const HTMLLegendElement = simpleClass('HTMLLegendElement');
  const HTMLUnknownElement = simpleClass('HTMLUnknownElement');
  class HTMLMediaElement extends HTMLElement {
    get paused() { return true; }
    get ended() { return false; }
    get currentTime() { return 0; }
    set currentTime(_) {}
    get duration() { return NaN; }
    get readyState() { return 0; }
    get networkState() { return 3; }
    get muted() { return this.hasAttribute('muted'); }
    set muted(v) { this.toggleAttribute('muted', !!v); }
    get volume() { return 1; }
    set volume(_) {}
    get currentSrc() { return this.src || ''; }
    canPlayType() { return ''; }
    load() {}
    pause() {}
    // No media playback in this engine.
    play() { return Promise.reject(new DOMException('The element has no supported sources.', 'NotSupportedError')); }
  }
  Object.assign(HTMLMediaElement, { HAVE_NOTHING: 0, NETWORK_NO_SOURCE: 3 });
  const HTMLVideoElement = ({ HTMLVideoElement: class extends HTMLMediaElement { get videoWidth() { return 0; } get videoHeight() { return 0; } } }).HTMLVideoElement;
  const HTMLAudioElement = ({ HTMLAudioElement: class extends HTMLMediaElement {} }).HTMLAudioElement;
  const MORE_ELEMENT_CLASSES = {};
  for (const [name, tags] of [
    ['HTMLSourceElement', 'source'], ['HTMLPictureElement', 'picture'], ['HTMLTableSectionElement', 'thead tbody tfoot'],
    ['HTMLTableCaptionElement', 'caption'], ['HTMLTableColElement', 'col colgroup'], ['HTMLTimeElement', 'time'], ['HTMLDataElement', 'data'],
    ['HTMLOutputElement', 'output'], ['HTMLProgressElement', 'progress'], ['HTMLMeterElement', 'meter'], ['HTMLQuoteElement', 'q blockquote'],
    ['HTMLMapElement', 'map'], ['HTMLAreaElement', 'area'], ['HTMLObjectElement', 'object'], ['HTMLEmbedElement', 'embed'],
    ['HTMLSlotElement', 'slot'], ['HTMLDataListElement', 'datalist'], ['HTMLOptGroupElement', 'optgroup'], ['HTMLBaseElement', 'base'],
    ['HTMLModElement', 'ins del'], ['HTMLMenuElement', 'menu'], ['HTMLDListElement', 'dl'], ['HTMLTrackElement', 'track'],
    ['HTMLParamElement', 'param'], ['HTMLFrameSetElement', 'frameset'], ['HTMLDirectoryElement', 'dir'], ['HTMLFontElement', 'font'],
    ['HTMLMarqueeElement', 'marquee'],
  ]) {
    const Cls = simpleClass(name);
    MORE_ELEMENT_CLASSES[name] = Cls;
    for (const tag of tags.split(' ')) MORE_ELEMENT_CLASSES[tag] = Cls;
  }
  // Elements of SVG and MathML (by namespace); SVG boxes come from layout.
  class SVGElement extends Element {
    get className() { const el = this; return { get baseVal() { return toText(el.getAttribute('class')); }, set baseVal(v) { el.setAttribute('class', v); }, get animVal() { return toText(el.getAttribute('class')); } }; }
    get ownerSVGElement() { const svg = this.parentElement && this.parentElement.closest('svg'); return svg || null; }
    get dataset() { return datasetProxy(this); }
    get style() { return styleProxy(this); }
    focus() {} blur() {}
    get tabIndex() { const v = parseInt(this.getAttribute('tabindex'), 10); return Number.isNaN(v) ? -1 : v; }
    set tabIndex(v) { this.setAttribute('tabindex', String(v)); }
  }
  defineHandlers(SVGElement.prototype);
  class SVGGraphicsElement extends SVGElement {
    getBBox() { const r = this.getBoundingClientRect(); return new DOMRect(0, 0, r.width, r.height); }
  }
  class SVGSVGElement extends SVGGraphicsElement {
    createSVGPoint() { return { x: 0, y: 0, matrixTransform() { return this; } }; }
  }
  class MathMLElement extends Element {}
  class Attr {
    constructor(owner, name) { hidden(this, '_owner', owner); hidden(this, '_name', name); }
    get name() { return this._name; }
    get localName() { return this._name; }
    get nodeName() { return this._name; }
    get nodeType() { return 2; }
    get namespaceURI() { return null; }
    get prefix() { return null; }
    get specified() { return true; }
    get ownerElement() { return this._owner; }
    get value() { return toText(this._owner.getAttribute(this._name)); }
    set value(v) { this._owner.setAttribute(this._name, v); }
    get nodeValue() { return this.value; }
    get textContent() { return this.value; }
  }
  Object.setPrototypeOf(Attr.prototype, Node.prototype);
  class NamedNodeMap extends Array {
    item(i) { return this[i] || null; }
    getNamedItem(name) { const n = String(name).toLowerCase(); return this.find((a) => a.name === n) || null; }
    getNamedItemNS(_ns, name) { return this.getNamedItem(name); }
    static get [Symbol.species]() { return Array; }
  }
  const RECT = Symbol('rect');
  class DOMRectReadOnly {
    constructor(x = 0, y = 0, width = 0, height = 0) { Object.defineProperty(this, RECT, { value: { x: Number(x), y: Number(y), width: Number(width), height: Number(height) } }); }
    get x() { return this[RECT].x; }
    get y() { return this[RECT].y; }
    get width() { return this[RECT].width; }
    get height() { return this[RECT].height; }
    get left() { return Math.min(this.x, this.x + this.width); }
    get top() { return Math.min(this.y, this.y + this.height); }
    get right() { return Math.max(this.x, this.x + this.width); }
    get bottom() { return Math.max(this.y, this.y + this.height); }
    toJSON() { return { x: this.x, y: this.y, width: this.width, height: this.height, top: this.top, right: this.right, bottom: this.bottom, left: this.left }; }
    static fromRect(r = {}) { return new this(r.x, r.y, r.width, r.height); }
  }
  class DOMRect extends DOMRectReadOnly {
    get x() { return this[RECT].x; }
    set x(v) { this[RECT].x = Number(v); }
    get y() { return this[RECT].y; }
    set y(v) { this[RECT].y = Number(v); }
    get width() { return this[RECT].width; }
    set width(v) { this[RECT].width = Number(v); }
    get height() { return this[RECT].height; }
    set height(v) { this[RECT].height = Number(v); }
  }
  const ELEMENT_CLASSES = {
    ...MORE_ELEMENT_CLASSES, video: HTMLVideoElement, audio: HTMLAudioElement,
    input: HTMLInputElement, textarea: HTMLTextAreaElement, select: HTMLSelectElement, option: HTMLOptionElement,
    button: HTMLButtonElement, form: HTMLFormElement, a: HTMLAnchorElement, label: HTMLLabelElement, img: HTMLImageElement,
    script: HTMLScriptElement, template: HTMLTemplateElement, details: HTMLDetailsElement, dialog: HTMLDialogElement,
    canvas: HTMLCanvasElement, iframe: HTMLIFrameElement, div: HTMLDivElement, span: HTMLSpanElement,
    p: HTMLParagraphElement, h1: HTMLHeadingElement, h2: HTMLHeadingElement, h3: HTMLHeadingElement,
    h4: HTMLHeadingElement, h5: HTMLHeadingElement, h6: HTMLHeadingElement, body: HTMLBodyElement,
    html: HTMLHtmlElement, head: HTMLHeadElement, ul: HTMLUListElement, ol: HTMLOListElement, li: HTMLLIElement,
    table: HTMLTableElement, tr: HTMLTableRowElement, td: HTMLTableCellElement, th: HTMLTableCellElement,
    style: HTMLStyleElement, link: HTMLLinkElement, meta: HTMLMetaElement, title: HTMLTitleElement,
    pre: HTMLPreElement, br: HTMLBRElement, hr: HTMLHRElement, fieldset: HTMLFieldSetElement, legend: HTMLLegendElement,
  };
  const ELEMENT_CLASS_NAMES = {
    HTMLInputElement, HTMLTextAreaElement, HTMLSelectElement, HTMLOptionElement, HTMLButtonElement, HTMLFormElement,
    HTMLAnchorElement, HTMLLabelElement, HTMLImageElement, HTMLScriptElement, HTMLTemplateElement, HTMLDetailsElement,
    HTMLDialogElement, HTMLCanvasElement, HTMLIFrameElement, HTMLDivElement, HTMLSpanElement, HTMLParagraphElement,
    HTMLHeadingElement, HTMLBodyElement, HTMLHtmlElement, HTMLHeadElement, HTMLUListElement, HTMLOListElement,
    HTMLLIElement, HTMLTableElement, HTMLTableRowElement, HTMLTableCellElement, HTMLStyleElement, HTMLLinkElement,
    HTMLMetaElement, HTMLTitleElement, HTMLPreElement, HTMLBRElement, HTMLHRElement, HTMLFieldSetElement,
    HTMLLegendElement, HTMLUnknownElement, HTMLMediaElement, HTMLVideoElement, HTMLAudioElement,
    ...Object.fromEntries(Object.entries(MORE_ELEMENT_CLASSES).filter(([k]) => k.startsWith('HTML'))),
    SVGElement, SVGGraphicsElement, SVGSVGElement, MathMLElement, Attr, NamedNodeMap,
    NodeList, HTMLCollection, DOMRect, DOMRectReadOnly,
  };

  reflectAttributes(ELEMENT_CLASS_NAMES);

  class DocumentFragment extends Node {
    get nodeType() { return 11; }
    get nodeName() { return '#document-fragment'; }
    get parentNode() { return null; }
    get innerHTML() { return native.innerHTML(this[ID]); }
    set innerHTML(html) { retainWrapped(); native.setInnerHTML(this[ID], toText(html)); }
    getElementById(id) { return this.querySelector('#' + cssEscape(id)); }
  }
  mixin(DocumentFragment, parentNodeMixin);
  // Shadow roots are not supported (attachShadow throws); the class exists
  // for the `instanceof ShadowRoot` checks libraries make.
  class ShadowRoot extends DocumentFragment {}

  // ---- focus ---------------------------------------------------------------
  let activeElement = null;
  const isFocusable = (el) => {
    if (!(el instanceof HTMLElement) || !el.isConnected) return false;
    if (el.hasAttribute('disabled') && FORM_CONTROLS.includes(el.localName)) return false;
    if (el.hasAttribute('tabindex')) return true;
    switch (el.localName) {
      case 'a': case 'area': return el.hasAttribute('href');
      case 'input': return el.type !== 'hidden';
      case 'button': case 'select': case 'textarea': case 'iframe': case 'summary': return true;
      default: return el.isContentEditable;
    }
  };
  // Moves focus, firing blur/focusout on the old element and focus/focusin
  // on the new one; `null` focuses the body. A change event fires on blur
  // when the field's value changed while it had focus.
  // Events the browser itself fires are trusted, whoever caused them.
  const uaEvent = trust;
  const focusElement = (el) => {
    if (el !== null && !isFocusable(el)) return;
    if (el === activeElement) return;
    const old = activeElement;
    activeElement = el;
    if (old) {
      if (old.isConnected && valueOnFocus.has(old) && valueOnFocus.get(old) !== old.value) {
        old.dispatchEvent(uaEvent(new Event('change', { bubbles: true })));
      }
      valueOnFocus.delete(old);
      old.dispatchEvent(uaEvent(new FocusEvent('blur', { relatedTarget: el, view: g })));
      old.dispatchEvent(uaEvent(new FocusEvent('focusout', { bubbles: true, relatedTarget: el, view: g })));
    }
    if (el) {
      native.focus(el[ID]);
      if ('value' in el && (el.localName === 'input' || el.localName === 'textarea')) valueOnFocus.set(el, el.value);
      el.dispatchEvent(uaEvent(new FocusEvent('focus', { relatedTarget: old, view: g })));
      el.dispatchEvent(uaEvent(new FocusEvent('focusin', { bubbles: true, relatedTarget: old, view: g })));
    } else {
      native.blur();
    }
  };
  const valueOnFocus = new Map();

  // ---- mutation observers --------------------------------------------------
  const mutationObservers = [];
  let mutationsQueued = false;
  const queueMutation = (target, init) => {
    for (const mo of mutationObservers) {
      for (const { node, options } of mo._targets) {
        const inScope = node === target || (options.subtree && node.contains(target));
        if (!inScope) continue;
        if (init.type === 'childList' && !options.childList) continue;
        if (init.type === 'attributes' && !options.attributes) continue;
        if (init.type === 'attributes' && options.attributeFilter && !options.attributeFilter.includes(init.attributeName)) continue;
        if (init.type === 'characterData' && !options.characterData) continue;
        mo._records.push({
          type: init.type, target, addedNodes: init.addedNodes || [], removedNodes: init.removedNodes || [],
          previousSibling: null, nextSibling: init.nextSibling || null, attributeName: init.attributeName || null,
          attributeNamespace: null,
          oldValue: (init.type === 'attributes' && options.attributeOldValue) || (init.type === 'characterData' && options.characterDataOldValue) ? init.oldValue ?? null : null,
        });
        break;
      }
    }
    if (!mutationsQueued && mutationObservers.some((mo) => mo._records.length)) {
      mutationsQueued = true;
      queueMicrotask(() => {
        mutationsQueued = false;
        for (const mo of mutationObservers.slice()) {
          const records = mo.takeRecords();
          if (records.length) { try { mo._callback.call(mo, records, mo); } catch (e) { reportError(e); } }
        }
      });
    }
  };
  class MutationObserver {
    constructor(callback) {
      if (typeof callback !== 'function') throw new TypeError("Failed to construct 'MutationObserver': parameter 1 is not a function");
      hidden(this, '_callback', callback); hidden(this, '_targets', []); hidden(this, '_records', []);
    }
    observe(node, options = {}) {
      if (!(node instanceof Node)) throw new TypeError("Failed to execute 'observe': parameter 1 is not of type 'Node'");
      const o = { ...options };
      if (o.attributeOldValue || o.attributeFilter) o.attributes = o.attributes ?? true;
      if (o.characterDataOldValue) o.characterData = o.characterData ?? true;
      if (!o.childList && !o.attributes && !o.characterData) throw new TypeError("Failed to execute 'observe': The options object must set at least one of 'attributes', 'characterData', or 'childList' to true.");
      this._targets = this._targets.filter((t) => t.node !== node);
      this._targets.push({ node, options: o });
      if (!mutationObservers.includes(this)) mutationObservers.push(this);
    }
    disconnect() { this._targets = []; this._records = []; const i = mutationObservers.indexOf(this); if (i >= 0) mutationObservers.splice(i, 1); }
    takeRecords() { const r = this._records; this._records = []; return r; }
  }

  // ---- computed style ------------------------------------------------------
  // Resolved values: sizes, margins and paddings of a rendered element come
  // from layout, in px (what getComputedStyle gives), the rest from Stylo.
  const LAYOUT_PROPS = {
    width: (m, boxSizing) => m[0] - (boxSizing === 'border-box' ? 0 : m[2] + m[4] + m[6] + m[8]),
    height: (m, boxSizing) => m[1] - (boxSizing === 'border-box' ? 0 : m[3] + m[5] + m[7] + m[9]),
    'padding-left': (m) => m[2], 'padding-top': (m) => m[3], 'padding-right': (m) => m[4], 'padding-bottom': (m) => m[5],
    'margin-left': (m) => m[10], 'margin-top': (m) => m[11], 'margin-right': (m) => m[12], 'margin-bottom': (m) => m[13],
  };
  const px = (n) => `${Math.round(n * 1000) / 1000}px`;
  const resolvedStyle = (el, name) => {
    const layout = LAYOUT_PROPS[name];
    if (layout) {
      const m = native.boxMetrics(el[ID]);
      if (m) return px(layout(m, native.computedStyle(el[ID], 'box-sizing')));
    }
    return toText(native.computedStyle(el[ID], name));
  };
  const readOnlyStyle = () => { throw new DOMException("Failed to set a property on 'CSSStyleDeclaration': These styles are computed, and therefore read-only.", 'NoModificationAllowedError'); };
  const computedStyle = (el) => declarationProxy({
    read: (name) => (native.computedStyle(el[ID], name) === null ? '' : resolvedStyle(el, name)),
    write: readOnlyStyle,
    names: () => [],
    text: () => '',
    setText: readOnlyStyle,
  });

  // A new comment node (Blitz makes comments only by parsing), detached.
  const commentId = (text) => {
    const holder = native.createElement('div');
    native.setInnerHTML(holder, `<!--${text.replace(/--!?>/g, '')}-->`);
    const [id] = native.childNodes(holder);
    native.removeChild(holder, id);
    return id;
  };
  const HTML_NS = 'http://www.w3.org/1999/xhtml';
  class DocumentType {
    constructor(name, publicId = '', systemId = '') { Object.assign(this, { name, publicId, systemId }); }
    get nodeType() { return 10; }
    get nodeName() { return this.name; }
  }
  // Nodes outside the tree (no id), for `instanceof Node` and the prototype chain.
  Object.setPrototypeOf(DocumentType.prototype, Node.prototype);
  class Document extends Node {
    get documentElement() { return wrap(native.documentElement()); }
    get head() { return wrap(native.head()); }
    get body() { return wrap(native.body()); }
    set body(el) {
      if (!(el instanceof HTMLElement) || !['body', 'frameset'].includes(el.localName)) throw new DOMException("Failed to set the 'body' property on 'Document': The new body element is of type '" + (el && el.localName) + "'. It must be either a 'BODY' or 'FRAMESET' element.", 'HierarchyRequestError');
      const old = this.body;
      if (old) old.replaceWith(el); else this.documentElement.appendChild(el);
    }
    get title() { return native.title(); }
    set title(v) { native.setTitle(toText(v)); }
    get URL() { return native.url(); }
    get documentURI() { return native.url(); }
    get baseURI() { return native.resolveUrl('') || native.url(); }
    get location() { return location; }
    get readyState() { return readyState; }
    get defaultView() { return g; }
    get characterSet() { return 'UTF-8'; }
    get charset() { return this.characterSet; }
    get inputEncoding() { return this.characterSet; }
    get contentType() { return 'text/html'; }
    get compatMode() { return native.doctype() === 'html' ? 'CSS1Compat' : 'BackCompat'; }
    get doctype() {
      const name = native.doctype();
      return name === null || name === undefined ? null : new DocumentType(name);
    }
    get visibilityState() { return 'visible'; }
    get hidden() { return false; }
    get referrer() { return ''; }
    // What the host's cookie jar holds for this URL, HttpOnly cookies left out.
    get cookie() { return native.documentCookies(); }
    set cookie(v) { native.setDocumentCookie(toText(v)); }
    get activeElement() { return activeElement && activeElement.isConnected ? activeElement : this.body; }
    get currentScript() { return currentScript; }
    get scrollingElement() { return this.documentElement; }
    get forms() { return this.querySelectorAll('form'); }
    get images() { return this.querySelectorAll('img'); }
    get links() { return this.querySelectorAll('a[href], area[href]'); }
    get scripts() { return this.querySelectorAll('script'); }
    get embeds() { return this.querySelectorAll('embed'); }
    get lastModified() { return '01/01/1970 00:00:00'; }
    get domain() { return location.hostname; }
    set domain(v) { if (toText(v) !== location.hostname) throw new DOMException(`Failed to set the 'domain' property on 'Document': '${toText(v)}' is not a suffix of '${location.hostname}'.`, 'SecurityError'); }
    get designMode() { return 'off'; }
    get fonts() { return { ready: Promise.resolve(), check: () => true, load: () => Promise.resolve([]), add() {}, forEach() {} }; }
    get implementation() { return implementation; }
    getElementById(id) { return wrap(native.getElementById(String(id))); }
    getElementsByName(name) { return this.querySelectorAll(`[name="${cssEscape(name)}"]`); }
    createElement(tag) { return wrap(native.createElement(String(tag))); }
    // HTML elements are lower-cased as createElement makes them; others
    // (SVG, MathML, XML) keep their namespace and case.
    createElementNS(ns, tag) {
      const namespace = ns === null || ns === undefined ? '' : String(ns);
      if (namespace === HTML_NS) return this.createElement(tag);
      return wrap(native.createElementNS(namespace, String(tag)));
    }
    createTextNode(text) { return wrap(native.createTextNode(toText(text))); }
    createComment(text) { return wrap(commentId(toText(text))); }
    createDocumentFragment() {
      const id = native.createElement('fleet-fragment');
      fragmentIds.add(id);
      wrappers.delete(id);
      return wrap(id);
    }
    createEvent(kind) {
      const classes = { event: Event, events: Event, htmlevents: Event, customevent: CustomEvent, uievent: UIEvent, uievents: UIEvent, mouseevent: MouseEvent, mouseevents: MouseEvent, keyboardevent: KeyboardEvent, focusevent: FocusEvent };
      const Cls = classes[String(kind).toLowerCase()];
      if (!Cls) throw new DOMException(`The provided event type ('${kind}') is invalid.`, 'NotSupportedError');
      return new Cls('');
    }
    createRange() { return new Range(); }
    createTreeWalker(root, whatToShow = 0xFFFFFFFF, filter = null) { return new TreeWalker(root, whatToShow, filter); }
    createNodeIterator(root, whatToShow = 0xFFFFFFFF, filter = null) { return new NodeIterator(root, whatToShow, filter); }
    // One document per tab: a node from an inert document (DOMParser,
    // createHTMLDocument) is already in this tree, detached, so importing
    // copies it and adopting only detaches it.
    importNode(node, deep = false) { if (node instanceof Document || node instanceof InertDocument) throw new DOMException('A document cannot be imported.', 'NotSupportedError'); return node.cloneNode(deep); }
    adoptNode(node) { if (node instanceof Document || node instanceof InertDocument) throw new DOMException('A document cannot be adopted.', 'NotSupportedError'); if (node.parentNode) node.parentNode.removeChild(node); return node; }
    getSelection() { return g.getSelection(); }
    elementFromPoint(x, y) { return wrap(native.elementFromPoint(Number(x), Number(y))); }
    elementsFromPoint(x, y) { const el = this.elementFromPoint(x, y); const out = []; for (let e = el; e; e = e.parentElement) out.push(e); return out; }
    execCommand() { return false; }
    queryCommandSupported() { return false; }
    open() { return this; }
    close() {}
    write(...parts) { documentWrite(parts.map(toText).join('')); }
    writeln(...parts) { this.write(...parts, '\n'); }
    hasFocus() { return true; }
  }
  mixin(Document, parentNodeMixin);
  defineHandlers(Document.prototype);
  // The page's document is an HTML document, as in browsers.
  class HTMLDocument extends Document {}
  let currentScript = null;

  const document = wrap(native.documentNode());

  // ---- custom elements ------------------------------------------------------
  // customElements.define(name, class): elements of that name, already in
  // the document and made later, become instances of the class (its
  // constructor runs as an upgrade: `super()` returns the element), and get
  // connectedCallback / disconnectedCallback as they enter and leave the
  // document and attributeChangedCallback for their observedAttributes.
  // Blitz's :defined never matches, so styles keyed on it do not apply.
  const customDefinitions = new Map();
  const definitionWaiters = new Map();
  const upgraded = new WeakSet();
  let upgrading = null;
  const definitionOf = (cls) => { for (const d of customDefinitions.values()) if (d.cls === cls) return d; return null; };
  const CUSTOM_NAME = /^[a-z][a-z0-9._\u00b7\u00c0-\uffff]*-[a-z0-9._\-\u00b7\u00c0-\uffff]*$/;
  const RESERVED_NAMES = ['annotation-xml', 'color-profile', 'font-face', 'font-face-src', 'font-face-uri', 'font-face-format', 'font-face-name', 'missing-glyph'];
  const reaction = (el, name, ...args) => {
    const fn = el[name];
    if (typeof fn !== 'function') return;
    try { fn.apply(el, args); } catch (e) { reportError(e); }
  };
  const observesAttribute = (el, name) => {
    if (!customDefinitions.size || !upgraded.has(el)) return false;
    const def = customDefinitions.get(el.localName);
    return !!def && def.observed.has(String(name).toLowerCase());
  };
  const upgrade = (id, def, connect = true) => {
    let el = wrappers.get(id);
    if (el && upgraded.has(el)) return el;
    if (el) Object.setPrototypeOf(el, def.cls.prototype);
    else { el = Object.create(def.cls.prototype); Object.defineProperty(el, ID, { value: id }); wrappers.set(id, el); unretained.push(id); }
    upgraded.add(el);
    // A constructor may make (and so upgrade) other custom elements before
    // its `super()`: each upgrade puts back the one around it.
    const outer = upgrading;
    upgrading = el;
    try {
      if (new def.cls() !== el) throw new TypeError(`the constructor of <${def.name}> did not return the element it upgraded`);
    } catch (e) {
      reportError(e);
    } finally {
      upgrading = outer;
    }
    for (const name of def.observed) {
      const value = el.getAttribute(name);
      if (value !== null) reaction(el, 'attributeChangedCallback', name, null, value);
    }
    if (connect && el.isConnected) reaction(el, 'connectedCallback');
    return el;
  };
  // What the parser does for a defined custom element: construct it bare,
  // append its attributes (attributeChangedCallback for the observed ones),
  // insert it (connectedCallback).
  const createAsParsed = (id, def) => {
    const attributes = native.attributeNames(id).map((name) => [name, native.getAttribute(id, name)]);
    for (const [name] of attributes) native.removeAttribute(id, name);
    const el = upgrade(id, { ...def, observed: new Set() }, false);
    for (const [name, value] of attributes) {
      native.setAttribute(id, name, value);
      if (def.observed.has(name)) reaction(el, 'attributeChangedCallback', name, null, value);
    }
    if (el.isConnected) reaction(el, 'connectedCallback');
  };
  const customIn = (root) => {
    if (!customDefinitions.size || root.nodeType !== 1) return [];
    const selector = [...customDefinitions.keys()].join(',');
    const found = native.querySelectorAll(root[ID], selector);
    if (customDefinitions.has(root.localName)) found.unshift(root[ID]);
    return found;
  };
  // `root` was inserted into the document: upgrade its custom elements, or
  // tell the upgraded ones they are connected.
  const connected = (root) => {
    for (const id of customIn(root)) {
      const el = wrappers.get(id);
      if (el && upgraded.has(el)) reaction(el, 'connectedCallback');
      else wrap(id);
    }
  };
  const disconnected = (root) => {
    for (const id of customIn(root)) {
      const el = wrappers.get(id);
      if (el && upgraded.has(el)) reaction(el, 'disconnectedCallback');
    }
  };
  class CustomElementRegistry {
    define(name, cls, options = undefined) {
      name = toText(name);
      if (typeof cls !== 'function' || !(cls.prototype instanceof HTMLElement)) throw new TypeError("Failed to execute 'define' on 'CustomElementRegistry': The provided value is not a constructor of an HTMLElement subclass.");
      if (!CUSTOM_NAME.test(name) || RESERVED_NAMES.includes(name)) throw new DOMException(`Failed to execute 'define' on 'CustomElementRegistry': "${name}" is not a valid custom element name`, 'SyntaxError');
      if (customDefinitions.has(name)) throw new DOMException(`Failed to execute 'define' on 'CustomElementRegistry': the name "${name}" has already been used with this registry`, 'NotSupportedError');
      if (definitionOf(cls)) throw new DOMException("Failed to execute 'define' on 'CustomElementRegistry': this constructor has already been used with this registry", 'NotSupportedError');
      if (options && options.extends) native.console('warn', `customElements.define("${name}"): customized built-in elements (extends: '${options.extends}') are not upgraded by this engine`);
      const observed = new Set(Array.from(cls.observedAttributes || [], (a) => String(a).toLowerCase()));
      const def = { name, cls, observed };
      customDefinitions.set(name, def);
      if (!(options && options.extends)) for (const id of native.querySelectorAll(document[ID], name)) upgrade(id, def);
      for (const resolve of definitionWaiters.get(name) || []) resolve(cls);
      definitionWaiters.delete(name);
    }
    get(name) { const d = customDefinitions.get(toText(name)); return d ? d.cls : undefined; }
    getName(cls) { const d = definitionOf(cls); return d ? d.name : null; }
    whenDefined(name) {
      name = toText(name);
      if (!CUSTOM_NAME.test(name)) return Promise.reject(new DOMException(`"${name}" is not a valid custom element name`, 'SyntaxError'));
      const d = customDefinitions.get(name);
      if (d) return Promise.resolve(d.cls);
      return new Promise((resolve) => { const list = definitionWaiters.get(name) || []; list.push(resolve); definitionWaiters.set(name, list); });
    }
    upgrade(root) { if (root instanceof Node) for (const id of customIn(root)) wrap(id); }
  }
  const customElements = new CustomElementRegistry();

  // ---- traversal: TreeWalker, NodeIterator ---------------------------------
  const NodeFilter = {
    FILTER_ACCEPT: 1, FILTER_REJECT: 2, FILTER_SKIP: 3,
    SHOW_ALL: 0xFFFFFFFF, SHOW_ELEMENT: 0x1, SHOW_ATTRIBUTE: 0x2, SHOW_TEXT: 0x4, SHOW_CDATA_SECTION: 0x8,
    SHOW_PROCESSING_INSTRUCTION: 0x40, SHOW_COMMENT: 0x80, SHOW_DOCUMENT: 0x100, SHOW_DOCUMENT_TYPE: 0x200,
    SHOW_DOCUMENT_FRAGMENT: 0x400,
  };
  // The filter's verdict on `node`, after whatToShow.
  const verdict = (traversal, node) => {
    if (!(traversal.whatToShow & (1 << (node.nodeType - 1)))) return 3;
    const filter = traversal.filter;
    if (filter === null || filter === undefined) return 1;
    if (traversal._active) throw new DOMException('The filter is already running.', 'InvalidStateError');
    traversal._active = true;
    try {
      return Number(typeof filter === 'function' ? filter.call(undefined, node) : filter.acceptNode(node));
    } finally {
      traversal._active = false;
    }
  };
  class TreeWalker {
    constructor(root, whatToShow, filter) {
      if (!(root instanceof Node)) throw new TypeError("Failed to execute 'createTreeWalker' on 'Document': parameter 1 is not of type 'Node'.");
      hidden(this, '_walk', { root, whatToShow: whatToShow >>> 0, filter, current: root });
      hidden(this, '_active', false);
    }
    get root() { return this._walk.root; }
    get whatToShow() { return this._walk.whatToShow; }
    get filter() { return this._walk.filter; }
    get currentNode() { return this._walk.current; }
    set currentNode(node) { if (!(node instanceof Node)) throw new TypeError("Failed to set the 'currentNode' property on 'TreeWalker': The provided value is not of type 'Node'."); this._walk.current = node; }
    parentNode() {
      for (let node = this.currentNode; node && node !== this.root;) {
        node = node.parentNode;
        if (node && verdict(this, node) === 1) { this.currentNode = node; return node; }
      }
      return null;
    }
    _children(first) {
      let node = first ? this.currentNode.firstChild : this.currentNode.lastChild;
      while (node) {
        const v = verdict(this, node);
        if (v === 1) { this.currentNode = node; return node; }
        if (v === 3) { const child = first ? node.firstChild : node.lastChild; if (child) { node = child; continue; } }
        while (node) {
          const sibling = first ? node.nextSibling : node.previousSibling;
          if (sibling) { node = sibling; break; }
          const parent = node.parentNode;
          if (!parent || parent === this.root || parent === this.currentNode) return null;
          node = parent;
        }
      }
      return null;
    }
    firstChild() { return this._children(true); }
    lastChild() { return this._children(false); }
    _siblings(next) {
      let node = this.currentNode;
      if (node === this.root) return null;
      for (;;) {
        let sibling = next ? node.nextSibling : node.previousSibling;
        while (sibling) {
          node = sibling;
          const v = verdict(this, node);
          if (v === 1) { this.currentNode = node; return node; }
          sibling = next ? node.firstChild : node.lastChild;
          if (v === 2 || !sibling) sibling = next ? node.nextSibling : node.previousSibling;
        }
        node = node.parentNode;
        if (!node || node === this.root) return null;
        if (verdict(this, node) === 1) return null;
      }
    }
    nextSibling() { return this._siblings(true); }
    previousSibling() { return this._siblings(false); }
    previousNode() {
      let node = this.currentNode;
      while (node !== this.root) {
        let sibling = node.previousSibling;
        while (sibling) {
          node = sibling;
          let v = verdict(this, node);
          while (v !== 2 && node.lastChild) { node = node.lastChild; v = verdict(this, node); }
          if (v === 1) { this.currentNode = node; return node; }
          sibling = node.previousSibling;
        }
        if (node === this.root || !node.parentNode) return null;
        node = node.parentNode;
        if (verdict(this, node) === 1) { this.currentNode = node; return node; }
      }
      return null;
    }
    nextNode() {
      let node = this.currentNode;
      let v = 1;
      for (;;) {
        while (v !== 2 && node.firstChild) {
          node = node.firstChild;
          v = verdict(this, node);
          if (v === 1) { this.currentNode = node; return node; }
        }
        let sibling = null;
        for (let n = node; n; n = n.parentNode) {
          if (n === this.root) return null;
          sibling = n.nextSibling;
          if (sibling) break;
        }
        if (!sibling) return null;
        node = sibling;
        v = verdict(this, node);
        if (v === 1) { this.currentNode = node; return node; }
      }
    }
  }
  // The node after `node` in document order, within `root` (null past it).
  const following = (node, root) => {
    if (node.firstChild) return node.firstChild;
    for (let n = node; n && n !== root; n = n.parentNode) if (n.nextSibling) return n.nextSibling;
    return null;
  };
  const preceding = (node, root) => {
    if (node === root) return null;
    let n = node.previousSibling;
    if (!n) return node.parentNode;
    while (n.lastChild) n = n.lastChild;
    return n;
  };
  class NodeIterator {
    constructor(root, whatToShow, filter) {
      if (!(root instanceof Node)) throw new TypeError("Failed to execute 'createNodeIterator' on 'Document': parameter 1 is not of type 'Node'.");
      Object.defineProperties(this, { root: { value: root, enumerable: true }, whatToShow: { value: whatToShow >>> 0, enumerable: true }, filter: { value: filter, enumerable: true } });
      hidden(this, '_active', false);
      hidden(this, '_reference', root);
      hidden(this, '_before', true);
    }
    get referenceNode() { return this._reference; }
    get pointerBeforeReferenceNode() { return this._before; }
    _move(forward) {
      let node = this._reference;
      let before = this._before;
      for (;;) {
        if (forward) {
          if (!before) { node = following(node, this.root); if (!node) return null; } else before = false;
        } else if (before) { node = preceding(node, this.root); if (!node) return null; } else before = true;
        if (verdict(this, node) === 1) break;
      }
      this._reference = node;
      this._before = before;
      return node;
    }
    nextNode() { return this._move(true); }
    previousNode() { return this._move(false); }
    detach() {}
  }

  // ---- ranges ---------------------------------------------------------------
  // Boundary points, text, contents and fragments of a Range; its boxes are
  // those of the element around its start (layout has no inline fragments
  // to offer here).
  const nodeLength = (n) => (n.nodeType === 3 || n.nodeType === 8 ? n.textContent.length : kids(n).length);
  const indexIn = (n) => { const p = n.parentNode; return p ? kids(p).indexOf(n) : 0; };
  // The position of boundary point (a, aOffset) relative to (b, bOffset):
  // -1 before, 0 equal, 1 after (the DOM standard's algorithm).
  const comparePoints = (a, aOffset, b, bOffset) => {
    if (a === b) return Math.sign(aOffset - bOffset);
    const position = a.compareDocumentPosition(b);
    if (position & 2) return -comparePoints(b, bOffset, a, aOffset);
    if (position & 16) {
      let child = b;
      while (child.parentNode !== a) child = child.parentNode;
      return indexIn(child) < aOffset ? 1 : -1;
    }
    return -1;
  };
  class Range {
    constructor() {
      this.startContainer = document; this.startOffset = 0;
      this.endContainer = document; this.endOffset = 0;
    }
    get collapsed() { return this.startContainer === this.endContainer && this.startOffset === this.endOffset; }
    get commonAncestorContainer() {
      for (let n = this.startContainer; n; n = n.parentNode) if (n === this.endContainer || n.contains(this.endContainer)) return n;
      return document;
    }
    _check(node, offset) {
      if (!(node instanceof Node)) throw new TypeError("parameter 1 is not of type 'Node'.");
      if (offset < 0 || offset > nodeLength(node)) throw new DOMException(`There is no child at offset ${offset}.`, 'IndexSizeError');
    }
    setStart(node, offset) { this._check(node, offset); this.startContainer = node; this.startOffset = offset >>> 0; if (this._after()) this.collapse(true); }
    setEnd(node, offset) { this._check(node, offset); this.endContainer = node; this.endOffset = offset >>> 0; if (this._after()) this.collapse(false); }
    _after() { return comparePoints(this.startContainer, this.startOffset, this.endContainer, this.endOffset) > 0; }
    setStartBefore(n) { this.setStart(n.parentNode, indexIn(n)); }
    setStartAfter(n) { this.setStart(n.parentNode, indexIn(n) + 1); }
    setEndBefore(n) { this.setEnd(n.parentNode, indexIn(n)); }
    setEndAfter(n) { this.setEnd(n.parentNode, indexIn(n) + 1); }
    selectNode(n) { this.setStart(n.parentNode, indexIn(n)); this.setEnd(n.parentNode, indexIn(n) + 1); }
    selectNodeContents(n) { this.startContainer = n; this.startOffset = 0; this.endContainer = n; this.endOffset = nodeLength(n); }
    collapse(toStart = false) {
      if (toStart) { this.endContainer = this.startContainer; this.endOffset = this.startOffset; } else { this.startContainer = this.endContainer; this.startOffset = this.endOffset; }
    }
    cloneRange() { const r = new Range(); Object.assign(r, { startContainer: this.startContainer, startOffset: this.startOffset, endContainer: this.endContainer, endOffset: this.endOffset }); return r; }
    detach() {}
    // Text nodes inside the range, with the part of each that is inside.
    _texts() {
      const out = [];
      const root = this.commonAncestorContainer;
      for (let node = root; node; node = following(node, root)) {
        if (node.nodeType !== 3) continue;
        const length = node.textContent.length;
        if (comparePoints(node, length, this.startContainer, this.startOffset) <= 0 && length > 0) continue;
        if (comparePoints(node, 0, this.endContainer, this.endOffset) >= 0) break;
        const from = node === this.startContainer ? this.startOffset : 0;
        const to = node === this.endContainer ? this.endOffset : length;
        out.push([node, from, to]);
      }
      return out;
    }
    toString() { return this._texts().map(([n, from, to]) => n.textContent.slice(from, to)).join(''); }
    createContextualFragment(html) {
      const holder = document.createElement('div');
      holder.innerHTML = toText(html);
      const fragment = document.createDocumentFragment();
      fragment.append(...kids(holder));
      return fragment;
    }
    cloneContents() {
      const fragment = document.createDocumentFragment();
      if (this.startContainer === this.endContainer && this.startContainer.nodeType === 3) {
        fragment.appendChild(document.createTextNode(this.toString()));
        return fragment;
      }
      const parent = this.commonAncestorContainer;
      if (this.startContainer === parent && this.endContainer === parent) {
        for (const c of kids(parent).slice(this.startOffset, this.endOffset)) fragment.appendChild(c.cloneNode(true));
        return fragment;
      }
      fragment.appendChild(document.createTextNode(this.toString()));
      return fragment;
    }
    deleteContents() {
      const parent = this.commonAncestorContainer;
      if (this.startContainer === parent && this.endContainer === parent && parent.nodeType !== 3) {
        for (const c of kids(parent).slice(this.startOffset, this.endOffset)) parent.removeChild(c);
      } else {
        for (const [n, from, to] of this._texts()) n.textContent = n.textContent.slice(0, from) + n.textContent.slice(to);
      }
      this.collapse(true);
    }
    extractContents() { const f = this.cloneContents(); this.deleteContents(); return f; }
    insertNode(node) {
      const c = this.startContainer;
      if (c.nodeType === 3) {
        const rest = c.splitText(this.startOffset);
        c.parentNode.insertBefore(node, rest);
      } else {
        c.insertBefore(node, kids(c)[this.startOffset] || null);
      }
    }
    surroundContents(parent) { const f = this.extractContents(); parent.appendChild(f); this.insertNode(parent); this.selectNode(parent); }
    compareBoundaryPoints(how, other) {
      const [mine, theirs] = [[0, 'start', 'start'], [1, 'end', 'start'], [2, 'end', 'end'], [3, 'start', 'end']].find((h) => h[0] === Number(how)).slice(1);
      return comparePoints(this[mine + 'Container'], this[mine + 'Offset'], other[theirs + 'Container'], other[theirs + 'Offset']);
    }
    isPointInRange(node, offset) { return comparePoints(node, offset, this.startContainer, this.startOffset) >= 0 && comparePoints(node, offset, this.endContainer, this.endOffset) <= 0; }
    intersectsNode(n) { const r = this.commonAncestorContainer; return r === n || r.contains(n) || n.contains(r); }
    _element() { const c = this.startContainer; const at = c.nodeType === 1 ? kids(c)[this.startOffset] : null; return c.nodeType === 1 ? (at && at.nodeType === 1 ? at : c) : c.parentElement; }
    getBoundingClientRect() { const el = this._element(); return el && el.getBoundingClientRect ? el.getBoundingClientRect() : { x: 0, y: 0, width: 0, height: 0, top: 0, left: 0, right: 0, bottom: 0 }; }
    getClientRects() { const el = this._element(); return el && el.getClientRects ? el.getClientRects() : []; }
  }
  Object.assign(Range, { START_TO_START: 0, START_TO_END: 1, END_TO_END: 2, END_TO_START: 3 });

  // ---- inert documents (DOMParser, createHTMLDocument) ----------------------
  // A document of its own for markup a script parses: its nodes live in this
  // tab's tree, detached from it (one document per tab), under an <html>
  // element of their own. Scripts in it never run.
  class InertDocument extends Node {
    constructor(html, contentType = 'text/html') {
      creating = html[ID];
      super();
      hidden(this, '_html', html);
      hidden(this, '_type', contentType);
    }
    get nodeType() { return 9; }
    get nodeName() { return '#document'; }
    get parentNode() { return null; }
    get ownerDocument() { return null; }
    get isConnected() { return false; }
    get childNodes() { return nodeList([this._html[ID]]); }
    get firstChild() { return this._html; }
    get lastChild() { return this._html; }
    get children() { return nodeList(this._html.nodeType === 1 ? [this._html[ID]] : []); }
    get documentElement() { return this._html; }
    get head() { return this._html.querySelector('head'); }
    get body() { return this._html.querySelector('body'); }
    get title() { const t = this._html.querySelector('title'); return t ? t.textContent.replace(/\s+/g, ' ').trim() : ''; }
    set title(v) { let t = this._html.querySelector('title'); if (!t) { t = document.createElement('title'); (this.head || this._html).appendChild(t); } t.textContent = toText(v); }
    get URL() { return 'about:blank'; }
    get documentURI() { return 'about:blank'; }
    get readyState() { return 'complete'; }
    get defaultView() { return null; }
    get contentType() { return this._type; }
    get characterSet() { return 'UTF-8'; }
    get charset() { return this.characterSet; }
    get inputEncoding() { return this.characterSet; }
    get location() { return null; }
    get cookie() { return ''; }
    set cookie(_) {}
    get implementation() { return implementation; }
    get textContent() { return null; }
    querySelector(selector) { return this._html.matches(selector) ? this._html : this._html.querySelector(selector); }
    querySelectorAll(selector) { const list = this._html.querySelectorAll(selector); if (this._html.matches(selector)) list.unshift(this._html); return list; }
    getElementById(id) { return this.querySelector('#' + cssEscape(id)); }
    getElementsByTagName(tag) { return this.querySelectorAll(String(tag) === '*' ? '*' : cssEscape(String(tag))); }
    getElementsByClassName(names) { const classes = String(names).trim().split(/\s+/).filter(Boolean); return classes.length ? this.querySelectorAll(classes.map((c) => '.' + cssEscape(c)).join('')) : []; }
    getElementsByName(name) { return this.querySelectorAll(`[name="${cssEscape(name)}"]`); }
    createElement(tag) { return document.createElement(tag); }
    createElementNS(ns, tag) { return document.createElementNS(ns, tag); }
    createTextNode(text) { return document.createTextNode(text); }
    createComment(text) { return document.createComment(text); }
    createDocumentFragment() { return document.createDocumentFragment(); }
    createRange() { return new Range(); }
    createTreeWalker(root, what, filter) { return new TreeWalker(root, what, filter); }
    importNode(node, deep) { return document.importNode(node, deep); }
    adoptNode(node) { return document.adoptNode(node); }
    appendChild(child) { return this._html.appendChild(child); }
    cloneNode() { return new InertDocument(this._html.cloneNode(true), this._type); }
  }
  // An inert HTML document holding `markup` (its own <html>, <head> and
  // <body> as the parser makes them, whatever `markup` has).
  const inertHtml = (markup) => {
    const html = document.createElement('html');
    html.innerHTML = toText(markup);
    if (!html.querySelector('head')) html.insertBefore(document.createElement('head'), html.firstChild);
    if (!html.querySelector('body')) html.appendChild(document.createElement('body'));
    return new InertDocument(html);
  };
  const implementation = {
    createHTMLDocument(title) {
      const doc = inertHtml('');
      if (title !== undefined) doc.title = title;
      return doc;
    },
    hasFeature: () => true,
    createDocumentType: (name, publicId, systemId) => ({ nodeType: 10, nodeName: name, name, publicId, systemId }),
  };

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
  // JSON text of its structured serialization (indexeddb.js's, set in
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

  // ---- task queue ----------------------------------------------------------
  // Tasks queued by the platform (events fired "in a task", network
  // responses): one per turn of the engine's event loop, in order.
  const taskQueue = [];
  const queueTask = (fn) => { taskQueue.push(fn); };

  // ---- storage -------------------------------------------------------------
  // A Storage object is a Proxy so that `localStorage.key = v` and
  // `localStorage.key` work as in browsers, not only getItem/setItem.
  // Its methods live on Storage.prototype, over the area's backend in a slot
  // (configurable, so that `ownKeys` may leave it out: Object.keys lists items).
  const STORE = Symbol('storage area');
  class Storage {
    getItem(key) { return this[STORE].get(String(key)); }
    setItem(key, value) { this[STORE].set(String(key), String(value)); }
    removeItem(key) { this[STORE].remove(String(key)); }
    clear() { this[STORE].clear(); }
    key(index) { return this[STORE].key(Number(index) || 0); }
    get length() { return this[STORE].length(); }
  }
  // The window's interface: its prototype sits in the global object's chain
  // (under the named-access lookup), so `window instanceof Window` holds.
  class Window extends EventTarget {}
  const makeStorage = (backend) => new Proxy(Object.defineProperty(Object.create(Storage.prototype), STORE, { value: backend, configurable: true }), {
    get(target, k, receiver) {
      if (typeof k !== 'string' || k in target) return Reflect.get(target, k, receiver);
      const v = backend.get(k);
      return v === null ? undefined : v;
    },
    set(target, k, v) { if (typeof k === 'string') backend.set(k, String(v)); return true; },
    has(target, k) { return k in target || (typeof k === 'string' && backend.get(k) !== null); },
    deleteProperty(_, k) { if (typeof k === 'string') backend.remove(k); return true; },
    ownKeys() { return backend.keys(); },
    getOwnPropertyDescriptor(_, k) {
      if (typeof k !== 'string') return undefined;
      const v = backend.get(k);
      return v === null ? undefined : { value: v, writable: true, enumerable: true, configurable: true };
    },
  });
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
  // The engine does not wait for a timer: when nothing else is due it runs
  // the next timer at once and the page's clock skips ahead to that timer's
  // due time. Page time is real time plus the time skipped (`skew`), and
  // Date, performance.now(), event time stamps and requestAnimationFrame all
  // read it, so a page that measures elapsed time sees its timers keep time.
  const RealDate = Date;
  const realNow = RealDate.now;
  let skew = 0;
  const timeOrigin = realNow();
  const pageNow = () => realNow() + skew;
  // Page milliseconds since the realm was created (what performance.now() says).
  const elapsed = () => pageNow() - timeOrigin;
  const PageDate = function Date(...args) {
    // `Date()` called as a function is the current time as a string.
    if (new.target === undefined) return new RealDate(pageNow()).toString();
    return Reflect.construct(RealDate, args.length ? args : [pageNow()], new.target);
  };
  Object.defineProperty(PageDate, 'length', { value: 7 });
  Object.defineProperty(PageDate, 'prototype', { value: RealDate.prototype });
  Object.defineProperty(RealDate.prototype, 'constructor', { value: PageDate, writable: true, configurable: true });
  for (const name of ['parse', 'UTC']) hidden(PageDate, name, RealDate[name]);
  hidden(PageDate, 'now', function now() { return pageNow(); });
  g.Date = PageDate;
  let timerSeq = 0;
  const timers = new Map();
  const addTimer = (fn, ms, args, repeat) => {
    if (typeof fn === 'string') { const src = fn; fn = () => (0, eval)(src); }
    if (typeof fn !== 'function') return 0;
    const delay = Math.max(0, Number(ms) || 0);
    const id = ++timerSeq;
    timers.set(id, { fn, args, at: elapsed() + delay, delay, repeat });
    return id;
  };
  const clearTimer = (id) => { timers.delete(id); };
  // Animation frames: the callbacks asked for before a frame all run in it,
  // in order, with the frame's one time stamp; those they ask for wait for
  // the next frame (16 ms later).
  let frameCallbacks = new Map();
  let frameSeq = 0;
  let frameTimer = 0;
  const runFrame = () => {
    const callbacks = frameCallbacks;
    frameCallbacks = new Map();
    frameTimer = 0;
    const now = elapsed();
    for (const fn of callbacks.values()) {
      try { fn(now); } catch (e) { reportError(e); }
    }
  };
  // CSS animations do not run here, but their `animationstart` is how
  // libraries learn that an element was rendered (the "detect node
  // insertion" idiom: Chart.js builds its size monitor on it). An element
  // that gets an `animationstart` listener is looked at in the next frame:
  // once rendered with an animation-name, it gets the event for each name,
  // once, as a browser starting those animations would fire it.
  const animationWatch = new Set();
  const animationsStarted = new WeakMap();
  let animationTimer = 0;
  const startAnimations = () => {
    animationTimer = 0;
    const watched = [...animationWatch];
    animationWatch.clear();
    for (const el of watched) {
      if (!el.isConnected || native.computedStyle(el[ID], 'display') === 'none') continue;
      const names = toText(native.computedStyle(el[ID], 'animation-name')).split(',').map((n) => n.trim()).filter((n) => n && n !== 'none');
      let started = animationsStarted.get(el);
      if (!started) { started = new Set(); animationsStarted.set(el, started); }
      for (const name of names) {
        if (started.has(name)) continue;
        started.add(name);
        try { el.dispatchEvent(new AnimationEvent('animationstart', { animationName: name, bubbles: true })); } catch (e) { reportError(e); }
      }
    }
  };
  const watchAnimation = (el) => {
    animationWatch.add(el);
    if (!animationTimer) animationTimer = addTimer(startAnimations, 16, [], false);
  };
  const requestAnimationFrame = (fn) => {
    if (typeof fn !== 'function') throw new TypeError("Failed to execute 'requestAnimationFrame' on 'Window': The callback provided as parameter 1 is not a function.");
    const id = ++frameSeq;
    frameCallbacks.set(id, fn);
    if (!frameTimer) frameTimer = addTimer(runFrame, 16, [], false);
    return id;
  };
  // Other task sources (IndexedDB): `runTask()` runs one due task and says
  // whether it did; `endTask()` is called when a task and its microtasks end.
  const taskSources = [{
    runTask() {
      const fn = taskQueue.shift();
      if (!fn) return false;
      try { fn(); } catch (e) { reportError(e); }
      return true;
    },
    endTask() {},
  }];
  // Runs one task: 2 for a task of another source (always due), 1 for a timer
  // due by `limit` (page ms since the time origin, see `clock`), 0 when
  // nothing was due.
  const runNextTimer = (limit) => {
    for (const source of taskSources) if (source.runTask()) return 2;
    let nextId = 0;
    let next = null;
    for (const [id, t] of timers) if (!next || t.at < next.at) { next = t; nextId = id; }
    if (!next || next.at > limit) return 0;
    const now = elapsed();
    if (next.at > now) skew += next.at - now;
    if (next.repeat) next.at = elapsed() + Math.max(next.delay, 4); else timers.delete(nextId);
    try { next.fn.apply(g, next.args); } catch (e) { reportError(e); }
    return 1;
  };
  const endTask = () => {
    for (const source of taskSources) {
      try { source.endTask(); } catch (e) { reportError(e); }
    }
  };

  // ---- window --------------------------------------------------------------
  const viewport = () => native.viewport();
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
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) servo-fleet/0.1 (Blitz; QuickJS)',
      appName: 'Netscape', appVersion: '5.0', product: 'Gecko', vendor: '',
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
    if (isIndex(key)) { const frame = frameElements()[Number(key)]; return frame ? frameWindow(frame) || undefined : undefined; }
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

  // The realm starts before any page script runs: what the options' markup
  // selected is what reset() returns to.
  rememberInitialState();

  // ---- hooks for the engine ------------------------------------------------
  return {
    // The document's scripts are about to run.
    startLoad() {
      readyState = 'loading';
      for (const sc of document.querySelectorAll('script')) { parserScripts.add(sc); startedScripts.add(sc); }
      // Blitz parses as a browser without scripts would, making elements of
      // what <noscript> holds; a browser that runs scripts keeps it as text,
      // so scripts never find those elements (Sphinx's search page checks
      // for its no-JavaScript notice by id).
      for (const ns of document.querySelectorAll('noscript')) {
        if (native.children(ns[ID]).length) ns.textContent = ns.innerHTML;
      }
    },
    // The parser is done (all of it happens before the first script here).
    parsed() {
      readyState = 'interactive';
      document.dispatchEvent(new Event('readystatechange'));
    },
    setCurrentScript(id) { currentScript = id === null || id === undefined ? null : wrap(id); },
    // The running parser script ended: what it wrote goes in after it.
    flushWrites,
    // The parser put back what follows a script: custom elements in it whose
    // definition came while they were out of the document are made as the
    // parser makes them after a definition (constructed, then given their
    // attributes, then connected).
    upgradePending() {
      for (const [name, def] of customDefinitions) {
        for (const id of native.querySelectorAll(document[ID], name)) {
          const el = wrappers.get(id);
          if (!el || !upgraded.has(el)) createAsParsed(id, def);
        }
      }
    },
    // A module script of the document is running: an exception it throws
    // (or rejects its evaluation with, after a top-level await) is reported
    // like a classic script's.
    watchModule(evaluation, name) { evaluation.then(undefined, (e) => reportError(e, name)); },
    fireLoad() {
      document.dispatchEvent(new Event('DOMContentLoaded', { bubbles: true }));
      // The document's stylesheets were all fetched while it was parsed: each
      // `<link rel=stylesheet>` gets its `load` before the window's, which the
      // "load CSS without blocking" idiom (media=print, then onload sets
      // media=all) relies on.
      for (const id of native.querySelectorAll(document[ID], 'link[rel~="stylesheet" i][href]')) {
        const link = wrap(id);
        if (link) link.dispatchEvent(new Event('load'));
      }
      readyState = 'complete';
      document.dispatchEvent(new Event('readystatechange'));
      const load = new Event('load');
      // The window's load event has the document as its target.
      load[EV].target = document;
      load[EV].eventPhase = 2;
      invoke(g, load, 'target');
      load[EV].currentTarget = null;
      g.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: false }));
      // The fragment of the URL the document loaded at.
      if (location.hash) scrollToFragment(location.hash);
    },
    pendingTimers: () => timers.size,
    // Page ms since the time origin: the engine adds a pump's quiet period to
    // it to get the `limit` it passes to `runNextTimer`.
    clock: elapsed,
    // A wait let page time pass up to `to`: the clock shows it.
    advanceClock(to) { const now = elapsed(); if (to > now) skew += to - now; },
    traversed,
    // An uncaught exception of a page script: an `error` event on the window
    // (ErrorEvent with the exception), then the console.
    scriptError(error, filename) { reportError(error, filename); },
    runNextTimer,
    endTask,
    // For indexeddb.js, web.js and input.js (see js/mod.rs); not reachable
    // from page scripts.
    internals: {
      builtinGlobals, EV, trust, Event, EventTarget, Node, invoke, reportError, hidden, wrap, idOf, ID, toText, queueTask, navigateTo,
      fragmentNavigation, focusElement, isFocusable, clone, selectionOf, setSelection, caretAtEnd, queueSelect, SELECTION_TYPES, uncheckGroup, formOf, FORM_CONTROLS,
      MouseEvent, KeyboardEvent, InputEvent, FocusEvent, SubmitEvent, ProgressEvent, WheelEvent, PointerEvent,
      InertDocument, inertHtml,
      HTMLFormElement, HTMLElement, HTMLInputElement, HTMLCanvasElement, defineHandlers,
      getActiveElement: () => (activeElement && activeElement.isConnected ? activeElement : null),
      setActivation: (fn) => { activation = fn; },
      addTaskSource: (source) => { taskSources.push(source); },
    },
  };
})