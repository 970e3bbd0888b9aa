//! A run's config TOML (`run/src/config.rs`): `RunConfig::from_toml` (parse and
//! validate), and for a config that passes, what the learner does with it: describe it,
//! count workers, write it back as TOML (which must read back the same).
#![no_main]

use dojo_run::config::RunConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(config) = RunConfig::from_toml(text) else { return };
    let _ = config.net.describe();
    let _ = config.worker_count(1);
    let _ = config.worker_count(64);
    let toml = config.to_toml();
    let again = RunConfig::from_toml(&toml).expect("a valid config's TOML reads back");
    assert_eq!(again.to_toml(), toml, "the TOML round trip is stable");
});
