  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // custom elements: the registry, upgrades and reactions.
  // ---- custom elements ------------------------------------------------------
  // customElements.define(name, class): elements of that name, already in
  // the document and made later, become instances of the class (its
  // constructor runs as an upgrade: `super()` returns the element), and get
  // connectedCallback / disconnectedCallback as they enter and leave the
  // document and attributeChangedCallback for their observedAttributes.
  // Blitz's :defined never matches, so styles keyed on it do not apply.
  const customDefinitions = new Map();
  const definitionWaiters = new Map();
  const upgraded = new WeakSet();
  let upgrading = null;
  const definitionOf = (cls) => { for (const d of customDefinitions.values()) if (d.cls === cls) return d; return null; };
  const CUSTOM_NAME = /^[a-z][a-z0-9._\u00b7\u00c0-\uffff]*-[a-z0-9._\-\u00b7\u00c0-\uffff]*$/;
  const RESERVED_NAMES = ['annotation-xml', 'color-profile', 'font-face', 'font-face-src', 'font-face-uri', 'font-face-format', 'font-face-name', 'missing-glyph'];
  const reaction = (el, name, ...args) => {
    const fn = el[name];
    if (typeof fn !== 'function') return;
    try { fn.apply(el, args); } catch (e) { reportError(e); }
  };
  const observesAttribute = (el, name) => {
    if (!customDefinitions.size || !upgraded.has(el)) return false;
    const def = customDefinitions.get(el.localName);
    return !!def && def.observed.has(String(name).toLowerCase());
  };
  const upgrade = (id, def, connect = true) => {
    let el = wrappers.get(id);
    if (el && upgraded.has(el)) return el;
    if (el) Object.setPrototypeOf(el, def.cls.prototype);
    else { el = Object.create(def.cls.prototype); Object.defineProperty(el, ID, { value: id }); wrappers.set(id, el); unretained.push(id); }
    upgraded.add(el);
    // A constructor may make (and so upgrade) other custom elements before
    // its `super()`: each upgrade puts back the one around it.
    const outer = upgrading;
    upgrading = el;
    try {
      if (new def.cls() !== el) throw new TypeError(`the constructor of <${def.name}> did not return the element it upgraded`);
    } catch (e) {
      reportError(e);
    } finally {
      upgrading = outer;
    }
    for (const name of def.observed) {
      const value = el.getAttribute(name);
      if (value !== null) reaction(el, 'attributeChangedCallback', name, null, value);
    }
    if (connect && el.isConnected) reaction(el, 'connectedCallback');
    return el;
  };
  // What the parser does for a defined custom element: construct it bare,
  // append its attributes (attributeChangedCallback for the observed ones),
  // insert it (connectedCallback).
  const createAsParsed = (id, def) => {
    const attributes = native.attributeNames(id).map((name) => [name, native.getAttribute(id, name)]);
    for (const [name] of attributes) native.removeAttribute(id, name);
    const el = upgrade(id, { ...def, observed: new Set() }, false);
    for (const [name, value] of attributes) {
      native.setAttribute(id, name, value);
      if (def.observed.has(name)) reaction(el, 'attributeChangedCallback', name, null, value);
    }
    if (el.isConnected) reaction(el, 'connectedCallback');
  };
  const customIn = (root) => {
    if (!customDefinitions.size || root.nodeType !== 1) return [];
    const selector = [...customDefinitions.keys()].join(',');
    const found = native.querySelectorAll(root[ID], selector);
    if (customDefinitions.has(root.localName)) found.unshift(root[ID]);
    return found;
  };
  // `root` was inserted into the document: upgrade its custom elements, or
  // tell the upgraded ones they are connected.
  const connected = (root) => {
    for (const id of customIn(root)) {
      const el = wrappers.get(id);
      if (el && upgraded.has(el)) reaction(el, 'connectedCallback');
      else wrap(id);
    }
  };
  const disconnected = (root) => {
    for (const id of customIn(root)) {
      const el = wrappers.get(id);
      if (el && upgraded.has(el)) reaction(el, 'disconnectedCallback');
    }
  };
  class CustomElementRegistry {
    define(name, cls, options = undefined) {
      name = toText(name);
      if (typeof cls !== 'function' || !(cls.prototype instanceof HTMLElement)) throw new TypeError("Failed to execute 'define' on 'CustomElementRegistry': The provided value is not a constructor of an HTMLElement subclass.");
      if (!CUSTOM_NAME.test(name) || RESERVED_NAMES.includes(name)) throw new DOMException(`Failed to execute 'define' on 'CustomElementRegistry': "${name}" is not a valid custom element name`, 'SyntaxError');
      if (customDefinitions.has(name)) throw new DOMException(`Failed to execute 'define' on 'CustomElementRegistry': the name "${name}" has already been used with this registry`, 'NotSupportedError');
      if (definitionOf(cls)) throw new DOMException("Failed to execute 'define' on 'CustomElementRegistry': this constructor has already been used with this registry", 'NotSupportedError');
      if (options && options.extends) native.console('warn', `customElements.define("${name}"): customized built-in elements (extends: '${options.extends}') are not upgraded by this engine`);
      const observed = new Set(Array.from(cls.observedAttributes || [], (a) => String(a).toLowerCase()));
      const def = { name, cls, observed };
      customDefinitions.set(name, def);
      if (!(options && options.extends)) for (const id of native.querySelectorAll(document[ID], name)) upgrade(id, def);
      for (const resolve of definitionWaiters.get(name) || []) resolve(cls);
      definitionWaiters.delete(name);
    }
    get(name) { const d = customDefinitions.get(toText(name)); return d ? d.cls : undefined; }
    getName(cls) { const d = definitionOf(cls); return d ? d.name : null; }
    whenDefined(name) {
      name = toText(name);
      if (!CUSTOM_NAME.test(name)) return Promise.reject(new DOMException(`"${name}" is not a valid custom element name`, 'SyntaxError'));
      const d = customDefinitions.get(name);
      if (d) return Promise.resolve(d.cls);
      return new Promise((resolve) => { const list = definitionWaiters.get(name) || []; list.push(resolve); definitionWaiters.set(name, list); });
    }
    upgrade(root) { if (root instanceof Node) for (const id of customIn(root)) wrap(id); }
  }
  const customElements = new CustomElementRegistry();

