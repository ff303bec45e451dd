//! `servo-fleet bench`: the fleet measured side by side with headless Chromium in
//! the same run, so every figure is a ratio taken on the same noisy machine.
//! [`suite`] holds the rows, [`load`] the load test, [`chromium`] the CDP driver,
//! [`compare`] the change between two reports, [`pixels`] how screenshots are compared.
//! [`fidelity`] holds the engine-fidelity corpus tooling: its server, the goldens
//! taken from Chromium (`servo-fleet goldens`) and the comparison with them.

pub mod chromium;
pub mod compare;
pub mod corpus;
pub mod fidelity;
pub mod fleet;
pub mod load;
pub mod mcp;
pub mod pixels;
pub mod procmem;
pub mod realworld;
pub mod stats;
pub mod suite;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;
use fleet_telemetry::outln;
use serde::Serialize;

/// The bench's flags.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchConfig {
    /// Fewer samples and sizes (memory at 1 and 10 sessions): under two minutes.
    #[arg(long, env = "FLEET_BENCH_QUICK")]
    pub quick: bool,
    /// Also write the report as JSON to this file (`-` for stdout instead of the table).
    #[arg(long, env = "FLEET_BENCH_JSON")]
    pub json: Option<PathBuf>,
    /// At most this many samples per row, one round of each page, memory at 1
    /// and 2 sessions: checks that every row of the bench still runs (its
    /// figures mean little).
    #[arg(long, env = "FLEET_BENCH_SAMPLES")]
    pub samples: Option<usize>,
    /// Compare two reports written with `--json` instead of running anything:
    /// prints every row's change from OLD to NEW.
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"])]
    pub compare: Option<Vec<PathBuf>>,
    /// Run the load test instead of the suite.
    #[arg(long, env = "FLEET_BENCH_LOAD")]
    pub load: bool,
    /// Concurrent sessions of the load test.
    #[arg(long, env = "FLEET_BENCH_SESSIONS", default_value_t = 200)]
    pub sessions: usize,
    /// Actions per session of the load test.
    #[arg(long, env = "FLEET_BENCH_ACTIONS", default_value_t = 20)]
    pub actions: usize,
    /// Compare the engine with Chromium on the real-world corpus (every page of
    /// tests/realworld/pages.json) instead of running the suite; exits non-zero
    /// when a page fails or the mean text F1 is under the bar.
    #[arg(long, env = "FLEET_BENCH_REALWORLD")]
    pub realworld: bool,
    /// With --realworld: only the pages `make test` checks.
    #[arg(long, env = "FLEET_BENCH_REALWORLD_SUBSET")]
    pub realworld_subset: bool,
    /// With --realworld: only the page with this id (repeatable), e.g. to
    /// check one fix against Chromium without running the whole corpus.
    #[arg(long = "realworld-page", value_name = "ID")]
    pub realworld_pages: Vec<String>,
    /// The folder scripts/realworld.sh installed the real-world pages into
    /// (default ~/.cache/servo-fleet/realworld); the suite's real-page rows and
    /// --realworld read them.
    #[arg(long, env = "FLEET_REALWORLD_DIR")]
    pub realworld_dir: Option<PathBuf>,
    /// Headless Chromium to compare with (default: Debian's /usr/bin/chromium).
    #[arg(long, env = "FLEET_BENCH_CHROMIUM")]
    pub chromium: Option<PathBuf>,
    /// Postgres database for the benchmark's fleet (created if missing).
    #[arg(
        long = "database-url",
        env = "FLEET_DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/servo_fleet_bench"
    )]
    pub database_url: String,
    /// Redis for the benchmark's fleet.
    #[arg(
        long = "redis-url",
        env = "FLEET_REDIS_URL",
        default_value = "redis://127.0.0.1:6379/0"
    )]
    pub redis_url: String,
    /// Extra environment for the fleet's processes, `NAME=VALUE`, repeatable
    /// (e.g. `--fleet-env OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4317`
    /// to measure a call with tracing on).
    #[arg(long = "fleet-env", value_parser = parse_env)]
    pub fleet_env: Vec<(String, String)>,
}

fn parse_env(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?} must be NAME=VALUE"))?;
    if name.is_empty() {
        return Err(format!("{text:?} must be NAME=VALUE"));
    }
    Ok((name.to_owned(), value.to_owned()))
}

/// The machine a report was measured on.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    /// Logical CPUs.
    pub cpus: usize,
    /// Total memory, GiB.
    pub memory_gib: f64,
}

/// One run's report, as printed and as JSON.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// When it ran (UTC, RFC 3339).
    pub date: String,
    /// Where it ran.
    pub machine: Machine,
    /// The command line.
    pub command: String,
    /// The suite, when it ran.
    pub suite: Option<suite::SuiteReport>,
    /// The load test, when it ran.
    pub load: Option<load::LoadReport>,
}

fn machine() -> Machine {
    let memory_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .unwrap_or(0.0);
    Machine {
        cpus: std::thread::available_parallelism().map_or(1, usize::from),
        memory_gib: (memory_kib / 1024.0 / 1024.0 * 10.0).round() / 10.0,
    }
}

/// Creates the benchmark's database if the server does not have it yet.
async fn ensure_database(url: &str) -> anyhow::Result<()> {
    use sqlx::Connection as _;
    let parsed = url::Url::parse(url).context("--database-url is not a URL")?;
    let name = parsed.path().trim_start_matches('/').to_owned();
    anyhow::ensure!(
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
        "--database-url must name a database of letters, digits and underscores"
    );
    let mut admin_url = parsed.clone();
    admin_url.set_path("/postgres");
    let mut admin = sqlx::postgres::PgConnection::connect(admin_url.as_str())
        .await
        .with_context(|| {
            format!(
                "Postgres at {} does not answer",
                admin_url.host_str().unwrap_or("?")
            )
        })?;
    let exists: Option<(i32,)> = sqlx::query_as("SELECT 1 FROM pg_database WHERE datname = $1")
        .bind(&name)
        .fetch_optional(&mut admin)
        .await?;
    if exists.is_none() {
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut admin)
            .await
            .with_context(|| format!("creating database {name}"))?;
    }
    Ok(())
}

/// Runs the suite or the load test, prints the table to stdout and progress to
/// stderr, and writes JSON where asked. `binary` is the servo-fleet executable the
/// fleet's processes are started from.
pub async fn run(config: BenchConfig, binary: PathBuf) -> anyhow::Result<()> {
    if let Some(files) = &config.compare {
        let [old, new] = files.as_slice() else {
            anyhow::bail!("--compare takes two reports: OLD.json NEW.json");
        };
        let table = compare::files(old, new)?;
        outln!("{}", table.trim_end_matches('\n'))?;
        return Ok(());
    }
    ensure_database(&config.database_url).await?;
    let fleet = fleet::FleetConfig {
        binary,
        database_url: config.database_url.clone(),
        redis_url: config.redis_url.clone(),
        capacity: 128,
        extra_env: config.fleet_env.clone(),
    };
    let mut report = Report {
        date: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        machine: machine(),
        command: std::env::args().collect::<Vec<_>>().join(" "),
        suite: None,
        load: None,
    };
    if config.realworld {
        return realworld_run(&config, &fleet).await;
    }
    if config.load {
        let limit = Duration::from_secs(600);
        report.load = Some(load::run(&fleet, config.sessions, config.actions, limit).await?);
    } else {
        report.suite = Some(
            suite::run(&suite::SuiteConfig {
                quick: config.quick,
                samples: config.samples,
                chromium: config.chromium.clone(),
                fleet,
                realworld_dir: realworld_dir(&config)?,
            })
            .await?,
        );
    }
    let json = serde_json::to_string_pretty(&report)?;
    match config.json.as_deref() {
        Some(p) if p.as_os_str() == "-" => outln!("{json}")?,
        other => {
            outln!("{}", render(&report))?;
            if let Some(path) = other {
                std::fs::write(path, json + "\n")
                    .with_context(|| format!("writing {}", path.display()))?;
            }
        }
    }
    if let Some(suite) = &report.suite {
        let failed = suite.failed_checks();
        anyhow::ensure!(
            failed.is_empty(),
            "the two sides' outputs differ on {} check(s): {}",
            failed.len(),
            failed
                .iter()
                .map(|c| format!("{} — {}: {}", c.row, c.what, c.detail))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    Ok(())
}

/// `--realworld-dir`, or where scripts/realworld.sh installs by default.
fn realworld_dir(config: &BenchConfig) -> anyhow::Result<PathBuf> {
    match &config.realworld_dir {
        Some(dir) => Ok(dir.clone()),
        None => Ok(std::env::home_dir()
            .context("no home folder: pass --realworld-dir")?
            .join(".cache/servo-fleet/realworld")),
    }
}

/// `--realworld`: the corpus through a fleet of two workers and in Chromium,
/// page by page; the table goes to stdout.
async fn realworld_run(config: &BenchConfig, fleet: &fleet::FleetConfig) -> anyhow::Result<()> {
    let pages_dir = realworld_dir(config)?;
    let corpus = realworld::Corpus::open(Path::new("tests/realworld"), &pages_dir)?;
    let mut pages = corpus.pages(config.realworld_subset);
    if !config.realworld_pages.is_empty() {
        pages.retain(|p| config.realworld_pages.contains(&p.id));
        anyhow::ensure!(
            pages.len() == config.realworld_pages.len(),
            "--realworld-page names a page tests/realworld/pages.json does not have"
        );
    }
    let running = fleet::Fleet::start(fleet, 2).await?;
    let chromium = chromium::Chromium::launch(chromium::LaunchOptions {
        binary: config.chromium.clone(),
        extra_args: vec!["--hide-scrollbars".into()],
        ..chromium::LaunchOptions::default()
    })
    .await
    .context("headless Chromium could not be started (scripts/chromium.sh installs it)")?;
    let mcp = mcp::Mcp::connect(&running.gateway, &running.key).await?;
    let verdicts = realworld::check(&corpus, &pages, &chromium, &mcp, |v| {
        eprintln!(
            "realworld: {} {}",
            v.id,
            if v.passed() { "ok" } else { "FAIL" }
        );
    })
    .await;
    if let Err(e) = chromium.close().await {
        tracing::warn!(error = %e, "Chromium did not close cleanly");
    }
    running.stop().await;
    let verdicts = verdicts?;
    outln!("{}", realworld::table(&verdicts))?;
    if let Some(path) = &config.json {
        std::fs::write(path, serde_json::to_string_pretty(&verdicts)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    anyhow::ensure!(
        realworld::meets_the_bar(&verdicts),
        "the engine differs from Chromium on the real-world corpus (the table is above)"
    );
    Ok(())
}

/// The report as text: the machine, then the tables.
pub fn render(report: &Report) -> String {
    let mut out = format!(
        "servo-fleet bench, {} on {} CPUs / {} GiB\n$ {}\n",
        report.date, report.machine.cpus, report.machine.memory_gib, report.command
    );
    if let Some(suite) = &report.suite {
        out.push_str(&format!("\nvs {}\n\n", suite.chromium_version));
        out.push_str(&stats::table(&suite.rows));
        out.push_str("\noutputs compared\n\n");
        for check in &suite.checks {
            out.push_str(&format!(
                "{} {} — {}: {}\n",
                if check.passed { "ok  " } else { "FAIL" },
                check.row,
                check.what,
                check.detail
            ));
        }
        out.push_str("\nfleet only\n\n");
        for row in &suite.fleet_rows {
            out.push_str(&format!(
                "{}: p50 {} ({})\n",
                row.name,
                row.unit.format(row.summary.median),
                row.note
            ));
        }
    }
    if let Some(load) = &report.load {
        out.push_str(&format!(
            "\nload test: {} sessions × {} actions in {:.1} s ({:.0} actions/s)\n\
             errors {}{}\nlatency p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms\n\
             peak worker memory (two workers): PSS {:.0} MiB, RSS {:.0} MiB\n",
            load.sessions,
            load.actions_per_session,
            load.wall_secs,
            load.actions_per_sec,
            load.errors,
            if load.error_samples.is_empty() {
                String::new()
            } else {
                format!(" (first: {})", load.error_samples.join("; "))
            },
            load.latency_ms.median,
            load.latency_ms.p95,
            load.p99_ms,
            load.latency_ms.max,
            load.peak_worker_pss as f64 / 1024.0 / 1024.0,
            load.peak_worker_rss as f64 / 1024.0 / 1024.0,
        ));
        for kind in &load.by_action {
            out.push_str(&format!(
                "  {}: {} actions, p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms\n",
                kind.action,
                kind.latency_ms.count,
                kind.latency_ms.median,
                kind.latency_ms.p95,
                kind.p99_ms,
            ));
        }
    }
    out
}
