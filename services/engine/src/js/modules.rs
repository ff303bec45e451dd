//! Module scripts: `<script type="module">`, `import`, dynamic `import()`,
//! `import.meta.url` and import maps (`<script type="importmap">`).
//!
//! QuickJS links modules by name; here a module's name is its absolute URL,
//! so relative imports resolve against the importing module's URL, and one
//! URL is fetched and evaluated once per document. Specifiers resolve as in
//! browsers: URL-like ones (`/`, `./`, `../`, absolute) against the base, bare
//! ones only through the import map; only http(s) and `data:` URLs load.
//! Cross-origin modules are fetched in CORS mode and need an
//! `Access-Control-Allow-Origin` that allows the document; a module's
//! `Content-Type` must be JavaScript (or JSON for `with { type: 'json' }`),
//! as Chromium enforces.
//!
//! The import map and the count of loaded modules belong to the realm and are
//! reset with it ([`reset`]).

use std::cell::{Cell, RefCell};

use rquickjs::loader::{ImportAttributes, Loader, Resolver};
use rquickjs::module::Declared;
use rquickjs::{Ctx, Exception, Module, Result};
use url::Url;

use super::console;
use crate::{inspect, net, state};

/// Modules one document may load (each is a synchronous round trip).
const MAX_MODULES: usize = 256;
/// How the error of a module that could not be fetched begins.
pub(super) const LOAD_FAILURE: &str = "Failed to load module script";

/// MIME types of JavaScript (HTML's list, lower case, without parameters).
const JAVASCRIPT_TYPES: &[&str] = &[
    "text/javascript",
    "application/javascript",
    "application/ecmascript",
    "application/x-ecmascript",
    "application/x-javascript",
    "text/ecmascript",
    "text/jscript",
    "text/livescript",
    "text/x-ecmascript",
    "text/x-javascript",
    "application/x-javascript1.4",
];

/// An import map's specifier map: keys (bare specifiers, or absolute URLs
/// for URL-like keys) to absolute URLs, longest key first.
type SpecifierMap = Vec<(String, String)>;

/// The document's import map.
#[derive(Default)]
struct ImportMap {
    imports: SpecifierMap,
    /// Scope prefixes (absolute URLs), longest first, with their maps.
    scopes: Vec<(String, SpecifierMap)>,
}

thread_local! {
    static IMPORT_MAP: RefCell<Option<ImportMap>> = const { RefCell::new(None) };
    static LOADED: Cell<usize> = const { Cell::new(0) };
    static INLINE: Cell<usize> = const { Cell::new(0) };
}

/// Forget the import map and the modules counted (a new realm).
pub(super) fn reset() {
    IMPORT_MAP.with(|m| m.borrow_mut().take());
    LOADED.with(|n| n.set(0));
    INLINE.with(|n| n.set(0));
}

/// The document URL and the base URL its relative references resolve against.
fn document_urls() -> Option<(Url, Url)> {
    state::try_with_tab(|tab| {
        let url = Url::parse(&tab.url).ok()?;
        let base = inspect::base_url_at(tab.document(), Some(url.as_str()));
        Some((url, base))
    })
    .flatten()
}

/// Whether `specifier` is URL-like: absolute, or starting with `/`, `./`, `../`.
fn url_like(specifier: &str, base: &Url) -> Option<Url> {
    if specifier.starts_with('/') || specifier.starts_with("./") || specifier.starts_with("../") {
        return base.join(specifier).ok();
    }
    Url::parse(specifier).ok()
}

/// Parse an import map's JSON (`{"imports": {...}, "scopes": {...}}`) with
/// `base` for its URL-like keys and values. Entries that do not resolve are
/// dropped with a console warning, as browsers do.
fn parse_import_map(text: &str, base: &Url) -> std::result::Result<ImportMap, String> {
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("the import map is not JSON: {e}"))?;
    let object = json
        .as_object()
        .ok_or_else(|| "the import map is not a JSON object".to_owned())?;
    let specifier_map = |value: &serde_json::Value| -> SpecifierMap {
        let mut map: SpecifierMap = value
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(key, target)| {
                let key = url_like(key, base).map_or_else(|| key.clone(), String::from);
                let resolved = target.as_str().and_then(|t| url_like(t, base));
                if resolved.is_none() {
                    console(
                        "warn",
                        &format!("Ignored an import map value of \"{key}\": it is not a URL"),
                    );
                }
                Some((key, resolved?.to_string()))
            })
            .collect();
        map.sort_by_key(|entry| std::cmp::Reverse(entry.0.len()));
        map
    };
    let imports = object.get("imports").map(specifier_map).unwrap_or_default();
    let mut scopes: Vec<(String, SpecifierMap)> = object
        .get("scopes")
        .and_then(|s| s.as_object())
        .into_iter()
        .flatten()
        .filter_map(|(prefix, map)| Some((base.join(prefix).ok()?.to_string(), specifier_map(map))))
        .collect();
    scopes.sort_by_key(|scope| std::cmp::Reverse(scope.0.len()));
    Ok(ImportMap { imports, scopes })
}

/// Take the document's import map (only the first one counts, and only
/// before any module loaded, as in browsers).
pub(super) fn set_import_map(text: &str) {
    if IMPORT_MAP.with(|m| m.borrow().is_some()) || LOADED.with(Cell::get) > 0 {
        console(
            "warn",
            "An import map was ignored: only one is supported, before any module loads",
        );
        return;
    }
    let Some((_, base)) = document_urls() else {
        return;
    };
    match parse_import_map(text, &base) {
        Ok(map) => IMPORT_MAP.with(|m| *m.borrow_mut() = Some(map)),
        Err(reason) => console("error", &format!("Ignored an import map: {reason}")),
    }
}

/// The target of `candidate` in one specifier map: an exact key, or the
/// longest key ending in `/` that prefixes it.
fn lookup(map: &SpecifierMap, candidate: &str) -> Option<String> {
    map.iter().find_map(|(key, target)| {
        if key == candidate {
            Some(target.clone())
        } else if key.ends_with('/') && target.ends_with('/') {
            candidate
                .strip_prefix(key.as_str())
                .and_then(|rest| Url::parse(target).ok()?.join(rest).ok())
                .map(String::from)
        } else {
            None
        }
    })
}

/// Resolve `specifier` imported by the module or script named `base_name`.
fn resolve(base_name: &str, specifier: &str) -> std::result::Result<Url, String> {
    let (_, document_base) = document_urls().ok_or_else(|| "the document has no URL".to_owned())?;
    // Classic scripts are named `inline-script-N`; they import relative to
    // the document.
    let base = Url::parse(base_name)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .unwrap_or(document_base);
    let as_url = url_like(specifier, &base);
    let candidate = as_url
        .as_ref()
        .map_or_else(|| specifier.to_owned(), |u| u.to_string());
    let mapped = IMPORT_MAP.with(|m| {
        let map = m.borrow();
        let map = map.as_ref()?;
        let base = base.as_str();
        map.scopes
            .iter()
            .filter(|(prefix, _)| base.starts_with(prefix.as_str()))
            .find_map(|(_, scope)| lookup(scope, &candidate))
            .or_else(|| lookup(&map.imports, &candidate))
    });
    let url = match (mapped, as_url) {
        (Some(mapped), _) => Url::parse(&mapped).map_err(|e| e.to_string())?,
        (None, Some(url)) => url,
        (None, None) => {
            return Err(format!(
                "Failed to resolve module specifier \"{specifier}\". Relative references must start with either \"/\", \"./\", or \"../\"."
            ));
        }
    };
    if !matches!(url.scheme(), "http" | "https" | "data") {
        return Err(format!(
            "Failed to resolve module specifier \"{specifier}\": the URL scheme \"{}\" cannot load modules",
            url.scheme()
        ));
    }
    Ok(url)
}

/// The runtime's module resolver (see the module docs).
pub(super) struct PageResolver;

impl Resolver for PageResolver {
    fn resolve<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> Result<String> {
        resolve(base, name)
            .map(String::from)
            .map_err(|message| Exception::throw_type(ctx, &message))
    }
}

/// The runtime's module loader: fetches and declares the module at a URL.
pub(super) struct PageLoader;

impl Loader for PageLoader {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        name: &str,
        attributes: Option<ImportAttributes<'js>>,
    ) -> Result<Module<'js, Declared>> {
        let json = attributes
            .and_then(|a| a.get_type().ok().flatten())
            .is_some_and(|t| t == "json");
        load(ctx, name, json)
    }
}

/// Why a module could not be fetched, or its source.
fn fetch_source(url: &Url, json: bool) -> std::result::Result<String, String> {
    let count = LOADED.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    if count > MAX_MODULES {
        return Err(format!("more than {MAX_MODULES} modules in one document"));
    }
    let document = document_urls().map(|(url, _)| url);
    let origin = document.as_ref().map(|d| d.origin());
    let same_origin = url.scheme() == "data" || origin.as_ref() == Some(&url.origin());
    let mut headers = Vec::new();
    if !same_origin && let Some(origin) = &origin {
        headers.push(("origin".to_owned(), origin.ascii_serialization()));
    }
    let response = net::fetch_with(
        "GET",
        url.as_str(),
        headers,
        None,
        same_origin,
        net::Hops::Host,
    )?;
    if response.status >= 400 {
        return Err(format!("HTTP {}", response.status));
    }
    if !same_origin {
        let allowed = response
            .header("access-control-allow-origin")
            .map(str::trim)
            .is_some_and(|allow| {
                allow == "*"
                    || origin
                        .as_ref()
                        .is_some_and(|o| allow == o.ascii_serialization())
            });
        if !allowed {
            return Err(
                "blocked by CORS policy: No 'Access-Control-Allow-Origin' header is present on the requested resource"
                    .to_owned(),
            );
        }
    }
    let mime = response
        .content_type()
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let is_json_type = mime == "application/json" || mime == "text/json" || mime.ends_with("+json");
    let acceptable = if json {
        is_json_type
    } else {
        JAVASCRIPT_TYPES.contains(&mime.as_str())
    };
    if !acceptable {
        let wanted = if json {
            "a JSON module script"
        } else {
            "a JavaScript module script"
        };
        return Err(format!(
            "Expected {wanted} but the server responded with a MIME type of \"{mime}\". Strict MIME type checking is enforced for module scripts per HTML spec."
        ));
    }
    // Module scripts are always UTF-8.
    let text = String::from_utf8_lossy(&response.body).into_owned();
    if json {
        serde_json::from_str::<serde_json::Value>(&text)
            .map_err(|e| format!("the JSON module is not JSON: {e}"))?;
        let literal = serde_json::to_string(&text).map_err(|e| e.to_string())?;
        return Ok(format!("export default JSON.parse({literal});"));
    }
    Ok(text)
}

/// Fetch and declare the module at `name` (an absolute URL) with its
/// `import.meta.url`.
fn load<'js>(ctx: &Ctx<'js>, name: &str, json: bool) -> Result<Module<'js, Declared>> {
    let url = Url::parse(name).map_err(|e| Exception::throw_type(ctx, &e.to_string()))?;
    let source = fetch_source(&url, json).map_err(|reason| {
        let message = format!("{LOAD_FAILURE} {name}: {reason}");
        console("error", &message);
        Exception::throw_type(ctx, &message)
    })?;
    let module = Module::declare(ctx.clone(), name, source)?;
    module.meta()?.set("url", name)?;
    Ok(module)
}

/// Declare the module a `<script type="module">` runs: fetched from `src`
/// (an absolute URL; import maps do not apply to it), or its inline `text`
/// named after the document (`import.meta.url` is the document's URL, as in
/// browsers).
pub(super) fn declare_script<'js>(
    ctx: &Ctx<'js>,
    src: Option<&str>,
    text: &str,
) -> Result<Module<'js, Declared>> {
    if let Some(src) = src {
        let url = Url::parse(src)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https" | "data"))
            .ok_or_else(|| {
                Exception::throw_type(ctx, &format!("cannot load a module script from {src}"))
            })?;
        // One URL is one module: an import of it elsewhere finds this one.
        return load(ctx, url.as_str(), false);
    }
    let document =
        document_urls().map_or_else(|| state::INLINE_URL.to_owned(), |(u, _)| u.to_string());
    let n = INLINE.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    let mut name = Url::parse(&document).map_err(|e| Exception::throw_type(ctx, &e.to_string()))?;
    name.set_fragment(Some(&format!("inline-module-{n}")));
    let module = Module::declare(ctx.clone(), name.as_str(), text)?;
    module.meta()?.set("url", document)?;
    Ok(module)
}
