//! The pieces of an any-size network ([`dojo_arch::architecture::Architecture::any_size`]): one set of
//! weights for Connect Four or Gomoku boards of every size, each framed into the network's
//! largest size ([`dojo_game::connect4::Connect4::framed`],
//! [`dojo_game::gomoku::Gomoku::framed`]) so that positions of several sizes share a batch.
//!
//! What makes the frame invisible (a board gives the same outputs framed as alone):
//! - A board mask (on the board and not blocked) multiplies every convolution's output, so
//!   a cell outside the board reads as the zero padding of a convolution on the board alone.
//! - Batch norm statistics in training are taken over the board's cells only.
//! - The heads see the board through global pooling (KataGo's mean, size-scaled mean and
//!   max over the mask), never through a linear layer over cells.
//! - The moves' logits are read off the cells by the board's own numbering
//!   ([`move_logits`]): a Connect Four column's at the cell where its next disc would
//!   land (the playable plane), a Gomoku point's at its cell, so a move has the same number
//!   and logit framed as alone.
//!
//! Shared by the trained network ([`super::model`]) and the folded one ([`super::folded`]).

use dojo_arch::board::Board;
use dojo_arch::board::{C4_BLOCKED_PLANE, C4_ONES_PLANE, C4_PLAYABLE_PLANE, GOMOKU_ONES_PLANE};
use tch::nn;
use tch::{Kind, Tensor};

/// Pooled features per channel: mean, size-scaled mean and max.
pub const POOLED: i64 = 3;

/// [batch, 1, height, width]: 1 on the board's free cells, 0 on blocked cells and
/// outside the board (where the ones plane is 0).
pub fn mask(board: Board, xs: &Tensor) -> Tensor {
    match board {
        Board::Connect4 => {
            let ones = xs.narrow(1, C4_ONES_PLANE, 1);
            let blocked = xs.narrow(1, C4_BLOCKED_PLANE, 1);
            ones * (blocked.ones_like() - blocked)
        }
        Board::Gomoku => xs.narrow(1, GOMOKU_ONES_PLANE, 1),
    }
}

/// [batch, moves]: the moves' logits read off the per-cell logits `cells`
/// ([batch, 1, height, width]) in the board's own numbering; [`NO_MOVE_LOGIT`] for the
/// numbers past the board (the frame's), so they take no probability.
pub fn move_logits(board: Board, cells: &Tensor, xs: &Tensor, mask: &Tensor) -> Tensor {
    match board {
        Board::Connect4 => column_logits(cells, xs),
        Board::Gomoku => point_logits(cells, mask),
    }
}

/// [batch, 3 · channels]: KataGo's global pooling of a masked, non-negative feature map
/// (after a ReLU): the mean over the board, the mean scaled by `(√cells - 10) / 10` (so a
/// head can tell a small board from a large one) and the max (cells outside the board are
/// 0, never above the board's max).
pub fn pool(x: &Tensor, mask: &Tensor) -> Tensor {
    let cells = mask.sum_dim_intlist([2i64, 3].as_slice(), false, None); // [batch, 1]
    let mean = x.sum_dim_intlist([2i64, 3].as_slice(), false, None) / &cells;
    let scaled = &mean * ((cells.sqrt() - 10.0) / 10.0);
    let max = x.amax([2i64, 3].as_slice(), false);
    Tensor::cat(&[mean, scaled, max], 1)
}

/// The logit of a move the board does not have (a full column, or a column or point in the
/// frame outside the board): low enough that the softmax gives it nothing (e^-30 ≈ 1e-13),
/// finite so a zero target times its log probability stays zero in the loss.
const NO_MOVE_LOGIT: f64 = -30.0;

/// [batch, width]: each column's logit, read at its playable cell; [`NO_MOVE_LOGIT`] for a
/// full column or one outside the board, so the frame's columns take no probability.
fn column_logits(cells: &Tensor, xs: &Tensor) -> Tensor {
    let playable = xs.narrow(1, C4_PLAYABLE_PLANE, 1);
    let dims = [1i64, 2];
    let logits = (cells * &playable).sum_dim_intlist(dims.as_slice(), false, None);
    let open = playable.sum_dim_intlist(dims.as_slice(), false, None); // 1 or 0 per column
    logits + (open - 1.0) * -NO_MOVE_LOGIT
}

/// [batch, frame²]: point `y * size + x`'s logit read at its frame cell `y * frame + x`,
/// each board's `size` the side of its square mask; [`NO_MOVE_LOGIT`] past `size²`.
fn point_logits(cells: &Tensor, mask: &Tensor) -> Tensor {
    let frame = cells.size()[3];
    let points = frame * frame;
    // At least 1: a position without a board (no ones plane) reads as a 1×1 board rather
    // than dividing by zero.
    let sizes = mask.sum_dim_intlist([1i64, 2, 3].as_slice(), false, Kind::Float).sqrt().round().clamp_min(1.0);
    let sizes = sizes.to_kind(Kind::Int64).unsqueeze(1); // [batch, 1]
    let action = Tensor::arange(points, (Kind::Int64, cells.device())).unsqueeze(0); // [1, frame²]
    let y = action.divide_tensor_mode(&sizes, "floor");
    let x = &action - &y * &sizes;
    let on_board = action.lt_tensor(&(&sizes * &sizes));
    // Numbers past the board read cell 0, then are masked.
    let cell = (y * frame + x).where_scalarother(&on_board, 0);
    let logits = cells.flatten(1, -1).gather(1, &cell, false);
    logits.where_scalarother(&on_board, NO_MOVE_LOGIT)
}

/// The policy head after its first convolution: global features of the trunk `trunk` added
/// to every cell's `p` (KataGo's policy head), then one logit per cell, read per move.
pub fn policy_logits(
    board: Board,
    p: &Tensor,
    trunk: &Tensor,
    mask: &Tensor,
    xs: &Tensor,
    global: impl Fn(&Tensor) -> Tensor,
    out: impl Fn(&Tensor) -> Tensor,
) -> Tensor {
    let g = global(&pool(trunk, mask)).unsqueeze(-1).unsqueeze(-1);
    let p = (p + g).relu() * mask;
    move_logits(board, &out(&p), xs, mask)
}

/// Batch norm in training over the board's cells only: the statistics of a batch do not
/// depend on how much frame surrounds its boards. Updates the running statistics as
/// libtorch's batch norm does (momentum 0.1, unbiased variance) and masks the output.
pub fn masked_batch_norm(x: &Tensor, mask: &Tensor, bn: &nn::BatchNorm, eps: f64) -> Tensor {
    const MOMENTUM: f64 = 0.1;
    let dims = [0i64, 2, 3];
    let n = mask.sum(Kind::Float).clamp_min(1.0);
    let mean = (x * mask).sum_dim_intlist(dims.as_slice(), false, Kind::Float) / &n;
    let centered = (x - mean.view([1, -1, 1, 1])) * mask;
    let var = centered.square().sum_dim_intlist(dims.as_slice(), false, Kind::Float) / &n;
    tch::no_grad(|| {
        let unbiased = &var * &n / (&n - 1.0).clamp_min(1.0);
        let mut running_mean = bn.running_mean.shallow_clone();
        let mut running_var = bn.running_var.shallow_clone();
        let new_mean = &running_mean * (1.0 - MOMENTUM) + &mean * MOMENTUM;
        let new_var = &running_var * (1.0 - MOMENTUM) + unbiased * MOMENTUM;
        running_mean.copy_(&new_mean);
        running_var.copy_(&new_var);
    });
    // New tensors, not in-place updates: autograd keeps the normalised values for the
    // gradient of the scale.
    let y = centered / (var + eps).sqrt().view([1, -1, 1, 1]);
    let y = match &bn.ws {
        Some(w) => y * w.view([1, -1, 1, 1]),
        None => y,
    };
    let y = match &bn.bs {
        Some(b) => y + b.view([1, -1, 1, 1]),
        None => y,
    };
    y * mask
}
