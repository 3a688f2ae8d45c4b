//! Control protocol: requests and responses in both directions (protocol.md §3, §6, §7).

use super::content::{has_extra, HasExtra};
use super::names::{
    DecisionClassification, HookEvent, PermissionDestination, PermissionUpdateKind, RuleBehavior,
};
use super::replies::{lenient, PermissionMode};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value};

/// `{"type":"control_request","request_id":...,"request":{...}}` sent by the CLI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ControlRequest {
    /// The id to answer with.
    pub request_id: String,
    /// What the CLI asks.
    pub request: IncomingRequest,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
has_extra!(ControlRequest);

/// A request from the CLI, by `subtype`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
// one per request the CLI makes, decoded and handed on once: not worth a box
#[allow(clippy::large_enum_variant)]
pub(crate) enum IncomingRequest {
    /// May a tool run? (`can_use_tool`)
    CanUseTool(CanUseToolRequest),
    /// A hook registered at `initialize` fired. (`hook_callback`)
    HookCallback(HookCallbackRequest),
    /// A JSON-RPC message for an in-process MCP server. (`mcp_message`)
    McpMessage(McpMessageRequest),
    /// Any other subtype, as sent.
    Other(Value),
}

impl IncomingRequest {
    /// The request's `subtype`.
    pub(crate) fn subtype(&self) -> &str {
        match self {
            IncomingRequest::CanUseTool(_) => "can_use_tool",
            IncomingRequest::HookCallback(_) => "hook_callback",
            IncomingRequest::McpMessage(_) => "mcp_message",
            IncomingRequest::Other(v) => v.get("subtype").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// Decode a request; never fails (odd shapes become `Other`).
    pub(crate) fn from_value(value: Value) -> Self {
        fn typed<T: serde::de::DeserializeOwned + HasExtra>(v: &Value) -> Option<T> {
            let mut t = T::deserialize(v).ok()?;
            t.extra_mut().remove("subtype");
            Some(t)
        }
        let parsed = match value.get("subtype").and_then(Value::as_str) {
            Some("can_use_tool") => typed(&value).map(IncomingRequest::CanUseTool),
            Some("hook_callback") => typed(&value).map(IncomingRequest::HookCallback),
            Some("mcp_message") => typed(&value).map(IncomingRequest::McpMessage),
            _ => None,
        };
        parsed.unwrap_or(IncomingRequest::Other(value))
    }

    /// Encode the request as JSON (with its `subtype`).
    pub(crate) fn to_value(&self) -> Value {
        let body = match self {
            IncomingRequest::CanUseTool(r) => serde_json::to_value(r),
            IncomingRequest::HookCallback(r) => serde_json::to_value(r),
            IncomingRequest::McpMessage(r) => serde_json::to_value(r),
            IncomingRequest::Other(v) => return v.clone(),
        };
        let mut map = match body {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        map.insert("subtype".into(), Value::String(self.subtype().into()));
        Value::Object(map)
    }
}

impl<'de> Deserialize<'de> for IncomingRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(IncomingRequest::from_value(Value::deserialize(d)?))
    }
}

impl Serialize for IncomingRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

/// The CLI asks whether a tool may run.
///
/// A [`Client`](crate::Client) hands it to the handler of
/// [`Options::can_use_tool`](crate::Options::can_use_tool). Decoded from
/// the request the CLI sends:
///
/// ```
/// use claudio::CanUseToolRequest;
/// use serde_json::json;
/// let req: CanUseToolRequest = serde_json::from_value(json!({
///     "tool_name": "Bash",
///     "input": {"command": "touch out/a1", "description": "make a file"},
///     "blocked_path": "out/a1",
///     "tool_use_id": "toolu_a1",
/// }))?;
/// assert_eq!(req.input["command"], "touch out/a1");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CanUseToolRequest {
    /// The tool (`Bash`, `Edit`, `mcp__calc__add`, ...).
    pub tool_name: String,
    /// A human-friendly name for the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// The tool's input as the model wrote it.
    #[serde(default)]
    pub input: Value,
    /// What the call is for, as the model described it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Rule changes the CLI suggests for "always allow".
    #[serde(default)]
    pub permission_suggestions: Vec<PermissionUpdate>,
    /// The path outside the allowed directories that made the CLI ask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_path: Option<String>,
    /// The id of the `tool_use` block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// Why the CLI asks (a string or a structured reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason: Option<Value>,
    /// For MCP tools: the server (`{"name":...,"source":...}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_server: Option<Value>,
    /// The sub-agent whose call this is (its task id, as in
    /// [`TaskStarted::task_id`](super::TaskStarted::task_id)); `None` for
    /// the main agent's calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// Set on tools that ask the person something rather than for
    /// permission (`AskUserQuestion`, `ExitPlanMode`): a plain allow is not
    /// an answer; see [`crate::protocol::ask`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_user_interaction: bool,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The plan of the `ExitPlanMode` call this request is for, as the
    /// session saw it in the model's `tool_use` block (the request itself
    /// carries an empty input). See [`CanUseToolRequest::plan`].
    #[serde(skip)]
    pub(crate) seen_plan: Option<String>,
}
has_extra!(CanUseToolRequest);

impl CanUseToolRequest {
    /// The CLI's reason as text, if it gave one.
    ///
    /// ```
    /// # let req: claudio::CanUseToolRequest = serde_json::from_value(serde_json::json!({
    /// #     "tool_name": "Write", "decision_reason": "outside the allowed directories"}))?;
    /// if let Some(why) = req.reason() {
    ///     println!("{} needs permission: {why}", req.tool_name);
    /// }
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn reason(&self) -> Option<String> {
        match self.decision_reason.as_ref()? {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            Value::Object(o) => o
                .get("reason")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| Some(Value::Object(o.clone()).to_string())),
            other => Some(other.to_string()),
        }
    }

    /// The CLI's rule suggestions, kept for this session only. Only
    /// `addRules` suggestions count: when the CLI suggested no rule (a Bash
    /// command it cannot check, such as `echo $(whoami) > f`, or a file
    /// edit, where it suggests only `setMode`), this is empty, and an
    /// "always" answer built from it allows this one call and keeps nothing.
    /// See [`session_scope`](Self::session_scope) for what "allow for this
    /// session" may cover.
    ///
    /// ```
    /// use claudio::{protocol::PermissionDestination, CanUseToolRequest, PermissionResult};
    /// use serde_json::json;
    /// let req: CanUseToolRequest = serde_json::from_value(json!({
    ///     "tool_name": "Bash",
    ///     "input": {"command": "npm test"},
    ///     "permission_suggestions": [{"type": "addRules", "behavior": "allow",
    ///         "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
    ///         "destination": "localSettings"}],
    /// }))?;
    /// let rules = req.session_rules(); // the suggestion, kept for this session only
    /// assert_eq!(rules[0].destination, Some(PermissionDestination::Session));
    /// let answer = PermissionResult::allow_always(rules); // not asked again
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn session_rules(&self) -> Vec<PermissionUpdate> {
        self.rules_for(PermissionDestination::Session)
    }

    /// The CLI's rule suggestions turned into allow rules kept in
    /// `destination`: [`Session`](PermissionDestination::Session) for this
    /// session, [`LocalSettings`](PermissionDestination::LocalSettings) for
    /// this project (the CLI writes `.claude/settings.local.json` itself),
    /// [`UserSettings`](PermissionDestination::UserSettings) for every
    /// project (`~/.claude/settings.json`).
    ///
    /// Exactly what the CLI suggested, never more: only `addRules`
    /// suggestions count, and when there is none the list is **empty**. (Up
    /// to 0.1.0 a rule for the whole tool was made then, so answering
    /// "always" to one unchecked Bash command allowed every Bash command; a
    /// `setMode` suggestion is never turned into a rule either.) Show the
    /// rules to the person before they choose; with none, offer no "always".
    ///
    /// ```
    /// use claudio::{protocol::PermissionDestination, CanUseToolRequest, PermissionResult};
    /// use serde_json::json;
    /// let req: CanUseToolRequest = serde_json::from_value(json!({
    ///     "tool_name": "Bash",
    ///     "input": {"command": "cargo test"},
    ///     "permission_suggestions": [{"type": "addRules", "behavior": "allow",
    ///         "rules": [{"toolName": "Bash", "ruleContent": "cargo test *"}],
    ///         "destination": "localSettings"}],
    /// }))?;
    /// let rules = req.rules_for(PermissionDestination::LocalSettings);
    /// let shown: Vec<String> = rules.iter().flat_map(|u| u.rules.iter().flatten())
    ///     .map(|r| r.to_string()).collect();
    /// assert_eq!(shown, ["Bash(cargo test *)"]); // what the person agrees to
    /// let answer = PermissionResult::allow_always(rules); // in this project, from now on
    ///
    /// // no suggestion: nothing to keep
    /// let unchecked: CanUseToolRequest = serde_json::from_value(json!({
    ///     "tool_name": "Bash", "input": {"command": "echo $(whoami) > f"}}))?;
    /// assert!(unchecked.rules_for(PermissionDestination::LocalSettings).is_empty());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn rules_for(&self, destination: PermissionDestination) -> Vec<PermissionUpdate> {
        self.permission_suggestions
            .iter()
            .filter(|s| s.kind == PermissionUpdateKind::AddRules)
            .filter(|s| s.rules.as_ref().is_some_and(|r| !r.is_empty()))
            .map(|s| PermissionUpdate {
                destination: Some(destination.clone()),
                behavior: Some(s.behavior.clone().unwrap_or(RuleBehavior::Allow)),
                ..s.clone()
            })
            .collect()
    }

    /// What "allow for this session" may cover without widening what the
    /// person agreed to: the CLI's own rules, else, for a file edit
    /// (`Edit`, `Write`, `MultiEdit`, `NotebookEdit`), the CLI's own mode
    /// suggestion (`acceptEdits`: every edit, for this session), else this
    /// exact call only, which the CLI cannot keep, so
    /// the host remembers it ([`SessionScope::ThisCall`]).
    ///
    /// ```
    /// use claudio::{protocol::SessionScope, CanUseToolRequest, PermissionMode};
    /// use serde_json::json;
    /// let edit: CanUseToolRequest = serde_json::from_value(json!({
    ///     "tool_name": "Write", "input": {"file_path": "/w/a.txt", "content": "hi"},
    ///     "permission_suggestions": [
    ///         {"type": "setMode", "mode": "acceptEdits", "destination": "session"}]}))?;
    /// assert!(matches!(edit.session_scope(),
    ///     SessionScope::Mode(u) if u.mode == Some(PermissionMode::AcceptEdits)));
    /// let unchecked: CanUseToolRequest = serde_json::from_value(json!({
    ///     "tool_name": "Bash", "input": {"command": "echo $(whoami) > f"}}))?;
    /// assert_eq!(unchecked.session_scope(), SessionScope::ThisCall);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn session_scope(&self) -> SessionScope {
        let rules = self.session_rules();
        if !rules.is_empty() {
            return SessionScope::Rules(rules);
        }
        // `acceptEdits` covers file edits: offered for an edit, never as
        // the answer to another tool's call
        let edit = matches!(
            self.tool_name.as_str(),
            "Edit" | "Write" | "MultiEdit" | "NotebookEdit"
        );
        let mode = self.permission_suggestions.iter().find(|s| {
            edit && s.kind == PermissionUpdateKind::SetMode
                && matches!(s.mode, Some(PermissionMode::AcceptEdits))
        });
        match mode {
            Some(m) => SessionScope::Mode(PermissionUpdate {
                destination: Some(PermissionDestination::Session),
                ..m.clone()
            }),
            None => SessionScope::ThisCall,
        }
    }
}

/// What "allow for this session" covers for one request
/// ([`CanUseToolRequest::session_scope`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionScope {
    /// The CLI's own rule suggestions, kept for this session: answer
    /// [`PermissionResult::allow_always`] with them.
    Rules(Vec<PermissionUpdate>),
    /// The CLI's own mode suggestion (`setMode` `acceptEdits`: every file
    /// edit is allowed for the rest of the session), as suggested.
    Mode(PermissionUpdate),
    /// The CLI suggested nothing: only this exact call (the same tool with
    /// the same input) may be allowed again. The CLI keeps no such rule;
    /// the host remembers it and answers [`PermissionResult::allow`].
    ThisCall,
}

impl SessionScope {
    /// The permission updates to send with the allow answer (none for
    /// [`ThisCall`](Self::ThisCall)).
    pub fn updates(&self) -> Vec<PermissionUpdate> {
        match self {
            SessionScope::Rules(r) => r.clone(),
            SessionScope::Mode(m) => vec![m.clone()],
            SessionScope::ThisCall => Vec::new(),
        }
    }
}

/// A change to the permission rules (`addRules`, `addDirectories`, `setMode`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionUpdate {
    /// `addRules`, `replaceRules`, `removeRules`, `setMode`, `addDirectories`, ...
    #[serde(rename = "type")]
    pub kind: PermissionUpdateKind,
    /// The rules, for rule updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<PermissionRule>>,
    /// `allow`, `deny` or `ask`, for rule updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behavior: Option<RuleBehavior>,
    /// Where the update lives: `session`, `localSettings`, `projectSettings`, `userSettings`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<PermissionDestination>,
    /// The mode, for `setMode`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<PermissionMode>,
    /// The directories, for directory updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directories: Option<Vec<String>>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PermissionUpdate {
    /// `addRules` with one allow rule for `tool` (optionally narrowed by `content`).
    ///
    /// ```
    /// use claudio::{protocol::PermissionDestination, PermissionResult, PermissionUpdate};
    /// // `npm test` from now on, in this project (`.claude/settings.local.json`)
    /// let rule = PermissionUpdate::allow_rule(
    ///     "Bash",
    ///     Some("npm test"),
    ///     PermissionDestination::LocalSettings,
    /// );
    /// let answer = PermissionResult::allow_always(vec![rule]);
    /// ```
    pub fn allow_rule(
        tool: &str,
        content: Option<&str>,
        destination: PermissionDestination,
    ) -> Self {
        PermissionUpdate {
            kind: PermissionUpdateKind::AddRules,
            rules: Some(vec![PermissionRule {
                tool_name: tool.into(),
                rule_content: content.map(str::to_owned),
            }]),
            behavior: Some(RuleBehavior::Allow),
            destination: Some(destination),
            mode: None,
            directories: None,
            extra: Map::new(),
        }
    }

    /// `setMode`: switch the permission mode, for this session.
    ///
    /// ```
    /// use claudio::{PermissionMode, PermissionResult, PermissionUpdate};
    /// use serde_json::json;
    /// // allow this edit, and the next ones without asking
    /// let update = PermissionUpdate::set_mode(PermissionMode::AcceptEdits);
    /// assert_eq!(
    ///     serde_json::to_value(&update)?,
    ///     json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
    /// );
    /// let answer = PermissionResult::allow_always(vec![update]);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn set_mode(mode: PermissionMode) -> Self {
        PermissionUpdate {
            kind: PermissionUpdateKind::SetMode,
            rules: None,
            behavior: None,
            destination: Some(PermissionDestination::Session),
            mode: Some(mode),
            directories: None,
            extra: Map::new(),
        }
    }
}

/// One permission rule: a tool and, optionally, what of it (`Bash(npm test)`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRule {
    /// The tool's name.
    pub tool_name: String,
    /// What the rule is narrowed to (a command, a path pattern).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
}

/// A rule as settings files and `/permissions` write it: `Bash(npm test *)`,
/// or the bare tool name.
impl std::fmt::Display for PermissionRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.rule_content {
            Some(c) => write!(f, "{}({c})", self.tool_name),
            None => f.write_str(&self.tool_name),
        }
    }
}

/// The answer to a `can_use_tool` request. Built with its constructors
/// ([`allow`](PermissionResult::allow), [`deny`](PermissionResult::deny) and
/// the others), so that a later answer field or kind is no breaking change.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PermissionResult {
    /// Let the tool run.
    #[non_exhaustive]
    Allow {
        /// A changed input; `None` runs the tool with the input as asked.
        updated_input: Option<Value>,
        /// Rule changes to apply (e.g. "always allow for this session").
        updated_permissions: Vec<PermissionUpdate>,
        /// Who decided ([`PermissionResult::classified`]); `None` lets the
        /// CLI infer it.
        decision_classification: Option<DecisionClassification>,
    },
    /// Refuse; the model sees `message` as the tool's error result.
    #[non_exhaustive]
    Deny {
        /// Why, for the model.
        message: String,
        /// Also end the turn.
        interrupt: bool,
        /// Who decided ([`PermissionResult::classified`]); `None` lets the
        /// CLI infer it.
        decision_classification: Option<DecisionClassification>,
    },
}

impl PermissionResult {
    /// Allow, running the tool with `input` and applying `updates` (rules,
    /// a mode change) at the same time.
    ///
    /// ```
    /// use claudio::{PermissionMode, PermissionResult, PermissionUpdate};
    /// use serde_json::json;
    /// // write the file somewhere else, and accept the next edits without asking
    /// let answer = PermissionResult::allow_with(
    ///     json!({"file_path": "/tmp/draft.md", "content": "# Draft"}),
    ///     vec![PermissionUpdate::set_mode(PermissionMode::AcceptEdits)],
    /// );
    /// ```
    pub fn allow_with(input: Value, updates: Vec<PermissionUpdate>) -> Self {
        PermissionResult::Allow {
            updated_input: Some(input),
            updated_permissions: updates,
            decision_classification: None,
        }
    }

    /// Allow once, with the input as asked.
    ///
    /// ```
    /// use claudio::PermissionResult;
    /// use serde_json::json;
    /// let input = json!({"command": "ls"});
    /// // the answer sent: the input goes back as it was asked
    /// let reply = PermissionResult::allow().to_response(&input);
    /// assert_eq!(reply, json!({"behavior": "allow", "updatedInput": {"command": "ls"}}));
    /// ```
    pub fn allow() -> Self {
        PermissionResult::Allow {
            updated_input: None,
            updated_permissions: Vec::new(),
            decision_classification: None,
        }
    }

    /// Allow, running the tool with `input` instead.
    ///
    /// ```
    /// use claudio::PermissionResult;
    /// use serde_json::json;
    /// // run it, but as a dry run
    /// let answer = PermissionResult::allow_with_input(json!({"command": "make -n deploy"}));
    /// let reply = answer.to_response(&json!({"command": "make deploy"}));
    /// assert_eq!(reply["updatedInput"]["command"], "make -n deploy");
    /// ```
    pub fn allow_with_input(input: Value) -> Self {
        PermissionResult::Allow {
            updated_input: Some(input),
            updated_permissions: Vec::new(),
            decision_classification: None,
        }
    }

    /// Allow, and add `updates` to the rules.
    ///
    /// ```
    /// use claudio::{Options, PermissionResult};
    /// // yes to each tool; what the CLI suggested as a rule is not asked
    /// // again in this session (with no suggestion, this allows the call once)
    /// let options = Options::default().can_use_tool(|req, _ctx| async move {
    ///     Ok(PermissionResult::allow_always(req.session_rules()))
    /// });
    /// ```
    pub fn allow_always(updates: Vec<PermissionUpdate>) -> Self {
        PermissionResult::Allow {
            updated_input: None,
            updated_permissions: updates,
            decision_classification: None,
        }
    }

    /// Deny with a reason for the model; the turn goes on.
    ///
    /// ```
    /// use claudio::PermissionResult;
    /// use serde_json::json;
    /// let reply = PermissionResult::deny("use the test database").to_response(&json!({}));
    /// assert_eq!(
    ///     reply,
    ///     json!({"behavior": "deny", "message": "use the test database", "interrupt": false})
    /// );
    /// ```
    pub fn deny(message: impl Into<String>) -> Self {
        PermissionResult::Deny {
            message: message.into(),
            interrupt: false,
            decision_classification: None,
        }
    }

    /// Deny and end the turn.
    ///
    /// ```
    /// use claudio::PermissionResult;
    /// // refuse, and end the turn: the model does not try another way
    /// let answer = PermissionResult::deny_and_interrupt("stop: wrong branch");
    /// assert_eq!(answer.to_response(&serde_json::json!({}))["interrupt"], true);
    /// ```
    pub fn deny_and_interrupt(message: impl Into<String>) -> Self {
        PermissionResult::Deny {
            message: message.into(),
            interrupt: true,
            decision_classification: None,
        }
    }

    /// The answer, saying who decided it (`decisionClassification`): a
    /// person once, always, or refusing, or the host by itself
    /// ([`DecisionClassification::Config`]: a mode, a policy, a rule no
    /// person's answer made). Unset, the CLI infers `user_temporary` for an
    /// allow and `user_reject` for a deny; a CLI older than 2.1.336 ignores
    /// it.
    ///
    /// ```
    /// use claudio::{protocol::DecisionClassification, PermissionResult};
    /// use serde_json::json;
    /// // a rule of the host's own allowed it; nobody was asked
    /// let answer = PermissionResult::allow().classified(DecisionClassification::Config);
    /// let reply = answer.to_response(&json!({"command": "ls"}));
    /// assert_eq!(reply["decisionClassification"], "config");
    /// ```
    pub fn classified(mut self, by: DecisionClassification) -> Self {
        match &mut self {
            PermissionResult::Allow {
                decision_classification,
                ..
            }
            | PermissionResult::Deny {
                decision_classification,
                ..
            } => *decision_classification = Some(by),
        }
        self
    }

    /// Who decided, when it was said ([`PermissionResult::classified`]).
    pub fn decision_classification(&self) -> Option<&DecisionClassification> {
        match self {
            PermissionResult::Allow {
                decision_classification,
                ..
            }
            | PermissionResult::Deny {
                decision_classification,
                ..
            } => decision_classification.as_ref(),
        }
    }

    /// The response payload. `updatedInput` is always present on allow (the
    /// CLI requires it): the original input is echoed when none was given.
    ///
    /// See [`PermissionResult::allow`] for an example.
    pub fn to_response(&self, original_input: &Value) -> Value {
        match self {
            PermissionResult::Allow {
                updated_input,
                updated_permissions,
                decision_classification,
            } => {
                let mut v = json!({
                    "behavior": "allow",
                    "updatedInput": updated_input.as_ref().unwrap_or(original_input),
                });
                if !updated_permissions.is_empty() {
                    v["updatedPermissions"] = json!(updated_permissions);
                }
                if let Some(c) = decision_classification {
                    v["decisionClassification"] = json!(c);
                }
                v
            }
            PermissionResult::Deny {
                message,
                interrupt,
                decision_classification,
            } => {
                let mut v = json!({"behavior":"deny","message":message,"interrupt":interrupt});
                if let Some(c) = decision_classification {
                    v["decisionClassification"] = json!(c);
                }
                v
            }
        }
    }
}

/// A hook registered at `initialize` fired.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookCallbackRequest {
    /// Which registered callback.
    pub callback_id: String,
    /// The hook's input (`hook_event_name`, `tool_name`, `tool_input`, `session_id`, ...).
    #[serde(default)]
    pub input: Value,
    /// The tool call it concerns, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
has_extra!(HookCallbackRequest);

impl HookCallbackRequest {
    /// `input.hook_event_name` (`PreToolUse`, `PostToolUse`, `UserPromptSubmit`, ...).
    ///
    /// See [`HookCallbackRequest::hook_input`] for an example.
    pub fn event(&self) -> &str {
        self.input
            .get("hook_event_name")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// The hook's input, typed (`input` keeps it as sent).
    ///
    /// ```
    /// use claudio::{HookCallbackRequest, HookEvent};
    /// use serde_json::json;
    /// let req: HookCallbackRequest = serde_json::from_value(json!({
    ///     "callback_id": "hook-1",
    ///     "tool_use_id": "toolu_b1",
    ///     "input": {"hook_event_name": "PreToolUse", "tool_name": "Bash",
    ///               "tool_input": {"command": "ls"}, "session_id": "s1", "cwd": "/w"},
    /// }))?;
    /// assert_eq!(req.event(), "PreToolUse");
    /// let input = req.hook_input();
    /// assert_eq!(input.hook_event_name, Some(HookEvent::PreToolUse));
    /// assert_eq!(input.tool_name.as_deref(), Some("Bash"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn hook_input(&self) -> HookInput {
        HookInput::deserialize(&self.input).unwrap_or_default()
    }
}

/// What a hook is told ([`HookCallbackRequest::hook_input`]): the fields
/// every event has, and those of tool and prompt events.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HookInput {
    /// The event.
    #[serde(default, deserialize_with = "lenient")]
    pub hook_event_name: Option<HookEvent>,
    /// The session.
    #[serde(default, deserialize_with = "lenient")]
    pub session_id: Option<String>,
    /// The session's transcript.
    #[serde(default, deserialize_with = "lenient")]
    pub transcript_path: Option<String>,
    /// The CLI's working directory.
    #[serde(default, deserialize_with = "lenient")]
    pub cwd: Option<String>,
    /// The permission mode.
    #[serde(default, deserialize_with = "lenient")]
    pub permission_mode: Option<PermissionMode>,
    /// The tool, for tool events.
    #[serde(default, deserialize_with = "lenient")]
    pub tool_name: Option<String>,
    /// The tool's input, for tool events.
    #[serde(default)]
    pub tool_input: Option<Value>,
    /// What the tool returned, for `PostToolUse`.
    #[serde(default)]
    pub tool_response: Option<Value>,
    /// The prompt, for `UserPromptSubmit`.
    #[serde(default, deserialize_with = "lenient")]
    pub prompt: Option<String>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a hook callback answers.
///
/// The constructors cover the common answers; any other is built from
/// the fields:
///
/// ```
/// use claudio::HookOutput;
/// let stop = HookOutput {
///     continue_: Some(false),
///     stop_reason: Some("the budget for today is spent".into()),
///     ..Default::default()
/// };
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookOutput {
    /// Whether the CLI goes on (`false` stops the session's turn).
    #[serde(rename = "continue", default, skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    /// Hide the hook's output from the transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppress_output: Option<bool>,
    /// Why the turn stops, when `continue` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// `approve` / `block` (older hook decision field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// A message shown to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    /// Why, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Event-specific output (e.g. `permissionDecision` for `PreToolUse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_specific_output: Option<Value>,
    /// Fields claudio does not model.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl HookOutput {
    /// `{"continue":true}`: go on as if the hook were not there.
    ///
    /// ```
    /// use claudio::HookOutput;
    /// let out = serde_json::to_value(HookOutput::proceed())?;
    /// assert_eq!(out, serde_json::json!({"continue": true}));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn proceed() -> Self {
        HookOutput {
            continue_: Some(true),
            ..Default::default()
        }
    }

    /// A `PreToolUse` decision: `allow`, `deny` or `ask`, with a reason.
    ///
    /// ```
    /// use claudio::HookOutput;
    /// // let the person decide: the CLI then sends a `can_use_tool` request
    /// let out = HookOutput::pre_tool_use("ask", "it touches the production config");
    /// let wire = serde_json::to_value(&out)?;
    /// assert_eq!(wire["hookSpecificOutput"]["permissionDecision"], "ask");
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn pre_tool_use(decision: &str, reason: impl Into<String>) -> Self {
        HookOutput {
            continue_: Some(true),
            hook_specific_output: Some(json!({
                "hookEventName": "PreToolUse",
                "permissionDecision": decision,
                "permissionDecisionReason": reason.into(),
            })),
            ..Default::default()
        }
    }

    /// A `PreToolUse` hook that refuses the tool call.
    ///
    /// ```
    /// use claudio::HookOutput;
    /// let out = HookOutput::deny_tool("no network access in tests");
    /// assert_eq!(out, HookOutput::pre_tool_use("deny", "no network access in tests"));
    /// ```
    pub fn deny_tool(reason: impl Into<String>) -> Self {
        Self::pre_tool_use("deny", reason)
    }
}

/// A JSON-RPC message for an in-process MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct McpMessageRequest {
    /// The server's name, as registered.
    pub server_name: String,
    /// The JSON-RPC message (`method`, `params`, `id`).
    #[serde(default)]
    pub message: Value,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
has_extra!(McpMessageRequest);

/// `{"type":"control_response","response":{...}}` — an answer to a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ControlResponse {
    /// The answer.
    pub response: ControlResponseBody,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
has_extra!(ControlResponse);

/// The body of a control response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ControlResponseBody {
    /// `success` or `error`.
    pub subtype: String,
    /// The id of the request this answers.
    pub request_id: String,
    /// The payload, on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
    /// The message, on error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A machine-readable error code (e.g. `unsupported_request`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"control_cancel_request","request_id":...}`: the CLI no longer
/// needs an answer to one of its requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ControlCancelRequest {
    /// The request to drop.
    pub request_id: String,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
has_extra!(ControlCancelRequest);

/// Encode a success response line for `request_id`.
pub(crate) fn success_response(request_id: &str, payload: Value) -> Value {
    json!({"type":"control_response","response":{"subtype":"success","request_id":request_id,"response":payload}})
}

/// Encode an error response line for `request_id`.
pub(crate) fn error_response(request_id: &str, message: &str) -> Value {
    json!({"type":"control_response","response":{"subtype":"error","request_id":request_id,"error":message}})
}

/// Encode a host → CLI control request line.
pub(crate) fn request_line(request_id: &str, request: Value) -> Value {
    json!({"type":"control_request","request_id":request_id,"request":request})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_says_who_decided_it_only_when_told() {
        use super::DecisionClassification as By;
        let input = json!({"command": "ls"});
        // unset: the field is left out (the CLI infers it)
        let plain = PermissionResult::allow().to_response(&input);
        assert!(plain.get("decisionClassification").is_none(), "{plain}");
        let plain = PermissionResult::deny("no").to_response(&input);
        assert!(plain.get("decisionClassification").is_none(), "{plain}");
        for (by, name) in [
            (By::UserTemporary, "user_temporary"),
            (By::UserPermanent, "user_permanent"),
            (By::UserReject, "user_reject"),
            (By::Config, "config"),
        ] {
            let allow = PermissionResult::allow().classified(by.clone());
            assert_eq!(allow.decision_classification(), Some(&by));
            assert_eq!(allow.to_response(&input)["decisionClassification"], name);
            let deny = PermissionResult::deny_and_interrupt("no").classified(by.clone());
            let v = deny.to_response(&input);
            assert_eq!(v["decisionClassification"], name);
            assert_eq!(v["interrupt"], true);
            assert_eq!(By::from_name(name), by);
        }
    }

    #[test]
    fn can_use_tool_decodes_and_suggests_session_rules() {
        let r: IncomingRequest = serde_json::from_value(json!({
            "subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash",
            "input":{"command":"touch out/a1"},"description":"make a file",
            "permission_suggestions":[
                {"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch out/a1"}],"behavior":"allow","destination":"localSettings"},
                {"type":"addDirectories","directories":["out"],"destination":"session"}],
            "blocked_path":"out/a1","tool_use_id":"toolu_a1","decision_reason":"outside","agent_id":"x"
        }))
        .unwrap();
        let IncomingRequest::CanUseTool(r) = r else {
            panic!()
        };
        assert_eq!(r.tool_name, "Bash");
        assert_eq!(r.reason().as_deref(), Some("outside"));
        // a sub-agent's request names it
        assert_eq!(r.agent_id.as_deref(), Some("x"));
        assert!(!r.extra.contains_key("agent_id"));
        let rules = r.session_rules();
        assert_eq!(rules.len(), 1);
        assert_eq!(
            json!(rules[0]),
            json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch out/a1"}],"behavior":"allow","destination":"session"})
        );
    }

    #[test]
    fn allow_always_echoes_input() {
        let input = json!({"command":"ls"});
        assert_eq!(
            PermissionResult::allow().to_response(&input),
            json!({"behavior":"allow","updatedInput":{"command":"ls"}})
        );
        assert_eq!(
            PermissionResult::allow_with_input(json!({"command":"ls -a"})).to_response(&input),
            json!({"behavior":"allow","updatedInput":{"command":"ls -a"}})
        );
        assert_eq!(
            PermissionResult::deny("no").to_response(&input),
            json!({"behavior":"deny","message":"no","interrupt":false})
        );
    }

    #[test]
    fn unknown_subtype_is_other() {
        let v = json!({"subtype":"elicitation","x":1});
        let r = IncomingRequest::from_value(v.clone());
        assert_eq!(r, IncomingRequest::Other(v.clone()));
        assert_eq!(r.subtype(), "elicitation");
        assert_eq!(r.to_value(), v);
    }

    #[test]
    fn hook_output_serializes_camel_case() {
        assert_eq!(
            json!(HookOutput::deny_tool("nope")),
            json!({"continue":true,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}})
        );
    }
}
