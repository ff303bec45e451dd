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
    focusElement, isFocusable, selectAll, navigateTo, formOf,
  } = internals;
  const document = g.document;

  const trusted = (event) => { Object.defineProperty(event, 'isTrusted', { value: true }); return event; };
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
      if (el.hasAttribute('download')) { native.console('info', `download of ${el.href} skipped`); return; }
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
    }
    fire(target, new PointerEvent('pointerup', init));
    fire(target, new MouseEvent('mouseup', init));
    if (target.hasAttribute && target.hasAttribute('disabled') && internals.FORM_CONTROLS.includes(target.localName)) return null;
    fire(target, new MouseEvent('click', init));
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
  // Insert `text` into an editable element, with beforeinput/input.
  const insertText = (el, text, inputType = 'insertText') => {
    const before = fire(el, new InputEvent('beforeinput', { bubbles: true, cancelable: true, composed: true, data: text, inputType }));
    if (!before) return;
    if (el.localName === 'input' || el.localName === 'textarea') {
      const replace = selectAll.has(el);
      selectAll.delete(el);
      let value = (replace ? '' : el.value) + text;
      if (el.localName === 'input') value = value.replace(/[\r\n]/g, '');
      const max = el.maxLength;
      if (max >= 0 && value.length > max) value = value.slice(0, max);
      el.value = value;
    } else {
      el.appendChild(document.createTextNode(text));
    }
    fire(el, new InputEvent('input', { bubbles: true, composed: true, data: text, inputType }));
  };
  const deleteBackward = (el) => {
    const before = fire(el, new InputEvent('beforeinput', { bubbles: true, cancelable: true, composed: true, inputType: 'deleteContentBackward' }));
    if (!before) return;
    if (el.localName === 'input' || el.localName === 'textarea') {
      if (selectAll.has(el)) { selectAll.delete(el); el.value = ''; } else el.value = el.value.slice(0, -1);
    } else {
      const text = el.textContent;
      el.textContent = text.slice(0, -1);
    }
    fire(el, new InputEvent('input', { bubbles: true, composed: true, inputType: 'deleteContentBackward' }));
  };
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
        if (el.localName === 'input' || el.localName === 'textarea') selectAll.add(el);
      } else {
        switch (key) {
          case 'Enter':
            fire(el, new KeyboardEvent('keypress', { ...init, charCode: 13 }));
            if (el.localName === 'textarea' || (el.isContentEditable && el.localName !== 'input')) insertText(el, '\n', 'insertLineBreak');
            else if (el.localName === 'input' && editable(el)) implicitSubmit(el);
            else if (['a', 'button', 'summary'].includes(el.localName) || (el.localName === 'input' && ['submit', 'button', 'reset', 'image'].includes(el.type))) el.click();
            break;
          case 'Tab': moveFocus(mods.shiftKey); break;
          case 'Backspace': if (editable(el)) deleteBackward(el); break;
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
    if (clear && (el.localName === 'input' || el.localName === 'textarea') && el.value !== '') {
      selectAll.add(el);
      deleteBackward(el);
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
