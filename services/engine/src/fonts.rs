//! The fonts bundled into the guest.
//!
//! The guest has no system fonts, so unless fonts are registered **and** assigned
//! to the CSS generic families, Parley finds no face and text paints nothing
//! (DESIGN.md §4). We bundle Liberation (SIL OFL 1.1, see `fonts/LICENSE`), which is
//! metric-compatible with Arial, Times New Roman and Courier New, so pages laid out
//! for those fonts wrap the same way.

use std::cell::OnceCell;
use std::sync::Arc;

use blitz_dom::FontContext;
use parley::fontique::{
    Blob, Collection, CollectionOptions, FallbackKey, FamilyId, FontInfoOverride, GenericFamily,
    Script, SourceCache,
};

static SANS_REGULAR: &[u8] = include_bytes!("../fonts/LiberationSans-Regular.ttf");
static SANS_BOLD: &[u8] = include_bytes!("../fonts/LiberationSans-Bold.ttf");
static SANS_ITALIC: &[u8] = include_bytes!("../fonts/LiberationSans-Italic.ttf");
static SANS_BOLD_ITALIC: &[u8] = include_bytes!("../fonts/LiberationSans-BoldItalic.ttf");
static SERIF_REGULAR: &[u8] = include_bytes!("../fonts/LiberationSerif-Regular.ttf");
static SERIF_BOLD: &[u8] = include_bytes!("../fonts/LiberationSerif-Bold.ttf");
static MONO_REGULAR: &[u8] = include_bytes!("../fonts/LiberationMono-Regular.ttf");

/// Common font names that pages ask for by name, mapped to the bundled face
/// that is metric-compatible with (or the closest stand-in for) them.
const SANS_ALIASES: &[&str] = &[
    "Arial",
    "Helvetica",
    "Helvetica Neue",
    "Verdana",
    "Segoe UI",
];
const SERIF_ALIASES: &[&str] = &["Times New Roman", "Times", "Georgia"];
const MONO_ALIASES: &[&str] = &["Courier New", "Courier", "Consolas", "Menlo", "Monaco"];

/// Scripts the Liberation fonts cover; text in them falls back to Liberation
/// Sans when the requested family has no face for a character.
const FALLBACK_SCRIPTS: &[[u8; 4]] = &[*b"Latn", *b"Grek", *b"Cyrl", *b"Zyyy", *b"Zinh"];

thread_local! {
    /// Parsing the font tables takes a few milliseconds, so the collection is
    /// built once per instance and cloned into each document.
    static FONT_CONTEXT: OnceCell<FontContext> = const { OnceCell::new() };
}

/// A font context with the bundled fonts registered and assigned to the
/// generic families.
pub(crate) fn font_context() -> FontContext {
    FONT_CONTEXT.with(|cell| cell.get_or_init(build).clone())
}

fn register(
    collection: &mut Collection,
    bytes: &'static [u8],
    alias: Option<&str>,
) -> Vec<FamilyId> {
    let info = alias.map(|name| FontInfoOverride {
        family_name: Some(name),
        width: None,
        style: None,
        weight: None,
        axes: None,
    });
    collection
        .register_fonts(Blob::new(Arc::new(bytes) as _), info)
        .into_iter()
        .map(|(family, _)| family)
        .collect()
}

/// Register every face of one family, returning its family id.
fn register_family(
    collection: &mut Collection,
    faces: &[&'static [u8]],
    aliases: &[&str],
) -> Vec<FamilyId> {
    let mut ids = Vec::new();
    for face in faces {
        for id in register(collection, face, None) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        for alias in aliases {
            register(collection, face, Some(alias));
        }
    }
    ids
}

fn build() -> FontContext {
    let mut collection = Collection::new(CollectionOptions {
        shared: false,
        system_fonts: false,
    });
    // Blitz registers its list-bullet font only when it builds the context itself.
    collection.register_fonts(Blob::new(Arc::new(blitz_dom::BULLET_FONT) as _), None);

    let sans = register_family(
        &mut collection,
        &[SANS_REGULAR, SANS_BOLD, SANS_ITALIC, SANS_BOLD_ITALIC],
        SANS_ALIASES,
    );
    let serif = register_family(&mut collection, &[SERIF_REGULAR, SERIF_BOLD], SERIF_ALIASES);
    let mono = register_family(&mut collection, &[MONO_REGULAR], MONO_ALIASES);

    for generic in [
        GenericFamily::SansSerif,
        GenericFamily::SystemUi,
        GenericFamily::UiSansSerif,
        GenericFamily::UiRounded,
        GenericFamily::Cursive,
        GenericFamily::Fantasy,
    ] {
        collection.set_generic_families(generic, sans.iter().copied());
    }
    for generic in [GenericFamily::Serif, GenericFamily::UiSerif] {
        collection.set_generic_families(generic, serif.iter().copied());
    }
    for generic in [GenericFamily::Monospace, GenericFamily::UiMonospace] {
        collection.set_generic_families(generic, mono.iter().copied());
    }
    for script in FALLBACK_SCRIPTS {
        collection.set_fallbacks(
            FallbackKey::new(Script::from_bytes(*script), None),
            sans.iter().copied(),
        );
    }

    FontContext {
        collection,
        source_cache: SourceCache::default(),
    }
}
