//! The learner's HTTP side (`--http ADDR`): `/metrics` in Prometheus's text format.

use crate::learner::Shared;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

/// Prometheus's classic text format.
const METRICS_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

pub fn router(shared: Arc<Shared>) -> Router {
    Router::new().route("/metrics", get(move || metrics(shared.clone())))
}

async fn metrics(shared: Arc<Shared>) -> impl IntoResponse {
    ([(CONTENT_TYPE, METRICS_TYPE)], shared.telemetry.render())
}
