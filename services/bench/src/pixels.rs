//! Screenshots compared the way two different renderers can agree: text
//! anti-aliasing and font hinting differ between the engine and Chromium, so
//! pixels are compared as the mean colour of 16×16 blocks, and a block differs
//! when a channel's mean is more than 24 levels apart. The bench's screenshot
//! row and the e2e screenshot test both judge with this.

use anyhow::Context as _;
use image::RgbImage;

/// The side of a compared block, in pixels.
pub const BLOCK: u32 = 16;
/// How far apart (0–255) a channel's block means may be and still match.
pub const CHANNEL_TOLERANCE: f64 = 24.0;

/// Decodes a PNG.
pub fn decode_png(png: &[u8]) -> anyhow::Result<RgbImage> {
    Ok(
        image::load_from_memory_with_format(png, image::ImageFormat::Png)
            .context("the screenshot is not a PNG")?
            .to_rgb8(),
    )
}

/// The share of [`BLOCK`]×[`BLOCK`] blocks whose mean colours differ, over the
/// blocks both images cover.
pub fn differing_blocks(a: &RgbImage, b: &RgbImage) -> f64 {
    let mean = |img: &RgbImage, bx: u32, by: u32| {
        let mut sum = [0u64; 3];
        for y in by * BLOCK..(by + 1) * BLOCK {
            for x in bx * BLOCK..(bx + 1) * BLOCK {
                for (s, c) in sum.iter_mut().zip(img.get_pixel(x, y).0) {
                    *s += u64::from(c);
                }
            }
        }
        sum.map(|s| s as f64 / f64::from(BLOCK * BLOCK))
    };
    let w = a.width().min(b.width()) / BLOCK;
    let h = a.height().min(b.height()) / BLOCK;
    if w == 0 || h == 0 {
        return 1.0;
    }
    let mut differing = 0;
    for by in 0..h {
        for bx in 0..w {
            let (ma, mb) = (mean(a, bx, by), mean(b, bx, by));
            if ma
                .iter()
                .zip(mb)
                .any(|(x, y)| (x - y).abs() > CHANNEL_TOLERANCE)
            {
                differing += 1;
            }
        }
    }
    f64::from(differing) / f64::from(w * h)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn one_changed_block_of_four_is_a_quarter() {
        let a = RgbImage::from_pixel(32, 32, image::Rgb([255, 255, 255]));
        let mut b = a.clone();
        for y in 0..16 {
            for x in 16..32 {
                b.put_pixel(x, y, image::Rgb([0, 0, 0]));
            }
        }
        assert_eq!(differing_blocks(&a, &b), 0.25);
        // A shift within the tolerance is not a difference.
        let c = RgbImage::from_pixel(32, 32, image::Rgb([240, 240, 240]));
        assert_eq!(differing_blocks(&a, &c), 0.0);
    }
}
