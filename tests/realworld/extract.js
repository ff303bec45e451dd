// The one reading both browsers make of a real-world page, verbatim: headless
// Chromium and the engine (through `servo_evaluate`) run this after the page
// loaded and its event loop went quiet. `FACTS` is replaced by the page's facts
// from pages.json (a JSON array of CSS selectors). It is an async function
// expression; the caller evaluates `(<this file>)()`.
async () => {
  const facts = {};
  for (const selector of FACTS) {
    try {
      const all = document.querySelectorAll(selector);
      facts[selector] = [all.length, all.length ? getComputedStyle(all[0]).display : null];
    } catch (e) {
      facts[selector] = ['threw ' + (e && e.name), null];
    }
  }
  const links = document.querySelectorAll('a[href]').length;
  const fields = document.querySelectorAll('input:not([type=hidden]), select, textarea, button').length;
  // Chromium leaves `content-visibility: auto` sections it has not rendered out
  // of innerText; the text a reader can scroll to is shown for both.
  const show = document.createElement('style');
  show.textContent = '* { content-visibility: visible !important; }';
  (document.head || document.documentElement).appendChild(show);
  const text = document.body ? document.body.innerText : '';
  show.remove();
  return { title: document.title, text, links, fields, facts };
}
