//! Tools that ask the person rather than for permission: `AskUserQuestion`
//! (the model's multiple-choice questions) and `ExitPlanMode` (a plan to
//! approve). The CLI sends both as `can_use_tool` requests; the answer goes
//! back as a [`PermissionResult`] (protocol.md §6).
//!
//! A permission handler that answers both, and allows the rest:
//!
//! ```
//! use claudio::protocol::ask::{self, ASK_USER_QUESTION, EXIT_PLAN_MODE};
//! use claudio::{Options, PermissionMode, PermissionResult};
//! let options = Options::default().can_use_tool(|req, _ctx| async move {
//!     Ok(match req.tool_name.as_str() {
//!         ASK_USER_QUESTION => match ask::questions(&req.input) {
//!             // a real program asks a person; this one takes each first option
//!             Some(qs) => {
//!                 let answers = qs.iter().map(|q| {
//!                     let first = q.options.first().map(|o| o.label.clone());
//!                     (q.question.as_str(), first.unwrap_or_default())
//!                 });
//!                 ask::answer_questions(&req.input, answers)
//!             }
//!             None => PermissionResult::deny("the questions could not be read"),
//!         },
//!         EXIT_PLAN_MODE => req.approve_plan(PermissionMode::AcceptEdits, None),
//!         _ => PermissionResult::allow(),
//!     })
//! });
//! ```

use super::control::{PermissionResult, PermissionUpdate};
use super::names::Unanswered;
use super::replies::{Capabilities, PermissionMode};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The tool the model uses to ask the person questions.
pub const ASK_USER_QUESTION: &str = "AskUserQuestion";
/// The tool the model uses to leave plan mode with a plan.
pub const EXIT_PLAN_MODE: &str = "ExitPlanMode";

/// What a `can_use_tool` request asks of the person: the one place that
/// tells a question or a plan from a tool to allow.
///
/// ```
/// use claudio::protocol::ask::RequestKind;
/// assert_eq!(RequestKind::of_tool("AskUserQuestion"), RequestKind::Questions);
/// assert_eq!(RequestKind::of_tool("ExitPlanMode"), RequestKind::Plan);
/// assert_eq!(RequestKind::of_tool("Bash"), RequestKind::Tool);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestKind {
    /// A tool to allow or deny.
    Tool,
    /// The model's questions ([`ASK_USER_QUESTION`]): answer them with
    /// [`answer_questions`].
    Questions,
    /// A plan to approve ([`EXIT_PLAN_MODE`]): answer with
    /// [`approve_plan`], [`approve_edited_plan`] or a denial.
    Plan,
}

impl RequestKind {
    /// Every kind, each once: a front end can check it answers them all.
    ///
    /// ```
    /// use claudio::protocol::ask::RequestKind;
    /// assert!(RequestKind::ALL.contains(&RequestKind::Plan));
    /// ```
    pub const ALL: &'static [RequestKind] =
        &[RequestKind::Tool, RequestKind::Questions, RequestKind::Plan];

    /// The kind of a request (or of a `tool_use` block) for this tool.
    pub fn of_tool(name: &str) -> RequestKind {
        match name {
            ASK_USER_QUESTION => RequestKind::Questions,
            EXIT_PLAN_MODE => RequestKind::Plan,
            _ => RequestKind::Tool,
        }
    }
}

/// The request's kind and its plan are read here, beside the answers that
/// go with them (the request type itself is the control protocol's).
impl super::control::CanUseToolRequest {
    /// What this request asks of the person.
    pub fn kind(&self) -> RequestKind {
        RequestKind::of_tool(&self.tool_name)
    }

    /// For an `ExitPlanMode` request, the plan the model proposes: the
    /// request's own `input.plan` if it has one, else the plan of the
    /// `tool_use` block it is for, which the CLI 2.1.328 sends only in the
    /// assistant message (the request's input is `{}`); the session keeps
    /// the plans of recent calls to hand them over here. `None` for any
    /// other tool, or when the call was not seen.
    ///
    /// ```
    /// use claudio::{Options, PermissionResult};
    /// let options = Options::default().can_use_tool(|req, _ctx| async move {
    ///     if let Some(plan) = req.plan() {
    ///         println!("the plan:\n{plan}");
    ///     }
    ///     Ok(PermissionResult::deny("not now"))
    /// });
    /// ```
    pub fn plan(&self) -> Option<&str> {
        if self.kind() != RequestKind::Plan {
            return None;
        }
        plan_text(&self.input).or(self.seen_plan.as_deref())
    }

    /// Approve this `ExitPlanMode` request and switch the session to
    /// `mode`. `edited` is the plan as the person left it: when it is
    /// `None` or the plan shown ([`plan`](Self::plan)), the approval
    /// is unedited and the request's input goes back as it came
    /// ([`approve_plan`]); otherwise the
    /// changed plan goes back and the model is told the person edited it
    /// ([`approve_edited_plan`]).
    ///
    /// ```
    /// use claudio::{Options, PermissionMode, PermissionResult};
    /// use claudio::protocol::ask::RequestKind;
    /// let options = Options::default().can_use_tool(|req, _ctx| async move {
    ///     Ok(match req.kind() {
    ///         // shown to a person, who approved it without a change
    ///         RequestKind::Plan => req.approve_plan(PermissionMode::AcceptEdits, None),
    ///         _ => PermissionResult::allow(),
    ///     })
    /// });
    /// ```
    pub fn approve_plan(&self, mode: PermissionMode, edited: Option<&str>) -> PermissionResult {
        match edited {
            Some(text) if Some(text) != self.plan() => approve_edited_plan(mode, &self.input, text),
            _ => unedited(mode, &self.input),
        }
    }
}

/// One of the model's questions (`AskUserQuestion` sends one to four).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// The question, also the key of its answer.
    pub question: String,
    /// A short label (a chip in the claude TUI).
    #[serde(default)]
    pub header: String,
    /// Whether several options may be chosen.
    #[serde(default)]
    pub multi_select: bool,
    /// The choices offered.
    #[serde(default)]
    pub options: Vec<QuestionOption>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One choice of a [`Question`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionOption {
    /// The choice as shown, and as answered.
    pub label: String,
    /// What choosing it means.
    #[serde(default)]
    pub description: String,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The questions in an `AskUserQuestion` input; `None` when the input has
/// none that can be read (answer it with a denial).
///
/// ```
/// use claudio::protocol::ask;
/// use serde_json::json;
/// let input = json!({"questions": [{
///     "question": "Which database should we use?", "header": "DB", "multiSelect": false,
///     "options": [{"label": "SQLite", "description": "a file"},
///                 {"label": "Postgres", "description": "a server"}]}]});
/// let qs = ask::questions(&input).expect("readable questions");
/// assert_eq!(qs[0].header, "DB");
/// assert_eq!(qs[0].options[1].label, "Postgres");
/// assert!(ask::questions(&json!({})).is_none());
/// ```
pub fn questions(input: &Value) -> Option<Vec<Question>> {
    let list = input.get("questions")?.as_array()?;
    let qs: Vec<Question> = list
        .iter()
        .filter_map(|q| serde_json::from_value(q.clone()).ok())
        .collect();
    (!qs.is_empty() && qs.len() == list.len()).then_some(qs)
}

/// Allow `AskUserQuestion` with the person's answers, keyed by question
/// text: the input is echoed with an `answers` object added, which is what
/// makes the CLI tell the model "Your questions have been answered".
/// Several options of a multi-select question are one answer, joined with
/// `", "`, as the claude TUI sends them.
///
/// ```
/// use claudio::protocol::ask;
/// use serde_json::json;
/// let input = json!({"questions": [{"question": "Which database should we use?",
///     "options": [{"label": "SQLite"}, {"label": "Postgres"}]}]});
/// let answers = [("Which database should we use?", "SQLite".to_owned())];
/// let reply = ask::answer_questions(&input, answers).to_response(&input);
/// let expected = json!({"Which database should we use?": "SQLite"});
/// assert_eq!(reply["updatedInput"]["answers"], expected);
/// assert_eq!(reply["updatedInput"]["questions"], input["questions"]);
/// ```
pub fn answer_questions<'a>(
    input: &Value,
    answers: impl IntoIterator<Item = (&'a str, String)>,
) -> PermissionResult {
    let mut updated = match input {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    let map: Map<String, Value> = answers
        .into_iter()
        .map(|(q, a)| (q.to_owned(), Value::String(a)))
        .collect();
    updated.insert("answers".into(), Value::Object(map));
    PermissionResult::allow_with_input(Value::Object(updated))
}

/// What a skipped question is answered with: the text the model reads
/// (`"Which database?"="[No preference]"`), as the TypeScript SDK 0.3.333
/// names it.
pub const NO_PREFERENCE: &str = "[No preference]";

/// The capability (in `system`/`init`,
/// [`SystemInit::capabilities`](super::SystemInit::capabilities)) that says
/// the CLI takes `annotations[question].unanswered` in an answer. The CLI
/// 2.1.328 and 2.1.332 both list it there (not in the `initialize`
/// answer); a CLI without it may refuse the whole answer.
pub const UNANSWERED_CAPABILITY: &str = "ask_user_question_unanswered_v1";

/// The person's answer to one question ([`answer_each`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Answer {
    /// The chosen label (several joined with `", "`), or typed text.
    Text(String),
    /// No preference: the person skipped the question. The model reads
    /// [`NO_PREFERENCE`]; a CLI that has [`UNANSWERED_CAPABILITY`] is also
    /// told the question was skipped ([`Unanswered::Skipped`], echoed in the
    /// tool result's `annotations`).
    Skipped,
}

impl From<String> for Answer {
    fn from(text: String) -> Answer {
        Answer::Text(text)
    }
}

impl From<&str> for Answer {
    fn from(text: &str) -> Answer {
        Answer::Text(text.to_owned())
    }
}

/// Allow `AskUserQuestion` with an [`Answer`] per question, keyed by
/// question text: like [`answer_questions`], and a skipped question is
/// answered [`NO_PREFERENCE`], with `annotations[question].unanswered =
/// "skipped"` when `capabilities` (the session's `system`/`init` ones) has
/// [`UNANSWERED_CAPABILITY`]. The CLI 2.1.332 then tells the model
/// `The user answered: "Which database?"="[No preference]", ...` and echoes
/// the annotation in the tool result. (A question left out of `answers`
/// is not mentioned to the model at all, and with no answer at all it
/// reads "The user did not answer the questions.")
///
/// ```
/// use claudio::protocol::ask::{self, Answer};
/// use claudio::protocol::Capabilities;
/// use serde_json::json;
/// let input = json!({"questions": [
///     {"question": "Which database?", "options": [{"label": "SQLite"}]},
///     {"question": "Which language?", "options": [{"label": "Go"}]}]});
/// // the capabilities of the session's `system`/`init`
/// let caps: Capabilities = [ask::UNANSWERED_CAPABILITY].into_iter().collect();
/// let answers = [("Which database?", Answer::Skipped), ("Which language?", "Go".into())];
/// let reply = ask::answer_each(&input, answers, &caps).to_response(&input);
/// let sent = &reply["updatedInput"];
/// assert_eq!(sent["answers"], json!({"Which database?": "[No preference]", "Which language?": "Go"}));
/// assert_eq!(sent["annotations"], json!({"Which database?": {"unanswered": "skipped"}}));
/// // a CLI that does not say it takes annotations gets the text only
/// let reply = ask::answer_each(&input, [("Which database?", Answer::Skipped)],
///     &Capabilities::default()).to_response(&input);
/// assert!(reply["updatedInput"].get("annotations").is_none());
/// ```
pub fn answer_each<'a>(
    input: &Value,
    answers: impl IntoIterator<Item = (&'a str, Answer)>,
    capabilities: &Capabilities,
) -> PermissionResult {
    let annotate = capabilities.has(UNANSWERED_CAPABILITY);
    let mut updated = match input {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    let mut texts = Map::new();
    let mut notes = match updated.remove("annotations") {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    for (question, answer) in answers {
        match answer {
            Answer::Text(text) => {
                texts.insert(question.to_owned(), Value::String(text));
            }
            Answer::Skipped => {
                texts.insert(question.to_owned(), Value::String(NO_PREFERENCE.to_owned()));
                if annotate {
                    let note = notes
                        .entry(question.to_owned())
                        .or_insert_with(|| Value::Object(Map::new()));
                    if !note.is_object() {
                        *note = Value::Object(Map::new());
                    }
                    if let Value::Object(n) = note {
                        n.insert(
                            "unanswered".into(),
                            Value::String(Unanswered::Skipped.as_str().to_owned()),
                        );
                    }
                }
            }
        }
    }
    updated.insert("answers".into(), Value::Object(texts));
    if !notes.is_empty() {
        updated.insert("annotations".into(), Value::Object(notes));
    }
    PermissionResult::allow_with_input(Value::Object(updated))
}

/// Every question skipped: what to answer when the person declines the
/// whole dialog (no preference on any of them), so that the model reads
/// that nobody chose and goes on with its own judgement. See
/// [`answer_each`].
///
/// ```
/// use claudio::protocol::{ask, Capabilities};
/// use serde_json::json;
/// let input = json!({"questions": [{"question": "Which database?", "options": []}]});
/// let caps: Capabilities = [ask::UNANSWERED_CAPABILITY].into_iter().collect();
/// let reply = ask::skip_questions(&input, &caps).to_response(&input);
/// assert_eq!(reply["updatedInput"]["answers"]["Which database?"], ask::NO_PREFERENCE);
/// assert_eq!(reply["updatedInput"]["annotations"]["Which database?"]["unanswered"], "skipped");
/// ```
pub fn skip_questions(input: &Value, capabilities: &Capabilities) -> PermissionResult {
    let asked: Vec<String> = match input.get("questions").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .filter_map(|q| q.get("question").and_then(Value::as_str))
            .map(str::to_owned)
            .collect(),
        None => Vec::new(),
    };
    answer_each(
        input,
        asked.iter().map(|q| (q.as_str(), Answer::Skipped)),
        capabilities,
    )
}

/// How each question of an `AskUserQuestion` tool result went unanswered,
/// by question text: the `annotations` the CLI echoes in the `user` line's
/// `tool_use_result` (an unknown value is kept as
/// [`Unanswered::Other`]).
///
/// ```
/// use claudio::protocol::{ask, Unanswered};
/// use serde_json::json;
/// let result = json!({"answers": {"Which database?": "[No preference]"},
///     "annotations": {"Which database?": {"unanswered": "skipped"}}});
/// assert_eq!(ask::unanswered(&result), [("Which database?".to_owned(), Unanswered::Skipped)]);
/// ```
pub fn unanswered(tool_use_result: &Value) -> Vec<(String, Unanswered)> {
    let Some(notes) = tool_use_result
        .get("annotations")
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    notes
        .iter()
        .filter_map(|(q, note)| {
            let how = note.get("unanswered")?.as_str()?;
            Some((q.clone(), Unanswered::from_name(how)))
        })
        .collect()
}

/// The plan in an `ExitPlanMode` input (markdown). The CLI's request
/// carries the plan file's text when the model wrote one, and an empty input
/// otherwise: then the plan is in the assistant's `tool_use` block of the
/// same id. Look in the request's input first, then in the block's.
///
/// ```
/// use claudio::protocol::ask;
/// use serde_json::json;
/// let input = json!({"plan": "# Plan\n1. Add the parser\n2. Test it"});
/// assert_eq!(ask::plan_text(&input), Some("# Plan\n1. Add the parser\n2. Test it"));
/// assert_eq!(ask::plan_text(&json!({})), None); // look in the `tool_use` block
/// ```
pub fn plan_text(input: &Value) -> Option<&str> {
    input.get("plan").and_then(Value::as_str)
}

/// Approve a plan as the model proposed it, and switch the session to
/// `mode` (`acceptEdits` to accept edits without asking, `default` to keep
/// approving them one by one). `request_input` is the permission request's
/// input; it goes back unchanged, which is what an unedited approval is to
/// the CLI 2.1.328 (probed):
/// - when the model wrote a plan file, the input is `{"plan", "planFilePath"}`
///   from that file, and the model is told `## Approved Plan:` and the plan;
/// - when it did not, the input is `{}`, and the model is told "User has
///   approved exiting plan mode. You can now proceed." (the plan is the one
///   in its own `tool_use` block).
///
/// Sending a plan back that differs from the plan file (or with no file at
/// all) makes the CLI tell the model `## Approved Plan (edited by user):`:
/// only do that when the person changed it, with [`approve_edited_plan`].
///
/// Deprecated: two `approve_plan`s with different second parameters were
/// one too many. [`CanUseToolRequest::approve_plan`](super::CanUseToolRequest::approve_plan)
/// with `None` sends the same answer.
///
/// ```
/// # #![allow(deprecated)]
/// use claudio::{protocol::ask, PermissionMode};
/// use serde_json::json;
/// let input = json!({}); // the request's input: no plan file
/// let reply = ask::approve_plan(PermissionMode::AcceptEdits, &input).to_response(&input);
/// assert_eq!(reply["updatedInput"], json!({})); // not "edited by user"
/// assert_eq!(reply["updatedPermissions"][0]["mode"], "acceptEdits");
/// ```
///
/// The [module's example](self) approves plans in a handler;
/// [`CanUseToolRequest::approve_plan`](super::CanUseToolRequest::approve_plan)
/// picks between the two functions by comparing the person's text with the
/// plan shown.
#[deprecated(
    since = "0.1.0",
    note = "use `CanUseToolRequest::approve_plan(mode, None)` (the request's own method: one `approve_plan`)"
)]
pub fn approve_plan(mode: PermissionMode, request_input: &Value) -> PermissionResult {
    unedited(mode, request_input)
}

/// An unedited approval: the request's input back as it came.
fn unedited(mode: PermissionMode, request_input: &Value) -> PermissionResult {
    PermissionResult::Allow {
        updated_input: Some(request_input.clone()),
        updated_permissions: vec![PermissionUpdate::set_mode(mode)],
        decision_classification: None,
    }
}

/// Approve a plan the person changed: `edited` goes back as
/// `updatedInput.plan` (the CLI writes it to its plan file), and the model
/// is told `## Approved Plan (edited by user):` with it. When `edited` is
/// the request's own plan, nothing was changed, and this is
/// an unedited approval.
///
/// ```
/// # #![allow(deprecated)]
/// use claudio::{protocol::ask, PermissionMode};
/// use serde_json::json;
/// let input = json!({"plan": "# Plan\n1. x", "planFilePath": "/h/.claude/plans/p.md"});
/// let edited = "# Plan\n1. x\n2. and tests";
/// let reply = ask::approve_edited_plan(PermissionMode::Default, &input, edited)
///     .to_response(&input);
/// assert_eq!(reply["updatedInput"]["plan"], edited);
/// assert_eq!(reply["updatedInput"]["planFilePath"], "/h/.claude/plans/p.md");
/// // unchanged: the input goes back as it came
/// let same = ask::approve_edited_plan(PermissionMode::Default, &input, "# Plan\n1. x");
/// assert_eq!(same, ask::approve_plan(PermissionMode::Default, &input));
/// ```
pub fn approve_edited_plan(
    mode: PermissionMode,
    request_input: &Value,
    edited: &str,
) -> PermissionResult {
    if plan_text(request_input) == Some(edited) {
        return unedited(mode, request_input);
    }
    let mut input = match request_input {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    input.insert("plan".into(), Value::String(edited.to_owned()));
    PermissionResult::Allow {
        updated_input: Some(Value::Object(input)),
        updated_permissions: vec![PermissionUpdate::set_mode(mode)],
        decision_classification: None,
    }
}

#[cfg(test)]
#[allow(deprecated)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `ALL` holds every kind once: a kind added without it fails here (the
    /// match stops compiling first).
    #[test]
    fn all_holds_every_kind_once() {
        let place = |k: RequestKind| match k {
            RequestKind::Tool => 0,
            RequestKind::Questions => 1,
            RequestKind::Plan => 2,
        };
        let places: Vec<usize> = RequestKind::ALL.iter().map(|&k| place(k)).collect();
        assert_eq!(places, [0, 1, 2]);
    }

    #[test]
    fn reads_questions_and_answers_them_keyed_by_text() {
        let input = json!({"questions":[{"question":"Which database?","header":"DB","multiSelect":false,
            "options":[{"label":"SQLite","description":"a file"},{"label":"Postgres","description":"a server"}]}]});
        let qs = questions(&input).unwrap();
        assert_eq!(qs[0].question, "Which database?");
        assert_eq!(qs[0].options[1].label, "Postgres");
        assert!(!qs[0].multi_select);
        let r = answer_questions(&input, [("Which database?", "SQLite".to_owned())]);
        let v = r.to_response(&input);
        assert_eq!(v["behavior"], "allow");
        assert_eq!(v["updatedInput"]["questions"], input["questions"]);
        assert_eq!(
            v["updatedInput"]["answers"],
            json!({"Which database?":"SQLite"})
        );
    }

    const Q1: &str = "Which database should we use?";
    const Q2: &str = "Which language?";

    fn two_questions() -> Value {
        json!({"questions":[
            {"question":Q1,"header":"DB","options":[{"label":"SQLite","description":"a file"},{"label":"Postgres","description":"a server"}],"multiSelect":false},
            {"question":Q2,"header":"Lang","options":[{"label":"Go","description":"go"},{"label":"Rust","description":"rust"}],"multiSelect":false}]})
    }

    #[test]
    fn a_skipped_question_is_answered_as_the_real_cli_takes_it() {
        let input = two_questions();
        let caps: Capabilities = [UNANSWERED_CAPABILITY].into_iter().collect();
        let r = answer_each(&input, [(Q1, Answer::Skipped), (Q2, "Go".into())], &caps);
        let v = r.to_response(&input);
        // the answer the CLI 2.1.332 was probed with (issue 30): the model
        // read `The user answered: "Which database should we use?"="[No
        // preference]", "Which language?"="Go". ...`
        assert_eq!(
            v["updatedInput"],
            json!({"questions": input["questions"],
                "answers": {Q1: "[No preference]", Q2: "Go"},
                "annotations": {Q1: {"unanswered": "skipped"}}})
        );
        // without the capability: the text only
        let v = answer_each(&input, [(Q1, Answer::Skipped)], &Capabilities::default())
            .to_response(&input);
        assert_eq!(v["updatedInput"]["answers"], json!({Q1: "[No preference]"}));
        assert!(v["updatedInput"].get("annotations").is_none());
        // plain answers are what `answer_questions` sends
        let plain = answer_each(&input, [(Q2, Answer::from("Go"))], &caps);
        assert_eq!(plain, answer_questions(&input, [(Q2, "Go".to_owned())]));
        // all skipped
        let v = skip_questions(&input, &caps).to_response(&input);
        assert_eq!(
            v["updatedInput"]["answers"],
            json!({Q1: NO_PREFERENCE, Q2: NO_PREFERENCE})
        );
        assert_eq!(
            v["updatedInput"]["annotations"],
            json!({Q1: {"unanswered":"skipped"}, Q2: {"unanswered":"skipped"}})
        );
        // notes already there (a preview's) are kept beside it
        let mut with_notes = input.clone();
        with_notes["annotations"] = json!({Q1: {"notes": "small app"}, Q2: 3});
        let v = answer_each(&with_notes, [(Q1, Answer::Skipped)], &caps).to_response(&input);
        assert_eq!(
            v["updatedInput"]["annotations"],
            json!({Q1: {"notes": "small app", "unanswered": "skipped"}, Q2: 3})
        );
    }

    #[test]
    fn the_echoed_annotations_are_read_back() {
        // the `tool_use_result` of the user line the CLI 2.1.332 wrote
        let result = json!({"questions": two_questions()["questions"],
            "answers": {Q1: "[No preference]", Q2: "Go"},
            "annotations": {Q1: {"unanswered": "skipped"}}});
        assert_eq!(unanswered(&result), [(Q1.to_owned(), Unanswered::Skipped)]);
        let later = json!({"annotations": {Q2: {"unanswered": "timed_out"}, Q1: {"notes": "x"}}});
        assert_eq!(
            unanswered(&later),
            [(Q2.to_owned(), Unanswered::Other("timed_out".into()))]
        );
        assert!(unanswered(&json!({"answers": {}})).is_empty());
    }

    #[test]
    fn the_request_says_it_asks_the_person() {
        let req: crate::protocol::CanUseToolRequest = serde_json::from_value(json!({
            "subtype":"can_use_tool","tool_name":"AskUserQuestion","input":{"questions":[]},
            "tool_use_id":"t","requires_user_interaction":true}))
        .unwrap();
        assert!(req.requires_user_interaction);
        let plain: crate::protocol::CanUseToolRequest =
            serde_json::from_value(json!({"tool_name":"Bash","input":{}})).unwrap();
        assert!(!plain.requires_user_interaction);
        let r = PermissionResult::allow_with(json!({"x":1}), vec![]);
        assert_eq!(r.to_response(&json!({}))["updatedInput"], json!({"x":1}));
    }

    #[test]
    fn unreadable_questions_are_none() {
        assert!(questions(&json!({})).is_none());
        assert!(questions(&json!({"questions":[]})).is_none());
        assert!(questions(&json!({"questions":[{"header":"no text"}]})).is_none());
    }

    #[test]
    fn plan_approval_sets_the_mode_and_echoes_the_input() {
        let v = approve_plan(PermissionMode::AcceptEdits, &json!({})).to_response(&json!({}));
        assert_eq!(
            v,
            json!({"behavior":"allow","updatedInput":{},"updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]})
        );
        // the plan file's text, as the CLI sent it, goes back unchanged
        let from_file = json!({"plan":"# From file","planFilePath":"/p/x.md"});
        let v = approve_plan(PermissionMode::Default, &from_file).to_response(&from_file);
        assert_eq!(v["updatedInput"], from_file);
        assert_eq!(v["updatedPermissions"][0]["mode"], "default");
        assert_eq!(plan_text(&json!({"plan":"# P"})), Some("# P"));
    }

    #[test]
    fn only_a_changed_plan_goes_back() {
        let from_file = json!({"plan":"# From file","planFilePath":"/p/x.md"});
        let v = approve_edited_plan(PermissionMode::Default, &from_file, "# Changed")
            .to_response(&from_file);
        assert_eq!(
            v["updatedInput"],
            json!({"plan":"# Changed","planFilePath":"/p/x.md"})
        );
        let same = approve_edited_plan(PermissionMode::Default, &from_file, "# From file");
        assert_eq!(same, approve_plan(PermissionMode::Default, &from_file));
        // no plan file: the edit is the whole input
        let v = approve_edited_plan(PermissionMode::AcceptEdits, &json!({}), "# Mine")
            .to_response(&json!({}));
        assert_eq!(v["updatedInput"], json!({"plan":"# Mine"}));
    }
}
