//! The worker's spool folder (`worker/src/spool.rs`) as a crash or a person may leave it:
//! the first byte adds up to three valid spooled games (so the happy path is always near),
//! the rest is split at `|FILE|` into files, each `NAME\0CONTENTS` (names reduced to one
//! path component); `Spool::open` must load every valid record filed under its own id,
//! remove exactly its own temp files, quarantine everything else, and never panic. A second
//! open finds the same games, and acking them all empties the spool.
#![no_main]

use dojo_game::connect4::Connect4;
use dojo_record::random_game_record;
use dojo_base::rng::Rng;
use dojo_worker::spool::{Spool, LOCK_FILE};
use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    let dir = dojo_fuzz::scratch_dir();
    let mut files = 0;
    let mut rng = Rng::seed_from_u64(u64::from(first));
    for _ in 0..first % 4 {
        let record = random_game_record(&Connect4::<u64>::standard(), 1, &mut rng);
        std::fs::write(dir.path().join(format!("{}.rec", record.id_hex())), record.encode()).expect("write a game");
        files += 1;
    }
    for part in dojo_fuzz::split(rest, b"|FILE|", 16) {
        let (name, contents) = match part.iter().position(|&b| b == 0) {
            Some(i) => (&part[..i], &part[i + 1..]),
            None => (part, &[][..]),
        };
        let name: String = String::from_utf8_lossy(name).chars().filter(|c| *c != '/' && *c != '\0').take(100).collect();
        // The spool's own folder and lock file are its, not files left in it.
        if name.is_empty() || name == "." || name == ".." || name == "quarantine" || name == LOCK_FILE {
            continue;
        }
        let path = dir.path().join(&name);
        if path.exists() {
            continue;
        }
        // A name the filesystem refuses (too long in bytes) is not a file anyone can leave.
        if std::fs::write(&path, contents).is_ok() {
            files += 1;
        }
    }
    let Ok(spool) = Spool::open(dir.path()) else { return };
    assert_eq!(spool.len() + spool.quarantined().len() + spool.temp_files_removed(), files, "every file is loaded, removed or quarantined");
    for record in spool.pending() {
        assert!(dir.path().join(format!("{}.rec", record.id_hex())).is_file(), "a loaded game is filed under its id");
    }
    let ids = spool.pending_ids();
    drop(spool);
    let mut again = Spool::open(dir.path()).expect("a cleaned spool opens again");
    assert_eq!(again.pending_ids(), ids, "a second open finds the same games");
    assert!(again.quarantined().is_empty() && again.temp_files_removed() == 0, "nothing left to clean");
    for id in &ids {
        again.ack(id).expect("ack a pending game");
    }
    assert!(again.is_empty());
    drop(again); // the spool's lock: one open at a time
    assert!(Spool::open(dir.path()).expect("reopen").is_empty(), "acks are durable");
});
