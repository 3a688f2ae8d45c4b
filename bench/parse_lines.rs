//! Decode speed on a file of CLI lines: serde_json into `Value` (the raw
//! baseline) against `claudio::Message::parse`.
//!
//! `cargo run --release --example bench-parse -- FILE`

use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: bench-parse FILE");
    let data = std::fs::read(&path).expect("read the file");
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mb = data.len() as f64 / 1e6;
    let mut best_raw = f64::MAX;
    let mut best_typed = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let mut n = 0usize;
        for l in &lines {
            let v: serde_json::Value = serde_json::from_slice(l).expect("json");
            n += v.is_object() as usize;
        }
        best_raw = best_raw.min(t.elapsed().as_secs_f64());
        assert_eq!(n, lines.len());
        let t = Instant::now();
        let mut n = 0usize;
        for l in &lines {
            let m = claudio::Message::parse(l).expect("message");
            n += !matches!(m, claudio::Message::Unknown(_)) as usize;
        }
        best_typed = best_typed.min(t.elapsed().as_secs_f64());
        assert_eq!(n, lines.len(), "every line decodes to a known type");
    }
    println!(
        "{{\"bytes\":{},\"lines\":{},\"raw_value_mb_s\":{:.1},\"claudio_parse_mb_s\":{:.1},\"ratio\":{:.2}}}",
        data.len(),
        lines.len(),
        mb / best_raw,
        mb / best_typed,
        best_typed / best_raw
    );
}
