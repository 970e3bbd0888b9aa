//! `--config FILE` and `--set SECTION.KEY=VALUE` for the offline commands (`dojo init`,
//! `selfplay`, `learn`): the run config they take every default from, the same file and
//! the same keys a run uses (`dojo config` prints the defaults).

use anyhow::Result;
use clap::Args;
use dojo_game::GameSpec;
use dojo_run::config::RunConfig;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct RunConfigArgs {
    /// A run config file whose settings are this command's defaults (default: the built-in
    /// defaults, as `dojo config` prints them).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// A setting of the run config, e.g. `search.c_puct=2` or `selfplay.parallel_games=8`
    /// (repeatable; over the file's; a flag naming the same setting wins).
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
    pub set: Vec<String>,
}

impl RunConfigArgs {
    /// The run config: the file's (or the defaults), then the `--set` assignments, checked
    /// as a file is. The command then sets what its own flags name (a flag wins over
    /// `--set`), and checks those as it always has.
    pub fn load(&self) -> Result<RunConfig> {
        self.read(None)
    }

    /// [`RunConfigArgs::load`] for `game`: the file's settings over a new run of `game`'s
    /// defaults (the search and self-play settings differ by game), or those defaults alone.
    pub fn load_for(&self, game: &GameSpec) -> Result<RunConfig> {
        self.read(Some(game))
    }

    fn read(&self, game: Option<&GameSpec>) -> Result<RunConfig> {
        let mut config = RunConfig::load_or_default(self.config.as_deref(), game)?;
        config.apply(&self.set)?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use crate::analyse_cmd::PlayArgs;
    use crate::selfplay_cmd::{SearchArgs, SelfPlayArgs};
    use clap::Args;
    use dojo_search::config::{SearchConfig, PLAY_SIMULATIONS};

    /// The long flags of a set of arguments, as `snake_case` names.
    fn flags<A: Args>() -> Vec<String> {
        let command = A::augment_args(clap::Command::new("flags"));
        command.get_arguments().filter_map(|a| a.get_long()).map(|long| long.replace('-', "_")).collect()
    }

    #[test]
    fn every_search_flag_is_named_by_its_row_in_the_key_table() {
        // A search setting's flag is one more door to its `SearchConfig::KEYS` row: named
        // by the row (its name or its short name), never by a word of its own; but for the
        // playout budget, which every command's flags call --playouts (one name for it:
        // issue 74) and a config and a `net:` spec `simulations` and `sims`.
        let play = flags::<PlayArgs>();
        let selfplay = flags::<SearchArgs>();
        assert!(play.len() >= 4 && selfplay.len() >= 5, "{play:?} {selfplay:?}");
        for flag in play.iter().filter(|f| *f != "set").chain(&selfplay) {
            let name = if flag == "playouts" { "simulations" } else { flag.as_str() };
            let key = SearchConfig::key(name).unwrap_or_else(|e| panic!("--{flag} names no search setting: {e}"));
            assert!(key.is_named(name));
        }
    }

    /// `A` parsed from a command line as a user types it.
    fn parse<A: Args + clap::FromArgMatches>(argv: &[&str]) -> A {
        let command = A::augment_args(clap::Command::new("dojo").no_binary_name(true));
        A::from_arg_matches(&command.try_get_matches_from(argv).unwrap()).unwrap()
    }

    #[test]
    fn a_flag_wins_over_set_in_every_command_whatever_their_order() {
        // The players' commands (`bestmove`, `eval`, `play`, `analyse`): a flag over `--set`,
        // `--set` over the player's defaults.
        for argv in [
            &["--set", "search.simulations=300", "--playouts", "16", "--set", "search.c_puct=2"][..],
            &["--playouts", "16", "--set", "search.simulations=300", "--set", "search.c_puct=2"][..],
        ] {
            let search = parse::<PlayArgs>(argv).config().unwrap();
            assert_eq!((search.simulations, search.c_puct), (16, 2.0), "{argv:?}");
        }
        let search = parse::<PlayArgs>(&["--set", "search.c_puct=2", "--c-puct", "3"]).config().unwrap();
        assert_eq!((search.simulations, search.c_puct), (SearchConfig::for_play(PLAY_SIMULATIONS).simulations, 3.0));
        // `selfplay` (and `learn`, `init`): the run config's file, then `--set`, then a flag.
        for argv in [
            &["--model", "m", "--out", "o", "--set", "search.simulations=300", "--playouts", "16"][..],
            &["--model", "m", "--out", "o", "--playouts", "16", "--set", "search.simulations=300"][..],
        ] {
            let args = parse::<SelfPlayArgs>(argv);
            let mut config = args.run_config.load().unwrap();
            assert_eq!(config.search.simulations, 300, "--set reaches the run config");
            args.apply(&mut config);
            assert_eq!(config.search.simulations, 16, "{argv:?}");
        }
        let args = parse::<SelfPlayArgs>(&["--model", "m", "--out", "o", "--set", "selfplay.fast_simulations=7"]);
        let mut config = args.run_config.load().unwrap();
        args.apply(&mut config);
        assert_eq!(config.selfplay.fast_simulations, 7, "a flag not given leaves --set's value");
    }
}
