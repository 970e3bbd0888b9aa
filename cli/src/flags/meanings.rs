//! The rule of issue 74, kept: every long flag of every subcommand is in [`MEANINGS`], one
//! row a name, and one row a meaning. A flag a command gains must be classified here: a
//! name that means something else elsewhere, or a second name for a meaning that has one,
//! fails the test below.

use super::{Now, RENAMED};
use std::collections::{BTreeMap, BTreeSet};

/// Where a network runs and with how many libtorch threads (`DeviceArgs`).
const DEVICE: &[&str] = &[
    "play",
    "pbrain",
    "eval",
    "bestmove",
    "selfplay",
    "learn",
    "init",
    "worker",
    "bench net",
    "bench selfplay",
    "bench train",
    "bench agree",
];

/// A playing network's search (`PlayArgs`).
const PLAYERS: &[&str] = &["play", "pbrain", "eval", "bestmove"];

/// A benchmark's network: a checkpoint or a random one of a shape (`NetChoice`).
const BENCH_NET: &[&str] = &["bench net", "bench selfplay", "bench train", "bench agree"];

/// A row: the flag (without `--`), what it means, and the subcommands that take it
/// (`""`: `dojo` itself; a group's commands are added by [`rows`]).
type Row = (&'static str, &'static str, &'static [&'static str]);

const MEANINGS: &[Row] = &[
    ("log-format", "how log lines are written (text or JSON)", &[""]),
    (
        "model",
        "the network file the command uses (a checkpoint; n-tuple weights in ntuple play)",
        &[
            "play",
            "pbrain",
            "eval",
            "bestmove",
            "selfplay",
            "learn",
            "export saiblo",
            "export gomocup",
            "ntuple play",
            "bench net",
            "bench selfplay",
            "bench train",
            "bench agree",
        ],
    ),
    ("start-from", "the network a new run starts from (its first version)", &["train", "learner"]),
    ("device", "where the network runs (cpu, cuda, cuda:N)", &["train", "learner"]),
    ("threads", "libtorch threads of this process", &[]),
    (
        "parallel",
        "games played at once",
        &["match", "tournament", "gate", "ntuple play", "selfplay", "worker", "bench selfplay"],
    ),
    (
        "playouts",
        "playouts (search simulations) a move",
        &["selfplay", "tournament", "bench search", "bench selfplay", "export saiblo", "export gomocup"],
    ),
    (
        "fast-playouts",
        "playouts of self-play's fast searches (playout cap randomisation)",
        &["selfplay", "bench selfplay"],
    ),
    ("max-playouts", "a cap on playouts a move under a time limit", &["pbrain"]),
    ("c-puct", "PUCT's exploration constant", &["selfplay"]),
    ("mode", "the search: puct or gumbel", &[]),
    ("vcf-nodes", "the threat-space search's nodes at every expanded position", &["selfplay"]),
    ("set", "a config setting, SECTION.KEY=VALUE", &["init", "selfplay", "learn", "export saiblo", "export gomocup"]),
    (
        "no-average",
        "evaluate the board as it stands instead of averaging over its symmetries",
        &["play", "pbrain", "eval", "bestmove"],
    ),
    ("average-by-the-clock", "average over the symmetries under a time limit too", &["pbrain"]),
    ("forced-visits", "self-play's forced root visits", &["selfplay"]),
    ("nonroot-noise", "self-play's noise at non-root nodes", &["selfplay"]),
    ("temperature-moves", "plies played at temperature 1", &["selfplay"]),
    ("resign-threshold", "the value below which self-play resigns", &["selfplay"]),
    ("full-search-fraction", "the share of moves given the full search", &["selfplay", "bench selfplay"]),
    ("random-opening-plies", "uniformly random plies opening each self-play game", &["selfplay"]),
    (
        "precision",
        "the number format the network computes in (auto, f32, bf16, f16)",
        &["selfplay", "worker", "bench net", "bench selfplay", "bench train", "bench agree"],
    ),
    (
        "game",
        "the game (board) played",
        &[
            "train",
            "config",
            "match",
            "tournament",
            "init",
            "eval",
            "bestmove",
            "play",
            "positions",
            "solve",
            "ntuple train",
            "bench net",
            "bench selfplay",
            "bench train",
            "bench agree",
            "bench search",
        ],
    ),
    ("games", "a number of games", &["match", "selfplay", "worker", "ntuple play", "bench ingest"]),
    ("records", "records files of played games (dojo selfplay --out)", &["learn", "positions"]),
    ("positions", "a file of positions (dojo positions --out)", &["eval"]),
    ("count", "how many positions", &["positions", "bench agree"]),
    (
        "out",
        "where the command writes its output",
        &["init", "selfplay", "learn", "positions", "plot", "export saiblo", "export gomocup", "ntuple train"],
    ),
    (
        "seed",
        "the random seed",
        &[
            "worker",
            "match",
            "tournament",
            "init",
            "selfplay",
            "learn",
            "positions",
            "play",
            "ntuple train",
            "ntuple play",
            "bench selfplay",
            "bench agree",
        ],
    ),
    (
        "json",
        "print JSON instead of a table",
        &[
            "match",
            "tournament",
            "solve",
            "eval",
            "ntuple play",
            "bench net",
            "bench selfplay",
            "bench search",
            "bench ingest",
            "bench train",
            "bench agree",
        ],
    ),
    ("config", "a run config file (TOML)", &["train", "learner", "init", "selfplay", "learn"]),
    ("run-dir", "the run directory", &["train", "learner", "gate", "tournament", "plot"]),
    ("steps", "training steps", &["train", "learner", "learn"]),
    ("workers", "worker processes", &["train"]),
    ("for", "how long to train", &["train"]),
    ("listen", "the address gRPC is served on", &["train", "learner"]),
    ("http", "the address HTTP (dashboard, metrics, probes) is served on", &["train", "learner", "worker"]),
    ("grace-period", "seconds a stop may take", &["learner", "worker"]),
    ("token", "the cluster's shared secret", &["learner", "worker"]),
    ("token-file", "a file holding the cluster's shared secret", &["learner", "worker"]),
    ("tls-cert", "the learner's TLS certificate", &["learner"]),
    ("tls-key", "the learner's TLS private key", &["learner"]),
    ("tls-ca", "the CA a learner's certificate must chain to", &["worker"]),
    ("insecure", "serve a non-loopback address without a token", &["learner"]),
    ("max-streams", "upload streams served at once", &["learner"]),
    ("max-stream-games", "games one upload stream may carry", &["learner"]),
    ("ingest-queue-mib", "MiB of received games waiting to be stored", &["learner"]),
    ("learner", "the learner's address", &["worker"]),
    ("spool", "where a worker's unsent games wait", &["worker"]),
    ("model-poll", "seconds between checks for a newer model", &["worker"]),
    ("blocks", "residual blocks of a network", &["init"]),
    ("channels", "filters per convolution of a network", &["init"]),
    ("policy-head", "a network's policy head (auto, fc, conv)", &["init"]),
    ("batch", "positions per training batch", &["learn", "bench train"]),
    ("optimizer", "the update rule (sgd, adam)", &["learn", "bench train"]),
    ("lr", "the learning rate", &["learn"]),
    ("weight-decay", "L2 regularisation", &["learn"]),
    ("late-factor", "late-position weighting factor", &["learn"]),
    ("no-augment", "train without random symmetries", &["learn"]),
    ("search-value-weight", "the search value's weight in the value target", &["learn"]),
    ("watch", "keep going as the learner publishes", &["gate"]),
    ("every", "with --watch: gate every N new versions", &["gate"]),
    ("a", "player A", &["match"]),
    ("b", "player B", &["match"]),
    ("opening-plies", "random plies opening each pair of games", &["match", "tournament"]),
    ("openings", "a book of openings", &["match", "tournament"]),
    ("move-timeout-ms", "an external player's time a move, in milliseconds", &["match", "tournament"]),
    ("verbose", "also print every game's moves", &["match"]),
    ("name", "the name of what the command makes (a tournament, a brain)", &["tournament", "export gomocup"]),
    ("players", "a tournament's players besides the run's checkpoints", &["tournament"]),
    ("every-nth-version", "the run's versions that play: every K-th", &["tournament"]),
    ("newest-version", "the run's newest version plays", &["tournament"]),
    ("clock", "the time a network searches each move (1s, 250ms)", &["tournament"]),
    ("games-per-pair", "games per pairing of a tournament", &["tournament"]),
    ("format", "a tournament's format (round-robin, gauntlet)", &["tournament"]),
    ("reference", "a gauntlet's reference players", &["tournament"]),
    ("anchor", "the player whose rating is fixed", &["tournament"]),
    ("anchor-elo", "the anchor's rating", &["tournament"]),
    ("choose-best", "promote the top-rated checkpoint", &["tournament"]),
    ("mistakes", "name each side's first mistake in finished games", &["solve"]),
    ("budget-nodes", "the solver's nodes a position", &["solve", "positions"]),
    ("total-nodes", "the solver's nodes in all", &["positions"]),
    ("min-moves", "the fewest moves played", &["positions"]),
    ("max-moves", "the most moves played", &["positions"]),
    ("tactics", "only positions with a one-move tactic", &["positions"]),
    ("pons", "labelled positions in Pons' categories", &["positions"]),
    ("per-category", "the most positions a category", &["positions"]),
    ("mover", "what plays the graded move", &["eval"]),
    ("policy", "the raw policy plays the graded move", &["eval"]),
    ("first", "who moves first", &["play"]),
    ("service", "the gRPC service asked about", &["health"]),
    ("timeout", "seconds to wait for an answer", &["health"]),
    ("episodes", "training episodes in all", &["ntuple train"]),
    ("tcl", "temporal coherence learning", &["ntuple train"]),
    ("alpha", "the n-tuple learning rate", &["ntuple train"]),
    ("report-every", "episodes between reports", &["ntuple train"]),
    ("depth", "player moves an n-tuple search looks ahead", &["ntuple play"]),
    ("move-ms", "an exported engine's milliseconds a move", &["export saiblo", "export gomocup"]),
    ("no-build", "write the source only", &["export saiblo", "export gomocup"]),
    ("check", "positions an exported engine is checked on", &["export saiblo", "export gomocup"]),
    ("targets", "the systems an exported engine is built for", &["export gomocup"]),
    ("batches", "batch sizes to time", &["bench net"]),
    ("millis", "milliseconds a measurement runs", &["bench net", "bench search", "bench train"]),
    ("seconds", "seconds a measurement runs", &["bench selfplay", "bench ingest"]),
    ("matmul-size", "the reference multiply's matrix side", &["bench net", "bench selfplay"]),
    ("clients", "concurrent clients", &["bench ingest"]),
    ("games-per-call", "games per SubmitGames call", &["bench ingest"]),
    ("rate", "games a second each client sends", &["bench ingest"]),
];

/// The groups' flags, and the subcommands each group's commands add to a row.
const GROUPS: &[(&[&str], &[&str])] = &[
    (DEVICE, &["device", "threads"]),
    (PLAYERS, &["playouts", "c-puct", "mode", "vcf-nodes", "set"]),
    (BENCH_NET, &["game", "blocks", "channels", "policy-head"]),
];

/// Every row's subcommands, the groups' included: flag -> (meaning, subcommands); an
/// error where a name has two rows (two meanings) or a meaning two names.
fn rows(table: &[Row]) -> Result<BTreeMap<&'static str, (&'static str, BTreeSet<&'static str>)>, String> {
    let mut rows = BTreeMap::new();
    let mut names = BTreeMap::new();
    for (flag, meaning, commands) in table {
        if rows.insert(*flag, (*meaning, commands.iter().copied().collect::<BTreeSet<_>>())).is_some() {
            return Err(format!("--{flag} has two rows: two meanings for one name"));
        }
        if let Some(other) = names.insert(*meaning, *flag) {
            return Err(format!("--{other} and --{flag} both mean {meaning:?}: two names for one meaning"));
        }
    }
    for (commands, flags) in GROUPS {
        for flag in *flags {
            let row = rows.get_mut(flag).ok_or_else(|| format!("--{flag} has no row"))?;
            row.1.extend(commands.iter().copied());
        }
    }
    Ok(rows)
}

/// Every long flag shown by `command` and its subcommands: (subcommand path, flag).
fn flags(command: &clap::Command, path: &str, out: &mut BTreeSet<(String, String)>) {
    for arg in command.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        let deprecated = RENAMED.iter().any(|r| r.command == path && r.old == long && matches!(r.now, Now::Gone(_)));
        if !["help", "version"].contains(&long) && !deprecated {
            out.insert((path.to_string(), long.to_string()));
        }
    }
    for sub in command.get_subcommands() {
        let below = if path.is_empty() { sub.get_name().to_string() } else { format!("{path} {}", sub.get_name()) };
        flags(sub, &below, out);
    }
}

/// The rule over `table`: every flag `dojo` takes is in its row, every row's flags are
/// taken, one row a name and one name a meaning.
fn check(table: &[Row]) -> Result<(), String> {
    let rows = rows(table)?;
    let mut seen = BTreeSet::new();
    flags(&super::command(), "", &mut seen);
    let unclassified: Vec<String> = seen
        .iter()
        .filter(|(path, flag)| !rows.get(flag.as_str()).is_some_and(|(_, commands)| commands.contains(path.as_str())))
        .map(|(path, flag)| format!("dojo {path} --{flag}"))
        .collect();
    if !unclassified.is_empty() {
        return Err(format!("flags in no row of MEANINGS (say what each means): {unclassified:?}"));
    }
    let stale: Vec<String> = rows
        .iter()
        .flat_map(|(flag, (_, commands))| commands.iter().map(move |c| (c.to_string(), flag.to_string())))
        .filter(|taken| !seen.contains(taken))
        .map(|(path, flag)| format!("dojo {path} --{flag}"))
        .collect();
    match stale.is_empty() {
        true => Ok(()),
        false => Err(format!("rows name flags their commands do not take: {stale:?}")),
    }
}

#[test]
fn every_flag_has_one_meaning_and_every_meaning_one_name() {
    check(MEANINGS).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_rule_fails_a_name_with_two_meanings_or_a_meaning_with_two_names() {
    // `--threads` as games at once in `match`, beside libtorch's threads elsewhere.
    let mut doubled = MEANINGS.to_vec();
    doubled.push(("threads", "games played at once in a match", &["match"]));
    assert_eq!(check(&doubled).unwrap_err(), "--threads has two rows: two meanings for one name");
    // `--sims` beside `--playouts` for one budget.
    let mut twice = MEANINGS.to_vec();
    twice.push(("sims", "playouts (search simulations) a move", &["match"]));
    assert_eq!(
        check(&twice).unwrap_err(),
        r#"--playouts and --sims both mean "playouts (search simulations) a move": two names for one meaning"#
    );
    // A flag a command gains without a row.
    let mut missing = MEANINGS.to_vec();
    missing.retain(|r| r.0 != "verbose");
    assert!(check(&missing).unwrap_err().contains("dojo match --verbose"));
    // An old spelling is never shown: each is an alias, or a hidden flag.
    let mut seen = BTreeSet::new();
    flags(&super::command(), "", &mut seen);
    for renamed in RENAMED {
        let old = (renamed.command.to_string(), renamed.old.to_string());
        assert!(!seen.contains(&old), "dojo {} shows --{}", renamed.command, renamed.old);
    }
}
