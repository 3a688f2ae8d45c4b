//! Colors, only where wanted: a terminal, no `NO_COLOR`, `--color` respected.

use std::io::IsTerminal;

/// When to use colors: `--color`, and `color` in the config file.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Whether to style text, decided once per output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    color: bool,
}

macro_rules! sgr {
    ($($name:ident = $code:literal),*) => {$(
        pub fn $name(&self, s: &str) -> String {
            if self.color {
                format!("\x1b[{}m{}\x1b[0m", $code, s)
            } else {
                s.to_owned()
            }
        }
    )*};
}

impl Style {
    /// Decide for a stream: `always`/`never` win; `auto` means a terminal
    /// and no `NO_COLOR` (any non-empty value) and `TERM` not `dumb`.
    pub fn decide(choice: ColorChoice, is_terminal: bool) -> Style {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                is_terminal
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var("TERM").map(|t| t != "dumb").unwrap_or(true)
            }
        };
        Style { color }
    }

    pub fn for_stderr(choice: ColorChoice) -> Style {
        Style::decide(choice, std::io::stderr().is_terminal())
    }

    /// No colours (text drawn to be styled as a whole afterwards).
    pub fn plain() -> Style {
        Style { color: false }
    }

    pub fn enabled(&self) -> bool {
        self.color
    }

    sgr!(
        bold = "1",
        dim = "2",
        red = "31",
        green = "32",
        yellow = "33",
        cyan = "36"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_and_always() {
        assert_eq!(Style::decide(ColorChoice::Never, true).bold("x"), "x");
        assert_eq!(
            Style::decide(ColorChoice::Always, false).bold("x"),
            "\x1b[1mx\x1b[0m"
        );
        assert!(!Style::decide(ColorChoice::Auto, false).color);
    }
}
