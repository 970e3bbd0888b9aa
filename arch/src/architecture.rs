//! A network's shape as data: its game and board, trunk, heads and inputs
//! ([`Architecture`]), checked against the game it is for. `dojo_net::model` builds the
//! tensors from it; a run's config and a checkpoint's sidecar hold it.

use crate::board as any_size;
use dojo_base::util::{Expected, SettingError};
use dojo_game::{Game, GameSpec, PlaneShape};
use serde::{Deserialize, Serialize};

/// How the policy logits are read off the trunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyHead {
    /// AlphaZero's: a 1×1 convolution to 2 planes, then a linear layer from every cell to
    /// every action. Works for any move space (Connect Four's columns), but must learn a
    /// shape such as "complete this four" separately at each place on the board.
    #[default]
    Fc,
    /// KataGo's: a 1×1 convolution with batch norm and ReLU, then a 1×1 convolution to one
    /// logit per cell. A pattern learnt in one place is known everywhere (translation
    /// equivariant), with channels² weights instead of 2·cells·moves (1 k against 13 k for
    /// a 3×32 net on 9×9). Needs
    /// a game whose action `i` is the cell `i` of its planes ([`BoardLayout::actions_are_cells`]).
    Conv,
    /// An any-size Connect Four network's ([`Architecture::any_size`]): KataGo's head, a
    /// 1×1 convolution plus globally pooled features, then one logit per cell, read at each
    /// column's playable cell: one logit per column whatever the board's width.
    Column,
    /// An any-size Gomoku network's: the column head's layers, with each point's logit read
    /// at its cell, numbered by the board's own size whatever the frame.
    Point,
}

impl PolicyHead {
    pub fn name(self) -> &'static str {
        match self {
            PolicyHead::Fc => "fc",
            PolicyHead::Conv => "conv",
            PolicyHead::Column => "column",
            PolicyHead::Point => "point",
        }
    }

    /// The head of an any-size network of `board`s.
    pub fn of_any_size(board: any_size::Board) -> PolicyHead {
        match board {
            any_size::Board::Connect4 => PolicyHead::Column,
            any_size::Board::Gomoku => PolicyHead::Point,
        }
    }

    /// The boards an any-size network with this head plays; None for the heads of
    /// board-specific networks.
    pub fn any_size_board(self) -> Option<any_size::Board> {
        match self {
            PolicyHead::Column => Some(any_size::Board::Connect4),
            PolicyHead::Point => Some(any_size::Board::Gomoku),
            PolicyHead::Fc | PolicyHead::Conv => None,
        }
    }

    /// The head a new network for `game` gets by default: convolutional where it can be.
    pub fn default_for<G: Game>(game: &G) -> PolicyHead {
        if game.actions_are_cells() {
            PolicyHead::Conv
        } else {
            PolicyHead::Fc
        }
    }
}

/// A policy head as configured for a new network: `auto` is the game's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyHeadChoice {
    #[default]
    Auto,
    Fc,
    Conv,
}

impl PolicyHeadChoice {
    /// The head a new network for `game` gets; a convolutional head on a game whose moves
    /// are not its cells is an error naming both.
    pub fn resolve<G: Game>(self, game: &G) -> Result<PolicyHead, ArchitectureError> {
        match self {
            PolicyHeadChoice::Auto => Ok(PolicyHead::default_for(game)),
            PolicyHeadChoice::Fc => Ok(PolicyHead::Fc),
            PolicyHeadChoice::Conv if game.actions_are_cells() => Ok(PolicyHead::Conv),
            PolicyHeadChoice::Conv => {
                Err(ArchitectureError::ConvHeadGame { game: game.spec(), actions: game.num_actions() })
            }
        }
    }
}

impl std::str::FromStr for PolicyHeadChoice {
    type Err = SettingError;
    fn from_str(s: &str) -> Result<PolicyHeadChoice, SettingError> {
        match s {
            "auto" => Ok(PolicyHeadChoice::Auto),
            "fc" => Ok(PolicyHeadChoice::Fc),
            "conv" => Ok(PolicyHeadChoice::Conv),
            _ => Err(SettingError::not_a_choice("unknown policy head", s, "auto, fc or conv")),
        }
    }
}

/// A network shape that cannot be built, or cannot play the game it names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArchitectureError {
    /// `blocks`, `channels` or `value_hidden` outside its range.
    #[error(transparent)]
    Size(#[from] SettingError),
    #[error("policy head conv needs a game whose moves are its board's cells; {game}'s {actions} moves are not (use fc or auto)")]
    ConvHeadGame { game: GameSpec, actions: usize },
    #[error(
        "a convolutional policy head needs one move per board cell, but {game} has {actions} moves on {cells} cells"
    )]
    ConvHeadMoves { game: GameSpec, actions: usize, cells: usize },
    /// An any-size head (column, point) without an any-size network, or an any-size
    /// network with another head.
    #[error("policy head {} {} an any-size network", .head.name(), if *.any_size { "cannot be that of" } else { "needs" })]
    AnySizeHead { head: PolicyHead, any_size: bool },
    #[error("an any-size network plays Connect Four or Gomoku boards, not {0}")]
    AnySizeGame(GameSpec),
    /// An any-size network whose head reads the moves of another game's boards.
    #[error("an any-size network for {game} has the {} policy head, not {}", .want.name(), .head.name())]
    AnySizeHeadGame { game: GameSpec, head: PolicyHead, want: PolicyHead },
    /// The game a new network is asked for cannot start.
    #[error(transparent)]
    Game(#[from] dojo_game::GameError),
    /// The policy head asked for (`--policy-head`) cannot play the game.
    #[error("--policy-head")]
    PolicyHeadChoice(#[source] Box<ArchitectureError>),
    /// The frame must hold the spec's largest board and be no larger than the game's
    /// largest (a square for Gomoku).
    #[error(
        "an any-size network for {game} needs a {}frame of at least {}x{} and at most {}x{}, not {}x{}",
        if *.square { "square " } else { "" }, .least.0, .least.1, .most.0, .most.1, .frame.0, .frame.1
    )]
    AnySizeFrame { game: GameSpec, least: (usize, usize), most: (usize, usize), frame: (usize, usize), square: bool },
    #[error(
        "an any-size network for {game} has one move per column or point of its frame ({expected}), not {actions}"
    )]
    AnySizeMoves { game: GameSpec, actions: usize, expected: usize },
    /// [`Architecture::reframed`] on a network of one board.
    #[error("a network of one board ({game}) has no frame to change")]
    NoFrame { game: GameSpec },
    #[error("an any-size network takes {least}..={most} input planes, not {planes}")]
    AnySizePlanes { planes: usize, least: usize, most: usize },
    /// The network's input or moves are not the game's: `network` as its sidecar says,
    /// `encoded` as the game encodes positions today.
    #[error(
        "the network takes {} input planes of {}x{} and {} moves, but {game} is encoded as {} planes of {}x{} with {} moves \
         (a checkpoint from another dojo with other input planes?)",
        .network.0.channels, .network.0.width, .network.0.height, .network.1,
        .encoded.0.channels, .encoded.0.width, .encoded.0.height, .encoded.1
    )]
    InputMismatch { game: GameSpec, network: (PlaneShape, usize), encoded: (PlaneShape, usize) },
}

/// Most hidden units [`Architecture::validate`] accepts in the value head.
pub const MAX_VALUE_HIDDEN: usize = 4096;

/// The network's shape: everything needed to rebuild it around stored weights.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Architecture {
    pub game: GameSpec,
    pub blocks: usize,
    pub channels: usize,
    pub input_channels: usize,
    pub height: usize,
    pub width: usize,
    pub actions: usize,
    /// Hidden units of the value head.
    pub value_hidden: usize,
    /// Checkpoints from before the choice existed have the linear head.
    #[serde(default)]
    pub policy_head: PolicyHead,
    /// One-player games: the return (in points) the value output 1 stands for, the
    /// `search.max_return` the network was trained with ([`dojo_game::returns::ReturnScale`]);
    /// players read its values with it. None for two-player games (values are results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_return: Option<u64>,
    /// Fully convolutional with a board mask ([`super::any_size`]): plays every Connect Four
    /// (or Gomoku) board, each framed into `width × height` (its spec's largest board) or,
    /// for a larger one, a frame grown to hold it; no weight depends on the size.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub any_size: bool,
    /// Policy heads that only training reads ([`AuxHeads`]); none on checkpoints from
    /// before they existed.
    #[serde(default, skip_serializing_if = "AuxHeads::is_none")]
    pub aux_heads: AuxHeads,
}

/// KataGo's auxiliary policy heads: more outputs of the policy head's features, trained
/// beside the policy and never read in play (the search, the folded network and an exported
/// strategy leave them out). Their targets give the trunk more to learn from each position:
/// a head that predicts the opponent's reply teaches what the move played allows, and a
/// softened copy of the policy target teaches the order of the moves the search liked less.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuxHeads {
    /// Predicts the search's policy at the opponent's next move (`train.opponent_policy_weight`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub opponent_policy: bool,
    /// Predicts the policy target softened to the power 1/4 (`train.soft_policy_weight`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub soft_policy: bool,
}

impl AuxHeads {
    pub fn is_none(&self) -> bool {
        *self == AuxHeads::default()
    }

    /// The heads the trainer's settings ask for: each one whose loss weighs more than 0.
    pub fn for_training(config: &crate::train::TrainConfig) -> AuxHeads {
        AuxHeads { opponent_policy: config.opponent_policy_weight > 0.0, soft_policy: config.soft_policy_weight > 0.0 }
    }

    /// How many there are: the extra policy outputs the network computes in training.
    pub fn count(&self) -> usize {
        usize::from(self.opponent_policy) + usize::from(self.soft_policy)
    }
}

impl Architecture {
    /// The architecture of a new `blocks × channels` network for the game `spec` names,
    /// with the policy head asked for, checked.
    pub fn new_for(
        spec: &GameSpec,
        blocks: usize,
        channels: usize,
        head: PolicyHeadChoice,
    ) -> Result<Architecture, ArchitectureError> {
        let start = spec.start()?;
        let arch = dojo_game::with_game!(&start, g => Architecture::new_for_game(g, blocks, channels, head, g.max_return() as u64))
            .map_err(|e| ArchitectureError::PolicyHeadChoice(Box::new(e)))?;
        arch.validate()?;
        Ok(arch)
    }

    /// A new `blocks × channels` network for `game`'s board with the policy head asked for
    /// (the one thing that can fail), a one-player game's values on the scale `max_return`.
    /// The one builder of a new network's shape: [`Architecture::new_for`] and a run's
    /// config (`dojo_run`) both come here.
    pub fn new_for_game<G: Game>(
        game: &G,
        blocks: usize,
        channels: usize,
        head: PolicyHeadChoice,
        max_return: u64,
    ) -> Result<Architecture, ArchitectureError> {
        let head = head.resolve(game)?;
        Ok(Architecture::for_game(game, blocks, channels)
            .with_policy_head(head)
            .with_max_return(game.is_one_player().then_some(max_return)))
    }

    /// The architecture for `game`'s board with a `blocks × channels` trunk and the game's
    /// default policy head ([`PolicyHead::default_for`]).
    pub fn for_game<G: Game>(game: &G, blocks: usize, channels: usize) -> Architecture {
        let shape = game.plane_shape();
        Architecture {
            game: game.spec(),
            blocks,
            channels,
            input_channels: shape.channels,
            height: shape.height,
            width: shape.width,
            actions: game.num_actions(),
            value_hidden: 64,
            policy_head: PolicyHead::default_for(game),
            max_return: None,
            any_size: false,
            aux_heads: AuxHeads::default(),
        }
    }

    /// An any-size network for the boards of `game` (Connect Four: a board or
    /// `connect4:saiblo`; Gomoku: a board or a range such as `gomoku:9-15`) in a
    /// `width × height` frame ([`Architecture::validate`] refuses other games).
    pub fn any_size(game: GameSpec, width: usize, height: usize, blocks: usize, channels: usize) -> Architecture {
        // A game without frames gets Connect Four's head, which `validate` refuses for it.
        let board = any_size::Board::of(&game).unwrap_or(any_size::Board::Connect4);
        Architecture {
            game,
            blocks,
            channels,
            input_channels: board.default_input_planes(),
            height,
            width,
            actions: board.moves(width, height),
            value_hidden: 64,
            policy_head: PolicyHead::of_any_size(board),
            max_return: None,
            any_size: true,
            aux_heads: AuxHeads::default(),
        }
    }

    /// The frame every position is encoded in for this network: its size for an any-size
    /// network, None (each board its own size) otherwise.
    pub fn frame(&self) -> Option<(usize, usize)> {
        self.any_size.then_some((self.width, self.height))
    }

    /// The frame an any-size network plays boards up to `largest` in: its own, grown to
    /// hold them (its weights do not depend on the frame, so the network that trained on
    /// 9×9 to 15×15 plays 20×20 in a 20×20 frame: [`Architecture::reframed`]).
    pub fn frame_for(&self, largest: (usize, usize)) -> (usize, usize) {
        (self.width.max(largest.0), self.height.max(largest.1))
    }

    /// The same any-size network in another frame: as many moves as the frame has columns
    /// (Connect Four) or cells (Gomoku). An error for a board-specific network, or a frame
    /// smaller than the boards it trained on or larger than the game's largest board.
    pub fn reframed(&self, (width, height): (usize, usize)) -> Result<Architecture, ArchitectureError> {
        let Some(board) = self.policy_head.any_size_board().filter(|_| self.any_size) else {
            return Err(ArchitectureError::NoFrame { game: self.game.clone() });
        };
        let arch = Architecture { width, height, actions: board.moves(width, height), ..self.clone() };
        arch.validate()?;
        Ok(arch)
    }

    /// The same with another policy head.
    pub fn with_policy_head(self, policy_head: PolicyHead) -> Architecture {
        Architecture { policy_head, ..self }
    }

    /// The same with the auxiliary policy heads `aux_heads`.
    pub fn with_aux_heads(self, aux_heads: AuxHeads) -> Architecture {
        Architecture { aux_heads, ..self }
    }

    /// The same with the value scale of a one-player game ([`Architecture::max_return`]).
    pub fn with_max_return(self, max_return: Option<u64>) -> Architecture {
        Architecture { max_return, ..self }
    }

    /// How the value output maps to points, for a one-player game's network: its own
    /// scale, or the default for networks that do not name one.
    pub fn return_scale(&self) -> dojo_game::returns::ReturnScale {
        dojo_game::returns::ReturnScale::new(
            self.max_return.map_or(dojo_game::returns::DEFAULT_MAX_RETURN, |m| m as f64),
        )
    }

    pub fn input_len(&self) -> usize {
        self.input_channels * self.height * self.width
    }

    /// A lower bound on the network's parameter count: the residual blocks' 3×3
    /// convolutions alone. Loading compares it with the weights a file holds before
    /// building anything, so a sidecar claiming a huge (but valid) network next to small
    /// weights is refused without allocating the network it describes.
    pub fn min_parameters(&self) -> u64 {
        2 * self.blocks as u64 * 9 * (self.channels as u64).pow(2)
    }

    /// Checks sizes a user could have typed wrong.
    pub fn validate(&self) -> Result<(), ArchitectureError> {
        let within = |key, value: usize, max: usize| {
            let expected = Expected::Within { min: 1, max: max as u64 };
            SettingError::check((1..=max).contains(&value), key, value, expected)
        };
        within("blocks", self.blocks, 64)?;
        within("channels", self.channels, 1024)?;
        // A sidecar's claim: a huge value head would make building the network panic when
        // libtorch cannot allocate it.
        within("value_hidden", self.value_hidden, MAX_VALUE_HIDDEN)?;
        let board = self.policy_head.any_size_board();
        if self.any_size != board.is_some() {
            return Err(ArchitectureError::AnySizeHead { head: self.policy_head, any_size: self.any_size });
        }
        if let Some(board) = board {
            return self.check_any_size(board);
        }
        if self.policy_head == PolicyHead::Conv && self.actions != self.height * self.width {
            return Err(ArchitectureError::ConvHeadMoves {
                game: self.game.clone(),
                actions: self.actions,
                cells: self.height * self.width,
            });
        }
        self.check_input_matches_game()
    }

    /// An any-size network: Connect Four (column head) or Gomoku (point head), a frame that
    /// holds the game's boards, one move per column or point of it, and the planes its mask
    /// and policy read.
    fn check_any_size(&self, board: any_size::Board) -> Result<(), ArchitectureError> {
        let game = self.game.clone();
        let Some(games_board) = any_size::Board::of(&game) else { return Err(ArchitectureError::AnySizeGame(game)) };
        if games_board != board {
            let want = PolicyHead::of_any_size(games_board);
            return Err(ArchitectureError::AnySizeHeadGame { game, head: self.policy_head, want });
        }
        let least = game.largest_board().expect("Connect Four and Gomoku boards have a largest");
        let (most, frame, expected) =
            (board.largest_frame(), (self.width, self.height), board.moves(self.width, self.height));
        let fits = least.0 <= frame.0 && frame.0 <= most.0 && least.1 <= frame.1 && frame.1 <= most.1;
        // A Gomoku board is a square in the corner of a square frame.
        let square = board == any_size::Board::Gomoku;
        if !fits || (square && frame.0 != frame.1) {
            return Err(ArchitectureError::AnySizeFrame { game, least, most, frame, square });
        }
        if self.actions != expected {
            return Err(ArchitectureError::AnySizeMoves { game, actions: self.actions, expected });
        }
        let (least, most) = (board.min_input_planes(), board.encoded_planes());
        if !(least..=most).contains(&self.input_channels) {
            return Err(ArchitectureError::AnySizePlanes { planes: self.input_channels, least, most });
        }
        Ok(())
    }

    /// The board and move space must be the game's, and the input planes the first
    /// `input_channels` of those it encodes today. Games only ever append planes to their
    /// encoding ([`Game::encode_planes`]), so a checkpoint from a build with fewer planes is
    /// fed the ones it was trained on ([`Architecture::input_tensor`]); one with more, or
    /// another board, would be fed tensors of the wrong shape and is refused.
    fn check_input_matches_game(&self) -> Result<(), ArchitectureError> {
        let Ok(start) = self.game.start() else {
            return Ok(()); // a spec that draws its board per game has no one shape to check
        };
        let (shape, actions) = dojo_game::with_game!(&start, g => (g.plane_shape(), g.num_actions()));
        let ours = (self.height, self.width, self.actions);
        let game = (shape.height, shape.width, actions);
        if ours != game || self.input_channels == 0 || self.input_channels > shape.channels {
            let network = PlaneShape { channels: self.input_channels, height: self.height, width: self.width };
            return Err(ArchitectureError::InputMismatch {
                game: self.game.clone(),
                network: (network, self.actions),
                encoded: (shape, actions),
            });
        }
        Ok(())
    }

    /// Floating-point operations of one forward pass for one position (a multiply-add
    /// counts two), every layer included: what throughput reports turn evals/s into GFLOP/s
    /// with. Biases, ReLUs and the residual sums are left out (under 1% of the total).
    pub fn flops_per_eval(&self) -> f64 {
        let cells = (self.height * self.width) as f64;
        let (c, cin) = (self.channels as f64, self.input_channels as f64);
        let trunk = 9.0 * cin * c * cells + 2.0 * self.blocks as f64 * 9.0 * c * c * cells;
        let policy = match self.policy_head {
            PolicyHead::Fc => 2.0 * c * cells + 2.0 * cells * self.actions as f64,
            PolicyHead::Conv => c * c * cells + c * cells,
            PolicyHead::Column | PolicyHead::Point => c * c * cells + 3.0 * c * c + c * cells,
        };
        let hidden = self.value_hidden as f64;
        let value =
            if self.any_size { c * c * cells + 3.0 * c * hidden + hidden } else { c * cells + cells * hidden + hidden };
        2.0 * (trunk + policy + value)
    }
}
