// The bench's JS → DOM crossing operations (services/bench/src/suite/crossing.rs)
// and the finer steps they are made of, timed inside the page, for
//   cargo run -p fleet-worker --example eval -- <url> services/worker/examples/crossing.js
// Every operation runs three times in the page; the figures are the last
// run's, in milliseconds, with what each counted.
(() => {
  const out = {};
  const time = (name, f) => { const t = performance.now(); const n = f(); out[name] = [Math.round((performance.now() - t) * 10) / 10, n]; };
  for (let round = 0; round < 3; round++) {
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
    time('firstChild/nextSibling walk of the whole tree', () => {
      const walk = (node) => { let n = 1; for (let c = node.firstChild; c; c = c.nextSibling) n += walk(c); return n; };
      return walk(document.documentElement);
    });
    const kids = document.body.childNodes;
    time('18,000 reads of one live list\'s length', () => { let n = 0; for (let i = 0; i < 18000; i++) n += kids.length; return n; });
    time('18,000 reads of one live list\'s [1]', () => { let n = 0; for (let i = 0; i < 18000; i++) n += kids[1] ? 1 : 0; return n; });
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
  }
  return JSON.stringify(out);
})()
