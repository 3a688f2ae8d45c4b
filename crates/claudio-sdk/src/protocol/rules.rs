//! The permission rules in effect, as the CLI lists them
//! (`list_permission_rules`, answered by 2.1.328: probed with
//! `scripts/probe-permissions.py`). The same list the claude TUI's
//! `/permissions` shows: rules from the settings files, this session's
//! approvals, flag rules, each with where it comes from.

use super::names::{RuleBehavior, RuleEditability, RuleSource};
use super::replies::lenient;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The answer to [`Client::permission_rules`](crate::Client::permission_rules).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PermissionRules {
    /// Every rule, in the CLI's order.
    #[serde(default, deserialize_with = "lenient")]
    pub rules: Vec<RuleEntry>,
    /// Folders added to the permission scope, with where each came from.
    #[serde(default, rename = "workspaceDirectories", deserialize_with = "lenient")]
    pub workspace_directories: Vec<Value>,
    /// The session's first working directory.
    #[serde(default, rename = "originalCwd", deserialize_with = "lenient")]
    pub original_cwd: Option<String>,
    /// Managed settings allow their own rules only.
    #[serde(default, rename = "managedOnly", deserialize_with = "lenient")]
    pub managed_only: bool,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One rule, with where it comes from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RuleEntry {
    /// `allow`, `deny` or `ask`.
    #[serde(default, deserialize_with = "lenient")]
    pub behavior: Option<RuleBehavior>,
    /// Where the rule comes from: `userSettings`, `projectSettings`,
    /// `session`, `cliArg`, `policySettings`, ... (a source this crate
    /// does not know is kept as [`RuleSource::Other`], as the CLI spells
    /// it); `None` when the CLI sent none, or not a string.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub source: Option<RuleSource>,
    /// The rule as stored, verbatim (`Bash(npm test *)`). It may hold
    /// control characters: make it inert before showing it.
    #[serde(default, deserialize_with = "lenient")]
    pub rule: String,
    /// The CLI's plain-language reading (`Any Bash command starting with
    /// npm test`).
    #[serde(default, deserialize_with = "lenient")]
    pub description: Option<RuleDescription>,
    /// `persistent` (a settings file), `session` or `readonly` (an unknown
    /// one kept as [`RuleEditability::Other`]); `None` when the CLI sent
    /// none, or not a string.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub editability: Option<RuleEditability>,
    /// Listed, but ignored by this session (managed settings only).
    #[serde(default, rename = "notInEffect", deserialize_with = "lenient")]
    pub not_in_effect: bool,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The CLI's reading of a rule, in parts: `prefix` and `suffix` are fixed
/// words, `emphasis` comes from the rule.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RuleDescription {
    /// The words before the rule's part (`Any Bash command starting with `).
    #[serde(default, deserialize_with = "lenient")]
    pub prefix: String,
    /// The rule's part (`npm test`): inert it before showing it.
    #[serde(default, deserialize_with = "lenient")]
    pub emphasis: Option<String>,
    /// The words after it.
    #[serde(default, deserialize_with = "lenient")]
    pub suffix: Option<String>,
}

impl std::fmt::Display for RuleDescription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let part = |o: &Option<String>| o.clone().unwrap_or_default();
        write!(
            f,
            "{}{}{}",
            self.prefix,
            part(&self.emphasis),
            part(&self.suffix)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_cli_s_answer_decodes_and_odd_parts_lose_nothing() {
        // as 2.1.328 answered after a rule was kept in this project
        let r: PermissionRules = serde_json::from_value(json!({"state": null, "rules": [
            {"behavior":"allow","source":"localSettings","rule":"Bash(touch a *)",
             "description":{"prefix":"Any Bash command starting with ","emphasis":"touch a"},
             "editability":"persistent"},
            {"behavior":"later","source":7,"rule":"Read","editability":"readonly","new":1}],
            "workspaceDirectories":[],"originalCwd":"/w","managedOnly":false}))
        .unwrap();
        assert_eq!(r.rules.len(), 2);
        assert_eq!(r.rules[0].behavior, Some(RuleBehavior::Allow));
        assert_eq!(
            r.rules[0].description.as_ref().unwrap().to_string(),
            "Any Bash command starting with touch a"
        );
        assert_eq!(r.rules[0].source, Some(RuleSource::LocalSettings));
        assert_eq!(r.rules[0].editability, Some(RuleEditability::Persistent));
        assert_eq!(r.rules[1].source, None, "a source of another shape");
        assert_eq!(r.rules[1].editability, Some(RuleEditability::Readonly));
        assert_eq!(r.rules[1].extra["new"], 1);
        assert_eq!(r.original_cwd.as_deref(), Some("/w"));
        assert!(r.extra.contains_key("state"));
    }

    /// Every source and editability 2.1.336 names is typed; one a later CLI
    /// adds is kept as it spells it, and the entry goes back byte for byte.
    #[test]
    fn sources_and_editability_are_typed_and_an_unknown_one_round_trips() {
        for (name, source) in [
            ("userSettings", RuleSource::UserSettings),
            ("projectSettings", RuleSource::ProjectSettings),
            ("localSettings", RuleSource::LocalSettings),
            ("flagSettings", RuleSource::FlagSettings),
            ("policySettings", RuleSource::PolicySettings),
            ("cliArg", RuleSource::CliArg),
            ("command", RuleSource::Command),
            ("session", RuleSource::Session),
            ("mcpMount", RuleSource::McpMount),
            ("toolsNarrowing", RuleSource::ToolsNarrowing),
            ("mcpServerPolicy", RuleSource::McpServerPolicy),
            ("hostCredential", RuleSource::HostCredential),
        ] {
            let e: RuleEntry = serde_json::from_value(json!({"source": name})).unwrap();
            assert_eq!(e.source, Some(source), "{name}");
        }
        for (name, e) in [
            ("persistent", RuleEditability::Persistent),
            ("session", RuleEditability::Session),
            ("readonly", RuleEditability::Readonly),
        ] {
            let r: RuleEntry = serde_json::from_value(json!({"editability": name})).unwrap();
            assert_eq!(r.editability, Some(e), "{name}");
        }
        // every field, in the struct's order: the text itself comes back
        let line = r#"{"behavior":"allow","source":"moonSettings","rule":"Bash(ls)","description":null,"editability":"frozen","notInEffect":false}"#;
        let e: RuleEntry = serde_json::from_str(line).unwrap();
        assert_eq!(e.source, Some(RuleSource::Other("moonSettings".into())));
        assert_eq!(e.editability, Some(RuleEditability::Other("frozen".into())));
        assert_eq!(serde_json::to_string(&e).unwrap(), line);
        assert_eq!(
            serde_json::to_string(&RuleSource::from_name("a\u{7}\"b")).unwrap(),
            r#""a\u0007\"b""#
        );
    }
}
