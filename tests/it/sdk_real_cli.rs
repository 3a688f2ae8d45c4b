//! The library against the real CLI (issue 41): what 2.1.336 adds, and what
//! the older CLIs do with it. The module's name matches scripts/test's
//! real-CLI filter, so these run against 2.1.328, 2.1.332 and 2.1.336.

use crate::common;

use claudio::protocol::StartupFailureReason;
use claudio::{Client, Error};
use common::real::*;

/// The CLI's version as (major, minor, patch).
fn version(cli: &std::path::Path) -> (u64, u64, u64) {
    let out = std::process::Command::new(cli)
        .arg("--version")
        .output()
        .expect("claude --version");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<u64> = text
        .split_whitespace()
        .next()
        .unwrap_or("")
        .split('.')
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    (v[0], v[1], v[2])
}

const UNKNOWN_SESSION: &str = "3f1c2d4e-0000-4000-8000-00000000a41e";

/// `--resume` of an unknown id: the CLI writes an `error_during_execution`
/// result before it answers `initialize`, then exits 1. That result is the
/// connect error, with the CLI's `errors` and (2.1.336) its reason.
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_resume_of_an_unknown_id_fails_with_the_clis_result() {
    let w = world!("real_cli_resume_of_an_unknown_id_fails_with_the_clis_result");
    let v = version(&w.cli);
    let err = Client::connect(w.options().resume(UNKNOWN_SESSION))
        .await
        .expect_err("an unknown session cannot be resumed");
    let Error::StartupFailed { result, code, .. } = &err else {
        panic!("not a startup failure: {err:?}");
    };
    assert_eq!(*code, Some(1));
    assert_eq!(result.subtype, "error_during_execution");
    assert!(result.is_error);
    assert!(
        result
            .errors
            .iter()
            .any(|e| e.contains("No conversation found") && e.contains(UNKNOWN_SESSION)),
        "{result:?}"
    );
    if v >= (2, 1, 336) {
        assert_eq!(
            result.startup_failure_reason,
            Some(StartupFailureReason::ResumeTargetNotFound)
        );
    }
    let text = err.to_string();
    assert!(text.contains("no such session"), "{text}");
    assert!(text.contains("No conversation found"), "{text}");
    assert_eq!(err.startup_failure().map(|r| r.is_error), Some(true));
}
