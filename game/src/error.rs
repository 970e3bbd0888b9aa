//! What goes wrong when a caller hands a game bad input: the one error of this crate's
//! rules, specs and notation. Each problem is a value (the column, the size, the range it
//! should be in), so a caller can tell them apart; a rule stated in words alone is a
//! constant (`Rule`, `Expected`), never text built at run time.

/// Everything that can go wrong when a caller hands a game bad input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// `action` is the move as the game writes it (`4`, `7,7`, `spawn event 40`).
    #[error("illegal move {action}: {reason}")]
    IllegalMove { action: String, reason: MoveProblem },
    #[error("the game is already over")]
    GameOver,
    #[error("a chance event is pending; a player move is not allowed now")]
    ChancePending,
    #[error("no chance event is pending")]
    NoChancePending,
    /// (`reason` boxed, as `Spec`'s: every error that holds a `GameError` stays small.)
    #[error("cannot parse {what} {text:?}: {reason}")]
    Parse { what: &'static str, text: String, reason: Box<ParseProblem> },
    #[error("bad game spec {spec:?}: {reason}")]
    Spec { spec: String, reason: Box<SpecProblem> },
}

/// Why a move is not legal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveProblem {
    /// A rule that needs no numbers to say (`the cell is already taken`).
    #[error("{0}")]
    Rule(&'static str),
    #[error("the board has only {0} columns")]
    OnlyColumns(usize),
    /// The board's columns, 0-based (the solver's numbering).
    #[error("the board has columns 0..{0} (0-based)")]
    ColumnsFrom0(usize),
    /// Columns here are 1-based, as users number them.
    #[error("column {0} is entirely blocked")]
    ColumnBlocked(usize),
    #[error("the rest of column {0} is blocked")]
    RestOfColumnBlocked(usize),
    #[error("column {0} is full")]
    ColumnFull(usize),
    #[error("{0}")]
    OffBoard(Box<OffBoard>),
    #[error("point {x},{y} is already occupied")]
    PointOccupied { x: usize, y: usize },
    #[error("there are only {0} cells")]
    OnlyCells(usize),
    #[error("sliding {0} changes nothing")]
    ChangesNothing(&'static str),
    #[error("spawn events are 0..{0} (cell * 2 + 0 small / 1 big)")]
    NoSuchSpawn(usize),
    #[error("cell {cell} (row {}, column {}) is occupied", cell / 4 + 1, cell % 4 + 1)]
    SpawnOnTile { cell: usize },
    #[error("the game of {0} moves is not over (no four in a row, board not full)")]
    NotOver(usize),
    /// The `index`-th move (1-based) of a sequence (`of`: "the sequence", "the game").
    #[error("move {index} of {of}: {problem}")]
    AtMove { index: usize, of: &'static str, problem: Box<MoveProblem> },
}

/// A Gomoku point off the board, as written (`x`, `y`: the text or the number).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("point {x},{y} is off the {size}x{size} board (x and y are 0..={})", size - 1)]
pub struct OffBoard {
    pub x: String,
    pub y: String,
    pub size: usize,
}

/// Why a move, tile or position in text does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseProblem {
    /// The form the text should have (`x,y (0-based column and row, as in Gomocup), e.g. 7,7`).
    #[error("expected {0}")]
    Expected(&'static str),
    /// A rule that needs no numbers to say.
    #[error("{0}")]
    Rule(&'static str),
    #[error("not a column; expected a number 1..={width}{}", if *width >= 10 { " or a letter a-c" } else { "" })]
    NotAColumn { width: usize },
    #[error("columns are numbered from 1 to {0}")]
    ColumnsFrom1(usize),
    #[error("the board has only {0} columns")]
    OnlyColumns(usize),
    #[error("{what} {text:?} is not a non-negative whole number")]
    NotWhole { what: &'static str, text: String },
    #[error("{0}")]
    OffBoard(Box<OffBoard>),
    /// A face value the game has no tile for, at (1-based) `row`, `column`.
    #[error("{game} tiles are {hint} (row {row}, column {column})")]
    NotATile { game: &'static str, hint: &'static str, row: usize, column: usize },
    #[error("mask has bits outside the {width}x{height} board")]
    MaskOutside { width: usize, height: usize },
    #[error("{discs} discs on the board but moves_played is {moves}")]
    DiscCount { discs: usize, moves: usize },
    #[error("the side to move has {has} discs; after {moves} moves it must have {}", moves / 2)]
    SideToMove { has: usize, moves: usize },
}

/// Why a game spec (or a board built from one) is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecProblem {
    /// A rule that needs no numbers to say (`size must look like WxH, e.g. 7x6`).
    #[error("{0}")]
    Rule(&'static str),
    /// The forms the spec may take.
    #[error("expected {0}")]
    Expected(&'static str),
    #[error("{what} {value} is outside {min}..={max}")]
    OutOfRange { what: &'static str, value: usize, min: usize, max: usize },
    #[error("size {size} is outside {min}..={max} (the board is size × size)")]
    BoardSize { size: usize, min: usize, max: usize },
    #[error("{what} {text:?} is not a number")]
    NotANumber { what: &'static str, text: String },
    #[error("the 1-tile's percent {0:?} is not a whole number in 1..=99")]
    PercentNotWhole(String),
    #[error("{0}")]
    Odds(SpawnOddsError),
    #[error("{0} takes no options")]
    TakesNoOptions(&'static str),
    /// `games`: every game there is, in the order users read them.
    #[error("unknown game; expected {}", or_list(games))]
    UnknownGame { games: Vec<&'static str> },
    #[error("blocked cell {0:?} must look like COLUMN.ROW, e.g. 3.1")]
    CellForm(String),
    /// `column`, `row`: 1-based, as users number them.
    #[error("blocked cell {column}.{row} is off the {width}x{height} board")]
    CellOffBoard { column: usize, row: usize, width: usize, height: usize },
    /// The same, 0-based (the solver's numbering).
    #[error(
        "blocked cell (column {column}, row {row}) is off the {width}x{height} board (0-based, row 0 at the bottom)"
    )]
    CellOffBoardFrom0 { column: usize, row: usize, width: usize, height: usize },
    #[error("blocked cells {blocked:#x} lie outside the board {board:#x}")]
    BlockedOutside { blocked: u64, board: u64 },
    #[error("sizes {min}-{max} are not a range from smaller to larger (one size: gomoku:{min})")]
    NotARange { min: u8, max: u8 },
    #[error("a {width}x{height} board needs {bits} bits but this bitboard has {capacity}")]
    BitboardTooSmall { width: usize, height: usize, bits: u32, capacity: u32 },
    #[error("the solver's bitboard holds width * (height + 1) <= 64 bits; {width}x{height} needs {bits}")]
    SolverBitboard { width: usize, height: usize, bits: usize },
    #[error("the {width}x{height} board does not fit a {frame_width}x{frame_height} frame")]
    FrameTooSmall { width: usize, height: usize, frame_width: usize, frame_height: usize },
    #[error("the {size}x{size} board does not fit a {frame}x{frame} frame (frames are {size}..={max})")]
    SquareFrame { size: usize, frame: usize, max: usize },
    #[error("a Gomoku board is framed in a square, not {width}x{height}")]
    NotSquare { width: usize, height: usize },
}

/// `a, b or c`.
fn or_list(items: &[&'static str]) -> String {
    match items.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Spawn odds no 2584 game has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpawnOddsError {
    #[error("the big spawn tile is 2 or 3, not {0}")]
    BigTile(u8),
    #[error("the 1-tile's share is a percent in 1..=99, not {0}")]
    SmallPercent(u8),
}
