//! Natives for text encodings and randomness: `TextEncoder`/`TextDecoder`
//! over encoding_rs, and the bytes `crypto.getRandomValues` fills.

use rquickjs::{ArrayBuffer, Ctx, Exception, Function, Object, Result, TypedArray};

use super::bytes;

/// Add the encoding natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    def!("encodeUtf8", |ctx: Ctx<'js>,
                        text: String|
     -> Result<ArrayBuffer<'js>> {
        ArrayBuffer::new(ctx, text.into_bytes())
    });
    def!("decodeText", |ctx: Ctx<'js>,
                        data: TypedArray<'js, u8>,
                        label: String,
                        fatal: bool|
     -> Result<String> {
        let encoding =
            encoding_rs::Encoding::for_label(label.trim().as_bytes()).ok_or_else(|| {
                Exception::throw_range(&ctx, &format!("the encoding '{label}' is not supported"))
            })?;
        let data = bytes(&data);
        if fatal {
            encoding
                .decode_without_bom_handling_and_without_replacement(&data)
                .map(|text| text.into_owned())
                .ok_or_else(|| Exception::throw_type(&ctx, "the encoded data was not valid"))
        } else {
            Ok(encoding.decode_with_bom_removal(&data).0.into_owned())
        }
    });
    def!("randomBytes", |ctx: Ctx<'js>,
                         n: u32|
     -> Result<ArrayBuffer<'js>> {
        let mut buf = vec![0u8; n.min(65_536) as usize];
        getrandom::fill(&mut buf)
            .map_err(|e| Exception::throw_internal(&ctx, &format!("no randomness: {e}")))?;
        ArrayBuffer::new(ctx, buf)
    });
    Ok(())
}
