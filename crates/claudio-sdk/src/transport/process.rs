//! Spawning and supervising the CLI process.
//!
//! The child runs in its own process group. On Linux it also gets
//! `PR_SET_PDEATHSIG(SIGTERM)`, so it is told to stop even when this process
//! dies without running destructors (SIGKILL, a crash). Because the kernel
//! ties that signal to the *thread* that forked, children are forked from one
//! long-lived spawner thread, never from a pool thread that may exit.

use super::private::PrivateDir;
use super::stderr::{self, StderrCallback, StderrTail};
use crate::error::{Error, Result};
use rustix::process::{kill_process_group, Pid, Signal};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{oneshot, watch};

/// How to start the CLI: the program, its arguments, environment and
/// directory, and who sees its stderr.
#[derive(Clone, Default)]
pub(crate) struct SpawnSpec {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments (without the program).
    pub args: Vec<String>,
    /// Environment set on top of this process's (`CLAUDECODE` is always
    /// removed, so the CLI does not think it runs inside itself).
    pub env: BTreeMap<String, String>,
    /// Its working directory (this process's when `None`).
    pub cwd: Option<PathBuf>,
    /// Sees each stderr line as it arrives.
    pub stderr: Option<StderrCallback>,
    /// Private files `args` names (settings, MCP servers): kept while the
    /// process runs, removed once it has ended.
    pub files: Option<Arc<PrivateDir>>,
}

impl std::fmt::Debug for SpawnSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Environment values may hold secrets: only their names are shown.
        f.debug_struct("SpawnSpec")
            .field("program", &self.program)
            .field("args", &self.args)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("cwd", &self.cwd)
            .field("stderr", &self.stderr.is_some())
            .field("files", &self.files.as_ref().map(|d| d.path()))
            .finish()
    }
}

/// How the process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitInfo {
    /// The exit code, if it exited.
    pub code: Option<i32>,
    /// The signal, if one killed it.
    pub signal: Option<i32>,
}

impl ExitInfo {
    /// Exited with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// A started CLI: its pipes and its supervisor.
pub(crate) struct Spawned {
    /// The CLI's stdin.
    pub stdin: ChildStdin,
    /// The CLI's stdout.
    pub stdout: ChildStdout,
    /// Watches and stops the process.
    pub supervisor: Supervisor,
}

/// Owns the process: waits for it, signals its group, and kills the group
/// when dropped before the process ended.
///
/// The CLI is not reaped as it exits: it stays a zombie until its group has
/// been ended ([`Supervisor::kill_leftovers`], or the drop). A zombie's pid
/// is not given to another process, so until then the group's id (the
/// CLI's pid) names the CLI's group and no stranger's; once it is reaped,
/// the group is never signalled again.
pub(crate) struct Supervisor {
    pid: i32,
    held: Arc<Mutex<Held>>,
    status: watch::Receiver<Option<ExitInfo>>,
    stderr_tail: StderrTail,
    /// True once stderr reached its end (everything the CLI wrote is in the tail).
    stderr_done: watch::Receiver<bool>,
    /// The CLI's stdin and stdout pipes as `/proc/PID/fd` names them, and
    /// the process of its group last seen holding both
    /// ([`Supervisor::cli_may_run`]).
    pipes: Option<(String, String)>,
    holder: Mutex<Option<i32>>,
}

/// The CLI's process while its group is ours to signal.
struct Held {
    /// The CLI, until it is reaped (then `None`: the group's id may name
    /// another's group from then on).
    child: Option<Child>,
    /// How it ended, once it has (and is a zombie, not yet reaped).
    exit: Option<ExitInfo>,
    /// Its group is to be ended and the CLI reaped as soon as it has ended.
    release: bool,
    /// Its place in [`GROUPS`] while it is not reaped.
    listed: Option<Listed>,
    /// Its private files, kept until its group is ended (a launcher's CLI
    /// reads them after the launcher has gone).
    files: Option<Arc<PrivateDir>>,
}

impl Held {
    /// End the group of `pid` (SIGKILL: what the CLI left behind goes),
    /// then reap the CLI, which has ended: its zombie held the group's id
    /// until this signal went.
    fn end(&mut self, pid: i32) {
        if let Some(mut child) = self.child.take() {
            if let Some(group) = Pid::from_raw(pid) {
                let _ = kill_process_group(group, Signal::Kill);
            }
            self.listed = None;
            // it has exited, so this reaps it at once (else the runtime's
            // orphan reaping takes it when the child is dropped here)
            let _ = child.try_wait();
        }
        // The CLI is gone: its private files go before anyone hears so.
        self.files = None;
    }
}

fn lock_held(held: &Mutex<Held>) -> std::sync::MutexGuard<'_, Held> {
    held.lock().unwrap_or_else(|e| e.into_inner())
}

/// How the process `pid` (our child) ended, once it has, without reaping
/// it: blocks until then. `None` when it cannot be waited for.
fn exit_unreaped(pid: i32) -> Option<ExitInfo> {
    use rustix::process::{waitid, WaitId, WaitidOptions};
    let pid = Pid::from_raw(pid)?;
    loop {
        match waitid(
            WaitId::Pid(pid),
            WaitidOptions::EXITED | WaitidOptions::NOWAIT,
        ) {
            Ok(Some(st)) => {
                return Some(ExitInfo {
                    code: st.exit_status().map(|c| c as i32),
                    signal: st.terminating_signal().map(|s| s as i32),
                })
            }
            Ok(None) | Err(rustix::io::Errno::INTR) => {}
            Err(_) => return None,
        }
    }
}

/// A process of group `group` (not a zombie) holding both pipes `stdin`
/// and `stdout` (as `/proc/PID/fd` names them: `pipe:[INODE]`); `None`
/// when there is none, or no `/proc`.
fn find_holder(group: i32, stdin: &str, stdout: &str) -> Option<i32> {
    let procs = std::fs::read_dir("/proc").ok()?;
    procs
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .find(|&pid| holds_the_session(pid, group, stdin, stdout))
}

/// Whether the process `pid` runs (not a zombie) in group `group` and
/// holds both pipes.
fn holds_the_session(pid: i32, group: i32, stdin: &str, stdout: &str) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // after the name (which may hold anything): state, ppid, pgrp
    let mut fields = stat
        .rsplit_once(')')
        .map_or("", |(_, r)| r)
        .split_whitespace();
    let (state, pgrp) = (fields.next(), fields.nth(1));
    if pgrp != Some(&*group.to_string()) || matches!(state, None | Some("Z" | "X")) {
        return false;
    }
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    let (mut has_in, mut has_out) = (false, false);
    for fd in fds.flatten() {
        if let Ok(to) = std::fs::read_link(fd.path()) {
            has_in |= to.as_os_str() == stdin;
            has_out |= to.as_os_str() == stdout;
            if has_in && has_out {
                return true;
            }
        }
    }
    false
}

struct SpawnJob {
    command: Command,
    runtime: tokio::runtime::Handle,
    reply: oneshot::Sender<std::io::Result<Child>>,
}

/// The process groups of the CLIs this process started whose supervisor
/// still waits for them (listed until the wait ends or is dropped), and
/// whether [`kill_all`] ran.
static GROUPS: Mutex<(Vec<i32>, bool)> = Mutex::new((Vec::new(), false));

fn groups() -> std::sync::MutexGuard<'static, (Vec<i32>, bool)> {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Kill (SIGKILL) every CLI this process started that has not ended yet,
/// with its process group, and every one started from now on: for a
/// process about to end without running destructors. A group is listed
/// only while its CLI is not reaped, so its id cannot have passed to a
/// stranger.
pub(crate) fn kill_all() {
    let mut groups = groups();
    groups.1 = true;
    for &pid in groups.0.iter() {
        if let Some(group) = Pid::from_raw(pid) {
            let _ = kill_process_group(group, Signal::Kill);
        }
    }
}

/// A group's place in [`GROUPS`], given up when dropped.
struct Listed(i32);

impl Listed {
    /// List `pid`'s group; killed at once when [`kill_all`] already ran.
    fn new(pid: i32) -> Listed {
        let mut groups = groups();
        if groups.1 {
            if let Some(group) = Pid::from_raw(pid) {
                let _ = kill_process_group(group, Signal::Kill);
            }
        }
        groups.0.push(pid);
        Listed(pid)
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        let mut groups = groups();
        if let Some(i) = groups.0.iter().position(|&p| p == self.0) {
            groups.0.swap_remove(i);
        }
    }
}

fn spawner() -> &'static Mutex<std_mpsc::Sender<SpawnJob>> {
    static SPAWNER: OnceLock<Mutex<std_mpsc::Sender<SpawnJob>>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = std_mpsc::channel::<SpawnJob>();
        std::thread::Builder::new()
            .name("claudio-spawner".into())
            .spawn(move || {
                for mut job in rx {
                    let _guard = job.runtime.enter();
                    let _ = job.reply.send(job.command.spawn());
                }
            })
            .expect("failed to start the claudio spawner thread");
        Mutex::new(tx)
    })
}

/// Whether the CLI can start in `dir`: a directory this process may enter
/// (what the child's `chdir` needs). Left to the spawn, a folder that
/// cannot be entered came back as the CLI's failure to start.
fn enterable(dir: &Path) -> Result<()> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(not_entered(dir, std::io::ErrorKind::NotADirectory.into())),
        Err(e) => return Err(not_entered(dir, e)),
    }
    rustix::fs::access(dir, rustix::fs::Access::EXEC_OK).map_err(|e| not_entered(dir, e.into()))
}

/// The error for a working directory `dir` that could not be entered,
/// by why: gone or no directory, or there and refused (no permission).
fn not_entered(dir: &Path, e: std::io::Error) -> Error {
    let path = dir.to_owned();
    match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => {
            Error::WorkingDirectory { path }
        }
        _ => Error::EnterWorkingDirectory { path, source: e },
    }
}

/// The error for a start of `program` in `cwd` that failed with `e`: the
/// working directory's when it cannot be entered now (removed or replaced
/// between [`enterable`]'s check and the spawn, where the child's `chdir`
/// failed and the OS error alone blamed the CLI), else the CLI's.
fn spawn_failed(program: &Path, cwd: Option<&Path>, e: std::io::Error) -> Error {
    match cwd.map(enterable) {
        Some(Err(folder)) => folder,
        _ => Error::Spawn {
            path: program.to_path_buf(),
            source: e,
        },
    }
}

/// Start the CLI as `spec` describes.
pub(crate) async fn spawn(spec: &SpawnSpec) -> Result<Spawned> {
    let program = spec.program.as_path();
    if let Some(dir) = &spec.cwd {
        enterable(dir)?;
    }
    let mut cmd = Command::new(program);
    cmd.args(&spec.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("CLAUDECODE")
        .kill_on_drop(true);
    cmd.envs(&spec.env);
    if let Some(dir) = &spec.cwd {
        cmd.current_dir(dir);
    }
    // a group of its own (ended whole), and TERM when this process dies
    crate::child::contain(cmd.as_std_mut(), Signal::Term, false);

    let (reply, rx) = oneshot::channel();
    let job = SpawnJob {
        command: cmd,
        runtime: tokio::runtime::Handle::current(),
        reply,
    };
    let sent = spawner()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(job)
        .is_ok();
    let spawn_err = |source| Error::Spawn {
        path: program.to_path_buf(),
        source,
    };
    if !sent {
        return Err(spawn_err(std::io::Error::other("spawner thread is gone")));
    }
    let mut child = rx
        .await
        .map_err(|_| spawn_err(std::io::Error::other("spawner thread is gone")))?
        .map_err(|e| spawn_failed(program, spec.cwd.as_deref(), e))?;

    let pid = child.id().map(|p| p as i32).unwrap_or(0);
    let (stdin, stdout, err) = match (child.stdin.take(), child.stdout.take(), child.stderr.take())
    {
        (Some(i), Some(o), Some(e)) => (i, o, e),
        _ => return Err(spawn_err(std::io::Error::other("missing a pipe"))),
    };
    // as `/proc/PID/fd` names them
    let pipes = match (rustix::fs::fstat(&stdin), rustix::fs::fstat(&stdout)) {
        (Ok(i), Ok(o)) => Some((
            format!("pipe:[{}]", i.st_ino),
            format!("pipe:[{}]", o.st_ino),
        )),
        _ => None,
    };
    let stderr_tail = StderrTail::default();
    let (done_tx, stderr_done) = watch::channel(false);
    tokio::spawn(stderr::drain(
        err,
        stderr_tail.clone(),
        spec.stderr.clone(),
        done_tx,
    ));

    let (tx, status) = watch::channel(None);
    let held = Arc::new(Mutex::new(Held {
        child: None,
        exit: None,
        release: false,
        listed: (pid > 0).then(|| Listed::new(pid)),
        files: spec.files.clone(),
    }));
    // Its end is waited for without reaping it (a thread of its own,
    // blocked in `waitid(WNOWAIT)` until the CLI exits): the zombie keeps
    // the group's id ours until the group is ended.
    let (exit_tx, exit_rx) = oneshot::channel();
    if let Err(e) = std::thread::Builder::new()
        .name("claudio-wait".into())
        .spawn(move || {
            let _ = exit_tx.send(exit_unreaped(pid));
        })
    {
        if let Some(group) = Pid::from_raw(pid) {
            let _ = kill_process_group(group, Signal::Kill);
        }
        return Err(spawn_err(e));
    }
    lock_held(&held).child = Some(child);
    let waiter = held.clone();
    tokio::spawn(async move {
        let known = exit_rx.await.ok().flatten();
        let info = known.unwrap_or(ExitInfo {
            code: None,
            signal: None,
        });
        {
            let mut h = lock_held(&waiter);
            match known {
                Some(_) => {
                    h.exit = Some(info);
                    if h.release {
                        h.end(pid);
                    }
                }
                // not ours to wait for (cannot be): never signalled again
                None => {
                    h.child = None;
                    h.listed = None;
                    h.files = None;
                }
            }
        }
        let _ = tx.send(Some(info));
    });
    tracing::debug!(pid, program = %program.display(), "started the CLI");
    Ok(Spawned {
        stdin,
        stdout,
        supervisor: Supervisor {
            pid,
            held,
            status,
            stderr_tail,
            stderr_done,
            pipes,
            holder: Mutex::new(None),
        },
    })
}

/// How long an error report waits for the rest of the CLI's stderr.
pub(crate) const STDERR_DRAIN: Duration = Duration::from_millis(500);

impl Supervisor {
    /// The CLI's process id (also its process group id).
    pub(crate) fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// The CLI's stderr tail so far.
    pub(crate) fn stderr_tail(&self) -> String {
        self.stderr_tail.text()
    }

    /// Wait until it ends.
    pub(crate) async fn wait(&self) -> ExitInfo {
        let mut rx = self.status.clone();
        loop {
            if let Some(info) = *rx.borrow_and_update() {
                return info;
            }
            if rx.changed().await.is_err() {
                return ExitInfo {
                    code: None,
                    signal: None,
                };
            }
        }
    }

    /// Wait at most `d`.
    pub(crate) async fn wait_timeout(&self, d: Duration) -> Option<ExitInfo> {
        tokio::time::timeout(d, self.wait()).await.ok()
    }

    /// Send `signal` to the whole process group (ours: created at spawn),
    /// unless the CLI has been reaped (its group ended then).
    pub(crate) fn signal_group(&self, signal: Signal) {
        let h = lock_held(&self.held);
        if h.child.is_some() {
            if let Some(group) = Pid::from_raw(self.pid) {
                let _ = kill_process_group(group, signal);
            }
        }
    }

    /// Stop the process: `stdin` is closed (by dropping it) and the CLI gets
    /// `grace` to finish writing its transcript, then SIGTERM, another
    /// `grace`, then SIGKILL.
    pub(crate) async fn shutdown(&self, stdin: Option<ChildStdin>, grace: Duration) -> ExitInfo {
        drop(stdin);
        let info = match self.wait_timeout(grace).await {
            Some(info) => info,
            None => {
                tracing::debug!(
                    pid = self.pid,
                    "the CLI did not exit after stdin closed; SIGTERM"
                );
                self.signal_group(Signal::Term);
                match self.wait_timeout(grace).await {
                    Some(info) => info,
                    None => {
                        tracing::debug!(pid = self.pid, "the CLI ignored SIGTERM; SIGKILL");
                        self.signal_group(Signal::Kill);
                        self.wait().await
                    }
                }
            }
        };
        self.kill_leftovers();
        info
    }

    /// Kill what is left of the process group (tool processes the CLI
    /// started and did not stop, and the CLI if it still runs), then reap
    /// the CLI once it has ended: not before, so that the signal cannot
    /// reach another's group that took the id.
    pub(crate) fn kill_leftovers(&self) {
        let mut h = lock_held(&self.held);
        h.release = true;
        if h.exit.is_some() {
            h.end(self.pid);
        } else if h.child.is_some() {
            if let Some(group) = Pid::from_raw(self.pid) {
                let _ = kill_process_group(group, Signal::Kill);
            }
        }
    }

    /// Whether a process of the CLI's group still runs that holds both the
    /// CLI's stdin (to read) and its stdout (to write): one that can still
    /// be the CLI, as the real CLI is once a launcher that started it (a
    /// wrapper script that runs it in the background) has exited. What the CLI left behind that
    /// holds its stdout alone (a `cmd &`, whose stdin a shell makes
    /// `/dev/null`) cannot read a request, and is not one. False once the
    /// CLI is reaped (its group's id no longer ours to look up), and off
    /// Linux (no `/proc` to look in).
    pub(crate) fn cli_may_run(&self) -> bool {
        let Some((stdin, stdout)) = &self.pipes else {
            return false;
        };
        // the zombie keeps the group's id ours while the lock is held
        let h = lock_held(&self.held);
        if h.child.is_none() {
            return false;
        }
        let mut last = self.holder.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pid) = *last {
            if holds_the_session(pid, self.pid, stdin, stdout) {
                return true;
            }
        }
        *last = find_holder(self.pid, stdin, stdout);
        last.is_some()
    }

    /// Wait, at most `d`, until everything the CLI wrote on stderr has been
    /// read: its last words (the real reason it failed) come just before it
    /// exits, and are read by another task. A pipe that stays open (a
    /// process the CLI left behind holds it) ends the wait at `d`.
    pub(crate) async fn stderr_drained(&self, d: Duration) {
        let mut rx = self.stderr_done.clone();
        let _ = tokio::time::timeout(d, rx.wait_for(|done| *done)).await;
    }

    /// [`Supervisor::exit_error`], once stderr is read to its end (waiting
    /// at most [`STDERR_DRAIN`]).
    pub(crate) async fn exit_error_drained(&self, info: ExitInfo) -> Error {
        self.stderr_drained(STDERR_DRAIN).await;
        self.exit_error(info)
    }

    /// The error describing this process's end.
    pub(crate) fn exit_error(&self, info: ExitInfo) -> Error {
        Error::ProcessExited {
            code: info.code,
            signal: info.signal,
            stderr_tail: self.stderr_tail(),
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.kill_leftovers();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `pid` is a zombie child of this process: ended, not reaped.
    fn our_zombie(pid: u32) -> bool {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        let mut f = stat.rsplit(')').next().unwrap_or("").split_whitespace();
        let (state, ppid) = (f.next(), f.next());
        state == Some("Z") && ppid == Some(&std::process::id().to_string())
    }

    fn sh(script: &str) -> SpawnSpec {
        SpawnSpec {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            ..SpawnSpec::default()
        }
    }

    /// The CLI that ended is a zombie until its group has been ended: no
    /// signal to the group can go after the id was free to be reused.
    #[tokio::test]
    async fn the_cli_is_reaped_only_once_its_group_is_ended() {
        let spawned = spawn(&sh("exit 3")).await.unwrap();
        let s = spawned.supervisor;
        let pid = s.pid();
        assert_eq!(s.wait().await.code, Some(3));
        assert!(our_zombie(pid), "reaped before its group was ended");
        s.kill_leftovers();
        assert!(!our_zombie(pid), "not reaped once its group was ended");
        // once reaped, never signalled (nothing to see; no panic)
        s.signal_group(Signal::Kill);

        // dropped after its end: its group ended, then reaped
        let spawned = spawn(&sh("exit 0")).await.unwrap();
        let s = spawned.supervisor;
        let pid = s.pid();
        assert_eq!(s.wait().await.code, Some(0));
        assert!(our_zombie(pid));
        drop(s);
        assert!(!our_zombie(pid));

        // ended while it ran: reaped as its end is known
        let spawned = spawn(&sh("exec sleep 600")).await.unwrap();
        let s = spawned.supervisor;
        let pid = s.pid();
        s.kill_leftovers();
        assert_eq!(s.wait().await.signal, Some(9));
        assert!(!our_zombie(pid));
    }

    /// Once the CLI has exited, a process of its group that holds its
    /// stdin and its stdout (the real CLI a launcher started) can still be
    /// the CLI; one that holds its stdout alone (a `cmd &`) cannot, nor
    /// one that holds both from another group, nor one that has ended.
    #[tokio::test]
    async fn a_process_of_its_group_holding_both_pipes_may_be_the_cli() {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
        // the launcher's `cat` is handed its stdin past the shell's
        // /dev/null for a `cmd &`
        let Spawned {
            mut stdin,
            mut stdout,
            supervisor: s,
        } = spawn(&sh("exec 3<&0; cat <&3 3<&- & exit 0"))
            .await
            .unwrap();
        assert_eq!(s.wait().await.code, Some(0));
        assert!(s.cli_may_run());
        // it serves the session
        stdin.write_all(b"hi\n").await.unwrap();
        let mut got = [0u8; 3];
        stdout.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"hi\n");
        drop(stdin);
        let mut rest = Vec::new();
        stdout.read_to_end(&mut rest).await.unwrap();
        assert!(!s.cli_may_run(), "a process that ended");
        s.kill_leftovers();

        // its stdout alone (the shell makes a `cmd &`'s stdin /dev/null):
        // `up` once it is in place
        let Spawned {
            stdin,
            mut stdout,
            supervisor: s,
        } = spawn(&sh("(echo up; exec sleep 600) & exit 0"))
            .await
            .unwrap();
        assert_eq!(s.wait().await.code, Some(0));
        let mut got = [0u8; 3];
        stdout.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"up\n");
        assert!(!s.cli_may_run());
        s.kill_leftovers();
        assert!(!s.cli_may_run(), "reaped: its group no longer looked up");
        drop(stdin);

        // both, from a session of its own (its pid said once it is there)
        let Spawned {
            stdin,
            stdout,
            supervisor: s,
        } = spawn(&sh(
            "exec 3<&0; setsid sh -c 'echo $$; exec sleep 600' <&3 3<&- & exit 0",
        ))
        .await
        .unwrap();
        assert_eq!(s.wait().await.code, Some(0));
        let mut line = String::new();
        tokio::io::BufReader::new(stdout)
            .read_line(&mut line)
            .await
            .unwrap();
        let away = line.trim().parse::<i32>().unwrap();
        let may = s.cli_may_run();
        let _ = rustix::process::kill_process(Pid::from_raw(away).unwrap(), Signal::Kill);
        assert!(!may, "a process of another group");
        s.kill_leftovers();
        drop(stdin);
    }

    /// A working directory the CLI cannot start in is told as the
    /// folder's error, never as the CLI's: gone, through a regular file
    /// (ENOTDIR), or there and refused (EACCES, which root, running the
    /// tests, never meets: its error goes through the same mapping).
    #[test]
    fn a_working_directory_that_cannot_be_entered_is_named() {
        let d = tempfile::tempdir().unwrap();
        assert!(enterable(d.path()).is_ok());
        let file = d.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let gone = d.path().join("gone");
        std::fs::create_dir(&gone).unwrap();
        std::fs::remove_dir(&gone).unwrap();
        for dir in [file.join("proj"), file.clone(), gone] {
            match enterable(&dir) {
                Err(Error::WorkingDirectory { path }) => assert_eq!(path, dir),
                other => panic!("{}: {other:?}", dir.display()),
            }
        }
        // removed between the check and the spawn: the child's `chdir`
        // fails, and that is the folder's error, not the CLI's
        let dir = d.path().join("went");
        std::fs::create_dir(&dir).unwrap();
        assert!(enterable(&dir).is_ok());
        std::fs::remove_dir(&dir).unwrap();
        let e = std::process::Command::new("/bin/sh")
            .current_dir(&dir)
            .spawn()
            .unwrap_err();
        match spawn_failed(Path::new("/bin/sh"), Some(&dir), e) {
            Error::WorkingDirectory { path } => assert_eq!(path, dir),
            other => panic!("{other:?}"),
        }
        let e = std::io::Error::from(std::io::ErrorKind::NotFound);
        match spawn_failed(Path::new("/no/claude"), Some(d.path()), e) {
            Error::Spawn { path, .. } => assert_eq!(path, Path::new("/no/claude")),
            other => panic!("{other:?}"),
        }
        let denied = std::io::Error::from(rustix::io::Errno::ACCESS);
        match not_entered(d.path(), denied) {
            Error::EnterWorkingDirectory { path, source } => {
                assert_eq!(path, d.path());
                assert_eq!(source.kind(), std::io::ErrorKind::PermissionDenied);
            }
            other => panic!("{other:?}"),
        }
    }
}
