//! `sessions list`: a table of sessions, newest first, or their JSON.

use super::args::ListArgs;
use super::io::{Io, JsonRows, SessionsOutcome};
use super::usage;
use crate::cli::common::exit::Exit;
use crate::cli::term::text::{
    cut_left, cut_width, flat, human_size, pad, pad_left, table_row, width,
};
use crate::cli::term::time::relative_time;
use crate::cli::term::wrap::undisputed;
use anyhow::Context;
use claudio::store::{ListOptions, SessionInfo, Store};
use std::io::Write;

pub(super) fn list(store: &Store, a: ListArgs, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    let output = a.output();
    let with_usage = a.with_usage();
    let since = a
        .since
        .as_deref()
        .map(|s| super::since::parse_since(s, io.now_ms))
        .transpose()?;
    let mut opts = if a.all {
        ListOptions::all()
    } else {
        let dir = a
            .cwd
            .or_else(|| io.cwd.clone())
            .context("cannot tell the current directory; pass --cwd or --all")?;
        ListOptions::for_dir(dir)
    };
    // with --since the newest N are those left after it
    if let (Some(n), None) = (a.limit, since) {
        opts = opts.limit(n);
    }
    let mut listing =
        crate::cli::term::spinner::while_working(io.err_style, "listing sessions", || {
            store.list(&opts)
        })?;
    io.warn_skipped(&listing.skipped);
    if let Some(t) = since {
        // newest first: those written since then come first
        listing.sessions.retain(|s| s.last_modified >= t);
        if let Some(n) = a.limit {
            listing.sessions.truncate(n);
        }
    }
    if output.is_json() && with_usage {
        let rows: Vec<serde_json::Value> = crate::cli::term::spinner::while_working(
            io.err_style,
            "reading each session's usage",
            || {
                // one read of them all: the usage index written once
                let paths: Vec<&std::path::Path> =
                    listing.sessions.iter().map(|s| s.path.as_path()).collect();
                let usages = claudio::store::sessions_usage(&paths);
                let pricer = usage::store_pricer(store, usages.iter().flatten());
                listing
                    .sessions
                    .iter()
                    .zip(usages)
                    .map(|(s, u)| {
                        let mut v = serde_json::to_value(s).unwrap_or_default();
                        // what `usage` counts for the session: its sub-agents too
                        let fields = u.ok().map(|u| usage::list_fields(&u, &pricer));
                        if let (Some(o), Some(Ok(serde_json::Value::Object(more)))) =
                            (v.as_object_mut(), fields.map(serde_json::to_value))
                        {
                            o.extend(more);
                        }
                        v
                    })
                    .collect()
            },
        );
        JsonRows::write_all(output, io, &rows)?;
    } else if output.is_json() {
        JsonRows::write_all(output, io, &listing.sessions)?;
    } else if listing.sessions.is_empty() {
        let msg = match (&opts.dir, since) {
            (Some(d), Some(_)) => format!(
                "no sessions for {} since then",
                crate::cli::common::folder::shown(d)
            ),
            (Some(d), None) => format!(
                "no sessions for {} (try --all)",
                crate::cli::common::folder::shown(d)
            ),
            (None, Some(_)) => "no sessions since then".to_owned(),
            (None, None) => format!(
                "no sessions in {}",
                crate::cli::common::folder::shown(&store.projects_dir())
            ),
        };
        io.warn(&msg);
    } else {
        let long: Option<Vec<[String; 2]>> = with_usage.then(|| {
            crate::cli::term::spinner::while_working(
                io.err_style,
                "reading each session's usage",
                || {
                    let paths: Vec<&std::path::Path> =
                        listing.sessions.iter().map(|s| s.path.as_path()).collect();
                    let usages = claudio::store::sessions_usage(&paths);
                    let pricer = usage::store_pricer(store, usages.iter().flatten());
                    usages
                        .into_iter()
                        .map(|u| match u {
                            Ok(u) => usage::long_cells(&u, &pricer),
                            Err(_) => ["?".into(), "?".into()],
                        })
                        .collect()
                },
            )
        });
        // a terminal gets one screenful, newest first, and the count of
        // the rest; a pipe gets every row
        let cap = match (io.out_tty, a.limit) {
            (true, None) => io
                .size
                .map_or(50, |(_, rows)| rows.saturating_sub(4).max(10)),
            _ => usize::MAX,
        };
        let shown = &listing.sessions[..listing.sessions.len().min(cap)];
        let table = render_table(shown, io, long.as_deref(), a.all);
        io.out.write_all(table.as_bytes())?;
        let left = listing.sessions.len() - shown.len();
        if left > 0 {
            let more = format!(
                "… {left} older session{} not shown (-n N shows more; piped, all are listed)",
                if left == 1 { "" } else { "s" }
            );
            writeln!(io.out, "{}", io.out_style.dim(&more))?;
        }
    }
    io.out.flush()?;
    Ok(SessionsOutcome::Done(Exit::Success))
}

/// The project a session ran in, short: `~/code/shop`.
fn project(s: &SessionInfo) -> String {
    let cwd = s.cwd.as_deref().unwrap_or("");
    let home = dirs::home_dir().map(|h| h.display().to_string());
    let short = match home {
        Some(h) if !h.is_empty() && cwd.starts_with(&h) => format!("~{}", &cwd[h.len()..]),
        _ => cwd.to_owned(),
    };
    flat(&short)
}

/// Columns: id, modified, (with --all) project, title, branch, size, and
/// with --long tokens and the estimate. On a terminal the title takes what
/// the width leaves; piped, the cells are tab-separated, whole (the full
/// id), for `cut` and `awk`.
fn render_table(
    sessions: &[SessionInfo],
    io: &Io,
    long: Option<&[[String; 2]]>,
    all: bool,
) -> String {
    let st = io.out_style;
    // `HEAD` as the transcript recorded it: no branch, or a detached one
    let mut branches = crate::cli::common::git::RecordedBranches::default();
    let rows: Vec<Vec<String>> = sessions
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let tidy = |t: &str| {
                let t = flat(t);
                if io.out_tty {
                    undisputed(&t).into_owned()
                } else {
                    t
                }
            };
            let mut title = tidy(&s.title);
            if let Some(tag) = s.tag.as_deref() {
                title = format!("[{}] {title}", tidy(tag));
            }
            if s.from_archive {
                title = format!("(archived) {title}");
            }
            let id = if io.out_tty {
                s.session_id.chars().take(8).collect()
            } else {
                flat(&s.session_id)
            };
            let mut row = vec![id, relative_time(io.now_ms, s.last_modified)];
            if all {
                row.push(tidy(&project(s)));
            }
            row.extend([
                title,
                branches
                    .shown(s.git_branch.as_deref(), s.cwd.as_deref())
                    .map(|b| tidy(&b))
                    .unwrap_or_default(),
                human_size(s.file_size),
            ]);
            if let Some(l) = long {
                let [tok, cost] = l.get(i).cloned().unwrap_or_default();
                row.extend([tok, cost]);
            }
            row
        })
        .collect();
    let mut header = vec!["ID", "MODIFIED"];
    if all {
        header.push("PROJECT");
    }
    header.extend(["TITLE", "BRANCH", "SIZE"]);
    if long.is_some() {
        header.extend(["TOKENS", "COST"]);
    }
    if !io.out_tty {
        let mut out = header.join("\t");
        out.push('\n');
        for r in &rows {
            out.push_str(&r.join("\t"));
            out.push('\n');
        }
        return out;
    }
    let title_at = if all { 3 } else { 2 };
    let w = |i: usize| {
        rows.iter()
            .map(|r| width(&r[i]))
            .chain([header[i].len()])
            .max()
            .unwrap_or(0)
    };
    // every column its widest cell (branch and project at most 30), the
    // title what is left
    let widths: Vec<usize> = (0..header.len())
        .map(|i| match header[i] {
            "BRANCH" | "PROJECT" => w(i).min(30),
            _ => w(i),
        })
        .collect();
    let fixed: usize = widths
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != title_at)
        .map(|(_, w)| w + 2)
        .sum();
    let w_title = match io.size {
        Some((cols, _)) => cols.saturating_sub(fixed).max(10),
        None => usize::MAX,
    }
    .min(widths[title_at]);
    let right = |h: &str| matches!(h, "SIZE" | "TOKENS" | "COST");
    let line = |cells: &[&str], head: bool| {
        let text: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let w = if i == title_at { w_title } else { widths[i] };
                // a project's path is cut from the left: its last
                // components tell projects apart (cut from the right,
                // every row read `~/…/projects/…`)
                let c = if header[i] == "PROJECT" {
                    cut_left(c, w)
                } else {
                    cut_width(c, w)
                };
                if right(header[i]) {
                    pad_left(&c, w)
                } else {
                    pad(&c, w)
                }
            })
            .collect();
        let text = text.join("  ").trim_end().to_owned();
        let text = table_row(&text, io.size.map_or(usize::MAX, |(cols, _)| cols));
        format!("{}\n", if head { st.dim(&text) } else { text })
    };
    let mut out = line(&header, true);
    for r in &rows {
        let cells: Vec<&str> = r.iter().map(String::as_str).collect();
        out.push_str(&line(&cells, false));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::SessionsOutcome;
    use crate::cli::common::exit::Exit;
    use crate::cli::term::text::cut_left;
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
        // piped: tab-separated, whole cells
        assert_eq!(lines[0], "ID\tMODIFIED\tTITLE\tBRANCH\tSIZE", "{out}");
        assert!(
            lines[1].starts_with(&format!("{B}\t16m ago\tsecond session\t\t")),
            "{out}"
        );
        assert!(lines[1].ends_with('B'), "{out}");
        assert!(
            lines[2].starts_with(&format!("{A}\t2h ago\tfix the bug")),
            "{out}"
        );
        assert!(lines[2].contains("\tmain\t"), "{out}");
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

    /// Long project paths keep their last components: cut from the right,
    /// every row read the same `~/work/clients/…` prefix.
    #[test]
    fn a_long_project_path_is_cut_from_the_left() {
        assert_eq!(
            cut_left("/home/me/work/clients/acme/shop", 11),
            "…/acme/shop"
        );
        assert_eq!(cut_left("short", 12), "short");
        assert_eq!(cut_left("/a/世界", 4), "…界");
        let d = store();
        let long = "/work/a-very-long-folder-name-shared-by-everything/clients/acme-shop";
        for f in std::fs::read_dir(d.path().join("projects/-work-proj")).unwrap() {
            let p = f.unwrap().path();
            let t = std::fs::read_to_string(&p)
                .unwrap()
                .replace("/work/proj", long);
            std::fs::write(&p, t).unwrap();
        }
        let r = run_args_sized(
            &["--config-dir", &cfg(&d), "list", "--all"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
            Some((100, 10)),
        );
        r.outcome.unwrap();
        let out = r.out.text();
        assert!(out.lines().nth(1).unwrap().contains("…"), "{out}");
        assert!(out.contains("clients/acme-shop"), "{out}");
    }

    #[test]
    fn on_a_terminal_all_names_the_project_and_shows_one_screenful() {
        let d = store();
        let r = run_args_sized(
            &["--config-dir", &cfg(&d), "list", "--all"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
            Some((100, 5)),
        );
        r.outcome.unwrap();
        let out = r.out.text();
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("ID        MODIFIED  PROJECT"), "{out}");
        assert!(lines[1].contains("/work/proj"), "{out}");
        assert!(lines
            .iter()
            .all(|l| crate::cli::term::text::width(l) <= 100));
        // 5 rows leave room for no more than the floor of 10: both shown
        assert!(!out.contains("not shown"), "{out}");
        let r = run_args_sized(
            &["--config-dir", &cfg(&d), "list", "--all", "-n", "1"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
            Some((100, 40)),
        );
        r.outcome.unwrap();
        assert_eq!(r.out.text().lines().count(), 2, "{}", r.out.text());
    }

    /// Titles holding what terminals count otherwise than claudio (threats
    /// class 11: soft hyphens, ZWJ sequences, variation selectors, skin
    /// tones, combining marks, fillers, new emoji, wide and ambiguous
    /// characters) leave the columns after them in line: on a terminal
    /// (vt100, and tmux, which draws with glibc's tables), every row's
    /// branch starts, and its size ends, in the header's columns, and no
    /// character the terminals dispute is written.
    #[test]
    fn a_listing_s_columns_line_up_whatever_its_titles_hold() {
        let titles = super::super::testing::HARD_TITLES;
        let dir = super::super::testing::titled_store(&titles, "2026-01-01T10:00:00.000Z");
        // each row of a screen as (column, text) cells; where a word starts,
        // where the last text ends
        type Row = Vec<(usize, String)>;
        let at = |row: &Row, word: &str| {
            (0..row.len()).find_map(|k| {
                let text: String = row[k..].iter().map(|(_, t)| t.as_str()).collect();
                text.starts_with(word).then_some(row[k].0)
            })
        };
        let end = |row: &Row| {
            row.iter()
                .rev()
                .find(|(_, t)| !t.trim().is_empty())
                .map(|(c, _)| *c)
        };
        let lined_up = |rows: &[Row], what: &str, out: &str| {
            let branch =
                at(&rows[0], "BRANCH").unwrap_or_else(|| panic!("{what}: no header\n{out}"));
            for row in &rows[1..=titles.len()] {
                let text: String = row.iter().map(|(_, t)| t.as_str()).collect();
                let i = (0..titles.len())
                    .find(|i| at(row, &format!("br{i} ")).is_some())
                    .unwrap_or_else(|| panic!("{what}: no branch in {text:?}\n{out}"));
                assert_eq!(
                    at(row, &format!("br{i} ")),
                    Some(branch),
                    "{what}: {text:?}\n{out}"
                );
                assert_eq!(end(row), end(&rows[0]), "{what}: {text:?}\n{out}");
            }
        };
        let tmux = crate::cli::term::tmux::Tmux::for_test(
            "a_listing_s_columns_line_up_whatever_its_titles_hold (tmux)",
        );
        for cols in [60u16, 80, 120] {
            let r = run_args_sized(
                &["--config-dir", &cfg(&dir), "list"],
                "/nonexistent".as_ref(),
                "/work/proj".as_ref(),
                Some((cols as usize, 40)),
            );
            r.outcome.unwrap();
            let out = r.out.text();
            let screen = super::super::testing::drawn_undisputed(&out, cols);
            let screen = screen.screen();
            let rows: Vec<Row> = (0..40)
                .map(|r| {
                    (0..cols)
                        .filter_map(|c| {
                            let cell = screen.cell(r, c)?;
                            (!cell.is_wide_continuation())
                                .then(|| (usize::from(c), cell.contents().to_string()))
                        })
                        .collect()
                })
                .collect();
            lined_up(&rows, &format!("vt100, {cols} columns"), &out);
            #[cfg(target_os = "linux")]
            if let Some(tmux) = &tmux {
                let shot = tmux.screen_sized(&out, &format!("list{cols}"), cols, 40);
                let rows: Option<Vec<Row>> = shot
                    .lines()
                    .map(|l| {
                        crate::cli::term::tmux::drawn_columns(l).map(|cells| {
                            cells
                                .into_iter()
                                .map(|(c, ch)| (c, ch.to_string()))
                                .collect()
                        })
                    })
                    .collect();
                match rows {
                    Some(rows) => lined_up(&rows, &format!("tmux, {cols} columns"), &shot),
                    None => eprintln!("SKIPPED the tmux check: no C.UTF-8 locale"),
                }
            }
        }
    }
}
