//! An image in a transcript, for `inspect` and `export`: a marker that
//! names it (`[image: image/png, 12 KB]`), and for the HTML export a `data:`
//! URI built only from a checked image, so nothing else reaches the page.

use claudio::protocol::ImageFormat;
use serde_json::Value;

/// An image block's `source`, checked: one of the four formats the API
/// takes, its base64 valid and its bytes of that format. `None` for anything
/// else (a URL source, a damaged or foreign payload). With the format: the
/// image's size in bytes, and its base64 text, which the strict decoder
/// has accepted as canonical (nothing but base64 text).
fn checked(source: &Value) -> Option<(ImageFormat, usize, &str)> {
    use base64::Engine as _;
    if source.get("type").and_then(Value::as_str) != Some("base64") {
        return None;
    }
    let format = ImageFormat::from_media_type(source.get("media_type")?.as_str()?)?;
    let data = source.get("data")?.as_str()?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .ok()?;
    (ImageFormat::sniff(&bytes) == Some(format)).then_some((format, bytes.len(), data))
}

/// `[image: image/png, 12 KB]`.
fn named(format: ImageFormat, len: usize) -> String {
    let kb = len.div_ceil(1024).max(1);
    format!("[image: {}, {kb} KB]", format.media_type())
}

/// How a transcript's image shows: `[image: image/png, 12 KB]`, or
/// `[image]` when it is not one the API takes.
pub(super) fn marker(source: &Value) -> String {
    match checked(source) {
        Some((format, len, _)) => named(format, len),
        None => "[image]".to_owned(),
    }
}

/// An image as the export shows it: its marker, and for the HTML page its
/// checked `data:` URI (not in the JSON export).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Shown {
    pub marker: String,
    #[serde(skip)]
    pub data_uri: Option<String>,
}

impl Shown {
    /// The image of a transcript's `image` block.
    pub fn of(block: &Value) -> Shown {
        let source = block.get("source").unwrap_or(&Value::Null);
        match checked(source) {
            // a data: URI only for a checked png, jpeg, gif or webp
            Some((format, len, data)) => Shown {
                marker: named(format, len),
                data_uri: Some(format!("data:{};base64,{data}", format.media_type())),
            },
            None => Shown {
                marker: "[image]".to_owned(),
                data_uri: None,
            },
        }
    }

    /// Its Markdown: the marker (given as made safe for the document),
    /// under a `## You` heading unless the person's turn is already open.
    pub fn markdown(&self, contained_marker: &str, under_you: bool) -> String {
        let head = if under_you { "" } else { "\n## You\n" };
        format!("{head}\n{contained_marker}")
    }

    /// Its HTML section: an `<img>` when there is a checked `data:` URI,
    /// else the marker (given HTML-escaped).
    pub fn html(&self, escaped_marker: &str) -> String {
        let body = match &self.data_uri {
            Some(uri) => format!("<img alt=\"{escaped_marker}\" src=\"{uri}\">"),
            None => escaped_marker.to_owned(),
        };
        format!("<section class=\"you\"><h2>You</h2><div class=\"text\">{body}</div></section>\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_image_shows_as_its_type_and_size() {
        use base64::Engine as _;
        let mut gif =
            b"GIF89a\x01\0\x01\0\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02\x44\x01\0;".to_vec();
        gif.resize(12 * 1024, 0);
        let data = base64::engine::general_purpose::STANDARD.encode(&gif);
        let src = |media: &str, data: &str| json!({"type":"base64","media_type":media,"data":data});
        assert_eq!(
            marker(&src("image/gif", &data)),
            "[image: image/gif, 12 KB]"
        );
        // the bytes are not what the media type says; not base64; a URL
        assert_eq!(marker(&src("image/png", &data)), "[image]");
        assert_eq!(marker(&src("image/gif", "R0lG!!")), "[image]");
        assert_eq!(marker(&json!({"type":"url","url":"https://x"})), "[image]");
        assert_eq!(marker(&Value::Null), "[image]");
    }
}
