//! `sessions list`: a table of sessions, newest first, or their JSON.

use super::args::ListArgs;
use super::cells::{cut, flat, human_size, pad, pad_left, width};
use super::io::{Io, SessionsOutcome};
use super::time::relative_time;
use super::usage;
use crate::cli::exit::Exit;
use anyhow::Context;
use claudio::store::{ListOptions, SessionInfo, Store};
use serde::Serialize;
use std::io::Write;

pub(super) fn list(store: &Store, a: ListArgs, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    let mut opts = if a.all {
        ListOptions::all()
    } else {
        let dir = a
            .cwd
            .or_else(|| io.cwd.clone())
            .context("cannot tell the current directory; pass --cwd or --all")?;
        ListOptions::for_dir(dir)
    };
    if let Some(n) = a.limit {
        opts = opts.limit(n);
    }
    let listing = store.list(&opts)?;
    io.warn_skipped(&listing.skipped);
    if a.json && a.usage {
        let rows: Vec<serde_json::Value> = listing
            .sessions
            .iter()
            .map(|s| {
                let mut v = serde_json::to_value(s).unwrap_or_default();
                // what `usage` counts for the session: its sub-agents too
                let u = claudio::store::session_usage(&s.path).map(|u| u.total());
                if let (Some(o), Ok(u)) = (v.as_object_mut(), u) {
                    for (k, x) in usage::json_fields(&u) {
                        o.insert(k.to_owned(), x);
                    }
                }
                v
            })
            .collect();
        write_json_lines(io, &rows)?;
    } else if a.json {
        write_json_lines(io, &listing.sessions)?;
    } else if listing.sessions.is_empty() {
        let msg = match &opts.dir {
            Some(d) => format!("no sessions for {} (try --all)", d.display()),
            None => format!("no sessions in {}", store.projects_dir().display()),
        };
        io.warn(&msg);
    } else {
        let long: Option<Vec<[String; 2]>> = a.long.then(|| {
            listing
                .sessions
                .iter()
                .map(|s| match claudio::store::session_usage(&s.path) {
                    Ok(u) => usage::long_cells(&u.total()),
                    Err(_) => ["?".into(), "?".into()],
                })
                .collect()
        });
        let table = render_table(&listing.sessions, io, long.as_deref());
        io.out.write_all(table.as_bytes())?;
    }
    io.out.flush()?;
    Ok(SessionsOutcome::Done(Exit::Success))
}

/// A JSON array, one element per line.
fn write_json_lines<T: Serialize>(io: &mut Io, rows: &[T]) -> anyhow::Result<()> {
    if rows.is_empty() {
        io.write_json("[]\n")?;
        return Ok(());
    }
    io.write_json("[\n")?;
    for (i, r) in rows.iter().enumerate() {
        let sep = if i + 1 < rows.len() { "," } else { "" };
        io.write_json(&format!("{}{sep}\n", serde_json::to_string(r)?))?;
    }
    io.write_json("]\n")?;
    Ok(())
}

/// Columns: id, modified, title, branch, size; the title takes what the
/// terminal width leaves.
fn render_table(sessions: &[SessionInfo], io: &Io, long: Option<&[[String; 2]]>) -> String {
    let st = io.out_style;
    let rows: Vec<[String; 5]> = sessions
        .iter()
        .map(|s| {
            let mut title = flat(&s.summary);
            if let Some(tag) = s.tag.as_deref() {
                title = format!("[{}] {title}", flat(tag));
            }
            if s.from_archive {
                title = format!("(archived) {title}");
            }
            [
                s.session_id.chars().take(8).collect(),
                relative_time(io.now_ms, s.last_modified),
                title,
                s.git_branch.as_deref().map(flat).unwrap_or_default(),
                human_size(s.file_size),
            ]
        })
        .collect();
    let header = ["ID", "MODIFIED", "TITLE", "BRANCH", "SIZE"];
    let long_header = ["TOKENS", "EST. COST"];
    let w = |i: usize| {
        rows.iter()
            .map(|r| width(&r[i]))
            .chain([header[i].len()])
            .max()
            .unwrap_or(0)
    };
    let wl = |i: usize| {
        long.map_or(0, |l| {
            l.iter()
                .map(|r| width(&r[i]))
                .chain([long_header[i].len()])
                .max()
                .unwrap_or(0)
        })
    };
    let (w_id, w_mod, w_branch, w_size) = (w(0), w(1), w(3).min(30), w(4));
    let (w_tok, w_cost) = (wl(0), wl(1));
    let extra = if long.is_some() {
        w_tok + w_cost + 4
    } else {
        0
    };
    let fixed = w_id + w_mod + w_branch + w_size + 8 + extra;
    let w_title = match io.size {
        Some((cols, _)) if io.out_tty => cols.saturating_sub(fixed).max(10),
        _ => usize::MAX,
    };
    let w_title = w_title.min(w(2));
    let mut out = String::new();
    let line = |cells: [&str; 5], more: Option<[&str; 2]>, out: &mut String, head: bool| {
        let title = cut(cells[2], w_title);
        let branch = cut(cells[3], w_branch);
        let mut text = format!(
            "{}  {}  {}  {}  {}",
            pad(cells[0], w_id),
            pad(cells[1], w_mod),
            pad(&title, w_title),
            pad(&branch, w_branch),
            pad_left(cells[4], w_size)
        );
        if let Some([tok, cost]) = more {
            text.push_str(&format!(
                "  {}  {}",
                pad_left(tok, w_tok),
                pad_left(cost, w_cost)
            ));
        }
        let text = text.trim_end().to_owned();
        out.push_str(&if head { st.dim(&text) } else { text });
        out.push('\n');
    };
    line(header, long.map(|_| long_header), &mut out, true);
    for (i, r) in rows.iter().enumerate() {
        let more = long
            .and_then(|l| l.get(i))
            .map(|m| [m[0].as_str(), m[1].as_str()]);
        line([&r[0], &r[1], &r[2], &r[3], &r[4]], more, &mut out, false);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::SessionsOutcome;
    use crate::cli::exit::Exit;
    use claudio::store::{ListOptions, Store};
    use serde_json::Value;

    #[test]
    fn list_json_is_the_library_listing() {
        let d = store();
        let r = run_args(
            &["--config-dir", &cfg(&d), "list", "--all", "--json"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        assert_eq!(r.outcome.unwrap(), SessionsOutcome::Done(Exit::Success));
        let v: Value = serde_json::from_str(&r.out.text()).unwrap();
        let ours = serde_json::to_value(
            Store::new(d.path())
                .list(&ListOptions::all())
                .unwrap()
                .sessions,
        )
        .unwrap();
        assert_eq!(v, ours);
        assert_eq!(v[0]["sessionId"], B);
        // Bytes exact: the escape sequence is still there, JSON-escaped.
        assert!(r.out.text().contains("\\u001b]0;pwned\\u0007bug"));
    }

    #[test]
    fn list_table_is_inert_and_defaults_to_this_directory() {
        let d = store();
        let r = run_args(
            &["--config-dir", &cfg(&d), "list"],
            "/nonexistent".as_ref(),
            "/work/proj".as_ref(),
        );
        r.outcome.unwrap();
        let out = r.out.text();
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("ID"), "{out}");
        assert!(
            lines[1].starts_with("aaaabbbb  16m ago   second session          "),
            "{out}"
        );
        assert!(lines[1].ends_with('B'), "{out}");
        assert!(
            lines[2].starts_with("aaaaaaaa  2h ago    fix the bug     main"),
            "{out}"
        );
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'));
        let r = run_args(
            &["--config-dir", &cfg(&d), "list"],
            "/nonexistent".as_ref(),
            "/elsewhere".as_ref(),
        );
        r.outcome.unwrap();
        assert_eq!(r.out.text(), "");
        assert!(
            r.err.text().contains("no sessions for /elsewhere"),
            "{}",
            r.err.text()
        );
    }
}
