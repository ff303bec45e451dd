  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // console: messages kept for the agent, in the order they were logged.
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

