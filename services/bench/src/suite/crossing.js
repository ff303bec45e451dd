// The bench's JS → DOM crossing rows (crossing.rs): each operation once,
// timed inside the page, as JSON text of {name: [milliseconds, count]}. Also
// runs in one tab in-process:
//   cargo run -p fleet-worker --example eval -- <url> services/bench/src/suite/crossing.js
(() => {
  const out = {};
  const time = (name, f) => { const t = performance.now(); const n = f(); out[name] = [performance.now() - t, n]; };
  time("getElementsByTagName('*') walked by index", () => {
    const all = document.getElementsByTagName('*');
    let n = 0;
    for (let i = 0; i < all.length; i++) if (all[i].nodeType === 1) n++;
    return n;
  });
  time('querySelectorAll of five tags', () => document.querySelectorAll('div, p, a, span, li').length);
  time('childNodes walk of the whole tree', () => {
    const walk = (node) => { let n = 1; const kids = node.childNodes; for (let i = 0; i < kids.length; i++) n += walk(kids[i]); return n; };
    return walk(document.documentElement);
  });
  time('getComputedStyle(el).display of every element', () => {
    let n = 0;
    for (const el of document.querySelectorAll('body *')) if (getComputedStyle(el).display !== 'none') n++;
    return n;
  });
  time("jQuery('div a') + .each", () => {
    if (typeof jQuery !== 'function') return -1;
    let n = 0;
    jQuery('div a').each(function () { if (this.href) n++; });
    return n;
  });
  return JSON.stringify(out);
})()
