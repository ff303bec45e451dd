// The CSSOM prelude, evaluated after web/ (see js/mod.rs): the document's
// style sheets, read-only. `document.styleSheets` and `sheet` of <style> and
// <link rel=stylesheet> give each rule as Stylo parsed it (`cssText`,
// `selectorText`, `type`). Scripts read them to learn that a sheet has loaded
// (MathJax waits for `sheet.cssRules.length`) or what it holds. The sheets
// cannot be changed through them: insertRule and deleteRule are not defined,
// so a library that feature-detects them takes its other path (a <style>
// element's text).
(function (native, internals) {
  'use strict';
  const g = globalThis;
  const { hidden, toText, idOf } = internals;

  const RULE_TYPES = [['@import', 3], ['@media', 4], ['@font-face', 5], ['@page', 6], ['@keyframes', 7], ['@-webkit-keyframes', 7], ['@namespace', 10], ['@supports', 12], ['@layer', 16], ['@container', 17]];
  class CSSRule {
    constructor(text, sheet) { hidden(this, '_rule', { text, sheet }); }
    get cssText() { return this._rule.text; }
    get parentStyleSheet() { return this._rule.sheet; }
    get parentRule() { return null; }
    get type() {
      const text = this._rule.text;
      if (!text.startsWith('@')) return 1;
      const found = RULE_TYPES.find(([prefix]) => text.toLowerCase().startsWith(prefix));
      return found ? found[1] : 0;
    }
  }
  Object.assign(CSSRule, { STYLE_RULE: 1, CHARSET_RULE: 2, IMPORT_RULE: 3, MEDIA_RULE: 4, FONT_FACE_RULE: 5, PAGE_RULE: 6, KEYFRAMES_RULE: 7, KEYFRAME_RULE: 8, NAMESPACE_RULE: 10, SUPPORTS_RULE: 12 });
  class CSSStyleRule extends CSSRule {
    get selectorText() { const t = this.cssText; const open = t.indexOf('{'); return (open < 0 ? t : t.slice(0, open)).trim(); }
  }
  // An indexed list that does not change once made (a new one is made
  // when the rules or the sheets change).
  class FixedList {
    constructor(items) { hidden(this, '_items', items); for (let i = 0; i < items.length; i++) hidden(this, String(i), items[i]); }
    get length() { return this._items.length; }
    item(i) { return this._items[i >>> 0] || null; }
    [Symbol.iterator]() { return this._items[Symbol.iterator](); }
  }
  class CSSRuleList extends FixedList {}

  const ruleLists = new WeakMap();
  class StyleSheet {
    constructor(owner) { hidden(this, '_owner', owner); }
    get ownerNode() { return this._owner; }
    get type() { return 'text/css'; }
    get href() { return this._owner.localName === 'link' ? this._owner.href || null : null; }
    get title() { return this._owner.getAttribute('title'); }
    get media() { const mediaText = toText(this._owner.getAttribute('media')); return { mediaText, length: mediaText ? mediaText.split(',').length : 0, toString: () => mediaText }; }
    get disabled() { return false; }
    get parentStyleSheet() { return null; }
  }
  class CSSStyleSheet extends StyleSheet {
    get ownerRule() { return null; }
    get cssRules() {
      const texts = native.sheetRules(idOf(this._owner)) || [];
      const cached = ruleLists.get(this);
      if (cached && cached.texts.length === texts.length && cached.texts.every((t, i) => t === texts[i])) return cached.list;
      const list = new CSSRuleList(texts.map((t) => (t.startsWith('@') ? new CSSRule(t, this) : new CSSStyleRule(t, this))));
      ruleLists.set(this, { texts, list });
      return list;
    }
    get rules() { return this.cssRules; }
  }
  class StyleSheetList extends FixedList {}

  const sheets = new WeakMap();
  const sheetOf = (el) => {
    if (!el.isConnected || !native.hasSheet(idOf(el))) return null;
    let sheet = sheets.get(el);
    if (!sheet) { sheet = new CSSStyleSheet(el); sheets.set(el, sheet); }
    return sheet;
  };
  for (const I of [g.HTMLStyleElement, g.HTMLLinkElement]) {
    Object.defineProperty(I.prototype, 'sheet', { get() { return sheetOf(this); }, configurable: true, enumerable: true });
  }
  Object.defineProperty(g.Document.prototype, 'styleSheets', {
    get() {
      return new StyleSheetList([...this.querySelectorAll('style, link[rel~="stylesheet" i]')].map(sheetOf).filter((s) => s !== null));
    },
    configurable: true,
    enumerable: true,
  });

  Object.assign(g, { CSSRule, CSSStyleRule, CSSRuleList, StyleSheet, CSSStyleSheet, StyleSheetList });
})
