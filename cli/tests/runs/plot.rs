//! `dojo plot`: a run's curves as PNG files from what the run wrote.

use crate::common;

use common::{dojo, path, stdout_of, tiny_config};
use dojo_game::GameSpec;
use dojo_run::dir::RunDir;

/// A PNG's height in pixels (from its header).
fn png_height(bytes: &[u8]) -> u32 {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    u32::from_be_bytes(bytes[20..24].try_into().unwrap())
}

#[test]
fn a_run_with_metrics_and_gating_gets_its_pngs_and_an_empty_run_an_explanation() {
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path().join("run"));
    run.create_or_open(Some(&tiny_config())).unwrap();
    let out = dojo(&["plot", "--run-dir", path(&run.root)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("no metrics, gating decisions or tournaments to plot yet"),
        "{stderr}"
    );

    let metrics: String = (1..=30)
        .map(|i| {
            format!(
                "{{\"step\":{},\"policy_loss\":{},\"value_loss\":0.3,\"entropy\":1.5,\"learning_rate\":0.001,\"games_per_s\":20,\"samples_per_s\":900,\"buffer_positions\":{},\"first_player_win_rate\":0.5,\"draw_rate\":0.1,\"mean_game_length\":30}}\n",
                i * 20,
                2.0 - 0.02 * f64::from(i),
                i * 100
            )
        })
        .collect();
    // A line cut short by a crash is passed over.
    std::fs::write(run.metrics(), metrics + "{\"step\":620,\"policy_lo").unwrap();
    let gate = |candidate: u32, best: &str, promoted: bool| {
        format!(
            "{{\"unix_ms\":0,\"candidate\":{candidate},\"best\":{best},\"games\":40,\"wins\":20,\"draws\":4,\"losses\":16,\"score\":0.55,\"promoted\":{promoted}}}\n"
        )
    };
    std::fs::write(run.gating_log(), gate(10, "null", true) + &gate(20, "10", true) + &gate(30, "20", false)).unwrap();
    let printed = stdout_of(&dojo(&["plot", "--run-dir", path(&run.root)]));
    let files: Vec<&str> = printed.lines().collect();
    let names: Vec<&str> = files.iter().map(|f| f.rsplit('/').next().unwrap()).collect();
    assert_eq!(names, ["losses.png", "throughput.png", "games.png", "gating.png"], "{printed}");
    for f in files {
        let bytes = std::fs::read(f).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{f}");
        assert!(f.starts_with(path(&run.root.join("plots"))), "{f}");
    }
}

#[test]
fn a_2048_run_gets_score_and_reach_charts_instead_of_win_rates() {
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path().join("run"));
    let mut config = tiny_config();
    config.game = GameSpec::Twenty48;
    run.create_or_open(Some(&config)).unwrap();
    // Every third window had games: those lines carry scores, the others do not.
    let metrics: String = (1..=30)
        .map(|i| {
            let scores = if i % 3 == 0 {
                format!(
                    ",\"scored_games\":4,\"mean_score\":{},\"max_score\":{},\"max_tile\":{},\"reach\":{{\"2048\":{},\"4096\":{},\"8192\":0.0,\"16384\":0.0,\"32768\":0.0}}",
                    1000 * i,
                    1500 * i,
                    if i > 15 { 4096 } else { 1024 },
                    if i > 15 { 0.75 } else { 0.0 },
                    if i > 15 { 0.25 } else { 0.0 },
                )
            } else {
                String::new()
            };
            format!(
                "{{\"step\":{},\"policy_loss\":1.0,\"value_loss\":0.3,\"entropy\":1.2,\"learning_rate\":0.01,\"games_per_s\":1,\"samples_per_s\":900,\"buffer_positions\":{},\"first_player_win_rate\":0.0,\"draw_rate\":1.0,\"mean_game_length\":500{scores}}}\n",
                i * 20,
                i * 100
            )
        })
        .collect();
    std::fs::write(run.metrics(), metrics).unwrap();
    let printed = stdout_of(&dojo(&["plot", "--run-dir", path(&run.root)]));
    let files: Vec<&str> = printed.lines().collect();
    let names: Vec<&str> = files.iter().map(|f| f.rsplit('/').next().unwrap()).collect();
    assert_eq!(names, ["losses.png", "throughput.png", "games.png", "scores.png", "reach.png"], "{printed}");
    // Panels are 320 pixels under a 60-pixel title: the games figure lost its win-rate
    // panel, scores has score and tile panels, reach one panel of five tiles.
    let heights: Vec<u32> = files.iter().map(|f| png_height(&std::fs::read(f).unwrap())).collect();
    assert_eq!(heights, [1020, 1020, 380, 700, 380], "{names:?}");
}
