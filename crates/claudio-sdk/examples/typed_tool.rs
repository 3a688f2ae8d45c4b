//! A tool written in Rust whose arguments arrive as a Rust type
//! ([`McpTool::typed`]): serde decodes the model's JSON, and arguments that
//! do not fit go back to the model as an error it can correct.
//!
//! `cargo run --example typed_tool -- "How many days are there between 2026-03-01 and 2026-12-01?"`

use claudio::{Client, McpServer, McpTool, Options, PermissionResult, ToolOutput};
use serde::Deserialize;
use serde_json::json;

/// The tool's arguments.
#[derive(Deserialize)]
struct Between {
    /// `YYYY-MM-DD`
    from: String,
    /// `YYYY-MM-DD`
    to: String,
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date (proleptic Gregorian).
fn days(date: &str) -> Option<i64> {
    let mut parts = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (parts.next()??, parts.next()??, parts.next()??);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "How many days are there between 2026-03-01 and 2026-12-01?".into());
    let tool = McpTool::typed(
        "days_between",
        "The number of days from one date to another (YYYY-MM-DD).",
        json!({
            "type": "object",
            "properties": {
                "from": {"type": "string", "description": "YYYY-MM-DD"},
                "to": {"type": "string", "description": "YYYY-MM-DD"}
            },
            "required": ["from", "to"]
        }),
        |args: Between| async move {
            Ok(match (days(&args.from), days(&args.to)) {
                (Some(a), Some(b)) => ToolOutput::text((b - a).to_string()),
                _ => ToolOutput::error("dates must be YYYY-MM-DD"),
            })
        },
    );
    let options = Options::default()
        .mcp_server(McpServer::new("dates").tool(tool))
        // an in-process tool is asked about like any other: allow ours
        .allowed_tools(["mcp__dates__days_between"])
        .can_use_tool(|_req, _ctx| async { Ok(PermissionResult::deny("only the date tool")) });
    let client = Client::connect(options).await?;
    let turn = client.turn(prompt).await?;
    println!("{}", turn.text());
    client.close().await?;
    Ok(())
}
