//! Image headers: any bytes. Sniffing and reading the width and height must
//! never panic nor read past the input, and an image that passes the checks
//! is within the API's limits.
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
    if let Ok(image) = Image::from_bytes(data) {
        assert_eq!(ImageFormat::sniff(data), Some(image.format()));
        assert!(data.len() <= MAX_IMAGE_BYTES);
        assert!((1..=MAX_IMAGE_SIDE).contains(&image.width()));
        assert!((1..=MAX_IMAGE_SIDE).contains(&image.height()));
    }
});
