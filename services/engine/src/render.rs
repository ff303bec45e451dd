//! Painting a laid-out document to a PNG: `blitz-paint` → `vello_cpu` → `png`.
//!
//! `VelloCpuImageRenderer` without the `multithreading` feature rasterizes on the
//! calling thread, which is all a wasm guest has.

use anyrender::ImageRenderer as _;
use anyrender_vello_cpu::VelloCpuImageRenderer;
use blitz_dom::BaseDocument;

/// Paint the viewport of `doc` (already styled and laid out) at device pixel
/// ratio 1 and encode it as an RGBA PNG of exactly `width`×`height` pixels.
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
    over_white(&mut rgba);
    encode_png(&rgba, width, height)
}

/// Composite premultiplied RGBA (what vello_cpu produces) over an opaque white
/// canvas: pages without a background are white in every browser, and a PNG
/// with transparent gaps would read as black in many viewers.
fn over_white(rgba: &mut [u8]) {
    for pixel in rgba.chunks_exact_mut(4) {
        let uncovered = 255 - pixel[3];
        for channel in &mut pixel[..3] {
            *channel = channel.saturating_add(uncovered);
        }
        pixel[3] = 255;
    }
}

fn encode_png(rgba: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    // Screenshots are produced often and mostly flat colour; the fast level
    // compresses those almost as well as the default at a fraction of the time.
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    writer
        .write_image_data(rgba)
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    writer
        .finish()
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    Ok(out)
}
