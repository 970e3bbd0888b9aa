//! The docs keep their promises, checked against the built `dojo` and the checkout:
//!
//! - every `dojo SUBCOMMAND [SUB2] --flag` and `scripts/NAME --flag` a guide shows (in a code
//!   block or inline code) is a flag of that command's `--help` (`scripts/dojo X` is
//!   `dojo X`). Guides are README.md, ARCHITECTURE.md, networks/README.md and docs/**/*.md
//!   outside docs/records/: records are dated history and keep the spellings of their day;
//! - every relative link and `#anchor` in every `.md` of the repository resolves (anchors by
//!   GitHub's heading slugs);
//! - no file of the repository cites a file outside it (a path into the folder beside the
//!   checkout);
//! - the guides in docs/ (records aside) stay short: at most [`MAX_GUIDE_LINES`] lines each
//!   and [`MAX_GUIDES_LINES`] in all.
//!
//! Each failure names the file, the line and what is wrong.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const MAX_GUIDE_LINES: usize = 300;
const MAX_GUIDES_LINES: usize = 2000;

/// `scripts/dojo` subcommands that the binary of this checkout does not have yet, shown in
/// the guides all the same: `install` (issue 74's one install) is added beside this check.
const NOT_IN_THIS_BINARY: &[&str] = &["install"];

/// Scripts whose `--help` is broken, so their flags are not checked (none today;
/// `scripts/strength-30m --help` prints stray lines of its source, but its flags too).
const BROKEN_SCRIPT_HELP: &[&str] = &[];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("cli sits in the workspace").to_path_buf()
}

// ---------------------------------------------------------------- markdown

/// A piece of a markdown file that may show a command: a code block's line (continuations
/// joined, the shell comment cut) or one inline code span, with its 1-based line.
struct Code {
    line: usize,
    text: String,
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// The code of a markdown file: shell-like code blocks (no language, sh, bash, shell,
/// console) line by line, and every inline code span outside code blocks.
fn code_of(markdown: &str) -> Vec<Code> {
    let mut out = Vec::new();
    let mut fence: Option<bool> = None; // Some(whether the block is shell)
    let mut pending: Option<Code> = None;
    for (n, line) in markdown.lines().enumerate() {
        if is_fence(line) {
            fence = match fence {
                Some(_) => None,
                None => {
                    let lang = line.trim_start().trim_start_matches(['`', '~']).trim();
                    Some(matches!(lang, "" | "sh" | "bash" | "shell" | "console"))
                }
            };
            continue;
        }
        match fence {
            Some(true) => {
                let text = strip_shell_comment(line);
                let piece = match pending.take() {
                    Some(mut p) => {
                        p.text.push(' ');
                        p.text.push_str(text);
                        p
                    }
                    None => Code { line: n + 1, text: text.to_string() },
                };
                if piece.text.trim_end().ends_with('\\') {
                    let trimmed = piece.text.trim_end().trim_end_matches('\\').to_string();
                    pending = Some(Code { line: piece.line, text: trimmed });
                } else {
                    out.push(piece);
                }
            }
            Some(false) => {}
            None => out.extend(code_spans(line).into_iter().map(|s| Code { line: n + 1, text: s.to_string() })),
        }
    }
    out.extend(pending);
    out
}

fn code_spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// A shell line without its comment (a `#` at the start or after a blank).
fn strip_shell_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'#' && (i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t') {
            return &line[..i];
        }
    }
    line
}

/// What runs a shown command: the dojo binary or a script of `scripts/`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Program {
    Dojo,
    Script(String),
}

/// A command as shown: its program and the words after it, up to where the command ends.
#[derive(Debug)]
struct Shown {
    line: usize,
    program: Program,
    words: Vec<String>,
}

/// Where a shell command ends: a pipe, a list operator, a redirection, or `--` (what
/// follows it goes to another command).
fn ends_command(word: &str) -> bool {
    matches!(word, "|" | "||" | "&&" | ";" | "&" | ">" | ">>" | "2>" | "2>&1" | "<" | "--" | "$" | "then" | "do")
}

/// The program a word names, if any: `dojo`, `scripts/dojo`, `~/.local/bin/dojo`,
/// `"pbrain:dojo` (a player spec's command), `scripts/NAME`.
fn program_of(word: &str, scripts: &BTreeSet<String>) -> Option<Program> {
    let word = word.trim_start_matches(['"', '\'', '(', '$', '[']);
    if word == "dojo" || word.ends_with("/dojo") || word.ends_with(":dojo") {
        return Some(Program::Dojo);
    }
    let name = word.strip_prefix("scripts/").or_else(|| word.split_once("/scripts/").map(|(_, n)| n))?;
    scripts.contains(name).then(|| Program::Script(name.to_string()))
}

/// Every command a piece of code shows.
fn commands_in(code: &Code, scripts: &BTreeSet<String>) -> Vec<Shown> {
    let words: Vec<&str> = code.text.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        // `kubectl -n dojo …`: a bare `dojo` that is an option's value names no program.
        let a_value = words[i] == "dojo" && i > 0 && words[i - 1].starts_with('-');
        let Some(program) = program_of(words[i], scripts).filter(|_| !a_value) else {
            i += 1;
            continue;
        };
        // A command quoted as a player spec ends where its quote closes.
        let quote = words[i].chars().next().filter(|c| *c == '"' || *c == '\'');
        let mut taken = Vec::new();
        let mut j = i + 1;
        while j < words.len() && !ends_command(words[j]) && program_of(words[j], scripts).is_none() {
            let word = words[j];
            let closes = quote.is_some_and(|q| word.ends_with(q));
            taken.push(word.trim_end_matches(['"', '\'', ')', ';']).to_string());
            j += 1;
            if closes || word.ends_with(';') || word.ends_with(')') {
                break;
            }
        }
        out.push(Shown { line: code.line, program, words: taken });
        i = j;
    }
    out
}

/// A word's flag (`--sims` of `--sims`, `[--sims`, `--sims=200` or `--playouts|--sims`).
fn flag_of(word: &str) -> Option<String> {
    let word = word.trim_start_matches(['[', '(', '{']);
    let rest = word.strip_prefix("--")?;
    let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    (!name.is_empty() && name.starts_with(|c: char| c.is_ascii_alphanumeric())).then(|| format!("--{name}"))
}

fn is_word(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_lowercase())
        && word.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

// ---------------------------------------------------------------- help

/// What a command's `--help` says: its flags and its subcommands.
#[derive(Clone, Default)]
struct Help {
    flags: BTreeSet<String>,
    subcommands: BTreeSet<String>,
}

impl Help {
    fn parse(text: &str) -> Help {
        let mut help = Help::default();
        for word in text.split(|c: char| c.is_whitespace() || ",[]()`'\"|=<>".contains(c)) {
            if let Some(flag) = flag_of(word) {
                help.flags.insert(flag);
            }
        }
        let mut in_commands = false;
        for line in text.lines() {
            if line.trim_end() == "Commands:" {
                in_commands = true;
            } else if in_commands && line.trim().is_empty() {
                in_commands = false;
            } else if in_commands {
                if let Some(name) = line.split_whitespace().next() {
                    help.subcommands.insert(name.to_string());
                }
            }
        }
        help
    }
}

/// Checks the flags of one shown command, asking `help` for what a command line's `--help`
/// says (`None`: there is no such command). Returns what is wrong, for the caller to place.
fn check_shown(shown: &Shown, help: &mut dyn FnMut(&Program, &[String]) -> Option<Help>) -> Vec<String> {
    let mut path: Vec<String> = Vec::new();
    let mut rest = shown.words.as_slice();
    let name = |path: &[String]| match &shown.program {
        Program::Dojo => format!("dojo {}", path.join(" ")).trim_end().to_string(),
        Program::Script(s) => format!("scripts/{s} {}", path.join(" ")).trim_end().to_string(),
    };
    if let Program::Script(s) = &shown.program {
        // A script shown without flags is only named (it exists: `program_of` saw it).
        if BROKEN_SCRIPT_HELP.contains(&s.as_str()) || !rest.iter().any(|w| flag_of(w).is_some()) {
            return vec![];
        }
    }
    if shown.program == Program::Dojo {
        // `dojo` alone, or a cargo line's `-p dojo --test …`, shows no subcommand.
        let Some(first) = rest.first().filter(|w| is_word(w)) else { return vec![] };
        if NOT_IN_THIS_BINARY.contains(&first.as_str()) {
            return vec![];
        }
        path.push(first.clone());
        rest = &rest[1..];
    }
    let Some(mut said) = help(&shown.program, &path) else {
        return vec![match shown.program {
            Program::Dojo => format!("`{}`: no such command (its --help fails)", name(&path)),
            Program::Script(_) => format!("`{}`: answers no --help, so its flags cannot be checked", name(&path)),
        }];
    };
    if let Some(second) = rest.first().filter(|w| said.subcommands.contains(w.as_str())) {
        path.push(second.clone());
        rest = &rest[1..];
        match help(&shown.program, &path) {
            Some(h) => said = h,
            None => return vec![format!("`{}`: no such command (its --help fails)", name(&path))],
        }
    }
    rest.iter()
        .filter_map(|w| flag_of(w))
        .filter(|f| !said.flags.contains(f))
        .map(|f| format!("`{} {f}`: `{} --help` has no {f}", name(&path), name(&path)))
        .collect()
}

/// Runs a command for its `--help` (at most 60 s), giving its output when it succeeds, or
/// whatever its exit status where `any_status` (a script's usage may exit 2).
fn run_help(mut command: Command, any_status: bool) -> Option<String> {
    let mut child =
        command.arg("--help").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().ok()?;
    let started = Instant::now();
    loop {
        if child.try_wait().ok()?.is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout).to_string() + &String::from_utf8_lossy(&output.stderr);
    (output.status.success() || any_status && !text.trim().is_empty()).then_some(text)
}

/// `--help` of the built dojo and of the scripts, asked once a command line.
struct HelpCache {
    root: PathBuf,
    seen: HashMap<(Program, Vec<String>), Option<Help>>,
}

impl HelpCache {
    fn help(&mut self, program: &Program, path: &[String]) -> Option<Help> {
        let key = (program.clone(), path.to_vec());
        if let Some(h) = self.seen.get(&key) {
            return h.clone();
        }
        let said = match program {
            Program::Dojo => {
                let mut command = Command::new(env!("CARGO_BIN_EXE_dojo"));
                command.args(path);
                run_help(command, false)
            }
            Program::Script(name) => self.script_help(name),
        };
        let help = said.map(|text| Help::parse(&text));
        self.seen.insert(key, help.clone());
        help
    }

    /// A script's `--help`, run only where the script answers it (its text handles
    /// `--help`, or it is Python's argparse): another script would run for real.
    fn script_help(&self, name: &str) -> Option<String> {
        let path = self.root.join("scripts").join(name);
        let text = std::fs::read_to_string(&path).ok()?;
        if !(text.contains("--help") || text.contains("argparse")) {
            return None;
        }
        let mut command = Command::new(&path);
        command.current_dir(&self.root).env("DOJO_BIN", env!("CARGO_BIN_EXE_dojo"));
        run_help(command, true)
    }
}

// ---------------------------------------------------------------- links

/// GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, `-`
/// and `_` kept), each blank a `-`.
fn slug(heading: &str) -> String {
    let text = strip_links(&heading.replace('`', ""));
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// `[text](target)` as `text`.
fn strip_links(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](") else { break };
        let Some(close) = rest[open + mid..].find(')') else { break };
        out.push_str(&rest[..open]);
        out.push_str(&rest[open + 1..open + mid]);
        rest = &rest[open + mid + close + 1..];
    }
    out.push_str(rest);
    out
}

/// The anchors a markdown file's headings make (a repeated one gets `-1`, `-2`, …).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if is_fence(line) {
            fenced = !fenced;
            continue;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if fenced || !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let s = slug(&line[hashes..]);
        let n = counts.entry(s.clone()).or_insert(0);
        out.insert(if *n == 0 { s.clone() } else { format!("{s}-{n}") });
        *n += 1;
    }
    out
}

/// The relative link targets of a markdown file, with their lines: `](target)` outside code.
fn links(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in markdown.lines().enumerate() {
        if is_fence(line) {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Outside inline code: the even pieces between backticks.
        for prose in line.split('`').step_by(2) {
            let mut rest = prose;
            while let Some(at) = rest.find("](") {
                rest = &rest[at + 2..];
                let target: String = rest.chars().take_while(|c| *c != ')' && !c.is_whitespace()).collect();
                let external = target.contains("://") || target.starts_with("mailto:");
                if !target.is_empty() && !external {
                    out.push((n + 1, target));
                }
            }
        }
    }
    out
}

/// `base/../x` as `x`; `None` where the path climbs out of the repository.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// What a link may point at, as the checker sees the repository.
enum Target {
    Missing,
    Other,
    Markdown(String),
}

/// Checks one markdown file's links; `file` is its path from the repository's root.
fn check_links(file: &Path, markdown: &str, target: &dyn Fn(&Path) -> Target) -> Vec<String> {
    let mut wrong = Vec::new();
    for (line, link) in links(markdown) {
        let (path, anchor) = match link.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (link.as_str(), None),
        };
        let at = format!("{}:{line}", file.display());
        let resolved = if path.is_empty() {
            Some(file.to_path_buf())
        } else {
            normalise(&file.parent().unwrap_or(Path::new("")).join(path))
        };
        let Some(resolved) = resolved else {
            wrong.push(format!("{at}: link `{link}` leads out of the repository"));
            continue;
        };
        let text = match target(&resolved) {
            Target::Missing => {
                wrong.push(format!("{at}: link `{link}`: {} does not exist", resolved.display()));
                continue;
            }
            Target::Other => None,
            Target::Markdown(text) => Some(text),
        };
        if let (Some(anchor), Some(text)) = (anchor, text) {
            if !anchors(&text).contains(anchor) {
                wrong.push(format!(
                    "{at}: link `{link}`: {} has no heading with the anchor #{anchor}",
                    resolved.display()
                ));
            }
        }
    }
    wrong
}

// ---------------------------------------------------------------- the repository

/// The repository's files (tracked, or new and not ignored), from its root.
fn repository_files(root: &Path) -> Vec<PathBuf> {
    let output = Command::new("git")
        .args(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        .current_dir(root)
        .output()
        .expect("git lists the repository's files");
    assert!(output.status.success(), "git ls-files failed: {}", String::from_utf8_lossy(&output.stderr));
    let mut files: Vec<PathBuf> = output
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| PathBuf::from(String::from_utf8_lossy(p).to_string()))
        .filter(|p| root.join(p).is_file())
        .collect();
    files.sort();
    files.dedup();
    files
}

fn is_markdown(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "md")
}

fn is_record(path: &Path) -> bool {
    path.starts_with("docs/records")
}

/// The guides whose commands are checked.
fn is_guide(path: &Path) -> bool {
    let named = ["README.md", "ARCHITECTURE.md", "networks/README.md"].iter().any(|g| path == Path::new(g));
    named || (path.starts_with("docs") && is_markdown(path) && !is_record(path))
}

fn read(root: &Path, path: &Path) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn scripts(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root.join("scripts"))
        .expect("scripts/ exists")
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect()
}

fn fail_with(what: &str, wrong: &[String]) {
    assert!(wrong.is_empty(), "{what} ({}):\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn every_flag_a_guide_shows_is_in_its_commands_help() {
    let root = workspace();
    let scripts = scripts(&root);
    let mut cache = HelpCache { root: root.clone(), seen: HashMap::new() };
    let mut wrong = Vec::new();
    for file in repository_files(&root).into_iter().filter(|f| is_guide(f)) {
        let text = read(&root, &file);
        for code in code_of(&text) {
            for shown in commands_in(&code, &scripts) {
                let mut ask = |p: &Program, path: &[String]| cache.help(p, path);
                for what in check_shown(&shown, &mut ask) {
                    wrong.push(format!("{}:{}: {what}", file.display(), shown.line));
                }
            }
        }
    }
    fail_with("flags the guides show that their commands do not have", &wrong);
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let root = workspace();
    let target = |path: &Path| {
        let full = root.join(path);
        if !full.exists() {
            Target::Missing
        } else if is_markdown(path) && full.is_file() {
            Target::Markdown(read(&root, path))
        } else {
            Target::Other
        }
    };
    let mut wrong = Vec::new();
    for file in repository_files(&root).into_iter().filter(|f| is_markdown(f)) {
        wrong.extend(check_links(&file, &read(&root, &file), &target));
    }
    fail_with("links that do not resolve", &wrong);
}

#[test]
fn no_file_cites_a_file_outside_the_repository() {
    let root = workspace();
    // Spelt in pieces, so that this file does not cite it either.
    let beside = ["..", "shared", ""].join("/");
    let mut wrong = Vec::new();
    for file in repository_files(&root) {
        let Ok(text) = std::fs::read_to_string(root.join(&file)) else { continue }; // binary
        for (n, line) in text.lines().enumerate() {
            if line.contains(&beside) {
                wrong.push(format!(
                    "{}:{}: cites {beside}…, outside the repository: {}",
                    file.display(),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    fail_with("citations of files outside the repository", &wrong);
}

#[test]
fn guides_stay_short() {
    let root = workspace();
    let mut wrong = Vec::new();
    let mut total = 0;
    for file in repository_files(&root).into_iter().filter(|f| f.starts_with("docs") && is_guide(f)) {
        let lines = read(&root, &file).lines().count();
        total += lines;
        if lines > MAX_GUIDE_LINES {
            wrong.push(format!(
                "{}: {lines} lines, over {MAX_GUIDE_LINES}: move its dated measurements to docs/records/",
                file.display()
            ));
        }
    }
    if total > MAX_GUIDES_LINES {
        wrong.push(format!("the guides in docs/ hold {total} lines, over {MAX_GUIDES_LINES}"));
    }
    fail_with("guides too long", &wrong);
}

// ---------------------------------------------------------------- the checker itself

/// A help table for the checker's own tests: `dojo match` and `dojo bench net`.
fn fake_help(program: &Program, path: &[String]) -> Option<Help> {
    let text = match (program, path.iter().map(String::as_str).collect::<Vec<_>>().as_slice()) {
        (Program::Dojo, ["match"]) => "Options:\n  --a <A>\n  --b <B>\n  --games <N>\n",
        (Program::Dojo, ["bench"]) => "Commands:\n  net  the forward pass\n\nOptions:\n  --json\n",
        (Program::Dojo, ["bench", "net"]) => "Options:\n  --batches <LIST>\n",
        (Program::Script(s), []) if s == "ladder" => "usage: scripts/ladder RUN [--rungs LIST]\n",
        _ => return None,
    };
    Some(Help::parse(text))
}

fn flag_errors(markdown: &str) -> Vec<String> {
    let scripts: BTreeSet<String> = ["dojo", "ladder"].iter().map(|s| s.to_string()).collect();
    let mut ask = |p: &Program, path: &[String]| fake_help(p, path);
    code_of(markdown)
        .iter()
        .flat_map(|code| commands_in(code, &scripts).into_iter().map(move |s| (code.line, s)))
        .flat_map(|(line, shown)| check_shown(&shown, &mut ask).into_iter().map(move |w| format!("{line}: {w}")))
        .collect()
}

#[test]
fn the_flag_check_catches_a_flag_a_command_lacks() {
    let markdown = "# Guide\n\n```sh\nscripts/dojo match --a random --b mcts:10 \\\n  --gamez 4   # a typo\n\
                    dojo bench net --batches 1,8 --json | tee out\nscripts/ladder runs/x --rungs 1,10 --pairz 2\n```\n\n\
                    Inline: `dojo match --games 2` and `dojo mach --a x`; `cargo test -p dojo --test tidy`; \
                    `kubectl -n dojo scale --replicas=3`.\n";
    assert_eq!(
        flag_errors(markdown),
        vec![
            "4: `dojo match --gamez`: `dojo match --help` has no --gamez",
            "6: `dojo bench net --json`: `dojo bench net --help` has no --json",
            "7: `scripts/ladder --pairz`: `scripts/ladder --help` has no --pairz",
            "10: `dojo mach`: no such command (its --help fails)",
        ]
    );
    // What follows `--` or a pipe belongs to another command.
    assert!(flag_errors("`dojo match --a x -- --anything`, `dojo match --a x | grep --count`").is_empty());
}

#[test]
fn the_link_check_catches_a_missing_file_and_anchor() {
    let markdown = "See [a](a.md#two-hours-on-1515-dojo-train-2026-12-05), [b](a.md#notes-1), ![i](img.png),\n\
                    [gone](b.md), [anchor](a.md#three-hours), [up](../../x.md), [web](https://example.com/x.md),\n\
                    [here](#a-guide), [there](#elsewhere) and `[code](not-a-link.md)`.\n# A guide\n";
    let files: HashMap<PathBuf, &str> = [
        (
            PathBuf::from("docs/a.md"),
            "# A guide\n\n## Two hours on 15×15: `dojo train` (2026-12-05)\n\n## Notes\n## Notes\n",
        ),
        (PathBuf::from("docs/img.png"), ""),
        (PathBuf::from("docs/guide.md"), markdown),
    ]
    .into_iter()
    .collect();
    let target = |p: &Path| match files.get(p) {
        None => Target::Missing,
        Some(_) if !is_markdown(p) => Target::Other,
        Some(text) => Target::Markdown(text.to_string()),
    };
    assert_eq!(
        check_links(Path::new("docs/guide.md"), markdown, &target),
        vec![
            "docs/guide.md:2: link `b.md`: docs/b.md does not exist",
            "docs/guide.md:2: link `a.md#three-hours`: docs/a.md has no heading with the anchor #three-hours",
            "docs/guide.md:2: link `../../x.md` leads out of the repository",
            "docs/guide.md:3: link `#elsewhere`: docs/guide.md has no heading with the anchor #elsewhere",
        ]
    );
}
