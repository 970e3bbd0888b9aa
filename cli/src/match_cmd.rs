//! `dojo match`: two players, many games, alternating first player; or, for a one-player
//! game (2048, 2584), one player's scores and reach rates over many games
//! (`dojo_arbiter::match_session`).

use crate::common::progress;
use anyhow::{Context, Result};
use clap::Args;
use dojo_arbiter::match_report::Rendered;
use dojo_arbiter::match_session::{self, MatchRequest};
use dojo_arbiter::players::{game_of, player_syntaxes, players_help, PlayerSpec};
use dojo_game::GameSpec;

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Game: connect4, connect4:WxH, connect4:saiblo, gomoku:N, ... (default: the game of
    /// the first net: or ntuple: player's file, else connect4).
    #[arg(long)]
    game: Option<String>,
    #[arg(long, help = player_help("Player A"), long_help = player_long_help("Player A"))]
    a: String,
    /// Player B (same forms as --a). Not for one-player games (2048, 2584): there --a plays
    /// alone and the match reports its scores and reach rates.
    #[arg(long)]
    b: Option<String>,
    /// Number of games, in pairs from one starting position: A moves first in one, B in the
    /// other (one-player games: each game its own).
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// Random plies opening each pair of games, both games of a pair from the same ones.
    /// Default: 4 where both players are networks (net:), which play without noise, so
    /// from one position every pair would be the same two games; otherwise 0, the game's
    /// start (the numbers against mcts:N in docs/strength-connect4.md are from there).
    #[arg(long)]
    opening_plies: Option<usize>,
    /// A book of openings (one move sequence a line, '#' comments; e.g.
    /// configs/openings/gomoku15.txt): pair K of the match opens with line K (cycling)
    /// instead of random plies. Two networks, which search without noise, get no more pairs
    /// than the book has lines: a cycled line would replay its games move for move.
    #[arg(long, value_name = "FILE", conflicts_with = "opening_plies")]
    openings: Option<std::path::PathBuf>,
    /// Games played at once (each on a thread with its own pair of players); default: the
    /// cores.
    #[arg(long)]
    parallel: Option<usize>,
    /// Seed for reproducible matches (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// An external player's time per move, in milliseconds: an answer later than this (and
    /// a tenth) loses the game. Default: 5000 for a Gomocup brain (pbrain:), 3000 for a
    /// saiblo strategy (saiblo:), the platform's clock.
    #[arg(long)]
    move_timeout_ms: Option<u64>,
    /// Print one JSON object (players, games, wins, draws, losses, score, interval, elo; for
    /// one-player games: player, games, mean, median, max, interval, reach).
    #[arg(long)]
    json: bool,
    /// Also print every game's moves (one line each; with --json, a `games_played` list).
    #[arg(long)]
    verbose: bool,
}

pub fn run(args: MatchArgs) -> Result<()> {
    let parse = |text: &str, flag: &str| -> Result<PlayerSpec> {
        Ok(text.parse::<PlayerSpec>().context(flag.to_string())?.with_move_timeout(args.move_timeout_ms))
    };
    let a = parse(&args.a, "--a")?;
    let b = args.b.as_deref().map(|b| parse(b, "--b")).transpose()?;
    let given = args.game.as_deref().map(str::parse::<GameSpec>).transpose().context("--game")?;
    let spec = game_of(given, std::iter::once(&a).chain(&b), GameSpec::connect4())?;
    let request = MatchRequest {
        a,
        b,
        spec,
        games: args.games,
        opening_plies: args.opening_plies,
        openings: args.openings.as_deref(),
        threads: crate::common::parallel_or_cores(args.parallel),
        seed: args.seed.unwrap_or_else(rand::random),
        json: args.json,
        verbose: args.verbose,
    };
    let players = request.players()?;
    let (plies, chosen) = request.opening_plies(&players);
    if chosen {
        eprintln!(
            "both players are deterministic: each pair of games opens with {plies} random plies \
             (--opening-plies 0 to start every game from the beginning)"
        );
    }
    let bar = progress(u64::from(args.games), "games");
    bar.set_prefix(players.iter().map(PlayerSpec::to_string).collect::<Vec<_>>().join(" vs "));
    let played = match_session::play(&request, &players, plies, &|message| {
        bar.set_message(message);
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    for f in played.forfeits {
        eprintln!("forfeit: {f}");
    }
    show(played.rendered);
    Ok(())
}

/// `--a`'s (or a tournament's `--players`') one-line help: what `what` is, and every form.
pub fn player_help(what: &str) -> String {
    format!("{what}: {} (--help says what each is)", player_syntaxes())
}

/// `--help`'s players: every form of the one registry, a line each.
pub fn player_long_help(what: &str) -> String {
    format!("{what}, one of:\n{}", players_help())
}

/// Prints a match's report (and its note on stderr).
pub fn show(Rendered { out, note }: Rendered) {
    print!("{out}");
    if let Some(note) = note {
        eprintln!("{note}");
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use dojo_arbiter::players::player_forms;

    #[test]
    fn match_and_tournament_help_list_every_form_of_the_player_registry() {
        let mut dojo = crate::Cli::command();
        for name in ["match", "tournament"] {
            let command = dojo.find_subcommand_mut(name).unwrap();
            let (short, long) = (command.render_help().to_string(), command.render_long_help().to_string());
            for form in player_forms() {
                assert!(short.contains(form.syntax), "dojo {name} -h lacks {}", form.syntax);
                let listed = long.lines().any(|l| l.trim_start().starts_with(form.syntax) && l.ends_with(form.about));
                assert!(listed, "dojo {name} --help lacks {}: {long}", form.syntax);
            }
        }
    }
}
