// The MCP Apps side of a servo-fleet view: JSON-RPC over postMessage with the
// host. The host sends `ui/notifications/tool-input` and
// `ui/notifications/tool-result`; the view calls tools with `tools/call`.
// Page content is only ever written with textContent, never as markup.
const host = window.parent;
let nextId = 1;
const pending = new Map();
const handlers = { result: () => {}, input: () => {} };
window.addEventListener('message', (event) => {
  const m = event.data;
  if (!m || m.jsonrpc !== '2.0') return;
  if (m.method === 'ui/notifications/tool-result') return handlers.result(m.params || {});
  if (m.method === 'ui/notifications/tool-input') return handlers.input(m.params || {});
  if (!m.method && pending.has(m.id)) {
    const { resolve, reject } = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) reject(new Error(m.error.message || 'the host refused the call'));
    else resolve(m.result);
  }
});
function callTool(name, args) {
  const id = nextId++;
  host.postMessage({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, '*');
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}
function structured(result) {
  if (result.structuredContent) return result.structuredContent;
  const text = (result.content || []).find((c) => c.type === 'text');
  try { return text ? JSON.parse(text.text) : {}; } catch { return {}; }
}
