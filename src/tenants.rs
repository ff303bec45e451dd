//! `servo-fleet tenants …`: set and show a tenant's limits. Gateways read them
//! within ten seconds; values not set fall back to the gateways' `--tenant-*`
//! flags.

use fleet_store::{StoreConfig, TenantLimits};

use crate::keys::open;
use fleet_telemetry::outln;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum TenantsCommand {
    /// Set limits of a tenant; limits not named keep their value. 0: no limit.
    Set {
        /// The tenant's name.
        tenant: String,
        /// Requests per second, sustained, across all gateways.
        #[arg(long = "requests-per-second")]
        requests_per_second: Option<u32>,
        /// Requests at once above the sustained rate.
        #[arg(long)]
        burst: Option<u32>,
        /// Open sessions (not closed, not expired).
        #[arg(long = "max-sessions")]
        max_sessions: Option<u32>,
        /// Calls running at once, across all gateways.
        #[arg(long = "max-in-flight")]
        max_in_flight: Option<u32>,
        #[command(flatten)]
        store: StoreConfig,
    },
    /// Show a tenant's stored limits (`default`: the gateways' flag applies).
    Show {
        /// The tenant's name.
        tenant: String,
        #[command(flatten)]
        store: StoreConfig,
    },
}

fn print(tenant: &str, l: &TenantLimits) -> std::io::Result<()> {
    let show = |v: Option<u32>| match v {
        None => "default".to_owned(),
        Some(0) => "0 (no limit)".to_owned(),
        Some(n) => n.to_string(),
    };
    outln!("tenant               {tenant}")?;
    outln!("requests-per-second  {}", show(l.requests_per_second))?;
    outln!("burst                {}", show(l.burst))?;
    outln!("max-sessions         {}", show(l.max_sessions))?;
    outln!("max-in-flight        {}", show(l.max_in_flight))
}

/// Runs one `tenants` subcommand.
pub(crate) async fn run(command: TenantsCommand) -> anyhow::Result<()> {
    match command {
        TenantsCommand::Set {
            tenant,
            requests_per_second,
            burst,
            max_sessions,
            max_in_flight,
            store,
        } => {
            let wanted = TenantLimits {
                requests_per_second,
                burst,
                max_sessions,
                max_in_flight,
            };
            if wanted == TenantLimits::default() {
                anyhow::bail!(
                    "name at least one limit: --requests-per-second, --burst, --max-sessions or --max-in-flight"
                );
            }
            let stored = open(&store)
                .await?
                .set_limits(tenant.trim(), wanted)
                .await?;
            print(tenant.trim(), &stored)?;
        }
        TenantsCommand::Show { tenant, store } => {
            let stored = open(&store).await?.limits_named(tenant.trim()).await?;
            print(tenant.trim(), &stored)?;
        }
    }
    Ok(())
}
