//! Benchmarks that wire services together (`dojo bench`'s; those of one library live with
//! it).

pub mod ingest_speed;
