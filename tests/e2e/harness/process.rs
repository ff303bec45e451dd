//! The fleet's processes in tests: starting `servo-fleet` as a service that
//! is killed (and waited for) when dropped, running its CLI to completion,
//! and asking a process to shut down as Kubernetes does.

use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

use super::{BIN, cache_dir};

/// A child process killed when dropped.
pub struct Proc {
    pub child: Child,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        // Waits (briefly: the signal is SIGKILL) until it has exited, so what
        // it held — its database connections, its Redis database — is free
        // before the test drops the database or hands the Redis index on.
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while matches!(self.child.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

pub fn spawn(name: &str, args: &[&str], env: &[(&str, &str)]) -> Proc {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env("FLEET_ENGINE_CACHE_DIR", cache_dir())
        .env(
            "RUST_LOG",
            std::env::var("FLEET_TEST_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    Proc {
        child: cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}")),
    }
}

/// Runs the CLI to completion and returns (success, stdout, stderr).
pub async fn run_cli(args: &[&str]) -> (bool, String, String) {
    run_cli_env(args, &[]).await
}

/// [`run_cli`] with `env` added to its environment.
pub async fn run_cli_env(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Sends SIGTERM to a process of the fleet.
pub async fn sigterm(proc: &Proc) {
    let pid = proc.child.id().expect("the process is running");
    let status = tokio::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .await
        .unwrap();
    assert!(status.success());
}
