//! `dojo export`, one test binary (each binary links libtorch): a network written as a
//! saiblo strategy (`saiblo`) and as a Gomocup brain (`gomocup`), each built as its platform
//! builds it and checked against dojo's network, search and rules.

#[path = "../common/mod.rs"]
mod common;

mod gomocup;
mod saiblo;
