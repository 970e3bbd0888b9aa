//! The learner and its workers under stress, as a cluster runs them, one test binary (each
//! binary links libtorch, so these share one): processes as Kubernetes or compose run them
//! (`cluster`), kill -9 of the learner (`kill9`), a full disk (`disk_full`), a flood of
//! clients (`flood`), a bad model offered to a worker (`worker_faults`), `dojo train` killed
//! with its workers (`train_orphans`), TLS and tokens (`security`) and the ingest limits
//! (`limits`).

#[path = "../common/mod.rs"]
mod common;

mod cluster;
mod disk_full;
mod flood;
mod kill9;
mod limits;
mod security;
mod train_orphans;
mod worker_faults;
