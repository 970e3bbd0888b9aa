//! Rules of the house that a test keeps (as rust-analyzer's tidy tests do), read from the
//! workspace's sources, tests aside:
//!
//! - no crate holds more than [`MAX_CRATE_SHARE_PERCENT`]% of the workspace's source lines
//!   (`CRATE/src/**.rs` before each file's test module);
//! - no function is longer than [`MAX_FUNCTION_LINES`] lines, but those in [`LONG_FUNCTIONS`],
//!   issue 47's list of debts, which must only shrink: a listed function that got short (or
//!   went) fails too, so the list is kept true;
//! - at most [`LONG_FUNCTION_BUDGET`] functions are longer than [`LONG_FUNCTION_LINES`] lines
//!   (issue 77), a budget that only goes down;
//! - no library crate names `Result<_, String>` anywhere (public or private, a signature read
//!   whole over its lines), and no `map_err` turns an error into a value's text, but those
//!   marked `// tidy: text cause: why`: errors are typed;
//! - every file, folder and crate ARCHITECTURE.md names exists (a file named without its
//!   folder, somewhere in the workspace);
//! - no two files of a crate import each other, directly or round a longer circle (a parent
//!   module and its own children aside: a `mod.rs` declares and re-exports them); a name
//!   taken through a re-export (`use crate::GameSpec`) counts as taken from the file that
//!   defines it.

use std::path::{Path, PathBuf};

const MAX_FUNCTION_LINES: usize = 80;

/// The functions still longer than the rule allows (file, name): ARCHITECTURE.md's debts.
const LONG_FUNCTIONS: &[(&str, &str)] = &[];

/// A function longer than this is long: allowed, but counted against [`LONG_FUNCTION_BUDGET`].
const LONG_FUNCTION_LINES: usize = 60;

/// How many functions may be longer than [`LONG_FUNCTION_LINES`] lines. This budget only goes
/// down: when a split brings the count under it, lower it to the new count; never raise it to
/// let a new long function in (split that function instead).
const LONG_FUNCTION_BUDGET: usize = 8;

/// The crates whose sources are read (every workspace member: a test checks); all but
/// `cli` are libraries.
const CRATES: &[&str] = &[
    "base", "proto", "game", "metrics", "record", "arch", "search", "net", "ntuple", "run", "external", "worker",
    "learner", "arbiter", "grading", "gating", "program", "cli",
];

/// The most of the workspace's source lines (tests aside) one crate may hold, in percent:
/// a crate past it holds more than one concern (issue 77: the arbiter held 23%).
const MAX_CRATE_SHARE_PERCENT: usize = 15;

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
            // The inline test module (`#[cfg(test)] mod tests {`), not a test-only file's `mod x;`.
            let tests =
                |w: &[String]| w[0].trim() == "#[cfg(test)]" && is_module(&w[1]) && w[1].trim_end().ends_with('{');
            if let Some(at) = lines.windows(2).position(tests) {
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

/// The crates of `lines` (crate, source lines) holding more than `max_percent` of their
/// sum, each as (crate, share in tenths of a percent), largest first.
fn oversized(lines: &[(String, usize)], max_percent: usize) -> Vec<(String, usize)> {
    let total: usize = lines.iter().map(|(_, n)| n).sum();
    let mut over: Vec<(String, usize)> = lines
        .iter()
        .filter(|(_, n)| n * 100 > total * max_percent)
        .map(|(krate, n)| (krate.clone(), n * 1000 / total))
        .collect();
    over.sort_by_key(|o| std::cmp::Reverse(o.1));
    over
}

/// Each crate's source lines (tests aside), in [`CRATES`]' order.
fn crate_lines() -> Vec<(String, usize)> {
    let files = sources();
    CRATES
        .iter()
        .map(|krate| {
            let prefix = format!("{krate}/src/");
            let n = files.iter().filter(|(file, _)| file.starts_with(&prefix)).map(|(_, lines)| lines.len()).sum();
            (krate.to_string(), n)
        })
        .collect()
}

#[test]
fn every_workspace_member_is_read() {
    let manifest = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let line = manifest.lines().find(|l| l.trim_start().starts_with("members")).expect("the workspace's members");
    let members: Vec<&str> = line.split('"').skip(1).step_by(2).collect();
    let mut sorted = members.clone();
    sorted.sort();
    let mut read = CRATES.to_vec();
    read.sort();
    assert_eq!(sorted, read, "CRATES (cli/tests/repo/tidy.rs) must list every workspace member");
}

#[test]
fn no_crate_holds_more_than_its_share_of_the_source() {
    let lines = crate_lines();
    let total: usize = lines.iter().map(|(_, n)| n).sum();
    let mut shares = lines.clone();
    shares.sort_by_key(|s| std::cmp::Reverse(s.1));
    let table: Vec<String> = shares
        .iter()
        .map(|(krate, n)| format!("{krate:>9} {n:>6} lines {:>5.1}%", *n as f64 * 100.0 / total as f64))
        .collect();
    println!("each crate's share of {total} source lines:\n{}", table.join("\n"));
    let over = oversized(&lines, MAX_CRATE_SHARE_PERCENT);
    assert!(
        over.is_empty(),
        "crates over {MAX_CRATE_SHARE_PERCENT}% of the workspace's source lines (split them by concern): {over:?}\n{}",
        table.join("\n")
    );
}

/// The functions of `files` longer than `lines` lines, as `file:line name is N lines`, longest
/// first, and whether there are no more of them than `budget`.
fn within_budget(files: &[(String, Vec<String>)], lines: usize, budget: usize) -> (Vec<String>, bool) {
    let mut long: Vec<(usize, String)> = Vec::new();
    for (file, text) in files {
        for (name, line, length) in functions(text) {
            if length > lines {
                long.push((length, format!("{file}:{line} {name} is {length} lines")));
            }
        }
    }
    long.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let within = long.len() <= budget;
    (long.into_iter().map(|(_, text)| text).collect(), within)
}

#[test]
fn no_more_functions_over_60_lines_than_the_budget() {
    let (long, within) = within_budget(&sources(), LONG_FUNCTION_LINES, LONG_FUNCTION_BUDGET);
    println!("{} functions over {LONG_FUNCTION_LINES} lines:\n{}", long.len(), long.join("\n"));
    assert!(
        within,
        "{} functions over {LONG_FUNCTION_LINES} lines, the budget is {LONG_FUNCTION_BUDGET} (split one):\n{}",
        long.len(),
        long.join("\n")
    );
}

#[test]
fn the_share_check_finds_a_crate_over_its_share() {
    let lines = |v: &[(&str, usize)]| v.iter().map(|(k, n)| (k.to_string(), *n)).collect::<Vec<_>>();
    // 160 of 1,000 lines is 16.0%: over; 150 is exactly 15%: not over.
    let mut rest: Vec<(&str, usize)> = vec![("big", 160), ("edge", 150)];
    rest.extend([("a", 138), ("b", 138), ("c", 138), ("d", 138), ("e", 138)]);
    assert_eq!(oversized(&lines(&rest), 15), vec![("big".to_string(), 160)]);
    // Seven crates of one size: 14.3% each, none over.
    assert!(oversized(&lines(&[("a", 7); 7]), 15).is_empty());
    // The share is of the sum: two crates alone are 50% each, both over.
    assert_eq!(oversized(&lines(&[("a", 3), ("b", 3)]), 15).len(), 2);
}

#[test]
fn the_long_function_budget_can_be_overrun() {
    let body = |n: usize| format!("fn f{n}() {{\n{}}}\n", "    x();\n".repeat(n));
    let file = |text: String| ("a.rs".to_string(), text.lines().map(str::to_string).collect::<Vec<_>>());
    // Two functions of 5 and 6 lines (body lines plus the two braces): one is over 5.
    let files = vec![file(body(3)), file(body(4))];
    assert_eq!(within_budget(&files, 5, 1), (vec!["a.rs:1 f4 is 6 lines".to_string()], true));
    assert!(!within_budget(&files, 5, 0).1);
    let (long, within) = within_budget(&files, 4, 1);
    assert_eq!(long, vec!["a.rs:1 f4 is 6 lines".to_string(), "a.rs:1 f3 is 5 lines".to_string()]);
    assert!(!within);
}

/// A file's crate and module path within it (`game/src/gomoku/vcf.rs`: `game`, `gomoku::vcf`;
/// a `mod.rs`, `lib.rs` or `main.rs` is its folder's module).
fn module_of(file: &str) -> (String, Vec<String>) {
    let (krate, rest) = file.split_once("/src/").expect("a crate source");
    let mut parts: Vec<String> = rest.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    (krate.to_string(), parts)
}

/// A file's code as statements: comments and literals blanked, lines joined, cut at each
/// `;` (so a `use` written over several lines is one).
fn statements(lines: &[String]) -> Vec<String> {
    let code: Vec<String> = lines.iter().map(|line| code_of(line)).collect();
    code.join(" ").split(';').map(str::to_string).collect()
}

/// The leading identifier of `text`.
fn word(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

/// A path written in module `here` from `text` on (`crate::a::b`, `super::c::{D, E}`,
/// `self::f`, or `child::G` where `child` is a module inside `here`), resolved to the
/// longest module path that is a file of the crate, with the names it takes from that
/// module (`*` for a glob). None where `text` does not start such a path.
fn resolve(here: &[String], text: &str, modules: &[Vec<String>]) -> Option<(Vec<String>, Vec<String>)> {
    // `super` from a `mod.rs` is its folder's parent; from `x.rs`, x's parent.
    let (mut path, mut rest): (Vec<String>, &str) = match word(text) {
        "crate" => (Vec::new(), &text[5..]),
        "self" => (here.to_vec(), &text[4..]),
        "super" => (here[..here.len().saturating_sub(1)].to_vec(), &text[5..]),
        child if !child.is_empty() && modules.contains(&[here, &[child.to_string()]].concat()) => (here.to_vec(), text),
        _ => return None,
    };
    // After `crate`, `self` or `super` a `::` comes first; a child's name is the segment.
    let mut at_segment = rest.len() == text.len();
    loop {
        if !at_segment {
            match rest.strip_prefix("::") {
                Some(after) => rest = after.trim_start(),
                None => return Some((path, Vec::new())),
            }
        }
        at_segment = false;
        let w = word(rest);
        match w {
            "" => break,
            "super" => {
                path.pop();
            }
            w if modules.contains(&[path.as_slice(), &[w.to_string()]].concat()) => path.push(w.to_string()),
            _ => break, // `w` is an item of `path`, not a module under it
        }
        rest = &rest[w.len()..];
    }
    let names = if let Some(list) = rest.strip_prefix('{') {
        let list = &list[..list.find('}').unwrap_or(list.len())];
        list.split(',').map(|item| item.trim()).filter(|i| !i.is_empty()).map(|i| word(i).to_string()).collect()
    } else if rest.starts_with('*') {
        vec!["*".to_string()]
    } else {
        vec![word(rest).to_string()]
    };
    Some((path, names.into_iter().filter(|n| !n.is_empty()).collect()))
}

/// Where each name a module re-exports (`pub use x::Name`) is defined: name → module.
fn reexports(file: &str, lines: &[String], modules: &[Vec<String>]) -> Vec<(String, Vec<String>)> {
    let (_, here) = module_of(file);
    let mut found = Vec::new();
    for statement in statements(lines) {
        let statement = statement.trim_start();
        let Some(path) = statement.strip_prefix("pub use ").or_else(|| statement.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        if let Some((target, names)) = resolve(&here, path.trim_start(), modules) {
            found.extend(names.into_iter().filter(|n| n != "*").map(|n| (n, target.clone())));
        }
    }
    found
}

/// The crate-internal modules a file names in code (`crate::a::b`, `super::c`). A name taken
/// through an ancestor that only re-exports it (`use crate::GameSpec`, where `lib.rs` has
/// `pub use spec::GameSpec`) counts as taken from where it is defined; a parent's own items
/// and its children's do not make an edge (a `mod.rs` declares and re-exports them).
fn imports(
    file: &str,
    lines: &[String],
    modules: &[Vec<String>],
    reexported: &std::collections::BTreeMap<Vec<String>, Vec<(String, Vec<String>)>>,
) -> Vec<Vec<String>> {
    let (_, here) = module_of(file);
    let mut found = Vec::new();
    for code in statements(lines) {
        for (at, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == ':') {
                continue; // `$crate::`, a longer word that ends in `crate::`, or `super::super::`
            }
            let Some((module, names)) = resolve(&here, &code[at..], modules) else { continue };
            if !nested(&module, &here) {
                found.push(module);
                continue;
            }
            // Through an ancestor: follow what it re-exports to where it is defined.
            let Some(table) = reexported.get(&module).filter(|_| here.starts_with(&module)) else { continue };
            for (name, target) in table {
                let taken = names.iter().any(|n| n == name || n == "*");
                if taken && !nested(target, &here) {
                    found.push(target.clone());
                }
            }
        }
    }
    found
}

/// Whether one module is the other or lies inside it.
fn nested(a: &[String], b: &[String]) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// The circles among `edges` (module → modules it imports), each as the modules on it.
fn circles(
    edges: &std::collections::BTreeMap<Vec<String>, std::collections::BTreeSet<Vec<String>>>,
) -> Vec<Vec<String>> {
    // A module is on a circle when it reaches itself; one circle is reported per set of
    // modules that reach each other.
    let reach = |from: &Vec<String>| {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack: Vec<&Vec<String>> = edges.get(from).into_iter().flatten().collect();
        while let Some(m) = stack.pop() {
            if seen.insert(m.clone()) {
                stack.extend(edges.get(m).into_iter().flatten());
            }
        }
        seen
    };
    let mut reported: Vec<std::collections::BTreeSet<Vec<String>>> = Vec::new();
    for module in edges.keys() {
        let from = reach(module);
        if !from.contains(module) || reported.iter().any(|c| c.contains(module)) {
            continue;
        }
        let circle: std::collections::BTreeSet<Vec<String>> =
            from.iter().filter(|m| reach(m).contains(module)).cloned().collect();
        reported.push(circle);
    }
    reported.into_iter().map(|c| c.into_iter().map(|m| m.join("::")).collect()).collect()
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    use std::collections::{BTreeMap, BTreeSet};
    let sources = sources();
    let mut found = Vec::new();
    for krate in CRATES {
        let files: Vec<&(String, Vec<String>)> = sources.iter().filter(|(f, _)| module_of(f).0 == *krate).collect();
        let modules: Vec<Vec<String>> = files.iter().map(|(f, _)| module_of(f).1).collect();
        let reexported: BTreeMap<Vec<String>, Vec<(String, Vec<String>)>> =
            files.iter().map(|(f, lines)| (module_of(f).1, reexports(f, lines, &modules))).collect();
        let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (file, lines) in &files {
            let here = module_of(file).1;
            let targets = imports(file, lines, &modules, &reexported);
            edges.entry(here).or_default().extend(targets);
        }
        for circle in circles(&edges) {
            found.push(format!("{krate}: {}", circle.join(" <-> ")));
        }
    }
    assert!(found.is_empty(), "files that import each other (move what both need below both):\n{}", found.join("\n"));
}

#[test]
fn the_circle_finder_finds_circles() {
    use std::collections::BTreeMap;
    let module = |path: &str| path.split("::").filter(|p| !p.is_empty()).map(str::to_string).collect::<Vec<_>>();
    let modules: Vec<Vec<String>> = ["", "spec", "gomoku", "gomoku::vcf", "hex"].map(module).into();
    let lines = |text: &str| text.lines().map(str::to_string).collect::<Vec<_>>();
    let none = BTreeMap::new();
    let spec =
        imports("game/src/spec.rs", &lines("use super::gomoku::GOMOKU_MIN;\nuse dojo_record::x;"), &modules, &none);
    assert_eq!(spec, vec![module("gomoku")]);
    let gomoku = imports(
        "game/src/gomoku.rs",
        &lines("// crate::spec\nlet s = crate::spec::GameSpec::x();\nlet v = $crate::spec::y;"),
        &modules,
        &none,
    );
    assert_eq!(gomoku, vec![module("spec")]);
    // A child's `super` is its parent: no edge between a module and its own children.
    let vcf = imports("game/src/gomoku/vcf.rs", &lines("use super::Gomoku;"), &modules, &none);
    assert!(vcf.is_empty(), "{vcf:?}");
    let mut edges = BTreeMap::new();
    edges.insert(modules[1].clone(), spec.into_iter().collect());
    edges.insert(modules[2].clone(), gomoku.into_iter().collect());
    assert_eq!(circles(&edges), vec![vec!["gomoku".to_string(), "spec".into()]]);
    edges.remove(&modules[2]);
    assert!(circles(&edges).is_empty());

    // A name taken through the crate root counts as taken from where the root re-exports it
    // from, over lines and in braces; the root's own items (`Game`) make no edge.
    let root = lines("pub mod spec;\npub use spec::{\n    GameSpec,\n    C4_MIN as MIN,\n};\npub use gomoku::Gomoku;\npub trait Game {}");
    let reexported: BTreeMap<_, _> = [(module(""), reexports("game/src/lib.rs", &root, &modules))].into();
    assert_eq!(
        reexported[&module("")],
        [("GameSpec", "spec"), ("C4_MIN", "spec"), ("Gomoku", "gomoku")].map(|(n, m)| (n.to_string(), module(m)))
    );
    let hex = imports(
        "game/src/hex.rs",
        &lines("use crate::{\n    Game,\n    GameSpec,\n};\nuse super::Game as G;"),
        &modules,
        &reexported,
    );
    assert_eq!(hex, vec![module("spec")]);
    let glob: std::collections::BTreeSet<_> =
        imports("game/src/hex.rs", &lines("use super::*;"), &modules, &reexported).into_iter().collect();
    assert_eq!(glob, [module("gomoku"), module("spec")].into());
    let spec = imports("game/src/spec.rs", &lines("games! { Hex(crate::hex::Hex) }"), &modules, &reexported);
    let edges: BTreeMap<_, _> =
        [(module("hex"), hex.into_iter().collect()), (module("spec"), spec.into_iter().collect())].into();
    assert_eq!(circles(&edges), vec![vec!["hex".to_string(), "spec".into()]]);
}

/// What ARCHITECTURE.md names that is not in this workspace: KataGo's folder it compares
/// `program/` with, and the upstream protos TensorBoard's are taken from.
const NOT_OURS: &[&str] = &["command/", "tensorboardX/proto/"];

/// The `code` spans of a markdown line.
/// The name of every file in the workspace, build outputs and git's own aside.
fn workspace_file_names(dir: &Path) -> std::collections::HashSet<String> {
    let mut names = std::collections::HashSet::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return names };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if entry.path().is_dir() {
            if !matches!(name.as_str(), "target" | ".git") {
                names.extend(workspace_file_names(&entry.path()));
            }
        } else {
            names.insert(name);
        }
    }
    names
}

fn code_spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

#[test]
fn every_path_and_crate_architecture_names_exists() {
    let root = workspace();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let tops: Vec<PathBuf> =
        std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    let manifests: String = tops.iter().filter_map(|d| std::fs::read_to_string(d.join("Cargo.toml")).ok()).collect();
    let file_names = workspace_file_names(&root);
    let mut missing = Vec::new();
    for (n, line) in text.lines().enumerate() {
        // A relative path is read against the root, a top folder (or its src/), or a folder
        // named earlier on its line (`game/src/` ... `gomoku/threats.rs`).
        let mut bases: Vec<PathBuf> = vec![root.clone()];
        bases.extend(tops.iter().flat_map(|d| [d.clone(), d.join("src")]));
        for span in code_spans(line) {
            // A URL's path (`/metrics`) is not a file, and a path above the checkout (`../`)
            // is not the workspace's (cli/tests/repo/docs.rs refuses any citation of one).
            let is_path = span.contains('/')
                && !span.starts_with('/')
                && !span.starts_with("../")
                && span.chars().all(|c| c.is_alphanumeric() || "_./-".contains(c));
            if is_path && !NOT_OURS.contains(&span) {
                match bases.iter().map(|b| b.join(span)).find(|p| p.exists()) {
                    Some(found) if found.is_dir() => bases.push(found),
                    Some(_) => {}
                    None => missing.push(format!("line {}: {span}", n + 1)),
                }
            }
            // A file named without its folder (`registry.rs`, `Cargo.toml`) is one beside a
            // folder named earlier on its line, or one somewhere in the workspace.
            let is_file_name = !span.contains('/')
                && [".rs", ".md", ".toml", ".sh"].iter().any(|e| span.ends_with(e) && span.len() > e.len())
                && span.chars().all(|c| c.is_alphanumeric() || "_.-".contains(c));
            if is_file_name && !bases.iter().any(|b| b.join(span).is_file()) && !file_names.contains(span) {
                missing.push(format!("line {}: {span}", n + 1));
            }
            let is_crate = span.starts_with("dojo-") && span.chars().all(|c| c.is_alphanumeric() || c == '-');
            if is_crate && !manifests.contains(&format!("name = \"{span}\"")) {
                missing.push(format!("line {}: crate {span}", n + 1));
            }
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md names what does not exist:\n{}", missing.join("\n"));
}

#[test]
fn the_scanner_measures_what_it_should() {
    let text = "fn short() {\n    let s = \"}\";\n    let c = '{';\n}\n\npub(crate) fn two<'a>(x: &'a str) -> &'a str {\n    // }\n    x\n}\ntrait T {\n    fn declared(&self);\n}\n";
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(functions(&lines), vec![("short".to_string(), 1, 4), ("two".to_string(), 6, 4)]);
    assert_eq!(declared_function("    pub const unsafe fn x() {"), Some("x"));
    assert_eq!(declared_function("    let f = |x| x; // fn y"), None);
}

/// The named games `games!` registers (`registry.rs`, after its `;`): (variant, path of the
/// type), e.g. ("Hex", "crate::hex::Hex").
fn named_games() -> Vec<(String, String)> {
    let spec = std::fs::read_to_string(workspace().join("game/src/registry.rs")).unwrap();
    let start = spec.find("\ngames! {").expect("registry.rs registers the games with games! { ... }");
    let list = &spec[start..][..spec[start..].find("\n}").unwrap()];
    let named = &list[list.find(';').expect("games! has named games after a ;") + 1..];
    named
        .lines()
        .filter_map(|line| line.trim().strip_suffix("),"))
        .filter_map(|entry| entry.split_once('('))
        .map(|(variant, path)| (variant.to_string(), path.to_string()))
        .collect()
}

#[test]
fn a_named_game_is_its_file_and_two_lines() {
    let named = named_games();
    assert!(named.iter().any(|(v, p)| v == "Hex" && p == "crate::hex::Hex"), "{named:?}");
    for (variant, path) in named {
        let module = path.strip_prefix("crate::").and_then(|p| p.split_once("::")).map(|m| m.0).unwrap();
        let own_file = format!("game/src/{module}.rs");
        let mut uses = Vec::new();
        for (file, lines) in sources() {
            for (number, line) in lines.iter().enumerate() {
                let code = code_of(line);
                let registration = (file == "game/src/lib.rs" && code.trim() == format!("pub mod {module};"))
                    || (file == "game/src/registry.rs" && code.trim() == format!("{variant}({path}),"));
                let named_here = code.contains(&format!("{module}::")) || code.contains(&format!("AnyGame::{variant}"));
                if file != own_file && !registration && named_here {
                    uses.push(format!("{file}:{}: {}", number + 1, line.trim()));
                }
            }
        }
        assert!(
            uses.is_empty(),
            "the named game {variant} should need nothing outside {own_file} but its two registration lines \
             (docs/new-game.md); these name it:\n{}",
            uses.join("\n")
        );
    }
}

/// The library sources (cli's aside): (path, lines before the test module).
fn library_sources() -> Vec<(String, Vec<String>)> {
    sources().into_iter().filter(|(file, _)| !file.starts_with("cli/")).collect()
}

/// The lines (1-based) of `lines` where a `Result<_, String>` starts, its arguments running
/// over however many lines, nested generics and all (`Result<Vec<(u8, u8)>, String>`).
fn string_results(lines: &[String]) -> Vec<usize> {
    let code: Vec<char> = lines.iter().map(|l| code_of(l)).collect::<Vec<_>>().join("\n").chars().collect();
    let opening: Vec<char> = "Result<".chars().collect();
    let mut found = Vec::new();
    let mut line = 1;
    for (i, &c) in code.iter().enumerate() {
        if c == '\n' {
            line += 1;
        }
        let word = i == 0 || !(code[i - 1].is_alphanumeric() || code[i - 1] == '_');
        if !word || !code[i..].starts_with(&opening) {
            continue;
        }
        let arguments = arguments(&code[i + opening.len()..]);
        if arguments.len() == 2 && ["String", "std::string::String"].contains(&arguments[1].as_str()) {
            found.push(line);
        }
    }
    found
}

/// The arguments (spaces taken out; a trailing comma aside) of the generic list that `text`
/// continues (just after its `<`).
fn arguments(text: &[char]) -> Vec<String> {
    let mut arguments = vec![String::new()];
    let mut depth = 1;
    let mut previous = ' ';
    for &c in text {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' if previous == '-' => {}
            '>' | ')' | ']' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            break;
        }
        if c == ',' && depth == 1 {
            arguments.push(String::new());
        } else {
            arguments.last_mut().expect("one at least").push(c);
        }
        previous = c;
    }
    arguments.iter().map(|a| a.split_whitespace().collect::<String>()).filter(|a| !a.is_empty()).collect()
}

#[test]
fn no_library_function_or_type_names_a_string_error() {
    let mut found = Vec::new();
    for (file, lines) in library_sources() {
        found.extend(string_results(&lines).iter().map(|line| format!("{file}:{line}: {}", lines[line - 1].trim())));
    }
    assert!(found.is_empty(), "Result<_, String> in library crates (return a thiserror type):\n{}", found.join("\n"));
}

#[test]
fn the_string_error_scanner_reads_signatures_over_several_lines() {
    let text = "fn a(\n    x: u8,\n) -> Result<\n    Vec<(u8, Option<u8>)>,\n    String,\n> {\n}\n\
                fn b(judge: impl FnMut(&G) -> Result<Option<(G, V)>, String>) {}\n\
                type C = std::result::Result<u8, std::string::String>;\n\
                fn fine() -> Result<String, Error> {}\n\
                fn fine_too() -> io::Result<String> {}\n\
                fn nor_this() -> Result<fn(u8) -> String, Error> {}\n\
                fn said() -> MyResult<u8, String> { let s = \"Result<u8, String>\"; } // Result<u8, String>\n";
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(string_results(&lines), vec![3, 8, 9]);
}

/// `line` without its comment (string literals kept, unlike [`code_of`]).
fn without_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'\'' if !in_string && bytes.get(i + 2) == Some(&b'\'') => i += 2,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

/// The mark that lets a `map_err` closure keep an error as text (on its lines or the three
/// before: its statement's start), followed by why: a foreign type that must travel as text (a gRPC status, a
/// worker's rejection).
const TEXT_CAUSE_MARK: &str = "tidy: text cause";

/// Whether `code` (strings blanked) builds a value by a type's name: `Name { .. }`,
/// `Name(..)` or `Name::..`.
fn constructs(code: &str) -> bool {
    let chars: Vec<char> = code.chars().collect();
    (0..chars.len()).any(|i| {
        let starts =
            chars[i].is_ascii_uppercase() && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'));
        let end = (i..chars.len()).find(|&j| !(chars[j].is_alphanumeric() || chars[j] == '_')).unwrap_or(chars.len());
        let rest: String = chars[end..].iter().collect::<String>();
        let rest = rest.trim_start();
        starts && (rest.starts_with('{') || rest.starts_with('(') || rest.starts_with("::"))
    })
}

/// The `map_err(|e| ..)` closures of `lines` that turn the error `e` into text
/// (`e.to_string()`, `{e}` in a format) and make a value of it (`Variant(..)`,
/// `Struct { .. }`), are that text (a `String` error) or pass it to a function (a closure
/// that builds the variant), the cause's type lost: (line
/// (1-based), the closure). Those marked with [`TEXT_CAUSE_MARK`] are left out.
fn text_causes(lines: &[String]) -> Vec<(usize, String)> {
    let text: Vec<char> = lines.iter().map(|l| without_comment(l)).collect::<Vec<_>>().join("\n").chars().collect();
    let call: Vec<char> = "map_err(".chars().collect();
    let mut found = Vec::new();
    // Whether each character is inside a string literal: a `map_err(` there is not a call.
    let mut quoted = Vec::with_capacity(text.len());
    let (mut inside, mut escaped) = (false, false);
    for &c in &text {
        quoted.push(inside);
        (inside, escaped) = match c {
            _ if escaped => (inside, false),
            '\\' if inside => (true, true),
            '"' => (!inside, false),
            _ => (inside, false),
        };
    }
    for i in (0..text.len()).filter(|&i| !quoted[i] && text[i..].starts_with(&call)) {
        let mut depth = 1;
        let end = (i + call.len()..text.len())
            .find(|&j| {
                match text[j] {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .unwrap_or(text.len());
        let closure: String = text[i + call.len()..end].iter().collect();
        let Some(rest) = closure.trim_start().trim_start_matches("move").trim_start().strip_prefix('|') else {
            continue;
        };
        let Some((param, body)) = rest.split_once('|') else { continue };
        let param = param.trim();
        if param.is_empty() || param == "_" || !param.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let texted = [format!("{param}.to_string()"), format!("{{{param}}}"), format!("{{{param}:")]
            .iter()
            .any(|t| body.contains(t.as_str()));
        let body = body.trim();
        let code = code_of(body);
        // Text made a `String` error, or handed to a function that builds one (`illegal(e.to_string())`).
        let string = body == format!("{param}.to_string()")
            || body.starts_with("format!(")
            || body.contains("(format!(")
            || body.contains(&format!("({param}.to_string())"));
        let first = text[..i].iter().filter(|&&c| c == '\n').count() + 1;
        let last = first + closure.matches('\n').count();
        let marked = lines[first.saturating_sub(4)..last].iter().any(|l| l.contains(TEXT_CAUSE_MARK));
        if texted && (string || constructs(&code)) && !marked {
            found.push((first, closure.split_whitespace().collect::<Vec<_>>().join(" ")));
        }
    }
    found
}

#[test]
fn no_library_error_keeps_its_cause_as_text() {
    let mut found = Vec::new();
    for (file, lines) in library_sources() {
        found.extend(
            text_causes(&lines).into_iter().map(|(line, closure)| format!("{file}:{line}: map_err({closure})")),
        );
    }
    assert!(
        found.is_empty(),
        "errors turned into text where the value could be kept (hold the error in the variant, or mark \
         `// {TEXT_CAUSE_MARK}: why`):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_text_cause_scanner_finds_flattened_errors() {
    let text = "let a = f().map_err(|e| Error::Read { path, error: e.to_string() })?;\n\
                let b = g().map_err(|e| {\n    Wrapped(format!(\"cannot: {e}\"))\n})?;\n\
                let c = h().map_err(|e| e.to_string())?;\n\
                let d = i().map_err(|e| format!(\"{e:#}\"))?;\n\
                let e = n().map_err(|e| at(line)(e.to_string()))?;\n\
                let kept = j().map_err(|error| Error::Read { path, error })?;\n\
                let logged = k().map_err(|e| tracing::warn!(\"{e}\"));\n\
                let anyhow = l().map_err(|_| Error::Gone)?;\n\
                // tidy: text cause: the wire carries text\n\
                let wire = m().map_err(|e| Status::internal(e.to_string()))?;\n\
                let said = \"map_err(|e| X(e.to_string()))\"; // map_err(|e| X(e.to_string()))\n";
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let lines_found: Vec<usize> = text_causes(&lines).into_iter().map(|(line, _)| line).collect();
    assert_eq!(lines_found, vec![1, 2, 5, 6, 7]);
}

/// File names any crate or folder may repeat: a crate's root, a folder's module, a crate's
/// error type (ARCHITECTURE.md: one name per thing, a crate's error.rs aside).
const STRUCTURAL_NAMES: &[&str] = &["lib.rs", "main.rs", "mod.rs", "error.rs"];

/// A file's module docs: its leading `//!` lines, joined.
fn module_docs(lines: &[String]) -> String {
    lines.iter().take_while(|l| l.starts_with("//!")).map(|l| l.trim_start_matches("//!")).collect::<Vec<_>>().join(" ")
}

/// The ways `other` may be named in another file's docs: its path in the repository, its
/// Rust path (`dojo_net::bench::agree`, the `dojo` binary's as `dojo::...`), or, from a file
/// of its own crate, `crate::...`.
fn names_of(other: &str, from: &str) -> Vec<String> {
    let (krate, parts) = module_of(other);
    let path = parts.join("::");
    let library = if krate == "cli" { "dojo".to_string() } else { format!("dojo_{krate}") };
    let mut names = vec![other.to_string(), format!("{library}::{path}")];
    if module_of(from).0 == krate {
        names.push(format!("crate::{path}"));
    }
    names
}

/// What breaks "one name per thing" in `files` (path, lines): a file name used three times or
/// more, or twice where the two files' module docs do not name each other (one concept in two
/// layers says so).
fn shared_names(files: &[(String, Vec<String>)]) -> Vec<String> {
    let mut by_name: std::collections::BTreeMap<&str, Vec<&(String, Vec<String>)>> = Default::default();
    for file in files {
        let name = file.0.rsplit('/').next().unwrap();
        if !STRUCTURAL_NAMES.contains(&name) {
            by_name.entry(name).or_default().push(file);
        }
    }
    let mut problems = Vec::new();
    for (name, same) in by_name {
        let paths: Vec<&str> = same.iter().map(|f| f.0.as_str()).collect();
        match same.as_slice() {
            [_] => {}
            [a, b] => {
                for (this, other) in [(a, b), (b, a)] {
                    let docs = module_docs(&this.1);
                    if !names_of(&other.0, &this.0).iter().any(|n| docs.contains(n.as_str())) {
                        problems.push(format!(
                            "{} shares its name with {}: rename one, or, if they are one concept in two \
                             layers, say so in its module docs naming {}",
                            this.0,
                            other.0,
                            names_of(&other.0, &this.0).join(" or ")
                        ));
                    }
                }
            }
            _ => problems.push(format!("{name} is the name of {} files: {}", paths.len(), paths.join(", "))),
        }
    }
    problems
}

#[test]
fn a_file_name_is_one_thing() {
    let problems = shared_names(&sources());
    assert!(problems.is_empty(), "one name per thing (ARCHITECTURE.md):\n{}", problems.join("\n"));
}

#[test]
fn the_name_check_finds_a_name_used_for_two_things() {
    let file = |path: &str, docs: &str| (path.to_string(), docs.lines().map(str::to_string).collect::<Vec<_>>());
    let paired = [
        file("net/src/agent.rs", "//! A network as a player, as `dojo_ntuple::agent` is.\nuse x;"),
        file("ntuple/src/agent.rs", "//! One concept with `net/src/agent.rs`."),
    ];
    assert!(shared_names(&paired).is_empty());
    let unpaired = [file("net/src/agent.rs", "//! A network as a player."), paired[1].clone()];
    let problems = shared_names(&unpaired);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("net/src/agent.rs shares its name with ntuple/src/agent.rs"));
    let three = [paired[0].clone(), paired[1].clone(), file("search/src/agent.rs", "//! x")];
    assert_eq!(
        shared_names(&three),
        vec!["agent.rs is the name of 3 files: net/src/agent.rs, ntuple/src/agent.rs, search/src/agent.rs"]
    );
    // Within a crate, `crate::` names the other; a crate's error.rs is never a problem.
    let in_crate = [
        file("arbiter/src/contest.rs", "//! Its tournament side is `crate::tournament::contest`."),
        file("arbiter/src/tournament/contest.rs", "//! Each contest ([`crate::contest`])."),
        file("a/src/error.rs", ""),
        file("b/src/error.rs", ""),
    ];
    assert!(shared_names(&in_crate).is_empty(), "{:?}", shared_names(&in_crate));
}
