//! Checking a submitted game before it is stored: decodable, for this run's game, every move
//! legal when replayed, policy targets summing to 1 over legal moves, sizes within limits.

use dojo_game::GameSpec;
use dojo_record::GameRecord;
use std::time::Duration;

/// Bounds on what uploads may take of a learner, so that no client (slow, stuck or
/// flooding) can exhaust its memory or keep the others waiting. With them, memory for
/// ingest stays below about `queue_bytes` + `max_streams` × the largest message (8 MiB) +
/// connections × the HTTP/2 connection window (512 KiB), however many clients send.
#[derive(Clone, Debug)]
pub struct IngestLimits {
    /// SubmitGames streams served at once, in all. More wait for a turn (up to
    /// `request_timeout`, then RESOURCE_EXHAUSTED); a waiting stream is not read, so it
    /// holds no more than HTTP/2's window of its client's data.
    pub max_streams: usize,
    /// Calls one connection (one client) may have open at once: HTTP/2's
    /// SETTINGS_MAX_CONCURRENT_STREAMS, so a client's extra calls wait on its own side.
    pub max_streams_per_connection: u32,
    /// Games one stream may carry; after that it ends with RESOURCE_EXHAUSTED (what was
    /// acknowledged is stored) and the client sends the rest in another.
    pub max_games_per_stream: u64,
    /// Encoded bytes of received games not yet stored, in all: the bounded ingest queue. A
    /// stream whose next game does not fit waits, and reads nothing meanwhile. A game's
    /// room is given back once it is on disk, whether or not its client takes the ack.
    pub queue_bytes: usize,
    /// Games one stream may have read and not yet acknowledged (pipelining, so a stream's
    /// games share fsyncs with each other as well as with other streams').
    pub stream_window: usize,
    /// The longest a stream waits for its client's next game, or for its client to take an
    /// ack; a stuck client's stream then ends with DEADLINE_EXCEEDED and frees its turn.
    pub idle_timeout: Duration,
    /// The longest one stream may last.
    pub stream_deadline: Duration,
    /// The longest any call may take before it returns its response (a turn included);
    /// a client's own `grpc-timeout` applies when shorter.
    pub request_timeout: Duration,
    /// Games stored with one write and one fsync at most (group commit).
    pub max_batch: usize,
}

impl Default for IngestLimits {
    fn default() -> Self {
        IngestLimits {
            max_streams: 128,
            max_streams_per_connection: 8,
            max_games_per_stream: 4096,
            queue_bytes: 64 << 20,
            stream_window: 256,
            idle_timeout: Duration::from_secs(30),
            stream_deadline: Duration::from_secs(600),
            request_timeout: Duration::from_secs(30),
            max_batch: 1024,
        }
    }
}

/// Ingest limits that would stop every upload.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LimitsError {
    /// A count (`max_streams`, `max_batch`...) of 0.
    #[error("ingest limit {name} must be at least 1")]
    Zero { name: &'static str },
    #[error("ingest limit queue_bytes is {queue_bytes}; it must hold the largest record, {max} bytes", max = MAX_RECORD_BYTES)]
    QueueTooSmall { queue_bytes: usize },
    #[error("ingest limit queue_bytes is {queue_bytes}; at most {} bytes", u32::MAX)]
    QueueTooLarge { queue_bytes: usize },
}

impl IngestLimits {
    /// Refuses limits that would stop every upload.
    pub fn validate(&self) -> Result<(), LimitsError> {
        let counts = [
            ("max_streams", self.max_streams as u64),
            ("max_streams_per_connection", u64::from(self.max_streams_per_connection)),
            ("max_games_per_stream", self.max_games_per_stream),
            ("stream_window", self.stream_window as u64),
            ("max_batch", self.max_batch as u64),
        ];
        for (name, n) in counts {
            if n == 0 {
                return Err(LimitsError::Zero { name });
            }
        }
        if self.queue_bytes < MAX_RECORD_BYTES {
            return Err(LimitsError::QueueTooSmall { queue_bytes: self.queue_bytes });
        }
        if self.queue_bytes > u32::MAX as usize {
            return Err(LimitsError::QueueTooLarge { queue_bytes: self.queue_bytes });
        }
        Ok(())
    }
}

/// Largest encoded record accepted (a 20×20 Gomoku game with full policies is far below).
pub const MAX_RECORD_BYTES: usize = 4 << 20;

/// Why a submitted game was refused; the text goes back to the worker verbatim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub game_id: Option<[u8; 16]>,
    pub reason: String,
}

/// Decodes and validates one submitted record for a run of `spec`.
pub fn check_record(bytes: &[u8], spec: &GameSpec) -> Result<GameRecord, Rejection> {
    if bytes.len() > MAX_RECORD_BYTES {
        return Err(Rejection {
            game_id: None,
            reason: format!("record is {} bytes; the limit is {MAX_RECORD_BYTES}", bytes.len()),
        });
    }
    // tidy: text cause: a rejection's reason goes back to the worker as text.
    let record = GameRecord::decode(bytes)
        .map_err(|e| Rejection { game_id: None, reason: format!("undecodable record: {e}") })?;
    let reject = |reason: String| Rejection { game_id: Some(record.game_id), reason };
    // connect4:saiblo games each name the board they were drawn.
    if !spec.admits(&record.spec) {
        return Err(reject(format!(
            "game {} is played on {}, but this run plays {spec}",
            record.id_hex(),
            record.spec
        )));
    }
    if record.player_moves() == 0 {
        return Err(reject(format!("game {} has no moves", record.id_hex())));
    }
    // tidy: text cause: as the undecodable record's above.
    record.validate().map_err(|e| reject(format!("game {}: {e}", record.id_hex())))?;
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::connect4::Connect4;
    use dojo_game::Game;
    use dojo_record::MoveRecord;

    fn game(moves: &str) -> GameRecord {
        let mut g = Connect4::<u64>::standard();
        let mut r = GameRecord::new([7; 16], GameSpec::connect4(), 1);
        for a in g.moves_from_text(moves).unwrap() {
            g.play(a).unwrap();
            r.moves.push(MoveRecord::player(a, vec![(a, 1.0)], 0.0));
        }
        if let Some(o) = g.outcome() {
            r.outcome = o.into();
        }
        r
    }

    #[test]
    fn good_records_pass_and_bad_ones_say_why() {
        let good = game("1212121");
        assert_eq!(check_record(&good.encode(), &GameSpec::connect4()).unwrap(), good);

        let err = check_record(&good.encode(), &GameSpec::gomoku(9)).unwrap_err();
        assert_eq!(err.game_id, Some([7; 16]));
        assert!(err.reason.contains("is played on connect4:7x6, but this run plays gomoku:9"), "{}", err.reason);

        let err = check_record(b"garbage", &GameSpec::connect4()).unwrap_err();
        assert!(err.reason.starts_with("undecodable record"), "{}", err.reason);
        assert_eq!(err.game_id, None);

        let mut wrong = game("1212121");
        wrong.moves[2].policy = vec![(0, 0.5)];
        let err = check_record(&wrong.encode(), &GameSpec::connect4()).unwrap_err();
        assert!(err.reason.contains("move 3"), "{}", err.reason);

        let mut lied = game("1212121");
        lied.outcome = dojo_record::RecordOutcome::Draw;
        assert!(check_record(&lied.encode(), &GameSpec::connect4()).is_err());

        let empty = GameRecord::new([1; 16], GameSpec::connect4(), 1);
        assert!(check_record(&empty.encode(), &GameSpec::connect4()).unwrap_err().reason.contains("has no moves"));
    }

    #[test]
    fn a_saiblo_run_takes_games_on_each_of_its_boards_and_no_other() {
        let saiblo = GameSpec::Connect4Saiblo;
        let on = |spec: &str, moves: &str| {
            let spec: GameSpec = spec.parse().unwrap();
            let mut g = dojo_game::connect4::Connect4::<dojo_base::bits::Bits192>::new(
                spec.largest_board().unwrap().0,
                spec.largest_board().unwrap().1,
                &match &spec {
                    GameSpec::Connect4 { blocked, .. } => {
                        blocked.iter().map(|&(c, r)| (c as usize, r as usize)).collect::<Vec<_>>()
                    }
                    _ => unreachable!(),
                },
            )
            .unwrap();
            let mut r = GameRecord::new([3; 16], spec, 1);
            for a in g.moves_from_text(moves).unwrap() {
                g.play(a).unwrap();
                r.moves.push(MoveRecord::player(a, vec![(a, 1.0)], 0.0));
            }
            if let Some(o) = g.outcome() {
                r.outcome = o.into();
            }
            r
        };
        // The first player's four in column 1.
        for board in ["connect4:9x9:5.1", "connect4:12x10:12.10", "connect4:10x12:1.7"] {
            let r = on(board, "1 2 1 2 1 2 1");
            assert_eq!(check_record(&r.encode(), &saiblo).unwrap(), r, "{board}");
        }
        for (board, why) in [
            ("connect4:8x9:1.1", "too narrow"),
            ("connect4:9x9", "no blocked cell"),
            ("connect4:9x9:1.1,2.1", "two blocked cells"),
        ] {
            let err = check_record(&on(board, "1 2 1 2 1 2 1").encode(), &saiblo).unwrap_err();
            assert!(
                err.reason.contains(&format!("is played on {board}, but this run plays connect4:saiblo")),
                "{why}: {}",
                err.reason
            );
        }
    }
}
