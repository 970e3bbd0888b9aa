// A dojo network playing saiblo.net's Connect Four, as a saiblo strategy: the network's
// inference and dojo's graph search (PUCT, or Gumbel AlphaZero's) in plain C++ (one thread,
// no library), built as the platform builds a submission:
//
//     g++ -O2 -shared -fPIC -o Strategy.so Strategy.cpp
//
// Written by `dojo export saiblo`; the network's weights and the search's settings are the
// data at the top. What it computes is dojo's, step for step:
// - the network: its any-size form (program/src/saiblo_export.rs; net/src/folded.rs),
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
// alone and `dojoRollout` one rollout, for `dojo export saiblo --check`; `dojoUseFastKernel` picks which of the network's
// two sets of convolutions it runs (AVX2 or portable).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <unordered_map>
#include <vector>

// x86-64 processors with AVX2 and FMA get faster convolutions (the residual blocks' by
// Winograd's F(2x2, 3x3)), chosen at run time (below); building with -DDOJO_NO_AVX2 leaves
// only the portable ones.
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) && !defined(DOJO_NO_AVX2)
#define DOJO_X86 1
#include <immintrin.h>
#endif

#include "Point.h"
#include "Strategy.h"

namespace dojo {

//@GENERATED@

// ---------------------------------------------------------------------------------------
// The board.

// saiblo's boards are 9..12 a side; anything up to this is played.
constexpr int MAX_SIDE = 12;
constexpr int MAX_CELLS = MAX_SIDE * MAX_SIDE;
constexpr int EMPTY = 0, FIRST = 1, SECOND = 2, BLOCKED = 3;
enum Result { ONGOING, WON, DRAWN };  // WON: by the player who moved last

uint64_t splitmix(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Zobrist keys: one per player and cell.
struct Keys {
    uint64_t key[2][MAX_CELLS];
    Keys() {
        uint64_t state = 0x646f6a6f;  // "dojo"
        for (int p = 0; p < 2; ++p)
            for (int i = 0; i < MAX_CELLS; ++i) key[p][i] = splitmix(state);
    }
};
const Keys KEYS;

// 192 bits: every saiblo board as dojo's bitboard lays it out (game/src/connect4.rs), column
// by column from the bottom, each column h + 1 bits with a sentinel on top that stays clear
// so that shifted lines never leak from one column into the next (12 x 13 = 156 bits).
struct Bits {
    uint64_t w[3];
};

inline Bits operator&(Bits a, Bits b) { return Bits{{a.w[0] & b.w[0], a.w[1] & b.w[1], a.w[2] & b.w[2]}}; }
inline Bits operator|(Bits a, Bits b) { return Bits{{a.w[0] | b.w[0], a.w[1] | b.w[1], a.w[2] | b.w[2]}}; }
inline Bits operator^(Bits a, Bits b) { return Bits{{a.w[0] ^ b.w[0], a.w[1] ^ b.w[1], a.w[2] ^ b.w[2]}}; }
inline Bits operator~(Bits a) { return Bits{{~a.w[0], ~a.w[1], ~a.w[2]}}; }
// Shifts by 0 < n < 64 (the lines' steps are at most 3 x 14 = 42).
inline Bits operator<<(Bits a, int n) {
    return Bits{{a.w[0] << n, (a.w[1] << n) | (a.w[0] >> (64 - n)), (a.w[2] << n) | (a.w[1] >> (64 - n))}};
}
inline Bits operator>>(Bits a, int n) {
    return Bits{{(a.w[0] >> n) | (a.w[1] << (64 - n)), (a.w[1] >> n) | (a.w[2] << (64 - n)), a.w[2] >> n}};
}
inline bool none(Bits a) { return (a.w[0] | a.w[1] | a.w[2]) == 0; }
inline Bits bit(int i) {
    Bits b = {{0, 0, 0}};
    b.w[i >> 6] = 1ULL << (i & 63);
    return b;
}
inline bool has(Bits a, int i) { return a.w[i >> 6] >> (i & 63) & 1; }
inline Bits add(Bits a, Bits b) {
    uint64_t r0 = a.w[0] + b.w[0];
    uint64_t c0 = r0 < a.w[0];
    uint64_t s1 = a.w[1] + b.w[1];
    uint64_t r1 = s1 + c0;
    uint64_t c1 = (s1 < a.w[1]) | (r1 < s1);
    return Bits{{r0, r1, a.w[2] + b.w[2] + c1}};
}
// `a` without its lowest set bit.
inline Bits clear_lowest(Bits a) {
    if (a.w[0]) return Bits{{a.w[0] & (a.w[0] - 1), a.w[1], a.w[2]}};
    if (a.w[1]) return Bits{{0, a.w[1] & (a.w[1] - 1), a.w[2]}};
    return Bits{{0, 0, a.w[2] & (a.w[2] - 1)}};
}
inline int ctz64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) x >>= 1, ++n;
    return n;
#endif
}
// The index of the lowest set bit of a non-empty `a`.
inline int lowest_bit(Bits a) {
    if (a.w[0]) return ctz64(a.w[0]);
    if (a.w[1]) return 64 + ctz64(a.w[1]);
    return 128 + ctz64(a.w[2]);
}

// A board's shape as bits, and the tactics dojo's lookahead reads off bitboards
// (game/src/connect4.rs: `winning_cells`, `non_losing_moves`, the two-step kills), on a
// position given as the discs of the side to move (`cur`), of the other side (`opp`) and
// every occupied cell, blocked ones included (`mask`): no board is copied to look ahead.
struct Shape {
    int h1 = 1;                    // bits a column
    Bits bottom = {{0, 0, 0}};     // bit 0 of every column
    Bits full = {{0, 0, 0}};       // every cell, no sentinels
    Bits blocked = {{0, 0, 0}};

    // The lowest empty cell of every column that has one, given the occupied cells `occ`:
    // occupied cells are a column's bottom plus blocked cells above, so adding the bottom
    // carries up to the first empty cell (past a blocked top cell into the sentinel).
    Bits next_cells(Bits occ) const { return add(occ, bottom) & ~occ & full; }

    // The empty cells where discs `p` would complete four in a row, playable now or not.
    Bits winning_cells(Bits p, Bits mask) const {
        Bits r = (p << 1) & (p << 2) & (p << 3);  // three below
        const int steps[3] = {h1, h1 - 1, h1 + 1};
        for (int d : steps) {  // across and both diagonals: the gap at any of four places
            Bits a = (p << d) & (p << (2 * d));
            r = r | (a & (p << (3 * d))) | (a & (p >> d));
            Bits b = (p >> d) & (p >> (2 * d));
            r = r | (b & (p << d)) | (b & (p >> (3 * d)));
        }
        return r & full & ~mask;
    }

    // For cells `x`, each above a cell of `target` in its column with only blocked cells
    // between, those cells of `target`.
    Bits drop_onto(Bits x, Bits target) const {
        Bits g = x >> 1;
        if (none(blocked)) return g & target;
        // An occluded fill down through runs of blocked cells (shorter than 16).
        Bits q = blocked;
        g = g | (q & (g >> 1));
        q = q & (q >> 1);
        g = g | (q & (g >> 2));
        q = q & (q >> 2);
        g = g | (q & (g >> 4));
        q = q & (q >> 4);
        g = g | (q & (g >> 8));
        return (g | (g >> 1)) & target;
    }

    // The playable cells that do not let the opponent win at once: none if it has two cells
    // to win on now, the block if it has one, never one under a cell where it would win.
    // Assumes the side to move cannot win at once.
    Bits non_losing_cells(Bits opp, Bits mask) const {
        Bits possible = next_cells(mask);
        Bits opp_wins = winning_cells(opp, mask);
        Bits forced = possible & opp_wins;
        if (!none(forced)) {
            if (!none(clear_lowest(forced))) return Bits{{0, 0, 0}};
            possible = forced;
        }
        Bits above = next_cells(mask | possible);
        return possible & ~drop_onto(above & opp_wins, possible);
    }

    // The side to move loses at once: it cannot win now and every move lets the opponent
    // win (a full board is a draw, not a loss).
    bool lost_at_once(Bits cur, Bits opp, Bits mask) const {
        Bits playable = next_cells(mask);
        if (none(playable) || !none(playable & winning_cells(cur, mask))) return false;
        return none(non_losing_cells(opp, mask));
    }

    // The first (lowest column) of the `safe` cells after which the opponent is lost at
    // once, or none. The side to move has no immediate win.
    Bits kill_among(Bits cur, Bits opp, Bits mask, Bits safe) const {
        for (Bits rest = safe; !none(rest); rest = clear_lowest(rest)) {
            Bits cell = rest ^ clear_lowest(rest);
            if (lost_at_once(opp, cur | cell, mask | cell)) return cell;
        }
        return Bits{{0, 0, 0}};
    }

    // The side to move wins at once or has a two-step kill.
    bool has_kill(Bits cur, Bits opp, Bits mask) const {
        Bits playable = next_cells(mask);
        if (none(playable)) return false;
        if (!none(playable & winning_cells(cur, mask))) return true;
        return !none(kill_among(cur, opp, mask, non_losing_cells(opp, mask)));
    }

    int column_of(int bit_index) const { return bit_index / h1; }

    // The columns (a bit each) of `cells`, at most one cell a column.
    unsigned columns_of(Bits cells) const {
        unsigned columns = 0;
        for (; !none(cells); cells = clear_lowest(cells)) columns |= 1u << column_of(lowest_bit(cells));
        return columns;
    }
};

// A position: columns `w`, rows `h`, rows counted from the bottom as dojo counts them; the
// cells as an array (for the network's planes) and as bitboards (for the tactics).
struct Board {
    int w = 0, h = 0;
    int8_t cell[MAX_SIDE][MAX_SIDE];  // [column][row]
    int8_t land[MAX_SIDE];            // the row a disc dropped in the column lands on; h if full
    int ply = 0;                      // discs played
    int free_cells = 0;               // cells neither blocked nor played
    int last_col = -1, last_row = -1;
    int blocked_col = -1, blocked_row = -1;
    Result result = ONGOING;
    uint64_t hash = 0;
    Shape shape;
    Bits discs[2] = {{{0, 0, 0}}, {{0, 0, 0}}};  // FIRST's and SECOND's
    Bits mask = {{0, 0, 0}};                     // every occupied cell, blocked ones included

    int mover() const { return ply % 2 == 0 ? FIRST : SECOND; }
    int opponent() const { return ply % 2 == 0 ? SECOND : FIRST; }
    bool playable(int c) const { return result == ONGOING && land[c] < h; }
    Bits mine() const { return discs[mover() - 1]; }
    Bits theirs() const { return discs[opponent() - 1]; }
    int bit_of(int c, int r) const { return c * shape.h1 + r; }

    void settle(int c) {
        while (land[c] < h && cell[c][land[c]] != EMPTY) ++land[c];
    }

    int at(int c, int r) const {
        return (c < 0 || c >= w || r < 0 || r >= h) ? EMPTY : cell[c][r];
    }

    // Whether a disc of `p` on the empty cell (c, r) would complete four in a row.
    bool wins_at(int p, int c, int r) const {
        static const int DIRS[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
        for (const auto& d : DIRS) {
            int n = 0;
            for (int k = 1; k < 4 && at(c + k * d[0], r + k * d[1]) == p; ++k) ++n;
            for (int k = 1; k < 4 && at(c - k * d[0], r - k * d[1]) == p; ++k) ++n;
            if (n >= 3) return true;
        }
        return false;
    }

    void play(int c) {
        int r = land[c];
        int p = mover();
        bool won = wins_at(p, c, r);
        cell[c][r] = (int8_t)p;
        Bits b = bit(bit_of(c, r));
        discs[p - 1] = discs[p - 1] | b;
        mask = mask | b;
        hash ^= KEYS.key[p - 1][c * MAX_SIDE + r];
        settle(c);
        ++ply;
        --free_cells;
        last_col = c;
        last_row = r;
        result = won ? WON : (free_cells == 0 ? DRAWN : ONGOING);
    }

    Board after(int c) const {
        Board b = *this;
        b.play(c);
        return b;
    }

    // Columns (a bit each) where the side to move wins at once.
    unsigned immediate_wins() const {
        if (result != ONGOING) return 0;
        return shape.columns_of(shape.next_cells(mask) & shape.winning_cells(mine(), mask));
    }

    // The columns that do not let the opponent win at once (dojo's `non_losing_moves`).
    unsigned non_losing_moves() const {
        if (result != ONGOING) return 0;
        return shape.columns_of(shape.non_losing_cells(theirs(), mask));
    }

    // The first of the `safe` columns after which the opponent is lost at once, or -1.
    int kill_among(unsigned safe) const {
        Bits kill = shape.kill_among(mine(), theirs(), mask, cells_of(safe));
        return none(kill) ? -1 : shape.column_of(lowest_bit(kill));
    }

    // Whether the side to move, after playing column `c`, leaves the opponent a two-step kill.
    bool gives_kill(int c) const {
        Bits cell = bit(bit_of(c, land[c]));
        return shape.has_kill(theirs(), mine() | cell, mask | cell);
    }

    // The landing cells of the columns `columns`, all playable.
    Bits cells_of(unsigned columns) const {
        Bits cells = {{0, 0, 0}};
        for (int c = 0; c < w; ++c)
            if (columns >> c & 1) cells = cells | bit(bit_of(c, land[c]));
        return cells;
    }
};

int lowest_column(unsigned columns) {
    int c = 0;
    while (!(columns >> c & 1)) ++c;
    return c;
}

// What the lookahead proves, as dojo's `Lookahead`.
enum Look { LOOK_WIN, LOOK_LOST, LOOK_MOVES };

// The moves worth searching: dojo's `two_step_lookahead` (`two_step`), its `lookahead`
// (`tactics` alone) or every open column; `win` is the winning column when LOOK_WIN.
Look lookahead_as(const Board& b, bool tactics, bool two_step, std::vector<int>& out, int& win) {
    out.clear();
    if (!tactics) {
        for (int c = 0; c < b.w; ++c)
            if (b.playable(c)) out.push_back(c);
        return LOOK_MOVES;
    }
    unsigned wins = b.immediate_wins();
    if (wins) {
        win = lowest_column(wins);
        return LOOK_WIN;
    }
    unsigned safe = b.non_losing_moves();
    if (!safe) return LOOK_LOST;
    unsigned kept = safe;
    Look look = LOOK_MOVES;
    if (two_step) {
        int kill = b.kill_among(safe);
        if (kill >= 0) {
            win = kill;
            return LOOK_WIN;
        }
        kept = 0;
        for (int c = 0; c < b.w; ++c)
            if ((safe >> c & 1) && !b.gives_kill(c)) kept |= 1u << c;
        if (!kept) {
            kept = safe;
            look = LOOK_LOST;
        }
    }
    for (int c = 0; c < b.w; ++c)
        if (kept >> c & 1) out.push_back(c);
    return look;
}

// The lookahead the search runs, by the settings.
Look lookahead(const Board& b, std::vector<int>& out, int& win) {
    return lookahead_as(b, TACTICS, TWO_STEP_KILLS, out, win);
}

// ---------------------------------------------------------------------------------------
// Rollouts (ROLLOUTS a leaf, their mean mixed into the network's value by ROLLOUT_WEIGHT):
// seed 001's rollout as dojo's `Connect4::rollout` plays it, on the bitboards alone, its
// random choices from the same SplitMix64 stream, so that both play the same rollouts.

inline int popcount64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    for (; x; x &= x - 1) ++n;
    return n;
#endif
}

inline Bits lowest_cell(Bits cells) { return cells ^ clear_lowest(cells); }

// A cell of the non-empty `cells` drawn uniformly from the stream at `state`: the k-th in
// bit order, k the top 32 bits of the word scaled to the count.
inline Bits random_cell(Bits cells, uint64_t& state) {
    uint64_t n = (uint64_t)(popcount64(cells.w[0]) + popcount64(cells.w[1]) + popcount64(cells.w[2]));
    uint64_t k = ((splitmix(state) >> 32) * n) >> 32;
    for (; k > 0; --k) cells = clear_lowest(cells);
    return lowest_cell(cells);
}

// The game played out from the position (`cur` to move, `opp`, every occupied cell `mask`)
// by the seed's rules: win at once; block the opponent's win (the lowest, if two); never play
// under a cell where it wins; play a column whose next two cells both win; keep columns the
// opponent must not play for last; otherwise at random. 1 if the side to move wins, -1 if
// it loses, 0 drawn.
float rollout(const Shape& s, Bits cur, Bits opp, Bits mask, uint64_t& state) {
    float sign = 1.0f;
    while (true) {
        Bits poss = s.next_cells(mask);
        if (none(poss)) return 0.0f;
        Bits my_win = s.winning_cells(cur, mask);
        if (!none(poss & my_win)) return sign;
        Bits opp_win = s.winning_cells(opp, mask);
        Bits threats = poss & opp_win;
        Bits cell;
        if (!none(threats)) {
            cell = lowest_cell(threats);
        } else {
            Bits second = s.next_cells(mask | poss);
            Bits safe = poss & ~s.drop_onto(second & opp_win, poss);
            if (none(safe)) {
                cell = random_cell(poss, state);
            } else {
                Bits theirs_forbidden = safe & s.drop_onto(second & my_win, poss);
                Bits two_step = {{0, 0, 0}};
                if (!none(theirs_forbidden)) {
                    Bits third = s.next_cells(mask | poss | second);
                    two_step = theirs_forbidden & s.drop_onto(s.drop_onto(third & my_win, second), poss);
                }
                if (!none(two_step)) {
                    cell = lowest_cell(two_step);
                } else {
                    Bits rest = safe & ~theirs_forbidden;
                    cell = random_cell(none(rest) ? safe : rest, state);
                }
            }
        }
        Bits next = opp;
        opp = cur | cell;
        cur = next;
        mask = mask | cell;
        sign = -sign;
    }
}

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

// ---------------------------------------------------------------------------------------
// The network: activations are [cell][channel], cells numbered x * w + y with x the row from
// the top, as dojo's planes are laid out.

constexpr int PLANES = 9;
constexpr int POOLED = 3 * CHANNELS;
constexpr float NO_MOVE_LOGIT = -30.0f;

// The fast convolution computes this many neighbouring cells of a row (or tiles) at once.
constexpr int FAST_CELLS = 3;
constexpr int WIDEST_INPUT = PLANES > CHANNELS ? PLANES : CHANNELS;
// The Winograd convolution's 2x2 output tiles on the largest board, and the 16 numbers a
// tile's 4x4 input patch becomes.
constexpr int MAX_TILES = (MAX_SIDE + 1) / 2 * ((MAX_SIDE + 1) / 2);
constexpr int TILE_TERMS = 16;

struct Scratch {
    float in[MAX_CELLS * PLANES];
    float x[MAX_CELLS * CHANNELS], y[MAX_CELLS * CHANNELS], t[MAX_CELLS * CHANNELS];
    float mask[MAX_CELLS];
    // The fast convolution's input with a border of zeros (and FAST_CELLS more columns, for
    // a row's last block of cells to read).
    float padded[(MAX_SIDE + 2) * (MAX_SIDE + 2 + FAST_CELLS) * WIDEST_INPUT];
    // The Winograd convolution's transformed input and its products, [tile][term][channel],
    // with room for the last block of FAST_CELLS tiles.
    float tiles_in[(MAX_TILES + FAST_CELLS) * TILE_TERMS * CHANNELS];
    float tiles_out[(MAX_TILES + FAST_CELLS) * TILE_TERMS * CHANNELS];
};
Scratch S;

// A KxK convolution (3x3 or 1x1) with zero padding; weights [tap][in][out], tap = ky * K + kx.
// The portable kernel: g++ vectorises its inner loop at plain -O2 where it can (SSE2).
template <int IN, int K>
void conv_portable(const float* in, float* out, const float* weight, const float* bias, int h, int w) {
    constexpr int B = K / 2;
    for (int r = 0; r < h; ++r)
        for (int c = 0; c < w; ++c) {
            float acc[CHANNELS];
            for (int o = 0; o < CHANNELS; ++o) acc[o] = bias[o];
            for (int ky = 0; ky < K; ++ky) {
                int rr = r + ky - B;
                if (rr < 0 || rr >= h) continue;
                for (int kx = 0; kx < K; ++kx) {
                    int cc = c + kx - B;
                    if (cc < 0 || cc >= w) continue;
                    const float* src = in + (rr * w + cc) * IN;
                    const float* tap = weight + (ky * K + kx) * IN * CHANNELS;
                    for (int i = 0; i < IN; ++i) {
                        float s = src[i];
                        if (s == 0.0f) continue;  // after a ReLU, half of them
                        const float* row = tap + i * CHANNELS;
                        for (int o = 0; o < CHANNELS; ++o) acc[o] += s * row[o];
                    }
                }
            }
            std::memcpy(out + (r * w + c) * CHANNELS, acc, sizeof acc);
        }
}

#ifdef DOJO_X86
// The same convolution with AVX2 and FMA, several times the portable kernel's speed
// (docs/saiblo.md measures both). FAST_CELLS cells of a row are computed together, so each
// load of a weight row serves all of them, their CHANNELS sums held in registers (12 of the
// 16 at 32 channels; the unroll pragmas put them there). The input is first copied into a
// buffer with a border of zeros, so no tap needs a bounds check; zeros are multiplied, not
// skipped. The sums are the portable kernel's, in its order; a fused multiply-add rounds
// once where the portable kernel rounds twice.
template <int IN, int K>
__attribute__((target("avx2,fma"))) void conv_avx2(const float* in, float* out, const float* weight,
                                                   const float* bias, int h, int w) {
    constexpr int NC = FAST_CELLS, NO = CHANNELS / 8, B = K / 2;
    const int pw = w + 2 * B + NC;
    std::memset(S.padded, 0, sizeof(float) * (h + 2 * B) * pw * IN);
    for (int r = 0; r < h; ++r)
        std::memcpy(S.padded + ((r + B) * pw + B) * IN, in + r * w * IN, sizeof(float) * w * IN);
    for (int r = 0; r < h; ++r)
        for (int c0 = 0; c0 < w; c0 += NC) {
            __m256 acc[NC][NO];
#pragma GCC unroll 8
            for (int j = 0; j < NC; ++j)
#pragma GCC unroll 8
                for (int o = 0; o < NO; ++o) acc[j][o] = _mm256_loadu_ps(bias + 8 * o);
            for (int ky = 0; ky < K; ++ky)
                for (int kx = 0; kx < K; ++kx) {
                    // Padded cell (r + ky, c0 + kx) is the input's (r + ky - B, c0 + kx - B).
                    const float* src = S.padded + ((r + ky) * pw + c0 + kx) * IN;
                    const float* tap = weight + (ky * K + kx) * IN * CHANNELS;
                    for (int i = 0; i < IN; ++i) {
                        const float* row = tap + i * CHANNELS;
                        __m256 s[NC];
#pragma GCC unroll 8
                        for (int j = 0; j < NC; ++j) s[j] = _mm256_broadcast_ss(src + j * IN + i);
#pragma GCC unroll 8
                        for (int o = 0; o < NO; ++o) {
                            __m256 wv = _mm256_loadu_ps(row + 8 * o);
#pragma GCC unroll 8
                            for (int j = 0; j < NC; ++j) acc[j][o] = _mm256_fmadd_ps(s[j], wv, acc[j][o]);
                        }
                    }
                }
            // A row's last block may run past its end: those cells are not stored.
#pragma GCC unroll 8
            for (int j = 0; j < NC; ++j)
#pragma GCC unroll 8
                for (int o = 0; o < NO; ++o)
                    if (c0 + j < w) _mm256_storeu_ps(out + (r * w + c0 + j) * CHANNELS + 8 * o, acc[j][o]);
        }
}

// The residual blocks' 3x3 convolutions with AVX2 and FMA by Winograd's F(2x2, 3x3): each
// 2x2 tile of output cells is computed from its 4x4 input patch d as A^T [(G g G^T) . (B^T d
// B)] A, 16 products a channel pair where the direct kernel makes 36, so the work is 16
// matrix products of [tiles x CHANNELS] by [CHANNELS x CHANNELS] (the direct kernel's inner
// loop, over tiles instead of cells) between two cheap transforms. An odd side computes a
// row or column of tiles past the board, so 9x9 gains least (docs/saiblo.md measures it).
// The transformed weights G g G^T are made once, at load (winograd_weights). The sums are
// not the direct kernel's: they agree with it to float rounding (about 1e-6 a layer).
__attribute__((target("avx2,fma"))) void conv_winograd(const float* in, float* out, const float* u,
                                                       const float* bias, int h, int w) {
    constexpr int C = CHANNELS, NC = FAST_CELLS, NO = CHANNELS / 8, T = TILE_TERMS;
    const int th = (h + 1) / 2, tw = (w + 1) / 2, tiles = th * tw;
    const int blocked = (tiles + NC - 1) / NC * NC;  // tiles rounded up to whole blocks
    const int pw = 2 * tw + 2;                        // the padded input: a border of zeros
    std::memset(S.padded, 0, sizeof(float) * (2 * th + 2) * pw * C);
    for (int r = 0; r < h; ++r)
        std::memcpy(S.padded + ((r + 1) * pw + 1) * C, in + r * w * C, sizeof(float) * w * C);
    // The input transform, B^T d B, 8 channels at a time: with B^T's rows (1, 0, -1, 0),
    // (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, 0, -1) on the patch's rows, then on its columns.
    for (int ty = 0; ty < th; ++ty)
        for (int tx = 0; tx < tw; ++tx) {
            const float* patch = S.padded + (2 * ty * pw + 2 * tx) * C;
            float* terms = S.tiles_in + (ty * tw + tx) * T * C;
            for (int i = 0; i < C; i += 8) {
                __m256 t[4][4];
                for (int c = 0; c < 4; ++c) {
                    __m256 d0 = _mm256_loadu_ps(patch + c * C + i), d1 = _mm256_loadu_ps(patch + (pw + c) * C + i);
                    __m256 d2 = _mm256_loadu_ps(patch + (2 * pw + c) * C + i);
                    __m256 d3 = _mm256_loadu_ps(patch + (3 * pw + c) * C + i);
                    t[0][c] = _mm256_sub_ps(d0, d2);
                    t[1][c] = _mm256_add_ps(d1, d2);
                    t[2][c] = _mm256_sub_ps(d2, d1);
                    t[3][c] = _mm256_sub_ps(d1, d3);
                }
                for (int r = 0; r < 4; ++r) {
                    _mm256_storeu_ps(terms + (4 * r + 0) * C + i, _mm256_sub_ps(t[r][0], t[r][2]));
                    _mm256_storeu_ps(terms + (4 * r + 1) * C + i, _mm256_add_ps(t[r][1], t[r][2]));
                    _mm256_storeu_ps(terms + (4 * r + 2) * C + i, _mm256_sub_ps(t[r][2], t[r][1]));
                    _mm256_storeu_ps(terms + (4 * r + 3) * C + i, _mm256_sub_ps(t[r][1], t[r][3]));
                }
            }
        }
    // The last block's tiles past the board read zeros.
    std::memset(S.tiles_in + tiles * T * C, 0, sizeof(float) * (blocked - tiles) * T * C);
    // The 16 products, NC tiles at a time, their CHANNELS sums in registers.
    for (int e = 0; e < T; ++e) {
        const float* ue = u + e * C * C;
        for (int t0 = 0; t0 < blocked; t0 += NC) {
            const float* src = S.tiles_in + (t0 * T + e) * C;
            __m256 acc[NC][NO];
#pragma GCC unroll 8
            for (int j = 0; j < NC; ++j)
#pragma GCC unroll 8
                for (int o = 0; o < NO; ++o) acc[j][o] = _mm256_setzero_ps();
            for (int i = 0; i < C; ++i) {
                const float* row = ue + i * C;
                __m256 s[NC];
#pragma GCC unroll 8
                for (int j = 0; j < NC; ++j) s[j] = _mm256_broadcast_ss(src + j * T * C + i);
#pragma GCC unroll 8
                for (int o = 0; o < NO; ++o) {
                    __m256 wv = _mm256_loadu_ps(row + 8 * o);
#pragma GCC unroll 8
                    for (int j = 0; j < NC; ++j) acc[j][o] = _mm256_fmadd_ps(s[j], wv, acc[j][o]);
                }
            }
            float* dst = S.tiles_out + (t0 * T + e) * C;
#pragma GCC unroll 8
            for (int j = 0; j < NC; ++j)
#pragma GCC unroll 8
                for (int o = 0; o < NO; ++o) _mm256_storeu_ps(dst + j * T * C + 8 * o, acc[j][o]);
        }
    }
    // The output transform, A^T m A plus the bias (A^T's rows (1, 1, 1, 0), (0, 1, -1, -1)):
    // the tile's cells on the board are stored.
    for (int ty = 0; ty < th; ++ty)
        for (int tx = 0; tx < tw; ++tx) {
            const float* terms = S.tiles_out + (ty * tw + tx) * T * C;
            for (int o = 0; o < C; o += 8) {
                __m256 s[2][4];
                for (int c = 0; c < 4; ++c) {
                    __m256 m0 = _mm256_loadu_ps(terms + c * C + o), m1 = _mm256_loadu_ps(terms + (4 + c) * C + o);
                    __m256 m2 = _mm256_loadu_ps(terms + (8 + c) * C + o);
                    __m256 m3 = _mm256_loadu_ps(terms + (12 + c) * C + o);
                    s[0][c] = _mm256_add_ps(_mm256_add_ps(m0, m1), m2);
                    s[1][c] = _mm256_sub_ps(_mm256_sub_ps(m1, m2), m3);
                }
                const __m256 b = _mm256_loadu_ps(bias + o);
                for (int a = 0; a < 2 && 2 * ty + a < h; ++a) {
                    float* cell = out + ((2 * ty + a) * w + 2 * tx) * C + o;
                    _mm256_storeu_ps(cell, _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(s[a][0], s[a][1]), s[a][2]), b));
                    if (2 * tx + 1 < w)
                        _mm256_storeu_ps(cell + C,
                                         _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(s[a][1], s[a][2]), s[a][3]), b));
                }
            }
        }
}
#endif

// Whether this processor runs the fast kernel. The platform builds with plain -O2 for any
// x86-64, so the choice is made here, at run time, not by the compiler.
bool fast_kernel_available() {
#ifdef DOJO_X86
    __builtin_cpu_init();  // this may run from a static initialiser, before libgcc's own
    return CHANNELS % 8 == 0 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}
bool use_fast_kernel = fast_kernel_available();

// A KxK convolution over the board, CHANNELS out, by the fastest kernel this processor runs.
template <int IN, int K>
void conv(const float* in, float* out, const float* weight, const float* bias, int h, int w) {
#ifdef DOJO_X86
    if (use_fast_kernel) return conv_avx2<IN, K>(in, out, weight, bias, h, w);
#endif
    conv_portable<IN, K>(in, out, weight, bias, h, w);
}

#ifdef DOJO_X86
// The residual blocks' kernels as the Winograd convolution takes them, G g G^T: for each
// input and output channel the 3x3 kernel g becomes 4x4, [term][in][out] (G's rows (1, 0,
// 0), (1/2, 1/2, 1/2), (1/2, -1/2, 1/2), (0, 0, 1)). Made once, when the strategy loads.
float BLOCK_U[2 * BLOCKS][TILE_TERMS * CHANNELS * CHANNELS];
bool winograd_weights() {
    constexpr int C = CHANNELS;
    for (int k = 0; k < 2 * BLOCKS; ++k)
        for (int i = 0; i < C; ++i)
            for (int o = 0; o < C; ++o) {
                float g[3][3], gg[4][3];
                for (int t = 0; t < 9; ++t) g[t / 3][t % 3] = BLOCK_W[k][t * C * C + i * C + o];
                for (int c = 0; c < 3; ++c) {
                    gg[0][c] = g[0][c];
                    gg[1][c] = 0.5f * (g[0][c] + g[1][c] + g[2][c]);
                    gg[2][c] = 0.5f * (g[0][c] - g[1][c] + g[2][c]);
                    gg[3][c] = g[2][c];
                }
                for (int a = 0; a < 4; ++a) {
                    const float row[4] = {gg[a][0], 0.5f * (gg[a][0] + gg[a][1] + gg[a][2]),
                                          0.5f * (gg[a][0] - gg[a][1] + gg[a][2]), gg[a][2]};
                    for (int b = 0; b < 4; ++b) BLOCK_U[k][(4 * a + b) * C * C + i * C + o] = row[b];
                }
            }
    return true;
}
bool block_weights_transformed = winograd_weights();
#endif

// Residual block layer `k`'s 3x3 convolution: Winograd's with AVX2, else the portable one.
void block_conv(int k, const float* in, float* out, int h, int w) {
#ifdef DOJO_X86
    if (use_fast_kernel) return conv_winograd(in, out, BLOCK_U[k], BLOCK_B[k], h, w);
#endif
    conv_portable<CHANNELS, 3>(in, out, BLOCK_W[k], BLOCK_B[k], h, w);
}

// A linear layer of `cells` inputs at once: weights [in][out].
template <int IN, int OUT>
void dense(const float* in, float* out, const float* weight, const float* bias, int cells) {
    for (int k = 0; k < cells; ++k) {
        float acc[OUT];
        for (int o = 0; o < OUT; ++o) acc[o] = bias[o];
        const float* src = in + k * IN;
        for (int i = 0; i < IN; ++i) {
            float s = src[i];
            if (s == 0.0f) continue;
            const float* row = weight + i * OUT;
            for (int o = 0; o < OUT; ++o) acc[o] += s * row[o];
        }
        std::memcpy(out + k * OUT, acc, sizeof acc);
    }
}

// A ReLU, and zeros on the blocked cell (its mask 0). Written so g++ vectorises it.
void relu_mask(float* a, int cells) {
    for (int k = 0; k < cells; ++k) {
        float mask = S.mask[k], *v = a + k * CHANNELS;
        for (int o = 0; o < CHANNELS; ++o) v[o] = std::max(v[o], 0.0f) * mask;
    }
}

// KataGo's global pooling of a masked, non-negative map: mean, mean scaled by
// (sqrt(cells) - 10) / 10, max.
void pool(const float* a, int cells, float* out) {
    float board = 0.0f;
    for (int k = 0; k < cells; ++k) board += S.mask[k];
    for (int o = 0; o < CHANNELS; ++o) {
        float sum = 0.0f, most = 0.0f;
        for (int k = 0; k < cells; ++k) {
            float v = a[k * CHANNELS + o];
            sum += v;
            most = std::max(most, v);
        }
        float mean = sum / board;
        out[o] = mean;
        out[CHANNELS + o] = mean * ((std::sqrt(board) - 10.0f) / 10.0f);
        out[2 * CHANNELS + o] = most;
    }
}

// The nine input planes of a position that is not over.
void encode(const Board& b) {
    int h = b.h, w = b.w, cells = h * w;
    std::memset(S.in, 0, sizeof(float) * cells * PLANES);
    int me = b.mover(), opp = b.opponent();
    bool first = me == FIRST;
    Bits my_wins = b.shape.winning_cells(b.mine(), b.mask), their_wins = b.shape.winning_cells(b.theirs(), b.mask);
    for (int c = 0; c < w; ++c)
        for (int r = 0; r < h; ++r) {
            float* p = S.in + ((h - 1 - r) * w + c) * PLANES;
            int v = b.cell[c][r];
            S.mask[(h - 1 - r) * w + c] = v == BLOCKED ? 0.0f : 1.0f;
            if (v == BLOCKED) continue;  // the mask zeroes a blocked cell's planes
            p[0] = v == me;
            p[1] = v == opp;
            p[2] = c == b.last_col && r == b.last_row;
            p[4] = 1.0f;
            p[5] = first;
            if (v == EMPTY) {
                p[6] = has(my_wins, b.bit_of(c, r));
                p[7] = has(their_wins, b.bit_of(c, r));
                p[8] = r == b.land[c];
            }
        }
}

// Policy logits (one per column; NO_MOVE_LOGIT for a full column) and the value for the side
// to move of `b`, a position that is not over.
void evaluate(const Board& b, float* logits, float* value) {
    int h = b.h, w = b.w, cells = h * w;
    encode(b);
    conv<PLANES, 3>(S.in, S.x, STEM_W, STEM_B, h, w);
    relu_mask(S.x, cells);
    for (int k = 0; k < BLOCKS; ++k) {
        block_conv(2 * k, S.x, S.y, h, w);
        relu_mask(S.y, cells);
        block_conv(2 * k + 1, S.y, S.t, h, w);
        for (int i = 0; i < cells * CHANNELS; ++i) S.t[i] += S.x[i];
        relu_mask(S.t, cells);
        std::memcpy(S.x, S.t, sizeof(float) * cells * CHANNELS);
    }
    // Policy: a 1x1 convolution plus the pooled trunk's global bias, then a logit a cell,
    // read at each column's landing cell.
    float pooled[POOLED], global[CHANNELS];
    pool(S.x, cells, pooled);
    dense<POOLED, CHANNELS>(pooled, global, POLICY_GLOBAL_W, POLICY_GLOBAL_B, 1);
    conv<CHANNELS, 1>(S.x, S.y, POLICY_W, POLICY_B, h, w);
    for (int c = 0; c < w; ++c) {
        logits[c] = NO_MOVE_LOGIT;
        if (!b.playable(c)) continue;
        int k = (h - 1 - b.land[c]) * w + c;
        float logit = POLICY_OUT_B[0];
        for (int o = 0; o < CHANNELS; ++o) {
            float v = (S.y[k * CHANNELS + o] + global[o]) * S.mask[k];
            if (v > 0.0f) logit += v * POLICY_OUT_W[o];
        }
        logits[c] = logit;
    }
    // Value: a 1x1 convolution, pooled, a hidden layer, tanh.
    conv<CHANNELS, 1>(S.x, S.y, VALUE_W, VALUE_B, h, w);
    relu_mask(S.y, cells);
    pool(S.y, cells, pooled);
    float hidden[VALUE_HIDDEN];
    dense<POOLED, VALUE_HIDDEN>(pooled, hidden, VALUE_FC1_W, VALUE_FC1_B, 1);
    float v = VALUE_FC2_B[0];
    for (int i = 0; i < VALUE_HIDDEN; ++i) v += std::max(hidden[i], 0.0f) * VALUE_FC2_W[i];
    *value = std::tanh(v);
}

// Priors from logits: a softmax over `legal` only.
void legal_softmax(const float* logits, const std::vector<int>& legal, std::vector<float>& out) {
    out.clear();
    float most = -INFINITY;
    for (int a : legal) most = std::max(most, logits[a]);
    float sum = 0.0f;
    for (int a : legal) {
        out.push_back(std::exp(logits[a] - most));
        sum += out.back();
    }
    for (float& p : out) p /= sum;
}

// ---------------------------------------------------------------------------------------
// Gumbel AlphaZero's maths as dojo plays it (search/src/gumbel.rs: mctx's formulas, the
// Gumbel noise g = 0).

// What the formulas need of a child: its prior, visits through this parent, and Q from the
// parent's mover's view (read only when visited).
struct ChildView {
    float prior;
    uint32_t visits;
    float q;
};

// The logit a prior stands for (ln prior; a prior of 0 a very unlikely move, not -inf).
float gumbel_logit(float prior) {
    return std::log(std::max(prior, 1.17549435e-38f));
}

// sigma(q) over the completed Q-values (unvisited children get the mixed value), rescaled
// to [0, 1] by their own min and max, times (c_visit + max N) * c_scale.
void gumbel_sigma(float raw_value, const std::vector<ChildView>& children, std::vector<float>& out) {
    uint32_t total = 0, most = 0;
    float sum_p = 0.0f, sum_pq = 0.0f;
    for (const ChildView& c : children) {
        total += c.visits;
        most = std::max(most, c.visits);
        if (c.visits == 0) continue;
        float p = std::max(c.prior, 1.17549435e-38f);
        sum_p += p;
        sum_pq += p * c.q;
    }
    float v_mix = total == 0 ? raw_value : (raw_value + (float)total * (sum_pq / sum_p)) / ((float)total + 1.0f);
    out.clear();
    for (const ChildView& c : children) out.push_back(c.visits > 0 ? c.q : v_mix);
    float lo = INFINITY, hi = -INFINITY;
    for (float q : out) lo = std::min(lo, q), hi = std::max(hi, q);
    float scale = (GUMBEL_C_VISIT + (float)most) * GUMBEL_C_SCALE / std::max(hi - lo, 1e-8f);
    for (float& q : out) q = (q - lo) * scale;
}

// The selection below the root: pi'(a) - N(a) / (1 + sum N), pi' = softmax(logit + sigma).
void gumbel_interior_scores(const std::vector<ChildView>& children, const std::vector<float>& sigma,
                            std::vector<float>& out) {
    out.clear();
    float most = -INFINITY, sum = 0.0f;
    uint32_t total = 0;
    for (size_t i = 0; i < children.size(); ++i) {
        out.push_back(gumbel_logit(children[i].prior) + sigma[i]);
        most = std::max(most, out.back());
        total += children[i].visits;
    }
    for (float& x : out) {
        x = std::exp(x - most);
        sum += x;
    }
    for (size_t i = 0; i < out.size(); ++i) out[i] = out[i] / sum - (float)children[i].visits / (1.0f + (float)total);
}

// The visits a root move must have to take simulation `sim` of a `budget`-simulation search
// considering `m` moves (mctx's considered-visits sequence, computed where it is needed
// rather than listed: phase by phase, each of the considered moves gets
// max(1, budget / (ceil(log2 m) * considered)) visits, then half of them go on). -1 past
// the budget.
int64_t considered_visits_at(uint32_t m, uint32_t budget, uint32_t sim) {
    if (sim >= budget) return -1;
    if (m <= 1) return sim;
    uint64_t log2max = 0;
    while ((1ull << log2max) < m) ++log2max;
    uint64_t start = 0, base = 0, considered = m;
    while (true) {
        uint64_t extra = std::max<uint64_t>(1, budget / (log2max * considered));
        if (sim < start + extra * considered) return (int64_t)(base + (sim - start) / considered);
        start += extra * considered;
        base += extra;
        considered = std::max<uint64_t>(considered / 2, 2);
    }
}

// The root's side of a Gumbel search: how many simulations sequential halving has given
// each root move.
struct RootSchedule {
    std::vector<uint32_t> visits;

    void start(size_t moves) { visits.assign(moves, 0); }
    uint32_t spent() const {
        uint32_t sum = 0;
        for (uint32_t v : visits) sum += v;
        return sum;
    }
    float score(const ChildView& c, float sigma) const { return gumbel_logit(c.prior) + sigma; }

    // The best-scoring move (the last of equal ones) among those with `want` visits, or -1.
    int best_with(int64_t want, const std::vector<ChildView>& children, const std::vector<float>& sigma) const {
        int best = -1;
        for (size_t i = 0; i < children.size(); ++i) {
            if (want >= 0 && visits[i] != (uint64_t)want) continue;
            if (best < 0 || score(children[i], sigma[i]) >= score(children[best], sigma[best])) best = (int)i;
        }
        return best;
    }

    // The move for the next simulation, counted: the best among those with as many visits
    // as the schedule says (or, past it, among the most visited).
    size_t choose(uint32_t budget, const std::vector<ChildView>& children, const std::vector<float>& sigma) {
        if (visits.size() != children.size()) visits.assign(children.size(), 0);
        uint32_t m = std::max<uint32_t>(1, std::min<uint32_t>(GUMBEL_CONSIDERED, (uint32_t)children.size()));
        int64_t level = considered_visits_at(m, budget, spent());
        int chosen = level >= 0 ? best_with(level, children, sigma) : -1;
        if (chosen < 0) chosen = best_with(*std::max_element(visits.begin(), visits.end()), children, sigma);
        if (chosen < 0) chosen = 0;
        visits[chosen] += 1;
        return (size_t)chosen;
    }

    // The move sequential halving ends on: not proven lost while another remains, then among
    // the most visited, then the best score (the last of equal ones).
    template <typename Lost>
    size_t final_choice(const std::vector<ChildView>& children, const std::vector<float>& sigma, Lost lost) const {
        uint32_t most = visits.empty() ? 0 : *std::max_element(visits.begin(), visits.end());
        auto key = [&](size_t i) {
            bool top = i < visits.size() && visits[i] == most;
            return std::make_tuple(!lost(i), top, score(children[i], sigma[i]));
        };
        size_t best = 0;
        for (size_t i = 1; i < children.size(); ++i)
            if (key(i) >= key(best)) best = i;
        return best;
    }
};

// ---------------------------------------------------------------------------------------
// The search: dojo's PUCT over a graph (search/src/puct.rs, play mode: no noise), or with
// GUMBEL that graph searched as Gumbel AlphaZero does.

constexpr uint32_t NONE = UINT32_MAX;
enum Proven : int8_t { UNKNOWN, PROVEN_WIN, PROVEN_LOSS, PROVEN_DRAW };
enum State : int8_t { UNEXPANDED, EXPANDED, TERMINAL };
// Past this many nodes the graph starts afresh (about 100 MB).
constexpr size_t MAX_NODES = 2000000;

struct Node {
    uint64_t hash;
    uint32_t first_edge = 0, num_edges = 0, visits = 0;
    float nn_value = 0.0f, q = 0.0f;
    State state = UNEXPANDED;
    Proven proven = UNKNOWN;
};

struct Edge {
    int action;
    float prior;
    uint32_t visits;
    uint32_t child;
};

struct Search {
    std::vector<Node> nodes;
    std::vector<Edge> edges;
    std::unordered_map<uint64_t, uint32_t> table;
    uint32_t root = NONE;
    // The rollouts' stream, restarted with the graph as dojo's search restarts its own.
    uint64_t rollout_state = ROLLOUT_SEED;
    Board root_board;
    uint32_t playouts = 0;
    std::vector<std::pair<uint32_t, uint32_t>> path;
    std::vector<int> legal;
    std::vector<float> priors;
    // Gumbel mode: the root's sequential halving, and scratch for one node's children.
    RootSchedule schedule;
    std::vector<ChildView> views;
    std::vector<float> sigma, scores;

    void clear() {
        nodes.clear();
        edges.clear();
        table.clear();
        root = NONE;
        rollout_state = ROLLOUT_SEED;
    }

    uint32_t new_node(const Board& b) {
        Node n;
        n.hash = b.hash;
        if (b.result == WON) {  // the side to move has lost
            n.state = TERMINAL, n.proven = PROVEN_LOSS, n.q = n.nn_value = -1.0f;
        } else if (b.result == DRAWN) {
            n.state = TERMINAL, n.proven = PROVEN_DRAW;
        }
        nodes.push_back(n);
        table[b.hash] = (uint32_t)(nodes.size() - 1);
        return (uint32_t)(nodes.size() - 1);
    }

    uint32_t node_for(const Board& b) {
        auto found = table.find(b.hash);
        return found != table.end() ? found->second : new_node(b);
    }

    // Makes `node` the root (node 0), keeping the part of the graph it reaches and dropping
    // the rest, as dojo's `rebuild_from`: a position the old graph holds but the new root
    // does not reach is searched afresh if it is reached again, as dojo searches it.
    void keep_only_below(uint32_t node) {
        std::vector<Node> old_nodes;
        std::vector<Edge> old_edges;
        old_nodes.swap(nodes);
        old_edges.swap(edges);
        table.clear();
        std::unordered_map<uint32_t, uint32_t> moved{{node, 0}};
        std::vector<uint32_t> stack{node};
        nodes.push_back(old_nodes[node]);
        // Nodes are copied when first reached; their edge blocks when popped.
        while (!stack.empty()) {
            uint32_t old = stack.back();
            stack.pop_back();
            const Node& n = old_nodes[old];
            uint32_t first = (uint32_t)edges.size();
            for (uint32_t e = n.first_edge; e < n.first_edge + n.num_edges; ++e) {
                Edge edge = old_edges[e];
                if (edge.child != NONE) {
                    auto at = moved.find(edge.child);
                    if (at == moved.end()) {
                        uint32_t copy = (uint32_t)nodes.size();
                        moved.emplace(edge.child, copy);
                        nodes.push_back(old_nodes[edge.child]);
                        stack.push_back(edge.child);
                        edge.child = copy;
                    } else {
                        edge.child = at->second;
                    }
                }
                edges.push_back(edge);
            }
            nodes[moved[old]].first_edge = first;
        }
        for (uint32_t i = 0; i < (uint32_t)nodes.size(); ++i) table[nodes[i].hash] = i;
        root = 0;
    }

    // The position searched from now on; with tree reuse the graph below it is kept.
    void set_root(const Board& b) {
        // Another game (another board, or fewer discs than the last root) starts afresh: its
        // positions are not this graph's, though an empty board hashes alike.
        bool same_game = root != NONE && b.w == root_board.w && b.h == root_board.h &&
                         b.blocked_col == root_board.blocked_col && b.blocked_row == root_board.blocked_row &&
                         b.ply >= root_board.ply;
        auto found = REUSE_TREE && same_game && nodes.size() < MAX_NODES ? table.find(b.hash) : table.end();
        if (found != table.end()) {
            keep_only_below(found->second);
        } else {
            clear();
            root = new_node(b);
        }
        root_board = b;
        playouts = 0;
        schedule.start(nodes[root].state == EXPANDED ? nodes[root].num_edges : 0);
    }

    // Gumbel mode counts the simulations through the root's moves, as sequential halving
    // plans them; PUCT counts playouts.
    bool done(uint32_t budget) const {
        const Node& r = nodes[root];
        uint32_t spent = GUMBEL ? schedule.spent() : playouts;
        return r.state == TERMINAL || (r.state == EXPANDED && (spent >= budget || r.proven != UNKNOWN));
    }

    // One playout, evaluating the leaf it stops at.
    void playout() {
        path.clear();
        uint32_t node = root;
        Board b = root_board;
        while (true) {
            Node& n = nodes[node];
            if (n.state == UNEXPANDED) {
                expand(node, b);
                break;
            }
            if (n.state == TERMINAL || n.proven != UNKNOWN) {
                ++n.visits;
                break;
            }
            uint32_t e = select(node);
            path.emplace_back(node, e);
            Edge edge = edges[e];
            if (edge.child != NONE && edge.visits < nodes[edge.child].visits) break;  // catch-up
            b.play(edge.action);
            if (edge.child == NONE) {
                uint32_t child = node_for(b);
                edges[e].child = child;
                node = child;
            } else {
                node = edge.child;
            }
        }
        backup();
    }

    void expand(uint32_t leaf, const Board& b) {
        float logits[MAX_SIDE], value;
        evaluate(b, logits, &value);
        int win = -1;
        Look look = lookahead(b, legal, win);
        if (look == LOOK_WIN) {
            legal.assign(1, win);
        } else if (look == LOOK_LOST && legal.empty()) {
            for (int c = 0; c < b.w; ++c)
                if (b.playable(c)) legal.push_back(c);
        }
        legal_softmax(logits, legal, priors);
        uint32_t first = (uint32_t)edges.size();
        for (size_t i = 0; i < legal.size(); ++i) edges.push_back(Edge{legal[i], priors[i], 0, NONE});
        if (!std::isfinite(value)) value = 0.0f;
        value = std::min(1.0f, std::max(-1.0f, value));
        if (ROLLOUTS > 0 && look == LOOK_MOVES) {
            float sum = 0.0f;
            for (uint32_t i = 0; i < ROLLOUTS; ++i) sum += rollout(b.shape, b.mine(), b.theirs(), b.mask, rollout_state);
            value = (1.0f - ROLLOUT_WEIGHT) * value + ROLLOUT_WEIGHT * sum / (float)ROLLOUTS;
        }
        Node& n = nodes[leaf];
        n.first_edge = first;
        n.num_edges = (uint32_t)legal.size();
        n.state = EXPANDED;
        n.nn_value = n.q = value;
        n.visits = 1;
        if (look == LOOK_WIN) {
            n.proven = PROVEN_WIN;
            n.q = 1.0f;
            uint32_t child = node_for(b.after(win));
            nodes[child].proven = PROVEN_LOSS;
            nodes[child].q = -1.0f;
            edges[first].child = child;
        } else if (look == LOOK_LOST) {
            nodes[leaf].proven = PROVEN_LOSS;
            nodes[leaf].q = -1.0f;
        }
        if (leaf == root) schedule.start(legal.size());
    }

    void backup() {
        ++playouts;
        for (size_t i = path.size(); i-- > 0;) {
            edges[path[i].second].visits += 1;
            nodes[path[i].first].visits += 1;
            recompute(path[i].first);
        }
    }

    void recompute(uint32_t node) {
        Node& n = nodes[node];
        if (n.proven != UNKNOWN) return;
        double sum = n.nn_value, weight = 1.0;
        bool all_proven = true;
        Proven best = PROVEN_LOSS;
        for (uint32_t e = n.first_edge; e < n.first_edge + n.num_edges; ++e) {
            const Edge& edge = edges[e];
            if (edge.child == NONE) {
                all_proven = false;
                continue;
            }
            const Node& child = nodes[edge.child];
            if (edge.visits > 0) {
                sum += edge.visits * -(double)child.q;
                weight += edge.visits;
            }
            if (child.proven == PROVEN_LOSS) best = PROVEN_WIN;
            else if (child.proven == PROVEN_DRAW && best == PROVEN_LOSS) best = PROVEN_DRAW;
            else if (child.proven == UNKNOWN) all_proven = false;
        }
        Proven proven = best == PROVEN_WIN || all_proven ? best : UNKNOWN;
        n.proven = proven;
        n.q = proven == PROVEN_WIN ? 1.0f : proven == PROVEN_LOSS ? -1.0f : proven == PROVEN_DRAW ? 0.0f
                                                                                                 : (float)(sum / weight);
    }

    uint32_t select(uint32_t node) { return GUMBEL ? gumbel_select(node) : puct_select(node); }

    Proven proven_child(const Edge& edge) const { return edge.child == NONE ? UNKNOWN : nodes[edge.child].proven; }

    // `node`'s children as Gumbel's formulas see them, and their sigma.
    void child_views(uint32_t node) {
        const Node& n = nodes[node];
        views.clear();
        for (uint32_t e = n.first_edge; e < n.first_edge + n.num_edges; ++e) {
            const Edge& edge = edges[e];
            bool visited = edge.visits > 0 && edge.child != NONE;
            views.push_back(ChildView{edge.prior, visited ? edge.visits : 0, visited ? -nodes[edge.child].q : 0.0f});
        }
        gumbel_sigma(n.nn_value, views, sigma);
    }

    // Sequential halving at the root; below it the improved policy less the visits' share
    // (a winning child taken, a losing one last, as in PUCT mode).
    uint32_t gumbel_select(uint32_t node) {
        child_views(node);
        uint32_t first = nodes[node].first_edge;
        if (node == root) return first + (uint32_t)schedule.choose(MAX_PLAYOUTS, views, sigma);
        gumbel_interior_scores(views, sigma, scores);
        size_t best = 0;
        float best_score = -INFINITY;
        for (size_t i = 0; i < scores.size(); ++i) {
            Proven proven = proven_child(edges[first + i]);
            float score = proven == PROVEN_LOSS ? INFINITY : proven == PROVEN_WIN ? scores[i] - 3.0f : scores[i];
            if (score > best_score) {
                best_score = score;
                best = i;
            }
        }
        return first + (uint32_t)best;
    }

    uint32_t puct_select(uint32_t node) const {
        const Node& n = nodes[node];
        uint32_t total = n.visits > 0 ? n.visits - 1 : 0;
        float sqrt_total = std::sqrt((float)std::max(total, 1u));
        float visited_prior = 0.0f;
        for (uint32_t e = n.first_edge; e < n.first_edge + n.num_edges; ++e)
            if (edges[e].visits > 0) visited_prior += edges[e].prior;
        float fpu = n.q - FPU_REDUCTION * std::sqrt(visited_prior);
        uint32_t best = n.first_edge;
        float best_score = -INFINITY;
        for (uint32_t e = n.first_edge; e < n.first_edge + n.num_edges; ++e) {
            const Edge& edge = edges[e];
            float q = fpu;
            Proven proven = UNKNOWN;
            if (edge.child != NONE) {
                const Node& c = nodes[edge.child];
                if (edge.visits > 0) q = -c.q;
                proven = c.proven;
            }
            float score = proven == PROVEN_LOSS ? INFINITY  // a winning move: take it
                          : proven == PROVEN_WIN ? -2.0f + edge.prior  // a losing move: last resort
                                                 : q + C_PUCT * edge.prior * sqrt_total / (1.0f + edge.visits);
            if (score > best_score) {
                best_score = score;
                best = e;
            }
        }
        return best;
    }

    // A proven win if there is one, else the most visited move not proven lost (ties to
    // the better value, then the higher prior; the last of equal ones), as dojo plays at
    // temperature 0.
    // With GUMBEL, after a proven win, the move sequential halving ends on.
    int choose_move() {
        const Node& n = nodes[root];
        bool any_not_lost = false;
        for (uint32_t e = n.first_edge; e < n.first_edge + n.num_edges; ++e) {
            if (proven_child(edges[e]) == PROVEN_LOSS) return edges[e].action;
            any_not_lost |= proven_child(edges[e]) != PROVEN_WIN;
        }
        if (GUMBEL) {
            child_views(root);
            auto lost = [&](size_t i) { return proven_child(edges[n.first_edge + i]) == PROVEN_WIN; };
            return edges[n.first_edge + schedule.final_choice(views, sigma, lost)].action;
        }
        int best = -1;
        int64_t best_key[3] = {0, 0, 0};
        for (uint32_t e = n.first_edge; e < n.first_edge + n.num_edges; ++e) {
            const Edge& edge = edges[e];
            if (any_not_lost && proven_child(edge) == PROVEN_WIN) continue;
            float q = edge.child != NONE && edge.visits > 0 ? -nodes[edge.child].q : -2.0f;
            int64_t key[3] = {(int64_t)edge.visits, (int64_t)(q * 1e6f), (int64_t)(edge.prior * 1e6f)};
            if (best < 0 || !std::lexicographical_compare(key, key + 3, best_key, best_key + 3)) {
                std::copy(key, key + 3, best_key);
                best = edge.action;
            }
        }
        return best;
    }
};

Search SEARCH;

// The column to play on `b`, searching MAX_PLAYOUTS playouts or until `deadline`.
int search_move(const Board& b, std::chrono::steady_clock::time_point deadline) {
    SEARCH.set_root(b);
    while (!SEARCH.done(MAX_PLAYOUTS)) {
        SEARCH.playout();
        if (std::chrono::steady_clock::now() >= deadline) break;
    }
    // A search cut before the root's own evaluation has nothing to choose by.
    if (SEARCH.nodes[SEARCH.root].state != EXPANDED) SEARCH.playout();
    if (std::getenv("DOJO_SAIBLO_LOG")) {
        const Node& r = SEARCH.nodes[SEARCH.root];
        std::fprintf(stderr, "dojo: move %d: %u playouts, value %.3f, %zu nodes (%s kernel)\n", b.ply + 1,
                     SEARCH.playouts, r.q, SEARCH.nodes.size(), use_fast_kernel ? "AVX2" : "portable");
    }
    return SEARCH.choose_move();
}

}  // namespace dojo

extern "C" Point* getPoint(const int M, const int N, const int* top, const int* board, const int lastX,
                           const int lastY, const int noX, const int noY) {
    using namespace dojo;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(MOVE_MS);
    Board b;
    int column = -1;
    if (board_from_view(M, N, board, lastX, lastY, noX, noY, b)) column = search_move(b, deadline);
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
