//! Round seven's attack on the last stop's own fixes (the double Ctrl-C
//! after an interrupted turn, the end of a CLI's stdout once it exited):
//! each test is one repro.

use crate::chat::chat;
use crate::common::*;

/// A Ctrl-C at the prompt after a `!` command or a slash command typed
/// since the interrupt is no second press of the interrupt's: it clears
/// the line and the chat goes on. Before, within 2 s of the interrupt it
/// quit (130), as if nothing had been typed in between: only a prompt sent
/// ended the window.
#[test]
fn a_ctrl_c_after_a_bang_or_slash_command_since_the_interrupt_does_not_quit() {
    for between in ["!echo between-$((6*7))", "/help"] {
        let fake = Fake::after_init(vec![interrupted_turn("long task", "working on it")]);
        let mut t = chat(&fake);
        t.interrupt_a_turn("long task", "working on it");
        t.wait_for("⏹ interrupted");
        t.wait_prompt();
        t.line(between);
        if between.starts_with('!') {
            t.wait_for("between-42");
        } else {
            t.wait_for("Ctrl-S/X");
        }
        t.wait_prompt();
        t.ctrl_c();
        t.ctrl_d();
        assert_eq!(t.wait(20).code(), Some(0), "{between}: the chat quit");
    }
}
