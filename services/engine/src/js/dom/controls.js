  // Part of the DOM prelude (js/dom/, joined in order by js/mod.rs):
  // controls and embedded content: text selection in inputs and textareas,
  // textarea, select, option, button, form, anchor, label, image, script,
  // template, details, dialog, canvas and iframe elements.
  // ---- text selection of inputs and textareas ------------------------------
  // Each text control has a selection [start, end, direction] in UTF-16
  // offsets of its value, which typing replaces and the arrow keys move
  // (input.js). As in Chromium, a control starts with its caret at 0,
  // setting its value to something else puts the caret at the end, and a
  // direction of 'none' reads as 'forward'.
  const selections = new WeakMap();
  // Input types whose selection scripts may read and set (others answer
  // null and throw, as in browsers, though typing still uses the caret).
  const SELECTION_TYPES = ['text', 'search', 'tel', 'url', 'password'];
  const selectionOf = (el) => {
    const length = el.value.length;
    const s = selections.get(el);
    if (!s) return [0, 0, 'forward'];
    const end = Math.min(s[1], length);
    return [Math.min(s[0], end), end, s[2] === 'backward' ? 'backward' : 'forward'];
  };
  // An offset as the IDL's `unsigned long` takes it (-3 wraps to a huge
  // number), clamped to the value.
  const offset = (v, length) => Math.min(Number(v) >>> 0, length);
  const caretAtEnd = (el) => { const n = el.value.length; selections.set(el, [n, n, 'none']); };
  const setSelection = (el, start, end, direction = 'none') => {
    const length = el.value.length;
    const e = offset(end, length);
    const st = Math.min(offset(start, length), e);
    selections.set(el, [st, e, ['forward', 'backward'].includes(direction) ? direction : 'none']);
  };
  const hasSelectionApi = (el) => el.localName === 'textarea' || SELECTION_TYPES.includes(el.type);
  const noSelectionApi = (el) => new DOMException(`Failed to execute on 'HTMLInputElement': The input element's type ('${el.type}') does not support selection.`, 'InvalidStateError');
  const queueSelect = (el) => queueTask(() => el.dispatchEvent(uaEvent(new Event('select', { bubbles: true }))));
  const selectionMixin = {
    get selectionStart() { return hasSelectionApi(this) ? selectionOf(this)[0] : null; },
    set selectionStart(v) {
      if (!hasSelectionApi(this)) throw noSelectionApi(this);
      const [, end, dir] = selectionOf(this);
      const start = offset(v, this.value.length);
      setSelection(this, start, Math.max(start, end), dir);
    },
    get selectionEnd() { return hasSelectionApi(this) ? selectionOf(this)[1] : null; },
    set selectionEnd(v) {
      if (!hasSelectionApi(this)) throw noSelectionApi(this);
      const [start, , dir] = selectionOf(this);
      setSelection(this, start, v, dir);
    },
    get selectionDirection() { return hasSelectionApi(this) ? selectionOf(this)[2] : null; },
    set selectionDirection(v) {
      if (!hasSelectionApi(this)) throw noSelectionApi(this);
      const [start, end] = selectionOf(this);
      setSelection(this, start, end, toText(v));
    },
    setSelectionRange(start, end, direction = 'none') {
      if (!hasSelectionApi(this)) throw noSelectionApi(this);
      setSelection(this, start, end, direction);
      queueSelect(this);
    },
    // setRangeText(replacement[, start, end[, selectMode]]): replaces a range
    // of the value and places the selection by `selectMode` ('preserve' by
    // default, 'select', 'start', 'end').
    setRangeText(replacement, ...rest) {
      if (!hasSelectionApi(this)) throw noSelectionApi(this);
      const text = toText(replacement);
      const value = this.value;
      let [selStart, selEnd] = selectionOf(this);
      let start = selStart;
      let end = selEnd;
      let mode = 'preserve';
      if (rest.length >= 2) {
        start = offset(rest[0], value.length);
        end = offset(rest[1], value.length);
        if (start > end) throw new DOMException("Failed to execute 'setRangeText': The provided start value is larger than the provided end value.", 'IndexSizeError');
        if (rest.length >= 3) mode = toText(rest[2]);
      }
      this.value = value.slice(0, start) + text + value.slice(end);
      const newEnd = start + text.length;
      if (mode === 'select') [selStart, selEnd] = [start, newEnd];
      else if (mode === 'start') [selStart, selEnd] = [start, start];
      else if (mode === 'end') [selStart, selEnd] = [newEnd, newEnd];
      else {
        // 'preserve': what was after the replaced range moves with it; a
        // selection edge inside it goes to the range's start (the selection's
        // start) or the new end (its end).
        const delta = text.length - (end - start);
        selStart = selStart > end ? selStart + delta : selStart > start ? start : selStart;
        selEnd = selEnd > end ? selEnd + delta : selEnd > start ? newEnd : selEnd;
      }
      setSelection(this, selStart, selEnd);
    },
    select() {
      setSelection(this, 0, this.value.length);
      queueSelect(this);
    },
  };
  const uncheckGroup = (radio) => {
    const name = radio.name;
    if (!name) return;
    const scope = radio.form || document;
    for (const other of scope.querySelectorAll('input[type=radio]')) {
      if (other !== radio && other.name === name && other.form === radio.form && other.checked) other.checked = false;
    }
  };
  class HTMLTextAreaElement extends HTMLElement {
    get type() { return 'textarea'; }
    get value() { const live = native.controlValue(this[ID]); return live === null || live === undefined ? this.textContent : live; }
    set value(v) {
      const text = toText(v);
      const changed = text !== this.value;
      if (!native.setControlValue(this[ID], text)) this.textContent = text;
      if (changed) caretAtEnd(this);
    }
    get defaultValue() { return this.textContent; }
    set defaultValue(v) { this.textContent = toText(v); }
    get textLength() { return this.value.length; }
  }
  class HTMLSelectElement extends HTMLElement {
    get type() { return this.multiple ? 'select-multiple' : 'select-one'; }
    get options() {
      const list = nodeList(native.querySelectorAll(this[ID], 'option'));
      hidden(list, 'namedItem', (n) => list.find((o) => o.id === n || o.getAttribute('name') === n) || null);
      return list;
    }
    get length() { return this.options.length; }
    set length(n) {
      const options = this.options;
      const want = n >>> 0;
      for (let i = options.length - 1; i >= want; i--) options[i].remove();
      for (let i = options.length; i < want; i++) this.appendChild(document.createElement('option'));
    }
    item(i) { return this.options[i] || null; }
    get selectedOptions() {
      const options = this.options;
      const chosen = options.filter((o) => o.hasAttribute('selected'));
      if (chosen.length || this.multiple) return chosen;
      return options.length ? [options[0]] : [];
    }
    get selectedIndex() {
      const first = this.selectedOptions[0];
      return first ? this.options.indexOf(first) : -1;
    }
    set selectedIndex(i) {
      const options = this.options;
      options.forEach((o, j) => o.toggleAttribute('selected', j === Number(i)));
    }
    get value() { const o = this.selectedOptions[0]; return o ? o.value : ''; }
    set value(v) {
      const options = this.options;
      const want = toText(v);
      const match = options.find((o) => o.value === want);
      options.forEach((o) => o.toggleAttribute('selected', o === match));
    }
    add(option, before) { this.insertBefore(option, typeof before === 'number' ? this.options[before] || null : before || null); }
    remove(i) { if (arguments.length === 0) { childNodeMixin.remove.call(this); return; } const o = this.options[i]; if (o) o.remove(); }
  }
  class HTMLOptionElement extends HTMLElement {
    get value() { const v = this.getAttribute('value'); return v === null ? this.text : v; }
    set value(v) { this.setAttribute('value', v); }
    get text() { return this.textContent.replace(/\s+/g, ' ').trim(); }
    set text(v) { this.textContent = v; }
    get label() { const l = this.getAttribute('label'); return l === null ? this.text : l; }
    get selected() {
      if (this.hasAttribute('selected')) return true;
      const select = this.closest('select');
      return !!select && !select.multiple && select.selectedOptions[0] === this;
    }
    set selected(v) {
      const select = this.closest('select');
      if (v && select && !select.multiple) for (const o of select.options) if (o !== this) o.removeAttribute('selected');
      this.toggleAttribute('selected', !!v);
    }
    get defaultSelected() { return this.hasAttribute('selected'); }
    set defaultSelected(v) { this.toggleAttribute('selected', !!v); }
    get index() { const select = this.closest('select'); return select ? select.options.indexOf(this) : 0; }
    get form() { const select = this.closest('select'); return select ? select.form : null; }
  }
  class HTMLButtonElement extends HTMLElement {
    get type() { const t = toText(this.getAttribute('type')).toLowerCase(); return t === 'button' || t === 'reset' ? t : 'submit'; }
    set type(v) { this.setAttribute('type', v); }
    get value() { return toText(this.getAttribute('value')); }
    set value(v) { this.setAttribute('value', v); }
  }
  for (const Cls of [HTMLInputElement, HTMLTextAreaElement, HTMLSelectElement, HTMLButtonElement]) mixin(Cls, controlMixin);
  for (const Cls of [HTMLInputElement, HTMLTextAreaElement]) mixin(Cls, selectionMixin);
  class HTMLFormElement extends HTMLElement {
    get elements() {
      // Compared by node: `this` may be the form or the proxy that wraps it.
      const me = this[ID];
      const own = this.querySelectorAll(LISTED.join(',')).filter((el) => { const f = formOf(el); return f !== null && f[ID] === me; });
      const id = this.id;
      const outside = id ? document.querySelectorAll(`[form="${cssEscape(id)}"]`).filter((el) => !own.includes(el)) : [];
      const list = own.concat(outside).filter((el) => el.localName !== 'input' || el.type !== 'image');
      hidden(list, 'namedItem', (n) => namedControl(list, toText(n)));
      for (const el of list) for (const key of [el.id, el.getAttribute('name')]) if (key && !(key in list)) hidden(list, key, namedControl(list, key));
      return list;
    }
    get length() { return this.elements.length; }
    get method() { return toText(this.getAttribute('method')).toLowerCase() === 'post' ? 'post' : toText(this.getAttribute('method')).toLowerCase() === 'dialog' ? 'dialog' : 'get'; }
    set method(v) { this.setAttribute('method', v); }
    get action() { const a = this.getAttribute('action'); return a === null || a === '' ? native.url() : native.resolveUrl(a) || a; }
    set action(v) { this.setAttribute('action', v); }
    get enctype() { const e = toText(this.getAttribute('enctype')).toLowerCase(); return ['multipart/form-data', 'text/plain'].includes(e) ? e : 'application/x-www-form-urlencoded'; }
    set enctype(v) { this.setAttribute('enctype', v); }
    get encoding() { return this.enctype; }
    checkValidity() { return this.elements.filter((el) => el.checkValidity).every((el) => el.checkValidity()); }
    reportValidity() { return this.checkValidity(); }
    reset() {
      if (!this.dispatchEvent(new Event('reset', { bubbles: true, cancelable: true }))) return;
      for (const el of this.elements) resetControl(el);
    }
    // submit() and requestSubmit() come from web/ (form submission).
  }
  const formProxy = (form) => new Proxy(form, {
    get(target, key) {
      if (typeof key === 'string' && key !== 'constructor') {
        const list = target.elements;
        if (/^\d+$/.test(key)) return list[Number(key)];
        const control = namedControl(list, key);
        if (control) return control;
      }
      return Reflect.get(target, key, target);
    },
  });
  // The control(s) of a form named `n`: one element, or a RadioNodeList
  // when several share the name (a radio group).
  const namedControl = (list, n) => {
    const found = list.filter((el) => el.id === n || el.getAttribute('name') === n);
    if (found.length <= 1) return found[0] || null;
    hidden(found, 'item', (i) => found[i] || null);
    Object.defineProperty(found, 'value', {
      get() { const r = found.find((el) => el.localName === 'input' && el.type === 'radio' && el.checked); return r ? r.value : ''; },
      set(v) { const r = found.find((el) => el.localName === 'input' && el.type === 'radio' && el.value === toText(v)); if (r) r.checked = true; },
    });
    return found;
  };
  // Reset puts the defaults back: value and checked attributes, and the
  // options selected when the document was parsed.
  const resetControl = (el) => {
    if (el.localName === 'input') {
      if (el.type === 'checkbox' || el.type === 'radio') native.setControlChecked(el[ID], el.hasAttribute('checked'));
      else if (native.controlValue(el[ID]) !== null) native.setControlValue(el[ID], el.defaultValue);
    } else if (el.localName === 'textarea') {
      el.value = el.defaultValue;
    } else if (el.localName === 'select') {
      for (const o of el.options) {
        const initial = initialState.get(o);
        if (initial) o.toggleAttribute('selected', initial.selected !== null);
      }
    }
  };
  const initialState = new WeakMap();
  const rememberInitialState = () => {
    for (const el of document.querySelectorAll('option')) initialState.set(el, { selected: el.getAttribute('selected') });
  };
  class HTMLAnchorElement extends HTMLElement {
    toString() { return this.href; }
    get text() { return this.textContent; }
    set text(v) { this.textContent = v; }
    get relList() { return new DOMTokenList(this, 'rel'); }
  }
  for (const part of ['protocol', 'host', 'hostname', 'port', 'pathname', 'search', 'hash', 'origin', 'username', 'password']) {
    Object.defineProperty(HTMLAnchorElement.prototype, part, {
      get() { const href = this.href; if (!href) return ''; try { return new URL(href)[part]; } catch (_) { return ''; } },
      set: part === 'origin' ? undefined : { set(v) { try { const u = new URL(this.href); u[part] = v; this.setAttribute('href', u.href); } catch (_) { /* not a URL: unchanged */ } } }.set,
      configurable: true,
    });
  }
  class HTMLLabelElement extends HTMLElement {
    get control() {
      const id = this.getAttribute('for');
      if (id !== null) { const el = document.getElementById(id); return el && LABELABLE.includes(el.localName) ? el : null; }
      return this.querySelector(LABELABLE.join(','));
    }
    get form() { const c = this.control; return c ? c.form : null; }
  }
  const LABELABLE = ['button', 'input', 'meter', 'output', 'progress', 'select', 'textarea'];
  class HTMLImageElement extends HTMLElement {
    get complete() { return true; }
    get naturalWidth() { return this.offsetWidth; }
    get naturalHeight() { return this.offsetHeight; }
    get currentSrc() { return this.src; }
    decode() { return Promise.resolve(); }
  }
  class HTMLScriptElement extends HTMLElement {
    get text() { return this.textContent; }
    set text(v) { this.textContent = v; }
    // Scripts made by scripts are async unless told otherwise.
    get async() { return this.hasAttribute('async') || !parserScripts.has(this); }
    set async(v) { this.toggleAttribute('async', !!v); if (!v) parserScripts.add(this); }
  }
  // Scripts the document's parser (or innerHTML) made, and scripts that ran
  // or are about to: neither kind runs again when inserted.
  const parserScripts = new WeakSet();
  const startedScripts = new WeakSet();
  const CLASSIC_TYPES = ['', 'text/javascript', 'application/javascript', 'application/ecmascript', 'text/ecmascript', 'application/x-javascript'];
  // A script element inserted by a script: inline code runs at once, an
  // external script in a task of its own once fetched (or at once when
  // `blocking`: a script written with document.write blocks the parser),
  // then `load` (or `error`) fires at the element.
  const runInsertedScript = (script, blocking = false) => {
    if (startedScripts.has(script)) return;
    // A script with neither `src` nor text is not started: it runs when
    // one arrives (Sphinx's search appends an empty script, then sets src).
    if (!script.hasAttribute('src') && script.textContent === '') return;
    startedScripts.add(script);
    const type = toText(script.getAttribute('type')).trim().toLowerCase();
    if (type === 'module') { runInsertedModule(script); return; }
    if (!CLASSIC_TYPES.includes(type) || script.hasAttribute('nomodule')) return;
    const run = (code, name) => {
      const outer = currentScript;
      currentScript = script;
      try { native.evalScript(code, name); } catch (e) { reportError(e, name); }
      if (blocking) flushWrites();
      currentScript = outer;
    };
    const src = script.getAttribute('src');
    if (src === null) { run(script.textContent, 'inserted-inline-script'); return; }
    let url;
    try { url = new URL(src, native.baseUrl()).href; } catch (_) { queueTask(() => script.dispatchEvent(new Event('error'))); return; }
    (blocking ? (fn) => fn() : queueTask)(() => {
      let response = null;
      try { response = native.httpFetch('GET', url, [], null, true); } catch (_) { response = null; }
      if (!response || response.status >= 400) {
        native.console('error', `Failed to load script ${url}${response ? `: HTTP ${response.status}` : ''}`);
        script.dispatchEvent(new Event('error'));
        return;
      }
      run(native.decodeText(new Uint8Array(response.body), 'utf-8', false), url);
      script.dispatchEvent(new Event('load'));
    });
  };
  // document.write while the parser runs a script: the markup goes in at
  // the insertion point (after the script, then after what it wrote
  // before) as soon as what was written so far closes every element it
  // opened, and in any case when the script ends (`flushWrites`, called by
  // the engine). Inline scripts in it run at once, external ones when the
  // writing script ends, in order, blocking, as browsers run them. A written
  // script may write too, a few levels deep.
  const writeStates = new Map();
  let writeDepth = 0;
  const VOID_TAGS = VOID.split('|');
  // Whether `html` closes what it opens (void and self-closed tags aside)
  // and does not end inside a tag.
  const balanced = (html) => {
    if (/<[^>]*$/.test(html)) return false;
    let open = 0;
    for (const [, close, name, selfClosed] of html.matchAll(/<(\/?)([a-zA-Z][^\s/>]*)[^>]*?(\/?)>/g)) {
      if (VOID_TAGS.includes(name.toLowerCase()) || selfClosed) continue;
      open += close ? -1 : 1;
    }
    return open <= 0;
  };
  const insertWritten = (state, html) => {
    if (writeDepth >= 16) return;
    const anchor = state.anchor.parentNode ? state.anchor : null;
    const parent = anchor ? anchor.parentNode : document.body;
    if (!parent) return;
    writeDepth++;
    try {
      const holder = document.createElement('div');
      holder.innerHTML = html;
      const nodes = [...kids(holder)];
      if (!nodes.length) return;
      const fragment = document.createDocumentFragment();
      fragment.append(...nodes);
      parent.insertBefore(fragment, anchor ? anchor.nextSibling : null);
      state.anchor = nodes[nodes.length - 1];
      for (const node of nodes) {
        if (node.nodeType !== 1) continue;
        const scripts = node.localName === 'script' ? [node] : [...node.querySelectorAll('script')];
        for (const sc of scripts) {
          parserScripts.add(sc);
          startedScripts.delete(sc);
          if (sc.hasAttribute('src')) state.pending.push(sc);
          else runInsertedScript(sc, true);
        }
      }
    } finally {
      writeDepth--;
    }
  };
  const flushWrites = () => {
    const state = writeStates.get(currentScript);
    if (!state) return;
    writeStates.delete(currentScript);
    if (state.buffer) insertWritten(state, state.buffer);
    for (const sc of state.pending) runInsertedScript(sc, true);
  };
  const documentWrite = (text) => {
    if (readyState === 'loading' && currentScript && parserScripts.has(currentScript)) {
      let state = writeStates.get(currentScript);
      if (!state) { state = { buffer: '', anchor: currentScript, pending: [] }; writeStates.set(currentScript, state); }
      state.buffer += text;
      if (balanced(state.buffer)) { const html = state.buffer; state.buffer = ''; insertWritten(state, html); }
    } else if (readyState !== 'complete' && currentScript) {
      native.console('warn', 'A call to document.write() from an asynchronously-loaded script was ignored.');
    } else {
      native.console('warn', 'document.write after the document loaded: the text was appended to <body> (the document is not replaced)');
      if (document.body) document.body.insertAdjacentHTML('beforeend', text);
    }
  };
  // An inserted module script runs in a task of its own (modules never block
  // the inserting script), then `load` or `error` fires at the element.
  const runInsertedModule = (script) => {
    const src = script.getAttribute('src');
    let url = null;
    if (src !== null) {
      try { url = new URL(src, native.baseUrl()).href; } catch (_) { queueTask(() => script.dispatchEvent(new Event('error'))); return; }
    }
    const text = src === null ? script.textContent : '';
    queueTask(() => {
      let done;
      try { done = native.evalModule(url, text); } catch (e) {
        // A module that failed to load logged why; one that threw reports it.
        if (url === null || !(e instanceof TypeError)) reportError(e, url || 'inserted-inline-module');
        script.dispatchEvent(new Event('error'));
        return;
      }
      done.then(() => script.dispatchEvent(new Event('load')), (e) => { reportError(e, url || 'inserted-inline-module'); });
    });
  };
  // A template's content is a fragment of its own: what the parser (or
  // innerHTML) put inside the element moves there on first use.
  const templateContents = new Map();
  class HTMLTemplateElement extends HTMLElement {
    // The parser's "template contents" node, as a DocumentFragment; what
    // scripts put inside the element itself moves there on first use.
    get content() {
      let fragment = templateContents.get(this[ID]);
      if (!fragment) {
        const id = native.templateContents(this[ID]);
        fragmentIds.add(id);
        wrappers.delete(id);
        fragment = wrap(id);
        templateContents.set(this[ID], fragment);
      }
      const children = native.childNodes(this[ID]).map(wrap);
      for (const c of children) fragment.appendChild(c);
      return fragment;
    }
    get childNodes() { this.content; return nodeList([]); }
    get innerHTML() { return this.content.innerHTML; }
    // Parsed in the template's own context (so `<tr>` stays a row), then
    // moved into the content on its next use.
    set innerHTML(html) {
      const f = this.content;
      f.textContent = '';
      retainWrapped(); native.setInnerHTML(this[ID], toText(html));
    }
  }
  class HTMLDetailsElement extends HTMLElement {}
  class HTMLDialogElement extends HTMLElement {
    get returnValue() { return toText(this._returnValue); }
    set returnValue(v) { hidden(this, '_returnValue', toText(v)); }
    show() { this.setAttribute('open', ''); }
    showModal() { this.setAttribute('open', ''); }
    close(value) {
      if (!this.hasAttribute('open')) return;
      if (value !== undefined) this.returnValue = value;
      this.removeAttribute('open');
      queueTask(() => this.dispatchEvent(new Event('close')));
    }
  }
  class HTMLCanvasElement extends HTMLElement {
    getContext() { return null; }
    toDataURL() { return 'data:,'; }
  }
  class HTMLIFrameElement extends HTMLElement {
    get contentWindow() { return frameWindow(this); }
    get contentDocument() { const w = frameWindow(this); return w && !(w instanceof FrameWindow) ? w.document : w && w.sameOrigin ? w.document : null; }
  }
