// A dojo network playing saiblo.net's Connect Four, as a saiblo strategy: the network's
// inference and dojo's graph search (PUCT, or Gumbel AlphaZero's) in plain C++ (one thread,
// no library), built as the platform builds a submission:
//
//     g++ -O2 -shared -fPIC -o Strategy.so Strategy.cpp
//
// Written by `dojo export saiblo`; the network's weights and the search's settings are the
// data at the top. What it computes is dojo's, step for step:
// - the network: its any-size form (program/src/cpp/network.cpp; net/src/folded.rs),
//   every batch norm folded into its convolution, run on the board as it is (no frame);
// - the input planes: Connect Four's nine (game/src/connect4.rs, `encode_planes`);
// - the tactics: the same file's bitboards (a 192-bit word here), its winning cells, moves
//   that do not lose at once and two-step kills;
// - the search: dojo's PUCT over a graph of positions (search/src/puct.rs): transpositions
//   shared, the MCTS-Solver's proofs, the two-step lookahead at every expanded position,
//   the part of the graph below the new root kept from move to move, the most visited move
//   played; or, with GUMBEL, the same graph searched as Gumbel AlphaZero plays
//   (search/src/gumbel.rs, no noise): sequential halving at the root, the completed-Q
//   improved policy below it, the move sequential halving ends on played.
// - the leaves' rollouts (ROLLOUTS, mixed into the network's value by ROLLOUT_WEIGHT): seed
//   001's rollout as dojo's `Connect4::rollout` plays it, from the same random stream.
// `dojoEvaluate` (below) is the network alone, `dojoLookahead` the two-step lookahead
// alone and `dojoRollout` one rollout, for `dojo export saiblo --check`; `dojoUseFastKernel`
// picks which of the network's two sets of convolutions it runs (AVX2 or portable).
//
// The parts, in order: what every exported engine shares (program/src/cpp/common.cpp), the
// network's weights and the search's settings (generated), Connect Four (connect4.cpp), the
// network (network.cpp), the search (search.cpp), then saiblo's two functions (saiblo.cpp).

#include "Point.h"
#include "Strategy.h"

//@ENGINE@

namespace dojo {

// The board a strategy is shown (x the row from the top, 2 the mover's discs) as dojo's.
bool board_from_view(int M, int N, const int* board, int lastX, int lastY, int noX, int noY, Board& b) {
    if (M < 1 || N < 1 || M > MAX_SIDE || N > MAX_SIDE) return false;
    b = Board();
    b.w = N;
    b.h = M;
    b.shape.h1 = M + 1;
    for (int c = 0; c < N; ++c) {
        b.shape.bottom = b.shape.bottom | bit(b.bit_of(c, 0));
        for (int r = 0; r < M; ++r) b.shape.full = b.shape.full | bit(b.bit_of(c, r));
    }
    int mine = 0, theirs = 0;
    for (int x = 0; x < M; ++x)
        for (int y = 0; y < N; ++y) {
            int v = board[x * N + y];
            mine += v == 2;
            theirs += v == 1;
        }
    // The mover moved first if both have played as many discs.
    bool first = mine == theirs;
    int free_cells = 0;
    for (int x = 0; x < M; ++x)
        for (int y = 0; y < N; ++y) {
            int r = M - 1 - x, v = board[x * N + y];
            int p = v == 2 ? (first ? FIRST : SECOND) : v == 1 ? (first ? SECOND : FIRST) : EMPTY;
            if (x == noX && y == noY) {
                p = BLOCKED;
                b.blocked_col = y;
                b.blocked_row = r;
            }
            b.cell[y][r] = (int8_t)p;
            if (p != EMPTY) b.mask = b.mask | bit(b.bit_of(y, r));
            if (p == BLOCKED) b.shape.blocked = b.shape.blocked | bit(b.bit_of(y, r));
            if (p == FIRST || p == SECOND) b.discs[p - 1] = b.discs[p - 1] | bit(b.bit_of(y, r));
            if (p == FIRST || p == SECOND) b.hash ^= KEYS.key[p - 1][y * MAX_SIDE + r];
            free_cells += p == EMPTY;
        }
    for (int c = 0; c < N; ++c) {
        b.land[c] = 0;
        b.settle(c);
    }
    b.ply = mine + theirs;
    b.free_cells = free_cells;
    if (lastX >= 0 && lastY >= 0 && lastX < M && lastY < N) {
        b.last_col = lastY;
        b.last_row = M - 1 - lastX;
    }
    return true;
}


}  // namespace dojo

extern "C" Point* getPoint(const int M, const int N, const int* top, const int* board, const int lastX,
                           const int lastY, const int noX, const int noY) {
    using namespace dojo;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(MOVE_MS);
    Board b;
    int column = -1;
    if (board_from_view(M, N, board, lastX, lastY, noX, noY, b)) {
        MoveReport report = search_move(b, deadline);
        column = report.move;
        if (std::getenv("DOJO_SAIBLO_LOG"))
            std::fprintf(stderr, "dojo: move %d: %u playouts, value %.3f, %zu nodes (%s kernel)\n", b.ply + 1,
                         report.playouts, report.value, report.nodes, use_fast_kernel ? "AVX2" : "portable");
    }
    // Whatever happened, a legal answer: the leftmost open column.
    if (column < 0 || column >= N || top[column] <= 0)
        for (column = 0; column < N - 1 && top[column] <= 0; ++column) {
        }
    return new Point(top[column] - 1, column);
}

extern "C" void clearPoint(Point* p) {
    delete p;
}

// The network alone on the position a strategy is shown, for `dojo export saiblo --check`:
// the probabilities of the columns (a softmax over the open ones, 0 for a full one) and the
// value for the side to move. Returns 0, or -1 for a board it cannot play.
extern "C" int dojoEvaluate(const int M, const int N, const int* top, const int* board, const int lastX,
                            const int lastY, const int noX, const int noY, float* policy, float* value) {
    using namespace dojo;
    Board b;
    if (!board_from_view(M, N, board, lastX, lastY, noX, noY, b)) return -1;
    float logits[MAX_SIDE];
    evaluate(b, logits, value);
    std::vector<int> open;
    for (int c = 0; c < N; ++c)
        if (top[c] > 0) open.push_back(c);
    std::vector<float> p;
    legal_softmax(logits, open, p);
    for (int c = 0; c < N; ++c) policy[c] = 0.0f;
    for (size_t i = 0; i < open.size(); ++i) policy[open[i]] = p[i];
    return 0;
}

// The two-step lookahead alone on the position a strategy is shown, for `dojo export saiblo
// --check` to compare with dojo's (the tactics the search builds on, on bitboards of its
// own): writes the columns into `moves` (at least N ints) and their number into `count`;
// returns 0 when those are the moves worth searching, 1 when the first wins, 2 when the side
// to move is lost (then the moves that make the opponent find the kill, none if every move
// loses at once), or -1 for a board it cannot play.
extern "C" int dojoLookahead(const int M, const int N, const int* top, const int* board, const int lastX,
                             const int lastY, const int noX, const int noY, int* moves, int* count) {
    using namespace dojo;
    (void)top;
    Board b;
    if (!board_from_view(M, N, board, lastX, lastY, noX, noY, b)) return -1;
    std::vector<int> out;
    int win = -1;
    Look look = lookahead_as(b, true, true, out, win);
    if (look == LOOK_WIN) out.assign(1, win);
    for (size_t i = 0; i < out.size(); ++i) moves[i] = out[i];
    *count = (int)out.size();
    return look == LOOK_WIN ? 1 : look == LOOK_LOST ? 2 : 0;
}

// One rollout (seed 001's, as the search mixes them into a leaf's value) from the position a
// strategy is shown, for `dojo export saiblo --check` to compare with dojo's
// `Connect4::rollout`: its random choices from the stream at `*state`, which it advances;
// writes the result for the side to move (1, -1 or 0) into `result`. Returns 0, or -1 for
// a board it cannot play.
extern "C" int dojoRollout(const int M, const int N, const int* top, const int* board, const int lastX,
                           const int lastY, const int noX, const int noY, uint64_t* state, float* result) {
    using namespace dojo;
    (void)top;
    Board b;
    if (!board_from_view(M, N, board, lastX, lastY, noX, noY, b) || b.result != ONGOING) return -1;
    *result = rollout(b.shape, b.mine(), b.theirs(), b.mask, *state);
    return 0;
}

// Which convolution the network runs, for `dojo export saiblo --check` to check both: the
// fast one (`fast` 1) where the processor has AVX2 and FMA, else the portable one. Returns 1
// if the fast one is now in use. The platform never calls it: a strategy starts on the
// fastest kernel its processor runs.
extern "C" int dojoUseFastKernel(const int fast) {
    dojo::use_fast_kernel = fast && dojo::fast_kernel_available();
    return dojo::use_fast_kernel ? 1 : 0;
}
