//! The reusable realm's unit test: a realm put back as it was made.

use super::*;

/// What `code` evaluates to in `realm`, as text.
fn eval(realm: &Realm, code: &str) -> String {
    let Some((context, _)) = realm.handles() else {
        return "no handles".to_owned();
    };
    context.with(|ctx| {
        ctx.eval::<rquickjs::Coerced<String>, _>(code)
            .catch(&ctx)
            .map_or_else(|e| format!("error: {}", describe(&e)), |text| text.0)
    })
}

/// The reusable realm is put back as it was made for each document that
/// takes it, whether `prepare` put it back or the next document did: no
/// global, prototype change or pending job of the last document is
/// left, its memory is given back, and Math.random does not repeat.
#[test]
fn a_reused_realm_is_put_back_as_it_was_made_for_each_document() {
    make_reusable().expect("the reusable realm is made");
    let saved = heap::footprint();
    let mut randoms = Vec::new();
    for document in 0..4 {
        let realm = take_reusable().expect("the reusable realm is free");
        assert_eq!(
            realm.with_env(|env| env.runtime.is_job_pending()),
            Some(false),
            "document {document}: a job of the last document is pending"
        );
        assert_eq!(
            eval(
                &realm,
                "[typeof leak, typeof [].extra, typeof big, typeof document.querySelector].join()"
            ),
            "undefined,undefined,undefined,function",
            "document {document}"
        );
        assert_eq!(heap::footprint(), saved, "document {document}");
        assert_eq!(
            eval(
                &realm,
                "globalThis.leak = 1; Array.prototype.extra = 2; \
                 globalThis.big = Array.from({ length: 100000 }, (_, i) => ({ i, s: 'x' + i })); \
                 Promise.resolve().then(() => { globalThis.late = 1; }); big.length"
            ),
            "100000"
        );
        assert!(
            heap::footprint().0 > saved.0 + 1024 * 1024,
            "the document used the heap"
        );
        randoms.push(eval(&realm, "String(Math.random())"));
        // The document goes: its realm is retired, and put back by
        // `prepare` (between calls) or by the next document.
        ENV.with(|env| *env.borrow_mut() = Some(realm));
        drop_realm();
        if document % 2 == 0 {
            prepare().expect("prepared");
            assert_eq!(
                REUSABLE.with(|r| r.borrow().as_ref().map(|r| r.state)),
                Some(Use::Fresh)
            );
        }
    }
    RETIRED.with(|retired| retired.borrow_mut().take());
    let mut distinct = randoms.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        randoms.len(),
        "Math.random repeated: {randoms:?}"
    );
}

/// Every global IndexedDB defines is behind its stub until a page uses
/// one: reading `indexedDB` evaluates IndexedDB and adds no global the
/// stub did not already show; Intl's objects come on first use too.
#[test]
fn indexeddb_adds_no_global_its_stub_did_not_show() {
    let runtime = Runtime::new().expect("a runtime");
    let realm = Realm::Own(new_env(runtime).expect("a realm"));
    let names = "Object.getOwnPropertyNames(globalThis).sort().join()";
    let before = eval(&realm, names);
    assert!(before.contains("IDBKeyRange"), "{before}");
    assert_eq!(
        eval(&realm, "typeof indexedDB.open + typeof IDBKeyRange.only"),
        "functionfunction"
    );
    assert_eq!(eval(&realm, names), before);
    assert_eq!(
        eval(&realm, "typeof Intl.Collator + (12345).toLocaleString()"),
        "function12,345"
    );
}
