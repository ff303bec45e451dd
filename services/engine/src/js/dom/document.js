  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // the document: focus, mutation observers, computed style, Document.
  // ---- focus ---------------------------------------------------------------
  let activeElement = null;
  const isFocusable = (el) => {
    if (!(el instanceof HTMLElement) || !el.isConnected) return false;
    if (el.hasAttribute('disabled') && FORM_CONTROLS.includes(el.localName)) return false;
    if (el.hasAttribute('tabindex')) return true;
    switch (el.localName) {
      case 'a': case 'area': return el.hasAttribute('href');
      case 'input': return el.type !== 'hidden';
      case 'button': case 'select': case 'textarea': case 'iframe': case 'summary': return true;
      default: return el.isContentEditable;
    }
  };
  // Moves focus, firing blur/focusout on the old element and focus/focusin
  // on the new one; `null` focuses the body. A change event fires on blur
  // when the field's value changed while it had focus.
  // Events the browser itself fires are trusted, whoever caused them.
  const uaEvent = trust;
  const focusElement = (el) => {
    if (el !== null && !isFocusable(el)) return;
    if (el === activeElement) return;
    const old = activeElement;
    activeElement = el;
    if (old) {
      if (old.isConnected && valueOnFocus.has(old) && valueOnFocus.get(old) !== old.value) {
        old.dispatchEvent(uaEvent(new Event('change', { bubbles: true })));
      }
      valueOnFocus.delete(old);
      old.dispatchEvent(uaEvent(new FocusEvent('blur', { relatedTarget: el, view: g })));
      old.dispatchEvent(uaEvent(new FocusEvent('focusout', { bubbles: true, relatedTarget: el, view: g })));
    }
    if (el) {
      native.focus(el[ID]);
      if ('value' in el && (el.localName === 'input' || el.localName === 'textarea')) valueOnFocus.set(el, el.value);
      el.dispatchEvent(uaEvent(new FocusEvent('focus', { relatedTarget: old, view: g })));
      el.dispatchEvent(uaEvent(new FocusEvent('focusin', { bubbles: true, relatedTarget: old, view: g })));
    } else {
      native.blur();
    }
  };
  const valueOnFocus = new Map();

  // ---- mutation observers --------------------------------------------------
  const mutationObservers = [];
  let mutationsQueued = false;
  const queueMutation = (target, init) => {
    for (const mo of mutationObservers) {
      for (const { node, options } of mo._targets) {
        const inScope = node === target || (options.subtree && node.contains(target));
        if (!inScope) continue;
        if (init.type === 'childList' && !options.childList) continue;
        if (init.type === 'attributes' && !options.attributes) continue;
        if (init.type === 'attributes' && options.attributeFilter && !options.attributeFilter.includes(init.attributeName)) continue;
        if (init.type === 'characterData' && !options.characterData) continue;
        mo._records.push({
          type: init.type, target, addedNodes: init.addedNodes || [], removedNodes: init.removedNodes || [],
          previousSibling: null, nextSibling: init.nextSibling || null, attributeName: init.attributeName || null,
          attributeNamespace: null,
          oldValue: (init.type === 'attributes' && options.attributeOldValue) || (init.type === 'characterData' && options.characterDataOldValue) ? init.oldValue ?? null : null,
        });
        break;
      }
    }
    if (!mutationsQueued && mutationObservers.some((mo) => mo._records.length)) {
      mutationsQueued = true;
      queueMicrotask(() => {
        mutationsQueued = false;
        for (const mo of mutationObservers.slice()) {
          const records = mo.takeRecords();
          if (records.length) { try { mo._callback.call(mo, records, mo); } catch (e) { reportError(e); } }
        }
      });
    }
  };
  class MutationObserver {
    constructor(callback) {
      if (typeof callback !== 'function') throw new TypeError("Failed to construct 'MutationObserver': parameter 1 is not a function");
      hidden(this, '_callback', callback); hidden(this, '_targets', []); hidden(this, '_records', []);
    }
    observe(node, options = {}) {
      if (!(node instanceof Node)) throw new TypeError("Failed to execute 'observe': parameter 1 is not of type 'Node'");
      const o = { ...options };
      if (o.attributeOldValue || o.attributeFilter) o.attributes = o.attributes ?? true;
      if (o.characterDataOldValue) o.characterData = o.characterData ?? true;
      if (!o.childList && !o.attributes && !o.characterData) throw new TypeError("Failed to execute 'observe': The options object must set at least one of 'attributes', 'characterData', or 'childList' to true.");
      this._targets = this._targets.filter((t) => t.node !== node);
      this._targets.push({ node, options: o });
      if (!mutationObservers.includes(this)) mutationObservers.push(this);
    }
    disconnect() { this._targets = []; this._records = []; const i = mutationObservers.indexOf(this); if (i >= 0) mutationObservers.splice(i, 1); }
    takeRecords() { const r = this._records; this._records = []; return r; }
  }

  // ---- computed style ------------------------------------------------------
  // Resolved values: sizes, margins and paddings of a rendered element come
  // from layout, in px (what getComputedStyle gives), the rest from Stylo.
  const LAYOUT_PROPS = {
    width: (m, boxSizing) => m[0] - (boxSizing === 'border-box' ? 0 : m[2] + m[4] + m[6] + m[8]),
    height: (m, boxSizing) => m[1] - (boxSizing === 'border-box' ? 0 : m[3] + m[5] + m[7] + m[9]),
    'padding-left': (m) => m[2], 'padding-top': (m) => m[3], 'padding-right': (m) => m[4], 'padding-bottom': (m) => m[5],
    'margin-left': (m) => m[10], 'margin-top': (m) => m[11], 'margin-right': (m) => m[12], 'margin-bottom': (m) => m[13],
  };
  const px = (n) => `${Math.round(n * 1000) / 1000}px`;
  // '' for an element without styles (Stylo's value is null).
  const resolvedStyle = (el, name) => {
    const value = native.computedStyle(el[ID], name);
    if (value === null) return '';
    const layout = LAYOUT_PROPS[name];
    if (layout) {
      const m = native.boxMetrics(el[ID]);
      if (m) return px(layout(m, native.computedStyle(el[ID], 'box-sizing')));
    }
    return toText(value);
  };
  const readOnlyStyle = () => { throw new DOMException("Failed to set a property on 'CSSStyleDeclaration': These styles are computed, and therefore read-only.", 'NoModificationAllowedError'); };
  // What getComputedStyle returns reads through methods shared by all: a
  // script that asks every element for its `display` made five closures an
  // element.
  class ComputedDeclarations {
    constructor(el) { this.el = el; }
    read(name) { return resolvedStyle(this.el, name); }
    names() { return []; }
    text() { return ''; }
  }
  ComputedDeclarations.prototype.write = readOnlyStyle;
  ComputedDeclarations.prototype.setText = readOnlyStyle;
  const computedStyle = (el) => declarationProxy(new ComputedDeclarations(el));

  // A new comment node (Blitz makes comments only by parsing), detached.
  const commentId = (text) => {
    const holder = native.createElement('div');
    native.setInnerHTML(holder, `<!--${text.replace(/--!?>/g, '')}-->`);
    const [id] = native.childNodes(holder);
    native.removeChild(holder, id);
    return id;
  };
  const HTML_NS = 'http://www.w3.org/1999/xhtml';
  class DocumentType {
    constructor(name, publicId = '', systemId = '') { Object.assign(this, { name, publicId, systemId }); }
    get nodeType() { return 10; }
    get nodeName() { return this.name; }
  }
  // Nodes outside the tree (no id), for `instanceof Node` and the prototype chain.
  Object.setPrototypeOf(DocumentType.prototype, Node.prototype);
  class Document extends Node {
    get documentElement() { return wrap(native.documentElement()); }
    get head() { return wrap(native.head()); }
    get body() { return wrap(native.body()); }
    set body(el) {
      if (!(el instanceof HTMLElement) || !['body', 'frameset'].includes(el.localName)) throw new DOMException("Failed to set the 'body' property on 'Document': The new body element is of type '" + (el && el.localName) + "'. It must be either a 'BODY' or 'FRAMESET' element.", 'HierarchyRequestError');
      const old = this.body;
      if (old) old.replaceWith(el); else this.documentElement.appendChild(el);
    }
    get title() { return native.title(); }
    set title(v) { native.setTitle(toText(v)); }
    get URL() { return native.url(); }
    get documentURI() { return native.url(); }
    get baseURI() { return native.resolveUrl('') || native.url(); }
    get location() { return location; }
    get readyState() { return readyState; }
    get defaultView() { return g; }
    get characterSet() { return 'UTF-8'; }
    get charset() { return this.characterSet; }
    get inputEncoding() { return this.characterSet; }
    get contentType() { return 'text/html'; }
    get compatMode() { return native.doctype() === 'html' ? 'CSS1Compat' : 'BackCompat'; }
    get doctype() {
      const name = native.doctype();
      return name === null || name === undefined ? null : new DocumentType(name);
    }
    get visibilityState() { return 'visible'; }
    get hidden() { return false; }
    get referrer() { return ''; }
    // What the host's cookie jar holds for this URL, HttpOnly cookies left out.
    get cookie() { return native.documentCookies(); }
    set cookie(v) { native.setDocumentCookie(toText(v)); }
    get activeElement() { return activeElement && activeElement.isConnected ? activeElement : this.body; }
    get currentScript() { return currentScript; }
    get scrollingElement() { return this.documentElement; }
    get forms() { return this.querySelectorAll('form'); }
    get images() { return this.querySelectorAll('img'); }
    get links() { return this.querySelectorAll('a[href], area[href]'); }
    get scripts() { return this.querySelectorAll('script'); }
    get embeds() { return this.querySelectorAll('embed'); }
    get lastModified() { return '01/01/1970 00:00:00'; }
    get domain() { return location.hostname; }
    set domain(v) { if (toText(v) !== location.hostname) throw new DOMException(`Failed to set the 'domain' property on 'Document': '${toText(v)}' is not a suffix of '${location.hostname}'.`, 'SecurityError'); }
    get designMode() { return 'off'; }
    get fonts() { return { ready: Promise.resolve(), check: () => true, load: () => Promise.resolve([]), add() {}, forEach() {} }; }
    get implementation() { return implementation; }
    getElementById(id) { return wrap(native.getElementById(String(id))); }
    getElementsByName(name) { return this.querySelectorAll(`[name="${cssEscape(name)}"]`); }
    createElement(tag) { return wrap(native.createElement(String(tag))); }
    // HTML elements are lower-cased as createElement makes them; others
    // (SVG, MathML, XML) keep their namespace and case.
    createElementNS(ns, tag) {
      const namespace = ns === null || ns === undefined ? '' : String(ns);
      if (namespace === HTML_NS) return this.createElement(tag);
      return wrap(native.createElementNS(namespace, String(tag)));
    }
    createTextNode(text) { return wrap(native.createTextNode(toText(text))); }
    createComment(text) { return wrap(commentId(toText(text))); }
    createDocumentFragment() {
      const id = native.createElement('fleet-fragment');
      fragmentIds.add(id);
      wrappers.delete(id);
      return wrap(id);
    }
    createEvent(kind) {
      const classes = { event: Event, events: Event, htmlevents: Event, customevent: CustomEvent, uievent: UIEvent, uievents: UIEvent, mouseevent: MouseEvent, mouseevents: MouseEvent, keyboardevent: KeyboardEvent, focusevent: FocusEvent };
      const Cls = classes[String(kind).toLowerCase()];
      if (!Cls) throw new DOMException(`The provided event type ('${kind}') is invalid.`, 'NotSupportedError');
      return new Cls('');
    }
    createRange() { return new Range(); }
    createTreeWalker(root, whatToShow = 0xFFFFFFFF, filter = null) { return new TreeWalker(root, whatToShow, filter); }
    createNodeIterator(root, whatToShow = 0xFFFFFFFF, filter = null) { return new NodeIterator(root, whatToShow, filter); }
    // One document per tab: a node from an inert document (DOMParser,
    // createHTMLDocument) is already in this tree, detached, so importing
    // copies it and adopting only detaches it.
    importNode(node, deep = false) { if (node instanceof Document || node instanceof InertDocument) throw new DOMException('A document cannot be imported.', 'NotSupportedError'); return node.cloneNode(deep); }
    adoptNode(node) { if (node instanceof Document || node instanceof InertDocument) throw new DOMException('A document cannot be adopted.', 'NotSupportedError'); if (node.parentNode) node.parentNode.removeChild(node); return node; }
    getSelection() { return g.getSelection(); }
    elementFromPoint(x, y) { return wrap(native.elementFromPoint(Number(x), Number(y))); }
    elementsFromPoint(x, y) { const el = this.elementFromPoint(x, y); const out = []; for (let e = el; e; e = e.parentElement) out.push(e); return out; }
    execCommand() { return false; }
    queryCommandSupported() { return false; }
    open() { return this; }
    close() {}
    write(...parts) { documentWrite(parts.map(toText).join('')); }
    writeln(...parts) { this.write(...parts, '\n'); }
    hasFocus() { return true; }
  }
  mixin(Document, parentNodeMixin);
  Object.defineProperty(Document.prototype, KIND, { value: 9 });
  defineHandlers(Document.prototype);
  // The page's document is an HTML document, as in browsers.
  class HTMLDocument extends Document {}
  let currentScript = null;

  const document = wrap(native.documentNode());

