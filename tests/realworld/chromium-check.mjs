#!/usr/bin/env node
// Loads every page of the real-world corpus (tests/realworld/pages.json) in headless Chromium
// and prints what the engine is compared against: load time, uncaught errors, console errors,
// failed subresources, title, text length, link count, form fields and each page's facts.
//
// Each page's `root` is served as the web root by a small static server on a loopback port of
// its own, so pages that use absolute paths load as they would from their own site. Chromium
// is driven over the DevTools protocol on a pipe (--remote-debugging-pipe), which needs nothing
// beyond Node's standard library.
//
// Usage: node tests/realworld/chromium-check.mjs [--dir CACHE] [--pages FILE] [--subset]
//          [--only id,id] [--json OUT] [--contrast] [--discover] [--settle MS]
//   --contrast  also loads each page with scripts disabled and marks the facts whose value
//               does not depend on the page's scripts (a good fact changes).
//   --discover  prints, per page, the tags, classes and ids whose element counts the page's
//               scripts changed: the raw material for choosing facts.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync, createReadStream } from "node:fs";
import { tmpdir, homedir } from "node:os";
import { join, extname, resolve, sep, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = parseArgs(process.argv.slice(2));
const cacheDir = resolve(args.dir ?? process.env.FLEET_REALWORLD_DIR ?? join(homedir(), ".cache/servo-fleet/realworld"));
const pagesFile = resolve(args.pages ?? join(here, "pages.json"));
const settleMs = Number(args.settle ?? 300);
const pageTimeoutMs = Number(args.timeout ?? 15000);

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) throw new Error(`unexpected argument ${a}`);
    const key = a.slice(2);
    if (["subset", "contrast", "discover"].includes(key)) out[key] = true;
    else if (i + 1 < argv.length) out[key] = argv[++i];
    else throw new Error(`${a} needs a value`);
  }
  return out;
}

const CONTENT_TYPES = {
  ".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8", ".xhtml": "application/xhtml+xml",
  ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8", ".json": "application/json", ".map": "application/json",
  ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
  ".gif": "image/gif", ".ico": "image/x-icon", ".webp": "image/webp", ".bmp": "image/bmp",
  ".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf", ".otf": "font/otf",
  ".eot": "application/vnd.ms-fontobject", ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml", ".csv": "text/csv; charset=utf-8", ".tsv": "text/tab-separated-values",
  ".md": "text/plain; charset=utf-8", ".wasm": "application/wasm", ".pdf": "application/pdf",
  ".geojson": "application/json", ".topojson": "application/json",
};

// One static server per web root; symlinks are followed but must stay inside the cache folder.
const servers = new Map();
async function serverFor(root) {
  if (servers.has(root)) return servers.get(root);
  const base = realpathSync(join(cacheDir, root));
  const cacheReal = realpathSync(cacheDir);
  const server = createServer((req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    let file = join(base, path);
    try {
      let st = statSync(file);
      if (st.isDirectory()) {
        if (!path.endsWith("/")) {
          res.writeHead(301, { location: path + "/" }).end();
          return;
        }
        file = join(file, "index.html");
        st = statSync(file);
      }
      const real = realpathSync(file);
      if (real !== cacheReal && !real.startsWith(cacheReal + sep)) throw new Error("outside");
      const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
      res.writeHead(200, { "content-type": type, "content-length": st.size, "cache-control": "no-store" });
      if (req.method === "HEAD") res.end();
      else createReadStream(real).pipe(res);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const entry = { server, origin: `http://127.0.0.1:${server.address().port}` };
  servers.set(root, entry);
  return entry;
}

// The DevTools protocol over Chromium's pipe: NUL-terminated JSON messages on fds 3 and 4.
function launchChromium() {
  const profile = mkdtempSync(join(tmpdir(), "realworld-chromium-"));
  const bin = process.env.CHROMIUM ?? "chromium";
  const child = spawn(bin, [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
    `--user-data-dir=${profile}`, "--remote-debugging-pipe", "--window-size=1280,720", "about:blank",
  ], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => { stderr = (stderr + d).slice(-4000); });
  const toChrome = child.stdio[3];
  const fromChrome = child.stdio[4];
  let nextId = 1;
  const pending = new Map();
  const listeners = new Set();
  let buf = Buffer.alloc(0);
  fromChrome.on("data", (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    let nul;
    while ((nul = buf.indexOf(0)) >= 0) {
      const msg = JSON.parse(buf.subarray(0, nul).toString("utf8"));
      buf = buf.subarray(nul + 1);
      if (msg.id && pending.has(msg.id)) {
        const { ok, fail, method } = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error) fail(new Error(`${method}: ${msg.error.message}`));
        else ok(msg.result);
      } else {
        for (const l of listeners) l(msg);
      }
    }
  });
  const exited = new Promise((ok) => child.on("exit", ok));
  exited.then(() => {
    for (const { fail } of pending.values()) fail(new Error(`chromium exited: ${stderr}`));
    pending.clear();
  });
  return {
    send(method, params = {}, sessionId) {
      const id = nextId++;
      const msg = { id, method, params };
      if (sessionId) msg.sessionId = sessionId;
      toChrome.write(JSON.stringify(msg) + "\0");
      return new Promise((ok, fail) => pending.set(id, { ok, fail, method }));
    },
    on(l) { listeners.add(l); return () => listeners.delete(l); },
    async close() {
      try { await this.send("Browser.close"); } catch { /* already gone */ }
      await Promise.race([exited, new Promise((ok) => setTimeout(ok, 3000))]);
      child.kill("SIGKILL");
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Runs in the page after load: the figures the engine's run is compared with.
function pageReport(facts) {
  const fields = document.querySelectorAll("input:not([type=hidden]), select, textarea, button").length;
  const out = {
    title: document.title,
    textLength: document.body ? document.body.innerText.length : 0,
    links: document.querySelectorAll("a[href]").length,
    formFields: fields,
    elements: document.getElementsByTagName("*").length,
    facts: {},
  };
  for (const sel of facts) {
    let count = -1, display = null;
    try {
      const all = document.querySelectorAll(sel);
      count = all.length;
      if (all[0]) display = getComputedStyle(all[0]).display;
    } catch { /* an invalid selector reports -1 */ }
    out.facts[sel] = { count, display };
  }
  return out;
}

// Counts of every tag, class and id: compared with scripts on and off by --discover.
function domCensus() {
  const counts = {};
  for (const el of document.getElementsByTagName("*")) {
    const t = el.localName;
    counts[t] = (counts[t] ?? 0) + 1;
    for (const c of el.classList) counts["." + c] = (counts["." + c] ?? 0) + 1;
    if (el.id) counts["#" + el.id] = (counts["#" + el.id] ?? 0) + 1;
  }
  return counts;
}

async function loadPage(cdp, page, { scripts = true, census = false } = {}) {
  const { origin } = await serverFor(page.root);
  const url = origin + "/" + page.path.replace(/^\//, "");
  const { browserContextId } = await cdp.send("Target.createBrowserContext", { disposeOnDetach: true });
  const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank", browserContextId });
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
  const rec = {
    id: page.id, url, loadMs: null, settledMs: null, exceptions: [], consoleErrors: [], failed: [], timedOut: false,
  };
  const inflight = new Set();
  let lastNet = Date.now();
  let loaded = null;
  const loadedP = new Promise((ok) => { loaded = ok; });
  const off = cdp.on((msg) => {
    if (msg.sessionId !== sessionId) return;
    const p = msg.params;
    switch (msg.method) {
      case "Runtime.exceptionThrown": {
        const d = p.exceptionDetails;
        rec.exceptions.push((d.exception?.description ?? d.text ?? "").split("\n")[0].slice(0, 200));
        break;
      }
      case "Runtime.consoleAPICalled":
        if (p.type === "error" || p.type === "assert") {
          rec.consoleErrors.push(p.args.map((a) => a.value ?? a.description ?? "").join(" ").slice(0, 200));
        }
        break;
      case "Log.entryAdded":
        // Network errors are reported through Network.* below; keep the others (CSP, deprecations
        // that are errors, intervention errors).
        if (p.entry.level === "error" && p.entry.source !== "network") rec.consoleErrors.push(p.entry.text.slice(0, 200));
        break;
      case "Network.requestWillBeSent":
        inflight.add(p.requestId); lastNet = Date.now();
        break;
      case "Network.responseReceived":
        // Chromium asks for /favicon.ico on its own; only what the page asked for counts.
        if (p.response.status >= 400 && !(p.type === "Other" && p.response.url === origin + "/favicon.ico")) {
          rec.failed.push(`${p.response.status} ${p.response.url.replace(origin, "")}`);
        }
        break;
      case "Network.loadingFinished":
        inflight.delete(p.requestId); lastNet = Date.now();
        break;
      case "Network.loadingFailed":
        inflight.delete(p.requestId); lastNet = Date.now();
        if (!p.canceled) rec.failed.push(`${p.errorText} ${p.requestId}`);
        break;
      case "Network.requestServedFromCache":
        break;
      case "Page.loadEventFired":
        loaded();
        break;
    }
  });
  // Network.loadingFailed names no URL; remember them by request id.
  const urls = new Map();
  const offUrls = cdp.on((msg) => {
    if (msg.sessionId === sessionId && msg.method === "Network.requestWillBeSent") urls.set(msg.params.requestId, msg.params.request.url);
  });
  try {
    await cdp.send("Page.enable", {}, sessionId);
    await cdp.send("Runtime.enable", {}, sessionId);
    await cdp.send("Log.enable", {}, sessionId);
    await cdp.send("Network.enable", {}, sessionId);
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true }, sessionId);
    await cdp.send("Emulation.setDeviceMetricsOverride", { width: 1280, height: 720, deviceScaleFactor: 1, mobile: false }, sessionId);
    if (!scripts) await cdp.send("Emulation.setScriptExecutionDisabled", { value: true }, sessionId);
    const t0 = Date.now();
    await cdp.send("Page.navigate", { url }, sessionId);
    const timeout = new Promise((ok) => setTimeout(() => ok("timeout"), pageTimeoutMs));
    if ((await Promise.race([loadedP, timeout])) === "timeout") rec.timedOut = true;
    rec.loadMs = Date.now() - t0;
    // Settled: no request in flight for settleMs (timers that fetch more count), capped.
    const cap = Date.now() + 5000;
    while (Date.now() < cap && (inflight.size > 0 || Date.now() - lastNet < settleMs)) await sleep(25);
    rec.settledMs = Date.now() - t0;
    const expr = `(${pageReport})(${JSON.stringify(page.facts ?? [])})`;
    const r = await cdp.send("Runtime.evaluate", { expression: expr, returnByValue: true }, sessionId);
    Object.assign(rec, r.result.value ?? { evalError: r.exceptionDetails?.text });
    if (census) {
      const c = await cdp.send("Runtime.evaluate", { expression: `(${domCensus})()`, returnByValue: true }, sessionId);
      rec.census = c.result.value;
    }
  } finally {
    off(); offUrls();
    rec.failed = rec.failed.map((f) => f.replace(/ (\d+(\.\d+)*)$/, (_, id) => " " + (urls.get(id) ?? id).replace(origin, "")));
    // A page's own packaging defect that Chromium meets too (pages.json `known_failures`) is
    // reported apart from failures that would mean the corpus was installed wrong.
    const known = page.known_failures ?? [];
    rec.knownFailed = rec.failed.filter((f) => known.some((k) => f.includes(k)));
    rec.failed = rec.failed.filter((f) => !known.some((k) => f.includes(k)));
    await cdp.send("Target.closeTarget", { targetId }).catch(() => {});
    await cdp.send("Target.disposeBrowserContext", { browserContextId }).catch(() => {});
  }
  return rec;
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

function pad(s, n) { s = String(s); return s.length >= n ? s.slice(0, n) : s + " ".repeat(n - s.length); }

function factSummary(facts) {
  return Object.entries(facts ?? {}).map(([sel, f]) => `${sel}=${f.count}${f.display ? "/" + f.display : ""}`).join(" ");
}

async function main() {
  let pages = JSON.parse(readFileSync(pagesFile, "utf8")).pages;
  if (args.subset) pages = pages.filter((p) => p.subset);
  if (args.only) {
    const only = new Set(args.only.split(","));
    pages = pages.filter((p) => only.has(p.id));
  }
  if (pages.length === 0) throw new Error("no pages selected");
  const cdp = launchChromium();
  const { product } = await cdp.send("Browser.getVersion");
  console.log(`# ${product}, ${pages.length} pages from ${cacheDir}`);
  console.log(["id", "load", "settle", "exc", "cerr", "404", "text", "links", "fields", "title / facts"].map((h, i) => pad(h, [34, 6, 7, 4, 5, 4, 7, 6, 7, 0][i])).join(" "));
  const results = [];
  for (const page of pages) {
    let rec;
    try {
      rec = await loadPage(cdp, page, { census: args.discover });
      if (args.contrast || args.discover) {
        const off = await loadPage(cdp, page, { scripts: false, census: args.discover });
        rec.noscript = { facts: off.facts, textLength: off.textLength, links: off.links, title: off.title };
        rec.staticFacts = Object.keys(rec.facts ?? {}).filter((s) => JSON.stringify(rec.facts[s]) === JSON.stringify(off.facts[s]));
        if (args.discover) rec.discovered = diffCensus(off.census, rec.census);
        delete rec.census;
      }
    } catch (e) {
      rec = { id: page.id, error: String(e.message ?? e) };
    }
    results.push(rec);
    printRow(rec);
  }
  await cdp.close();
  for (const { server } of servers.values()) server.close();
  if (args.json) writeFileSync(args.json, JSON.stringify({ chromium: product, pages: results }, null, 1));
  const slow = results.filter((r) => r.loadMs >= 1000).length;
  const broken = results.filter((r) => r.error || r.failed?.length || r.timedOut).length;
  const erring = results.filter((r) => r.exceptions?.length || r.consoleErrors?.length).length;
  console.log(`# ${results.length} pages: ${slow} took >= 1 s to load, ${broken} had failed subresources or did not load, ${erring} reported errors in Chromium`);
}

function diffCensus(before = {}, after = {}) {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const d = [];
  for (const k of keys) {
    const a = before[k] ?? 0, b = after[k] ?? 0;
    if (a !== b) d.push([k, a, b]);
  }
  return d.sort((x, y) => Math.abs(y[2] - y[1]) - Math.abs(x[2] - x[1])).slice(0, 40).map(([k, a, b]) => `${k}:${a}->${b}`);
}

function printRow(r) {
  if (r.error) { console.log(`${pad(r.id, 34)} ERROR ${r.error}`); return; }
  console.log([
    pad(r.id, 34), pad(r.loadMs, 6), pad(r.settledMs, 7), pad(r.exceptions.length, 4), pad(r.consoleErrors.length, 5),
    pad(r.failed.length, 4), pad(r.textLength, 7), pad(r.links, 6), pad(r.formFields, 7), (r.title ?? "").slice(0, 60),
  ].join(" ") + (r.timedOut ? " [TIMED OUT]" : ""));
  const lines = [];
  if (r.facts) lines.push("facts: " + factSummary(r.facts));
  if (r.staticFacts?.length) lines.push("facts that do not depend on scripts: " + r.staticFacts.join(", "));
  for (const e of r.exceptions) lines.push("exception: " + e);
  for (const e of r.consoleErrors) lines.push("console error: " + e);
  for (const f of r.failed) lines.push("failed: " + f);
  for (const f of r.knownFailed ?? []) lines.push("failed (known): " + f);
  if (r.discovered) lines.push("changed by scripts: " + r.discovered.join(" "));
  for (const l of lines) console.log("    " + l);
}

main().catch((e) => { console.error(e); process.exit(1); });
