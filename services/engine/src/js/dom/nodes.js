  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // nodes: the wrappers of Blitz node ids, Node, CharacterData, Text,
  // Comment, DOMTokenList and Element.
  // ---- nodes ---------------------------------------------------------------
  const wrap = (id) => {
    if (id === null || id === undefined) return null;
    let node = wrappers.get(id);
    if (node) return node;
    // One native call says what to make: a node type, or an element's
    // local name (after "svg ", "math " or "xml " outside HTML).
    const info = native.wrapInfo(id);
    if (typeof info === 'string') {
      if (fragmentIds.has(id)) { node = make(DocumentFragment, id); }
      else {
        const space = info.indexOf(' ');
        const tag = (space < 0 ? info : info.slice(space + 1)).toLowerCase();
        const def = customDefinitions.get(tag);
        if (def) return upgrade(id, def);
        const ns = space < 0 ? '' : info.slice(0, space);
        const Cls = ns === 'svg' ? (tag === 'svg' ? SVGSVGElement : SVGElement)
          : ns === 'math' ? MathMLElement
          : ns === 'xml' ? Element
          : ELEMENT_CLASSES[tag] || (tag.includes('-') ? HTMLElement : HTMLUnknownElement);
        node = make(Cls, id);
        // A form's controls are its named properties, and shadow its own
        // (`form.action` is a control named "action" if there is one).
        if (Cls === HTMLFormElement) node = formProxy(node);
      }
    } else {
      switch (info) {
        case 3: node = make(Text, id); break;
        case 8: node = make(Comment, id); break;
        case 9: node = make(HTMLDocument, id); break;
        default: return null;
      }
    }
    wrappers.set(id, node);
    unretained.push(id);
    return node;
  };
  // Nodes wrapped since Rust last heard of them: a replacement of children
  // (textContent, innerHTML) must keep them alive, so Rust is told first.
  let unretained = [];
  const retainWrapped = () => { if (unretained.length) { native.retain(unretained); unretained = []; } };
  const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const MATHML_NS = 'http://www.w3.org/1998/Math/MathML';
  // The wrapper of an existing node. No constructor runs: none of the node
  // classes sets anything up but the id, and a chain of five constructors per
  // wrapper was most of what reading a large tree cost.
  const make = (Cls, id) => {
    const node = Object.create(Cls.prototype);
    Object.defineProperty(node, ID, { value: id });
    return node;
  };
  // The id a node constructor adopts instead of making a node (a page calls
  // `new Text('x')` with no id; an inert document hands over its own).
  let creating;
  const idOf = (node) => {
    if (!(node instanceof Node)) throw new TypeError('parameter is not of type Node');
    return node[ID];
  };
  // Collections are arrays (so every array method works on them) whose
  // prototype is NodeList's or HTMLCollection's, for `instanceof`.
  class NodeList extends Array {
    item(i) { return this[i] || null; }
    static get [Symbol.species]() { return Array; }
  }
  // As in browsers, a NodeList's iteration methods are the array ones.
  for (const name of ['forEach', 'entries', 'keys', 'values']) hidden(NodeList.prototype, name, Array.prototype[name]);
  class HTMLCollection extends Array {
    item(i) { return this[i] || null; }
    namedItem(name) { return this.find((el) => el.id === name || el.getAttribute('name') === name) || null; }
    static get [Symbol.species]() { return Array; }
  }
  // A text or comment node never has children (insertBefore refuses one as
  // a parent), so its child list never changes: one frozen empty list serves
  // them all. A walk of the tree made a live list for each, ≈10,000 of the
  // 18,000 nodes of a 300 KB documentation page.
  const NO_CHILDREN = Object.freeze(Reflect.construct(Array, [], NodeList));
  // A node's type, on the prototype of each kind whose type never changes:
  // libraries ask `nodeType` of every node they touch. A symbol, so no page
  // sees it among a prototype's members.
  const KIND = Symbol('node type');
  // The wrappers of `ids`, in one pass (no array in between to collect).
  // A wrapper already made is read straight from `wrappers` rather than
  // through `wrap`: a walk asks for every node's children, nearly all wrapped.
  const wrapAll = (ids) => {
    const list = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      const node = wrappers.get(id) ?? wrap(id);
      if (node !== null) list.push(node);
    }
    return list;
  };
  const nodeList = (ids, proto = NodeList.prototype) => Object.setPrototypeOf(wrapAll(ids), proto);
  const toText = (v) => (v === null || v === undefined ? '' : String(v));
  // A token list's tokens: split on ASCII whitespace. No regular expression:
  // it would replace the page's RegExp.$1 (see regexp.js), and QuickJS's
  // generic split by a pattern costs far more than a split by a string.
  const splitTokens = (text) => {
    let s = text;
    for (const c of ['\t', '\n', '\f', '\r']) if (s.includes(c)) s = s.split(c).join(' ');
    return s.split(' ').filter(Boolean);
  };

  class Node extends EventTarget {
    constructor(data) {
      super();
      let id = creating;
      creating = undefined;
      if (id === undefined) {
        // A page's `new`: a custom element's constructor chain (an upgrade
        // makes `super()` return the element being upgraded; `new
        // MyElement()` makes an element of the class's name), or the nodes
        // that have constructors: Text, Comment, DocumentFragment.
        if (upgrading) { const el = upgrading; upgrading = null; return el; }
        const is = (Cls) => new.target === Cls || new.target.prototype instanceof Cls;
        if (is(Text)) id = native.createTextNode(toText(data));
        else if (is(Comment)) id = commentId(toText(data));
        else if (is(DocumentFragment)) { id = native.createElement('fleet-fragment'); fragmentIds.add(id); }
        else {
          const def = definitionOf(new.target);
          if (!def) throw new TypeError('Illegal constructor');
          id = native.createElement(def.name);
          upgraded.add(this);
        }
        wrappers.set(id, this);
        unretained.push(id);
      }
      Object.defineProperty(this, ID, { value: id });
    }
    // Elements, text, comments and documents carry their type on their
    // prototype under KIND, so the common reads need no native call; the
    // getters stay on Node.prototype, where browsers define them and pages
    // that look a member up on its interface find it.
    get nodeType() { return this[KIND] ?? native.nodeType(this[ID]); }
    get nodeName() { return native.nodeName(this[ID]); }
    get ownerDocument() { return this === document ? null : document; }
    get isConnected() { return native.isConnected(this[ID]); }
    get parentNode() { return wrap(native.parent(this[ID])); }
    get parentElement() { const p = this.parentNode; return p && p.nodeType === 1 ? p : null; }
    get childNodes() {
      const kind = this[KIND];
      if (kind === 3 || kind === 8) return NO_CHILDREN;
      return keptList(childLists, this, childIds, NodeList);
    }
    get firstChild() { return wrap(native.firstChild(this[ID])); }
    get lastChild() { return wrap(native.lastChild(this[ID])); }
    get nextSibling() { return wrap(native.nextSibling(this[ID])); }
    get previousSibling() { return wrap(native.previousSibling(this[ID])); }
    get textContent() { return this === document ? null : native.textContent(this[ID]); }
    set textContent(v) {
      if (this === document) return;
      const removed = mutationObservers.length && this.nodeType === 1 ? kids(this) : null;
      retainWrapped();
      native.setTextContent(this[ID], toText(v));
      if (mutationObservers.length) {
        if (this.nodeType === 1) queueMutation(this, { type: 'childList', removedNodes: removed, addedNodes: kids(this) });
        else queueMutation(this, { type: 'characterData' });
      }
      if (this.localName === 'script' && this.isConnected) runInsertedScript(this);
    }
    get nodeValue() { return this.nodeType === 3 || this.nodeType === 8 ? this.textContent : null; }
    set nodeValue(v) { if (this.nodeType === 3 || this.nodeType === 8) this.textContent = v; }
    hasChildNodes() { return native.childNodes(this[ID]).length > 0; }
    contains(other) { return other === null || other === undefined ? false : native.contains(this[ID], idOf(other)); }
    appendChild(child) { return this.insertBefore(child, null); }
    insertBefore(child, ref) {
      const refId = ref == null ? null : idOf(ref);
      const moved = child instanceof DocumentFragment ? kids(child) : [child];
      for (const node of moved) {
        const from = node.parentNode;
        if (from && mutationObservers.length) queueMutation(from, { type: 'childList', removedNodes: [node] });
        native.insertBefore(this[ID], idOf(node), refId);
      }
      if (mutationObservers.length && moved.length) queueMutation(this, { type: 'childList', addedNodes: moved.slice(), nextSibling: ref == null ? null : ref });
      // Scripts inserted into the document run now (inline) or once fetched;
      // custom elements in it are upgraded or told they are connected.
      // Text put into a connected script that had none starts it.
      if (this.localName === 'script' && this.isConnected) runInsertedScript(this);
      for (const node of moved) {
        if (node.nodeType !== 1 || !node.isConnected) continue;
        if (node.localName === 'script') runInsertedScript(node);
        else if (native.querySelector(node[ID], 'script') !== null) node.querySelectorAll('script').forEach(runInsertedScript);
        connected(node);
      }
      return child;
    }
    removeChild(child) {
      const wasConnected = customDefinitions.size > 0 && child.isConnected;
      native.removeChild(this[ID], idOf(child));
      if (mutationObservers.length) queueMutation(this, { type: 'childList', removedNodes: [child] });
      if (wasConnected) disconnected(child);
      return child;
    }
    replaceChild(child, old) { this.insertBefore(child, old); this.removeChild(old); return old; }
    cloneNode(deep = false) {
      if (this instanceof DocumentFragment) {
        const copy = document.createDocumentFragment();
        if (deep) for (const c of kids(this)) copy.appendChild(c.cloneNode(true));
        return copy;
      }
      if (this === document) throw new DOMException('Cloning the document is not supported', 'NotSupportedError');
      return wrap(native.cloneNode(this[ID], !!deep));
    }
    isEqualNode(other) { return other instanceof Node && other.nodeType === this.nodeType && (this.nodeType === 1 ? other.outerHTML === this.outerHTML : other.textContent === this.textContent); }
    compareDocumentPosition(other) { return native.compareDocumentPosition(this[ID], idOf(other)); }
    get baseURI() { return native.baseUrl(); }
    normalize() {}
    isSameNode(other) { return this === other; }
    lookupNamespaceURI(prefix) { return prefix === null || prefix === undefined || prefix === '' ? (this.nodeType === 1 ? this.namespaceURI : null) : null; }
    getRootNode() { let n = this; while (n.parentNode) n = n.parentNode; return n; }
  }
  Object.assign(Node, {
    ELEMENT_NODE: 1, ATTRIBUTE_NODE: 2, TEXT_NODE: 3, CDATA_SECTION_NODE: 4, ENTITY_REFERENCE_NODE: 5, ENTITY_NODE: 6,
    PROCESSING_INSTRUCTION_NODE: 7, COMMENT_NODE: 8, DOCUMENT_NODE: 9, DOCUMENT_TYPE_NODE: 10, DOCUMENT_FRAGMENT_NODE: 11,
    NOTATION_NODE: 12, DOCUMENT_POSITION_DISCONNECTED: 1, DOCUMENT_POSITION_PRECEDING: 2, DOCUMENT_POSITION_FOLLOWING: 4,
    DOCUMENT_POSITION_CONTAINS: 8, DOCUMENT_POSITION_CONTAINED_BY: 16, DOCUMENT_POSITION_IMPLEMENTATION_SPECIFIC: 32,
  });
  // Void elements (no end tag), for document.write's balance check.
  const VOID = 'area|base|br|col|embed|hr|img|input|link|meta|source|track|wbr';
  const toNode = (n) => (n instanceof Node ? n : document.createTextNode(toText(n)));
  const childNodeMixin = {
    remove() { const p = this.parentNode; if (p) p.removeChild(this); },
    get previousElementSibling() { for (let n = this.previousSibling; n; n = n.previousSibling) if (n.nodeType === 1) return n; return null; },
    get nextElementSibling() { for (let n = this.nextSibling; n; n = n.nextSibling) if (n.nodeType === 1) return n; return null; },
    before(...nodes) { const p = this.parentNode; if (p) for (const n of nodes) p.insertBefore(toNode(n), this); },
    after(...nodes) { const p = this.parentNode; if (!p) return; const next = this.nextSibling; for (const n of nodes) p.insertBefore(toNode(n), next); },
    replaceWith(...nodes) { const p = this.parentNode; if (!p) return; this.before(...nodes); this.remove(); },
  };
  const parentNodeMixin = {
    get children() {
      return keptList(childrenLists, this, childElementIds, HTMLCollection);
    },
    get childElementCount() { return native.children(this[ID]).length; },
    get firstElementChild() { const c = native.children(this[ID]); return c.length ? wrap(c[0]) : null; },
    get lastElementChild() { const c = native.children(this[ID]); return c.length ? wrap(c[c.length - 1]) : null; },
    querySelector(selector) { return wrap(native.querySelector(this[ID], String(selector))); },
    querySelectorAll(selector) { return nodeList(native.querySelectorAll(this[ID], String(selector))); },
    getElementsByTagName(tag) {
      const selector = String(tag) === '*' ? '*' : cssEscape(String(tag));
      return liveCollection(() => native.querySelectorAll(this[ID], selector));
    },
    getElementsByClassName(names) {
      const classes = splitTokens(String(names));
      const selector = classes.map((c) => '.' + cssEscape(c)).join('');
      return liveCollection(() => (classes.length ? native.querySelectorAll(this[ID], selector) : []));
    },
    append(...nodes) { for (const n of nodes) this.appendChild(toNode(n)); },
    prepend(...nodes) { const first = this.firstChild; for (const n of nodes) this.insertBefore(toNode(n), first); },
    replaceChildren(...nodes) { this.textContent = ''; this.append(...nodes); },
  };
  const mixin = (target, source) => Object.defineProperties(target.prototype, Object.getOwnPropertyDescriptors(source));

  class CharacterData extends Node {
    get data() { return this.textContent; }
    set data(v) { this.textContent = v; }
    get length() { return this.textContent.length; }
    appendData(data) { this.data += toText(data); }
    substringData(offset, count) { return this.data.substr(offset >>> 0, count >>> 0); }
    insertData(offset, data) { this.replaceData(offset, 0, data); }
    deleteData(offset, count) { this.replaceData(offset, count, ''); }
    replaceData(offset, count, data) {
      const text = this.data;
      const at = offset >>> 0;
      if (at > text.length) throw new DOMException(`The offset ${at} is greater than the node's length (${text.length}).`, 'IndexSizeError');
      this.data = text.slice(0, at) + toText(data) + text.slice(at + (count >>> 0));
    }
  }
  class Text extends CharacterData {
    get wholeText() { return this.textContent; }
    splitText(offset) {
      const text = this.data;
      const rest = document.createTextNode(text.slice(offset));
      this.data = text.slice(0, offset);
      if (this.parentNode) this.parentNode.insertBefore(rest, this.nextSibling);
      return rest;
    }
  }
  class Comment extends CharacterData {}
  mixin(CharacterData, childNodeMixin);
  Object.defineProperty(Text.prototype, KIND, { value: 3 });
  Object.defineProperty(Comment.prototype, KIND, { value: 8 });

  // A name with no capital (`display`, the common case) is its own
  // kebab-case: no regular expression runs for it.
  const kebab = (s) => (s.toLowerCase() === s ? s : s.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()));
  const camel = (s) => s.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  // CSS.escape: backslash-escape everything but word characters and '-', and
  // a leading digit as a code point (`1a` → `\31 a`).
  const cssEscape = (s) => String(s)
    .replace(/[^\w-]/g, (c) => '\\' + c)
    .replace(/^(-?)(\d)/, (_, dash, d) => `${dash}\\3${d} `);

  class DOMTokenList {
    constructor(el, attr) { hidden(this, '_el', el); hidden(this, '_attr', attr); }
    _get() { return splitTokens(toText(this._el.getAttribute(this._attr))); }
    _set(list) { this._el.setAttribute(this._attr, list.join(' ')); }
    get length() { return this._get().length; }
    get value() { return toText(this._el.getAttribute(this._attr)); }
    set value(v) { this._el.setAttribute(this._attr, toText(v)); }
    supports(token) { throw new TypeError(`DOMTokenList has no supported tokens (${toText(token)}).`); }
    item(i) { return this._get()[i] || null; }
    // Most asks are of a class the element does not have: its attribute not
    // holding the text at all says so without splitting it.
    contains(t) {
      const token = String(t);
      const value = this._el.getAttribute(this._attr);
      return value !== null && value.includes(token) && splitTokens(value).includes(token);
    }
    add(...tokens) { const l = this._get(); for (const t of tokens) if (!l.includes(String(t))) l.push(String(t)); this._set(l); }
    remove(...tokens) { this._set(this._get().filter((t) => !tokens.map(String).includes(t))); }
    toggle(t, force = undefined) {
      const has = this.contains(t);
      const want = force === undefined ? !has : !!force;
      if (want && !has) this.add(t); else if (!want && has) this.remove(t);
      return want;
    }
    replace(a, b) { const l = this._get(); const i = l.indexOf(String(a)); if (i < 0) return false; l[i] = String(b); this._set(l); return true; }
    forEach(fn, thisArg = undefined) { this._get().forEach(fn, thisArg); }
    [Symbol.iterator]() { return this._get()[Symbol.iterator](); }
    toString() { return this.value; }
  }

  // The translation of a computed `transform` (other transforms: none).
  const translation = (transform) => {
    const t = toText(transform).trim();
    if (t === '' || t === 'none') return [0, 0];
    let dx = 0; let dy = 0;
    for (const [, fn, args] of t.matchAll(/([a-zA-Z0-9]+)\(([^)]*)\)/g)) {
      const n = args.split(',').map((a) => parseFloat(a) || 0);
      switch (fn) {
        case 'translate': case 'translate3d': dx += n[0] || 0; dy += n[1] || 0; break;
        case 'translateX': dx += n[0] || 0; break;
        case 'translateY': dy += n[0] || 0; break;
        case 'matrix': if (n.length === 6) { dx += n[4]; dy += n[5]; } break;
        case 'matrix3d': if (n.length === 16) { dx += n[12]; dy += n[13]; } break;
        default: break;
      }
    }
    return [dx, dy];
  };
  // A DOMTokenList whose tokens are also its indexed properties (`list[0]`).
  // An element's class list is one object, so that
  // `el.classList === el.classList` as in browsers (and a loop that asks
  // `classList.contains` of every node makes no object per call). All lists
  // share one handler, and the lists are kept by element with no map of
  // their own: a handler, a closure and a Map for each element had made a
  // list cost ≈590 bytes where it now costs its proxy and its target.
  const tokenListHandler = {
    // Methods run with the proxy as `this` and reach the list's own
    // properties through `get`.
    get(target, key) { const index = arrayIndex(key); return index >= 0 ? target.item(index) ?? undefined : Reflect.get(target, key, target); },
  };
  const classLists = new WeakMap();
  const classList = (el) => {
    let list = classLists.get(el);
    if (!list) {
      list = new Proxy(new DOMTokenList(el, 'class'), tokenListHandler);
      classLists.set(el, list);
    }
    return list;
  };

  class Element extends Node {
    get tagName() { return this.nodeName; }
    // HTML elements report an upper-case nodeName; other namespaces keep case.
    get localName() { const name = this.nodeName; return name === name.toUpperCase() ? name.toLowerCase() : name; }
    get namespaceURI() { return native.namespaceUri(this[ID]) ?? null; }
    get id() { return toText(this.getAttribute('id')); }
    set id(v) { this.setAttribute('id', v); }
    get className() { return toText(this.getAttribute('class')); }
    set className(v) { this.setAttribute('class', v); }
    get classList() { return classList(this); }
    set classList(v) { this.setAttribute('class', toText(v)); }
    // A missing attribute comes back from Rust as `undefined`; the DOM says null
    // (hasAttribute and the boolean reflections below compare against null).
    getAttribute(name) { return native.getAttribute(this[ID], String(name)) ?? null; }
    getAttributeNames() { return native.attributeNames(this[ID]); }
    get attributes() {
      const list = native.attributeNames(this[ID]).map((name) => new Attr(this, name));
      Object.setPrototypeOf(list, NamedNodeMap.prototype);
      // Attributes by name too (`el.attributes['data-x'].value`), unenumerable as in browsers.
      for (const attr of list) if (!(attr.name in list)) hidden(list, attr.name, attr);
      return list;
    }
    setAttribute(name, value) {
      const observed = observesAttribute(this, name);
      const old = mutationObservers.length || observed ? this.getAttribute(name) : null;
      native.setAttribute(this[ID], String(name), String(value));
      if (mutationObservers.length) queueMutation(this, { type: 'attributes', attributeName: String(name).toLowerCase(), oldValue: old });
      if (observed) reaction(this, 'attributeChangedCallback', String(name).toLowerCase(), old, String(value));
      if (this.localName === 'script' && String(name).toLowerCase() === 'src' && this.isConnected) runInsertedScript(this);
    }
    removeAttribute(name) {
      if (!this.hasAttribute(name)) return;
      const observed = observesAttribute(this, name);
      const old = mutationObservers.length || observed ? this.getAttribute(name) : null;
      native.removeAttribute(this[ID], String(name));
      if (mutationObservers.length) queueMutation(this, { type: 'attributes', attributeName: String(name).toLowerCase(), oldValue: old });
      if (observed) reaction(this, 'attributeChangedCallback', String(name).toLowerCase(), old, null);
    }
    setAttributeNS(_ns, name, value) { this.setAttribute(name, value); }
    getAttributeNS(_ns, name) { return this.getAttribute(name); }
    removeAttributeNS(_ns, name) { this.removeAttribute(name); }
    hasAttributeNS(_ns, name) { return this.hasAttribute(name); }
    hasAttribute(name) { return this.getAttribute(name) !== null; }
    hasAttributes() { return native.attributeNames(this[ID]).length > 0; }
    toggleAttribute(name, force) {
      const has = this.hasAttribute(name);
      const want = force === undefined ? !has : !!force;
      if (want && !has) this.setAttribute(name, ''); else if (!want && has) this.removeAttribute(name);
      return want;
    }
    matches(selector) { return native.matches(this[ID], String(selector)); }
    closest(selector) { return wrap(native.closest(this[ID], String(selector))); }
    get innerHTML() { return native.innerHTML(this[ID]); }
    set innerHTML(html) {
      const removed = mutationObservers.length ? kids(this) : null;
      const wasConnected = customDefinitions.size > 0 && this.isConnected;
      if (wasConnected) for (const c of nodeList(native.children(this[ID]))) disconnected(c);
      retainWrapped(); native.setInnerHTML(this[ID], toText(html));
      // Scripts parsed by innerHTML never run.
      if (native.querySelector(this[ID], 'script') !== null) this.querySelectorAll('script').forEach((sc) => startedScripts.add(sc));
      if (wasConnected) for (const c of nodeList(native.children(this[ID]))) connected(c);
      if (mutationObservers.length) queueMutation(this, { type: 'childList', removedNodes: removed, addedNodes: kids(this) });
    }
    get outerHTML() { return native.outerHTML(this[ID]); }
    set outerHTML(html) {
      const parent = this.parentNode;
      if (!parent) return;
      const holder = document.createElement('div');
      holder.innerHTML = toText(html);
      const fragment = document.createDocumentFragment();
      fragment.append(...kids(holder));
      parent.replaceChild(fragment, this);
    }
    insertAdjacentHTML(position, html) {
      const holder = document.createElement('div');
      holder.innerHTML = toText(html);
      const fragment = document.createDocumentFragment();
      fragment.append(...kids(holder));
      this.insertAdjacentElement(position, fragment);
    }
    insertAdjacentElement(position, el) {
      switch (String(position).toLowerCase()) {
        case 'beforebegin': if (this.parentNode) this.parentNode.insertBefore(el, this); break;
        case 'afterbegin': this.insertBefore(el, this.firstChild); break;
        case 'beforeend': this.appendChild(el); break;
        case 'afterend': if (this.parentNode) this.parentNode.insertBefore(el, this.nextSibling); break;
        default: throw new DOMException(`'${position}' is not a valid position`, 'SyntaxError');
      }
      return el;
    }
    insertAdjacentText(position, text) { this.insertAdjacentElement(position, document.createTextNode(toText(text))); }
    getBoundingClientRect() {
      // An element that is not rendered has an empty box at the origin.
      let [x, y, width, height] = native.boxMetrics(this[ID]) ? native.boundingRect(this[ID]) : [0, 0, 0, 0];
      if (width || height) {
        // Layout leaves transforms out; translations (the common case) of
        // the element and its ancestors move its box.
        for (let e = this; e && e.nodeType === 1; e = e.parentElement) {
          const [dx, dy] = translation(native.computedStyle(e[ID], 'transform'));
          x += dx; y += dy;
        }
      }
      return new DOMRect(x, y, width, height);
    }
    getClientRects() { return native.boxMetrics(this[ID]) ? [this.getBoundingClientRect()] : []; }
    // CSSOM View: whether the element is rendered (has a box: neither it
    // nor an ancestor is display:none), and, when asked, neither it nor an
    // ancestor is fully transparent, and it is not visibility:hidden.
    checkVisibility(options) {
      const o = options || {};
      if (!this.isConnected || !native.boxMetrics(this[ID])) return false;
      if (o.checkOpacity || o.opacityProperty) {
        for (let e = this; e && e.nodeType === 1; e = e.parentElement) {
          if (Number(native.computedStyle(e[ID], 'opacity')) === 0) return false;
        }
      }
      if ((o.checkVisibilityCSS || o.visibilityProperty)
        && native.computedStyle(this[ID], 'visibility') !== 'visible') return false;
      return true;
    }
    // The padding box. The root element's client area is the viewport (what
    // scroll math such as `scrollHeight - clientHeight` expects).
    get clientWidth() {
      if (isRoot(this)) return native.viewport()[0];
      const m = native.boxMetrics(this[ID]);
      return m ? Math.round(m[0] - m[6] - m[8]) : 0;
    }
    get clientHeight() {
      if (isRoot(this)) return native.viewport()[1];
      const m = native.boxMetrics(this[ID]);
      return m ? Math.round(m[1] - m[7] - m[9]) : 0;
    }
    get clientLeft() { const m = native.boxMetrics(this[ID]); return m ? Math.round(m[6]) : 0; }
    get clientTop() { const m = native.boxMetrics(this[ID]); return m ? Math.round(m[7]) : 0; }
    get scrollTop() { return elementScroll(this)[1]; }
    set scrollTop(v) { scrollElementTo(this, elementScroll(this)[0], Number(v)); }
    get scrollLeft() { return elementScroll(this)[0]; }
    set scrollLeft(v) { scrollElementTo(this, Number(v), elementScroll(this)[1]); }
    get scrollWidth() { return Math.round(elementScrollSize(this)[0]); }
    get scrollHeight() { return Math.round(elementScrollSize(this)[1]); }
    scrollTo(...args) { const [x, y] = scrollArgs(args, elementScroll(this)); scrollElementTo(this, x, y); }
    scroll(...args) { this.scrollTo(...args); }
    scrollBy(...args) {
      const [x, y] = elementScroll(this);
      const [dx, dy] = scrollArgs(args, [0, 0]);
      scrollElementTo(this, x + dx, y + dy);
    }
    scrollIntoView(arg) {
      let block = 'start';
      let inline = 'nearest';
      if (arg === false) block = 'end';
      else if (arg && typeof arg === 'object') { block = String(arg.block ?? 'start'); inline = String(arg.inline ?? 'nearest'); }
      if (native.scrollIntoView(this[ID], block, inline)) queueScrollEvent(document);
    }
    get slot() { return toText(this.getAttribute('slot')); }
    set slot(v) { this.setAttribute('slot', v); }
    get shadowRoot() { return null; }
    attachShadow() { throw new DOMException('Shadow DOM is not supported', 'NotSupportedError'); }
    animate() { return { finished: Promise.resolve(), cancel() {}, play() {}, pause() {} }; }
    getAnimations() { return []; }
  }
  mixin(Element, parentNodeMixin);
  mixin(Element, childNodeMixin);
  Object.defineProperty(Element.prototype, KIND, { value: 1 });

