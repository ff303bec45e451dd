//! A session holding every kind of durable state a checkpoint carries — an
//! HttpOnly login cookie, localStorage, an IndexedDB record, a form field, the
//! scroll position and the URL — and a check of each value after a restore.
//! The chaos tests in `lifecycle` open these, break the fleet, and check them all.

use serde_json::{Value, json};

use crate::harness::{Client, call, first};

/// Writes the state; resolves once the IndexedDB transaction committed.
const WRITE: &str = r#"
localStorage.setItem('k', VALUE);
document.getElementById('field').value = 'field-' + VALUE;
window.scrollTo(0, 321);
new Promise((resolve, reject) => {
  const open = indexedDB.open('chaos', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('records', { keyPath: 'id' });
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const tx = open.result.transaction('records', 'readwrite');
    tx.objectStore('records').put({ id: 1, value: VALUE, at: new Date(86400000) });
    tx.oncomplete = () => resolve('stored');
    tx.onerror = () => reject(tx.error);
  };
})"#;

/// Reads every value back.
const READ: &str = r#"
new Promise((resolve, reject) => {
  const open = indexedDB.open('chaos');
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const get = open.result.transaction('records').objectStore('records').get(1);
    get.onerror = () => reject(get.error);
    get.onsuccess = () => resolve({
      local: localStorage.getItem('k'),
      record: get.result ? [get.result.value, get.result.at instanceof Date && get.result.at.getTime()] : null,
      field: document.getElementById('field').value,
      scrollY: window.scrollY,
      url: location.href,
      sentCookie: document.getElementById('cookie').textContent,
      pageCookie: document.cookie,
    });
  };
})"#;

/// A session with state keyed by `value`.
pub struct Stateful {
    pub id: String,
    pub value: String,
    site: String,
}

impl Stateful {
    /// Logs in on the fixture site (an HttpOnly `sid` cookie), opens `/app`, and
    /// writes the rest of the state.
    pub async fn open(client: &Client, site: &str, value: &str) -> Stateful {
        let (out, _) = call(
            client,
            "servo_navigate",
            json!({"actions": [{"url": format!("{site}/login-as?v={value}")}]}),
        )
        .await;
        assert_eq!(first(&out)["ok"], true, "{out:#}");
        let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
        let (out, _) = call(
            client,
            "servo_navigate",
            json!({"actions": [{"sessionID": id, "url": format!("{site}/app")}]}),
        )
        .await;
        assert_eq!(first(&out)["ok"], true, "{out:#}");
        let script = WRITE.replace("VALUE", &format!("{value:?}"));
        let (out, _) = call(
            client,
            "servo_evaluate",
            json!({"actions": [{"sessionID": id, "script": script}]}),
        )
        .await;
        assert_eq!(first(&out)["response"]["value"], "stored", "{out:#}");
        Stateful {
            id,
            value: value.to_owned(),
            site: site.to_owned(),
        }
    }

    /// What [`Stateful::read`] must return.
    pub fn expected(&self) -> Value {
        json!({
            "local": self.value,
            "record": [self.value, 86_400_000],
            "field": format!("field-{}", self.value),
            "scrollY": 321,
            "url": format!("{}/app", self.site),
            "sentCookie": format!("sid={}", self.value),
            "pageCookie": "",
        })
    }

    /// Reads every value through the fleet.
    pub async fn read(&self, client: &Client) -> Value {
        let (out, _) = call(
            client,
            "servo_evaluate",
            json!({"actions": [{"sessionID": self.id, "script": READ}]}),
        )
        .await;
        assert_eq!(first(&out)["ok"], true, "{out:#}");
        first(&out)["response"]["value"].clone()
    }

    /// Asserts every value survived; `when` names the scenario in the message.
    pub async fn check(&self, client: &Client, when: &str) {
        assert_eq!(
            self.read(client).await,
            self.expected(),
            "session {} {when}",
            self.id
        );
    }
}
