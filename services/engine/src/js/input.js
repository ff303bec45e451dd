// The input prelude, evaluated last (see js/mod.rs): what a user's click,
// typing, key press, scroll and option choice do. The engine resolves the
// target (input.rs) and calls the hooks added here; each returns null, or a
// message saying why the action is not possible. Events are trusted
// (`isTrusted`), and default actions run unless a listener prevented them:
// following links, toggling checkboxes and radios, submitting forms
// (implicitly with Enter too), moving focus with Tab, editing values.
(function (native, internals, hooks) {
  'use strict';
  const g = globalThis;
  const {
    wrap, toText, MouseEvent, KeyboardEvent, InputEvent, PointerEvent, WheelEvent, Event,
    focusElement, isFocusable, selectionOf, setSelection, caretAtEnd, queueSelect, navigateTo, formOf,
  } = internals;
  const document = g.document;

  const trusted = internals.trust;
  const fire = (target, event) => target.dispatchEvent(trusted(event));
  let mods = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };

  // ---- activation behaviour (clicks, trusted or not) -----------------------
  const isCheckable = (el) => el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio');
  // The element whose activation behaviour a click on `target` triggers.
  const activationTarget = (target) => {
    for (let el = target; el && el.nodeType === 1; el = el.parentElement) {
      const tag = el.localName;
      if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) return el;
      if (tag === 'input' || tag === 'button' || tag === 'label' || tag === 'summary') return el;
      if (el === target) continue;
    }
    return null;
  };
  internals.setActivation((target, event) => {
    const el = activationTarget(target);
    if (!el) return null;
    // Checkboxes and radios change before the listeners run and change back
    // if the click is cancelled.
    let undo = null;
    if (isCheckable(el) && !el.disabled) {
      const was = el.checked;
      const group = el.type === 'radio' && el.name ? [...document.querySelectorAll('input[type=radio]')].filter((r) => r.name === el.name && r.form === el.form && r.checked) : [];
      if (el.type === 'checkbox') el.checked = !was; else el.checked = true;
      undo = () => { el.checked = was; for (const r of group) r.checked = true; };
    }
    return (cancelled) => {
      if (cancelled) { if (undo) undo(); return; }
      activate(el, event, undo !== null);
    };
  });
  const activate = (el, event, toggled) => {
    const tag = el.localName;
    if (tag === 'a' || tag === 'area') {
      // `target=_blank` and friends load in this tab: one tab per session.
      const href = el.getAttribute('href');
      if (el.hasAttribute('download')) {
        // Browsers honour `download` for the page's own origin only; another
        // origin's link navigates, and its response's headers decide.
        let target = null;
        try { target = new URL(el.href); } catch (_) { /* not a URL: navigateTo reports it */ }
        // A file the page built: its bytes go to the host as they are.
        if (target && (target.protocol === 'data:' || target.protocol === 'blob:')) {
          const name = el.getAttribute('download') || 'download';
          if (target.protocol === 'blob:') {
            const blob = g.URL.__blobOf(target.href);
            if (!blob) { native.console('warn', `download of ${target.href} not kept: the blob URL was revoked`); return; }
            native.keepDownload(name, blob.type, blob._bytes, target.href);
          } else {
            let response;
            try { response = native.httpFetch('GET', target.href, [], null, false); } catch (e) {
              native.console('warn', `download of a data: link not kept: ${e.message}`);
              return;
            }
            const type = (response.headers.find(([k]) => k === 'content-type') || [])[1] || '';
            native.keepDownload(name, type.split(';')[0].trim(), new Uint8Array(response.body), 'data:');
          }
          return;
        }
        if (target && target.origin === new URL(native.url()).origin) {
          native.download(target.href, el.getAttribute('download') || '');
          return;
        }
      }
      navigateTo(href, false);
      return;
    }
    if (tag === 'label') {
      const control = el.control;
      if (control && control !== event.target && !control.contains(event.target)) {
        if (isFocusable(control) && !isCheckable(control)) focusElement(control);
        control.click();
      }
      return;
    }
    if (tag === 'summary') {
      const details = el.parentElement;
      if (details && details.localName === 'details') {
        details.toggleAttribute('open');
        internals.queueTask(() => details.dispatchEvent(new Event('toggle')));
      }
      return;
    }
    if (el.disabled) return;
    if (toggled) {
      fire(el, new InputEvent('input', { bubbles: true, composed: true }));
      fire(el, new Event('change', { bubbles: true }));
      return;
    }
    const type = el.type;
    const form = formOf(el);
    if (type === 'submit' || type === 'image') {
      if (form) internals.requestSubmit(form, el);
    } else if (type === 'reset') {
      if (form) form.reset();
    }
  };

  // ---- pointer -------------------------------------------------------------
  hooks.userClick = (id, x, y) => {
    const target = wrap(id);
    if (!target) return 'the element is no longer in the document';
    const init = { bubbles: true, cancelable: true, composed: true, view: g, clientX: x, clientY: y, screenX: x, screenY: y, detail: 1, ...mods };
    fire(target, new PointerEvent('pointerover', init));
    fire(target, new MouseEvent('mouseover', init));
    fire(target, new PointerEvent('pointerdown', { ...init, buttons: 1 }));
    const down = fire(target, new MouseEvent('mousedown', { ...init, buttons: 1 }));
    if (down) {
      // Focus goes to the nearest focusable ancestor, or away.
      let f = target;
      while (f && !isFocusable(f)) f = f.parentElement;
      focusElement(f || null);
      // The click lands in the field's box: the caret goes to the end of
      // its text (this engine does not place it by the click's position).
      if (f && isTextControl(f)) caretAtEnd(f);
    }
    fire(target, new PointerEvent('pointerup', init));
    fire(target, new MouseEvent('mouseup', init));
    if (target.hasAttribute && target.hasAttribute('disabled') && internals.FORM_CONTROLS.includes(target.localName)) return null;
    fire(target, new MouseEvent('click', init));
    return null;
  };
  // The element the pointer is over, for the out/leave events of the next hover.
  let hovered = null;
  hooks.userHover = (id, x, y) => {
    const target = wrap(id);
    if (!target) return 'the element is no longer in the document';
    const init = { bubbles: true, cancelable: true, composed: true, view: g, clientX: x, clientY: y, screenX: x, screenY: y, ...mods };
    const flat = { ...init, bubbles: false, cancelable: false };
    if (hovered && hovered !== target && hovered.isConnected) {
      fire(hovered, new PointerEvent('pointerout', { ...init, relatedTarget: target }));
      fire(hovered, new MouseEvent('mouseout', { ...init, relatedTarget: target }));
      // leave goes to each element the pointer left, innermost first.
      for (let e = hovered; e && !e.contains(target); e = e.parentElement) {
        fire(e, new PointerEvent('pointerleave', { ...flat, relatedTarget: target }));
        fire(e, new MouseEvent('mouseleave', { ...flat, relatedTarget: target }));
      }
    }
    if (hovered !== target) {
      const from = hovered && hovered.isConnected ? hovered : null;
      fire(target, new PointerEvent('pointerover', { ...init, relatedTarget: from }));
      fire(target, new MouseEvent('mouseover', { ...init, relatedTarget: from }));
      // enter goes to each element the pointer entered, outermost first.
      const entered = [];
      for (let e = target; e && !(from && e.contains(from)); e = e.parentElement) entered.unshift(e);
      for (const e of entered) {
        fire(e, new PointerEvent('pointerenter', { ...flat, relatedTarget: from }));
        fire(e, new MouseEvent('mouseenter', { ...flat, relatedTarget: from }));
      }
    }
    fire(target, new PointerEvent('pointermove', init));
    fire(target, new MouseEvent('mousemove', init));
    hovered = target;
    return null;
  };
  hooks.userFocus = (id) => {
    const el = wrap(id);
    if (!el) return 'the element is no longer in the document';
    if (!isFocusable(el)) return `the element <${el.localName}> cannot take focus`;
    focusElement(el);
    return null;
  };

  // ---- keyboard ------------------------------------------------------------
  const editable = (el) => {
    if (!el) return false;
    if (el.localName === 'textarea') return !el.readOnly && !el.disabled;
    if (el.localName === 'input') return !['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file', 'hidden', 'range', 'color'].includes(el.type) && !el.readOnly && !el.disabled;
    return el.isContentEditable;
  };
  const KEY_CODES = { Enter: 13, Tab: 9, Backspace: 8, Escape: 27, ' ': 32, ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39, ArrowDown: 40, Delete: 46, Home: 36, End: 35, PageUp: 33, PageDown: 34, Shift: 16, Control: 17, Alt: 18, Meta: 91 };
  const keyInit = (key) => {
    const code = key.length === 1
      ? (/[a-z]/i.test(key) ? 'Key' + key.toUpperCase() : /[0-9]/.test(key) ? 'Digit' + key : key === ' ' ? 'Space' : '')
      : key;
    const keyCode = KEY_CODES[key] ?? (key.length === 1 ? key.toUpperCase().charCodeAt(0) : 0);
    return { key, code, keyCode, bubbles: true, cancelable: true, composed: true, view: g, ...mods };
  };
  const isTextControl = (el) => el.localName === 'input' || el.localName === 'textarea';
  // Fire `beforeinput` (cancelable), make the change, then fire `input`.
  const edit = (el, inputType, data, change) => {
    const before = fire(el, new InputEvent('beforeinput', { bubbles: true, cancelable: true, composed: true, data, inputType }));
    if (!before) return;
    change();
    fire(el, new InputEvent('input', { bubbles: true, composed: true, data, inputType }));
  };
  // Replace the control's selection with `text` and put the caret after it.
  const replaceSelection = (el, text) => {
    const value = el.value;
    const [start, end] = selectionOf(el);
    if (el.localName === 'input') text = text.replace(/[\r\n]/g, '');
    // maxlength stops typing, it does not cut what is there.
    const max = el.maxLength;
    if (max >= 0) text = text.slice(0, Math.max(0, max - (value.length - (end - start))));
    el.value = value.slice(0, start) + text + value.slice(end);
    setSelection(el, start + text.length, start + text.length);
  };
  // Type `text` at the caret of an editable element, replacing what is selected.
  const insertText = (el, text, inputType = 'insertText') => {
    edit(el, inputType, text, () => {
      if (isTextControl(el)) replaceSelection(el, text);
      else el.appendChild(document.createTextNode(text));
    });
  };
  // Where a deletion by `unit` (char or word) in direction `dir` (-1 back,
  // +1 forward) from offset `at` of `value` ends.
  const deletionEnd = (value, at, dir, unit) => {
    if (unit === 'word') {
      let i = at;
      if (dir < 0) {
        while (i > 0 && /\s/.test(value[i - 1])) i--;
        while (i > 0 && !/\s/.test(value[i - 1])) i--;
      } else {
        while (i < value.length && /\s/.test(value[i])) i++;
        while (i < value.length && !/\s/.test(value[i])) i++;
      }
      return i;
    }
    // One character: both halves of a surrogate pair.
    if (dir < 0) return at >= 2 && /[\uDC00-\uDFFF]/.test(value[at - 1]) && /[\uD800-\uDBFF]/.test(value[at - 2]) ? at - 2 : Math.max(0, at - 1);
    return at + 2 <= value.length && /[\uD800-\uDBFF]/.test(value[at]) && /[\uDC00-\uDFFF]/.test(value[at + 1]) ? at + 2 : Math.min(value.length, at + 1);
  };
  // Backspace (dir -1) or Delete (+1): the selection, else a character or
  // (with Control) a word next to the caret.
  const deleteText = (el, dir, unit = 'char') => {
    const inputType = `delete${unit === 'word' ? 'Word' : 'Content'}${dir < 0 ? 'Backward' : 'Forward'}`;
    if (isTextControl(el)) {
      const value = el.value;
      let [start, end] = selectionOf(el);
      if (start === end) {
        const to = deletionEnd(value, start, dir, unit);
        [start, end] = dir < 0 ? [to, start] : [start, to];
      }
      if (start === end) return;
      edit(el, inputType, null, () => {
        el.value = value.slice(0, start) + value.slice(end);
        setSelection(el, start, start);
      });
      return;
    }
    // contenteditable: no caret inside the element, so its end.
    if (dir > 0) return;
    edit(el, inputType, null, () => {
      const text = el.textContent;
      el.textContent = text.slice(0, deletionEnd(text, text.length, -1, unit));
    });
  };
  // The start and end offsets of the line of a textarea's value at `at`.
  const lineBounds = (value, at) => {
    const start = value.lastIndexOf('\n', at - 1) + 1;
    const nl = value.indexOf('\n', at);
    return [start, nl < 0 ? value.length : nl];
  };
  // Where the caret goes for a navigation key, from offset `at`.
  const caretTarget = (el, key, at) => {
    const value = el.value;
    const multiline = el.localName === 'textarea';
    switch (key) {
      case 'ArrowLeft': return mods.ctrlKey ? deletionEnd(value, at, -1, 'word') : deletionEnd(value, at, -1, 'char');
      case 'ArrowRight': return mods.ctrlKey ? deletionEnd(value, at, 1, 'word') : deletionEnd(value, at, 1, 'char');
      case 'Home': return multiline && !mods.ctrlKey ? lineBounds(value, at)[0] : 0;
      case 'End': return multiline && !mods.ctrlKey ? lineBounds(value, at)[1] : value.length;
      case 'ArrowUp': case 'ArrowDown': {
        if (!multiline) return key === 'ArrowUp' ? 0 : value.length;
        const [start, end] = lineBounds(value, at);
        const column = at - start;
        if (key === 'ArrowUp') {
          if (start === 0) return 0;
          const [prevStart, prevEnd] = lineBounds(value, start - 1);
          return Math.min(prevStart + column, prevEnd);
        }
        if (end === value.length) return value.length;
        const [nextStart, nextEnd] = lineBounds(value, end + 1);
        return Math.min(nextStart + column, nextEnd);
      }
      default: return at;
    }
  };
  // Move the caret of a text control for a navigation key; with Shift the
  // selection grows or shrinks from its anchor instead.
  const moveCaret = (el, key) => {
    const [start, end, dir] = selectionOf(el);
    if (mods.shiftKey) {
      const [anchor, focus] = dir === 'backward' ? [end, start] : [start, end];
      const to = caretTarget(el, key, focus);
      setSelection(el, Math.min(anchor, to), Math.max(anchor, to), to < anchor ? 'backward' : to > anchor ? 'forward' : 'none');
      return;
    }
    // A selection collapses to its side for Left and Right.
    if (start !== end && key === 'ArrowLeft' && !mods.ctrlKey) { setSelection(el, start, start); return; }
    if (start !== end && key === 'ArrowRight' && !mods.ctrlKey) { setSelection(el, end, end); return; }
    const to = caretTarget(el, key, dir === 'backward' ? start : end);
    setSelection(el, to, to);
  };
  const CARET_KEYS = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'];
  const focusables = () => [...document.querySelectorAll('a[href], area[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable]')]
    .filter((el) => isFocusable(el) && el.tabIndex >= 0 && !el.closest('[hidden]') && el.getBoundingClientRect().width + el.getBoundingClientRect().height > 0);
  const moveFocus = (back) => {
    const list = focusables();
    // Positive tabindex first, in order, then document order.
    const ordered = list.filter((el) => el.tabIndex > 0).sort((a, b) => a.tabIndex - b.tabIndex).concat(list.filter((el) => el.tabIndex === 0));
    if (!ordered.length) return;
    const current = internals.getActiveElement();
    const i = current ? ordered.indexOf(current) : -1;
    const next = back ? ordered[i <= 0 ? ordered.length - 1 : i - 1] : ordered[(i + 1) % ordered.length];
    focusElement(next);
    // Tabbing into a text field selects its value, as browsers do.
    if (next.localName === 'input' && internals.SELECTION_TYPES.concat(['email', 'number']).includes(next.type)) setSelection(next, 0, next.value.length);
    next.scrollIntoView({ block: 'nearest' });
  };
  // Enter in a text field submits its form: through its default button, or
  // directly when the form has one field only or a submit button.
  const implicitSubmit = (el) => {
    const form = formOf(el);
    if (!form) return;
    const button = form.elements.find((c) => (c.localName === 'button' && c.type === 'submit') || (c.localName === 'input' && (c.type === 'submit' || c.type === 'image')));
    if (button) { if (!button.disabled) button.click(); return; }
    const blocking = form.elements.filter((c) => c.localName === 'input' && ['text', 'search', 'url', 'tel', 'email', 'password', 'date', 'month', 'week', 'time', 'datetime-local', 'number'].includes(c.type));
    if (blocking.length <= 1) internals.requestSubmit(form, null);
  };
  const pressKey = (key) => {
    const el = internals.getActiveElement() || document.body || document.documentElement;
    const init = keyInit(key);
    const down = fire(el, new KeyboardEvent('keydown', init));
    if (down) {
      const printable = key.length === 1 && !mods.ctrlKey && !mods.metaKey && !mods.altKey;
      if (printable) {
        fire(el, new KeyboardEvent('keypress', { ...init, charCode: key.charCodeAt(0) }));
        if (editable(el)) insertText(el, key);
        else if (key === ' ' && el.localName !== 'body') el.click();
      } else if ((mods.ctrlKey || mods.metaKey) && key.toLowerCase() === 'a') {
        if (isTextControl(el)) { setSelection(el, 0, el.value.length); queueSelect(el); }
      } else if (CARET_KEYS.includes(key) && isTextControl(el) && editable(el)) {
        moveCaret(el, key);
      } else {
        switch (key) {
          case 'Enter':
            fire(el, new KeyboardEvent('keypress', { ...init, charCode: 13 }));
            if (el.localName === 'textarea' || (el.isContentEditable && el.localName !== 'input')) insertText(el, '\n', 'insertLineBreak');
            else if (el.localName === 'input' && editable(el)) implicitSubmit(el);
            else if (['a', 'button', 'summary'].includes(el.localName) || (el.localName === 'input' && ['submit', 'button', 'reset', 'image'].includes(el.type))) el.click();
            break;
          case 'Tab': moveFocus(mods.shiftKey); break;
          case 'Backspace': if (editable(el)) deleteText(el, -1, mods.ctrlKey ? 'word' : 'char'); break;
          case 'Delete': if (editable(el)) deleteText(el, 1, mods.ctrlKey ? 'word' : 'char'); break;
          case 'Escape': break;
          case 'ArrowDown': case 'ArrowUp':
            if (el.localName === 'select') {
              const i = el.selectedIndex + (key === 'ArrowDown' ? 1 : -1);
              if (i >= 0 && i < el.options.length) { el.selectedIndex = i; fire(el, new InputEvent('input', { bubbles: true })); fire(el, new Event('change', { bubbles: true })); }
            } else if (!editable(el)) g.scrollBy(0, key === 'ArrowDown' ? 40 : -40);
            break;
          case 'PageDown': case 'PageUp': if (!editable(el)) g.scrollBy(0, (key === 'PageDown' ? 1 : -1) * g.innerHeight * 0.875); break;
          case 'Home': if (!editable(el)) g.scrollTo(0, 0); break;
          case 'End': if (!editable(el)) g.scrollTo(0, document.documentElement.scrollHeight); break;
          default: break;
        }
      }
    }
    // keyup goes to whatever has focus now (Tab moved it).
    const now = internals.getActiveElement() || document.body || document.documentElement;
    fire(now, new KeyboardEvent('keyup', init));
  };
  const MODIFIERS = { control: 'ctrlKey', ctrl: 'ctrlKey', shift: 'shiftKey', alt: 'altKey', meta: 'metaKey', command: 'metaKey', cmd: 'metaKey' };
  const KEY_NAMES = ['Enter', 'Tab', 'Backspace', 'Escape', 'Delete', 'ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown', 'Space', 'F1', 'F2', 'F3', 'F4', 'F5', 'F6', 'F7', 'F8', 'F9', 'F10', 'F11', 'F12', 'Insert'];
  hooks.userPress = (combo) => {
    const parts = toText(combo).split('+');
    // `+` itself: "Shift++" or "+".
    if (combo.endsWith('+') && combo.length > 1) { parts.pop(); parts[parts.length - 1] = '+'; }
    let key = parts.pop();
    const saved = mods;
    mods = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };
    for (const m of parts) {
      const flag = MODIFIERS[m.trim().toLowerCase()];
      if (!flag) { mods = saved; return `unknown modifier "${m}" in "${combo}" (use Control, Shift, Alt or Meta)`; }
      mods[flag] = true;
    }
    if (key === 'Space') key = ' ';
    const named = KEY_NAMES.find((k) => k.toLowerCase() === key.toLowerCase());
    if (named) key = named === 'Space' ? ' ' : named;
    else if ([...key].length !== 1) { mods = saved; return `unknown key "${key}" (use a single character or one of ${KEY_NAMES.join(', ')})`; }
    if (mods.shiftKey && key.length === 1) key = key.toUpperCase();
    try { pressKey(key); } finally { mods = saved; }
    return null;
  };
  hooks.userType = (text, clear) => {
    const el = internals.getActiveElement();
    if (!editable(el)) {
      const what = el ? `<${el.localName}${el.type ? ` type=${el.type}` : ''}>` : 'nothing';
      return `nothing editable has focus (the focused element is ${what}); give a target to type into`;
    }
    if (clear && isTextControl(el) && el.value !== '') {
      setSelection(el, 0, el.value.length);
      deleteText(el, -1);
    }
    for (const ch of toText(text)) {
      if (internals.getActiveElement() !== el) break;
      if (ch === '\n') pressKey('Enter');
      else pressKey(ch);
    }
    return null;
  };

  // ---- scrolling and selects -----------------------------------------------
  hooks.userScroll = (id, dx, dy) => {
    const target = id === null || id === undefined ? null : wrap(id);
    const init = { bubbles: true, cancelable: true, composed: true, view: g, deltaX: dx, deltaY: dy };
    const at = target || document.documentElement;
    if (!fire(at, new WheelEvent('wheel', init))) return null;
    // The element itself if it scrolls, else its nearest scrollable ancestor,
    // else the page.
    for (let el = target; el && el !== document.documentElement && el !== document.body; el = el.parentElement) {
      const before = [el.scrollLeft, el.scrollTop];
      el.scrollBy(dx, dy);
      if (el.scrollLeft !== before[0] || el.scrollTop !== before[1]) return null;
    }
    g.scrollBy(dx, dy);
    return null;
  };
  hooks.userSelect = (id, value) => {
    const el = wrap(id);
    if (!el || el.localName !== 'select') return `the target is a <${el ? el.localName : 'missing element'}>, not a <select>`;
    const want = toText(value);
    const options = el.options;
    const option = options.find((o) => o.value === want) || options.find((o) => o.text === want) || options.find((o) => o.text.toLowerCase() === want.trim().toLowerCase());
    if (!option) return `the select has no option with value or text "${want}" (options: ${options.slice(0, 20).map((o) => JSON.stringify(o.text)).join(', ')})`;
    if (option.disabled) return `the option "${option.text}" is disabled`;
    focusElement(el);
    option.selected = true;
    fire(el, new InputEvent('input', { bubbles: true, composed: true }));
    fire(el, new Event('change', { bubbles: true }));
    return null;
  };
  void isCheckable;
});
