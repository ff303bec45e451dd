// The WebIDL prelude, evaluated last (see js/mod.rs): it gives the objects the
// other preludes built the shape browsers give them, because libraries decide
// what the platform supports by looking at that shape. jQuery, lodash and
// core-js call a DOM method native when `Function.prototype.toString` prints
// `[native code]` for it (a source text makes jQuery fall back to its slow
// pure-JS selector engine); others read `Object.prototype.toString` of an
// object, enumerate an element's members with `for…in`, or look for a member
// on its interface's prototype.
//
// The prelude functions have no source text (their bytecode is stripped), so
// QuickJS prints them as native; this prelude makes the text Chromium's one-
// line form and then walks every interface the preludes put on the window:
// - the interface object is a non-enumerable global, as WebIDL defines it;
// - its prototype carries `Symbol.toStringTag` (`[object HTMLDivElement]`);
// - operations and attributes on the prototype are enumerable, and their
//   functions are named as WebIDL names them (`getAttribute`, `get id`);
// - constants on the interface and its prototype are read-only.
// Interfaces are found by what they are (a global function whose prototype
// names it as its constructor) among the globals the preludes added, so a
// new class needs nothing here.
(function (internals) {
  'use strict';
  const g = globalThis;
  const { builtinGlobals } = internals;
  const { defineProperty, getOwnPropertyDescriptor, getOwnPropertyNames } = Object;
  const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

  // ---- Function.prototype.toString -----------------------------------------
  // QuickJS prints a function without source as `function name() {\n
  // [native code]\n}` (with `async`/`*` for those kinds); browsers print
  // `function name() { [native code] }`, and a bound function has no name.
  const sourceOf = Function.prototype.toString;
  const QUICKJS_NATIVE = /^(?:async )?function ?\*? ?(.*)\(\) \{\n {4}\[native code\]\n\}$/s;
  const toString = {
    toString() {
      const text = sourceOf.call(this);
      const native = QUICKJS_NATIVE.exec(text);
      if (!native) return text;
      const name = native[1].startsWith('bound ') ? '' : native[1];
      return `function ${name}() { [native code] }`;
    },
  }.toString;
  defineProperty(Function.prototype, 'toString', { value: toString, writable: true, configurable: true });

  // ---- lengths ----------------------------------------------------------------
  // A function's `length` is its count of required arguments in WebIDL; where
  // the preludes' JavaScript signature counts differently (an optional
  // argument written without a default, an interface object whose
  // constructor takes the wrapper's internals), the WebIDL count, as
  // Chromium reports it.
  const LENGTHS = {
    Node: 0, Attr: 0, DocumentType: 0, DOMTokenList: 0, TreeWalker: 0, NodeIterator: 0, MediaQueryList: 0,
    Headers: 0, FormData: 0, URL: 1, ResizeObserver: 1, Image: 0, Audio: 0,
    'Element.toggleAttribute': 1, 'Element.scrollIntoView': 0, 'Element.attachShadow': 1,
    'HTMLSelectElement.add': 1, 'HTMLSelectElement.remove': 0, 'HTMLCanvasElement.getContext': 1,
    'URLSearchParams.forEach': 1, 'FormData.append': 2, 'FormData.set': 2, 'FormData.forEach': 1,
    'TextDecoder.decode': 0, 'History.pushState': 2, 'History.replaceState': 2, 'AbortController.abort': 0,
    'IntersectionObserver.unobserve': 1, 'ResizeObserver.observe': 1, 'ResizeObserver.unobserve': 1,
    'IDBFactory.open': 1, 'Selection.getRangeAt': 1, 'Selection.addRange': 1, 'Selection.collapse': 1,
    'MediaQueryList.addListener': 1, 'MediaQueryList.removeListener': 1,
    'window.fetch': 1, 'window.alert': 0, 'window.confirm': 0, 'window.prompt': 0, 'window.open': 0,
  };
  const lengthOf = (fn, key) => {
    if (typeof fn === 'function' && key in LENGTHS && fn.length !== LENGTHS[key]) defineProperty(fn, 'length', { value: LENGTHS[key], configurable: true });
  };

  // ---- interfaces -----------------------------------------------------------
  // Only a function without a name of its own is named: one defined with
  // another name is shared (an alias, or a built-in of the language's).
  const PLACEHOLDERS = new Set(['', 'get', 'set', 'value']);
  const named = (fn, name) => {
    if (typeof fn === 'function' && fn.name !== name && PLACEHOLDERS.has(fn.name)) defineProperty(fn, 'name', { value: name, configurable: true });
  };
  const isConstant = (key, d) => 'value' in d && typeof d.value === 'number' && /^[A-Z][A-Z0-9_]*$/.test(key);
  // One object's own members as WebIDL lays them out.
  const shapeMembers = (target, { isStatic, iface }) => {
    for (const key of getOwnPropertyNames(target)) {
      if (key === 'constructor' || (isStatic && (key === 'length' || key === 'name' || key === 'prototype'))) continue;
      const d = getOwnPropertyDescriptor(target, key);
      if (!d.configurable) continue;
      if (isConstant(key, d)) {
        defineProperty(target, key, { value: d.value, writable: false, enumerable: true, configurable: false });
      } else if ('value' in d) {
        if (typeof d.value === 'function' && !isInterface(d.value)) { named(d.value, key); if (!isStatic) lengthOf(d.value, `${iface}.${key}`); }
        if (!d.enumerable) defineProperty(target, key, { ...d, enumerable: true });
      } else {
        named(d.get, 'get ' + key);
        named(d.set, 'set ' + key);
        if (!d.enumerable) defineProperty(target, key, { ...d, enumerable: true });
      }
    }
  };
  const isInterface = (value) => typeof value === 'function' && !!value.prototype
    && typeof value.prototype === 'object' && hasOwn(value.prototype, 'constructor')
    && value.prototype.constructor === value;
  const shaped = new Set();
  const shapeInterface = (name, I) => {
    if (shaped.has(I)) return;
    shaped.add(I);
    const proto = I.prototype;
    if (!hasOwn(proto, Symbol.toStringTag)) defineProperty(proto, Symbol.toStringTag, { value: name, configurable: true });
    // An interface's constants are on its prototype too (`node.TEXT_NODE`).
    for (const key of getOwnPropertyNames(I)) {
      const d = getOwnPropertyDescriptor(I, key);
      if (isConstant(key, d) && !hasOwn(proto, key)) defineProperty(proto, key, { value: d.value, enumerable: true });
    }
    shapeMembers(proto, { isStatic: false, iface: name });
    shapeMembers(I, { isStatic: true, iface: name });
    lengthOf(I, name);
  };
  for (const name of getOwnPropertyNames(g)) {
    if (builtinGlobals.has(name)) continue;
    const d = getOwnPropertyDescriptor(g, name);
    if (!('value' in d) || !/^[A-Z]/.test(name) || typeof d.value !== 'function') continue;
    // A named constructor (Image, Option, Audio) shares its element's prototype.
    if (isInterface(d.value) && d.value.name === name) shapeInterface(name, d.value);
    else lengthOf(d.value, name);
    if (d.enumerable) defineProperty(g, name, { ...d, enumerable: false });
  }
  // Operations the JavaScript engine itself puts on the global object
  // (QuickJS has these web APIs) are, on a window, enumerable.
  for (const name of ['queueMicrotask', 'atob', 'btoa', 'structuredClone']) {
    const d = getOwnPropertyDescriptor(g, name);
    if (d && d.configurable && !d.enumerable) defineProperty(g, name, { ...d, enumerable: true });
  }
  if (g.console) defineProperty(g.console, Symbol.toStringTag, { value: 'console', configurable: true });
  // QuickJS names its global object `global`; a window's tag comes from Window.prototype.
  if (hasOwn(g, Symbol.toStringTag)) delete g[Symbol.toStringTag];
  // Namespace objects' operations carry their names (`console.log`).
  for (const ns of [g.console, g.CSS]) {
    if (!ns) continue;
    for (const key of getOwnPropertyNames(ns)) {
      const d = getOwnPropertyDescriptor(ns, key);
      if ('value' in d && typeof d.value === 'function' && d.configurable) named(d.value, key);
    }
  }
  // The window's own operations (`setTimeout`), likewise.
  for (const name of getOwnPropertyNames(g)) {
    if (builtinGlobals.has(name) || !/^[a-z]/.test(name)) continue;
    const d = getOwnPropertyDescriptor(g, name);
    if ('value' in d && typeof d.value === 'function' && d.configurable && !isInterface(d.value)) { named(d.value, name); lengthOf(d.value, `window.${name}`); }
  }
})
