//! The readable view's unit tests.

use super::*;

#[test]
fn the_surveys_counts_are_those_of_the_collapsed_text() {
    for text in [
        "",
        "   ",
        "one",
        "  two words ",
        "a,b, c ,\n\td",
        "\n  Größe, Maß und   Ähnliches\t",
        "non\u{a0}breaking stays one word",
        "漢字 と かな,",
    ] {
        let collapsed = collapse_whitespace(text);
        assert_eq!(
            collapsed_counts(text),
            (collapsed.chars().count(), collapsed.matches(',').count()),
            "{text:?}"
        );
    }
}
