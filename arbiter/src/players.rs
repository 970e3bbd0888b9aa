//! Players as specs (`random`, `mcts:1000`, `uct:1000`, `solver`, `net:best.safetensors`,
//! `pbrain:COMMAND`, `saiblo:Strategy.so`, `ntuple:w.bin`) and building the agent a spec
//! names for a given game. Each kind of player is a file of its own (`*_spec.rs`: its spec
//! type, forms, parser, printer, game check and builder), and the registry of kinds
//! ([`kinds`]) lists them once: from it come [`PlayerSpec`], the parser, the help and the
//! builders.

mod clock;
mod error;
mod kind;
mod kinds;
mod mcts_spec;
mod net_spec;
mod ntuple_spec;
mod pbrain_spec;
mod random_spec;
mod saiblo_spec;
mod solver_spec;

pub use clock::{parse_clock, ClockError};
pub use error::{PlayerError, PlayerSpecError, PlayerSpecProblem};
pub use kind::{PlayerForm, PlayerKind};
pub use kinds::{player_forms, KindRow, PlayerSpec, PLAYER_KINDS};
pub use mcts_spec::{MctsSpec, UctSpec, DEFAULT_ROLLOUTS};
pub use net_spec::{net_averages_by_default, NetSpec, DEFAULT_NET_SIMS};
pub use ntuple_spec::{NtupleSpec, MAX_NTUPLE_DEPTH};
pub use pbrain_spec::{PbrainSpec, DEFAULT_MOVE_TIMEOUT_MS};
pub use random_spec::RandomSpec;
pub use saiblo_spec::SaibloSpec;
pub use solver_spec::{SolverSpec, DEFAULT_SOLVER_NODES};

use dojo_game::{AnyGame, FromAnyGame, Game, GameSpec};
use dojo_net::agent::NetAgent;
use dojo_net::device::Device;
use dojo_search::player::Agent;
use std::path::PathBuf;

/// The players' help, one form a line, from the one registry ([`PLAYER_KINDS`]).
pub fn players_help() -> String {
    kinds::help()
}

/// Every form's syntax, comma-separated, from the one registry.
pub fn player_syntaxes() -> String {
    kinds::syntaxes()
}

impl PlayerSpec {
    /// A network player with the default options and `sims` playouts.
    pub fn net(path: impl Into<PathBuf>, sims: u32) -> PlayerSpec {
        PlayerSpec::Net(NetSpec::new(path, sims))
    }
}

/// The network player a `net:` spec names, on `device` (matches, gating, tournaments,
/// `dojo bestmove`/`eval`/`play`/`pbrain`), built by [`NetSpec::agent`]; with `game` (its
/// spec and a position), the checkpoint is checked against it.
pub fn net_player<G: Game + FromAnyGame>(
    spec: &PlayerSpec,
    seed: u64,
    device: Device,
    game: Option<(&GameSpec, &G)>,
) -> Result<NetAgent<G>, PlayerError> {
    match spec {
        PlayerSpec::Net(net) => net.agent(seed, device, game),
        other => Err(PlayerError::NotNet { spec: other.to_string() }),
    }
}

/// The game a command plays: `given` (its `--game`), else the game of the first player
/// with a file of its own (a checkpoint, n-tuple weights), else `fallback`. Every command
/// given a checkpoint plays its game unless told otherwise.
pub fn game_of<'a>(
    given: Option<GameSpec>,
    players: impl IntoIterator<Item = &'a PlayerSpec>,
    fallback: GameSpec,
) -> Result<GameSpec, PlayerError> {
    if let Some(game) = given {
        return Ok(game);
    }
    for player in players {
        if let Some(game) = player.own_game()? {
            return Ok(game);
        }
    }
    Ok(fallback)
}

/// The players of a game: every kind in the registry builds its player for any game, or
/// says it does not play it ([`PlayerKind::build`]), so a game added to `dojo_game` needs
/// nothing here.
pub trait BaselinePlayers: Game + FromAnyGame + Into<AnyGame> + Sized {
    fn baseline(spec: &PlayerSpec, seed: u64) -> Result<Box<dyn Agent<Self>>, PlayerError>;
}

impl<G: Game + FromAnyGame + Into<AnyGame>> BaselinePlayers for G {
    fn baseline(spec: &PlayerSpec, seed: u64) -> Result<Box<dyn Agent<G>>, PlayerError> {
        spec.build::<G>(seed)
    }
}

/// Checks a spec can play `game` before a long run starts (e.g. the solver on Gomoku).
pub fn check_player_for(spec: &PlayerSpec, game: &GameSpec) -> Result<(), PlayerError> {
    spec.check_game(game)
}

#[cfg(test)]
mod tests {
    use super::mcts_spec::MCTS_OPTIONS;
    use super::net_spec::{NET_OPTIONS, PRINTED_AFTER_NOAVG, PRINTED_BEFORE_NOAVG};
    use super::pbrain_spec::PBRAIN_OPTIONS;
    use super::*;
    use dojo_base::rng::Rng;
    use dojo_game::connect4::Connect4;
    use dojo_game::sliding::Sliding;
    use dojo_search::config::{SearchConfig, SearchMode};
    use rand::SeedableRng;

    #[test]
    fn every_form_and_option_the_parser_takes_is_in_the_help_and_the_error() {
        let help = players_help();
        let unknown = "alphago".parse::<PlayerSpec>().unwrap_err().to_string();
        let mut words = Vec::new();
        for kind in PLAYER_KINDS {
            assert!(!kind.forms.is_empty(), "{} has no form in the help", kind.word);
            assert!(!words.contains(&kind.word), "two kinds open with {}", kind.word);
            words.push(kind.word);
            for form in kind.forms {
                assert!(form.syntax.starts_with(kind.word), "{} is not a form of {}", form.syntax, kind.word);
                assert!(help.contains(form.syntax), "the help lacks {}", form.syntax);
                assert!(unknown.contains(form.syntax), "the error lacks {}: {unknown}", form.syntax);
                let spec = form.example.parse::<PlayerSpec>().unwrap_or_else(|e| panic!("{}: {e}", form.example));
                assert_eq!(spec.word(), kind.word, "{} parses as another kind", form.example);
            }
        }
        assert_eq!(words, ["random", "mcts", "uct", "solver", "net", "pbrain", "saiblo", "ntuple"]);
        // Every option word the parser takes, each in a form of its kind.
        let shown = |kind: &str, word: String| {
            let found = player_forms().any(|f| f.syntax.starts_with(kind) && f.syntax.contains(&word));
            assert!(found, "no {kind} form shows {word}");
        };
        MCTS_OPTIONS.iter().for_each(|o| shown("mcts:", format!(":{o}")));
        PBRAIN_OPTIONS.iter().for_each(|o| shown("pbrain:", format!(":{o}=")));
        NET_OPTIONS.iter().for_each(|o| shown("net:", format!(":{o}")));
        for name in PRINTED_BEFORE_NOAVG.into_iter().chain(PRINTED_AFTER_NOAVG).chain(["rollouts"]) {
            shown("net:", format!(":{}=", SearchConfig::key(name).unwrap().spec_name()));
        }
        for issue_74 in ["saiblo:PATH.so", "mcts:3s", "uct:N", ":clock=", ":vcf=", ":rollouts=", "pbrain:nodes="] {
            assert!(help.contains(issue_74), "{issue_74}");
        }
    }

    #[test]
    fn a_kind_builds_its_player_on_the_games_it_plays_and_names_the_rest() {
        use dojo_game::gomoku::Gomoku;
        use dojo_game::sliding::Twenty48;
        let spec = |text: &str| text.parse::<PlayerSpec>().unwrap();
        assert_eq!(Gomoku::baseline(&spec("random"), 1).unwrap().name(), "random");
        assert_eq!(Twenty48::baseline(&spec("uct:5"), 1).unwrap().name(), "uct:5");
        assert!(Connect4::<u64>::baseline(&spec("solver:100"), 1).is_ok());
        let refused = |player: Result<Box<dyn Agent<Gomoku>>, PlayerError>| player.err().unwrap().to_string();
        assert_eq!(refused(Gomoku::baseline(&spec("solver"), 1)), "the solver player only plays Connect Four");
        assert_eq!(
            refused(Gomoku::baseline(&spec("saiblo:x.so"), 1)),
            "saiblo: players (saiblo strategies) only play Connect Four"
        );
        assert_eq!(refused(Gomoku::baseline(&spec("ntuple:w.bin"), 1)), "ntuple: players only play 2048 and 2584");
        let pbrain = Connect4::<u64>::baseline(&spec("pbrain:engine"), 1).err().unwrap();
        assert_eq!(pbrain.to_string(), "pbrain: players (Gomocup brains) only play Gomoku");
        let wide = "connect4:12x12".parse::<GameSpec>().unwrap();
        assert!(matches!(spec("solver").check_game(&wide), Ok(())), "the board is checked when it is built");
        let wide_board = dojo_game::connect4::Connect4::<dojo_base::bits::Bits192>::baseline(&spec("solver"), 1);
        assert!(matches!(wide_board, Err(PlayerError::SolverBoard)));
        let gomoku = "gomoku:15".parse::<GameSpec>().unwrap();
        assert!(matches!(spec("solver").check_game(&gomoku), Err(PlayerError::SolverGame { game: Some(_) })));
    }

    #[test]
    fn player_specs_parse_and_print() {
        for text in [
            "random",
            "mcts:1000",
            "mcts:50:uniform",
            "mcts:3s",
            "mcts:250ms:uniform",
            "uct:20",
            "solver",
            "solver:1000",
            "net:a/b.safetensors",
            "net:c:d.json:sims=50",
            "net:c:d.json:sims=50:cpuct=1.5:noavg",
            "net:e.json:noavg",
            "net:e.json:sims=32:mode=gumbel",
            "net:c:d.json:sims=16:noavg:mode=gumbel",
            "net:g.json:sims=800:vcf=2000",
            "ntuple:w.bin",
            "ntuple:a:b.bin:depth=3",
            "pbrain:clock=5s:match=120s:engine --flag",
        ] {
            assert_eq!(text.parse::<PlayerSpec>().unwrap().to_string(), text);
        }
        assert_eq!("mcts".parse::<PlayerSpec>().unwrap(), PlayerSpec::Mcts(MctsSpec::rollouts(1000)));
        // uct:N is seed 004's baseline under its own name; uct alone has mcts's default.
        assert_eq!("uct:20".parse::<PlayerSpec>().unwrap(), PlayerSpec::Uct(UctSpec { iterations: 20 }));
        assert_eq!("uct".parse::<PlayerSpec>().unwrap().to_string(), "uct:1000");
        // Network players average over symmetries and explore at PLAY_C_PUCT unless told.
        assert_eq!("net:x.json:sims=7".parse::<PlayerSpec>().unwrap(), PlayerSpec::net("x.json", 7));
        assert_eq!(
            "net:x.json".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Net(NetSpec {
                path: PathBuf::from("x.json"),
                average_symmetries: true,
                search: SearchConfig {
                    simulations: 200,
                    c_puct: 1.0,
                    mode: SearchMode::Puct,
                    ..SearchConfig::for_play(200)
                },
                clock_ms: None,
            })
        );
        // `:avg` (the default) is still accepted and prints as nothing.
        assert_eq!("net:x.json:avg".parse::<PlayerSpec>().unwrap().to_string(), "net:x.json");
        // Options come in any order; a path may hold ':' but not end in an option.
        assert_eq!(
            "net:a:b:noavg:cpuct=2.5:sims=9".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Net(NetSpec {
                path: PathBuf::from("a:b"),
                average_symmetries: false,
                search: SearchConfig { c_puct: 2.5, ..SearchConfig::for_play(9) },
                clock_ms: None,
            })
        );
        // The search mode: Gumbel in any position among the options; puct prints as nothing.
        assert_eq!(
            "net:a:mode=gumbel:sims=32".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Net(NetSpec {
                path: PathBuf::from("a"),
                average_symmetries: true,
                search: SearchConfig { mode: SearchMode::Gumbel, ..SearchConfig::for_play(32) },
                clock_ms: None,
            })
        );
        assert_eq!("net:x.json:mode=puct".parse::<PlayerSpec>().unwrap().to_string(), "net:x.json");
        assert_eq!("net:noavg".parse::<PlayerSpec>().unwrap(), PlayerSpec::net("noavg", DEFAULT_NET_SIMS));
        // An n-tuple player is greedy unless told; a path may hold ':'.
        assert_eq!(
            "ntuple:x:y.bin".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Ntuple(NtupleSpec { path: PathBuf::from("x:y.bin"), depth: 1 })
        );
        assert_eq!("ntuple:w.bin:depth=1".parse::<PlayerSpec>().unwrap().to_string(), "ntuple:w.bin");
        for (bad, why) in [
            ("net:x:sims=0", "at least 1"),
            ("net:x:cpuct=0", "search.c_puct = 0 must be positive"),
            ("net:x:cpuct=fast", r#"search.c_puct = "fast": expected a number"#),
            ("net:x:mode=alphabeta", r#"search.mode = "alphabeta": expected "puct" or "gumbel""#),
            ("net:x:vcf=lots", r#"search.vcf_nodes = "lots": expected a whole number"#),
            ("net:x:sims=many", r#"search.simulations = "many": expected a whole number"#),
            ("net", "net:CKPT needs the network's checkpoint"),
            ("net:", "net:CKPT needs the network's checkpoint"),
            ("random:x", "random takes no options"),
            ("saiblo", "saiblo:PATH needs the strategy's shared object"),
            ("pbrain", "pbrain:COMMAND needs the command"),
            ("mcts:x", "needs a number"),
            ("mcts:0", "at least 1"),
            ("mcts:0s", "mcts needs a clock of at least 1 ms"),
            ("mcts:fasts", "mcts:fasts is not a time: mcts:3s, mcts:1.5s or mcts:250ms"),
            ("mcts:3s:gumbel", "expected mcts:N, mcts:N:uniform, mcts:N:graph or mcts:3s (by the clock, a graph)"),
            ("uct:0", "uct needs at least 1 rollout"),
            ("uct:many", "uct:N needs a number of rollouts, e.g. uct:1000"),
            ("uct:20:uniform", "uct:N takes no options"),
            ("alphago", "expected random"),
            ("ntuple", "ntuple:WEIGHTS needs the weight file"),
            ("ntuple:", "ntuple:WEIGHTS needs the weight file"),
            ("ntuple:w.bin:depth=0", "depth must be in 1..=6"),
            ("ntuple:w.bin:depth=x", "depth=D needs a whole number"),
            ("ntuple:w.bin:depth=7", "depth must be in 1..=6"),
        ] {
            let err = bad.parse::<PlayerSpec>().unwrap_err().to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn net_specs_set_any_search_setting_by_its_config_name() {
        let spec: PlayerSpec = "net:a:b.json:fpu_reduction=0.1:sims=64:tactics=false:c_puct=2".parse().unwrap();
        let search = SearchConfig { fpu_reduction: 0.1, tactics: false, c_puct: 2.0, ..SearchConfig::for_play(64) };
        assert_eq!(
            spec,
            PlayerSpec::Net(NetSpec {
                path: PathBuf::from("a:b.json"),
                average_symmetries: true,
                search,
                clock_ms: None
            })
        );
        // Printed with the short names first, then the others in the table's order.
        assert_eq!(spec.to_string(), "net:a:b.json:sims=64:cpuct=2:fpu_reduction=0.1:tactics=false");
        assert_eq!(spec.to_string().parse::<PlayerSpec>().unwrap(), spec);
        // A setting's own name and its short name are one setting.
        assert_eq!("net:x:simulations=7:vcf_nodes=9".parse::<PlayerSpec>().unwrap().to_string(), "net:x:sims=7:vcf=9");
        for (bad, why) in [
            ("net:x:fpu_reduction=lots", r#"search.fpu_reduction = "lots": expected a number"#),
            ("net:x:forced_visits=some", r#"search.forced_visits = "some": expected "off", "min:N" or "katago:K""#),
            ("net:x:dirichlet_epsilon=2", "search.dirichlet_epsilon = 2 must be within 0..=1"),
            ("net:x:simulations=0", "search.simulations must be at least 1"),
        ] {
            let err = bad.parse::<PlayerSpec>().unwrap_err();
            assert!(err.to_string().contains(why), "{bad}: {err}");
        }
        // A name that no setting has stays part of the path.
        let PlayerSpec::Net(NetSpec { path, .. }) = "net:runs/x=1:sims=5".parse::<PlayerSpec>().unwrap() else {
            panic!()
        };
        assert_eq!(path, PathBuf::from("runs/x=1"));
    }

    #[test]
    fn clocks_are_part_of_net_and_pbrain_specs() {
        let spec = |text: &str| text.parse::<PlayerSpec>().unwrap();
        // A network by the clock: its other options as before, the clock printed last.
        let net = spec("net:a:b.json:clock=1s:sims=50");
        assert!(
            matches!(&net, PlayerSpec::Net(NetSpec { clock_ms: Some(1000), search, .. }) if search.simulations == 50)
        );
        assert_eq!(net.to_string(), "net:a:b.json:sims=50:clock=1s");
        assert_eq!(spec("net:x:clock=250ms").to_string(), "net:x:clock=250ms");
        assert_eq!(spec("net:x:clock=1.5s").to_string(), "net:x:clock=1.5s");
        assert_eq!(spec(&net.to_string()), net);
        // By the clock a network evaluates the board as it stands unless told `avg`; by
        // playouts it averages unless told `noavg`: each prints only what differs.
        let averages = |text: &str| matches!(spec(text), PlayerSpec::Net(NetSpec { average_symmetries: true, .. }));
        assert!(!averages("net:x:clock=1s") && averages("net:x:avg:clock=1s") && !averages("net:x:noavg:clock=1s"));
        assert!(averages("net:x") && averages("net:x:avg") && !averages("net:x:noavg"));
        for (text, printed) in [
            ("net:x:clock=1s", "net:x:clock=1s"),
            ("net:x:noavg:clock=1s", "net:x:clock=1s"),
            ("net:x:clock=1s:avg", "net:x:avg:clock=1s"),
            ("net:x:avg", "net:x"),
            ("net:x:noavg", "net:x:noavg"),
        ] {
            assert_eq!(spec(text).to_string(), printed, "{text}");
            assert_eq!(spec(printed), spec(text), "{printed}");
        }
        // A brain with its own time a move, which a match's --move-timeout-ms leaves alone.
        let brain = spec("pbrain:nodes=10:clock=1.5s:engine --flag");
        assert!(
            matches!(&brain, PlayerSpec::Pbrain(PbrainSpec { clock_ms: Some(1500), command, .. }) if command == "engine --flag")
        );
        assert_eq!(brain.to_string(), "pbrain:nodes=10:clock=1.5s:engine --flag");
        let timed = brain.clone().with_move_timeout(Some(60_000));
        assert!(matches!(timed, PlayerSpec::Pbrain(PbrainSpec { clock_ms: Some(1500), move_timeout_ms: 60_000, .. })));
        // Rollout MCTS by the clock keeps its tree between moves unless told `fresh`.
        let fresh = spec("mcts:250ms:fresh:uniform");
        assert_eq!(
            fresh,
            PlayerSpec::Mcts(MctsSpec {
                iterations: DEFAULT_ROLLOUTS,
                clock_ms: Some(250),
                uniform: true,
                fresh: true,
                graph: true
            })
        );
        assert_eq!(fresh.to_string(), "mcts:250ms:uniform:fresh");
        assert_eq!(spec(&fresh.to_string()), fresh);
        let by_clock = |fresh| MctsSpec { clock_ms: Some(250), fresh, graph: true, ..MctsSpec::rollouts(0) }.config();
        assert!(by_clock(false).reuse_tree && !by_clock(true).reuse_tree);
        let agent = Connect4::<u64>::baseline(&spec("mcts:250ms:fresh"), 1).unwrap();
        assert_eq!(agent.name(), "mcts:250ms:fresh", "a match tells it from mcts:250ms");
        let err = "mcts:1000:fresh".parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(err.contains("mcts:3s:tree, mcts:3s:fresh for a new search every move"), "{err}");
        // By the clock a graph unless told `tree`; by rollouts a tree unless told `graph`.
        // The name is the shortest spec that says which (a match tells them apart by it).
        for (text, graph, name) in [
            ("mcts:3s", true, "mcts:3s"),
            ("mcts:3s:graph", true, "mcts:3s"),
            ("mcts:3s:tree", false, "mcts:3s:tree"),
            ("mcts:250ms:fresh:tree", false, "mcts:250ms:fresh:tree"),
            ("mcts:1000", false, "mcts:1000"),
            ("mcts:1000:tree", false, "mcts:1000"),
            ("mcts:1000:graph", true, "mcts:1000:graph"),
        ] {
            let parsed = spec(text);
            assert!(matches!(parsed, PlayerSpec::Mcts(MctsSpec { graph: g, .. }) if g == graph), "{text}");
            assert_eq!(parsed.to_string(), name);
            assert_eq!(spec(name), parsed, "{name} reads back");
            assert_eq!(Connect4::<u64>::baseline(&parsed, 1).unwrap().name(), name);
        }
        for wrong in ["mcts:3s:graph:graph", "mcts:3s:tree:graph", "mcts:1000:graph:tree"] {
            let err = wrong.parse::<PlayerSpec>().unwrap_err().to_string();
            assert!(err.contains("mcts:N:graph or mcts:3s (by the clock, a graph), mcts:3s:tree"), "{wrong}: {err}");
        }
        assert_eq!(parse_clock("2s"), Ok(2000));
        assert_eq!(parse_clock("2").unwrap_err().to_string(), "2 is not a time: 3s, 1.5s or 250ms");
        assert_eq!(parse_clock("0ms"), Err(ClockError::Zero));
        for (bad, why) in [
            ("net:x:clock=fast", "clock=fast is not a time: clock=3s, clock=1.5s or clock=250ms"),
            ("net:x:clock=5s5", "clock=5s5 is not a time: clock=3s"),
            ("net:x:clock=0ms", "a net: player needs a clock of at least 1 ms"),
            ("pbrain:clock=soon:engine", "pbrain:clock=soon is not a time: pbrain:clock=3s"),
            ("pbrain:clock=0s:engine", "pbrain needs a clock of at least 1 ms"),
            ("mcts:0ms", "mcts needs a clock of at least 1 ms"),
        ] {
            let err = bad.parse::<PlayerSpec>().unwrap_err().to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn uct_is_mcts_with_uniform_rollouts_under_its_own_name() {
        use dojo_game::sliding::Twenty48;
        let spec = |text: &str| text.parse::<PlayerSpec>().unwrap();
        // Connect Four's mcts:N uses seed 001's rollouts; uct:N is mcts:N:uniform.
        let board = Connect4::<u64>::standard();
        let mut uct = Connect4::<u64>::baseline(&spec("uct:30"), 1).unwrap();
        let mut uniform = Connect4::<u64>::baseline(&spec("mcts:30:uniform"), 2).unwrap();
        assert_eq!(uct.name(), "uct:30");
        for seed in 0..4 {
            uct.new_game(seed);
            uniform.new_game(seed);
            assert_eq!(uct.select_move(&board), uniform.select_move(&board), "seed {seed}");
        }
        // 2048's mcts:N is the same player.
        let mut rng = Rng::seed_from_u64(5);
        let game = Sliding::new_game(dojo_game::sliding::Rules2048, &mut rng);
        let mut uct = Twenty48::baseline(&spec("uct:10"), 1).unwrap();
        let mut mcts = Twenty48::baseline(&spec("mcts:10"), 2).unwrap();
        for seed in 0..4 {
            uct.new_game(seed);
            mcts.new_game(seed);
            assert_eq!(uct.select_move(&game), mcts.select_move(&game), "seed {seed}");
        }
    }
}
