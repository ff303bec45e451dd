//! The tab's last screenshot, answered again while the page paints the same.
//!
//! Agents often take a screenshot of a page nothing has changed on since their
//! last one: after an inspect, a wait that found its element at once, a scroll
//! that could not move. A paint first records what `blitz-paint` draws into an
//! [`anyrender::Scene`], a list of commands. When the list equals the last
//! screenshot's, at the same size, that PNG is the answer. The rasterizing, the
//! compositing into RGB and the PNG encoding, almost all of a screenshot, are
//! then skipped. Otherwise the list is replayed into the renderer, which then
//! paints what it would have painted directly. Replaying costs the copying
//! into the list and, when it differs, the comparison up to the first change.
//!
//! Equal lists make the same pixels:
//! - every paint has a fresh renderer of its own;
//! - images and fonts compare by their blob, whose ID is unique to each blob
//!   ever made in the instance, so a new image behind the same element differs;
//! - glyphs come from the tab's glyph cache either way. A glyph the cache had
//!   no room for in one paint is drawn from its outline, at most 2 levels apart,
//!   and either is the page as it stands.
//!
//! `blitz-paint` (pinned, with no custom widgets) paints no custom brush, the
//! one thing a recorded scene cannot hold.
//!
//! What is kept lives as long as the tab, is not part of a checkpoint, and is
//! at most [`MAX_KEPT_PNG_BYTES`] of PNG plus its list.

use std::cell::RefCell;

use anyrender::recording::RenderCommand;
use anyrender::{PaintScene, Scene};

/// The largest PNG kept for reuse (a viewport's is 10–600 KB); a bigger
/// full-page screenshot is not kept, and neither is its list.
const MAX_KEPT_PNG_BYTES: usize = 2 << 20;

/// The last screenshot kept: its size, what was painted, and the PNG.
struct Shot {
    width: u32,
    height: u32,
    scene: Scene,
    png: Vec<u8>,
}

thread_local! {
    static LAST: RefCell<Option<Shot>> = const { RefCell::new(None) };
}

/// The last screenshot's PNG, if it was `width`×`height` and painted
/// exactly `scene`.
pub(super) fn unchanged(width: u32, height: u32, scene: &Scene) -> Option<Vec<u8>> {
    LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|shot| shot.width == width && shot.height == height && shot.scene == *scene)
            .map(|shot| shot.png.clone())
    })
}

/// Keeps this screenshot for the next one to compare with, in place of the
/// last; one too large to keep leaves nothing kept.
pub(super) fn keep(width: u32, height: u32, scene: Scene, png: &[u8]) {
    LAST.set((png.len() <= MAX_KEPT_PNG_BYTES).then(|| Shot {
        width,
        height,
        scene,
        png: png.to_vec(),
    }));
}

/// Paints the recorded `scene` into `painter`, command by command, as the
/// recording received them.
pub(super) fn replay(painter: &mut impl PaintScene, scene: &Scene) {
    for command in &scene.commands {
        match command {
            RenderCommand::PushLayer(layer) => painter.push_layer(
                layer.fill,
                layer.blend,
                layer.alpha,
                layer.transform,
                &layer.clip,
                layer.filter.clone(),
                layer.backdrop_filter.clone(),
            ),
            RenderCommand::PushClipLayer(clip) => {
                painter.push_clip_layer(clip.fill, clip.transform, &clip.clip);
            }
            RenderCommand::PopLayer => painter.pop_layer(),
            RenderCommand::Stroke(stroke) => painter.stroke(
                &stroke.style,
                stroke.transform,
                stroke.brush.as_ref(),
                stroke.brush_transform,
                &stroke.shape,
            ),
            RenderCommand::Fill(fill) => painter.fill(
                fill.fill,
                fill.transform,
                fill.brush.as_ref(),
                fill.brush_transform,
                &fill.shape,
            ),
            RenderCommand::GlyphRun(run) => painter.draw_glyphs(
                &run.font_data,
                run.font_size,
                run.hint,
                &run.normalized_coords,
                run.embolden,
                &run.style,
                run.brush.as_ref(),
                run.brush_alpha,
                run.transform,
                run.glyph_transform,
                run.glyphs.iter().copied(),
            ),
            RenderCommand::BoxShadow(shadow) => painter.draw_box_shadow(
                shadow.transform,
                shadow.rect,
                shadow.brush,
                shadow.radius,
                shadow.std_dev,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use anyrender::{Glyph, ImageRenderer as _};
    use anyrender_vello_cpu::VelloCpuImageRenderer;
    use peniko::kurbo::{Affine, BezPath, Circle, Rect, RoundedRect, Stroke, Vec2};
    use peniko::{Blob, Color, Fill, FontData, Gradient, Mix};

    use super::*;

    static SANS: &[u8] = include_bytes!("../../fonts/LiberationSans-Regular.ttf");
    const SIDE: u32 = 120;

    /// Something of every kind of command: a clipped, translucent layer, a
    /// gradient, a rounded rectangle, a stroke of a curve, a run of glyphs and
    /// a box shadow.
    fn paint(scene: &mut impl PaintScene, font: &FontData, colour: Color) {
        scene.draw_box_shadow(
            Affine::IDENTITY,
            Rect::new(10.0, 10.0, 60.0, 40.0),
            Color::from_rgb8(0, 0, 0),
            4.0,
            3.0,
        );
        scene.push_layer(
            Fill::NonZero,
            Mix::Normal,
            0.8,
            Affine::IDENTITY,
            &Circle::new((60.0, 60.0), 55.0),
            None,
            None,
        );
        let gradient = Gradient::new_linear((0.0, 0.0), (SIDE as f64, 0.0))
            .with_stops([Color::from_rgb8(200, 30, 30), Color::from_rgb8(30, 30, 200)]);
        scene.fill(
            Fill::NonZero,
            Affine::IDENTITY,
            &gradient,
            None,
            &Rect::new(0.0, 70.0, 120.0, 110.0),
        );
        scene.push_clip_layer(
            Fill::NonZero,
            Affine::translate((5.0, 5.0)),
            &Rect::new(0.0, 0.0, 80.0, 80.0),
        );
        scene.fill(
            Fill::NonZero,
            Affine::IDENTITY,
            colour,
            None,
            &RoundedRect::new(20.0, 20.0, 100.0, 60.0, 8.0),
        );
        scene.pop_layer();
        let mut curve = BezPath::new();
        curve.move_to((5.0, 100.0));
        curve.curve_to((40.0, 60.0), (80.0, 140.0), (115.0, 90.0));
        scene.stroke(
            &Stroke::new(2.5),
            Affine::IDENTITY,
            Color::from_rgb8(10, 120, 10),
            None,
            &curve,
        );
        let glyphs = (36..44).map(|id| Glyph {
            id,
            x: 4.0 + (id - 36) as f32 * 13.25,
            y: 50.0,
        });
        scene.draw_glyphs(
            font,
            18.0,
            true,
            &[],
            Vec2::ZERO,
            Fill::NonZero,
            Color::from_rgb8(0, 0, 0),
            1.0,
            Affine::IDENTITY,
            None,
            glyphs,
        );
        scene.pop_layer();
    }

    fn rasterize(draw: impl FnOnce(&mut anyrender_vello_cpu::VelloCpuScenePainter)) -> Vec<u8> {
        let mut renderer = VelloCpuImageRenderer::new(SIDE, SIDE);
        let mut rgba = Vec::new();
        renderer.render_to_vec(draw, &mut rgba);
        rgba
    }

    fn recorded(font: &FontData, colour: Color) -> Scene {
        let mut scene = Scene::new();
        paint(&mut scene, font, colour);
        scene
    }

    #[test]
    fn a_replayed_recording_paints_what_painting_directly_does() {
        let font = FontData::new(Blob::new(Arc::new(SANS)), 0);
        let colour = Color::from_rgb8(250, 200, 0);
        let direct = rasterize(|painter| paint(painter, &font, colour));
        assert!(
            direct.chunks_exact(4).filter(|p| p[3] != 0).count() > 5_000,
            "the scene paints"
        );
        let scene = recorded(&font, colour);
        assert_eq!(rasterize(|painter| replay(painter, &scene)), direct);
    }

    #[test]
    fn the_last_png_answers_only_the_same_scene_at_the_same_size() {
        let font = FontData::new(Blob::new(Arc::new(SANS)), 0);
        let yellow = Color::from_rgb8(250, 200, 0);
        let png = vec![7; 100];
        keep(SIDE, SIDE, recorded(&font, yellow), &png);
        assert_eq!(
            unchanged(SIDE, SIDE, &recorded(&font, yellow)),
            Some(png.clone())
        );
        assert_eq!(unchanged(SIDE, SIDE + 1, &recorded(&font, yellow)), None);
        assert_eq!(unchanged(SIDE + 1, SIDE, &recorded(&font, yellow)), None);
        let orange = Color::from_rgb8(250, 150, 0);
        assert_eq!(unchanged(SIDE, SIDE, &recorded(&font, orange)), None);
        // The same bytes of font behind another blob are another font, as
        // another image behind the same element would be.
        let copy = FontData::new(Blob::new(Arc::new(SANS)), 0);
        assert_eq!(unchanged(SIDE, SIDE, &recorded(&copy, yellow)), None);

        // A screenshot too large to keep leaves nothing to answer from.
        keep(
            SIDE,
            SIDE,
            recorded(&font, yellow),
            &vec![0; MAX_KEPT_PNG_BYTES + 1],
        );
        assert_eq!(unchanged(SIDE, SIDE, &recorded(&font, yellow)), None);
        keep(SIDE, SIDE, recorded(&font, yellow), &png);
        assert_eq!(unchanged(SIDE, SIDE, &recorded(&font, yellow)), Some(png));
    }
}
