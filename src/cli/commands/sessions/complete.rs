//! Completing session ids in the shells: `claudio sessions complete-ids
//! [PREFIX]` (hidden) prints the newest ids that start with the prefix,
//! and [`hook`] wires it into the generated completion scripts, where a
//! session id is asked for (`sessions resume|inspect|fork|rename|tag|
//! delete|export ID`, `--resume ID`).

use crate::cli::common::flags::CompletionShell;
use clap::Args;
use claudio::store::{ListOptions, Store};
use std::io::Write;
use std::path::Path;

/// At most this many ids are offered: the newest that match.
pub(crate) const MAX_CANDIDATES: usize = 200;

/// How many columns of a title are shown beside its id.
const TITLE_COLUMNS: usize = 60;

/// Arguments of `sessions complete-ids`.
#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// Each id with its title, after a tab.
    #[arg(long)]
    pub describe: bool,
    /// Only the ids that start with this.
    #[arg(default_value = "")]
    pub prefix: String,
}

/// Print the candidates, one a line, and nothing else: a store that is
/// missing or cannot be read gives none, and no message (the shell would
/// show it in the middle of the command line).
pub fn complete_ids(
    config_dir: Option<&Path>,
    no_archive: bool,
    args: &CompleteArgs,
    out: &mut dyn Write,
) {
    let mut text = String::new();
    for line in candidates(config_dir, no_archive, &args.prefix, args.describe) {
        text.push_str(&line);
        text.push('\n');
    }
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

fn candidates(
    config_dir: Option<&Path>,
    no_archive: bool,
    prefix: &str,
    describe: bool,
) -> Vec<String> {
    // an id is hex digits and dashes: anything else matches none
    if !prefix.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
        return Vec::new();
    }
    let Ok(mut store) = Store::open(config_dir) else {
        return Vec::new();
    };
    if no_archive {
        store = store.without_archives();
    }
    let opts = ListOptions::all().id_prefix(prefix).limit(MAX_CANDIDATES);
    let Ok(listing) = store.list(&opts) else {
        return Vec::new();
    };
    listing
        .sessions
        .iter()
        .map(|s| {
            if describe {
                let title = crate::cli::term::text::cut_width(
                    &crate::cli::term::text::flat(&s.title),
                    TITLE_COLUMNS,
                );
                format!("{}\t{}", s.session_id, claudio::store::trim_prompt(&title))
            } else {
                s.session_id.clone()
            }
        })
        .collect()
}

/// Where ids are asked for: the `sessions` subcommands whose first
/// argument is a session id (with their aliases), and the flags that take
/// one (`-r`/`--resume`), read from the command's own definition.
struct Wanted {
    /// `resume`, `inspect`, `show`, …
    verbs: Vec<String>,
    /// The flags (of any command) that take a value, as typed: a word
    /// after one is its value, not an argument.
    value_flags: Vec<String>,
}

fn wanted(cmd: &clap::Command) -> Wanted {
    let mut verbs = Vec::new();
    if let Some(sessions) = cmd.find_subcommand("sessions") {
        for sub in sessions.get_subcommands().filter(|s| !s.is_hide_set()) {
            let first = sub.get_positionals().min_by_key(|a| a.get_index());
            if first.is_some_and(|a| a.get_id() == "id") {
                verbs.push(sub.get_name().to_owned());
                verbs.extend(sub.get_visible_aliases().map(str::to_owned));
            }
        }
    }
    let mut value_flags = Vec::new();
    collect_value_flags(cmd, &mut value_flags);
    value_flags.sort();
    value_flags.dedup();
    Wanted { verbs, value_flags }
}

fn collect_value_flags(cmd: &clap::Command, out: &mut Vec<String>) {
    for a in cmd.get_arguments().filter(|a| !a.is_positional()) {
        let takes = a
            .get_num_args()
            .is_some_and(|r| r.takes_values() && r.min_values() > 0);
        if !takes {
            continue;
        }
        out.extend(
            a.get_long_and_visible_aliases()
                .into_iter()
                .flatten()
                .map(|l| format!("--{l}")),
        );
        out.extend(
            a.get_short_and_visible_aliases()
                .into_iter()
                .flatten()
                .map(|s| format!("-{s}")),
        );
    }
    for sub in cmd.get_subcommands() {
        collect_value_flags(sub, out);
    }
}

/// The generated script for `shell`, with session ids completed where
/// they are asked for. Shells without a hook here are given back as they
/// were (elvish, PowerShell: static completion only).
pub(crate) fn hook(shell: CompletionShell, cmd: &clap::Command, script: String) -> String {
    let w = wanted(cmd);
    match shell {
        CompletionShell::Bash => bash(&w, script),
        CompletionShell::Zsh => zsh(script),
        CompletionShell::Fish => fish(&w, script),
        CompletionShell::Nushell => nushell(script),
        CompletionShell::Elvish | CompletionShell::Powershell => script,
    }
}

const ID_HELP: &str = "Session id or unique prefix";

fn bash(w: &Wanted, script: String) -> String {
    let script = script.replace("complete -F _claudio ", "complete -F _claudio_ids ");
    format!(
        r#"{script}
# Session ids, from `claudio sessions complete-ids` (the newest that match).
_claudio_ids_wanted() {{
    local i w skip=0 n=0 first= verb=
    case "${{COMP_WORDS[COMP_CWORD-1]}}" in
        -r|--resume) return 0 ;;
    esac
    for (( i = 1; i < COMP_CWORD; i++ )); do
        w="${{COMP_WORDS[i]}}"
        if (( skip )); then skip=0; continue; fi
        case "$w" in
            {flags}) skip=1; continue ;;
            -*) continue ;;
        esac
        n=$(( n + 1 ))
        case $n in
            1) first="$w" ;;
            2) verb="$w" ;;
        esac
    done
    # not the value of a flag
    (( skip )) && return 1
    [[ $n -eq 2 && "$first" == sessions ]] || return 1
    case "$verb" in
        {verbs}) return 0 ;;
    esac
    return 1
}}

_claudio_ids() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}"
    if [[ "$cur" != -* ]] && _claudio_ids_wanted; then
        COMPREPLY=( $(compgen -W "$(claudio sessions complete-ids -- "$cur" 2>/dev/null)" -- "$cur") )
        return 0
    fi
    _claudio "$@"
}}
"#,
        flags = w.value_flags.join("|"),
        verbs = w.verbs.join("|"),
    )
}

fn zsh(script: String) -> String {
    let positional = format!("':id -- {ID_HELP}:_default'");
    let script = script
        .replace(
            &positional,
            &format!("':id -- {ID_HELP}:_claudio_session_ids'"),
        )
        .replace("::ID:_default'", "::ID:_claudio_session_ids'");
    let func = r#"# Session ids, from `claudio sessions complete-ids` (the newest that match),
# each with its title.
(( $+functions[_claudio_session_ids] )) ||
_claudio_session_ids() {
    local -a ids
    local line
    for line in "${(@f)$(claudio sessions complete-ids --describe -- "$PREFIX" 2>/dev/null)}"; do
        [[ -n "$line" ]] && ids+=("${line%%$'\t'*}:${line#*$'\t'}")
    done
    _describe -t session-ids 'session id' ids
}

"#;
    let end = "if [ \"$funcstack[1]\" = \"_claudio\" ]; then";
    match script.rfind(end) {
        Some(at) => format!("{}{func}{}", &script[..at], &script[at..]),
        None => format!("{script}\n{func}"),
    }
}

fn fish(w: &Wanted, script: String) -> String {
    let ids = "-f -a \"(__fish_claudio_session_ids)\"";
    let mut out = String::with_capacity(script.len() + 2048);
    for line in script.lines() {
        out.push_str(line);
        if line.contains(" -l resume ") && line.ends_with(" -r") {
            out.push(' ');
            out.push_str(ids);
        }
        out.push('\n');
        // clap's script parses the words before the cursor with argparse,
        // which fails on a flag still waiting for its value (`claudio -r `):
        // read them again without that flag, so its value is completed
        if line
            .trim_start()
            .starts_with("argparse -s (__fish_claudio_global_optspecs) -- $cmd ")
        {
            out.push_str(
                "    or argparse -s (__fish_claudio_global_optspecs) -- $cmd[1..-2] 2>/dev/null\n",
            );
        }
    }
    let flags: Vec<String> = w.value_flags.iter().map(|f| format!("'{f}'")).collect();
    out.push_str(&format!(
        r#"
# Session ids, from `claudio sessions complete-ids` (the newest that match),
# each with its title.
function __fish_claudio_session_ids
    claudio sessions complete-ids --describe -- (commandline -ct) 2>/dev/null
end

function __fish_claudio_wants_session_id
    set -l n 0
    set -l skip 0
    for w in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case {flags}
                set skip 1
            case '-*'
            case '*'
                set n (math $n + 1)
        end
    end
    test $skip = 0; and test $n -eq 2
end

complete -c claudio -n "__fish_claudio_using_subcommand sessions; and __fish_seen_subcommand_from {verbs}; and __fish_claudio_wants_session_id" {ids}
"#,
        flags = flags.join(" "),
        verbs = w.verbs.join(" "),
    ));
    out
}

fn nushell(script: String) -> String {
    let completer = "@\"nu-complete claudio session-ids\"";
    let mut out = String::with_capacity(script.len() + 1024);
    for line in script.lines() {
        let id = line.starts_with("    id: string") && line.ends_with(&format!("# {ID_HELP}"));
        let resume = line.starts_with("    --resume(-r): string");
        match line.split_once(": string") {
            Some((before, after)) if id || resume => {
                out.push_str(before);
                out.push_str(": string");
                out.push_str(completer);
                out.push_str(after);
            }
            _ => out.push_str(line),
        }
        out.push('\n');
        if line.starts_with("module completions {") {
            out.push_str(
                r#"
  # Session ids, from `claudio sessions complete-ids` (the newest that
  # match), each with its title.
  def "nu-complete claudio session-ids" [context: string] {
    let prefix = ($context | split row " " | last)
    (^claudio sessions complete-ids --describe -- $prefix | complete).stdout
    | lines
    | parse "{value}\t{description}"
  }
"#,
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::{cfg, run_args, store, A, B};
    use super::*;

    fn complete(config: &str, args: &[&str]) -> (String, String) {
        let mut argv = vec!["--config-dir", config, "complete-ids"];
        argv.extend_from_slice(args);
        let dir = tempfile::tempdir().unwrap();
        let r = run_args(&argv, &dir.path().join("tty"), dir.path());
        assert!(r.outcome.is_ok());
        (r.out.text(), r.err.text())
    }

    #[test]
    fn ids_newest_first_that_start_with_the_prefix() {
        let d = store();
        let (out, err) = complete(&cfg(&d), &[]);
        assert_eq!(out, format!("{B}\n{A}\n"));
        assert_eq!(err, "");
        assert_eq!(complete(&cfg(&d), &["aaaab"]).0, format!("{B}\n"));
        // any case, as `resume` takes them
        assert_eq!(complete(&cfg(&d), &["AAAAA"]).0, format!("{A}\n"));
        assert_eq!(complete(&cfg(&d), &["ffff"]).0, "");
        // nothing that is not an id's start
        assert_eq!(complete(&cfg(&d), &["--", "-x"]).0, "");
        assert_eq!(complete(&cfg(&d), &["second"]).0, "");
    }

    /// The title beside each id is one line of inert text: the
    /// transcript's escape sequences are not sent to the terminal.
    #[test]
    fn titles_are_one_inert_line_after_a_tab() {
        let d = store();
        let (out, _) = complete(&cfg(&d), &["--describe"]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [format!("{B}\tsecond session"), format!("{A}\tfix the bug")]
        );
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'));
    }

    #[test]
    fn a_missing_or_unreadable_store_gives_nothing_and_says_nothing() {
        let dir = tempfile::tempdir().unwrap();
        for config in [dir.path().join("none"), dir.path().to_path_buf()] {
            let (out, err) = complete(&config.display().to_string(), &["--describe"]);
            assert_eq!((out.as_str(), err.as_str()), ("", ""));
        }
        // a projects "folder" that is a file
        std::fs::write(dir.path().join("projects"), "x").unwrap();
        let (out, err) = complete(&dir.path().display().to_string(), &[]);
        assert_eq!((out.as_str(), err.as_str()), ("", ""));
    }

    #[test]
    fn at_most_the_cap_newest() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("projects/-p");
        std::fs::create_dir_all(&folder).unwrap();
        let n = MAX_CANDIDATES + 5;
        for i in 0..n {
            let id = format!("00000000-0000-4000-8000-{i:012}");
            let p = folder.join(format!("{id}.jsonl"));
            let line = serde_json::json!({"type":"user","sessionId":id,"cwd":"/p","message":{"role":"user","content":"hi"}});
            std::fs::write(&p, format!("{line}\n")).unwrap();
            let t =
                std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000 + i as u64);
            std::fs::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
        let (out, _) = complete(&dir.path().display().to_string(), &[]);
        let ids: Vec<&str> = out.lines().collect();
        assert_eq!(ids.len(), MAX_CANDIDATES);
        assert_eq!(ids[0], format!("00000000-0000-4000-8000-{:012}", n - 1));
    }
}
