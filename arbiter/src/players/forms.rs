//! The one registry of player forms: how each is written and what it is, in a line. The
//! parser's "expected ..." error and the players' help in `dojo match --help` and `dojo
//! tournament --help` both read it, so a form the parser learns cannot be missing from
//! either (the tests hold every option word the parser knows to a row).

/// One way to write a player.
pub struct PlayerForm {
    /// How it is written: `mcts:N`, `net:CKPT:vcf=N`.
    pub syntax: &'static str,
    /// What it is, in a line.
    pub about: &'static str,
    /// A spec of this form (the tests parse every one).
    pub example: &'static str,
}

/// Every form a player spec takes, in the order the help lists them.
pub const PLAYER_FORMS: &[PlayerForm] = &[
    PlayerForm { syntax: "random", about: "uniformly random legal moves", example: "random" },
    PlayerForm {
        syntax: "mcts:N",
        about: "pure MCTS, N rollouts a move (default 1000; Connect Four: seed 001's rollout rules)",
        example: "mcts:1000",
    },
    PlayerForm {
        syntax: "mcts:N:uniform",
        about: "the same with uniformly random rollouts",
        example: "mcts:50:uniform",
    },
    PlayerForm {
        syntax: "mcts:N:graph",
        about: "a Monte Carlo graph search (positions shared across move orders; :tree, a tree, is mcts:N's own)",
        example: "mcts:50:graph",
    },
    PlayerForm {
        syntax: "mcts:3s",
        about: "MCTS by the clock (3s, 1.5s, 250ms a move): a graph that keeps its tree between moves",
        example: "mcts:250ms",
    },
    PlayerForm {
        syntax: "mcts:3s:tree, mcts:3s:fresh",
        about: "by the clock over a tree; with a new search every move",
        example: "mcts:250ms:fresh:tree",
    },
    PlayerForm {
        syntax: "uct:N",
        about: "seed 004's UCT baseline: uniformly random rollouts, N a move (mcts:N:uniform by its own name)",
        example: "uct:1000",
    },
    PlayerForm {
        syntax: "solver",
        about: "Connect Four's exact solver (boards with width x (height + 1) <= 64)",
        example: "solver",
    },
    PlayerForm { syntax: "solver:NODES", about: "the solver with a node budget a move", example: "solver:1000000" },
    PlayerForm {
        syntax: "net:CKPT",
        about: "a network checkpoint with dojo's search, 200 playouts a move, averaged over the board's symmetries",
        example: "net:best.safetensors",
    },
    PlayerForm { syntax: "net:CKPT:sims=N", about: "N playouts a move", example: "net:best.safetensors:sims=800" },
    PlayerForm {
        syntax: "net:CKPT:cpuct=X",
        about: "PUCT's exploration constant",
        example: "net:best.safetensors:cpuct=1.5",
    },
    PlayerForm {
        syntax: "net:CKPT:mode=gumbel",
        about: "Gumbel AlphaZero's sequential halving instead of PUCT",
        example: "net:best.safetensors:sims=32:mode=gumbel",
    },
    PlayerForm {
        syntax: "net:CKPT:vcf=N",
        about: "threat-space search (Gomoku's VCF) of N nodes at every expanded position",
        example: "net:best.safetensors:vcf=1000",
    },
    PlayerForm {
        syntax: "net:CKPT:rollouts=N",
        about: "N rollouts mixed into each expanded position's value (Connect Four)",
        example: "net:best.safetensors:rollouts=4",
    },
    PlayerForm {
        syntax: "net:CKPT:noavg, net:CKPT:avg",
        about: "evaluate the board as it stands; average over its symmetries (the default but by the clock)",
        example: "net:best.safetensors:noavg",
    },
    PlayerForm {
        syntax: "net:CKPT:clock=1s",
        about: "search each move for this long instead (the board as it stands unless :avg)",
        example: "net:best.safetensors:clock=1s",
    },
    PlayerForm {
        syntax: "net:CKPT:KEY=VALUE",
        about: "any [search] setting by its name (`dojo config` lists them), e.g. :fpu_reduction=0.1",
        example: "net:best.safetensors:fpu_reduction=0.1",
    },
    PlayerForm {
        syntax: "pbrain:COMMAND",
        about: "an external Gomocup brain that COMMAND starts (quote it), e.g. \"pbrain:dojo pbrain --model CKPT\"",
        example: "pbrain:dojo pbrain --model best.safetensors",
    },
    PlayerForm {
        syntax: "pbrain:nodes=N:COMMAND",
        about: "the brain capped at N search nodes a move (INFO MAX_NODE)",
        example: "pbrain:nodes=1000:engine",
    },
    PlayerForm {
        syntax: "pbrain:depth=D:COMMAND",
        about: "the brain capped at search depth D (INFO MAX_DEPTH)",
        example: "pbrain:depth=4:engine",
    },
    PlayerForm {
        syntax: "pbrain:clock=1s:COMMAND",
        about: "the brain's own time a move (INFO timeout_turn)",
        example: "pbrain:clock=1s:engine",
    },
    PlayerForm {
        syntax: "pbrain:match=120s:COMMAND",
        about: "the brain's time for a whole game (INFO timeout_match, time_left before each move), e.g. pbrain:clock=5s:match=120s:engine",
        example: "pbrain:clock=5s:match=120s:engine",
    },
    PlayerForm {
        syntax: "saiblo:PATH.so",
        about: "a saiblo.net Connect Four strategy (a shared object), on boards with one blocked cell",
        example: "saiblo:Strategy.so",
    },
    PlayerForm {
        syntax: "ntuple:WEIGHTS",
        about: "2048 and 2584: an n-tuple network (`dojo ntuple train`), greedy",
        example: "ntuple:w.bin",
    },
    PlayerForm {
        syntax: "ntuple:WEIGHTS:depth=D",
        about: "2048 and 2584: the n-tuple network with expectimax D player moves deep",
        example: "ntuple:w.bin:depth=2",
    },
];

/// Every form's syntax, comma-separated: what a spec that is none of them is told.
pub fn syntaxes() -> String {
    PLAYER_FORMS.iter().map(|f| f.syntax).collect::<Vec<_>>().join(", ")
}

/// The forms as the players' help lists them, one a line: `  SYNTAX  what it is`.
/// Options of one kind combine (`net:CKPT:sims=400:vcf=1000:noavg`); NAME=SPEC names a
/// player in a tournament.
pub fn help() -> String {
    let width = PLAYER_FORMS.iter().map(|f| f.syntax.len()).max().unwrap_or(0);
    let mut text = String::new();
    for form in PLAYER_FORMS {
        text.push_str(&format!("  {:width$}  {}\n", form.syntax, form.about));
    }
    text.push_str("Options of one kind combine, e.g. net:CKPT:sims=400:vcf=1000:noavg.");
    text
}
