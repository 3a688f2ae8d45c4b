//! What `ask` sends: the prompt words, piped stdin (text, or an image
//! recognised by its whole header and structure, never by a prefix) and
//! `--image` files, checked whole before anything is sent.

use claudio::protocol::{ContentBlock, ImageFormat, MessageContent};
use claudio::UserInput;
use std::path::PathBuf;

/// What came on stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piped {
    /// Text, appended to the prompt.
    Text(String),
    /// A png, jpeg, gif or webp image (by its whole header and structure),
    /// sent as an image block.
    Image(Vec<u8>),
}

impl Piped {
    /// Tell an image from text by the whole header and the data
    /// ([`ImageFormat::sniff`]): text that starts like an image (`GIF89a is
    /// a format`) stays text. Text that is not UTF-8 has its invalid bytes
    /// replaced (the caller is told).
    pub fn from_bytes(buf: Vec<u8>) -> (Piped, bool) {
        if ImageFormat::sniff(&buf).is_some() {
            return (Piped::Image(buf), false);
        }
        match String::from_utf8(buf) {
            Ok(s) => (Piped::Text(s), false),
            Err(e) => (
                Piped::Text(String::from_utf8_lossy(e.as_bytes()).into_owned()),
                true,
            ),
        }
    }
}

/// Build the prompt from the arguments and piped text. Both: the prompt
/// typed, then the piped text in a text block of its own (on a new line),
/// so the session's title is the prompt the person typed (the CLI's
/// `lastPrompt` and the store's first prompt are the first text block),
/// not the two run together on one line. A slash command (`/review`) and
/// the piped text are one text, as the CLI runs a command only from a
/// message's last text block (`git diff | claudio ask /review`).
pub fn compose_prompt(args: &[String], piped: Option<&str>) -> Option<MessageContent> {
    let arg = args.join(" ");
    let piped = piped.filter(|s| !s.trim().is_empty());
    match (arg.trim().is_empty(), piped) {
        (true, None) => None,
        (true, Some(p)) => Some(MessageContent::Text(p.to_owned())),
        (false, None) => Some(MessageContent::Text(arg)),
        // a command (`/review`) is one text: the CLI runs a slash command
        // only from a message's last text block
        (false, Some(p)) if arg.trim_start().starts_with('/') => {
            Some(MessageContent::Text(format!("{arg}\n\n{p}")))
        }
        (false, Some(p)) => Some(MessageContent::Blocks(vec![
            ContentBlock::text(arg),
            ContentBlock::text(format!("\n{p}")),
        ])),
    }
}

/// The user turn, or `Ok(None)` when there is neither a prompt nor an
/// image. Every image is read and checked before the turn is built, so an
/// error means nothing is sent; the error reads as a usage message.
pub fn compose_input(
    args: &[String],
    piped: Option<Piped>,
    image_files: &[PathBuf],
) -> anyhow::Result<Option<UserInput>> {
    let (text, piped_image) = match piped {
        Some(Piped::Text(t)) => (compose_prompt(args, Some(&t)), None),
        Some(Piped::Image(b)) => (compose_prompt(args, None), Some(b)),
        None => (compose_prompt(args, None), None),
    };
    if text.is_none() && image_files.is_empty() && piped_image.is_none() {
        return Ok(None);
    }
    let mut input = UserInput::new(text.unwrap_or_else(|| MessageContent::Text(String::new())));
    for path in image_files {
        input = input.image_file(path).map_err(|e| {
            crate::cli::common::exit::usage_error!(
                "--image {}",
                crate::cli::common::exit::with_causes(&e)
            )
        })?;
    }
    if let Some(bytes) = piped_image {
        input = input
            .image(bytes)
            .map_err(|e| crate::cli::common::exit::usage_error!("stdin: {e}"))?;
    }
    Ok(Some(input))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
        b.extend_from_slice(&w.to_be_bytes());
        b.extend_from_slice(&h.to_be_bytes());
        b.extend_from_slice(&[8, 6, 0, 0, 0]);
        b
    }

    #[test]
    fn prompt_composition() {
        let text = |s: &str| Some(MessageContent::Text(s.into()));
        assert_eq!(
            compose_prompt(&a(&["review", "this"]), None),
            text("review this")
        );
        assert_eq!(
            compose_prompt(&a(&["review"]), Some("diff --git\n")),
            Some(MessageContent::Blocks(vec![
                ContentBlock::text("review"),
                ContentBlock::text("\ndiff --git\n")
            ]))
        );
        // a command with piped text stays one text (the CLI runs a slash
        // command only from the last text block: as two, it went to the model)
        assert_eq!(
            compose_prompt(&a(&["/review"]), Some("diff --git\n")),
            text("/review\n\ndiff --git\n")
        );
        assert_eq!(compose_prompt(&[], Some("just stdin")), text("just stdin"));
        assert_eq!(compose_prompt(&[], Some("  \n")), None);
        assert_eq!(compose_prompt(&a(&["x"]), Some("")), text("x"));
        assert_eq!(compose_prompt(&[], None), None);
    }

    #[test]
    fn stdin_is_an_image_by_its_magic_bytes() {
        assert_eq!(
            Piped::from_bytes(png(1, 1)),
            (Piped::Image(png(1, 1)), false)
        );
        assert_eq!(
            Piped::from_bytes(b"PNG is a format".to_vec()),
            (Piped::Text("PNG is a format".into()), false)
        );
        // text that starts with a gif's signature (once "26912x8307 pixels")
        assert_eq!(
            Piped::from_bytes(b"GIF89a is a format".to_vec()),
            (Piped::Text("GIF89a is a format".into()), false)
        );
        assert_eq!(
            Piped::from_bytes(b"RIFF....WEBP is how a webp starts".to_vec()),
            (
                Piped::Text("RIFF....WEBP is how a webp starts".into()),
                false
            )
        );
        // binary that starts like a gif but is none: text, its bytes replaced
        assert_eq!(
            Piped::from_bytes(b"GIF89a\x01\x00\x01\x00\xff".to_vec()),
            (Piped::Text("GIF89a\u{1}\0\u{1}\0\u{fffd}".into()), true)
        );
        assert_eq!(
            Piped::from_bytes(b"a\xffb".to_vec()),
            (Piped::Text("a\u{fffd}b".into()), true)
        );
    }

    #[test]
    fn images_beside_the_prompt() {
        let input = compose_input(
            &a(&["what", "is", "wrong?"]),
            Some(Piped::Image(png(4, 4))),
            &[],
        )
        .unwrap()
        .unwrap();
        let v = input.to_value();
        let c = &v["message"]["content"];
        assert_eq!(c[0]["source"]["media_type"], "image/png");
        assert_eq!(c[1]["text"], "what is wrong?");
        // an image alone is a turn
        let v = compose_input(&[], Some(Piped::Image(png(4, 4))), &[])
            .unwrap()
            .unwrap();
        assert_eq!(
            v.to_value()["message"]["content"].as_array().unwrap().len(),
            1
        );
        // text alone stays a plain string
        let v = compose_input(&a(&["hi"]), None, &[]).unwrap().unwrap();
        assert_eq!(v.to_value()["message"]["content"], "hi");
        assert!(compose_input(&[], None, &[]).unwrap().is_none());
    }

    #[test]
    fn a_bad_image_is_a_usage_error_naming_it() {
        let dir = std::env::temp_dir().join(format!("claudio-ask-img-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.png");
        std::fs::write(&good, png(2, 2)).unwrap();
        let text = dir.join("notes.txt");
        std::fs::write(&text, "hello").unwrap();
        let err = compose_input(&a(&["x"]), None, &[good.clone(), text.clone()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "--image {}: not a png, jpeg, gif or webp image",
                text.display()
            )
        );
        assert_eq!(
            crate::cli::common::exit::for_error(&err),
            crate::cli::common::exit::Exit::Usage
        );
        let err = compose_input(&a(&["x"]), Some(Piped::Image(png(9000, 2))), &[good]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("stdin: the image is 9000x2 pixels"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fifo_or_a_device_is_refused_at_once_with_what_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.png");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let zero = dir.path().join("zero.png");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        for (path, what) in [(&fifo, "a FIFO"), (&zero, "a character device")] {
            let err = compose_input(&a(&["x"]), None, std::slice::from_ref(path)).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "--image cannot read {}: {what}, not a regular file",
                    path.display()
                )
            );
            assert_eq!(
                crate::cli::common::exit::for_error(&err),
                crate::cli::common::exit::Exit::Usage
            );
        }
    }
}
