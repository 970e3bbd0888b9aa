//! The protobuf messages of the learner's gRPC contract (`proto/dojo.proto`), decoded with
//! prost as tonic does, and what their receivers do next: a submitted game goes through the
//! learner's ingest check (`learner/src/ingest.rs`: decode, spec, replay); a HelloReply's
//! game spec and search/self-play JSON are parsed and validated as a worker reads them.
//! The first byte picks the message; the rest is its encoding.
#![no_main]

use dojo_game::GameSpec;
use dojo_record::GameRecord;
use dojo_search::config::{SearchConfig, SelfPlayConfig};
use dojo_learner::ingest::check_record;
use dojo_proto::pb;
use libfuzzer_sys::fuzz_target;
use prost::Message;

fn ingest(record: &[u8]) {
    // Against the run the record claims (so decodable records reach the replay), and
    // against fixed runs of every family.
    if let Ok(r) = GameRecord::decode(record) {
        let _ = check_record(record, &r.spec);
    }
    for spec in [GameSpec::connect4(), GameSpec::gomoku(9), GameSpec::Twenty48] {
        let _ = check_record(record, &spec);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else { return };
    match which % 8 {
        0 => {
            if let Ok(m) = pb::GameSubmission::decode(bytes) {
                ingest(&m.record);
            }
        }
        1 => {
            let _ = pb::HelloRequest::decode(bytes);
        }
        2 => {
            let _ = pb::GetModelRequest::decode(bytes);
        }
        3 => {
            if let Ok(m) = pb::ModelChunk::decode(bytes) {
                let _ = serde_json::from_str::<dojo_net::checkpoint::Sidecar>(&m.sidecar_json)
                    .map(|s| s.architecture.validate());
            }
        }
        4 => {
            if let Ok(m) = pb::HelloReply::decode(bytes) {
                let _ = m.game.parse::<GameSpec>();
                if let Ok(s) = serde_json::from_str::<SearchConfig>(&m.search_json) {
                    let _ = s.validate();
                }
                if let Ok(s) = serde_json::from_str::<SelfPlayConfig>(&m.selfplay_json) {
                    let _ = s.validate();
                }
            }
        }
        5 => {
            if let Ok(m) = pb::GameAck::decode(bytes) {
                let _ = pb::game_ack::Result::try_from(m.result);
            }
        }
        6 => {
            let _ = pb::StatusReply::decode(bytes);
            let _ = pb::StatusRequest::decode(bytes);
        }
        _ => {
            // A stream of length-delimited submissions, as a gRPC body carries them.
            let mut rest = bytes;
            while !rest.is_empty() {
                match pb::GameSubmission::decode_length_delimited(&mut rest) {
                    Ok(m) => ingest(&m.record),
                    Err(_) => break,
                }
            }
        }
    }
});
