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
// line form and then has the engine walk (natively, `shapeInterfaces`) every
// interface the preludes put on the window:
// - the interface object is a non-enumerable global, as WebIDL defines it;
// - its prototype carries `Symbol.toStringTag` (`[object HTMLDivElement]`);
// - operations and attributes on the prototype are enumerable, and their
//   functions are named as WebIDL names them (`getAttribute`, `get id`);
// - constants on the interface and its prototype are read-only.
// Interfaces are found by what they are (a global function whose prototype
// names it as its constructor) among the globals the preludes added, so a
// new class needs nothing here.
(function (native, internals) {
  'use strict';
  const g = globalThis;
  const { builtinGlobals } = internals;
  const { defineProperty, getOwnPropertyDescriptor } = Object;
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

  // ---- interfaces -----------------------------------------------------------
  // Every interface among the globals the preludes added gets its WebIDL
  // shape, its interface object becomes non-enumerable, and the window's and
  // the namespaces' own operations (`setTimeout`, `console.log`) are named;
  // natively, as a walk over a few thousand members (js/natives/webidl.rs,
  // where the WebIDL lengths and placeholder names are).
  native.shapeInterfaces([...builtinGlobals]);
  // Operations the JavaScript engine itself puts on the global object
  // (QuickJS has these web APIs) are, on a window, enumerable.
  for (const name of ['queueMicrotask', 'atob', 'btoa', 'structuredClone']) {
    const d = getOwnPropertyDescriptor(g, name);
    if (d && d.configurable && !d.enumerable) defineProperty(g, name, { ...d, enumerable: true });
  }
  if (g.console) defineProperty(g.console, Symbol.toStringTag, { value: 'console', configurable: true });
  // QuickJS names its global object `global`; a window's tag comes from Window.prototype.
  if (hasOwn(g, Symbol.toStringTag)) delete g[Symbol.toStringTag];
})
