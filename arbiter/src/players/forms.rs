//! How player specs are written, a form a line: each kind's forms are its own
//! ([`PlayerKind::FORMS`](super::kinds::PlayerKind::FORMS), beside its parser), and the
//! parser's "expected ..." error and the players' help in `dojo match --help` and `dojo
//! tournament --help` read them through the registry of kinds, so a form the parser learns
//! cannot be missing from either (the tests hold every option word the parser knows to a
//! row).

use super::kinds::PLAYER_KINDS;

/// One way to write a player.
pub struct PlayerForm {
    /// How it is written: `mcts:N`, `net:CKPT:vcf=N`.
    pub syntax: &'static str,
    /// What it is, in a line.
    pub about: &'static str,
    /// A spec of this form (the tests parse every one).
    pub example: &'static str,
}

/// Every form a player spec takes, kind by kind in the registry's order: what the help
/// lists.
pub fn player_forms() -> impl Iterator<Item = &'static PlayerForm> {
    PLAYER_KINDS.iter().flat_map(|kind| kind.forms)
}

/// Every form's syntax, comma-separated: what a spec that is none of them is told.
pub fn syntaxes() -> String {
    player_forms().map(|f| f.syntax).collect::<Vec<_>>().join(", ")
}

/// The forms as the players' help lists them, one a line: `  SYNTAX  what it is`.
/// Options of one kind combine (`net:CKPT:sims=400:vcf=1000:noavg`); NAME=SPEC names a
/// player in a tournament.
pub fn help() -> String {
    let width = player_forms().map(|f| f.syntax.len()).max().unwrap_or(0);
    let mut text = String::new();
    for form in player_forms() {
        text.push_str(&format!("  {:width$}  {}\n", form.syntax, form.about));
    }
    text.push_str("Options of one kind combine, e.g. net:CKPT:sims=400:vcf=1000:noavg.");
    text
}
