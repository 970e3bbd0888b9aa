//! Rules of the house that a test keeps (as rust-analyzer's tidy tests do), read from the
//! workspace's sources, tests aside:
//!
//! - no function is longer than [`MAX_FUNCTION_LINES`] lines, but those in [`LONG_FUNCTIONS`],
//!   issue 47's list of debts, which must only shrink: a listed function that got short (or
//!   went) fails too, so the list is kept true;
//! - no library crate has a public function returning `Result<_, String>`: errors are typed.

use std::path::{Path, PathBuf};

const MAX_FUNCTION_LINES: usize = 80;

/// The functions still longer than the rule allows (file, name): ARCHITECTURE.md's debts.
const LONG_FUNCTIONS: &[(&str, &str)] = &[("core/src/search/solver.rs", "negamax")];

/// The crates whose sources are read; all but `cli` are libraries.
const CRATES: &[&str] = &["proto", "core", "run", "worker", "learner", "arbiter", "program", "cli"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("cli sits in the workspace").to_path_buf()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The crate sources (`CRATE/src/**.rs`) as (path from the workspace, lines before the
/// file's test module).
fn sources() -> Vec<(String, Vec<String>)> {
    let root = workspace();
    let mut files = Vec::new();
    for krate in CRATES {
        rust_files(&root.join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 100, "the workspace's sources were not found under {}", root.display());
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            if let Some(at) = lines.windows(2).position(|w| w[0].trim() == "#[cfg(test)]" && is_module(&w[1])) {
                lines.truncate(at);
            }
            let name = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            (name, lines)
        })
        .collect()
}

fn is_module(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("mod ") || line.starts_with("pub mod ") || line.starts_with("pub(crate) mod ")
}

/// The name of the function a line declares, if it does.
fn declared_function(line: &str) -> Option<&str> {
    let code = line.trim_start();
    if code.starts_with("//") {
        return None;
    }
    let at = code.find("fn ")?;
    let before = &code[..at];
    let qualifiers = before.split_whitespace().all(|w| {
        matches!(w, "pub" | "const" | "async" | "unsafe" | "extern" | "\"C\"" | "default") || w.starts_with("pub(")
    });
    if !qualifiers {
        return None;
    }
    let name: &str = code[at + 3..].split(|c: char| !(c.is_alphanumeric() || c == '_')).next()?;
    (!name.is_empty()).then_some(name)
}

/// A line with comments, strings and character literals blanked, for counting braces.
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => break,
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '\'' => {
                // A character literal ('{', '\n'), or a lifetime ('a), which has no closing quote.
                let rest: String = chars.clone().take(3).collect();
                if rest.starts_with('\\') {
                    let skip = rest.find('\'').map_or(0, |i| i + 1);
                    for _ in 0..skip {
                        chars.next();
                    }
                } else if rest.chars().nth(1) == Some('\'') {
                    chars.next();
                    chars.next();
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Every function with a body in `lines`: (name, first line (1-based), lines long).
fn functions(lines: &[String]) -> Vec<(String, usize, usize)> {
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(name) = declared_function(line) else { continue };
        let mut depth = 0i64;
        let mut opened = false;
        for (offset, line) in lines[start..].iter().enumerate() {
            let code = code_of(line);
            for c in code.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if opened && depth <= 0 {
                found.push((name.to_string(), start + 1, offset + 1));
                break;
            }
            if !opened && code.trim_end().ends_with(';') {
                break; // a declaration without a body (a trait's)
            }
        }
    }
    found
}

#[test]
fn no_function_is_longer_than_80_lines_but_the_listed_debts() {
    let mut long = Vec::new();
    for (file, lines) in sources() {
        for (name, line, length) in functions(&lines) {
            if length > MAX_FUNCTION_LINES {
                long.push((file.clone(), name, line, length));
            }
        }
    }
    let new: Vec<String> = long
        .iter()
        .filter(|(file, name, ..)| !LONG_FUNCTIONS.contains(&(file.as_str(), name.as_str())))
        .map(|(file, name, line, length)| format!("{file}:{line} {name} is {length} lines"))
        .collect();
    assert!(new.is_empty(), "functions over {MAX_FUNCTION_LINES} lines (split them):\n{}", new.join("\n"));
    let paid: Vec<String> = LONG_FUNCTIONS
        .iter()
        .filter(|(file, name)| !long.iter().any(|(f, n, ..)| f == file && n == name))
        .map(|(file, name)| format!("{file} {name}"))
        .collect();
    assert!(
        paid.is_empty(),
        "no longer over {MAX_FUNCTION_LINES} lines: take them off LONG_FUNCTIONS:\n{}",
        paid.join("\n")
    );
}

#[test]
fn no_library_returns_a_string_as_its_error() {
    let mut found = Vec::new();
    for (file, lines) in sources() {
        if file.starts_with("cli/") {
            continue;
        }
        for (i, line) in lines.iter().enumerate() {
            let code = code_of(line);
            let public = code.trim_start().starts_with("pub fn ") || code.trim_start().starts_with("pub async fn ");
            if public && code.replace(' ', "").contains(",String>") && code.contains("Result<") {
                found.push(format!("{file}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "public functions returning Result<_, String> (return a thiserror type):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scanner_measures_what_it_should() {
    let text = "fn short() {\n    let s = \"}\";\n    let c = '{';\n}\n\npub(crate) fn two<'a>(x: &'a str) -> &'a str {\n    // }\n    x\n}\ntrait T {\n    fn declared(&self);\n}\n";
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(functions(&lines), vec![("short".to_string(), 1, 4), ("two".to_string(), 6, 4)]);
    assert_eq!(declared_function("    pub const unsafe fn x() {"), Some("x"));
    assert_eq!(declared_function("    let f = |x| x; // fn y"), None);
}
