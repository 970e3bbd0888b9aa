//! `dojo ntuple train / play` and n-tuple and MCTS players in one-player `dojo match`, as a
//! user runs them. A 2048 weight file is 256 MiB, so these tests save and load only a few.

use crate::common;

use common::{dojo, path, stdout_of};
use dojo_ntuple::read_header;

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn failure(args: &[&str]) -> String {
    let out = dojo(args);
    assert!(!out.status.success(), "{args:?} succeeded: {}", String::from_utf8_lossy(&out.stdout));
    let err = stderr_of(&out);
    assert!(err.contains("dojo: error:") && !err.contains("panicked"), "{err}");
    err
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn train_resume_play_and_match_with_ntuple_weights() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w.bin");
    let train = |episodes: &str, every: &str| {
        dojo(&[
            "ntuple",
            "train",
            "--game",
            "2048",
            "--episodes",
            episodes,
            "--report-every",
            every,
            "--out",
            path(&w),
            "--seed",
            "1",
        ])
    };
    // A new file: reports at 10 and 20 (the reach-rate table each time), saved at each.
    let out = train("20", "10");
    let text = stdout_of(&out);
    assert!(stderr_of(&out).contains("new 2048 network: 4 6-tuples × 8 isomorphisms"), "{}", stderr_of(&out));
    assert!(text.contains("episode 10: 10 games: mean score ") && text.contains("episode 20: 10 games"), "{text}");
    assert!(text.contains("    tile   reached  ended there\n    2048 "), "{text}");
    assert!(text.contains("   32768 "), "{text}");
    let header = read_header(&w).unwrap();
    assert_eq!((header.spec.to_string(), header.episodes, header.coherence), ("2048".to_string(), 20, false));

    // Resumed up to 30 episodes: one more report, counted from the file's 20.
    let out = train("30", "10");
    let text = stdout_of(&out);
    assert!(stderr_of(&out).contains("resuming from") && stderr_of(&out).contains("20 episodes trained"));
    assert!(text.contains("episode 30: 10 games") && !text.contains("episode 20"), "{text}");
    assert_eq!(read_header(&w).unwrap().episodes, 30);
    let out = train("30", "10");
    assert!(stderr_of(&out).contains("has seen 30 episodes already"), "{}", stderr_of(&out));
    assert!(stdout_of(&out).is_empty());

    // Another game's file is refused, and nothing is overwritten.
    let err = failure(&["ntuple", "train", "--game", "2584:1-3", "--episodes", "5", "--out", path(&w)]);
    assert!(err.contains("holds n-tuple weights for 2048, not 2584:1-3"), "{err}");
    assert_eq!(read_header(&w).unwrap().episodes, 30);

    // Play (arbiter's tests check that games do not depend on the threads).
    let out =
        dojo(&["ntuple", "play", "--model", path(&w), "--games", "6", "--seed", "3", "--parallel", "2", "--json"]);
    assert!(stderr_of(&out).contains("6 games"), "{}", stderr_of(&out));
    let one = json(&stdout_of(&out));
    assert_eq!(one["games"], 6);
    assert_eq!(one["player"], format!("ntuple:{}", path(&w)));
    assert_eq!(one["reach"].as_array().unwrap().len(), 5);
    assert!(one["mean"].as_f64().unwrap() > 0.0 && one["interval"].as_array().unwrap().len() == 2);

    // dojo match with one player: the n-tuple network with expectimax, and MCTS.
    let a = format!("ntuple:{}:depth=2", path(&w));
    let out = stdout_of(&dojo(&["match", "--game", "2048", "--a", &a, "--games", "3", "--seed", "4"]));
    assert!(out.starts_with(&format!("{a} on 2048: 3 games: mean score ")), "{out}");
    assert!(out.contains("    2048 "), "{out}");
    let out = stdout_of(&dojo(&["match", "--game", "2048", "--a", "mcts:20", "--games", "2", "--json", "--verbose"]));
    let v = json(&out);
    assert_eq!((v["player"].as_str(), v["games"].as_u64()), (Some("mcts:20"), Some(2)));
    assert_eq!(v["games_played"].as_array().unwrap().len(), 2);

    // Weights of another game, a second player, a two-player game without one.
    let err = failure(&["match", "--game", "2584", "--a", &format!("ntuple:{}", path(&w)), "--games", "2"]);
    assert!(err.contains("holds n-tuple weights for 2048, not 2584:1-2"), "{err}");
    let err = failure(&["match", "--game", "connect4", "--a", &format!("ntuple:{}", path(&w)), "--b", "random"]);
    assert!(err.contains("holds n-tuple weights for 2048, not connect4:7x6"), "{err}");
    let err = failure(&["match", "--game", "2048", "--a", "random", "--b", "random", "--games", "2"]);
    assert!(err.contains("2048 is a one-player game: give only --a"), "{err}");
    let err = failure(&["match", "--game", "connect4", "--a", "random", "--games", "2"]);
    assert!(err.contains("is a two-player game: give the opponent with --b"), "{err}");

    // A damaged file is an error that says so.
    let bytes = std::fs::read(&w).unwrap();
    std::fs::write(&w, &bytes[..bytes.len() / 2]).unwrap();
    let err = failure(&["ntuple", "play", "--model", path(&w), "--games", "2"]);
    assert!(err.contains("header describes") && err.contains("truncated"), "{err}");
}

#[test]
fn bad_ntuple_arguments_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w.bin");
    let err = failure(&["ntuple", "train", "--game", "connect4", "--episodes", "5"]);
    assert!(err.contains("n-tuple networks play 2048 and 2584, not connect4:7x6"), "{err}");
    let err = failure(&["ntuple", "train", "--game", "2048", "--episodes", "5", "--alpha", "0"]);
    assert!(err.contains("--alpha must be a positive number"), "{err}");
    let err = failure(&["ntuple", "train", "--game", "2584:1-2:0", "--episodes", "5"]);
    assert!(err.contains("1-tile's share is a percent in 1..=99, not 0"), "{err}");
    let err = failure(&["ntuple", "play", "--model", path(&w), "--games", "2"]);
    assert!(err.contains("w.bin") && err.contains("No such file"), "{err}");
    std::fs::write(&w, b"not weights at all").unwrap();
    let err = failure(&["ntuple", "play", "--model", path(&w), "--games", "2"]);
    assert!(err.contains("not an n-tuple weight file"), "{err}");
    let err = failure(&["ntuple", "play", "--model", path(&w), "--games", "2", "--depth", "0"]);
    assert!(err.contains("--depth must be in 1..=6"), "{err}");
}
