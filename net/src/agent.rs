//! A network-guided player for matches and analysis: the search's one entry point
//! ([`Searcher`]: the PUCT graph search, or the chance-node search in one-player games)
//! with the network, no noise, most-visited move; or, with `search.mode = "gumbel"`, the
//! same graph searched by sequential halving without Gumbel noise, playing the move it
//! ends on.
//!
//! One concept with `dojo_ntuple::agent` (an n-tuple network as a match player): a network
//! of each kind as the search's `Agent`, hence one name.

use super::checkpoint::Loaded;
use super::infer::NetEvaluator;
use dojo_arch::architecture::Architecture;
use dojo_base::rng::Rng;
use dojo_game::{Action, FromAnyGame, Game, GameSpec};
use dojo_search::config::{SearchConfig, MAX_TIMED_PLAYOUTS};
use dojo_search::evaluator::{Evaluator, SymmetryAveraged};
use dojo_search::player::{Agent, MoveError};
use dojo_search::searcher::Searcher;
use dojo_search::step::LeafSearch;
use rand::SeedableRng;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Why a network player cannot be built from its checkpoint.
#[derive(Debug, thiserror::Error)]
pub enum NetPlayerError {
    /// The checkpoint's game has no board of the player's game type to average over.
    #[error("{}: cannot average over symmetries of {game}", .path.display())]
    Symmetries { path: PathBuf, game: GameSpec },
}

pub struct NetAgent<G: Game> {
    /// One-player games' values are read with the config's `max_return`.
    search: Searcher<G>,
    evaluator: Evaluation,
    name: String,
    /// Each move searched for this long ([`NetAgent::with_clock`]); None: for the
    /// config's playouts.
    clock: Option<Duration>,
}

/// What a network player evaluates with.
enum Evaluation {
    /// A network of one board, alone or averaged over symmetries (or any evaluator).
    Fixed(Box<dyn Evaluator>),
    /// An any-size network: every position is searched framed, in the frame the network
    /// trained in, or one grown to hold a larger board ([`Architecture::frame_for`]).
    AnySize(Box<AnySizeNet>),
}

struct AnySizeNet {
    network: NetEvaluator,
    /// The architecture it trained with (its own frame).
    trained: Architecture,
}

impl Evaluation {
    fn get(&mut self) -> &mut dyn Evaluator {
        match self {
            Evaluation::Fixed(evaluator) => evaluator.as_mut(),
            Evaluation::AnySize(any) => &mut any.network,
        }
    }
}

impl<G: Game> NetAgent<G> {
    /// `evaluator` is the network, alone or wrapped (e.g. in
    /// [`dojo_search::evaluator::SymmetryAveraged`]).
    pub fn new(evaluator: impl Evaluator + 'static, config: SearchConfig, name: String, rng: Rng) -> NetAgent<G> {
        let evaluator = Evaluation::Fixed(Box::new(evaluator));
        NetAgent { search: Searcher::new(config, false, rng), evaluator, name, clock: None }
    }

    /// The same for an any-size network ([`Architecture::any_size`]): positions are framed
    /// before they are searched (moves keep their numbers), in its own frame or, for a
    /// larger board than it trained on, one that holds it (its weights do not depend on the
    /// frame).
    pub fn any_size(network: NetEvaluator, config: SearchConfig, name: String, rng: Rng) -> NetAgent<G> {
        let trained = network.arch().clone();
        let evaluator = Evaluation::AnySize(Box::new(AnySizeNet { network, trained }));
        NetAgent { search: Searcher::new(config, false, rng), evaluator, name, clock: None }
    }

    /// The frame positions are searched in now: an any-size network's; None for a network
    /// of one board.
    pub fn frame(&self) -> Option<(usize, usize)> {
        match &self.evaluator {
            Evaluation::Fixed(_) => None,
            Evaluation::AnySize(any) => any.network.arch().frame(),
        }
    }

    /// `game` as the network takes it: framed for an any-size network (in a larger frame
    /// for a larger board than it trained on); a board of another game is an error.
    fn framed(&mut self, game: &G) -> Result<G, MoveError> {
        let Evaluation::AnySize(any) = &mut self.evaluator else { return Ok(game.clone()) };
        let AnySizeNet { network, trained } = any.as_mut();
        let spec = game.spec();
        if spec.family() != trained.game.family() {
            return Err(MoveError::OtherGame { player: self.name.clone(), network: trained.game.clone(), spec });
        }
        let board = spec.largest_board().expect("Connect Four and Gomoku boards have a size");
        let frame = trained.frame_for(board);
        let error = |source: Box<dyn std::error::Error + Send + Sync>| MoveError::Frame {
            player: self.name.clone(),
            spec: spec.clone(),
            source,
        };
        if network.arch().frame() != Some(frame) {
            network.reframe(frame).map_err(|e| error(e.into()))?;
            if Some(frame) != trained.frame() {
                let (own, name) = ((trained.width, trained.height), &self.name);
                tracing::info!(
                    "{name}: trained on boards up to {}x{}, plays {spec} in a {}x{} frame",
                    own.0,
                    own.1,
                    frame.0,
                    frame.1
                );
            }
        }
        game.in_frame(frame.0, frame.1).map_err(|e| error(e.into()))
    }

    /// [`Self::framed`], for the [`Agent`] methods that cannot return an error (a match
    /// checks its players against its game before it starts: `check_player_for`).
    fn framed_or_panic(&mut self, game: &G) -> G {
        self.framed(game).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Whether the network can play `game`'s board: an error naming both where it cannot.
    pub fn check_board(&mut self, game: &G) -> Result<(), MoveError> {
        self.framed(game).map(|_| ())
    }

    /// Searches `game` and returns the search for inspection (root children, value).
    pub fn analyse(&mut self, game: &G) -> &Searcher<G> {
        let game = self.framed_or_panic(game);
        self.search.set_root(&game);
        let sims = self.search.config().simulations;
        self.search.search_with(self.evaluator.get(), sims);
        &self.search
    }

    /// The move of the last [`NetAgent::analyse`], as `select_move` picks it (the most
    /// visited; in Gumbel mode, sequential halving's).
    pub fn analysed_move(&mut self) -> Action {
        self.search.choose_move(0.0)
    }

    /// The same player searching each move for `clock` (as many playouts as fit, at most
    /// [`MAX_TIMED_PLAYOUTS`]) instead of for its config's playouts: a match by the clock
    /// (`net:PATH:clock=1s`).
    pub fn with_clock(mut self, clock: Option<Duration>) -> NetAgent<G> {
        self.clock = clock;
        self
    }

    /// The search's move for `game` after searching until `deadline` (checked every few
    /// playouts, so it is overrun by about one batch of them) or `max_playouts`, whichever
    /// comes first, and at least one playout. For engines playing under a clock.
    pub fn select_move_until(&mut self, game: &G, deadline: Instant, max_playouts: u32) -> Action {
        const CHUNK: u32 = 8;
        let game = self.framed_or_panic(game);
        self.search.set_root(&game);
        // One search planned for `max_playouts` and cut short by the clock: Gumbel mode's
        // sequential halving plans its phases for the budget it is given.
        let go_on = |evaluations: u32| !evaluations.is_multiple_of(CHUNK) || Instant::now() < deadline;
        self.search.search_while(self.evaluator.get(), max_playouts.max(1), go_on);
        self.search.choose_move(0.0)
    }

    /// Playouts of the last search.
    pub fn playouts(&self) -> u32 {
        self.search.playouts()
    }

    /// The legal move the raw network policy rates highest: one evaluation, no search (and
    /// no lookahead, so it judges the network alone).
    pub fn policy_move(&mut self, game: &G) -> Action {
        let game = &self.framed_or_panic(game);
        let mut planes = vec![0.0; game.plane_shape().len()];
        let mut logits = vec![0.0; game.num_actions()];
        let mut value = [0.0f32];
        game.encode_planes(&mut planes);
        self.evaluator.get().evaluate(&planes, 1, &mut logits, &mut value);
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        let best = legal.into_iter().max_by(|&a, &b| logits[a as usize].total_cmp(&logits[b as usize]));
        best.expect("a position that is not over has a legal move")
    }
}

impl<G: Game + FromAnyGame> NetAgent<G> {
    /// The one way a network player is built from a checkpoint: `loaded` (read from
    /// `path`, on the device and with the game checks its caller wants) searching with
    /// `search`, its evaluations averaged over the board's symmetries or not. A one-player
    /// game's network is read with the value scale it was trained with unless `search`
    /// names another `max_return`; an any-size network is framed and plays without
    /// averaging (a blocked cell off the middle leaves a board without a mirror).
    pub fn from_checkpoint(
        path: &Path,
        loaded: Loaded,
        mut search: SearchConfig,
        average_symmetries: bool,
        name: String,
        rng: Rng,
    ) -> Result<NetAgent<G>, NetPlayerError> {
        let architecture = &loaded.sidecar.architecture;
        if search.max_return == SearchConfig::default().max_return {
            search.max_return = architecture.return_scale().max_return;
        }
        if architecture.any_size {
            if average_symmetries {
                tracing::debug!("an any-size network plays without symmetry averaging");
            }
            return Ok(NetAgent::any_size(NetEvaluator::new(loaded.model), search, name, rng));
        }
        if !average_symmetries {
            return Ok(NetAgent::new(NetEvaluator::new(loaded.model), search, name, rng));
        }
        // The symmetry maps only need the board's shape: the checkpoint's game has it.
        let board =
            architecture.game.start().ok().and_then(G::from_any).ok_or_else(|| NetPlayerError::Symmetries {
                path: path.to_path_buf(),
                game: architecture.game.clone(),
            })?;
        let network = NetEvaluator::new(loaded.model);
        Ok(NetAgent::new(SymmetryAveraged::new(network, board), search, name, rng))
    }
}

impl<G: Game> Agent<G> for NetAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, seed: u64) {
        self.search.clear();
        self.search.reseed(Rng::seed_from_u64(seed));
    }

    fn select_move(&mut self, game: &G) -> Action {
        if let Some(clock) = self.clock {
            return self.select_move_until(game, Instant::now() + clock, MAX_TIMED_PLAYOUTS);
        }
        self.analyse(game);
        self.search.choose_move(0.0)
    }

    /// A board of another game than an any-size network's is an error here, not a panic.
    fn try_select_move(&mut self, game: &G) -> Result<Action, MoveError> {
        self.check_board(game)?;
        Ok(self.select_move(game))
    }
}
