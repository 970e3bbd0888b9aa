//! Arbiter: matches between players, gating, tournaments and ratings.
