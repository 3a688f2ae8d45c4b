//! What a prompt and the session cost, as the chat says it (issue 33.6).
//! The real CLI's `total_cost_usd` is the session's running total; the
//! end-of-turn line and `/cost` say the same figure for the session.

use crate::common::real::{world, Reply};
use crate::common::term::Term;

/// The figure after `label` on the screen's last line that holds it.
fn dollars_before(screen: &str, label: &str) -> Option<String> {
    let line = screen.lines().rev().find(|l| l.contains(label))?;
    let at = line.find(label)?;
    let head = &line[..at];
    let start = head.rfind('$')?;
    Some(head[start..].trim().to_owned())
}

fn value(dollars: &str) -> f64 {
    dollars.trim_start_matches('$').parse().unwrap()
}

#[test]
fn the_end_line_and_cost_agree_on_the_session() {
    let w = world!("the_end_line_and_cost_agree_on_the_session");
    w.api.push(Reply::text("First answer."));
    w.api.push(Reply::text("Second answer."));
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path());
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("one");
    t.wait_for("First answer.");
    let first = t.wait_for("1 API call ·");
    let one = dollars_before(&first, " session").expect("a session cost on the end line");
    t.wait_prompt();
    t.line("two");
    t.wait_for("Second answer.");
    let second = t.wait_for_n("1 API call ·", 2);
    let end = second
        .lines()
        .rev()
        .find(|l| l.contains("API call"))
        .unwrap()
        .to_owned();
    // the second prompt's own cost is shown beside the session's, and
    // the session is the two prompts (not the CLI's totals added up)
    let session = dollars_before(&second, " session").unwrap();
    let step = end.split("+$").nth(1).and_then(|r| r.split(' ').next());
    let (one_v, step_v, session_v) = (value(&one), value(step.expect(&end)), value(&session));
    assert!(
        (one_v + step_v - session_v).abs() < 0.00015 && step_v > 0.0,
        "{one} + {step:?} is not {session}: {end}"
    );
    t.wait_prompt();
    t.line("/cost");
    let cost = t.wait_for("this chat");
    let said = cost
        .lines()
        .rev()
        .find(|l| l.contains("this chat"))
        .unwrap();
    assert!(
        said.contains(&format!("session {session} ")),
        "/cost disagrees with the end line ({session}): {said}"
    );
    assert!(said.contains("2 prompts · 2 API calls"), "{said}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}
