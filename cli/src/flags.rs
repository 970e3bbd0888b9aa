//! One meaning per flag (issue 74). Flags renamed so that one name means one thing keep
//! their old spellings for one release, as hidden aliases that print a deprecation warning
//! naming the new spelling: users have scripts. [`RENAMED`] is the one table of them; the
//! command line is built from it ([`command`]) and warns from it ([`warnings`]).

use clap::{Arg, ArgAction, Command, CommandFactory, FromArgMatches};
use std::ffi::OsString;

#[cfg(test)]
mod meanings;

/// What an old spelling is now.
pub enum Now {
    /// Another flag, which the old spelling is an alias of.
    Flag(&'static str),
    /// No flag: what became of it (the old flag is accepted and does nothing).
    Gone(&'static str),
}

/// A flag's old spelling in one subcommand.
pub struct Renamed {
    /// The subcommand's path below `dojo`, words separated by a space (`ntuple play`).
    pub command: &'static str,
    /// The old long name, without `--`.
    pub old: &'static str,
    pub now: Now,
}

const fn renamed(command: &'static str, old: &'static str, new: &'static str) -> Renamed {
    Renamed { command, old, now: Now::Flag(new) }
}

/// What `--average-symmetries` became in `eval` and `bestmove`.
const AVERAGING: Now = Now::Gone("symmetry averaging is the default now (--no-average turns it off)");

/// Every renamed flag, by subcommand. Games played at once are --parallel (--threads is
/// libtorch's threads); a network file is --model (a run's starting network --start-from);
/// a playout budget is --playouts; files of records are --records; a count of positions
/// is --count; a tournament's format is --format (--mode is the search's).
pub const RENAMED: &[Renamed] = &[
    renamed("match", "threads", "parallel"),
    renamed("tournament", "threads", "parallel"),
    renamed("tournament", "sims", "playouts"),
    renamed("tournament", "mode", "format"),
    renamed("gate", "threads", "parallel"),
    renamed("ntuple play", "threads", "parallel"),
    renamed("ntuple play", "weights", "model"),
    renamed("learn", "init", "model"),
    renamed("learn", "games", "records"),
    renamed("positions", "from-games", "records"),
    renamed("train", "init", "start-from"),
    renamed("learner", "init", "start-from"),
    renamed("play", "sims", "playouts"),
    renamed("pbrain", "sims", "playouts"),
    renamed("pbrain", "max-sims", "max-playouts"),
    renamed("eval", "sims", "playouts"),
    renamed("bestmove", "sims", "playouts"),
    renamed("selfplay", "sims", "playouts"),
    renamed("selfplay", "fast-sims", "fast-playouts"),
    renamed("bench selfplay", "sims", "playouts"),
    renamed("bench selfplay", "fast-sims", "fast-playouts"),
    renamed("bench search", "sims", "playouts"),
    renamed("bench agree", "positions", "count"),
    renamed("bench ingest", "batch", "games-per-call"),
    Renamed { command: "eval", old: "average-symmetries", now: AVERAGING },
    Renamed { command: "bestmove", old: "average-symmetries", now: AVERAGING },
];

impl Renamed {
    /// The line printed when the old spelling is used.
    pub fn warning(&self) -> String {
        let now = match self.now {
            Now::Flag(new) => format!("use --{new} (the old spelling goes in the next release)"),
            Now::Gone(what) => what.to_string(),
        };
        format!("dojo: warning: --{} is deprecated in `dojo {}`: {now}", self.old, self.command)
    }
}

/// `dojo`'s command line, every old spelling in it as a hidden alias.
pub fn command() -> Command {
    RENAMED.iter().fold(crate::Cli::command(), |cli, renamed| {
        let path: Vec<&str> = renamed.command.split(' ').collect();
        edit(cli, &path, &|command| keep_old(command, renamed))
    })
}

/// `command` with `change` made to its subcommand at `path`.
fn edit(command: Command, path: &[&str], change: &dyn Fn(Command) -> Command) -> Command {
    match path.split_first() {
        None => change(command),
        Some((name, rest)) => command.mut_subcommand(*name, |sub| edit(sub, rest, change)),
    }
}

/// `command` accepting `renamed`'s old spelling, hidden.
fn keep_old(command: Command, renamed: &Renamed) -> Command {
    match renamed.now {
        Now::Flag(new) => {
            let id = command.get_arguments().find(|a| a.get_long() == Some(new)).map(|a| a.get_id().clone());
            let id = id.unwrap_or_else(|| panic!("dojo {} has no --{new}", renamed.command));
            command.mut_arg(id, |arg| arg.alias(renamed.old))
        }
        // Its id is its old name, which no field of the commands' arguments has.
        Now::Gone(_) => command.arg(Arg::new(renamed.old).long(renamed.old).action(ArgAction::SetTrue).hide(true)),
    }
}

/// The deprecation warnings of a command line: each old spelling given, under the
/// subcommand it was given to. (clap does not say which alias matched, so the words are
/// read here; a flag's value is never taken for a flag, being a word of its own only when
/// it starts with `--`, which no value of dojo's does.)
pub fn warnings(command: &Command, argv: &[OsString]) -> Vec<String> {
    let (mut at, mut path, mut said) = (command, Vec::new(), Vec::new());
    for word in argv.iter().skip(1).filter_map(|w| w.to_str()) {
        if word == "--" {
            break;
        }
        if let Some(flag) = word.strip_prefix("--") {
            let name = flag.split('=').next().unwrap_or(flag);
            let here = path.join(" ");
            said.extend(RENAMED.iter().filter(|r| r.command == here && r.old == name).map(Renamed::warning));
        } else if let Some(sub) = at.find_subcommand(word) {
            path.push(sub.get_name().to_string());
            at = sub;
        }
    }
    said
}

/// The command line parsed (clap's error and exit where it does not), each old spelling
/// in it warned about on stderr.
pub fn parse() -> crate::Cli {
    let command = command();
    let argv: Vec<OsString> = std::env::args_os().collect();
    let matches = command.clone().get_matches_from(&argv);
    for line in warnings(&command, &argv) {
        eprintln!("{line}");
    }
    crate::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<OsString> {
        std::iter::once("dojo").chain(words.iter().copied()).map(OsString::from).collect()
    }

    /// `words` parsed by the command line with the old spellings in it.
    fn parse(words: &[&str]) -> crate::Cli {
        let matches = command().try_get_matches_from(argv(words)).unwrap_or_else(|e| panic!("{words:?}: {e}"));
        crate::Cli::from_arg_matches(&matches).unwrap()
    }

    #[test]
    fn every_old_spelling_parses_as_its_new_one_and_warns_once_naming_it() {
        let command = command();
        for renamed in RENAMED {
            let mut sub = &command;
            for word in renamed.command.split(' ') {
                sub = sub.find_subcommand(word).unwrap();
            }
            let old = sub.get_arguments().find(|a| {
                a.get_long() == Some(renamed.old) || a.get_all_aliases().unwrap_or_default().contains(&renamed.old)
            });
            let old = old.unwrap_or_else(|| panic!("dojo {} does not take --{}", renamed.command, renamed.old));
            let visible = old.get_visible_aliases().unwrap_or_default().contains(&renamed.old);
            assert!(
                !visible && (old.is_hide_set() || old.get_long() != Some(renamed.old)),
                "--{} is shown",
                renamed.old
            );
            let flag = format!("--{}", renamed.old);
            let words: Vec<&str> = renamed.command.split(' ').chain([flag.as_str()]).collect();
            let said = warnings(&command, &argv(&words));
            assert_eq!(said, [renamed.warning()], "{words:?}");
        }
        let said = warnings(&command, &argv(&["match", "--threads=2", "--a", "random"]));
        assert_eq!(
            said,
            ["dojo: warning: --threads is deprecated in `dojo match`: use --parallel (the old spelling goes in the next release)"]
        );
        // Only under its own subcommand: `--threads` is libtorch's in `dojo play`.
        assert!(warnings(&command, &argv(&["play", "--model", "m", "--threads", "2"])).is_empty());
        assert!(warnings(&command, &argv(&["--log-format", "json", "ntuple", "play", "--weights", "w"])).len() == 1);
    }

    #[test]
    fn old_spellings_set_what_the_new_ones_do() {
        use crate::Command::{Eval, Learn, Match};
        let players = ["match", "--a", "random", "--b", "random"];
        let (Match(old), Match(new)) = (
            parse(&[&players[..], &["--threads", "3"]].concat()).command,
            parse(&[&players[..], &["--parallel", "3"]].concat()).command,
        ) else {
            panic!("not a match")
        };
        assert_eq!(format!("{old:?}"), format!("{new:?}"));
        assert!(format!("{new:?}").contains("parallel: Some(3)"), "{new:?}");
        let (Learn(old), Learn(new)) = (
            parse(&["learn", "--init", "m", "--games", "r1", "r2", "--steps", "1", "--out", "o"]).command,
            parse(&["learn", "--model", "m", "--records", "r1", "r2", "--steps", "1", "--out", "o"]).command,
        ) else {
            panic!("not learn")
        };
        assert_eq!(format!("{old:?}"), format!("{new:?}"));
        // `--average-symmetries` is accepted and does nothing: averaging is the default.
        let (Eval(old), Eval(new)) = (
            parse(&["eval", "--model", "m", "--positions", "p", "--average-symmetries"]).command,
            parse(&["eval", "--model", "m", "--positions", "p"]).command,
        ) else {
            panic!("not eval")
        };
        assert_eq!(format!("{old:?}"), format!("{new:?}"));
        assert!(format!("{new:?}").contains("no_average: false"), "{new:?}");
    }
}
