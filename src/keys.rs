//! `servo-fleet keys …`: create, list, revoke and rotate API keys in the SQL
//! store. A key is printed once, at creation; listings show its prefix only.

use anyhow::{Context as _, bail};
use fleet_store::{KeyInfo, SqlStore, StoreConfig, now_millis};
use fleet_telemetry::outln;

/// Longest lifetime or grace period a flag may give, days (ten years).
const MAX_DAYS: i64 = 3650;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum KeysCommand {
    /// Create an API key for a tenant (created if new) and print it once.
    Create {
        /// The tenant's name.
        #[arg(long, env = "FLEET_TENANT")]
        tenant: String,
        /// A name to tell the key by in listings (e.g. `ci`, `alice-laptop`).
        #[arg(long, default_value = "")]
        name: String,
        /// Lifetime, e.g. `90d`, `12h`, `30m`, `3600s`; none: it never expires.
        #[arg(long = "expires-in", value_parser = parse_duration_ms)]
        expires_in: Option<i64>,
        #[command(flatten)]
        store: StoreConfig,
    },
    /// List keys (prefix, tenant, name, created, last used, expiry, status);
    /// never the keys themselves.
    List {
        /// Only this tenant's keys.
        #[arg(long)]
        tenant: Option<String>,
        #[command(flatten)]
        store: StoreConfig,
    },
    /// Revoke a key by its listed prefix (or the whole key): it gets 401 from
    /// then on (a gateway that verified it lately trusts it for up to
    /// `--key-cache-secs`).
    Revoke {
        /// The key's prefix as `keys list` shows it, or the key.
        prefix: String,
        #[command(flatten)]
        store: StoreConfig,
    },
    /// Rotate a key: print a new key for the same tenant, name and expiry; the
    /// old key keeps working for the grace period, then expires.
    Rotate {
        /// The key's prefix as `keys list` shows it, or the key.
        prefix: String,
        /// How long the old key keeps working, e.g. `1h`, `7d`, `0s`.
        #[arg(long, default_value = "24h", value_parser = parse_duration_ms)]
        grace: i64,
        #[command(flatten)]
        store: StoreConfig,
    },
}

/// A duration such as `90d`, `12h`, `30m` or `45s`, in milliseconds.
fn parse_duration_ms(text: &str) -> Result<i64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("{text:?} needs a unit: s, m, h or d (e.g. 90d)"))?;
    let (number, unit) = text.split_at(split);
    let n: i64 = number
        .parse()
        .map_err(|_| format!("{text:?} must start with a whole number (e.g. 90d)"))?;
    let unit_ms: i64 = match unit {
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(format!("{text:?}: the unit must be s, m, h or d")),
    };
    let ms = n
        .checked_mul(unit_ms)
        .filter(|ms| *ms <= MAX_DAYS * 86_400_000)
        .ok_or_else(|| format!("{text:?} is longer than {MAX_DAYS} days"))?;
    Ok(ms)
}

/// The SQL store an admin command works on, migrated.
pub(crate) async fn open(store: &StoreConfig) -> anyhow::Result<SqlStore> {
    let url = store.database_url.as_deref().context(
        "--database-url (or FLEET_DATABASE_URL) is required, e.g. postgres://user@host/db",
    )?;
    let sql = SqlStore::connect(url)
        .await
        .context("opening the SQL store")?;
    sql.migrate().await.context("applying migrations")?;
    Ok(sql)
}

fn time(ms: Option<i64>) -> String {
    ms.and_then(chrono::DateTime::from_timestamp_millis)
        .map_or_else(
            || "-".to_owned(),
            |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        )
}

/// Prints a new key, which is shown only this once: when stdout's reader has
/// gone, no one saw it, so the command fails naming the stored key to revoke.
fn show_key(key: &str) -> anyhow::Result<()> {
    fleet_telemetry::console::secret(key).with_context(|| {
        format!(
            "the new key was stored but could not be printed, so no one has seen it: \
             revoke it with `servo-fleet keys revoke {}`",
            fleet_store::key_prefix(key)
        )
    })
}

fn row(k: &KeyInfo, now: i64) -> String {
    format!(
        "{:<12}  {:<16}  {:<16}  {:<20}  {:<20}  {:<20}  {}",
        k.prefix,
        k.tenant,
        if k.name.is_empty() { "-" } else { &k.name },
        time(Some(k.created_at)),
        time(k.last_used_at),
        time(k.expires_at),
        k.status(now).as_str()
    )
}

/// Runs one `keys` subcommand.
pub(crate) async fn run(command: KeysCommand) -> anyhow::Result<()> {
    match command {
        KeysCommand::Create {
            tenant,
            name,
            expires_in,
            store,
        } => {
            if tenant.trim().is_empty() {
                bail!("--tenant must not be empty");
            }
            let expires_at = expires_in.map(|ms| now_millis() + ms);
            let key = open(&store)
                .await?
                .create_named_key(tenant.trim(), name.trim(), expires_at)
                .await?;
            eprintln!(
                "created a key for tenant {:?}{}; it is shown only this once:",
                key.tenant.name,
                expires_at.map_or(String::new(), |e| format!(", expiring {}", time(Some(e))))
            );
            show_key(&key.key)?;
        }
        KeysCommand::List { tenant, store } => {
            let keys = open(&store).await?.list_keys(tenant.as_deref()).await?;
            let now = now_millis();
            outln!(
                "{:<12}  {:<16}  {:<16}  {:<20}  {:<20}  {:<20}  STATUS",
                "PREFIX",
                "TENANT",
                "NAME",
                "CREATED",
                "LAST USED",
                "EXPIRES"
            )?;
            for k in &keys {
                outln!("{}", row(k, now))?;
            }
        }
        KeysCommand::Revoke { prefix, store } => {
            let key = open(&store).await?.revoke_key(prefix.trim()).await?;
            eprintln!(
                "revoked {} of tenant {:?}; gateways stop accepting it within their --key-cache-secs",
                key.prefix, key.tenant
            );
        }
        KeysCommand::Rotate {
            prefix,
            grace,
            store,
        } => {
            let (new, old) = open(&store).await?.rotate_key(prefix.trim(), grace).await?;
            eprintln!(
                "rotated {} of tenant {:?}: it works until {}; the new key is shown only this once:",
                old.prefix,
                old.tenant,
                time(old.expires_at)
            );
            show_key(&new.key)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units_and_refuse_nonsense() {
        assert_eq!(parse_duration_ms("90d"), Ok(90 * 86_400_000));
        assert_eq!(parse_duration_ms("12h"), Ok(12 * 3_600_000));
        assert_eq!(parse_duration_ms("0s"), Ok(0));
        assert!(parse_duration_ms("90").unwrap_err().contains("unit"));
        assert!(
            parse_duration_ms("1w")
                .unwrap_err()
                .contains("s, m, h or d")
        );
        assert!(
            parse_duration_ms("-1d")
                .unwrap_err()
                .contains("whole number")
        );
        assert_eq!(parse_duration_ms("3650d"), Ok(3650 * 86_400_000));
        assert!(
            parse_duration_ms("3651d")
                .unwrap_err()
                .contains("3650 days")
        );
    }
}
