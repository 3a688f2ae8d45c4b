//! What the chat shows for `/context` and `/permissions`: pure, the CLI's
//! answer in, text out.

use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::Style;
use claudio::protocol::PermissionRules;

/// Where a rule is kept, in words.
fn source_name(source: &str) -> &str {
    match source {
        "userSettings" => "every project (~/.claude/settings.json)",
        "projectSettings" => "this project, shared (.claude/settings.json)",
        "localSettings" => "this project, yours (.claude/settings.local.json)",
        "session" => "this session",
        "cliArg" => "flags",
        "policySettings" => "managed policy",
        "flagSettings" => "--settings",
        other => other,
    }
}

/// Where a rule comes from, as the CLI names it (`""` for none).
fn source_of(r: &claudio::protocol::RuleEntry) -> &str {
    r.source.as_ref().map_or("", |s| s.as_str())
}

/// The rules in effect, grouped by where each is kept (in the CLI's order
/// of sources), allow before ask before deny. Inert.
pub fn rules_list(rules: &PermissionRules, style: Style) -> String {
    if rules.rules.is_empty() {
        return format!(
            "  {}\n",
            style.dim("no permission rules: every tool that needs approval asks")
        );
    }
    let mut sources: Vec<&str> = Vec::new();
    for r in &rules.rules {
        if !sources.contains(&source_of(r)) {
            sources.push(source_of(r));
        }
    }
    let mut out = String::new();
    for source in sources {
        out.push_str(&format!(
            "  {}\n",
            style.bold(&Sanitizer::clean(source_name(source)))
        ));
        let mut of_source: Vec<_> = rules
            .rules
            .iter()
            .filter(|r| source_of(r) == source)
            .collect();
        let rank =
            |b: &Option<claudio::protocol::RuleBehavior>| match b.as_ref().map(|b| b.to_string()) {
                Some(b) if b == "allow" => 0,
                Some(b) if b == "ask" => 1,
                _ => 2,
            };
        of_source.sort_by_key(|r| rank(&r.behavior));
        for r in of_source {
            let behavior = r
                .behavior
                .as_ref()
                .map_or_else(|| "?".to_owned(), |b| b.to_string());
            let mark = match behavior.as_str() {
                "allow" => style.green("allow"),
                "deny" => style.red("deny "),
                _ => style.yellow(&format!("{:<5}", Sanitizer::clean(&behavior))),
            };
            let reading = r
                .description
                .as_ref()
                .map(|d| format!("  {}", style.dim(&Sanitizer::clean(&d.to_string()))))
                .unwrap_or_default();
            let ignored = if r.not_in_effect {
                format!("  {}", style.dim("(not in effect)"))
            } else {
                String::new()
            };
            // a rule may hold a newline (a multi-line Bash command): each
            // of its lines stays under the rule, never at the margin
            let rule = Sanitizer::clean(&r.rule).replace('\n', "\n          ");
            let reading = reading.replace('\n', "\n          ");
            out.push_str(&format!("    {mark} {rule}{reading}{ignored}\n"));
        }
    }
    out.push_str(&format!(
        "  {}\n",
        style.dim("a rule is kept by answering p (this project) or u (every project) when asked; remove one with `claude` /permissions or in its file")
    ));
    out
}

pub fn context_chart(usage: &claudio::ContextUsage, style: Style) -> String {
    let max = usage.max_tokens as f64;
    let total = usage.total_tokens as f64;
    let mut out = String::new();
    let cats = &usage.categories;
    let name_w = cats
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(8)
        .min(28);
    const BAR: usize = 24;
    for c in cats {
        let name = Sanitizer::clean(&c.name);
        let tokens = c.tokens as f64;
        if tokens <= 0.0 {
            continue;
        }
        let filled = if max > 0.0 {
            ((tokens / max) * BAR as f64).ceil() as usize
        } else {
            0
        }
        .min(BAR);
        let bar = format!(
            "{}{}",
            "█".repeat(filled),
            style.dim(&"░".repeat(BAR - filled))
        );
        let name: String = name.chars().take(name_w).collect();
        out.push_str(&format!(
            "  {name:<name_w$} {bar} {}\n",
            tokens_short(tokens)
        ));
    }
    let pct = if max > 0.0 { total / max * 100.0 } else { 0.0 };
    out.push_str(&format!(
        "  {}\n",
        style.bold(&format!(
            "{} of {} tokens ({pct:.0}%)",
            tokens_short(total),
            tokens_short(max)
        ))
    ));
    out
}

fn tokens_short(t: f64) -> String {
    if t >= 1_000_000.0 {
        format!("{:.1}M", t / 1_000_000.0)
    } else if t >= 1000.0 {
        format!("{:.0}k", t / 1000.0)
    } else {
        format!("{t:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_chart_draws_bars() {
        let u = serde_json::from_value(serde_json::json!({"categories":[{"name":"messages","tokens":41000},{"name":"system prompt","tokens":3000},{"name":"free","tokens":0}],
                       "totalTokens":44000,"maxTokens":200000})).unwrap();
        let c = context_chart(&u, crate::cli::term::style::Style::plain());
        assert!(c.contains("messages"), "{c}");
        assert!(c.contains("█"), "{c}");
        assert!(c.contains("41k"), "{c}");
        assert!(c.contains("44k of 200k tokens (22%)"), "{c}");
        assert!(!c.contains("free"));
        assert_eq!(tokens_short(1_500_000.0), "1.5M");
    }

    #[test]
    fn rules_are_listed_by_where_they_are_kept_and_inert() {
        let rules: PermissionRules = serde_json::from_value(serde_json::json!({"rules":[
            {"behavior":"deny","source":"localSettings","rule":"Bash(rm *)","editability":"persistent"},
            {"behavior":"allow","source":"localSettings","rule":"Bash(touch a *)\u{1b}]52;c;QQ==\u{7}",
             "description":{"prefix":"Any Bash command starting with ","emphasis":"touch a"},"editability":"persistent"},
            {"behavior":"allow","source":"session","rule":"Read","editability":"session"}]})).unwrap();
        let text = rules_list(&rules, Style::plain());
        let local = text.find("this project, yours").unwrap();
        let session = text.find("this session").unwrap();
        assert!(local < session, "{text}");
        let allow = text.find("allow Bash(touch a *)").expect("allow first");
        assert!(allow < text.find("deny  Bash(rm *)").unwrap(), "{text}");
        assert!(
            text.contains("Any Bash command starting with touch a"),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "{text:?}");
        let none = rules_list(&PermissionRules::default(), Style::plain());
        assert!(none.contains("no permission rules"), "{none}");
    }

    #[test]
    fn a_rule_with_a_newline_stays_indented_under_its_mark() {
        let rules: PermissionRules = serde_json::from_value(serde_json::json!({"rules":[
            {"behavior":"allow","source":"session","rule":"Bash(echo a\nrm -rf /)","editability":"session"}]}))
        .unwrap();
        let text = rules_list(&rules, Style::plain());
        for line in text.lines() {
            assert!(
                line.starts_with("  "),
                "a line at the margin: {line:?} in\n{text}"
            );
        }
        assert!(
            text.contains("allow Bash(echo a\n          rm -rf /)"),
            "{text}"
        );
    }
}
