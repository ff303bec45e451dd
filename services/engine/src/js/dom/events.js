  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // events: Event and its kinds, EventTarget, listeners and dispatch.
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
      // Two property definitions per event, not eight: the dispatch flags
      // live in the state too (a page's readiness and load events are each
      // made anew, and each definition was a microsecond of QuickJS).
      Object.defineProperty(this, EV, { value: {
        type: String(type), bubbles: !!init.bubbles, cancelable: !!init.cancelable, composed: !!init.composed,
        defaultPrevented: false, target: null, currentTarget: null, eventPhase: 0, trusted: false,
        timeStamp: g.performance ? g.performance.now() : 0,
        // Propagation stopped; immediate propagation stopped; the running
        // listener is passive; the path while dispatched; being dispatched;
        // a listener threw (IndexedDB aborts the transaction then).
        stop: false, stopNow: false, passive: false, path: null, dispatching: false, threw: false,
      } });
      Object.defineProperty(this, 'isTrusted', { get: isTrusted, enumerable: true });
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
    get cancelBubble() { return this[EV].stop; }
    set cancelBubble(v) { if (v) this[EV].stop = true; }
    preventDefault() { const state = this[EV]; if (state.cancelable && !state.passive) state.defaultPrevented = true; }
    stopPropagation() { this[EV].stop = true; }
    stopImmediatePropagation() { const state = this[EV]; state.stop = true; state.stopNow = true; }
    composedPath() { const state = this[EV]; return state.dispatching ? state.path.slice() : []; }
    initEvent(type, bubbles = false, cancelable = false) {
      if (this[EV].dispatching) return;
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
    const state = event[EV];
    const type = state.type;
    state.currentTarget = target;
    let list = listenerList(target, type, false);
    // A handler from a content attribute counts as registered first. It never
    // runs while capturing, so that phase need not look for one (each look
    // at an element reads its attribute).
    if (phase !== 'capture' && handlerOf(target, type) && !(list && list.some((l) => l.handler))) {
      list = listenerList(target, type, true);
      list.unshift({ handler: true, capture: false, once: false, passive: false, removed: false });
    }
    if (list) invokeList(target, event, phase, list);
    // Objects outside the DOM (IndexedDB requests) keep `on*` as plain
    // properties: they run after the listeners.
    if (phase !== 'capture' && target !== g && !state.stopNow && !(target instanceof Node)) {
      const own = Object.getOwnPropertyDescriptor(target, 'on' + type);
      const fn = own && own.value;
      if (typeof fn === 'function') {
        try { if (fn.call(target, event) === false) event.preventDefault(); } catch (e) { state.threw = true; reportError(e); }
      }
    }
  };
  const invokeList = (target, event, phase, list) => {
    const state = event[EV];
    for (const l of list.slice()) {
      if (l.removed) continue;
      if (phase === 'capture' && !l.capture) continue;
      if (phase === 'bubble' && l.capture) continue;
      if (l.handler) {
        const fn = handlerOf(target, state.type);
        if (typeof fn !== 'function') continue;
        try {
          const result = fn.call(target, event);
          if (result === false && state.type !== 'mouseover') event.preventDefault();
        } catch (e) { state.threw = true; reportError(e); }
      } else {
        if (l.once) removeEventListener.call(target, state.type, l.fn, { capture: l.capture });
        state.passive = l.passive;
        try {
          if (typeof l.fn === 'function') l.fn.call(target, event); else l.fn.handleEvent(event);
        } catch (e) { state.threw = true; reportError(e); }
        state.passive = false;
      }
      if (state.stopNow) return;
    }
  };
  // Activation behaviour (links, checkboxes, submit buttons...), set by input.js.
  let activation = null;
  const dispatchEvent = function (event) {
    if (!(event instanceof Event)) throw new TypeError("Failed to execute 'dispatchEvent': parameter 1 is not of type 'Event'");
    const state = event[EV];
    if (state.dispatching) throw new DOMException('The event is already being dispatched.', 'InvalidStateError');
    state.dispatching = true;
    state.target = this;
    // The propagation path: the target, its ancestors, the document and the window.
    const path = [this];
    if (this instanceof Node) {
      for (let p = this.parentNode; p; p = p.parentNode) path.push(p);
      if (path[path.length - 1] === document && state.type !== 'load') path.push(g);
    }
    state.path = path;
    const activate = activation && state.type === 'click' && event instanceof MouseEvent ? activation(this, event) : null;
    for (let i = path.length - 1; i >= 1 && !state.stop; i--) { state.eventPhase = 1; invoke(path[i], event, 'capture'); }
    // At the target, capturing listeners run before the others (as Chromium does).
    if (!state.stop) { state.eventPhase = 2; invoke(this, event, 'capture'); }
    if (!state.stop) { state.eventPhase = 2; invoke(this, event, 'bubble'); }
    if (state.bubbles) for (let i = 1; i < path.length && !state.stop; i++) { state.eventPhase = 3; invoke(path[i], event, 'bubble'); }
    state.eventPhase = 0;
    state.currentTarget = null;
    state.dispatching = false;
    if (activate) activate(state.defaultPrevented);
    return !state.defaultPrevented;
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

