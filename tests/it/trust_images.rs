//! Trust round three: regression tests (filled in by the work on issue 29/30).
//!
//! Images (issue 29, items 6, 14 and 15): a FIFO or a link to `/dev/zero`
//! named like an image is refused at once, never read or waited on; a path
//! inside a sentence reaches the model as typed, its image beside it; a
//! file that is no usable image never blocks the prompt; text that starts
//! like an image stays text.

use crate::common;

use base64::Engine as _;
use common::term::Term;
use common::{claudio, stderr, stdout, Fake, Step};
use serde_json::json;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A valid 1x1 png.
fn png() -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
        .unwrap()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// At most 512 MiB of data for the program: the old code read a link to
/// `/dev/zero` until memory ran out (3.4 GB in 23 s); under this limit such
/// a run fails at once instead of eating the machine.
fn limit_memory(c: &mut Command) {
    // SAFETY: setrlimit(2) only, between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 512 << 20,
                rlim_max: 512 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Run `c` to its end with a generous deadline (a hang is killed and fails
/// the test rather than the whole run): its output, and the most memory it
/// held (resident, in KiB).
// the child is reaped by wait4(2), which clippy does not see
#[allow(clippy::zombie_processes)]
fn run_within(mut c: Command, secs: u64) -> (Output, i64) {
    use std::io::Read as _;
    use std::os::unix::process::ExitStatusExt as _;
    use std::time::{Duration, Instant};
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(secs);
    let (status, max_rss) = loop {
        let mut status = 0;
        // SAFETY: an all-zero rusage is valid; wait4(2) on our own child.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let pid = child.id() as libc::pid_t;
        let got = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(got >= 0, "wait4: {}", std::io::Error::last_os_error());
        if got == pid {
            break (std::process::ExitStatus::from_raw(status), usage.ru_maxrss);
        }
        if Instant::now() > until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("claudio did not exit within {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = Vec::new();
    let mut err = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    let output = Output {
        status,
        stdout: out,
        stderr: err,
    };
    (output, max_rss)
}

// ---- ask --image: only regular files, never waited on, never read whole ----

#[test]
fn ask_image_of_a_fifo_exits_2_at_once_naming_it() {
    let fake = Fake::after_init(vec![common::turn("x", "never")]);
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("x.png");
    mkfifo(&fifo);
    let mut c = claudio(&fake);
    c.arg("ask").arg("--image").arg(&fifo).arg("x");
    // the old code waited in open(2) for a writer, for ever
    let (out, _) = run_within(c, 60);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "--image cannot read {}: a FIFO, not a regular file",
            fifo.display()
        )),
        "{}",
        stderr(&out)
    );
    assert!(fake.user_lines().is_empty(), "nothing was sent");
}

#[test]
fn ask_image_of_a_link_to_dev_zero_errors_without_reading_it() {
    let fake = Fake::after_init(vec![common::turn("x", "never")]);
    let dir = tempfile::tempdir().unwrap();
    let zero = dir.path().join("x.png");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let mut c = claudio(&fake);
    c.arg("ask").arg("--image").arg(&zero).arg("x");
    limit_memory(&mut c);
    let (out, max_rss_kib) = run_within(c, 60);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // the old code read it until memory ran out; a bare run takes a few MiB
    assert!(
        max_rss_kib < 200 * 1024,
        "claudio held {max_rss_kib} KiB: it read the device"
    );
    assert!(
        stderr(&out).contains(&format!(
            "--image cannot read {}: a character device, not a regular file",
            zero.display()
        )),
        "{}",
        stderr(&out)
    );
    assert!(fake.user_lines().is_empty(), "nothing was sent");
}

// ---- piped text that starts like an image stays text ----------------------

#[test]
fn piped_text_that_starts_with_gif89a_is_sent_as_text() {
    // once "the image is 26912x8307 pixels", exit 2
    let fake = Fake::after_init(vec![common::turn("GIF89a is a format", "It is.")]);
    let mut c = claudio(&fake);
    c.arg("ask");
    let out = common::run(c, Some(b"GIF89a is a format"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "It is.");
    let sent = fake.user_lines();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["message"]["content"], "GIF89a is a format");
}

#[test]
fn piped_text_that_starts_like_a_webp_is_sent_as_text_with_the_prompt() {
    let fake = Fake::after_init(vec![vec![
        Step::expect(json!({"type":"user"})),
        common::result("ok"),
    ]]);
    let mut c = claudio(&fake);
    c.args(["ask", "what", "is", "this?"]);
    let out = common::run(c, Some(b"RIFF....WEBPVP8 begins a lossy webp\n"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = fake.user_lines();
    // text, after the prompt in a block of its own: never an image block
    assert_eq!(
        sent[0]["message"]["content"],
        json!([{"type":"text","text":"what is this?"},
            {"type":"text","text":"\nRIFF....WEBPVP8 begins a lossy webp\n"}])
    );
}

// ---- the chat: the line as typed, images beside it, never blocked ---------

fn chat(fake: &Fake) -> Term {
    let mut c = claudio(fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // no display: the system clipboard cannot be opened
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
    limit_memory(&mut c);
    let t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t
}

/// Wait until the screen shows `text`, wherever the chat wrapped its lines
/// (runs of whitespace count as one space).
pub(crate) fn wait_for_words(t: &Term, text: &str) {
    use std::time::{Duration, Instant};
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let want = words(text);
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let screen = t.contents();
        if words(&screen).contains(&want) {
            return;
        }
        assert!(
            Instant::now() < until,
            "never saw {want:?}; screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A turn that takes any user line and answers `answer`.
fn any_turn(answer: &str) -> Vec<Step> {
    vec![
        Step::expect(json!({"type":"user"})),
        common::system_init(),
        common::assistant_text(answer),
        common::result(answer),
    ]
}

#[test]
fn a_path_in_a_sentence_reaches_the_model_as_typed_with_its_image_beside_it() {
    let fake = Fake::after_init(vec![any_turn("Copied.")]);
    let dir = tempfile::tempdir().unwrap();
    let red = dir.path().join("red.png");
    std::fs::write(&red, png()).unwrap();
    let typed = format!("my script copies {} into dist/", red.display());
    let mut t = chat(&fake);
    t.line(&typed);
    // the line under the prompt names it
    wait_for_words(
        &t,
        &format!("attached {}: image/png, 1x1, 1 KB", red.display()),
    );
    t.wait_for("Copied.");
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
    let sent = fake.user_lines();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(
        sent[0]["message"]["content"],
        json!([
            {"type":"image","source":{"type":"base64","media_type":"image/png","data":b64(&png())}},
            {"type":"text","text":typed}
        ]),
        "the text as typed, not `[Image #1]`"
    );
}

#[test]
fn files_that_are_no_usable_image_are_named_and_the_prompt_still_goes() {
    let fake = Fake::after_init(vec![any_turn("Noted.")]);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let notes = d.join("notes.png");
    std::fs::write(&notes, "just text").unwrap();
    let big = d.join("big.png");
    let mut bytes = png();
    bytes.resize(claudio::protocol::MAX_IMAGE_BYTES + 1, 0);
    std::fs::write(&big, bytes).unwrap();
    let fifo = d.join("fifo.png");
    mkfifo(&fifo);
    let zero = d.join("zero.png");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let typed = format!(
        "why do {} {} {} {} fail?",
        notes.display(),
        big.display(),
        fifo.display(),
        zero.display()
    );
    let mut t = chat(&fake);
    t.line(&typed);
    // the old code froze on the FIFO, ate memory on /dev/zero, and sent
    // nothing for a text file or a big one
    let d = d.display();
    wait_for_words(
        &t,
        &format!("not attached: {d}/notes.png: not a png, jpeg, gif or webp image"),
    );
    wait_for_words(
        &t,
        &format!("not attached: {d}/big.png: the image is 3932161 bytes"),
    );
    wait_for_words(
        &t,
        &format!("not attached: cannot read {d}/fifo.png: a FIFO, not a regular file"),
    );
    wait_for_words(
        &t,
        &format!("not attached: cannot read {d}/zero.png: a character device, not a regular file"),
    );
    t.wait_for("Noted.");
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
    let sent = fake.user_lines();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["message"]["content"], typed, "the prompt as typed");
}
