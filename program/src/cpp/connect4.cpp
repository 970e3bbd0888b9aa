namespace dojo {

// ---------------------------------------------------------------------------------------
// Connect Four, the game the search plays (cpp/README.md lists what a game defines).

// saiblo's boards are 9..12 a side; anything up to this is played.
constexpr int MAX_SIDE = 12;
constexpr int MAX_CELLS = MAX_SIDE * MAX_SIDE;
// A move is a column.
constexpr int MAX_ACTIONS = MAX_SIDE;
// The first input planes of Connect Four's encoding, all an any-size network reads.
constexpr int PLANES = 9;
constexpr int EMPTY = 0, FIRST = 1, SECOND = 2, BLOCKED = 3;
enum Result { ONGOING, WON, DRAWN };  // WON: by the player who moved last

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

    // Whether this could be a later position of `earlier`'s game: the same board, no fewer
    // discs (an empty board hashes alike on every board).
    bool continues(const Board& earlier) const {
        return w == earlier.w && h == earlier.h && blocked_col == earlier.blocked_col &&
               blocked_row == earlier.blocked_row && ply >= earlier.ply;
    }

    // The open columns, ascending.
    void legal_moves(std::vector<int>& out) const {
        out.clear();
        for (int c = 0; c < w; ++c)
            if (playable(c)) out.push_back(c);
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


// ---------------------------------------------------------------------------------------
// What the network and the search ask of the game.

// Moves are columns.
int num_moves(const Board& b) { return b.w; }

// A column's logit is read at the cell its next disc lands on.
int move_cell(const Board& b, int c) { return b.playable(c) ? (b.h - 1 - b.land[c]) * b.w + c : -1; }

float rollout(const Board& b, uint64_t& state) { return rollout(b.shape, b.mine(), b.theirs(), b.mask, state); }

// The nine input planes of a position that is not over.
void encode(const Board& b, float* in, float* mask) {
    int h = b.h, w = b.w, cells = h * w;
    std::memset(in, 0, sizeof(float) * cells * PLANES);
    int me = b.mover(), opp = b.opponent();
    bool first = me == FIRST;
    Bits my_wins = b.shape.winning_cells(b.mine(), b.mask), their_wins = b.shape.winning_cells(b.theirs(), b.mask);
    for (int c = 0; c < w; ++c)
        for (int r = 0; r < h; ++r) {
            float* p = in + ((h - 1 - r) * w + c) * PLANES;
            int v = b.cell[c][r];
            mask[(h - 1 - r) * w + c] = v == BLOCKED ? 0.0f : 1.0f;
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

}  // namespace dojo
