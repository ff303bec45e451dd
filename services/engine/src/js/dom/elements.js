  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // elements: scrolling, inline style, dataset, HTMLElement and
  // HTMLInputElement.
  // ---- scrolling -----------------------------------------------------------
  // The viewport's position lives in the Blitz document, so screenshots show
  // what the page scrolled to. The root element scrolls the viewport (CSSOM);
  // other elements scroll their own box when their overflow allows it.
  const isRoot = (el) => el[ID] === native.documentElement();
  const elementScroll = (el) => (isRoot(el) ? native.scrollPosition() : native.elementScroll(el[ID]));
  const elementScrollSize = (el) => (isRoot(el) ? native.documentScrollSize() : native.elementScrollSize(el[ID]));
  const finite = (v) => { const n = Number(v); return Number.isFinite(n) ? n : 0; };
  // `(x, y)` or `({left, top})`; a member left out keeps `base`.
  const scrollArgs = (args, base) => {
    if (args.length >= 2) return [finite(args[0]), finite(args[1])];
    const o = args[0];
    if (o === null || typeof o !== 'object') return base;
    return [o.left === undefined ? base[0] : finite(o.left), o.top === undefined ? base[1] : finite(o.top)];
  };
  // One `scroll` event per target per task, like browsers' per-frame events;
  // at the document it bubbles to the window.
  const pendingScrollEvents = new Set();
  const queueScrollEvent = (target) => {
    if (pendingScrollEvents.has(target)) return;
    pendingScrollEvents.add(target);
    addTimer(() => {
      pendingScrollEvents.delete(target);
      target.dispatchEvent(new Event('scroll', { bubbles: target === document }));
    }, 0, [], false);
  };
  const scrollViewportTo = (x, y) => { if (native.scrollViewportTo(x, y)) queueScrollEvent(document); };
  const scrollElementTo = (el, x, y) => {
    if (isRoot(el)) scrollViewportTo(x, y);
    else if (native.elementScrollTo(el[ID], finite(x), finite(y))) queueScrollEvent(el);
  };

  // Inline style: the style attribute, read and written as declarations, so
  // that `getAttribute('style')` and Stylo see the same text.
  // A browser keeps only the declarations its CSS parser accepts: in a
  // standards-mode page `width: 640` (no unit) is dropped, so `style.width`
  // reads '' and libraries that size an unsized element by that (dygraphs)
  // do. A declaration is dropped when Stylo knows the property (it parses
  // `inherit`) but not the value; a property Stylo does not know is kept, as
  // Chromium may. No regular expression here: it would replace the page's
  // RegExp.$1. Parsed declarations are kept by the attribute's text.
  const valueOf = (raw) => {
    const bang = raw.lastIndexOf('!');
    return bang >= 0 && raw.slice(bang + 1).trim().toLowerCase() === 'important' ? raw.slice(0, bang).trim() : raw;
  };
  const rejected = (name, value) => !name.startsWith('--') && native.doctype() === 'html'
    && !native.cssSupports(name, value) && native.cssSupports(name, 'inherit');
  const parsedStyles = new Map();
  const styleDeclarations = (el) => {
    const text = toText(el.getAttribute('style'));
    let parsed = parsedStyles.get(text);
    if (!parsed) {
      parsed = [];
      for (const decl of text.split(';')) {
        const i = decl.indexOf(':');
        if (i <= 0) continue;
        const name = decl.slice(0, i).trim().toLowerCase();
        const raw = decl.slice(i + 1).trim();
        const value = valueOf(raw);
        if (!rejected(name, value)) parsed.push([name, value, value !== raw]);
      }
      if (parsedStyles.size >= 4096) parsedStyles.clear();
      parsedStyles.set(text, parsed);
    }
    // [name, value without `!important`, whether it was important]; shared
    // by every read of the same text, so callers must not change it.
    return parsed;
  };
  const writeStyle = (el, name, value) => {
    const v = toText(value).trim();
    // `el.style.width = '640'` is ignored, as an invalid value is in browsers.
    if (v !== '' && rejected(name, v)) return;
    const all = styleDeclarations(el);
    const decls = all.filter(([n]) => n !== name);
    if (v !== '') {
      const existing = all.findIndex(([n]) => n === name);
      if (existing >= 0) decls.splice(existing, 0, [name, v, false]); else decls.push([name, v, false]);
    }
    if (decls.length === 0 && v === '') { el.removeAttribute('style'); return; }
    el.setAttribute('style', decls.map(([n, val, important]) => `${n}: ${val}${important ? ' !important' : ''};`).join(' '));
  };
  class CSSStyleDeclaration {}
  class DOMStringMap {}
  // A style declaration (an element's `style`, or what getComputedStyle
  // returns) is a Proxy over an object of CSSStyleDeclaration.prototype that
  // holds its backing store in a slot: the methods live on the prototype, as
  // in browsers, and property names (`style.color`) reach the store.
  // All declarations share one handler, which finds the store on the target:
  // a script that reads `getComputedStyle(el).display` of every element made
  // a handler and its two closures for each.
  const DECL = Symbol('declarations');
  const declarationHandler = {
    get(target, key, receiver) {
      if (typeof key !== 'string' || key in target) return Reflect.get(target, key, receiver);
      const decl = target[DECL];
      const index = arrayIndex(key);
      if (index >= 0) return decl.names()[index];
      return decl.read(key === 'cssFloat' ? 'float' : kebab(key));
    },
    set(target, key, value, receiver) {
      if (typeof key !== 'string' || key in target) return Reflect.set(target, key, value, receiver);
      target[DECL].write(key === 'cssFloat' ? 'float' : kebab(key), value === null ? '' : value);
      return true;
    },
  };
  const declarationProxy = (decl) => new Proxy(Object.defineProperty(Object.create(CSSStyleDeclaration.prototype), DECL, { value: decl }), declarationHandler);
  Object.defineProperties(CSSStyleDeclaration.prototype, Object.getOwnPropertyDescriptors({
    getPropertyValue(property) { return this[DECL].read(toText(property).toLowerCase()); },
    getPropertyPriority(property) { void property; return ''; },
    setProperty(property, value, priority = '') { void priority; this[DECL].write(toText(property).toLowerCase(), value === null ? '' : value); },
    removeProperty(property) { const name = toText(property).toLowerCase(); const old = this[DECL].read(name); this[DECL].write(name, ''); return old; },
    item(index) { return this[DECL].names()[index >>> 0] || ''; },
    get cssText() { return this[DECL].text(); },
    set cssText(v) { this[DECL].setText(toText(v)); },
    get length() { return this[DECL].names().length; },
  }));
  const styleProxy = (el) => declarationProxy({
    read: (name) => readStyle(el, name),
    write: (name, value) => writeStyle(el, name, value),
    names: () => styleDeclarations(el).map(([n]) => n),
    text: () => toText(el.getAttribute('style')),
    setText: (v) => el.setAttribute('style', v),
  });
  const readStyle = (el, name) => {
    const decls = styleDeclarations(el);
    for (let i = decls.length - 1; i >= 0; i--) if (decls[i][0] === name) return decls[i][1];
    return '';
  };
  const datasetProxy = (el) => new Proxy(Object.create(DOMStringMap.prototype), {
    get(_, key) { if (typeof key !== 'string') return undefined; const v = el.getAttribute('data-' + kebab(key)); return v === null ? undefined : v; },
    set(_, key, value) { if (typeof key === 'string') el.setAttribute('data-' + kebab(key), String(value)); return true; },
    has(_, key) { return typeof key === 'string' && el.hasAttribute('data-' + kebab(key)); },
    deleteProperty(_, key) { if (typeof key === 'string') el.removeAttribute('data-' + kebab(key)); return true; },
    ownKeys() { return el.getAttributeNames().filter((n) => n.startsWith('data-')).map((n) => camel(n.slice(5))); },
    getOwnPropertyDescriptor(_, key) {
      if (typeof key !== 'string' || !el.hasAttribute('data-' + kebab(key))) return undefined;
      return { value: el.getAttribute('data-' + kebab(key)), writable: true, enumerable: true, configurable: true };
    },
  });
  const urlAttr = (name) => ({
    get() { const v = this.getAttribute(name); return v === null ? '' : native.resolveUrl(v) || v; },
    set(v) { this.setAttribute(name, v); },
  });
  const stringAttr = (name) => ({
    get() { return toText(this.getAttribute(name)); },
    set(v) { this.setAttribute(name, v); },
  });
  const boolAttr = (name) => ({
    get() { return this.hasAttribute(name); },
    set(v) { this.toggleAttribute(name, !!v); },
  });

  class HTMLElement extends Element {
    get innerText() { return native.innerText(this[ID]); }
    set innerText(v) { this.textContent = v; }
    get outerText() { return this.innerText; }
    set outerText(v) { this.replaceWith(toText(v)); }
    get offsetWidth() { const m = native.boxMetrics(this[ID]); return m ? Math.round(m[0]) : 0; }
    get offsetHeight() { const m = native.boxMetrics(this[ID]); return m ? Math.round(m[1]) : 0; }
    focus() { focusElement(this); }
    blur() { if (activeElement === this) focusElement(null); }
    get tabIndex() { const v = parseInt(this.getAttribute('tabindex'), 10); return Number.isNaN(v) ? (isFocusable(this) && !this.hasAttribute('tabindex') ? 0 : -1) : v; }
    set tabIndex(v) { this.setAttribute('tabindex', String(v)); }
    get style() { return styleProxy(this); }
    set style(v) { this.setAttribute('style', toText(v)); }
    get dataset() { return datasetProxy(this); }
    get hidden() { return this.hasAttribute('hidden'); }
    set hidden(v) { this.toggleAttribute('hidden', !!v); }
    get offsetParent() {
      if (!native.boxMetrics(this[ID]) || this.localName === 'body' || this.localName === 'html') return null;
      if (native.computedStyle(this[ID], 'position') === 'fixed') return null;
      for (let p = this.parentElement; p; p = p.parentElement) {
        if (p.localName === 'body' || native.computedStyle(p[ID], 'position') !== 'static' || ['td', 'th', 'table'].includes(p.localName)) return p;
      }
      return null;
    }
    // Relative to the offset parent's padding edge (the page for body).
    get offsetTop() { const r = this.getBoundingClientRect(); const p = this.offsetParent; return Math.round(r.top - (p && p.localName !== 'body' ? p.getBoundingClientRect().top + p.clientTop : -g.scrollY)); }
    get offsetLeft() { const r = this.getBoundingClientRect(); const p = this.offsetParent; return Math.round(r.left - (p && p.localName !== 'body' ? p.getBoundingClientRect().left + p.clientLeft : -g.scrollX)); }
    get isContentEditable() { for (let e = this; e; e = e.parentElement) { const v = e.getAttribute('contenteditable'); if (v !== null) return v !== 'false'; } return false; }
    get contentEditable() { const v = this.getAttribute('contenteditable'); return v === null ? 'inherit' : v === '' ? 'true' : v; }
    set contentEditable(v) { this.setAttribute('contenteditable', v); }
    get accessKey() { return toText(this.getAttribute('accesskey')); }
    set accessKey(v) { this.setAttribute('accesskey', v); }
    get draggable() { return this.getAttribute('draggable') === 'true'; }
    set draggable(v) { this.setAttribute('draggable', v ? 'true' : 'false'); }
    click() {
      if (this.hasAttribute('disabled') && FORM_CONTROLS.includes(this.localName)) return;
      this.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, composed: true, view: g, detail: 1 }));
    }
  }
  defineHandlers(HTMLElement.prototype);
  // Content attributes reflected as properties, on the interfaces HTML gives
  // them to (so that `'download' in a` holds and `'download' in div` does
  // not, as feature detection expects). Interfaces are named here and looked
  // up once every element class exists (see `reflectAttributes`).
  const REFLECTED = {
    url: {
      href: 'Anchor Area Link Base', src: 'Image Script IFrame Input Media Source Track Embed', action: 'Form',
      formAction: 'Input Button', cite: 'Quote Mod', poster: 'Video',
    },
    string: {
      title: '', lang: '', dir: '', nonce: '', inputMode: '', enterKeyHint: '',
      name: 'Input Button Select TextArea Form IFrame Anchor Image Meta Map Param Output FieldSet Slot Object Embed',
      alt: 'Image Input Area', rel: 'Anchor Area Link', target: 'Anchor Area Form Base', placeholder: 'Input TextArea',
      autocomplete: 'Input Select TextArea Form', pattern: 'Input', accept: 'Input', step: 'Input', min: 'Input', max: 'Input',
      dirName: 'Input TextArea', formMethod: 'Input Button', formEnctype: 'Input Button', formTarget: 'Input Button',
      download: 'Anchor Area', hreflang: 'Anchor Link', media: 'Link Style Source Meta', charset: 'Script Anchor Link',
      crossOrigin: 'Image Script Link Media', integrity: 'Script Link', referrerPolicy: 'Anchor Area Image IFrame Link Script',
      htmlFor: 'Label', headers: 'TableCell', scope: 'TableCell', abbr: 'TableCell', kind: 'Track', srclang: 'Track',
      label: 'Track Option OptGroup', loading: 'Image IFrame', decoding: 'Image', sizes: 'Image Source Link',
      srcset: 'Image Source', useMap: 'Image Object', wrap: 'TextArea',
      type: 'Input Button Script Link Style Source Object Embed OList UList LI', content: 'Meta', httpEquiv: 'Meta',
      enctype: 'Form', srcdoc: 'IFrame', value: 'Button Data Param',
    },
    bool: {
      autofocus: '', inert: '', disabled: 'Button Input Select TextArea Option OptGroup FieldSet Link',
      required: 'Input Select TextArea', readOnly: 'Input TextArea', multiple: 'Input Select', noValidate: 'Form',
      formNoValidate: 'Input Button', open: 'Details Dialog', async: 'Script', defer: 'Script', noModule: 'Script',
      reversed: 'OList', allowFullscreen: 'IFrame', default: 'Track', isMap: 'Image',
    },
    number: {
      maxLength: 'Input TextArea', minLength: 'Input TextArea', size: 'Input Select', rows: 'TextArea FrameSet',
      cols: 'TextArea FrameSet', width: 'Image Canvas IFrame Video Embed Object Input Source',
      height: 'Image Canvas IFrame Video Embed Object Input Source', colSpan: 'TableCell', rowSpan: 'TableCell',
      span: 'TableCol', start: 'OList',
    },
  };
  const NUMBER_FALLBACK = { maxLength: -1, minLength: -1, size: 20, rows: 2, cols: 20, colSpan: 1, rowSpan: 1, span: 1, start: 1 };
  const numberAttr = (name, attr) => {
    const fallback = NUMBER_FALLBACK[name] ?? 0;
    return {
      get() { const v = parseInt(this.getAttribute(attr), 10); return Number.isNaN(v) ? fallback : v; },
      set(v) { this.setAttribute(attr, String(Math.trunc(Number(v)))); },
    };
  };
  const reflectAttributes = (classes) => {
    for (const [kind, names] of Object.entries(REFLECTED)) {
      for (const [name, owners] of Object.entries(names)) {
        const attr = name === 'htmlFor' ? 'for' : name === 'httpEquiv' ? 'http-equiv' : name.toLowerCase();
        const accessor = kind === 'url' ? urlAttr(attr) : kind === 'string' ? stringAttr(attr) : kind === 'bool' ? boolAttr(attr) : numberAttr(name, attr);
        const targets = owners === '' ? [HTMLElement] : owners.split(' ').map((o) => classes[`HTML${o}Element`]);
        for (const Cls of targets) {
          // A class's own definition (HTMLInputElement's type) wins.
          if (Cls && !Object.prototype.hasOwnProperty.call(Cls.prototype, name)) {
            const { get, set } = accessor;
            Object.defineProperty(Cls.prototype, name, { get, set, configurable: true });
          }
        }
      }
    }
  };
  const FORM_CONTROLS = ['button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset'];
  const LISTED = ['button', 'fieldset', 'input', 'object', 'output', 'select', 'textarea'];
  const formOf = (el) => {
    const id = el.getAttribute('form');
    if (id !== null) { const f = document.getElementById(id); return f && f.localName === 'form' ? f : null; }
    return el.closest('form');
  };
  const labelsOf = (el) => {
    const out = [];
    const id = el.id;
    for (const label of document.querySelectorAll('label')) {
      const control = label.control;
      if (control === el) out.push(label);
    }
    return out.length || !id ? out : out;
  };
  // Validity, as far as an agent's form filling needs it.
  const validityOf = (el) => {
    const value = el.value;
    const valueMissing = el.required && !el.disabled && (el.type === 'checkbox' || el.type === 'radio' ? !el.checked : value === '');
    const tooLong = el.maxLength >= 0 && value.length > el.maxLength;
    let typeMismatch = false;
    if (value && el.type === 'email') typeMismatch = !/^[^\s@]+@[^\s@]+$/.test(value);
    if (value && el.type === 'url') typeMismatch = !URL.canParse(value);
    let patternMismatch = false;
    const pattern = el.getAttribute && el.getAttribute('pattern');
    if (value && pattern) { try { patternMismatch = !new RegExp(`^(?:${pattern})$`, 'u').test(value); } catch (_) { patternMismatch = false; } }
    let rangeUnderflow = false;
    let rangeOverflow = false;
    if (value !== '' && (el.type === 'number' || el.type === 'range')) {
      const n = Number(value);
      const min = parseFloat(el.getAttribute('min'));
      const max = parseFloat(el.getAttribute('max'));
      rangeUnderflow = !Number.isNaN(min) && n < min;
      rangeOverflow = !Number.isNaN(max) && n > max;
    }
    const custom = customValidity.get(el) || '';
    const valid = !(valueMissing || tooLong || typeMismatch || patternMismatch || rangeUnderflow || rangeOverflow || custom);
    return { valueMissing, tooLong, tooShort: false, typeMismatch, patternMismatch, rangeOverflow, rangeUnderflow, stepMismatch: false, badInput: false, customError: !!custom, valid };
  };
  const customValidity = new WeakMap();
  const controlMixin = {
    get form() { return formOf(this); },
    get labels() { return labelsOf(this); },
    get validity() { return validityOf(this); },
    get validationMessage() { const v = validityOf(this); return v.valid ? '' : customValidity.get(this) || (v.valueMissing ? 'Please fill out this field.' : 'Please match the requested format.'); },
    get willValidate() { return !this.disabled && this.type !== 'hidden'; },
    setCustomValidity(message) { customValidity.set(this, toText(message)); },
    checkValidity() {
      if (validityOf(this).valid) return true;
      this.dispatchEvent(new Event('invalid', { cancelable: true }));
      return false;
    },
    reportValidity() { return this.checkValidity(); },
  };
  class HTMLInputElement extends HTMLElement {
    get type() {
      const t = toText(this.getAttribute('type')).toLowerCase();
      return INPUT_TYPES.includes(t) ? t : 'text';
    }
    set type(v) { this.setAttribute('type', v); }
    // The live value and checkedness live in the Blitz control (what it
    // paints, see forms.rs); the attributes are the defaults.
    get value() {
      const live = native.controlValue(this[ID]);
      if (live !== null && live !== undefined) return live;
      const v = this.getAttribute('value');
      if (v === null) return this.type === 'checkbox' || this.type === 'radio' ? 'on' : '';
      return this.type === 'checkbox' || this.type === 'radio' || this.type === 'hidden' ? v : v.replace(/[\r\n]/g, '');
    }
    set value(v) {
      let text = toText(v);
      if (this.type === 'number' && text !== '' && !Number.isFinite(Number(text))) text = '';
      if (['text', 'search', 'tel', 'url', 'email', 'password'].includes(this.type)) text = text.replace(/[\r\n]/g, '');
      const changed = text !== this.value;
      if (!native.setControlValue(this[ID], text)) this.setAttribute('value', text);
      if (changed) caretAtEnd(this);
    }
    get defaultValue() { return toText(this.getAttribute('value')); }
    set defaultValue(v) { this.setAttribute('value', toText(v)); }
    get checked() {
      const live = native.controlChecked(this[ID]);
      return live === null || live === undefined ? this.hasAttribute('checked') : live;
    }
    set checked(v) {
      if (!!v && this.type === 'radio') uncheckGroup(this);
      if (!native.setControlChecked(this[ID], !!v)) this.toggleAttribute('checked', !!v);
    }
    get defaultChecked() { return this.hasAttribute('checked'); }
    set defaultChecked(v) { this.toggleAttribute('checked', !!v); }
    get valueAsNumber() { const n = parseFloat(this.value); return Number.isNaN(n) ? NaN : n; }
    set valueAsNumber(n) { this.value = String(n); }
    get files() { return this.type === 'file' ? [] : null; }
    set files(_) { /* a FileList only the user gives: kept empty */ }
    showPicker() {}
    stepUp(n = 1) { this.valueAsNumber = (this.valueAsNumber || 0) + n * (Number(this.step) || 1); }
    stepDown(n = 1) { this.stepUp(-n); }
  }
  const INPUT_TYPES = ['text', 'search', 'tel', 'url', 'email', 'password', 'date', 'month', 'week', 'time', 'datetime-local', 'number', 'range', 'color', 'checkbox', 'radio', 'file', 'submit', 'image', 'reset', 'button', 'hidden'];
