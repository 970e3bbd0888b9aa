//! The spool keeps every pushed game across reopens and crashes, hands them back oldest
//! first, forgets acknowledged ones, and survives garbage in its directory.

use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_record::{random_game_record, GameRecord};
use dojo_worker::spool::{Spool, SpoolError, LOCK_FILE, QUARANTINE_DIR};
use rand::SeedableRng;
use std::fs;
use std::path::Path;

/// A real, random, finished Connect Four game.
fn game(rng: &mut Rng) -> GameRecord {
    let record = random_game_record(&Connect4::<u64>::standard(), 0, rng);
    record.validate().unwrap();
    record
}

fn games(seed: u64, n: usize) -> Vec<GameRecord> {
    let mut rng = Rng::seed_from_u64(seed);
    (0..n).map(|_| game(&mut rng)).collect()
}

/// Names of the entries directly in `dir`, sorted, but the worker's lock file.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != LOCK_FILE)
        .collect();
    v.sort();
    v
}

fn rec_name(r: &GameRecord) -> String {
    format!("{}.rec", r.id_hex())
}

/// Sorted the way the spool promises: by finish time, then id.
fn oldest_first(mut v: Vec<GameRecord>) -> Vec<GameRecord> {
    v.sort_by_key(|r| (r.created_unix_ms, r.game_id));
    v
}

#[test]
fn pushed_games_survive_a_reopen_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("spool");
    let recs = games(1, 5);
    {
        let mut spool = Spool::open(&dir).unwrap();
        assert!(spool.is_empty());
        for r in &recs {
            spool.push(r).unwrap();
        }
        assert_eq!(spool.len(), 5);
        assert_eq!(spool.pending(), oldest_first(recs.clone()));
    }
    // One file per game holding exactly the encoding, and no temp files left behind.
    let mut expected: Vec<String> = recs.iter().map(rec_name).collect();
    expected.sort();
    assert_eq!(names(&dir), expected);
    for r in &recs {
        assert_eq!(fs::read(dir.join(rec_name(r))).unwrap(), r.encode());
    }

    let spool = Spool::open(&dir).unwrap();
    assert_eq!(spool.len(), 5);
    assert_eq!(spool.pending(), oldest_first(recs.clone()));
    assert!(spool.quarantined().is_empty());
    assert_eq!(spool.temp_files_removed(), 0);
    assert!(recs.iter().all(|r| spool.contains(&r.game_id)));
}

#[test]
fn pushing_the_same_game_twice_keeps_one_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let mut spool = Spool::open(tmp.path()).unwrap();
    let r = games(2, 1).remove(0);
    spool.push(&r).unwrap();
    spool.push(&r).unwrap();
    assert_eq!(spool.len(), 1);
    assert_eq!(names(tmp.path()), vec![rec_name(&r)]);
    // A re-push with a different finish time moves it in the order, not duplicates it.
    let mut later = r.clone();
    later.created_unix_ms += 1000;
    spool.push(&later).unwrap();
    assert_eq!(spool.pending(), vec![later.clone()]);
    drop(spool);
    assert_eq!(Spool::open(tmp.path()).unwrap().pending(), vec![later]);
}

#[test]
fn ack_removes_the_game_and_is_idempotent() {
    let tmp = tempfile::tempdir().unwrap();
    let recs = oldest_first(games(3, 4));
    let mut spool = Spool::open(tmp.path()).unwrap();
    for r in &recs {
        spool.push(r).unwrap();
    }
    spool.ack(&recs[1].game_id).unwrap();
    assert_eq!(spool.len(), 3);
    assert!(!spool.contains(&recs[1].game_id));
    assert!(!tmp.path().join(rec_name(&recs[1])).exists());
    // Again, and an id that was never pushed: no error, nothing else touched.
    spool.ack(&recs[1].game_id).unwrap();
    spool.ack(&[0xee; 16]).unwrap();
    assert_eq!(spool.len(), 3);
    assert_eq!(spool.pending(), vec![recs[0].clone(), recs[2].clone(), recs[3].clone()]);

    // The ack is on disk: a reopen does not bring the game back.
    drop(spool);
    let mut spool = Spool::open(tmp.path()).unwrap();
    assert_eq!(spool.pending(), vec![recs[0].clone(), recs[2].clone(), recs[3].clone()]);
    for r in &recs {
        spool.ack(&r.game_id).unwrap();
    }
    assert!(spool.is_empty());
    assert_eq!(spool.pending(), Vec::<GameRecord>::new());
    assert_eq!(names(tmp.path()), Vec::<String>::new());
}

#[test]
fn pending_is_oldest_first_by_time_then_id() {
    let tmp = tempfile::tempdir().unwrap();
    let mut recs = games(4, 5);
    // Times out of push order, with a tie that the id must break.
    let times = [300, 100, 200, 100, 50];
    for (r, t) in recs.iter_mut().zip(times) {
        r.created_unix_ms = t;
    }
    recs[1].game_id = [0x20; 16];
    recs[3].game_id = [0x10; 16];
    let mut spool = Spool::open(tmp.path()).unwrap();
    for r in &recs {
        spool.push(r).unwrap();
    }
    let expect = vec![recs[4].clone(), recs[3].clone(), recs[1].clone(), recs[2].clone(), recs[0].clone()];
    assert_eq!(spool.pending(), expect);
    let ids: Vec<[u8; 16]> = expect.iter().map(|r| r.game_id).collect();
    assert_eq!(spool.pending_ids(), ids);
    // The order does not depend on the directory's listing order.
    drop(spool);
    assert_eq!(Spool::open(tmp.path()).unwrap().pending(), expect);
}

#[test]
fn open_quarantines_corrupt_files_removes_temp_files_and_loads_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let recs = games(5, 5);
    let mut spool = Spool::open(dir).unwrap();
    for r in &recs[..2] {
        spool.push(r).unwrap();
    }
    drop(spool);

    // A torn record under its own name (a filesystem that lost the tail).
    let torn = recs[2].encode();
    fs::write(dir.join(rec_name(&recs[2])), &torn[..torn.len() / 2]).unwrap();
    // Garbage with a spool name, and a file that is not a spool file at all.
    fs::write(dir.join(format!("{}.rec", "ab".repeat(16))), b"not a record at all").unwrap();
    fs::write(dir.join("notes.txt"), b"hello").unwrap();
    // A valid record under another game's name: an ack by id could never remove it.
    fs::write(dir.join(rec_name(&recs[4])), recs[3].encode()).unwrap();
    // A leftover temp file of an interrupted push (named as atomic_write names it).
    fs::write(dir.join(format!(".{}.rec.tmp4242", recs[3].id_hex())), &recs[3].encode()[..10]).unwrap();

    let spool = Spool::open(dir).unwrap();
    assert_eq!(spool.pending(), oldest_first(recs[..2].to_vec()));
    assert_eq!(spool.temp_files_removed(), 1);
    let q = spool.quarantined();
    assert_eq!(q.len(), 4, "{q:?}");
    let reason = |name: &str| {
        let entry = q.iter().find(|e| e.from == dir.join(name)).unwrap_or_else(|| panic!("{name} not in {q:?}"));
        assert_eq!(entry.to, dir.join(QUARANTINE_DIR).join(name));
        entry.reason.clone()
    };
    let r = reason(&rec_name(&recs[2]));
    assert!(r.contains("not a valid game record") && r.contains("truncated"), "{r}");
    let r = reason(&format!("{}.rec", "ab".repeat(16)));
    assert!(r.contains("bad magic"), "{r}");
    let r = reason("notes.txt");
    assert!(r.contains("unexpected file name \"notes.txt\""), "{r}");
    let r = reason(&rec_name(&recs[4]));
    assert!(r.contains(&format!("holds game {}, not the game {}", recs[3].id_hex(), recs[4].id_hex())), "{r}");

    // Moved, not deleted: the bytes are intact in quarantine/.
    assert_eq!(fs::read(dir.join(QUARANTINE_DIR).join(rec_name(&recs[2]))).unwrap(), &torn[..torn.len() / 2]);
    assert_eq!(fs::read(dir.join(QUARANTINE_DIR).join("notes.txt")).unwrap(), b"hello");
    let mut expected: Vec<String> = recs[..2].iter().map(rec_name).collect();
    expected.push(QUARANTINE_DIR.to_string());
    expected.sort();
    assert_eq!(names(dir), expected);

    // A second open finds nothing more to do and leaves quarantine/ alone.
    drop(spool);
    let spool = Spool::open(dir).unwrap();
    assert!(spool.quarantined().is_empty());
    assert_eq!(spool.temp_files_removed(), 0);
    assert_eq!(spool.len(), 2);
    assert_eq!(names(&dir.join(QUARANTINE_DIR)).len(), 4);
}

#[test]
fn quarantine_never_overwrites_an_earlier_quarantined_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fs::write(dir.join("junk"), b"first").unwrap();
    Spool::open(dir).unwrap();
    fs::write(dir.join("junk"), b"second").unwrap();
    let spool = Spool::open(dir).unwrap();
    assert_eq!(spool.quarantined()[0].to, dir.join(QUARANTINE_DIR).join("junk.1"));
    assert_eq!(fs::read(dir.join(QUARANTINE_DIR).join("junk")).unwrap(), b"first");
    assert_eq!(fs::read(dir.join(QUARANTINE_DIR).join("junk.1")).unwrap(), b"second");
}

#[test]
fn a_worker_killed_mid_write_loses_nothing_pushed_before() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let recs = games(6, 4);
    let mut spool = Spool::open(dir).unwrap();
    for r in &recs[..3] {
        spool.push(r).unwrap();
    }
    spool.ack(&recs[0].game_id).unwrap();
    // The kill: the fourth push got as far as part of its temp file, never to the rename.
    let bytes = recs[3].encode();
    fs::write(dir.join(format!(".{}.rec.tmp{}", recs[3].id_hex(), std::process::id())), &bytes[..bytes.len() - 7])
        .unwrap();
    // The kill closes the worker's files, and with them its lock on the spool.
    drop(spool);

    let mut spool = Spool::open(dir).unwrap();
    assert_eq!(spool.pending(), oldest_first(recs[1..3].to_vec()));
    assert_eq!(spool.temp_files_removed(), 1);
    assert!(spool.quarantined().is_empty());
    let mut expected: Vec<String> = recs[1..3].iter().map(rec_name).collect();
    expected.sort();
    assert_eq!(names(dir), expected);
    // The restarted worker replays the lost game and the spool carries on.
    spool.push(&recs[3]).unwrap();
    drop(spool);
    assert_eq!(Spool::open(dir).unwrap().pending(), oldest_first(recs[1..].to_vec()));
}

#[test]
fn open_on_a_file_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("not-a-dir");
    fs::write(&file, b"x").unwrap();
    let err = Spool::open(&file).unwrap_err();
    assert!(matches!(err, SpoolError::Io { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.starts_with("spool: cannot create the spool directory ") && msg.contains("not-a-dir"), "{msg}");
}

#[test]
fn a_record_that_would_not_load_again_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let mut spool = Spool::open(tmp.path()).unwrap();
    let mut r = games(7, 1).remove(0);
    // Over the codec's policy limit: encode() accepts it but decode() does not.
    let last = r.moves.last().unwrap().clone();
    r.moves.last_mut().unwrap().policy = vec![(last.action, 0.0); dojo_record::MAX_POLICY + 1];
    let err = spool.push(&r).unwrap_err();
    assert!(matches!(err, SpoolError::Undecodable { .. }), "{err:?}");
    assert!(err.to_string().contains(&r.id_hex()), "{err}");
    assert!(spool.is_empty());
    assert_eq!(names(tmp.path()), Vec::<String>::new());
}

/// "pid N on host H" for this machine.
fn holder(pid: u32) -> String {
    let host = fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    format!("pid {pid} on host {}", host.trim())
}

#[test]
fn a_second_open_of_a_held_spool_fails_naming_the_holder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("spool");
    let mut spool = Spool::open(&dir).unwrap();
    let r = games(8, 1).remove(0);
    spool.push(&r).unwrap();
    assert_eq!(fs::read_to_string(dir.join(LOCK_FILE)).unwrap(), format!("{}\n", holder(std::process::id())));
    // flock locks belong to an open file: a second open in this process is refused too.
    let err = Spool::open(&dir).unwrap_err();
    assert!(matches!(&err, SpoolError::InUse { holder: h, .. } if *h == holder(std::process::id())), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "spool: {} is in use by another worker ({}): give each worker a spool directory of its own (--spool)",
            dir.display(),
            holder(std::process::id())
        )
    );
    // Refused, it touched nothing; once the holder is gone the spool opens with its game.
    assert_eq!(names(&dir), vec![rec_name(&r)]);
    drop(spool);
    assert_eq!(Spool::open(&dir).unwrap().pending(), vec![r]);
}
