//! Per-tenant limits as stored: what `servo-fleet tenants set` wrote for a
//! tenant, each value optional (unset: the gateway's default). The gateway
//! enforces them (`fleet_gateway::limits`); the counters live in Redis
//! ([`crate::Limiter`]).

use sqlx::Row;

use crate::{SqlStore, StoreError, now_millis};

/// A tenant's limits; `None` is the gateway's default, `Some(0)` no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TenantLimits {
    /// Requests per second, sustained.
    pub requests_per_second: Option<u32>,
    /// Requests allowed at once above the sustained rate.
    pub burst: Option<u32>,
    /// Open (unexpired, unclosed) sessions.
    pub max_sessions: Option<u32>,
    /// Calls running at once.
    pub max_in_flight: Option<u32>,
}

impl TenantLimits {
    /// These limits with every unset value taken from `defaults`.
    pub fn or(self, defaults: TenantLimits) -> TenantLimits {
        TenantLimits {
            requests_per_second: self.requests_per_second.or(defaults.requests_per_second),
            burst: self.burst.or(defaults.burst),
            max_sessions: self.max_sessions.or(defaults.max_sessions),
            max_in_flight: self.max_in_flight.or(defaults.max_in_flight),
        }
    }
}

fn get(row: &sqlx::any::AnyRow, column: &str) -> Result<Option<u32>, StoreError> {
    let v: Option<i64> = row.try_get(column)?;
    Ok(v.map(|v| u32::try_from(v).unwrap_or(u32::MAX)))
}

impl SqlStore {
    /// The stored limits of a tenant (all unset when none were stored).
    pub(crate) async fn limits_of(&self, tenant_id: &str) -> Result<TenantLimits, StoreError> {
        let row = sqlx::query(
            "SELECT requests_per_second, burst, max_sessions, max_in_flight FROM tenant_limits WHERE tenant_id = $1",
        )
        .bind(tenant_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else {
            return Ok(TenantLimits::default());
        };
        Ok(TenantLimits {
            requests_per_second: get(&r, "requests_per_second")?,
            burst: get(&r, "burst")?,
            max_sessions: get(&r, "max_sessions")?,
            max_in_flight: get(&r, "max_in_flight")?,
        })
    }

    /// Sets the given limits of the tenant named `tenant` (values left `None`
    /// keep what was stored); returns what is stored now.
    pub async fn set_limits(
        &self,
        tenant: &str,
        limits: TenantLimits,
    ) -> Result<TenantLimits, StoreError> {
        let tenant = self.tenant_named(tenant).await?;
        let merged = limits.or(self.limits_of(&tenant.id).await?);
        let value = |v: Option<u32>| v.map(i64::from);
        sqlx::query(
            "INSERT INTO tenant_limits (tenant_id, requests_per_second, burst, max_sessions, max_in_flight, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (tenant_id) DO UPDATE SET requests_per_second = $2, burst = $3, max_sessions = $4, max_in_flight = $5, updated_at = $6",
        )
        .bind(&tenant.id)
        .bind(value(merged.requests_per_second))
        .bind(value(merged.burst))
        .bind(value(merged.max_sessions))
        .bind(value(merged.max_in_flight))
        .bind(now_millis())
        .execute(&self.pool)
        .await?;
        Ok(merged)
    }

    /// The stored limits of the tenant named `tenant`.
    pub async fn limits_named(&self, tenant: &str) -> Result<TenantLimits, StoreError> {
        let tenant = self.tenant_named(tenant).await?;
        self.limits_of(&tenant.id).await
    }

    async fn tenant_named(&self, name: &str) -> Result<crate::Tenant, StoreError> {
        let row = sqlx::query("SELECT id, name FROM tenants WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| {
                StoreError::InvalidConfig(format!(
                    "no tenant is named {name:?} (a tenant is created with its first key)"
                ))
            })?;
        Ok(crate::Tenant {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
        })
    }

    /// How many sessions the tenant has open (not closed, not expired).
    pub(crate) async fn open_session_count(&self, tenant_id: &str) -> Result<u64, StoreError> {
        let n: i64 = sqlx::query(
            "SELECT COUNT(*) AS n FROM sessions WHERE tenant_id = $1 AND expires_at > $2",
        )
        .bind(tenant_id)
        .bind(now_millis())
        .fetch_one(&self.pool)
        .await?
        .try_get("n")?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SessionStore;

    #[tokio::test]
    async fn limits_are_set_value_by_value_and_unset_ones_fall_back_to_defaults() {
        let s = SqlStore::connect("sqlite::memory:").await.unwrap();
        s.migrate().await.unwrap();
        assert!(
            s.set_limits("nobody", TenantLimits::default())
                .await
                .is_err()
        );
        let t = s.ensure_tenant("acme").await.unwrap();
        assert_eq!(s.limits_of(&t.id).await.unwrap(), TenantLimits::default());
        s.set_limits(
            "acme",
            TenantLimits {
                requests_per_second: Some(5),
                burst: Some(10),
                ..TenantLimits::default()
            },
        )
        .await
        .unwrap();
        let stored = s
            .set_limits(
                "acme",
                TenantLimits {
                    max_sessions: Some(3),
                    ..TenantLimits::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(
            stored,
            TenantLimits {
                requests_per_second: Some(5),
                burst: Some(10),
                max_sessions: Some(3),
                max_in_flight: None,
            }
        );
        let defaults = TenantLimits {
            requests_per_second: Some(100),
            burst: Some(200),
            max_sessions: Some(0),
            max_in_flight: Some(64),
        };
        assert_eq!(stored.or(defaults).max_in_flight, Some(64));
        assert_eq!(stored.or(defaults).requests_per_second, Some(5));

        s.create_session("a", &t.id, 800, 600, 60_000)
            .await
            .unwrap();
        s.create_session("b", &t.id, 800, 600, -1).await.unwrap();
        assert_eq!(
            s.open_session_count(&t.id).await.unwrap(),
            1,
            "expired ones do not count"
        );
    }
}
