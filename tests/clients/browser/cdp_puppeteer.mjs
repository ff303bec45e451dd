// Drives a servo-fleet session through its DevTools endpoint with
// puppeteer-core's connect(), as a user of Puppeteer would, and prints one
// JSON line of what it saw for the Rust test to check (or {"error"}).
// Usage: node cdp_puppeteer.mjs <webSocketDebuggerUrl> <fixtures-base-url>
import puppeteer from "puppeteer-core";

const [endpoint, base] = process.argv.slice(2);
const seen = { ms: {} };
let mark = Date.now();
// How long each step took, for the note and for whoever reads a failure.
const step = (name) => { const now = Date.now(); seen.ms[name] = now - mark; mark = now; };
try {
  const browser = await puppeteer.connect({ browserWSEndpoint: endpoint, defaultViewport: null });
  seen.version = await browser.version();
  const pages = await browser.pages();
  seen.pages = pages.length;
  const page = pages[0];
  const console_ = [];
  page.on("console", (m) => console_.push(`${m.type()}:${m.text()}`));
  step("connect");

  const response = await page.goto(`${base}/form`);
  seen.gotoResponse = response === null ? null : response.status();
  seen.url = page.url();
  seen.title = await page.title();
  step("goto");
  seen.evaluated = await page.evaluate((a, b) => a + b + document.querySelectorAll("li").length, 40, 1);
  seen.items = await Promise.all((await page.$$("li")).map((li) => li.evaluate((e) => e.textContent)));
  step("evaluate");
  await page.type("#name", "fleet");
  step("type");
  await page.click("#go");
  step("click");
  seen.out = await page.$eval("#out", (e) => e.textContent);
  seen.value = await page.$eval("#name", (e) => e.value);
  const box = await (await page.$("#go")).boundingBox();
  seen.box = box && { x: Math.round(box.x), y: Math.round(box.y), width: Math.round(box.width) };
  seen.thrown = await page.evaluate(() => { throw new Error("boom in page"); }).catch((e) => e.message);
  seen.html = (await page.content()).includes('id="out"');

  const png = await page.screenshot();
  seen.png = { bytes: png.length, width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
  step("screenshot");

  await page.evaluate(() => console.log("hello from the page"));
  // A link click navigates: the page's own navigation arrives as events.
  await Promise.all([page.waitForNavigation({ timeout: 15000 }), page.click("#next")]);
  seen.afterClick = { url: page.url(), title: await page.title() };
  seen.afterClickText = await page.$eval("h1", (e) => e.textContent);
  step("link");

  const deadline = Date.now() + 10000;
  while (!console_.some((c) => c.includes("hello from the page")) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  seen.console = console_;
  await browser.disconnect();
  console.log(JSON.stringify(seen));
} catch (e) {
  console.log(JSON.stringify({ error: String(e && e.stack || e), seen }));
}
process.exit(0);
