//! Screenshots against Chromium's: every corpus page is loaded in the engine
//! (through the fleet) and in headless Chromium at 1280×720, both read by the
//! extraction script (so each has waited for the page's values), and the two
//! screenshots are compared block by block ([`fleet_bench::pixels`]: the mean
//! colour of 16×16 blocks, 24 levels of tolerance). Every page must have the same size, at most
//! [`MAX_DIFFERING_BLOCKS`] of its blocks differing and at most
//! [`MAX_SHARE_OF_PAINTED`] of what Chromium paints, except the pages on
//! [`KNOWN`], whose differences are written there.

use std::path::Path;

use base64::Engine as _;
use fleet_bench::chromium::{Chromium, LaunchOptions};
use fleet_bench::fidelity::{self, Corpus, VIEWPORT};
use fleet_bench::pixels::{decode_png, differing_blocks};
use image::RgbImage;
use serde_json::json;

use crate::harness::{Client, Fleet, call, first};

/// The share of blocks that may differ on any page.
const MAX_DIFFERING_BLOCKS: f64 = 0.10;
/// Pages known to differ by more, and why; the test fails if one of them
/// stops differing, so this list only shrinks.
const KNOWN: &[(&str, &str)] = &[
    (
        "events.html",
        "form controls: Blitz draws text fields, buttons and check boxes with the page's 16px font and its own sizes (a 300px field, 20px boxes); Chromium with 13.333px controls",
    ),
    (
        "forms.html",
        "form controls as on events.html, and: a number field is drawn as a flat box, a disabled field not greyed, the legend inside its fieldset instead of on the border",
    ),
];
/// And the most that may differ relative to what Chromium paints at all
/// (blocks unlike a blank page), so a page that paints little cannot pass by
/// painting nothing.
const MAX_SHARE_OF_PAINTED: f64 = 0.5;

fn decode(png: &[u8]) -> RgbImage {
    decode_png(png).unwrap()
}

async fn engine_screenshot(client: &Client, url: &str, script: &str) -> Vec<u8> {
    let (out, _) = call(
        client,
        "servo_navigate",
        json!({"actions": [{"url": url, "width": VIEWPORT.0, "height": VIEWPORT.1, "maxDurationMs": 15000}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let (out, _) = call(
        client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script": script, "maxDurationMs": 15000}]}),
    )
    .await;
    assert_eq!(first(&out)["ok"], true, "{url}: {out:#}");
    let png = png_of(client, &id, false).await;
    call(
        client,
        "servo_session_close",
        json!({"actions": [{"sessionID": id}]}),
    )
    .await;
    png
}

async fn chromium_screenshot(chromium: &Chromium, url: &str, script: &str) -> Vec<u8> {
    let context = chromium.new_context().await.unwrap();
    let page = context.new_page().await.unwrap();
    page.set_viewport(VIEWPORT.0, VIEWPORT.1).await.unwrap();
    page.navigate(url).await.unwrap();
    page.evaluate(script).await.unwrap();
    let png = page.screenshot_png().await.unwrap();
    context.close().await.unwrap();
    png
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn corpus_page_screenshots_match_chromiums_block_by_block() {
    // covers: render.screenshot
    let corpus = Corpus::open(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")).unwrap();
    let pages = corpus.pages().unwrap();
    let script = corpus.extraction_script().unwrap();
    let server = fidelity::serve(corpus.pages_dir()).await.unwrap();
    let chromium = Chromium::launch(LaunchOptions {
        // The engine draws no scrollbars: neither may Chromium take their width.
        extra_args: vec!["--hide-scrollbars".into()],
        ..LaunchOptions::default()
    })
    .await
    .expect("headless Chromium (scripts/chromium.sh installs it)");
    let fleet = Fleet::start(1).await;
    let client = fleet.client("screenshots").await;
    let mut report = Vec::new();
    let mut failing = Vec::new();
    for page in &pages {
        let url = server.url(page);
        let (ours_png, theirs_png) = (
            engine_screenshot(&client, &url, &script).await,
            chromium_screenshot(&chromium, &url, &script).await,
        );
        // To look at the two side by side: FLEET_TEST_SCREENSHOT_DIR=/some/dir.
        if let Some(dir) = std::env::var_os("FLEET_TEST_SCREENSHOT_DIR") {
            let dir = Path::new(&dir);
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join(format!("{page}.engine.png")), &ours_png).unwrap();
            std::fs::write(dir.join(format!("{page}.chromium.png")), &theirs_png).unwrap();
        }
        let (ours, theirs) = (decode(&ours_png), decode(&theirs_png));
        assert_eq!(ours.dimensions(), theirs.dimensions(), "{page}");
        assert_eq!(ours.dimensions(), VIEWPORT, "{page}");
        let share = differing_blocks(&ours, &theirs);
        // How far a blank page would be: what the page paints at all.
        let blank = RgbImage::from_pixel(VIEWPORT.0, VIEWPORT.1, image::Rgb([255, 255, 255]));
        let painted = differing_blocks(&blank, &theirs);
        report.push(format!(
            "{page:<20} {:>5.1}% {:>6.1}%",
            share * 100.0,
            painted * 100.0
        ));
        let differs = share > MAX_DIFFERING_BLOCKS || share > painted * MAX_SHARE_OF_PAINTED;
        match (differs, KNOWN.iter().find(|(p, _)| p == page)) {
            (true, None) => failing.push(format!("{page} differs")),
            (false, Some(_)) => failing.push(format!("{page} matches now: take it off KNOWN")),
            // A known difference must still be a rendering, not a blank page.
            (true, Some(_)) if share >= painted => failing.push(format!("{page} is blank")),
            _ => {}
        }
    }
    println!(
        "blocks differing from Chromium's screenshot, and Chromium's from a blank page:\n{}",
        report.join("\n")
    );
    assert!(
        failing.is_empty(),
        "{} (at most {}% of the blocks, and at most {}% of those Chromium paints, may differ)\n{}",
        failing.join("; "),
        MAX_DIFFERING_BLOCKS * 100.0,
        MAX_SHARE_OF_PAINTED * 100.0,
        report.join("\n")
    );
}

#[test]
fn a_block_differs_only_when_its_mean_colour_does() {
    let white = RgbImage::from_pixel(64, 32, image::Rgb([255, 255, 255]));
    assert_eq!(differing_blocks(&white, &white), 0.0);
    // A one-pixel line (anti-aliasing-sized) moves no block's mean enough.
    let mut line = white.clone();
    for x in 0..64 {
        line.put_pixel(x, 5, image::Rgb([0, 0, 0]));
    }
    assert_eq!(differing_blocks(&white, &line), 0.0);
    // A filled block does: one of the eight.
    let mut block = white.clone();
    for y in 16..32 {
        for x in 0..16 {
            block.put_pixel(x, y, image::Rgb([200, 0, 0]));
        }
    }
    assert_eq!(differing_blocks(&white, &block), 1.0 / 8.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_password_is_painted_as_bullets_and_keeps_its_value_and_caret() {
    // covers: render.screenshot
    let fleet = Fleet::start(1).await;
    let client = fleet.client("screenshots").await;
    // The same field twice: a password, and a text field showing what the
    // password must look like.
    let style = "position:absolute;left:0;width:200px;height:24px;border:0;padding:0;margin:0;font:16px sans-serif";
    let html = format!(
        "<title>password</title><style>body{{margin:0}}</style>\
         <input id=p type=password value=hunter2 style='{style};top:0'>\
         <input id=t value='\u{2022}\u{2022}\u{2022}\u{2022}\u{2022}\u{2022}\u{2022}' style='{style};top:40px'>"
    );
    let id = open_400_by_240(&client, &html).await;
    let shot = decode(&png_of(&client, &id, false).await);
    let row = |top: u32| -> Vec<[u8; 3]> {
        (top..top + 24)
            .flat_map(|y| (0..200).map(move |x| (x, y)))
            .map(|(x, y)| shot.get_pixel(x, y).0)
            .collect()
    };
    let (password, bullets) = (row(0), row(40));
    assert!(
        password.iter().any(|p| p[0] < 128),
        "the password field painted nothing"
    );
    assert!(
        password == bullets,
        "the password is not painted as bullets"
    );
    // The field keeps its value and its caret after the paint: typing lands
    // where it does in the field that was painted as it is.
    for field in ["#p", "#t"] {
        let r = crate::harness::act(
            &client,
            "servo_type_text",
            &id,
            json!({"selector": field, "text": "!"}),
        )
        .await;
        assert_eq!(r["ok"], true, "{r:#}");
    }
    let values = crate::harness::eval(&client, &id, "[p.value, t.value]").await;
    let (p, t) = (values[0].as_str().unwrap(), values[1].as_str().unwrap());
    assert_eq!(
        p.replace("hunter2", "\u{2022}".repeat(7).as_str()),
        t,
        "{values}"
    );
}

/// A new session showing `html` in a 400×240 viewport; its ID.
async fn open_400_by_240(client: &Client, html: &str) -> String {
    let (out, _) = call(
        client,
        "servo_navigate",
        json!({"actions": [{"html": html, "width": 400, "height": 240}]}),
    )
    .await;
    first(&out)["sessionID"]
        .as_str()
        .unwrap_or_else(|| panic!("{out:#}"))
        .to_owned()
}

/// The PNG of one screenshot of session `id` (the whole document with
/// `full_page`).
async fn png_of(client: &Client, id: &str, full_page: bool) -> Vec<u8> {
    let (out, raw) = call(
        client,
        "servo_screenshot",
        json!({"actions": [{"sessionID": id, "fullPage": full_page}]}),
    )
    .await;
    assert_eq!(first(&out)["ok"], true, "{out:#}");
    let data = raw
        .content
        .iter()
        .find_map(|c| c.as_image().map(|i| i.data.clone()))
        .unwrap();
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_screenshot_shows_the_page_as_it_is_now_when_it_repeats_or_after_a_change() {
    // covers: render.screenshot
    // A worker answers a screenshot of a page that paints what it painted for
    // the last one with that PNG: each change in between must still show,
    // and going back must show the page as it was.
    let fleet = Fleet::start(1).await;
    let client = fleet.client("screenshots").await;
    let html = "<title>changes</title><style>body{margin:0;font:16px sans-serif}\
                #box{width:100px;height:100px;background:rgb(255,0,0)}\
                #tall{height:2000px}</style>\
                <div id=box></div><p id=words>Some words</p><div id=tall></div>";
    let id = open_400_by_240(&client, html).await;
    let pixel = |png: &[u8], x: u32, y: u32| decode(png).get_pixel(x, y).0;
    let red = png_of(&client, &id, false).await;
    assert_eq!(pixel(&red, 50, 50), [255, 0, 0]);
    assert_eq!(
        png_of(&client, &id, false).await,
        red,
        "a screenshot of the unchanged page differs from the last"
    );

    crate::harness::eval(&client, &id, "box.style.background = 'rgb(0,0,255)'").await;
    let blue = png_of(&client, &id, false).await;
    assert_eq!(pixel(&blue, 50, 50), [0, 0, 255], "the box's new colour");

    crate::harness::eval(&client, &id, "words.textContent = 'Other words, longer'").await;
    let words = png_of(&client, &id, false).await;
    assert_eq!(pixel(&words, 50, 50), [0, 0, 255]);
    assert_ne!(
        decode(&words),
        decode(&blue),
        "the paragraph's new text did not show"
    );

    crate::harness::eval(&client, &id, "window.scrollTo(0, 60)").await;
    let scrolled = png_of(&client, &id, false).await;
    assert_eq!(
        pixel(&scrolled, 50, 20),
        [0, 0, 255],
        "the box 60 px higher"
    );
    assert_eq!(pixel(&scrolled, 50, 50), [255, 255, 255]);

    // A full-page screenshot in between is another size; the viewport's
    // next screenshot is the viewport again, as it was.
    let full = decode(&png_of(&client, &id, true).await);
    assert_eq!(full.dimensions().0, 400);
    assert!(full.dimensions().1 > 2000, "{:?}", full.dimensions());
    assert_eq!(
        decode(&png_of(&client, &id, false).await),
        decode(&scrolled)
    );

    crate::harness::eval(
        &client,
        &id,
        "window.scrollTo(0, 0); box.style.background = 'rgb(255,0,0)'; words.textContent = 'Some words'",
    )
    .await;
    assert_eq!(
        decode(&png_of(&client, &id, false).await),
        decode(&red),
        "back as it was, the page paints as it first did"
    );
}
