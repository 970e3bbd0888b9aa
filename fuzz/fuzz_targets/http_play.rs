//! The learner dashboard's `POST /api/play` (`learner/src/http.rs`): the JSON body parsed as
//! the route's `Json<PlayRequest>` extractor does (serde_json), then `http::play` (check the
//! moves, load the run's best model, search a reply) in a Connect Four run and a Gomoku run,
//! each with a small random model made once. The first byte picks the run.
#![no_main]

use dojo_game::{Game, GameSpec};
use dojo_net::device::Device;
use dojo_net::checkpoint;
use dojo_net::model::Model;
use dojo_arch::architecture::Architecture;
use dojo_run::config::RunConfig;
use dojo_learner::gamelog::GameLog;
use dojo_learner::http::{play, PlayRequest};
use dojo_learner::learner::{read_published, Shared};
use dojo_run::dir::RunDir;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// A run of `game` in a folder that lives as long as the process, with a 1×8 random model
/// published as version 0 and as the best model.
fn shared(game: GameSpec) -> Shared {
    let dir = dojo_fuzz::scratch_dir().keep();
    let run = RunDir::new(dir.join("run"));
    let config = RunConfig { game: game.clone(), ..RunConfig::default() };
    let (config, run_id) = run.create_or_open(Some(&config)).expect("a run folder");
    let start = game.start().expect("a concrete game");
    let arch = dojo_game::with_game!(&start, g => Architecture::for_game(g, 1, 8));
    let model = Model::new(arch, Device::Cpu);
    checkpoint::save(&model, &run.model_version(0), 0, 0, None).expect("save the model");
    checkpoint::save(&model, &run.best(), 0, 0, None).expect("save the best model");
    let published = read_published(&run, 0).expect("the published model");
    let (log, _) = GameLog::open(&run.games(), config.learner.segment_bytes).expect("the game log");
    let (tx, _rx) = std::sync::mpsc::channel();
    Shared::new(run_id, config, run, log, tx, published)
}

fn runs() -> &'static [Shared; 2] {
    static RUNS: OnceLock<[Shared; 2]> = OnceLock::new();
    RUNS.get_or_init(|| {
        dojo_net::device::set_threads(1);
        [shared(GameSpec::connect4()), shared(GameSpec::gomoku(9))]
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, body)) = data.split_first() else { return };
    let Ok(request) = serde_json::from_slice::<PlayRequest>(body) else { return };
    let shared = &runs()[usize::from(which & 1)];
    if let Ok(reply) = play(shared, &request.moves) {
        // The reply's moves are the request's plus the model's legal reply.
        assert_eq!(&reply.moves[..request.moves.len()], &request.moves[..]);
        let start = shared.config.game.start().expect("a concrete game");
        dojo_game::with_game!(start, g => {
            let mut g = g;
            for &a in &reply.moves {
                g.play(a).expect("every move of a reply is legal");
            }
            let _ = g.outcome();
        });
    }
});
