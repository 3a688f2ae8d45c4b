//! Message decoding: any bytes. Never a panic; a JSON object always decodes;
//! decoding is stable (the same line gives the same message); the fast path
//! for text deltas and `assistant` lines agrees with the general decoder;
//! the kind is the `type` serde_json reads.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|line: &[u8]| {
    let first = claudio::Message::parse(line);
    let value = serde_json::from_slice::<serde_json::Value>(line).ok();
    let is_object = matches!(value, Some(serde_json::Value::Object(_)));
    match &first {
        Ok(m) => {
            // the kind is the `type` serde_json reads (given twice: the last)
            if let Some(v) = &value {
                assert_eq!(m.kind(), v["type"].as_str().unwrap_or(""), "the kind is not the type");
            }
            let _ = m.session_id();
            assert_eq!(claudio::Message::parse(line).ok().as_ref(), Some(m));
        }
        Err(_) => assert!(!is_object, "a JSON object failed to decode"),
    }
    if let Ok(text) = std::str::from_utf8(line) {
        let general = claudio::__private::parse_general(text);
        assert_eq!(first.as_ref().ok(), general.as_ref().ok(), "fast and general decoders differ");
    }
});
