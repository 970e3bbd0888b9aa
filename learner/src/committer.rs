//! Group commit: one task owns appends to the game log.
//!
//! Upload streams hand it validated games through a bounded queue and wait for the outcome.
//! It takes everything queued (up to a batch), stores it with one write and one fsync, and
//! answers each game; meanwhile the next batch gathers. Under load batches grow by
//! themselves, so throughput rises with the number of clients, while every acknowledgement
//! still follows the fsync of its game. A single client pays one fsync per round trip.
//!
//! When the log cannot be written (a full disk, a read-only remount) every game of the
//! batch is answered with the error, so none is acknowledged, and the learner reports
//! itself not ready ([`StorageHealth`](crate::storage::StorageHealth)). While that lasts,
//! the committer probes the disk every [`PROBE_EVERY`] and, once a test write works,
//! reopens the log if the failed write left it unusable, and is ready again: no restart.

use crate::gamelog::{Appended, LogError};
use crate::learner::Shared;
use crate::storage::Writer;
use dojo_record::GameRecord;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit};

/// How often a failing log is probed for recovery while no game arrives.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);
/// What a probe writes: enough headroom that a recovered disk takes a batch or two.
const PROBE_BYTES: usize = 1 << 20;

/// Why a game was not stored; its message goes back to the client in the game's ack.
#[derive(Clone, Debug, thiserror::Error)]
pub enum StoreError {
    /// The game log refused the game, or the batch it came in (shared by every game of it).
    #[error("cannot store the game: {0}")]
    Log(Arc<LogError>),
    /// The task that stores a batch did not finish (it panicked or was cancelled).
    #[error("storing games failed: {0}")]
    Task(Arc<tokio::task::JoinError>),
    /// The learner stopped before the game reached the log.
    #[error("the learner is stopping")]
    Stopping,
}

struct Job {
    record: GameRecord,
    done: oneshot::Sender<Result<Appended, StoreError>>,
    /// The game's room in the bounded ingest queue, given back once it is stored (not when
    /// its ack is taken: a client that reads no acks must not hold the queue).
    room: Option<OwnedSemaphorePermit>,
}

/// Where upload streams queue games for the committer.
#[derive(Clone)]
pub struct CommitQueue {
    jobs: mpsc::Sender<Job>,
}

impl CommitQueue {
    /// Queues `record` (waiting while the queue is full); the receiver gets the outcome
    /// once it is stored durably, or why not. `room` is released once the store is done.
    pub async fn submit(
        &self,
        record: GameRecord,
        room: Option<OwnedSemaphorePermit>,
    ) -> oneshot::Receiver<Result<Appended, StoreError>> {
        let (done, outcome) = oneshot::channel();
        if let Err(mpsc::error::SendError(job)) = self.jobs.send(Job { record, done, room }).await {
            let _ = job.done.send(Err(StoreError::Stopping));
        }
        outcome
    }
}

/// Starts the committer on the current tokio runtime. It runs until every [`CommitQueue`]
/// is dropped, answering what was queued before.
pub fn spawn(shared: Arc<Shared>, max_batch: usize, queue_len: usize) -> CommitQueue {
    let (jobs, rx) = mpsc::channel(queue_len.max(1));
    tokio::spawn(run(shared, rx, max_batch.max(1)));
    CommitQueue { jobs }
}

async fn run(shared: Arc<Shared>, mut rx: mpsc::Receiver<Job>, max_batch: usize) {
    let mut jobs: Vec<Job> = Vec::with_capacity(max_batch);
    let mut last_probe = tokio::time::Instant::now();
    loop {
        // While the log fails, probe every PROBE_EVERY, busy or not: only a probe (with its
        // headroom) makes the learner ready again, not a small batch that happened to fit.
        let first = if shared.storage.is_failing(Writer::GameLog) {
            if last_probe.elapsed() >= PROBE_EVERY {
                let prober = shared.clone();
                let _ = tokio::task::spawn_blocking(move || probe(&prober)).await;
                last_probe = tokio::time::Instant::now();
                continue;
            }
            match tokio::time::timeout_at(last_probe + PROBE_EVERY, rx.recv()).await {
                Ok(job) => job,
                Err(_) => continue,
            }
        } else {
            rx.recv().await
        };
        let Some(first) = first else { break };
        jobs.push(first);
        while jobs.len() < max_batch {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let batch: Vec<Job> = std::mem::take(&mut jobs);
        let mut rooms = Vec::with_capacity(batch.len());
        let (records, replies): (Vec<GameRecord>, Vec<_>) = batch
            .into_iter()
            .map(|j| {
                rooms.push(j.room);
                (j.record, j.done)
            })
            .unzip();
        let shared = shared.clone();
        let outcomes = tokio::task::spawn_blocking(move || store(&shared, records))
            .await
            .unwrap_or_else(|e| vec![Err(StoreError::Task(Arc::new(e)))]);
        drop(rooms);
        let last = outcomes.last().cloned();
        let mut outcomes = outcomes.into_iter();
        for reply in replies {
            // One outcome per game, or a single error for all of them.
            let outcome = outcomes.next().or_else(|| last.clone()).unwrap_or(Err(StoreError::Stopping));
            let _ = reply.send(outcome);
        }
    }
}

/// Stores one batch; on a log error every game gets it. A game the log refuses on its own
/// (which validation should make impossible) does not fail the others: the batch is then
/// stored game by game.
fn store(shared: &Shared, records: Vec<GameRecord>) -> Vec<Result<Appended, StoreError>> {
    match shared.store_batch(&records) {
        Ok(appended) => appended.into_iter().map(Ok).collect(),
        Err(LogError::Unstorable { .. }) if records.len() > 1 => records
            .iter()
            .map(|r| shared.store_batch(std::slice::from_ref(r)).map(|mut a| a.remove(0)))
            .map(|r| r.map_err(|e| StoreError::Log(Arc::new(e))))
            .collect(),
        Err(e) => vec![Err(StoreError::Log(Arc::new(e)))],
    }
}

/// While the log fails: a test write, then (when the failure left the log unusable) a
/// reopen; success makes the learner ready again.
fn probe(shared: &Shared) {
    let mut log = shared.log.lock().expect("log lock");
    let result = log.probe(PROBE_BYTES).and_then(|()| if log.is_poisoned() { log.reopen() } else { Ok(()) });
    match result {
        Ok(()) => shared.storage.recovered(Writer::GameLog),
        Err(e) => shared.storage.failed(Writer::GameLog, &e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gamelog::GameLog;
    use crate::learner::Published;
    use dojo_base::rng::Rng;
    use dojo_game::connect4::Connect4;
    use dojo_record::random_game_record;
    use dojo_run::config::RunConfig;
    use dojo_run::dir::RunDir;
    use rand::SeedableRng;

    fn shared(dir: &std::path::Path) -> Arc<Shared> {
        let run = RunDir::new(dir);
        let config = RunConfig::default();
        let (log, _) = GameLog::open(&run.games(), config.learner.segment_bytes).unwrap();
        let (tx, _rx) = std::sync::mpsc::channel();
        let published =
            Published { version: 0, sha256: String::new(), sidecar_json: String::new(), weights: Vec::new() };
        Arc::new(Shared::new("test".into(), config, run, log, tx, published))
    }

    fn games(n: usize) -> Vec<GameRecord> {
        let mut rng = Rng::seed_from_u64(3);
        (0..n).map(|_| random_game_record(&Connect4::<u64>::standard(), 1, &mut rng)).collect()
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
    }

    #[test]
    fn games_queued_during_a_commit_share_the_next_fsync() {
        let tmp = tempfile::tempdir().unwrap();
        let shared = shared(tmp.path());
        let rt = runtime();
        let queue = rt.block_on(async { spawn(shared.clone(), 1024, 2048) });
        // The log is busy (held by another thread) while 50 games queue up.
        let (release, released) = std::sync::mpsc::channel::<()>();
        let (holding, held) = std::sync::mpsc::channel();
        let busy = {
            let shared = shared.clone();
            std::thread::spawn(move || {
                let _log = shared.log.lock().unwrap();
                holding.send(()).unwrap();
                released.recv().unwrap();
            })
        };
        held.recv().unwrap();
        let outcomes: Vec<_> = rt.block_on(async {
            let mut v = Vec::new();
            for g in games(50) {
                v.push(queue.submit(g, None).await);
            }
            v
        });
        release.send(()).unwrap();
        busy.join().unwrap();
        for o in outcomes {
            assert!(matches!(rt.block_on(o).unwrap(), Ok(Appended::Stored)));
        }
        let log = shared.log.lock().unwrap();
        assert_eq!(log.len(), 50);
        // The first game may have been taken alone before the log was free; the other 49
        // waited and went in one write and one fsync.
        assert!(log.syncs() <= 2, "{} fsyncs for 50 games", log.syncs());
    }

    #[test]
    fn a_failing_log_acknowledges_nothing_and_recovers_by_itself() {
        let tmp = tempfile::tempdir().unwrap();
        let shared = shared(tmp.path());
        let rt = runtime();
        let queue = rt.block_on(async { spawn(shared.clone(), 1024, 2048) });
        let batch = games(3);
        // A write fails and so does undoing it: the log is unusable until reopened.
        shared.log.lock().unwrap().fail_writes(true);
        let first = rt.block_on(async { queue.submit(batch[0].clone(), None).await.await.unwrap() });
        assert!(matches!(&first, Err(e) if e.to_string().contains("injected failure")), "{first:?}");
        assert!(shared.storage.not_ready_reason().is_some(), "not ready while the log fails");
        // The committer probes, reopens the log, and is ready again.
        let began = std::time::Instant::now();
        while shared.storage.not_ready_reason().is_some() {
            assert!(began.elapsed() < Duration::from_secs(20), "no recovery");
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!shared.log.lock().unwrap().is_poisoned());
        for g in &batch {
            let outcome = rt.block_on(async { queue.submit(g.clone(), None).await.await.unwrap() });
            assert!(matches!(outcome, Ok(Appended::Stored)), "{outcome:?}");
        }
        let outcome = rt.block_on(async { queue.submit(batch[0].clone(), None).await.await.unwrap() });
        assert!(matches!(outcome, Ok(Appended::Duplicate)), "{outcome:?}");
        let (log, stored) = GameLog::open(&shared.run_dir.games(), u64::MAX).unwrap();
        assert_eq!(log.len(), 3);
        assert_eq!(
            stored.iter().map(|r| r.game_id).collect::<Vec<_>>(),
            batch.iter().map(|r| r.game_id).collect::<Vec<_>>()
        );
    }
}
