//! What scripts pay to cross into the DOM, and what the shortcuts that make it
//! cheap must not change: node wrappers are kept in an array by node slot,
//! token lists are made once per element, child lists are held only while
//! the page holds them (or just read them), a live list's `forEach` skips the
//! proxy, a text node's child list is one frozen empty list, selectors are
//! parsed once per session, and the base URL `href` reads resolve against is
//! kept until the tree changes.

use std::time::Duration;

use fleet_worker::host::{Settle, Source};

/// Generous: each page below finishes in well under a second; before QuickJS's
/// Map hash was fixed, the first took minutes.
const BUDGET: Duration = Duration::from_secs(4);

async fn load_text(html: &str) -> anyhow::Result<(String, Vec<String>, Settle)> {
    let (_host, mut tab) = crate::harness::engine_tab(&[]).await?;
    let summary = tab.load(Source::Html(html.into()), BUDGET).await?;
    let console = summary.console.iter().map(|c| c.text.clone()).collect();
    Ok((summary.text, console, summary.settle))
}

/// Loads `page` and checks the first line of its text (what its script
/// wrote), showing the console's messages if it differs.
async fn assert_first_line(page: &str, expected: &str) -> anyhow::Result<()> {
    let (text, console, _) = load_text(page).await?;
    let first_line = text.lines().next().unwrap_or_default();
    assert_eq!(first_line, expected, "console {console:?}");
    Ok(())
}

/// QuickJS picked a Map bucket from the low bits of a number key's hash,
/// which are the same for every small integer and for every node id, so a
/// map of many such keys was a few long chains. A page that keys 200,000
/// entries by numbers shaped like node ids, and walks 20,000 new nodes through
/// the engine's wrappers, now finishes inside its budget with every entry found.
#[tokio::test(flavor = "multi_thread")]
async fn maps_keyed_by_numbers_and_trees_of_many_nodes_stay_inside_the_budget() -> anyhow::Result<()>
{
    let page = "<!doctype html><title>m</title><p id=out>not run</p><div id=box></div><script>
        // Keys shaped like node ids (2^32 + slot), as the engine's own map holds.
        const m = new Map();
        for (let i = 0; i < 200000; i++) m.set(4294967296 + i, i);
        let found = 0;
        for (let i = 0; i < 200000; i++) if (m.get(4294967296 + i) === i) found++;
        const box = document.getElementById('box');
        for (let i = 0; i < 20000; i++) box.appendChild(document.createElement('span'));
        let walked = 0;
        for (const span of box.childNodes) if (span.parentNode === box) walked++;
        out.textContent = 'found ' + found + ' walked ' + walked;
        </script>";
    let (text, console, settle) = load_text(page).await?;
    assert!(
        text.contains("found 200000 walked 20000"),
        "the script did not finish: {text:?} (settle {settle:?}, console {console:?})"
    );
    assert!(!matches!(settle, Settle::Budget), "console: {console:?}");
    Ok(())
}

/// `el.classList` is one object per element, as in browsers, and reading it,
/// `getElementsByClassName` and the `href` of links leave the page's own
/// `RegExp.$1` as its last match set it.
#[tokio::test(flavor = "multi_thread")]
async fn token_lists_are_kept_per_element_and_leave_the_pages_regexp_match_alone()
-> anyhow::Result<()> {
    let page =
        "<!doctype html><title>t</title><p id=out></p><a id=a class='x  y' href='/p'>a</a><script>
        const a = document.getElementById('a');
        /(\\w+)-(\\w+)/.test('left-right');
        const same = a.classList === a.classList;
        const has = a.classList.contains('y') && !a.classList.contains('z');
        a.classList.add('z');
        const count = document.getElementsByClassName(' x\\tz ').length;
        const tokens = [...a.classList].join(',') + ' ' + a.classList[1] + ' ' + a.classList.length;
        out.textContent = [same, has, count, tokens, RegExp.$1, RegExp.$2].join(' ');
        </script>";
    let (text, console, _) = load_text(page).await?;
    assert!(
        text.contains("true true 1 x,y,z y 3 left right"),
        "got {text:?} (console {console:?})"
    );
    Ok(())
}

/// The base URL is kept between `href` reads only while the tree is
/// unchanged: a `<base>` a script adds, moves or drops changes what the next
/// read resolves to.
#[tokio::test(flavor = "multi_thread")]
async fn links_resolve_against_a_base_the_script_adds_changes_and_removes() -> anyhow::Result<()> {
    let page = "<!doctype html><title>b</title><p id=out></p><a id=a href='p/q'>a</a><script>
        const a = document.getElementById('a');
        const seen = [a.href, a.href];
        const base = document.createElement('base');
        base.setAttribute('href', 'https://one.example/docs/');
        document.head.appendChild(base);
        seen.push(a.href);
        base.setAttribute('href', 'https://two.example/');
        seen.push(a.href);
        base.remove();
        seen.push(a.href);
        out.textContent = seen.join(' ');
        </script>";
    let (text, console, _) = load_text(page).await?;
    let first_line = text.lines().next().unwrap_or_default();
    let parts: Vec<&str> = first_line.split_whitespace().collect();
    assert_eq!(parts.len(), 5, "got {text:?} (console {console:?})");
    assert_eq!(parts[0], parts[1], "two reads of one tree agree");
    assert_eq!(parts[2], "https://one.example/docs/p/q");
    assert_eq!(parts[3], "https://two.example/p/q");
    assert_eq!(
        parts[4], parts[0],
        "without the base, the document's URL again"
    );
    Ok(())
}

/// A live `childNodes` or `children` list is rebuilt only when its own node's
/// children changed (a digest of the child list, asked after any change to
/// the tree), and still follows every change to them: an insert, a removal,
/// a move to another parent, a replacement of the same length, `textContent`.
#[tokio::test(flavor = "multi_thread")]
async fn live_child_lists_follow_their_own_children_through_edits_elsewhere() -> anyhow::Result<()>
{
    let page = "<!doctype html><title>c</title><p id=out></p><div id=one><i>a</i><b>b</b></div><div id=two><u>c</u></div><script>
        const one = document.getElementById('one'), two = document.getElementById('two');
        const kids = one.childNodes, els = two.children;
        const names = (list) => Array.from(list, (n) => n.nodeName).join('.');
        const seen = [names(kids), names(els)];
        two.setAttribute('class', 'x');
        two.appendChild(document.createElement('s'));
        seen.push(names(kids), names(els));
        two.appendChild(one.firstChild);
        seen.push(names(kids), names(els));
        one.replaceChild(document.createElement('em'), one.firstChild);
        seen.push(names(kids));
        one.textContent = 'text';
        seen.push(names(kids), kids.length, kids[0].nodeType);
        out.textContent = seen.join(' ');
        </script>";
    assert_first_line(page, "I.B U I.B U.S B U.S.I EM #text 1 3").await
}

/// Reading every element's `childNodes` (as a script that walks the tree
/// does) keeps none of the lists once the script lets them go: each one the
/// page registers is finalized. A list the page holds is still the one
/// `childNodes` returns after the walk, and still live; `el.children` is one
/// object while held. The walk reads thousands of lists, so the engine drops
/// the weak references of the dead ones several times during it; the held
/// ones survive that.
#[tokio::test(flavor = "multi_thread")]
async fn a_walk_of_the_tree_keeps_no_child_list_but_a_held_list_stays_the_same_object()
-> anyhow::Result<()> {
    let page = "<!doctype html><title>w</title><p id=out>not run</p><div id=box></div><script>
        const box = document.getElementById('box');
        for (let i = 0; i < 2000; i++) box.appendChild(document.createElement('div')).appendChild(document.createElement('span'));
        const first = box.firstChild, held = first.childNodes, kids = box.children;
        let finalized = 0;
        const registry = new FinalizationRegistry(() => { finalized++; });
        let walked = 0;
        const walk = (node) => { const list = node.childNodes; node.children.length; if (node !== first) registry.register(list, 0); for (let i = 0; i < list.length; i++) { walked++; walk(list[i]); } };
        walk(box);
        first.appendChild(document.createElement('b'));
        const same = held === first.childNodes && kids === box.children && first.childNodes === first.childNodes;
        setTimeout(() => { out.textContent = 'walked ' + walked + ' same ' + same + ' live ' + held.length + ' finalized ' + (finalized > 1500); }, 0);
        </script>";
    assert_first_line(page, "walked 4000 same true live 2 finalized true").await
}

/// `forEach` on a live child list runs as Array.prototype.forEach does on it
/// (its fast path skips the proxy's traps, not the semantics): the length is
/// read once, each index is read as the tree is at that step and skipped once
/// gone, the callback gets (node, index, list) and `thisArg`. A callback that
/// is not a function throws a TypeError, Array.prototype.forEach called on the
/// list still works, and a page's own NodeList.prototype.forEach is the one
/// that runs.
#[tokio::test(flavor = "multi_thread")]
async fn for_each_over_a_live_child_list_sees_the_tree_as_each_step_finds_it() -> anyhow::Result<()>
{
    let page = "<!doctype html><title>f</title><p id=out>not run</p><div id=box><i></i><b></b><u></u></div><div id=two><p></p><q></q></div><script>
        const box = document.getElementById('box'), two = document.getElementById('two');
        const seen = [];
        box.childNodes.forEach(function (n, i, list) {
          seen.push(n.nodeName + i + (list === box.childNodes) + this.tag);
          if (i === 0) box.appendChild(document.createElement('s'));
          if (i === 1) box.removeChild(box.firstChild);
        }, { tag: 'T' });
        two.childNodes.forEach((n, i) => { seen.push(n.nodeName + i); if (i === 0) { two.removeChild(two.lastChild); two.removeChild(two.lastChild); } });
        try { box.childNodes.forEach(null); seen.push('no throw'); } catch (e) { seen.push(e instanceof TypeError); }
        Array.prototype.forEach.call(box.childNodes, (n) => seen.push(n.nodeName));
        const kept = NodeList.prototype.forEach;
        NodeList.prototype.forEach = function () { seen.push('own'); };
        box.childNodes.forEach(() => seen.push('array'));
        NodeList.prototype.forEach = kept;
        out.textContent = seen.join(' ');
        </script>";
    assert_first_line(page, "I0trueT B1trueT S2trueT P0 true B U S own").await
}

/// A selector the page asks again (the session keeps parsed selectors) is
/// matched against the tree as it is now, a bad one throws a SyntaxError every
/// time, and after more distinct selectors than are kept the first still
/// answers right; `classList.contains` answers for whole tokens only.
#[tokio::test(flavor = "multi_thread")]
async fn selectors_asked_again_match_the_tree_as_it_is_now() -> anyhow::Result<()> {
    let page = "<!doctype html><title>s</title><p id=out>not run</p><div id=box class='ab x\ty'><i></i><b></b></div><script>
        const box = document.getElementById('box'), i = box.firstChild;
        const seen = [];
        for (let k = 0; k < 2; k++) {
          seen.push(document.querySelectorAll('div > i, b').length, box.matches('div#box'), i.matches('b'), i.closest('div') === box, document.querySelector('u') === null);
          box.appendChild(document.createElement('b')).appendChild(document.createElement('u'));
          try { document.querySelector('div >'); seen.push('no throw'); } catch (e) { seen.push(e.name); }
        }
        for (let n = 0; n < 100; n++) document.querySelectorAll('i, .c' + n);
        seen.push(document.querySelectorAll('div > i, b').length);
        const c = box.classList;
        seen.push([c.contains('a'), c.contains('ab'), c.contains('y'), c.contains(''), c.contains('x y')].join());
        out.textContent = seen.join(' ');
        </script>";
    assert_first_line(page, "2 true false true true SyntaxError 3 true false true false SyntaxError 4 false,true,true,false,false").await
}

/// A text or comment node's child list is empty, a NodeList, the same object
/// at each read and frozen (it is shared, so a page cannot push into it), and
/// such a node refuses a child with a HierarchyRequestError, as in Chromium,
/// leaving the tree as it was. Each kind of node answers its type and name
/// (the common kinds without asking the engine), and `nodeType` and
/// `childNodes` are still Node.prototype's own, as pages that look a member up
/// on its interface expect. The same page in Chromium prints the same line.
#[tokio::test(flavor = "multi_thread")]
async fn text_and_comment_nodes_have_no_children_and_refuse_one() -> anyhow::Result<()> {
    let page = "<!doctype html><title>t</title><p id=out>not run</p><div id=box>hi<!--c--></div><script>
        const box = document.getElementById('box'), t = box.firstChild, c = box.lastChild;
        const seen = [t.childNodes.length, t.childNodes === t.childNodes, t.childNodes instanceof NodeList, t.hasChildNodes(), c.childNodes.length];
        for (const parent of [t, c, document.createTextNode('x')]) {
          try { parent.appendChild(document.createElement('b')); seen.push('no throw'); } catch (e) { seen.push(e.name); }
        }
        try { t.childNodes.push(box); seen.push('pushed'); } catch (e) { seen.push(e instanceof TypeError); }
        seen.push(t.childNodes.length, box.childNodes.length, document.getElementsByTagName('b').length, t.data);
        for (const n of [t, c, document, box, document.createElementNS('http://www.w3.org/2000/svg', 'svg'), document.createDocumentFragment()]) seen.push(n.nodeType + n.nodeName);
        for (const key of ['nodeType', 'childNodes']) seen.push([Node, Element, CharacterData, Text, Document].map((I) => Object.prototype.hasOwnProperty.call(I.prototype, key) ? 1 : 0).join(''));
        out.textContent = seen.join(' ');
        </script>";
    assert_first_line(
        page,
        "0 true true false 0 HierarchyRequestError HierarchyRequestError HierarchyRequestError true 0 2 0 hi \
         3#text 8#comment 9#document 1DIV 1svg 11#document-fragment 10000 10000",
    )
    .await
}

/// Only a canonical array index ("0", "17") reads a live list's item: "01",
/// "1e0", "1 ", " 1", "1.0", "+1", "-1", past the end and past the largest
/// index read nothing. An element's `style` reads its declarations by index
/// and by name, and what `getComputedStyle` returns (all of them sharing one
/// handler) reads resolved values and refuses a write. The same page in
/// Chromium prints the same line.
#[tokio::test(flavor = "multi_thread")]
async fn lists_read_only_canonical_indices_and_style_declarations_read_by_name()
-> anyhow::Result<()> {
    let page = "<!doctype html><title>t</title><p id=out>not run</p><div id=box style='color: red; margin-left: 2px'><i></i><b></b><u></u></div><script>
        const box = document.getElementById('box'), kids = box.childNodes;
        const seen = [kids[0].nodeName, kids['1'].nodeName, kids[2].nodeName];
        for (const key of ['01', '1e0', '1 ', ' 1', '1.0', '+1', '-1', '3', '4294967295', '99999999999']) seen.push(String(kids[key]));
        const style = box.style, computed = getComputedStyle(box);
        seen.push(style[0], style['1'], style.marginLeft, computed.display, computed.marginLeft, computed.getPropertyValue('color'), computed.cssFloat);
        try { computed.color = 'blue'; seen.push('set'); } catch (e) { seen.push(e.name); }
        seen.push(getComputedStyle(document.createElement('div')).display === '');
        out.textContent = seen.join(' ');
        </script>";
    let nothing = ["undefined"; 10].join(" ");
    assert_first_line(
        page,
        &format!(
            "I B U {nothing} color margin-left 2px block 2px rgb(255, 0, 0) none NoModificationAllowedError true"
        ),
    )
    .await
}
