//! The one pseudo-terminal harness: a pty whose output is read as it comes,
//! kept whole and drawn on a virtual screen (vt100).
//!
//! Two ways in: [`Term::spawn`] runs a program with the pty as its
//! controlling terminal and stdio (the chat), answering its cursor-position
//! queries as a real terminal does; [`Term::open`] only opens one, for the
//! test to hand its [`Term::slave`] or [`Term::slave_path`] to a program
//! (`CLAUDIO_TEST_TTY`, or stdout on a terminal) and talk to it with
//! [`Term::read_until`] and [`Term::type_line`].

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub struct Term {
    child: Option<Child>,
    master: std::fs::File,
    /// The test's own handle on the slave side ([`Term::open`] only).
    slave: Option<std::fs::File>,
    slave_path: PathBuf,
    screen: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
    /// How much of `raw` [`Term::read_until`] has handed out.
    read_to: usize,
    reader: Option<JoinHandle<()>>,
}

pub const ROWS: u16 = 40;
pub const COLS: u16 = 100;

impl Term {
    /// Start `cmd` with a new pty as its controlling terminal and stdio.
    pub fn spawn(cmd: Command) -> Term {
        Term::spawn_sized(cmd, ROWS, COLS)
    }

    /// [`Term::spawn_sized`], with `typed` in the terminal's input before
    /// the program starts (keys typed ahead of it).
    pub fn spawn_typed(cmd: Command, typed: &[u8]) -> Term {
        Term::spawn_with(cmd, ROWS, COLS, typed)
    }

    /// [`Term::spawn`] on a terminal of `rows` × `cols`.
    pub fn spawn_sized(cmd: Command, rows: u16, cols: u16) -> Term {
        Term::spawn_with(cmd, rows, cols, b"")
    }

    fn spawn_with(mut cmd: Command, rows: u16, cols: u16, typed: &[u8]) -> Term {
        let ws = winsize(rows, cols);
        let (mut master, slave, slave_path) = openpty(Some(&ws));
        if !typed.is_empty() {
            master.write_all(typed).unwrap();
        }
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
        let mut t = Term::reading(master, None, slave_path, rows, cols, true);
        t.child = Some(child);
        t
    }

    /// A new pty for the test to hand out. Its size is left unset (0 × 0, as
    /// a pty nobody sized reports); its screen is [`ROWS`] × [`COLS`].
    pub fn open() -> Term {
        let (master, slave, slave_path) = openpty(None);
        Term::reading(master, Some(slave), slave_path, ROWS, COLS, false)
    }

    /// Start the thread that reads the master side as it is written (a
    /// full terminal would block the writer), into the raw record and the
    /// screen; with `answer_cursor`, cursor-position queries are answered.
    fn reading(
        master: std::fs::File,
        slave: Option<std::fs::File>,
        slave_path: PathBuf,
        rows: u16,
        cols: u16,
        answer_cursor: bool,
    ) -> Term {
        let screen = Arc::new(Mutex::new(vt100::Parser::new(rows, cols, 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().unwrap();
        let mut answer = master.try_clone().unwrap();
        let (sc, rw) = (screen.clone(), raw.clone());
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                // EIO once the last holder of the slave side is gone
                let n = match reader.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                let chunk = &buf[..n];
                rw.lock().unwrap().extend_from_slice(chunk);
                let mut p = sc.lock().unwrap();
                p.process(chunk);
                // answer cursor-position queries like a real terminal
                if answer_cursor && chunk.windows(4).any(|w| w == b"\x1b[6n") {
                    let (r, c) = p.screen().cursor_position();
                    let _ = answer.write_all(format!("\x1b[{};{}R", r + 1, c + 1).as_bytes());
                }
            }
        });
        Term {
            child: None,
            master,
            slave,
            slave_path,
            screen,
            raw,
            read_to: 0,
            reader: Some(reader),
        }
    }

    /// The program [`Term::spawn`] started.
    pub fn child(&mut self) -> &mut Child {
        self.child
            .as_mut()
            .expect("a Term::spawn terminal (Term::open runs no program)")
    }

    /// A handle on the slave side, for a program's stdio ([`Term::open`]).
    pub fn slave(&self) -> std::fs::File {
        self.slave
            .as_ref()
            .expect("a Term::open terminal (Term::spawn gave its slave away)")
            .try_clone()
            .unwrap()
    }

    /// The slave side's path (`/dev/pts/N`), for `CLAUDIO_TEST_TTY`.
    pub fn slave_path(&self) -> &Path {
        &self.slave_path
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

    /// Where the cursor is on the screen: row, column (from 0).
    pub fn cursor(&self) -> (u16, u16) {
        self.screen.lock().unwrap().screen().cursor_position()
    }

    /// The screen's size: rows, columns.
    pub fn size(&self) -> (u16, u16) {
        self.screen.lock().unwrap().screen().size()
    }

    /// Everything written so far, escape sequences included.
    pub fn raw(&self) -> String {
        String::from_utf8_lossy(&self.raw.lock().unwrap()).into_owned()
    }

    /// Wait (60 s at most: a guard against a stuck program, not a time it
    /// may take) until what was written since the last call holds
    /// `needle`; return all of that, escape sequences included.
    pub fn read_until(&mut self, needle: &str) -> String {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let (seen, end) = {
                let raw = self.raw.lock().unwrap();
                let seen = String::from_utf8_lossy(&raw[self.read_to..]).into_owned();
                (seen, raw.len())
            };
            if seen.contains(needle) {
                self.read_to = end;
                return seen;
            }
            assert!(Instant::now() < until, "never saw {needle:?}; got {seen:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Close the test's handle on the slave side ([`Term::open`]) and wait
    /// for every other holder to close it: everything ever written.
    pub fn output_to_end(mut self) -> String {
        drop(self.slave.take());
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
        self.raw()
    }

    /// Wait until the screen shows `needle` `n` times.
    pub fn wait_for_n(&self, needle: &str, n: usize) -> String {
        let until = Instant::now() + Duration::from_secs(60);
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

    /// Wait until `done` holds of the screen's rows (`done` may assert
    /// what must never show on the way); `what` and the screen are the
    /// failure's message.
    pub fn wait_rows(&self, what: &str, done: impl Fn(&[String]) -> bool) -> Vec<String> {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let rows = self.rows();
            if done(&rows) {
                return rows;
            }
            assert!(Instant::now() < until, "{what}:\n{}", rows.join("\n"));
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

    /// `text` and Enter (a carriage return, as a terminal sends it).
    pub fn line(&mut self, text: &str) {
        self.send(text.as_bytes());
        self.send(b"\r");
    }

    /// `text` and a newline: an answer to a line prompt.
    pub fn type_line(&mut self, text: &str) {
        self.send(text.as_bytes());
        self.send(b"\n");
    }

    /// At the chat's start, `prompt` sent, its answer begun (`said`
    /// shown) and Ctrl-C pressed: the turn of
    /// [`interrupted_turn`](super::interrupted_turn)`(prompt, said)`
    /// being interrupted.
    pub fn interrupt_a_turn(&mut self, prompt: &str, said: &str) {
        self.wait_for("Ctrl-D exits");
        self.line(prompt);
        self.wait_for(said);
        self.ctrl_c();
    }

    pub fn ctrl_c(&mut self) {
        // through the line discipline: SIGINT when not raw, a key when raw
        self.send(b"\x03");
    }

    /// Wait until the line editor shows its prompt (`›` ends the last line).
    pub fn wait_prompt(&self) {
        let until = Instant::now() + Duration::from_secs(60);
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
        let ws = winsize(rows, cols);
        // SAFETY: a valid winsize for the master's terminal.
        let rc = unsafe { libc::ioctl(self.master.as_raw_fd(), libc::TIOCSWINSZ, &ws) };
        assert_eq!(rc, 0);
    }

    /// Wait for the program to exit.
    pub fn wait(&mut self, secs: u64) -> std::process::ExitStatus {
        super::wait_with_deadline(self.child(), secs)
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn winsize(rows: u16, cols: u16) -> libc::winsize {
    libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    }
}

/// A new pty pair (sized when `ws` is given): master, slave, slave's path.
fn openpty(ws: Option<&libc::winsize>) -> (std::fs::File, std::fs::File, PathBuf) {
    let (mut m, mut s) = (0, 0);
    let mut name = [0 as libc::c_char; 128];
    // SAFETY: valid out-pointers (the name buffer is larger than any pty
    // name); the fds become owned Files.
    let rc = unsafe {
        libc::openpty(
            &mut m,
            &mut s,
            name.as_mut_ptr(),
            std::ptr::null(),
            ws.map_or(std::ptr::null(), |w| w as *const libc::winsize),
        )
    };
    assert_eq!(rc, 0, "openpty failed");
    let path = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    unsafe {
        (
            std::fs::File::from_raw_fd(m),
            std::fs::File::from_raw_fd(s),
            PathBuf::from(path),
        )
    }
}
