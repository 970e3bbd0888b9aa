//! Checking a submitted game before it is stored: decodable, for this run's game, every move
//! legal when replayed, policy targets summing to 1 over legal moves, sizes within limits.

use dojo_core::game::GameSpec;
use dojo_core::record::GameRecord;

/// Largest encoded record accepted (a 19×19 Gomoku game with full policies is far below).
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
    let record = GameRecord::decode(bytes)
        .map_err(|e| Rejection { game_id: None, reason: format!("undecodable record: {e}") })?;
    let reject = |reason: String| Rejection { game_id: Some(record.game_id), reason };
    if record.spec != *spec {
        return Err(reject(format!(
            "game {} is played on {}, but this run plays {spec}",
            record.id_hex(),
            record.spec
        )));
    }
    if record.player_moves() == 0 {
        return Err(reject(format!("game {} has no moves", record.id_hex())));
    }
    record.validate().map_err(|e| reject(format!("game {}: {e}", record.id_hex())))?;
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_core::game::connect4::Connect4;
    use dojo_core::game::Game;
    use dojo_core::record::MoveRecord;

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

        let err = check_record(&good.encode(), &GameSpec::Gomoku { size: 9 }).unwrap_err();
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
        lied.outcome = dojo_core::record::RecordOutcome::Draw;
        assert!(check_record(&lied.encode(), &GameSpec::connect4()).is_err());

        let empty = GameRecord::new([1; 16], GameSpec::connect4(), 1);
        assert!(check_record(&empty.encode(), &GameSpec::connect4()).unwrap_err().reason.contains("has no moves"));
    }
}
