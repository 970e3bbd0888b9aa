//! Game record bytes (`record/src/`): `GameRecord::decode`/`decode_prefix` on the raw
//! input and on the input framed with a valid checksum (so the body parser is reached),
//! then what a receiver does with a decoded record: `validate` (the replay), training
//! samples under every symmetry, and re-encoding (which must decode to the same bytes).
//! The input is also read as a records file (`read_records`).
#![no_main]

use dojo_record::{read_records, GameRecord, SampleOptions, TrainingGame};
use dojo_game::with_game;
use libfuzzer_sys::fuzz_target;

fn exercise(bytes: &[u8]) {
    let _ = GameRecord::decode(bytes);
    let Ok((record, used)) = GameRecord::decode_prefix(bytes) else { return };
    assert!(used <= bytes.len());
    // A decoded record encodes to bytes that decode again, to the same encoding.
    let encoded = record.encode();
    let again = GameRecord::decode(&encoded).expect("a decoded record's encoding decodes");
    assert_eq!(again.encode(), encoded, "re-encoding is stable");
    let Ok(()) = record.validate() else { return };
    // A valid record: cut its training samples as the learner does.
    let start = record.start().expect("a validated record has a start position");
    with_game!(start, g => {
        let opts = SampleOptions { late_weight: Some(0.9), augment: true, search_value_weight: 0.5, ..SampleOptions::default() };
        let game = TrainingGame::new(record.clone(), g).expect("a validated record replays for training");
        let mut planes = vec![0f32; game.plane_shape().len()];
        let mut policy = vec![0f32; game.num_actions()];
        for i in 0..game.len().min(32) {
            for sym in 0..game.num_symmetries() {
                game.write_sample(i, sym, &opts, &mut planes, &mut policy).expect("a sample of a valid record");
            }
        }
    });
}

fuzz_target!(|data: &[u8]| {
    exercise(data);
    exercise(&dojo_fuzz::frame_record(data));
    // The input as a records file (`dojo selfplay --out`).
    let dir = dojo_fuzz::scratch_dir();
    let path = dir.path().join("games.dojorec");
    std::fs::write(&path, data).expect("write the records file");
    let _ = read_records(&path);
});
