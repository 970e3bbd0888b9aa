//! Exact Connect Four solver. (stub; being written)
