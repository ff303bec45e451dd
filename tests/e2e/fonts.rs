//! Registered fonts: a page can use a font registered by the agent, the font
//! survives a restore on another worker, and bad or excess fonts are refused
//! with a clear error.

use base64::Engine as _;
use serde_json::{Value, json};

use crate::harness::{Fleet, call, first};

/// Liberation Mono renamed to a family no bundled font has ("Registered Mono",
/// the same length, so the name table keeps its offsets).
fn renamed_font() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/services/engine/fonts/LiberationMono-Regular.ttf"
    );
    let mut font = std::fs::read(path).unwrap();
    let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_be_bytes).collect() };
    for (from, to) in [
        (b"Liberation Mono".to_vec(), b"Registered Mono".to_vec()),
        (utf16("Liberation Mono"), utf16("Registered Mono")),
    ] {
        let mut i = 0;
        while let Some(at) = font[i..].windows(from.len()).position(|w| w == from) {
            font[i + at..i + at + to.len()].copy_from_slice(&to);
            i += at + to.len();
        }
    }
    font
}

const PAGE: &str = "<title>fonts</title>\
    <span id=a style=\"font-family:'Registered Mono'\">iiiiiiiiiiiiiiii</span><br>\
    <span id=m style=\"font-family:'Liberation Mono'\">iiiiiiiiiiiiiiii</span>";

/// Width of the span in the registered family and of the same text in the
/// bundled Liberation Mono, which the registered font is a renamed copy of.
async fn widths(client: &crate::harness::Client, id: &str) -> (f64, f64) {
    let (out, _) = call(
        client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": id, "script":
            "['a', 'm'].map((i) => document.getElementById(i).getBoundingClientRect().width)"}]}),
    )
    .await;
    let v = &first(&out)["response"]["value"];
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

async fn register(client: &crate::harness::Client, id: &str, font: &[u8]) -> Value {
    let data = base64::engine::general_purpose::STANDARD.encode(font);
    let (out, _) = call(
        client,
        "servo_register_font",
        json!({"actions": [{"sessionID": id, "fontBase64": data}]}),
    )
    .await;
    first(&out).clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_registered_font_is_used_and_survives_a_restore() {
    // covers: render.fonts
    let fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": PAGE}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let (before, mono) = widths(&client, &id).await;
    assert!(
        (before - mono).abs() > 1.0,
        "the unknown family already laid out as monospace ({before} vs {mono})"
    );

    let font = renamed_font();
    let r = register(&client, &id, &font).await;
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(
        r["response"]["families"],
        json!(["Registered Mono"]),
        "{r:#}"
    );
    assert_eq!(r["response"]["fontCount"], 1);
    assert_eq!(r["response"]["fontId"], "font:000001", "{r:#}");
    assert_eq!(
        r["response"]["faces"],
        json!([{"family": "Registered Mono"}]),
        "{r:#}"
    );
    call(
        &client,
        "servo_navigate",
        json!({"actions": [{"sessionID": id, "html": PAGE}]}),
    )
    .await;
    let (after, mono) = widths(&client, &id).await;
    assert!(
        (after - mono).abs() < 0.5,
        "the registered font was not used ({after} vs {mono})"
    );

    let (owner, _) = fleet.route(&id).await;
    fleet.forget_route(&id).await;
    let (restored, mono) = widths(&client, &id).await;
    assert!(
        (restored - mono).abs() < 0.5,
        "the font did not survive the restore ({restored} vs {mono})"
    );
    let (now, _) = fleet.route(&id).await;
    assert!(!now.is_empty(), "no owner after the restore (was {owner})");
    // The count carries over too: the restored tab still has the first font.
    let r = register(&client, &id, &font).await;
    assert_eq!(r["response"]["fontCount"], 2, "{r:#}");
    assert_eq!(r["response"]["fontId"], "font:000002", "{r:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bad_fonts_and_too_many_fonts_are_refused_clearly() {
    let fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": "<title>f</title>"}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();

    let r = register(&client, &id, b"definitely not a font").await;
    assert_eq!(r["code"], "INVALID_ARGUMENT", "{r:#}");
    assert!(
        r["error"].as_str().unwrap().contains("font was refused"),
        "{r:#}"
    );

    // Over the limit, the gateway refuses the whole call before any worker sees it.
    let big = base64::engine::general_purpose::STANDARD.encode(vec![0u8; 2 * 1024 * 1024 + 1]);
    let (out, raw) = call(
        &client,
        "servo_register_font",
        json!({"actions": [{"sessionID": id, "fontBase64": big}]}),
    )
    .await;
    assert_eq!(raw.is_error, Some(true), "{out:#}");
    assert!(out["error"].as_str().unwrap().contains("2 MiB"), "{out:#}");

    let (out, _) = call(
        &client,
        "servo_register_font",
        json!({"actions": [{"sessionID": id, "fontBase64": "***"}]}),
    )
    .await;
    assert!(
        out["error"].as_str().unwrap_or_default().contains("base64"),
        "{out:#}"
    );

    let font = renamed_font();
    for n in 1..=16 {
        let r = register(&client, &id, &font).await;
        assert_eq!(r["response"]["fontCount"], n, "{r:#}");
    }
    let r = register(&client, &id, &font).await;
    assert_eq!(r["code"], "INVALID_ARGUMENT", "{r:#}");
    assert!(r["error"].as_str().unwrap().contains("16"), "{r:#}");
}
