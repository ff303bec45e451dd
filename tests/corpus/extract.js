// The one extraction both browsers run on every corpus page, verbatim: headless
// Chromium when `scripts/goldens.sh` writes the goldens, the engine (through
// `servo_evaluate`) in the e2e test `fidelity`. It is an async function
// expression; the caller evaluates `(<this file>)()` and awaits the result.
async () => {
  const describe = (e) => 'threw ' + (e && e.name) + ': ' + (e && e.message);
  // A page publishes its JS results as `window.__fidelity`: an object or a
  // promise of one. A page that never settles is cut off after 5 s so the
  // rest of the extraction still reports.
  let values = null;
  try {
    if (window.__fidelity !== undefined) {
      const timeout = new Promise((resolve) =>
        setTimeout(() => resolve({ __error: 'window.__fidelity did not settle within 5 s' }), 5000));
      values = await Promise.race([Promise.resolve(window.__fidelity), timeout]);
    }
  } catch (e) {
    values = { __error: describe(e) };
  }
  // A JSON round trip, so both sides carry exactly what JSON can: no
  // undefined, no -0, NaN as null.
  try {
    values = JSON.parse(JSON.stringify(values === undefined ? null : values));
  } catch (e) {
    values = { __error: describe(e) };
  }
  let title = null;
  try {
    title = document.title;
  } catch (e) {
    title = describe(e);
  }
  let text = '';
  try {
    text = document.body.innerText;
  } catch (e) {
    text = describe(e);
  }
  const links = [];
  try {
    for (const a of document.querySelectorAll('a[href]')) {
      links.push({ text: a.textContent.replace(/\s+/g, ' ').trim(), href: a.href });
    }
  } catch (e) {
    links.push({ text: describe(e), href: '' });
  }
  // Boxes in document coordinates (CSS px), rounded to integers.
  const boxes = {};
  try {
    for (const el of document.querySelectorAll('[data-box]')) {
      try {
        const r = el.getBoundingClientRect();
        boxes[el.getAttribute('data-box')] = {
          x: Math.round(r.left + window.scrollX),
          y: Math.round(r.top + window.scrollY),
          width: Math.round(r.width),
          height: Math.round(r.height),
        };
      } catch (e) {
        boxes[el.getAttribute('data-box')] = { error: describe(e) };
      }
    }
  } catch (e) {
    boxes.__error = { error: describe(e) };
  }
  return { title, text, links, values, boxes };
}
