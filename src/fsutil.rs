//! Atomic file writes: write a temporary file next to the target, flush it
//! to disk, then rename it over the target. A crash at any point leaves
//! either the old file or the new one, never half of each.
//!
//! The temporary files are named `.agentlab-tmp-<random>`: one left by a
//! killed process is recognised as ours and removed at a later start
//! ([`remove_stale_temps`]) once it is old enough not to be a live writer's.
//! Writers that read, change and write a file take [`lock_exclusive`] on a
//! sibling lock file first.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{anyhow, Context, Result};

/// Name prefix of every temporary file agentlab writes.
pub const TEMP_PREFIX: &str = ".agentlab-tmp-";
/// A temporary file older than this is a leftover (a live write takes milliseconds).
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(5 * 60);

pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes).with_context(|| format!("writing {}", tmp.path().display()))?;
    tmp.as_file().sync_all().with_context(|| format!("writing {}", tmp.path().display()))?;
    tmp.persist(path).with_context(|| format!("replacing {}", path.display()))?;
    // Make the rename itself durable (best effort: not every platform can open a directory).
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// An exclusive lock on `path` (created, with its directory, if missing),
/// held until the returned file is dropped. Waits up to `wait` for another
/// holder; then the error says so.
pub fn lock_exclusive(path: &Path, wait: Duration) -> Result<File> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .with_context(|| format!("opening the lock file {}", path.display()))?;
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < wait => {
                std::thread::sleep(Duration::from_millis(10))
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(anyhow!(
                    "another agentlab kept {} locked for {:.0} s (it is saving the same file)",
                    path.display(),
                    wait.as_secs_f64()
                ))
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", path.display()));
            }
        }
    }
}

/// Whether `name` is one of our temporary files: `.agentlab-tmp-*`, or
/// `.tmpXXXXXX` as builds before the prefix named them.
fn is_our_temp(name: &str) -> bool {
    if name.starts_with(TEMP_PREFIX) {
        return true;
    }
    name.strip_prefix(".tmp").is_some_and(|r| r.len() == 6 && r.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Remove our temporary files in `dir` (not below it) last modified more than
/// `older_than` ago: leftovers of a killed write. Best effort; returns how many
/// were removed.
pub fn remove_stale_temps(dir: &Path, older_than: Duration) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let now = SystemTime::now();
    let mut removed = 0;
    for e in entries.flatten() {
        if !e.file_name().to_str().is_some_and(is_our_temp) {
            continue;
        }
        let Ok(meta) = e.metadata() else { continue };
        let old = meta.modified().ok().and_then(|m| now.duration_since(m).ok()).is_some_and(|age| age > older_than);
        if meta.is_file() && old && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_whole_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a/b.json");
        write_atomic(&p, b"first, longer content").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "second");
        // No temporary files are left behind.
        assert_eq!(std::fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
    }

    #[test]
    fn only_old_temp_files_of_ours_are_removed() {
        let d = tempfile::tempdir().unwrap();
        let old = SystemTime::now() - Duration::from_secs(3600);
        let make = |name: &str, aged: bool| {
            let f = File::create(d.path().join(name)).unwrap();
            if aged {
                f.set_modified(old).unwrap();
            }
        };
        make(".agentlab-tmp-abc123", true); // ours, stale
        make(".tmpAb12Cd", true); // ours from an older build, stale
        make(".agentlab-tmp-live01", false); // a live writer's
        make(".tmp-other-tool", true); // not our naming
        make("progress.json", true);
        assert_eq!(remove_stale_temps(d.path(), STALE_TEMP_AGE), 2);
        let mut left: Vec<String> =
            std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        assert_eq!(left, [".agentlab-tmp-live01", ".tmp-other-tool", "progress.json"]);
        assert_eq!(remove_stale_temps(&d.path().join("missing"), STALE_TEMP_AGE), 0);
    }

    #[test]
    fn a_held_lock_makes_the_next_writer_wait_then_say_so() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.lock");
        let held = lock_exclusive(&p, Duration::ZERO).unwrap();
        let err = lock_exclusive(&p, Duration::from_millis(30)).unwrap_err();
        assert!(format!("{err:#}").contains("another agentlab kept"), "{err:#}");
        drop(held);
        assert!(lock_exclusive(&p, Duration::ZERO).is_ok());
    }
}
