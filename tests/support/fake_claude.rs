//! `fake-claude`: impersonates the `claude` CLI for fault-injection tests.
//!
//! `--version` anywhere in argv prints `2.1.328 (Claude Code)`. Otherwise it runs
//! a scenario, a JSON array of steps, read from the file named by
//! `FAKE_CLAUDE_SCENARIO` or inline from `FAKE_CLAUDE_SCRIPT`. If
//! `FAKE_CLAUDE_RECORD` names a directory, it writes `argv.json`, `env.json`,
//! `pid` and `cwd` there and appends every stdin line to `stdin.jsonl`. Steps:
//!
//! - `{"expect": PATTERN, "as": NAME, "skip": BOOL}`: read a stdin line; PATTERN
//!   must be a recursive subset of it. `as` stores its `request_id` (or
//!   `response.request_id`) for `{{NAME}}`; `skip` passes over other lines.
//!   Mismatch exits 3, stdin EOF exits 4.
//! - `{"emit": VALUE}`: one compact JSON line, `{{NAME}}` replaced in strings.
//! - `{"emit_raw": TEXT}`: TEXT and a newline; `{"emit_partial": TEXT}`: no newline.
//! - `{"huge_line": N}`: a valid `user` tool-result line of about N bytes.
//! - `{"stderr": TEXT}`; `{"stderr_flood": N}`: ~N bytes of noise, then `END-OF-FLOOD`.
//! - `{"sleep_ms": N}`, `{"exit": CODE}`, `{"crash": true}` (abort), `{"hang": true}`.
//! - `{"wait_file": PATH}`: wait until PATH exists (the test says when to go
//!   on: a definite point, not a guessed time); after 60 s, exit 5.
//! - `{"ignore_sigterm": true}`, `{"wait_stdin_eof": true}`.
//! - `{"expect_silence_ms": N}`: nothing may arrive on stdin for N ms (else exit 3).
//! - `{"spawn_sleeper": SECS}`: a `sleep SECS` child, its pid in `RECORD/child.pid`.
//! - `{"write_file": {"path": P, "content": C, "append": BOOL}}`.
//! - `{"emit_file": PATH}`: copy a file of ready-made lines to stdout.
//! - `{"timed_deltas": {"count": N, "interval_ms": M, "log": PATH}}`: text
//!   deltas `<i>|`, the monotonic time of each write logged to PATH.
//! - `{"when_arg": {"prefix": P, "steps": [...]}}`: the steps, only when an
//!   argument starts with P (a second start of the CLI can differ).
//! - `{"many_blocks": {"count": N, "text": T}}`: one `assistant` line holding
//!   N text blocks, each T (the memory tests' line); with `"block": B`
//!   instead of `text`, N copies of the block B.
//!
//! After the last step it reads stdin to EOF and exits 0. A bad or unknown step
//! exits 2. A failed write to stdout (closed pipe) exits quietly with 141.

use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{self, Command, Stdio};
use std::time::Duration;

fn die(code: i32, msg: &str) -> ! {
    let _ = writeln!(io::stderr(), "fake-claude: {msg}");
    process::exit(code)
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn lossy(s: std::ffi::OsString) -> String {
    s.to_string_lossy().into_owned()
}

/// Objects: every key of `pat` present and matching; anything else: equal.
fn matches(pat: &Value, v: &Value) -> bool {
    match (pat, v) {
        (Value::Object(p), Value::Object(o)) => p
            .iter()
            .all(|(k, pv)| o.get(k).is_some_and(|ov| matches(pv, ov))),
        _ => pat == v,
    }
}

struct Fake {
    out: io::StdoutLock<'static>,
    input: io::StdinLock<'static>,
    record: Option<PathBuf>,
    stdin_log: Option<File>,
    vars: HashMap<String, String>,
}

impl Fake {
    fn write(&mut self, bytes: &[u8]) {
        if self.out.write_all(bytes).is_err() {
            process::exit(141);
        }
    }

    fn flush(&mut self) {
        if self.out.flush().is_err() {
            process::exit(141);
        }
    }

    /// The next stdin line without its newline (recorded), or `None` at EOF.
    fn read_line(&mut self) -> Option<String> {
        let mut buf = Vec::new();
        if !matches!(self.input.read_until(b'\n', &mut buf), Ok(n) if n > 0) {
            return None;
        }
        if buf.last() != Some(&b'\n') {
            buf.push(b'\n');
        }
        if let Some(log) = &mut self.stdin_log {
            let _ = log.write_all(&buf).and_then(|()| log.flush());
        }
        buf.pop();
        Some(String::from_utf8_lossy(&buf).into_owned())
    }

    fn drain(&mut self) {
        while self.read_line().is_some() {}
    }

    fn subst(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.vars.iter().fold(s.clone(), |s, (k, val)| {
                s.replace(&format!("{{{{{k}}}}}"), val)
            })),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.subst(x)).collect()),
            Value::Object(o) => {
                Value::Object(o.iter().map(|(k, x)| (k.clone(), self.subst(x))).collect())
            }
            other => other.clone(),
        }
    }

    fn expect(&mut self, pattern: &Value, name: Option<&str>, skip: bool) {
        loop {
            let Some(line) = self.read_line() else {
                die(4, &format!("stdin closed while expecting {pattern}"))
            };
            match serde_json::from_str::<Value>(&line) {
                Ok(v) if matches(pattern, &v) => {
                    if let Some(name) = name {
                        let id = v
                            .get("request_id")
                            .or_else(|| v.pointer("/response/request_id"))
                            .unwrap_or_else(|| {
                                die(3, &format!("no request_id for {name} in {line}"))
                            });
                        self.vars.insert(name.to_string(), text(id));
                    }
                    return;
                }
                _ if skip => {}
                _ => die(3, &format!("expected {pattern}, got {line}")),
            }
        }
    }

    fn huge_line(&mut self, n: u64) {
        const HEAD: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_big","content":""#;
        const TAIL: &str = "\"}]},\"parent_tool_use_id\":null,\"session_id\":\"fake-session\"}\n";
        let chunk = [b'x'; 64 * 1024];
        let mut pad = n.saturating_sub((HEAD.len() + TAIL.len()) as u64);
        self.write(HEAD.as_bytes());
        while pad > 0 {
            let k = pad.min(chunk.len() as u64) as usize;
            self.write(&chunk[..k]);
            pad -= k as u64;
        }
        self.write(TAIL.as_bytes());
    }

    fn write_file(&self, spec: &Value) {
        let spec = self.subst(spec);
        let Some(path) = spec.get("path").and_then(Value::as_str) else {
            die(2, &format!("write_file needs a path: {spec}"))
        };
        let content = spec.get("content").map(text).unwrap_or_default();
        let append = spec.get("append") == Some(&Value::Bool(true));
        if let Some(parent) = Path::new(path).parent() {
            let _ = fs::create_dir_all(parent);
        }
        OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(path)
            .and_then(|mut f| f.write_all(content.as_bytes()))
            .unwrap_or_else(|e| die(2, &format!("write_file {path}: {e}")));
    }

    fn run(&mut self, step: &Value) {
        let bad = || -> ! { die(2, &format!("unknown or malformed step: {step}")) };
        let num = |v: &Value| v.as_u64().unwrap_or_else(|| bad());
        let obj = step.as_object().unwrap_or_else(|| bad());
        let (key, val) = match obj.get("expect") {
            Some(p) => ("expect", p),
            None => obj
                .iter()
                .next()
                .map(|(k, v)| (k.as_str(), v))
                .unwrap_or_else(|| bad()),
        };
        match key {
            "expect" => self.expect(
                val,
                obj.get("as").and_then(Value::as_str),
                obj.get("skip") == Some(&Value::Bool(true)),
            ),
            "emit" => {
                let line = format!("{}\n", self.subst(val));
                self.write(line.as_bytes());
            }
            "emit_raw" => {
                self.write(format!("{}\n", val.as_str().unwrap_or_else(|| bad())).as_bytes())
            }
            "emit_partial" => self.write(val.as_str().unwrap_or_else(|| bad()).as_bytes()),
            "huge_line" => self.huge_line(num(val)),
            "stderr" => {
                let _ = writeln!(io::stderr(), "{}", val.as_str().unwrap_or_else(|| bad()));
            }
            "stderr_flood" => {
                let block = format!("{}\n", ["noise"; 15].join(" ")).repeat(64);
                let mut err = io::stderr().lock();
                let mut left = num(val);
                while left > 0 && err.write_all(block.as_bytes()).is_ok() {
                    left = left.saturating_sub(block.len() as u64);
                }
                let _ = err.write_all(b"END-OF-FLOOD\n");
            }
            "sleep_ms" => std::thread::sleep(Duration::from_millis(num(val))),
            "wait_file" => {
                self.flush();
                let path = PathBuf::from(val.as_str().unwrap_or_else(|| bad()));
                let until = std::time::Instant::now() + Duration::from_secs(60);
                while !path.exists() {
                    if std::time::Instant::now() > until {
                        die(5, &format!("wait_file: {} never came", path.display()));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            "exit" => {
                self.flush();
                process::exit(val.as_i64().unwrap_or_else(|| bad()) as i32);
            }
            "crash" => {
                self.flush();
                let _ = writeln!(io::stderr(), "fake-claude: crashing");
                // No core file: the point is the abnormal exit, not the dump.
                let no_core = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                unsafe { libc::setrlimit(libc::RLIMIT_CORE, &no_core) };
                process::abort();
            }
            "hang" => {
                self.flush();
                loop {
                    std::thread::sleep(Duration::from_secs(3600));
                }
            }
            "ignore_sigterm" => unsafe {
                libc::signal(libc::SIGTERM, libc::SIG_IGN);
            },
            "wait_stdin_eof" => self.drain(),
            "expect_silence_ms" => {
                // nothing may arrive on stdin for this long
                let ms = num(val) as i32;
                let mut pfd = libc::pollfd {
                    fd: 0,
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one valid pollfd.
                if unsafe { libc::poll(&mut pfd, 1, ms) } > 0 && pfd.revents & libc::POLLIN != 0 {
                    die(3, "input arrived during an expected silence");
                }
            }
            "spawn_sleeper" => {
                // Deliberately never waited: it stands for a tool process left behind.
                #[allow(clippy::zombie_processes)]
                let child = Command::new("sleep")
                    .arg(text(val))
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap_or_else(|e| die(2, &format!("spawn_sleeper: {e}")));
                if let Some(dir) = &self.record {
                    record_file(&dir.join("child.pid"), &child.id().to_string());
                }
            }
            "write_file" => self.write_file(val),
            "timed_deltas" => {
                // text deltas `<i>|`, each write's CLOCK_MONOTONIC time logged (benchmarks)
                let count = val.get("count").and_then(Value::as_u64).unwrap_or(100);
                let gap = val.get("interval_ms").and_then(Value::as_u64).unwrap_or(10);
                let log = val
                    .get("log")
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| bad());
                let mut times = String::new();
                for i in 0..count {
                    let line = format!(
                        "{{\"type\":\"stream_event\",\"event\":{{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"<{i}>|\"}}}},\"session_id\":\"s\",\"parent_tool_use_id\":null}}\n"
                    );
                    let mut ts = libc::timespec {
                        tv_sec: 0,
                        tv_nsec: 0,
                    };
                    // SAFETY: a valid timespec to fill.
                    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
                    times.push_str(&format!(
                        "{}\n",
                        ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
                    ));
                    self.write(line.as_bytes());
                    self.flush();
                    std::thread::sleep(Duration::from_millis(gap));
                }
                record_file(Path::new(log), &times);
            }
            "emit_file" => {
                // copy a file of ready-made lines to stdout (benchmarks)
                let path = val.as_str().unwrap_or_else(|| bad());
                let mut f =
                    File::open(path).unwrap_or_else(|e| die(2, &format!("emit_file {path}: {e}")));
                let mut buf = vec![0u8; 1 << 20];
                loop {
                    match io::Read::read(&mut f, &mut buf) {
                        Ok(0) => break,
                        Ok(n) => self.write(&buf[..n]),
                        Err(e) => die(2, &format!("emit_file {path}: {e}")),
                    }
                }
            }
            "when_arg" => {
                let prefix = val
                    .get("prefix")
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| bad());
                let steps = val
                    .get("steps")
                    .and_then(Value::as_array)
                    .unwrap_or_else(|| bad());
                if std::env::args().skip(1).any(|a| a.starts_with(prefix)) {
                    for step in steps {
                        self.run(step);
                    }
                }
            }
            "many_blocks" => {
                let count = val
                    .get("count")
                    .and_then(Value::as_u64)
                    .unwrap_or_else(|| bad());
                let block = match (val.get("block"), val.get("text")) {
                    (Some(block), _) => block.to_string(),
                    (None, Some(text)) => format!(r#"{{"type":"text","text":{text}}}"#),
                    (None, None) => bad(),
                };
                self.write(
                    br#"{"type":"assistant","message":{"id":"msg_many","type":"message","role":"assistant","model":"fake","content":["#,
                );
                for i in 0..count {
                    if i > 0 {
                        self.write(b",");
                    }
                    self.write(block.as_bytes());
                }
                self.write(
                    br#"],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"fake-session"}"#,
                );
                self.write(b"\n");
            }
            _ => bad(),
        }
        self.flush();
    }
}

/// Written whole or not at all (a new file renamed over the name), so a
/// test reading it never sees half of it.
fn record_file(path: &Path, content: &str) {
    let part = path.with_extension(format!("part{}", process::id()));
    fs::write(&part, content)
        .and_then(|()| fs::rename(&part, path))
        .unwrap_or_else(|e| die(2, &format!("recording {}: {e}", path.display())));
}

/// Writes argv, env, pid and cwd into `dir`; returns the stdin log.
fn record_start(dir: &Path) -> File {
    let _ = fs::create_dir_all(dir);
    let argv: Vec<Value> = std::env::args_os()
        .skip(1)
        .map(|a| Value::String(lossy(a)))
        .collect();
    record_file(&dir.join("argv.json"), &Value::Array(argv).to_string());
    const NAMED: [&str; 3] = [
        "CLAUDECODE",
        "CLAUDE_CODE_ENTRYPOINT",
        "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING",
    ];
    let env: Map<String, Value> = std::env::vars_os()
        .map(|(k, v)| (lossy(k), Value::String(lossy(v))))
        .filter(|(k, _)| {
            NAMED.contains(&k.as_str()) || k.starts_with("FAKE_") || k.starts_with("CLAUDIO_")
        })
        .collect();
    record_file(&dir.join("env.json"), &Value::Object(env).to_string());
    record_file(&dir.join("pid"), &process::id().to_string());
    let cwd = std::env::current_dir()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    record_file(&dir.join("cwd"), &cwd);
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("stdin.jsonl"))
        .unwrap_or_else(|e| die(2, &format!("recording stdin.jsonl: {e}")))
}

fn main() {
    if std::env::args_os().skip(1).any(|a| a == "--version") {
        let _ = writeln!(io::stdout(), "2.1.328 (Claude Code)");
        return;
    }
    let record = std::env::var_os("FAKE_CLAUDE_RECORD").map(PathBuf::from);
    let stdin_log = record.as_deref().map(record_start);
    let script = if let Some(path) = std::env::var_os("FAKE_CLAUDE_SCENARIO") {
        fs::read_to_string(&path).unwrap_or_else(|e| {
            die(
                2,
                &format!("reading scenario {}: {e}", Path::new(&path).display()),
            )
        })
    } else if let Some(script) = std::env::var_os("FAKE_CLAUDE_SCRIPT") {
        lossy(script)
    } else {
        die(
            2,
            "set FAKE_CLAUDE_SCENARIO (a file) or FAKE_CLAUDE_SCRIPT (inline JSON)",
        )
    };
    let steps = match serde_json::from_str::<Value>(&script) {
        Ok(Value::Array(steps)) => steps,
        Ok(_) => die(2, "the scenario must be a JSON array of steps"),
        Err(e) => die(2, &format!("bad scenario JSON: {e}")),
    };
    let mut fake = Fake {
        out: io::stdout().lock(),
        input: io::stdin().lock(),
        record,
        stdin_log,
        vars: HashMap::new(),
    };
    for step in &steps {
        fake.run(step);
    }
    fake.drain();
    process::exit(0);
}
