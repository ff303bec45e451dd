// Opens a servo-fleet live view in headless Chromium with puppeteer-core and
// does what the Rust test asks, one JSON command per stdin line, answering
// each with one JSON line: what the page shows (its state, frame count,
// status and error lines) and, for `pixel`, the colour of a point of the
// frame as the page drew it.
// Usage: node live_view.mjs <chromium> <live-view-url>
import readline from "node:readline";
import puppeteer from "puppeteer-core";

const [chromium, url] = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const page = await browser.newPage();
// Room for the whole 1280×720 frame at its natural size below the header,
// so a point in the frame is the same point in the session.
await page.setViewport({ width: 1400, height: 900 });
await page.goto(url);

const seen = () =>
  page.evaluate(() => ({
    state: document.body.dataset.state,
    frames: Number(document.body.dataset.frames),
    status: document.getElementById("status").textContent,
    error: document.getElementById("error").textContent,
    where: document.getElementById("where").textContent,
  }));

async function frameBox() {
  const box = await (await page.$("#frame")).boundingBox();
  if (!box) throw new Error("the frame is not shown");
  return box;
}

async function run(cmd) {
  const wait = { timeout: 20000 };
  switch (cmd.do) {
    case "wait-state":
      await page.waitForFunction((s) => document.body.dataset.state === s, wait, cmd.state);
      return {};
    case "wait-frame":
      await page.waitForFunction((n) => Number(document.body.dataset.frames) > n, wait, cmd.after);
      return {};
    case "pixel":
      return {
        pixel: await page.evaluate(({ x, y }) => {
          const img = document.getElementById("frame");
          const canvas = document.createElement("canvas");
          canvas.width = img.naturalWidth;
          canvas.height = img.naturalHeight;
          const ctx = canvas.getContext("2d");
          ctx.drawImage(img, 0, 0);
          const [r, g, b] = ctx.getImageData(x, y, 1, 1).data;
          return { r, g, b, width: img.naturalWidth, height: img.naturalHeight };
        }, cmd),
      };
    case "click": {
      const box = await frameBox();
      await page.mouse.click(box.x + cmd.x, box.y + cmd.y);
      return {};
    }
    case "wheel": {
      const box = await frameBox();
      await page.mouse.move(box.x + cmd.x, box.y + cmd.y);
      await page.mouse.wheel({ deltaY: cmd.dy });
      return {};
    }
    case "type":
      await page.keyboard.type(cmd.text, { delay: 10 });
      return {};
    case "key":
      await page.keyboard.press(cmd.key);
      return {};
    case "button":
      await page.click(cmd.selector);
      return {};
    case "close":
      await browser.close();
      return {};
    default:
      throw new Error(`unknown command ${cmd.do}`);
  }
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  const cmd = JSON.parse(line);
  let answer;
  try {
    answer = { ok: true, ...(await run(cmd)) };
  } catch (e) {
    answer = { ok: false, error: String(e) };
  }
  if (cmd.do === "close") {
    console.log(JSON.stringify(answer));
    break;
  }
  console.log(JSON.stringify({ ...answer, ...(await seen()) }));
}
process.exit(0);
