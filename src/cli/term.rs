//! Terminal tools: styles, text cut and wrapped to the width, markdown,
//! highlighting, the pickers and the spinner. They know nothing of
//! sessions or turns; a new screen widget goes here.

pub mod console;
pub mod finder;
pub mod highlight;
pub mod markdown;
pub mod picker;
pub mod spinner;
pub mod style;
pub mod text;
pub mod time;
#[cfg(test)]
pub mod tmux;
pub mod wrap;
