//! The wire contract (`dojo.proto`) between workers and the learner; generated tonic/prost code.
