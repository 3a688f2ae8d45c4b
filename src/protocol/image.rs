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
    /// The format whose magic bytes start `bytes`, if it is one of the four.
    ///
    /// ```
    /// use claudio::protocol::ImageFormat;
    /// assert_eq!(ImageFormat::sniff(b"\x89PNG\r\n\x1a\n...."), Some(ImageFormat::Png));
    /// assert_eq!(ImageFormat::sniff(b"GIF89a"), Some(ImageFormat::Gif));
    /// assert_eq!(ImageFormat::sniff(b"%PDF-1.7"), None);
    /// ```
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageFormat::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(ImageFormat::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(ImageFormat::Gif)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(ImageFormat::Webp)
        } else {
            None
        }
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

/// PNG: the signature, then the IHDR chunk (length 13) with width and height.
fn png_size(b: &[u8]) -> Option<(u32, u32)> {
    if b.get(12..16)? != b"IHDR" {
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
            // length(2) precision(1) height(2) width(2)
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
    /// The header is cut short or malformed: no width and height in it.
    #[error("{}a damaged {} image (no width and height in its header)", path_prefix(.path), .format.media_type())]
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
    #[error("cannot read {}", .path.display())]
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
        .map(|p| format!("{}: ", p.display()))
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

/// An image checked against the API's limits, ready to become a content block.
///
/// ```
/// use claudio::protocol::{Image, ImageFormat};
/// let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;";
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
    /// Check `bytes`: one of the four formats (by magic bytes), a readable
    /// header, within the API's byte and pixel limits.
    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> Result<Self, ImageError> {
        let bytes = bytes.into();
        let format = ImageFormat::sniff(&bytes).ok_or(ImageError::NotAnImage { path: None })?;
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

    /// Read and check a file. A file over the size limit is refused from its
    /// metadata, without reading it.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, ImageError> {
        let path = path.as_ref();
        let read = |source| ImageError::Read {
            path: path.to_path_buf(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(read)?;
        if meta.is_file() && meta.len() > MAX_IMAGE_BYTES as u64 {
            // still say "not an image" for a large file that is not one
            let mut head = [0u8; 16];
            let n = std::fs::File::open(path)
                .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
                .map_err(read)?;
            let err = if ImageFormat::sniff(&head[..n]).is_some() {
                ImageError::TooLarge {
                    path: None,
                    bytes: meta.len(),
                }
            } else {
                ImageError::NotAnImage { path: None }
            };
            return Err(err.with_path(path));
        }
        let bytes = std::fs::read(path).map_err(read)?;
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
        let mut b = b"RIFF\0\0\0\0WEBP".to_vec();
        b.extend_from_slice(chunk);
        b.extend_from_slice(&(data.len() as u32).to_le_bytes());
        b.extend_from_slice(data);
        b
    }

    #[test]
    fn sniffs_the_four_formats_and_nothing_else() {
        assert_eq!(ImageFormat::sniff(&png(1, 1)), Some(ImageFormat::Png));
        assert_eq!(ImageFormat::sniff(&jpeg(1, 1)), Some(ImageFormat::Jpeg));
        assert_eq!(
            ImageFormat::sniff(b"GIF87a\x01\x00"),
            Some(ImageFormat::Gif)
        );
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
        let data = block.source["data"].as_str().unwrap();
        assert!(data.len() <= MAX_IMAGE_BASE64_LEN);
        let err = Image::from_bytes(png(0, 5)).unwrap_err();
        assert!(matches!(err, ImageError::Damaged { .. }), "{err}");
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
