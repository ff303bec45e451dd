  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // traversal and ranges: TreeWalker, NodeIterator, Range, and inert
  // documents (DOMParser, createHTMLDocument).
  // ---- traversal: TreeWalker, NodeIterator ---------------------------------
  const NodeFilter = {
    FILTER_ACCEPT: 1, FILTER_REJECT: 2, FILTER_SKIP: 3,
    SHOW_ALL: 0xFFFFFFFF, SHOW_ELEMENT: 0x1, SHOW_ATTRIBUTE: 0x2, SHOW_TEXT: 0x4, SHOW_CDATA_SECTION: 0x8,
    SHOW_PROCESSING_INSTRUCTION: 0x40, SHOW_COMMENT: 0x80, SHOW_DOCUMENT: 0x100, SHOW_DOCUMENT_TYPE: 0x200,
    SHOW_DOCUMENT_FRAGMENT: 0x400,
  };
  // The filter's verdict on `node`, after whatToShow.
  const verdict = (traversal, node) => {
    if (!(traversal.whatToShow & (1 << (node.nodeType - 1)))) return 3;
    const filter = traversal.filter;
    if (filter === null || filter === undefined) return 1;
    if (traversal._active) throw new DOMException('The filter is already running.', 'InvalidStateError');
    traversal._active = true;
    try {
      return Number(typeof filter === 'function' ? filter.call(undefined, node) : filter.acceptNode(node));
    } finally {
      traversal._active = false;
    }
  };
  class TreeWalker {
    constructor(root, whatToShow, filter) {
      if (!(root instanceof Node)) throw new TypeError("Failed to execute 'createTreeWalker' on 'Document': parameter 1 is not of type 'Node'.");
      hidden(this, '_walk', { root, whatToShow: whatToShow >>> 0, filter, current: root });
      hidden(this, '_active', false);
    }
    get root() { return this._walk.root; }
    get whatToShow() { return this._walk.whatToShow; }
    get filter() { return this._walk.filter; }
    get currentNode() { return this._walk.current; }
    set currentNode(node) { if (!(node instanceof Node)) throw new TypeError("Failed to set the 'currentNode' property on 'TreeWalker': The provided value is not of type 'Node'."); this._walk.current = node; }
    parentNode() {
      for (let node = this.currentNode; node && node !== this.root;) {
        node = node.parentNode;
        if (node && verdict(this, node) === 1) { this.currentNode = node; return node; }
      }
      return null;
    }
    _children(first) {
      let node = first ? this.currentNode.firstChild : this.currentNode.lastChild;
      while (node) {
        const v = verdict(this, node);
        if (v === 1) { this.currentNode = node; return node; }
        if (v === 3) { const child = first ? node.firstChild : node.lastChild; if (child) { node = child; continue; } }
        while (node) {
          const sibling = first ? node.nextSibling : node.previousSibling;
          if (sibling) { node = sibling; break; }
          const parent = node.parentNode;
          if (!parent || parent === this.root || parent === this.currentNode) return null;
          node = parent;
        }
      }
      return null;
    }
    firstChild() { return this._children(true); }
    lastChild() { return this._children(false); }
    _siblings(next) {
      let node = this.currentNode;
      if (node === this.root) return null;
      for (;;) {
        let sibling = next ? node.nextSibling : node.previousSibling;
        while (sibling) {
          node = sibling;
          const v = verdict(this, node);
          if (v === 1) { this.currentNode = node; return node; }
          sibling = next ? node.firstChild : node.lastChild;
          if (v === 2 || !sibling) sibling = next ? node.nextSibling : node.previousSibling;
        }
        node = node.parentNode;
        if (!node || node === this.root) return null;
        if (verdict(this, node) === 1) return null;
      }
    }
    nextSibling() { return this._siblings(true); }
    previousSibling() { return this._siblings(false); }
    previousNode() {
      let node = this.currentNode;
      while (node !== this.root) {
        let sibling = node.previousSibling;
        while (sibling) {
          node = sibling;
          let v = verdict(this, node);
          while (v !== 2 && node.lastChild) { node = node.lastChild; v = verdict(this, node); }
          if (v === 1) { this.currentNode = node; return node; }
          sibling = node.previousSibling;
        }
        if (node === this.root || !node.parentNode) return null;
        node = node.parentNode;
        if (verdict(this, node) === 1) { this.currentNode = node; return node; }
      }
      return null;
    }
    nextNode() {
      let node = this.currentNode;
      let v = 1;
      for (;;) {
        while (v !== 2 && node.firstChild) {
          node = node.firstChild;
          v = verdict(this, node);
          if (v === 1) { this.currentNode = node; return node; }
        }
        let sibling = null;
        for (let n = node; n; n = n.parentNode) {
          if (n === this.root) return null;
          sibling = n.nextSibling;
          if (sibling) break;
        }
        if (!sibling) return null;
        node = sibling;
        v = verdict(this, node);
        if (v === 1) { this.currentNode = node; return node; }
      }
    }
  }
  // The node after `node` in document order, within `root` (null past it).
  const following = (node, root) => {
    if (node.firstChild) return node.firstChild;
    for (let n = node; n && n !== root; n = n.parentNode) if (n.nextSibling) return n.nextSibling;
    return null;
  };
  const preceding = (node, root) => {
    if (node === root) return null;
    let n = node.previousSibling;
    if (!n) return node.parentNode;
    while (n.lastChild) n = n.lastChild;
    return n;
  };
  class NodeIterator {
    constructor(root, whatToShow, filter) {
      if (!(root instanceof Node)) throw new TypeError("Failed to execute 'createNodeIterator' on 'Document': parameter 1 is not of type 'Node'.");
      Object.defineProperties(this, { root: { value: root, enumerable: true }, whatToShow: { value: whatToShow >>> 0, enumerable: true }, filter: { value: filter, enumerable: true } });
      hidden(this, '_active', false);
      hidden(this, '_reference', root);
      hidden(this, '_before', true);
    }
    get referenceNode() { return this._reference; }
    get pointerBeforeReferenceNode() { return this._before; }
    _move(forward) {
      let node = this._reference;
      let before = this._before;
      for (;;) {
        if (forward) {
          if (!before) { node = following(node, this.root); if (!node) return null; } else before = false;
        } else if (before) { node = preceding(node, this.root); if (!node) return null; } else before = true;
        if (verdict(this, node) === 1) break;
      }
      this._reference = node;
      this._before = before;
      return node;
    }
    nextNode() { return this._move(true); }
    previousNode() { return this._move(false); }
    detach() {}
  }

  // ---- ranges ---------------------------------------------------------------
  // Boundary points, text, contents and fragments of a Range; its boxes are
  // those of the element around its start (layout has no inline fragments
  // to offer here).
  const nodeLength = (n) => (n.nodeType === 3 || n.nodeType === 8 ? n.textContent.length : kids(n).length);
  const indexIn = (n) => { const p = n.parentNode; return p ? kids(p).indexOf(n) : 0; };
  // The position of boundary point (a, aOffset) relative to (b, bOffset):
  // -1 before, 0 equal, 1 after (the DOM standard's algorithm).
  const comparePoints = (a, aOffset, b, bOffset) => {
    if (a === b) return Math.sign(aOffset - bOffset);
    const position = a.compareDocumentPosition(b);
    if (position & 2) return -comparePoints(b, bOffset, a, aOffset);
    if (position & 16) {
      let child = b;
      while (child.parentNode !== a) child = child.parentNode;
      return indexIn(child) < aOffset ? 1 : -1;
    }
    return -1;
  };
  class Range {
    constructor() {
      this.startContainer = document; this.startOffset = 0;
      this.endContainer = document; this.endOffset = 0;
    }
    get collapsed() { return this.startContainer === this.endContainer && this.startOffset === this.endOffset; }
    get commonAncestorContainer() {
      for (let n = this.startContainer; n; n = n.parentNode) if (n === this.endContainer || n.contains(this.endContainer)) return n;
      return document;
    }
    _check(node, offset) {
      if (!(node instanceof Node)) throw new TypeError("parameter 1 is not of type 'Node'.");
      if (offset < 0 || offset > nodeLength(node)) throw new DOMException(`There is no child at offset ${offset}.`, 'IndexSizeError');
    }
    setStart(node, offset) { this._check(node, offset); this.startContainer = node; this.startOffset = offset >>> 0; if (this._after()) this.collapse(true); }
    setEnd(node, offset) { this._check(node, offset); this.endContainer = node; this.endOffset = offset >>> 0; if (this._after()) this.collapse(false); }
    _after() { return comparePoints(this.startContainer, this.startOffset, this.endContainer, this.endOffset) > 0; }
    setStartBefore(n) { this.setStart(n.parentNode, indexIn(n)); }
    setStartAfter(n) { this.setStart(n.parentNode, indexIn(n) + 1); }
    setEndBefore(n) { this.setEnd(n.parentNode, indexIn(n)); }
    setEndAfter(n) { this.setEnd(n.parentNode, indexIn(n) + 1); }
    selectNode(n) { this.setStart(n.parentNode, indexIn(n)); this.setEnd(n.parentNode, indexIn(n) + 1); }
    selectNodeContents(n) { this.startContainer = n; this.startOffset = 0; this.endContainer = n; this.endOffset = nodeLength(n); }
    collapse(toStart = false) {
      if (toStart) { this.endContainer = this.startContainer; this.endOffset = this.startOffset; } else { this.startContainer = this.endContainer; this.startOffset = this.endOffset; }
    }
    cloneRange() { const r = new Range(); Object.assign(r, { startContainer: this.startContainer, startOffset: this.startOffset, endContainer: this.endContainer, endOffset: this.endOffset }); return r; }
    detach() {}
    // Text nodes inside the range, with the part of each that is inside.
    _texts() {
      const out = [];
      const root = this.commonAncestorContainer;
      for (let node = root; node; node = following(node, root)) {
        if (node.nodeType !== 3) continue;
        const length = node.textContent.length;
        if (comparePoints(node, length, this.startContainer, this.startOffset) <= 0 && length > 0) continue;
        if (comparePoints(node, 0, this.endContainer, this.endOffset) >= 0) break;
        const from = node === this.startContainer ? this.startOffset : 0;
        const to = node === this.endContainer ? this.endOffset : length;
        out.push([node, from, to]);
      }
      return out;
    }
    toString() { return this._texts().map(([n, from, to]) => n.textContent.slice(from, to)).join(''); }
    createContextualFragment(html) {
      const holder = document.createElement('div');
      holder.innerHTML = toText(html);
      const fragment = document.createDocumentFragment();
      fragment.append(...kids(holder));
      return fragment;
    }
    cloneContents() {
      const fragment = document.createDocumentFragment();
      if (this.startContainer === this.endContainer && this.startContainer.nodeType === 3) {
        fragment.appendChild(document.createTextNode(this.toString()));
        return fragment;
      }
      const parent = this.commonAncestorContainer;
      if (this.startContainer === parent && this.endContainer === parent) {
        for (const c of kids(parent).slice(this.startOffset, this.endOffset)) fragment.appendChild(c.cloneNode(true));
        return fragment;
      }
      fragment.appendChild(document.createTextNode(this.toString()));
      return fragment;
    }
    deleteContents() {
      const parent = this.commonAncestorContainer;
      if (this.startContainer === parent && this.endContainer === parent && parent.nodeType !== 3) {
        for (const c of kids(parent).slice(this.startOffset, this.endOffset)) parent.removeChild(c);
      } else {
        for (const [n, from, to] of this._texts()) n.textContent = n.textContent.slice(0, from) + n.textContent.slice(to);
      }
      this.collapse(true);
    }
    extractContents() { const f = this.cloneContents(); this.deleteContents(); return f; }
    insertNode(node) {
      const c = this.startContainer;
      if (c.nodeType === 3) {
        const rest = c.splitText(this.startOffset);
        c.parentNode.insertBefore(node, rest);
      } else {
        c.insertBefore(node, kids(c)[this.startOffset] || null);
      }
    }
    surroundContents(parent) { const f = this.extractContents(); parent.appendChild(f); this.insertNode(parent); this.selectNode(parent); }
    compareBoundaryPoints(how, other) {
      const [mine, theirs] = [[0, 'start', 'start'], [1, 'end', 'start'], [2, 'end', 'end'], [3, 'start', 'end']].find((h) => h[0] === Number(how)).slice(1);
      return comparePoints(this[mine + 'Container'], this[mine + 'Offset'], other[theirs + 'Container'], other[theirs + 'Offset']);
    }
    isPointInRange(node, offset) { return comparePoints(node, offset, this.startContainer, this.startOffset) >= 0 && comparePoints(node, offset, this.endContainer, this.endOffset) <= 0; }
    intersectsNode(n) { const r = this.commonAncestorContainer; return r === n || r.contains(n) || n.contains(r); }
    _element() { const c = this.startContainer; const at = c.nodeType === 1 ? kids(c)[this.startOffset] : null; return c.nodeType === 1 ? (at && at.nodeType === 1 ? at : c) : c.parentElement; }
    getBoundingClientRect() { const el = this._element(); return el && el.getBoundingClientRect ? el.getBoundingClientRect() : { x: 0, y: 0, width: 0, height: 0, top: 0, left: 0, right: 0, bottom: 0 }; }
    getClientRects() { const el = this._element(); return el && el.getClientRects ? el.getClientRects() : []; }
  }
  Object.assign(Range, { START_TO_START: 0, START_TO_END: 1, END_TO_END: 2, END_TO_START: 3 });

  // ---- inert documents (DOMParser, createHTMLDocument) ----------------------
  // A document of its own for markup a script parses: its nodes live in this
  // tab's tree, detached from it (one document per tab), under an <html>
  // element of their own. Scripts in it never run.
  class InertDocument extends Node {
    constructor(html, contentType = 'text/html') {
      creating = html[ID];
      super();
      hidden(this, '_html', html);
      hidden(this, '_type', contentType);
    }
    get nodeType() { return 9; }
    get nodeName() { return '#document'; }
    get parentNode() { return null; }
    get ownerDocument() { return null; }
    get isConnected() { return false; }
    get childNodes() { return nodeList([this._html[ID]]); }
    get firstChild() { return this._html; }
    get lastChild() { return this._html; }
    get children() { return nodeList(this._html.nodeType === 1 ? [this._html[ID]] : []); }
    get documentElement() { return this._html; }
    get head() { return this._html.querySelector('head'); }
    get body() { return this._html.querySelector('body'); }
    get title() { const t = this._html.querySelector('title'); return t ? t.textContent.replace(/\s+/g, ' ').trim() : ''; }
    set title(v) { let t = this._html.querySelector('title'); if (!t) { t = document.createElement('title'); (this.head || this._html).appendChild(t); } t.textContent = toText(v); }
    get URL() { return 'about:blank'; }
    get documentURI() { return 'about:blank'; }
    get readyState() { return 'complete'; }
    get defaultView() { return null; }
    get contentType() { return this._type; }
    get characterSet() { return 'UTF-8'; }
    get charset() { return this.characterSet; }
    get inputEncoding() { return this.characterSet; }
    get location() { return null; }
    get cookie() { return ''; }
    set cookie(_) {}
    get implementation() { return implementation; }
    get textContent() { return null; }
    querySelector(selector) { return this._html.matches(selector) ? this._html : this._html.querySelector(selector); }
    querySelectorAll(selector) { const list = this._html.querySelectorAll(selector); if (this._html.matches(selector)) list.unshift(this._html); return list; }
    getElementById(id) { return this.querySelector('#' + cssEscape(id)); }
    getElementsByTagName(tag) { return this.querySelectorAll(String(tag) === '*' ? '*' : cssEscape(String(tag))); }
    getElementsByClassName(names) { const classes = splitTokens(String(names)); return classes.length ? this.querySelectorAll(classes.map((c) => '.' + cssEscape(c)).join('')) : []; }
    getElementsByName(name) { return this.querySelectorAll(`[name="${cssEscape(name)}"]`); }
    createElement(tag) { return document.createElement(tag); }
    createElementNS(ns, tag) { return document.createElementNS(ns, tag); }
    createTextNode(text) { return document.createTextNode(text); }
    createComment(text) { return document.createComment(text); }
    createDocumentFragment() { return document.createDocumentFragment(); }
    createRange() { return new Range(); }
    createTreeWalker(root, what, filter) { return new TreeWalker(root, what, filter); }
    importNode(node, deep) { return document.importNode(node, deep); }
    adoptNode(node) { return document.adoptNode(node); }
    appendChild(child) { return this._html.appendChild(child); }
    cloneNode() { return new InertDocument(this._html.cloneNode(true), this._type); }
  }
  // An inert HTML document holding `markup` (its own <html>, <head> and
  // <body> as the parser makes them, whatever `markup` has).
  const inertHtml = (markup) => {
    const html = document.createElement('html');
    html.innerHTML = toText(markup);
    if (!html.querySelector('head')) html.insertBefore(document.createElement('head'), html.firstChild);
    if (!html.querySelector('body')) html.appendChild(document.createElement('body'));
    return new InertDocument(html);
  };
  const implementation = {
    createHTMLDocument(title) {
      const doc = inertHtml('');
      if (title !== undefined) doc.title = title;
      return doc;
    },
    hasFeature: () => true,
    createDocumentType: (name, publicId, systemId) => ({ nodeType: 10, nodeName: name, name, publicId, systemId }),
  };

