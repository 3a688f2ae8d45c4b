//! Image headers: any bytes. Sniffing and reading the width and height must
//! never panic nor read past the input, an image that passes the checks is
//! within the API's limits, and text is never taken for an image.
#![no_main]

use claudio::protocol::{Image, ImageFormat, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for f in [
        ImageFormat::Png,
        ImageFormat::Jpeg,
        ImageFormat::Gif,
        ImageFormat::Webp,
    ] {
        let _ = f.dimensions(data);
    }
    // text (UTF-8 with no control characters but whitespace) stays text,
    // whatever signature it starts with
    let text = std::str::from_utf8(data).is_ok_and(|t| {
        t.chars()
            .all(|c| !c.is_control() || c.is_ascii_whitespace())
    });
    if text {
        assert_eq!(ImageFormat::sniff(data), None);
    }
    if let Ok(image) = Image::from_bytes(data) {
        assert_eq!(ImageFormat::sniff(data), Some(image.format()));
        assert!(data.len() <= MAX_IMAGE_BYTES);
        assert!((1..=MAX_IMAGE_SIDE).contains(&image.width()));
        assert!((1..=MAX_IMAGE_SIDE).contains(&image.height()));
    }
});
