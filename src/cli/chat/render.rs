//! The chat's renderer: messages in, terminal text out. No I/O here, so it
//! is tested without a terminal.
//!
//! Permanent output (answer text, finished tool lines, notices) scrolls up;
//! below it a live region shows one spinner line per running tool. Before
//! anything permanent is written the live region is erased, and it is drawn
//! again after — only when the answer is at the start of a line, so a
//! half-written line is never torn.

use super::live::{self, Line, Live};
use super::state::SessionState;
use crate::cli::dedup::Dedup;
use crate::cli::markdown::Markdown;
use crate::cli::sanitize::Sanitizer;
use crate::cli::style::Style;
use crate::cli::summary::{one_line, tool_summary, truncate_width};
use crate::cli::tasks::{self, TaskEvent};
use claudio::protocol::ask::RequestKind;
use claudio::protocol::{
    ApiRetry, ContentBlock, MessageContent, StreamEvent, SystemMessage, ToolResultBlock,
};
use claudio::{Message, ResultMessage};
use std::collections::HashMap;
use std::time::{Duration, Instant};
use unicode_width::UnicodeWidthStr;

const PREVIEW_LINES: usize = 3;

#[derive(Debug, Clone)]
pub struct RenderOptions {
    pub style: Style,
    /// Draw spinners (a terminal); otherwise tool lines are plain and final.
    pub live: bool,
    pub show_thinking: bool,
    pub width: usize,
}

#[derive(Debug, Clone)]
struct Tool {
    id: String,
    name: String,
    summary: String,
    detail: String,
    started: Instant,
    depth: usize,
    /// The `Task` call whose sub-agent made this call.
    parent: Option<String>,
}

/// What the screen shows of a sub-agent (which agents exist, and which
/// still work, is [`tasks::Agents`]'s).
#[derive(Debug, Clone)]
struct AgentUi {
    started: Instant,
    /// The last `task_progress` description (`Running make a file`).
    progress: String,
    /// Whether its own text was shown (then the summary is not repeated).
    spoke: bool,
    /// Whether its finish line was drawn.
    reported: bool,
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Block {
    None,
    Text,
    Thinking,
}

pub struct Renderer {
    opts: RenderOptions,
    sanitizer: Sanitizer,
    markdown: Markdown,
    dedup: Dedup,
    block: Block,
    wrote_answer: bool,
    at_line_start: bool,
    tools: Vec<Tool>,
    /// Lines under the spinners: prompts typed ahead.
    footer: Vec<String>,
    /// The spinners and typed-ahead lines under the answer (indicatif).
    live: Live,
    /// Sub-agents of this session.
    agents: tasks::Agents,
    /// How each is shown, by its `Task` call.
    agent_ui: HashMap<String, AgentUi>,
}

impl Renderer {
    pub fn new(opts: RenderOptions) -> Self {
        let (live_style, live_width) = (opts.style, opts.width);
        let color = opts.style.enabled();
        Renderer {
            opts,
            sanitizer: Sanitizer::new(),
            markdown: Markdown::new(color),
            dedup: Dedup::default(),
            block: Block::None,
            wrote_answer: false,
            at_line_start: true,
            tools: Vec::new(),
            footer: Vec::new(),
            live: Live::new(live_style, live_width),
            agents: tasks::Agents::default(),
            agent_ui: HashMap::new(),
        }
    }

    /// The label of the sub-agent that made the tool call `tool_use_id`
    /// (`None` for the main agent's own calls).
    pub fn agent_of(&self, tool_use_id: &str) -> Option<String> {
        let parent = self
            .tools
            .iter()
            .find(|t| t.id == tool_use_id)?
            .parent
            .as_deref()?;
        Some(self.agent_label(parent))
    }

    /// The label of the sub-agent with this task id (the `agent_id` on
    /// its permission requests).
    pub fn agent_by_task(&self, task_id: &str) -> Option<String> {
        self.agents.by_task(task_id).map(|a| a.label.clone())
    }

    /// How many sub-agents are still at work.
    pub fn agents_running(&self) -> usize {
        self.agents.running().count()
    }

    /// Switch spinners on or off.
    #[cfg(test)]
    pub fn set_live(&mut self, live: bool) {
        self.opts.live = live;
    }

    fn agent_label(&self, task_tool_use_id: &str) -> String {
        self.agents.label(task_tool_use_id)
    }

    /// How the agent of `call` is shown (from now, if it is new).
    fn ui(&mut self, call: &str, now: Instant) -> &mut AgentUi {
        self.agent_ui
            .entry(call.to_owned())
            .or_insert_with(|| AgentUi {
                started: now,
                progress: String::new(),
                spoke: false,
                reported: false,
            })
    }

    pub fn width(&self) -> usize {
        self.opts.width
    }

    pub fn set_width(&mut self, width: usize) {
        self.opts.width = width.max(20);
        self.live.set_width(self.opts.width);
    }

    /// The terminal changed width: the live region is drawn again to fit.
    /// The old one is erased from its top row to the end of the screen, so
    /// rows the terminal re-wrapped below it go too.
    pub fn resize(&mut self, width: usize, now: Instant) -> String {
        let mut out = String::new();
        let rows = self.live.rows();
        if rows > 0 {
            if rows > 1 {
                out.push_str(&format!("\x1b[{}A", rows - 1));
            }
            out.push_str("\r\x1b[J");
            self.live.forget();
        }
        self.set_width(width);
        self.draw_live(now, &mut out);
        out
    }

    /// The process was stopped (Ctrl-Z) and continued: the shell wrote
    /// below the live region, and the cursor is on a fresh line. The old
    /// region stays as it was; a new one is drawn where the cursor is.
    pub fn resume_after_stop(&mut self, width: usize, now: Instant) -> String {
        self.live.forget();
        self.at_line_start = true;
        self.set_width(width);
        let mut out = String::new();
        self.draw_live(now, &mut out);
        out
    }

    /// Whether tools are still running (the spinners need ticks).
    pub fn has_live(&self) -> bool {
        (!self.tools.is_empty() || self.agents_running() > 0) && self.opts.live
    }

    /// Show these lines under the answer (typed-ahead prompts), redrawn with
    /// the spinners and never through the answer's text.
    pub fn set_footer(&mut self, lines: Vec<String>, now: Instant) -> String {
        let mut out = String::new();
        if !self.opts.live || lines == self.footer {
            return out;
        }
        self.clear_live(&mut out);
        self.footer = lines;
        self.draw_live(now, &mut out);
        out
    }

    /// Render one message. `state` is the session's, already updated with
    /// this message (the end-of-turn line names its mode).
    pub fn message(&mut self, m: &Message, state: &SessionState, now: Instant) -> String {
        let mut out = String::new();
        self.clear_live(&mut out);
        if let Some(ev) = self.agents.observe(m) {
            self.task(ev, now);
        }
        let new: Vec<String> = self
            .agents
            .running()
            .filter(|a| !self.agent_ui.contains_key(&a.call))
            .map(|a| a.call.clone())
            .collect();
        for call in new {
            self.ui(&call, now);
        }
        match m {
            Message::StreamEvent(e) if e.parent_tool_use_id.is_none() => match &e.event {
                StreamEvent::MessageStart { .. } => self.dedup.event(e),
                StreamEvent::ContentBlockStart { content_block, .. } => match content_block {
                    ContentBlock::Text(_) => self.begin_block(Block::Text, &mut out),
                    ContentBlock::Thinking(_) if self.opts.show_thinking => {
                        self.begin_block(Block::Thinking, &mut out)
                    }
                    _ => {}
                },
                StreamEvent::ContentBlockStop { .. } => self.end_block(&mut out),
                StreamEvent::MessageStop => self.finish_text(&mut out),
                _ => {
                    self.dedup.event(e);
                    if let Some(t) = e.text_delta() {
                        self.text(t, &mut out);
                    } else if let Some(t) = e.thinking_delta() {
                        if self.block == Block::Thinking {
                            self.thinking(t, &mut out);
                        }
                    }
                }
            },
            Message::Assistant(a) => {
                let depth = usize::from(a.parent_tool_use_id.is_some());
                let streamed = depth == 0 && self.dedup.streamed(a);
                for b in &a.message.content {
                    match b {
                        ContentBlock::Text(t) if depth == 0 && !streamed => {
                            self.begin_block(Block::Text, &mut out);
                            self.text(&t.text, &mut out);
                            self.end_block(&mut out);
                        }
                        ContentBlock::Text(t) if depth > 0 => {
                            if let Some(parent) = &a.parent_tool_use_id {
                                self.agent_text(parent, &t.text, &mut out);
                            }
                        }
                        ContentBlock::Thinking(t)
                            if depth == 0 && !streamed && self.opts.show_thinking =>
                        {
                            self.begin_block(Block::Thinking, &mut out);
                            self.thinking(&t.thinking, &mut out);
                            self.end_block(&mut out);
                        }
                        ContentBlock::ToolUse(t) => {
                            self.end_block(&mut out);
                            let tool = Tool {
                                id: t.id.clone(),
                                name: Sanitizer::clean(&t.name),
                                summary: Sanitizer::clean(&tool_summary(&t.name, &t.input)),
                                detail: edit_counts(&t.name, &t.input),
                                started: now,
                                depth,
                                parent: a.parent_tool_use_id.clone(),
                            };
                            // questions and plans show as their own prompt
                            if RequestKind::of_tool(&t.name).is_dialog() {
                                continue;
                            }
                            if !self.opts.live {
                                let line = self.tool_line(&tool, "…", None);
                                self.permanent_line(&line, &mut out);
                            }
                            self.tools.push(tool);
                        }
                        _ => {}
                    }
                }
                if depth == 0 {
                    // no sequence runs past its message
                    self.finish_text(&mut out);
                }
                if a.is_synthetic() && depth == 0 {
                    // API errors the CLI reports as a made-up message
                    let text = Sanitizer::clean(&a.text());
                    let line = format!("  {} {}", self.opts.style.red("✗"), text);
                    self.permanent_line(&line, &mut out);
                }
            }
            Message::User(u) => {
                if let MessageContent::Blocks(blocks) = &u.message.content {
                    for b in blocks {
                        if let ContentBlock::ToolResult(r) = b {
                            self.tool_done(r, now, &mut out);
                        }
                    }
                }
            }
            Message::System(s) => self.system(s, &mut out),
            Message::Result(r) => self.result(r, state, &mut out),
            _ => {}
        }
        self.draw_live(now, &mut out);
        out
    }

    /// Redraw the spinners.
    pub fn tick(&mut self, now: Instant) -> String {
        let mut out = String::new();
        if self.has_live() && self.at_line_start {
            self.clear_live(&mut out);
            self.draw_live(now, &mut out);
        }
        out
    }

    /// Erase the live region and end a half-written line: the screen is
    /// ready for a prompt.
    pub fn suspend(&mut self) -> String {
        let mut out = String::new();
        self.clear_live(&mut out);
        self.footer.clear();
        self.end_block(&mut out);
        if !self.at_line_start {
            out.push('\n');
            self.at_line_start = true;
        }
        out
    }

    /// A notice line (interrupt, errors) between the answer's lines.
    pub fn notice(&mut self, text: &str) -> String {
        let mut out = self.suspend();
        let line = format!("  {}", self.opts.style.dim(text));
        self.permanent_line(&line, &mut out);
        out
    }

    /// End of a turn that produced no `result` (the CLI died): forget tools.
    pub fn abandon_turn(&mut self) -> String {
        let out = self.suspend();
        self.tools.clear();
        self.markdown = Markdown::new(self.opts.style.enabled());
        self.block = Block::None;
        out
    }

    fn begin_block(&mut self, kind: Block, out: &mut String) {
        self.end_block(out);
        if self.wrote_answer {
            if !self.at_line_start {
                out.push('\n');
            }
            out.push('\n');
            self.at_line_start = true;
        }
        if kind == Block::Thinking {
            out.push_str(&self.opts.style.dim("∴ thinking"));
            out.push_str("\n  ");
            if self.opts.style.enabled() {
                out.push_str("\x1b[2m");
            }
            self.at_line_start = false;
        }
        self.block = kind;
        self.wrote_answer = true;
    }

    fn end_block(&mut self, out: &mut String) {
        match self.block {
            Block::Text => {
                // no sequence runs past its block
                self.finish_text(out);
                let mut tail = String::new();
                self.markdown.finish(&mut tail);
                out.push_str(&tail);
            }
            Block::Thinking => {
                if self.opts.style.enabled() {
                    out.push_str("\x1b[0m");
                }
            }
            Block::None => {}
        }
        self.block = Block::None;
    }

    fn text(&mut self, t: &str, out: &mut String) {
        if self.block != Block::Text {
            self.begin_block(Block::Text, out);
        }
        let mut clean = String::new();
        self.sanitizer.push(t, &mut clean);
        if clean.is_empty() {
            return;
        }
        self.markdown.push(&clean, out);
        self.at_line_start = clean.ends_with('\n');
    }

    /// What the sanitizer holds of a sequence that was cut off goes out as
    /// the block's text.
    fn finish_text(&mut self, out: &mut String) {
        let mut rest = String::new();
        self.sanitizer.finish(&mut rest);
        if !rest.is_empty() {
            self.markdown.push(&rest, out);
            self.at_line_start = rest.ends_with('\n');
        }
    }

    fn thinking(&mut self, t: &str, out: &mut String) {
        let clean = Sanitizer::clean(t);
        out.push_str(&clean.replace('\n', "\n  "));
        self.at_line_start = false;
    }

    fn permanent_line(&mut self, line: &str, out: &mut String) {
        if !self.at_line_start {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        self.at_line_start = true;
    }

    fn tool_line(&self, t: &Tool, mark: &str, elapsed: Option<Duration>) -> String {
        let s = &self.opts.style;
        let (indent, body) = self.tool_parts(t);
        let time = elapsed
            .map(|d| format!("  {}", s.dim(&format!("{:.1}s", d.as_secs_f64()))))
            .unwrap_or_default();
        format!("{indent}{mark} {body}{time}")
    }

    /// A tool's line around its mark: the indent before it, and its name,
    /// summary and detail after it, cut to leave room for the time.
    fn tool_parts(&self, t: &Tool) -> (String, String) {
        let s = &self.opts.style;
        let indent = match &t.parent {
            // a sub-agent's call: indented, and named after the agent
            Some(p) => format!("    {} ", s.dim(&format!("{} ›", self.agent_label(p)))),
            None => "  ".repeat(t.depth + 1),
        };
        let detail = if t.detail.is_empty() {
            String::new()
        } else {
            format!("  {}", s.dim(&t.detail))
        };
        // keep the whole line within the terminal width (no wrapping)
        let fixed = indent.width() + 2 + t.name.width() + 2 + t.detail.width() + live::TIME_COLUMNS;
        let room = self.opts.width.saturating_sub(fixed).max(10);
        let summary = truncate_width(&t.summary, room);
        (indent, format!("{}  {summary}{detail}", s.cyan(&t.name)))
    }

    fn tool_done(&mut self, r: &ToolResultBlock, now: Instant, out: &mut String) {
        let Some(pos) = self.tools.iter().position(|t| t.id == r.tool_use_id) else {
            return;
        };
        let tool = self.tools.remove(pos);
        let s = self.opts.style;
        let text = r.text();
        let is_task = tool.parent.is_none() && tasks::is_task_tool(&tool.name);
        let launched = !r.is_error() && tasks::is_background_launch(&text);
        if is_task && !launched {
            // a foreground agent that finished, or one that never started
            // (the tracker saw its result)
            self.drop_finished_calls();
        }
        if is_task && launched {
            let line = self.tool_line(&tool, &s.cyan("⇢"), None);
            let line = format!("{line}  {}", s.dim("working in the background"));
            self.permanent_line(&line, out);
            return;
        }
        let mark = if r.is_error() {
            s.red("✗")
        } else {
            s.green("✓")
        };
        let line = self.tool_line(&tool, &mark, Some(now.duration_since(tool.started)));
        self.permanent_line(&line, out);
        let text = Sanitizer::clean(&text);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let indent = "  ".repeat(tool.depth + 2);
        let room = self.opts.width.saturating_sub(indent.width() + 2).max(10);
        for l in lines.iter().take(PREVIEW_LINES) {
            let l = format!("{indent}{} {}", s.dim("│"), s.dim(&truncate_width(l, room)));
            self.permanent_line(&l, out);
        }
        if lines.len() > PREVIEW_LINES {
            let more = lines.len() - PREVIEW_LINES;
            let l = format!(
                "{indent}{} {}",
                s.dim("│"),
                s.dim(&format!("… {more} more lines"))
            );
            self.permanent_line(&l, out);
        }
    }

    /// Task news (the tracker has taken it in): progress to show, or an
    /// agent that stopped working (its finish line comes with the
    /// `task_notification`).
    fn task(&mut self, ev: TaskEvent, now: Instant) {
        match ev {
            TaskEvent::Progress {
                task_id,
                description,
            } => {
                if let Some(call) = self.agents.by_task(&task_id).map(|a| a.call.clone()) {
                    self.ui(&call, now).progress = Sanitizer::clean(&one_line(&description, 60));
                }
            }
            TaskEvent::Ended { .. } | TaskEvent::Running(_) => self.drop_finished_calls(),
            TaskEvent::Started { .. } => {}
        }
    }

    /// Forget the calls of agents that no longer work.
    fn drop_finished_calls(&mut self) {
        let agents = &self.agents;
        self.tools.retain(|t| {
            t.parent
                .as_deref()
                .is_none_or(|p| agents.get(p).is_none_or(|a| !a.done))
        });
    }

    /// A new session (`/new`, `/resume`, rewind, a restart): nothing of the
    /// old one is running any more.
    pub fn forget_session(&mut self) {
        self.agents.clear();
        self.agent_ui.clear();
        self.tools.clear();
    }

    /// A sub-agent's text: a few dim lines under its name.
    fn agent_text(&mut self, parent: &str, text: &str, out: &mut String) {
        let s = self.opts.style;
        if self.agents.get(parent).is_some() {
            self.ui(parent, Instant::now()).spoke = true;
        }
        let label = self.agent_label(parent);
        let text = Sanitizer::clean(text);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let prefix = format!("    {} ", s.dim(&format!("{label} ›")));
        let room = self.opts.width.saturating_sub(label.width() + 7).max(10);
        for l in lines.iter().take(PREVIEW_LINES) {
            let line = format!("{prefix}{}", s.dim(&truncate_width(l, room)));
            self.permanent_line(&line, out);
        }
        if lines.len() > PREVIEW_LINES {
            let more = lines.len() - PREVIEW_LINES;
            let line = format!("{prefix}{}", s.dim(&format!("… {more} more lines")));
            self.permanent_line(&line, out);
        }
    }

    /// `task_notification`: the sub-agent finished (or failed, or stopped).
    fn agent_done(&mut self, n: &claudio::protocol::TaskNotification, out: &mut String) {
        let s = self.opts.style;
        let Some(task) = n.task_id.as_deref() else {
            return;
        };
        let Some((id, label)) = self
            .agents
            .by_task(task)
            .map(|a| (a.call.clone(), a.label.clone()))
        else {
            return;
        };
        self.agents.finish(task);
        let ui = self.ui(&id, Instant::now());
        if ui.reported {
            return;
        }
        ui.reported = true;
        let spoke = ui.spoke;
        self.tools
            .retain(|t| t.parent.as_deref() != Some(id.as_str()));
        let status = n.status.clone().unwrap_or_else(|| "finished".into());
        let mark = match status.as_str() {
            "completed" => s.green("●"),
            "failed" => s.red("●"),
            _ => s.yellow("●"),
        };
        let usage = n.extra.get("usage");
        let num = |k: &str| usage.and_then(|u| u.get(k)).and_then(|v| v.as_u64());
        let mut facts = vec![Sanitizer::clean(&status)];
        if let Some(ms) = num("duration_ms") {
            facts.push(format!("{:.1}s", ms as f64 / 1000.0));
        }
        if let Some(t) = num("tool_uses") {
            facts.push(format!("{t} tool call{}", if t == 1 { "" } else { "s" }));
        }
        let line = format!("  {mark} {}  {}", s.bold(&label), s.dim(&facts.join(" · ")));
        self.permanent_line(&line, out);
        if let Some(summary) = n
            .summary
            .as_deref()
            .filter(|t| !spoke && !t.trim().is_empty())
        {
            let room = self.opts.width.saturating_sub(6).max(10);
            let clean = Sanitizer::clean(summary);
            let first = clean.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let line = format!("    {} {}", s.dim("│"), s.dim(&truncate_width(first, room)));
            self.permanent_line(&line, out);
        }
    }

    fn system(&mut self, s: &SystemMessage, out: &mut String) {
        match s {
            SystemMessage::ApiRetry(r) => {
                let line = format!("  {}", self.opts.style.yellow(&retry_line(r)));
                self.permanent_line(&line, out);
            }
            SystemMessage::TaskNotification(n) => self.agent_done(n, out),
            SystemMessage::Other(v)
                if v.get("subtype").and_then(|s| s.as_str()) == Some("compact_boundary") =>
            {
                let line = format!("  {}", self.opts.style.dim("── context compacted ──"));
                self.permanent_line(&line, out);
            }
            _ => {}
        }
    }

    fn result(&mut self, r: &ResultMessage, state: &SessionState, out: &mut String) {
        self.end_block(out);
        // a background agent's calls go on after the main turn's result
        let running: Vec<String> = self.agents.running().map(|a| a.call.clone()).collect();
        self.tools
            .retain(|t| t.parent.as_ref().is_some_and(|p| running.contains(p)));
        let s = self.opts.style;
        let turns = r.num_turns.unwrap_or(0);
        let secs = r.duration_ms.unwrap_or(0) as f64 / 1000.0;
        if r.is_error && !r.was_interrupted() {
            let mut why = r.subtype.clone();
            for e in &r.errors {
                why.push_str(": ");
                why.push_str(e);
            }
            let line = format!("  {} {}", s.red("✗"), Sanitizer::clean(&why));
            self.permanent_line(&line, out);
        }
        let plural = if turns == 1 { "" } else { "s" };
        let cost = r
            .total_cost_usd
            .map(|c| format!(" · ${c:.4}"))
            .unwrap_or_default();
        let mode = match state.mode_name() {
            "default" => String::new(),
            m => format!(" · {}", Sanitizer::clean(m)),
        };
        let agents = match running.len() {
            0 => String::new(),
            1 => " · 1 agent still working".to_owned(),
            n => format!(" · {n} agents still working"),
        };
        let footer = format!("── {turns} turn{plural}{cost} · {secs:.1}s{mode}{agents} ──");
        if !self.at_line_start {
            out.push('\n');
        }
        out.push('\n');
        out.push_str("  ");
        out.push_str(&s.dim(&footer));
        out.push('\n');
        self.at_line_start = true;
        self.wrote_answer = false;
        self.dedup.clear();
        self.markdown = Markdown::new(s.enabled());
    }

    fn clear_live(&mut self, out: &mut String) {
        if self.live.rows() > 0 {
            out.push_str(&self.live.clear());
        }
    }

    fn draw_live(&mut self, now: Instant, out: &mut String) {
        if !self.opts.live
            || !self.at_line_start
            || (self.tools.is_empty() && self.footer.is_empty() && self.agents_running() == 0)
        {
            return;
        }
        let s = self.opts.style;
        let ms = |since: Instant| now.saturating_duration_since(since).as_millis() as u64;
        let mut lines = Vec::new();
        let tool = |t: &Tool| {
            let (indent, text) = self.tool_parts(t);
            Line::Spinner {
                key: t.id.clone(),
                indent,
                text,
                ms: ms(t.started),
            }
        };
        // the running calls of the agent a Task call started
        let calls_of = |task: &str, lines: &mut Vec<Line>| {
            for sub in self
                .tools
                .iter()
                .filter(|x| x.parent.as_deref() == Some(task))
            {
                lines.push(tool(sub));
            }
        };
        for t in self.tools.iter().filter(|t| t.parent.is_none()) {
            lines.push(tool(t));
            // a foreground agent's calls, under its Task line
            calls_of(&t.id, &mut lines);
        }
        let room = self
            .opts
            .width
            .saturating_sub(4 + live::TIME_COLUMNS)
            .max(10);
        for a in self.agents.running() {
            if self.tools.iter().any(|t| t.id == a.call) {
                continue; // drawn with its Task line
            }
            let (started, progress) = self
                .agent_ui
                .get(&a.call)
                .map_or((now, ""), |u| (u.started, u.progress.as_str()));
            let text = format!(
                "{}  {}",
                a.label,
                if progress.is_empty() {
                    "working"
                } else {
                    progress
                },
            );
            lines.push(Line::Spinner {
                key: format!("agent {}", a.call),
                indent: "  ".into(),
                text: s.dim(&truncate_width(&text, room)),
                ms: ms(started),
            });
            calls_of(&a.call, &mut lines);
        }
        let room = self.opts.width.saturating_sub(3).max(10);
        for (i, f) in self.footer.iter().enumerate() {
            lines.push(Line::Plain {
                key: format!("footer {i}"),
                text: format!("  {}", s.dim(&truncate_width(f, room))),
            });
        }
        out.push_str(&self.live.draw(lines));
    }
}

fn retry_line(r: &ApiRetry) -> String {
    let why = match &r.error {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => v
            .get("message")
            .and_then(|m| m.as_str())
            .map(str::to_owned)
            .or_else(|| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
            .unwrap_or_else(|| v.to_string()),
        None => r
            .error_status
            .map(|s| format!("HTTP {s}"))
            .unwrap_or_default(),
    };
    let secs = r.retry_delay_ms.unwrap_or(0.0) / 1000.0;
    let attempt = r.attempt.unwrap_or(0);
    let max = r.max_retries.map(|m| format!("/{m}")).unwrap_or_default();
    let why = Sanitizer::clean(&one_line(&why, 80));
    format!("↻ retrying ({attempt}{max}) in {secs:.1} s — {why}")
}

/// `(+N −M)` for edits, from the tool's input.
fn edit_counts(name: &str, input: &serde_json::Value) -> String {
    let lines = |k: &str| {
        input
            .get(k)
            .and_then(|v| v.as_str())
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    match name {
        "Edit" => format!("(+{} −{})", lines("new_string"), lines("old_string")),
        "Write" => format!("(+{})", lines("content")),
        "MultiEdit" => {
            let (mut add, mut del) = (0, 0);
            for e in input
                .get("edits")
                .and_then(|e| e.as_array())
                .into_iter()
                .flatten()
            {
                add += e
                    .get("new_string")
                    .and_then(|v| v.as_str())
                    .map(|s| s.lines().count())
                    .unwrap_or(0);
                del += e
                    .get("old_string")
                    .and_then(|v| v.as_str())
                    .map(|s| s.lines().count())
                    .unwrap_or(0);
            }
            format!("(+{add} −{del})")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::markdown::strip_sgr;
    use serde_json::json;

    impl Renderer {
        /// Render with a session state of its own (the tests' shortcut).
        fn message_at(&mut self, m: &Message, now: Instant) -> String {
            let state = SessionState::default();
            self.message(m, &state, now)
        }
    }

    fn msg(v: serde_json::Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
    }

    fn renderer(color: bool, live: bool) -> Renderer {
        let style = if color {
            Style::decide(crate::cli::args::ColorChoice::Always, true)
        } else {
            Style::plain()
        };
        Renderer::new(RenderOptions {
            style,
            live,
            show_thinking: true,
            width: 80,
        })
    }

    fn feed(r: &mut Renderer, msgs: &[serde_json::Value]) -> String {
        let now = Instant::now();
        msgs.iter()
            .map(|m| r.message_at(&msg(m.clone()), now))
            .collect()
    }

    fn delta(t: &str) -> serde_json::Value {
        json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":t}}})
    }

    #[test]
    fn streamed_text_is_shown_once() {
        let mut r = renderer(false, false);
        let out = feed(
            &mut r,
            &[
                json!({"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}}}),
                json!({"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}),
                delta("Hel"),
                delta("lo **world**\u{1b}[2J"),
                json!({"type":"stream_event","event":{"type":"content_block_stop","index":0}}),
                json!({"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Hello **world**"}]}}),
                json!({"type":"result","subtype":"success","is_error":false,"num_turns":1,"duration_ms":1500,"total_cost_usd":0.0123}),
            ],
        );
        assert_eq!(out.matches("Hello **world**").count(), 1, "{out:?}");
        assert!(!out.contains('\u{1b}'), "{out:?}");
        assert!(out.contains("── 1 turn · $0.0123 · 1.5s ──"), "{out:?}");
    }

    #[test]
    fn a_cut_off_sequence_hides_no_later_answer() {
        let mut r = renderer(false, false);
        let turn = |id: &str, text: &str| {
            vec![
                json!({"type":"stream_event","event":{"type":"message_start","message":{"id":id}}}),
                json!({"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}),
                delta(text),
                json!({"type":"stream_event","event":{"type":"content_block_stop","index":0}}),
                json!({"type":"stream_event","event":{"type":"message_stop"}}),
                json!({"type":"assistant","message":{"id":id,"content":[{"type":"text","text":text}]}}),
                json!({"type":"result","subtype":"success","is_error":false,"num_turns":1,"duration_ms":10}),
            ]
        };
        let mut out = String::new();
        for (id, text) in [
            ("m1", "first \u{1b}_rest of first"),
            ("m2", "second answer"),
            ("m3", "third\u{7} answer"),
        ] {
            out.push_str(&feed(&mut r, &turn(id, text)));
        }
        assert!(out.contains("first _rest of first"), "{out:?}");
        assert!(out.contains("second answer"), "{out:?}");
        assert!(out.contains("third answer"), "{out:?}");
        // an unstreamed message, and a block left open at the message's end
        let out = feed(
            &mut r,
            &[
                json!({"type":"assistant","message":{"id":"m4","content":[{"type":"text","text":"fourth \u{1b}]0;"}]}}),
                json!({"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}),
                delta("fifth \u{1b}["),
                json!({"type":"stream_event","event":{"type":"message_stop"}}),
                delta("sixth"),
            ],
        );
        assert!(out.contains("fourth ]0;"), "{out:?}");
        assert!(out.contains("fifth [sixth"), "{out:?}");
        assert!(!out.contains('\u{1b}'), "{out:?}");
    }

    #[test]
    fn tools_show_start_and_finish_with_preview() {
        let mut r = renderer(false, false);
        let out = feed(
            &mut r,
            &[
                json!({"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test"}}]}}),
                json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a\nb\nc\nd\ne"}]}}),
                json!({"type":"assistant","message":{"id":"m3","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/x"}}]},"parent_tool_use_id":"task1"}),
                json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"boom","is_error":true}]},"parent_tool_use_id":"task1"}),
            ],
        );
        assert!(out.contains("  … Bash  cargo test\n"), "{out:?}");
        assert!(out.contains("  ✓ Bash  cargo test  0.0s\n"), "{out:?}");
        assert!(out.contains("│ a\n"));
        assert!(out.contains("│ … 2 more lines\n"), "{out:?}");
        assert!(
            out.contains("    sub-agent › ✗ Read  /x"),
            "sub-agent tools are indented: {out:?}"
        );
    }

    #[test]
    fn live_spinners_are_erased_before_text() {
        let mut r = renderer(true, true);
        let t0 = Instant::now();
        let out = r.message_at(
            &msg(json!({"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"sleep 1"}}]}})),
            t0,
        );
        assert!(strip_sgr(&out).contains("⠋ Bash  sleep 1"), "{out:?}");
        assert!(r.has_live());
        let tick = r.tick(t0 + Duration::from_millis(250));
        assert!(tick.starts_with("\r\x1b[2K"), "{tick:?}");
        assert!(
            strip_sgr(&tick).contains("⠸ Bash  sleep 1  0.2s"),
            "{tick:?}"
        );
        let done = r.message_at(
            &msg(json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":""}]}})),
            t0 + Duration::from_secs(1),
        );
        assert!(done.starts_with("\r\x1b[2K"));
        assert!(
            strip_sgr(&done).contains("✓ Bash  sleep 1  1.0s"),
            "{done:?}"
        );
        assert!(!r.has_live());
    }

    #[test]
    fn thinking_is_dimmed_or_hidden() {
        let msgs = [
            json!({"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}}),
            json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"pondering"}}}),
            json!({"type":"stream_event","event":{"type":"content_block_stop","index":0}}),
            json!({"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}}),
            delta("answer"),
        ];
        let mut r = renderer(true, false);
        let out = feed(&mut r, &msgs);
        assert!(
            out.contains("\x1b[2mpondering")
                || out.contains("\x1b[2m") && out.contains("pondering"),
            "{out:?}"
        );
        assert!(strip_sgr(&out).contains("∴ thinking"));
        let mut r = renderer(false, false);
        r.opts.show_thinking = false;
        let out = feed(&mut r, &msgs);
        assert!(!out.contains("pondering"), "{out:?}");
        assert!(out.contains("answer"));
    }

    #[test]
    fn retries_and_synthetic_errors_are_shown() {
        let mut r = renderer(false, false);
        let out = feed(
            &mut r,
            &[
                json!({"type":"system","subtype":"api_retry","attempt":3,"max_retries":10,"retry_delay_ms":2400,"error_status":529,"error":"overloaded"}),
                json!({"type":"assistant","message":{"id":"x","model":"<synthetic>","content":[{"type":"text","text":"API Error: 402 no credit"}]}}),
            ],
        );
        assert!(
            out.contains("↻ retrying (3/10) in 2.4 s — overloaded"),
            "{out:?}"
        );
        assert!(out.contains("API Error: 402 no credit"), "{out:?}");
    }

    #[test]
    fn a_background_agent_is_drawn_under_its_task() {
        let mut r = renderer(false, true);
        let t0 = Instant::now();
        let mut out = String::new();
        for m in [
            json!({"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"task1","name":"Agent","input":{"description":"count files","prompt":"count"}}]}}),
            json!({"type":"system","subtype":"task_started","task_id":"a1","tool_use_id":"task1","description":"count files","is_backgrounded":true}),
            json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"task1","content":[{"type":"text","text":"Async agent launched successfully. (internal)"}]}]}}),
            json!({"type":"result","subtype":"success","is_error":false,"num_turns":1,"duration_ms":100}),
        ] {
            out.push_str(&r.message_at(&msg(m), t0));
        }
        assert!(
            out.contains("⇢ Agent  count files  working in the background"),
            "{out}"
        );
        assert!(!out.contains("Async agent launched"), "{out}");
        assert!(out.contains("1 agent still working"), "{out}");
        assert_eq!(r.agents_running(), 1);
        // between prompts: no spinners, whole lines
        r.suspend();
        r.set_live(false);
        let mut out = String::new();
        for m in [
            json!({"type":"assistant","message":{"id":"s1","content":[{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":"task1","agent_id":"a1"}),
            json!({"type":"system","subtype":"task_progress","task_id":"a1","description":"Running ls"}),
            json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b1","content":"a\nb"}]},"parent_tool_use_id":"task1"}),
            json!({"type":"assistant","message":{"id":"s2","content":[{"type":"text","text":"3 files\u{1b}[2J"}]},"parent_tool_use_id":"task1"}),
            json!({"type":"system","subtype":"task_notification","task_id":"a1","tool_use_id":"task1","status":"completed","summary":"3 files","usage":{"tool_uses":1,"duration_ms":4200}}),
        ] {
            out.push_str(&r.message_at(&msg(m), t0));
        }
        assert_eq!(r.agent_by_task("a1").as_deref(), Some("count files"));
        assert_eq!(r.agent_of("b1"), None, "finished calls are forgotten");
        assert!(out.contains("    count files › ✓ Bash  ls"), "{out}");
        assert!(out.contains("    count files › 3 files\n"), "{out}");
        assert!(!out.contains('\u{1b}'), "{out:?}");
        assert!(
            out.contains("● count files  completed · 4.2s · 1 tool call"),
            "{out}"
        );
        assert_eq!(r.agents_running(), 0);
    }

    #[test]
    fn questions_and_plans_are_no_tool_lines() {
        let mut r = renderer(false, false);
        let out = feed(
            &mut r,
            &[
                json!({"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"q","name":"AskUserQuestion","input":{"questions":[]}}]}}),
                json!({"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"p","name":"ExitPlanMode","input":{"plan":"# P"}}]}}),
                json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"q","content":"Your questions have been answered"}]}}),
            ],
        );
        assert_eq!(out, "", "{out:?}");
    }

    #[test]
    fn running_agents_and_their_calls_are_live() {
        let mut r = renderer(false, true);
        let t0 = Instant::now();
        r.message_at(&msg(json!({"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"task1","name":"Task","input":{"description":"scan"}}]}})), t0);
        r.message_at(&msg(json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"task1","content":"Async agent launched successfully."}]}})), t0);
        let out = r.message_at(&msg(json!({"type":"assistant","message":{"id":"s","content":[{"type":"tool_use","id":"g1","name":"Bash","input":{"command":"sleep 5"}}]},"parent_tool_use_id":"task1"})), t0);
        assert!(out.contains("scan  working"), "{out}");
        assert!(out.contains("scan › ⠋ Bash  sleep 5"), "{out}");
        assert_eq!(r.agent_of("g1").as_deref(), Some("scan"));
    }

    #[test]
    fn long_summaries_fit_the_width() {
        let mut r = renderer(false, false);
        r.set_width(40);
        let out = feed(
            &mut r,
            &[
                json!({"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"x".repeat(200)}}]}}),
            ],
        );
        for line in out.lines() {
            assert!(line.width() <= 40, "{line:?}");
        }
    }
}
