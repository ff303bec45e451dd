//! The WebIDL shape of the interfaces the preludes put on the window, made
//! natively: `webidl.js` says what the shape is and why libraries look at
//! it; this file does the walk over every interface's members, which in
//! JavaScript (a descriptor object read and another written per member, a few
//! thousand members) was ≈5.5 ms of every new realm.
//!
//! The walk reads and writes property flags through QuickJS's C API directly:
//! rquickjs has no property descriptors, and going through
//! `Object.defineProperty` from Rust would build the same descriptor objects.

use std::collections::HashSet;
use std::ffi::c_char;

use rquickjs::{Array, Ctx, Function, Object, Result, Value, qjs};

/// A function's WebIDL `length` where the preludes' JavaScript signature
/// counts differently (an optional argument written without a default, an
/// interface object whose constructor takes the wrapper's internals), as
/// Chromium reports it: (owner, member, length). The owner is `""` for an
/// interface object itself and `window` for the window's own operations.
const LENGTHS: &[(&str, &str, i32)] = &[
    ("", "Node", 0),
    ("", "Attr", 0),
    ("", "DocumentType", 0),
    ("", "DOMTokenList", 0),
    ("", "TreeWalker", 0),
    ("", "NodeIterator", 0),
    ("", "MediaQueryList", 0),
    ("", "Headers", 0),
    ("", "FormData", 0),
    ("", "URL", 1),
    ("", "ResizeObserver", 1),
    ("", "Image", 0),
    ("", "Audio", 0),
    ("Element", "toggleAttribute", 1),
    ("Element", "scrollIntoView", 0),
    ("Element", "attachShadow", 1),
    ("HTMLSelectElement", "add", 1),
    ("HTMLSelectElement", "remove", 0),
    ("HTMLCanvasElement", "getContext", 1),
    ("URLSearchParams", "forEach", 1),
    ("FormData", "append", 2),
    ("FormData", "set", 2),
    ("FormData", "forEach", 1),
    ("TextDecoder", "decode", 0),
    ("History", "pushState", 2),
    ("History", "replaceState", 2),
    ("AbortController", "abort", 0),
    ("IntersectionObserver", "unobserve", 1),
    ("ResizeObserver", "observe", 1),
    ("ResizeObserver", "unobserve", 1),
    ("IDBFactory", "open", 1),
    ("Selection", "getRangeAt", 1),
    ("Selection", "addRange", 1),
    ("Selection", "collapse", 1),
    ("MediaQueryList", "addListener", 1),
    ("MediaQueryList", "removeListener", 1),
    ("window", "fetch", 1),
    ("window", "alert", 0),
    ("window", "confirm", 0),
    ("window", "prompt", 0),
    ("window", "open", 0),
];

/// Names the preludes' functions get from how they were written (an
/// anonymous function, an accessor or a method called `get`, `set` or
/// `value`) rather than from what they are; only such a function is named,
/// as one with a name of its own is shared (an alias, or one of the
/// language's built-ins).
const PLACEHOLDERS: [&str; 4] = ["", "get", "set", "value"];

/// The window's namespace objects whose operations are named like an
/// interface's.
const NAMESPACES: [&str; 2] = ["console", "CSS"];

/// Add the WebIDL native to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    // Shape every interface among the window's globals that are not in
    // `builtins` (the names the language itself defines), make the interface
    // objects non-enumerable, and name the window's and the namespaces' own
    // operations.
    native.set(
        "shapeInterfaces",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, builtins: Array<'js>| {
            let builtins = builtins
                .iter::<String>()
                .collect::<Result<HashSet<String>>>()?;
            Shaper::new(ctx)?.window(&builtins)
        })?,
    )?;
    Ok(())
}

/// One own property as QuickJS holds it: its flags (`JS_PROP_*`) and either
/// a value or an accessor's functions (`undefined` where absent).
struct Own<'js> {
    flags: u32,
    value: Value<'js>,
    get: Value<'js>,
    set: Value<'js>,
}

impl Own<'_> {
    fn is_accessor(&self) -> bool {
        self.flags & qjs::JS_PROP_TMASK == qjs::JS_PROP_GETSET
    }
    fn configurable(&self) -> bool {
        self.flags & qjs::JS_PROP_CONFIGURABLE != 0
    }
    fn enumerable(&self) -> bool {
        self.flags & qjs::JS_PROP_ENUMERABLE != 0
    }
}

/// An atom this walk made, given back when the walk ends.
struct OwnedAtom {
    ctx: *mut qjs::JSContext,
    atom: qjs::JSAtom,
}

impl Drop for OwnedAtom {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: the atom was returned to us with a reference we own (by
        // `JS_NewAtomLen` or `JS_ValueToAtom`) in this live context.
        unsafe { qjs::JS_FreeAtom(self.ctx, self.atom) }
    }
}

/// The own string-keyed property names of an object, freed on drop.
struct Names {
    ctx: *mut qjs::JSContext,
    tab: *mut qjs::JSPropertyEnum,
    len: u32,
}

impl Names {
    fn atoms(&self) -> impl Iterator<Item = qjs::JSAtom> + '_ {
        #[allow(unsafe_code)]
        // SAFETY: `tab` holds `len` entries, written by
        // `JS_GetOwnPropertyNames`, and lives until `self` is dropped.
        let entries: &[qjs::JSPropertyEnum] = if self.tab.is_null() {
            &[]
        } else {
            unsafe { std::slice::from_raw_parts(self.tab, self.len as usize) }
        };
        entries.iter().map(|entry| entry.atom)
    }
}

impl Drop for Names {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: `tab` came from `JS_GetOwnPropertyNames` in this context
        // (or is null with `len` 0, which QuickJS accepts).
        unsafe { qjs::JS_FreePropertyEnum(self.ctx, self.tab, self.len) }
    }
}

/// The walk: the context, the atoms it compares keys with, and the
/// interfaces already shaped (a named constructor such as `Image` shares its
/// element's interface).
struct Shaper<'js> {
    ctx: Ctx<'js>,
    raw: *mut qjs::JSContext,
    constructor: OwnedAtom,
    length: OwnedAtom,
    name: OwnedAtom,
    prototype: OwnedAtom,
    to_string_tag: OwnedAtom,
    /// [`PLACEHOLDERS`] as atoms, in the same order.
    placeholders: Vec<OwnedAtom>,
    shaped: HashSet<usize>,
}

impl<'js> Shaper<'js> {
    fn new(ctx: Ctx<'js>) -> Result<Self> {
        let raw = ctx.as_raw().as_ptr();
        let tag: Value = ctx
            .globals()
            .get::<_, Object>("Symbol")?
            .get("toStringTag")?;
        Ok(Self {
            constructor: new_atom(raw, "constructor")?,
            length: new_atom(raw, "length")?,
            name: new_atom(raw, "name")?,
            prototype: new_atom(raw, "prototype")?,
            to_string_tag: value_atom(raw, &tag)?,
            placeholders: PLACEHOLDERS
                .iter()
                .map(|p| new_atom(raw, p))
                .collect::<Result<_>>()?,
            shaped: HashSet::new(),
            raw,
            ctx,
        })
    }

    /// The window: its interfaces shaped and made non-enumerable, its own
    /// operations named.
    fn window(mut self, builtins: &HashSet<String>) -> Result<()> {
        let global = self.ctx.globals();
        let names = self.names(global.as_raw())?;
        for atom in names.atoms() {
            let name = self.text(atom)?;
            if builtins.contains(&name) {
                continue;
            }
            let Some(own) = self.own(global.as_raw(), atom)? else {
                continue;
            };
            if own.is_accessor() || !own.value.is_function() {
                continue;
            }
            if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                if self.is_interface(&own.value)? && self.name_of(&own.value)? == name {
                    self.interface(&name, &own.value)?;
                } else {
                    self.length_of(&own.value, "", &name)?;
                }
                if own.enumerable() {
                    self.set_enumerable(global.as_raw(), atom, false)?;
                }
            } else if name.starts_with(|c: char| c.is_ascii_lowercase())
                && own.configurable()
                && !self.is_interface(&own.value)?
            {
                self.named(&own.value, || Ok(name.clone()))?;
                self.length_of(&own.value, "window", &name)?;
            }
        }
        drop(names);
        // Namespace objects' operations carry their names (`console.log`).
        for namespace in NAMESPACES {
            let namespace: Value = global.get(namespace)?;
            if namespace.is_object() {
                self.namespace(&namespace)?;
            }
        }
        Ok(())
    }

    /// A namespace object's operations named after their keys.
    fn namespace(&self, namespace: &Value<'js>) -> Result<()> {
        let names = self.names(namespace.as_raw())?;
        for atom in names.atoms() {
            let Some(own) = self.own(namespace.as_raw(), atom)? else {
                continue;
            };
            if !own.is_accessor() && own.configurable() {
                self.named(&own.value, || self.text(atom))?;
            }
        }
        Ok(())
    }

    /// One interface object and its prototype.
    fn interface(&mut self, name: &str, interface: &Value<'js>) -> Result<()> {
        #[allow(unsafe_code)]
        // SAFETY: an interface is a function, so its value holds an object pointer.
        let key = unsafe { qjs::JS_VALUE_GET_PTR(interface.as_raw()) } as usize;
        if !self.shaped.insert(key) {
            return Ok(());
        }
        let proto: Value = self.get(interface, self.prototype.atom)?;
        if !self.has_own(proto.as_raw(), self.to_string_tag.atom)? {
            let tag = rquickjs::String::from_str(self.ctx.clone(), name)?;
            self.define(
                proto.as_raw(),
                self.to_string_tag.atom,
                tag.as_raw(),
                qjs::JS_PROP_HAS_VALUE
                    | qjs::JS_PROP_HAS_CONFIGURABLE
                    | qjs::JS_PROP_CONFIGURABLE
                    | qjs::JS_PROP_HAS_WRITABLE
                    | qjs::JS_PROP_HAS_ENUMERABLE,
            )?;
        }
        // An interface's constants are on its prototype too (`node.TEXT_NODE`).
        let names = self.names(interface.as_raw())?;
        for atom in names.atoms() {
            let Some(own) = self.own(interface.as_raw(), atom)? else {
                continue;
            };
            if self.is_constant(atom, &own)? && !self.has_own(proto.as_raw(), atom)? {
                self.define(
                    proto.as_raw(),
                    atom,
                    own.value.as_raw(),
                    qjs::JS_PROP_HAS_VALUE | qjs::JS_PROP_HAS_ENUMERABLE | qjs::JS_PROP_ENUMERABLE,
                )?;
            }
        }
        drop(names);
        self.members(&proto, name, false)?;
        self.members(interface, name, true)?;
        self.length_of(interface, "", name)
    }

    /// One object's own members as WebIDL lays them out: operations and
    /// attributes enumerable and named, constants read-only.
    fn members(&self, target: &Value<'js>, interface: &str, is_static: bool) -> Result<()> {
        let has_lengths = LENGTHS.iter().any(|(owner, ..)| *owner == interface);
        let names = self.names(target.as_raw())?;
        for atom in names.atoms() {
            if atom == self.constructor.atom
                || (is_static
                    && (atom == self.length.atom
                        || atom == self.name.atom
                        || atom == self.prototype.atom))
            {
                continue;
            }
            let Some(own) = self.own(target.as_raw(), atom)? else {
                continue;
            };
            if !own.configurable() {
                continue;
            }
            if self.is_constant(atom, &own)? {
                self.define(
                    target.as_raw(),
                    atom,
                    own.value.as_raw(),
                    qjs::JS_PROP_HAS_VALUE
                        | qjs::JS_PROP_HAS_WRITABLE
                        | qjs::JS_PROP_HAS_ENUMERABLE
                        | qjs::JS_PROP_ENUMERABLE
                        | qjs::JS_PROP_HAS_CONFIGURABLE,
                )?;
                continue;
            }
            if own.is_accessor() {
                self.named(&own.get, || Ok(format!("get {}", self.text(atom)?)))?;
                self.named(&own.set, || Ok(format!("set {}", self.text(atom)?)))?;
            } else if own.value.is_function() && !self.is_interface(&own.value)? {
                self.named(&own.value, || self.text(atom))?;
                if !is_static && has_lengths {
                    self.length_of(&own.value, interface, &self.text(atom)?)?;
                }
            }
            if !own.enumerable() {
                self.set_enumerable(target.as_raw(), atom, true)?;
            }
        }
        Ok(())
    }

    /// A WebIDL constant: a number whose name is all capitals (`TEXT_NODE`).
    fn is_constant(&self, atom: qjs::JSAtom, own: &Own<'js>) -> Result<bool> {
        if own.is_accessor() || !own.value.is_number() {
            return Ok(false);
        }
        let key = self.text(atom)?;
        let mut chars = key.chars();
        Ok(chars.next().is_some_and(|c| c.is_ascii_uppercase())
            && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
    }

    /// A function whose prototype names it as its constructor.
    fn is_interface(&self, value: &Value<'js>) -> Result<bool> {
        if !value.is_function() {
            return Ok(false);
        }
        let proto: Value = self.get(value, self.prototype.atom)?;
        if !proto.is_object() || !self.has_own(proto.as_raw(), self.constructor.atom)? {
            return Ok(false);
        }
        Ok(self.get(&proto, self.constructor.atom)? == *value)
    }

    /// Name a function `name()` if its own name is a placeholder; `name` is
    /// only made then (most functions are named already).
    fn named(&self, function: &Value<'js>, name: impl FnOnce() -> Result<String>) -> Result<()> {
        if !function.is_function() {
            return Ok(());
        }
        let Some(placeholder) = self.placeholder_name(function)? else {
            return Ok(());
        };
        let name = name()?;
        if name == placeholder {
            return Ok(());
        }
        let name = rquickjs::String::from_str(self.ctx.clone(), &name)?;
        self.define(
            function.as_raw(),
            self.name.atom,
            name.as_raw(),
            qjs::JS_PROP_HAS_VALUE | qjs::JS_PROP_HAS_CONFIGURABLE | qjs::JS_PROP_CONFIGURABLE,
        )
    }

    /// Which of [`PLACEHOLDERS`] a function's `name` is, if any: compared as
    /// atoms, so that the names of the thousands of functions that have one of
    /// their own are never copied out.
    fn placeholder_name(&self, function: &Value<'js>) -> Result<Option<&'static str>> {
        let name = self.get(function, self.name.atom)?;
        if !name.is_string() {
            return Ok(None);
        }
        let atom = value_atom(self.raw, &name)?;
        Ok(self
            .placeholders
            .iter()
            .position(|p| p.atom == atom.atom)
            .and_then(|i| PLACEHOLDERS.get(i).copied()))
    }

    /// Give a function its WebIDL `length` where [`LENGTHS`] lists it.
    fn length_of(&self, function: &Value<'js>, owner: &str, member: &str) -> Result<()> {
        let Some(&(.., length)) = LENGTHS.iter().find(|(o, m, _)| *o == owner && *m == member)
        else {
            return Ok(());
        };
        if !function.is_function() {
            return Ok(());
        }
        let current: Value = self.get(function, self.length.atom)?;
        if current.as_number() == Some(f64::from(length)) {
            return Ok(());
        }
        self.define(
            function.as_raw(),
            self.length.atom,
            Value::new_int(self.ctx.clone(), length).as_raw(),
            qjs::JS_PROP_HAS_VALUE | qjs::JS_PROP_HAS_CONFIGURABLE | qjs::JS_PROP_CONFIGURABLE,
        )
    }

    /// A function's `name`, as a string (empty when it is not one).
    fn name_of(&self, function: &Value<'js>) -> Result<String> {
        let name: Value = self.get(function, self.name.atom)?;
        match name.as_string() {
            Some(name) => name.to_string(),
            None => Ok(String::new()),
        }
    }

    // ---- QuickJS's C API ----------------------------------------------------

    /// The text of a string atom.
    #[allow(unsafe_code)]
    fn text(&self, atom: qjs::JSAtom) -> Result<String> {
        let mut len = 0;
        // SAFETY: `atom` is live (held by the enumeration or by `self`); the
        // C string QuickJS returns is valid UTF-8 (CESU-8 for lone
        // surrogates, replaced below) of `len` bytes until it is freed here.
        unsafe {
            let ptr = qjs::JS_AtomToCStringLen(self.raw, &mut len, atom);
            if ptr.is_null() {
                return Err(rquickjs::Error::Exception);
            }
            let bytes = std::slice::from_raw_parts(ptr.cast::<u8>(), len as usize);
            let text = String::from_utf8_lossy(bytes).into_owned();
            qjs::JS_FreeCString(self.raw, ptr);
            Ok(text)
        }
    }

    #[allow(unsafe_code)]
    fn names(&self, object: qjs::JSValue) -> Result<Names> {
        let mut names = Names {
            ctx: self.raw,
            tab: std::ptr::null_mut(),
            len: 0,
        };
        // SAFETY: `object` is live in this context; on success QuickJS
        // writes a table we free in `Names::drop`.
        let status = unsafe {
            qjs::JS_GetOwnPropertyNames(
                self.raw,
                &mut names.tab,
                &mut names.len,
                object,
                qjs::JS_GPN_STRING_MASK as _,
            )
        };
        if status < 0 {
            return Err(rquickjs::Error::Exception);
        }
        Ok(names)
    }

    #[allow(unsafe_code)]
    fn own(&self, object: qjs::JSValue, atom: qjs::JSAtom) -> Result<Option<Own<'js>>> {
        let mut desc = qjs::JSPropertyDescriptor {
            flags: 0,
            value: qjs::JS_UNDEFINED,
            getter: qjs::JS_UNDEFINED,
            setter: qjs::JS_UNDEFINED,
        };
        // SAFETY: `object` and `atom` are live in this context. When the
        // property exists QuickJS fills `desc` with values it has taken a
        // reference to for us, which `Value::from_raw` then owns.
        unsafe {
            match qjs::JS_GetOwnProperty(self.raw, &mut desc, object, atom) {
                status if status < 0 => Err(rquickjs::Error::Exception),
                0 => Ok(None),
                _ => Ok(Some(Own {
                    flags: desc.flags as u32,
                    value: Value::from_raw(self.ctx.clone(), desc.value),
                    get: Value::from_raw(self.ctx.clone(), desc.getter),
                    set: Value::from_raw(self.ctx.clone(), desc.setter),
                })),
            }
        }
    }

    fn has_own(&self, object: qjs::JSValue, atom: qjs::JSAtom) -> Result<bool> {
        #[allow(unsafe_code)]
        // SAFETY: `object` and `atom` are live in this context; a null
        // descriptor asks only whether the property exists.
        let status =
            unsafe { qjs::JS_GetOwnProperty(self.raw, std::ptr::null_mut(), object, atom) };
        if status < 0 {
            return Err(rquickjs::Error::Exception);
        }
        Ok(status > 0)
    }

    /// `object[atom]`, by the language's [[Get]].
    fn get(&self, object: &Value<'js>, atom: qjs::JSAtom) -> Result<Value<'js>> {
        #[allow(unsafe_code)]
        // SAFETY: `object` and `atom` are live in this context; the value
        // returned is owned by us (or is the exception marker).
        unsafe {
            let value = qjs::JS_GetProperty(self.raw, object.as_raw(), atom);
            if qjs::JS_IsException(value) {
                return Err(rquickjs::Error::Exception);
            }
            Ok(Value::from_raw(self.ctx.clone(), value))
        }
    }

    /// Define (or redefine) one property with `flags`, as
    /// `Object.defineProperty` does, throwing where it would.
    #[allow(unsafe_code)]
    fn define(
        &self,
        object: qjs::JSValue,
        atom: qjs::JSAtom,
        value: qjs::JSValue,
        flags: u32,
    ) -> Result<()> {
        // SAFETY: `object`, `atom` and `value` are live in this context;
        // `JS_DefineProperty` takes no reference from its arguments.
        let status = unsafe {
            qjs::JS_DefineProperty(
                self.raw,
                object,
                atom,
                value,
                qjs::JS_UNDEFINED,
                qjs::JS_UNDEFINED,
                (flags | qjs::JS_PROP_THROW) as _,
            )
        };
        if status < 0 {
            return Err(rquickjs::Error::Exception);
        }
        Ok(())
    }

    /// Change only whether a property is enumerable.
    fn set_enumerable(
        &self,
        object: qjs::JSValue,
        atom: qjs::JSAtom,
        enumerable: bool,
    ) -> Result<()> {
        let flag = if enumerable {
            qjs::JS_PROP_ENUMERABLE
        } else {
            0
        };
        self.define(
            object,
            atom,
            qjs::JS_UNDEFINED,
            qjs::JS_PROP_HAS_ENUMERABLE | flag,
        )
    }
}

/// An atom for `text`, ours to give back.
#[allow(unsafe_code)]
fn new_atom(ctx: *mut qjs::JSContext, text: &str) -> Result<OwnedAtom> {
    // SAFETY: `ctx` is live; the pointer and length describe `text`, which
    // QuickJS copies.
    let atom = unsafe { qjs::JS_NewAtomLen(ctx, text.as_ptr().cast::<c_char>(), text.len() as _) };
    if atom == qjs::JS_ATOM_NULL {
        return Err(rquickjs::Error::Exception);
    }
    Ok(OwnedAtom { ctx, atom })
}

/// The atom a property key value (here a symbol) stands for, ours to give back.
#[allow(unsafe_code)]
fn value_atom(ctx: *mut qjs::JSContext, value: &Value<'_>) -> Result<OwnedAtom> {
    // SAFETY: `ctx` and `value` are live; the atom returned holds a reference for us.
    let atom = unsafe { qjs::JS_ValueToAtom(ctx, value.as_raw()) };
    if atom == qjs::JS_ATOM_NULL {
        return Err(rquickjs::Error::Exception);
    }
    Ok(OwnedAtom { ctx, atom })
}
