//! Painting a laid-out document to a PNG: `blitz-paint` → `vello_cpu` → `png`.
//!
//! `VelloCpuImageRenderer` without the `multithreading` feature rasterizes on the
//! calling thread, which is all a wasm guest has.

use anyrender::ImageRenderer as _;
use anyrender_vello_cpu::VelloCpuImageRenderer;
use blitz_dom::BaseDocument;

/// Paint the viewport of `doc` (already styled and laid out) at device pixel
/// ratio 1 and encode it as an RGB PNG of exactly `width`×`height` pixels.
pub(crate) fn screenshot(
    doc: &mut BaseDocument,
    width: u32,
    height: u32,
) -> Result<Vec<u8>, String> {
    let mut renderer = VelloCpuImageRenderer::new(width, height);
    let mut rgba = Vec::new();
    renderer.render_to_vec(
        |scene| blitz_paint::paint_scene(scene, doc, 1.0, width, height, 0, 0),
        &mut rgba,
    );
    let expected = width as usize * height as usize * 4;
    if rgba.len() != expected {
        return Err(format!(
            "renderer produced {} bytes for a {width}x{height} viewport",
            rgba.len()
        ));
    }
    encode_png(&over_white(&rgba), width, height)
}

/// Composite premultiplied RGBA (what vello_cpu produces) over an opaque white
/// canvas, as RGB: pages without a background are white in every browser, a PNG
/// with transparent gaps would read as black in many viewers, and an opaque
/// image needs no alpha channel (a quarter less to filter and compress).
fn over_white(rgba: &[u8]) -> Vec<u8> {
    let mut rgb = Vec::with_capacity(rgba.len() / 4 * 3);
    for pixel in rgba.chunks_exact(4) {
        let uncovered = 255 - pixel[3];
        rgb.extend([
            pixel[0].saturating_add(uncovered),
            pixel[1].saturating_add(uncovered),
            pixel[2].saturating_add(uncovered),
        ]);
    }
    rgb
}

fn encode_png(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    // Screenshots are produced often and are mostly flat colour. A profile of
    // the screenshot action put a third of its time in the adaptive row filter;
    // the fixed `Up` filter with the fastest deflate costs a fraction of that
    // and still compresses flat pages well.
    encoder.set_compression(png::Compression::Fastest);
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    writer
        .write_image_data(rgb)
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    writer
        .finish()
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    Ok(out)
}
