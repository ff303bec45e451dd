//! Linux process memory as the bench reports it: resident (RSS) and proportional (PSS)
//! set sizes of one process or of a whole process tree, read from `/proc`.
//!
//! PSS is the figure to compare across browsers: Chromium is a tree of processes that
//! share libraries and zygote-forked pages, so summing RSS over its tree counts every
//! shared page once per process, while PSS splits each shared page between its sharers.

use std::collections::{HashMap, HashSet};
use std::fs;

use anyhow::{Context as _, Result, bail};

/// A Linux process id, as `std::process::Child::id` reports it.
pub type Pid = u32;

/// The resident set size of `pid` in bytes (`VmRSS` in `/proc/<pid>/status`).
pub fn rss_bytes(pid: Pid) -> Result<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("reading /proc/{pid}/status"))?;
    kib_field(&status, "VmRSS:")
        .map(|kib| kib * 1024)
        .with_context(|| format!("no VmRSS in /proc/{pid}/status (a kernel thread or a zombie?)"))
}

/// The proportional set size of `pid` in bytes, from `/proc/<pid>/smaps_rollup`.
///
/// Falls back to RSS where `smaps_rollup` is missing (kernels before 4.14) or unreadable
/// (another user's process without `CAP_SYS_PTRACE`), which overstates shared memory
/// but keeps a bench running rather than failing on a figure it can approximate.
pub fn pss_bytes(pid: Pid) -> Result<u64> {
    rollup_bytes(pid, "Pss:").map_or_else(|| rss_bytes(pid), Ok)
}

/// One field of `/proc/<pid>/smaps_rollup` in bytes, if the kernel reports it.
fn rollup_bytes(pid: Pid, field: &str) -> Option<u64> {
    fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|text| kib_field(&text, field))
        .map(|kib| kib * 1024)
}

/// The anonymous part of `pid`'s PSS in bytes (`Pss_Anon` in `smaps_rollup`):
/// heaps and wasm linear memories, not file mappings. Unlike the whole PSS it
/// does not move when another process maps or unmaps the same files (the
/// compiled engine, Chromium's libraries), so growth read from it is what the
/// process itself added. Falls back to the whole PSS where the kernel does not
/// report it (before 5.7).
pub fn pss_anon_bytes(pid: Pid) -> Result<u64> {
    rollup_bytes(pid, "Pss_Anon:").map_or_else(|| pss_bytes(pid), Ok)
}

/// `pid` followed by all of its living descendants (children, grandchildren, ...),
/// found by walking the parent links in `/proc/*/stat`.
///
/// The answer is a snapshot: a process forked or reaped while `/proc` is read may be
/// missing or may already be gone when its memory is read, which the `tree_*` sums
/// tolerate.
pub fn tree(pid: Pid) -> Result<Vec<Pid>> {
    tree_except(pid, &[])
}

/// Like [`tree`], but prunes the subtrees rooted at `except`.
///
/// A bench that runs the fleet in-process and also launches Chromium as its own child
/// needs this to measure itself without counting the Chromium it is comparing against.
pub fn tree_except(pid: Pid, except: &[Pid]) -> Result<Vec<Pid>> {
    if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
        bail!("process {pid} does not exist");
    }
    let mut children: HashMap<Pid, Vec<Pid>> = HashMap::new();
    for (child, parent) in all_parent_links()? {
        children.entry(parent).or_default().push(child);
    }
    let except: HashSet<Pid> = except.iter().copied().collect();
    let mut out = Vec::new();
    let mut stack = vec![pid];
    // A pid can only have one parent, so the walk cannot revisit a node; the set guards
    // against a pid being reused mid-scan and showing up under two parents.
    let mut seen = HashSet::new();
    while let Some(next) = stack.pop() {
        if except.contains(&next) || !seen.insert(next) {
            continue;
        }
        out.push(next);
        if let Some(kids) = children.get(&next) {
            stack.extend(kids.iter().rev().copied());
        }
    }
    Ok(out)
}

/// Every process whose command line contains `needle`, e.g. a unique directory that only
/// one browser's processes are started with.
///
/// Finds what [`tree`] cannot: helpers that double-fork away from their parent (such as
/// Chromium's crash handler, which ends up a child of init).
pub fn find_by_cmdline(needle: &str) -> Result<Vec<Pid>> {
    let mut found = Vec::new();
    for (pid, dir) in processes()? {
        // Arguments are NUL-separated; a needle without NULs matches within one of them.
        let Ok(cmdline) = fs::read(dir.join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(pid);
        }
    }
    found.sort_unstable();
    Ok(found)
}

/// The summed PSS of `pid` and all its descendants, in bytes.
pub fn tree_pss(pid: Pid) -> Result<u64> {
    Ok(sum_pss(&tree(pid)?))
}

/// The summed PSS of `pids`, in bytes, skipping any that exited before being read.
pub fn sum_pss(pids: &[Pid]) -> u64 {
    pids.iter().filter_map(|&pid| pss_bytes(pid).ok()).sum()
}

/// The summed anonymous PSS of `pids` ([`pss_anon_bytes`]), in bytes, skipping
/// any that exited before being read.
pub fn sum_pss_anon(pids: &[Pid]) -> u64 {
    pids.iter()
        .filter_map(|&pid| pss_anon_bytes(pid).ok())
        .sum()
}

/// The summed RSS of `pids`, in bytes, skipping any that exited before being read.
pub fn sum_rss(pids: &[Pid]) -> u64 {
    pids.iter().filter_map(|&pid| rss_bytes(pid).ok()).sum()
}

/// Whether `pid` names a process that has not exited. A zombie (exited, not yet reaped)
/// counts as gone: it holds no memory and runs no code.
pub fn is_alive(pid: Pid) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => parse_stat(&stat).is_some_and(|(state, _)| state != 'Z' && state != 'X'),
        Err(_) => false,
    }
}

/// Every process now: its pid and its `/proc` directory.
fn processes() -> Result<Vec<(Pid, std::path::PathBuf)>> {
    let mut out = Vec::new();
    for entry in fs::read_dir("/proc").context("listing /proc")? {
        let Ok(entry) = entry else { continue };
        if let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<Pid>().ok())
        {
            out.push((pid, entry.path()));
        }
    }
    Ok(out)
}

/// Every process's `(pid, ppid)`, skipping entries that vanish during the scan.
fn all_parent_links() -> Result<Vec<(Pid, Pid)>> {
    let mut links = Vec::new();
    for (pid, dir) in processes()? {
        let Ok(stat) = fs::read_to_string(dir.join("stat")) else {
            continue;
        };
        if let Some((_, ppid)) = parse_stat(&stat) {
            links.push((pid, ppid));
        }
    }
    Ok(links)
}

/// The state letter and parent pid from a `/proc/<pid>/stat` line.
fn parse_stat(stat: &str) -> Option<(char, Pid)> {
    // The command name sits in parentheses and may itself hold spaces and ')', so the
    // fields are counted from the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

/// The value of a `Name:   123 kB` line, in KiB.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn stat_parsing_survives_a_command_name_with_spaces_and_parens() {
        let line = "1234 (we) ird (name) S 77 1234 1234 0 -1 4194560 0 0";
        assert_eq!(parse_stat(line), Some(('S', 77)));
    }

    #[test]
    fn kib_fields_are_read_by_their_exact_name() {
        let text = "Rss:                5000 kB\nPss:                1234 kB\nPss_Anon:   99 kB\n";
        assert_eq!(kib_field(text, "Pss:"), Some(1234));
        assert_eq!(kib_field(text, "Missing:"), None);
    }

    #[test]
    fn own_process_has_nonzero_rss_and_pss_not_above_rss_by_much() {
        let me = std::process::id();
        let rss = rss_bytes(me).unwrap();
        let pss = pss_bytes(me).unwrap();
        assert!(rss > 0 && pss > 0);
        // PSS never exceeds RSS; the slack covers pages faulted in between the reads.
        assert!(pss <= rss + 16 * 1024 * 1024, "pss {pss} rss {rss}");
    }

    #[test]
    fn tree_starts_with_the_root_and_includes_a_spawned_child() {
        let me = std::process::id();
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let pids = tree(me).unwrap();
        assert_eq!(pids.first(), Some(&me));
        assert!(pids.contains(&child.id()));
        let pruned = tree_except(me, &[child.id()]).unwrap();
        assert!(!pruned.contains(&child.id()));
        // Other tests of this process allocate between the two reads, so the
        // root's own PSS may move a little; without the root the tree would
        // hold only `sleep`'s few hundred KiB.
        let own = pss_bytes(me).unwrap();
        let whole = tree_pss(me).unwrap();
        assert!(whole >= own - own / 4, "tree {whole}, root alone {own}");
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!is_alive(child.id()));
    }

    #[test]
    fn processes_are_found_by_a_unique_argument() {
        let marker = format!("procmem-marker-{}", std::process::id());
        // The shell blocks in its `read` builtin: it neither execs nor forks, so no
        // second process (a forked child before its exec) can carry the marker too.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "read _", &marker])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // `spawn` can return while the child is still inside execve, before its new
        // argument pages exist and while its cmdline reads empty, so look a few times.
        let mut found = Vec::new();
        for _ in 0..200 {
            found = find_by_cmdline(&marker).unwrap();
            if !found.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(found, vec![child.id()]);
    }

    #[test]
    fn a_missing_process_is_an_error_not_an_empty_tree() {
        // Linux pid_max is at most 2^22, so this pid cannot exist.
        assert!(tree(u32::MAX - 1).is_err());
        assert!(rss_bytes(u32::MAX - 1).is_err());
    }
}
