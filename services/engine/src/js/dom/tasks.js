  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // the task queue, storage and the timers (on the virtual clock the
  // engine runs).
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
  // Set again by the `startClock` hook when a realm made ahead of time
  // (js/realm.rs, `prepare`) is taken by a document.
  let timeOrigin = realNow();
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

