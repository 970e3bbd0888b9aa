//! Game records: binary round trips, corruption, replay validation, samples and files.
//!
//! The real games are tested elsewhere; here two toy games implement [`Game`] so the
//! record layer is tested on its own: tic-tac-toe (8 symmetries, 3 input planes) and a
//! one-player dice game with chance events and a score.

use dojo_base::rng::Rng;
use dojo_game::returns::ReturnScale;
use dojo_game::tactics::Tactics;
use dojo_game::{
    Action, BoardLayout, Chance, Game, GameError, GameSpec, MoveProblem, Outcome, ParseProblem, PlaneShape, Player,
    Scoring, Symmetries, ToMove,
};
use dojo_record::{
    read_records, samples, write_records, GameRecord, MoveRecord, RecordError, RecordOutcome, SampleOptions,
    TrainingGame, MAX_MOVES, MAX_POLICY,
};
use rand::{seq::IndexedRandom, Rng as _, RngExt, SeedableRng};

// ---------------------------------------------------------------------------------------
// Toy games
// ---------------------------------------------------------------------------------------

/// The spec enum only knows the real games; the toys borrow a spec text so records
/// round-trip through the codec.
fn ttt_spec() -> GameSpec {
    GameSpec::gomoku(7)
}

const LINES: [[usize; 3]; 8] = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

/// Tic-tac-toe; cell `r * 3 + c`, written `a1` (column a, row 1).
#[derive(Clone, Debug, Default)]
struct Ttt {
    cells: [u8; 9],
    ply: usize,
    last: Option<Action>,
    outcome: Option<Outcome>,
}

/// Symmetry `sym` of the square: bit 2 transposes, bit 0 flips rows, bit 1 flips columns.
fn map_cell(sym: usize, cell: usize) -> usize {
    let (mut r, mut c) = (cell / 3, cell % 3);
    if sym & 4 != 0 {
        std::mem::swap(&mut r, &mut c);
    }
    if sym & 1 != 0 {
        r = 2 - r;
    }
    if sym & 2 != 0 {
        c = 2 - c;
    }
    r * 3 + c
}

impl Ttt {
    fn mover(&self) -> Player {
        if self.ply & 1 == 0 {
            Player::First
        } else {
            Player::Second
        }
    }
}

impl Game for Ttt {
    fn spec(&self) -> GameSpec {
        ttt_spec()
    }
    fn num_actions(&self) -> usize {
        9
    }
    fn to_move(&self) -> ToMove {
        ToMove::Player(self.mover())
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_none() {
            out.extend((0..9).filter(|&a| self.cells[a] == 0).map(|a| a as Action));
        }
    }
    fn is_legal(&self, action: Action) -> bool {
        self.outcome.is_none() && self.cells.get(action as usize) == Some(&0)
    }
    fn play_unchecked(&mut self, action: Action) -> u32 {
        let me = self.mover();
        self.cells[action as usize] = me.index() as u8 + 1;
        self.ply += 1;
        self.last = Some(action);
        let mark = me.index() as u8 + 1;
        if LINES.iter().any(|l| l.iter().all(|&i| self.cells[i] == mark)) {
            self.outcome = Some(Outcome::Win(me));
        } else if self.ply == 9 {
            self.outcome = Some(Outcome::Draw);
        }
        0
    }
    fn illegal_reason(&self, action: Action) -> GameError {
        let text = self.action_to_text(action);
        let reason = MoveProblem::Rule(if action >= 9 { "off the board" } else { "the cell is occupied" });
        GameError::IllegalMove { action: text, reason }
    }
    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    fn hash(&self) -> u64 {
        self.cells.iter().fold(self.ply as u64, |h, &c| h.wrapping_mul(31).wrapping_add(c as u64))
    }
    fn ply(&self) -> usize {
        self.ply
    }
    fn last_action(&self) -> Option<Action> {
        self.last
    }
    fn plane_shape(&self) -> PlaneShape {
        PlaneShape { channels: 3, height: 3, width: 3 }
    }
    fn encode_planes(&self, out: &mut [f32]) {
        out.fill(0.0);
        let me = self.mover().index() as u8 + 1;
        for (i, &c) in self.cells.iter().enumerate() {
            if c == me {
                out[i] = 1.0;
            } else if c != 0 {
                out[9 + i] = 1.0;
            }
        }
        if let Some(a) = self.last {
            out[18 + a as usize] = 1.0;
        }
    }
    fn action_to_text(&self, action: Action) -> String {
        if action < 9 {
            format!("{}{}", (b'a' + (action % 3) as u8) as char, action / 3 + 1)
        } else {
            format!("#{action}")
        }
    }
    fn action_from_text(&self, text: &str) -> Result<Action, GameError> {
        let b = text.as_bytes();
        if b.len() == 2 && (b'a'..=b'c').contains(&b[0]) && (b'1'..=b'3').contains(&b[1]) {
            Ok(((b[1] - b'1') * 3 + (b[0] - b'a')) as Action)
        } else {
            Err(GameError::Parse { what: "cell", text: text.into(), reason: ParseProblem::Expected("a1..c3").into() })
        }
    }
    fn render(&self) -> String {
        format!("{:?}", self.cells)
    }
}

impl Scoring for Ttt {}

impl Tactics for Ttt {}

impl Chance for Ttt {}

impl Symmetries for Ttt {
    fn num_symmetries(&self) -> usize {
        8
    }

    fn map_action(&self, sym: usize, action: Action) -> Action {
        map_cell(sym, action as usize) as Action
    }

    fn map_plane(&self, sym: usize, src: &[f32], dst: &mut [f32]) {
        for (i, &v) in src.iter().enumerate() {
            dst[map_cell(sym, i)] = v;
        }
    }
}

impl BoardLayout for Ttt {}

/// A one-player dice game: a die roll (chance: 0 rolls 1 with p 0.75, 1 rolls 2 with
/// p 0.25) precedes every move; the player adds action + roll to the score; action 3 is
/// illegal after a roll of 2; five moves end the game. Like 2048, the opening roll is
/// pending at the start.
#[derive(Clone, Debug, Default)]
struct Dice {
    roll: u8,
    pending: bool,
    moves: usize,
    score: u64,
    last: Option<Action>,
}

impl Dice {
    fn new() -> Dice {
        Dice { pending: true, ..Dice::default() }
    }
}

impl Game for Dice {
    fn spec(&self) -> GameSpec {
        GameSpec::Twenty48
    }
    fn num_actions(&self) -> usize {
        4
    }
    fn to_move(&self) -> ToMove {
        if self.pending {
            ToMove::Chance
        } else {
            ToMove::Player(Player::First)
        }
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        out.extend((0..4).filter(|&a| self.is_legal(a)));
    }
    fn is_legal(&self, action: Action) -> bool {
        !self.pending && self.moves < 5 && action < 4 && !(action == 3 && self.roll == 2)
    }
    fn play_unchecked(&mut self, action: Action) -> u32 {
        let reward = action as u32 + self.roll as u32;
        self.score += reward as u64;
        self.moves += 1;
        self.last = Some(action);
        self.pending = self.moves < 5;
        reward
    }
    fn outcome(&self) -> Option<Outcome> {
        (self.moves == 5).then_some(Outcome::Score(self.score))
    }
    fn hash(&self) -> u64 {
        self.score
    }
    fn ply(&self) -> usize {
        self.moves
    }
    fn last_action(&self) -> Option<Action> {
        self.last
    }
    fn plane_shape(&self) -> PlaneShape {
        PlaneShape { channels: 1, height: 1, width: 1 }
    }
    fn encode_planes(&self, out: &mut [f32]) {
        out[0] = self.roll as f32;
    }
    fn action_to_text(&self, action: Action) -> String {
        format!("d{action}")
    }
    fn action_from_text(&self, text: &str) -> Result<Action, GameError> {
        text.trim_start_matches('d').parse().map_err(|_| GameError::Parse {
            what: "die move",
            text: text.into(),
            reason: ParseProblem::Expected("d0..d3").into(),
        })
    }
    fn render(&self) -> String {
        format!("{self:?}")
    }
}

impl Scoring for Dice {
    fn is_one_player(&self) -> bool {
        true
    }
}

impl Tactics for Dice {}

impl Chance for Dice {
    fn chance_outcomes(&self, out: &mut Vec<(Action, f32)>) {
        out.clear();
        if self.pending {
            out.extend([(0, 0.75), (1, 0.25)]);
        }
    }

    fn apply_chance(&mut self, event: Action) -> Result<(), GameError> {
        if !self.pending {
            return Err(GameError::NoChancePending);
        }
        if event > 1 {
            return Err(GameError::IllegalMove {
                action: format!("roll {event}"),
                reason: MoveProblem::Rule("rolls are 0 or 1"),
            });
        }
        self.roll = event as u8 + 1;
        self.pending = false;
        Ok(())
    }
}

impl Symmetries for Dice {}

impl BoardLayout for Dice {}

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn base_record(spec: GameSpec) -> GameRecord {
    GameRecord {
        game_id: *b"0123456789abcdef",
        spec,
        model_version: 7,
        created_unix_ms: 1_700_000_000_000,
        moves: Vec::new(),
        outcome: RecordOutcome::Draw,
        resigned: false,
        no_resign: false,
        would_have_resigned: None,
    }
}

/// A uniform policy over the legal moves, with extra mass on `favourite`.
fn policy_for<G: Game>(g: &G, favourite: Action) -> Vec<(Action, f32)> {
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    let n = legal.len() as f32;
    legal
        .iter()
        .map(|&a| {
            let p = if legal.len() == 1 {
                1.0
            } else if a == favourite {
                0.5
            } else {
                0.5 / (n - 1.0)
            };
            (a, p)
        })
        .collect()
}

/// A tic-tac-toe record of `cells` played in order (every move a training target whose
/// policy favours the move played), with the replayed outcome.
fn ttt_record(cells: &[Action]) -> GameRecord {
    let mut g = Ttt::default();
    let mut r = base_record(ttt_spec());
    for (i, &a) in cells.iter().enumerate() {
        r.moves.push(MoveRecord::player(a, policy_for(&g, a), (i as f32 + 1.0) * 0.1));
        g.play(a).unwrap();
    }
    r.outcome = g.outcome().map(RecordOutcome::from).unwrap_or(RecordOutcome::Draw);
    r
}

/// First wins along the top row: a1 a2 b1 b2 c1.
const FIRST_WINS: [Action; 5] = [0, 3, 1, 4, 2];

/// A random tic-tac-toe game to the end (or a resignation), valid by construction.
fn random_ttt_record(rng: &mut Rng) -> GameRecord {
    let mut g = Ttt::default();
    let mut r = base_record(ttt_spec());
    r.game_id = dojo_record::new_game_id(rng);
    r.model_version = rng.next_u64() >> rng.random_range(..64u32);
    let mut legal = Vec::new();
    while g.outcome().is_none() {
        if g.ply() >= 3 && rng.random_ratio(1, 8) {
            r.resigned = true;
            let ToMove::Player(p) = g.to_move() else { unreachable!() };
            r.outcome = RecordOutcome::Win(p.other());
            return r;
        }
        g.legal_actions(&mut legal);
        let a = *legal.choose(rng).unwrap();
        let mv = if rng.random_ratio(1, 4) {
            MoveRecord::untrained(a)
        } else {
            MoveRecord::player(a, policy_for(&g, a), rng.random::<f32>() * 2.0 - 1.0)
        };
        r.moves.push(mv);
        g.play(a).unwrap();
    }
    r.outcome = g.outcome().unwrap().into();
    if rng.random_ratio(1, 3) {
        r.no_resign = true;
        r.would_have_resigned = *[None, Some(Player::First), Some(Player::Second)].choose(rng).unwrap();
    }
    r
}

/// A record with arbitrary (not necessarily valid) contents: the codec must carry any.
fn arbitrary_record(rng: &mut Rng) -> GameRecord {
    let specs =
        ["connect4:7x6", "connect4:12x12:3.1,5.4", "connect4:saiblo", "gomoku:15", "gomoku:19", "2048", "2584:1-3"];
    let mut r = base_record(specs.choose(rng).unwrap().parse().unwrap());
    r.game_id = dojo_record::new_game_id(rng);
    r.model_version = rng.next_u64() >> rng.random_range(..64u32);
    r.created_unix_ms = rng.next_u64() >> rng.random_range(..64u32);
    r.outcome = match rng.random_range(..4usize) {
        0 => RecordOutcome::Win(Player::First),
        1 => RecordOutcome::Win(Player::Second),
        2 => RecordOutcome::Draw,
        _ => RecordOutcome::Score(rng.next_u64() >> rng.random_range(..64u32)),
    };
    r.resigned = rng.random_bool(0.5);
    r.no_resign = rng.random_bool(0.5);
    r.would_have_resigned = *[None, Some(Player::First), Some(Player::Second)].choose(rng).unwrap();
    for _ in 0..rng.random_range(..40usize) {
        let action = (rng.next_u64() >> rng.random_range(..64u32)) as u16;
        let mut policy = Vec::new();
        for _ in 0..rng.random_range(..30usize) {
            // Mostly ascending actions (as a search lists them), sometimes anything.
            let a = if rng.random_ratio(1, 4) {
                rng.next_u64() as u16
            } else {
                policy.last().map_or(0, |&(a, _): &(u16, f32)| a.saturating_add(rng.random_range(1..=5)))
            };
            let p = match rng.random_range(..6usize) {
                0 => 0.0,
                1 => -0.0,
                2 => f32::MAX,
                _ => rng.random::<f32>(),
            };
            policy.push((a, p));
        }
        let root_value = match rng.random_range(..4usize) {
            0 => 0.0,
            1 => -0.0,
            _ => rng.random::<f32>() * 2.0 - 1.0,
        };
        r.moves.push(MoveRecord {
            action,
            policy,
            root_value,
            train: rng.random_bool(0.5),
            chance: rng.random_ratio(1, 3),
        });
    }
    r
}

fn err_text<T: std::fmt::Debug>(r: Result<T, RecordError>) -> String {
    r.unwrap_err().to_string()
}

/// Wraps a hand-made body in a valid header and checksum.
fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = b"DJGR\x01".to_vec();
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    let crc = crc32fast::hash(&out[4..]);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// The body of a record up to (not including) the move count, for spec `gomoku:15`.
fn body_prefix() -> Vec<u8> {
    let mut b = vec![0u8];
    b.extend_from_slice(&[0; 16]);
    b.extend_from_slice(&[1, 2]); // model version, creation time
    b.push(9);
    b.extend_from_slice(b"gomoku:15");
    b.push(2); // draw
    b
}

// ---------------------------------------------------------------------------------------
// Codec
// ---------------------------------------------------------------------------------------

#[test]
fn arbitrary_records_round_trip_bit_for_bit() {
    let mut rng = Rng::seed_from_u64(1);
    for _ in 0..500 {
        let r = arbitrary_record(&mut rng);
        let bytes = r.encode();
        let back = GameRecord::decode(&bytes).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.encode(), bytes);
    }
}

#[test]
fn every_flag_and_outcome_combination_round_trips() {
    let outcomes = [
        RecordOutcome::Win(Player::First),
        RecordOutcome::Win(Player::Second),
        RecordOutcome::Draw,
        RecordOutcome::Score(0),
        RecordOutcome::Score(u64::MAX),
    ];
    let mut n = 0;
    for outcome in outcomes {
        for resigned in [false, true] {
            for no_resign in [false, true] {
                for would in [None, Some(Player::First), Some(Player::Second)] {
                    for (chance, train) in [(false, false), (false, true), (true, false)] {
                        let mut r = base_record("connect4:9x10:3.1".parse().unwrap());
                        r.outcome = outcome;
                        r.resigned = resigned;
                        r.no_resign = no_resign;
                        r.would_have_resigned = would;
                        r.model_version = u64::MAX;
                        r.moves.push(MoveRecord {
                            action: u16::MAX,
                            policy: if chance { vec![] } else { vec![(u16::MAX, 0.25), (0, 0.5), (300, 0.25)] },
                            root_value: -0.5,
                            train,
                            chance,
                        });
                        let back = GameRecord::decode(&r.encode()).unwrap();
                        assert_eq!(back, r);
                        n += 1;
                    }
                }
            }
        }
    }
    assert_eq!(n, 5 * 2 * 2 * 3 * 3);
}

#[test]
fn nan_and_empty_round_trip_exactly() {
    let mut r = base_record(GameSpec::Twenty48);
    let nan = f32::from_bits(0x7fc0_1234);
    r.moves.push(MoveRecord { action: 3, policy: vec![(1, nan)], root_value: nan, train: true, chance: false });
    let bytes = r.encode();
    let back = GameRecord::decode(&bytes).unwrap();
    assert_eq!(back.moves[0].root_value.to_bits(), 0x7fc0_1234);
    assert_eq!(back.moves[0].policy[0].1.to_bits(), 0x7fc0_1234);
    assert_eq!(back.encode(), bytes);

    let empty = base_record(GameSpec::connect4());
    assert_eq!(GameRecord::decode(&empty.encode()).unwrap(), empty);
}

#[test]
fn encoding_is_compact() {
    // 9 moves of tic-tac-toe with full policies: header 9 + crc 4 + flags 1 + id 16 +
    // model version 1 + creation time 6 + spec 9 + outcome 1 + move count 1, then per
    // move flags 1 + action 1 + root value 4 + policy count 1 + 5 bytes per entry.
    let r = ttt_record(&[0, 4, 8, 1, 7, 6, 2, 5, 3]);
    assert_eq!(r.outcome, RecordOutcome::Draw);
    let entries: usize = r.moves.iter().map(|m| m.policy.len()).sum();
    assert_eq!(entries, 9 + 8 + 7 + 6 + 5 + 4 + 3 + 2 + 1);
    let zero_roots = r.moves.iter().filter(|m| m.root_value == 0.0).count();
    assert_eq!(zero_roots, 0);
    assert_eq!(r.encode().len(), 48 + 9 * 7 + 5 * entries);
}

#[test]
fn decode_prefix_reads_concatenated_records() {
    let mut rng = Rng::seed_from_u64(2);
    let records: Vec<GameRecord> = (0..50).map(|_| arbitrary_record(&mut rng)).collect();
    let mut log = Vec::new();
    let mut ends = Vec::new();
    for r in &records {
        r.encode_into(&mut log);
        ends.push(log.len());
    }
    let mut offset = 0;
    for (r, &end) in records.iter().zip(&ends) {
        let (back, used) = GameRecord::decode_prefix(&log[offset..]).unwrap();
        assert_eq!(&back, r);
        offset += used;
        assert_eq!(offset, end);
    }
    assert_eq!(offset, log.len());
    // decode (not prefix) refuses the rest of the log after the first record.
    let err = err_text(GameRecord::decode(&log));
    assert_eq!(err, format!("{} byte(s) after the end of the record", log.len() - ends[0]));
}

#[test]
fn every_truncation_is_an_error() {
    let mut rng = Rng::seed_from_u64(3);
    let bytes = random_ttt_record(&mut rng).encode();
    for len in 0..bytes.len() {
        let err = GameRecord::decode(&bytes[..len]).unwrap_err();
        assert!(matches!(err, RecordError::Truncated { .. }), "{len}: {err}");
        assert!(GameRecord::decode_prefix(&bytes[..len]).is_err());
    }
    assert_eq!(err_text(GameRecord::decode(&bytes[..2])), "record truncated in the magic at byte 2");
    assert_eq!(err_text(GameRecord::decode(&bytes[..7])), "record truncated in the body length at byte 5");
    assert_eq!(
        err_text(GameRecord::decode(&bytes[..bytes.len() - 1])),
        format!("record truncated in the checksum at byte {}", bytes.len() - 1)
    );
}

#[test]
fn every_single_byte_corruption_is_detected() {
    let mut rng = Rng::seed_from_u64(4);
    let record = ttt_record(&FIRST_WINS);
    let bytes = record.encode();
    let mut cases = 0;
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff, rng.random_range(1..=255u8)] {
            let mut bad = bytes.clone();
            bad[i] ^= flip;
            let err = GameRecord::decode(&bad).unwrap_err();
            let kind_ok = match i {
                0..=3 => matches!(err, RecordError::BadMagic { .. }),
                4 => matches!(err, RecordError::UnsupportedVersion { .. }),
                5..=8 => matches!(
                    err,
                    RecordError::Truncated { .. } | RecordError::TooLong { .. } | RecordError::ChecksumMismatch { .. }
                ),
                _ => matches!(err, RecordError::ChecksumMismatch { .. }),
            };
            assert!(kind_ok, "byte {i} ^ {flip:#x}: {err}");
            cases += 1;
        }
    }
    assert_eq!(cases, bytes.len() * 4);
}

#[test]
fn random_corruption_never_panics() {
    let mut rng = Rng::seed_from_u64(5);
    let originals: Vec<Vec<u8>> = (0..20)
        .map(|i| if i % 2 == 0 { random_ttt_record(&mut rng).encode() } else { arbitrary_record(&mut rng).encode() })
        .collect();
    let mut accepted = 0;
    for case in 0..10_000 {
        let mut bytes = originals[case % originals.len()].clone();
        let refresh_crc = case % 2 == 1;
        for _ in 0..rng.random_range(1..=4) {
            if bytes.is_empty() {
                bytes.push(rng.next_u64() as u8);
            }
            match rng.random_range(..4usize) {
                0 => {
                    let i = rng.random_range(..bytes.len());
                    bytes[i] = rng.next_u64() as u8;
                }
                1 => {
                    let i = rng.random_range(..bytes.len());
                    bytes.insert(i, rng.next_u64() as u8);
                }
                2 if bytes.len() > 14 => {
                    let i = 9 + rng.random_range(..bytes.len() - 14);
                    bytes.remove(i);
                }
                _ => {
                    let len = rng.random_range(..bytes.len() + 1);
                    bytes.truncate(len);
                }
            }
        }
        if refresh_crc && bytes.len() >= 13 {
            // Mutate the body behind a valid checksum, so the body parser sees the garbage.
            let body_len = (bytes.len() - 13) as u32;
            bytes[5..9].copy_from_slice(&body_len.to_le_bytes());
            let n = bytes.len();
            let crc = crc32fast::hash(&bytes[4..n - 4]);
            bytes[n - 4..].copy_from_slice(&crc.to_le_bytes());
            bytes[..5].copy_from_slice(b"DJGR\x01");
        }
        if let Ok(r) = GameRecord::decode(&bytes) {
            // Behind the original checksum only the unchanged bytes decode (a mutation
            // can write a byte's own value back).
            if !refresh_crc {
                assert_eq!(bytes, originals[case % originals.len()]);
            }
            // Whatever decodes re-encodes to bytes that decode to the same record.
            let again = GameRecord::decode(&r.encode()).unwrap();
            assert_eq!(again.encode(), r.encode());
            accepted += 1;
        }
    }
    assert!(accepted < 5_000, "{accepted}");
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng::seed_from_u64(6);
    let prefix = body_prefix();
    for case in 0..5_000 {
        let len = rng.random_range(..200usize);
        let mut body: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if case % 2 == 0 && body.len() > prefix.len() {
            // A plausible start, so parsing gets past the header fields.
            body[..prefix.len()].copy_from_slice(&prefix);
        }
        let _ = GameRecord::decode(&frame(&body));
        let _ = GameRecord::decode(&body);
        let _ = GameRecord::decode_prefix(&body);
    }
}

#[test]
fn header_errors_name_the_problem() {
    let good = ttt_record(&FIRST_WINS).encode();
    assert_eq!(
        err_text(GameRecord::decode(b"PK\x03\x04rest")),
        "not a game record: bad magic bytes [50, 4b, 03, 04] (expected [44, 4a, 47, 52])"
    );
    let mut v2 = good.clone();
    v2[4] = 2;
    assert_eq!(err_text(GameRecord::decode(&v2)), "unsupported record format version 2 (this build reads version 1)");
    let mut huge = good.clone();
    huge[5..9].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(err_text(GameRecord::decode(&huge)), "record body length 4294967295 is over the limit of 67108864");
    let mut bad_crc = good.clone();
    let n = bad_crc.len();
    bad_crc[n - 1] ^= 0xff;
    let err = err_text(GameRecord::decode(&bad_crc));
    assert!(err.starts_with("record checksum mismatch: stored 0x"), "{err}");
}

#[test]
fn body_errors_name_the_field() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![0x10], "bad flags at byte 9: unknown flag bits 0x10"),
        (vec![0x08], "bad flags at byte 9: a would-have-resigned player without the would-have-resigned flag"),
        (vec![0], "record truncated in the game id at byte 10"),
        (
            {
                let mut b = vec![0u8; 17];
                b.extend_from_slice(&[0xff; 11]);
                b
            },
            "bad model version at byte 26: varint overflows 64 bits",
        ),
        (
            {
                let mut b = vec![0u8; 19];
                b.extend_from_slice(&[0xac, 0x02]); // 300
                b
            },
            "spec length 300 is over the limit of 256",
        ),
        (
            {
                let mut b = vec![0u8; 19];
                b.push(2);
                b.extend_from_slice(&[0xc3, 0x28]);
                b
            },
            "the spec at byte 29 is not valid UTF-8",
        ),
        (
            {
                let mut b = vec![0u8; 19];
                b.push(5);
                b.extend_from_slice(b"chess");
                b
            },
            "bad game spec in record: bad game spec \"chess\": unknown game; expected connect4, gomoku, 2048, 2584, hex5 or pig",
        ),
        (
            {
                let mut b = body_prefix();
                let n = b.len();
                b[n - 1] = 9;
                b
            },
            "bad outcome at byte 38: unknown outcome tag 9",
        ),
        (
            {
                let mut b = body_prefix();
                b.extend_from_slice(&[0xa0, 0x8d, 0x06]); // 100_000
                b.extend_from_slice(&[0; 10]);
                b
            },
            "record truncated in the moves at byte 52",
        ),
        (
            {
                let mut b = body_prefix();
                b.extend_from_slice(&[0xa1, 0x8d, 0x06]); // 100_001
                b
            },
            "move count 100001 is over the limit of 100000",
        ),
        (
            {
                let mut b = body_prefix();
                b.extend_from_slice(&[1, 0x08, 0, 0]);
                b
            },
            "bad move flags at byte 40: unknown flag bits 0x08",
        ),
        (
            {
                let mut b = body_prefix();
                b.extend_from_slice(&[1, 0, 0x80, 0x80, 0x04]);
                b
            },
            "bad move action at byte 41: 65536 is outside 0..=65535",
        ),
        (
            {
                let mut b = body_prefix();
                b.extend_from_slice(&[1, 2, 5, 0x91, 0x4e]); // 10_001 entries
                b
            },
            "policy length 10001 is over the limit of 10000",
        ),
        (
            {
                let mut b = body_prefix();
                b.extend_from_slice(&[1, 2, 5, 0x90, 0x4e]); // 10_000 entries
                b.extend_from_slice(&[0; 100]);
                b
            },
            "record truncated in the policy at byte 144",
        ),
        (
            {
                let mut b = body_prefix();
                b.extend_from_slice(&[1, 2, 5, 1, 1]); // delta -1 from 0
                b.extend_from_slice(&[0; 4]);
                b
            },
            "bad policy action at byte 43: action -1 is outside 0..=65535",
        ),
        (
            {
                let mut b = body_prefix();
                // One entry whose (overlong) 3-byte delta leaves 2 bytes for its probability.
                b.extend_from_slice(&[1, 2, 5, 1, 0x82, 0x80, 0x00, 0, 0]);
                b
            },
            "record truncated in the policy probability at byte 46",
        ),
        (
            {
                let mut b = body_prefix();
                b.extend_from_slice(&[0, 7, 7]);
                b
            },
            "2 unused byte(s) at the end of the record body",
        ),
    ];
    for (body, want) in cases {
        assert_eq!(err_text(GameRecord::decode(&frame(&body))), want, "{body:?}");
    }
    assert_eq!(MAX_MOVES, 100_000);
    assert_eq!(MAX_POLICY, 10_000);
    // The hand-made prefix is right: with zero moves it decodes.
    let mut ok = body_prefix();
    ok.push(0);
    let r = GameRecord::decode(&frame(&ok)).unwrap();
    assert_eq!(r.spec, GameSpec::gomoku(15));
    assert_eq!((r.model_version, r.created_unix_ms), (1, 2));
}

// ---------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------

#[test]
fn valid_games_validate() {
    let mut rng = Rng::seed_from_u64(7);
    for _ in 0..300 {
        let r = random_ttt_record(&mut rng);
        r.validate_with(Ttt::default()).unwrap();
        GameRecord::decode(&r.encode()).unwrap().validate_with(Ttt::default()).unwrap();
    }
    let r = ttt_record(&FIRST_WINS);
    assert_eq!(r.outcome, RecordOutcome::Win(Player::First));
    r.validate_with(Ttt::default()).unwrap();
}

fn validate_err(r: &GameRecord) -> String {
    err_text(r.validate_with(Ttt::default()))
}

#[test]
fn illegal_moves_are_named() {
    let mut r = ttt_record(&FIRST_WINS);
    r.moves[2].action = 0;
    assert_eq!(validate_err(&r), "move 3 (a1): illegal move a1: the cell is occupied");
    r.moves[2].action = 12;
    assert_eq!(validate_err(&r), "move 3 (#12): illegal move #12: off the board");

    let mut r = ttt_record(&FIRST_WINS);
    r.moves.push(MoveRecord::untrained(8));
    assert_eq!(validate_err(&r), "move 6 (c3): the game is already over (a win for the first player)");
}

#[test]
fn bad_policies_are_named() {
    let base = ttt_record(&FIRST_WINS);

    let mut r = base.clone();
    r.moves[1].policy[0].0 = 0; // a1 was taken by move 1
    assert_eq!(validate_err(&r), "move 2 (a2): policy entry a1 is not a legal move");

    let mut r = base.clone();
    r.moves[0].policy.push((20, 0.0));
    assert_eq!(validate_err(&r), "move 1 (a1): policy entry 20 is outside the action space 0..9");

    let mut r = base.clone();
    let dup = r.moves[0].policy[3];
    r.moves[0].policy.push(dup);
    assert_eq!(validate_err(&r), "move 1 (a1): policy lists a2 twice");

    let mut r = base.clone();
    r.moves[3].policy[0].1 += 0.01;
    assert_eq!(validate_err(&r), "move 4 (b2): policy sums to 1.0100, not 1");

    let mut r = base.clone();
    r.moves[3].policy[0].1 += 0.0005; // inside the tolerance
    r.validate_with(Ttt::default()).unwrap();

    let mut r = base.clone();
    r.moves[4].policy[1].1 = f32::NAN;
    assert_eq!(validate_err(&r), "move 5 (c1): policy probability NaN for c2 is not a finite non-negative number");

    let mut r = base.clone();
    r.moves[4].policy[1].1 = -0.1;
    assert_eq!(validate_err(&r), "move 5 (c1): policy probability -0.1 for c2 is not a finite non-negative number");

    let mut r = base.clone();
    r.moves[2].policy.clear();
    assert_eq!(validate_err(&r), "move 3 (b1): a training move has no policy");
    r.moves[2].train = false; // a fast-search move may go without
    r.validate_with(Ttt::default()).unwrap();

    let mut r = base.clone();
    r.moves[2].root_value = f32::INFINITY;
    assert_eq!(validate_err(&r), "move 3 (b1): root value inf is not finite");

    let mut r = base.clone();
    r.moves[2].chance = true;
    r.moves[2].policy.clear();
    r.moves[2].train = false;
    assert_eq!(validate_err(&r), "move 3 (chance event 1): a chance event is recorded but the first player is to move");
}

#[test]
fn wrong_outcomes_are_named() {
    let mut r = ttt_record(&FIRST_WINS);
    r.outcome = RecordOutcome::Win(Player::Second);
    assert_eq!(
        validate_err(&r),
        "invalid record: the record says a win for the second player but the replayed game ended in a win for the first player"
    );

    let mut r = ttt_record(&FIRST_WINS);
    r.resigned = true;
    assert_eq!(
        validate_err(&r),
        "invalid record: the record says resigned but the game was already over after 5 moves (a win for the first player)"
    );

    // Stopped after four moves: the first player is to move.
    let mut r = ttt_record(&FIRST_WINS[..4]);
    r.outcome = RecordOutcome::Win(Player::Second);
    assert_eq!(
        validate_err(&r),
        "invalid record: the game is not over after 4 moves and the record is not marked resigned"
    );
    r.resigned = true;
    r.validate_with(Ttt::default()).unwrap();
    r.outcome = RecordOutcome::Win(Player::First);
    assert_eq!(
        validate_err(&r),
        "invalid record: the first player resigned after 4 moves, so the outcome must be a win for the second player, not a win for the first player"
    );
    r.outcome = RecordOutcome::Win(Player::Second);
    r.no_resign = true;
    assert_eq!(validate_err(&r), "invalid record: a no-resign game cannot end by resignation");

    let mut r = ttt_record(&FIRST_WINS);
    r.would_have_resigned = Some(Player::Second);
    assert_eq!(validate_err(&r), "invalid record: would_have_resigned is only recorded for no-resign games");
    r.no_resign = true;
    r.validate_with(Ttt::default()).unwrap();
}

#[test]
fn spec_must_match_the_start() {
    let mut r = ttt_record(&FIRST_WINS);
    r.spec = GameSpec::connect4();
    assert_eq!(
        validate_err(&r),
        "invalid record: the record is for connect4:7x6 but the replay starts from a gomoku:7 position"
    );
    r.spec = GameSpec::Connect4Saiblo;
    assert_eq!(
        validate_err(&r),
        "invalid record: the spec connect4:saiblo draws a random board; a record must name the concrete board"
    );
    assert!(matches!(r.validate(), Err(RecordError::BadSpec(_))));
}

/// A dice game: opening roll, then (move, roll) pairs; five moves.
fn dice_record(actions: [Action; 5], rolls: [Action; 5]) -> GameRecord {
    let mut g = Dice::new();
    let mut r = base_record(GameSpec::Twenty48);
    for i in 0..5 {
        r.moves.push(MoveRecord::chance(rolls[i]));
        g.apply_chance(rolls[i]).unwrap();
        r.moves.push(MoveRecord::player(actions[i], policy_for(&g, actions[i]), 3.0));
        g.play(actions[i]).unwrap();
    }
    r.outcome = g.outcome().unwrap().into();
    r
}

#[test]
fn chance_events_replay() {
    let r = dice_record([0, 1, 2, 3, 2], [0, 1, 1, 0, 0]);
    // Rewards: 0+1, 1+2, 2+2, 3+1, 2+1.
    assert_eq!(r.outcome, RecordOutcome::Score(15));
    r.validate_with(Dice::new()).unwrap();

    let mut bad = r.clone();
    bad.outcome = RecordOutcome::Score(16);
    assert_eq!(
        err_text(bad.validate_with(Dice::new())),
        "invalid record: the record says score 16 but the replayed game ended in score 15"
    );

    let mut bad = r.clone();
    bad.moves[2].action = 5;
    assert_eq!(
        err_text(bad.validate_with(Dice::new())),
        "move 3 (chance event 5): illegal chance event: illegal move roll 5: rolls are 0 or 1"
    );

    let mut bad = r.clone();
    bad.moves.swap(0, 1);
    assert_eq!(
        err_text(bad.validate_with(Dice::new())),
        "move 1 (d0): a player move is recorded but a chance event is pending"
    );

    let mut bad = r.clone();
    bad.moves[2].policy = vec![(0, 1.0)];
    assert_eq!(
        err_text(bad.validate_with(Dice::new())),
        "move 3 (chance event 1): a chance event cannot have a policy"
    );

    let mut bad = r.clone();
    bad.moves[2].train = true;
    assert_eq!(
        err_text(bad.validate_with(Dice::new())),
        "move 3 (chance event 1): a chance event cannot be a training target"
    );

    // Action 3 is illegal after a roll of 2 (event 1).
    let mut bad = r.clone();
    bad.moves[3].action = 3;
    assert_eq!(
        err_text(bad.validate_with(Dice::new())),
        "move 4 (d3): illegal move d3: not a legal move in this position"
    );

    let mut bad = r.clone();
    bad.moves.truncate(9);
    bad.resigned = true;
    assert_eq!(err_text(bad.validate_with(Dice::new())), "invalid record: a one-player 2048 game cannot be resigned");
}

#[test]
fn replay_visits_every_move_and_returns_the_end() {
    let r = ttt_record(&FIRST_WINS);
    let mut seen = Vec::new();
    let end = r.replay(Ttt::default(), |i, g, mv| seen.push((i, g.ply(), mv.action))).unwrap();
    assert_eq!(seen, vec![(0, 0, 0), (1, 1, 3), (2, 2, 1), (3, 3, 4), (4, 4, 2)]);
    assert_eq!(end.outcome(), Some(Outcome::Win(Player::First)));
}

// ---------------------------------------------------------------------------------------
// Samples
// ---------------------------------------------------------------------------------------

fn argmax(xs: &[f32]) -> usize {
    (0..xs.len()).max_by(|&a, &b| xs[a].partial_cmp(&xs[b]).unwrap()).unwrap()
}

#[test]
fn samples_apply_one_symmetry_to_planes_and_policy() {
    let r = ttt_record(&FIRST_WINS);
    let tg = TrainingGame::new(r.clone(), Ttt::default()).unwrap();
    assert_eq!(tg.len(), 5);
    assert_eq!(tg.num_symmetries(), 8);
    let opts = SampleOptions::default();
    let mut syms = [0usize; 8];
    let mut rng = Rng::seed_from_u64(8);
    for _ in 0..40 {
        for (i, s) in tg.samples(&mut rng, &opts).unwrap().into_iter().enumerate() {
            syms[s.symmetry] += 1;
            // The identity sample of the same position, to compare against.
            let mut planes = vec![0.0; 27];
            let mut policy = vec![0.0; 9];
            tg.write_sample(i, 0, &opts, &mut planes, &mut policy).unwrap();
            for cell in 0..9 {
                let m = map_cell(s.symmetry, cell);
                for ch in 0..3 {
                    assert_eq!(s.planes[ch * 9 + m], planes[ch * 9 + cell]);
                }
                assert_eq!(s.policy[m], policy[cell]);
            }
            // The favoured (played) move moves with the mapped action.
            assert_eq!(argmax(&policy), FIRST_WINS[i] as usize);
            assert_eq!(argmax(&s.policy), map_cell(s.symmetry, FIRST_WINS[i] as usize));
            // The last-move plane marks the previous move, mapped.
            if i > 0 {
                let prev = map_cell(s.symmetry, FIRST_WINS[i - 1] as usize);
                assert_eq!(s.planes[18 + prev], 1.0);
                assert_eq!(s.planes[18..].iter().sum::<f32>(), 1.0);
            }
            assert!((s.policy.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        }
    }
    assert!(syms.iter().all(|&n| n > 0), "{syms:?}");

    let no_aug = SampleOptions { augment: false, ..opts };
    let s = samples(&r, Ttt::default(), &mut rng, &no_aug).unwrap();
    assert!(s.iter().all(|s| s.symmetry == 0));
    // Position 2 (before b1): own stones a1 (first's), opponent's a2.
    assert_eq!(&s[2].planes[..9], &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(&s[2].planes[9..18], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn the_opponents_reply_target_is_the_next_moves_policy_or_the_move_played() {
    let mut r = ttt_record(&FIRST_WINS);
    // The fourth move (b2) a fast search's: no policy, not a training target.
    r.moves[3] = MoveRecord::untrained(FIRST_WINS[3]);
    let tg = TrainingGame::new(r.clone(), Ttt::default()).unwrap();
    assert_eq!(tg.len(), 4, "a1, a2, b1, c1 are trained on");
    let mut out = vec![7.0; 9];
    // a1's reply is a2, with its recorded policy (a2 favoured), under every symmetry.
    for sym in 0..8 {
        assert!(tg.write_opponent_policy(0, sym, &mut out).unwrap());
        let expected = &r.moves[1].policy;
        assert_eq!(out.iter().filter(|&&p| p > 0.0).count(), expected.len());
        for &(a, p) in expected {
            assert_eq!(out[map_cell(sym, a as usize)], p, "symmetry {sym}, action {a}");
        }
    }
    // b1's reply (b2) had no full search: the move played, as a one-hot.
    assert!(tg.write_opponent_policy(2, 1, &mut out).unwrap());
    let mut one_hot = vec![0.0; 9];
    one_hot[map_cell(1, FIRST_WINS[3] as usize)] = 1.0;
    assert_eq!(out, one_hot);
    // c1 ended the game: no reply, and the row is zeroed.
    assert!(!tg.write_opponent_policy(3, 0, &mut out).unwrap());
    assert_eq!(out, vec![0.0; 9]);
    // The buffer's checks are write_sample's.
    assert_eq!(
        err_text(tg.write_opponent_policy(4, 0, &mut out)),
        err_text(tg.write_sample(4, 0, &SampleOptions::default(), &mut [0.0; 27], &mut out))
    );
    assert!(
        err_text(tg.write_opponent_policy(0, 8, &mut out)).contains("symmetry 8"),
        "{}",
        err_text(tg.write_opponent_policy(0, 8, &mut out))
    );
    assert!(tg.write_opponent_policy(0, 0, &mut out[..8]).is_err());

    // A one-player game has no opponent.
    let dice = TrainingGame::new(dice_record([0, 1, 2, 3, 2], [0, 1, 1, 0, 0]), Dice::new()).unwrap();
    let mut out = vec![1.0; dice.num_actions()];
    assert!(!dice.write_opponent_policy(0, 0, &mut out).unwrap());
    assert!(out.iter().all(|&p| p == 0.0));
}

#[test]
fn values_alternate_with_the_side_to_move_and_weights_grow_late() {
    let r = ttt_record(&FIRST_WINS);
    let mut rng = Rng::seed_from_u64(9);
    let opts = SampleOptions { late_weight: Some(0.5), augment: true, ..SampleOptions::default() };
    let s = samples(&r, Ttt::default(), &mut rng, &opts).unwrap();
    let got: Vec<(usize, f32, f32)> = s.iter().map(|s| (s.ply, s.value, s.weight)).collect();
    assert_eq!(got, vec![(0, 1.0, 0.0625), (1, -1.0, 0.125), (2, 1.0, 0.25), (3, -1.0, 0.5), (4, 1.0, 1.0)]);

    // Untrained moves are skipped but still count as moves after a position.
    let mut r2 = r.clone();
    r2.moves[1] = MoveRecord::untrained(3);
    r2.moves[4].train = false;
    let s = samples(&r2, Ttt::default(), &mut rng, &opts).unwrap();
    let got: Vec<(usize, f32, f32)> = s.iter().map(|s| (s.ply, s.value, s.weight)).collect();
    assert_eq!(got, vec![(0, 1.0, 0.0625), (2, 1.0, 0.25), (3, -1.0, 0.5)]);

    // A resignation: the second player resigned after three moves.
    let mut r3 = ttt_record(&[4, 0, 8]);
    r3.resigned = true;
    r3.outcome = RecordOutcome::Win(Player::First);
    let s = samples(&r3, Ttt::default(), &mut rng, &SampleOptions::default()).unwrap();
    let values: Vec<f32> = s.iter().map(|s| s.value).collect();
    assert_eq!(values, vec![1.0, -1.0, 1.0]);
    assert!(s.iter().all(|s| s.weight == 1.0));

    // A draw is worth 0 to both sides.
    let draw = ttt_record(&[0, 4, 8, 1, 7, 6, 2, 5, 3]);
    let s = samples(&draw, Ttt::default(), &mut rng, &opts).unwrap();
    assert_eq!(s.len(), 9);
    assert!(s.iter().all(|s| s.value == 0.0));
}

#[test]
fn search_value_weight_mixes_the_root_value_into_win_and_draw_targets() {
    // Root values 0.1 .. 0.5 (mover's view); results +1/-1 alternating.
    let mut r = ttt_record(&FIRST_WINS);
    let mut rng = Rng::seed_from_u64(12);
    let half = SampleOptions { search_value_weight: 0.5, ..SampleOptions::default() };
    let values = |r: &GameRecord, opts: &SampleOptions, rng: &mut Rng| -> Vec<f32> {
        samples(r, Ttt::default(), rng, opts).unwrap().iter().map(|s| (s.value * 1000.0).round() / 1000.0).collect()
    };
    assert_eq!(values(&r, &half, &mut rng), vec![0.55, -0.4, 0.65, -0.3, 0.75]);
    let all = SampleOptions { search_value_weight: 1.0, ..SampleOptions::default() };
    assert_eq!(values(&r, &all, &mut rng), vec![0.1, 0.2, 0.3, 0.4, 0.5]);
    // A root value outside [-1, 1] (finite, so valid) is clamped.
    r.moves[0].root_value = 7.0;
    assert_eq!(values(&r, &all, &mut rng)[0], 1.0);
    // Score games keep the return still to come, whatever the weight.
    let dice = dice_record([0, 1, 2, 3, 2], [0, 1, 1, 0, 0]);
    let s = samples(&dice, Dice::new(), &mut rng, &all).unwrap();
    let scaled = |points: &[f64]| points.iter().map(|&p| all.return_scale.to_value(p)).collect::<Vec<f32>>();
    assert_eq!(s.iter().map(|s| s.value).collect::<Vec<_>>(), scaled(&[15.0, 14.0, 11.0, 7.0, 3.0]));
}

#[test]
fn score_games_value_the_return_still_to_come() {
    let r = dice_record([0, 1, 2, 3, 2], [0, 1, 1, 0, 0]);
    let mut rng = Rng::seed_from_u64(10);
    // A scale whose top is this game's whole return: the first target is exactly 1.
    let opts = SampleOptions { return_scale: ReturnScale::new(15.0), ..SampleOptions::default() };
    let s = samples(&r, Dice::new(), &mut rng, &opts).unwrap();
    let got: Vec<(usize, f32, f32)> = s.iter().map(|s| (s.ply, s.value, s.planes[0])).collect();
    // Rewards 1, 3, 4, 4, 3; the plane is the roll; values are h(G) / h(15) with MuZero's h.
    let h = |x: f64| (x + 1.0).sqrt() - 1.0 + 1e-3 * x;
    let v = |x: f64| (h(x) / h(15.0)) as f32;
    assert_eq!(got, vec![(0, 1.0, 1.0), (1, v(14.0), 2.0), (2, v(11.0), 2.0), (3, v(7.0), 1.0), (4, v(3.0), 1.0)]);
    assert!(s.iter().all(|s| s.symmetry == 0));
}

#[test]
fn samples_come_only_from_valid_records_and_bad_requests_are_errors() {
    let mut r = ttt_record(&FIRST_WINS);
    r.moves[2].action = 0;
    let err = TrainingGame::new(r, Ttt::default()).err().unwrap();
    assert_eq!(err.to_string(), "move 3 (a1): illegal move a1: the cell is occupied");

    let tg = TrainingGame::new(ttt_record(&FIRST_WINS), Ttt::default()).unwrap();
    let opts = SampleOptions::default();
    let (mut planes, mut policy) = (vec![0.0; 27], vec![0.0; 9]);
    let cases = [
        (
            tg.write_sample(5, 0, &opts, &mut planes, &mut policy),
            "bad sample request: position 5 of a game with 5 trainable positions",
        ),
        (
            tg.write_sample(0, 8, &opts, &mut planes, &mut policy),
            "bad sample request: symmetry 8 of a game with 8 symmetries",
        ),
        (
            tg.write_sample(0, 0, &opts, &mut planes[..26], &mut policy),
            "bad sample request: the planes buffer holds 26 floats but the game needs 27",
        ),
        (
            tg.write_sample(0, 0, &opts, &mut planes, &mut policy[..8]),
            "bad sample request: the policy buffer holds 8 floats but the game has 9 actions",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(err_text(got), want);
    }
    // A trainer's batch: rows of one big buffer, filled in place.
    let mut batch_planes = vec![f32::NAN; 4 * 27];
    let mut batch_policy = vec![f32::NAN; 4 * 9];
    for (row, (p, q)) in batch_planes.chunks_exact_mut(27).zip(batch_policy.chunks_exact_mut(9)).enumerate() {
        let t = tg.write_sample(row, row * 2, &opts, p, q).unwrap();
        assert_eq!(t.ply, row);
    }
    assert!(batch_planes.iter().chain(&batch_policy).all(|x| x.is_finite()));
}

// ---------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------

/// A fresh directory, removed with everything in it when the guard drops.
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("dojo-record-test-{name}-")).tempdir().unwrap()
}

#[test]
fn records_files_round_trip_atomically() {
    let tmp = temp_dir("roundtrip");
    let dir = tmp.path().to_path_buf();
    let path = dir.join("games.djr");
    let mut rng = Rng::seed_from_u64(11);
    let records: Vec<GameRecord> = (0..30).map(|_| random_ttt_record(&mut rng)).collect();
    write_records(&path, &records).unwrap();
    assert_eq!(read_records(&path).unwrap(), records);
    // Overwriting replaces the whole file and leaves no temporary behind.
    write_records(&path, &records[..3]).unwrap();
    assert_eq!(read_records(&path).unwrap(), records[..3].to_vec());
    write_records(&path, &[]).unwrap();
    assert_eq!(read_records(&path).unwrap(), Vec::<GameRecord>::new());
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("games.djr")]);
}

#[test]
fn bad_files_name_the_file_and_offset() {
    let tmp = temp_dir("bad");
    let dir = tmp.path().to_path_buf();
    let path = dir.join("games.djr");
    let records = vec![ttt_record(&FIRST_WINS), ttt_record(&[0, 4, 8, 1, 7, 6, 2, 5, 3]), ttt_record(&FIRST_WINS)];
    write_records(&path, &records).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let first = records[0].encode().len();
    let second = records[1].encode().len();
    let p = path.display();

    std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
    assert_eq!(
        err_text(read_records(&path)),
        format!("{p} at byte {}: record truncated in the body at byte {}", 8 + first + second, first - 10)
    );

    let mut flipped = bytes.clone();
    flipped[8 + first + 20] ^= 1;
    std::fs::write(&path, &flipped).unwrap();
    let err = err_text(read_records(&path));
    assert!(err.starts_with(&format!("{p} at byte {}: record checksum mismatch", 8 + first)), "{err}");

    std::fs::write(&path, b"DOJOREC\x02").unwrap();
    assert_eq!(
        err_text(read_records(&path)),
        format!("{p} at byte 0: unsupported records file format version 2 (this build reads version 1)")
    );
    std::fs::write(&path, b"DOJO").unwrap();
    assert_eq!(err_text(read_records(&path)), format!("{p} at byte 0: record truncated in the file header at byte 4"));
    std::fs::write(&path, b"{\"json\": 1}").unwrap();
    let err = err_text(read_records(&path));
    assert!(err.starts_with(&format!("{p} at byte 0: not a game record: bad magic")), "{err}");

    let missing = dir.join("missing.djr");
    let err = err_text(read_records(&missing));
    assert!(err.starts_with(&format!("cannot read {}: ", missing.display())), "{err}");
    let err = err_text(write_records(dir.join("no/such/dir/x.djr"), &records));
    assert!(err.starts_with("cannot create "), "{err}");
}

#[test]
fn outcomes_convert_both_ways() {
    for o in [Outcome::Win(Player::First), Outcome::Win(Player::Second), Outcome::Draw, Outcome::Score(2584)] {
        assert_eq!(Outcome::from(RecordOutcome::from(o)), o);
    }
    let r = base_record(GameSpec::connect4());
    assert_eq!(r.id_hex(), "30313233343536373839616263646566");
}

/// Black's six in a row on 9×9: black plays a1 b1 c1 e1 f1, white answers on row 3, and
/// black's d1 fills the gap (eleven moves), the record claiming black's win.
fn overline_record(spec: GameSpec) -> GameRecord {
    let mut g = dojo_game::gomoku::Gomoku::new(9).unwrap();
    let mut r = base_record(spec);
    let black = [(0, 0), (1, 0), (2, 0), (4, 0), (5, 0), (3, 0)];
    let white = [(0, 2), (1, 2), (2, 2), (4, 2), (6, 2)];
    for i in 0..black.len() {
        for &(x, y) in black.get(i).into_iter().chain(white.get(i).filter(|_| i + 1 < black.len())) {
            let a = g.action_at(x, y);
            r.moves.push(MoveRecord::player(a, policy_for(&g, a), 0.0));
            g.play(a).unwrap();
        }
    }
    r.outcome = RecordOutcome::Win(Player::First);
    r
}

#[test]
fn a_gomoku_record_replays_by_its_specs_rule() {
    // Freestyle: the six is a win; the record validates.
    overline_record("gomoku:9".parse().unwrap()).validate().unwrap();
    // Standard: the same stones make an overline, which does not win, so the game goes on
    // and the record's claimed win is refused; its spec text round-trips with the rule.
    let standard = overline_record("gomoku:9:standard".parse().unwrap());
    assert_eq!(
        standard.validate().unwrap_err().to_string(),
        "invalid record: the game is not over after 11 moves and the record is not marked resigned"
    );
    let back = GameRecord::decode(&standard.encode()).unwrap();
    assert_eq!(back.spec.to_string(), "gomoku:9:standard");
}
