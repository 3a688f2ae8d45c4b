//! Ctrl-C while Claude works, the same in the chat and in `ask`: the first
//! press interrupts the turn; a second within [`DOUBLE_PRESS`] quits,
//! killing the CLI (exit 130). Pure: presses in, what to do out.

use std::time::{Duration, Instant};

/// Within this long, a second Ctrl-C quits.
pub const DOUBLE_PRESS: Duration = Duration::from_secs(2);

/// What a Ctrl-C does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Press {
    /// Interrupt the turn (the CLI ends it with a result).
    Interrupt,
    /// Kill the CLI and quit.
    Quit,
}

/// The presses of one turn.
#[derive(Debug, Default, Clone, Copy)]
pub struct CtrlC {
    last: Option<Instant>,
}

impl CtrlC {
    /// A press at `now`.
    pub fn press(&mut self, now: Instant) -> Press {
        if self
            .last
            .is_some_and(|t| now.saturating_duration_since(t) < DOUBLE_PRESS)
        {
            return Press::Quit;
        }
        self.last = Some(now);
        Press::Interrupt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_press_soon_quits_a_late_one_interrupts_again() {
        let t0 = Instant::now();
        let mut c = CtrlC::default();
        assert_eq!(c.press(t0), Press::Interrupt);
        assert_eq!(c.press(t0 + Duration::from_millis(1900)), Press::Quit);
        let mut c = CtrlC::default();
        c.press(t0);
        assert_eq!(c.press(t0 + DOUBLE_PRESS), Press::Interrupt);
        assert_eq!(
            c.press(t0 + DOUBLE_PRESS + Duration::from_millis(10)),
            Press::Quit
        );
    }
}
