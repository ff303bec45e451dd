//! Build script: gives the wasm guest a larger shadow stack.
//!
//! Rust links wasm32 modules with a 1 MiB stack. Layout, painting and box
//! construction in Blitz recurse once per DOM level and QuickJS recurses per JS
//! call frame, so deeply nested pages or scripts could exhaust 1 MiB and trap the
//! whole instance. 8 MiB of linear memory is cheap next to the page data itself.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_FAMILY").as_deref() == Ok("wasm") {
        println!("cargo:rustc-link-arg=-zstack-size=8388608");
    }
}
