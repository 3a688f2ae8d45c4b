//! A child process that cannot outlive its welcome: one deadline over its
//! start, its input, every read of its output and its end; a process group
//! of its own, so that what it starts goes with it; and an end of TERM,
//! then KILL after a grace, to the whole group.
//!
//! Every command claudio runs without a person at it goes through here: the
//! CLI itself ([`contain`]), `git worktree list`, `claude --version`, a
//! `statusLine` command and the chat's `!` commands ([`run`], [`contain`],
//! [`end_group`]). The two a person works in, `$EDITOR` and the pager, are
//! the terminal's: they run in its foreground group, and are waited for as
//! long as the person takes.
//!
//! ```
//! use claudio::child::{run, Ended, Run};
//! use std::time::Duration;
//! let mut cmd = std::process::Command::new("/bin/sh");
//! cmd.args(["-c", "read x; echo got $x"]);
//! let done = run(cmd, Run::new(Duration::from_secs(5)).input(b"it\n".to_vec()))?;
//! assert!(matches!(done.ended, Ended::Exited(s) if s.success()));
//! assert_eq!(done.output, b"got it\n");
//! # Ok::<(), std::io::Error>(())
//! ```

use rustix::process::{Pid, Signal};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long a group has between TERM and KILL, unless told otherwise.
pub const GRACE: Duration = Duration::from_millis(200);

/// How a [`run`] is bounded.
#[derive(Debug, Clone)]
pub struct Run {
    deadline: Duration,
    input: Vec<u8>,
    max_output: usize,
    grace: Duration,
}

impl Run {
    /// A run of at most `deadline`, from its start to its end; no input,
    /// at most 1 MiB of output kept.
    pub fn new(deadline: Duration) -> Run {
        Run {
            deadline,
            input: Vec::new(),
            max_output: 1 << 20,
            grace: GRACE,
        }
    }

    /// What is written to its stdin (which is then closed). Without
    /// input, its stdin is `/dev/null`.
    pub fn input(mut self, input: Vec<u8>) -> Run {
        self.input = input;
        self
    }

    /// The most bytes of its stdout read: at that many it is ended
    /// ([`Ended::Full`]).
    pub fn max_output(mut self, bytes: usize) -> Run {
        self.max_output = bytes.max(1);
        self
    }

    /// How long the group has between TERM and KILL ([`GRACE`]).
    pub fn grace(mut self, grace: Duration) -> Run {
        self.grace = grace;
        self
    }
}

/// How a [`run`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ended {
    /// It exited (or was killed by a signal from elsewhere) in time.
    Exited(ExitStatus),
    /// The deadline passed first: its group was ended.
    Late,
    /// It wrote more than was wanted: its group was ended there.
    Full,
}

/// What a [`run`] gave.
#[derive(Debug, Clone)]
pub struct Finished {
    /// Its stdout, at most [`Run::max_output`] bytes.
    pub output: Vec<u8>,
    /// How it ended.
    pub ended: Ended,
}

/// Make `cmd` a child that goes with its parent: a process group of its
/// own (no signal from the terminal reaches it, and its group can be ended
/// whole), and on Linux the parent-death signal `on_parent_death`, so that
/// it dies with a parent killed hard. With `own_session` it is a session of
/// its own too (no controlling terminal at all).
///
/// For a `tokio::process::Command`, pass `cmd.as_std_mut()`.
pub fn contain(cmd: &mut Command, on_parent_death: Signal, own_session: bool) {
    if !own_session {
        cmd.process_group(0);
    }
    #[cfg(target_os = "linux")]
    let parent = rustix::process::getpid();
    // SAFETY: between fork and exec only raw system calls run (rustix's:
    // no allocation, no lock), which are async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            if own_session {
                rustix::process::setsid()?;
            }
            #[cfg(target_os = "linux")]
            {
                use rustix::process::{getpid, getppid, kill_process};
                rustix::process::set_parent_process_death_signal(Some(on_parent_death))?;
                // the parent may have died before the signal was set
                if getppid() != Some(parent) {
                    kill_process(getpid(), on_parent_death)?;
                }
            }
            #[cfg(not(target_os = "linux"))]
            let _ = on_parent_death;
            Ok(())
        });
    }
}

/// End the process group `group`: TERM, then KILL once `leader_gone` says
/// the leader is gone or `grace` has passed, whichever is first. The KILL
/// goes to the group even when the leader went at TERM: what it left
/// behind (`cmd &`) goes too. Call it before the leader is reaped, so that
/// the group's id names no other group.
pub fn end_group(group: i32, grace: Duration, mut leader_gone: impl FnMut() -> bool) {
    let Some(pid) = Pid::from_raw(group) else {
        return;
    };
    if rustix::process::kill_process_group(pid, Signal::Term).is_err() {
        return; // no such group any more
    }
    let until = Instant::now() + grace;
    while !leader_gone() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = rustix::process::kill_process_group(pid, Signal::Kill);
}

/// Whether the process `pid` (our child) has ended, without reaping it.
fn has_ended(pid: Pid) -> std::io::Result<bool> {
    use rustix::process::{waitid, WaitId, WaitidOptions};
    Ok(waitid(
        WaitId::Pid(pid),
        WaitidOptions::EXITED | WaitidOptions::NOHANG | WaitidOptions::NOWAIT,
    )?
    .is_some())
}

/// Run `cmd` as `how` says: in a group of its own, its input written and
/// its stdout read (its stderr goes nowhere) without ever blocking past
/// the deadline. However it ends (in time, late, too much output), its
/// group is ended (TERM, then KILL) before it is reaped: a `cmd &` left
/// behind goes with it. An error is one of starting it or of the pipes.
pub fn run(mut cmd: Command, how: Run) -> std::io::Result<Finished> {
    let until = Instant::now() + how.deadline;
    cmd.stdin(if how.input.is_empty() {
        Stdio::null()
    } else {
        Stdio::piped()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::null());
    contain(&mut cmd, Signal::Kill, false);
    let mut child = cmd.spawn()?;
    let leader = Pid::from_child(&child);
    let exchange = exchange(&mut child, leader, &how, until);
    end_group(leader.as_raw_nonzero().get(), how.grace, || {
        has_ended(leader).unwrap_or(true)
    });
    let status = child.wait()?;
    let (output, ended) = exchange?;
    Ok(Finished {
        output,
        ended: ended.unwrap_or(Ended::Exited(status)),
    })
}

/// Give `child` its input and read its output until it ends (then what it
/// wrote is still in the pipe, and is read at once), `max_output` bytes
/// are read, or `until` passes. `None`: it exited. The leader is not
/// reaped.
fn exchange(
    child: &mut std::process::Child,
    leader: Pid,
    how: &Run,
    until: Instant,
) -> std::io::Result<(Vec<u8>, Option<Ended>)> {
    use rustix::event::{poll, PollFd, PollFlags};
    let mut stdin = child.stdin.take();
    let mut stdout = child.stdout.take();
    if let Some(s) = &stdin {
        rustix::io::ioctl_fionbio(s, true)?;
    }
    if let Some(s) = &stdout {
        rustix::io::ioctl_fionbio(s, true)?;
    }
    let mut input = &how.input[..];
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        // looked at before the reads: once it has ended, what it wrote is
        // in the pipe, and the reads below take it all (what it left
        // behind, `cmd &`, is not waited for)
        let ended = has_ended(leader)?;
        if let Some(s) = stdin.as_mut() {
            match s.write(input) {
                Ok(n) => input = &input[n..],
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
                // it does not read its input (a broken pipe): nothing to give
                Err(_) => input = &[],
            }
            if input.is_empty() {
                stdin = None;
            }
        }
        while let Some(s) = stdout.as_mut() {
            let room = (how.max_output - out.len()).min(buf.len());
            match s.read(&mut buf[..room]) {
                Ok(0) => stdout = None,
                Ok(n) => {
                    out.extend_from_slice(&buf[..n]);
                    if out.len() >= how.max_output {
                        return Ok((out, Some(Ended::Full)));
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        if ended {
            return Ok((out, None));
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok((out, Some(Ended::Late)));
        }
        // until there is something to do, or a short while (its end is
        // not a file descriptor to wait on)
        let mut fds = Vec::with_capacity(2);
        if let Some(s) = &stdout {
            fds.push(PollFd::new(s, PollFlags::IN));
        }
        if let Some(s) = &stdin {
            fds.push(PollFd::new(s, PollFlags::OUT));
        }
        let ms = left.as_millis().clamp(1, 10) as i32;
        match poll(&mut fds, ms) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("/bin/sh");
        c.args(["-c", script]);
        c
    }

    fn alive(pid: i32) -> bool {
        // a zombie counts as gone
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                !s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false)
    }

    /// The pid a script wrote to `pidfile`; waits (bounded) until that
    /// process is gone, and fails the test if it outlives the wait.
    fn assert_gone_soon(pidfile: &std::path::Path, what: &str) {
        let pid: i32 = std::fs::read_to_string(pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // (a guard against one that survives, not a time it may take)
        for _ in 0..3000 {
            if !alive(pid) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!alive(pid), "{what}");
    }

    #[test]
    fn input_goes_in_and_output_comes_out_with_the_status() {
        let done = run(
            sh("tr a-z A-Z; exit 3"),
            Run::new(Duration::from_secs(20)).input(b"hello".to_vec()),
        )
        .unwrap();
        assert_eq!(done.output, b"HELLO");
        assert!(matches!(done.ended, Ended::Exited(s) if s.code() == Some(3)));
    }

    /// `script` (which never ends by itself) run with `how` of a short
    /// deadline, then of longer ones, until `ready` says the script got as
    /// far as it must before its end (a loaded machine may start the shell
    /// after a short deadline has passed): each run is late.
    fn late_once_ready(
        script: &str,
        how: impl Fn(Duration) -> Run,
        ready: impl Fn(&Finished) -> bool,
    ) -> Finished {
        let mut deadline = Duration::from_millis(300);
        loop {
            let done = run(sh(script), how(deadline)).unwrap();
            assert_eq!(done.ended, Ended::Late);
            if ready(&done) || deadline > Duration::from_secs(60) {
                return done;
            }
            deadline *= 4;
        }
    }

    #[test]
    fn a_late_command_is_ended_with_all_it_started() {
        let d = tempfile::tempdir().unwrap();
        let pidfile = d.path().join("pid");
        let script = format!("sleep 600 & echo $! > {}; wait", pidfile.display());
        // the sleep started and its pid written before the deadline
        late_once_ready(&script, Run::new, |_| {
            std::fs::read_to_string(&pidfile).is_ok_and(|p| p.ends_with('\n'))
        });
        // KILL went to the group before the leader was reaped
        assert_gone_soon(&pidfile, "the background sleep outlived the run");
    }

    #[test]
    fn what_is_left_behind_by_a_command_that_ended_goes_too() {
        let d = tempfile::tempdir().unwrap();
        let pidfile = d.path().join("pid");
        let script = format!(
            "sleep 600 >/dev/null 2>&1 & echo $! > {}",
            pidfile.display()
        );
        let done = run(sh(&script), Run::new(Duration::from_secs(20))).unwrap();
        assert!(matches!(done.ended, Ended::Exited(s) if s.success()));
        assert_gone_soon(&pidfile, "the `cmd &` outlived the run");
    }

    #[test]
    fn too_much_output_ends_it_at_the_bound() {
        let done = run(
            sh("yes"),
            Run::new(Duration::from_secs(20)).max_output(10_000),
        )
        .unwrap();
        assert_eq!(done.ended, Ended::Full);
        assert_eq!(done.output.len(), 10_000);
    }

    #[test]
    fn a_command_that_ignores_term_gets_kill_after_the_grace() {
        // TERM ignored (the trap set: `up` written) before the deadline
        let done = late_once_ready(
            "trap '' TERM; echo up; sleep 600",
            |deadline| Run::new(deadline).grace(Duration::from_millis(50)),
            |done| done.output == b"up\n",
        );
        assert_eq!(done.output, b"up\n");
    }

    #[test]
    fn a_command_that_does_not_read_its_input_is_no_error() {
        let done = run(
            sh("exec </dev/null; echo ok"),
            Run::new(Duration::from_secs(20)).input(vec![b'x'; 1 << 20]),
        )
        .unwrap();
        assert_eq!(done.output, b"ok\n");
    }

    #[test]
    fn a_missing_program_is_an_error_to_start() {
        let e = run(
            Command::new("/nonexistent/claudio-test"),
            Run::new(Duration::from_secs(1)),
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
    }
}
