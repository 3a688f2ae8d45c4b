//! One JSON value on stdin, as a hook or a status command is given it:
//! bounded in size and in time, never waiting on a writer that keeps the
//! pipe open.

use std::os::fd::AsFd;
use std::time::{Duration, Instant};

/// Why no whole JSON value was read.
#[derive(Debug, thiserror::Error)]
pub enum StdinError {
    /// No whole JSON value before the deadline.
    #[error("no complete JSON on stdin within {} s", .0.as_secs())]
    Late(Duration),
    /// Past the bound (in bytes).
    #[error("stdin holds more than {} KiB", .0 / 1024)]
    TooLarge(usize),
    /// Polling or reading failed.
    #[error("stdin cannot be read: {0}")]
    Read(#[source] std::io::Error),
}

/// Read stdin: at most `max` bytes, for at most `deadline`. Done at its end, or as
/// soon as what was read is a whole JSON value (a writer that leaves the
/// pipe open is not waited for). Never blocks past `until`: each read
/// follows a `poll` that says there is something to read.
pub fn read_json(fd: impl AsFd, max: usize, deadline: Duration) -> Result<Vec<u8>, StdinError> {
    let until = Instant::now() + deadline;
    use rustix::event::{poll, PollFd, PollFlags};
    use rustix::io::Errno;
    let fd = fd.as_fd();
    let mut out = Vec::new();
    // read into room never zeroed: zeroing the whole buffer was 16 page
    // faults, a tenth of the status line's, for the 1 KiB it takes
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(StdinError::Late(deadline));
        }
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match poll(&mut fds, left.as_millis().clamp(1, i32::MAX as u128) as i32) {
            Ok(0) | Err(Errno::INTR) => continue,
            Ok(_) => {}
            Err(e) => return Err(StdinError::Read(e.into())),
        }
        let spare = buf.spare_capacity_mut();
        let room = (max + 1 - out.len()).min(spare.len());
        match rustix::io::read_uninit(fd, &mut spare[..room]) {
            Ok(([], _)) => return Ok(out),
            Ok((read, _)) => {
                out.extend_from_slice(read);
                if out.len() > max {
                    return Err(StdinError::TooLarge(max));
                }
                let ends = out.iter().rev().find(|b| !b.is_ascii_whitespace()) == Some(&b'}');
                if ends && serde_json::from_slice::<serde::de::IgnoredAny>(&out).is_ok() {
                    return Ok(out);
                }
            }
            Err(Errno::INTR) | Err(Errno::AGAIN) => continue,
            Err(e) => return Err(StdinError::Read(e.into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn stdin_is_read_bounded_and_never_waited_for_past_its_deadline() {
        use std::os::unix::net::UnixStream;
        let soon = || Duration::from_millis(300);
        // a whole JSON value is enough: the writer may keep the pipe open
        // (were it waited for, the deadline would make it `Late`)
        let (mut w, r) = UnixStream::pair().unwrap();
        w.write_all(b"{\"a\": {\"b\": 1}}\n").unwrap();
        assert_eq!(
            read_json(&r, 1024, soon()).unwrap(),
            b"{\"a\": {\"b\": 1}}\n"
        );
        // half a value, and nothing more: the deadline
        let (mut w, r) = UnixStream::pair().unwrap();
        w.write_all(b"{\"a\": 1").unwrap();
        let late = read_json(&r, 1024, soon()).unwrap_err();
        assert!(matches!(late, StdinError::Late(_)), "{late:?}");
        assert!(late.to_string().contains("no complete JSON"), "{late}");
        // nothing at all, the writer gone: empty
        let (w, r) = UnixStream::pair().unwrap();
        drop(w);
        assert_eq!(read_json(&r, 1024, soon()).unwrap(), b"");
        // past the bound: refused without reading on
        let (mut w, r) = UnixStream::pair().unwrap();
        w.write_all(&[b' '; 2000]).unwrap();
        let big = read_json(&r, 1024, soon()).unwrap_err();
        assert!(matches!(big, StdinError::TooLarge(1024)), "{big:?}");
        assert_eq!(big.to_string(), "stdin holds more than 1 KiB");
        // an endless source (/dev/zero) is cut at the bound too
        let zero = std::fs::File::open("/dev/zero").unwrap();
        assert!(matches!(
            read_json(&zero, 4096, soon()),
            Err(StdinError::TooLarge(4096))
        ));
    }
}
