  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // the hooks the engine calls (load, tasks, timers, traversal, input).
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
      // Frames loaded (their scripts ran) before the document's own load.
      for (const id of native.querySelectorAll(document[ID], 'iframe, frame')) {
        const frame = native.frameLoaded(id) && wrap(id);
        if (frame) frame.dispatchEvent(new Event('load'));
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
    // The global object, and (for a frame's realm) the window and element
    // of the frame in its parent's realm.
    global: g,
    setFrame(parentWindow, element) {
      Object.assign(g, { parent: parentWindow, top: parentWindow.top, frameElement: element, name: (element && element.getAttribute('name')) || '' });
    },
    // Page ms since the time origin: the engine adds a pump's quiet period to
    // it to get the `limit` it passes to `runNextTimer`.
    clock: elapsed,
    // The realm takes its document, before the document's first script
    // runs (js/realm.rs; a realm made ahead of its document by `prepare`
    // waits until then, as it must read no document while it is made): the
    // clock starts, and what the options' markup selected is remembered, as
    // what reset() returns to. False when the tab's document is not the one
    // this realm wrapped as `document`, which must then not be used.
    begin() {
      if (idOf(document) !== native.documentNode()) return false;
      timeOrigin = realNow();
      skew = 0;
      reseedRandom();
      rememberInitialState();
      return true;
    },
    // A wait let page time pass up to `to`: the clock shows it.
    advanceClock(to) { const now = elapsed(); if (to > now) skew += to - now; },
    traversed,
    // An uncaught exception of a page script: an `error` event on the window
    // (ErrorEvent with the exception), then the console.
    scriptError(error, filename) { reportError(error, filename); },
    runNextTimer,
    endTask,
    // For indexeddb/, web/ and input.js (see js/mod.rs); not reachable
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