//! The table: every training and self-play metric, and every figure that draws them. A new
//! metric is a row here (and in [`LINE`], or the Prometheus list of its service), plus the
//! code that measures it; every sink picks it up from here.

use super::Kind::{Count, Keyed, Real};
use super::Players::{One, Two};
use super::{Figure, Metric};

// The figures, in the order `dojo plot` writes them and the dashboard shows them.
pub static LOSS_FIGURE: Figure = Figure { file: "losses.png", chart_id: "chart-loss", title: "losses" };
pub static THROUGHPUT_FIGURE: Figure =
    Figure { file: "throughput.png", chart_id: "chart-throughput", title: "throughput" };
pub static GAMES_FIGURE: Figure = Figure { file: "games.png", chart_id: "chart-games", title: "self-play games" };
pub static SCORES_FIGURE: Figure = Figure { file: "scores.png", chart_id: "chart-score", title: "self-play scores" };
pub static REACH_FIGURE: Figure = Figure { file: "reach.png", chart_id: "chart-reach", title: "reach rates" };
pub static FIGURES: &[&Figure] = &[&LOSS_FIGURE, &THROUGHPUT_FIGURE, &GAMES_FIGURE, &SCORES_FIGURE, &REACH_FIGURE];

/// The x axis of every chart: a line's training step.
pub static X_AXIS_LABEL: &str = "training step";

pub static UNIX_MS: Metric = Metric::line("unix_ms", Count);
pub static STEP: Metric = Metric::line("step", Count).gauge("dojo_training_step", "Training steps taken");
pub static VERSION: Metric = Metric::line("version", Count)
    .tensorboard("model/version")
    .gauge("dojo_model_version", "Newest published model version");
pub static POLICY_LOSS: Metric = Metric::line("policy_loss", Real)
    .tensorboard("loss/policy")
    .gauge(
        "dojo_training_policy_loss",
        "Policy loss (cross-entropy with the search's targets), mean of the last window",
    )
    .chart(&LOSS_FIGURE, "loss", "policy loss");
pub static VALUE_LOSS: Metric = Metric::line("value_loss", Real)
    .tensorboard("loss/value")
    .gauge("dojo_training_value_loss", "Value loss (squared error), mean of the last window")
    .chart(&LOSS_FIGURE, "loss", "value loss");
/// KataGo's auxiliary policy targets (`train.opponent_policy_weight`,
/// `train.soft_policy_weight`): each head's cross-entropy, in a line only where it is on.
pub static OPPONENT_POLICY_LOSS: Metric =
    Metric::line("opponent_policy_loss", Real).tensorboard("loss/opponent_policy");
pub static SOFT_POLICY_LOSS: Metric = Metric::line("soft_policy_loss", Real).tensorboard("loss/soft_policy");
/// The weight decay's L2 term, `weight_decay / 2 × Σ w²`, at the window's end.
pub static L2_LOSS: Metric = Metric::line("l2_loss", Real)
    .tensorboard("loss/l2")
    .gauge("dojo_training_l2_loss", "The weight decay's L2 term at the end of the last window");
/// What training minimises: policy + weighted value (+ L2).
pub static TOTAL_LOSS: Metric = Metric::line("total_loss", Real)
    .tensorboard("loss/total")
    .gauge("dojo_training_total_loss", "What training minimises (policy + weighted value + L2), last window");
pub static ENTROPY: Metric =
    Metric::line("entropy", Real).tensorboard("policy/entropy").chart(&LOSS_FIGURE, "policy entropy", "entropy");
pub static LEARNING_RATE: Metric = Metric::line("learning_rate", Real).tensorboard("train/learning_rate").chart(
    &LOSS_FIGURE,
    "learning rate",
    "learning rate",
);
pub static SAMPLES_PER_S: Metric = Metric::line("samples_per_s", Real)
    .tensorboard("train/samples_per_s")
    .gauge("dojo_training_samples_per_second", "Training samples per second, last window")
    .chart(&THROUGHPUT_FIGURE, "samples/s", "training samples/s");
pub static GAMES_PER_S: Metric = Metric::line("games_per_s", Real).tensorboard("selfplay/games_per_s").chart(
    &THROUGHPUT_FIGURE,
    "games/s",
    "self-play games/s",
);
/// Games and positions stored since the run began.
pub static GAMES: Metric = Metric::line("games", Count);
pub static POSITIONS: Metric = Metric::line("positions", Count);
pub static BUFFER_POSITIONS: Metric = Metric::line("buffer_positions", Count)
    .tensorboard("buffer/positions")
    .gauge("dojo_replay_buffer_positions", "Positions in the replay buffer")
    .chart(&THROUGHPUT_FIGURE, "positions", "replay buffer positions");
pub static BUFFER_GAMES: Metric = Metric::line("buffer_games", Count);
pub static FIRST_PLAYER_WIN_RATE: Metric = Metric::line("first_player_win_rate", Real)
    .tensorboard("selfplay/first_player_win_rate")
    .chart(&GAMES_FIGURE, "share of games", "first player wins")
    .only(Two);
pub static DRAW_RATE: Metric = Metric::line("draw_rate", Real)
    .tensorboard("selfplay/draw_rate")
    .chart(&GAMES_FIGURE, "share of games", "draws")
    .only(Two);
pub static MEAN_GAME_LENGTH: Metric = Metric::line("mean_game_length", Real).tensorboard("selfplay/game_length").chart(
    &GAMES_FIGURE,
    "moves",
    "mean game length",
);
// One-player games, in the windows in which games finished (the numbers of seed 002's
// report): the games they are over (a rate over 3 games is not one over 300), ...
pub static SCORED_GAMES: Metric = Metric::line("scored_games", Count).only(One);
pub static MEAN_SCORE: Metric = Metric::line("mean_score", Real)
    .tensorboard("selfplay/mean_score")
    .gauge("dojo_selfplay_mean_score", "Mean score of the self-play games of the last metrics window")
    .chart(&SCORES_FIGURE, "score", "mean score")
    .only(One);
pub static MAX_SCORE: Metric = Metric::line("max_score", Count)
    .tensorboard("selfplay/max_score")
    .gauge("dojo_selfplay_max_score", "Best score among the self-play games of the last metrics window")
    .chart(&SCORES_FIGURE, "score", "max score")
    .only(One);
pub static MAX_TILE: Metric = Metric::line("max_tile", Count)
    .tensorboard("selfplay/max_tile")
    .gauge("dojo_selfplay_max_tile", "Largest tile of the self-play games of the last metrics window")
    .chart(&SCORES_FIGURE, "tile", "max tile")
    .only(One);
/// ... and the share of them whose largest tile was each tile of the game's reach table or
/// bigger, keyed by the tile.
pub static REACH: Metric = Metric::line("reach", Keyed)
    .tensorboard("selfplay/reach_{}")
    .chart(&REACH_FIGURE, "share of games", "reached {}")
    .only(One);

/// A `metrics.jsonl` line's keys, in the order a line lists them.
pub static LINE: &[&Metric] = &[
    &UNIX_MS,
    &STEP,
    &VERSION,
    &POLICY_LOSS,
    &VALUE_LOSS,
    &L2_LOSS,
    &TOTAL_LOSS,
    &ENTROPY,
    &LEARNING_RATE,
    &SAMPLES_PER_S,
    &GAMES_PER_S,
    &GAMES,
    &POSITIONS,
    &BUFFER_POSITIONS,
    &BUFFER_GAMES,
    &FIRST_PLAYER_WIN_RATE,
    &DRAW_RATE,
    &MEAN_GAME_LENGTH,
    &SCORED_GAMES,
    &MEAN_SCORE,
    &MAX_SCORE,
    &MAX_TILE,
    &REACH,
    &OPPONENT_POLICY_LOSS,
    &SOFT_POLICY_LOSS,
];

/// What only the learner's `/metrics` shows, counted as things happen rather than per window
/// (the window's gauges are the rows of [`LINE`] with a Prometheus name).
pub mod learner {
    use crate::Prometheus;

    pub static INGEST_GAMES: Prometheus =
        Prometheus::counter("dojo_ingest_games", "Games submitted by workers, by what became of them");
    pub static INGEST_ACK_SECONDS: Prometheus = Prometheus::histogram(
        "dojo_ingest_ack_seconds",
        "Time from a game's arrival to its acknowledgement (validation and fsync)",
    );
    pub static WORKERS_CONNECTED: Prometheus =
        Prometheus::gauge("dojo_workers_connected", "Workers heard from within the last 60 seconds");
    pub static WORKER_LAST_SEEN: Prometheus =
        Prometheus::gauge("dojo_worker_last_seen_timestamp_seconds", "When each worker last called, in Unix seconds");
    pub static WORKER_GAMES: Prometheus =
        Prometheus::counter("dojo_worker_games", "Games each worker delivered and the learner stored");
    pub static STORAGE_WRITABLE: Prometheus = Prometheus::gauge(
        "dojo_storage_writable",
        "1 while the run directory takes this writer's writes, 0 while they fail (a full disk)",
    );
    /// One-player runs only, as counters a query can turn into reach rates over any range
    /// (`rate(games_reaching_tile_total[1h]) / rate(scored_games_total[1h])`).
    pub static SCORED_GAMES: Prometheus =
        Prometheus::counter("dojo_selfplay_scored_games", "Self-play games whose scores were counted");
    pub static GAMES_REACHING_TILE: Prometheus = Prometheus::counter(
        "dojo_selfplay_games_reaching_tile",
        "Self-play games whose largest tile was this tile or bigger",
    );

    pub static ALL: &[&Prometheus] = &[
        &INGEST_GAMES,
        &INGEST_ACK_SECONDS,
        &WORKERS_CONNECTED,
        &WORKER_LAST_SEEN,
        &WORKER_GAMES,
        &STORAGE_WRITABLE,
        &SCORED_GAMES,
        &GAMES_REACHING_TILE,
    ];
}

/// A worker's `/metrics` (`dojo worker --http ADDR`).
pub mod worker {
    use crate::Prometheus;

    pub static GAMES_PLAYED: Prometheus =
        Prometheus::counter("dojo_worker_games_played", "Self-play games finished and spooled");
    pub static POSITIONS: Prometheus =
        Prometheus::counter("dojo_worker_positions", "Moves played in finished self-play games");
    pub static UPLOADED_GAMES: Prometheus =
        Prometheus::counter("dojo_worker_uploaded_games", "Games the learner answered for, by its answer");
    pub static UPLOAD_FAILURES: Prometheus = Prometheus::counter(
        "dojo_worker_upload_failures",
        "Uploads that failed (learner unreachable, timed out); their games stay spooled",
    );
    pub static UPLOAD_SECONDS: Prometheus =
        Prometheus::histogram("dojo_worker_upload_seconds", "Time an upload of the spool took");
    pub static SPOOL_GAMES: Prometheus =
        Prometheus::gauge("dojo_worker_spool_games", "Games waiting in the spool for the learner");
    pub static GAMES_IN_FLIGHT: Prometheus =
        Prometheus::gauge("dojo_worker_games_in_flight", "Self-play games being played now");
    pub static MODEL_VERSION: Prometheus =
        Prometheus::gauge("dojo_worker_model_version", "The model version self-play uses");
    pub static LEARNER_REACHABLE: Prometheus =
        Prometheus::gauge("dojo_worker_learner_reachable", "1 while the learner answers, 0 while it does not");

    pub static ALL: &[&Prometheus] = &[
        &GAMES_PLAYED,
        &POSITIONS,
        &UPLOADED_GAMES,
        &UPLOAD_FAILURES,
        &UPLOAD_SECONDS,
        &SPOOL_GAMES,
        &GAMES_IN_FLIGHT,
        &MODEL_VERSION,
        &LEARNER_REACHABLE,
    ];
}
