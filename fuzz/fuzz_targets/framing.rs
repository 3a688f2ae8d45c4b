//! NDJSON framing: any bytes, any chunking, any limit. The reader must never
//! panic, every byte must land in exactly one line (or a reported too-long
//! line), and no line may exceed the limit.
#![no_main]

use claudio::__private::{Line, LineReader};
use libfuzzer_sys::fuzz_target;

/// Hands out the input in chunks of the sizes the fuzzer chose.
struct Chunked<'a> {
    data: &'a [u8],
    sizes: &'a [u8],
    i: usize,
}

impl tokio::io::AsyncRead for Chunked<'_> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let want = *self.sizes.get(self.i % self.sizes.len().max(1)).unwrap_or(&255) as usize + 1;
        self.i += 1;
        let n = want.min(self.data.len()).min(buf.remaining());
        buf.put_slice(&self.data[..n]);
        self.data = &self.data[n..];
        std::task::Poll::Ready(Ok(()))
    }
}

fuzz_target!(|input: &[u8]| {
    if input.len() < 2 {
        return;
    }
    let limit = input[0] as usize * 4 + 1;
    let split = (input[1] as usize).min(input.len() - 2);
    let (sizes, data) = input[2..].split_at(split);
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let mut r = LineReader::new(Chunked { data, sizes, i: 0 }, limit);
        let mut kept = 0usize;
        let mut lines = 0usize;
        while let Some(line) = r.next_line().await.unwrap() {
            lines += 1;
            match line {
                Line::Data(d) => {
                    assert!(d.len() <= limit, "a line over the limit came through");
                    assert!(!d.contains(&b'\n'));
                    kept += d.len();
                }
                Line::TooLong => {}
            }
        }
        assert!(kept <= data.len());
        assert!(lines <= data.len() + 1);
    });
});
