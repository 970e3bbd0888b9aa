//! Checkpoints (`net/src/checkpoint.rs`): a sidecar JSON and safetensors weights. The
//! input is `u16 LE sidecar length | sidecar JSON | weights`. Both are written as a
//! checkpoint's two files and loaded (`read_sidecar`, `read_verified`, `load`), and then
//! loaded past the sha256 check the way a worker builds a downloaded model: the sidecar
//! parsed and validated, the model built from the weight bytes (`model_from_bytes`).
#![no_main]

use dojo_game::GameSpec;
use dojo_net::device::Device;
use dojo_net::checkpoint::{self, Sidecar};
use libfuzzer_sys::fuzz_target;

/// Trunks this size or smaller are built; larger ones are valid too (a user may ask for 64
/// blocks of 1024 channels) but would take gigabytes a run. Their weights are checked
/// against a small trunk instead.
fn small(s: &Sidecar) -> bool {
    let a = &s.architecture;
    a.blocks <= 2 && a.channels <= 16
}

fuzz_target!(|data: &[u8]| {
    dojo_net::device::set_threads(1);
    if data.len() < 2 {
        return;
    }
    let n = usize::from(u16::from_le_bytes([data[0], data[1]])).min(data.len() - 2);
    let (json, weights) = data[2..].split_at(n);

    let dir = dojo_fuzz::scratch_dir();
    let stem = dir.path().join("model");
    let (weights_path, sidecar_path) = checkpoint::paths(&stem);
    std::fs::write(&sidecar_path, json).expect("write the sidecar");
    std::fs::write(&weights_path, weights).expect("write the weights");
    let sidecar = checkpoint::read_sidecar(&stem);
    let _ = checkpoint::read_verified(&stem);
    if sidecar.as_ref().is_ok_and(small) {
        let _ = checkpoint::load(&stem, Device::Cpu, None);
        let _ = checkpoint::load(&stem, Device::Cpu, Some(&GameSpec::connect4()));
    }

    // What a worker does with a download whose sha256 matched.
    let Ok(sidecar) = serde_json::from_slice::<Sidecar>(json) else { return };
    if sidecar.architecture.validate().is_err() {
        return;
    }
    let mut arch = sidecar.architecture.clone();
    if !small(&sidecar) {
        arch.blocks = arch.blocks.min(2);
        arch.channels = arch.channels.min(16);
    }
    if let Ok(model) = checkpoint::model_from_bytes(&arch, weights, Device::Cpu) {
        // Weights that load serialise back to weights that load.
        let bytes = checkpoint::weights_bytes(&model).expect("loaded weights serialise");
        checkpoint::model_from_bytes(&arch, &bytes, Device::Cpu).expect("serialised weights load");
    }
});
