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

/// Open `path` for reading only if it is a regular file: a FIFO, a device
/// or a socket in its place would block the read (or never end), so it is
/// refused with an error that says what it is. (The open itself does not
/// block: it is non-blocking until the file's type is known.)
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let f = options.open(path)?;
    let kind = f.metadata()?.file_type();
    if !kind.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, not_regular(path, &kind)));
    }
    #[cfg(unix)]
    {
        // Back to blocking reads (a regular file never blocks; this keeps it ordinary).
        use std::os::unix::io::AsRawFd;
        // SAFETY: fcntl on a descriptor this function owns, with flags it read from it.
        unsafe {
            let fd = f.as_raw_fd();
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
    Ok(f)
}

/// "… is a FIFO, not a regular file".
fn not_regular(path: &Path, kind: &std::fs::FileType) -> String {
    #[cfg(unix)]
    let what = {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            "fs-kind-fifo"
        } else if kind.is_socket() {
            "fs-kind-socket"
        } else if kind.is_char_device() || kind.is_block_device() {
            "fs-kind-device"
        } else if kind.is_dir() {
            "fs-kind-dir"
        } else {
            "fs-kind-other"
        }
    };
    #[cfg(not(unix))]
    let what = if kind.is_dir() { "fs-kind-dir" } else { "fs-kind-other" };
    crate::t!("fs-not-regular", path = path.display().to_string(), what = crate::i18n::tr(what, None))
}

/// The bytes of a regular file (see [`open_regular`]), at most `limit` of
/// them: a longer file is refused with an error that says its size.
pub fn read_regular(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let f = open_regular(path)?;
    let mut bytes = Vec::new();
    f.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            crate::t!("fs-too-large", path = path.display().to_string(), limit = limit.to_string()),
        ));
    }
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text.
pub fn read_regular_text(path: &Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read_regular(path, limit)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()))
}

/// Whether `path` is a regular file (following links; a FIFO is not).
pub fn is_regular(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Another process held a lock for the whole wait: a save can be tried again.
#[derive(Debug, Clone, PartialEq)]
pub struct Busy {
    pub path: std::path::PathBuf,
    pub waited: Duration,
}

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = format!("{:.0}", self.waited.as_secs_f64());
        f.write_str(&crate::t!("fs-lock-busy", path = self.path.display().to_string(), secs = secs))
    }
}

impl std::error::Error for Busy {}

/// An exclusive lock on `path` (created, with its directory, if missing),
/// held until the returned file is dropped. Waits up to `wait` for another
/// holder; then the error says so.
pub fn lock_exclusive(path: &Path, wait: Duration) -> Result<File> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    // A FIFO in the lock file's place must not block the open.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).with_context(|| format!("opening the lock file {}", path.display()))?;
    let kind = file.metadata().with_context(|| format!("opening the lock file {}", path.display()))?.file_type();
    if !kind.is_file() {
        return Err(anyhow!(not_regular(path, &kind)));
    }
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < wait => {
                std::thread::sleep(Duration::from_millis(10))
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Busy { path: path.to_path_buf(), waited: wait }.into())
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
