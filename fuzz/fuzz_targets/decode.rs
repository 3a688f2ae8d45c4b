//! Message decoding: any bytes. Never a panic; a JSON object always decodes;
//! decoding is stable (the same line gives the same message); the fast path
//! for text deltas and `assistant` lines agrees with the general decoder.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|line: &[u8]| {
    let first = claudio::Message::parse(line);
    let is_object = matches!(serde_json::from_slice::<serde_json::Value>(line), Ok(serde_json::Value::Object(_)));
    match &first {
        Ok(m) => {
            let _ = m.kind();
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
