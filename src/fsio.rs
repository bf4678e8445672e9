//! Opening files that anyone may have put in a configured place.
//!
//! A path is opened first and what was opened is checked after (no
//! `metadata` then `open` race that a swap for a FIFO could win). Opening
//! never blocks (a FIFO without a writer would), only regular files are
//! read unless a stream is asked for, and every read is capped, so
//! `/dev/zero`, a FIFO or a file that grows while it is read can neither
//! hang the caller nor exhaust its memory.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// It could not be opened or read.
    Io(io::Error),
    /// It is a directory, a device, a FIFO or a socket.
    NotRegular(&'static str),
    /// It holds more than the cap.
    TooLarge(u64),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::NotRegular(what) => write!(f, "not a regular file ({what})"),
            ReadError::TooLarge(max) => write!(f, "larger than {max} bytes, not read"),
        }
    }
}

impl std::error::Error for ReadError {}

/// What an opened path turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    Regular,
    /// A pipe or FIFO (only with `allow_stream`).
    Stream,
}

/// Opens `path` for reading without blocking and checks what was opened:
/// a regular file, or with `allow_stream` a pipe or FIFO (read as a stream;
/// a FIFO without a writer reads as empty instead of blocking).
pub fn open(path: &Path, allow_stream: bool) -> Result<(File, Opened), ReadError> {
    open_sized(path, allow_stream).map(|(file, opened, _)| (file, opened))
}

/// `open`, with the file's length when it is a regular file.
fn open_sized(path: &Path, allow_stream: bool) -> Result<(File, Opened, u64), ReadError> {
    if let Some(code) = remembered_missing(path) {
        return Err(ReadError::Io(io::Error::from_raw_os_error(code)));
    }
    let file = open_nonblocking(path).map_err(|e| {
        remember_missing(path, &e);
        ReadError::Io(e)
    })?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    let ft = meta.file_type();
    if ft.is_file() {
        // Non-blocking changes nothing for a regular file's reads.
        return Ok((file, Opened::Regular, meta.len()));
    }
    if !(allow_stream && is_stream(&ft)) {
        return Err(ReadError::NotRegular(describe(&ft)));
    }
    set_blocking(&file).map_err(ReadError::Io)?;
    Ok((file, Opened::Stream, 0))
}

/// The bytes of the regular file at `path`, at most `max` of them.
pub fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let (file, _, len) = open_sized(path, false)?;
    if len > max {
        return Err(ReadError::TooLarge(max));
    }
    // The file may grow while it is read: the cap holds regardless.
    let mut reader = file.take(max + 1);
    let bytes = if len < ONE_READ_BELOW {
        read_sized(&mut reader, len as usize)
    } else {
        let mut bytes = Vec::with_capacity(len as usize);
        reader.read_to_end(&mut bytes).map(|_| bytes)
    }
    .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge(max));
    }
    Ok(bytes)
}

/// Files smaller than this are read into a buffer one byte longer than
/// their size (zeroed first, which costs nothing at this size).
const ONE_READ_BELOW: u64 = 64 << 10;

/// The bytes of a regular file of `len` bytes, usually in one read: the
/// buffer has room for one more byte, so a read that stops at `len` bytes
/// has met the end the size promised and no read is spent seeing it. A
/// file that grew is read on to its end; one that came up short (a read
/// may return less than asked) is read until it ends.
fn read_sized(reader: &mut impl Read, len: usize) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0u8; len + 1];
    let mut filled = 0;
    loop {
        match reader.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => {
                filled += n;
                if filled == bytes.len() {
                    // Longer than when it was opened.
                    reader.read_to_end(&mut bytes)?;
                    return Ok(bytes);
                }
                if filled == len {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(filled);
    Ok(bytes)
}

/// The first `n` bytes of the regular file at `path` (fewer if shorter).
pub fn read_head(path: &Path, n: usize) -> Result<Vec<u8>, ReadError> {
    let (file, _, _) = open_sized(path, false)?;
    let mut buf = Vec::with_capacity(n);
    file.take(n as u64)
        .read_to_end(&mut buf)
        .map_err(ReadError::Io)?;
    Ok(buf)
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

#[cfg(unix)]
fn set_blocking(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is a descriptor owned by `file` for the whole call;
    // F_GETFL and F_SETFL read and change only its status flags.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn set_blocking(_: &File) -> io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn is_stream(ft: &std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    ft.is_fifo()
}

#[cfg(not(unix))]
fn is_stream(_: &std::fs::FileType) -> bool {
    false
}

/// What is at `path` when it is neither a regular file nor a directory (a
/// FIFO, a device, a socket, a symlink loop or a link to nothing), for a
/// notice; `None` for a file, a directory, or nothing there.
pub fn not_a_file(path: &Path) -> Option<&'static str> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() || m.is_dir() => None,
        Ok(m) => Some(describe(&m.file_type())),
        Err(_) => match std::fs::symlink_metadata(path) {
            Ok(l) if l.file_type().is_symlink() => {
                Some("a symlink that leads nowhere (or in a loop)")
            }
            _ => None,
        },
    }
}

fn describe(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_char_device() || ft.is_block_device() {
            return "a device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// Reads a file the way the runtimes do (UTF-8, invalid bytes as U+FFFD);
/// `None` when it is not a regular file, cannot be read, or is larger than
/// `max` bytes.
pub fn read_text(path: &Path, max: u64) -> Option<String> {
    read_capped(path, max)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// What a path names, following links; `Missing` with the error's code
/// (not found, not a directory, no permission, a loop; 0 when the system
/// gave none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    /// A FIFO, a device or a socket.
    Other,
    Missing(i32),
}

/// Lookups remembered while one command runs over files that do not
/// change meanwhile (a `check` over a thousand projects asks for the same
/// home and system files, and for each project's ancestors, again and
/// again). Only the thread that entered them, and the workers it hands
/// them to, use them; without them every lookup goes to the file system
/// (the language server, whose files change under it).
#[derive(Default)]
pub struct Lookups {
    // Keyed by the path's bytes: paths compare by their parts, and `a/f/`
    // (not a directory: an error) is not `a/f`.
    kinds: Mutex<rustc_hash::FxHashMap<std::ffi::OsString, Kind>>,
    real: Mutex<rustc_hash::FxHashMap<std::ffi::OsString, Option<PathBuf>>>,
    cwd: OnceLock<Option<PathBuf>>,
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Lookups>>> = const { RefCell::new(None) };
}

/// The current thread uses some lookups until this is dropped.
pub struct Entered {
    previous: Option<Arc<Lookups>>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

impl Lookups {
    /// New, empty lookups.
    pub fn new() -> Arc<Lookups> {
        Arc::new(Lookups::default())
    }

    /// The calling thread remembers its lookups here until the guard is
    /// dropped (entering again on the same thread nests).
    pub fn enter(self: &Arc<Self>) -> Entered {
        let previous = CURRENT.with(|c| c.borrow_mut().replace(Arc::clone(self)));
        Entered { previous }
    }

    /// The lookups the calling thread uses, if any (to hand to workers).
    pub fn current() -> Option<Arc<Lookups>> {
        CURRENT.with(|c| c.borrow().clone())
    }
}

fn with_lookups<R>(f: impl FnOnce(&Lookups) -> R) -> Option<R> {
    CURRENT.with(|c| c.borrow().as_deref().map(f))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while the map was held left it whole (inserts only).
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn remembered_missing(path: &Path) -> Option<i32> {
    with_lookups(|l| match lock(&l.kinds).get(path.as_os_str()) {
        Some(Kind::Missing(code)) if *code != 0 => Some(*code),
        _ => None,
    })
    .flatten()
}

fn remember_missing(path: &Path, e: &io::Error) {
    if let Some(code) = e.raw_os_error()
        && matches!(
            e.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
        )
    {
        with_lookups(|l| lock(&l.kinds).insert(path.as_os_str().to_owned(), Kind::Missing(code)));
    }
}

/// What `path` names, following links (`std::fs::metadata`).
pub fn kind(path: &Path) -> Kind {
    if let Some(Some(k)) = with_lookups(|l| lock(&l.kinds).get(path.as_os_str()).copied()) {
        return k;
    }
    let k = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Kind::File,
        Ok(m) if m.is_dir() => Kind::Dir,
        Ok(_) => Kind::Other,
        Err(e) => Kind::Missing(e.raw_os_error().unwrap_or(0)),
    };
    with_lookups(|l| lock(&l.kinds).insert(path.as_os_str().to_owned(), k));
    k
}

/// `std::fs::metadata`; a path remembered as missing is not asked again.
pub fn metadata(path: &Path) -> io::Result<std::fs::Metadata> {
    if let Some(code) = remembered_missing(path) {
        return Err(io::Error::from_raw_os_error(code));
    }
    std::fs::metadata(path).inspect_err(|e| remember_missing(path, e))
}

/// `std::fs::read_dir`; a path remembered as missing is not asked again.
pub fn read_dir(path: &Path) -> io::Result<std::fs::ReadDir> {
    if let Some(code) = remembered_missing(path) {
        return Err(io::Error::from_raw_os_error(code));
    }
    std::fs::read_dir(path).inspect_err(|e| remember_missing(path, e))
}

/// `Path::exists`: something is there (following links).
pub fn exists(path: &Path) -> bool {
    !matches!(kind(path), Kind::Missing(_))
}

/// `Path::is_dir`.
pub fn is_dir(path: &Path) -> bool {
    kind(path) == Kind::Dir
}

/// `Path::is_file`.
pub fn is_file(path: &Path) -> bool {
    kind(path) == Kind::File
}

/// `std::fs::canonicalize`, `None` where it fails.
pub fn real_path(path: &Path) -> Option<PathBuf> {
    let Some(remembered) = with_lookups(|l| lock(&l.real).get(path.as_os_str()).cloned()) else {
        return std::fs::canonicalize(path).ok();
    };
    if let Some(r) = remembered {
        return r;
    }
    let r = real_by_parts(path);
    with_lookups(|l| lock(&l.real).insert(path.as_os_str().to_owned(), r.clone()));
    r
}

/// `canonicalize` from the parent's remembered real path: one `lstat` for
/// the last part instead of a `readlink` for every part. Only for a plain
/// absolute path (no `.`, `..` or trailing slash, which the system
/// resolves); a link is resolved by the system.
fn real_by_parts(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let plain = path.is_absolute()
        && !path.as_os_str().as_encoded_bytes().ends_with(b"/")
        && path
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    let (Some(parent), Some(name), true) = (path.parent(), path.file_name(), plain) else {
        return std::fs::canonicalize(path).ok();
    };
    let joined = real_path(parent)?.join(name);
    match std::fs::symlink_metadata(&joined) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(&joined).ok(),
        Ok(_) => Some(joined),
        Err(_) => None,
    }
}

/// `std::path::absolute`, the working directory looked up once per
/// lookups.
pub fn absolute(path: &Path) -> io::Result<PathBuf> {
    if path.is_absolute() || path.as_os_str().is_empty() {
        return std::path::absolute(path);
    }
    match with_lookups(|l| l.cwd.get_or_init(|| std::env::current_dir().ok()).clone()) {
        Some(Some(cwd)) => std::path::absolute(cwd.join(path)),
        _ => std::path::absolute(path),
    }
}

/// The nearest folder holding `.git`, from `dir` up.
pub fn git_root(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| exists(&d.join(".git")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives at most `step` bytes per read.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
        reads: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.reads += 1;
            let n = buf.len().min(self.step).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_file_of_its_size_is_read_once_and_any_other_to_its_end() {
        let data = b"0123456789";
        let read = |len: usize, step: usize| {
            let mut r = Trickle {
                data,
                step,
                reads: 0,
            };
            let bytes = read_sized(&mut r, len).unwrap();
            (bytes, r.reads)
        };
        // As long as its size: one read.
        assert_eq!(read(10, 100), (data.to_vec(), 1));
        // Short reads: on until the size.
        assert_eq!(read(10, 3).0, data.to_vec());
        // Grown since its size was taken (a size of 0: a system file
        // that does not know its size): to its end.
        assert_eq!(read(4, 100).0, data.to_vec());
        assert_eq!(read(0, 100).0, data.to_vec());
        assert_eq!(read(0, 1).0, data.to_vec());
        // Shrunk: what there is.
        let mut r = Trickle {
            data: b"abc",
            step: 100,
            reads: 0,
        };
        assert_eq!(read_sized(&mut r, 10).unwrap(), b"abc");
    }

    #[test]
    fn regular_files_are_read_and_capped() {
        let dir = std::env::temp_dir().join(format!("fsio-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.json");
        std::fs::write(&p, b"0123456789").unwrap();
        assert_eq!(read_capped(&p, 10).unwrap(), b"0123456789");
        assert!(matches!(read_capped(&p, 9), Err(ReadError::TooLarge(9))));
        assert_eq!(read_head(&p, 4).unwrap(), b"0123");
        assert!(matches!(
            read_capped(&dir, 10),
            Err(ReadError::NotRegular(_) | ReadError::Io(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lookups_are_remembered_only_where_entered() {
        let dir = std::env::temp_dir().join(format!("fsio-lookups-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let later = dir.join("later.json");
        let git = dir.join("sub/.git");
        // Without lookups every answer is the file system's own.
        assert!(!exists(&later));
        std::fs::write(&later, b"{}").unwrap();
        assert!(exists(&later) && is_file(&later) && !is_dir(&later));
        std::fs::remove_file(&later).unwrap();
        let lookups = Lookups::new();
        {
            let _in = lookups.enter();
            assert!(Lookups::current().is_some());
            assert!(read_capped(&later, 10).is_err());
            assert_eq!(git_root(&dir.join("sub")), None);
            // Created after it was looked for: still missing for this run,
            // with the error the system gave.
            std::fs::write(&later, b"{}").unwrap();
            std::fs::create_dir_all(&git).unwrap();
            match read_capped(&later, 10) {
                Err(ReadError::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::NotFound),
                other => panic!("{other:?}"),
            }
            assert!(metadata(&later).is_err() && read_dir(&later).is_err());
            assert_eq!(git_root(&dir.join("sub")), None);
            {
                // Entering again nests; leaving restores the outer.
                let _again = lookups.enter();
                assert!(!exists(&git));
            }
            assert!(Lookups::current().is_some());
            // Another thread without them sees the file system.
            let other = dir.clone();
            assert!(
                std::thread::spawn(move || exists(&other.join("later.json")))
                    .join()
                    .unwrap()
            );
            // Files that exist are read every time (their bytes are not kept).
            let here = dir.join("here.json");
            std::fs::write(&here, b"1").unwrap();
            assert_eq!(read_capped(&here, 10).unwrap(), b"1");
            std::fs::write(&here, b"22").unwrap();
            assert_eq!(read_capped(&here, 10).unwrap(), b"22");
            assert_eq!(
                absolute(Path::new("x")).unwrap(),
                std::env::current_dir().unwrap().join("x")
            );
        }
        assert!(Lookups::current().is_none());
        assert!(exists(&later));
        assert_eq!(git_root(&dir.join("sub")), Some(dir.join("sub").as_path()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn real_paths_by_parts_are_the_systems() {
        let dir = std::env::temp_dir().join(format!("fsio-real-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("a/f"), b"").unwrap();
        std::os::unix::fs::symlink(dir.join("a"), dir.join("link")).unwrap();
        std::os::unix::fs::symlink("a/b", dir.join("rel")).unwrap();
        std::os::unix::fs::symlink(dir.join("loop"), dir.join("loop")).unwrap();
        std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("dangling")).unwrap();
        let cases = [
            "a",
            "a/b",
            "a/f",
            "a/f/",
            "a/f/x",
            "a/b/",
            "link",
            "link/b",
            "link/f",
            "rel",
            "rel/..",
            "a/./b",
            "a/b/../f",
            "loop",
            "loop/x",
            "dangling",
            "missing",
            "missing/x",
            "a//b",
        ];
        let lookups = Lookups::new();
        let _in = lookups.enter();
        for case in cases {
            let p = dir.join(case);
            let want = std::fs::canonicalize(&p).ok();
            assert_eq!(real_path(&p), want, "{case}");
            // Asked again: remembered, the same.
            assert_eq!(real_path(&p), want, "{case} again");
        }
        // A file's path with a trailing slash names nothing.
        assert!(is_file(&dir.join("a/f")));
        assert!(!exists(&dir.join("a/f/")));
        assert!(is_dir(&dir.join("a/b/")));
        drop(_in);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_refused_without_blocking() {
        assert!(matches!(
            read_capped(Path::new("/dev/zero"), 10),
            Err(ReadError::NotRegular("a device"))
        ));
        let dir = std::env::temp_dir().join(format!("fsio-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("f");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // No writer: refused as a file, read as an empty stream — no hang.
        assert!(matches!(
            read_capped(&fifo, 10),
            Err(ReadError::NotRegular("a FIFO"))
        ));
        let (mut f, kind) = open(&fifo, true).unwrap();
        assert_eq!(kind, Opened::Stream);
        let mut s = String::new();
        f.read_to_string(&mut s).unwrap();
        assert_eq!(s, "");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
