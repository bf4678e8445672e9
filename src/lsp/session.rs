//! Documents and settings. Document state changes synchronously, before any
//! `.await`, so notifications that interleave never see a half-applied edit.

use crate::analysis::AnalysisOptions;
use crate::formats::{Analysis, DocumentKind};
use crate::text::PositionEncoding;
use ropey::Rope;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use tower_lsp_server::ls_types::{Position, TextDocumentContentChangeEvent, Uri};

#[derive(Debug, Clone)]
pub struct Document {
    pub rope: Rope,
    pub version: i32,
    pub language_id: String,
    /// Its format and role (`None`: not a permission config), found when
    /// it is opened and again after each change.
    pub kind: Option<DocumentKind>,
}

/// An immutable copy of a document for analysis off the handler.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub uri: Uri,
    pub text: Arc<str>,
    pub version: i32,
    pub kind: Option<DocumentKind>,
    /// The session generation the snapshot was taken at.
    pub generation: u64,
}

#[derive(Debug, Default)]
pub struct Session {
    documents: RwLock<HashMap<Uri, Document>>,
    settings: RwLock<Settings>,
    /// Bumped by every change that can change any document's findings:
    /// an edit, an open or close, a file changed on disk, new settings.
    generation: std::sync::atomic::AtomicU64,
    /// The latest analysis per document, with the version and generation
    /// it was made for.
    analyses: std::sync::Mutex<HashMap<Uri, CachedAnalysis>>,
    /// One lock per document held while its analysis is computed: a hover
    /// or code action that needs the analysis a refresh is computing waits
    /// for it instead of computing a second copy alongside.
    computing: std::sync::Mutex<HashMap<Uri, Arc<std::sync::Mutex<()>>>>,
    /// `shutdown` was received (the exit status after `exit` depends on it).
    pub shutdown_requested: Arc<std::sync::atomic::AtomicBool>,
}

/// Documents from this size on have their replaced analysis freed on a
/// thread of its own; smaller ones at once (a hand-over costs more).
const RETIRE_FROM: usize = 64 << 10;

/// Frees a replaced analysis: at once when small (or still shared), else
/// on one long-lived thread that does nothing else.
fn retire(old: Arc<Analysis>, text_len: usize) {
    static RETIRED: std::sync::OnceLock<Option<std::sync::mpsc::Sender<Arc<Analysis>>>> =
        std::sync::OnceLock::new();
    if text_len < RETIRE_FROM || Arc::strong_count(&old) > 1 {
        return;
    }
    let sender = RETIRED.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Arc<Analysis>>();
        std::thread::Builder::new()
            .name("retired analyses".into())
            .spawn(move || rx.into_iter().for_each(drop))
            .ok()
            .map(|_| tx)
    });
    // No thread (a process limit): freed here.
    if let Some(tx) = sender {
        let _ = tx.send(old);
    }
}

#[derive(Debug, Clone)]
struct CachedAnalysis {
    version: i32,
    generation: u64,
    analysis: Arc<Analysis>,
}

#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub encoding: PositionEncoding,
    pub analysis: AnalysisOptions,
    /// The first workspace folder (the session cwd for simulation).
    pub workspace_root: Option<std::path::PathBuf>,
    /// The client accepts snippet completions.
    pub snippets: bool,
    /// The client can register file watchers dynamically.
    pub watch_files: bool,
    /// The decision logs to replay in the editor.
    pub history: crate::lsp::history::HistorySettings,
}

impl Session {
    /// A session that records a received `shutdown` in `flag`.
    pub fn with_shutdown_flag(flag: Arc<std::sync::atomic::AtomicBool>) -> Self {
        Session {
            shutdown_requested: flag,
            ..Session::default()
        }
    }

    pub fn settings(&self) -> Settings {
        self.settings.read().map(|s| s.clone()).unwrap_or_default()
    }

    pub fn update_settings(&self, f: impl FnOnce(&mut Settings)) {
        if let Ok(mut s) = self.settings.write() {
            f(&mut s);
        }
        self.bump();
    }

    /// Marks every cached analysis as possibly stale.
    pub fn bump(&self) {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The cached analysis of a snapshot, if it is still valid.
    pub fn cached_analysis(&self, snapshot: &Snapshot) -> Option<Arc<Analysis>> {
        let cache = self.analyses.lock().ok()?;
        let c = cache.get(&snapshot.uri)?;
        (c.version == snapshot.version && c.generation == snapshot.generation)
            .then(|| c.analysis.clone())
    }

    /// The lock to hold while computing `uri`'s analysis.
    pub fn computing_lock(&self, uri: &Uri) -> Arc<std::sync::Mutex<()>> {
        let mut map = self.computing.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(uri.clone()).or_default().clone()
    }

    /// Keeps an analysis for reuse by hover, code actions, symbols, lenses.
    pub fn store_analysis(&self, snapshot: &Snapshot, analysis: Arc<Analysis>) {
        let replaced = match self.analyses.lock() {
            Ok(mut cache) => {
                let newer = cache.get(&snapshot.uri).is_some_and(|c| {
                    (c.version, c.generation) > (snapshot.version, snapshot.generation)
                });
                if newer {
                    return;
                }
                cache.insert(
                    snapshot.uri.clone(),
                    CachedAnalysis {
                        version: snapshot.version,
                        generation: snapshot.generation,
                        analysis,
                    },
                )
            }
            Err(_) => return,
        };
        // Freed outside the lock (readers wait for it), and a large one
        // off the keystroke's path: freeing a 10,000-rule tree and its
        // findings took a twentieth of the keystroke.
        if let Some(old) = replaced {
            retire(old.analysis, snapshot.text.len());
        }
    }

    pub fn open(&self, uri: Uri, text: &str, version: i32, language_id: String) {
        let kind = document_kind(&uri, text);
        if let Ok(mut docs) = self.documents.write() {
            docs.insert(
                uri,
                Document {
                    rope: Rope::from_str(text),
                    version,
                    language_id,
                    kind,
                },
            );
        }
        self.bump();
    }

    pub fn close(&self, uri: &Uri) -> bool {
        if let Ok(mut cache) = self.analyses.lock() {
            cache.remove(uri);
        }
        if let Ok(mut computing) = self.computing.lock() {
            computing.remove(uri);
        }
        self.bump();
        self.documents
            .write()
            .map(|mut d| d.remove(uri).is_some())
            .unwrap_or(false)
    }

    /// The open documents that are permission configs, with their kinds.
    pub fn config_uris(&self) -> Vec<Uri> {
        self.documents
            .read()
            .map(|d| {
                d.iter()
                    .filter(|(_, doc)| doc.kind.is_some())
                    .map(|(u, _)| u.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn uris(&self) -> Vec<Uri> {
        self.documents
            .read()
            .map(|d| d.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Applies `didChange` events. Returns `Err` with a reason when the
    /// document is unknown or the version is older than the one held.
    pub fn change(
        &self,
        uri: &Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
        enc: PositionEncoding,
    ) -> Result<(), String> {
        let mut docs = self
            .documents
            .write()
            .map_err(|_| "document store poisoned".to_string())?;
        let doc = docs.get_mut(uri).ok_or_else(|| {
            format!(
                "didChange for a document that is not open: {}",
                uri.as_str()
            )
        })?;
        if version < doc.version {
            return Err(format!(
                "didChange version {version} is older than the open version {}; ignored",
                doc.version
            ));
        }
        for change in changes {
            match change.range {
                None => doc.rope = Rope::from_str(&change.text),
                Some(range) => {
                    let a = char_index(&doc.rope, range.start, enc);
                    let b = char_index(&doc.rope, range.end, enc);
                    let (a, b) = (a.min(b), a.max(b));
                    doc.rope.remove(a..b);
                    doc.rope.insert(a, &change.text);
                }
            }
        }
        doc.version = version;
        // The `$schema` near the start can change what the document is.
        let head_chars = doc.rope.len_chars().min(4096);
        let head = doc.rope.slice(..head_chars).to_string();
        doc.kind = document_kind(uri, &head);
        drop(docs);
        self.bump();
        Ok(())
    }

    pub fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        let docs = self.documents.read().ok()?;
        let doc = docs.get(uri)?;
        let text: Arc<str> = Arc::from(doc.rope.to_string());
        Some(Snapshot {
            uri: uri.clone(),
            text,
            version: doc.version,
            kind: doc.kind,
            generation: self.generation(),
        })
    }

    /// The text of an open document at a file path (open buffers win over disk).
    pub fn open_text_by_path(&self, path: &std::path::Path) -> Option<String> {
        let docs = self.documents.read().ok()?;
        docs.iter()
            .find(|(uri, _)| uri.to_file_path().is_some_and(|p| p == path))
            .map(|(_, d)| d.rope.to_string())
    }

    pub fn version(&self, uri: &Uri) -> Option<i32> {
        self.documents.read().ok()?.get(uri).map(|d| d.version)
    }
}

/// A position -> char index in the rope; clamps past-the-end lines and columns.
fn char_index(rope: &Rope, p: Position, enc: PositionEncoding) -> usize {
    let line = p.line as usize;
    if line >= rope.len_lines() {
        return rope.len_chars();
    }
    let line_start = rope.line_to_char(line);
    let line_slice = rope.line(line);
    // The line's length without its terminator.
    let mut line_len = line_slice.len_chars();
    while line_len > 0 && matches!(line_slice.char(line_len - 1), '\n' | '\r') {
        line_len -= 1;
    }
    let col = p.character as usize;
    let mut units = 0usize;
    for (i, ch) in line_slice.chars().take(line_len).enumerate() {
        let w = match enc {
            PositionEncoding::Utf16 => ch.len_utf16(),
            PositionEncoding::Utf8 => ch.len_utf8(),
        };
        if units + w > col {
            return line_start + i;
        }
        units += w;
    }
    line_start + line_len
}

/// By location first, then by a `$schema` that names the runtime (the
/// registry asks each format).
pub fn document_kind(uri: &Uri, text: &str) -> Option<DocumentKind> {
    let decoded = percent_decode(uri.path().as_str());
    crate::formats::detect(&decoded, text)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (
                (b[i + 1] as char).to_digit(16),
                (b[i + 2] as char).to_digit(16),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
