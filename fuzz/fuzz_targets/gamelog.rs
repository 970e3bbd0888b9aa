//! The learner's game log (`learner/src/gamelog.rs`): a run folder whose segment files hold
//! the fuzzed bytes (split into up to three segments at each `SEG|`), opened with
//! `GameLog::open`. It must return Ok (truncating a torn tail of the last segment, as
//! designed) or an error, never panic; and once it opened, the repaired log must take an
//! append and open again.
#![no_main]

use dojo_game::connect4::Connect4;
use dojo_record::random_game_record;
use dojo_base::rng::Rng;
use dojo_learner::gamelog::{segment_name, GameLog};
use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;
use std::sync::OnceLock;

fn new_game() -> &'static dojo_record::GameRecord {
    static GAME: OnceLock<dojo_record::GameRecord> = OnceLock::new();
    GAME.get_or_init(|| {
        let mut r = random_game_record(&Connect4::<u64>::standard(), 1, &mut Rng::seed_from_u64(7));
        r.game_id = *b"fuzz-appended-id";
        r
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = dojo_fuzz::scratch_dir();
    let games = dir.path().join("games");
    std::fs::create_dir(&games).expect("create the games folder");
    for (i, segment) in dojo_fuzz::split(data, b"SEG|", 3).into_iter().enumerate() {
        std::fs::write(games.join(segment_name(i as u64 + 1)), segment).expect("write a segment");
    }
    // Small segments, so that the append below may roll over to a new one.
    let Ok((mut log, records)) = GameLog::open(&games, 4096) else { return };
    let mut ids = std::collections::HashSet::new();
    assert!(records.iter().all(|r| ids.insert(r.game_id)), "open returns each game id once");
    assert_eq!(log.len(), records.len());
    let fresh = !log.contains(&new_game().game_id);
    log.append(new_game()).expect("a repaired log takes an append");
    drop(log);
    let (again, records) = GameLog::open(&games, 4096).expect("a repaired log opens again");
    assert!(again.recovery().is_none(), "nothing to repair twice: {:?}", again.recovery());
    assert!(again.contains(&new_game().game_id));
    assert_eq!(records.len(), ids.len() + usize::from(fresh));
});
