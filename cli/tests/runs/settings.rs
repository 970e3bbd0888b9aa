//! `--set` and `--config` as a user types them: one table of search settings for every
//! command that searches, and the run config's defaults for the offline commands.

use crate::common;

use common::{dojo, dojo_with_input, error_line, path, seeded_tiny_net, stdout_of, tiny_net};
use dojo_record::{read_records, GameRecord};

/// The records of a two-game Connect Four `dojo selfplay` with `extra` arguments, every
/// move a full search at 2 playouts and none a random opening.
fn selfplay(dir: &std::path::Path, net: &std::path::Path, name: &str, extra: &[&str]) -> Vec<GameRecord> {
    let out = dir.join(name);
    let mut args = vec!["selfplay", "--model", path(net), "--games", "2", "--playouts", "2", "--seed", "3"];
    args.extend(["--set", "selfplay.full_search_fraction=1", "--set", "selfplay.random_opening_plies=0"]);
    args.extend(["--precision", "f32", "--out", path(&out)]);
    args.extend(extra);
    stdout_of(&dojo(&args));
    read_records(&out).unwrap()
}

/// The share of moves whose policy target spreads over more than two moves; and whether
/// every move was trained on. Two playouts visit at most two moves, so a visit-count target
/// is that wide only where the root was lost before it was searched (its priors are the
/// target); Gumbel's improved policy spreads over every legal move, searched or not.
fn wide_targets(records: &[GameRecord]) -> (f64, bool) {
    let moves: Vec<_> = records.iter().flat_map(|r| &r.moves).collect();
    let wide = moves.iter().filter(|m| m.policy.iter().filter(|(_, p)| *p > 0.0).count() > 2).count();
    (wide as f64 / moves.len() as f64, moves.iter().all(|m| !m.policy.is_empty()))
}

#[test]
fn selfplay_takes_any_search_and_selfplay_setting_through_set() {
    let dir = tempfile::tempdir().unwrap();
    // Seeded weights: how wide a 2-playout search's targets are depends on the priors.
    let net = seeded_tiny_net(dir.path(), "connect4", 5);
    // Connect Four self-plays by Gumbel AlphaZero unless told otherwise (`dojo config`).
    let (wide, all_trained) = wide_targets(&selfplay(dir.path(), &net, "default.rec", &[]));
    assert!(wide > 0.7, "Connect Four's default search is Gumbel's: {wide}");
    assert!(all_trained, "selfplay.full_search_fraction=1 trains on every move");
    let (wide, _) = wide_targets(&selfplay(dir.path(), &net, "puct.rec", &["--set", "search.mode=puct"]));
    assert!(wide < 0.3, "search.mode=puct did not reach the search: {wide}");
    // A config file's settings are the defaults, and --set goes over them.
    let config = dir.path().join("run.toml");
    std::fs::write(&config, "[search]\nmode = \"puct\"\n").unwrap();
    let (wide, _) = wide_targets(&selfplay(dir.path(), &net, "file.rec", &["--config", path(&config)]));
    assert!(wide < 0.3, "the config file's search.mode did not reach the search: {wide}");
    let over = ["--config", path(&config), "--set", "search.mode=gumbel"];
    let (wide, _) = wide_targets(&selfplay(dir.path(), &net, "over.rec", &over));
    assert!(wide > 0.7, "{wide}");
}

#[test]
fn a_bad_setting_names_the_key_and_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let net = tiny_net(dir.path(), "connect4");
    let out = dir.path().join("g.rec");
    let selfplay = ["selfplay", "--model", path(&net), "--games", "1", "--out", path(&out)];
    let line = error_line(&[&selfplay[..], &["--set", "search.c_puc=1"]].concat());
    assert!(line.starts_with(r#"dojo: error: unknown setting "c_puc": expected one of simulations, mode,"#), "{line}");
    let line = error_line(&[&selfplay[..], &["--set", "search.c_puct=fast"]].concat());
    assert_eq!(line, r#"dojo: error: search.c_puct = "fast": expected a number"#);
    let line = error_line(&[&selfplay[..], &["--set", "selfplay.parallel_games=0"]].concat());
    assert_eq!(line, "dojo: error: selfplay.parallel_games must be at least 1");
    // The commands that play a network take search settings only.
    let bestmove = ["bestmove", "--model", path(&net), "--set", "selfplay.parallel_games=2"];
    let line = error_line(&bestmove);
    assert!(line
        .starts_with(r#"dojo: error: unknown setting "selfplay.parallel_games": expected one of search.simulations,"#));
}

#[test]
fn the_players_commands_take_search_settings_by_their_config_names() {
    let dir = tempfile::tempdir().unwrap();
    let net = tiny_net(dir.path(), "connect4");
    let args = ["bestmove", "--model", path(&net), "--set", "search.simulations=16", "--set", "search.fpu_reduction=0"];
    let text = stdout_of(&dojo_with_input(&args, b"4\n44\n"));
    assert_eq!(text.lines().count(), 2, "{text}");
    let line = error_line(&["bestmove", "--model", path(&net), "--set", "search.simulations=0"]);
    assert_eq!(line, "dojo: error: search.simulations must be at least 1");
    // A flag wins over --set naming the same setting, as in `dojo init` below: the flag's
    // c_puct of 0 is refused though --set named a good one.
    let args = ["bestmove", "--model", path(&net), "--set", "search.c_puct=2", "--c-puct", "0"];
    let line = error_line(&args);
    assert!(line.starts_with("dojo: error: search.c_puct = 0"), "{line}");
    let args = ["bestmove", "--model", path(&net), "--c-puct", "2", "--set", "search.c_puct=1.5"];
    assert_eq!(stdout_of(&dojo_with_input(&args, b"4\n")).lines().count(), 1);
}

#[test]
fn init_takes_its_defaults_from_the_run_config() {
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("net");
    let text = stdout_of(&dojo(&["init", "--out", path(&net)]));
    assert!(text.contains("(3 blocks x 32 channels, fc policy head, for connect4:7x6"), "{text}");
    let text = stdout_of(&dojo(&["init", "--set", "net.blocks=2", "--set", "game=gomoku:9", "--out", path(&net)]));
    assert!(text.contains("(2 blocks x 32 channels, conv policy head, for gomoku:9"), "{text}");
    // A flag goes over the config.
    let text = stdout_of(&dojo(&["init", "--set", "net.blocks=2", "--blocks", "1", "--out", path(&net)]));
    assert!(text.contains("(1 blocks x 32 channels"), "{text}");
}
