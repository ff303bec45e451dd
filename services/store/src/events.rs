//! The session event bus: workers publish what a session's actions caused
//! (encoded `fleet.v1.SessionEvent`s, opaque here), gateways stream them to
//! whoever watches the session. Redis pub/sub in a fleet (a channel per
//! session under the fleet's key prefix), a broadcast channel per session in
//! one process. Delivery is best effort: nothing is stored, so a watcher
//! sees what is published while it listens.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use futures::StreamExt as _;
use futures::stream::BoxStream;

use crate::{RedisRouting, StoreError};

/// A watcher's events, in the order they were published.
pub type EventStream = BoxStream<'static, Vec<u8>>;

/// Events a watcher of one process may fall behind by before it misses some.
const BACKLOG: usize = 256;

/// Publishing and watching sessions' events.
#[async_trait]
pub trait Events: Send + Sync {
    /// Sends `event` to the session's watchers, if any.
    async fn publish(&self, session_id: &str, event: Vec<u8>) -> Result<(), StoreError>;
    /// Sends several sessions' events, in order (one round trip to Redis).
    async fn publish_all(&self, events: Vec<(String, Vec<u8>)>) -> Result<(), StoreError> {
        for (session_id, event) in events {
            self.publish(&session_id, event).await?;
        }
        Ok(())
    }
    /// The session's events from now on.
    async fn subscribe(&self, session_id: &str) -> Result<EventStream, StoreError>;
}

/// Events within one process.
#[derive(Default)]
pub struct MemoryEvents {
    channels: Mutex<HashMap<String, tokio::sync::broadcast::Sender<Vec<u8>>>>,
}

impl MemoryEvents {
    fn channels(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, tokio::sync::broadcast::Sender<Vec<u8>>>> {
        // The map holds no invariant a panic could break halfway.
        self.channels
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl Events for MemoryEvents {
    async fn publish(&self, session_id: &str, event: Vec<u8>) -> Result<(), StoreError> {
        let mut channels = self.channels();
        if let Some(tx) = channels.get(session_id)
            && tx.send(event).is_err()
        {
            // Nobody listens any more.
            channels.remove(session_id);
        }
        Ok(())
    }

    async fn subscribe(&self, session_id: &str) -> Result<EventStream, StoreError> {
        let rx = self
            .channels()
            .entry(session_id.to_owned())
            .or_insert_with(|| tokio::sync::broadcast::channel(BACKLOG).0)
            .subscribe();
        Ok(futures::stream::unfold(rx, |mut rx| async move {
            loop {
                match rx.recv().await {
                    Ok(event) => return Some((event, rx)),
                    // A slow watcher skips what it missed and goes on.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                }
            }
        })
        .boxed())
    }
}

impl RedisRouting {
    fn events_channel(&self, session_id: &str) -> String {
        format!("{}events:{session_id}", self.prefix)
    }
}

#[async_trait]
impl Events for RedisRouting {
    async fn publish(&self, session_id: &str, event: Vec<u8>) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let _: i64 = redis::cmd("PUBLISH")
            .arg(self.events_channel(session_id))
            .arg(event)
            .query_async(&mut conn)
            .await?;
        Ok(())
    }

    async fn publish_all(&self, events: Vec<(String, Vec<u8>)>) -> Result<(), StoreError> {
        let mut pipe = redis::pipe();
        for (session_id, event) in events {
            pipe.cmd("PUBLISH")
                .arg(self.events_channel(&session_id))
                .arg(event)
                .ignore();
        }
        let mut conn = self.conn.clone();
        let () = pipe.query_async(&mut conn).await?;
        Ok(())
    }

    async fn subscribe(&self, session_id: &str) -> Result<EventStream, StoreError> {
        // A subscribed connection can do nothing else: one per watcher.
        let mut pubsub = self.client.get_async_pubsub().await?;
        pubsub.subscribe(self.events_channel(session_id)).await?;
        let (sink, stream) = pubsub.split();
        // The sink is kept with the stream: dropping it would end the
        // subscription.
        Ok(stream
            .map(move |msg| {
                let _subscribed = &sink;
                msg.get_payload_bytes().to_vec()
            })
            .boxed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn next(stream: &mut EventStream) -> Vec<u8> {
        tokio::time::timeout(std::time::Duration::from_secs(5), stream.next())
            .await
            .expect("an event in time")
            .expect("the stream goes on")
    }

    #[tokio::test]
    async fn a_watcher_gets_its_sessions_events_in_order_and_no_others() {
        let events = MemoryEvents::default();
        events.publish("s1", b"before".to_vec()).await.unwrap();
        let mut s1 = events.subscribe("s1").await.unwrap();
        events.publish("s2", b"other".to_vec()).await.unwrap();
        events.publish("s1", b"one".to_vec()).await.unwrap();
        events.publish("s1", b"two".to_vec()).await.unwrap();
        assert_eq!(next(&mut s1).await, b"one");
        assert_eq!(next(&mut s1).await, b"two");
    }

    #[tokio::test]
    async fn redis_carries_a_sessions_events_under_the_fleets_prefix() {
        let url = std::env::var("FLEET_TEST_REDIS_URL")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        let prefix = format!("events-{}:", uuid::Uuid::new_v4().simple());
        let redis = RedisRouting::connect(&format!("{url}/15"), &prefix)
            .await
            .unwrap();
        let other = RedisRouting::connect(&format!("{url}/15"), "another-fleet:")
            .await
            .unwrap();
        let mut watched = redis.subscribe("s1").await.unwrap();
        other.publish("s1", b"not ours".to_vec()).await.unwrap();
        redis.publish("s1", b"one".to_vec()).await.unwrap();
        redis
            .publish_all(vec![
                ("s1".into(), b"two".to_vec()),
                ("s2".into(), b"elsewhere".to_vec()),
                ("s1".into(), b"three".to_vec()),
            ])
            .await
            .unwrap();
        assert_eq!(next(&mut watched).await, b"one");
        assert_eq!(next(&mut watched).await, b"two");
        assert_eq!(next(&mut watched).await, b"three");
    }
}
