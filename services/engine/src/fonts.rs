//! The fonts bundled into the guest.
//!
//! The guest has no system fonts, so unless fonts are registered **and** assigned
//! to the CSS generic families, Parley finds no face and text paints nothing
//! (docs/decisions/0005-engine-sandbox.md). We bundle Liberation (SIL OFL 1.1, see `fonts/LICENSE`), which is
//! metric-compatible with Arial, Times New Roman and Courier New, so pages laid out
//! for those fonts wrap the same way.
//!
//! Fonts registered through `register-font` join the same per-instance font
//! context, so every document the tab loads afterwards can use them, and are
//! also added to the current document.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;

use blitz_dom::net::{FontFaceOverrides, Resource, ResourceLoadResponse};
use blitz_dom::{BaseDocument, FontContext};
use blitz_traits::net::Bytes;
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
    /// built once per instance and cloned into each document. Registered fonts
    /// are added here too, which is what keeps them across loads.
    static FONT_CONTEXT: RefCell<Option<FontContext>> = const { RefCell::new(None) };
}

/// A font context with the bundled fonts registered and assigned to the
/// generic families, plus the fonts registered with [`register`].
pub(crate) fn font_context() -> FontContext {
    FONT_CONTEXT.with(|cell| cell.borrow_mut().get_or_insert_with(build).clone())
}

/// The first four bytes of the font formats `register` accepts once WOFF and
/// WOFF2 are decompressed: TrueType (1.0 and Apple's `true`), OpenType with
/// CFF outlines, and TrueType/OpenType collections.
const SFNT_SIGNATURES: [[u8; 4]; 4] = [*b"\0\x01\0\0", *b"true", *b"OTTO", *b"ttcf"];

/// Register a font (TrueType, OpenType, WOFF or WOFF2 bytes) for this tab and
/// return the family names it provides, sorted, with the decoded font. The
/// font is added to the instance's font context (documents loaded later); the
/// caller hands the decoded font to the current document ([`add_to_document`]).
pub(crate) fn register(data: Vec<u8>) -> Result<(Vec<String>, Bytes), String> {
    if data.is_empty() {
        return Err("the font data is empty".to_owned());
    }
    let signature: Option<[u8; 4]> = data.get(..4).and_then(|s| s.try_into().ok());
    let compressed = matches!(&signature, Some(s) if s == b"wOFF" || s == b"wOF2");
    // `decode_font_bytes` hands back the input unchanged when decompression
    // fails, so a still-compressed result means the WOFF data is broken.
    let bytes = match blitz_dom::decode_font_bytes(&data) {
        Cow::Owned(decompressed) => decompressed,
        Cow::Borrowed(_) if compressed => {
            return Err("the WOFF/WOFF2 data could not be decompressed".to_owned());
        }
        Cow::Borrowed(_) => data,
    };
    let signature: Option<[u8; 4]> = bytes.get(..4).and_then(|s| s.try_into().ok());
    if !signature.is_some_and(|s| SFNT_SIGNATURES.contains(&s)) {
        return Err(
            "the data is not a TrueType, OpenType, WOFF or WOFF2 font (unknown signature)"
                .to_owned(),
        );
    }
    let bytes = Bytes::from(bytes);
    let families = FONT_CONTEXT.with(|cell| {
        let mut cell = cell.borrow_mut();
        let context = cell.get_or_insert_with(build);
        let blob = Blob::new(Arc::new(bytes.clone()) as _);
        let ids: Vec<FamilyId> = context
            .collection
            .register_fonts(blob, None)
            .into_iter()
            .map(|(family, _)| family)
            .collect();
        let mut names: Vec<String> = ids
            .into_iter()
            .filter_map(|id| context.collection.family_name(id).map(str::to_owned))
            .collect();
        names.sort();
        names.dedup();
        names
    });
    if families.is_empty() {
        return Err("the font data could not be parsed: no usable font face in it".to_owned());
    }
    Ok((families, bytes))
}

/// Hand a registered font to a document. A document has its own copy of the
/// font context: it gets the font the way Blitz applies a loaded
/// `@font-face`, which also makes it lay its text out again. A tab that has no
/// document yet gets the font from the instance's context when it builds one.
pub(crate) fn add_to_document(doc: &mut BaseDocument, font: Bytes) {
    doc.load_resource(ResourceLoadResponse {
        // Not a request of the document's own: an id no request uses, so
        // no pending resource is marked as done.
        request_id: usize::MAX,
        node_id: None,
        resolved_url: None,
        result: Ok(Resource::Font(font, FontFaceOverrides::default())),
    });
}

fn register_bundled(
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
        for id in register_bundled(collection, face, None) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        for alias in aliases {
            register_bundled(collection, face, Some(alias));
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
