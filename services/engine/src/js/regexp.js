// The RegExp prelude, evaluated before webidl.js (see js/mod.rs): the legacy
// static properties every browser gives RegExp and QuickJS does not —
// RegExp.$1 to $9, lastMatch ($&), lastParen ($+), leftContext ($`),
// rightContext ($') and input ($_). Older libraries read a match's groups
// from them: MathJax 2 finds its own configuration with
// `src.match(pattern)` followed by `RegExp.$2`, and without it typesets
// nothing. The engine's QuickJS records every successful `exec` (which
// `test`, `match`, `matchAll`, `replace`, `search` and `split` all go
// through, as the language defines them to) on the realm's RegExp as
// `__fleetLastMatch` (tools/wasi-sdk/bin/clang patches it in): `exec` stays
// native, so a page's regular expressions keep QuickJS's fast path.
(function () {
  'use strict';
  const R = RegExp;
  const RECORD = '__fleetLastMatch';
  const getOwn = Object.getOwnPropertyDescriptor;
  const current = () => {
    const own = getOwn(R, RECORD);
    return own ? own.value : null;
  };
  // A copy of the last match's strings, taken when it is first read after a
  // new match: what a script does to the returned array later does not
  // change the statics, as in browsers.
  let seen = null;
  let groups = [];
  let index = 0;
  let input = '';
  // `RegExp.input = v` holds until the next match.
  let assigned = null;
  const last = () => {
    const match = current();
    if (match !== seen) {
      seen = match;
      assigned = null;
      groups = [];
      if (match) {
        for (let i = 0; i < match.length; i++) groups.push(match[i] === undefined ? '' : String(match[i]));
        index = match.index;
        input = String(match.input);
      }
    }
    return seen;
  };
  const group = (i) => (last() && i < groups.length ? groups[i] : '');
  const statics = {
    lastMatch: () => group(0),
    lastParen: () => (last() && groups.length > 1 ? groups[groups.length - 1] : ''),
    leftContext: () => (last() ? input.slice(0, index) : ''),
    rightContext: () => (last() ? input.slice(index + groups[0].length) : ''),
  };
  const aliases = { lastMatch: '$&', lastParen: '$+', leftContext: '$`', rightContext: "$'" };
  for (const [name, read] of Object.entries(statics)) {
    for (const key of [name, aliases[name]]) Object.defineProperty(R, key, { get: read, configurable: true, enumerable: false });
  }
  for (let i = 1; i <= 9; i++) Object.defineProperty(R, '$' + i, { get: () => group(i), configurable: true, enumerable: false });
  for (const key of ['input', '$_']) {
    Object.defineProperty(R, key, {
      get: () => {
        const match = last();
        if (assigned !== null) return assigned;
        return match ? input : '';
      },
      set: (v) => { last(); assigned = String(v); },
      configurable: true,
      enumerable: false,
    });
  }
})
