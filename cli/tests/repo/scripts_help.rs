//! Every script in scripts/ that a person runs answers `--help` with its usage on stdout and
//! exit status 0, and that usage names every flag the script takes: the flags are read from
//! the script's own source (a bash script's `case` patterns, a Python script's
//! `add_argument` and `== "--flag"` tests), so a flag added without its help fails here.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Scripts not run with --help here, and why.
const NOT_HERE: &[(&str, &str)] = &[
    ("dojo", "its --help is dojo's own (cli/tests/repo/install.rs runs `scripts/dojo install --help`)"),
    ("env.sh", "sourced by the others, not run"),
    ("compose-lib.sh", "sourced by the others, not run"),
    ("ladder-lib.sh", "sourced by the ladders, not run"),
    ("usage.sh", "sourced by the others, not run"),
    ("cached-venv.sh", "a helper of the setup scripts, taking a folder and packages"),
    ("setup-libtorch.sh", "run by scripts/env.sh; takes no arguments"),
    ("setup-browser.sh", "run by scripts/test.sh; takes no arguments"),
    ("setup-promtool.sh", "run by scripts/test.sh; takes no arguments"),
    ("setup-tensorboard.sh", "run by scripts/test.sh; takes no arguments"),
];

fn scripts() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts");
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    all.sort();
    all.retain(|p| {
        let name = p.file_name().unwrap().to_str().unwrap();
        p.is_file() && !NOT_HERE.iter().any(|(n, _)| *n == name)
    });
    all
}

/// The flags a script's source parses (but -h and --help, which its help need not name).
fn flags_in(source: &str) -> Vec<String> {
    let mut flags = Vec::new();
    let mut add = |flag: &str| {
        let flag = flag.trim_end_matches("=*");
        let plain = flag.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        let named = flag.chars().any(|c| c.is_ascii_alphabetic());
        let help = flag == "-h" || flag == "--help";
        if flag.starts_with('-') && named && plain && !help && !flags.iter().any(|f| f == flag) {
            flags.push(flag.to_string());
        }
    };
    for line in source.lines().map(str::trim) {
        // A bash `case` pattern: `--seconds) ...`, `-h|--help) ...`, `--overlay=*) ...`.
        if line.starts_with('-') {
            if let Some((pattern, _)) = line.split_once(')') {
                if !pattern.contains(' ') {
                    pattern.split('|').for_each(&mut add);
                }
            }
        }
        // Python: `p.add_argument("--board", ...)`, `args[0] == "--root"`, `["--self-test"]`.
        for marker in ["add_argument(\"", "== \"", "== [\"", "[:1] == [\""] {
            for (i, _) in line.match_indices(marker) {
                let rest = &line[i + marker.len()..];
                if let Some(end) = rest.find('"') {
                    add(&rest[..end]);
                }
            }
        }
    }
    flags
}

/// Whether `help` names `flag` as a word of its own (so `-n` is not found inside `--name`).
fn names(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(i, _)| {
        let before = help[..i].chars().next_back();
        let after = help[i + flag.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
            && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

#[test]
fn every_script_answers_help_with_every_flag_it_takes() {
    let scripts = scripts();
    assert!(scripts.len() >= 15, "{scripts:?}");
    let mut wrong = Vec::new();
    for script in &scripts {
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        let out = Command::new(script).arg("--help").output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout).into_owned();
        if !out.status.success() || help.trim().is_empty() {
            wrong.push(format!("{name}: --help exited {:?} with stdout {help:?}", out.status.code()));
            continue;
        }
        if help.lines().any(|l| l.starts_with("set -e") || l.starts_with("root=$(")) {
            wrong.push(format!("{name}: --help prints its own source:\n{help}"));
        }
        let source = std::fs::read_to_string(script).unwrap();
        for flag in flags_in(&source) {
            if !names(&help, &flag) {
                wrong.push(format!("{name}: takes {flag}, which --help does not name"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn flags_are_read_from_bash_and_python() {
    let bash = "case \"$1\" in\n  -h|--help) usage ;;\n  --seconds) s=$2; shift 2 ;;\n  --overlay=*) o=${1#*=} ;;\n  --) shift ;;\n  -*) die ;;\nesac\n  --dev          build (opt-level 1)\n";
    assert_eq!(flags_in(bash), ["--seconds", "--overlay"]);
    let python =
        "p.add_argument(\"--board\", type=int)\nif args[:1] == [\"--self-test\"]:\nif args[0] == \"--root\":\n";
    assert_eq!(flags_in(python), ["--board", "--self-test", "--root"]);
    assert!(names("  -n, --namespace NS", "-n"));
    assert!(!names("  --name NAME", "-n"));
    assert!(!names("  --names", "--name"));
}
