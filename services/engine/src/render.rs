//! Painting a laid-out document to a PNG: `blitz-paint` → `vello_cpu` → `png`.
//!
//! What is painted is recorded first, so a page that paints what it painted for
//! the last screenshot gets that PNG again ([`reuse`]).
//!
//! `VelloCpuImageRenderer` without the `multithreading` feature rasterizes on the
//! calling thread, which is all a wasm guest has. Text goes through the glyph
//! cache in [`glyphs`].

mod glyphs;
mod reuse;

use anyrender::{ImageRenderer as _, Scene};
use anyrender_vello_cpu::VelloCpuImageRenderer;
use blitz_dom::{BaseDocument, NodeId};

/// Paint the viewport of `doc` (already styled and laid out) at device pixel
/// ratio 1 and encode it as an RGB PNG of exactly `width`×`height` pixels; the
/// last screenshot's PNG when the page paints the same ([`reuse`]).
pub(crate) fn screenshot(
    doc: &mut BaseDocument,
    width: u32,
    height: u32,
) -> Result<Vec<u8>, String> {
    let mut scene = Scene::new();
    let masked = mask_passwords(doc);
    blitz_paint::paint_scene(&mut scene, doc, 1.0, width, height, 0, 0);
    unmask(doc, masked);
    if let Some(png) = reuse::unchanged(width, height, &scene) {
        return Ok(png);
    }
    let mut renderer = VelloCpuImageRenderer::new(width, height);
    let mut rgba = Vec::new();
    glyphs::with_cache(|cache| {
        renderer.render_to_vec(
            |painter| reuse::replay(&mut glyphs::GlyphPainter::new(painter, cache), &scene),
            &mut rgba,
        );
    });
    let expected = width as usize * height as usize * 4;
    if rgba.len() != expected {
        return Err(format!(
            "renderer produced {} bytes for a {width}x{height} viewport",
            rgba.len()
        ));
    }
    let png = encode_png(&over_white(&rgba), width, height)?;
    reuse::keep(width, height, scene, &png);
    Ok(png)
}

/// A password field whose editor shows bullets for one paint.
struct Masked {
    id: NodeId,
    text: String,
    /// The selection's anchor and focus, as byte offsets into `text`.
    selection: (usize, usize),
}

/// Blitz paints a text field's editor as it is, so a password would be drawn
/// in clear: for the paint, each non-empty password field's editor holds one
/// bullet per character instead, as browsers draw it.
fn mask_passwords(doc: &mut BaseDocument) -> Vec<Masked> {
    let Ok(fields) = doc.query_selector_all("input[type=password i]") else {
        return Vec::new();
    };
    let mut masked = Vec::new();
    for id in fields {
        doc.with_text_input(id, |mut driver| {
            let text = driver.editor.text().to_string();
            if text.is_empty() {
                return;
            }
            let selection = driver.editor.raw_selection();
            let selection = (selection.anchor().index(), selection.focus().index());
            driver
                .editor
                .set_text(&"\u{2022}".repeat(text.chars().count()));
            driver.refresh_layout();
            masked.push(Masked {
                id,
                text,
                selection,
            });
        });
    }
    masked
}

/// Puts the fields' text and selection back after the paint.
fn unmask(doc: &mut BaseDocument, masked: Vec<Masked>) {
    for field in masked {
        doc.with_text_input(field.id, |mut driver| {
            driver.editor.set_text(&field.text);
            driver.refresh_layout();
            driver.select_byte_range(field.selection.0, field.selection.1);
        });
    }
}

/// Composite premultiplied RGBA (what vello_cpu produces) over an opaque white
/// canvas, as RGB: pages without a background are white in every browser, a PNG
/// with transparent gaps would read as black in many viewers, and an opaque
/// image needs no alpha channel (a quarter less to filter and compress). Four
/// pixels at a time go through [`composite4`]; what is left over, pixel by pixel.
fn over_white(rgba: &[u8]) -> Vec<u8> {
    // Written into a buffer of its final size: pushing three bytes per pixel
    // checked the capacity each time and made this loop a quarter of a
    // screenshot (`perf`, a 1280×720 page). Neither LLVM nor Cranelift
    // vectorizes a stride of three by itself, so even copying runs of opaque
    // pixels as words left it 27 % of a repeated screenshot's engine time.
    let mut rgb = vec![0; rgba.len() / 4 * 3];
    let groups = rgba.chunks_exact(16);
    let rest = groups.remainder();
    let mut out = rgb.chunks_exact_mut(12);
    for (dst, src) in (&mut out).zip(groups) {
        composite4(dst, src);
    }
    composite(out.into_remainder(), rest);
    rgb
}

/// Four pixels (16 bytes of `rgba`) over white into 12 bytes of `rgb`, with
/// wasm SIMD: every channel plus its pixel's uncovered share (255 − alpha),
/// saturating, as [`composite`] does one pixel at a time, then the alpha bytes
/// dropped, all without a branch.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn composite4(rgb: &mut [u8], rgba: &[u8]) {
    use core::arch::wasm32::{
        i8x16_swizzle, u8x16, u8x16_add_sat, u8x16_splat, u8x16_sub, u32x4, u32x4_extract_lane,
    };
    let word = |i: usize| u32::from_le_bytes([rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]);
    let pixels = u32x4(word(0), word(4), word(8), word(12));
    // Each pixel's alpha in all four of its bytes.
    let alpha = i8x16_swizzle(
        pixels,
        u8x16(3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15),
    );
    let over = u8x16_add_sat(pixels, u8x16_sub(u8x16_splat(255), alpha));
    // The red, green and blue bytes of the four pixels in the low twelve
    // (a lane index of 16 or more reads as zero).
    let packed = i8x16_swizzle(
        over,
        u8x16(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 255, 255, 255, 255),
    );
    rgb[0..4].copy_from_slice(&u32x4_extract_lane::<0>(packed).to_le_bytes());
    rgb[4..8].copy_from_slice(&u32x4_extract_lane::<1>(packed).to_le_bytes());
    rgb[8..12].copy_from_slice(&u32x4_extract_lane::<2>(packed).to_le_bytes());
}

/// [`composite4`] without wasm SIMD: pixel by pixel.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn composite4(rgb: &mut [u8], rgba: &[u8]) {
    composite(rgb, rgba);
}

/// [`over_white`] one pixel at a time.
fn composite(rgb: &mut [u8], rgba: &[u8]) {
    for (out, pixel) in rgb.chunks_exact_mut(3).zip(rgba.chunks_exact(4)) {
        let uncovered = 255 - pixel[3];
        out[0] = pixel[0].saturating_add(uncovered);
        out[1] = pixel[1].saturating_add(uncovered);
        out[2] = pixel[2].saturating_add(uncovered);
    }
}

fn encode_png(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    // Screenshots are produced often and are mostly flat colour. A profile of
    // the screenshot action put a third of its time in the adaptive row filter,
    // so one fixed filter with the fastest deflate. `Paeth` costs what `Up`
    // did (within noise, in the engine) and makes the PNG 2–32 % smaller on
    // the corpus and real pages (249 → 169 KB on the bench's landing page),
    // which every answer carries through gRPC and MCP's base64.
    encoder.set_compression(png::Compression::Fastest);
    encoder.set_filter(png::Filter::Paeth);
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

#[cfg(test)]
mod tests {
    use super::{composite, over_white};

    #[test]
    fn every_pixel_is_composited_over_white() {
        // Premultiplied pixels: no channel above its alpha.
        let rgba: Vec<u8> = [
            [0, 0, 0, 0],         // transparent: white
            [0, 0, 0, 255],       // opaque black
            [10, 20, 30, 255],    // opaque colour, kept
            [100, 50, 0, 128],    // half covered
            [255, 255, 255, 255], // opaque white
            [0, 64, 128, 128],    // half covered
            [1, 2, 3, 3],         // nearly transparent
        ]
        .concat();
        let expected: Vec<u8> = [
            [255, 255, 255],
            [0, 0, 0],
            [10, 20, 30],
            [227, 177, 127],
            [255, 255, 255],
            [127, 191, 255],
            [253, 254, 255],
        ]
        .concat();
        assert_eq!(over_white(&rgba), expected);
    }

    #[test]
    fn opaque_and_transparent_groups_come_out_as_the_pixel_by_pixel_path_makes_them() {
        // Premultiplied pixels from a fixed sequence: mostly opaque, some
        // transparent or translucent, and lengths that leave a remainder of
        // every size.
        let mut seed = 0x2545_f491_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for pixels in [0, 1, 3, 4, 5, 8, 15, 16, 17, 1280] {
            let rgba: Vec<u8> = (0..pixels)
                .flat_map(|i| {
                    let r = next();
                    // Every third group of four is uncovered but for the odd
                    // pixel; the others mostly opaque.
                    let alpha = match (i / 4 % 3, r % 7) {
                        (_, 0) => (r >> 24) as u8,
                        (1, _) => 0,
                        _ => 255,
                    };
                    let channel = |shift: u32| ((r >> shift) as u8).min(alpha);
                    [channel(0), channel(8), channel(16), alpha]
                })
                .collect();
            let mut expected = vec![0; pixels * 3];
            composite(&mut expected, &rgba);
            assert_eq!(over_white(&rgba), expected, "{pixels} pixels");
        }
        let opaque = [
            [1, 2, 3, 255],
            [4, 5, 6, 255],
            [7, 8, 9, 255],
            [10, 11, 12, 255],
        ]
        .concat();
        assert_eq!(over_white(&opaque), (1..=12).collect::<Vec<u8>>());
        assert_eq!(
            over_white(&[0; 16]),
            [255; 12],
            "a transparent group is white"
        );
    }
}
