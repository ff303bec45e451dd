  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // frames (window proxies of iframes), lists, tables, media, SVG and MathML
  // elements, attributes (Attr, NamedNodeMap), DOMRect and fragments.
  // ---- frames --------------------------------------------------------------
  // A same-origin frame's window is the global object of its own realm (see
  // js/frames.rs): its document is live, its scripts ran there. A frame of
  // another origin gets a small object in its stead: `document` is an inert
  // copy of what the frame shows (read once per document the frame loads)
  // that throws on reading, as in browsers, and `parent` leads back here.
  const frameWindows = new WeakMap();
  class FrameWindow {}
  const frameWindow = (iframe) => {
    if (!iframe.isConnected) return null;
    const live = native.frameWindow(iframe[ID]);
    if (live) return live;
    const source = native.frameSource(iframe[ID]);
    const [url, markup] = source || ['about:blank', ''];
    const known = frameWindows.get(iframe);
    if (known && known.url === url && known.markup === markup) return known.window;
    const sameOrigin = url === 'about:blank' || url === 'about:srcdoc' || (() => { try { return new URL(url).origin === location.origin; } catch (_) { return false; } })();
    let doc;
    const win = Object.create(FrameWindow.prototype, {
      document: { get() { if (!sameOrigin) throw new DOMException("Blocked a frame from accessing a cross-origin frame.", 'SecurityError'); if (!doc) doc = inertHtml(markup.replace(/^<html[^>]*>|<\/html>$/g, '')); return doc; }, enumerable: true },
      location: { get: () => ({ href: url, toString: () => url }), enumerable: true },
      frameElement: { get: () => (sameOrigin ? iframe : null), enumerable: true },
      sameOrigin: { value: sameOrigin },
    });
    for (const key of ['window', 'self', 'frames']) Object.defineProperty(win, key, { value: win, enumerable: true });
    Object.assign(win, { parent: g, top: g, length: 0, closed: false, postMessage() {}, addEventListener() {}, removeEventListener() {}, focus() {}, blur() {} });
    frameWindows.set(iframe, { url, markup, window: win });
    return win;
  };
  // The page's frames in document order, as `window[i]` and `window.length` see them.
  const frameElements = () => [...document.querySelectorAll('iframe, frame')];
  const simpleClass = (name) => ({ [name]: class extends HTMLElement {} })[name];
  const HTMLDivElement = simpleClass('HTMLDivElement');
  const HTMLSpanElement = simpleClass('HTMLSpanElement');
  const HTMLParagraphElement = simpleClass('HTMLParagraphElement');
  const HTMLHeadingElement = simpleClass('HTMLHeadingElement');
  const HTMLBodyElement = simpleClass('HTMLBodyElement');
  const HTMLHtmlElement = simpleClass('HTMLHtmlElement');
  const HTMLHeadElement = simpleClass('HTMLHeadElement');
  const HTMLUListElement = simpleClass('HTMLUListElement');
  const HTMLOListElement = simpleClass('HTMLOListElement');
  const HTMLLIElement = simpleClass('HTMLLIElement');
  class HTMLTableElement extends HTMLElement {
    get rows() { return this.querySelectorAll('tr').filter((tr) => tr.closest('table') === this); }
    get tBodies() { return this.children.filter((c) => c.localName === 'tbody'); }
    get tHead() { return this.children.find((c) => c.localName === 'thead') || null; }
    get tFoot() { return this.children.find((c) => c.localName === 'tfoot') || null; }
    get caption() { return this.children.find((c) => c.localName === 'caption') || null; }
    insertRow(index = -1) {
      const rows = this.rows;
      const tr = document.createElement('tr');
      if (index === -1 || index === rows.length) {
        const body = this.tBodies[this.tBodies.length - 1];
        (rows.length ? rows[rows.length - 1].parentNode : body || this).appendChild(tr);
      } else if (index >= 0 && index < rows.length) {
        rows[index].parentNode.insertBefore(tr, rows[index]);
      } else {
        throw new DOMException(`The index provided (${index}) is outside the range [-1, ${rows.length}].`, 'IndexSizeError');
      }
      return tr;
    }
    deleteRow(index) { const rows = this.rows; const row = rows[index === -1 ? rows.length - 1 : index]; if (row) row.remove(); }
    createTBody() { const b = document.createElement('tbody'); this.appendChild(b); return b; }
  }
  class HTMLTableRowElement extends HTMLElement {
    get cells() { return this.children.filter((c) => c.localName === 'td' || c.localName === 'th'); }
    get rowIndex() { const t = this.closest('table'); return t ? t.rows.indexOf(this) : -1; }
    get sectionRowIndex() { const p = this.parentElement; return p ? p.children.filter((c) => c.localName === 'tr').indexOf(this) : -1; }
    insertCell(index = -1) {
      const cells = this.cells;
      const td = document.createElement('td');
      if (index === -1 || index === cells.length) this.appendChild(td);
      else if (index >= 0 && index < cells.length) this.insertBefore(td, cells[index]);
      else throw new DOMException(`The index provided (${index}) is outside the range [-1, ${cells.length}].`, 'IndexSizeError');
      return td;
    }
    deleteCell(index) { const cells = this.cells; const c = cells[index === -1 ? cells.length - 1 : index]; if (c) c.remove(); }
  }
  class HTMLTableCellElement extends HTMLElement {
    get cellIndex() { const tr = this.parentElement; return tr && tr.cells ? tr.cells.indexOf(this) : -1; }
  }
  const HTMLStyleElement = simpleClass('HTMLStyleElement');
  const HTMLLinkElement = simpleClass('HTMLLinkElement');
  const HTMLMetaElement = simpleClass('HTMLMetaElement');
  const HTMLTitleElement = simpleClass('HTMLTitleElement');
  const HTMLPreElement = simpleClass('HTMLPreElement');
  const HTMLBRElement = simpleClass('HTMLBRElement');
  const HTMLHRElement = simpleClass('HTMLHRElement');
  const HTMLFieldSetElement = simpleClass('HTMLFieldSetElement');
  const HTMLLegendElement = simpleClass('HTMLLegendElement');
  const HTMLUnknownElement = simpleClass('HTMLUnknownElement');
  class HTMLMediaElement extends HTMLElement {
    get paused() { return true; }
    get ended() { return false; }
    get currentTime() { return 0; }
    set currentTime(_) {}
    get duration() { return NaN; }
    get readyState() { return 0; }
    get networkState() { return 3; }
    get muted() { return this.hasAttribute('muted'); }
    set muted(v) { this.toggleAttribute('muted', !!v); }
    get volume() { return 1; }
    set volume(_) {}
    get currentSrc() { return this.src || ''; }
    canPlayType() { return ''; }
    load() {}
    pause() {}
    // No media playback in this engine.
    play() { return Promise.reject(new DOMException('The element has no supported sources.', 'NotSupportedError')); }
  }
  Object.assign(HTMLMediaElement, { HAVE_NOTHING: 0, NETWORK_NO_SOURCE: 3 });
  const HTMLVideoElement = ({ HTMLVideoElement: class extends HTMLMediaElement { get videoWidth() { return 0; } get videoHeight() { return 0; } } }).HTMLVideoElement;
  const HTMLAudioElement = ({ HTMLAudioElement: class extends HTMLMediaElement {} }).HTMLAudioElement;
  const MORE_ELEMENT_CLASSES = {};
  for (const [name, tags] of [
    ['HTMLSourceElement', 'source'], ['HTMLPictureElement', 'picture'], ['HTMLTableSectionElement', 'thead tbody tfoot'],
    ['HTMLTableCaptionElement', 'caption'], ['HTMLTableColElement', 'col colgroup'], ['HTMLTimeElement', 'time'], ['HTMLDataElement', 'data'],
    ['HTMLOutputElement', 'output'], ['HTMLProgressElement', 'progress'], ['HTMLMeterElement', 'meter'], ['HTMLQuoteElement', 'q blockquote'],
    ['HTMLMapElement', 'map'], ['HTMLAreaElement', 'area'], ['HTMLObjectElement', 'object'], ['HTMLEmbedElement', 'embed'],
    ['HTMLSlotElement', 'slot'], ['HTMLDataListElement', 'datalist'], ['HTMLOptGroupElement', 'optgroup'], ['HTMLBaseElement', 'base'],
    ['HTMLModElement', 'ins del'], ['HTMLMenuElement', 'menu'], ['HTMLDListElement', 'dl'], ['HTMLTrackElement', 'track'],
    ['HTMLParamElement', 'param'], ['HTMLFrameSetElement', 'frameset'], ['HTMLDirectoryElement', 'dir'], ['HTMLFontElement', 'font'],
    ['HTMLMarqueeElement', 'marquee'],
  ]) {
    const Cls = simpleClass(name);
    MORE_ELEMENT_CLASSES[name] = Cls;
    for (const tag of tags.split(' ')) MORE_ELEMENT_CLASSES[tag] = Cls;
  }
  // Elements of SVG and MathML (by namespace); SVG boxes come from layout.
  class SVGElement extends Element {
    get className() { const el = this; return { get baseVal() { return toText(el.getAttribute('class')); }, set baseVal(v) { el.setAttribute('class', v); }, get animVal() { return toText(el.getAttribute('class')); } }; }
    get ownerSVGElement() { const svg = this.parentElement && this.parentElement.closest('svg'); return svg || null; }
    get dataset() { return datasetProxy(this); }
    get style() { return styleProxy(this); }
    focus() {} blur() {}
    get tabIndex() { const v = parseInt(this.getAttribute('tabindex'), 10); return Number.isNaN(v) ? -1 : v; }
    set tabIndex(v) { this.setAttribute('tabindex', String(v)); }
  }
  defineHandlers(SVGElement.prototype);
  class SVGGraphicsElement extends SVGElement {
    getBBox() { const r = this.getBoundingClientRect(); return new DOMRect(0, 0, r.width, r.height); }
  }
  class SVGSVGElement extends SVGGraphicsElement {
    createSVGPoint() { return { x: 0, y: 0, matrixTransform() { return this; } }; }
  }
  class MathMLElement extends Element {}
  class Attr {
    constructor(owner, name) { hidden(this, '_owner', owner); hidden(this, '_name', name); }
    get name() { return this._name; }
    get localName() { return this._name; }
    get nodeName() { return this._name; }
    get nodeType() { return 2; }
    get namespaceURI() { return null; }
    get prefix() { return null; }
    get specified() { return true; }
    get ownerElement() { return this._owner; }
    get value() { return toText(this._owner.getAttribute(this._name)); }
    set value(v) { this._owner.setAttribute(this._name, v); }
    get nodeValue() { return this.value; }
    get textContent() { return this.value; }
  }
  Object.setPrototypeOf(Attr.prototype, Node.prototype);
  class NamedNodeMap extends Array {
    item(i) { return this[i] || null; }
    getNamedItem(name) { const n = String(name).toLowerCase(); return this.find((a) => a.name === n) || null; }
    getNamedItemNS(_ns, name) { return this.getNamedItem(name); }
    static get [Symbol.species]() { return Array; }
  }
  const RECT = Symbol('rect');
  class DOMRectReadOnly {
    constructor(x = 0, y = 0, width = 0, height = 0) { Object.defineProperty(this, RECT, { value: { x: Number(x), y: Number(y), width: Number(width), height: Number(height) } }); }
    get x() { return this[RECT].x; }
    get y() { return this[RECT].y; }
    get width() { return this[RECT].width; }
    get height() { return this[RECT].height; }
    get left() { return Math.min(this.x, this.x + this.width); }
    get top() { return Math.min(this.y, this.y + this.height); }
    get right() { return Math.max(this.x, this.x + this.width); }
    get bottom() { return Math.max(this.y, this.y + this.height); }
    toJSON() { return { x: this.x, y: this.y, width: this.width, height: this.height, top: this.top, right: this.right, bottom: this.bottom, left: this.left }; }
    static fromRect(r = {}) { return new this(r.x, r.y, r.width, r.height); }
  }
  class DOMRect extends DOMRectReadOnly {
    get x() { return this[RECT].x; }
    set x(v) { this[RECT].x = Number(v); }
    get y() { return this[RECT].y; }
    set y(v) { this[RECT].y = Number(v); }
    get width() { return this[RECT].width; }
    set width(v) { this[RECT].width = Number(v); }
    get height() { return this[RECT].height; }
    set height(v) { this[RECT].height = Number(v); }
  }
  const ELEMENT_CLASSES = {
    ...MORE_ELEMENT_CLASSES, video: HTMLVideoElement, audio: HTMLAudioElement,
    input: HTMLInputElement, textarea: HTMLTextAreaElement, select: HTMLSelectElement, option: HTMLOptionElement,
    button: HTMLButtonElement, form: HTMLFormElement, a: HTMLAnchorElement, label: HTMLLabelElement, img: HTMLImageElement,
    script: HTMLScriptElement, template: HTMLTemplateElement, details: HTMLDetailsElement, dialog: HTMLDialogElement,
    canvas: HTMLCanvasElement, iframe: HTMLIFrameElement, div: HTMLDivElement, span: HTMLSpanElement,
    p: HTMLParagraphElement, h1: HTMLHeadingElement, h2: HTMLHeadingElement, h3: HTMLHeadingElement,
    h4: HTMLHeadingElement, h5: HTMLHeadingElement, h6: HTMLHeadingElement, body: HTMLBodyElement,
    html: HTMLHtmlElement, head: HTMLHeadElement, ul: HTMLUListElement, ol: HTMLOListElement, li: HTMLLIElement,
    table: HTMLTableElement, tr: HTMLTableRowElement, td: HTMLTableCellElement, th: HTMLTableCellElement,
    style: HTMLStyleElement, link: HTMLLinkElement, meta: HTMLMetaElement, title: HTMLTitleElement,
    pre: HTMLPreElement, br: HTMLBRElement, hr: HTMLHRElement, fieldset: HTMLFieldSetElement, legend: HTMLLegendElement,
  };
  const ELEMENT_CLASS_NAMES = {
    HTMLInputElement, HTMLTextAreaElement, HTMLSelectElement, HTMLOptionElement, HTMLButtonElement, HTMLFormElement,
    HTMLAnchorElement, HTMLLabelElement, HTMLImageElement, HTMLScriptElement, HTMLTemplateElement, HTMLDetailsElement,
    HTMLDialogElement, HTMLCanvasElement, HTMLIFrameElement, HTMLDivElement, HTMLSpanElement, HTMLParagraphElement,
    HTMLHeadingElement, HTMLBodyElement, HTMLHtmlElement, HTMLHeadElement, HTMLUListElement, HTMLOListElement,
    HTMLLIElement, HTMLTableElement, HTMLTableRowElement, HTMLTableCellElement, HTMLStyleElement, HTMLLinkElement,
    HTMLMetaElement, HTMLTitleElement, HTMLPreElement, HTMLBRElement, HTMLHRElement, HTMLFieldSetElement,
    HTMLLegendElement, HTMLUnknownElement, HTMLMediaElement, HTMLVideoElement, HTMLAudioElement,
    ...Object.fromEntries(Object.entries(MORE_ELEMENT_CLASSES).filter(([k]) => k.startsWith('HTML'))),
    SVGElement, SVGGraphicsElement, SVGSVGElement, MathMLElement, Attr, NamedNodeMap,
    NodeList, HTMLCollection, DOMRect, DOMRectReadOnly,
  };

  reflectAttributes(ELEMENT_CLASS_NAMES);

  class DocumentFragment extends Node {
    get nodeType() { return 11; }
    get nodeName() { return '#document-fragment'; }
    get parentNode() { return null; }
    get innerHTML() { return native.innerHTML(this[ID]); }
    set innerHTML(html) { retainWrapped(); native.setInnerHTML(this[ID], toText(html)); }
    getElementById(id) { return this.querySelector('#' + cssEscape(id)); }
  }
  mixin(DocumentFragment, parentNodeMixin);
  // Shadow roots are not supported (attachShadow throws); the class exists
  // for the `instanceof ShadowRoot` checks libraries make.
  class ShadowRoot extends DocumentFragment {}

