//! Tests' tmux: a server of its own, a pane that text is written to, and
//! what it drew (threats.md class 11: the terminal counts some characters
//! otherwise than claudio; tmux draws with glibc's tables).

use std::time::{Duration, Instant};

/// A tmux server of its own (its socket in a temporary folder), killed
/// when dropped.
pub struct Tmux {
    dir: tempfile::TempDir,
}

impl Tmux {
    /// A server, or `None` (said loudly, for `test`) where tmux is not
    /// installed.
    pub fn for_test(test: &str) -> Option<Tmux> {
        if std::process::Command::new("tmux")
            .arg("-V")
            .output()
            .is_err()
        {
            eprintln!("SKIPPED {test}: tmux is not installed, nothing is checked in tmux");
            return None;
        }
        Some(Tmux {
            dir: tempfile::tempdir().unwrap(),
        })
    }

    fn cmd(&self) -> std::process::Command {
        let mut c = std::process::Command::new("tmux");
        c.env("LC_ALL", "C.UTF-8")
            .arg("-u")
            .arg("-S")
            .arg(self.dir.path().join("sock"))
            .arg("-f")
            .arg("/dev/null");
        c
    }

    /// The pane (40×30) after `out` is written to it, row by row.
    pub fn screen(&self, out: &str, name: &str) -> String {
        self.screen_sized(out, name, 40, 30)
    }

    /// The pane (`cols`×`rows`) after `out` is written to it, row by row.
    pub fn screen_sized(&self, out: &str, name: &str, cols: u16, rows: u16) -> String {
        let file = self.dir.path().join(name);
        std::fs::write(&file, out).unwrap();
        // the title is set after the text: once it reads so, tmux has
        // taken in all of it
        let script = format!(
            "cat '{}'; printf '\\033]2;drawn\\033\\\\'; exec sleep 60",
            file.display()
        );
        let (cols, rows) = (cols.to_string(), rows.to_string());
        let ok = self
            .cmd()
            .args([
                "new-session",
                "-d",
                "-x",
                &cols,
                "-y",
                &rows,
                "-s",
                name,
                &script,
            ])
            .status()
            .unwrap();
        assert!(ok.success(), "tmux new-session");
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let title = self
                .cmd()
                .args(["display-message", "-p", "-t", name, "#{pane_title}"])
                .output()
                .unwrap();
            if String::from_utf8_lossy(&title.stdout).trim() == "drawn" {
                break;
            }
            assert!(Instant::now() < until, "tmux never drew {name}");
            std::thread::sleep(Duration::from_millis(20));
        }
        let shot = self
            .cmd()
            .args(["capture-pane", "-p", "-t", name])
            .output()
            .unwrap();
        String::from_utf8_lossy(&shot.stdout).into_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").output();
    }
}

/// The column each character of `row` (a row tmux captured) starts at, as
/// tmux drew it: glibc's `wcwidth` in the C.UTF-8 locale, one for a
/// character it does not know (-1). `None` without that locale.
#[cfg(target_os = "linux")]
pub fn drawn_columns(row: &str) -> Option<Vec<(usize, char)>> {
    unsafe extern "C" {
        fn wcwidth(c: libc::wchar_t) -> libc::c_int;
    }
    // SAFETY: a constant C string; tests run one to a process
    let set = unsafe { libc::setlocale(libc::LC_ALL, c"C.UTF-8".as_ptr()) };
    if set.is_null() {
        return None;
    }
    let mut col = 0;
    let mut out = Vec::new();
    for c in row.chars() {
        out.push((col, c));
        // SAFETY: wcwidth reads the locale's tables only
        let w = unsafe { wcwidth(c as libc::wchar_t) };
        col += usize::try_from(w).unwrap_or(1);
    }
    Some(out)
}
