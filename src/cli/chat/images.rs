//! Images in the chat: a pasted or dragged path to an image file, or Ctrl-V
//! from the clipboard, becomes an `[Image #N]` marker in the line; on
//! sending, each marker becomes an image block beside the text.
//!
//! Terminals paste a dragged file as its path: bare, quoted (`'/a b.png'`),
//! with `\ ` escapes (`/a\ b.png`) or as a `file://` URL. Only absolute paths
//! (or `~/...`) with an image extension are taken, so a file name mentioned
//! in a sentence ("fix logo.png") stays text.

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

    /// Forget them all (the prompt was sent).
    pub fn clear(&mut self) {
        self.images.clear();
    }
}

/// A prompt ready to send: the text with its markers, and the images the
/// markers stand for (with their numbers), in the order they appear.
#[derive(Debug)]
pub struct Attached {
    pub text: String,
    pub images: Vec<(usize, Image)>,
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

/// Every `[Image #N]` in `text`, with N, in order.
fn markers(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("[Image #") {
        rest = &rest[at + "[Image #".len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && rest[digits.len()..].starts_with(']') {
            if let Ok(n) = digits.parse() {
                out.push(n);
            }
        }
    }
    out
}

/// Turn the pasted image paths of `line` into markers (numbered after the
/// Ctrl-V images), then gather the image of every marker in the text.
///
/// A path to a file that does not exist stays text. A file that exists but
/// is not an image the API takes is an error: the prompt is not sent.
pub fn attach(
    line: &str,
    pending: &Pending,
    home: Option<&Path>,
    load: impl Fn(&Path) -> Result<Image, ImageError>,
) -> Result<Attached, ImageError> {
    let mut found: Vec<(usize, Image)> = Vec::new();
    let mut text = String::with_capacity(line.len());
    let mut last = 0;
    let mut n = pending.next();
    for (mut range, word) in words(line) {
        // "what is in /a/shot.png?": the punctuation after a path is the sentence's
        let bare = word.trim_end_matches(['?', '!', '.', ',', ';', ':', ')']);
        let cut = &word[bare.len()..];
        let Some(path) = pasted_path(&word, home).or_else(|| {
            line[range.clone()]
                .ends_with(cut)
                .then(|| pasted_path(bare, home))
                .flatten()
                .inspect(|_| range.end -= cut.len())
        }) else {
            continue;
        };
        let image = match load(&path) {
            Ok(image) => image,
            Err(ImageError::Read { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                continue
            }
            Err(e) => return Err(e),
        };
        text.push_str(&line[last..range.start]);
        text.push_str(&marker(n));
        last = range.end;
        found.push((n, image));
        n += 1;
    }
    text.push_str(&line[last..]);
    let mut images = Vec::new();
    for m in markers(&text) {
        let image = pending
            .images
            .iter()
            .chain(found.iter())
            .find(|(k, _)| *k == m);
        if let Some((n, image)) = image {
            if !images.iter().any(|(k, _)| k == n) {
                images.push((*n, image.clone()));
            }
        }
    }
    Ok(Attached { text, images })
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
            [2, 1]
        );
    }

    #[test]
    fn pasted_paths_become_markers_after_the_clipboard_ones() {
        let mut pending = Pending::default();
        assert_eq!(
            pending.add(Image::from_bytes(png(7, 7)).unwrap()),
            "[Image #1]"
        );
        let line = "[Image #1] vs '/tmp/ab.png' and /tmp/missing.png, /tmp/c.gif?";
        let a = attach(line, &pending, None, fake_load).unwrap();
        assert_eq!(
            a.text,
            "[Image #1] vs [Image #2] and /tmp/missing.png, [Image #3]?"
        );
        assert_eq!(a.images.len(), 3);
        assert_eq!(a.images[0].1.width(), 7);
        assert_eq!(a.images[1].1.width(), 6); // "ab.png"
        let numbers: Vec<usize> = a.images.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [1, 2, 3]);
        // the same marker twice sends its image once
        let a = attach("[Image #1] [Image #1]", &pending, None, fake_load).unwrap();
        assert_eq!(a.images.len(), 1);
        // a quoted path then punctuation
        let a = attach("is '/a b.png'?", &Pending::default(), None, fake_load).unwrap();
        assert_eq!(a.text, "is [Image #1]?");
        // a marker deleted from the line drops its image; one typed for
        // nothing stays text
        let a = attach("only text [Image #9]", &pending, None, fake_load).unwrap();
        assert_eq!(a.text, "only text [Image #9]");
        assert!(a.images.is_empty());
        pending.clear();
        assert_eq!(
            pending.add(Image::from_bytes(png(1, 1)).unwrap()),
            "[Image #1]"
        );
    }

    #[test]
    fn a_file_that_is_not_an_image_stops_the_prompt() {
        let err = attach("see /tmp/text.png", &Pending::default(), None, fake_load).unwrap_err();
        assert!(matches!(err, ImageError::NotAnImage { .. }));
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
