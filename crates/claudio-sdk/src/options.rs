//! How to start and talk to the CLI.

use crate::error::HandlerError;
use crate::handlers::{HookMatcher, PermissionHandler, RequestContext};
use crate::mcp::McpServer;
use crate::protocol::{
    CanUseToolRequest, Effort, HookEvent, PermissionMode, PermissionResult, SettingSource,
    ThinkingDisplay,
};
use crate::transport::{PrivateDir, StderrCallback};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The default per-line limit on the CLI's stdout: 256 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 256 * 1024 * 1024;

/// A sub-agent defined by the host (`agents` in `initialize`).
///
/// See [`Options::agent`] for an example.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AgentDefinition {
    /// When to use it.
    pub description: String,
    /// Its system prompt.
    pub prompt: String,
    /// The tools it may use (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Its model (`sonnet`, `opus`, `haiku`, `inherit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Everything about a session: which CLI, its flags, handlers, limits.
///
/// Build with `Options::default()` and the builder methods:
/// ```
/// let options = claudio::Options::default()
///     .model("sonnet")
///     .permission_mode(claudio::PermissionMode::AcceptEdits)
///     .allowed_tools(["Read", "Grep"])
///     .max_turns(3);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct Options {
    /// The `claude` executable; found automatically when `None`.
    pub cli_path: Option<PathBuf>,
    /// The CLI's working directory.
    pub cwd: Option<PathBuf>,
    /// Extra environment for the CLI.
    pub env: BTreeMap<String, String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--permission-mode` (`default`, `acceptEdits`, `plan`, `bypassPermissions`, `dontAsk`, `auto`).
    pub permission_mode: Option<PermissionMode>,
    /// `--allowedTools`.
    pub allowed_tools: Vec<String>,
    /// `--disallowedTools`.
    pub disallowed_tools: Vec<String>,
    /// `--system-prompt`.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt`.
    pub append_system_prompt: Option<String>,
    /// `--max-turns`.
    pub max_turns: Option<u32>,
    /// `--resume=ID`.
    pub resume: Option<String>,
    /// `--continue`.
    pub continue_conversation: bool,
    /// `--fork-session` (with `resume`).
    pub fork_session: bool,
    /// `--include-partial-messages` (token deltas as `stream_event`s).
    pub include_partial_messages: bool,
    /// The main agent's text deltas of one block, written back to back,
    /// come as one `stream_event` (see [`Options::coalesce_text_deltas`]).
    pub coalesce_text_deltas: bool,
    /// The stream events around the deltas carry only what a reader of
    /// the text needs (see [`Options::lean_stream_events`]).
    pub lean_stream_events: bool,
    /// `--add-dir`.
    pub add_dirs: Vec<PathBuf>,
    /// `--fallback-model`: the models to try, in order, when the main one
    /// is overloaded (the CLI says so with a `system`/`model_fallback`).
    pub fallback_models: Vec<String>,
    /// `--effort` (`low`, `medium`, `high`, `xhigh`, `max`).
    pub effort: Option<Effort>,
    /// `--max-thinking-tokens`: the thinking budget, for models that take
    /// one (the adaptive models of 2.1.328 ignore it; see `effort`).
    pub max_thinking_tokens: Option<u32>,
    /// How the model thinks (`--thinking`, or `--max-thinking-tokens` for
    /// a budget); over `max_thinking_tokens` when both are set.
    pub thinking: Option<Thinking>,
    /// `--thinking-display`: how the thinking is shown.
    pub thinking_display: Option<ThinkingDisplay>,
    /// `--max-budget-usd`: the turn ends with `error_max_budget_usd` once
    /// the session has cost this much.
    pub max_budget_usd: Option<f64>,
    /// `--json-schema`: the answer's shape; the CLI hands the model a
    /// `StructuredOutput` tool and puts what it returns in
    /// [`ResultMessage::structured_output`](crate::ResultMessage::structured_output).
    pub json_schema: Option<Value>,
    /// `--setting-sources`: which settings files load (all when empty).
    pub setting_sources: Vec<SettingSource>,
    /// More settings (JSON), over the files' (`--settings`, in a private
    /// file: see [`Options::effective_settings`]).
    pub settings: Option<Value>,
    /// The sandbox for commands, merged into `settings` as `sandbox`.
    pub sandbox: Option<Sandbox>,
    /// `--plugin-dir`: plugins to load from these directories.
    pub plugin_dirs: Vec<PathBuf>,
    /// `--resume-session-at`: resume the history up to this message (its
    /// `uuid`), with `resume`.
    pub resume_session_at: Option<String>,
    /// `--session-id`: the id of a new session (a UUID not used before).
    pub session_id: Option<String>,
    /// `--no-session-persistence` when false: no transcript is written, so
    /// the session cannot be resumed.
    pub persist_session: bool,
    /// `--strict-mcp-config`: only the MCP servers given here load.
    pub strict_mcp_config: bool,
    /// MCP server configurations (JSON text or file paths); JSON text
    /// goes in `initialize` or a private file, never on the command line
    /// (see [`Options::mcp_config`]).
    pub mcp_config: Vec<String>,
    /// Sub-agents, sent in `initialize`.
    pub agents: BTreeMap<String, AgentDefinition>,
    /// Hooks by event (`PreToolUse`, `PostToolUse`, ...), sent in
    /// `initialize`; [`Options::hook`] adds one.
    pub hooks: BTreeMap<HookEvent, Vec<HookMatcher>>,
    /// In-process MCP servers.
    pub mcp_servers: Vec<McpServer>,
    /// Asked before each tool the CLI's rules don't already allow. Without
    /// one, the CLI itself refuses such tools.
    pub can_use_tool: Option<Arc<dyn PermissionHandler>>,
    /// The CLI asks before each tool its rules don't already allow, and
    /// the requests come as [`Event::Request`](crate::Event::Request)s
    /// even without a [`Options::can_use_tool`]
    /// ([`Options::requests_as_events`]).
    pub requests_as_events: bool,
    /// Lets `rewind_files` work (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`).
    pub file_checkpointing: bool,
    /// Longest accepted stdout line, in bytes.
    pub max_line_bytes: usize,
    /// How long to wait for the `initialize` answer.
    pub init_timeout: Duration,
    /// How long to wait for answers to other control requests.
    pub control_timeout: Duration,
    /// Fail a turn when the CLI says nothing for this long (off by default).
    pub inactivity_timeout: Option<Duration>,
    /// How long a graceful close waits at each step (stdin closed → SIGTERM → SIGKILL).
    pub close_grace: Duration,
    /// More CLI arguments, appended as given.
    pub extra_args: Vec<String>,
    /// Sees each stderr line as it arrives.
    pub stderr: Option<StderrCallback>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cli_path: None,
            cwd: None,
            env: BTreeMap::new(),
            model: None,
            permission_mode: None,
            allowed_tools: Vec::new(),
            disallowed_tools: Vec::new(),
            system_prompt: None,
            append_system_prompt: None,
            max_turns: None,
            resume: None,
            continue_conversation: false,
            fork_session: false,
            include_partial_messages: false,
            coalesce_text_deltas: false,
            lean_stream_events: false,
            add_dirs: Vec::new(),
            fallback_models: Vec::new(),
            effort: None,
            max_thinking_tokens: None,
            thinking: None,
            thinking_display: None,
            max_budget_usd: None,
            json_schema: None,
            setting_sources: Vec::new(),
            settings: None,
            sandbox: None,
            plugin_dirs: Vec::new(),
            resume_session_at: None,
            session_id: None,
            persist_session: true,
            strict_mcp_config: false,
            mcp_config: Vec::new(),
            agents: BTreeMap::new(),
            hooks: BTreeMap::new(),
            mcp_servers: Vec::new(),
            can_use_tool: None,
            requests_as_events: false,
            file_checkpointing: false,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            init_timeout: Duration::from_secs(60),
            control_timeout: Duration::from_secs(60),
            inactivity_timeout: None,
            close_grace: Duration::from_secs(5),
            extra_args: Vec::new(),
            stderr: None,
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Environment values may hold secrets: only their names are shown.
        f.debug_struct("Options")
            .field("cli_path", &self.cli_path)
            .field("cwd", &self.cwd)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("model", &self.model)
            .field("permission_mode", &self.permission_mode)
            .field("allowed_tools", &self.allowed_tools)
            .field("disallowed_tools", &self.disallowed_tools)
            .field("max_turns", &self.max_turns)
            .field("resume", &self.resume)
            .field("continue_conversation", &self.continue_conversation)
            .field("fork_session", &self.fork_session)
            .field("include_partial_messages", &self.include_partial_messages)
            .field("coalesce_text_deltas", &self.coalesce_text_deltas)
            .field("lean_stream_events", &self.lean_stream_events)
            .field("fallback_models", &self.fallback_models)
            .field("effort", &self.effort)
            .field("thinking", &self.thinking)
            .field("thinking_display", &self.thinking_display)
            .field("max_budget_usd", &self.max_budget_usd)
            .field("json_schema", &self.json_schema.is_some())
            .field("setting_sources", &self.setting_sources)
            // settings may hold secrets (`env`): only whether there are any
            .field("settings", &self.settings.is_some())
            .field("sandbox", &self.sandbox)
            .field("session_id", &self.session_id)
            .field("persist_session", &self.persist_session)
            .field("strict_mcp_config", &self.strict_mcp_config)
            .field("hooks", &self.hooks)
            .field("mcp_servers", &self.mcp_servers)
            .field("can_use_tool", &self.can_use_tool.is_some())
            .field("requests_as_events", &self.requests_as_events)
            .field("max_line_bytes", &self.max_line_bytes)
            .finish_non_exhaustive()
    }
}

macro_rules! setter {
    ($(#[$doc:meta])* $name:ident: Option<$t:ty>) => {
        $(#[$doc])*
        pub fn $name(mut self, value: impl Into<$t>) -> Self {
            self.$name = Some(value.into());
            self
        }
    };
    ($(#[$doc:meta])* $name:ident: $t:ty) => {
        $(#[$doc])*
        pub fn $name(mut self, value: $t) -> Self {
            self.$name = value;
            self
        }
    };
}

impl Options {
    setter!(
        /// Use this `claude` executable.
        ///
        /// ```
        /// let options = claudio::Options::default().cli_path("/opt/claude/bin/claude");
        /// ```
        cli_path: Option<PathBuf>
    );
    setter!(
        /// Run the CLI in this directory.
        ///
        /// ```
        /// let options = claudio::Options::default().cwd("/home/me/project");
        /// ```
        cwd: Option<PathBuf>
    );
    setter!(
        /// `--model`.
        ///
        /// ```
        /// let options = claudio::Options::default().model("sonnet");
        /// assert!(options.cli_args().contains(&"--model=sonnet".to_owned()));
        /// ```
        model: Option<String>
    );
    setter!(
        /// `--permission-mode`.
        ///
        /// ```
        /// use claudio::{Options, PermissionMode};
        /// let options = Options::default().permission_mode(PermissionMode::AcceptEdits);
        /// ```
        permission_mode: Option<PermissionMode>
    );
    setter!(
        /// `--system-prompt`.
        ///
        /// ```
        /// let options = claudio::Options::default()
        ///     .system_prompt("You are a terse assistant. Answer in one sentence.");
        /// ```
        system_prompt: Option<String>
    );
    setter!(
        /// `--append-system-prompt`.
        ///
        /// ```
        /// // the CLI's own system prompt, and this after it
        /// let options = claudio::Options::default().append_system_prompt("Always run the tests.");
        /// ```
        append_system_prompt: Option<String>
    );
    setter!(
        /// `--resume=ID`.
        ///
        /// ```
        /// // go on in a copy, leaving the original session as it was
        /// let options = claudio::Options::default()
        ///     .resume("0b7d4e8a-9c55-4f0e-8d3c-4b5a3f2a9c1e")
        ///     .fork_session(true);
        /// ```
        resume: Option<String>
    );
    setter!(
        /// `--continue`: the most recent session of the working directory.
        ///
        /// ```
        /// let options = claudio::Options::default()
        ///     .cwd("/home/me/project")
        ///     .continue_conversation(true);
        /// ```
        continue_conversation: bool
    );
    setter!(
        /// `--fork-session`: resume into a new session id.
        ///
        /// See [`Options::resume`] for an example.
        fork_session: bool
    );
    setter!(
        /// Stream token deltas as `stream_event` messages.
        ///
        /// See [`StreamEventMessage::text_delta`](crate::protocol::StreamEventMessage::text_delta)
        /// and the [crate's example](crate) for reading them.
        include_partial_messages: bool
    );
    setter!(
        /// With [`Options::include_partial_messages`]: the main agent's
        /// text deltas of one content block that the CLI wrote back to
        /// back and that are read at once come as one `stream_event`, its
        /// text theirs joined (its other fields the first's), instead of
        /// one message each. For a host that only shows the text: the same
        /// text, in far fewer messages. A run is handed on before anything
        /// the CLI wrote after it, and before the client waits for more
        /// output, so no text waits. Ignored by
        /// [`Client::connect_keeping_raw`](crate::Client::connect_keeping_raw)
        /// (each raw line is its own message).
        ///
        /// ```
        /// let options = claudio::Options::default()
        ///     .include_partial_messages(true)
        ///     .coalesce_text_deltas(true);
        /// ```
        coalesce_text_deltas: bool
    );
    setter!(
        /// With [`Options::include_partial_messages`]: the values of the
        /// stream events around the deltas that a host showing the text
        /// does not read are left out. A `message_start`'s `message` keeps
        /// its `id` alone (when it is an object); a `message_delta`'s
        /// `delta` is null and its `usage` `None`. Every other event and
        /// message is as it was. Each line is still checked as before: a
        /// line that is not JSON is still an error, the same one, and the
        /// values left out are read as far as serde_json's `Value` reads
        /// them, but not built (no allocation for them). The raw lines of
        /// [`Client::connect_keeping_raw`](crate::Client::connect_keeping_raw)
        /// are the CLI's bytes, as always.
        ///
        /// ```
        /// use claudio::protocol::StreamEvent;
        /// let options = claudio::Options::default()
        ///     .include_partial_messages(true)
        ///     .lean_stream_events(true);
        /// assert!(options.lean_stream_events);
        /// // what a `message_start` then carries: its message's id
        /// let lean = StreamEvent::MessageStart {
        ///     message: serde_json::json!({"id": "msg_1"}),
        /// };
        /// assert_eq!(lean.kind(), "message_start");
        /// ```
        lean_stream_events: bool
    );
    setter!(
        /// Enable file checkpoints for `rewind_files`.
        ///
        /// ```
        /// let options = claudio::Options::default().file_checkpointing(true);
        /// ```
        ///
        /// See [`Client::rewind_files`](crate::Client::rewind_files) for a whole session.
        file_checkpointing: bool
    );
    setter!(
        /// Longest accepted stdout line in bytes (default 256 MiB).
        ///
        /// ```
        /// let options = claudio::Options::default().max_line_bytes(16 * 1024 * 1024);
        /// ```
        max_line_bytes: usize
    );
    setter!(
        /// Wait this long for the `initialize` answer (default 60 s).
        ///
        /// See [`Options::inactivity_timeout`] for an example.
        init_timeout: Duration
    );
    setter!(
        /// Wait this long for other control answers (default 60 s).
        ///
        /// See [`Options::inactivity_timeout`] for an example.
        control_timeout: Duration
    );
    setter!(
        /// Grace period of each close step (default 5 s).
        ///
        /// See [`Options::inactivity_timeout`] for an example.
        close_grace: Duration
    );

    /// `--max-turns`.
    ///
    /// ```
    /// // stop after 5 model turns or 50 cents, whichever comes first
    /// let options = claudio::Options::default().max_turns(5).max_budget_usd(0.50);
    /// ```
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// Fail a turn when the CLI is silent this long (not counting time spent
    /// waiting on a permission handler).
    ///
    /// ```
    /// use std::time::Duration;
    /// let options = claudio::Options::default()
    ///     .init_timeout(Duration::from_secs(20))
    ///     .control_timeout(Duration::from_secs(10))
    ///     .close_grace(Duration::from_secs(2))
    ///     .inactivity_timeout(Duration::from_secs(300)); // `Error::InactivityTimeout`
    /// ```
    pub fn inactivity_timeout(mut self, timeout: Duration) -> Self {
        self.inactivity_timeout = Some(timeout);
        self
    }

    /// Set one environment variable for the CLI.
    ///
    /// ```
    /// let options = claudio::Options::default()
    ///     .env("ANTHROPIC_BASE_URL", "http://localhost:8080")
    ///     .env("DISABLE_TELEMETRY", "1");
    /// assert_eq!(options.env["DISABLE_TELEMETRY"], "1");
    /// // `Debug` shows the names only: values may be secrets
    /// assert!(!format!("{options:?}").contains("localhost"));
    /// ```
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// `--allowedTools`.
    ///
    /// ```
    /// // rules, as in the settings files: a tool, or a tool narrowed
    /// let options = claudio::Options::default()
    ///     .allowed_tools(["Read", "Grep", "Bash(git diff:*)"])
    ///     .disallowed_tools(["WebFetch"]);
    /// ```
    pub fn allowed_tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.allowed_tools.extend(tools.into_iter().map(Into::into));
        self
    }

    /// `--disallowedTools`.
    ///
    /// See [`Options::allowed_tools`] for an example.
    pub fn disallowed_tools<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        tools: I,
    ) -> Self {
        self.disallowed_tools
            .extend(tools.into_iter().map(Into::into));
        self
    }

    /// `--fallback-model`: try these models, in order, when the main one is
    /// overloaded.
    ///
    /// ```
    /// let options = claudio::Options::default()
    ///     .model("claude-opus-4-5")
    ///     .fallback_models(["claude-sonnet-4-5", "claude-haiku-4-5"]);
    /// let flag = "--fallback-model=claude-sonnet-4-5,claude-haiku-4-5";
    /// assert!(options.cli_args().contains(&flag.to_owned()));
    /// ```
    pub fn fallback_models<I, S>(mut self, models: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.fallback_models = models.into_iter().map(Into::into).collect();
        self
    }

    /// `--effort`: how hard the model thinks.
    ///
    /// ```
    /// use claudio::{protocol::Effort, Options};
    /// let options = Options::default().model("opus").effort(Effort::High);
    /// assert!(options.cli_args().contains(&"--effort=high".to_owned()));
    /// ```
    pub fn effort(mut self, effort: Effort) -> Self {
        self.effort = Some(effort);
        self
    }

    /// `--max-thinking-tokens`: the thinking budget (budget models only).
    ///
    /// ```
    /// let options = claudio::Options::default().max_thinking_tokens(8_000);
    /// ```
    pub fn max_thinking_tokens(mut self, tokens: u32) -> Self {
        self.max_thinking_tokens = Some(tokens);
        self
    }

    /// How the model thinks, as the TypeScript SDK's `thinking` option
    /// maps it: [`Thinking::Enabled`] gives a budget
    /// (`--max-thinking-tokens`), [`Thinking::Adaptive`] lets the model
    /// decide (`--thinking=adaptive`), [`Thinking::Disabled`] turns it off
    /// (`--thinking=disabled`). The CLI 2.1.328 applies a budget and
    /// `Disabled` only to models that take them (e.g. `claude-sonnet-4-5`:
    /// `"thinking":{"type":"enabled","budget_tokens":N}` /
    /// `{"type":"disabled"}` in its requests); its own models think
    /// adaptively whatever is set here: [`Options::effort`] is their knob.
    ///
    /// ```
    /// use claudio::{Options, Thinking};
    /// let options = Options::default()
    ///     .model("claude-sonnet-4-5")
    ///     .thinking(Thinking::Enabled { budget_tokens: 5_000 });
    /// assert!(options.cli_args().contains(&"--max-thinking-tokens=5000".to_owned()));
    /// let off = Options::default().thinking(Thinking::Disabled);
    /// assert!(off.cli_args().contains(&"--thinking=disabled".to_owned()));
    /// ```
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.thinking = Some(thinking);
        self
    }

    /// `--thinking-display`: how the model's thinking is shown
    /// (`summarized`, `omitted`, `highlights`); the CLI 2.1.328 sends it as
    /// the request's `thinking.display`.
    ///
    /// ```
    /// use claudio::{protocol::ThinkingDisplay, Options};
    /// let options = Options::default().thinking_display(ThinkingDisplay::Summarized);
    /// assert!(options.cli_args().contains(&"--thinking-display=summarized".to_owned()));
    /// ```
    pub fn thinking_display(mut self, display: ThinkingDisplay) -> Self {
        self.thinking_display = Some(display);
        self
    }

    /// Run commands in a sandbox (the CLI's `sandbox` settings, merged into
    /// [`Options::settings`], which must then be a JSON object: keys set
    /// here replace the same keys there).
    /// As in the TypeScript SDK, a sandbox that is
    /// [`enabled`](Sandbox::enabled) fails when it cannot run
    /// (`failIfUnavailable`, on unless set), rather than run commands
    /// unsandboxed: the CLI 2.1.328 then exits with 1 before it answers
    /// `initialize`, so [`Client::connect`](crate::Client::connect) fails
    /// with [`Error::ProcessExited`](crate::Error::ProcessExited), its
    /// stderr saying "sandbox required but unavailable" (on Linux the
    /// sandbox needs bubblewrap and socat).
    ///
    /// ```
    /// use claudio::{Options, Sandbox};
    /// let options = Options::default().sandbox(
    ///     Sandbox::enabled()
    ///         .auto_allow_bash(true)
    ///         .allowed_domains(["github.com"]),
    /// );
    /// let v = options.effective_settings().unwrap();
    /// assert_eq!(v["sandbox"]["failIfUnavailable"], true);
    /// assert_eq!(v["sandbox"]["network"]["allowedDomains"][0], "github.com");
    /// ```
    pub fn sandbox(mut self, sandbox: Sandbox) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// The settings the CLI gets: [`Options::settings`] with the
    /// [sandbox](Options::sandbox) merged in. They may hold secrets (`env`,
    /// `apiKeyHelper`), so [`Client::connect`](crate::Client::connect)
    /// passes them in a private file (mode 0600, removed once the CLI has
    /// ended) named with `--settings=PATH`, never on the command line.
    ///
    /// ```
    /// use claudio::{Options, Sandbox};
    /// use serde_json::json;
    /// let options = Options::default()
    ///     .settings(json!({"env": {"API_TOKEN": "s3cret"}}))
    ///     .sandbox(Sandbox::enabled());
    /// let settings = options.effective_settings().unwrap();
    /// assert_eq!(settings["env"]["API_TOKEN"], "s3cret");
    /// assert_eq!(settings["sandbox"]["enabled"], true);
    /// assert!(!options.cli_args().iter().any(|a| a.contains("s3cret")));
    /// ```
    pub fn effective_settings(&self) -> Option<Value> {
        let Some(sandbox) = &self.sandbox else {
            return self.settings.clone();
        };
        let mut settings = match &self.settings {
            Some(Value::Object(m)) => m.clone(),
            None => Map::new(),
            Some(other) => {
                // the TypeScript SDK refuses this too: nothing to merge into
                tracing::warn!(settings = %other, "`settings` is not a JSON object; the sandbox replaces it");
                Map::new()
            }
        };
        let mut merged = match settings.remove("sandbox") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        if let Ok(Value::Object(mine)) = serde_json::to_value(sandbox) {
            merged.extend(mine);
        }
        if sandbox.enabled == Some(true) && !merged.contains_key("failIfUnavailable") {
            merged.insert("failIfUnavailable".into(), Value::Bool(true));
        }
        settings.insert("sandbox".into(), Value::Object(merged));
        Some(Value::Object(settings))
    }

    /// `--max-budget-usd`: stop once the session has cost this much.
    ///
    /// See [`Options::max_turns`] for an example.
    pub fn max_budget_usd(mut self, usd: f64) -> Self {
        self.max_budget_usd = Some(usd);
        self
    }

    /// `--json-schema`: the answer comes back in this shape, in
    /// [`ResultMessage::structured_output`](crate::ResultMessage::structured_output).
    ///
    /// ```no_run
    /// # async fn demo() -> claudio::Result<()> {
    /// use claudio::{Client, Options};
    /// use serde_json::json;
    /// let schema = json!({"type": "object",
    ///                     "properties": {"answer": {"type": "integer"}},
    ///                     "required": ["answer"]});
    /// let client = Client::connect(Options::default().json_schema(schema)).await?;
    /// let turn = client.turn("What is 6 × 7?").await?;
    /// let answer = turn.result.structured_output.as_ref().and_then(|v| v["answer"].as_i64());
    /// assert_eq!(answer, Some(42));
    /// # Ok(()) }
    /// ```
    pub fn json_schema(mut self, schema: Value) -> Self {
        self.json_schema = Some(schema);
        self
    }

    /// `--setting-sources`: load only these settings files.
    ///
    /// ```
    /// use claudio::{protocol::SettingSource, Options};
    /// // the project's shared settings only: not the user's, not `.local`
    /// let options = Options::default().setting_sources([SettingSource::Project]);
    /// assert!(options.cli_args().contains(&"--setting-sources=project".to_owned()));
    /// ```
    pub fn setting_sources(mut self, sources: impl IntoIterator<Item = SettingSource>) -> Self {
        self.setting_sources = sources.into_iter().collect();
        self
    }

    /// `--settings`: settings (JSON) over the files'. A sandbox has its
    /// own option, [`Options::sandbox`], merged into these. They reach the
    /// CLI in a private file, never on its command line (see
    /// [`Options::effective_settings`]).
    ///
    /// ```
    /// use serde_json::json;
    /// let options = claudio::Options::default().settings(json!({
    ///     "permissions": {"deny": ["Bash(curl:*)"]},
    /// }));
    /// ```
    pub fn settings(mut self, settings: Value) -> Self {
        self.settings = Some(settings);
        self
    }

    /// `--plugin-dir`: load plugins from this directory (repeatable).
    ///
    /// ```
    /// let options = claudio::Options::default().plugin_dir("./plugins/review");
    /// ```
    pub fn plugin_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.plugin_dirs.push(dir.into());
        self
    }

    /// `--resume-session-at`: resume `resume`'s history up to this message.
    ///
    /// ```
    /// // the session as it was at that message, in a new session
    /// let options = claudio::Options::default()
    ///     .resume("0b7d4e8a-9c55-4f0e-8d3c-4b5a3f2a9c1e")
    ///     .resume_session_at("5d41c6f2-3b7e-4a8d-9f10-2c3b4d5e6f70")
    ///     .fork_session(true);
    /// ```
    pub fn resume_session_at(mut self, message_uuid: impl Into<String>) -> Self {
        self.resume_session_at = Some(message_uuid.into());
        self
    }

    /// `--session-id`: the new session's id (a UUID not used before).
    ///
    /// ```
    /// let id = claudio::store::new_uuid();
    /// let options = claudio::Options::default().session_id(&id);
    /// // its transcript is `<id>.jsonl`: `Store::find(&id)` finds it later
    /// assert!(options.cli_args().contains(&format!("--session-id={id}")));
    /// ```
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// `false`: write no transcript (`--no-session-persistence`).
    ///
    /// ```
    /// // a throwaway session: nothing is written under ~/.claude/projects
    /// let options = claudio::Options::default().persist_session(false);
    /// assert!(options.cli_args().contains(&"--no-session-persistence".to_owned()));
    /// ```
    pub fn persist_session(mut self, persist: bool) -> Self {
        self.persist_session = persist;
        self
    }

    /// `--strict-mcp-config`: only the MCP servers given to these options.
    ///
    /// See [`Options::mcp_config`] for an example.
    pub fn strict_mcp_config(mut self, strict: bool) -> Self {
        self.strict_mcp_config = strict;
        self
    }

    /// `--add-dir`.
    ///
    /// ```
    /// // tools may also reach the shared library next door
    /// let options = claudio::Options::default().cwd("/src/app").add_dir("/src/shared");
    /// ```
    pub fn add_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.add_dirs.push(dir.into());
        self
    }

    /// MCP servers for the CLI to run: JSON text (`{"mcpServers": {...}}`)
    /// or a file's path, as `--mcp-config` takes them; may be given several
    /// times.
    ///
    /// A stdio server's `env` and an http server's `headers` usually hold
    /// tokens, and every local user can read a process's command line
    /// (`/proc/PID/cmdline`). So JSON text never goes on the CLI's command
    /// line; [`Client::connect`](crate::Client::connect) hands it over
    /// this way:
    /// - `{"mcpServers": {...}}` goes in the `initialize` request
    ///   (`mcpServers`, the CLI started with `--await-initialize`), as the
    ///   TypeScript SDK sends it. The CLI says whether it loaded them
    ///   (`mcp_servers_applied`); the CLI 2.1.326 and later does.
    /// - When it did not (an older CLI refuses `--await-initialize` and
    ///   exits; a missing `mcp_servers_applied` counts as not loaded), that
    ///   process is stopped and the CLI started again with the text in a
    ///   private file: mode 0600, created exclusively in a new mode-0700
    ///   directory (under `$XDG_RUNTIME_DIR`, else the temporary
    ///   directory), named with `--mcp-config=PATH`, and removed once the
    ///   CLI has ended.
    /// - Other JSON text (keys beside `mcpServers`, an in-process `sdk`
    ///   server, text that does not parse) always goes in such a file.
    ///
    /// A path is passed as given. The servers start `pending` and connect
    /// soon after `connect` returns: [`Client::mcp_status`](crate::Client::mcp_status)
    /// tells, and [`Client::mcp_wait`](crate::Client::mcp_wait) waits until
    /// none is `pending`. Secrets put in [`Options::extra_arg`] stay the caller's
    /// business.
    ///
    /// ```
    /// use serde_json::json;
    /// let config = json!({"mcpServers": {"github": {
    ///     "command": "github-mcp-server", "args": ["stdio"],
    ///     "env": {"GITHUB_TOKEN": "ghp_…"}}}});
    /// let options = claudio::Options::default()
    ///     .mcp_config(config.to_string())
    ///     .strict_mcp_config(true); // and none from the settings files
    /// // the token is in no argument
    /// assert!(!options.cli_args().iter().any(|a| a.contains("ghp_")));
    /// ```
    pub fn mcp_config(mut self, config: impl Into<String>) -> Self {
        self.mcp_config.push(config.into());
        self
    }

    /// Define a sub-agent.
    ///
    /// ```
    /// use claudio::{AgentDefinition, Options};
    /// let reviewer = AgentDefinition {
    ///     description: "Reviews a change for bugs".into(),
    ///     prompt: "You are a careful code reviewer. Report bugs only.".into(),
    ///     tools: Some(vec!["Read".into(), "Grep".into()]),
    ///     model: Some("sonnet".into()),
    /// };
    /// let options = Options::default().agent("reviewer", reviewer);
    /// ```
    pub fn agent(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        self.agents.insert(name.into(), agent);
        self
    }

    /// Register hooks for an event (`PreToolUse`, `PostToolUse`, `UserPromptSubmit`, ...).
    ///
    /// A hook that keeps what it saw (cloned into each call) and refuses one
    /// kind of command:
    ///
    /// ```
    /// use claudio::{HookEvent, HookMatcher, HookOutput, Options};
    /// use std::sync::{Arc, Mutex};
    /// let commands = Arc::new(Mutex::new(Vec::new()));
    /// let seen = commands.clone();
    /// let guard = HookMatcher::new(Some("Bash"), move |req, _ctx| {
    ///     let seen = seen.clone();
    ///     async move {
    ///         let command = req.input["tool_input"]["command"].as_str();
    ///         let command = command.unwrap_or("").to_owned();
    ///         seen.lock().unwrap().push(command.clone());
    ///         Ok(if command.starts_with("rm ") {
    ///             HookOutput::deny_tool("nothing is deleted in this session")
    ///         } else {
    ///             HookOutput::proceed()
    ///         })
    ///     }
    /// });
    /// let options = Options::default().hook(HookEvent::PreToolUse, guard);
    /// // once sessions ran with it:
    /// println!("commands: {:?}", commands.lock().unwrap());
    /// ```
    pub fn hook(mut self, event: HookEvent, matcher: HookMatcher) -> Self {
        self.hooks.entry(event).or_default().push(matcher);
        self
    }

    /// Serve an in-process MCP server; its tools are `mcp__NAME__TOOL`.
    ///
    /// ```
    /// use claudio::{McpServer, McpTool, Options, ToolOutput};
    /// use serde_json::json;
    /// let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    /// let shout = McpTool::new("shout", "Upper-case a text", schema, |args| async move {
    ///     let text = args["text"].as_str().unwrap_or("");
    ///     Ok(ToolOutput::text(text.to_uppercase()))
    /// });
    /// let options = Options::default()
    ///     .mcp_server(McpServer::new("words").tool(shout))
    ///     .allowed_tools(["mcp__words__shout"]); // no permission asked for it
    /// ```
    pub fn mcp_server(mut self, server: McpServer) -> Self {
        self.mcp_servers.push(server);
        self
    }

    /// Ask `handler` before tools run (the CLI is started with
    /// `--permission-prompt-tool stdio`).
    ///
    /// The handler is called once per request, so what it shares (here a log
    /// of the tools asked for) is cloned into each call:
    ///
    /// ```
    /// use claudio::{Options, PermissionResult};
    /// use std::sync::{Arc, Mutex};
    /// let log = Arc::new(Mutex::new(Vec::new()));
    /// let seen = log.clone();
    /// let options = Options::default().can_use_tool(move |req, _ctx| {
    ///     let seen = seen.clone();
    ///     async move {
    ///         seen.lock().unwrap().push(req.tool_name.clone());
    ///         Ok(match req.tool_name.as_str() {
    ///             "Read" | "Grep" => PermissionResult::allow(),
    ///             _ => PermissionResult::deny("this session only reads"),
    ///         })
    ///     }
    /// });
    /// // once sessions ran with it:
    /// println!("tools asked for: {:?}", log.lock().unwrap());
    /// ```
    pub fn can_use_tool<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CanUseToolRequest, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<PermissionResult, HandlerError>> + Send + 'static,
    {
        self.can_use_tool = Some(Arc::new(handler));
        self
    }

    /// Same as [`Options::can_use_tool`], with any [`PermissionHandler`].
    ///
    /// ```
    /// use claudio::{
    ///     BoxFuture, CanUseToolRequest, HandlerError, Options, PermissionHandler,
    ///     PermissionResult, RequestContext,
    /// };
    /// use std::sync::Arc;
    /// struct ReadOnly;
    /// impl PermissionHandler for ReadOnly {
    ///     fn can_use_tool(
    ///         &self,
    ///         req: CanUseToolRequest,
    ///         _ctx: RequestContext,
    ///     ) -> BoxFuture<Result<PermissionResult, HandlerError>> {
    ///         let answer = match req.tool_name.as_str() {
    ///             "Read" | "Grep" => PermissionResult::allow(),
    ///             _ => PermissionResult::deny("this session only reads"),
    ///         };
    ///         Box::pin(async move { Ok(answer) })
    ///     }
    /// }
    /// let options = Options::default().can_use_tool_arc(Arc::new(ReadOnly));
    /// ```
    pub fn can_use_tool_arc(mut self, handler: Arc<dyn PermissionHandler>) -> Self {
        self.can_use_tool = Some(handler);
        self
    }

    /// Have the CLI ask before each tool its rules don't already allow
    /// (`--permission-prompt-tool stdio`, as [`Options::can_use_tool`]
    /// does), without a callback: each request comes as an
    /// [`Event::Request`](crate::Event::Request) in
    /// [`Client::events`](crate::Client::events), to be answered through
    /// its [`Responder`](crate::Responder).
    ///
    /// A request no one answers is never allowed: a reader of
    /// [`Client::next_message`](crate::Client::next_message) (or
    /// [`Client::turn`](crate::Client::turn)) passes it over, and a request
    /// whose every handle is dropped unanswered is denied ("no one answered
    /// the permission request"), so the CLI never waits forever. Without
    /// this (and without a callback) the CLI refuses such tools itself.
    ///
    /// ```no_run
    /// # async fn demo() -> claudio::Result<()> {
    /// use claudio::{Client, Event, Options, PermissionResult, StreamExt};
    /// let client = Client::connect(Options::default().requests_as_events(true)).await?;
    /// client.send("Run the tests").await?;
    /// let mut events = client.events();
    /// while let Some(event) = events.next().await {
    ///     match event? {
    ///         Event::Request(req) => {
    ///             let ok = req.can_use_tool().is_some_and(|t| t.tool_name == "Bash");
    ///             let answer = if ok {
    ///                 PermissionResult::allow()
    ///             } else {
    ///                 PermissionResult::deny("only Bash here")
    ///             };
    ///             let _ = req.responder().answer(answer).await;
    ///         }
    ///         Event::TurnEnded => break,
    ///         _ => {}
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn requests_as_events(mut self, on: bool) -> Self {
        self.requests_as_events = on;
        self
    }

    /// More CLI arguments, appended as given. They are on the command line,
    /// which every local user can read: no secrets in them (settings and
    /// MCP servers have their own options, which keep secrets off it).
    ///
    /// ```
    /// let options = claudio::Options::default().extra_arg("--debug");
    /// assert_eq!(options.cli_args().last().map(String::as_str), Some("--debug"));
    /// ```
    pub fn extra_arg(mut self, arg: impl Into<String>) -> Self {
        self.extra_args.push(arg.into());
        self
    }

    /// See each stderr line of the CLI as it arrives.
    ///
    /// ```
    /// let options = claudio::Options::default()
    ///     .extra_arg("--debug")
    ///     .on_stderr(|line| eprintln!("[claude] {line}"));
    /// ```
    pub fn on_stderr(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.stderr = Some(Arc::new(callback));
        self
    }

    /// The CLI's argv (without the program), but for what may hold
    /// secrets: the settings ([`Options::settings`], with the sandbox) and
    /// MCP server configurations given as JSON ([`Options::mcp_config`]).
    /// Every local user can read a process's command line
    /// (`/proc/PID/cmdline`), so [`Client::connect`](crate::Client::connect)
    /// hands those over in the `initialize` request (adding
    /// `--await-initialize`) or in private files (adding `--settings=PATH`
    /// and `--mcp-config=PATH`), never on the command line.
    ///
    /// ```
    /// let args = claudio::Options::default().model("sonnet").max_turns(2).cli_args();
    /// assert_eq!(&args[..2], ["--output-format", "stream-json"]);
    /// assert!(args.contains(&"--model=sonnet".to_owned()));
    /// assert!(args.contains(&"--max-turns=2".to_owned()));
    /// ```
    pub fn cli_args(&self) -> Vec<String> {
        let mut a = self.base_args();
        a.extend(self.extra_args.iter().cloned());
        a
    }

    /// The argv without `extra_args` and without what may hold secrets.
    fn base_args(&self) -> Vec<String> {
        let mut a: Vec<String> = [
            "--output-format",
            "stream-json",
            "--input-format",
            "stream-json",
            "--verbose",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if self.include_partial_messages {
            a.push("--include-partial-messages".into());
        }
        if self.can_use_tool.is_some() || self.requests_as_events {
            a.extend(["--permission-prompt-tool".into(), "stdio".into()]);
        }
        // Values that may start with `-` go in `--flag=value` form.
        let mut kv = |flag: &str, v: &Option<String>| {
            if let Some(v) = v {
                a.push(format!("--{flag}={v}"));
            }
        };
        kv("model", &self.model);
        kv(
            "permission-mode",
            &self.permission_mode.as_ref().map(|m| m.to_string()),
        );
        kv("system-prompt", &self.system_prompt);
        kv("append-system-prompt", &self.append_system_prompt);
        kv("resume", &self.resume);
        if self.fork_session {
            a.push("--fork-session".into());
        }
        if self.continue_conversation {
            a.push("--continue".into());
        }
        if let Some(n) = self.max_turns {
            a.push(format!("--max-turns={n}"));
        }
        if !self.allowed_tools.is_empty() {
            a.push(format!("--allowedTools={}", self.allowed_tools.join(",")));
        }
        if !self.disallowed_tools.is_empty() {
            a.push(format!(
                "--disallowedTools={}",
                self.disallowed_tools.join(",")
            ));
        }
        for d in &self.add_dirs {
            a.push(format!("--add-dir={}", d.display()));
        }
        if !self.fallback_models.is_empty() {
            a.push(format!(
                "--fallback-model={}",
                self.fallback_models.join(",")
            ));
        }
        if let Some(e) = &self.effort {
            a.push(format!("--effort={e}"));
        }
        match (&self.thinking, self.max_thinking_tokens) {
            (Some(Thinking::Enabled { budget_tokens }), _) => {
                a.push(format!("--max-thinking-tokens={budget_tokens}"))
            }
            (Some(Thinking::Adaptive), _) => a.push("--thinking=adaptive".into()),
            (Some(Thinking::Disabled), _) => a.push("--thinking=disabled".into()),
            (None, Some(n)) => a.push(format!("--max-thinking-tokens={n}")),
            (None, None) => {}
        }
        if let Some(d) = &self.thinking_display {
            a.push(format!("--thinking-display={d}"));
        }
        if let Some(usd) = self.max_budget_usd {
            a.push(format!("--max-budget-usd={usd}"));
        }
        if let Some(schema) = &self.json_schema {
            a.push(format!("--json-schema={schema}"));
        }
        if !self.setting_sources.is_empty() {
            let names: Vec<&str> = self.setting_sources.iter().map(|s| s.as_str()).collect();
            a.push(format!("--setting-sources={}", names.join(",")));
        }
        for d in &self.plugin_dirs {
            a.push(format!("--plugin-dir={}", d.display()));
        }
        if let Some(at) = &self.resume_session_at {
            a.push(format!("--resume-session-at={at}"));
        }
        if let Some(id) = &self.session_id {
            a.push(format!("--session-id={id}"));
        }
        if !self.persist_session {
            a.push("--no-session-persistence".into());
        }
        if self.strict_mcp_config {
            a.push("--strict-mcp-config".into());
        }
        for c in &self.mcp_config {
            if let McpConfig::Path(path) = McpConfig::of(c) {
                a.push(format!("--mcp-config={path}"));
            }
        }
        if !self.mcp_servers.is_empty() {
            // in-process servers: names only, nothing secret
            let servers: Map<String, Value> = self
                .mcp_servers
                .iter()
                .map(|s| (s.name.clone(), json!({"type":"sdk","name":s.name})))
                .collect();
            a.push(format!("--mcp-config={}", json!({ "mcpServers": servers })));
        }
        a
    }

    /// The MCP servers of the JSON configurations that can go in the
    /// `initialize` request (`mcpServers`), merged in order.
    pub(crate) fn initialize_mcp_servers(&self) -> Map<String, Value> {
        let mut servers = Map::new();
        for c in &self.mcp_config {
            if let McpConfig::Servers(map) = McpConfig::of(c) {
                servers.extend(map);
            }
        }
        servers
    }

    /// How to start the CLI, MCP configurations given as JSON going where
    /// `delivery` says and the settings in a private file. The files go
    /// with [`Launch::files`].
    pub(crate) fn launch(&self, delivery: McpDelivery) -> std::io::Result<Launch> {
        let mut args = self.base_args();
        let mut files = None;
        let mut secret_args = Vec::new();
        if let Some(settings) = self.effective_settings() {
            let path = private_file(&mut files, "settings.json", &settings.to_string())?;
            secret_args.push(format!("--settings={}", path.display()));
        }
        let mut init_servers = Map::new();
        for (i, c) in self.mcp_config.iter().enumerate() {
            let text = match (McpConfig::of(c), delivery) {
                (McpConfig::Path(_), _) => continue,
                (McpConfig::Servers(map), McpDelivery::Initialize) => {
                    init_servers.extend(map);
                    continue;
                }
                // what the CLI parses: the JSON text, from its first character
                (McpConfig::Servers(_), McpDelivery::Files) | (McpConfig::Other, _) => json_text(c),
            };
            let path = private_file(&mut files, &format!("mcp-config-{i}.json"), text)?;
            secret_args.push(format!("--mcp-config={}", path.display()));
        }
        if !init_servers.is_empty() {
            secret_args.push("--await-initialize".into());
        }
        args.extend(secret_args);
        args.extend(self.extra_args.iter().cloned());
        Ok(Launch {
            args,
            init_servers,
            files,
        })
    }
}

/// Write `text` to a new file `name` of the private directory, made first
/// when there is none yet.
fn private_file(
    files: &mut Option<PrivateDir>,
    name: &str,
    text: &str,
) -> std::io::Result<PathBuf> {
    let dir = match files {
        Some(dir) => dir,
        None => files.insert(PrivateDir::create()?),
    };
    dir.write(name, text.as_bytes())
}

/// Where MCP server configurations given as JSON go
/// ([`Options::mcp_config`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum McpDelivery {
    /// In the `initialize` request's `mcpServers`, the CLI started with
    /// `--await-initialize` (CLI 2.1.326 and later).
    Initialize,
    /// In private files, each named with `--mcp-config=PATH`.
    Files,
}

/// One start of the CLI: its argv, and what carries secrets elsewhere.
#[derive(Debug)]
pub(crate) struct Launch {
    /// The argv, without the program.
    pub args: Vec<String>,
    /// `mcpServers` for the `initialize` request (empty: none).
    pub init_servers: Map<String, Value>,
    /// The private files `args` names; removed when dropped, so kept until
    /// the CLI ends.
    pub files: Option<PrivateDir>,
}

/// One `--mcp-config` value, as the CLI reads it.
enum McpConfig<'a> {
    /// A file's path: passed as given.
    Path(&'a str),
    /// `{"mcpServers": {...}}` and nothing else, no in-process (`sdk`)
    /// server in it: can go in the `initialize` request.
    Servers(Map<String, Value>),
    /// Any other JSON text (or text meant as JSON that does not parse): a
    /// private file, so nothing in it reaches the command line.
    Other,
}

/// An MCP configuration's text from its first character that is neither
/// a blank nor one of the invisible characters an editor or a paste puts
/// before JSON text (a byte-order mark, zero-width ones): a path does not
/// start so, and JSON taken for one went on the command line, secrets and
/// all.
fn json_text(config: &str) -> &str {
    config.trim_start_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '\u{feff}' | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{ad}'
            )
    })
}

impl<'a> McpConfig<'a> {
    fn of(config: &'a str) -> McpConfig<'a> {
        let text = json_text(config);
        if !(text.starts_with('{') || text.starts_with('[')) {
            return McpConfig::Path(config);
        }
        let Ok(Value::Object(mut top)) = serde_json::from_str::<Value>(text) else {
            return McpConfig::Other;
        };
        match (top.remove("mcpServers"), top.is_empty()) {
            (Some(Value::Object(servers)), true)
                if servers.values().all(|s| {
                    s.is_object() && s.get("type").and_then(Value::as_str) != Some("sdk")
                }) =>
            {
                McpConfig::Servers(servers)
            }
            _ => McpConfig::Other,
        }
    }
}

/// How the model thinks ([`Options::thinking`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Thinking {
    /// The model decides when and how much to think.
    Adaptive,
    /// A fixed budget of thinking tokens (models that take one).
    Enabled {
        /// The most tokens it may think with.
        budget_tokens: u32,
    },
    /// No extended thinking (models that allow turning it off).
    Disabled,
}

/// The sandbox for the commands the CLI runs ([`Options::sandbox`]): the
/// `sandbox` block of the CLI's settings. Fields left `None` are not sent;
/// `extra` takes what this type does not name (`credentials`, `ripgrep`, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Sandbox {
    /// Whether commands run in the sandbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Refuse to start when the sandbox cannot run (default `true` when
    /// `enabled`), rather than run commands unsandboxed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_if_unavailable: Option<bool>,
    /// Run sandboxed Bash commands without asking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_allow_bash_if_sandboxed: Option<bool>,
    /// Whether a command may ask to run outside the sandbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_unsandboxed_commands: Option<bool>,
    /// Network limits (`allowedDomains`, `allowLocalBinding`, ...).
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub network: Map<String, Value>,
    /// File system limits (`allowWrite`, `denyWrite`, `denyRead`, ...).
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub filesystem: Map<String, Value>,
    /// Any other key of the CLI's `sandbox` settings, as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Sandbox {
    /// A sandbox that is on (and fails when it cannot run).
    pub fn enabled() -> Sandbox {
        Sandbox {
            enabled: Some(true),
            ..Sandbox::default()
        }
    }

    /// Whether to refuse to start when the sandbox cannot run.
    pub fn fail_if_unavailable(mut self, fail: bool) -> Sandbox {
        self.fail_if_unavailable = Some(fail);
        self
    }

    /// Run sandboxed Bash commands without asking.
    pub fn auto_allow_bash(mut self, allow: bool) -> Sandbox {
        self.auto_allow_bash_if_sandboxed = Some(allow);
        self
    }

    /// The only domains commands may reach.
    pub fn allowed_domains<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        domains: I,
    ) -> Sandbox {
        let list = domains
            .into_iter()
            .map(|d| Value::String(d.into()))
            .collect();
        self.network
            .insert("allowedDomains".into(), Value::Array(list));
        self
    }

    /// Paths commands may write beside the working directory.
    pub fn allow_write<I: IntoIterator<Item = S>, S: Into<String>>(mut self, paths: I) -> Sandbox {
        let list = paths.into_iter().map(|p| Value::String(p.into())).collect();
        self.filesystem
            .insert("allowWrite".into(), Value::Array(list));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_follow_options() {
        let o = Options::default()
            .model("sonnet")
            .resume("-odd-id")
            .fork_session(true)
            .allowed_tools(["Read", "Bash(ls:*)"])
            .max_turns(2)
            .include_partial_messages(true)
            .mcp_server(McpServer::new("calc"))
            .can_use_tool(|_r, _c| async { Ok(PermissionResult::allow()) });
        let a = o.cli_args();
        let has = |s: &str| a.iter().any(|x| x == s);
        assert!(has("--model=sonnet"));
        assert!(has("--resume=-odd-id"), "{a:?}");
        assert!(has("--fork-session"));
        assert!(has("--allowedTools=Read,Bash(ls:*)"));
        assert!(has("--max-turns=2"));
        assert!(has("--include-partial-messages"));
        assert!(has(
            r#"--mcp-config={"mcpServers":{"calc":{"name":"calc","type":"sdk"}}}"#
        ));
        let i = a
            .iter()
            .position(|x| x == "--permission-prompt-tool")
            .unwrap();
        assert_eq!(a[i + 1], "stdio");
    }

    #[test]
    fn the_typescript_sdk_s_options_become_the_cli_s_flags() {
        let o = Options::default()
            .fallback_models(["claude-sonnet-4-5", "claude-haiku-4-5"])
            .effort(Effort::High)
            .max_thinking_tokens(2048)
            .max_budget_usd(0.25)
            .json_schema(json!({"type":"object","properties":{"n":{"type":"integer"}}}))
            .setting_sources([SettingSource::User, SettingSource::Project])
            .settings(json!({"env":{"TOKEN":"s3cret"}}))
            .plugin_dir("/p")
            .resume("r")
            .resume_session_at("u")
            .session_id("0b7d4e8a-9c55-4f0e-8d3c-4b5a3f2a9c1e")
            .persist_session(false)
            .strict_mcp_config(true);
        let a = o.cli_args();
        let has = |s: &str| a.iter().any(|x| x == s);
        assert!(
            has("--fallback-model=claude-sonnet-4-5,claude-haiku-4-5"),
            "{a:?}"
        );
        assert!(has("--effort=high"));
        assert!(has("--max-thinking-tokens=2048"));
        assert!(has("--max-budget-usd=0.25"));
        assert!(
            has(r#"--json-schema={"properties":{"n":{"type":"integer"}},"type":"object"}"#),
            "{a:?}"
        );
        assert!(has("--setting-sources=user,project"));
        // the settings may hold secrets: never on the command line
        assert!(!a.iter().any(|x| x.contains("s3cret")), "{a:?}");
        assert_eq!(
            o.effective_settings(),
            Some(json!({"env":{"TOKEN":"s3cret"}}))
        );
        assert!(has("--plugin-dir=/p"));
        assert!(has("--resume-session-at=u"));
        assert!(has("--session-id=0b7d4e8a-9c55-4f0e-8d3c-4b5a3f2a9c1e"));
        assert!(has("--no-session-persistence"));
        assert!(has("--strict-mcp-config"));
        // none of them by default
        let d = Options::default().cli_args();
        assert!(!d.iter().any(|x| x.starts_with("--effort")
            || x == "--no-session-persistence"
            || x == "--strict-mcp-config"));
        // settings never show in Debug (they may hold secrets)
        assert!(!format!("{o:?}").contains("s3cret"));
    }

    #[test]
    fn no_handler_no_prompt_tool() {
        let a = Options::default().cli_args();
        assert!(!a.iter().any(|x| x == "--permission-prompt-tool"));
        // requests as events: the CLI asks, without a callback
        let e = Options::default().requests_as_events(true).cli_args();
        assert!(e
            .windows(2)
            .any(|w| w == ["--permission-prompt-tool", "stdio"]));
        assert_eq!(
            &a[..5],
            [
                "--output-format",
                "stream-json",
                "--input-format",
                "stream-json",
                "--verbose"
            ]
        );
    }

    #[test]
    fn debug_hides_env_values() {
        let o = Options::default().env("ANTHROPIC_API_KEY", "sk-secret");
        let s = format!("{o:?}");
        assert!(s.contains("ANTHROPIC_API_KEY"));
        assert!(!s.contains("sk-secret"));
    }

    #[test]
    fn thinking_maps_to_the_flags_the_typescript_sdk_uses() {
        let args = |o: Options| o.cli_args();
        let has = |a: &[String], s: &str| a.iter().any(|x| x == s);
        let a = args(Options::default().thinking(Thinking::Adaptive));
        assert!(has(&a, "--thinking=adaptive"), "{a:?}");
        // the typed option wins over the older budget
        let a = args(
            Options::default()
                .max_thinking_tokens(100)
                .thinking(Thinking::Enabled {
                    budget_tokens: 5000,
                }),
        );
        assert!(has(&a, "--max-thinking-tokens=5000"), "{a:?}");
        assert!(!has(&a, "--max-thinking-tokens=100"), "{a:?}");
        let a = args(Options::default().max_thinking_tokens(100));
        assert!(has(&a, "--max-thinking-tokens=100"), "{a:?}");
        assert!(!a.iter().any(|x| x.starts_with("--thinking")), "{a:?}");
        let a = args(Options::default().thinking_display(ThinkingDisplay::Omitted));
        assert!(has(&a, "--thinking-display=omitted"), "{a:?}");
    }

    #[test]
    fn the_sandbox_merges_into_the_settings() {
        let settings = |o: &Options| -> Value { o.effective_settings().unwrap() };
        let o = Options::default()
            .settings(json!({"permissions": {"deny": ["Bash(curl:*)"]},
                             "sandbox": {"enabled": false, "excludedCommands": ["git"]}}))
            .sandbox(
                Sandbox::enabled()
                    .auto_allow_bash(true)
                    .allow_write(["/tmp/x"]),
            );
        let v = settings(&o);
        assert_eq!(v["permissions"]["deny"][0], "Bash(curl:*)");
        assert_eq!(
            v["sandbox"],
            json!({"enabled": true, "excludedCommands": ["git"], "failIfUnavailable": true,
                   "autoAllowBashIfSandboxed": true, "filesystem": {"allowWrite": ["/tmp/x"]}})
        );
        // a choice made is kept
        let o = Options::default().sandbox(Sandbox::enabled().fail_if_unavailable(false));
        assert_eq!(settings(&o)["sandbox"]["failIfUnavailable"], false);
        // not enabled: nothing is added
        let o = Options::default().sandbox(Sandbox::default());
        assert_eq!(settings(&o), json!({"sandbox": {}}));
        // no sandbox: the settings as given
        let o = Options::default().settings(json!({"model": "m"}));
        assert_eq!(settings(&o), json!({"model": "m"}));
        assert!(!Options::default()
            .cli_args()
            .iter()
            .any(|x| x.starts_with("--settings")));
        assert_eq!(Options::default().effective_settings(), None);
    }

    /// Every local user can read `/proc/PID/cmdline`: an MCP server's `env`
    /// and `headers` and the settings' `env` stay off the command line.
    #[test]
    fn no_secret_on_the_command_line() {
        let secret = "tok-9a2b-never-on-a-command-line";
        let o = Options::default()
            .mcp_config(
                json!({"mcpServers": {
                    "gh": {"type": "stdio", "command": "gh-mcp", "env": {"GITHUB_TOKEN": secret}},
                    "web": {"type": "http", "url": "https://mcp.example/",
                            "headers": {"Authorization": format!("Bearer {secret}")}}}})
                .to_string(),
            )
            .mcp_config(format!(r#"{{"mcpServers": {{"bad": {secret}"#)) // not even JSON
            .settings(json!({"env": {"API_TOKEN": secret}}));
        let a = o.cli_args();
        assert!(!a.iter().any(|x| x.contains(secret)), "{a:?}");
    }

    /// JSON text led by a byte-order mark or another invisible character
    /// (a file saved by a Windows editor, then `$(cat ...)`) is JSON text,
    /// not a path: its secrets stay off the command line.
    #[test]
    fn json_led_by_an_invisible_character_is_no_path() {
        let secret = "tok-4c1d-never-on-a-command-line";
        for lead in ["\u{feff}", "\u{200b}", "\u{2060}", "\u{feff} \n"] {
            let config = format!(
                r#"{lead}{{"mcpServers": {{"gh": {{"command": "gh-mcp", "env": {{"T": "{secret}"}}}}}}}}"#
            );
            let o = Options::default().mcp_config(config);
            let a = o.cli_args();
            assert!(!a.iter().any(|x| x.contains(secret)), "{lead:?}: {a:?}");
            let launch = o.launch(McpDelivery::Files).unwrap();
            assert!(
                !launch.args.iter().any(|x| x.contains(secret)),
                "{lead:?}: {:?}",
                launch.args
            );
            // the file the CLI reads holds the JSON text from its brace
            let file = launch
                .args
                .iter()
                .find_map(|x| x.strip_prefix("--mcp-config="));
            let text = std::fs::read_to_string(file.expect("a file")).unwrap();
            assert!(text.starts_with('{'), "{lead:?}: {text:?}");
        }
    }

    #[test]
    fn mcp_configs_are_told_apart_as_the_cli_reads_them() {
        let kind = |c: &str| match McpConfig::of(c) {
            McpConfig::Path(p) => format!("path {p}"),
            McpConfig::Servers(m) => format!("servers {}", m.len()),
            McpConfig::Other => "other".into(),
        };
        assert_eq!(kind("/etc/mcp.json"), "path /etc/mcp.json");
        assert_eq!(kind("relative/mcp.json"), "path relative/mcp.json");
        assert_eq!(
            kind(r#" {"mcpServers": {"a": {"command": "a"}}}"#),
            "servers 1"
        );
        assert_eq!(kind(r#"{"mcpServers": {}}"#), "servers 0");
        // not for `initialize`: another key, an in-process server, bad JSON
        assert_eq!(kind(r#"{"mcpServers": {}, "x": 1}"#), "other");
        assert_eq!(
            kind(r#"{"mcpServers": {"c": {"type": "sdk", "name": "c"}}}"#),
            "other"
        );
        assert_eq!(kind(r#"{"mcpServers": {"a": 1}}"#), "other");
        assert_eq!(kind(r#"{"mcpServers": "#), "other");
        assert_eq!(kind("[1]"), "other");
    }
}
