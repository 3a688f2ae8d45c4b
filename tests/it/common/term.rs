//! Driving `claudio` on a pseudo-terminal, with a virtual screen (vt100).

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Term {
    pub child: Child,
    master: std::fs::File,
    screen: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
}

pub const ROWS: u16 = 40;
pub const COLS: u16 = 100;

impl Term {
    /// Start `cmd` with a new pty as its controlling terminal and stdio.
    pub fn spawn(cmd: Command) -> Term {
        Term::spawn_sized(cmd, ROWS, COLS)
    }

    /// [`Term::spawn`] on a terminal of `rows` × `cols`.
    pub fn spawn_sized(mut cmd: Command, rows: u16, cols: u16) -> Term {
        let (mut m, mut s) = (0, 0);
        let ws = libc::winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: valid out-pointers.
        let rc =
            unsafe { libc::openpty(&mut m, &mut s, std::ptr::null_mut(), std::ptr::null(), &ws) };
        assert_eq!(rc, 0);
        let master = unsafe { std::fs::File::from_raw_fd(m) };
        let slave = unsafe { std::fs::File::from_raw_fd(s) };
        cmd.stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave))
            .env("TERM", "xterm-256color");
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(|| {
                libc::setsid();
                libc::ioctl(0, libc::TIOCSCTTY as _, 0);
                Ok(())
            });
        }
        let child = cmd.spawn().unwrap();
        let screen = Arc::new(Mutex::new(vt100::Parser::new(rows, cols, 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().unwrap();
        let mut answer = master.try_clone().unwrap();
        let (sc, rw) = (screen.clone(), raw.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                let chunk = &buf[..n];
                rw.lock().unwrap().extend_from_slice(chunk);
                let mut p = sc.lock().unwrap();
                p.process(chunk);
                // answer cursor-position queries like a real terminal
                if chunk.windows(4).any(|w| w == b"\x1b[6n") {
                    let (r, c) = p.screen().cursor_position();
                    let _ = answer.write_all(format!("\x1b[{};{}R", r + 1, c + 1).as_bytes());
                }
            }
        });
        Term {
            child,
            master,
            screen,
            raw,
        }
    }

    pub fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// The screen's rows as they are drawn, one string per row (a long
    /// line the terminal wrapped is two rows), trailing spaces trimmed.
    pub fn rows(&self) -> Vec<String> {
        let p = self.screen.lock().unwrap();
        let (_, cols) = p.screen().size();
        p.screen()
            .rows(0, cols)
            .map(|r| r.trim_end().to_owned())
            .collect()
    }

    /// The screen's size: rows, columns.
    pub fn size(&self) -> (u16, u16) {
        self.screen.lock().unwrap().screen().size()
    }

    /// Everything written so far, escape sequences included.
    pub fn raw(&self) -> String {
        String::from_utf8_lossy(&self.raw.lock().unwrap()).into_owned()
    }

    /// Wait until the screen shows `needle` `n` times.
    pub fn wait_for_n(&self, needle: &str, n: usize) -> String {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let c = self.contents();
            if c.matches(needle).count() >= n {
                return c;
            }
            if Instant::now() > until {
                panic!("never saw {needle:?} ×{n}; screen:\n{c}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_for_n(needle, 1)
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.master.write_all(bytes).unwrap();
        self.master.flush().unwrap();
    }

    pub fn line(&mut self, text: &str) {
        self.send(text.as_bytes());
        self.send(b"\r");
    }

    pub fn ctrl_c(&mut self) {
        // through the line discipline: SIGINT when not raw, a key when raw
        self.send(b"\x03");
    }

    /// Wait until the line editor shows its prompt (`›` ends the last line).
    pub fn wait_prompt(&self) {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let c = self.contents();
            let last = c.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
            if last.trim_end().ends_with('›') {
                return;
            }
            if Instant::now() > until {
                panic!("no prompt; screen:\n{c}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Ctrl-D at the prompt (keys typed during a turn go to the type-ahead).
    pub fn ctrl_d(&mut self) {
        self.wait_prompt();
        self.send(b"\x04");
    }

    /// Change the terminal's size, as a window resize does: the screen
    /// follows, and the program gets SIGWINCH.
    pub fn resize(&mut self, rows: u16, cols: u16) {
        self.screen.lock().unwrap().set_size(rows, cols);
        let ws = libc::winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: a valid winsize for the master's terminal.
        let rc = unsafe { libc::ioctl(self.master.as_raw_fd(), libc::TIOCSWINSZ, &ws) };
        assert_eq!(rc, 0);
    }

    /// Wait for the program to exit.
    pub fn wait(&mut self, secs: u64) -> std::process::ExitStatus {
        super::wait_with_deadline(&mut self.child, secs)
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
