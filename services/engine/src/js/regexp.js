// The RegExp prelude, evaluated before webidl.js (see js/mod.rs): the legacy
// static properties every browser gives RegExp and QuickJS does not —
// RegExp.$1 to $9, lastMatch ($&), lastParen ($+), leftContext ($`),
// rightContext ($') and input ($_). Older libraries read a match's groups
// from them: MathJax 2 finds its own configuration with
// `src.match(pattern)` followed by `RegExp.$2`, and without it typesets
// nothing. Every successful `exec` records its match; `test`, `match`,
// `matchAll`, `replace`, `search` and `split` all go through `exec`, as the
// language defines them to.
(function () {
  'use strict';
  const builtinExec = RegExp.prototype.exec;
  const apply = Reflect.apply;
  let last = null;
  let input = '';
  const { exec } = {
    exec(string) {
      const match = apply(builtinExec, this, [string]);
      if (match !== null) { last = match; input = match.input; }
      return match;
    },
  };
  Object.defineProperty(RegExp.prototype, 'exec', { value: exec, writable: true, configurable: true, enumerable: false });
  const group = (i) => (last && last[i] !== undefined ? String(last[i]) : '');
  const statics = {
    lastMatch: () => group(0),
    lastParen: () => (last && last.length > 1 ? group(last.length - 1) : ''),
    leftContext: () => (last ? input.slice(0, last.index) : ''),
    rightContext: () => (last ? input.slice(last.index + String(last[0]).length) : ''),
  };
  const aliases = { lastMatch: '$&', lastParen: '$+', leftContext: '$`', rightContext: "$'" };
  for (const [name, read] of Object.entries(statics)) {
    for (const key of [name, aliases[name]]) Object.defineProperty(RegExp, key, { get: read, configurable: true, enumerable: false });
  }
  for (let i = 1; i <= 9; i++) Object.defineProperty(RegExp, '$' + i, { get: () => group(i), configurable: true, enumerable: false });
  for (const key of ['input', '$_']) {
    Object.defineProperty(RegExp, key, {
      get: () => input,
      set: (v) => { input = String(v); },
      configurable: true,
      enumerable: false,
    });
  }
})
