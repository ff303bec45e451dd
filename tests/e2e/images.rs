//! Images as a page gets them: PNG, JPEG, GIF, WebP, BMP, ICO and SVG files served over
//! HTTP with their content types, an inline `<svg>`, and bytes that decode as
//! nothing, all painted by the engine in the worker's wasmtime host and read back
//! from a screenshot's pixels.

use std::io::Cursor;
use std::time::Duration;

use axum::response::{Html, IntoResponse};
use axum::routing::get;
use fleet_worker::host::{Source, Viewport};
use image::{ImageFormat, Rgb, RgbImage};

use crate::engine_state::pixel;

const BUDGET: Duration = Duration::from_secs(20);

/// Where each image sits (left, top; every box is 100×100 px) and the colour it
/// must paint, by the format the file is served in.
const BOXES: &[(&str, u32, u32, [u8; 3])] = &[
    ("png", 0, 0, [220, 20, 20]),
    ("jpeg", 120, 0, [20, 160, 40]),
    ("gif", 240, 0, [30, 30, 210]),
    ("webp", 360, 0, [230, 200, 20]),
    ("svg", 0, 120, [200, 30, 200]),
    ("inline-svg", 120, 120, [20, 190, 190]),
    ("bmp", 360, 120, [140, 70, 20]),
    ("ico", 0, 240, [60, 120, 200]),
];

/// An 8×8 image of one colour, encoded as `format`.
fn solid(format: ImageFormat, rgb: [u8; 3]) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    if format == ImageFormat::Ico {
        // An icon holds 32-bit RGBA, as favicons do.
        let [r, g, b] = rgb;
        image::RgbaImage::from_pixel(16, 16, image::Rgba([r, g, b, 255]))
            .write_to(&mut out, format)
            .expect("encoding a test icon");
    } else {
        RgbImage::from_pixel(8, 8, Rgb(rgb))
            .write_to(&mut out, format)
            .expect("encoding a test image");
    }
    out.into_inner()
}

fn colour(format: &str) -> [u8; 3] {
    BOXES
        .iter()
        .find(|b| b.0 == format)
        .map(|b| b.3)
        .expect("a colour for every format")
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// The page: one absolutely placed `<img>` per served format, the inline SVG, and
/// an `<img>` whose bytes are not an image (it must paint nothing and break
/// nothing).
fn page() -> String {
    let mut body = String::new();
    for &(format, left, top, rgb) in BOXES {
        let style = format!("position:absolute;left:{left}px;top:{top}px;width:100px;height:100px");
        if format == "inline-svg" {
            body.push_str(&format!(
                r#"<svg style="{style}" viewBox="0 0 10 10"><rect width="10" height="10" fill="{}"/></svg>"#,
                hex(rgb)
            ));
        } else {
            body.push_str(&format!(
                r#"<img id="{format}" src="/img/{format}" style="{style}">"#
            ));
        }
    }
    format!(
        r#"<!doctype html><title>images</title><style>body{{margin:0;background:#fff}}</style>
<body>{body}<img src="/img/garbage" style="position:absolute;left:240px;top:120px;width:100px;height:100px">
<p style="position:absolute;top:360px">images loaded</p></body>"#
    )
}

async fn serve() -> String {
    let image = |format: &'static str| async move {
        let (bytes, content_type) = match format {
            "png" => (solid(ImageFormat::Png, colour(format)), "image/png"),
            "jpeg" => (solid(ImageFormat::Jpeg, colour(format)), "image/jpeg"),
            "gif" => (solid(ImageFormat::Gif, colour(format)), "image/gif"),
            "webp" => (solid(ImageFormat::WebP, colour(format)), "image/webp"),
            "bmp" => (solid(ImageFormat::Bmp, colour(format)), "image/bmp"),
            "ico" => (solid(ImageFormat::Ico, colour(format)), "image/x-icon"),
            "svg" => (
                format!(
                    r#"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><circle cx="4" cy="4" r="4" fill="{}"/></svg>"#,
                    hex(colour(format))
                )
                .into_bytes(),
                "image/svg+xml",
            ),
            _ => (b"GIF89a but not really an image".to_vec(), "image/png"),
        };
        ([("content-type", content_type)], bytes).into_response()
    };
    let app = axum::Router::new()
        .route("/", get(|| async { Html(page()) }))
        .route(
            "/img/{format}",
            get(move |axum::extract::Path(f): axum::extract::Path<String>| {
                let known = ["png", "jpeg", "gif", "webp", "bmp", "ico", "svg"];
                let format = known.into_iter().find(|k| *k == f).unwrap_or("garbage");
                image(format)
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 12)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn images_in_every_format_are_decoded_and_painted() -> anyhow::Result<()> {
    // covers: render.images
    let site = serve().await;
    let host = crate::harness::engine_host(2, &["127.0.0.0/8"])?;
    let mut tab = host
        .new_tab(Viewport {
            width: 500,
            height: 420,
        })
        .await?;
    let summary = tab.load(Source::Url(format!("{site}/")), BUDGET).await?;
    assert_eq!(summary.title, "images");
    assert!(summary.load_error.is_none(), "{:?}", summary.load_error);
    assert!(summary.text.contains("images loaded"), "{}", summary.text);

    let png = tab
        .screenshot(false, BUDGET)
        .await?
        .map_err(anyhow::Error::msg)?;
    let mut wrong = Vec::new();
    for &(format, left, top, want) in BOXES {
        // The centre of the box: inside the SVG circle too.
        let got = pixel(&png, left + 50, top + 50);
        if !near(got, want) {
            wrong.push(format!("{format}: painted {got:?}, expected {want:?}"));
        }
    }
    let garbage = pixel(&png, 290, 170);
    if garbage != [255, 255, 255] {
        wrong.push(format!("undecodable bytes painted {garbage:?}"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("; "));
    Ok(())
}
