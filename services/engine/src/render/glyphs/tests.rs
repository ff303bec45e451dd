//! The glyph cache against text drawn from outlines.

use super::*;

static SANS: &[u8] = include_bytes!("../../../fonts/LiberationSans-Regular.ttf");
const SIDE: u32 = 160;

fn sans() -> FontData {
    FontData::new(Blob::new(Arc::new(SANS)), 0)
}

/// A line of glyphs 3..40 at the given font size, colour, transform and
/// horizontal positions, painted through `paint` into premultiplied RGBA.
fn line(
    font: &FontData,
    cache: Option<&mut GlyphCache>,
    size: f32,
    colour: Color,
    transform: Affine,
    x: impl Fn(u32) -> f32,
) -> Vec<u8> {
    let mut renderer = VelloCpuImageRenderer::new(SIDE, SIDE);
    let mut rgba = Vec::new();
    let glyphs = (3..40).map(|id| Glyph {
        id,
        x: x(id),
        y: 20.0 + (id % 4) as f32 * 30.0,
    });
    renderer.render_to_vec(
        |scene| {
            let args = (font, size, colour, transform, glyphs);
            match cache {
                Some(cache) => paint(&mut GlyphPainter::new(scene, cache), args),
                None => paint(scene, args),
            }
        },
        &mut rgba,
    );
    rgba
}

fn paint(
    scene: &mut impl PaintScene,
    (font, size, colour, transform, glyphs): (
        &FontData,
        f32,
        Color,
        Affine,
        impl Iterator<Item = Glyph> + Clone,
    ),
) {
    scene.draw_glyphs(
        font,
        size,
        true,
        &[],
        Vec2::ZERO,
        Fill::NonZero,
        colour,
        1.0,
        transform,
        None,
        glyphs,
    );
}

fn largest_difference(a: &[u8], b: &[u8]) -> u8 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(a, b)| a.abs_diff(*b))
        .max()
        .unwrap_or(0)
}

fn inked(rgba: &[u8]) -> usize {
    rgba.chunks_exact(4).filter(|p| p[3] != 0).count()
}

#[test]
fn cached_glyphs_are_painted_as_their_outlines_are() {
    let font = sans();
    let colour = Color::from_rgb8(20, 90, 200);
    // Quarter-pixel positions, the offsets the cache rasterizes at.
    let at = |id: u32| 2.0 + (id % 10) as f32 * 15.25;
    let shift = Affine::translate((0.5, 3.0));
    let outlines = line(&font, None, 16.0, colour, shift, at);
    assert!(inked(&outlines) > 1_000, "the line has ink");
    let mut cache = GlyphCache::default();
    let cached = line(&font, Some(&mut cache), 16.0, colour, shift, at);
    assert!(largest_difference(&outlines, &cached) <= 2);
    let glyphs = cache.runs.values().flat_map(HashMap::values);
    let images = glyphs.filter(|c| matches!(c, Cached::Image { .. })).count();
    assert_eq!(images, 36, "every glyph but the space, once");

    // A second paint draws from the cache: nothing new is rasterized.
    let bytes = cache.bytes;
    let again = line(&font, Some(&mut cache), 16.0, colour, shift, at);
    assert_eq!(again, cached);
    assert_eq!(cache.bytes, bytes);
}

#[test]
fn a_glyph_between_offsets_moves_by_at_most_an_eighth_of_a_pixel() {
    let font = sans();
    let colour = Color::from_rgb8(0, 0, 0);
    let exact = |id: u32| 2.0 + (id % 10) as f32 * 15.1;
    let snapped =
        |id: u32| 2.0 + (id % 10) as f32 * 15.0 + ((id % 10) as f32 * 0.1 * 4.0).round() / 4.0;
    let mut cache = GlyphCache::default();
    let mut paint = || {
        line(
            &font,
            Some(&mut cache),
            16.0,
            colour,
            Affine::IDENTITY,
            exact,
        )
    };
    paint();
    let cached = paint();
    let outlines = line(&font, None, 16.0, colour, Affine::IDENTITY, snapped);
    assert!(largest_difference(&outlines, &cached) <= 2);
}

#[test]
fn what_the_cache_cannot_reproduce_is_drawn_from_outlines() {
    let font = sans();
    let colour = Color::from_rgb8(0, 0, 0);
    let at = |id: u32| 2.0 + (id % 10) as f32 * 15.1;
    for (size, transform) in [
        (100.0, Affine::IDENTITY),
        (16.0, Affine::scale(1.5)),
        (16.0, Affine::rotate(0.1)),
    ] {
        let mut cache = GlyphCache::default();
        let outlines = line(&font, None, size, colour, transform, at);
        for _ in 0..2 {
            let cached = line(&font, Some(&mut cache), size, colour, transform, at);
            assert_eq!(outlines, cached, "{size} {transform:?}");
        }
        assert!(cache.runs.is_empty());
    }
}

#[test]
fn a_glyph_that_overflows_its_cell_is_drawn_from_its_outline() {
    let mut cells = Vec::new();
    let mut scratch = Vec::new();
    let font = sans();
    let style = RunStyle {
        font: &font,
        size: 16.0,
        coords: &[],
        embolden: Vec2::ZERO,
        colour: Color::from_rgb8(0, 0, 0),
    };
    let mut glyph = |id, geometry| rasterize(&mut cells, &mut scratch, &style, (id, 0), geometry);
    // Glyph 3 is the space.
    assert!(matches!(glyph(3, cell(16.0)), Cached::Blank));
    assert!(matches!(glyph(36, cell(16.0)), Cached::Image { .. }));
    // The same glyph in a cell too small for it.
    assert!(matches!(glyph(36, (8, 2.0, 6.0)), Cached::Outline));
}

#[test]
fn a_full_cache_takes_no_more_glyphs_and_the_next_paint_empties_it() {
    let font = sans();
    let colour = Color::from_rgb8(0, 0, 0);
    let at = |id: u32| 2.0 + (id % 10) as f32 * 15.25;
    let outlines = line(&font, None, 16.0, colour, Affine::IDENTITY, at);
    let mut cache = GlyphCache {
        bytes: MAX_CACHED_BYTES + 1,
        ..GlyphCache::default()
    };
    // As if the cache had filled earlier in this paint (the painter is made
    // directly, as `GlyphPainter::new` would empty it): nothing is added.
    let mut renderer = VelloCpuImageRenderer::new(SIDE, SIDE);
    let mut rgba = Vec::new();
    renderer.render_to_vec(
        |scene| {
            let mut painter = GlyphPainter {
                inner: scene,
                cache: &mut cache,
            };
            paint(
                &mut painter,
                (
                    &font,
                    16.0,
                    colour,
                    Affine::IDENTITY,
                    (3..40).map(|id| Glyph {
                        id,
                        x: at(id),
                        y: 20.0 + (id % 4) as f32 * 30.0,
                    }),
                ),
            );
        },
        &mut rgba,
    );
    assert_eq!(rgba, outlines, "drawn from outlines");
    assert!(cache.runs.values().all(HashMap::is_empty));
    assert_eq!(cache.bytes, MAX_CACHED_BYTES + 1);

    // The next paint starts again.
    line(&font, Some(&mut cache), 16.0, colour, Affine::IDENTITY, at);
    assert!(cache.bytes < MAX_CACHED_BYTES);
    assert!(cache.runs.values().map(HashMap::len).sum::<usize>() > 30);
}
