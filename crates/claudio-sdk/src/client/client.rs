//! A multi-turn session with one CLI process.

use super::events::{Incoming, Queued};
use super::router::{drive, Handlers, Shared};
use crate::error::{Error, Result};
use crate::options::{Launch, McpDelivery, Options};
use crate::protocol::{
    AccountInfo, AgentInfo, ContextUsage, Interrupted, McpCallResult, McpResource, McpSetServers,
    McpStatus, Message, ModeSet, ModelInfo, ModelSet, PermissionMode, ResultMessage, RewindFiles,
    ServerInfo, Settings, SlashCommand, TaskOutput, UserInput,
};
use crate::transport::{find_cli, spawn, ExitInfo, SpawnSpec, Spawned, STDERR_DRAIN};
use futures_core::Stream;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

/// A message together with the exact line it came from.
#[derive(Debug, Clone)]
pub struct RawMessage {
    /// The decoded message.
    pub message: Message,
    /// The line's bytes as the CLI wrote them (without the `\n`).
    pub raw: Vec<u8>,
}

/// A live session: one CLI process across turns.
///
/// ```no_run
/// # async fn demo() -> claudio::Result<()> {
/// use claudio::{Client, Message, Options, StreamExt};
/// let client = Client::connect(Options::default()).await?;
/// client.send("What is 2 + 2?").await?;
/// {
///     let mut turn = std::pin::pin!(client.receive_response());
///     while let Some(msg) = turn.next().await {
///         if let Message::Result(r) = msg? {
///             println!("{}", r.result.unwrap_or_default());
///         }
///     }
/// }
/// client.close().await?;
/// # Ok(()) }
/// ```
///
/// Every method takes `&self`: a turn can be read while another task calls
/// [`Client::interrupt`]. Dropping a `Client` without [`Client::close`] still
/// stops the process in the background (and kills it if the runtime goes away).
pub struct Client {
    shared: Arc<Shared>,
    driver: Mutex<Option<JoinHandle<()>>>,
    server_info: ServerInfo,
    closed: AtomicBool,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("pid", &self.pid())
            .field("session_id", &self.session_id())
            .field("closed", &self.closed.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Start the CLI and complete the `initialize` handshake.
    ///
    /// ```no_run
    /// # async fn demo() -> claudio::Result<()> {
    /// use claudio::{Client, Options};
    /// let client = Client::connect(Options::default().model("sonnet")).await?;
    /// let version = client.server_info().claude_code_version.clone();
    /// println!("claude {}", version.unwrap_or_default());
    /// client.close().await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(options: Options) -> Result<Client> {
        Self::connect_inner(options, false).await
    }

    /// Like [`Client::connect`], but keeps each message's raw line, for
    /// [`Client::next_raw`] (verbatim output).
    ///
    /// ```no_run
    /// # async fn demo() -> claudio::Result<()> {
    /// use claudio::{Client, Options};
    /// let client = Client::connect_keeping_raw(Options::default()).await?;
    /// client.send("Hello").await?;
    /// while let Some(line) = client.next_raw().await {
    ///     let line = line?;
    ///     println!("{}", String::from_utf8_lossy(&line.raw)); // as the CLI wrote it
    ///     if line.message.is_result() {
    ///         break;
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn connect_keeping_raw(options: Options) -> Result<Client> {
        Self::connect_inner(options, true).await
    }

    async fn connect_inner(options: Options, keep_raw: bool) -> Result<Client> {
        let program = find_cli(options.cli_path.as_deref())?;
        // MCP servers given as JSON go in `initialize`, as the TypeScript
        // SDK sends them; a CLI that does not take them there gets them in
        // a private file instead (never on its command line).
        if !options.initialize_mcp_servers().is_empty() {
            match Self::start(&program, &options, keep_raw, McpDelivery::Initialize).await {
                Ok(client) => return Ok(client),
                Err(Start::Failed(e)) => return Err(e),
                Err(Start::NotApplied(why)) => tracing::warn!(
                    why,
                    "the CLI did not load the MCP servers sent in `initialize`; \
                     starting it again with them in a private file"
                ),
            }
        }
        match Self::start(&program, &options, keep_raw, McpDelivery::Files).await {
            Ok(client) => Ok(client),
            Err(Start::Failed(e)) => Err(e),
            // not asked for with files
            Err(Start::NotApplied(why)) => Err(Error::Protocol(why)),
        }
    }

    /// Start the CLI once, MCP servers given as JSON going as `delivery`
    /// says, and complete the handshake.
    async fn start(
        program: &std::path::Path,
        options: &Options,
        keep_raw: bool,
        delivery: McpDelivery,
    ) -> std::result::Result<Client, Start> {
        let started = std::time::Instant::now();
        let launch = options.launch(delivery).map_err(|e| {
            Start::Failed(Error::Spawn {
                path: program.to_path_buf(),
                source: std::io::Error::new(
                    e.kind(),
                    format!("could not write the settings and MCP servers to a private file: {e}"),
                ),
            })
        })?;
        let init_servers = launch.init_servers.clone();
        let Spawned {
            stdin,
            stdout,
            supervisor,
        } = spawn(&spawn_spec(program.to_path_buf(), options, launch))
            .await
            .map_err(Start::Failed)?;
        let (handlers, hooks) = Handlers::from_options(options);
        let shared = Shared::new(stdin, supervisor, handlers, options, keep_raw);
        let driver = tokio::spawn(drive(shared.clone(), stdout, options.max_line_bytes));
        let mut client = Client {
            shared,
            driver: Mutex::new(Some(driver)),
            server_info: ServerInfo::default(),
            closed: AtomicBool::new(false),
        };
        let mut init = Map::new();
        if let Some(h) = hooks {
            init.insert("hooks".into(), h);
        }
        if !options.agents.is_empty() {
            init.insert("agents".into(), json!(options.agents));
        }
        let servers_sent = !init_servers.is_empty();
        if servers_sent {
            init.insert("mcpServers".into(), Value::Object(init_servers));
        }
        match client
            .shared
            .request("initialize", Value::Object(init), options.init_timeout)
            .await
        {
            Ok(info) => {
                tracing::debug!(
                    ms = started.elapsed().as_millis() as u64,
                    "initialize answered"
                );
                // As the TypeScript SDK reads it: anything but `true` (a
                // missing field included) is "not loaded".
                let applied = info.get("mcp_servers_applied").and_then(Value::as_bool);
                if servers_sent && applied != Some(true) {
                    let _ = client.close().await;
                    return Err(Start::NotApplied(format!(
                        "mcp_servers_applied was {}",
                        applied.map_or("missing".into(), |b| b.to_string())
                    )));
                }
                client.server_info = decode_reply(info);
                Ok(client)
            }
            Err(e) => {
                client.closed.store(true, Ordering::SeqCst);
                client
                    .shared
                    .supervisor
                    .signal_group(rustix::process::Signal::Kill);
                if servers_sent && matches!(e, Error::ProcessExited { .. } | Error::Io(_)) {
                    // A CLI older than 2.1.326 refuses the flag and exits
                    // (its last words may still be on their way).
                    client.shared.supervisor.stderr_drained(STDERR_DRAIN).await;
                    let tail = client.stderr_tail();
                    if tail.contains("unknown option '--await-initialize'") {
                        return Err(Start::NotApplied(format!(
                            "the CLI refused --await-initialize: {}",
                            tail.trim()
                        )));
                    }
                }
                // A CLI that cannot start the session writes a result
                // saying why before it answers `initialize`, then exits:
                // that result is the error.
                let said = client.shared.queue.take_first(
                    |m| matches!(m, Ok(Queued::Message(Incoming { message: Message::Result(r), .. })) if r.is_error),
                );
                if let Some(Ok(Queued::Message(Incoming {
                    message: Message::Result(result),
                    ..
                }))) = said
                {
                    client.shared.supervisor.stderr_drained(STDERR_DRAIN).await;
                    let code = match &e {
                        Error::ProcessExited { code, .. } => *code,
                        _ => None,
                    };
                    return Err(Start::Failed(Error::StartupFailed {
                        result,
                        code,
                        stderr_tail: client.stderr_tail(),
                    }));
                }
                Err(Start::Failed(match e {
                    Error::ControlTimeout { .. } => Error::InitTimeout(options.init_timeout),
                    other => other,
                }))
            }
        }
    }

    /// What the CLI offers this session, from its answer to `initialize`:
    /// slash commands, sub-agents, models, the account, its version.
    ///
    /// ```no_run
    /// # fn demo(client: &claudio::Client) {
    /// let info = client.server_info();
    /// println!("claude {}", info.claude_code_version.as_deref().unwrap_or("?"));
    /// for command in &info.commands {
    ///     println!("/{} {}", command.name, command.description);
    /// }
    /// # }
    /// ```
    pub fn server_info(&self) -> &ServerInfo {
        &self.server_info
    }

    /// The session id, once the CLI has told it (at the first turn).
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use claudio::Options;
    /// client.turn("Remember the number 7").await?;
    /// let id = client.session_id().expect("told at the first turn");
    /// let later = Options::default().resume(id); // to go on in another process
    /// # let _ = later; Ok(()) }
    /// ```
    pub fn session_id(&self) -> Option<String> {
        self.shared.session_id()
    }

    /// The CLI's process id.
    pub fn pid(&self) -> u32 {
        self.shared.supervisor.pid()
    }

    /// The CLI's recent stderr.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// if let Err(e) = client.turn("Hello").await {
    ///     eprintln!("{e}\n--- the CLI's stderr ---\n{}", client.stderr_tail());
    /// }
    /// # Ok(()) }
    /// ```
    pub fn stderr_tail(&self) -> String {
        self.shared.supervisor.stderr_tail()
    }

    /// Whether a turn is running (sent, no `result` yet).
    pub fn turn_open(&self) -> bool {
        self.shared.turn_open()
    }

    /// Send a user message: text, content blocks, or a [`UserInput`].
    /// Messages sent while a turn runs are queued by the CLI (see
    /// [`crate::Priority`]).
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use claudio::{ContentBlock, Priority, UserInput};
    /// client.send("List the files here").await?;
    /// // while that turn runs: content blocks, taken at once
    /// let now = UserInput::from(vec![ContentBlock::text("Stop; look at tests/ first")])
    ///     .priority(Priority::Now);
    /// client.send(now).await?;
    /// # Ok(()) }
    /// ```
    pub async fn send(&self, input: impl Into<UserInput>) -> Result<()> {
        self.shared.send_user(&input.into().to_value()).await
    }

    /// The next message of the session, in order; `None` once the process has
    /// ended and everything was read.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use claudio::Message;
    /// client.send("Hello").await?;
    /// while let Some(msg) = client.next_message().await {
    ///     match msg? {
    ///         Message::Assistant(a) => print!("{}", a.text()),
    ///         Message::Result(_) => break, // the turn is over
    ///         _ => {}
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn next_message(&self) -> Option<Result<Message>> {
        self.next_incoming().await.map(|r| r.map(|i| i.message))
    }

    /// Like [`Client::next_message`] with the raw line (empty unless the
    /// client was made with [`Client::connect_keeping_raw`]).
    ///
    /// See [`Client::connect_keeping_raw`] for an example.
    pub async fn next_raw(&self) -> Option<Result<RawMessage>> {
        self.next_incoming().await.map(|r| {
            r.map(|i| RawMessage {
                message: i.message,
                raw: i.raw.map(Vec::from).unwrap_or_default(),
            })
        })
    }

    /// The next message; the events between messages are passed over
    /// (a request passed over by everyone gets its default answer: see
    /// [`Responder`](crate::Responder)).
    async fn next_incoming(&self) -> Option<Result<Incoming>> {
        loop {
            match self.shared.queue.pop().await? {
                Ok(Queued::Message(m)) => return Some(Ok(m)),
                Ok(Queued::Event(_)) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// The queue, for [`Client::next_event`](crate::Client::next_event).
    pub(super) fn shared(&self) -> &Shared {
        &self.shared
    }

    /// This turn's messages, ending after its `result` (included) or a fatal error.
    ///
    /// Messages come in the order the CLI wrote them, across turns. Some
    /// arrive between turns, in answer to a host request rather than a
    /// prompt, and so open the next turn's stream (all seen with the CLI
    /// 2.1.328):
    /// - [`SystemMessage::Status`](crate::SystemMessage::Status) with
    ///   [`permission_mode`](crate::protocol::SystemStatus::permission_mode)
    ///   set, after [`Client::set_permission_mode`] or an approved plan
    ///   (none when the mode was already in force);
    /// - a [`Message::User`] whose
    ///   [`local_command_stdout`](crate::UserMessage::local_command_stdout)
    ///   is ``Set model to `…` ``, right after [`Client::set_model`] once
    ///   a turn has run (`is_replay` set; nothing was sent to the model);
    /// - [`Message::CommandLifecycle`] for a prompt sent with a `uuid`
    ///   ([`UserInput::uuid`]): `queued` and `started` come before its
    ///   turn's `system`/`init`, but `completed` comes right after its
    ///   `result`, so it opens the next stream;
    /// - `system`/`task_*` and `background_tasks_changed` of background
    ///   sub-agents and shells, and, when one reports, a whole turn the CLI
    ///   starts by itself (its `result` carries `origin`);
    /// - `system`/`model_fallback` when `Options::fallback_models` is used.
    ///
    /// A `system`/`init` starts each turn the CLI runs for a prompt: skip to
    /// it to read only what a prompt caused.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use claudio::{Message, StreamExt};
    /// client.send("Explain src/lib.rs").await?;
    /// let mut turn = client.receive_response(); // `Unpin`: no `pin!` needed
    /// while let Some(msg) = turn.next().await {
    ///     match msg? {
    ///         Message::Assistant(a) => print!("{}", a.text()),
    ///         Message::Result(r) => println!("\n{} turns", r.num_turns.unwrap_or(0)),
    ///         _ => {}
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn receive_response(&self) -> impl Stream<Item = Result<Message>> + Unpin + Send + '_ {
        // boxed: `Unpin`, so `.next()` works on it without a `pin!`
        Box::pin(futures_util::stream::unfold(
            false,
            move |done| async move {
                if done {
                    return None;
                }
                let item = self.next_message().await?;
                let end = match &item {
                    Ok(m) => m.is_result(),
                    Err(e) => !matches!(e, Error::LineTooLong { .. }),
                };
                Some((item, end))
            },
        ))
    }

    /// Send `input` and collect its turn: every message through the
    /// `result`, and the `result` itself. Saves the `pin!` and the loop:
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// let turn = client.turn("What is 6 × 7?").await?;
    /// println!("{} (${:.4})", turn.text(), turn.result.total_cost_usd.unwrap_or(0.0));
    /// # Ok(()) }
    /// ```
    ///
    /// A session that ends before the `result` is an error (the CLI's exit,
    /// with its stderr tail); a line too long to read is skipped.
    pub async fn turn(&self, input: impl Into<UserInput>) -> Result<Turn> {
        self.send(input).await?;
        let mut messages = Vec::new();
        loop {
            match self.next_message().await {
                None => return Err(Error::Closed),
                Some(Err(Error::LineTooLong { .. })) => continue,
                Some(Err(e)) => return Err(e),
                Some(Ok(Message::Result(r))) => {
                    return Ok(Turn {
                        messages,
                        result: *r,
                    })
                }
                Some(Ok(m)) => messages.push(m),
            }
        }
    }

    /// Every message, across turns, until the process ends.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use claudio::StreamExt;
    /// let mut all = client.receive_messages();
    /// while let Some(msg) = all.next().await {
    ///     let msg = msg?;
    ///     println!("{} {}", msg.kind(), msg.session_id().unwrap_or(""));
    /// }
    /// # Ok(()) }
    /// ```
    pub fn receive_messages(&self) -> impl Stream<Item = Result<Message>> + Unpin + Send + '_ {
        Box::pin(futures_util::stream::unfold((), move |()| async move {
            self.next_message().await.map(|m| (m, ()))
        }))
    }

    /// Send any control request and return the CLI's answer payload.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use serde_json::json;
    /// // the payload as the CLI sent it (here what `context_usage` decodes)
    /// let reply = client.control("get_context_usage", json!({})).await?;
    /// println!("{} tokens in use", reply["totalTokens"]);
    /// # Ok(()) }
    /// ```
    pub async fn control(&self, subtype: &str, fields: Value) -> Result<Value> {
        self.shared
            .request(subtype, fields, self.shared.control_timeout)
            .await
    }

    /// Stop the running turn. The turn still ends with its `result`
    /// (`terminal_reason` `aborted_streaming`); the session goes on.
    ///
    /// ```no_run
    /// # async fn demo(client: std::sync::Arc<claudio::Client>) -> claudio::Result<()> {
    /// use std::time::Duration;
    /// client.send("Write a long essay").await?;
    /// let stopper = client.clone();
    /// tokio::spawn(async move {
    ///     tokio::time::sleep(Duration::from_secs(3)).await;
    ///     let _ = stopper.interrupt().await;
    /// });
    /// while let Some(msg) = client.next_message().await {
    ///     if let Some(r) = msg?.as_result() {
    ///         println!("interrupted: {}", r.was_interrupted());
    ///         break;
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn interrupt(&self) -> Result<Interrupted> {
        let v = self.control("interrupt", json!({})).await?;
        Ok(decode_reply(v))
    }

    /// "Send now": the messages waiting behind the running turn (or only
    /// the one whose `uuid` is `message_uuid`) reach the model now, as the
    /// terminal's send-now key does: `interrupt` with `send_now`. It is no
    /// Stop: [`Interrupted::send_now`] says what it did (the turn
    /// stopped for them, they are on their way, or nothing waited).
    ///
    /// Only a CLI whose `system`/`init` lists `interrupt_send_now_v1`
    /// (2.1.332 and later) is asked: an older one would take it for a
    /// plain interrupt and stop the turn. Before the session's first
    /// `system`/`init`, or with an older CLI, this is [`Error::Control`]
    /// with the code `unsupported_request`, and nothing is sent.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use claudio::{store::new_uuid, UserInput};
    /// client.send("Write a long essay").await?;
    /// let id = new_uuid();
    /// client.send(UserInput::from("Make it short").uuid(id.clone())).await?;
    /// let done = client.send_queued_now(Some(&id)).await?;
    /// println!("{:?}", done.send_now); // Some(Stopped): the essay stopped for it
    /// # Ok(()) }
    /// ```
    pub async fn send_queued_now(&self, message_uuid: Option<&str>) -> Result<Interrupted> {
        let supported = self
            .shared
            .init_capabilities()
            .is_some_and(|c| c.has(SEND_NOW_CAPABILITY));
        if !supported {
            return Err(Error::Control {
                subtype: "interrupt".into(),
                message: format!(
                    "the CLI does not say it can send queued messages now (no `{SEND_NOW_CAPABILITY}` in its system/init); nothing was sent"
                ),
                code: Some("unsupported_request".into()),
            });
        }
        let mut fields = json!({"send_now": true});
        if let Some(id) = message_uuid {
            fields["message_uuid"] = json!(id);
        }
        let v = self.control("interrupt", fields).await?;
        Ok(decode_reply(v))
    }

    /// Switch the model (`None`: the default). Takes effect at the next request.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// let set = client.set_model(Some("haiku")).await?;
    /// println!("now {}", set.model.as_deref().unwrap_or("the default"));
    /// client.set_model(None).await?; // back to the default
    /// # Ok(()) }
    /// ```
    pub async fn set_model(&self, model: Option<&str>) -> Result<ModelSet> {
        let v = self.control("set_model", json!({ "model": model })).await?;
        Ok(decode_reply(v))
    }

    /// Switch the permission mode. The CLI confirms a change with a
    /// `system`/`status` message carrying `permissionMode`.
    ///
    /// ```no_run
    /// # async fn f(client: &claudio::Client) -> claudio::Result<()> {
    /// use claudio::PermissionMode;
    /// client.set_permission_mode(PermissionMode::Plan).await?;
    /// // a name typed by a person: checked before it reaches the CLI
    /// let mode: PermissionMode = "acceptEdits".parse().expect("a known mode");
    /// client.set_permission_mode(mode).await?;
    /// # Ok(()) }
    /// ```
    pub async fn set_permission_mode(&self, mode: PermissionMode) -> Result<ModeSet> {
        let v = self
            .control("set_permission_mode", json!({ "mode": mode.as_str() }))
            .await?;
        Ok(decode_reply(v))
    }

    /// The slash commands and skills of the session (from `initialize`, as
    /// the TypeScript SDK's `supportedCommands()`).
    ///
    /// ```no_run
    /// # fn demo(client: &claudio::Client) {
    /// for c in client.supported_commands() {
    ///     println!("/{} {}", c.name, c.argument_hint.as_deref().unwrap_or(""));
    /// }
    /// # }
    /// ```
    pub fn supported_commands(&self) -> &[SlashCommand] {
        &self.server_info.commands
    }

    /// The models the account can use (from `initialize`); see
    /// [`Client::list_models`] for a fresh list.
    ///
    /// ```no_run
    /// # fn demo(client: &claudio::Client) {
    /// for m in client.supported_models() {
    ///     println!("{}: {}", m.value, m.display_name.as_deref().unwrap_or(""));
    /// }
    /// # }
    /// ```
    pub fn supported_models(&self) -> &[ModelInfo] {
        &self.server_info.models
    }

    /// The sub-agents the session can start (from `initialize`).
    ///
    /// ```no_run
    /// # fn demo(client: &claudio::Client) {
    /// for a in client.supported_agents() {
    ///     println!("{}: {}", a.name, a.description);
    /// }
    /// # }
    /// ```
    pub fn supported_agents(&self) -> &[AgentInfo] {
        &self.server_info.agents
    }

    /// Who is signed in, and how (from `initialize`).
    ///
    /// ```no_run
    /// # fn demo(client: &claudio::Client) {
    /// if let Some(email) = client.account_info().and_then(|a| a.email.as_deref()) {
    ///     println!("signed in as {email}");
    /// }
    /// # }
    /// ```
    pub fn account_info(&self) -> Option<&AccountInfo> {
        self.server_info.account.as_ref()
    }

    /// The models the account can use, asked now (`list_models`).
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// for m in client.list_models().await? {
    ///     println!("{} → {}", m.value, m.resolved_model.as_deref().unwrap_or("?"));
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn list_models(&self) -> Result<Vec<ModelInfo>> {
        let v = self.control("list_models", json!({})).await?;
        Ok(v.get("models")
            .cloned()
            .and_then(|m| serde_json::from_value(m).ok())
            .unwrap_or_default())
    }

    /// Set the thinking budget for the next requests (`None`: the
    /// default). Models that think adaptively (all of 2.1.328's defaults)
    /// ignore it; [`Options::effort`] is their setting.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// client.set_max_thinking_tokens(Some(8_000)).await?;
    /// client.turn("Prove that √2 is irrational").await?;
    /// client.set_max_thinking_tokens(None).await?; // the default again
    /// # Ok(()) }
    /// ```
    pub async fn set_max_thinking_tokens(&self, tokens: Option<u32>) -> Result<()> {
        self.control(
            "set_max_thinking_tokens",
            json!({ "max_thinking_tokens": tokens }),
        )
        .await
        .map(drop)
    }

    /// Turn an MCP server off or on again (`mcp_toggle`).
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// client.mcp_toggle("github", false).await?; // its tools are gone
    /// client.turn("Work offline for this one").await?;
    /// client.mcp_toggle("github", true).await?;
    /// # Ok(()) }
    /// ```
    pub async fn mcp_toggle(&self, server: &str, enabled: bool) -> Result<()> {
        self.control(
            "mcp_toggle",
            json!({ "serverName": server, "enabled": enabled }),
        )
        .await
        .map(drop)
    }

    /// Connect to an MCP server again (`mcp_reconnect`). The CLI refuses
    /// this for in-process (`sdk`) servers.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// for s in client.mcp_status().await?.servers {
    ///     if s.status == "failed" {
    ///         client.mcp_reconnect(&s.name).await?;
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn mcp_reconnect(&self, server: &str) -> Result<()> {
        self.control("mcp_reconnect", json!({ "serverName": server }))
            .await
            .map(drop)
    }

    /// Replace the session's MCP servers with these (name → config, as in
    /// `--mcp-config`'s `mcpServers`). The CLI drops servers not named,
    /// in-process ones from the options included.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use serde_json::{json, Map};
    /// let mut servers = Map::new();
    /// servers.insert("fs".into(), json!({"type": "stdio", "command": "mcp-fs", "args": ["."]}));
    /// let r = client.mcp_set_servers(servers).await?;
    /// println!("added {:?}, removed {:?}, failed {:?}", r.added, r.removed, r.errors);
    /// # Ok(()) }
    /// ```
    pub async fn mcp_set_servers(&self, servers: Map<String, Value>) -> Result<McpSetServers> {
        let v = self
            .control("mcp_set_servers", json!({ "servers": servers }))
            .await?;
        Ok(decode_reply(v))
    }

    /// Stop a background task (a sub-agent, a background shell): its id is
    /// in the `task_started` message. The CLI reports the stop with
    /// `task_updated` and `task_notification` (`status: stopped`); an
    /// unknown id is not an error to it.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use claudio::SystemMessage;
    /// while let Some(msg) = client.next_message().await {
    ///     let msg = msg?;
    ///     if let Some(SystemMessage::TaskStarted(task)) = msg.as_system() {
    ///         if let Some(id) = &task.task_id {
    ///             client.stop_task(id).await?; // no background work in this session
    ///         }
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn stop_task(&self, task_id: &str) -> Result<()> {
        self.control("stop_task", json!({ "task_id": task_id }))
            .await
            .map(drop)
    }

    /// Move foreground work (a running Bash command, a sub-agent) to the
    /// background, as Ctrl+B does in the claude TUI: its tool call returns
    /// at once ("running in the background") and the turn goes on; the task
    /// reports with `task_notification` when it ends. With `tool_use_id`,
    /// only the task that tool call started.
    ///
    /// Returns whether something was moved, as the TypeScript SDK reads the
    /// answer: the CLI 2.1.328 answers `{}` without `tool_use_id` (taken as
    /// `true`) and `{"backgrounded":false}` for a `tool_use_id` that names
    /// no foreground task.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// client.send("Run the whole test suite").await?;
    /// // ... the person presses a key: go on while the tests run
    /// client.background_tasks(None).await?;
    /// # Ok(()) }
    /// ```
    pub async fn background_tasks(&self, tool_use_id: Option<&str>) -> Result<bool> {
        let fields = match tool_use_id {
            Some(id) => json!({ "tool_use_id": id }),
            None => json!({}),
        };
        let v = self.control("background_tasks", fields).await?;
        Ok(v.get("backgrounded")
            .and_then(Value::as_bool)
            .unwrap_or(true))
    }

    /// The end of a background shell's (or Monitor's) output, while it runs
    /// or after it ended: its id is in `task_started` and
    /// `background_tasks_changed`. No model turn is involved.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client, task_id: &str) -> claudio::Result<()> {
    /// let out = client.get_task_output(task_id).await?;
    /// let cut = if out.truncated { "…" } else { "" };
    /// println!("{cut}{} ({} bytes in all)", out.output, out.total_bytes);
    /// # Ok(()) }
    /// ```
    pub async fn get_task_output(&self, task_id: &str) -> Result<TaskOutput> {
        let v = self
            .control("get_task_output", json!({ "task_id": task_id }))
            .await?;
        Ok(decode_reply(v))
    }

    /// The settings in force: merged, by layer, and what the session runs
    /// with (model, effort).
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// let settings = client.get_settings().await?;
    /// for layer in &settings.sources {
    ///     println!("{}: {} keys", layer.source, layer.settings.len());
    /// }
    /// println!("effort {:?}", settings.applied.effort);
    /// # Ok(()) }
    /// ```
    pub async fn get_settings(&self) -> Result<Settings> {
        Ok(decode_reply(self.control("get_settings", json!({})).await?))
    }

    /// Merge settings into the session's flag layer (over the settings
    /// files, as `--settings` does); a `null` value removes a key. The next
    /// request uses them (`{"effortLevel": "high"}`, `{"model": …}`). The
    /// CLI refuses the whole call when one value is invalid, and keeps what
    /// earlier calls set.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use serde_json::json;
    /// client.apply_flag_settings(json!({"effortLevel": "high"})).await?;
    /// client.turn("Think this one through").await?;
    /// client.apply_flag_settings(json!({"effortLevel": null})).await?; // back again
    /// # Ok(()) }
    /// ```
    pub async fn apply_flag_settings(&self, settings: Value) -> Result<()> {
        self.control("apply_flag_settings", json!({ "settings": settings }))
            .await
            .map(drop)
    }

    /// Call a tool of an MCP server the CLI runs (stdio, http, ...)
    /// directly, without a model turn and without a permission check.
    /// `tool` is the full name, `mcp__SERVER__TOOL`. A server still
    /// connecting (`pending`) is waited for.
    ///
    /// A tool that fails:
    /// - a CLI that lists the capability `mcp_call_soft_error_result_v1`
    ///   (2.1.332 and later) is asked for the tool's own error result
    ///   (`soft_error_result`): it comes back as `Ok` with
    ///   [`is_error`](McpCallResult::is_error) set, and the tool's content;
    /// - an older CLI, or an error the CLI cannot hand back so (a server's
    ///   JSON-RPC error, an error result with no text block), gives
    ///   [`Error::McpToolFailed`] with the error's text.
    ///
    /// The CLI refusing the call gives [`Error::Control`]: a server that
    /// is not connected or is in-process ([`McpServer`](crate::McpServer):
    /// call your own code), a name that is not `mcp__SERVER__TOOL`, ...
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use claudio::Error;
    /// use serde_json::json;
    /// match client.mcp_call("mcp__github__get_issue", json!({"number": 25})).await {
    ///     Ok(r) if !r.is_error => println!("{}", r.text()),
    ///     // the same failure, from a CLI with soft errors and from an older one
    ///     Ok(r) => eprintln!("get_issue failed: {}", r.text()),
    ///     Err(Error::McpToolFailed { message, .. }) => eprintln!("get_issue failed: {message}"),
    ///     Err(e) => return Err(e), // not called (Error::Control), the session gone, ...
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn mcp_call(&self, tool: &str, arguments: Value) -> Result<McpCallResult> {
        let mut fields = json!({ "tool": tool, "arguments": arguments });
        if self.server_info.capabilities.has(MCP_CALL_SOFT_ERRORS) {
            fields["soft_error_result"] = Value::Bool(true);
        }
        match self.control("mcp_call", fields).await {
            Ok(v) => Ok(decode_reply(v)),
            Err(Error::Control { message, code, .. })
                if !cli_refused_mcp_call(&message, code.as_deref()) =>
            {
                Err(Error::McpToolFailed {
                    tool: tool.to_owned(),
                    message,
                })
            }
            Err(e) => Err(e),
        }
    }

    /// Read a `ui://` resource (an MCP Apps widget, typically a tool's
    /// `_meta.ui.resourceUri`) from an MCP server the CLI runs. The CLI
    /// refuses other schemes. The content is a third party's: show it
    /// sandboxed.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// let page = client.read_mcp_resource("charts", "ui://charts/bar").await?;
    /// for part in &page.contents {
    ///     println!("{} {:?}", part.uri, part.mime_type);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn read_mcp_resource(&self, server: &str, uri: &str) -> Result<McpResource> {
        let v = self
            .control(
                "mcp_read_resource",
                json!({ "serverName": server, "uri": uri }),
            )
            .await?;
        Ok(decode_reply(v))
    }

    /// The MCP servers and their state.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// for s in client.mcp_status().await?.servers {
    ///     let why = s.error.map(|e| format!(" ({e})")).unwrap_or_default();
    ///     println!("{}: {}{why}", s.name, s.status);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn mcp_status(&self) -> Result<McpStatus> {
        Ok(decode_reply(self.control("mcp_status", json!({})).await?))
    }

    /// The MCP servers' state once none is still connecting: a server the
    /// CLI starts (stdio, http, ...) is `pending` when
    /// [`connect`](Client::connect) returns, and `connected` (or `failed`,
    /// `needs-auth`, ...) a moment later. This asks
    /// [`mcp_status`](Client::mcp_status) until no server is `pending`, or
    /// until `timeout` has passed: then the servers still connecting are
    /// `pending` in the answer (it is not an error).
    /// [`mcp_call`](Client::mcp_call) waits for a pending server itself.
    ///
    /// ```no_run
    /// # async fn demo() -> claudio::Result<()> {
    /// use claudio::{Client, Options};
    /// use std::time::Duration;
    /// let config = r#"{"mcpServers": {"github": {"command": "github-mcp-server", "args": ["stdio"]}}}"#;
    /// let client = Client::connect(Options::default().mcp_config(config)).await?;
    /// // `pending` now; wait for it
    /// for s in client.mcp_wait(Duration::from_secs(30)).await?.servers {
    ///     match s.status.as_str() {
    ///         "connected" => println!("{} is up", s.name),
    ///         "pending" => println!("{} still connecting after 30 s", s.name),
    ///         other => println!("{}: {other} {}", s.name, s.error.unwrap_or_default()),
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// `examples/mcp_call.rs` waits so before it calls a tool.
    pub async fn mcp_wait(&self, timeout: std::time::Duration) -> Result<McpStatus> {
        let deadline = tokio::time::Instant::now() + timeout;
        // quick at first (a local server connects in tens of milliseconds),
        // then at most twice a second
        let mut pause = std::time::Duration::from_millis(20);
        loop {
            let status = self.mcp_status().await?;
            let now = tokio::time::Instant::now();
            if !status.servers.iter().any(|s| s.is_pending()) || now >= deadline {
                return Ok(status);
            }
            tokio::time::sleep(pause.min(deadline - now)).await;
            pause = (pause * 2).min(std::time::Duration::from_millis(500));
        }
    }

    /// What fills the context window, by category.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// let usage = client.context_usage().await?;
    /// println!("{} of {} tokens", usage.total_tokens, usage.max_tokens);
    /// for c in &usage.categories {
    ///     println!("  {}: {}", c.name, c.tokens);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn context_usage(&self) -> Result<ContextUsage> {
        Ok(decode_reply(
            self.control("get_context_usage", json!({})).await?,
        ))
    }

    /// The permission rules in effect: from the settings files (user,
    /// project, local), this session's approvals and the flags, each with
    /// where it comes from; what the claude TUI's `/permissions` lists.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// for r in client.permission_rules().await?.rules {
    ///     let source = r.source.as_ref().map_or("?", |s| s.as_str());
    ///     let editability = r.editability.as_ref().map_or("?", |e| e.as_str());
    ///     println!("{source} {}  ({editability})", r.rule);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn permission_rules(&self) -> Result<crate::protocol::PermissionRules> {
        let mut reply = self.control("list_permission_rules", json!({})).await?;
        Ok(decode_reply(
            reply.get_mut("state").map(Value::take).unwrap_or(reply),
        ))
    }

    /// Undo the file changes made since the user message with this `uuid`
    /// (needs [`Options::file_checkpointing`]). An id with no checkpoint is
    /// an error; see [`Client::preview_rewind_files`] to ask first.
    ///
    /// ```no_run
    /// # async fn demo() -> claudio::Result<()> {
    /// use claudio::{Client, Options, UserInput};
    /// let client = Client::connect(Options::default().file_checkpointing(true)).await?;
    /// let id = claudio::store::new_uuid(); // the message's id, chosen by the host
    /// client.turn(UserInput::from("Add a CHANGELOG.md").uuid(&id)).await?;
    /// let undone = client.rewind_files(&id).await?; // CHANGELOG.md is gone again
    /// assert!(undone.can_rewind);
    /// # Ok(()) }
    /// ```
    pub async fn rewind_files(&self, user_message_id: &str) -> Result<RewindFiles> {
        let v = self
            .control(
                "rewind_files",
                json!({ "user_message_id": user_message_id }),
            )
            .await?;
        Ok(decode_reply(v))
    }

    /// What [`Client::rewind_files`] would do, without doing it: whether it
    /// can, the files it would change, and the lines it would put back and
    /// take away; or why it cannot ([`RewindFiles::error`]).
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client, id: &str) -> claudio::Result<()> {
    /// let preview = client.preview_rewind_files(id).await?;
    /// if preview.can_rewind {
    ///     let (add, del) = (preview.insertions.unwrap_or(0), preview.deletions.unwrap_or(0));
    ///     println!("{} files, +{add} -{del}", preview.files_changed.len());
    ///     client.rewind_files(id).await?;
    /// } else {
    ///     println!("cannot: {}", preview.error.unwrap_or_default());
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn preview_rewind_files(&self, user_message_id: &str) -> Result<RewindFiles> {
        let v = self
            .control(
                "rewind_files",
                json!({ "user_message_id": user_message_id, "dry_run": true }),
            )
            .await?;
        Ok(decode_reply(v))
    }

    /// Kill the CLI's process group at once (a second Ctrl-C). The
    /// transcript may be cut short; prefer [`Client::close`].
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use std::time::Duration;
    /// // give a graceful close ten seconds, then stop the process
    /// if tokio::time::timeout(Duration::from_secs(10), client.close()).await.is_err() {
    ///     client.kill();
    /// }
    /// # Ok(()) }
    /// ```
    pub fn kill(&self) {
        self.shared
            .supervisor
            .signal_group(rustix::process::Signal::Kill);
    }

    /// End the session gracefully: a running turn is interrupted, the
    /// session is ended as the CLI expects of a closing host
    /// (`end_session`, `reason: "host_closing"`, CLI 2.1.328 and later),
    /// stdin is closed, the CLI finishes its transcript and exits (SIGTERM,
    /// then SIGKILL, only if it doesn't). Calling it again returns `Ok` at
    /// once with how the process ended.
    ///
    /// After it, the messages end: [`Client::next_message`] gives what was
    /// still queued, then `None` (no error for the exit), and `send` and
    /// every request give [`Error::Closed`]. Sending `end_session` yourself
    /// ([`Client::control`]) ends the session the same way.
    ///
    /// ```no_run
    /// # async fn demo(client: claudio::Client) -> claudio::Result<()> {
    /// client.turn("Goodbye").await?;
    /// let exit = client.close().await?;
    /// if !exit.success() {
    ///     eprintln!("the CLI ended with {exit:?}:\n{}", client.stderr_tail());
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn close(&self) -> Result<ExitInfo> {
        self.closed.store(true, Ordering::SeqCst);
        let started = std::time::Instant::now();
        let info = self.shared.shutdown(ends_session(&self.server_info)).await;
        tracing::debug!(
            ms = started.elapsed().as_millis() as u64,
            ?info,
            "the CLI closed"
        );
        let driver = self.driver.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(d) = driver {
            let _ = tokio::time::timeout(self.shared.close_grace, d).await;
        }
        Ok(info)
    }
}

/// The capability (in `system`/`init`) of a CLI that takes `interrupt` with
/// `send_now` ([`Client::send_queued_now`]).
pub(crate) const SEND_NOW_CAPABILITY: &str = "interrupt_send_now_v1";

/// Whether the CLI answers `end_session` (`reason: "host_closing"`): every
/// CLI claudio supports does (2.1.328 and later); one that does not say its
/// version is not asked, so a close never waits on an answer that will not
/// come.
fn ends_session(info: &ServerInfo) -> bool {
    let Some(v) = info.claude_code_version.as_deref() else {
        return false;
    };
    let parts: Vec<u64> = v
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .take(3)
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    parts.as_slice() >= [2, 1, 328].as_slice()
}

/// Why one start of the CLI did not give a client.
enum Start {
    /// The CLI did not load the MCP servers sent in `initialize` (it was
    /// stopped): start it again with them in files.
    NotApplied(String),
    /// Anything else: the error for the caller.
    Failed(Error),
}

/// How to start the CLI for these options: the launch's arguments and
/// files, the options' environment over the SDK's defaults, their directory
/// and stderr callback.
fn spawn_spec(program: PathBuf, options: &Options, launch: Launch) -> SpawnSpec {
    let mut env = BTreeMap::from([("CLAUDE_CODE_ENTRYPOINT".to_owned(), "sdk-rust".to_owned())]);
    if options.file_checkpointing {
        env.insert(
            "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING".into(),
            "true".into(),
        );
    }
    env.extend(options.env.clone());
    SpawnSpec {
        program,
        args: launch.args,
        env,
        cwd: options.cwd.clone(),
        stderr: options.stderr.clone(),
        files: launch.files.map(Arc::new),
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if self.closed.load(Ordering::SeqCst) {
            return;
        }
        let shared = self.shared.clone();
        let ends = ends_session(&self.server_info);
        match tokio::runtime::Handle::try_current() {
            // If the runtime goes away first, the task is dropped with its
            // `Shared`, and the supervisor kills the process group.
            Ok(rt) => {
                rt.spawn(async move {
                    shared.shutdown(ends).await;
                });
            }
            Err(_) => shared
                .supervisor
                .signal_group(rustix::process::Signal::Kill),
        }
    }
}

/// One turn, collected by [`Client::turn`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Turn {
    /// Every message before the `result`, in order.
    pub messages: Vec<Message>,
    /// The turn's `result`.
    pub result: ResultMessage,
}

impl Turn {
    /// The answer's text: the `result` text, else the assistant's text
    /// blocks joined.
    pub fn text(&self) -> String {
        if let Some(t) = &self.result.result {
            return t.clone();
        }
        self.messages
            .iter()
            .filter_map(Message::as_assistant)
            .filter(|a| a.parent_tool_use_id.is_none())
            .map(|a| a.text())
            .collect::<Vec<_>>()
            .join("")
    }
}

/// The capability of a CLI that hands a failed MCP tool's error result
/// back from `mcp_call` when asked (`soft_error_result`; CLI 2.1.332).
const MCP_CALL_SOFT_ERRORS: &str = "mcp_call_soft_error_result_v1";

/// How the CLI (2.1.328 to 2.1.332) words its own refusals of `mcp_call`:
/// each starts with one of these (docs/cli-2.1.328-observed.md).
const MCP_CALL_REFUSALS: [&str; 10] = [
    // a bad request, an in-process server, a cancelled or staged call
    "mcp_call",
    "staged mcp_call",
    "Not a fully-qualified MCP tool name",
    "MCP server not connected",
    // permission checks, results held back or over a limit
    "The tool did not run",
    "The tool ran, ",
    "URL elicitation required",
    // tools only the model may call
    "This session's desktop takes calls only through its tools",
    // the connection closed during the call, or before it ran
    "MCP connection ",
    "MCP session expired for ",
];

/// Whether an `mcp_call` control error is the CLI's refusal of the call
/// (an error code, or one of its own wordings) rather than the tool's or
/// its server's failure, whose text the CLI relays as it is.
fn cli_refused_mcp_call(message: &str, code: Option<&str>) -> bool {
    let server_said = |what: &str| message.starts_with("MCP server ") && message.contains(what);
    code.is_some()
        || MCP_CALL_REFUSALS.iter().any(|p| message.starts_with(p))
        // "Tools of MCP server 'X' ... can only be called by the model"
        || (message.starts_with("Tools of MCP server ") && message.contains("called by the model"))
        || server_said(" requires authentication")
        || server_said(" sent a response over ")
        || server_said(" sent a message that was too large")
}

/// A reply's typed form; a reply of another shape gives the default (with
/// nothing of it lost when it is an object: see the types' `extra`).
fn decode_reply<T: serde::de::DeserializeOwned + Default>(v: Value) -> T {
    T::deserialize(v).unwrap_or_default()
}

#[cfg(test)]
mod answer_tests {
    use super::*;

    #[test]
    fn end_session_is_sent_to_the_clis_that_answer_it() {
        let info = |v: Option<&str>| ServerInfo {
            claude_code_version: v.map(str::to_owned),
            ..ServerInfo::default()
        };
        assert!(ends_session(&info(Some("2.1.328"))));
        assert!(ends_session(&info(Some("2.1.336"))));
        assert!(ends_session(&info(Some("2.2.0"))));
        assert!(!ends_session(&info(Some("2.1.327"))));
        assert!(!ends_session(&info(None)));
        assert!(!ends_session(&info(Some("nonsense"))));
    }

    /// The CLI's refusals of `mcp_call`, as 2.1.328 and 2.1.332 word them
    /// (seen, or read in the CLI's code), stay `Error::Control`; what a
    /// failing tool or server says becomes `Error::McpToolFailed`.
    #[test]
    fn mcp_call_refusals_are_told_from_failed_tools() {
        for refusal in [
            "MCP server not connected: nosrv",
            "mcp_call does not support SDK MCP servers. SDK servers are caller-provided \u{2014} invoke calc directly.",
            "Not a fully-qualified MCP tool name: echo",
            "mcp_call: tool must be a string",
            "mcp_call: check_permissions must be a boolean",
            "mcp_call cancelled by client: echo",
            "staged mcp_call is disabled",
            "The tool did not run: check_permissions is not available here.",
            "The tool ran, and its result was held back: too big",
            "The tool ran, but its result is over the 100000-character limit of an mcp_call",
            "MCP server gh requires authentication \u{2014} send mcp_authenticate and retry mcp_call: 401",
            "MCP server gh sent a response over Claude Code's 10 MB limit, so this mcp_call got no result.",
            "MCP server gh sent a message that was too large or could not be parsed, so Claude Code closed the connection",
            "MCP connection to gh closed during the call \u{2014} send mcp_reconnect",
            "MCP connection closed before the call ran on gh \u{2014} send mcp_reconnect and retry mcp_call: x",
            "MCP session expired for gh \u{2014} send mcp_reconnect and retry mcp_call: x",
            "URL elicitation required (open URL, then retry mcp_call): https://example.com",
            "This session's desktop takes calls only through its tools.",
            "Tools of MCP server 'remote-browser' (the cloud browser) can only be called by the model in this session",
        ] {
            assert!(cli_refused_mcp_call(refusal, None), "{refusal}");
        }
        // an error code is the CLI's own
        assert!(cli_refused_mcp_call(
            "anything",
            Some("mcp_call_refusal_limit")
        ));
        for failure in [
            "failed: hi",
            "broken: hi",
            "",
            "(detail withheld)",
            "MCP error -32001: Request timed out",
            "MCP server quota exceeded", // a tool's words that start like the CLI's
            "mcp server not connected: lower case is the tool's",
        ] {
            assert!(!cli_refused_mcp_call(failure, None), "{failure}");
        }
    }

    #[test]
    fn spawn_spec_takes_the_options_over_the_defaults() {
        let o = Options::default()
            .cwd("/w")
            .file_checkpointing(true)
            .env("CLAUDE_CODE_ENTRYPOINT", "mine")
            .env("K", "v")
            .model("sonnet");
        let launch = o.launch(McpDelivery::Initialize).unwrap();
        let s = spawn_spec("/bin/claude".into(), &o, launch);
        assert_eq!(s.program, PathBuf::from("/bin/claude"));
        assert_eq!(s.args, o.cli_args());
        assert!(s.files.is_none());
        assert_eq!(s.cwd, Some(PathBuf::from("/w")));
        assert_eq!(s.env["CLAUDE_CODE_ENTRYPOINT"], "mine");
        assert_eq!(s.env["CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"], "true");
        assert_eq!(s.env["K"], "v");
        let d = Options::default();
        let s = spawn_spec("c".into(), &d, d.launch(McpDelivery::Files).unwrap());
        assert_eq!(s.env.len(), 1);
        assert_eq!(s.env["CLAUDE_CODE_ENTRYPOINT"], "sdk-rust");
        assert!(s.stderr.is_none());
        assert!(!format!("{s:?}").contains("sdk-rust"), "values stay hidden");
    }

    /// Every local user can read `/proc/PID/cmdline`: no token from an MCP
    /// server's `env` or `headers`, nor from the settings, is in the argv
    /// the CLI is started with, whichever way the servers go.
    #[test]
    fn no_secret_reaches_the_spawn_arguments() {
        use std::os::unix::fs::PermissionsExt;
        let secret = "tok-5e1f-never-on-a-command-line";
        let servers = json!({
            "gh": {"type": "stdio", "command": "gh-mcp", "args": [], "env": {"GITHUB_TOKEN": secret}},
            "web": {"type": "http", "url": "https://mcp.example/",
                    "headers": {"Authorization": format!("Bearer {secret}")}}});
        let config = json!({ "mcpServers": servers }).to_string();
        // not for `initialize` (another key): a private file either way
        let odd = json!({"mcpServers": {"o": {"command": "o", "env": {"T": secret}}}, "x": 1});
        let o = Options::default()
            .mcp_config(&config)
            .mcp_config(odd.to_string())
            .mcp_config("/etc/claude/mcp.json")
            .mcp_server(crate::McpServer::new("calc"))
            .settings(json!({"env": {"API_TOKEN": secret}}))
            .sandbox(crate::Sandbox::enabled())
            .extra_arg("--debug");
        assert!(!o.cli_args().iter().any(|a| a.contains(secret)));
        let read = |arg: &str| -> Value {
            let path = std::path::Path::new(arg);
            let meta = std::fs::metadata(path).unwrap();
            assert_eq!(meta.permissions().mode() & 0o777, 0o600, "{arg}");
            let dir = std::fs::metadata(path.parent().unwrap()).unwrap();
            assert_eq!(dir.permissions().mode() & 0o777, 0o700, "{arg}");
            serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
        };
        for delivery in [McpDelivery::Initialize, McpDelivery::Files] {
            let launch = o.launch(delivery).unwrap();
            let init = launch.init_servers.clone();
            let s = spawn_spec("/bin/claude".into(), &o, launch);
            let a = &s.args;
            assert!(!a.iter().any(|x| x.contains(secret)), "{delivery:?}: {a:?}");
            assert!(!format!("{s:?}").contains(secret));
            // what does go there: paths, names, the user's own flags
            assert!(a.contains(&"--mcp-config=/etc/claude/mcp.json".to_owned()));
            assert!(a.contains(
                &r#"--mcp-config={"mcpServers":{"calc":{"name":"calc","type":"sdk"}}}"#.to_owned()
            ));
            assert_eq!(a.last().map(String::as_str), Some("--debug"));
            let settings = a
                .iter()
                .find_map(|x| x.strip_prefix("--settings="))
                .unwrap();
            let settings = read(settings);
            assert_eq!(settings["env"]["API_TOKEN"], secret);
            assert_eq!(settings["sandbox"]["enabled"], true);
            let files: Vec<Value> = a
                .iter()
                .filter_map(|x| x.strip_prefix("--mcp-config="))
                .filter(|p| p.starts_with(&*s.files.as_ref().unwrap().path().to_string_lossy()))
                .map(read)
                .collect();
            let awaits = a.iter().any(|x| x == "--await-initialize");
            match delivery {
                McpDelivery::Initialize => {
                    assert!(awaits);
                    assert_eq!(Value::Object(init), servers);
                    assert_eq!(files, std::slice::from_ref(&odd));
                }
                McpDelivery::Files => {
                    assert!(!awaits);
                    assert!(init.is_empty());
                    assert_eq!(files, [json!({ "mcpServers": servers }), odd.clone()]);
                }
            }
            // the files go once the process has ended (the supervisor drops them)
            let dir = s.files.as_ref().unwrap().path().to_owned();
            drop(s);
            assert!(!dir.exists());
        }
        // nothing to hide: no files, no `--await-initialize`
        let plain = Options::default().mcp_config("/etc/claude/mcp.json");
        let launch = plain.launch(McpDelivery::Initialize).unwrap();
        assert!(launch.files.is_none() && launch.init_servers.is_empty());
        assert_eq!(launch.args, plain.cli_args());
    }
}
