//! Closed sets of names the CLI uses, as enums that keep a name this crate
//! does not know (`Other`), so a later CLI still decodes.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vm])* $variant,)*
            /// A name this crate does not know, as the CLI spells it.
            Other(String),
        }

        impl $name {
            /// The CLI's name for it.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $text,)*
                    $name::Other(s) => s,
                }
            }

            /// The value for the CLI's name (unknown names are kept).
            pub fn from_name(name: &str) -> Self {
                match name {
                    $($text => $name::$variant,)*
                    other => $name::Other(other.to_owned()),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Ok($name::from_name(&String::deserialize(d)?))
            }
        }
    };
}

string_enum!(
    /// A hook event ([`Options::hook`](crate::Options::hook)).
    HookEvent {
        /// Before a tool runs (it may allow, deny or ask).
        PreToolUse = "PreToolUse",
        /// After a tool ran.
        PostToolUse = "PostToolUse",
        /// After a tool failed.
        PostToolUseFailure = "PostToolUseFailure",
        /// The CLI notifies the person.
        Notification = "Notification",
        /// A prompt was sent.
        UserPromptSubmit = "UserPromptSubmit",
        /// A session starts.
        SessionStart = "SessionStart",
        /// A session ends.
        SessionEnd = "SessionEnd",
        /// The model stops answering.
        Stop = "Stop",
        /// A sub-agent starts.
        SubagentStart = "SubagentStart",
        /// A sub-agent stops.
        SubagentStop = "SubagentStop",
        /// Before the conversation is compacted.
        PreCompact = "PreCompact",
        /// A permission is asked for.
        PermissionRequest = "PermissionRequest",
    }
);

string_enum!(
    /// What a [`PermissionUpdate`](super::PermissionUpdate) does.
    PermissionUpdateKind {
        /// Add rules.
        AddRules = "addRules",
        /// Replace the rules.
        ReplaceRules = "replaceRules",
        /// Remove rules.
        RemoveRules = "removeRules",
        /// Switch the permission mode.
        SetMode = "setMode",
        /// Allow directories.
        AddDirectories = "addDirectories",
        /// Take directories back.
        RemoveDirectories = "removeDirectories",
    }
);

string_enum!(
    /// Where a [`PermissionUpdate`](super::PermissionUpdate) is kept.
    PermissionDestination {
        /// This session only.
        Session = "session",
        /// `.claude/settings.local.json`.
        LocalSettings = "localSettings",
        /// `.claude/settings.json`.
        ProjectSettings = "projectSettings",
        /// `~/.claude/settings.json`.
        UserSettings = "userSettings",
        /// The command line's flags.
        CliArg = "cliArg",
    }
);

string_enum!(
    /// What a permission rule does.
    RuleBehavior {
        /// Allow without asking.
        Allow = "allow",
        /// Deny without asking.
        Deny = "deny",
        /// Ask.
        Ask = "ask",
    }
);

string_enum!(
    /// How hard the model thinks ([`Options::effort`](crate::Options::effort));
    /// a model lists the levels it takes in
    /// [`ModelInfo::supported_effort_levels`](super::ModelInfo::supported_effort_levels).
    Effort {
        /// Least.
        Low = "low",
        /// The default.
        Medium = "medium",
        /// More.
        High = "high",
        /// More still.
        Xhigh = "xhigh",
        /// Most.
        Max = "max",
    }
);

string_enum!(
    /// A settings file ([`Options::setting_sources`](crate::Options::setting_sources)).
    SettingSource {
        /// `~/.claude/settings.json`.
        User = "user",
        /// `.claude/settings.json`.
        Project = "project",
        /// `.claude/settings.local.json`.
        Local = "local",
    }
);

string_enum!(
    /// Where a prompt sent with a `uuid` is
    /// ([`CommandLifecycle`](super::CommandLifecycle)).
    CommandState {
        /// Taken in; it waits for the running turn, if any.
        Queued = "queued",
        /// Its turn begins (before that turn's `system`/`init`).
        Started = "started",
        /// Its turn ended (right after that turn's `result`).
        Completed = "completed",
    }
);

string_enum!(
    /// How the model's thinking is shown
    /// ([`Thinking`](crate::Thinking), `--thinking-display`).
    ThinkingDisplay {
        /// Summaries of the thinking.
        Summarized = "summarized",
        /// No thinking text.
        Omitted = "omitted",
        /// The highlights.
        Highlights = "highlights",
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_round_trip_and_unknown_ones_are_kept() {
        assert_eq!(HookEvent::from_name("PreToolUse"), HookEvent::PreToolUse);
        assert_eq!(
            serde_json::to_value(HookEvent::SubagentStop).unwrap(),
            json!("SubagentStop")
        );
        let d: PermissionDestination = serde_json::from_value(json!("localSettings")).unwrap();
        assert_eq!(d, PermissionDestination::LocalSettings);
        let k: PermissionUpdateKind = serde_json::from_value(json!("newKind")).unwrap();
        assert_eq!(k, PermissionUpdateKind::Other("newKind".into()));
        assert_eq!(serde_json::to_value(&k).unwrap(), json!("newKind"));
        assert_eq!(RuleBehavior::Ask.to_string(), "ask");
        let c: CommandState = serde_json::from_value(json!("completed")).unwrap();
        assert_eq!(c, CommandState::Completed);
        assert_eq!(
            CommandState::from_name("paused"),
            CommandState::Other("paused".into())
        );
    }
}
