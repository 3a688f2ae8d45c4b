//! Typos caught before they cost a turn: a `/word` that is no command of
//! the chat's nor of the CLI's, and a model name the CLI does not offer.
//! Pure: the CLI's lists (from its `initialize` answer) in, a note out.

use crate::cli::sanitize::Sanitizer;
use crate::cli::term::text::distance;
use claudio::protocol::ModelInfo;

/// `text`, when it is a `/word` that neither the chat (`ours`, with their
/// `/`) nor the CLI knows (its commands and skills, `cli`): what to tell
/// the person, with the nearest name. `None`: it goes to the CLI as typed.
/// A path (`/etc/hosts is odd`) is a prompt, and with no list from the CLI
/// nothing is refused.
pub fn unknown_command<'a>(
    text: &str,
    ours: impl Iterator<Item = &'a str>,
    cli: &[String],
) -> Option<String> {
    let head = text.split_whitespace().next()?;
    let name = head.strip_prefix('/')?;
    let word = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'));
    if !word || cli.is_empty() {
        return None;
    }
    let known: Vec<String> = ours
        .map(|n| n.trim_start_matches('/').to_owned())
        .chain(cli.iter().cloned())
        .collect();
    if known.iter().any(|k| k == name) {
        return None;
    }
    let shown = crate::cli::sanitize::Sanitizer::clean(head);
    Some(match nearest(name, known.iter().map(String::as_str)) {
        Some(n) => format!("unknown command {shown}: did you mean /{n}? (/help lists them)"),
        None => format!("unknown command {shown} (/help lists them)"),
    })
}

/// Whether `name` is a model the CLI offers (`models`: its value, the
/// model it resolves to, or its display name, in any case), or a full
/// model id (`claude-...`). `Err` is what to tell the person. With no list
/// from the CLI, any name goes.
pub fn check_model(name: &str, models: &[ModelInfo]) -> Result<(), UnknownModel> {
    let n = name.trim().to_ascii_lowercase();
    if models.is_empty() || n == "default" || n.starts_with("claude-") {
        return Ok(());
    }
    let names = |m: &ModelInfo| {
        [
            Some(m.value.clone()),
            m.resolved_model.clone(),
            m.display_name.clone(),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
    };
    if models
        .iter()
        .flat_map(names)
        .any(|v| v.to_ascii_lowercase() == n)
    {
        return Ok(());
    }
    let offered: Vec<String> = models.iter().map(|m| m.value.clone()).collect();
    let nearest = nearest(&n, offered.iter().map(String::as_str)).map(str::to_owned);
    Err(UnknownModel {
        name: name.to_owned(),
        offered,
        nearest,
    })
}

/// A model name the CLI does not offer (see [`check_model`]). Its text is
/// shown on the screen: the names in it are cleaned of escapes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no model {} here; the CLI offers {} (or a full model id, claude-…).{}",
    Sanitizer::clean(name),
    Sanitizer::clean(&offered.join(", ")),
    nearest.as_ref().map(|m| format!(" Did you mean {m}?")).unwrap_or_default()
)]
pub struct UnknownModel {
    /// The name as typed.
    pub name: String,
    /// The models the CLI offers (their values).
    pub offered: Vec<String>,
    /// The offered model the name is a typo of, if one is close.
    pub nearest: Option<String>,
}

/// The candidate closest to `word` by edit distance, when it is close
/// enough to be a typo (at most a third of the word, at least 1, at most 3).
fn nearest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).clamp(1, 3);
    candidates
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, c.len()))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OURS: [&str; 4] = ["/copy", "/help", "/?", "/model"];

    fn cli() -> Vec<String> {
        ["compact", "init", "review", "my-skill:run"]
            .map(String::from)
            .to_vec()
    }

    fn unknown_command_t(text: &str, cli: &[String]) -> Option<String> {
        unknown_command(text, OURS.into_iter(), cli)
    }

    #[test]
    fn an_unknown_command_is_caught_with_the_nearest_name() {
        assert_eq!(
            unknown_command_t("/cpy", &cli()).as_deref(),
            Some("unknown command /cpy: did you mean /copy? (/help lists them)")
        );
        assert_eq!(
            unknown_command_t("/compcat now", &cli()).as_deref(),
            Some("unknown command /compcat: did you mean /compact? (/help lists them)")
        );
        assert!(unknown_command_t("/foo", &cli())
            .unwrap()
            .starts_with("unknown command /foo"));
        // the CLI's own commands and skills, the chat's, and prompts go
        for ok in [
            "/compact",
            "/init please",
            "/my-skill:run x",
            "/help",
            "/?",
            "/etc/hosts is odd",
            "/ alone",
            "fix /foo",
        ] {
            assert_eq!(unknown_command_t(ok, &cli()), None, "{ok}");
        }
        // no list from the CLI: nothing is refused
        assert_eq!(unknown_command_t("/foo", &[]), None);
        // the name is shown inert
        let hostile = unknown_command_t("/x\u{1b}]0;t\u{7}", &cli());
        assert_eq!(hostile, None, "not a command word: a prompt");
    }

    #[test]
    fn a_model_is_checked_against_what_the_cli_offers() {
        let models: Vec<ModelInfo> = serde_json::from_value(serde_json::json!([
            {"value":"default","resolvedModel":"claude-opus-5-5","displayName":"Default (Opus 5.5)"},
            {"value":"sonnet","resolvedModel":"claude-sonnet-5","displayName":"Sonnet"},
            {"value":"haiku","displayName":"Haiku"}]))
        .unwrap();
        for ok in [
            "sonnet",
            "Haiku",
            "claude-sonnet-5",
            "claude-opus-9",
            "default",
        ] {
            assert_eq!(check_model(ok, &models), Ok(()), "{ok}");
        }
        let e = check_model("nonsense", &models).unwrap_err();
        assert_eq!(e.nearest, None);
        assert_eq!(e.offered, ["default", "sonnet", "haiku"]);
        let text = e.to_string();
        assert!(
            text.contains("no model nonsense") && text.contains("sonnet, haiku"),
            "{text}"
        );
        let e = check_model("sonet", &models).unwrap_err();
        assert_eq!(e.nearest.as_deref(), Some("sonnet"));
        assert!(e.to_string().ends_with("Did you mean sonnet?"), "{e}");
        // the typed name reaches the screen without its escapes
        let e = check_model("x\x1b]0;t\x07y", &models).unwrap_err();
        assert!(e.to_string().starts_with("no model xy here"), "{e}");
        assert_eq!(check_model("anything", &[]), Ok(()));
    }

    #[test]
    fn edit_distance() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "ab"), 2);
        assert_eq!(distance("copy", "copy"), 0);
    }
}
