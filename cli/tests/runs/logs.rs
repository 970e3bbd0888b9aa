//! Log lines as collectors and log files want them: plain text without colour codes when
//! stderr is not a terminal, or one JSON object a line with `--log-format json`.

use crate::common;

use common::{dojo, path, stdout_of};

/// The stderr of a short `dojo selfplay`, which logs its precision decision.
fn selfplay_stderr(dir: &std::path::Path, format: &str) -> String {
    let ckpt = dir.join("c4");
    if !dir.join("c4.json").exists() {
        stdout_of(&dojo(&["init", "--game", "connect4", "--blocks", "1", "--channels", "8", "--out", path(&ckpt)]));
    }
    let out = dojo(&[
        "--log-format",
        format,
        "selfplay",
        "--model",
        path(&ckpt),
        "--games",
        "1",
        "--playouts",
        "4",
        "--fast-playouts",
        "2",
        "--parallel",
        "1",
        "--precision",
        "f32",
        "--out",
        path(&dir.join("g.rec")),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn logs_are_plain_text_off_a_terminal_and_json_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let text = selfplay_stderr(dir.path(), "text");
    let line = text.lines().find(|l| l.contains("precision f32")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(" INFO "), "{line}");
    assert!(!text.contains('\x1b'), "colour codes in a log that is not a terminal: {text:?}");

    let json = selfplay_stderr(dir.path(), "json");
    let line = json.lines().find(|l| l.contains("precision f32")).unwrap_or_else(|| panic!("{json}"));
    let value: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(value["level"], "INFO", "{value}");
    assert!(value["fields"]["message"].as_str().unwrap().starts_with("precision f32"), "{value}");
    assert!(value["timestamp"].is_string(), "{value}");
    let bad = dojo(&["--log-format", "xml", "config"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("invalid value 'xml'"));
}

#[test]
fn long_commands_off_a_terminal_log_plain_progress_lines() {
    // Every game a line (the default is every 10 seconds), and always the last one.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dojo"))
        .args(["match", "--a", "random", "--b", "mcts:5", "--games", "4", "--parallel", "1", "--seed", "1"])
        .env("DOJO_PROGRESS_EVERY", "0")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("random vs mcts:5: ")).collect();
    assert_eq!(lines.len(), 4, "{stderr}");
    assert!(lines[3].starts_with("random vs mcts:5: 4/4 games, ") && lines[3].contains(" s elapsed, eta "), "{stderr}");
    assert!(!stderr.contains('\x1b') && !stderr.contains('\r'), "no terminal drawing in a log: {stderr:?}");
}
