//! What the chat shows of itself: its header, and the prompt's label
//! (the model chosen, the mode). Pure: the terminal's width is given.

use super::state::short_id;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::Style;
use crate::cli::term::text::{cut_width, flat};
use crate::cli::term::wrap::wrapped;
use claudio::PermissionMode;
use std::path::Path;

/// The header, `width` columns wide: `claudio` and its version, the
/// model chosen, the folder `cwd`, the session resumed; then the keys.
pub(super) fn header(
    s: Style,
    width: usize,
    cwd: Option<&Path>,
    chosen_model: Option<&str>,
    resume: Option<&str>,
) -> String {
    let cwd = cwd.map(tilde).unwrap_or_default();
    let mut parts = vec![format!("claudio {}", env!("CARGO_PKG_VERSION"))];
    if let Some(m) = chosen_model {
        parts.push(model_label(m, HEADER_MODEL_COLUMNS));
    }
    parts.push(flat(&cwd));
    if let Some(id) = resume {
        parts.push(format!("resuming {}", short_id(id)));
    }
    let about = s.dim(&Sanitizer::clean(&parts.join(" · ")));
    let keys = s.dim("/help for commands · Ctrl-C interrupts · Ctrl-D exits");
    wrapped(&about, width, "", "") + &wrapped(&keys, width, "", "")
}

/// The prompt: the model the person chose and the mode unless it is
/// `default`, then `›`; the same before and after the CLI names its
/// model (with none chosen, a bare `›` throughout).
pub(super) fn prompt(chosen_model: Option<&str>, mode: Option<&PermissionMode>) -> String {
    let mut parts = Vec::new();
    if let Some(m) = chosen_model {
        // a third of the row at most, the typed text's room kept
        let room = (super::screen::terminal_width() / 3).clamp(8, PROMPT_MODEL_COLUMNS);
        parts.push(model_label(&short_model(m), room));
    }
    if let Some(mode) = mode.filter(|m| **m != PermissionMode::Default) {
        parts.push(flat(mode.as_str()));
    }
    let label = parts.join(" · ");
    if label.is_empty() {
        "› ".into()
    } else {
        format!("{label} › ")
    }
}

fn tilde(p: &Path) -> String {
    if let Some(home) = dirs::home_dir() {
        if let Ok(rest) = p.strip_prefix(&home) {
            return format!("~/{}", rest.display());
        }
    }
    p.display().to_string()
}

/// The most columns a model's name takes in the prompt (a third of the
/// row on a narrower terminal) and in the header.
const PROMPT_MODEL_COLUMNS: usize = 40;
const HEADER_MODEL_COLUMNS: usize = 80;

/// A model's name as the prompt and the header show it: one line of inert
/// text (it may come from a project's settings), cut to `room` columns.
fn model_label(m: &str, room: usize) -> String {
    cut_width(&flat(m), room)
}

/// `claude-opus-5-5` → `opus-5-5`.
fn short_model(m: &str) -> String {
    m.strip_prefix("claude-").unwrap_or(m).to_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn prompt_labels() {
        assert_eq!(super::short_model("claude-opus-5-5"), "opus-5-5");
        assert_eq!(super::short_id("0b7d4e8a-9c55"), "0b7d4e8a");
    }
}
