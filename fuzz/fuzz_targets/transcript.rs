//! Transcript reading: any file content. Never a panic, never a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("claudio-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("0b7d4e8a-9c55-4f0e-8d3c-4b5a3f2a9c1e.jsonl");
    std::fs::write(&path, data).unwrap();
    let _ = claudio::__private::read_head_tail(&path);
    let _ = claudio::store::read_conversation(&path);
});
