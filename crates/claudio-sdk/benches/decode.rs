//! Per-line decode cost of each message family, against plain serde_json
//! (`Value`) on the same line.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const LINES: &[(&str, &str)] = &[
    (
        "stream_event/text_delta",
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The function returns the value of the error file "}},"session_id":"3f2a9c1e-0b7d-4e8a-9c55-1f0e2d3c4b5a","parent_tool_use_id":null,"uuid":"a1b2c3d4-e5f6-4789-abcd-ef0123456789"}"#,
    ),
    (
        "stream_event/message_start",
        r#"{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-opus-5-5","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1}}},"session_id":"3f2a9c1e-0b7d-4e8a-9c55-1f0e2d3c4b5a","parent_tool_use_id":null,"uuid":"a1b2c3d4-e5f6-4789-abcd-ef0123456789"}"#,
    ),
    (
        "assistant/text",
        r#"{"type":"assistant","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"The discount could push the total below zero; it is now clamped at zero, which is what applies_discount expects."}],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":300}},"parent_tool_use_id":null,"session_id":"3f2a9c1e-0b7d-4e8a-9c55-1f0e2d3c4b5a","uuid":"a1b2c3d4-e5f6-4789-abcd-ef0123456789"}"#,
    ),
    (
        "assistant/tool_use",
        r#"{"type":"assistant","message":{"id":"msg_02","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"cargo test checkout 2>&1 | tail -30","description":"Run the tests"}}],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":30}},"parent_tool_use_id":null,"session_id":"3f2a9c1e-0b7d-4e8a-9c55-1f0e2d3c4b5a","uuid":"a1b2c3d4-e5f6-4789-abcd-ef0123456789"}"#,
    ),
    (
        "user/tool_result",
        r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"test checkout::applies_discount ... FAILED\nthread 'main' panicked at src/checkout.rs:88:9","is_error":false}]},"parent_tool_use_id":null,"session_id":"3f2a9c1e-0b7d-4e8a-9c55-1f0e2d3c4b5a","uuid":"a1b2c3d4-e5f6-4789-abcd-ef0123456789","tool_use_result":{"stdout":"test checkout::applies_discount ... FAILED","stderr":"","interrupted":false}}"#,
    ),
    (
        "system/init",
        r#"{"type":"system","subtype":"init","cwd":"/home/me/shop","session_id":"3f2a9c1e-0b7d-4e8a-9c55-1f0e2d3c4b5a","tools":["Agent","Bash","Edit","Read","Write","Glob","Grep"],"mcp_servers":[],"model":"claude-opus-5-5","permissionMode":"default","slash_commands":["compact","cost"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.328","output_style":"default","uuid":"a1b2c3d4-e5f6-4789-abcd-ef0123456789"}"#,
    ),
    (
        "result",
        r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":12400,"duration_api_ms":9000,"num_turns":3,"result":"Done.","session_id":"3f2a9c1e-0b7d-4e8a-9c55-1f0e2d3c4b5a","total_cost_usd":0.0142,"usage":{"input_tokens":100,"output_tokens":300},"modelUsage":{},"permission_denials":[],"terminal_reason":"completed","uuid":"a1b2c3d4-e5f6-4789-abcd-ef0123456789"}"#,
    ),
    (
        "control_request/can_use_tool",
        r#"{"type":"control_request","request_id":"0b7d4e8a-9c55-1f0e-2d3c-4b5a3f2a9c1e","request":{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash","input":{"command":"touch out/a1","description":"make a file"},"description":"make a file","permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch out/a1"}],"behavior":"allow","destination":"localSettings"}],"blocked_path":"out/a1","tool_use_id":"toolu_a1"}}"#,
    ),
];

fn decode(c: &mut Criterion) {
    for (name, line) in LINES {
        let mut g = c.benchmark_group(*name);
        g.throughput(Throughput::Bytes(line.len() as u64));
        g.bench_function("claudio", |b| {
            b.iter(|| claudio::Message::parse(black_box(line.as_bytes())).unwrap())
        });
        g.bench_function("serde_json_value", |b| {
            b.iter(|| {
                serde_json::from_slice::<serde_json::Value>(black_box(line.as_bytes())).unwrap()
            })
        });
        g.finish();
    }
}

fn framing(c: &mut Criterion) {
    let line = LINES[0].1;
    let data: Vec<u8> = std::iter::repeat_n(format!("{line}\n"), 10_000)
        .collect::<String>()
        .into_bytes();
    let mut g = c.benchmark_group("framing");
    g.throughput(Throughput::Bytes(data.len() as u64));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    g.bench_function("line_reader", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut r = claudio::__private::LineReader::new(&data[..], 1 << 20);
                let mut n = 0;
                while let Some(_l) = r.next_line().await.unwrap() {
                    n += 1;
                }
                assert_eq!(n, 10_000);
            })
        })
    });
    g.finish();
}

criterion_group!(benches, decode, framing);
criterion_main!(benches);
