//! Images in a user turn: `ask --image`, an image on stdin, a path pasted
//! in the chat, Ctrl-V without a clipboard; the errors that send nothing.

use crate::common;

use base64::Engine as _;
use common::real::*;
use common::{claudio, run, stderr, Fake, Step};

/// A valid 1x1 png.
fn png() -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
        .unwrap()
}

/// A 2x1 gif.
fn gif() -> Vec<u8> {
    b"GIF89a\x02\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff,\x00\x00\x00\x00\x02\x00\x01\x00\x00\x02\x02\x44\x01\x00;".to_vec()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The images of the one main request, and its last user text.
fn sent(w: &World) -> (Vec<(String, String)>, String) {
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 1, "one turn");
    (reqs[0].last_user_images(), reqs[0].last_user_text())
}

#[test]
fn ask_image_reaches_the_api_as_an_image_block() {
    let w = world!("ask_image_reaches_the_api_as_an_image_block");
    std::fs::write(w.work.path().join("shot.png"), png()).unwrap();
    std::fs::write(w.work.path().join("anim.gif"), gif()).unwrap();
    w.api.push(Reply::text("A red button."));
    let mut c = w.claudio();
    c.args([
        "ask",
        "--image",
        "shot.png",
        "--image",
        "anim.gif",
        "what is wrong here?",
    ]);
    let out = run(c, None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(common::stdout(&out).trim(), "A red button.");
    let (images, text) = sent(&w);
    assert_eq!(
        images,
        vec![
            ("image/png".to_string(), b64(&png())),
            ("image/gif".to_string(), b64(&gif()))
        ]
    );
    assert!(text.contains("what is wrong here?"), "{text}");
}

#[test]
fn ask_with_an_image_on_stdin_sends_it_as_an_image_block() {
    let w = world!("ask_with_an_image_on_stdin_sends_it_as_an_image_block");
    w.api.push(Reply::text("A blank square."));
    let mut c = w.claudio();
    c.args(["ask", "what is wrong here?"]);
    let out = run(c, Some(&png()));
    assert!(out.status.success(), "{}", stderr(&out));
    let (images, text) = sent(&w);
    assert_eq!(images, vec![("image/png".to_string(), b64(&png()))]);
    assert!(text.contains("what is wrong here?"), "{text}");
    assert!(
        !text.contains("PNG"),
        "the image is not sent as text: {text}"
    );
}

#[test]
fn ask_refuses_a_file_that_is_not_an_image_and_sends_nothing() {
    let fake = Fake::after_init(vec![common::turn("x", "never")]);
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "not a picture").unwrap();
    let good = dir.path().join("good.png");
    std::fs::write(&good, png()).unwrap();
    let mut c = claudio(&fake);
    c.arg("ask")
        .arg("--image")
        .arg(&good)
        .arg("--image")
        .arg(&notes)
        .arg("x");
    let out = run(c, None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "--image {}: not a png, jpeg, gif or webp image",
            notes.display()
        )),
        "{err}"
    );
    assert!(
        fake.stdin_lines().is_empty(),
        "nothing was sent: {:?}",
        fake.stdin_lines()
    );
}

#[test]
fn ask_refuses_a_missing_file_and_an_image_over_the_limits() {
    let fake = Fake::after_init(vec![common::turn("x", "never")]);
    let dir = tempfile::tempdir().unwrap();
    let mut c = claudio(&fake);
    c.arg("ask")
        .arg("--image")
        .arg(dir.path().join("gone.png"))
        .arg("x");
    let out = run(c, None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("gone.png"), "{}", stderr(&out));

    // too big in bytes: a png header then padding past 3.75 MiB
    let mut big = png();
    big.resize(claudio::protocol::MAX_IMAGE_BYTES + 1, 0);
    let mut c = claudio(&fake);
    c.args(["ask", "x"]);
    let out = run(c, Some(&big));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("stdin: the image is 3932161 bytes; the API takes at most 3932160 bytes"),
        "{}",
        stderr(&out)
    );

    // too many pixels: a gif that says 9000 wide
    let mut wide = gif();
    wide[6..8].copy_from_slice(&9000u16.to_le_bytes());
    let mut c = claudio(&fake);
    c.args(["ask", "x"]);
    let out = run(c, Some(&wide));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("9000x1 pixels; the API takes at most 8000 pixels a side"),
        "{}",
        stderr(&out)
    );
    assert!(
        fake.stdin_lines().is_empty(),
        "nothing was sent: {:?}",
        fake.stdin_lines()
    );
}

// ---- the chat ---------------------------------------------------------------

fn real_chat(w: &World) -> common::term::Term {
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path());
    let t = common::term::Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t
}

fn fake_chat(fake: &Fake) -> common::term::Term {
    let mut c = claudio(fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // no display: the system clipboard cannot be opened
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
    let t = common::term::Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t
}

#[test]
fn a_path_pasted_in_the_chat_reaches_the_api_as_an_image_block() {
    let w = world!("a_path_pasted_in_the_chat_reaches_the_api_as_an_image_block");
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("my shot.png");
    std::fs::write(&shot, png()).unwrap();
    w.api.push(Reply::text("It is one pixel."));
    let mut t = real_chat(&w);
    t.wait_prompt();
    t.send(b"what is in ");
    // as a terminal pastes a dragged file: bracketed, quoted
    let paste = format!("\x1b[200~'{}'\x1b[201~", shot.display());
    t.send(paste.as_bytes());
    // typed after the paste is on the line: keys in the same burst as a
    // paste's end are pasted text (an Enter there a line break, #42.1)
    t.wait_for("shot.png'");
    t.send(b"?\r");
    crate::trust_images::wait_for_words(
        &t,
        &format!("attached {}: image/png, 1x1, 1 KB", shot.display()),
    );
    t.wait_for("It is one pixel.");
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
    let (images, text) = sent(&w);
    assert_eq!(images, vec![("image/png".to_string(), b64(&png()))]);
    // the line as typed: the model sees the path beside the image
    assert!(
        text.contains(&format!("what is in '{}'?", shot.display())),
        "{text}"
    );
}

#[test]
fn a_pasted_path_to_a_file_that_is_not_an_image_is_sent_as_text_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let fake_png = dir.path().join("notes.png");
    std::fs::write(&fake_png, "just text").unwrap();
    let typed = format!("look at {}", fake_png.display());
    let fake = Fake::after_init(vec![common::turn(&typed, "A text file.")]);
    let mut t = fake_chat(&fake);
    t.line(&typed);
    crate::trust_images::wait_for_words(
        &t,
        &format!(
            "not attached: {}: not a png, jpeg, gif or webp image",
            fake_png.display()
        ),
    );
    t.wait_for("A text file.");
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
    assert_eq!(fake.user_lines().len(), 1, "{:?}", fake.stdin_lines());
}

#[test]
fn ctrl_v_without_a_clipboard_says_so_and_keeps_the_line() {
    let fake = Fake::after_init(vec![]);
    let mut t = fake_chat(&fake);
    t.wait_prompt();
    t.send(b"look at ");
    t.send(b"\x16");
    t.wait_for("no system clipboard here (no display: over SSH, or on a console)");
    t.send(b"this");
    t.wait_for("› look at this");
    t.ctrl_c();
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
    assert_eq!(fake.user_lines().len(), 0, "{:?}", fake.stdin_lines());
}

// ---- the transcript -----------------------------------------------------------

#[test]
fn inspect_and_export_show_the_transcript_s_image() {
    let w = world!("inspect_and_export_show_the_transcript_s_image");
    w.api.push(Reply::text("One pixel."));
    let mut c = w.claudio();
    c.args(["ask", "-o", "json", "what is this?"]);
    let out = run(c, Some(&png()));
    assert!(out.status.success(), "{}", stderr(&out));
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = result["session_id"].as_str().unwrap().to_owned();
    let config = w.home.path().join(".claude");
    let sessions = |args: &[&str]| {
        let mut c = w.claudio();
        c.args(["sessions", "--config-dir"]).arg(&config).args(args);
        let out = run(c, None);
        assert!(out.status.success(), "{}", stderr(&out));
        common::stdout(&out)
    };
    let shown = sessions(&["inspect", &id]);
    assert!(shown.contains("[image: image/png, 1 KB]"), "{shown}");
    assert!(shown.contains("what is this?"), "{shown}");
    assert!(
        !shown.contains("iVBOR"),
        "no base64 on the terminal: {shown}"
    );
    let md = sessions(&["export", &id]);
    assert!(md.contains("[image: image/png, 1 KB]"), "{md}");
    let page = sessions(&["export", &id, "--format", "html"]);
    let img = format!(
        "<img alt=\"[image: image/png, 1 KB]\" src=\"data:image/png;base64,{}\">",
        b64(&png())
    );
    assert!(page.contains(&img), "{page}");
}

#[test]
fn claudio_alone_with_an_image_on_stdin_sends_an_image_block() {
    // with the fake CLI: runs without the real one
    let fake = Fake::after_init(vec![vec![
        Step::expect(serde_json::json!({"type":"user"})),
        common::system_init(),
        common::assistant_text("A gif."),
        common::result("A gif."),
    ]]);
    let out = run(claudio(&fake), Some(&gif()));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(common::stdout(&out).trim(), "A gif.");
    let users = fake.user_lines();
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(
        users[0]["message"]["content"],
        serde_json::json!([{"type":"image","source":{"type":"base64","media_type":"image/gif","data":b64(&gif())}}])
    );
}
