//! What the chat shows when it resumes a session: the last exchanges, as
//! `sessions inspect` draws them, so the person sees where they left off.

use super::core::{short_id, Chat};

/// How many of the last exchanges are shown.
const SHOWN: usize = 3;
/// At most this many of their lines (a pasted log in a prompt must not
/// flood the screen): the last ones, after a line saying how many went.
const MAX_LINES: usize = 60;

impl Chat<'_> {
    /// Show the end of session `id`'s conversation (nothing when it cannot
    /// be read: the CLI still resumes it, and says so if it cannot).
    pub(super) fn show_history(&mut self, id: &str) {
        let Ok(store) = claudio::store::Store::open(None) else {
            return;
        };
        let Ok((file, conv)) = store.conversation(id) else {
            return;
        };
        let Some((body, earlier)) =
            crate::cli::sessions::last_exchanges(&conv.entries, SHOWN, self.screen.style)
        else {
            return;
        };
        let s = self.screen.style;
        let head = if earlier == 0 {
            "── the conversation so far ──".to_owned()
        } else {
            format!(
                "── the last exchanges ({earlier} earlier prompt{}: claudio sessions inspect {}) ──",
                if earlier == 1 { "" } else { "s" },
                short_id(&file.id)
            )
        };
        let lines: Vec<&str> = body.lines().collect();
        let body = if lines.len() > MAX_LINES {
            let cut = lines.len() - MAX_LINES;
            format!(
                "{}\n{}",
                s.dim(&format!(
                    "… {cut} lines above (claudio sessions inspect {})",
                    short_id(&file.id)
                )),
                lines[cut..].join("\n")
            )
        } else {
            body
        };
        let mut out = format!("{}\n{body}", s.dim(&head));
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("{}\n", s.dim("── resumed here ──")));
        self.write(&out);
    }
}
