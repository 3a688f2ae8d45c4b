//! Images in the chat: a path to an image file in the line, or Ctrl-V from
//! the clipboard. The line is sent as typed: a path stays in the text, and
//! its image goes beside it (a line under the prompt names it). Ctrl-V puts
//! an `[Image #N]` marker in the line; each marker left in it sends its
//! image.
//!
//! Terminals paste a dragged file as its path: bare, quoted (`'/a b.png'`),
//! with `\ ` escapes (`/a\ b.png`) or as a `file://` URL. Only absolute paths
//! (or `~/...`) with an image extension are taken, so a file name mentioned
//! in a sentence ("fix logo.png") is not looked up. A path to a file that is
//! not a usable image (not an image, too big, a FIFO, a device) attaches
//! nothing and is named in a note; the prompt is sent all the same.

use claudio::protocol::{Image, ImageError};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The marker for the `n`th image of a prompt.
pub fn marker(n: usize) -> String {
    format!("[Image #{n}]")
}

/// The images waiting in the line being typed (from Ctrl-V), by number.
#[derive(Debug, Default)]
pub struct Pending {
    images: Vec<(usize, Image)>,
}

impl Pending {
    /// Keep `image`; its marker, to put in the line.
    pub fn add(&mut self, image: Image) -> String {
        let n = self.next();
        self.images.push((n, image));
        marker(n)
    }

    fn next(&self) -> usize {
        self.images.iter().map(|(n, _)| *n).max().unwrap_or(0) + 1
    }
}

/// A prompt ready to send: the text as typed, the images to send beside
/// it, and a note for each file passed over.
#[derive(Debug)]
pub struct Attached {
    /// The line as typed: paths stay, Ctrl-V's markers stay.
    pub text: String,
    /// Each image with what names it (its marker, or its path as typed), in
    /// the order they appear in the line.
    pub images: Vec<(String, Image)>,
    /// Why a file named in the line was not attached.
    pub notes: Vec<String>,
}

impl Attached {
    /// The lines under the prompt: one naming each image sent
    /// (`[Image #1] image/png, 800x600, 12 KB`, `attached /a/b.png:
    /// image/png, ...`), one for each file passed over.
    pub fn lines(&self) -> Vec<String> {
        let named = self.images.iter().map(|(name, image)| {
            if is_marker(name) {
                format!("{name} {}", describe(image))
            } else {
                format!("attached {name}: {}", describe(image))
            }
        });
        named.chain(self.notes.iter().cloned()).collect()
    }
}

fn is_marker(name: &str) -> bool {
    name.starts_with("[Image #")
}

/// Split a line as a shell would, keeping where each word is: quotes group,
/// a backslash escapes the next character. Yields (byte range, unescaped word).
fn words(line: &str) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        let mut end = start;
        let mut quote: Option<char> = None;
        while let Some(&(i, c)) = chars.peek() {
            if quote.is_none() && c.is_whitespace() {
                break;
            }
            chars.next();
            end = i + c.len_utf8();
            match (quote, c) {
                (None, '\'' | '"') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (q, '\\') if q != Some('\'') => {
                    if let Some(&(j, next)) = chars.peek() {
                        chars.next();
                        end = j + next.len_utf8();
                        word.push(next);
                    }
                }
                (_, c) => word.push(c),
            }
        }
        out.push((start..end, word));
    }
    out
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The image file a pasted word names: an absolute path, `~/...`, or a
/// `file://` URL, ending in .png, .jpg, .jpeg, .gif or .webp (any case).
pub fn pasted_path(word: &str, home: Option<&Path>) -> Option<PathBuf> {
    let path = if let Some(rest) = word.strip_prefix("file://") {
        // file:///a/b or file://localhost/a/b
        let rest = rest.strip_prefix("localhost").unwrap_or(rest);
        if !rest.starts_with('/') {
            return None;
        }
        PathBuf::from(percent_decode(rest)?)
    } else if let Some(rest) = word.strip_prefix("~/") {
        home?.join(rest)
    } else if word.starts_with('/') {
        PathBuf::from(word)
    } else {
        return None;
    };
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    matches!(ext.as_str(), "png" | "jpg" | "jpeg" | "gif" | "webp").then_some(path)
}

/// Every `[Image #N]` in `text`: where it starts, and N; in order.
fn markers(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("[Image #") {
        let at = from + found;
        from = at + "[Image #".len();
        let rest = &text[from..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && rest[digits..].starts_with(']') {
            if let Ok(n) = rest[..digits].parse() {
                out.push((at, n));
            }
        }
    }
    out
}

/// Whether a failed load means only that no such file is here: the path
/// is then just text.
fn no_such_file(e: &ImageError) -> bool {
    use std::io::ErrorKind::{NotADirectory, NotFound};
    matches!(e, ImageError::Read { source, .. } if matches!(source.kind(), NotFound | NotADirectory))
}

/// Gather what goes beside `line`: the image of each Ctrl-V marker left in
/// it, and the image of each path in it to an image file, in the order
/// they appear. The text is never changed.
///
/// A path to no file is text and nothing more. A file that is not an image
/// the API takes is passed over with a note naming it; the prompt is sent
/// all the same.
pub fn attach(
    line: &str,
    pending: &Pending,
    home: Option<&Path>,
    load: impl Fn(&Path) -> Result<Image, ImageError>,
) -> Attached {
    // (where in the line, what names it, the image)
    let mut found: Vec<(usize, String, Image)> = Vec::new();
    let mut notes = Vec::new();
    let mut seen_numbers = Vec::new();
    for (at, n) in markers(line) {
        if seen_numbers.contains(&n) {
            continue;
        }
        if let Some((_, image)) = pending.images.iter().find(|(k, _)| *k == n) {
            seen_numbers.push(n);
            found.push((at, marker(n), image.clone()));
        }
    }
    let mut seen_paths: Vec<PathBuf> = Vec::new();
    for (range, word) in words(line) {
        // "what is in /a/shot.png?": the punctuation after a path is the sentence's
        let bare = word.trim_end_matches(['?', '!', '.', ',', ';', ':', ')']);
        let cut = &word[bare.len()..];
        let Some(path) = pasted_path(&word, home).or_else(|| {
            // not when the punctuation was inside quotes: '/a/b.png?' names "b.png?"
            line[range.clone()]
                .ends_with(cut)
                .then(|| pasted_path(bare, home))
                .flatten()
        }) else {
            continue;
        };
        if seen_paths.contains(&path) {
            continue;
        }
        seen_paths.push(path.clone());
        match load(&path) {
            Ok(image) => found.push((range.start, path.display().to_string(), image)),
            Err(e) if no_such_file(&e) => {}
            Err(e) => notes.push(format!(
                "not attached: {}",
                crate::cli::common::exit::with_causes(&e)
            )),
        }
    }
    found.sort_by_key(|(at, _, _)| *at);
    Attached {
        text: line.to_owned(),
        images: found
            .into_iter()
            .map(|(_, name, image)| (name, image))
            .collect(),
        notes,
    }
}

/// A one-line description of an image: `image/png, 800x600, 12 KB`.
pub fn describe(image: &Image) -> String {
    format!(
        "{}, {}x{}, {}",
        image.format().media_type(),
        image.width(),
        image.height(),
        kb(image.bytes().len())
    )
}

/// A size in KB (at least 1), or MB past 1000 KB.
pub fn kb(bytes: usize) -> String {
    if bytes >= 1000 * 1024 {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    } else {
        format!("{} KB", bytes.div_ceil(1024).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
        b.extend_from_slice(&w.to_be_bytes());
        b.extend_from_slice(&h.to_be_bytes());
        b.extend_from_slice(&[8, 6, 0, 0, 0]);
        b
    }

    fn fake_load(p: &Path) -> Result<Image, ImageError> {
        let name = p.file_name().unwrap().to_str().unwrap();
        match name {
            n if n.starts_with("missing") => Err(ImageError::Read {
                path: p.into(),
                source: std::io::ErrorKind::NotFound.into(),
            }),
            n if n.starts_with("text") => Image::from_bytes(&b"hello"[..]).map_err(|e| {
                let _ = e;
                ImageError::NotAnImage {
                    path: Some(p.into()),
                }
            }),
            n => Image::from_bytes(png(n.len() as u32, 1)),
        }
    }

    #[test]
    fn words_keep_their_place_and_lose_quotes_and_escapes() {
        let line = r#"look '/a b.png' /c\ d.png "/e f.gif" x"#;
        let w = words(line);
        let got: Vec<(&str, &str)> = w
            .iter()
            .map(|(r, s)| (&line[r.clone()], s.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("look", "look"),
                ("'/a b.png'", "/a b.png"),
                (r"/c\ d.png", "/c d.png"),
                (r#""/e f.gif""#, "/e f.gif"),
                ("x", "x")
            ]
        );
        assert!(words("").is_empty());
        assert_eq!(words("a\\").last().unwrap().1, "a");
        assert_eq!(words("'open").last().unwrap().1, "open");
    }

    #[test]
    fn pasted_paths() {
        let home = Path::new("/home/me");
        let p = |w: &str| pasted_path(w, Some(home)).map(|p| p.display().to_string());
        assert_eq!(p("/tmp/shot.png").as_deref(), Some("/tmp/shot.png"));
        assert_eq!(p("/tmp/SHOT.JPEG").as_deref(), Some("/tmp/SHOT.JPEG"));
        assert_eq!(
            p("~/Desktop/a.webp").as_deref(),
            Some("/home/me/Desktop/a.webp")
        );
        assert_eq!(
            p("file:///tmp/Screen%20Shot.png").as_deref(),
            Some("/tmp/Screen Shot.png")
        );
        assert_eq!(p("file://localhost/x/y.gif").as_deref(), Some("/x/y.gif"));
        // a name in a sentence, another kind of file, a URL elsewhere
        for no in [
            "logo.png",
            "./logo.png",
            "/tmp/notes.txt",
            "/tmp/png",
            "https://x.io/a.png",
            "file://host/a.png",
            "file:///a%zz.png",
        ] {
            assert_eq!(p(no), None, "{no}");
        }
        assert_eq!(pasted_path("~/a.png", None), None);
    }

    #[test]
    fn markers_are_found_in_order() {
        assert_eq!(
            markers("[Image #2] and [Image #1] [Image #x] [Image #3"),
            [(0, 2), (15, 1)]
        );
        assert_eq!(markers("[Image #[Image #4]"), [(8, 4)]);
    }

    fn names(a: &Attached) -> Vec<&str> {
        a.images.iter().map(|(name, _)| name.as_str()).collect()
    }

    #[test]
    fn a_path_in_a_sentence_stays_in_the_text_and_its_image_goes_beside_it() {
        let line = "my script copies /x/red.png into dist/";
        let a = attach(line, &Pending::default(), None, fake_load);
        assert_eq!(a.text, line, "the model gets the text as typed");
        assert_eq!(names(&a), ["/x/red.png"]);
        assert_eq!(a.lines(), ["attached /x/red.png: image/png, 7x1, 1 KB"]);
        // a line that is only a dragged path keeps it too
        let a = attach("'/tmp/my shot.png'", &Pending::default(), None, fake_load);
        assert_eq!(a.text, "'/tmp/my shot.png'");
        assert_eq!(names(&a), ["/tmp/my shot.png"]);
    }

    #[test]
    fn clipboard_markers_and_paths_attach_in_the_order_of_the_line() {
        let mut pending = Pending::default();
        assert_eq!(
            pending.add(Image::from_bytes(png(7, 7)).unwrap()),
            "[Image #1]"
        );
        let line = "[Image #1] vs '/tmp/ab.png' and /tmp/missing.png, /tmp/c.gif?";
        let a = attach(line, &pending, None, fake_load);
        assert_eq!(a.text, line);
        assert_eq!(names(&a), ["[Image #1]", "/tmp/ab.png", "/tmp/c.gif"]);
        assert_eq!(a.images[0].1.width(), 7);
        assert_eq!(a.images[1].1.width(), 6); // "ab.png"
        assert_eq!(a.lines()[0], "[Image #1] image/png, 7x7, 1 KB");
        assert!(a.notes.is_empty(), "a missing file is only text");
        // the same marker or path twice sends its image once
        let a = attach(
            "[Image #1] [Image #1] /a/b.png /a/b.png",
            &pending,
            None,
            fake_load,
        );
        assert_eq!(names(&a), ["[Image #1]", "/a/b.png"]);
        // punctuation inside quotes is the file's name
        let a = attach("is '/a/b.png?'", &Pending::default(), None, fake_load);
        assert!(a.images.is_empty());
        // a marker deleted from the line drops its image; one typed for
        // nothing stays text
        let a = attach("only text [Image #9]", &pending, None, fake_load);
        assert_eq!(a.text, "only text [Image #9]");
        assert!(a.images.is_empty());
    }

    #[test]
    fn a_file_that_is_not_a_usable_image_is_named_and_the_prompt_still_goes() {
        let line = "see /tmp/text.png and /tmp/ok.png";
        let a = attach(line, &Pending::default(), None, fake_load);
        assert_eq!(a.text, line);
        assert_eq!(names(&a), ["/tmp/ok.png"]);
        assert_eq!(
            a.notes,
            ["not attached: /tmp/text.png: not a png, jpeg, gif or webp image"]
        );
        assert_eq!(a.lines().len(), 2);
    }

    #[test]
    fn a_fifo_a_device_or_a_big_file_is_passed_over_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let fifo = d.join("fifo.png");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let zero = d.join("zero.png");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let big = d.join("big.png");
        let mut bytes = png(10, 10);
        bytes.resize(claudio::protocol::MAX_IMAGE_BYTES + 1, 0);
        std::fs::write(&big, bytes).unwrap();
        let line = format!(
            "compare {} with {} and {}",
            fifo.display(),
            zero.display(),
            big.display()
        );
        let a = attach(&line, &Pending::default(), None, |p: &Path| {
            Image::from_file(p)
        });
        assert_eq!(a.text, line);
        assert!(a.images.is_empty());
        assert_eq!(
            a.notes,
            [
                format!(
                    "not attached: cannot read {}: a FIFO, not a regular file",
                    fifo.display()
                ),
                format!(
                    "not attached: cannot read {}: a character device, not a regular file",
                    zero.display()
                ),
                format!(
                    "not attached: {}: the image is 3932161 bytes; the API takes at most 3932160 bytes per image (5 MiB as base64)",
                    big.display()
                ),
            ]
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(kb(0), "1 KB");
        assert_eq!(kb(12 * 1024), "12 KB");
        assert_eq!(kb(12 * 1024 + 1), "13 KB");
        assert_eq!(kb(3 * 1024 * 1024), "3.0 MB");
        let i = Image::from_bytes(png(800, 600)).unwrap();
        assert_eq!(describe(&i), "image/png, 800x600, 1 KB");
    }
}
