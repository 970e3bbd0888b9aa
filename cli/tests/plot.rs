//! `dojo plot`: a run's curves as PNG files from what the run wrote.

mod common;

use common::{dojo, path, stdout_of, tiny_config};
use dojo_learner::run_dir::RunDir;

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
