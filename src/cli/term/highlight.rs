//! A small, fast syntax highlighter for code blocks: keywords, strings,
//! comments and numbers for the languages people paste most. One line at a
//! time, no state across lines (a block comment spanning lines is not
//! followed — good enough for a chat, and never wrong about the text).

const RESET: &str = "\x1b[0m";
const KEYWORD: &str = "\x1b[35m";
const STRING: &str = "\x1b[32m";
const COMMENT: &str = "\x1b[2;3m";
const NUMBER: &str = "\x1b[33m";

struct Lang {
    keywords: &'static [&'static str],
    line_comment: &'static [&'static str],
    backtick_strings: bool,
}

const RUST: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while",
];
const PYTHON: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
    "else", "except", "False", "finally", "for", "from", "global", "if", "import", "in", "is",
    "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "True", "try", "while",
    "with", "yield",
];
const JS: &[&str] = &[
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "from",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "yield",
];
const SHELL: &[&str] = &[
    "case", "do", "done", "elif", "else", "esac", "export", "fi", "for", "function", "if", "in",
    "local", "return", "then", "until", "while",
];
const GO: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "false",
    "for",
    "func",
    "go",
    "if",
    "import",
    "interface",
    "map",
    "nil",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "true",
    "type",
    "var",
];
const C: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "false",
    "float",
    "for",
    "if",
    "include",
    "int",
    "long",
    "namespace",
    "nullptr",
    "public",
    "private",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "template",
    "true",
    "typedef",
    "union",
    "unsigned",
    "void",
    "while",
];
const SQL: &[&str] = &[
    "select", "from", "where", "insert", "into", "values", "update", "set", "delete", "create",
    "table", "join", "left", "right", "inner", "on", "group", "by", "order", "limit", "and", "or",
    "not", "null", "as", "SELECT", "FROM", "WHERE", "INSERT", "INTO", "VALUES", "UPDATE", "SET",
    "DELETE", "CREATE", "TABLE", "JOIN", "LEFT", "RIGHT", "INNER", "ON", "GROUP", "BY", "ORDER",
    "LIMIT", "AND", "OR", "NOT", "NULL", "AS",
];

fn lang(name: &str) -> Option<Lang> {
    let l = |keywords, line_comment, backtick_strings| {
        Some(Lang {
            keywords,
            line_comment,
            backtick_strings,
        })
    };
    match name.to_ascii_lowercase().as_str() {
        "rust" | "rs" => l(RUST, &["//"], false),
        "python" | "py" => l(PYTHON, &["#"], false),
        "js" | "javascript" | "ts" | "typescript" | "jsx" | "tsx" => l(JS, &["//"], true),
        "sh" | "bash" | "shell" | "zsh" | "console" => l(SHELL, &["#"], false),
        "go" => l(GO, &["//"], true),
        "c" | "cpp" | "c++" | "h" | "hpp" | "java" | "kotlin" | "swift" | "cs" => {
            l(C, &["//"], false)
        }
        "sql" => l(SQL, &["--"], false),
        "toml" | "yaml" | "yml" | "ini" => l(&[], &["#"], false),
        "json" => l(&["true", "false", "null"], &[], false),
        _ => None,
    }
}

/// One line of code with SGR colors. Unknown languages come back plain.
pub fn highlight_line(line: &str, lang_name: &str) -> String {
    let Some(lang) = lang(lang_name) else {
        return line.to_owned();
    };
    let mut out = String::with_capacity(line.len() + 32);
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let rest: String = chars[i..].iter().take(3).collect();
        if lang.line_comment.iter().any(|m| rest.starts_with(m)) {
            out.push_str(COMMENT);
            out.extend(&chars[i..]);
            out.push_str(RESET);
            break;
        }
        if c == '"' || c == '\'' || (c == '`' && lang.backtick_strings) {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(chars.len());
            out.push_str(STRING);
            out.extend(&chars[start..i]);
            out.push_str(RESET);
            continue;
        }
        if c.is_ascii_digit() && (i == 0 || !is_ident(chars[i - 1])) {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '.' || chars[i] == '_')
            {
                i += 1;
            }
            out.push_str(NUMBER);
            out.extend(&chars[start..i]);
            out.push_str(RESET);
            continue;
        }
        if is_ident(c) {
            let start = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if lang.keywords.contains(&word.as_str()) {
                out.push_str(KEYWORD);
                out.push_str(&word);
                out.push_str(RESET);
            } else {
                out.push_str(&word);
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::term::wrap::strip_sgr;

    #[test]
    fn text_survives_and_tokens_are_colored() {
        let line = r#"    let s = "a \" b"; // note 42"#;
        let h = highlight_line(line, "rust");
        assert_eq!(strip_sgr(&h), line);
        assert!(h.contains(&format!("{KEYWORD}let{RESET}")));
        assert!(h.contains(STRING));
        assert!(h.contains(&format!("{COMMENT}// note 42")));
        assert_eq!(highlight_line(line, "brainfuck"), line);
        let py = "def f(x): return x + 1  # inc";
        assert_eq!(strip_sgr(&highlight_line(py, "python")), py);
        let unterminated = "echo \"open";
        assert_eq!(strip_sgr(&highlight_line(unterminated, "sh")), unterminated);
    }
}
