//! Editing fields at the caret with the keys a user presses, through the MCP
//! tools, on the editor page of `browsing.rs`'s site.

use serde_json::{Value, json};

use crate::browsing::{act_ok, site, type_text};
use crate::harness::{Client, Fleet, eval, open};

async fn press(client: &Client, id: &str, keys: &[&str]) {
    for key in keys {
        act_ok(client, "servo_press_key", id, json!({"key": key})).await;
    }
}

/// A field's value and selection, as `[value, start, end]`.
async fn field(client: &Client, id: &str, selector: &str) -> Value {
    eval(
        client,
        id,
        &format!(
            "(() => {{ const e = document.querySelector('{selector}'); return [e.value, e.selectionStart, e.selectionEnd]; }})()"
        ),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typing_edits_at_the_caret_like_a_user() {
    // covers: input.keyboard
    let fleet = Fleet::start(1).await;
    let client = fleet.client("caret").await;
    let base = site().await;
    let (id, _) = open(&client, &format!("{base}/editor")).await;

    // A click leaves the caret at the end; Home moves it to the start, where
    // typing goes in.
    act_ok(&client, "servo_click", &id, json!({"selector": "#name"})).await;
    press(&client, &id, &["Home"]).await;
    type_text(&client, &id, "hello ").await;
    assert_eq!(
        field(&client, &id, "#name").await,
        json!(["hello world", 6, 6])
    );

    // Shift+arrows select from the caret; typing replaces the selection.
    press(&client, &id, &["End"]).await;
    press(&client, &id, &["Shift+ArrowLeft"; 5]).await;
    assert_eq!(
        field(&client, &id, "#name").await,
        json!(["hello world", 6, 11])
    );
    type_text(&client, &id, "there").await;
    assert_eq!(
        field(&client, &id, "#name").await,
        json!(["hello there", 11, 11])
    );

    // Control+ArrowLeft jumps a word; Backspace and Delete work on each side
    // of the caret, Control+Backspace on a word.
    press(&client, &id, &["Control+ArrowLeft", "Backspace"]).await;
    assert_eq!(
        field(&client, &id, "#name").await,
        json!(["hellothere", 5, 5])
    );
    press(&client, &id, &["Delete"]).await;
    assert_eq!(
        field(&client, &id, "#name").await,
        json!(["hellohere", 5, 5])
    );
    press(&client, &id, &["End", "Control+Backspace"]).await;
    assert_eq!(field(&client, &id, "#name").await, json!(["", 0, 0]));

    // Control+A selects everything; typing replaces it. `clear` does the same.
    type_text(&client, &id, "draft").await;
    press(&client, &id, &["Control+a"]).await;
    type_text(&client, &id, "x").await;
    assert_eq!(field(&client, &id, "#name").await, json!(["x", 1, 1]));
    act_ok(
        &client,
        "servo_type_text",
        &id,
        json!({"selector": "#name", "text": "fresh", "clear": true}),
    )
    .await;
    assert_eq!(field(&client, &id, "#name").await, json!(["fresh", 5, 5]));

    // A script's selection is where the user's typing goes.
    eval(
        &client,
        &id,
        "document.querySelector('#name').setSelectionRange(1, 3)",
    )
    .await;
    type_text(&client, &id, "-").await;
    assert_eq!(field(&client, &id, "#name").await, json!(["f-sh", 2, 2]));

    // In a textarea the arrows move between lines, keeping the column where
    // the line is long enough, and Home and End work on the line.
    act_ok(&client, "servo_click", &id, json!({"selector": "#notes"})).await;
    press(&client, &id, &["Control+Home", "ArrowDown"]).await;
    assert_eq!(
        field(&client, &id, "#notes").await,
        json!(["line one\nline two", 9, 9])
    );
    press(&client, &id, &["End"]).await;
    type_text(&client, &id, "!").await;
    press(&client, &id, &["ArrowUp"]).await;
    type_text(&client, &id, ",").await;
    assert_eq!(
        field(&client, &id, "#notes").await,
        json!(["line one,\nline two!", 9, 9])
    );

    // maxlength stops typing at the limit wherever the caret is.
    act_ok(&client, "servo_click", &id, json!({"selector": "#code"})).await;
    press(&client, &id, &["Home"]).await;
    type_text(&client, &id, "xyz").await;
    assert_eq!(field(&client, &id, "#code").await, json!(["xyabcd", 2, 2]));

    // Tabbing into a text field selects its value, so typing replaces it.
    press(&client, &id, &["Shift+Tab", "Shift+Tab"]).await;
    assert_eq!(field(&client, &id, "#name").await, json!(["f-sh", 0, 4]));
    type_text(&client, &id, "A").await;
    assert_eq!(field(&client, &id, "#name").await, json!(["A", 1, 1]));

    let types = eval(&client, &id, "[...new Set(inputTypes)].sort()").await;
    assert_eq!(
        types,
        json!([
            "deleteContentBackward",
            "deleteContentForward",
            "deleteWordBackward",
            "insertText"
        ])
    );
}
