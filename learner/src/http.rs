//! The learner's HTTP side (`--http ADDR`): `/metrics` in Prometheus's text format, and the
//! dashboard (`/`): one page with live curves (dygraphs, from Debian's libjs-dygraphs, in
//! `learner/assets` with its licence), the gating log, the newest tournament, the workers,
//! the recent games move by move, and a board to play the model on, fed by a small JSON API:
//!
//! - `GET /healthz`: 200 while the process runs; `GET /readyz`: 200 while it takes games
//!   (503 with the reason while stopping or while its disk refuses writes);
//! - `GET /api/info`: the game, its board's shape and its number of players (a one-player
//!   run's page charts scores and reach rates instead of offering a game against the model);
//! - `GET /api/metrics`: the last lines of `metrics.jsonl`;
//! - `GET /api/charts`: what to draw from them, the metrics table's figures for the run's
//!   game (`dojo_metrics::charts`: keys, labels, units), so the page spells none;
//! - `GET /api/gating`: `gating.jsonl`;
//! - `GET /api/tournament`: the newest tournament's `ratings.json` (or null);
//! - `GET /api/workers`: each worker's last call and games;
//! - `GET /api/games`: the last games stored (actions, result, model version; for one-player
//!   games also the score, largest tile and final board);
//! - `POST /api/play` `{"moves": [...]}`: the model's reply in that game (see [`play`]).
//!
//! One concept with `dojo_worker::http` (a worker's HTTP port): each service's HTTP side,
//! hence one name.

use crate::learner::Shared;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use dojo_base::rng::Rng;
use dojo_game::{with_game, FromAnyGame, Game, GameError, GameSpec, Outcome, Player, ToMove};
use dojo_net::agent::{NetAgent, NetPlayerError};
use dojo_net::checkpoint::{self, CheckpointError};
use dojo_net::device::Device;
use dojo_search::config::PLAY_SIMULATIONS;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

const PAGE: &str = include_str!("../assets/dashboard.html");
const DYGRAPH_JS: &str = include_str!("../assets/dygraph.min.js");
const DYGRAPH_CSS: &str = include_str!("../assets/dygraph.min.css");
/// Metrics lines the dashboard gets at most (the newest).
const METRICS_LINES: usize = 3000;

pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .route("/", get(page))
        .route("/static/dygraph.min.js", get(|| async { ([(CONTENT_TYPE, "text/javascript")], DYGRAPH_JS) }))
        .route("/static/dygraph.min.css", get(|| async { ([(CONTENT_TYPE, "text/css")], DYGRAPH_CSS) }))
        .route("/api/info", get(info))
        .route("/api/metrics", get(metrics_lines))
        .route("/api/charts", get(charts))
        .route("/api/gating", get(gating))
        .route("/api/tournament", get(tournament))
        .route("/api/workers", get(workers))
        .route("/api/games", get(games))
        .route("/api/play", post(play_route))
        .with_state(shared)
}

async fn metrics(State(shared): State<Arc<Shared>>) -> impl IntoResponse {
    use crate::storage::Writer;
    let storage = &shared.storage;
    shared.telemetry.storage(!storage.is_failing(Writer::GameLog), !storage.is_failing(Writer::Checkpoints));
    ([(CONTENT_TYPE, dojo_proto::prometheus::CONTENT_TYPE)], shared.telemetry.render())
}

/// Ready while it takes games: the game log is open and a model is published from the
/// moment the learner starts serving, until it is told to stop, except while the game log
/// cannot be written (a full disk).
async fn readyz(State(shared): State<Arc<Shared>>) -> (StatusCode, String) {
    if shared.stop.load(std::sync::atomic::Ordering::Relaxed) {
        return (StatusCode::SERVICE_UNAVAILABLE, "not ready: stopping\n".into());
    }
    if let Some(why) = shared.storage.not_ready_reason() {
        return (StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {why}\n"));
    }
    let games = shared.counters.games.load(std::sync::atomic::Ordering::Relaxed);
    (StatusCode::OK, format!("ready: model v{}, {games} games stored\n", shared.newest().version))
}

async fn info(State(shared): State<Arc<Shared>>) -> Json<Value> {
    let spec = &shared.config.game;
    let (kind, width, height) = match spec {
        GameSpec::Connect4 { width, height, .. } => ("connect4", *width, *height),
        GameSpec::Gomoku { size, .. } => ("gomoku", *size, *size),
        // A one-player tile game (2048, 2584) is drawn as its square of tiles; a board drawn
        // per game, or a game the page has no board for, is not drawn.
        _ => match spec.probe().ok().and_then(|g| with_game!(&g, g => g.tile_board())) {
            Some(tiles) => {
                let side = (tiles.len() as f64).sqrt() as u8;
                ("sliding", side, side)
            }
            None => ("other", 0, 0),
        },
    };
    let players = if spec.is_one_player() { 1 } else { 2 };
    Json(json!({
        "game": spec.to_string(), "kind": kind, "width": width, "height": height, "players": players,
        "run_id": shared.run_id,
    }))
}

/// The JSON lines of a file (the last `keep`), skipping any a crash cut short.
fn json_lines(path: &std::path::Path, keep: usize) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let skip = lines.len().saturating_sub(keep);
    lines.into_iter().skip(skip).collect()
}

async fn metrics_lines(State(shared): State<Arc<Shared>>) -> Json<Vec<Value>> {
    let path = shared.run_dir.metrics();
    Json(tokio::task::spawn_blocking(move || json_lines(&path, METRICS_LINES)).await.unwrap_or_default())
}

async fn charts(State(shared): State<Arc<Shared>>) -> Json<dojo_metrics::Charts> {
    Json(dojo_metrics::charts(shared.config.game.is_one_player()))
}

/// The dashboard, with the run's charts (what `/api/charts` serves) written into it: the
/// page lays its charts out as it loads, before it has fetched anything.
async fn page(State(shared): State<Arc<Shared>>) -> Html<String> {
    let charts = dojo_metrics::charts(shared.config.game.is_one_player());
    // JSON inside a <script>: a "</" would end it.
    let json = serde_json::to_string(&charts).map_or_else(|_| "null".into(), |j| j.replace("</", "<\\/"));
    Html(PAGE.replace("/*CHARTS*/null", &json))
}

async fn gating(State(shared): State<Arc<Shared>>) -> Json<Vec<Value>> {
    let path = shared.run_dir.gating_log();
    Json(tokio::task::spawn_blocking(move || json_lines(&path, usize::MAX)).await.unwrap_or_default())
}

/// The `ratings.json` written last among the run's tournaments, with the tournament's name.
async fn tournament(State(shared): State<Arc<Shared>>) -> Json<Value> {
    let run = shared.run_dir.clone();
    let newest = tokio::task::spawn_blocking(move || {
        let (name, path) = run.newest_tournament_ratings()?;
        let ratings: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        Some(json!({"name": name, "ratings": ratings}))
    })
    .await
    .ok()
    .flatten();
    Json(newest.unwrap_or(Value::Null))
}

async fn workers(State(shared): State<Arc<Shared>>) -> Json<Vec<crate::telemetry::WorkerStatus>> {
    Json(shared.telemetry.workers())
}

async fn games(State(shared): State<Arc<Shared>>) -> Json<Value> {
    let games: Vec<_> = shared.recent_games.lock().expect("recent games lock").iter().cloned().collect();
    Json(json!(games))
}

/// A position on the dashboard's board: the moves so far (actions).
#[derive(Debug, Deserialize)]
pub struct PlayRequest {
    pub moves: Vec<u16>,
}

/// The answer: the moves after the model's reply, the reply, its value and the outcome.
#[derive(Debug, Serialize, PartialEq)]
pub struct PlayReply {
    pub moves: Vec<u16>,
    /// The model's move (none when the game was already over).
    pub reply: Option<u16>,
    pub reply_text: Option<String>,
    /// The model's search value of the position it moved in, from its side (−1..1).
    pub value: Option<f32>,
    /// Once over: 1 the first player won, -1 the second, 0 a draw.
    pub outcome: Option<i8>,
    /// The model version that answered.
    pub model: String,
}

async fn play_route(State(shared): State<Arc<Shared>>, Json(request): Json<PlayRequest>) -> Response {
    let answered = tokio::task::spawn_blocking(move || play(&shared, &request.moves)).await;
    match answered {
        Ok(Ok(reply)) => Json(reply).into_response(),
        Ok(Err(e)) => (StatusCode::BAD_REQUEST, Json(json!({ "error": e.to_string() }))).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, Json(json!({ "error": e.to_string() }))).into_response(),
    }
}

/// Why the dashboard's board cannot be answered: the moves sent, or the model to answer.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error("{game} is a one-player game: there is nothing to play against")]
    OnePlayer { game: GameSpec },
    /// Move `number` (from 1) was sent after the game had ended.
    #[error("move {number} comes after the game ended")]
    AfterEnd { number: usize },
    /// Move `number` (from 1), `text` in the game's notation, is not a legal move there.
    #[error("move {number} ({text}) is not legal there")]
    Illegal { number: usize, text: String },
    #[error("a chance event is pending")]
    ChancePending,
    /// The run's game cannot start, or a move cannot be played.
    #[error(transparent)]
    Game(#[from] GameError),
    /// The model cannot be loaded.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The model cannot play (its search settings or this board).
    #[error(transparent)]
    NetPlayer(#[from] NetPlayerError),
}

/// The model's reply after `moves` (checked: an illegal move is an error naming it), with
/// the run's best model (`models/best.*`), or its newest before any gating.
pub fn play(shared: &Shared, moves: &[u16]) -> Result<PlayReply, PlayError> {
    let start = shared.config.game.start()?;
    dojo_game::with_game!(start, g => play_typed(g, shared, moves))
}

fn play_typed<G: Game + FromAnyGame>(mut game: G, shared: &Shared, moves: &[u16]) -> Result<PlayReply, PlayError> {
    if game.is_one_player() {
        return Err(PlayError::OnePlayer { game: shared.config.game.clone() });
    }
    let mut legal = Vec::new();
    for (i, &action) in moves.iter().enumerate() {
        if game.outcome().is_some() {
            return Err(PlayError::AfterEnd { number: i + 1 });
        }
        game.legal_actions(&mut legal);
        if !legal.contains(&action) {
            return Err(PlayError::Illegal { number: i + 1, text: game.action_to_text(action) });
        }
        game.play(action)?;
    }
    let best = shared.run_dir.best();
    let path =
        if checkpoint::paths(&best).1.exists() { best } else { shared.run_dir.model_version(shared.newest().version) };
    let loaded = checkpoint::load(&path, Device::Cpu, None)?;
    let model = format!("v{}", loaded.sidecar.version);
    let mut moves = moves.to_vec();
    let (mut reply, mut reply_text, mut value) = (None, None, None);
    if game.outcome().is_none() {
        let ToMove::Player(_) = game.to_move() else { return Err(PlayError::ChancePending) };
        // The run's search as a player (its mode, lookahead and VCF), as its gate plays.
        let search = shared.config.search.as_player(PLAY_SIMULATIONS);
        let rng = Rng::seed_from_u64(moves.len() as u64);
        let mut agent: NetAgent<G> = NetAgent::from_checkpoint(&path, loaded, search, false, model.clone(), rng)?;
        value = Some(agent.analyse(&game).root_value());
        let action = agent.analysed_move();
        reply_text = Some(game.action_to_text(action));
        game.play(action)?;
        moves.push(action);
        reply = Some(action);
    }
    let outcome = game.outcome().map(|o| match o {
        Outcome::Win(Player::First) => 1,
        Outcome::Win(Player::Second) => -1,
        _ => 0,
    });
    Ok(PlayReply { moves, reply, reply_text, value, outcome, model })
}
