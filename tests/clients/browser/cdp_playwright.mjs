// Drives a servo-fleet session through its DevTools endpoint with
// playwright-core's chromium.connectOverCDP(), as a user of Playwright
// would, and prints one JSON line of what it saw for the Rust test to
// check (or {"error"}).
// Usage: node cdp_playwright.mjs <webSocketDebuggerUrl> <fixtures-base-url>
import { chromium } from "playwright-core";

const [endpoint, base] = process.argv.slice(2);
const seen = { ms: {} };
let mark = Date.now();
// How long each step took, for the note and for whoever reads a failure.
const step = (name) => { const now = Date.now(); seen.ms[name] = now - mark; mark = now; };
try {
  const browser = await chromium.connectOverCDP(endpoint, { timeout: 30000 });
  const contexts = browser.contexts();
  seen.contexts = contexts.length;
  const pages = contexts[0].pages();
  seen.pages = pages.length;
  const page = pages[0];
  page.setDefaultTimeout(15000);
  step("connect");

  await page.goto(`${base}/form`);
  seen.url = page.url();
  seen.title = await page.title();
  step("goto");
  seen.evaluated = await page.evaluate(([a, b]) => a + b + document.querySelectorAll("li").length, [40, 1]);
  seen.items = await page.locator("li").allTextContents();
  step("evaluate");
  await page.fill("#name", "play");
  step("fill");
  await page.type("#name", "wright");
  step("type");
  await page.click("#go");
  step("click");
  seen.out = await page.textContent("#out");
  seen.value = await page.inputValue("#name");
  const png = await page.screenshot();
  seen.png = { bytes: png.length, width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
  step("screenshot");
  await Promise.all([page.waitForURL(`${base}/second`), page.click("#next")]);
  seen.afterClick = { url: page.url(), title: await page.title() };
  seen.afterClickText = await page.textContent("h1");
  step("link");
  await browser.close();
  console.log(JSON.stringify(seen));
} catch (e) {
  console.log(JSON.stringify({ error: String((e && e.stack) || e), seen }));
}
process.exit(0);
