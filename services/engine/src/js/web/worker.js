  // Part of the web prelude (js/web/, joined in order by js/mod.rs):
  // dedicated workers, and the blob: URLs a worker's script may come from.
  // ---- Worker -----------------------------------------------------------------
  // A worker's script runs in a realm of its own (`native.newRealm`: a second
  // QuickJS context in the page's runtime, with its own global object and
  // built-ins) on the page's one thread: starting it and each message are
  // tasks in the page's queue, so they run in order between the page's own
  // tasks, within the same budgets. Messages cross as JSON, parsed by the
  // receiving realm's own `JSON`, so each side gets objects of its own realm;
  // a cycle or a BigInt is a DataCloneError, and Maps, Sets and typed arrays
  // arrive as JSON makes them (structured cloning would keep them). The
  // global scope is built from the page's realm: timers, fetch and XHR are
  // the page's, with URLs resolved against the worker's script.
  const { MessageEvent, ErrorEvent } = g;
  const objectUrls = new Map();
  const makeObjectUrl = g.URL.createObjectURL;
  Object.assign(g.URL, {
    createObjectURL(object) {
      const url = makeObjectUrl();
      if (object instanceof Blob) objectUrls.set(url, object);
      return url;
    },
    revokeObjectURL(url) { objectUrls.delete(toText(url)); },
  });
  // An `<a download>` click on a blob: URL hands the blob's bytes to the host
  // (input.js reaches the registry through this hidden hook).
  Object.defineProperty(g.URL, '__blobOf', { value: (url) => objectUrls.get(url), enumerable: false });
  const describeError = (e) => {
    if (e && typeof e === 'object' && e.message !== undefined) return `${e.name ? `${e.name}: ` : ''}${e.message}`;
    return String(e);
  };
  // A worker script's text: a blob: URL made by this page, a data: URL, or a
  // same-origin http(s) URL (checked by the constructor).
  const workerSource = (href) => {
    if (href.startsWith('blob:')) {
      const blob = objectUrls.get(href);
      if (!blob) throw new DOMException(`Failed to load worker script '${href}'.`, 'NetworkError');
      return native.decodeText(blob._bytes, 'utf-8', false);
    }
    const response = native.httpFetch('GET', href, [], null, true);
    if (response.status < 200 || response.status > 299) throw new DOMException(`Failed to load worker script '${href}' (HTTP ${response.status}).`, 'NetworkError');
    return native.decodeText(new Uint8Array(response.body), 'utf-8', false);
  };
  const encodeMessage = (message) => {
    try { return JSON.stringify(message); } catch (e) {
      throw new DOMException(`Failed to execute 'postMessage' on 'Worker': ${describeError(e)}`, 'DataCloneError');
    }
  };
  // The worker side of one Worker: its realm's global scope.
  const startWorker = (worker, href, name) => {
    const scope = native.newRealm();
    const evaluate = scope.eval;
    const parse = scope.JSON.parse;
    const listeners = [];
    let closed = false;
    const alive = () => !closed && !worker._terminated;
    const resolve = (url) => new g.URL(toText(url), href).href;
    // An exception the worker's code did not catch: an `error` event on the
    // Worker (cancelable), else the console, as browsers report it.
    const uncaught = (e) => {
      const event = new ErrorEvent('error', { cancelable: true, message: `Uncaught ${describeError(e)}`, error: null, filename: href });
      if (worker.dispatchEvent(event)) native.console('error', `Uncaught ${describeError(e)} (worker ${href})`);
    };
    const guarded = (fn) => (...args) => {
      if (!alive()) return undefined;
      try { return fn.apply(scope, args); } catch (e) { uncaught(e); return undefined; }
    };
    const later = (fn) => (typeof fn === 'function' ? guarded(fn) : guarded(() => evaluate(toText(fn))));
    class WorkerXMLHttpRequest extends XMLHttpRequest {
      open(method, url, ...rest) { return super.open(method, resolve(url), ...rest); }
    }
    Object.defineProperty(WorkerXMLHttpRequest, 'name', { value: 'XMLHttpRequest' });
    Object.assign(scope, {
      self: scope,
      name,
      location: new g.URL(href),
      navigator: g.navigator,
      onmessage: null,
      onerror: null,
      postMessage(message) {
        const text = encodeMessage(message);
        if (!alive()) return;
        queueTask(() => {
          if (worker._terminated) return;
          worker.dispatchEvent(new MessageEvent('message', { data: text === undefined ? undefined : JSON.parse(text) }));
        });
      },
      close() { closed = true; },
      importScripts(...urls) {
        for (const url of urls) evaluate(workerSource(resolve(url)));
      },
      addEventListener(type, listener) {
        if (typeof listener !== 'function' || listeners.some((l) => l.type === type && l.fn === listener)) return;
        listeners.push({ type: toText(type), fn: listener });
      },
      removeEventListener(type, listener) {
        const at = listeners.findIndex((l) => l.type === type && l.fn === listener);
        if (at >= 0) listeners.splice(at, 1);
      },
      setTimeout: (fn, ms = 0, ...args) => g.setTimeout(later(fn), ms, ...args),
      setInterval: (fn, ms = 0, ...args) => g.setInterval(later(fn), ms, ...args),
      clearTimeout: (id) => g.clearTimeout(id),
      clearInterval: (id) => g.clearInterval(id),
      queueMicrotask: (fn) => g.queueMicrotask(guarded(fn)),
      fetch: (input, init) => fetch(typeof input === 'string' || input instanceof g.URL ? resolve(input) : input, init),
      XMLHttpRequest: WorkerXMLHttpRequest,
      console: g.console,
      performance: g.performance,
      crypto,
      indexedDB: g.indexedDB,
      structuredClone: g.structuredClone,
      TextEncoder, TextDecoder, atob, btoa, Blob, FormData, Headers, Request, Response,
      AbortController, AbortSignal, URL: g.URL, URLSearchParams: g.URLSearchParams,
      Event, EventTarget, MessageEvent, ErrorEvent, DOMException,
    });
    // `self instanceof WorkerGlobalScope` is how libraries tell they run in
    // a worker: the scope's own classes, in its own realm.
    evaluate(`(function () {
      function WorkerGlobalScope() { throw new TypeError('Illegal constructor'); }
      function DedicatedWorkerGlobalScope() { throw new TypeError('Illegal constructor'); }
      Object.setPrototypeOf(DedicatedWorkerGlobalScope.prototype, WorkerGlobalScope.prototype);
      Object.setPrototypeOf(globalThis, DedicatedWorkerGlobalScope.prototype);
      globalThis.WorkerGlobalScope = WorkerGlobalScope;
      globalThis.DedicatedWorkerGlobalScope = DedicatedWorkerGlobalScope;
    })()`);
    // A message from the page: the scope's `onmessage`, then its listeners.
    const deliver = (text) => {
      if (!alive()) return;
      const event = new MessageEvent('message', { data: text === undefined ? undefined : parse(text) });
      const handlers = [scope.onmessage, ...listeners.filter((l) => l.type === 'message').map((l) => l.fn)];
      for (const handler of handlers) if (typeof handler === 'function') guarded(handler)(event);
    };
    queueTask(() => {
      if (!alive()) return;
      let source;
      try { source = workerSource(href); } catch (e) {
        native.console('error', describeError(e));
        worker.dispatchEvent(new Event('error'));
        return;
      }
      guarded(() => evaluate(source))();
    });
    return deliver;
  };
  class Worker extends EventTarget {
    constructor(url, options = undefined) {
      super();
      if (new.target === undefined) throw new TypeError("Failed to construct 'Worker': Please use the 'new' operator.");
      let href;
      try { href = new g.URL(toText(url), native.baseUrl()).href; } catch (_) {
        throw new DOMException(`Failed to construct 'Worker': The URL '${toText(url)}' is invalid.`, 'SyntaxError');
      }
      const target = new g.URL(href);
      const origin = new g.URL(native.url()).origin;
      const allowed = target.protocol === 'data:' || (target.protocol === 'blob:' ? objectUrls.has(href) : target.origin === origin);
      if (!allowed) throw new DOMException(`Failed to construct 'Worker': Script at '${href}' cannot be accessed from origin '${origin}'.`, 'SecurityError');
      if (options && options.type === 'module') throw new TypeError("Failed to construct 'Worker': module workers are not supported by this engine.");
      hidden(this, '_terminated', false);
      hidden(this, '_deliver', startWorker(this, href, options && options.name !== undefined ? toText(options.name) : ''));
    }
    postMessage(message) {
      const text = encodeMessage(message);
      if (this._terminated) return;
      queueTask(() => this._deliver(text));
    }
    terminate() { this._terminated = true; }
  }
  defineHandlers(Worker.prototype);
  g.Worker = Worker;

