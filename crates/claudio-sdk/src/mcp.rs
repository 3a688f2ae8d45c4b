//! In-process MCP servers: tools written in Rust, served to the CLI over
//! `mcp_message` control requests (protocol.md §6).

use crate::error::HandlerError;
use crate::handlers::BoxFuture;
use serde_json::{json, Value};
use std::future::Future;
use std::sync::Arc;

/// The MCP protocol version claudio's servers speak.
pub(crate) const MCP_PROTOCOL_VERSION: &str = "2024-11-05";

/// What a tool returns.
///
/// Most tools answer with [`ToolOutput::text`]; other MCP content goes in
/// as it is:
///
/// ```
/// use claudio::ToolOutput;
/// use serde_json::json;
/// let chart = ToolOutput {
///     content: vec![
///         json!({"type": "text", "text": "Sales by month:"}),
///         json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}),
///     ],
///     is_error: false,
/// };
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// MCP content items (`{"type":"text","text":...}`, images, ...).
    pub content: Vec<Value>,
    /// Whether the call failed (the model sees an error result).
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful text result.
    ///
    /// ```
    /// use serde_json::json;
    /// let out = claudio::ToolOutput::text("42");
    /// assert!(!out.is_error);
    /// assert_eq!(out.content, [json!({"type": "text", "text": "42"})]);
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![json!({"type":"text","text":text.into()})],
            is_error: false,
        }
    }

    /// A failed call, with a message for the model.
    ///
    /// ```
    /// let out = claudio::ToolOutput::error("cannot divide by zero");
    /// assert!(out.is_error); // the model sees a failed call, and may try again
    /// ```
    ///
    /// A handler's `Err` is sent the same way, with the error's text.
    pub fn error(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![json!({"type":"text","text":text.into()})],
            is_error: true,
        }
    }
}

/// Runs a tool: the model's arguments in, the result out.
///
/// Implemented for closures `Fn(Value) -> impl Future`: see [`McpTool::new`].
pub trait ToolHandler: Send + Sync + 'static {
    /// Run once.
    fn call(&self, arguments: Value) -> BoxFuture<Result<ToolOutput, HandlerError>>;
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolOutput, HandlerError>> + Send + 'static,
{
    fn call(&self, arguments: Value) -> BoxFuture<Result<ToolOutput, HandlerError>> {
        Box::pin(self(arguments))
    }
}

/// One tool of an in-process server.
#[derive(Clone)]
pub struct McpTool {
    /// The tool's name (the model calls it `mcp__SERVER__NAME`).
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments.
    pub input_schema: Value,
    handler: Arc<dyn ToolHandler>,
}

impl McpTool {
    /// A tool with a name, a description, an input schema and a handler.
    ///
    /// The handler is called once per call, so what it shares (here the notes
    /// kept) is cloned into each call:
    ///
    /// ```
    /// use claudio::{McpServer, McpTool, ToolOutput};
    /// use serde_json::json;
    /// use std::sync::{Arc, Mutex};
    /// let notes = Arc::new(Mutex::new(Vec::new()));
    /// let kept = notes.clone();
    /// let remember = McpTool::new(
    ///     "remember",
    ///     "Keep a note for later in this session",
    ///     json!({"type": "object",
    ///            "properties": {"note": {"type": "string"}},
    ///            "required": ["note"]}),
    ///     move |args| {
    ///         let kept = kept.clone();
    ///         async move {
    ///             let note = args["note"].as_str().ok_or("`note` must be a string")?;
    ///             let mut list = kept.lock().unwrap();
    ///             list.push(note.to_owned());
    ///             Ok(ToolOutput::text(format!("{} notes kept", list.len())))
    ///         }
    ///     },
    /// );
    /// let server = McpServer::new("memory").tool(remember); // `mcp__memory__remember`
    /// // once sessions ran with it:
    /// println!("notes: {:?}", notes.lock().unwrap());
    /// ```
    pub fn new<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, HandlerError>> + Send + 'static,
    {
        McpTool {
            name: name.into(),
            description: description.into(),
            input_schema,
            handler: Arc::new(handler),
        }
    }
}

impl McpTool {
    /// A tool whose arguments arrive as a Rust type: the model's JSON is
    /// deserialized with serde before `handler` runs, and arguments that do
    /// not fit are an error result naming what is wrong (the model sees it
    /// and can call again). The schema is written once, for the model.
    ///
    /// ```
    /// use claudio::{McpServer, McpTool, ToolOutput};
    /// use serde::Deserialize;
    /// use serde_json::json;
    ///
    /// #[derive(Deserialize)]
    /// struct Add {
    ///     a: i64,
    ///     b: i64,
    /// }
    ///
    /// let add = McpTool::typed(
    ///     "add",
    ///     "Add two integers",
    ///     json!({"type": "object",
    ///            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    ///            "required": ["a", "b"]}),
    ///     |args: Add| async move { Ok(ToolOutput::text((args.a + args.b).to_string())) },
    /// );
    /// let server = McpServer::new("calc").tool(add);
    /// # let _ = server;
    /// ```
    pub fn typed<A, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        A: serde::de::DeserializeOwned + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, HandlerError>> + Send + 'static,
    {
        let name = name.into();
        let tool_name = name.clone();
        let handler = Arc::new(handler);
        McpTool::new(name, description, input_schema, move |args: Value| {
            let handler = handler.clone();
            let tool_name = tool_name.clone();
            async move {
                match serde_json::from_value::<A>(args) {
                    Ok(a) => handler(a).await,
                    Err(e) => Ok(ToolOutput::error(format!(
                        "invalid arguments for `{tool_name}`: {e}"
                    ))),
                }
            }
        })
    }
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool").field("name", &self.name).finish()
    }
}

/// An MCP server that lives in this process.
#[derive(Debug, Clone)]
pub struct McpServer {
    /// The server's name (key in `mcpServers`).
    pub name: String,
    /// Its version, reported at `initialize`.
    pub version: String,
    /// Its tools.
    pub tools: Vec<McpTool>,
}

impl McpServer {
    /// An empty server.
    ///
    /// ```
    /// use claudio::{McpServer, McpTool, Options, ToolOutput};
    /// use serde_json::json;
    /// let ping = McpTool::new("ping", "Answer pong", json!({"type": "object"}), |_args| async {
    ///     Ok(ToolOutput::text("pong"))
    /// });
    /// let server = McpServer::new("util").tool(ping);
    /// assert_eq!(server.tools.len(), 1);
    /// let options = Options::default().mcp_server(server); // the model calls `mcp__util__ping`
    /// ```
    pub fn new(name: impl Into<String>) -> Self {
        McpServer {
            name: name.into(),
            version: "1.0.0".into(),
            tools: Vec::new(),
        }
    }

    /// Add a tool.
    ///
    /// See [`McpServer::new`] for an example.
    pub fn tool(mut self, tool: McpTool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Answer one JSON-RPC message; the value is the `mcp_response` to send.
    /// Notifications get an empty object.
    ///
    /// A [`Client`](crate::Client) calls it for the CLI; a test can call it
    /// to try a tool without the CLI:
    ///
    /// ```
    /// use claudio::{McpServer, McpTool, ToolOutput};
    /// use serde_json::json;
    /// let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    /// let double = McpTool::new("double", "Double it", schema, |args| async move {
    ///     let n = args["n"].as_i64().ok_or("`n` must be an integer")?;
    ///     Ok(ToolOutput::text((2 * n).to_string()))
    /// });
    /// let server = McpServer::new("calc").tool(double);
    /// let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
    ///                   "params": {"name": "double", "arguments": {"n": 21}}});
    /// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// let reply = rt.block_on(server.handle(&call));
    /// assert_eq!(reply["result"]["content"][0]["text"], "42");
    /// ```
    pub fn handle(&self, message: &Value) -> BoxFuture<Value> {
        let id = message.get("id").cloned();
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let reply = move |result: Value| json!({"jsonrpc":"2.0","id":id,"result":result});
        match method.as_str() {
            "initialize" => {
                let v = reply(json!({
                    "protocolVersion": MCP_PROTOCOL_VERSION,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": self.name, "version": self.version},
                }));
                Box::pin(async move { v })
            }
            m if m.starts_with("notifications/") => Box::pin(async { json!({}) }),
            "ping" => {
                let v = reply(json!({}));
                Box::pin(async move { v })
            }
            "tools/list" => {
                let tools: Vec<Value> = self
                    .tools
                    .iter()
                    .map(|t| {
                        json!({"name":t.name,"description":t.description,"inputSchema":t.input_schema})
                    })
                    .collect();
                let v = reply(json!({ "tools": tools }));
                Box::pin(async move { v })
            }
            "tools/call" => {
                let params = message.get("params").cloned().unwrap_or(Value::Null);
                let name = params
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                let args = params
                    .get("arguments")
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                let tool = self.tools.iter().find(|t| t.name == name).cloned();
                let server = self.name.clone();
                Box::pin(async move {
                    let out = match tool {
                        None => ToolOutput::error(format!("no tool `{name}` on server `{server}`")),
                        Some(t) => match t.handler.call(args).await {
                            Ok(out) => out,
                            Err(e) => ToolOutput::error(e.to_string()),
                        },
                    };
                    reply(json!({"content": out.content, "isError": out.is_error}))
                })
            }
            other => {
                let id = message.get("id").cloned();
                let v = json!({"jsonrpc":"2.0","id":id,"error":{"code":-32601,"message":format!("method not found: {other}")}});
                Box::pin(async move { v })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calc() -> McpServer {
        McpServer::new("calc").tool(McpTool::new(
            "add",
            "adds",
            json!({"type":"object"}),
            |args: Value| async move {
                let x = args["a"].as_i64().ok_or("a must be a number")?;
                Ok(ToolOutput::text((x + 1).to_string()))
            },
        ))
    }

    #[tokio::test]
    async fn serves_initialize_list_and_call() {
        let s = calc();
        let r = s
            .handle(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}))
            .await;
        assert_eq!(r["result"]["serverInfo"]["name"], "calc");
        assert_eq!(r["id"], 0);
        let r = s
            .handle(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        assert_eq!(r, json!({}));
        let r = s
            .handle(&json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}))
            .await;
        assert_eq!(r["result"]["tools"][0]["name"], "add");
        let r = s
            .handle(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":4}}}))
            .await;
        assert_eq!(
            r["result"],
            json!({"content":[{"type":"text","text":"5"}],"isError":false})
        );
    }

    #[tokio::test]
    async fn typed_tools_get_their_arguments_decoded_or_tell_the_model_why_not() {
        #[derive(serde::Deserialize)]
        struct Add {
            a: i64,
            b: i64,
        }
        let s = McpServer::new("calc").tool(McpTool::typed(
            "add",
            "adds",
            json!({"type":"object"}),
            |x: Add| async move { Ok(ToolOutput::text((x.a + x.b).to_string())) },
        ));
        let call = |args: Value| json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":args}});
        let r = s.handle(&call(json!({"a":2,"b":40}))).await;
        assert_eq!(r["result"]["content"][0]["text"], "42");
        assert_eq!(r["result"]["isError"], false);
        let r = s.handle(&call(json!({"a":"two"}))).await;
        assert_eq!(r["result"]["isError"], true);
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("invalid arguments for `add`: invalid type"),
            "{text}"
        );
    }

    #[tokio::test]
    async fn tool_errors_are_error_results() {
        let s = calc();
        let r = s
            .handle(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{}}}))
            .await;
        assert_eq!(r["result"]["isError"], true);
        assert_eq!(r["result"]["content"][0]["text"], "a must be a number");
        let r = s
            .handle(&json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}))
            .await;
        assert_eq!(r["result"]["isError"], true);
        let r = s
            .handle(&json!({"jsonrpc":"2.0","id":5,"method":"resources/list"}))
            .await;
        assert_eq!(r["error"]["code"], -32601);
    }
}
