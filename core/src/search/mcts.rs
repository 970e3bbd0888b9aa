//! Pure MCTS (UCT) with rollouts: a baseline player. (stub; being written)
