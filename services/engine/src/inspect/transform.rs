//! CSS `text-transform` as `innerText` applies it: the case transforms, and
//! MathML's `math-auto`, which sets a single-letter `<mi>` in mathematical
//! italic (`<mi>x</mi>` reads `𝑥` in Chromium, as it is drawn).

use style::properties::ComputedValues;
use style::values::specified::text::TextTransformCase;

/// The case transform text is read with (inherited, like the property).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(super) enum Transform {
    #[default]
    None,
    Uppercase,
    Lowercase,
    Capitalize,
    MathAuto,
}

impl Transform {
    /// The transform an element's computed style asks for.
    pub(super) fn of(styles: &ComputedValues) -> Self {
        match styles.clone_text_transform().case() {
            TextTransformCase::None => Transform::None,
            TextTransformCase::Uppercase => Transform::Uppercase,
            TextTransformCase::Lowercase => Transform::Lowercase,
            TextTransformCase::Capitalize => Transform::Capitalize,
            TextTransformCase::MathAuto => Transform::MathAuto,
        }
    }

    /// `math-auto` applies only to a text of one character (white space
    /// around it aside); on longer text it is no transform at all.
    pub(super) fn for_text(self, text: &str) -> Self {
        if self != Transform::MathAuto {
            return self;
        }
        let mut chars = text.trim_matches(|c: char| c.is_ascii_whitespace()).chars();
        match (chars.next(), chars.next()) {
            (Some(_), None) => Transform::MathAuto,
            _ => Transform::None,
        }
    }

    /// Append `c` transformed to `out`; `word_start` says whether `c` begins
    /// a word (for `capitalize`).
    pub(super) fn push(self, c: char, word_start: bool, out: &mut impl FnMut(char)) {
        match self {
            Transform::None => out(c),
            Transform::Uppercase => c.to_uppercase().for_each(out),
            Transform::Lowercase => c.to_lowercase().for_each(out),
            Transform::Capitalize if word_start => c.to_uppercase().for_each(out),
            Transform::Capitalize => out(c),
            Transform::MathAuto => out(math_italic(c)),
        }
    }
}

/// Whether `c` continues a word for `capitalize` (so the letter after it is
/// not capitalized): letters, digits and the apostrophes inside "don't".
pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '\'' | '\u{2019}')
}

/// The letter of the Mathematical Alphanumeric Symbols block (and the few
/// older code points it defers to) that sets `c` in italic; anything without
/// an italic form is returned as is.
pub(super) fn math_italic(c: char) -> char {
    let offset = |base: u32, from: char| char::from_u32(base + (c as u32 - from as u32));
    let mapped = match c {
        // The italic small h was encoded long before the block, as the Planck constant.
        'h' => Some('\u{210E}'),
        'A'..='Z' => offset(0x1D434, 'A'),
        'a'..='z' => offset(0x1D44E, 'a'),
        '\u{131}' => Some('\u{1D6A4}'),
        '\u{237}' => Some('\u{1D6A5}'),
        // Capital Greek, with the reserved U+03A2 falling on theta symbol's slot.
        '\u{391}'..='\u{3A1}' | '\u{3A3}'..='\u{3A9}' => offset(0x1D6E2, '\u{391}'),
        '\u{3F4}' => Some('\u{1D6F3}'),
        '\u{2207}' => Some('\u{1D6FB}'),
        '\u{3B1}'..='\u{3C9}' => offset(0x1D6FC, '\u{3B1}'),
        '\u{2202}' => Some('\u{1D715}'),
        '\u{3F5}' => Some('\u{1D716}'),
        '\u{3D1}' => Some('\u{1D717}'),
        '\u{3F0}' => Some('\u{1D718}'),
        '\u{3D5}' => Some('\u{1D719}'),
        '\u{3F1}' => Some('\u{1D71A}'),
        '\u{3D6}' => Some('\u{1D71B}'),
        _ => None,
    };
    mapped.unwrap_or(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_and_greek_letters_have_their_italic_forms() {
        assert_eq!(math_italic('a'), '𝑎');
        assert_eq!(math_italic('x'), '𝑥');
        assert_eq!(math_italic('z'), '𝑧');
        assert_eq!(math_italic('A'), '𝐴');
        assert_eq!(math_italic('h'), 'ℎ');
        assert_eq!(math_italic('α'), '𝛼');
        assert_eq!(math_italic('ω'), '𝜔');
        assert_eq!(math_italic('Ω'), '𝛺');
        assert_eq!(math_italic('∂'), '𝜕');
        assert_eq!(math_italic('2'), '2');
        assert_eq!(math_italic('+'), '+');
    }

    #[test]
    fn math_auto_applies_to_one_character_only() {
        assert_eq!(Transform::MathAuto.for_text(" x "), Transform::MathAuto);
        assert_eq!(Transform::MathAuto.for_text("sin"), Transform::None);
        assert_eq!(Transform::Uppercase.for_text("sin"), Transform::Uppercase);
    }
}
