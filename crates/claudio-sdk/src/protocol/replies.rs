//! What the CLI answers to the host's requests, and the typed parts of its
//! messages that were once raw JSON: usage, per-model usage, permission
//! denials, MCP server states (protocol.md §5, §7, and
//! `docs/cli-2.1.328-observed.md`).
//!
//! Every type is `#[non_exhaustive]` and keeps the fields it does not model
//! in `extra`, so whatever a later CLI adds still decodes. A part that does
//! not have its expected shape never makes the message around it fail: it
//! decodes to its default (see [`lenient`]).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// Decode `T`, or take its default when the JSON has another shape: a typed
/// part of a message must never lose the message.
pub(crate) fn lenient<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned + Default,
{
    let v = Value::deserialize(d)?;
    Ok(T::deserialize(v).unwrap_or_default())
}

/// A permission mode (protocol.md §1). The CLI may know modes this crate
/// does not: they are kept as [`PermissionMode::Other`].
///
/// ```
/// use claudio::PermissionMode;
/// // a name typed by a person is checked; one from the CLI is kept as it is
/// assert_eq!("plan".parse::<PermissionMode>().unwrap(), PermissionMode::Plan);
/// assert!("planning".parse::<PermissionMode>().is_err());
/// assert_eq!(PermissionMode::from_name("later"), PermissionMode::Other("later".into()));
/// assert_eq!(PermissionMode::AcceptEdits.as_str(), "acceptEdits");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum PermissionMode {
    /// Ask before each tool that needs permission.
    #[default]
    Default,
    /// Allow file edits without asking.
    AcceptEdits,
    /// Plan only: no edits until a plan is approved.
    Plan,
    /// Allow everything without asking.
    BypassPermissions,
    /// Deny what is not allowed in advance, without asking.
    DontAsk,
    /// Let the CLI's classifier decide.
    Auto,
    /// A mode this crate does not know, as the CLI spells it.
    Other(String),
}

impl PermissionMode {
    /// The CLI's name for the mode (`acceptEdits`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::Auto => "auto",
            PermissionMode::Other(s) => s,
        }
    }

    /// Every mode the CLI 2.1.328 knows.
    pub const KNOWN: [PermissionMode; 6] = [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Plan,
        PermissionMode::BypassPermissions,
        PermissionMode::DontAsk,
        PermissionMode::Auto,
    ];

    /// The mode after this one in Shift-Tab's cycle, as the claude TUI has
    /// it: `default` → `acceptEdits` → `plan` → `default`. Every other
    /// mode (`bypassPermissions` included: the cycle never enters it) goes
    /// back to `default`.
    ///
    /// ```
    /// use claudio::PermissionMode;
    /// assert_eq!(PermissionMode::Default.next_in_cycle(), PermissionMode::AcceptEdits);
    /// assert_eq!(PermissionMode::Plan.next_in_cycle(), PermissionMode::Default);
    /// ```
    pub fn next_in_cycle(&self) -> PermissionMode {
        match self {
            PermissionMode::Default => PermissionMode::AcceptEdits,
            PermissionMode::AcceptEdits => PermissionMode::Plan,
            _ => PermissionMode::Default,
        }
    }

    /// A mode from the CLI's name for it; unknown names are kept as
    /// [`PermissionMode::Other`].
    pub fn from_name(name: &str) -> PermissionMode {
        name.parse()
            .unwrap_or_else(|_| PermissionMode::Other(name.to_owned()))
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of [`PermissionMode::KNOWN`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMode(pub String);

impl fmt::Display for UnknownMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown permission mode {:?} (known: default, acceptEdits, plan, bypassPermissions, dontAsk, auto)",
            self.0
        )
    }
}

impl std::error::Error for UnknownMode {}

impl FromStr for PermissionMode {
    type Err = UnknownMode;

    /// Exactly the CLI's names (`manual` is the CLI's other name for
    /// `default`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "default" | "manual" => PermissionMode::Default,
            "acceptEdits" => PermissionMode::AcceptEdits,
            "plan" => PermissionMode::Plan,
            "bypassPermissions" => PermissionMode::BypassPermissions,
            "dontAsk" => PermissionMode::DontAsk,
            "auto" => PermissionMode::Auto,
            _ => return Err(UnknownMode(s.to_owned())),
        })
    }
}

impl Serialize for PermissionMode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for PermissionMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(PermissionMode::from_name(&s))
    }
}

macro_rules! reply {
    ($(#[$m:meta])* $name:ident { $($body:tt)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        #[non_exhaustive]
        pub struct $name {
            $($body)*
            /// Fields claudio does not model, kept as sent.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }
    };
}

reply!(
    /// The CLI's answer to `initialize`: what it offers this session
    /// ([`Client::server_info`](crate::Client::server_info)).
    ServerInfo {
        /// Slash commands and skills the session knows.
        #[serde(default, deserialize_with = "lenient")]
        pub commands: Vec<SlashCommand>,
        /// Sub-agents the session can start.
        #[serde(default, deserialize_with = "lenient")]
        pub agents: Vec<AgentInfo>,
        /// Models the account can use.
        #[serde(default, deserialize_with = "lenient")]
        pub models: Vec<ModelInfo>,
        /// Who is signed in, and how.
        #[serde(default, deserialize_with = "lenient")]
        pub account: Option<AccountInfo>,
        /// The output style in use.
        #[serde(default, deserialize_with = "lenient")]
        pub output_style: Option<String>,
        /// Output styles to choose from.
        #[serde(default, deserialize_with = "lenient")]
        pub available_output_styles: Vec<String>,
        /// The CLI's process id.
        #[serde(default, deserialize_with = "lenient")]
        pub pid: Option<u32>,
        /// The CLI's version (`2.1.328`).
        #[serde(default, deserialize_with = "lenient")]
        pub claude_code_version: Option<String>,
        /// The permission mode at the start.
        #[serde(default, deserialize_with = "lenient")]
        pub current_permission_mode: Option<PermissionMode>,
        /// The control protocol's features this CLI has: detect a feature
        /// with [`Capabilities::has`] rather than from the version. Empty
        /// from a CLI that lists none. The list in `system`/`init`
        /// ([`SystemInit::capabilities`](super::SystemInit::capabilities))
        /// is longer: each place lists what concerns it.
        #[serde(default, skip_serializing_if = "Capabilities::is_empty")]
        pub capabilities: Capabilities,
        /// Whether Bash runs in the CLI's sandbox (CLI 2.1.332 and later;
        /// `None` from an older one).
        #[serde(
            default,
            deserialize_with = "lenient",
            skip_serializing_if = "Option::is_none"
        )]
        pub sandbox_enabled: Option<bool>,
    }
);

/// The protocol features a CLI says it has: the `capabilities` of its
/// `initialize` answer ([`ServerInfo::capabilities`]) and of `system`/`init`
/// ([`SystemInit::capabilities`](super::SystemInit::capabilities)), each a
/// list of names such as `mcp_call_soft_error_result_v1`. A set: the order
/// is not kept (it is written sorted), names this crate does not know are
/// kept, and an entry that is not a string is skipped.
///
/// ```
/// use claudio::protocol::Capabilities;
/// use serde_json::json;
/// let caps: Capabilities =
///     serde_json::from_value(json!(["interrupt_receipt_v1", "mcp_call_soft_error_result_v1"]))?;
/// assert!(caps.has("mcp_call_soft_error_result_v1"));
/// assert!(!caps.has("a_later_feature_v1"));
/// // a list from a later CLI, or none at all: still a set
/// let none: Capabilities = serde_json::from_value(json!(null))?;
/// assert!(none.is_empty());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Capabilities(BTreeSet<String>);

impl Capabilities {
    /// Whether the CLI has the feature `name` (e.g.
    /// `ask_user_question_unanswered_v1`).
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) {
    /// if client.server_info().capabilities.has("mcp_call_soft_error_result_v1") {
    ///     // a failed MCP tool comes back as a result with `isError`
    /// }
    /// # }
    /// ```
    pub fn has(&self, name: &str) -> bool {
        self.0.contains(name)
    }

    /// The names, sorted.
    ///
    /// ```
    /// let caps: claudio::protocol::Capabilities = ["b_v1", "a_v1"].into_iter().collect();
    /// assert_eq!(caps.iter().collect::<Vec<_>>(), ["a_v1", "b_v1"]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.0.iter().map(String::as_str)
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none (a CLI that lists none, or an older one).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<S: Into<String>> FromIterator<S> for Capabilities {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        Capabilities(iter.into_iter().map(Into::into).collect())
    }
}

impl<'de> Deserialize<'de> for Capabilities {
    /// Never fails: the strings of a list; anything else is no capability.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Array(items) => items
                .into_iter()
                .filter_map(|v| match v {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect(),
            _ => Capabilities::default(),
        })
    }
}

reply!(
    /// A slash command or skill ([`ServerInfo::commands`]).
    SlashCommand {
        /// Its name, without the `/`.
        #[serde(default)]
        pub name: String,
        /// What it does.
        #[serde(default)]
        pub description: String,
        /// What its arguments look like (may be empty).
        #[serde(default, rename = "argumentHint", deserialize_with = "lenient")]
        pub argument_hint: Option<String>,
    }
);

reply!(
    /// A sub-agent the session can start ([`ServerInfo::agents`]).
    AgentInfo {
        /// Its name (`Explore`, ...).
        #[serde(default)]
        pub name: String,
        /// When to use it.
        #[serde(default)]
        pub description: String,
    }
);

reply!(
    /// A model the account can use ([`ServerInfo::models`]).
    ModelInfo {
        /// What to pass to `set_model` or `Options::model` (`default`, ...).
        #[serde(default)]
        pub value: String,
        /// The model it stands for now (`claude-opus-5-5`).
        #[serde(default, rename = "resolvedModel", deserialize_with = "lenient")]
        pub resolved_model: Option<String>,
        /// Its name for people.
        #[serde(default, rename = "displayName", deserialize_with = "lenient")]
        pub display_name: Option<String>,
        /// What it is good for, and its price.
        #[serde(default, deserialize_with = "lenient")]
        pub description: Option<String>,
        /// Effort levels it accepts (`low` ... `max`).
        #[serde(default, rename = "supportedEffortLevels", deserialize_with = "lenient")]
        pub supported_effort_levels: Vec<String>,
    }
);

reply!(
    /// Who is signed in ([`ServerInfo::account`]).
    AccountInfo {
        /// Where the OAuth token comes from (`none` with an API key).
        #[serde(default, rename = "tokenSource", deserialize_with = "lenient")]
        pub token_source: Option<String>,
        /// Where the API key comes from (`ANTHROPIC_API_KEY`, ...).
        #[serde(default, rename = "apiKeySource", deserialize_with = "lenient")]
        pub api_key_source: Option<String>,
        /// The API provider (`firstParty`, `bedrock`, `vertex`, ...).
        #[serde(default, rename = "apiProvider", deserialize_with = "lenient")]
        pub api_provider: Option<String>,
        /// The account's email, when signed in with one.
        #[serde(default, deserialize_with = "lenient")]
        pub email: Option<String>,
        /// The organization, when there is one.
        #[serde(default, deserialize_with = "lenient")]
        pub organization: Option<String>,
    }
);

reply!(
    /// The answer to [`Client::mcp_status`](crate::Client::mcp_status).
    McpStatus {
        /// Each MCP server and its state.
        #[serde(default, rename = "mcpServers", deserialize_with = "lenient")]
        pub servers: Vec<McpServerStatus>,
    }
);

/// An MCP server and its state (in [`McpStatus`] and in `system/init`).
///
/// The CLI echoes the server's configuration, an http server's `headers`
/// (tokens) included. The data is kept as sent, but `Debug` shows every
/// value under a `headers` or `env` key as `<redacted>` (the keys stay):
///
/// ```
/// use claudio::protocol::McpServerStatus;
/// let s: McpServerStatus = serde_json::from_value(serde_json::json!({
///     "name": "web", "status": "failed", "config": {"type": "http",
///     "url": "https://mcp.example.com", "headers": {"Authorization": "Bearer tok"}}}))?;
/// assert_eq!(s.config.as_ref().unwrap()["headers"]["Authorization"], "Bearer tok");
/// let shown = format!("{s:?}");
/// assert!(shown.contains("Authorization") && !shown.contains("Bearer tok"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpServerStatus {
    /// The server's name.
    #[serde(default)]
    pub name: String,
    /// `connected`, `failed`, `pending`, `needs-auth`, `disabled`, ...
    #[serde(default)]
    pub status: String,
    /// Why it failed, when it did.
    #[serde(default, deserialize_with = "lenient")]
    pub error: Option<String>,
    /// How it is reached (`stdio`, `sdk`, `http`, ...).
    #[serde(default, deserialize_with = "lenient")]
    pub transport: Option<String>,
    /// Where it was configured (`dynamic`, `project`, ...).
    #[serde(default, deserialize_with = "lenient")]
    pub source: Option<String>,
    /// Its configuration, as the CLI holds it (an http server's `headers`
    /// included; `Debug` redacts them).
    #[serde(default)]
    pub config: Option<Value>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl fmt::Debug for McpServerStatus {
    /// As derived, but the values under `headers` and `env` (at any depth
    /// of `config` and `extra`) show as `<redacted>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServerStatus")
            .field("name", &self.name)
            .field("status", &self.status)
            .field("error", &self.error)
            .field("transport", &self.transport)
            .field("source", &self.source)
            .field("config", &self.config.as_ref().map(redact_secrets))
            .field("extra", &redact_secrets(&Value::Object(self.extra.clone())))
            .finish()
    }
}

/// A copy of `v` where every value under a `headers` or `env` key (an MCP
/// server's tokens) is `<redacted>`; the keys are kept.
fn redact_secrets(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let secret = k == "headers" || k == "env";
                    let v = match v {
                        Value::Object(inner) if secret => Value::Object(
                            inner
                                .keys()
                                .map(|name| (name.clone(), Value::from("<redacted>")))
                                .collect(),
                        ),
                        Value::Null => Value::Null,
                        _ if secret => Value::from("<redacted>"),
                        _ => redact_secrets(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact_secrets).collect()),
        other => other.clone(),
    }
}

reply!(
    /// The answer to [`Client::mcp_set_servers`](crate::Client::mcp_set_servers).
    McpSetServers {
        /// Servers that were added.
        #[serde(default, deserialize_with = "lenient")]
        pub added: Vec<String>,
        /// Servers that were removed.
        #[serde(default, deserialize_with = "lenient")]
        pub removed: Vec<String>,
        /// Servers that failed, by name, with why.
        #[serde(default, deserialize_with = "lenient")]
        pub errors: BTreeMap<String, String>,
    }
);

impl McpServerStatus {
    /// Whether the server is up.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// let status = client.mcp_status().await?;
    /// let down: Vec<_> = status.servers.iter().filter(|s| !s.is_connected()).collect();
    /// for s in down {
    ///     eprintln!("{} is {}", s.name, s.status);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn is_connected(&self) -> bool {
        self.status == "connected"
    }

    /// Whether the server is still connecting (`pending`): the state of a
    /// server the CLI starts, right after [`Client::connect`](crate::Client::connect).
    /// [`Client::mcp_wait`](crate::Client::mcp_wait) waits it out.
    pub fn is_pending(&self) -> bool {
        self.status == "pending"
    }
}

reply!(
    /// The answer to [`Client::context_usage`](crate::Client::context_usage):
    /// what fills the context window.
    ContextUsage {
        /// Each category: system prompt, tools, messages, free space, ...
        #[serde(default, deserialize_with = "lenient")]
        pub categories: Vec<ContextCategory>,
        /// Tokens in use.
        #[serde(default, rename = "totalTokens", deserialize_with = "lenient")]
        pub total_tokens: u64,
        /// The window's size.
        #[serde(default, rename = "maxTokens", deserialize_with = "lenient")]
        pub max_tokens: u64,
        /// The share in use, in percent.
        #[serde(default, deserialize_with = "lenient")]
        pub percentage: Option<f64>,
    }
);

reply!(
    /// One category of [`ContextUsage`].
    ContextCategory {
        /// A stable id (`system_prompt`, `messages`, `free_space`, ...).
        #[serde(default, deserialize_with = "lenient")]
        pub id: Option<String>,
        /// Its name for people.
        #[serde(default)]
        pub name: String,
        /// Tokens it takes.
        #[serde(default, deserialize_with = "lenient")]
        pub tokens: u64,
        /// `used`, `deferred`, `buffer` or `free`.
        #[serde(default, deserialize_with = "lenient")]
        pub kind: Option<String>,
    }
);

reply!(
    /// The CLI's answer to [`Client::interrupt`](crate::Client::interrupt).
    Interrupted {
        /// Messages that were queued behind the interrupted turn and are
        /// still waiting (as the CLI lists them).
        #[serde(default, deserialize_with = "lenient")]
        pub still_queued: Vec<Value>,
        /// What a "send now" did ([`Client::send_queued_now`](crate::Client::send_queued_now));
        /// `None` on a plain interrupt.
        #[serde(
            default,
            deserialize_with = "lenient",
            skip_serializing_if = "Option::is_none"
        )]
        pub send_now: Option<super::names::SendNow>,
    }
);

reply!(
    /// The CLI's answer to [`Client::set_model`](crate::Client::set_model).
    ModelSet {
        /// The model now in use (`None`: the default).
        #[serde(default, deserialize_with = "lenient")]
        pub model: Option<String>,
    }
);

reply!(
    /// The CLI's answer to
    /// [`Client::set_permission_mode`](crate::Client::set_permission_mode).
    /// The CLI also sends a `system`/`status` message with `permissionMode`
    /// when the mode changed.
    ModeSet {
        /// The mode now in effect.
        #[serde(default, deserialize_with = "lenient")]
        pub mode: Option<PermissionMode>,
    }
);

reply!(
    /// The answer to [`Client::rewind_files`](crate::Client::rewind_files)
    /// and [`Client::preview_rewind_files`](crate::Client::preview_rewind_files).
    RewindFiles {
        /// Whether the files can go (or went) back.
        #[serde(default, rename = "canRewind", deserialize_with = "lenient")]
        pub can_rewind: bool,
        /// Why not, when they cannot.
        #[serde(default, deserialize_with = "lenient")]
        pub error: Option<String>,
        /// The files that would change (a preview only; absolute paths).
        #[serde(default, rename = "filesChanged", deserialize_with = "lenient")]
        pub files_changed: Vec<PathBuf>,
        /// Lines that would come back (a preview only).
        #[serde(default, deserialize_with = "lenient")]
        pub insertions: Option<u64>,
        /// Lines that would go (a preview only).
        #[serde(default, deserialize_with = "lenient")]
        pub deletions: Option<u64>,
    }
);

reply!(
    /// The answer to [`Client::get_settings`](crate::Client::get_settings):
    /// the settings in force, and the layers they come from.
    Settings {
        /// The merged settings, as the session uses them (`{}` when no
        /// settings source loaded anything).
        #[serde(default, deserialize_with = "lenient")]
        pub effective: Map<String, Value>,
        /// Each layer that loaded, lowest first: `userSettings`,
        /// `projectSettings`, `localSettings`, then `flagSettings` (from
        /// `--settings` and [`Client::apply_flag_settings`](crate::Client::apply_flag_settings)).
        #[serde(default, deserialize_with = "lenient")]
        pub sources: Vec<SettingsLayer>,
        /// What the session runs with now (the model, the effort, ...).
        #[serde(default, deserialize_with = "lenient")]
        pub applied: AppliedSettings,
    }
);

reply!(
    /// One layer of [`Settings::sources`].
    SettingsLayer {
        /// `userSettings`, `projectSettings`, `localSettings`, `flagSettings`, ...
        #[serde(default)]
        pub source: String,
        /// What this layer sets.
        #[serde(default, deserialize_with = "lenient")]
        pub settings: Map<String, Value>,
    }
);

reply!(
    /// What the session runs with ([`Settings::applied`]).
    AppliedSettings {
        /// The model in use (`claude-opus-5-5`).
        #[serde(default, deserialize_with = "lenient")]
        pub model: Option<String>,
        /// The effort level in use; `None` when the model takes none.
        #[serde(default, deserialize_with = "lenient")]
        pub effort: Option<super::names::Effort>,
    }
);

reply!(
    /// The answer to [`Client::mcp_call`](crate::Client::mcp_call): the
    /// MCP server's `tools/call` result.
    McpCallResult {
        /// The result's content: blocks (`text`, `image`, ...; other kinds
        /// are kept as [`ContentBlock::Unknown`](super::ContentBlock::Unknown)),
        /// or a string: the CLI 2.1.328 hands a tool's `structuredContent`
        /// over as its JSON text here (as the model would get it).
        #[serde(default, deserialize_with = "lenient")]
        pub content: super::MessageContent,
        /// Whether the tool reports a failure. Set only by a CLI that lists
        /// `mcp_call_soft_error_result_v1` (2.1.332+); with an older one a
        /// failed tool is [`Error::McpToolFailed`](crate::Error::McpToolFailed).
        #[serde(default, rename = "isError", deserialize_with = "lenient")]
        pub is_error: bool,
        /// The tool's structured result, when it gives one.
        #[serde(default, rename = "structuredContent", skip_serializing_if = "Option::is_none")]
        pub structured_content: Option<Value>,
    }
);

impl McpCallResult {
    /// The text: the string, or the text blocks joined by newlines.
    ///
    /// ```
    /// let r: claudio::protocol::McpCallResult = serde_json::from_value(serde_json::json!(
    ///     {"content": [{"type": "text", "text": "5"}]})).unwrap();
    /// assert_eq!(r.text(), "5");
    /// ```
    pub fn text(&self) -> String {
        self.content.text()
    }
}

reply!(
    /// The answer to [`Client::read_mcp_resource`](crate::Client::read_mcp_resource):
    /// the server's `resources/read` result.
    McpResource {
        /// The resource's parts.
        #[serde(default, deserialize_with = "lenient")]
        pub contents: Vec<McpResourceContents>,
    }
);

reply!(
    /// One part of an [`McpResource`].
    McpResourceContents {
        /// Its `ui://` URI.
        #[serde(default)]
        pub uri: String,
        /// Its media type (`text/html`).
        #[serde(default, rename = "mimeType", deserialize_with = "lenient")]
        pub mime_type: Option<String>,
        /// Its text, for a text part.
        #[serde(default, deserialize_with = "lenient")]
        pub text: Option<String>,
        /// Its bytes in base64, for a binary part.
        #[serde(default, deserialize_with = "lenient")]
        pub blob: Option<String>,
    }
);

reply!(
    /// The answer to [`Client::get_task_output`](crate::Client::get_task_output):
    /// the end of a background shell's (or Monitor's) output.
    TaskOutput {
        /// The last 8 KiB at most, as UTF-8; empty when nothing was written yet.
        #[serde(default, deserialize_with = "lenient")]
        pub output: String,
        /// The size of the whole output.
        #[serde(default, deserialize_with = "lenient")]
        pub total_bytes: u64,
        /// Whether `output` is only the end of it.
        #[serde(default, deserialize_with = "lenient")]
        pub truncated: bool,
    }
);

reply!(
    /// Token usage of a turn ([`ResultMessage::usage`](crate::ResultMessage::usage)).
    Usage {
        /// Input tokens not read from the cache.
        #[serde(default, deserialize_with = "lenient")]
        pub input_tokens: u64,
        /// Output tokens.
        #[serde(default, deserialize_with = "lenient")]
        pub output_tokens: u64,
        /// Input tokens written to the cache.
        #[serde(default, deserialize_with = "lenient")]
        pub cache_creation_input_tokens: u64,
        /// Input tokens read from the cache.
        #[serde(default, deserialize_with = "lenient")]
        pub cache_read_input_tokens: u64,
        /// The service tier (`standard`, ...).
        #[serde(default, deserialize_with = "lenient")]
        pub service_tier: Option<String>,
    }
);

reply!(
    /// One model's share of a session
    /// ([`ResultMessage::model_usage`](crate::ResultMessage::model_usage)).
    ModelUsage {
        /// Input tokens not read from the cache.
        #[serde(default, rename = "inputTokens", deserialize_with = "lenient")]
        pub input_tokens: u64,
        /// Output tokens.
        #[serde(default, rename = "outputTokens", deserialize_with = "lenient")]
        pub output_tokens: u64,
        /// Input tokens read from the cache.
        #[serde(default, rename = "cacheReadInputTokens", deserialize_with = "lenient")]
        pub cache_read_input_tokens: u64,
        /// Input tokens written to the cache.
        #[serde(default, rename = "cacheCreationInputTokens", deserialize_with = "lenient")]
        pub cache_creation_input_tokens: u64,
        /// Web searches made.
        #[serde(default, rename = "webSearchRequests", deserialize_with = "lenient")]
        pub web_search_requests: u64,
        /// What it cost, in US dollars (the CLI's estimate).
        #[serde(default, rename = "costUSD", deserialize_with = "lenient")]
        pub cost_usd: f64,
        /// The model's context window.
        #[serde(default, rename = "contextWindow", deserialize_with = "lenient")]
        pub context_window: Option<u64>,
        /// The most it may write in one answer.
        #[serde(default, rename = "maxOutputTokens", deserialize_with = "lenient")]
        pub max_output_tokens: Option<u64>,
    }
);

/// Per-model usage, by model name.
pub type ModelUsageMap = BTreeMap<String, ModelUsage>;

reply!(
    /// A tool call the person or a rule refused in the turn
    /// ([`ResultMessage::permission_denials`](crate::ResultMessage::permission_denials)).
    PermissionDenial {
        /// The tool.
        #[serde(default)]
        pub tool_name: String,
        /// The call's id.
        #[serde(default)]
        pub tool_use_id: String,
        /// What it was called with.
        #[serde(default)]
        pub tool_input: Value,
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn modes_are_the_cli_s_names_and_unknown_ones_are_kept() {
        for m in PermissionMode::KNOWN {
            assert_eq!(m.as_str().parse::<PermissionMode>().unwrap(), m);
            assert_eq!(serde_json::to_value(&m).unwrap(), json!(m.as_str()));
        }
        assert_eq!(
            "manual".parse::<PermissionMode>().unwrap(),
            PermissionMode::Default
        );
        let err = "acceptedits".parse::<PermissionMode>().unwrap_err();
        assert!(err.to_string().contains("acceptEdits"), "{err}");
        let m: PermissionMode = serde_json::from_value(json!("futureMode")).unwrap();
        assert_eq!(m, PermissionMode::Other("futureMode".into()));
        assert_eq!(m.to_string(), "futureMode");
    }

    #[test]
    fn the_cli_s_real_answers_decode() {
        // trimmed from the real CLI 2.1.328 (docs/cli-2.1.328-observed.md)
        let info: ServerInfo = serde_json::from_value(json!({
            "commands":[{"name":"review","description":"Review a PR","argumentHint":"<pr>","builtin":true}],
            "agents":[{"name":"Explore","description":"Fast read-only search agent"}],
            "models":[{"value":"default","resolvedModel":"claude-opus-5-5","displayName":"Default (recommended)",
                       "supportedEffortLevels":["low","max"],"supportsEffort":true}],
            "account":{"tokenSource":"none","apiKeySource":"ANTHROPIC_API_KEY","apiProvider":"firstParty"},
            "output_style":"default","available_output_styles":["default","Proactive"],
            "pid":28709,"claude_code_version":"2.1.328","current_permission_mode":"default",
            "fast_mode_state":"off"})).unwrap();
        assert_eq!(info.commands[0].argument_hint.as_deref(), Some("<pr>"));
        assert_eq!(info.commands[0].extra["builtin"], true);
        assert_eq!(info.agents[0].name, "Explore");
        assert_eq!(
            info.models[0].resolved_model.as_deref(),
            Some("claude-opus-5-5")
        );
        assert_eq!(info.models[0].supported_effort_levels, ["low", "max"]);
        let account = info.account.as_ref().unwrap();
        assert_eq!(account.api_key_source.as_deref(), Some("ANTHROPIC_API_KEY"));
        assert_eq!(info.pid, Some(28709));
        assert_eq!(info.current_permission_mode, Some(PermissionMode::Default));
        assert_eq!(info.extra["fast_mode_state"], "off");

        let mcp: McpStatus =
            serde_json::from_value(json!({"mcpServers":[{"name":"other","status":"failed",
            "error":"Connection closed","config":{"type":"stdio","command":"/bin/false","args":[]},
            "transport":"stdio","scope":"dynamic","source":"dynamic"}]}))
            .unwrap();
        assert_eq!(mcp.servers[0].error.as_deref(), Some("Connection closed"));
        assert!(!mcp.servers[0].is_connected());
        assert_eq!(mcp.servers[0].extra["scope"], "dynamic");

        let ctx: ContextUsage = serde_json::from_value(json!({"categories":[
            {"id":"system_prompt","name":"System prompt","tokens":1964,"color":"promptBorder","kind":"used"},
            {"id":"free_space","name":"Free space","tokens":953412,"kind":"free"}],
            "totalTokens":13588,"maxTokens":1000000,"percentage":1,"gridRows":[]})).unwrap();
        assert_eq!(ctx.categories[0].tokens, 1964);
        assert_eq!(ctx.categories[1].kind.as_deref(), Some("free"));
        assert_eq!((ctx.total_tokens, ctx.max_tokens), (13588, 1_000_000));
        assert_eq!(ctx.percentage, Some(1.0));

        let dry: RewindFiles = serde_json::from_value(json!({"canRewind":true,
            "filesChanged":["/w/new.txt"],"insertions":1,"deletions":5}))
        .unwrap();
        assert!(dry.can_rewind);
        assert_eq!(dry.files_changed, [PathBuf::from("/w/new.txt")]);
        let no: RewindFiles = serde_json::from_value(
            json!({"canRewind":false,"error":"File rewinding is not enabled."}),
        )
        .unwrap();
        assert_eq!(no.error.as_deref(), Some("File rewinding is not enabled."));
    }

    #[test]
    fn control_answers_decode_and_keep_the_rest() {
        let i: Interrupted =
            serde_json::from_value(json!({"still_queued":[{"uuid":"u"}],"new":1})).unwrap();
        assert_eq!(i.still_queued, vec![json!({"uuid":"u"})]);
        assert_eq!(i.extra["new"], 1);
        // a send-now's answer (2.1.332+), and a later word kept
        let now: Interrupted =
            serde_json::from_value(json!({"still_queued": [], "send_now": "stopped"})).unwrap();
        assert_eq!(now.send_now, Some(crate::protocol::SendNow::Stopped));
        let later: Interrupted = serde_json::from_value(json!({"send_now": "queued_up"})).unwrap();
        assert_eq!(
            later.send_now,
            Some(crate::protocol::SendNow::Other("queued_up".into()))
        );
        let none: Interrupted = serde_json::from_value(json!({})).unwrap();
        assert!(none.still_queued.is_empty());
        let m: ModelSet = serde_json::from_value(json!({"model":"claude-sonnet-4-5"})).unwrap();
        assert_eq!(m.model.as_deref(), Some("claude-sonnet-4-5"));
        let m: ModelSet = serde_json::from_value(json!({"model":null})).unwrap();
        assert_eq!(m.model, None);
        let m: ModeSet = serde_json::from_value(json!({"mode":"plan","x":1})).unwrap();
        assert_eq!(m.mode, Some(PermissionMode::Plan));
        assert_eq!(m.extra["x"], 1);
        // a part of another shape is its default, the answer still decodes
        let m: ModeSet = serde_json::from_value(json!({"mode":5})).unwrap();
        assert_eq!(m.mode, None);
    }

    #[test]
    fn capabilities_and_sandbox_are_typed_from_the_real_answers() {
        // the `initialize` answer of the real CLI 2.1.332 (commands, agents
        // and models trimmed; docs/cli-2.1.328-observed.md, issue 30)
        let line = r#"{"commands":[],"agents":[],"output_style":"default","available_output_styles":["default","Proactive","Concise","Explanatory","Learning"],"models":[],"account":{"tokenSource":"none","apiKeySource":"ANTHROPIC_API_KEY","apiProvider":"firstParty"},"pid":21301,"fast_mode_state":"off","fast_mode_disabled_reason":"sdk_opt_in_required","claude_code_version":"2.1.332","current_permission_mode":"default","hook_on_failure_supported":true,"capabilities":["ui_surface_v1","mcp_call_result_not_for_model_v1","mcp_call_soft_error_result_v1","mcp_call_check_permissions_v1","voice_call_talk_line_v1","ui_pane_widget_v1","reload_plugins_refuse_if_busy_v1","get_usage_detached_v1"],"sandbox_enabled":false,"session_state":"idle"}"#;
        let info: ServerInfo = serde_json::from_str(line).unwrap();
        assert!(info.capabilities.has("mcp_call_soft_error_result_v1"));
        assert!(info.capabilities.has("get_usage_detached_v1"));
        assert!(!info.capabilities.has("ask_user_question_unanswered_v1"));
        assert_eq!(info.capabilities.len(), 8);
        assert_eq!(info.sandbox_enabled, Some(false));
        assert!(!info.extra.contains_key("capabilities"));
        assert!(!info.extra.contains_key("sandbox_enabled"));
        assert_eq!(info.extra["session_state"], "idle");
        // round trip: the same set, written sorted
        let back = serde_json::to_value(&info).unwrap();
        let again: ServerInfo = serde_json::from_value(back.clone()).unwrap();
        assert_eq!(again, info);
        let names: Vec<&str> = back["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert_eq!(back["sandbox_enabled"], false);

        // 2.1.328: fewer capabilities, no sandbox_enabled
        let old: ServerInfo = serde_json::from_value(json!({"claude_code_version":"2.1.328",
            "capabilities":["ui_surface_v1","mcp_call_result_not_for_model_v1","mcp_call_check_permissions_v1",
                "voice_call_talk_line_v1","ui_pane_widget_v1","reload_plugins_refuse_if_busy_v1"]}))
        .unwrap();
        assert!(!old.capabilities.has("mcp_call_soft_error_result_v1"));
        assert_eq!(old.sandbox_enabled, None);
        let back = serde_json::to_value(&old).unwrap();
        assert!(back.get("sandbox_enabled").is_none());
        // none at all: empty, and not written
        let none: ServerInfo = serde_json::from_value(json!({})).unwrap();
        assert!(none.capabilities.is_empty());
        assert!(serde_json::to_value(&none)
            .unwrap()
            .get("capabilities")
            .is_none());
    }

    #[test]
    fn capabilities_keep_unknown_names_and_skip_what_is_no_name() {
        let c: Capabilities =
            serde_json::from_value(json!(["z_later_v9", 7, null, "a_v1", "a_v1"])).unwrap();
        assert_eq!(c.iter().collect::<Vec<_>>(), ["a_v1", "z_later_v9"]);
        let c: Capabilities = serde_json::from_value(json!({"a_v1": true})).unwrap();
        assert!(c.is_empty());
        let i: ServerInfo =
            serde_json::from_value(json!({"capabilities":"x","sandbox_enabled":"yes"})).unwrap();
        assert!(i.capabilities.is_empty());
        assert_eq!(i.sandbox_enabled, None);
        let built: Capabilities = ["b", "a"].into_iter().collect();
        assert_eq!(serde_json::to_value(&built).unwrap(), json!(["a", "b"]));
    }

    #[test]
    fn a_part_of_another_shape_takes_its_default_and_loses_nothing_else() {
        let u: ServerInfo =
            serde_json::from_value(json!({"commands":"not a list","pid":"x","models":[]})).unwrap();
        assert!(u.commands.is_empty());
        assert_eq!(u.pid, None);
        let c: ContextUsage =
            serde_json::from_value(json!({"totalTokens":-1,"maxTokens":10})).unwrap();
        assert_eq!((c.total_tokens, c.max_tokens), (0, 10));
    }

    #[test]
    fn mcp_server_status_debug_redacts_headers_and_env_and_keeps_the_data() {
        // the `mcp_status` answer of the real CLI 2.1.332 for an http server
        // (2.1.328 answers the same), plus an `env` as a stdio server has it
        let line = r#"{"mcpServers":[{"name":"web","status":"failed","error":"ECONNREFUSED: Unable to connect. Is the computer able to access the url?","config":{"type":"http","url":"http://127.0.0.1:9/mcp","headers":{"Authorization":"Bearer tok-HDR-456"}},"transport":"http","scope":"dynamic","source":"dynamic"},{"name":"gh","status":"connected","config":{"type":"stdio","command":"gh-mcp","args":["stdio"],"env":{"GITHUB_TOKEN":"ghp_ENV123"}},"later":{"headers":{"X-Api-Key":"k-EXTRA-789"},"env":"s-PLAIN-000","more":[{"env":["K=s-LIST-111"]}]}}]}"#;
        let status: McpStatus = serde_json::from_str(line).unwrap();
        let shown = format!("{status:?}");
        let pretty = format!("{status:#?}");
        for secret in [
            "tok-HDR-456",
            "ghp_ENV123",
            "k-EXTRA-789",
            "s-PLAIN-000",
            "s-LIST-111",
        ] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
            assert!(!pretty.contains(secret), "{secret} in {pretty}");
        }
        // the names stay, and everything else is shown
        for kept in [
            "Authorization",
            "GITHUB_TOKEN",
            "X-Api-Key",
            "<redacted>",
            "gh-mcp",
            "http://127.0.0.1:9/mcp",
            "ECONNREFUSED",
            "scope",
        ] {
            assert!(shown.contains(kept), "{kept} not in {shown}");
        }
        // the data itself is intact, and goes back out as it came
        let web = &status.servers[0];
        assert_eq!(
            web.config.as_ref().unwrap()["headers"]["Authorization"],
            "Bearer tok-HDR-456"
        );
        assert_eq!(
            status.servers[1].config.as_ref().unwrap()["env"]["GITHUB_TOKEN"],
            "ghp_ENV123"
        );
        assert_eq!(status.servers[1].extra["later"]["env"], "s-PLAIN-000");
        let back = serde_json::to_value(&status).unwrap();
        let sent: Value = serde_json::from_str(line).unwrap();
        assert_eq!(back["mcpServers"][0], sent["mcpServers"][0]);
        assert_eq!(
            back["mcpServers"][1]["config"],
            sent["mcpServers"][1]["config"]
        );
        assert_eq!(
            back["mcpServers"][1]["later"],
            sent["mcpServers"][1]["later"]
        );
        // `system/init` lists its servers with the same type
        let init: super::super::SystemInit = serde_json::from_value(json!({"subtype":"init",
            "mcp_servers":[{"name":"web","status":"pending","config":{"headers":{"A":"Bearer tok-HDR-456"}}}]}))
        .unwrap();
        assert!(!format!("{init:?}").contains("tok-HDR-456"));
    }
}
