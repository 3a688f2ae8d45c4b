//! The config file: `claudio/config.toml` under the user's config directory,
//! or the file named by `CLAUDIO_CONFIG`. Flags beat the environment, which
//! beats the file. A bad file is an error naming the line and the key.

use crate::cli::common::flags::SessionFlags;
use crate::cli::term::style::ColorChoice;
use anyhow::Context;
use claudio::PermissionMode;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The environment variable naming the config file.
pub const CONFIG_ENV: &str = "CLAUDIO_CONFIG";

/// What the file may set.
#[derive(Debug, Default, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Config {
    /// Default model.
    pub model: Option<String>,
    /// Default permission mode (one the CLI knows).
    #[serde(default, deserialize_with = "crate::cli::common::flags::known_mode")]
    pub permission_mode: Option<PermissionMode>,
    /// Tools allowed without asking.
    pub allowed_tools: Option<Vec<String>>,
    /// Tools never allowed.
    pub disallowed_tools: Option<Vec<String>>,
    /// The `claude` executable.
    pub cli_path: Option<PathBuf>,
    /// `auto`, `always` or `never`.
    pub color: Option<ColorChoice>,
    /// Show the model's thinking in the chat.
    pub show_thinking: Option<bool>,
    /// How many lines the chat's history keeps.
    pub history_size: Option<usize>,
    /// The prompt's keys: `emacs` (the default) or `vi`.
    #[serde(alias = "edit_mode")]
    pub edit_mode: Option<EditMode>,
    /// `auto`: every run archives the transcripts in the background
    /// (`claudio sessions archive`); `off` (the default): only when asked.
    pub archive: Option<ArchiveMode>,
    /// Notices when a session needs the person (`[notify]`).
    pub notify: Option<super::notify::NotifyConfig>,
    /// Prices for `sessions usage`, by model name (or the start of one):
    /// used before the built-in table, for a model it lacks or a price
    /// that changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prices: Option<std::collections::BTreeMap<String, PriceOverride>>,
}

/// One model's prices in the config file (`[prices."<model>"]`), in USD per
/// million tokens. The cache prices default to the ratios most models
/// keep: 5-minute writes 1.25× input, 1-hour writes 2×, reads 0.1×.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct PriceOverride {
    #[serde(deserialize_with = "per_million")]
    pub input: f64,
    #[serde(deserialize_with = "per_million")]
    pub output: f64,
    #[serde(default, deserialize_with = "per_million_some")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_write_5m: Option<f64>,
    #[serde(default, deserialize_with = "per_million_some")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_write_1h: Option<f64>,
    #[serde(default, deserialize_with = "per_million_some")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
}

/// The most a price per million tokens may be (the CLI's own bound).
pub const MAX_PRICE: f64 = 10_000.0;

/// A price per million tokens: a number from 0 to [`MAX_PRICE`].
fn per_million<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if v.is_finite() && (0.0..=MAX_PRICE).contains(&v) {
        Ok(v)
    } else {
        Err(serde::de::Error::custom(format!(
            "a price is USD per million tokens, from 0 to {MAX_PRICE}, not {v}"
        )))
    }
}

fn per_million_some<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    per_million(d).map(Some)
}

impl Config {
    /// The config file's prices, as the pricing uses them: by model-name
    /// prefix, the cache prices filled in.
    pub fn price_overrides(&self) -> Vec<(String, super::pricing::Rates)> {
        self.prices
            .iter()
            .flatten()
            .map(|(model, p)| {
                let rates = super::pricing::Rates {
                    input: p.input,
                    output: p.output,
                    write_5m: p.cache_write_5m.unwrap_or(1.25 * p.input),
                    write_1h: p.cache_write_1h.unwrap_or(2.0 * p.input),
                    read: p.cache_read.unwrap_or(0.1 * p.input),
                };
                (model.clone(), rates)
            })
            .collect()
    }
}

/// The prompt's key bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EditMode {
    Emacs,
    Vi,
}

/// When transcripts are archived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArchiveMode {
    /// In the background, at every run.
    Auto,
    /// Only by `claudio sessions archive`.
    Off,
}

/// The most a config file holds: a few keys and prices, a few KiB.
const MAX_CONFIG: u64 = 1 << 20;

/// A config file's text: opened without waiting for a writer (a FIFO
/// opens at once) and read only when it is a regular file, at most
/// [`MAX_CONFIG`] bytes; a FIFO in its place hung every command, the
/// status line too, and a link to `/dev/zero` read without end.
fn read_text(path: &Path) -> std::io::Result<String> {
    super::settings::read_regular(path, MAX_CONFIG)
}

/// Where the config file is looked for, and whether it was named explicitly.
pub fn config_path() -> Option<(PathBuf, bool)> {
    match std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()) {
        Some(p) => Some((PathBuf::from(p), true)),
        None => dirs::config_dir().map(|d| (d.join("claudio").join("config.toml"), false)),
    }
}

impl Config {
    /// Parse a config file's text.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Config> {
        toml::from_str(text).map_err(|e| {
            let (line, col) = e.span().map(|s| line_col(text, s.start)).unwrap_or((0, 0));
            anyhow::anyhow!(
                "bad config file {}, line {line}, column {col}: {}",
                crate::cli::common::folder::shown(path),
                e.message()
            )
        })
    }

    /// The keys of a config file's text this version does not know, each
    /// with a warning naming the nearest known key. They are passed over
    /// (a key from a newer version, or a typo), not an error: one unknown
    /// key made every command, `config show` too, exit 1.
    pub fn unknown_keys(text: &str, path: &Path) -> Vec<String> {
        const KNOWN: [&str; 13] = [
            "model",
            "permission-mode",
            "allowed-tools",
            "disallowed-tools",
            "cli-path",
            "color",
            "show-thinking",
            "history-size",
            "edit-mode",
            "edit_mode",
            "archive",
            "notify",
            "prices",
        ];
        let Ok(table) = text.parse::<toml::Table>() else {
            return Vec::new();
        };
        let top = table
            .keys()
            .filter(|k| !KNOWN.contains(&k.as_str()))
            .map(|k| (k.clone(), &KNOWN[..]));
        let notify = table
            .get("notify")
            .and_then(toml::Value::as_table)
            .into_iter()
            .flat_map(|t| t.keys())
            .filter(|k| !super::notify::KEYS.contains(&k.as_str()))
            .map(|k| (format!("notify.{k}"), &super::notify::KEYS[..]));
        top.chain(notify)
            .map(|(k, known)| {
                let (prefix, bare) = match k.split_once('.') {
                    Some(("notify", b)) => ("notify.", b.to_owned()),
                    _ => ("", k.clone()),
                };
                let key = crate::cli::term::text::flat(&k);
                // a swap of two letters is 2 edits: up to 2, or a third of
                // a long key
                let k2 = bare.replace('_', "-");
                let limit = (k2.chars().count() / 3).clamp(2, 3);
                let near = known
                    .iter()
                    .map(|n| (crate::cli::term::text::distance(&k2, n), *n))
                    .filter(|(d, _)| *d <= limit)
                    .min()
                    .map(|(_, n)| format!(" (did you mean `{prefix}{n}`?)"))
                    .unwrap_or_default();
                format!(
                    "claudio: config file {}: unknown key `{key}` passed over{near}",
                    crate::cli::common::folder::shown(path)
                )
            })
            .collect()
    }

    /// Load the file in use, and check the environment it goes with. A
    /// missing default file is an empty config; a missing file named by
    /// `CLAUDIO_CONFIG` is an error; a relative `CLAUDIO_ARCHIVE_DIR` is a
    /// usage error (exit 2), before anything is read or created.
    pub fn load() -> anyhow::Result<(Config, Option<PathBuf>)> {
        if let Err(msg) = crate::cli::common::archive::archive_env() {
            return Err(super::exit::usage_error!("{msg}"));
        }
        Config::load_file()
    }

    /// Load the file in use, as [`Config::load`] without the environment.
    pub fn load_file() -> anyhow::Result<(Config, Option<PathBuf>)> {
        let Some((path, explicit)) = config_path() else {
            return Ok((Config::default(), None));
        };
        // resolved against the working folder, a relative path would read
        // whatever file of that name the folder claudio runs in holds
        if explicit && path.is_relative() {
            return Err(super::exit::usage_error!(
                "{CONFIG_ENV} is a relative path ({}): set it to an absolute one",
                crate::cli::common::folder::shown(&path)
            ));
        }
        match read_text(&path) {
            Ok(text) => {
                let config = Config::parse(&text, &path)?;
                for warning in Config::unknown_keys(&text, &path) {
                    eprintln!("{warning}");
                }
                Ok((config, Some(path)))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => {
                Ok((Config::default(), None))
            }
            Err(e) => Err(e).with_context(|| {
                format!(
                    "failed to read config file {}",
                    crate::cli::common::folder::shown(&path)
                )
            }),
        }
    }

    /// Fill what the flags and the environment left unset.
    pub fn apply(&self, s: &mut SessionFlags) {
        if s.model.is_none() {
            s.model.clone_from(&self.model);
        }
        if s.permission_mode.is_none() {
            s.permission_mode.clone_from(&self.permission_mode);
        }
        if s.allowed_tools.is_empty() {
            s.allowed_tools = self.allowed_tools.clone().unwrap_or_default();
        }
        if s.disallowed_tools.is_empty() {
            s.disallowed_tools = self.disallowed_tools.clone().unwrap_or_default();
        }
        if s.cli_path.is_none() {
            s.cli_path.clone_from(&self.cli_path);
        }
        if s.color.is_none() {
            s.color = self.color;
        }
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    (line, col)
}

/// The notifier the config file sets (its `[notify]` table), or none
/// (no table, or a config that cannot be read: the deck says nothing
/// about it, the chat and `claudio doctor` do).
pub fn notifier() -> Option<super::notify::Notifier> {
    let (config, _) = Config::load().ok()?;
    let n = super::notify::Notifier::new(config.notify?);
    n.is_on().then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `claudio config --help`'s example names every key, and parses.
    #[test]
    fn the_help_example_has_every_key() {
        let help = crate::cli::args::CONFIG_HELP;
        let example: String = help
            .split("Example config.toml:\n")
            .nth(1)
            .unwrap()
            .lines()
            .map(|l| l.trim_start().to_owned() + "\n")
            .collect();
        let c = Config::parse(&example, Path::new("example.toml")).unwrap();
        let shown = serde_json::to_value(&c).unwrap();
        for (key, value) in shown.as_object().unwrap() {
            assert!(!value.is_null(), "the example leaves out {key}");
        }
        for (key, value) in shown["notify"].as_object().unwrap() {
            assert!(!value.is_null(), "the example leaves out notify.{key}");
        }
    }

    #[test]
    fn edit_mode_is_read_in_either_spelling() {
        let p = Path::new("c.toml");
        assert_eq!(
            Config::parse("edit-mode = \"vi\"", p).unwrap().edit_mode,
            Some(EditMode::Vi)
        );
        assert_eq!(
            Config::parse("edit_mode = \"emacs\"", p).unwrap().edit_mode,
            Some(EditMode::Emacs)
        );
        let bad = Config::parse("edit-mode = \"ed\"", p)
            .unwrap_err()
            .to_string();
        assert!(bad.contains("line 1"), "{bad}");
    }

    #[test]
    fn parses_all_keys() {
        let c = Config::parse(
            "model = \"opus\"\npermission-mode = \"plan\"\nallowed-tools = [\"Read\"]\ncolor = \"never\"\nshow-thinking = false\nhistory-size = 50\n",
            Path::new("c.toml"),
        )
        .unwrap();
        assert_eq!(c.model.as_deref(), Some("opus"));
        assert_eq!(c.color, Some(ColorChoice::Never));
        assert_eq!(c.history_size, Some(50));
        assert_eq!(c.archive, None);
        let c = Config::parse("archive = \"auto\"\n", Path::new("c.toml")).unwrap();
        assert_eq!(c.archive, Some(ArchiveMode::Auto));
        let e = Config::parse("archive = \"always\"\n", Path::new("c.toml")).unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
    }

    /// An unknown key is passed over with a warning naming the nearest
    /// known one; the rest of the file still counts.
    #[test]
    fn an_unknown_key_is_a_warning_not_an_error() {
        let text = "model = \"opus\"\nmodle = \"x\"\ntheme = \"dark\"\n";
        let p = Path::new("/x/c.toml");
        let c = Config::parse(text, p).unwrap();
        assert_eq!(c.model.as_deref(), Some("opus"));
        let w = Config::unknown_keys(text, p);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].contains("`modle`") && w[0].contains("`model`"),
            "{w:?}"
        );
        assert!(w[0].contains("/x/c.toml"), "{w:?}");
        assert!(w[1].contains("`theme`") && !w[1].contains("mean"), "{w:?}");
        assert!(Config::unknown_keys("edit_mode = \"vi\"", p).is_empty());
        // inside `[notify]` too, named with its table
        let text = "[notify]\nbel = true\nosc = \"9\"\n";
        let c = Config::parse(text, p).unwrap();
        assert_eq!(c.notify.unwrap().osc, Some(super::super::notify::Osc::Nine));
        let w = Config::unknown_keys(text, p);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("`notify.bel`") && w[0].contains("`notify.bell`"),
            "{w:?}"
        );
    }

    /// `[prices."<model>"]` sets a model's prices: the cache ones default
    /// to the usual ratios; a bad price or an unknown kind is an error
    /// naming the line, and what a price is.
    #[test]
    fn prices_are_read_and_checked() {
        let p = Path::new("c.toml");
        let text = "[prices.\"m-local\"]\ninput = 2\noutput = 10.5\ncache-read = 0.05\n";
        let c = Config::parse(text, p).unwrap();
        let o = c.price_overrides();
        assert_eq!(o.len(), 1);
        let (m, r) = &o[0];
        assert_eq!(m, "m-local");
        assert_eq!(
            (r.input, r.output, r.write_5m, r.write_1h, r.read),
            (2.0, 10.5, 2.5, 4.0, 0.05)
        );
        assert!(Config::unknown_keys(text, p).is_empty());
        let bad = |text: &str| Config::parse(text, p).unwrap_err().to_string();
        let e = bad("[prices.m]\ninput = -1\noutput = 1\n");
        assert!(
            e.contains("line 2") && e.contains("USD per million tokens"),
            "{e}"
        );
        let e = bad("[prices.m]\ninput = 1\noutput = 1e9\n");
        assert!(e.contains("line 3") && e.contains("10000"), "{e}");
        let e = bad("[prices.m]\ninput = 1\n");
        assert!(e.contains("output"), "{e}");
        let e = bad("[prices.m]\ninput = 1\noutput = 1\ncache-write = 1\n");
        assert!(
            e.contains("cache-write") && e.contains("cache-write-5m"),
            "{e}"
        );
        let e = bad("[prices.m]\ninput = \"cheap\"\noutput = 1\n");
        assert!(e.contains("line 2"), "{e}");
        // nan is not a price
        let e = bad("[prices.m]\ninput = nan\noutput = 1\n");
        assert!(e.contains("USD per million tokens"), "{e}");
    }

    #[test]
    fn errors_name_line_and_key() {
        let e = Config::parse("color = \"purple\"\n", Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1") && e.contains("purple"), "{e}");
        let e = Config::parse("history-size = \"lots\"\n", Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1"), "{e}");
    }

    #[test]
    fn the_permission_mode_is_one_the_cli_knows() {
        let p = Path::new("c.toml");
        let c = Config::parse("permission-mode = \"acceptEdits\"\n", p).unwrap();
        assert_eq!(c.permission_mode, Some(PermissionMode::AcceptEdits));
        let e = Config::parse("model = \"opus\"\npermission-mode = \"yolo\"\n", p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("acceptEdits"), "{e}");
        // every mode the library knows, spelled the same in the flag and
        // the file, and none more: one type for both
        use clap::builder::TypedValueParser;
        let flag = crate::cli::common::flags::mode_parser();
        let cmd = clap::Command::new("x");
        for known in PermissionMode::KNOWN {
            let name = known.as_str();
            let parsed = flag
                .parse_ref(&cmd, None, std::ffi::OsStr::new(name))
                .unwrap();
            assert_eq!(parsed, known);
            let c = Config::parse(&format!("permission-mode = \"{name}\""), p).unwrap();
            assert_eq!(c.permission_mode, Some(known));
        }
        assert_eq!(
            flag.possible_values().unwrap().count(),
            PermissionMode::KNOWN.len()
        );
        for bad in ["accept-edits", "yolo", ""] {
            assert!(flag
                .parse_ref(&cmd, None, std::ffi::OsStr::new(bad))
                .is_err());
            assert!(Config::parse(&format!("permission-mode = \"{bad}\""), p).is_err());
        }
    }
}
