//! `dojo positions` and `dojo eval` as a user runs them: the binary, its output and its
//! errors.

use crate::common;

use common::{dojo, path, stdout_of, tiny_net};
use dojo_game::gomoku::Gomoku;
use dojo_game::Game;

#[test]
fn gomoku_tactic_positions_are_judged_for_the_policy_and_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let text = stdout_of(&dojo(&[
        "positions",
        "--game",
        "gomoku:9",
        "--count",
        "30",
        "--min-moves",
        "12",
        "--max-moves",
        "40",
        "--tactics",
        "--seed",
        "5",
    ]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 30);
    let mut kinds = std::collections::BTreeSet::new();
    for line in &lines {
        let mut g = Gomoku::new(9).unwrap();
        for a in g.moves_from_text(line).unwrap() {
            g.play(a).unwrap();
        }
        kinds.insert(g.tactic().expect("every position has a tactic").kind());
    }
    assert_eq!(kinds.into_iter().collect::<Vec<_>>(), ["block", "win"]);
    let positions = dir.path().join("tactics.txt");
    std::fs::write(&positions, &text).unwrap();
    // A quiet position has nothing to judge and is skipped.
    std::fs::write(dir.path().join("mixed.txt"), format!("{text}4,4 3,3\n")).unwrap();
    let net = dir.path().join("net");
    let made =
        stdout_of(&dojo(&["init", "--game", "gomoku:9", "--blocks", "1", "--channels", "8", "--out", path(&net)]));
    assert!(made.contains("1 blocks x 8 channels, conv policy head, for gomoku:9"), "{made}");
    for (mode, file) in [("--policy", "tactics.txt"), ("--playouts=30", "mixed.txt")] {
        let report = stdout_of(&dojo(&[
            "eval",
            "--game",
            "gomoku:9",
            "--model",
            path(&net),
            "--positions",
            path(&dir.path().join(file)),
            mode,
            "--json",
        ]));
        let v: serde_json::Value = serde_json::from_str(&report).unwrap();
        assert_eq!(v["overall"]["positions"], 30, "{report}");
        assert_eq!(v["skipped"], if file == "mixed.txt" { 1 } else { 0 }, "{report}");
        assert_eq!(v["mover"], if mode == "--policy" { "policy" } else { "search" });
        let by_kind = v["by_kind"].as_object().unwrap();
        let summed: u64 = by_kind.values().map(|r| r["positions"].as_u64().unwrap()).sum();
        assert_eq!(summed, 30);
        let errors: u64 = by_kind.values().map(|r| r["errors"].as_u64().unwrap()).sum();
        assert_eq!(v["overall"]["errors"].as_u64().unwrap(), errors);
    }
}

#[test]
fn eval_and_positions_name_what_they_cannot_do() {
    let err = dojo(&["positions", "--game", "connect4", "--tactics"]);
    assert!(!err.status.success());
    assert!(String::from_utf8_lossy(&err.stderr).contains("--tactics is for Gomoku, not connect4:7x6"));
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("net");
    stdout_of(&dojo(&["init", "--game", "2048", "--blocks", "1", "--channels", "8", "--out", path(&net)]));
    std::fs::write(dir.path().join("p.txt"), "\n").unwrap();
    let err = dojo(&["eval", "--game", "2048", "--model", path(&net), "--positions", path(&dir.path().join("p.txt"))]);
    let stderr = String::from_utf8_lossy(&err.stderr);
    assert!(stderr.contains("dojo eval judges Connect Four"), "{stderr}");
}

#[test]
fn init_refuses_a_convolutional_policy_head_where_moves_are_not_cells() {
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("net");
    let args = ["init", "--game", "connect4", "--blocks", "1", "--channels", "8", "--policy-head", "conv"];
    let out = dojo(&[&args[..], &["--out", path(&net)]].concat());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--policy-head"), "{err}");
    assert!(err.contains("policy head conv needs a game whose moves are its board's cells"), "{err}");
    assert!(!dir.path().join("net.safetensors").exists());
    let made =
        stdout_of(&dojo(&["init", "--game", "connect4", "--blocks", "1", "--channels", "8", "--out", path(&net)]));
    assert!(made.contains("fc policy head"), "{made}");
}

#[test]
fn positions_from_recorded_games_are_their_distinct_prefixes() {
    use dojo_base::rng::Rng;
    use dojo_game::connect4::Connect4;
    use dojo_record::{random_game_record, write_records};
    use rand::SeedableRng;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::seed_from_u64(21);
    let start = Connect4::<u64>::standard();
    let records: Vec<_> = (0..4).map(|_| random_game_record(&start, 1, &mut rng)).collect();
    let file = dir.path().join("games.rec");
    write_records(&file, &records).unwrap();
    let games: Vec<String> =
        records.iter().map(|r| start.moves_to_text(&r.moves.iter().map(|m| m.action).collect::<Vec<_>>())).collect();
    let args = ["positions", "--records", path(&file), "--count", "6", "--min-moves", "3", "--max-moves", "5"];
    let text = stdout_of(&dojo(&args));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    for l in &lines {
        assert!((3..=5).contains(&l.len()), "{l}");
        assert!(games.iter().any(|g| g.starts_with(l)), "{l} is no recorded game's start: {games:?}");
    }
    let distinct: std::collections::BTreeSet<&&str> = lines.iter().collect();
    assert_eq!(distinct.len(), 6);

    // Asking for more than there are prints them all and says so.
    let out = dojo(&["positions", "--records", path(&file), "--count", "500", "--min-moves", "3", "--max-moves", "5"]);
    let text = stdout_of(&out);
    assert!(text.lines().count() < 500 && text.lines().count() > 6);
    assert!(String::from_utf8_lossy(&out.stderr).contains("found only"));

    // Games of another game are named as such.
    let out = dojo(&["positions", "--game", "gomoku:9", "--records", path(&file), "--count", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("game 1 is a game of connect4:7x6, not gomoku:9"), "{stderr}");
}

#[test]
fn pons_positions_are_labelled_and_graded_per_category_for_policy_and_search() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pons.jsonl");
    let out = dojo(&[
        "positions",
        "--pons",
        "--count",
        "12",
        "--per-category",
        "2",
        "--budget-nodes",
        "100000",
        "--total-nodes",
        "30000000",
        "--seed",
        "4",
        "--out",
        path(&file),
    ]);
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{summary}");
    assert!(summary.contains(" per category at most); skipped ") && summary.contains("  L3R1: 2\n"), "{summary}");
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.len() >= 6 && lines.len() <= 12, "{text}");
    assert!(summary.starts_with(&format!("{} positions (2 per category at most)", lines.len())), "{summary}");

    let net = tiny_net(dir.path(), "connect4");
    let report = stdout_of(&dojo(&[
        "eval",
        "--model",
        path(&net),
        "--positions",
        path(&file),
        "--mover",
        "both",
        "--playouts",
        "8",
        "--json",
    ]));
    let reports: Vec<serde_json::Value> = report.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(reports.len(), 2, "{report}");
    for (r, mover) in reports.iter().zip(["policy", "search"]) {
        assert_eq!(r["mover"], mover);
        assert_eq!(r["overall"]["positions"].as_u64(), Some(lines.len() as u64));
        let by_category = r["by_category"].as_object().unwrap();
        for line in &lines {
            assert!(by_category.contains_key(line["category"].as_str().unwrap()), "{r}");
        }
        let summed: u64 = by_category.values().map(|c| c["positions"].as_u64().unwrap()).sum();
        assert_eq!(summed, lines.len() as u64);
    }
    assert_eq!(reports[1]["sims"], 8);
    let table = stdout_of(&dojo(&["eval", "--model", path(&net), "--positions", path(&file), "--mover", "policy"]));
    assert!(
        table.contains("category  positions          policy\n") && table.contains("    L3R1          2  "),
        "{table}"
    );

    // A line that does not add up is named.
    let bad = text.replacen("\"category\":\"L", "\"category\":\"L9", 1);
    std::fs::write(&file, bad).unwrap();
    let out = dojo(&["eval", "--model", path(&net), "--positions", path(&file), "--mover", "policy"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("line 1: not a labelled position (category \"L9"), "{err}");
    let out = dojo(&["positions", "--game", "gomoku:9", "--pons"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--pons labels Connect Four positions with the solver"), "{err}");
}
