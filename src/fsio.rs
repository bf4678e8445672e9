//! Opening files that anyone may have put in a configured place.
//!
//! A path is opened first and what was opened is checked after (no
//! `metadata` then `open` race that a swap for a FIFO could win). Opening
//! never blocks (a FIFO without a writer would), only regular files are
//! read unless a stream is asked for, and every read is capped, so
//! `/dev/zero`, a FIFO or a file that grows while it is read can neither
//! hang the caller nor exhaust its memory.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

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
    let file = open_nonblocking(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    let ft = meta.file_type();
    let opened = if ft.is_file() {
        Opened::Regular
    } else if allow_stream && is_stream(&ft) {
        Opened::Stream
    } else {
        return Err(ReadError::NotRegular(describe(&ft)));
    };
    set_blocking(&file).map_err(ReadError::Io)?;
    Ok((file, opened))
}

/// The bytes of the regular file at `path`, at most `max` of them.
pub fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let (file, _) = open(path, false)?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > max {
        return Err(ReadError::TooLarge(max));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // The file may grow while it is read: the cap holds regardless.
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge(max));
    }
    Ok(bytes)
}

/// The first `n` bytes of the regular file at `path` (fewer if shorter).
pub fn read_head(path: &Path, n: usize) -> Result<Vec<u8>, ReadError> {
    let (file, _) = open(path, false)?;
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

#[cfg(test)]
mod tests {
    use super::*;

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
