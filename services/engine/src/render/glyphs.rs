//! Text in screenshots, drawn from glyphs rasterized once.
//!
//! `vello_cpu` draws a glyph by flattening its outline, tiling it and turning the
//! tiles into coverage strips, every time the glyph appears; a page draws the
//! same few dozen glyphs thousands of times, and that was the largest part of a
//! screenshot. [`GlyphPainter`] stands between `blitz-paint` and the renderer:
//! the first time a glyph appears in a font, size and colour at one of
//! [`SUBPIXEL_STEPS`] horizontal offsets, it is rasterized alone into a small
//! image, and that and every later appearance is drawn as the image placed on
//! whole pixels. (Rasterizing a glyph only when it appears a second time, so
//! that text drawn once costs what it did, made a tab's first screenshot no
//! cheaper.) Vertical positions are whole pixels already: hinted text is
//! snapped to them (Blitz hints all text it paints here).
//!
//! What the cache cannot reproduce is drawn as before: runs that are scaled,
//! rotated or skewed (synthetic italics), stroked or painted with a gradient,
//! large text, and glyphs that do not fit the cell they are rasterized in.
//!
//! The cache lives as long as the tab (one component instance is one tab) so a
//! second screenshot finds the first one's glyphs; once it holds more than
//! [`MAX_CACHED_BYTES`], it takes nothing more, and the next paint empties it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use anyrender::{
    Filter, Glyph, ImageRenderer as _, NormalizedCoord, Paint, PaintRef, PaintScene,
    RegisterResourceError, RenderContext, ResourceId,
};
use anyrender_vello_cpu::VelloCpuImageRenderer;
use peniko::kurbo::{Affine, Rect, Shape, Stroke, Vec2};
use peniko::{
    BlendMode, Blob, Color, Extend, Fill, FontData, ImageAlphaType, ImageBrush, ImageData,
    ImageFormat, ImageQuality, ImageSampler, StyleRef,
};

/// Horizontal offsets within a pixel a glyph is rasterized at; a glyph is drawn
/// at most 1/8 pixel from where the layout put it (as `vello_cpu`'s own glyph
/// atlas does).
const SUBPIXEL_STEPS: f64 = 4.0;
/// Largest font size, in pixels, whose glyphs are cached: a larger glyph is
/// rarely repeated and its image would cost more than it saves.
const MAX_CACHED_FONT_SIZE: f32 = 64.0;
/// The most image bytes the cache holds before it starts again (a page of
/// body text needs a few hundred KiB).
const MAX_CACHED_BYTES: usize = 4 << 20;
/// What one cached glyph costs besides its image (its key, entry and blob).
const ENTRY_OVERHEAD: usize = 96;

thread_local! {
    static CACHE: RefCell<GlyphCache> = RefCell::new(GlyphCache::default());
}

/// Runs `paint` with the tab's glyph cache.
pub(super) fn with_cache<R>(paint: impl FnOnce(&mut GlyphCache) -> R) -> R {
    CACHE.with_borrow_mut(paint)
}

/// What makes glyphs of one run look alike, besides the glyph and its offset.
#[derive(Clone, PartialEq, Eq, Hash)]
struct RunKey {
    font: u64,
    index: u32,
    size: u32,
    coords: Box<[NormalizedCoord]>,
    embolden: (u64, u64),
    /// Premultiplied RGBA8, the precision the renderer paints a solid colour at.
    colour: u32,
}

/// A glyph as drawn at one offset.
enum Cached {
    /// Covers no pixel (a space).
    Blank,
    /// Its image, and where the image's top left corner is relative to the
    /// pixel the glyph's origin falls in.
    Image {
        image: ImageData,
        left: i32,
        top: i32,
    },
    /// Does not fit its cell: drawn from its outline each time.
    Outline,
}

/// Rasterized glyphs by run and by (glyph, offset), and the small renderers
/// they are rasterized with (by cell side).
#[derive(Default)]
pub(super) struct GlyphCache {
    runs: HashMap<RunKey, HashMap<(u32, u8), Cached>>,
    cells: Vec<(u16, VelloCpuImageRenderer)>,
    scratch: Vec<u8>,
    bytes: usize,
}

/// The run's properties a glyph is rasterized with.
struct RunStyle<'a> {
    font: &'a FontData,
    size: f32,
    coords: &'a [NormalizedCoord],
    embolden: Vec2,
    colour: Color,
}

/// What a glyph the cache has no room for is: drawn from its outline.
static NO_ROOM: Cached = Cached::Outline;

/// The glyph `id` at offset `step` of a run, rasterized on first use while the
/// cache has room (one paint of a page with text in thousands of colours could
/// otherwise grow it without bound; it starts again at the next paint).
fn lookup<'c>(
    run: &'c mut HashMap<(u32, u8), Cached>,
    cells: &mut Vec<(u16, VelloCpuImageRenderer)>,
    scratch: &mut Vec<u8>,
    bytes: &mut usize,
    style: &RunStyle<'_>,
    (id, step): (u32, u8),
) -> &'c Cached {
    if *bytes > MAX_CACHED_BYTES && !run.contains_key(&(id, step)) {
        return &NO_ROOM;
    }
    run.entry((id, step)).or_insert_with(|| {
        let cached = rasterize(cells, scratch, style, (id, step), cell(style.size));
        if let Cached::Image { image, .. } = &cached {
            *bytes += image.data.len();
        }
        *bytes += ENTRY_OVERHEAD;
        cached
    })
}

/// The side of the square cell a glyph of `size` pixels is rasterized in, and
/// where in it the glyph's origin is: a quarter of the side from the left, a
/// quarter from the bottom, so an em square fits with room for overhangs.
fn cell(size: f32) -> (u16, f64, f64) {
    // Whole multiples of 8 so nearby sizes share a renderer.
    let side = ((size * 2.0).ceil() as u16 + 4).next_multiple_of(8);
    let quarter = f64::from(side / 4);
    (side, quarter, f64::from(side) - quarter)
}

/// Rasterizes glyph `id` alone at horizontal offset `step` in a cell of the
/// given side and origin, and crops the image to what it covers.
fn rasterize(
    cells: &mut Vec<(u16, VelloCpuImageRenderer)>,
    buffer: &mut Vec<u8>,
    style: &RunStyle<'_>,
    (id, step): (u32, u8),
    (side, origin_x, baseline): (u16, f64, f64),
) -> Cached {
    let renderer = match cells.iter().position(|(s, _)| *s == side) {
        Some(i) => &mut cells[i].1,
        None => {
            cells.push((
                side,
                VelloCpuImageRenderer::new(u32::from(side), u32::from(side)),
            ));
            let last = cells.len() - 1;
            &mut cells[last].1
        }
    };
    let glyph = Glyph {
        id,
        x: (origin_x + f64::from(step) / SUBPIXEL_STEPS) as f32,
        y: baseline as f32,
    };
    renderer.reset();
    renderer.render_to_vec(
        |scene| {
            scene.draw_glyphs(
                style.font,
                style.size,
                true,
                style.coords,
                style.embolden,
                Fill::NonZero,
                style.colour,
                1.0,
                Affine::IDENTITY,
                None,
                std::iter::once(glyph),
            );
        },
        buffer,
    );
    let side = usize::from(side);
    // The inked box, row by row (left, top, right, bottom).
    let mut ink: Option<(usize, usize, usize, usize)> = None;
    for (y, row) in buffer.chunks_exact(side * 4).enumerate() {
        let Some(first) = row.chunks_exact(4).position(|p| p[3] != 0) else {
            continue;
        };
        let last = row
            .chunks_exact(4)
            .rposition(|p| p[3] != 0)
            .unwrap_or(first);
        ink = Some(match ink {
            None => (first, y, last, y),
            Some((left, top, right, _)) => (left.min(first), top, right.max(last), y),
        });
    }
    let Some((left, top, right, bottom)) = ink else {
        return Cached::Blank;
    };
    // Ink on the cell's edge may have been cut off.
    if top == 0 || left == 0 || bottom == side - 1 || right == side - 1 {
        return Cached::Outline;
    }
    let width = right - left + 1;
    let mut pixels = Vec::with_capacity(width * (bottom - top + 1) * 4);
    for y in top..=bottom {
        let start = (y * side + left) * 4;
        pixels.extend_from_slice(&buffer[start..start + width * 4]);
    }
    Cached::Image {
        image: ImageData {
            data: Blob::new(Arc::new(pixels)),
            format: ImageFormat::Rgba8,
            alpha_type: ImageAlphaType::AlphaPremultiplied,
            width: width as u32,
            height: (bottom - top + 1) as u32,
        },
        left: left as i32 - origin_x as i32,
        top: top as i32 - baseline as i32,
    }
}

/// A scene painter that draws glyphs from the cache and everything else
/// (and what the cache cannot reproduce) through `inner`.
pub(super) struct GlyphPainter<'a, P> {
    inner: &'a mut P,
    cache: &'a mut GlyphCache,
}

impl<'a, P: PaintScene> GlyphPainter<'a, P> {
    pub(super) fn new(inner: &'a mut P, cache: &'a mut GlyphCache) -> Self {
        if cache.bytes > MAX_CACHED_BYTES {
            cache.runs.clear();
            cache.bytes = 0;
        }
        GlyphPainter { inner, cache }
    }
}

/// The run's cache key and style when its glyphs can come from the cache,
/// and the translation that places them.
#[allow(clippy::too_many_arguments)]
fn cacheable<'a>(
    font: &'a FontData,
    size: f32,
    hint: bool,
    coords: &'a [NormalizedCoord],
    embolden: Vec2,
    style: &StyleRef<'_>,
    paint: &PaintRef<'_>,
    transform: Affine,
    glyph_transform: Option<Affine>,
) -> Option<(RunKey, RunStyle<'a>, Vec2)> {
    let [a, b, c, d, x, y] = transform.as_coeffs();
    let plain = (a, b, c, d) == (1.0, 0.0, 0.0, 1.0)
        && glyph_transform.is_none_or(|t| t == Affine::IDENTITY);
    let fill = matches!(style, StyleRef::Fill(Fill::NonZero));
    let Paint::Solid(colour) = paint else {
        return None;
    };
    if !(plain && fill && hint && size > 0.0 && size <= MAX_CACHED_FONT_SIZE) {
        return None;
    }
    let key = RunKey {
        font: font.data.id(),
        index: font.index,
        size: size.to_bits(),
        coords: coords.into(),
        embolden: (embolden.x.to_bits(), embolden.y.to_bits()),
        colour: colour.premultiply().to_rgba8().to_u32(),
    };
    let style = RunStyle {
        font,
        size,
        coords,
        embolden,
        colour: *colour,
    };
    Some((key, style, Vec2::new(x, y)))
}

/// The pixel a glyph's origin falls in (rows rounded, as hinting does) and the
/// offset within it, in steps.
fn place(x: f64, y: f64) -> (i32, i32, u8) {
    let column = x.floor();
    let step = ((x - column) * SUBPIXEL_STEPS).round();
    if step >= SUBPIXEL_STEPS {
        (column as i32 + 1, y.round() as i32, 0)
    } else {
        (column as i32, y.round() as i32, step as u8)
    }
}

impl<P: PaintScene> RenderContext for GlyphPainter<'_, P> {
    fn try_register_custom_resource(
        &mut self,
        resource: Box<dyn std::any::Any>,
    ) -> Result<ResourceId, RegisterResourceError> {
        self.inner.try_register_custom_resource(resource)
    }

    fn unregister_resource(&mut self, resource_id: ResourceId) {
        self.inner.unregister_resource(resource_id);
    }

    fn renderer_specific_context(&self) -> Option<Box<dyn std::any::Any>> {
        self.inner.renderer_specific_context()
    }
}

impl<P: PaintScene> PaintScene for GlyphPainter<'_, P> {
    fn reset(&mut self) {
        self.inner.reset();
    }

    fn push_layer(
        &mut self,
        fill: Fill,
        blend: impl Into<BlendMode>,
        alpha: f32,
        transform: Affine,
        clip: &impl Shape,
        filter: Option<Arc<Filter>>,
        backdrop_filter: Option<Arc<Filter>>,
    ) {
        self.inner
            .push_layer(fill, blend, alpha, transform, clip, filter, backdrop_filter);
    }

    fn push_clip_layer(&mut self, fill: Fill, transform: Affine, clip: &impl Shape) {
        self.inner.push_clip_layer(fill, transform, clip);
    }

    fn pop_layer(&mut self) {
        self.inner.pop_layer();
    }

    fn stroke<'b>(
        &mut self,
        style: &Stroke,
        transform: Affine,
        brush: impl Into<PaintRef<'b>>,
        brush_transform: Option<Affine>,
        shape: &impl Shape,
    ) {
        self.inner
            .stroke(style, transform, brush, brush_transform, shape);
    }

    fn fill<'b>(
        &mut self,
        style: Fill,
        transform: Affine,
        brush: impl Into<PaintRef<'b>>,
        brush_transform: Option<Affine>,
        shape: &impl Shape,
    ) {
        self.inner
            .fill(style, transform, brush, brush_transform, shape);
    }

    fn draw_glyphs<'b, 's: 'b>(
        &'s mut self,
        font: &'b FontData,
        font_size: f32,
        hint: bool,
        normalized_coords: &'b [NormalizedCoord],
        embolden: Vec2,
        style: impl Into<StyleRef<'b>>,
        brush: impl Into<PaintRef<'b>>,
        brush_alpha: f32,
        transform: Affine,
        glyph_transform: Option<Affine>,
        glyphs: impl Iterator<Item = Glyph> + Clone,
    ) {
        let (style, brush) = (style.into(), brush.into());
        let Some((key, run, offset)) = cacheable(
            font,
            font_size,
            hint,
            normalized_coords,
            embolden,
            &style,
            &brush,
            transform,
            glyph_transform,
        ) else {
            self.inner.draw_glyphs(
                font,
                font_size,
                hint,
                normalized_coords,
                embolden,
                style,
                brush,
                brush_alpha,
                transform,
                glyph_transform,
                glyphs,
            );
            return;
        };
        let sampler = ImageSampler {
            x_extend: Extend::Pad,
            y_extend: Extend::Pad,
            quality: ImageQuality::Low,
            alpha: 1.0,
        };
        let Self { inner, cache } = self;
        let GlyphCache {
            runs,
            cells,
            scratch,
            bytes,
        } = &mut **cache;
        let cached = runs.entry(key).or_default();
        let mut outlines = Vec::new();
        for glyph in glyphs {
            let x = offset.x + f64::from(glyph.x);
            let y = offset.y + f64::from(glyph.y);
            let (column, row, step) = place(x, y);
            match lookup(cached, cells, scratch, bytes, &run, (glyph.id, step)) {
                Cached::Blank => {}
                Cached::Outline => outlines.push(glyph),
                Cached::Image { image, left, top } => {
                    let at = Affine::translate((f64::from(column + left), f64::from(row + top)));
                    let area = Rect::new(0.0, 0.0, f64::from(image.width), f64::from(image.height));
                    inner.fill(
                        Fill::NonZero,
                        at,
                        ImageBrush { image, sampler },
                        None,
                        &area,
                    );
                }
            }
        }
        if !outlines.is_empty() {
            inner.draw_glyphs(
                font,
                font_size,
                hint,
                normalized_coords,
                embolden,
                style,
                brush,
                brush_alpha,
                transform,
                glyph_transform,
                outlines.into_iter(),
            );
        }
    }

    fn draw_box_shadow(
        &mut self,
        transform: Affine,
        rect: Rect,
        brush: Color,
        radius: f64,
        std_dev: f64,
    ) {
        self.inner
            .draw_box_shadow(transform, rect, brush, radius, std_dev);
    }
}

#[cfg(test)]
mod tests;
