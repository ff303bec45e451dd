//! The engine's durable state, driven through the worker's wasmtime host without
//! a fleet: IndexedDB (schema, key order, indexes, cursors, rollback, quota),
//! viewport scroll (script API and screenshots), and snapshot parts (determinism,
//! restore into a fresh tab, the legacy single-part format, refused parts). Each
//! check prints a line; the test fails if any did. Fonts are tested through the
//! fleet in `fonts`.

use std::time::Duration;

use fleet_worker::host::{Source, StatePart, Tab, Viewport};

const BUDGET: Duration = Duration::from_secs(20);

/// A tall inline page: four 400px colour bands, a form field, and helpers that
/// wrap IndexedDB requests in promises. Its script opens the database (creating
/// the schema on first run) and counts its runs in localStorage.
const PAGE: &str = r#"<!doctype html>
<html><head><title>state</title>
<style>body{margin:0} .band{height:400px} #a{background:#c00} #b{background:#0a0} #c{background:#00c} #d{background:#cc0}</style>
</head><body>
<div class="band" id="a"></div><div class="band" id="b"></div><div class="band" id="c"></div><div class="band" id="d"></div>
<input id="name">
<script>
window.log = [];
window.P = (r) => new Promise((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = (e) => { e.preventDefault(); rej(r.error); }; });
window.done = (tx) => new Promise((res, rej) => { tx.oncomplete = () => res('complete'); tx.onabort = () => rej(tx.error); });
window.openDb = () => {
  const r = indexedDB.open('app', 2);
  r.onupgradeneeded = (e) => {
    const db = r.result;
    log.push('upgrade ' + e.oldVersion + '->' + e.newVersion);
    if (e.oldVersion < 1) {
      const s = db.createObjectStore('notes', { keyPath: 'id', autoIncrement: true });
      s.createIndex('by_tag', 'tags', { multiEntry: true });
      s.createIndex('by_title', 'title', { unique: true });
    }
    if (e.oldVersion < 2) db.createObjectStore('kv');
  };
  return P(r);
};
localStorage.setItem('runs', String(Number(localStorage.getItem('runs') || 0) + 1));
openDb().then((db) => { log.push('opened v' + db.version + ' [' + [...db.objectStoreNames].join(',') + ']'); db.close(); });
addEventListener('scroll', () => log.push('scroll ' + scrollY));
</script></body></html>"#;

struct Checks {
    failed: usize,
}

impl Checks {
    fn check(&mut self, name: &str, got: &str, want: &str) {
        if got == want {
            println!("ok    {name}: {got}");
        } else {
            self.failed += 1;
            println!("FAIL  {name}:\n        got  {got}\n        want {want}");
        }
    }

    fn check_that(&mut self, name: &str, ok: bool, detail: &str) {
        if ok {
            println!("ok    {name}: {detail}");
        } else {
            self.failed += 1;
            println!("FAIL  {name}: {detail}");
        }
    }
}

async fn eval(tab: &mut Tab, script: &str) -> String {
    match tab.evaluate(script, BUDGET).await.expect("evaluate call") {
        Ok(json) => json,
        Err(e) => format!("error: {e:?}"),
    }
}

/// RGB of the pixel at (x, y) of a PNG screenshot.
pub(crate) fn pixel(png_bytes: &[u8], x: u32, y: u32) -> [u8; 3] {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("png size")];
    let info = reader.next_frame(&mut buf).expect("png frame");
    let i = ((y * info.width + x) as usize) * info.color_type.samples();
    [buf[i], buf[i + 1], buf[i + 2]]
}

async fn screenshot(tab: &mut Tab) -> Vec<u8> {
    tab.screenshot(false, BUDGET)
        .await
        .expect("screenshot call")
        .expect("screenshot")
}

fn part<'a>(parts: &'a [StatePart], name: &str) -> Option<&'a StatePart> {
    parts.iter().find(|p| p.name == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn indexeddb_scroll_and_snapshot_parts_behave_in_one_engine_and_survive_restore()
-> anyhow::Result<()> {
    // covers: storage.indexeddb, render.screenshot
    let host = crate::harness::engine_host(8, &[])?;
    let viewport = Viewport {
        width: 800,
        height: 600,
    };
    let mut c = Checks { failed: 0 };

    // ---- tab A: build up state --------------------------------------------
    let mut a = host.new_tab(viewport).await?;
    let summary = a.load(Source::Html(PAGE.into()), BUDGET).await?;
    c.check("load title", &summary.title, "state");
    c.check(
        "first open upgrades from 0",
        &eval(&mut a, "log").await,
        r#"["upgrade 0->2","opened v2 [kv,notes]"]"#,
    );
    let ids = eval(
        &mut a,
        r#"(async () => {
  const db = await openDb();
  const tx = db.transaction(['notes', 'kv'], 'readwrite');
  const notes = tx.objectStore('notes');
  const ids = [];
  for (const [title, tags, day] of [['b', ['x', 'y'], 2], ['a', ['y'], 1], ['c', [], 3]]) {
    ids.push(await P(notes.add({ title, tags, when: new Date(Date.UTC(2024, 0, day)) })));
  }
  const kv = tx.objectStore('kv');
  await P(kv.put({ nested: { list: [1, 'two', null, true, undefined], map: new Map([[1, 'one']]) }, nan: NaN, neg0: -0 }, 'complex'));
  await P(kv.put('number key', 10));
  await P(kv.put('array key', [1, 'a']));
  await P(kv.put('string key', 'k'));
  await P(kv.put('date key', new Date(0)));
  await P(kv.put('binary key', new Uint8Array([1, 2])));
  const status = await done(tx);
  db.close();
  return { ids, status };
})()"#,
    )
    .await;
    c.check(
        "writes commit with generated keys",
        &ids,
        r#"{"ids":[1,2,3],"status":"complete"}"#,
    );
    c.check(
        "key order: number < date < string < binary < array",
        &eval(
            &mut a,
            r#"(async () => {
  const db = await openDb();
  const keys = await P(db.transaction('kv').objectStore('kv').getAllKeys());
  db.close();
  return keys.map((k) => k instanceof Date ? 'date' : Array.isArray(k) ? 'array' : k instanceof ArrayBuffer ? 'binary' : typeof k + ':' + k);
})()"#,
        )
        .await,
        r#"["number:10","date","string:complex","string:k","binary","array"]"#,
    );
    c.check(
        "indexedDB.cmp",
        &eval(
            &mut a,
            "[indexedDB.cmp(1, 2), indexedDB.cmp('a', 1), indexedDB.cmp([1], 'z'), indexedDB.cmp(new Date(5), 99), indexedDB.cmp(['a', 1], ['a', 1]), indexedDB.cmp(-0, 0)]",
        )
        .await,
        "[-1,1,1,1,0,0]",
    );
    c.check(
        "failed request rolls back its transaction",
        &eval(
            &mut a,
            r#"(async () => {
  const db = await openDb();
  const tx = db.transaction('notes', 'readwrite');
  const s = tx.objectStore('notes');
  const temp = s.put({ title: 'temp', tags: [] });
  const dup = s.add({ title: 'a', tags: [] });
  let aborted;
  try { await done(tx); } catch (e) { aborted = e.name; }
  const count = await P(db.transaction('notes').objectStore('notes').count());
  db.close();
  return [temp.readyState, dup.error.name, aborted, tx.error.name, count];
})()"#,
        )
        .await,
        r#"["done","ConstraintError","ConstraintError","ConstraintError",3]"#,
    );
    c.check(
        "indexes, ranges, cursors, values",
        &eval(
            &mut a,
            r#"(async () => {
  const db = await openDb();
  const s = db.transaction(['notes', 'kv']).objectStore('notes');
  const byTag = (await P(s.index('by_tag').getAll('y'))).map((n) => n.title);
  const range = await P(s.getAllKeys(IDBKeyRange.bound(2, 3)));
  const open = await P(s.getAllKeys(IDBKeyRange.lowerBound(1, true), 1));
  const titles = [];
  await new Promise((res) => {
    const c = s.index('by_title').openCursor(null, 'prev');
    c.onsuccess = () => { const cur = c.result; if (!cur) return res(); titles.push(cur.key + '=' + cur.primaryKey); cur.continue(); };
  });
  const uniqueTags = [];
  await new Promise((res) => {
    const c = s.index('by_tag').openKeyCursor(null, 'nextunique');
    c.onsuccess = () => { const cur = c.result; if (!cur) return res(); uniqueTags.push(cur.key); cur.continue(); };
  });
  const when = (await P(s.get(1))).when;
  const complex = await P(s.transaction.objectStore('kv').get('complex'));
  const byTitle = await P(s.index('by_title').getKey('c'));
  db.close();
  return {
    byTag, range, open, titles, uniqueTags, byTitle,
    date: when instanceof Date && when.toISOString(),
    complex: [complex.nested.map.get(1), complex.nested.list.length, complex.nested.list[4] === undefined && 4 in complex.nested.list, Number.isNaN(complex.nan), Object.is(complex.neg0, -0)],
  };
})()"#,
        )
        .await,
        r#"{"byTag":["b","a"],"range":[2,3],"open":[2],"titles":["c=3","b=1","a=2"],"uniqueTags":["x","y"],"byTitle":3,"date":"2024-01-02T00:00:00.000Z","complex":["one",5,true,true,true]}"#,
    );
    c.check(
        "cursor update and delete",
        &eval(
            &mut a,
            r#"(async () => {
  const db = await openDb();
  const tx = db.transaction('notes', 'readwrite');
  const s = tx.objectStore('notes');
  await new Promise((res) => {
    const c = s.openCursor();
    c.onsuccess = () => {
      const cur = c.result;
      if (!cur) return res();
      if (cur.value.title === 'c') cur.delete(); else cur.update({ ...cur.value, title: cur.value.title.toUpperCase() });
      cur.continue();
    };
  });
  await done(tx);
  const all = await P(db.transaction('notes').objectStore('notes').getAll());
  db.close();
  return all.map((n) => n.id + n.title);
})()"#,
        )
        .await,
        r#"["1B","2A"]"#,
    );
    c.check(
        "errors: DataError, NotFoundError, ReadOnlyError, InvalidStateError, VersionError",
        &eval(
            &mut a,
            r#"(async () => {
  const out = [];
  try { indexedDB.cmp(NaN, 1); } catch (e) { out.push(e.name); }
  const db = await openDb();
  try { db.transaction('nope'); } catch (e) { out.push(e.name); }
  const tx = db.transaction('kv');
  try { tx.objectStore('kv').put(1, 1); } catch (e) { out.push(e.name); }
  await done(tx);
  try { tx.objectStore('kv').get(1); } catch (e) { out.push(e.name); }
  db.close();
  try { await P(indexedDB.open('app', 1)); } catch (e) { out.push(e.name); }
  return out;
})()"#,
        )
        .await,
        r#"["DataError","NotFoundError","ReadOnlyError","InvalidStateError","VersionError"]"#,
    );
    c.check(
        "explicit abort rolls back; databases()",
        &eval(
            &mut a,
            r#"(async () => {
  const db = await openDb();
  const tx = db.transaction('kv', 'readwrite');
  tx.objectStore('kv').put('gone', 'temp');
  tx.abort();
  let reason;
  try { await done(tx); } catch (e) { reason = e; }
  const temp = await P(db.transaction('kv').objectStore('kv').get('temp'));
  db.close();
  return [reason, temp === undefined, await indexedDB.databases()];
})()"#,
        )
        .await,
        r#"[null,true,[{"name":"app","version":2}]]"#,
    );
    // Writes issued by a script that does not wait for them still commit
    // before `evaluate` returns.
    eval(
        &mut a,
        "indexedDB.open('fire-and-forget').onupgradeneeded = (e) => { e.target.result.createObjectStore('s').put('v', 'k'); }; 1",
    )
    .await;
    c.check(
        "unawaited writes are committed when evaluate returns",
        &eval(
            &mut a,
            "indexedDB.databases().then((l) => l.map((d) => d.name + '@' + d.version))",
        )
        .await,
        r#"["app@2","fire-and-forget@1"]"#,
    );

    // IndexedDB outlives the realm: a navigation within the origin sees it.
    a.load(Source::Html(PAGE.into()), BUDGET).await?;
    c.check(
        "data survives a load (new realm)",
        &eval(
            &mut a,
            "(async () => { const db = await openDb(); const n = await P(db.transaction('notes').objectStore('notes').count()); db.close(); return [log, n]; })()",
        )
        .await,
        r#"[["opened v2 [kv,notes]"],2]"#,
    );

    // Scroll.
    let top = screenshot(&mut a).await;
    c.check(
        "scroll starts at 0",
        &eval(&mut a, "[scrollX, scrollY]").await,
        "[0,0]",
    );
    c.check(
        "scrollTo / scrollBy / documentElement",
        &eval(
            &mut a,
            "scrollTo(0, 300); const a = scrollY; scrollBy({ top: 200 }); [a, scrollY, pageYOffset, document.documentElement.scrollTop, document.scrollingElement === document.documentElement]",
        )
        .await,
        "[300,500,500,500,true]",
    );
    c.check(
        "scroll is clamped to the document",
        &eval(
            &mut a,
            "const h = document.documentElement.scrollHeight; scrollTo({ top: 1e6 }); const max = scrollY; document.documentElement.scrollTop = 500; [Math.abs(max - (h - innerHeight)) < 1, h > 1600, scrollY, document.documentElement.clientHeight]",
        )
        .await,
        "[true,true,500,600]",
    );
    c.check(
        "scroll event fires on window",
        &eval(
            &mut a,
            "new Promise((r) => setTimeout(() => r(log.filter((l) => l.startsWith('scroll'))), 10))",
        )
        .await,
        r#"["scroll 500"]"#,
    );
    c.check(
        "getBoundingClientRect follows scroll",
        &eval(
            &mut a,
            "document.getElementById('b').getBoundingClientRect().top",
        )
        .await,
        "-100",
    );
    let scrolled = screenshot(&mut a).await;
    c.check(
        "screenshot paints the scrolled viewport",
        &format!("{:?} {:?}", pixel(&top, 10, 10), pixel(&scrolled, 10, 10)),
        "[204, 0, 0] [0, 170, 0]",
    );
    eval(
        &mut a,
        "document.getElementById('name').value = 'Ada'; sessionStorage.setItem('s', '1'); 0",
    )
    .await;

    // ---- snapshot ----------------------------------------------------------
    let parts = a.snapshot(BUDGET).await?;
    let again = a.snapshot(BUDGET).await?;
    let names: Vec<String> = parts
        .iter()
        .map(|p| format!("{}({}B)", p.name, p.data.len()))
        .collect();
    println!("      parts: {}", names.join(" "));
    c.check_that(
        "snapshot is deterministic",
        parts == again,
        "two snapshots, same bytes",
    );
    let page_json =
        String::from_utf8_lossy(&part(&parts, "page").expect("page part").data).to_string();
    println!("      page part: {page_json}");
    c.check_that(
        "page part has version 2 and scroll",
        page_json.starts_with(r#"{"version":2,"#)
            && page_json.contains(r#""scroll":{"x":0.0,"y":500.0}"#),
        &page_json,
    );
    let idb_json =
        String::from_utf8_lossy(&part(&parts, "indexeddb").expect("indexeddb part").data)
            .to_string();
    println!(
        "      indexeddb part: {}…",
        &idb_json[..idb_json.len().min(400)]
    );
    c.check_that(
        "every part present",
        [
            "page",
            "html",
            "local-storage",
            "session-storage",
            "indexeddb",
        ]
        .iter()
        .all(|n| part(&parts, n).is_some()),
        "page html local-storage session-storage indexeddb",
    );

    // ---- restore into a fresh tab -----------------------------------------
    let mut b = host.new_tab(viewport).await?;
    let restored = b.restore(&parts, BUDGET).await?;
    c.check_that(
        "restore succeeds",
        restored.as_ref().is_ok_and(|s| s.title == "state"),
        &format!("{:?}", restored.as_ref().map(|s| &s.title)),
    );
    c.check(
        "restored: scroll, form, storage, page script ran against restored storage",
        &eval(
            &mut b,
            "[scrollY, document.getElementById('name').value, localStorage.getItem('runs'), sessionStorage.getItem('s'), log]",
        )
        .await,
        r#"[500,"Ada","3","1",["opened v2 [kv,notes]"]]"#,
    );
    c.check(
        "restored: IndexedDB records, indexes, key generator, Dates",
        &eval(
            &mut b,
            r#"(async () => {
  const db = await openDb();
  const tx = db.transaction('notes', 'readwrite');
  const s = tx.objectStore('notes');
  const id = await P(s.add({ title: 'd', tags: ['x'] }));
  const x = (await P(s.index('by_tag').getAll('x'))).map((n) => n.title);
  const when = (await P(s.get(2))).when;
  await done(tx);
  db.close();
  return [id, x, when.toISOString(), (await indexedDB.databases()).length];
})()"#,
        )
        .await,
        r#"[4,["B","d"],"2024-01-01T00:00:00.000Z",2]"#,
    );
    let restored_shot = screenshot(&mut b).await;
    c.check(
        "restored screenshot is scrolled",
        &format!("{:?}", pixel(&restored_shot, 10, 10)),
        "[0, 170, 0]",
    );

    // ---- errors thrown by natives -------------------------------------------
    let mut o = host.new_tab(viewport).await?;
    c.check(
        "opaque origin: SecurityError is a DOMException",
        &eval(
            &mut o,
            "const out = []; for (const f of [() => indexedDB.open('x'), () => localStorage.getItem('x')]) { try { f(); } catch (e) { out.push([e.name, e instanceof DOMException, e instanceof Error, e.message]); } } out",
        )
        .await,
        r#"[["SecurityError",true,true,"IndexedDB is not available for this document's origin"],["SecurityError",true,true,"localStorage is not available for this document's origin"]]"#,
    );
    o.load(Source::Html("<title>quota</title>".into()), BUDGET)
        .await?;
    c.check(
        "IndexedDB quota (50 MiB per origin) aborts the commit",
        &eval(
            &mut o,
            r#"(async () => {
  const P = (r) => new Promise((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = (e) => { e.preventDefault(); rej(r.error); }; });
  const open = indexedDB.open('big');
  open.onupgradeneeded = () => open.result.createObjectStore('s');
  const db = await P(open);
  const chunk = 'x'.repeat(20 * 1024 * 1024);
  const out = [];
  for (let i = 0; i < 3; i++) {
    const tx = db.transaction('s', 'readwrite');
    tx.objectStore('s').put(chunk, i);
    out.push(await new Promise((res) => { tx.oncomplete = () => res('complete'); tx.onabort = () => res(tx.error.name); }));
  }
  out.push(await P(db.transaction('s').objectStore('s').count()));
  return out;
})()"#,
        )
        .await,
        r#"["complete","complete","QuotaExceededError",2]"#,
    );
    drop(o);

    // ---- refused parts -----------------------------------------------------
    let mut bad = parts.clone();
    bad.push(StatePart {
        name: "bogus".into(),
        data: vec![],
    });
    let mut t = host.new_tab(viewport).await?;
    let err = t.restore(&bad, BUDGET).await?.err().unwrap_or_default();
    c.check(
        "unknown part refused",
        &err,
        r#"snapshot part "bogus" is unknown to this engine"#,
    );
    let bad: Vec<StatePart> = parts
        .iter()
        .map(|p| StatePart {
            name: p.name.clone(),
            data: if p.name == "indexeddb" {
                b"{\"version\":1,\"origins\":{\"o\":{\"d\":{\"version\":1,\"stores\":{\"s\":{\"keyPath\":null,\"autoIncrement\":false,\"keyGenerator\":1,\"indexes\":{},\"records\":[[\"9\",1]]}}}}}}".to_vec()
            } else {
                p.data.clone()
            },
        })
        .collect();
    let err = t.restore(&bad, BUDGET).await?.err().unwrap_or_default();
    c.check_that(
        "undecodable indexeddb part refused",
        err.starts_with(
            r#"snapshot part "indexeddb" could not be decoded: invalid record key "9""#,
        ),
        &err,
    );

    // ---- legacy single-part snapshots ------------------------------------
    let legacy = r#"{"version":1,"url":"https://inline.servo-fleet.invalid/","viewport":{"width":640,"height":480},"html":"<title>old</title><input value=x><script>document.title += ':' + localStorage.getItem('k')</script>","localStorage":{"https://inline.servo-fleet.invalid":[["k","v"]]},"forms":[{"index":0,"tag":"input","value":"kept"}]}"#;
    let mut l = host.new_tab(viewport).await?;
    let restored = l
        .restore(
            &[StatePart {
                name: "legacy-v1".into(),
                data: legacy.as_bytes().to_vec(),
            }],
            BUDGET,
        )
        .await?;
    c.check(
        "legacy-v1 restores",
        &format!(
            "{:?} {}",
            restored.map(|s| s.title),
            eval(
                &mut l,
                "[innerWidth, document.querySelector('input').value]"
            )
            .await
        ),
        r#"Ok("old:v") [640,"kept"]"#,
    );

    assert_eq!(
        c.failed, 0,
        "{} engine check(s) failed; see the FAIL lines above",
        c.failed
    );
    Ok(())
}
