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
        /// Once after every tool call of a batch resolved, before the next
        /// model request.
        PostToolBatch = "PostToolBatch",
        /// A slash command or MCP prompt was expanded.
        UserPromptExpansion = "UserPromptExpansion",
        /// The turn ended on an API error.
        StopFailure = "StopFailure",
        /// After the conversation was compacted.
        PostCompact = "PostCompact",
        /// Before the model changes (it may allow, deny or ask).
        PreModelSwitch = "PreModelSwitch",
        /// After the model changed.
        PostModelSwitch = "PostModelSwitch",
        /// A tool call was denied.
        PermissionDenied = "PermissionDenied",
        /// `claude --init` / maintenance runs.
        Setup = "Setup",
        /// A teammate went idle.
        TeammateIdle = "TeammateIdle",
        /// A task was created.
        TaskCreated = "TaskCreated",
        /// A task was completed.
        TaskCompleted = "TaskCompleted",
        /// An MCP server asks the person for input.
        Elicitation = "Elicitation",
        /// The person answered an MCP server's elicitation.
        ElicitationResult = "ElicitationResult",
        /// A settings file or the skills changed.
        ConfigChange = "ConfigChange",
        /// A worktree is to be made.
        WorktreeCreate = "WorktreeCreate",
        /// A worktree is to be removed.
        WorktreeRemove = "WorktreeRemove",
        /// A `CLAUDE.md` or rules file was loaded.
        InstructionsLoaded = "InstructionsLoaded",
        /// The working directory changed.
        CwdChanged = "CwdChanged",
        /// A watched file changed.
        FileChanged = "FileChanged",
        /// A directory was added (`/add-dir`).
        DirectoryAdded = "DirectoryAdded",
        /// Newly completed lines of a streaming assistant message (display
        /// only).
        MessageDisplay = "MessageDisplay",
        /// Before a skill's or command's `` !`cmd` `` runs (CLI 2.1.332): the
        /// host's only way to gate those commands. See
        /// [`PreSkillShellCommandInput`](super::hooks::PreSkillShellCommandInput).
        PreSkillShellCommand = "PreSkillShellCommand",
        /// The turn was stopped (CLI 2.1.336): who, why and how, in
        /// [`InterruptInput`](super::hooks::InterruptInput).
        Interrupt = "Interrupt",
    }
);

impl HookEvent {
    /// Every event the TypeScript SDK 0.3.336 lists (`HOOK_EVENTS`), in
    /// its order.
    ///
    /// ```
    /// use claudio::HookEvent;
    /// assert_eq!(HookEvent::KNOWN.len(), 35);
    /// assert!(HookEvent::KNOWN.contains(&HookEvent::PreSkillShellCommand));
    /// ```
    pub const KNOWN: [HookEvent; 35] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::PostToolBatch,
        HookEvent::Notification,
        HookEvent::UserPromptSubmit,
        HookEvent::UserPromptExpansion,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::Stop,
        HookEvent::StopFailure,
        HookEvent::Interrupt,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
        HookEvent::PreCompact,
        HookEvent::PostCompact,
        HookEvent::PreModelSwitch,
        HookEvent::PostModelSwitch,
        HookEvent::PermissionRequest,
        HookEvent::PermissionDenied,
        HookEvent::Setup,
        HookEvent::TeammateIdle,
        HookEvent::TaskCreated,
        HookEvent::TaskCompleted,
        HookEvent::Elicitation,
        HookEvent::ElicitationResult,
        HookEvent::ConfigChange,
        HookEvent::WorktreeCreate,
        HookEvent::WorktreeRemove,
        HookEvent::InstructionsLoaded,
        HookEvent::CwdChanged,
        HookEvent::FileChanged,
        HookEvent::DirectoryAdded,
        HookEvent::MessageDisplay,
        HookEvent::PreSkillShellCommand,
    ];
}

string_enum!(
    /// What started a compaction ([`PreCompactInput`](super::hooks::PreCompactInput),
    /// [`PostCompactInput`](super::hooks::PostCompactInput),
    /// [`CompactMetadata`](super::CompactMetadata)).
    CompactTrigger {
        /// `/compact`.
        Manual = "manual",
        /// The context filled up.
        Auto = "auto",
    }
);

string_enum!(
    /// What changed the model ([`ModelSwitchInput`](super::hooks::ModelSwitchInput)).
    ModelSwitchSource {
        /// `/model <name>`, the `/config` Model row, or fast mode.
        Command = "command",
        /// An interactive model picker.
        Picker = "picker",
        /// The host's `set_model` (SDK, Remote Control, IDE).
        Sdk = "sdk",
        /// An automatic fallback or another programmatic change
        /// (`PostModelSwitch` only).
        Auto = "auto",
        /// Restored while resuming a session (`PostModelSwitch` only).
        Resume = "resume",
    }
);

string_enum!(
    /// How long the prompt cache lives ([`ModelSwitchInput`](super::hooks::ModelSwitchInput)).
    CacheTtl {
        /// Five minutes.
        FiveMinutes = "5m",
        /// One hour.
        OneHour = "1h",
    }
);

string_enum!(
    /// Where a model switch's cost estimate comes from
    /// ([`ModelSwitchInput`](super::hooks::ModelSwitchInput)).
    ModelPricing {
        /// The managed `modelPricing` setting.
        Configured = "configured",
        /// The list price.
        Catalog = "catalog",
        /// The new model is unknown: the default tier was assumed.
        Default = "default",
    }
);

string_enum!(
    /// Why a session ended ([`SessionEndInput`](super::hooks::SessionEndInput)).
    ExitReason {
        /// `/clear`.
        Clear = "clear",
        /// Another session was resumed.
        Resume = "resume",
        /// `/logout`.
        Logout = "logout",
        /// The person left the prompt.
        PromptInputExit = "prompt_input_exit",
        /// `other`: any other reason.
        Else = "other",
    }
);

string_enum!(
    /// How a session started ([`SessionStartInput`](super::hooks::SessionStartInput)).
    SessionStartSource {
        /// A new session.
        Startup = "startup",
        /// A resumed one.
        Resume = "resume",
        /// After `/clear`.
        Clear = "clear",
        /// After a compaction.
        Compact = "compact",
        /// A fork.
        Fork = "fork",
    }
);

string_enum!(
    /// What ran the `Setup` hooks ([`SetupInput`](super::hooks::SetupInput)).
    SetupTrigger {
        /// `--init`.
        Init = "init",
        /// `--maintenance`.
        Maintenance = "maintenance",
    }
);

string_enum!(
    /// The API error a turn ended on ([`StopFailureInput`](super::hooks::StopFailureInput)).
    AssistantError {
        /// The credentials were refused.
        AuthenticationFailed = "authentication_failed",
        /// The OAuth organization is not allowed.
        OauthOrgNotAllowed = "oauth_org_not_allowed",
        /// The account is on hold.
        AccountOnHold = "account_on_hold",
        /// The account needs verifying.
        VerificationRequired = "verification_required",
        /// A billing problem.
        BillingError = "billing_error",
        /// Rate limited.
        RateLimit = "rate_limit",
        /// The API is overloaded.
        Overloaded = "overloaded",
        /// The request was invalid.
        InvalidRequest = "invalid_request",
        /// No such model.
        ModelNotFound = "model_not_found",
        /// The API failed.
        ServerError = "server_error",
        /// Not known.
        Unknown = "unknown",
        /// The answer hit the output token limit.
        MaxOutputTokens = "max_output_tokens",
        /// A cloud provider's credentials failed.
        CloudCredentialError = "cloud_credential_error",
    }
);

string_enum!(
    /// What a prompt expanded from ([`UserPromptExpansionInput`](super::hooks::UserPromptExpansionInput)).
    ExpansionType {
        /// A slash command or skill.
        SlashCommand = "slash_command",
        /// An MCP prompt.
        McpPrompt = "mcp_prompt",
    }
);

string_enum!(
    /// Who sent a prompt ([`UserPromptSubmitInput`](super::hooks::UserPromptSubmitInput)).
    PromptSource {
        /// The interactive composer.
        User = "user",
        /// A non-interactive entrypoint (`-p`, an SDK host).
        Sdk = "sdk",
        /// Another machine-made turn (peer or channel messages, task
        /// notifications, auto-continuation).
        System = "system",
        /// A `/loop` wakeup.
        LoopWakeup = "loop_wakeup",
        /// A scheduled task fired.
        ScheduleWakeup = "schedule_wakeup",
        /// The poll-event channel.
        PollEvent = "poll_event",
    }
);

string_enum!(
    /// What changed ([`ConfigChangeInput`](super::hooks::ConfigChangeInput)).
    ConfigSource {
        /// `~/.claude/settings.json`.
        UserSettings = "user_settings",
        /// `.claude/settings.json`.
        ProjectSettings = "project_settings",
        /// `.claude/settings.local.json`.
        LocalSettings = "local_settings",
        /// Managed policy settings.
        PolicySettings = "policy_settings",
        /// The skills.
        Skills = "skills",
    }
);

string_enum!(
    /// How a directory was added ([`DirectoryAddedInput`](super::hooks::DirectoryAddedInput)).
    DirectorySource {
        /// `/add-dir`.
        SlashCommand = "slash_command",
        /// The SDK's `register_repo_root` request.
        RegisterRepoRoot = "register_repo_root",
    }
);

string_enum!(
    /// What happened to a watched file ([`FileChangedInput`](super::hooks::FileChangedInput)).
    FileEvent {
        /// It changed.
        Change = "change",
        /// It appeared.
        Add = "add",
        /// It was removed.
        Unlink = "unlink",
    }
);

string_enum!(
    /// Which instructions file was loaded ([`InstructionsLoadedInput`](super::hooks::InstructionsLoadedInput)).
    MemoryType {
        /// The person's own.
        User = "User",
        /// The project's.
        Project = "Project",
        /// The project's local one.
        Local = "Local",
        /// Managed.
        Managed = "Managed",
    }
);

string_enum!(
    /// Why an instructions file was loaded ([`InstructionsLoadedInput`](super::hooks::InstructionsLoadedInput)).
    LoadReason {
        /// At the session's start.
        SessionStart = "session_start",
        /// Found walking into a directory.
        NestedTraversal = "nested_traversal",
        /// A path glob matched.
        PathGlobMatch = "path_glob_match",
        /// Included by another file.
        Include = "include",
        /// After a compaction.
        Compact = "compact",
    }
);

string_enum!(
    /// How an MCP elicitation asks ([`ElicitationInput`](super::hooks::ElicitationInput)).
    ElicitationMode {
        /// A form.
        Form = "form",
        /// A URL to open.
        Url = "url",
    }
);

string_enum!(
    /// How an MCP elicitation was answered ([`ElicitationResultInput`](super::hooks::ElicitationResultInput)).
    ElicitationAction {
        /// Accepted.
        Accept = "accept",
        /// Declined.
        Decline = "decline",
        /// Cancelled.
        Cancel = "cancel",
    }
);

string_enum!(
    /// What a "send now" did ([`Interrupted::send_now`](super::Interrupted::send_now);
    /// [`Client::send_queued_now`](crate::Client::send_queued_now)).
    SendNow {
        /// The running turn was stopped for what waits; its result follows.
        Stopped = "stopped",
        /// A message waits, and no turn was stopped: it runs when its place
        /// comes (or the turn is already being stopped, or taking it in).
        Delivering = "delivering",
        /// No user message waited (with a uuid: not that one); nothing done.
        NothingWaiting = "nothing_waiting",
    }
);

string_enum!(
    /// Who stopped the turn ([`InterruptInput::source`](super::hooks::InterruptInput::source)).
    InterruptSource {
        /// A person, and any client request or denial that does not say who
        /// sent it (an SDK program's `interrupt()`).
        User = "user",
        /// Another session's Claude.
        Session = "session",
        /// A `PermissionRequest` hook, a plugin, a permission check, or an
        /// app or service that says it acted by itself.
        System = "system",
    }
);

string_enum!(
    /// What ended the turn ([`InterruptInput::reason`](super::hooks::InterruptInput::reason)).
    InterruptReason {
        /// A stop: Esc, Ctrl+C, an interrupt request.
        Stop = "stop",
        /// A denied permission.
        PermissionDenied = "permission_denied",
        /// A return to an earlier message, or to edit the prompt.
        Rewind = "rewind",
        /// Anything else.
        Else = "other",
    }
);

string_enum!(
    /// How a stop arrived ([`InterruptInput::via`](super::hooks::InterruptInput::via)).
    InterruptVia {
        /// At the CLI's own terminal.
        Terminal = "terminal",
        /// As a request from an app, a phone, an SDK program or a service.
        Client = "client",
    }
);

string_enum!(
    /// Who started loading a skill whose `` !`cmd` `` is about to run
    /// ([`PreSkillShellCommandInput`](super::hooks::PreSkillShellCommandInput)).
    InvokedBy {
        /// The person typed it, or an SDK host sent it.
        User = "user",
        /// The model (the `Skill` tool, or a turn it scheduled).
        Claude = "claude",
        /// `other`: anything else (a sub-agent's preload, a channel
        /// message), or not known.
        Else = "other",
    }
);

string_enum!(
    /// Who decided a permission answer (`decisionClassification`, sent with
    /// it; see [`PermissionResult::classified`](crate::PermissionResult::classified)).
    /// The CLI keeps it in the call's record and its telemetry; unset, it
    /// infers `user_temporary` for an allow and `user_reject` for a deny. A
    /// CLI older than 2.1.336 ignores it.
    DecisionClassification {
        /// A person allowed this call once.
        UserTemporary = "user_temporary",
        /// A person allowed it always (for the session, or saved): the click
        /// and the later calls the grant allows.
        UserPermanent = "user_permanent",
        /// A person refused it.
        UserReject = "user_reject",
        /// The host decided by itself, nobody asked (a mode, a policy, a
        /// rule no person's answer made). CLI 2.1.336.
        Config = "config",
    }
);

string_enum!(
    /// How an `AskUserQuestion` question went unanswered
    /// (`annotations[question].unanswered`; see
    /// [`ask::Answer::Skipped`](super::ask::Answer::Skipped)).
    Unanswered {
        /// The person skipped it (no preference).
        Skipped = "skipped",
        /// The person sent a chat message instead.
        RepliedInChat = "replied_in_chat",
        /// The person closed the card.
        Dismissed = "dismissed",
    }
);

string_enum!(
    /// Why the CLI could not start
    /// ([`ResultMessage::startup_failure_reason`](super::ResultMessage::startup_failure_reason)):
    /// set on the zeroed `error_during_execution` result a stream-json run
    /// writes before it exits; `errors` has the message.
    StartupFailureReason {
        /// The organization pin and the API key disagree.
        OrgPinApiKeyConflict = "org_pin_api_key_conflict",
        /// The API provider is not allowed.
        ProviderNotAllowed = "provider_not_allowed",
        /// The organization could not be verified.
        OrgVerifyFailed = "org_verify_failed",
        /// The organization is not the pinned one.
        OrgPinMismatch = "org_pin_mismatch",
        /// The managed settings are invalid.
        ManagedSettingsInvalid = "managed_settings_invalid",
        /// Required remote settings could not be fetched.
        RemoteSettingsRequiredUnavailable = "remote_settings_required_unavailable",
        /// The gateway needs a sign-in.
        GatewaySigninRequired = "gateway_signin_required",
        /// The gateway refused access.
        GatewayAccessDenied = "gateway_access_denied",
        /// The proxy setting is invalid.
        ProxyInvalid = "proxy_invalid",
        /// The temporary directory cannot be used.
        TempDirUnusable = "temp_dir_unusable",
        /// The working directory no longer exists (seen with 2.1.332).
        CwdUnavailable = "cwd_unavailable",
        /// No shell to run the shell tool.
        ShellToolMissing = "shell_tool_missing",
        /// A background session holds the session.
        SessionHeldByBackground = "session_held_by_background",
        /// The worktree session cannot be resumed.
        WorktreeResumeRefused = "worktree_resume_refused",
        /// The worktree could not be verified.
        WorktreeUnverified = "worktree_unverified",
        /// The CLI is older than required.
        CliVersionTooOld = "cli_version_too_old",
        /// Bypass mode as root is refused.
        BypassRoot = "bypass_root",
        /// Required organization configuration could not be fetched.
        OrgConfigRequiredUnavailable = "org_config_required_unavailable",
        /// The organization configuration refused the session.
        OrgConfigRefused = "org_config_refused",
        /// A sandbox is required and unavailable.
        SandboxRequiredUnavailable = "sandbox_required_unavailable",
        /// Something came before `initialize`.
        InitializeNotFirst = "initialize_not_first",
        /// A config file is not valid JSON.
        ConfigFileInvalid = "config_file_invalid",
        /// The managed settings were not delivered.
        ManagedSettingsNotDelivered = "managed_settings_not_delivered",
        /// The `initialize` fields were not delivered.
        InitializeFieldsNotDelivered = "initialize_fields_not_delivered",
        /// Flags that load code from the side (plugin directories and the
        /// like) are turned off (new in the TypeScript SDK 0.3.333).
        SideloadFlagsDisabled = "sideload_flags_disabled",
        /// `--resume` named a session the CLI has no transcript for
        /// (CLI 2.1.336 and later; older ones write the result without a
        /// reason).
        ResumeTargetNotFound = "resume_target_not_found",
        /// The consumer terms must be reviewed in a terminal first
        /// (CLI 2.1.336).
        ConsumerTermsReviewInTerminal = "consumer_terms_review_in_terminal",
        /// The consumer terms must be accepted on the web first (CLI 2.1.336).
        ConsumerTermsAcceptOnWeb = "consumer_terms_accept_on_web",
        /// The organization's sign-in ended (CLI 2.1.336).
        OrgSigninEnded = "org_signin_ended",
    }
);

impl StartupFailureReason {
    /// The reason in a few words, for people (`no such session`); `None`
    /// for a reason this crate does not know (the CLI's `errors` say it).
    ///
    /// ```
    /// use claudio::protocol::StartupFailureReason;
    /// assert_eq!(StartupFailureReason::ResumeTargetNotFound.words(), Some("no such session"));
    /// assert_eq!(StartupFailureReason::Other("x".into()).words(), None);
    /// ```
    pub fn words(&self) -> Option<&'static str> {
        use StartupFailureReason as R;
        Some(match self {
            R::OrgPinApiKeyConflict => "the organization pin and the API key disagree",
            R::ProviderNotAllowed => "the API provider is not allowed",
            R::OrgVerifyFailed => "the organization could not be verified",
            R::OrgPinMismatch => "the organization is not the pinned one",
            R::ManagedSettingsInvalid => "the managed settings are invalid",
            R::RemoteSettingsRequiredUnavailable => "required remote settings are unavailable",
            R::GatewaySigninRequired => "the gateway needs a sign-in",
            R::GatewayAccessDenied => "the gateway refused access",
            R::ProxyInvalid => "the proxy setting is invalid",
            R::TempDirUnusable => "the temporary directory cannot be used",
            R::CwdUnavailable => "the working directory no longer exists",
            R::ShellToolMissing => "no shell for the shell tool",
            R::SessionHeldByBackground => "a background session holds the session",
            R::WorktreeResumeRefused => "the worktree session cannot be resumed",
            R::WorktreeUnverified => "the worktree could not be verified",
            R::CliVersionTooOld => "the CLI is too old",
            R::BypassRoot => "bypass mode is refused as root",
            R::OrgConfigRequiredUnavailable => "required organization configuration is unavailable",
            R::OrgConfigRefused => "the organization configuration refused the session",
            R::SandboxRequiredUnavailable => "a required sandbox is unavailable",
            R::InitializeNotFirst => "something came before initialize",
            R::ConfigFileInvalid => "a config file is not valid JSON",
            R::ManagedSettingsNotDelivered => "the managed settings were not delivered",
            R::InitializeFieldsNotDelivered => "the initialize fields were not delivered",
            R::SideloadFlagsDisabled => "side-loading flags are turned off",
            R::ResumeTargetNotFound => "no such session",
            R::ConsumerTermsReviewInTerminal => "the terms must be reviewed in a terminal first",
            R::ConsumerTermsAcceptOnWeb => "the terms must be accepted on the web first",
            R::OrgSigninEnded => "the organization's sign-in ended",
            R::Other(_) => return None,
        })
    }
}

string_enum!(
    /// Where a user message or result came from
    /// ([`MessageOrigin::kind`](super::MessageOrigin::kind)).
    OriginKind {
        /// A person at the keyboard.
        Human = "human",
        /// An MCP channel.
        Channel = "channel",
        /// Another session.
        Peer = "peer",
        /// A task's notification (see [`OriginSubkind`]).
        TaskNotification = "task-notification",
        /// The coordinator.
        Coordinator = "coordinator",
        /// Not classified.
        Unclassified = "unclassified",
        /// An observer.
        Observer = "observer",
        /// The CLI continued on its own.
        AutoContinuation = "auto-continuation",
        /// An observer's activity.
        ObserverActivity = "observer-activity",
    }
);

string_enum!(
    /// What kind of task notification a message is
    /// ([`MessageOrigin::subkind`](super::MessageOrigin::subkind)).
    OriginSubkind {
        /// A scheduled task's stored prompt fired.
        ScheduledTrigger = "scheduled-trigger",
        /// A co-member session's `SendMessage`.
        PeerSendMessage = "peer-send-message",
        /// Relayed from a project.
        ProjectsRelay = "projects-relay",
        /// The session's inbox.
        SessionInbox = "session-inbox",
        /// The server's notice of an event outside the session (a
        /// webhook's); its text can quote a third party (new in the
        /// TypeScript SDK 0.3.333).
        ExternalEvent = "external-event",
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
    /// Where a permission rule comes from
    /// ([`RuleEntry::source`](super::RuleEntry::source)), as the CLI
    /// (2.1.336) names its sources; a later CLI's are kept as `Other`.
    ///
    /// ```
    /// use claudio::protocol::RuleSource;
    /// assert_eq!(RuleSource::from_name("localSettings"), RuleSource::LocalSettings);
    /// assert_eq!(RuleSource::from_name("moon").as_str(), "moon");
    /// ```
    RuleSource {
        /// `~/.claude/settings.json`.
        UserSettings = "userSettings",
        /// `.claude/settings.json`.
        ProjectSettings = "projectSettings",
        /// `.claude/settings.local.json`.
        LocalSettings = "localSettings",
        /// `--settings` (a file or JSON on the command line).
        FlagSettings = "flagSettings",
        /// Managed (enterprise) settings.
        PolicySettings = "policySettings",
        /// The command line's flags (`--allowedTools`, ...).
        CliArg = "cliArg",
        /// A slash command's `allowed-tools`.
        Command = "command",
        /// Approved in this session.
        Session = "session",
        /// An MCP server's mount.
        McpMount = "mcpMount",
        /// A narrowing of the tool set.
        ToolsNarrowing = "toolsNarrowing",
        /// An MCP server policy.
        McpServerPolicy = "mcpServerPolicy",
        /// A host credential.
        HostCredential = "hostCredential",
    }
);

string_enum!(
    /// Whether and where a permission rule can be changed
    /// ([`RuleEntry::editability`](super::RuleEntry::editability)).
    ///
    /// ```
    /// use claudio::protocol::RuleEditability;
    /// assert_eq!(RuleEditability::from_name("readonly"), RuleEditability::Readonly);
    /// ```
    RuleEditability {
        /// Saved in a settings file (user, project or local settings).
        Persistent = "persistent",
        /// In memory for the rest of this session (`cliArg`, `session`).
        Session = "session",
        /// Not changed from the session: managed or flag settings, a
        /// command's, or a rule not in effect.
        Readonly = "readonly",
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

string_enum!(
    /// Where a background task or sub-agent is (`status` of
    /// `task_notification`, `patch.status` of `task_updated`). See
    /// [`TaskStatus::is_final`].
    TaskStatus {
        /// Registered, not started.
        Pending = "pending",
        /// At work.
        Running = "running",
        /// Paused; it may go on.
        Paused = "paused",
        /// Finished its work.
        Completed = "completed",
        /// Ended in an error.
        Failed = "failed",
        /// Killed (by the person, the host or the CLI).
        Killed = "killed",
        /// Stopped (`task_notification`'s word for a killed task).
        Stopped = "stopped",
    }
);

impl TaskStatus {
    /// Whether a task in this status does no more work: completed, failed,
    /// killed or stopped. `cancelled`, `canceled` and `error` (not in the
    /// TypeScript SDK 0.3.333's list, but ending words) count as final too;
    /// any other name this crate does not know does not (a task is taken as
    /// working until a final word comes, or a `background_tasks_changed`
    /// list leaves it out).
    ///
    /// ```
    /// use claudio::protocol::TaskStatus;
    /// assert!(TaskStatus::Completed.is_final());
    /// assert!(!TaskStatus::Running.is_final());
    /// assert!(TaskStatus::from_name("cancelled").is_final());
    /// assert!(!TaskStatus::from_name("thinking").is_final());
    /// ```
    pub fn is_final(&self) -> bool {
        match self {
            TaskStatus::Completed
            | TaskStatus::Failed
            | TaskStatus::Killed
            | TaskStatus::Stopped => true,
            TaskStatus::Pending | TaskStatus::Running | TaskStatus::Paused => false,
            TaskStatus::Other(s) => matches!(s.as_str(), "cancelled" | "canceled" | "error"),
        }
    }
}

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
        for e in HookEvent::KNOWN {
            assert_eq!(HookEvent::from_name(e.as_str()), e);
            assert!(!matches!(e, HookEvent::Other(_)));
        }
        let mut names: Vec<&str> = HookEvent::KNOWN.iter().map(HookEvent::as_str).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 35);
        assert_eq!(
            HookEvent::from_name("PreSkillShellCommand"),
            HookEvent::PreSkillShellCommand
        );
        assert_eq!(ExitReason::from_name("other"), ExitReason::Else);
        assert_eq!(InvokedBy::Else.as_str(), "other");
        assert_eq!(CacheTtl::from_name("1h"), CacheTtl::OneHour);
        let c: CommandState = serde_json::from_value(json!("completed")).unwrap();
        assert_eq!(c, CommandState::Completed);
        assert_eq!(
            CommandState::from_name("paused"),
            CommandState::Other("paused".into())
        );
        let t: TaskStatus = serde_json::from_value(json!("killed")).unwrap();
        assert_eq!(t, TaskStatus::Killed);
        assert_eq!(CompactTrigger::from_name("auto"), CompactTrigger::Auto);
    }
}
