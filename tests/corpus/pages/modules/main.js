import { sailings, describe } from './timetable.js';
import { highWater } from 'tides/today.js';
import * as everything from 'timetable';

// Set before the top-level await below, so the page can wait for the rest.
let finish;
window.mainDone = new Promise((resolve) => { finish = resolve; });
order.push('main.js runs after parsing: ' + (document.readyState === 'interactive'));
const table = document.getElementById('sailings');
for (const s of sailings) {
  const row = table.insertRow();
  row.insertCell().textContent = s.departs;
  row.insertCell().textContent = s.to;
}
document.getElementById('tide').textContent = 'High water at ' + highWater + '.';
await new Promise((resolve) => setTimeout(resolve, 10));
order.push('main.js after await');
finish({
  describe: describe(sailings[0]),
  sameModule: everything.sailings === sailings,
  metaUrl: import.meta.url.endsWith('/modules/main.js'),
  strict: (function () { return this === undefined; })(),
  namespaceKeys: Object.keys(everything).sort(),
});
