//! Images in a user turn: the format read from the bytes, the size read from
//! the header, the API's limits checked before anything is sent.
//!
//! The Messages API takes png, jpeg, gif and webp images. It refuses an
//! image whose base64 text is over 5 MiB, or whose width or height is over
//! 8000 pixels. [`Image::from_bytes`] checks both here, so a turn with a bad
//! image fails before it is sent rather than as an API error in the middle
//! of the conversation.

use base64::Engine as _;
use std::path::{Path, PathBuf};

use super::content::ContentBlock;

/// The most base64 text the API takes for one image: 5 MiB, so about
/// 3.75 MiB of image bytes.
pub const MAX_IMAGE_BASE64_LEN: usize = 5 * 1024 * 1024;

/// The most image bytes whose base64 text fits [`MAX_IMAGE_BASE64_LEN`].
pub const MAX_IMAGE_BYTES: usize = MAX_IMAGE_BASE64_LEN / 4 * 3;

/// The widest and tallest image the API takes, in pixels.
pub const MAX_IMAGE_SIDE: u32 = 8000;

/// The image formats the API takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    /// `image/png`
    Png,
    /// `image/jpeg`
    Jpeg,
    /// `image/gif`
    Gif,
    /// `image/webp`
    Webp,
}

impl ImageFormat {
    /// The format of `bytes`, judged by the whole header and the structure
    /// after it, never by a prefix alone: a png needs its IHDR chunk, a jpeg
    /// a marker after its start, a gif a logical screen descriptor and a
    /// well-formed first frame, a webp a first chunk that fits its RIFF
    /// size. Bytes that read as text (UTF-8 with no control characters but
    /// whitespace and ESC) are never an image, whatever they start with.
    ///
    /// ```
    /// use claudio::protocol::ImageFormat;
    /// let png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";
    /// assert_eq!(ImageFormat::sniff(png), Some(ImageFormat::Png));
    /// let gif = b"GIF89a\x01\0\x01\0\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02\x44\x01\0;";
    /// assert_eq!(ImageFormat::sniff(gif), Some(ImageFormat::Gif));
    /// // text that starts with a signature stays text
    /// assert_eq!(ImageFormat::sniff(b"GIF89a is a format"), None);
    /// assert_eq!(ImageFormat::sniff(b"%PDF-1.7"), None);
    /// ```
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        sniff(bytes, true)
    }

    /// The format of a media type (`image/png`, ...), if it is one of the four.
    ///
    /// ```
    /// use claudio::protocol::ImageFormat;
    /// assert_eq!(ImageFormat::from_media_type("image/webp"), Some(ImageFormat::Webp));
    /// assert_eq!(ImageFormat::from_media_type("image/svg+xml"), None);
    /// ```
    pub fn from_media_type(media_type: &str) -> Option<Self> {
        match media_type {
            "image/png" => Some(ImageFormat::Png),
            "image/jpeg" => Some(ImageFormat::Jpeg),
            "image/gif" => Some(ImageFormat::Gif),
            "image/webp" => Some(ImageFormat::Webp),
            _ => None,
        }
    }

    /// The media type sent to the API.
    pub fn media_type(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Gif => "image/gif",
            ImageFormat::Webp => "image/webp",
        }
    }

    /// Width and height from the header, or `None` when the header is cut
    /// short or malformed. Reads only the header: never allocates, never
    /// reads past `bytes`.
    ///
    /// ```
    /// use claudio::protocol::ImageFormat;
    /// let gif = b"GIF89a\x20\x03\x58\x02";
    /// assert_eq!(ImageFormat::Gif.dimensions(gif), Some((800, 600)));
    /// ```
    pub fn dimensions(self, bytes: &[u8]) -> Option<(u32, u32)> {
        match self {
            ImageFormat::Png => png_size(bytes),
            ImageFormat::Jpeg => jpeg_size(bytes),
            ImageFormat::Gif => gif_size(bytes),
            ImageFormat::Webp => webp_size(bytes),
        }
    }
}

fn be16(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u32::from(u16::from_be_bytes([s[0], s[1]])))
}

fn le16(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u32::from(u16::from_le_bytes([s[0], s[1]])))
}

fn le24(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(3)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], 0]))
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The format of `b` by its signature and the structure after it. `whole`:
/// `b` is all the data; else it is the start of a longer file, and a
/// structure that runs on past its end still counts.
fn sniff(b: &[u8], whole: bool) -> Option<ImageFormat> {
    let format = signature(b)?;
    let sound = match format {
        // the first chunk is IHDR, 13 bytes long
        ImageFormat::Png => b.get(8..16)? == b"\0\0\0\x0dIHDR",
        // start of image, then a marker (after any 0xFF fill) that may follow it
        ImageFormat::Jpeg => {
            let marker = *b[2..].iter().find(|&&x| x != 0xFF)?;
            matches!(marker, 0xC0..=0xCF | 0xDB..=0xFE)
        }
        ImageFormat::Gif => gif_walk(b).fits(whole),
        ImageFormat::Webp => webp_walk(b).fits(whole),
    };
    (sound && !is_text(b, whole)).then_some(format)
}

/// The format whose signature starts `b`: a prefix only, which text may
/// have too (`GIF89a is a format`); [`sniff`] decides.
fn signature(b: &[u8]) -> Option<ImageFormat> {
    if b.starts_with(PNG_SIGNATURE) {
        Some(ImageFormat::Png)
    } else if b.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(ImageFormat::Jpeg)
    } else if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        Some(ImageFormat::Gif)
    } else if b.starts_with(b"RIFF") && b.get(8..12) == Some(&b"WEBP"[..]) {
        Some(ImageFormat::Webp)
    } else {
        None
    }
}

/// Whether `b` reads as text: UTF-8 with no control characters but
/// whitespace and ESC (coloured output). Not `whole`: `b` may end inside a
/// character.
fn is_text(b: &[u8], whole: bool) -> bool {
    let allowed =
        |c: char| !c.is_control() || matches!(c, '\t' | '\n' | '\x0b' | '\x0c' | '\r' | '\x1b');
    // binary data shows a control byte early: most often no UTF-8 check is needed
    if b.iter().any(|&x| x.is_ascii() && !allowed(char::from(x))) {
        return false;
    }
    let text = match std::str::from_utf8(b) {
        Ok(text) => text,
        Err(e) if !whole && e.error_len().is_none() => {
            match b.get(..e.valid_up_to()).map(std::str::from_utf8) {
                Some(Ok(text)) => text,
                _ => return false,
            }
        }
        Err(_) => return false,
    };
    text.chars().all(allowed)
}

/// How far a walk through an image's structure got.
enum Walk {
    /// The structure holds, as far as it was checked.
    Sound,
    /// Sound so far, but the bytes end before it does.
    Short,
    /// Not this format's structure.
    Broken,
}

impl Walk {
    /// Sound, or cut short where only the start of the file is at hand.
    fn fits(self, whole: bool) -> bool {
        match self {
            Walk::Sound => true,
            Walk::Short => !whole,
            Walk::Broken => false,
        }
    }
}

/// The size of a gif's colour table from the flags byte that announces it.
fn gif_color_table(flags: u8) -> usize {
    if flags & 0x80 == 0 {
        0
    } else {
        3 << ((flags & 7) + 1)
    }
}

/// Past a chain of gif data sub-blocks (a length byte, that many bytes,
/// until a length of 0).
fn gif_sub_blocks(b: &[u8], mut at: usize) -> Result<usize, Walk> {
    loop {
        let n = *b.get(at).ok_or(Walk::Short)?;
        at += 1;
        if n == 0 {
            return Ok(at);
        }
        at += usize::from(n);
    }
}

/// GIF: the signature, the logical screen descriptor (and its colour
/// table), extension blocks, then a first frame whose descriptor, code size
/// and data sub-blocks are whole.
fn gif_walk(b: &[u8]) -> Walk {
    let Some(&flags) = b.get(10) else {
        return Walk::Short;
    };
    let mut at = 13 + gif_color_table(flags);
    loop {
        let Some(&block) = b.get(at) else {
            return Walk::Short;
        };
        match block {
            // an extension: its label, then data sub-blocks
            0x21 => match gif_sub_blocks(b, at + 2) {
                Ok(next) => at = next,
                Err(walk) => return walk,
            },
            // a frame: position and size (8 bytes), flags, colour table,
            // the LZW code size (2 to 8), data sub-blocks
            0x2C => {
                let Some(&flags) = b.get(at + 9) else {
                    return Walk::Short;
                };
                at += 10 + gif_color_table(flags);
                let Some(&code_size) = b.get(at) else {
                    return Walk::Short;
                };
                if !(2..=8).contains(&code_size) {
                    return Walk::Broken;
                }
                return match gif_sub_blocks(b, at + 1) {
                    Ok(_) => Walk::Sound,
                    Err(walk) => walk,
                };
            }
            // the trailer before any frame, or no block at all
            _ => return Walk::Broken,
        }
    }
}

/// WebP: `RIFF`, its size, `WEBP`, then a first chunk (VP8, VP8L or VP8X)
/// that fits inside the RIFF size, and the RIFF size within the bytes.
fn webp_walk(b: &[u8]) -> Walk {
    let (Some(riff), Some(fourcc), Some(chunk)) = (le32(b, 4), b.get(12..16), le32(b, 16)) else {
        return Walk::Short;
    };
    if !matches!(fourcc, b"VP8 " | b"VP8L" | b"VP8X") {
        return Walk::Broken;
    }
    // the RIFF size counts "WEBP" and the chunk's header and data
    if u64::from(chunk) + 12 > u64::from(riff) {
        return Walk::Broken;
    }
    if (b.len() as u64) < u64::from(riff) + 8 {
        return Walk::Short;
    }
    Walk::Sound
}

/// PNG: the signature, then the IHDR chunk (length 13) with width and height.
/// The header's other fields must be ones the format defines.
fn png_size(b: &[u8]) -> Option<(u32, u32)> {
    if b.get(12..16)? != b"IHDR" {
        return None;
    }
    // bit depth, colour type, compression, filter, interlace
    let [depth, color, compression, filter, interlace] = b.get(24..29)?.try_into().ok()?;
    let depth_ok = match color {
        0 => matches!(depth, 1 | 2 | 4 | 8 | 16),
        3 => matches!(depth, 1 | 2 | 4 | 8),
        2 | 4 | 6 => matches!(depth, 8 | 16),
        _ => false,
    };
    if !depth_ok || compression != 0 || filter != 0 || interlace > 1 {
        return None;
    }
    Some((be32(b, 16)?, be32(b, 20)?))
}

/// GIF: the logical screen descriptor after the 6-byte signature.
fn gif_size(b: &[u8]) -> Option<(u32, u32)> {
    Some((le16(b, 6)?, le16(b, 8)?))
}

/// JPEG: walk the segments to the first start-of-frame marker.
fn jpeg_size(b: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2; // past SOI
    loop {
        // markers may be padded with any number of 0xFF
        if *b.get(at)? != 0xFF {
            return None;
        }
        while *b.get(at)? == 0xFF {
            at += 1;
        }
        let marker = *b.get(at)?;
        at += 1;
        match marker {
            // standalone markers: no length
            0x01 | 0xD0..=0xD7 => continue,
            // end of image, or start of scan before any frame header
            0xD9 | 0xDA => return None,
            _ => {}
        }
        let len = be16(b, at)? as usize;
        if len < 2 {
            return None;
        }
        let is_sof = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_sof {
            // length(2) precision(1) height(2) width(2) components(1), then
            // 3 bytes a component
            let components = *b.get(at + 7)?;
            if components == 0 || len != 8 + 3 * usize::from(components) {
                return None;
            }
            let height = be16(b, at + 3)?;
            let width = be16(b, at + 5)?;
            return Some((width, height));
        }
        at = at.checked_add(len)?;
    }
}

/// WebP: the first chunk after `RIFF....WEBP` is VP8 (lossy), VP8L
/// (lossless) or VP8X (extended), each with its own size fields.
fn webp_size(b: &[u8]) -> Option<(u32, u32)> {
    let chunk = b.get(12..16)?;
    let data = 20;
    match chunk {
        b"VP8 " => {
            // frame tag(3), start code 9d 01 2a, then 14-bit width and height
            if b.get(data + 3..data + 6)? != [0x9d, 0x01, 0x2a] {
                return None;
            }
            Some((le16(b, data + 6)? & 0x3FFF, le16(b, data + 8)? & 0x3FFF))
        }
        b"VP8L" => {
            if *b.get(data)? != 0x2F {
                return None;
            }
            let bits = u32::from_le_bytes(b.get(data + 1..data + 5)?.try_into().ok()?);
            Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
        }
        b"VP8X" => Some((le24(b, data + 4)? + 1, le24(b, data + 7)? + 1)),
        _ => None,
    }
}

/// Why an image cannot go into a user turn.
///
/// ```
/// use claudio::protocol::ImageError;
/// use claudio::UserInput;
/// let err = UserInput::text("what is this?").image(b"%PDF-1.7").unwrap_err();
/// assert!(matches!(err, ImageError::NotAnImage { .. }));
/// assert_eq!(err.to_string(), "not a png, jpeg, gif or webp image");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImageError {
    /// The bytes are not a png, jpeg, gif or webp image.
    #[error("{}not a png, jpeg, gif or webp image", path_prefix(.path))]
    NotAnImage {
        /// The file, when it came from one.
        path: Option<PathBuf>,
    },
    /// Binary data with the format's signature, but its header or the
    /// structure after it is cut short or malformed.
    #[error("{}a damaged {} image (its header is cut short or malformed)", path_prefix(.path), .format.media_type())]
    Damaged {
        /// The file, when it came from one.
        path: Option<PathBuf>,
        /// The format its magic bytes say.
        format: ImageFormat,
    },
    /// Over the API's size limit.
    #[error(
        "{}the image is {} bytes; the API takes at most {} bytes per image (5 MiB as base64)",
        path_prefix(.path), .bytes, MAX_IMAGE_BYTES
    )]
    TooLarge {
        /// The file, when it came from one.
        path: Option<PathBuf>,
        /// The image's size in bytes.
        bytes: u64,
    },
    /// Wider or taller than the API takes.
    #[error(
        "{}the image is {}x{} pixels; the API takes at most {} pixels a side",
        path_prefix(.path), .width, .height, MAX_IMAGE_SIDE
    )]
    TooManyPixels {
        /// The file, when it came from one.
        path: Option<PathBuf>,
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// The file could not be read.
    #[error("cannot read {}", crate::error::shown(.path))]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
}

fn path_prefix(path: &Option<PathBuf>) -> String {
    path.as_ref()
        .map(|p| format!("{}: ", crate::error::shown(p)))
        .unwrap_or_default()
}

impl ImageError {
    fn with_path(mut self, p: &Path) -> Self {
        match &mut self {
            ImageError::NotAnImage { path }
            | ImageError::Damaged { path, .. }
            | ImageError::TooLarge { path, .. }
            | ImageError::TooManyPixels { path, .. } => *path = Some(p.to_path_buf()),
            ImageError::Read { .. } => {}
        }
        self
    }
}

/// Why bytes that [`sniff`] does not take are refused: binary with a
/// format's signature but not its structure is a damaged image; anything
/// else (text that starts like one included) is no image.
fn refusal(b: &[u8], whole: bool) -> ImageError {
    match signature(b) {
        Some(format) if !is_text(b, whole) => ImageError::Damaged { path: None, format },
        _ => ImageError::NotAnImage { path: None },
    }
}

/// How much of a file over the size limit is read to tell an image from
/// something else.
const HEAD_BYTES: u64 = 64 * 1024;

/// Open `path` to read it if it is a regular file, following links: with
/// its size. Anything else is an error saying what it is, before it is
/// opened; what is opened is checked again (it may have changed in
/// between). Non-blocking, so a FIFO put in its place opens at once
/// instead of waiting for a writer; never the controlling terminal.
fn open_regular(path: &Path) -> std::io::Result<(std::fs::File, u64)> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let not_a_file = |meta: &std::fs::Metadata| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{}, not a regular file", file_kind(meta.file_type())),
        )
    };
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_a_file(&meta));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_a_file(&meta));
    }
    Ok((file, meta.len()))
}

/// What a file that is not a regular file is.
fn file_kind(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "an unknown kind of file"
    }
}

/// An image checked against the API's limits, ready to become a content block.
///
/// ```
/// use claudio::protocol::{Image, ImageFormat};
/// let gif = b"GIF89a\x01\0\x01\0\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02\x44\x01\0;";
/// let image = Image::from_bytes(gif).unwrap();
/// assert_eq!(image.format(), ImageFormat::Gif);
/// assert_eq!((image.width(), image.height()), (1, 1));
/// let block = image.to_block();
/// assert_eq!(block.to_value()["source"]["media_type"], "image/gif");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    format: ImageFormat,
    width: u32,
    height: u32,
    bytes: Vec<u8>,
}

impl Image {
    /// Check `bytes`: one of the four formats (by the whole header, see
    /// [`ImageFormat::sniff`]), a readable header, within the API's byte and
    /// pixel limits.
    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> Result<Self, ImageError> {
        let bytes = bytes.into();
        let Some(format) = ImageFormat::sniff(&bytes) else {
            return Err(refusal(&bytes, true));
        };
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(ImageError::TooLarge {
                path: None,
                bytes: bytes.len() as u64,
            });
        }
        let (width, height) = format
            .dimensions(&bytes)
            .filter(|&(w, h)| w > 0 && h > 0)
            .ok_or(ImageError::Damaged { path: None, format })?;
        if width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
            return Err(ImageError::TooManyPixels {
                path: None,
                width,
                height,
            });
        }
        Ok(Image {
            format,
            width,
            height,
            bytes,
        })
    }

    /// Read and check a file. Only a regular file is read (a symbolic link
    /// is followed to it): a FIFO, a device, a directory or a socket is
    /// refused at once ([`ImageError::Read`], its source saying what the
    /// file is), never read or waited on. At most [`MAX_IMAGE_BYTES`] + 1
    /// bytes are read; a file over the limit by its size is judged from its
    /// first 64 KiB.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, ImageError> {
        use std::io::Read as _;
        let path = path.as_ref();
        let read = |source| ImageError::Read {
            path: path.to_path_buf(),
            source,
        };
        let (file, len) = open_regular(path).map_err(read)?;
        let limit = MAX_IMAGE_BYTES as u64;
        let want = if len > limit { HEAD_BYTES } else { limit + 1 };
        let mut bytes = Vec::with_capacity(len.min(want) as usize);
        file.take(want).read_to_end(&mut bytes).map_err(read)?;
        if len > limit || bytes.len() as u64 > limit {
            // still say "not an image" for a large file that is not one
            let err = if sniff(&bytes, false).is_some() {
                ImageError::TooLarge {
                    path: None,
                    bytes: len.max(bytes.len() as u64),
                }
            } else {
                refusal(&bytes, false)
            };
            return Err(err.with_path(path));
        }
        Image::from_bytes(bytes).map_err(|e| e.with_path(path))
    }

    /// The format read from the magic bytes.
    pub fn format(&self) -> ImageFormat {
        self.format
    }

    /// Width in pixels, from the header.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels, from the header.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The image's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The `image` content block: base64 data with the media type.
    pub fn to_block(&self) -> ContentBlock {
        ContentBlock::image_base64(
            self.format.media_type(),
            base64::engine::general_purpose::STANDARD.encode(&self.bytes),
        )
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A minimal PNG header (signature + IHDR) of the given size.
    pub(crate) fn png(width: u32, height: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
        b.extend_from_slice(&width.to_be_bytes());
        b.extend_from_slice(&height.to_be_bytes());
        b.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
        b
    }

    fn jpeg(width: u16, height: u16) -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8];
        // APP0 (JFIF), 16 bytes
        b.extend_from_slice(&[0xFF, 0xE0, 0x00, 0x10]);
        b.extend_from_slice(b"JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00");
        // padding 0xFF before the next marker, then SOF2 (progressive)
        b.extend_from_slice(&[0xFF, 0xFF, 0xC2, 0x00, 0x11, 0x08]);
        b.extend_from_slice(&height.to_be_bytes());
        b.extend_from_slice(&width.to_be_bytes());
        b.extend_from_slice(&[3; 10]);
        b
    }

    fn webp(chunk: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut b = b"RIFF".to_vec();
        b.extend_from_slice(&(12 + data.len() as u32).to_le_bytes());
        b.extend_from_slice(b"WEBP");
        b.extend_from_slice(chunk);
        b.extend_from_slice(&(data.len() as u32).to_le_bytes());
        b.extend_from_slice(data);
        b
    }

    /// A whole gif: screen descriptor with a 2-colour table, one frame.
    pub(crate) fn gif(width: u16, height: u16) -> Vec<u8> {
        let mut b = b"GIF89a".to_vec();
        b.extend_from_slice(&width.to_le_bytes());
        b.extend_from_slice(&height.to_le_bytes());
        b.extend_from_slice(b"\x80\0\0\0\0\0\xff\xff\xff");
        // a graphic control extension, then the frame
        b.extend_from_slice(b"\x21\xf9\x04\x01\0\0\0\0");
        b.extend_from_slice(b",\0\0\0\0");
        b.extend_from_slice(&width.to_le_bytes());
        b.extend_from_slice(&height.to_le_bytes());
        b.extend_from_slice(b"\0\x02\x02\x44\x01\0;");
        b
    }

    #[test]
    fn sniffs_the_four_formats_and_nothing_else() {
        assert_eq!(ImageFormat::sniff(&png(1, 1)), Some(ImageFormat::Png));
        assert_eq!(ImageFormat::sniff(&jpeg(1, 1)), Some(ImageFormat::Jpeg));
        assert_eq!(ImageFormat::sniff(&gif(2, 1)), Some(ImageFormat::Gif));
        let mut gif87 = gif(2, 1);
        gif87[4] = b'7';
        assert_eq!(ImageFormat::sniff(&gif87), Some(ImageFormat::Gif));
        assert_eq!(
            ImageFormat::sniff(&webp(b"VP8X", &[0; 10])),
            Some(ImageFormat::Webp)
        );
        for other in [
            &b""[..],
            b"\x89PN",
            b"BM\x00\x00",           // bmp
            b"RIFF\0\0\0\0WAVEfmt ", // a wav is RIFF too
            b"<svg xmlns",
            b"II*\x00", // tiff
        ] {
            assert_eq!(ImageFormat::sniff(other), None, "{other:?}");
        }
    }

    #[test]
    fn text_that_starts_with_a_signature_is_text() {
        // "GIF89a is a format" once read as a 26912x8307 gif
        for text in [
            &b"GIF89a is a format"[..],
            b"GIF87a and GIF89a are the two gif versions.\n",
            b"RIFF....WEBPVP8 is how a webp begins",
            "GIF89a, les formats d\u{2019}image\n".as_bytes(),
        ] {
            assert_eq!(
                ImageFormat::sniff(text),
                None,
                "{:?}",
                String::from_utf8_lossy(text)
            );
            assert!(
                matches!(Image::from_bytes(text), Err(ImageError::NotAnImage { .. })),
                "{text:?}"
            );
        }
    }

    #[test]
    fn any_text_after_any_signature_is_text() {
        // what the fuzz target checks, over pseudo-random printable text
        let mut x: u32 = 0x9e37_79b9;
        let alphabet: Vec<char> = " \t\n,;!0123456789aAzZ\u{e9}\u{2019}\u{1F600}\x1b[m"
            .chars()
            .collect();
        for signature in ["GIF89a", "GIF87a", "RIFF", "RIFF    WEBPVP8L", ""] {
            for len in 0..120 {
                let mut text = signature.to_owned();
                for _ in 0..len {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    text.push(alphabet[x as usize % alphabet.len()]);
                }
                assert_eq!(ImageFormat::sniff(text.as_bytes()), None, "{text:?}");
                assert_eq!(sniff(text.as_bytes(), false), None, "{text:?}");
            }
        }
    }

    #[test]
    fn a_signature_without_its_structure_is_not_an_image() {
        let whole = gif(2, 1);
        assert!(Image::from_bytes(whole.clone()).is_ok());
        // the gif cut anywhere before its first frame's data ends: binary
        // with a gif's signature, so a damaged gif
        for n in 0..whole.len() - 1 {
            assert_eq!(ImageFormat::sniff(&whole[..n]), None, "gif cut at {n}");
            if n > 6 {
                let err = Image::from_bytes(&whole[..n]).unwrap_err();
                assert!(
                    matches!(
                        err,
                        ImageError::Damaged {
                            format: ImageFormat::Gif,
                            ..
                        }
                    ),
                    "gif cut at {n}: {err}"
                );
            }
        }
        // the trailer where the first frame should be
        let mut no_frame = whole[..13 + 6].to_vec();
        no_frame.push(b';');
        assert_eq!(ImageFormat::sniff(&no_frame), None);
        // an LZW code size no encoder writes
        let mut bad = whole.clone();
        let at = bad.len() - 6;
        assert_eq!(bad[at], 2);
        bad[at] = 0;
        assert_eq!(ImageFormat::sniff(&bad), None);
        // a block that is none of the gif's
        let mut bad = whole.clone();
        bad[19] = b'x';
        assert_eq!(ImageFormat::sniff(&bad), None);

        // a png signature with no IHDR chunk after it
        assert_eq!(ImageFormat::sniff(b"\x89PNG\r\n\x1a\n...."), None);
        let mut p = png(1, 1);
        p[11] = 14;
        assert_eq!(ImageFormat::sniff(&p), None);
        // a jpeg start with no marker after it
        assert_eq!(ImageFormat::sniff(&[0xFF, 0xD8, 0xFF]), None);
        assert_eq!(ImageFormat::sniff(&[0xFF, 0xD8, 0xFF, 0x00, 0x10]), None);
        assert_eq!(ImageFormat::sniff(&[0xFF, 0xD8, 0xFF, 0xD9]), None);

        // webp: a first chunk larger than the RIFF holds, a RIFF size past
        // the end, an unknown first chunk
        let w = webp(b"VP8X", &[0; 10]);
        assert_eq!(ImageFormat::sniff(&w), Some(ImageFormat::Webp));
        let mut big_chunk = w.clone();
        big_chunk[16] = 11;
        assert_eq!(ImageFormat::sniff(&big_chunk), None);
        assert_eq!(ImageFormat::sniff(&w[..w.len() - 1]), None);
        assert_eq!(ImageFormat::sniff(&webp(b"ALPH", &[0; 10])), None);
    }

    #[test]
    fn a_png_header_with_undefined_fields_is_damaged() {
        let mut p = png(4, 4);
        p[24] = 3; // bit depth 3
        assert!(matches!(
            Image::from_bytes(p),
            Err(ImageError::Damaged {
                format: ImageFormat::Png,
                ..
            })
        ));
        let mut p = png(4, 4);
        p[25] = 5; // colour type 5
        assert!(matches!(
            Image::from_bytes(p),
            Err(ImageError::Damaged { .. })
        ));
        // a jpeg frame header whose length does not match its components
        let mut j = jpeg(4, 4);
        let at = j.len() - 10; // the component count
        j[at] = 4;
        assert!(matches!(
            Image::from_bytes(j),
            Err(ImageError::Damaged { .. })
        ));
    }

    #[test]
    fn reads_width_and_height_from_each_header() {
        assert_eq!(
            ImageFormat::Png.dimensions(&png(640, 480)),
            Some((640, 480))
        );
        assert_eq!(
            ImageFormat::Jpeg.dimensions(&jpeg(1920, 1080)),
            Some((1920, 1080))
        );
        assert_eq!(
            ImageFormat::Gif.dimensions(b"GIF89a\x20\x03\x58\x02"),
            Some((800, 600))
        );
        // lossy: frame tag, start code, 14-bit sizes (top bits are scale)
        let vp8 = [0, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x42, 0x68, 0x01];
        assert_eq!(
            ImageFormat::Webp.dimensions(&webp(b"VP8 ", &vp8)),
            Some((640, 360))
        );
        // lossless: signature 0x2f, then 14 bits width-1, 14 bits height-1
        let bits: u32 = (99) | (49 << 14);
        let mut vp8l = vec![0x2f];
        vp8l.extend_from_slice(&bits.to_le_bytes());
        assert_eq!(
            ImageFormat::Webp.dimensions(&webp(b"VP8L", &vp8l)),
            Some((100, 50))
        );
        // extended: flags(4), 24-bit width-1, 24-bit height-1
        let vp8x = [0, 0, 0, 0, 0x3f, 0x1f, 0, 0x3f, 0x1f, 0];
        assert_eq!(
            ImageFormat::Webp.dimensions(&webp(b"VP8X", &vp8x)),
            Some((8000, 8000))
        );
    }

    #[test]
    fn cut_short_or_malformed_headers_give_none_at_every_length() {
        let whole = [
            (ImageFormat::Png, png(10, 10)),
            (ImageFormat::Jpeg, jpeg(10, 10)),
            (ImageFormat::Gif, b"GIF89a\x0a\x00\x0a\x00".to_vec()),
            (ImageFormat::Webp, webp(b"VP8X", &[0; 10])),
        ];
        for (format, bytes) in &whole {
            assert!(format.dimensions(bytes).is_some(), "{format:?}");
            for n in 0..bytes.len() - 1 {
                // never panics, never reads past the end
                let _ = format.dimensions(&bytes[..n]);
            }
            assert_eq!(
                format.dimensions(&bytes[..bytes.len() / 2]),
                None,
                "{format:?}"
            );
        }
        // a jpeg whose segment length is 0 or points past the end
        assert_eq!(
            ImageFormat::Jpeg.dimensions(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0]),
            None
        );
        assert_eq!(
            ImageFormat::Jpeg.dimensions(&[0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF]),
            None
        );
        // a jpeg that reaches its scan before any frame header
        assert_eq!(
            ImageFormat::Jpeg.dimensions(&[0xFF, 0xD8, 0xFF, 0xDA, 0, 2]),
            None
        );
        // a png whose first chunk is not IHDR
        let mut p = png(1, 1);
        p[12..16].copy_from_slice(b"IDAT");
        assert_eq!(ImageFormat::Png.dimensions(&p), None);
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        // a cheap deterministic fuzz: every format over pseudo-random bytes
        let mut x: u32 = 0x1234_5678;
        for len in 0..200 {
            for _ in 0..20 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        (x & 0xFF) as u8
                    })
                    .collect();
                for f in [
                    ImageFormat::Png,
                    ImageFormat::Jpeg,
                    ImageFormat::Gif,
                    ImageFormat::Webp,
                ] {
                    let _ = f.dimensions(&bytes);
                }
                let _ = Image::from_bytes(bytes);
            }
        }
    }

    #[test]
    fn limits() {
        let ok = Image::from_bytes(png(MAX_IMAGE_SIDE, 1)).unwrap();
        assert_eq!((ok.width(), ok.height()), (8000, 1));
        let err = Image::from_bytes(png(1, MAX_IMAGE_SIDE + 1)).unwrap_err();
        assert!(
            matches!(
                err,
                ImageError::TooManyPixels {
                    width: 1,
                    height: 8001,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            "the image is 1x8001 pixels; the API takes at most 8000 pixels a side"
        );
        let mut big = png(10, 10);
        big.resize(MAX_IMAGE_BYTES + 1, 0);
        let err = Image::from_bytes(big.clone()).unwrap_err();
        assert!(matches!(err, ImageError::TooLarge { .. }), "{err}");
        big.truncate(MAX_IMAGE_BYTES);
        let image = Image::from_bytes(big).unwrap();
        let ContentBlock::Image(block) = image.to_block() else {
            panic!()
        };
        let data = block.source.data().unwrap();
        assert!(data.len() <= MAX_IMAGE_BASE64_LEN);
        let err = Image::from_bytes(png(0, 5)).unwrap_err();
        assert!(matches!(err, ImageError::Damaged { .. }), "{err}");
    }

    /// The error of `from_file`, with its source.
    fn file_error(path: &Path) -> String {
        let err = Image::from_file(path).unwrap_err();
        match std::error::Error::source(&err) {
            Some(source) => format!("{err}: {source}"),
            None => err.to_string(),
        }
    }

    #[test]
    fn only_regular_files_are_read_and_never_more_than_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let good = d.join("good.png");
        std::fs::write(&good, png(3, 4)).unwrap();
        // a link to an image is followed
        let link = d.join("link.png");
        std::os::unix::fs::symlink(&good, &link).unwrap();
        assert_eq!(Image::from_file(&link).unwrap().height(), 4);

        // a FIFO: refused at once, never waited on for a writer
        let fifo = d.join("fifo.png");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        assert_eq!(
            file_error(&fifo),
            format!("cannot read {}: a FIFO, not a regular file", fifo.display())
        );
        // a link to /dev/zero: refused, nothing read
        let zero = d.join("zero.png");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert_eq!(
            file_error(&zero),
            format!(
                "cannot read {}: a character device, not a regular file",
                zero.display()
            )
        );
        let folder = d.join("folder.png");
        std::fs::create_dir(&folder).unwrap();
        assert!(file_error(&folder).ends_with(": a directory, not a regular file"));
        let socket = d.join("socket.png");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        assert!(file_error(&socket).ends_with(": a socket, not a regular file"));
        // a loop of links
        let a = d.join("a.png");
        std::os::unix::fs::symlink(d.join("b.png"), &a).unwrap();
        std::os::unix::fs::symlink(&a, d.join("b.png")).unwrap();
        assert!(matches!(Image::from_file(&a), Err(ImageError::Read { .. })));

        // a big text file that starts like a gif: judged by its start, as text
        let text = d.join("big.gif");
        let mut t = b"GIF89a is a format. ".repeat(MAX_IMAGE_BYTES / 20 + 10);
        t.push(b'\n');
        std::fs::write(&text, &t).unwrap();
        assert_eq!(
            file_error(&text),
            format!("{}: not a png, jpeg, gif or webp image", text.display())
        );
        // text whose start has a webp's structure as far as it goes (its
        // RIFF size runs past the part read): text all the same
        let text = d.join("big.webp");
        let mut t = b"RIFF    WEBPVP8L    /".to_vec();
        t.resize(MAX_IMAGE_BYTES + 100, b'x');
        std::fs::write(&text, &t).unwrap();
        assert_eq!(
            file_error(&text),
            format!("{}: not a png, jpeg, gif or webp image", text.display())
        );
        // a big gif whose first frame runs on past the part read
        let mut big = gif(2, 1);
        big.truncate(big.len() - 3);
        big.resize(MAX_IMAGE_BYTES + 100, 0xFF);
        let big_gif = d.join("big-frame.gif");
        std::fs::write(&big_gif, &big).unwrap();
        assert!(matches!(
            Image::from_file(&big_gif),
            Err(ImageError::TooLarge { path: Some(_), .. })
        ));
    }

    #[test]
    fn files_name_themselves_in_errors() {
        let dir = std::env::temp_dir().join(format!("claudio-image-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = dir.join("notes.txt");
        std::fs::write(&text, "hello").unwrap();
        let err = Image::from_file(&text).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{}: not a png, jpeg, gif or webp image", text.display())
        );
        let missing = dir.join("missing.png");
        let err = Image::from_file(&missing).unwrap_err();
        assert!(matches!(err, ImageError::Read { .. }));
        let big = dir.join("big.png");
        let mut bytes = png(10, 10);
        bytes.resize(MAX_IMAGE_BYTES + 10, 0);
        std::fs::write(&big, &bytes).unwrap();
        assert!(matches!(
            Image::from_file(&big),
            Err(ImageError::TooLarge { path: Some(_), .. })
        ));
        let good = dir.join("good.png");
        std::fs::write(&good, png(3, 4)).unwrap();
        assert_eq!(Image::from_file(&good).unwrap().height(), 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
