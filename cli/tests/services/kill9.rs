//! kill -9 durability: a learner is SIGKILLed at random moments (while it stores games,
//! trains, checkpoints and publishes) and started again, over and over, while clients
//! stream games and remember every acknowledgement. After every kill: every acknowledged
//! game is in the game log exactly once, no game is in it twice, the state's checkpoint and
//! the newest published model load, and the restarted learner resumes at the checkpointed
//! step; clients resend only what was not acknowledged.
//!
//! `DOJO_KILLS=N` sets the number of kills (default 8, for CI); e.g. `DOJO_KILLS=200 cargo
//! test -p dojo --test services kill9 -- --nocapture` for the long run. It prints its totals.

use crate::common;

use common::{path, tiny_config, Proc};
use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_learner::gamelog::GameLog;
use dojo_net::checkpoint;
use dojo_net::device::Device;
use dojo_record::{random_game_record, GameRecord};
use dojo_run::dir::RunDir;
use dojo_worker::client::{self, Delivery};
use rand::{RngExt, SeedableRng};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One streaming client: games it still has to deliver, and the ids acknowledged to it.
struct Client {
    pending: Vec<GameRecord>,
    acked: HashSet<[u8; 16]>,
    rng: Rng,
    sent: u64,
}

impl Client {
    /// Streams games to `addr` until the learner goes away or `stop` is set.
    fn stream(&mut self, addr: &str, stop: &AtomicBool) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let Ok(mut c) = client::connect(&format!("http://{addr}"), None, "kill9").await else { return };
            while !stop.load(Ordering::Relaxed) {
                while self.pending.len() < 4 {
                    self.pending.push(random_game_record(&Connect4::<u64>::standard(), 1, &mut self.rng));
                }
                let batch: Vec<GameRecord> = self.pending[..self.rng.random_range(1..=4)].to_vec();
                self.sent += batch.len() as u64;
                let Ok(acks) = client::submit(&mut c, &batch).await else { return };
                for (id, delivery) in acks {
                    assert_eq!(delivery, Delivery::Delivered, "a valid game was refused");
                    assert!(self.acked.insert(id), "game {id:?} was acknowledged before, yet sent again");
                    self.pending.retain(|g| g.game_id != id);
                }
                // Paced like busy workers (hundreds of games a second in all), so that 200
                // restarts do not each have to read millions of games back.
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
    }
}

/// The temporary files of atomic writes in the run (a kill mid-write leaves one), but those
/// of the running learner `except` (named `.NAME.tmpPID`: it may be writing one now).
fn half_written(run: &RunDir, except: Option<u32>) -> usize {
    let running = except.map(|pid| format!(".tmp{pid}"));
    [run.root.clone(), run.models(), run.checkpoints()]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp") && running.as_ref().is_none_or(|r| !name.ends_with(r.as_str())))
        .count()
}

fn kills() -> usize {
    std::env::var("DOJO_KILLS").ok().and_then(|v| v.parse().ok()).unwrap_or(8)
}

#[test]
fn acknowledged_games_survive_sigkill_of_the_learner() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    let mut c = tiny_config();
    // Publish and checkpoint often, so kills land in them too.
    c.learner.publish_every = 3;
    c.learner.checkpoint_every = 3;
    std::fs::write(&config, c.to_toml()).unwrap();
    let run_path = tmp.path().join("run");
    let run = RunDir::new(&run_path);
    let mut rng = Rng::seed_from_u64(9);
    let clients: Vec<Arc<Mutex<Client>>> = (0..3)
        .map(|i| {
            Arc::new(Mutex::new(Client {
                pending: Vec::new(),
                acked: HashSet::new(),
                rng: Rng::seed_from_u64(100 + i),
                sent: 0,
            }))
        })
        .collect();
    let (mut resumed_at_checkpoint, mut steps_seen, mut killed_mid_write) = (0, 0, 0);
    let began = Instant::now();
    for round in 0..kills() {
        let checkpointed = run.read_state().unwrap().step;
        let mut learner = Proc::spawn(&[
            "learner",
            "--run-dir",
            path(&run_path),
            "--config",
            path(&config),
            "--listen",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
        ]);
        let addr = learner.learner_addr();
        if round > 0 {
            let left = half_written(&run, Some(learner.child.id()));
            assert_eq!(left, 0, "round {round}: a restarted learner removes half-written files");
        }
        let http = learner.after("dashboard: http://").trim_end_matches('/').to_string();
        // The restored step, before any new training: the checkpoint's.
        let step = common::value(&common::get(&http, "/metrics").1, "dojo_training_step") as u64;
        assert!(step >= checkpointed, "round {round}: resumed at step {step}, the checkpoint was at {checkpointed}");
        resumed_at_checkpoint += (step == checkpointed) as usize;
        let stop = Arc::new(AtomicBool::new(false));
        let streams: Vec<_> = clients
            .iter()
            .map(|c| {
                let (c, addr, stop) = (c.clone(), addr.clone(), stop.clone());
                std::thread::spawn(move || c.lock().unwrap().stream(&addr, &stop))
            })
            .collect();
        std::thread::sleep(Duration::from_millis(rng.random_range(200..2500)));
        unsafe { libc::kill(learner.child.id() as i32, libc::SIGKILL) };
        let _ = learner.child.wait();
        stop.store(true, Ordering::Relaxed);
        for s in streams {
            s.join().expect("a client panicked");
        }
        steps_seen = steps_seen.max(run.read_state().unwrap().step);
        // Killed mid-write (a model, checkpoint or the state): its temporary file is left.
        killed_mid_write += (half_written(&run, None) > 0) as usize;

        // Every acknowledged game is in the log exactly once; nothing is in it twice.
        let (_, stored) = GameLog::open(&run.games(), c.learner.segment_bytes).unwrap();
        let mut counts: HashMap<[u8; 16], usize> = HashMap::new();
        for r in &stored {
            *counts.entry(r.game_id).or_default() += 1;
        }
        let twice = counts.values().filter(|&&n| n > 1).count();
        assert_eq!(twice, 0, "round {round}: {twice} games stored twice");
        for client in &clients {
            let lost = client.lock().unwrap().acked.iter().filter(|id| !counts.contains_key(*id)).count();
            assert_eq!(lost, 0, "round {round}: {lost} acknowledged games are not in the log");
        }
        // The checkpoint the next start resumes from, and the newest published model, load.
        let state = run.read_state().unwrap();
        if let Some(model) = &state.model {
            checkpoint::load(&run.resolve(model), Device::Cpu, None).unwrap();
        }
        if let Some(&newest) = run.versions().unwrap().last() {
            checkpoint::load(&run.model_version(newest), Device::Cpu, None).unwrap();
        }
    }
    let acked: usize = clients.iter().map(|c| c.lock().unwrap().acked.len()).sum();
    let sent: u64 = clients.iter().map(|c| c.lock().unwrap().sent).sum();
    let stored = GameLog::open(&run.games(), c.learner.segment_bytes).unwrap().1.len();
    eprintln!(
        "kill9: {} kills in {:.0} s: {acked} games acknowledged ({sent} sent, {stored} in the log), 0 lost, 0 \
         duplicated; {killed_mid_write} kills left a half-written file (removed at the restart); resumed exactly \
         at the checkpointed step {resumed_at_checkpoint} times; trained to step {steps_seen}",
        kills(),
        began.elapsed().as_secs_f64()
    );
    assert!(acked > 0 && steps_seen > 0, "the harness must have stored games and trained");
}
