// The Gomoku game piece of an exported engine (`dojo export gomocup`): dojo's Gomoku
// (game/src/gomoku.rs, gomoku/threats.rs, gomoku/vcf.rs) in plain C++, step for step:
// - the board as rows of bits per player (bit x of row y), the five check through the new
//   stone, Zobrist hashes from the same keys (wyrand, the same seed; a STANDARD position's
//   xors in the same extra key);
// - the network's eight input planes (`encode_planes`): the side to move's stones, the
//   opponent's, the last move, ones, then the five-points and open-four points of the side
//   to move and of the opponent, computed bit-parallel as threats.rs does;
// - the lookahead (win at once, block the only five, lost to two) and the bounded VCF
//   prover with the same move order, iterative deepening, depth cap and table (so the same
//   budget gives the same answer, node for node), and `threat_search` on top of it.
// Two rules, dojo's `Rule`: FREESTYLE (five or more wins) and STANDARD (exactly five wins;
// an overline does not). Under STANDARD a five-point is a point where the stone makes a run
// of exactly five, and fours, open fours and the VCF prover use that definition throughout.
//
// Like every part it opens namespace dojo itself, after common.cpp (its bit counts) and the
// generated settings (TACTICS, VCF_NODES), and ends with the `dojoGomoku*` entry points
// (extern "C") that the agreement tests (program/tests/gomoku_cpp.rs) and `dojo export
// gomocup --check` call.

namespace dojo {

constexpr int MAX_SIDE = 20;
constexpr int MAX_ACTIONS = MAX_SIDE * MAX_SIDE;
constexpr int PLANES = 8;
enum Result : int { ONGOING = 0, WON = 1, DRAWN = 2 };  // WON: the side that just moved won
enum Look : int { LOOK_MOVES, LOOK_WIN, LOOK_LOST };
enum Rule : int { FREESTYLE = 0, STANDARD = 1 };

namespace gomoku {

constexpr int MIN_SIDE = 7;

// wyrand (final v4.2, the `wyrand` crate's WyRand): the generator dojo's Zobrist table is
// drawn from. The VCF prover's table is indexed by these keys, so which refuted positions
// share a slot, and with it the node counts, match Rust's only with the same keys.
inline uint64_t wyrand(uint64_t& state) {
    state += 0x2d358dccaa6c78a5ULL;
    uint64_t a = state, b = state ^ 0x8bb84b93962eacc9ULL;
    // The 128-bit product from 32-bit halves (portable: no __int128 needed).
    uint64_t a0 = a & 0xffffffffULL, a1 = a >> 32, b0 = b & 0xffffffffULL, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffULL) + (p10 & 0xffffffffULL);
    uint64_t lo = (p00 & 0xffffffffULL) | (mid << 32);
    uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return lo ^ hi;
}

// dojo's Zobrist table (game/src/gomoku.rs, `zobrist`): keyed by the largest board's point
// y * MAX_SIDE + x, then the side key, then one key per size, then the key a STANDARD
// position's hash has xored in (the same stones are another position under another rule).
struct Zobrist {
    uint64_t stones[2][MAX_ACTIONS];
    uint64_t side;
    uint64_t sizes[MAX_SIDE + 1];
    uint64_t standard;
    Zobrist() {
        uint64_t seed = 0x676f6d6f6b755a6fULL;
        uint64_t state = wyrand(seed);  // WyRand::seed_from_u64
        for (auto& table : stones)
            for (auto& k : table) k = wyrand(state);
        side = wyrand(state);
        for (auto& k : sizes) k = wyrand(state);
        standard = wyrand(state);
    }
};
const Zobrist ZOBRIST;

// A set of points: bit x of row y, two rows a word (row 2k in the low half of word k), so
// that the threat planes' many ANDs and ORs take ten operations a set rather than twenty
// where the compiler does not vectorise (g++ -O2). Bits past the board are never read out.
constexpr int WORDS = MAX_SIDE / 2;
struct Bits {
    uint64_t w[WORDS];
    uint32_t row(int y) const { return (uint32_t)(w[y >> 1] >> (32 * (y & 1))); }
};

inline Bits operator&(const Bits& a, const Bits& b) {
    Bits o;
    for (int i = 0; i < WORDS; ++i) o.w[i] = a.w[i] & b.w[i];
    return o;
}
inline Bits& operator|=(Bits& a, const Bits& b) {
    for (int i = 0; i < WORDS; ++i) a.w[i] |= b.w[i];
    return a;
}
inline Bits operator~(const Bits& a) {
    Bits o;
    for (int i = 0; i < WORDS; ++i) o.w[i] = ~a.w[i];
    return o;
}
inline Bits all_bits() {
    Bits o;
    for (auto& w : o.w) w = ~0ULL;
    return o;
}
inline Bits no_bits() {
    Bits o;
    for (auto& w : o.w) w = 0;
    return o;
}
// The rows `rows[0..MAX_SIDE)` as a set.
inline Bits pack(const uint32_t* rows) {
    Bits o;
    for (int i = 0; i < WORDS; ++i) o.w[i] = rows[2 * i] | (uint64_t)rows[2 * i + 1] << 32;
    return o;
}

// A set seen from each point along one direction (threats.rs, `Along`): at(d) has bit x of
// row y set when the point d steps from (x, y) is in the set. Steps -5..5: the standard
// rule reads the points just outside a window of five.
struct Along {
    Bits shifted[11];
    Along(const uint32_t* bits, int dx, int dy) {
        uint32_t padded[MAX_SIDE + 10] = {};
        std::memcpy(padded + 5, bits, sizeof(uint32_t) * MAX_SIDE);
        for (int k = 0; k < 11; ++k) {
            int d = k - 5;
            const uint32_t* rows = padded + 5 + d * dy;
            int sx = d * dx;
            // Bits shifted past the width land on points that are not empty, and every
            // result is masked by the empty points in the end.
            uint32_t out[MAX_SIDE];
            for (int y = 0; y < MAX_SIDE; ++y) out[y] = sx >= 0 ? rows[y] >> sx : rows[y] << -sx;
            shifted[k] = pack(out);
        }
    }
    const Bits& at(int d) const { return shifted[d + 5]; }

    // The points whose stone would complete a window of five along the direction (its
    // four other points in the set); under STANDARD only where the points just outside
    // that window are not in the set (the run is exactly five).
    Bits fives(int rule) const {
        Bits left[5], right[5];
        left[0] = right[0] = all_bits();
        for (int k = 1; k < 5; ++k) {
            left[k] = left[k - 1] & at(-k);
            right[k] = right[k - 1] & at(k);
        }
        Bits five = no_bits();
        for (int k = 0; k < 5; ++k) {
            Bits w = left[k] & right[4 - k];
            if (rule == STANDARD) w = w & ~at(-(k + 1)) & ~at(5 - k);
            five |= w;
        }
        return five;
    }

    // The points p with a window of five through both p and p + e whose three other points
    // are in the set (under STANDARD: and the points just outside it are not).
    Bits partners(int e, int rule) const {
        Bits out = no_bits();
        int lo = (e > 0 ? e : 0) - 4, hi = e < 0 ? e : 0;
        for (int s = lo; s <= hi; ++s) {
            Bits w = all_bits();
            for (int i = s; i <= s + 4; ++i)
                if (i != 0 && i != e) w = w & at(i);
            if (rule == STANDARD) w = w & ~at(s - 1) & ~at(s + 5);
            out |= w;
        }
        return out;
    }
};

// The four directions as steps (dx, dy): along a row, down a column, down-right, down-left.
constexpr int DIRECTIONS[4][2] = {{1, 0}, {0, 1}, {1, 1}, {-1, 1}};

}  // namespace gomoku

// A Gomoku position: each player's stones as rows of bits (rows[player][y] bit x; player
// 0 moves first), plain data as dojo's is.
struct Board {
    int w = 0, h = 0;          // both the board's size
    int rule = FREESTYLE;      // FREESTYLE or STANDARD
    int ply = 0;               // stones on the board
    uint64_t hash = 0;         // dojo's Zobrist hash (size and side to move included)
    int result = ONGOING;      // after the last move
    int last = -1;             // the last move's point, -1 if none
    int open = 0;              // empty points
    uint32_t rows[2][MAX_SIDE] = {};

    // The empty size x size board (size 7..20).
    static Board empty(int size, int rule = FREESTYLE) {
        Board b;
        b.w = b.h = size;
        b.rule = rule;
        b.open = size * size;
        b.hash = gomoku::ZOBRIST.sizes[size] ^ (rule == STANDARD ? gomoku::ZOBRIST.standard : 0);
        return b;
    }

    int side() const { return ply & 1; }  // 0: the first player to move, 1: the second
    uint32_t full_row() const { return (1u << w) - 1; }
    uint32_t free_row(int y) const { return ~(rows[0][y] | rows[1][y]) & full_row(); }

    // 0 empty (or off the board), 1 the first player's stone, 2 the second's.
    int stone(int x, int y) const {
        if (x < 0 || y < 0 || x >= w || y >= w) return 0;
        if (rows[0][y] >> x & 1) return 1;
        return (rows[1][y] >> x & 1) ? 2 : 0;
    }

    // Lays a stone of `who` (1 first player, 2 second) on the empty point (x, y) for a
    // position given whole (Gomocup's BOARD): the side to move follows the stone count;
    // no five is checked, and the last-move plane is set_last's.
    void put(int x, int y, int who) {
        int p = who - 1;
        rows[p][y] |= 1u << x;
        hash ^= gomoku::ZOBRIST.stones[p][y * MAX_SIDE + x] ^ gomoku::ZOBRIST.side;
        ++ply;
        --open;
        if (open == 0 && result == ONGOING) result = DRAWN;
    }

    void set_last(int x, int y) { last = y * w + x; }

    // The length of `p`'s run through (x, y) along (dx, dy), counting at most 6 (enough to
    // tell five from more).
    int run(int p, int x, int y, int dx, int dy) const {
        int n = 1;
        for (int k = 1; k < 6 && stone(x + k * dx, y + k * dy) == p + 1; ++k) ++n;
        for (int k = 1; k < 6 && stone(x - k * dx, y - k * dy) == p + 1; ++k) ++n;
        return n;
    }

    // Whether `p`'s stone on (x, y) stands in a winning line: five or more (FREESTYLE),
    // exactly five in some direction (STANDARD).
    bool wins_at(int p, int x, int y) const {
        for (const auto& d : gomoku::DIRECTIONS) {
            int n = run(p, x, y, d[0], d[1]);
            if (rule == STANDARD ? n == 5 : n >= 5) return true;
        }
        return false;
    }

    void play(int action) {
        int y = action / w, x = action - y * w;
        int p = side();
        rows[p][y] |= 1u << x;
        hash ^= gomoku::ZOBRIST.stones[p][y * MAX_SIDE + x] ^ gomoku::ZOBRIST.side;
        ++ply;
        --open;
        last = action;
        if (wins_at(p, x, y))
            result = WON;
        else if (open == 0)
            result = DRAWN;
    }

    Board after(int action) const {
        Board b = *this;
        b.play(action);
        return b;
    }

    bool continues(const Board& earlier) const {
        return w == earlier.w && rule == earlier.rule && ply >= earlier.ply;
    }

    bool is_open(int action) const {
        if (action < 0 || action >= w * w) return false;
        int y = action / w, x = action - y * w;
        return free_row(y) >> x & 1;
    }

    // Every empty point, ascending; none once the game is over (dojo's legal_actions).
    void legal_moves(std::vector<int>& out) const {
        out.clear();
        if (result != ONGOING) return;
        for (int y = 0; y < w; ++y)
            for (uint32_t f = free_row(y); f; f &= f - 1) out.push_back(y * w + ctz64(f));
    }

    // The empty points as rows (zero past the board).
    void free_rows(uint32_t* out) const {
        for (int y = 0; y < MAX_SIDE; ++y) out[y] = y < w ? free_row(y) : 0;
    }
};

int num_moves(const Board& b) { return b.w * b.w; }

namespace gomoku {

// The empty points where a stone of `p` makes five (threats.rs, `five_points`).
inline Bits five_points(const Board& b, int p) {
    Bits five = no_bits();
    for (const auto& d : DIRECTIONS) five |= Along(b.rows[p], d[0], d[1]).fives(b.rule);
    uint32_t free[MAX_SIDE];
    b.free_rows(free);
    return five & pack(free);
}

// Per side, the five-points and the open-four points (threats.rs, `threats`): a point's
// fours are the distinct points they would make five at; two or more is an open four.
struct Threats {
    Bits five[2];
    Bits open_four[2];
};

inline Threats threats(const Board& b) {
    uint32_t free_rows[MAX_SIDE];
    b.free_rows(free_rows);
    Bits free = pack(free_rows);
    Threats out;
    Bits fours[2];
    for (int p = 0; p < 2; ++p) out.five[p] = out.open_four[p] = fours[p] = no_bits();
    for (const auto& d : DIRECTIONS) {
        Along f(free_rows, d[0], d[1]);
        for (int p = 0; p < 2; ++p) {
            Along own(b.rows[p], d[0], d[1]);
            out.five[p] |= own.fives(b.rule);
            // A second distinct partner makes an open four; fives along different lines
            // through a point are at different points, so the directions add up.
            for (int e = -4; e <= 4; ++e) {
                if (e == 0) continue;
                Bits partner = own.partners(e, b.rule) & f.at(e);
                out.open_four[p] |= fours[p] & partner;
                fours[p] |= partner;
            }
        }
    }
    for (int p = 0; p < 2; ++p) {
        out.five[p] = out.five[p] & free;
        out.open_four[p] = out.open_four[p] & free;
    }
    return out;
}

// Up to `limit` five-points of `p`, ascending, into `out` (cleared first).
inline void winning_points(const Board& b, int p, size_t limit, std::vector<int>& out) {
    out.clear();
    Bits five = five_points(b, p);
    for (int y = 0; y < b.w; ++y)
        for (uint32_t r = five.row(y); r; r &= r - 1) {
            out.push_back(y * b.w + ctz64(r));
            if (out.size() == limit) return;
        }
}

}  // namespace gomoku

// The network's input: dojo's `encode_planes` (cell-major here: planes[cell * PLANES + k]).
void encode(const Board& b, float* planes, float* mask) {
    int n = b.w * b.w;
    std::memset(planes, 0, sizeof(float) * PLANES * n);
    int me = b.side();
    auto set_bits = [&](int plane, const gomoku::Bits& bits) {
        for (int y = 0; y < b.w; ++y)
            for (uint32_t r = bits.row(y); r; r &= r - 1) planes[(y * b.w + ctz64(r)) * PLANES + plane] = 1.0f;
    };
    gomoku::Threats t = gomoku::threats(b);
    for (int k = 0; k < 2; ++k) {
        int p = k == 0 ? me : 1 - me;
        set_bits(k, gomoku::pack(b.rows[p]));
        set_bits(4 + k, t.five[p]);
        set_bits(6 + k, t.open_four[p]);
    }
    if (b.last >= 0) planes[b.last * PLANES + 2] = 1.0f;
    for (int c = 0; c < n; ++c) {
        planes[c * PLANES + 3] = 1.0f;
        mask[c] = 1.0f;
    }
}

int move_cell(const Board& b, int action) { return b.is_open(action) ? action : -1; }

float rollout(const Board&, uint64_t&) { return 0.0f; }

namespace gomoku {

// ---------------------------------------------------------------------------------------
// The VCF prover (game/src/gomoku/vcf.rs): the board as bit lines per direction, fours
// tried in point order with iterative deepening on the attacker's moves, a table of
// positions refuted at a depth. See vcf.rs for why each step is exact.

constexpr int LINES = 2 * MAX_SIDE - 1;
constexpr uint32_t DEPTH_CAP = 40;  // attacker moves a line may hold before its double threat
constexpr int TABLE = 1024;         // refuted positions remembered (a power of two)
constexpr int MAX_FOURS = 64;       // fours tried per position at most
constexpr int MAX_LINE = 2 * DEPTH_CAP + 4;
constexpr uint32_t DEFENCE_BUDGETS = 16;  // defence checks per position, in VCF budgets

struct Pt {
    uint8_t x, y;
    bool operator!=(const Pt& o) const { return x != o.x || y != o.y; }
};

// The line index and position along it of (x, y) in direction `dir` (0 row, 1 column,
// 2 down-right, 3 down-left); diagonals are indexed by x.
inline void line_of(int s, int dir, int x, int y, int& idx, int& pos) {
    switch (dir) {
        case 0: idx = y, pos = x; break;
        case 1: idx = x, pos = y; break;
        case 2: idx = x + s - 1 - y, pos = x; break;
        default: idx = x + y, pos = x; break;
    }
}

inline Pt point_of(int s, int dir, int idx, int pos) {
    int x, y;
    switch (dir) {
        case 0: x = pos, y = idx; break;
        case 1: x = idx, y = pos; break;
        case 2: x = pos, y = pos + s - 1 - idx; break;
        default: x = pos, y = idx - pos; break;
    }
    return Pt{(uint8_t)x, (uint8_t)y};
}

// The positions lo..hi of line `idx` on the board.
inline void span(int s, int dir, int idx, int& lo, int& hi) {
    if (dir < 2) {
        lo = 0, hi = s - 1;
    } else {
        lo = idx > s - 1 ? idx - (s - 1) : 0;
        hi = idx < s - 1 ? idx : s - 1;
    }
}

// Up to two distinct five-points.
struct Fives {
    int count = 0;
    Pt first{0, 0}, second{0, 0};
    void add(Pt p) {
        if (count == 0) {
            first = p;
            count = 1;
        } else if (count == 1 && p != first) {
            second = p;
            count = 2;
        }
    }
};

// A VCF's answer: the line (attacker and defender alternately, ending with the five) when
// one was found, the attacker moves tried, and whether the budget ran out.
struct Vcf {
    bool found = false;
    int line[MAX_LINE];
    int len = 0;
    uint32_t nodes = 0;
    bool out_of_budget = false;
};

struct Prover {
    int s, rule;
    uint32_t bits[2][4][LINES];  // bits[side][dir][line]: bit pos is a stone of side
    uint64_t hash = 0;
    uint32_t nodes = 0, max_nodes;
    bool out_of_budget = false;
    bool cut = false;  // some line was cut by this iteration's depth
    uint64_t keys[TABLE];
    uint8_t depths[TABLE];
    Pt path[MAX_LINE];
    int path_len = 0;

    Prover(const Board& b, uint32_t max_nodes_) : s(b.w), rule(b.rule), max_nodes(max_nodes_) {
        std::memset(bits, 0, sizeof bits);
        std::memset(keys, 0, sizeof keys);
        std::memset(depths, 0, sizeof depths);
        for (int side = 0; side < 2; ++side)
            for (int y = 0; y < s; ++y)
                for (uint32_t r = b.rows[side][y]; r; r &= r - 1) toggle(side, Pt{(uint8_t)ctz64(r), (uint8_t)y});
    }

    // Places or lifts a stone of `side`.
    void toggle(int side, Pt p) {
        for (int dir = 0; dir < 4; ++dir) {
            int idx, pos;
            line_of(s, dir, p.x, p.y, idx, pos);
            bits[side][dir][idx] ^= 1u << pos;
        }
        hash ^= ZOBRIST.stones[side][p.y * MAX_SIDE + p.x];
    }

    // The own points just outside the window at `start` (STANDARD: they make it six).
    uint32_t beside(int start) const { return (start > 0 ? 1u << (start - 1) : 0u) | (1u << (start + 5)); }

    // The five-points of `side` in the windows of line `idx` starting at from..to.
    void fives_on(int side, int dir, int idx, int from, int to, Fives& out) const {
        uint32_t own = bits[side][dir][idx], theirs = bits[1 - side][dir][idx];
        for (int start = from; start <= to; ++start) {
            uint32_t w = 0x1fu << start;
            if ((theirs & w) == 0 && popcount64(own & w) == 4 && (rule != STANDARD || (own & beside(start)) == 0))
                out.add(point_of(s, dir, idx, ctz64(w & ~own)));
        }
    }

    // The five-points of `side` on the four lines through p.
    Fives fives_through(int side, Pt p) const {
        Fives out;
        for (int dir = 0; dir < 4; ++dir) {
            int idx, pos, lo, hi;
            line_of(s, dir, p.x, p.y, idx, pos);
            span(s, dir, idx, lo, hi);
            if (hi < lo + 4) continue;
            int from = pos - 4 > lo ? pos - 4 : lo;
            int to = pos < hi - 4 ? pos : hi - 4;
            fives_on(side, dir, idx, from, to, out);
            if (out.count == 2) break;
        }
        return out;
    }

    int lines(int dir) const { return dir < 2 ? s : 2 * s - 1; }

    // Every five-point of `side` (up to two).
    Fives fives(int side) const {
        Fives out;
        for (int dir = 0; dir < 4; ++dir)
            for (int idx = 0; idx < lines(dir); ++idx) {
                int lo, hi;
                span(s, dir, idx, lo, hi);
                if (hi < lo + 4 || popcount64(bits[side][dir][idx]) < 4) continue;
                fives_on(side, dir, idx, lo, hi - 4, out);
                if (out.count == 2) return out;
            }
        return out;
    }

    // The points where a stone of `side` makes a four, as rows of bits.
    void fours(int side, uint32_t* out) const {
        std::memset(out, 0, sizeof(uint32_t) * MAX_SIDE);
        for (int dir = 0; dir < 4; ++dir)
            for (int idx = 0; idx < lines(dir); ++idx) {
                uint32_t own = bits[side][dir][idx];
                int lo, hi;
                span(s, dir, idx, lo, hi);
                if (hi < lo + 4 || popcount64(own) < 3) continue;
                uint32_t theirs = bits[1 - side][dir][idx];
                for (int start = lo; start <= hi - 4; ++start) {
                    uint32_t w = 0x1fu << start;
                    if ((theirs & w) || popcount64(own & w) != 3) continue;
                    if (rule == STANDARD && (own & beside(start))) continue;
                    for (uint32_t e = w & ~own; e; e &= e - 1) {
                        Pt p = point_of(s, dir, idx, ctz64(e));
                        out[p.y] |= 1u << p.x;
                    }
                }
            }
    }

    void push(Pt p) { path[path_len++] = p; }

    // Whether `a` (to move) wins by fours within `depth` moves before its double threat;
    // on entry `a` has no five-point and the defender none or one (`forced`, has_forced).
    bool attack(int a, bool has_forced, Pt forced, uint32_t depth) {
        int d = 1 - a;
        int slot = (int)(hash & (TABLE - 1));
        if (keys[slot] == hash && depths[slot] >= depth) return false;
        Pt four[MAX_FOURS], block[MAX_FOURS];
        int n = 0;
        uint32_t rows[MAX_SIDE] = {};
        if (has_forced)
            rows[forced.y] = 1u << forced.x;
        else
            fours(a, rows);
        for (int y = 0; y < s; ++y)
            for (uint32_t r = rows[y]; r; r &= r - 1) {
                Pt p{(uint8_t)ctz64(r), (uint8_t)y};
                if (nodes >= max_nodes) {
                    out_of_budget = true;
                    return false;
                }
                ++nodes;
                toggle(a, p);
                Fives f = fives_through(a, p);
                toggle(a, p);
                if (f.count == 0) continue;  // a forced block that is no four: the line breaks
                if (f.count == 1) {
                    if (depth > 1 && n < MAX_FOURS) {
                        four[n] = p;
                        block[n] = f.first;
                        ++n;
                    } else {
                        cut = true;
                    }
                    continue;
                }
                push(p);
                push(f.first);
                push(f.second);
                return true;
            }
        for (int i = 0; i < n; ++i) {
            toggle(a, four[i]);
            toggle(d, block[i]);
            push(four[i]);
            push(block[i]);
            // The block may have made the defender a four: the attacker must take its
            // five-point next, and two of them end the line.
            Fives counter = fives_through(d, block[i]);
            bool won = counter.count == 0   ? attack(a, false, Pt{0, 0}, depth - 1)
                       : counter.count == 1 ? attack(a, true, counter.first, depth - 1)
                                            : false;
            toggle(d, block[i]);
            toggle(a, four[i]);
            if (won) return true;
            path_len -= 2;
            if (out_of_budget) return false;
        }
        keys[slot] = hash;
        depths[slot] = (uint8_t)depth;
        return false;
    }
};

// The shortest VCF of `attacker` (0 the first player) in `b`, whoever is to move there,
// trying at most `max_nodes` attacker moves (vcf.rs, `vcf`).
inline void vcf(const Board& b, int attacker, uint32_t max_nodes, Vcf& out) {
    Prover p(b, max_nodes);
    out.found = false;
    out.len = 0;
    out.nodes = 0;
    out.out_of_budget = false;
    if (b.result != ONGOING) return;
    Fives own = p.fives(attacker);
    if (own.count > 0) {
        out.found = true;
        out.line[out.len++] = own.first.y * b.w + own.first.x;
        return;
    }
    Fives theirs = p.fives(1 - attacker);
    if (theirs.count == 2) return;
    for (uint32_t depth = 1; depth <= DEPTH_CAP; ++depth) {
        p.cut = false;
        p.path_len = 0;
        if (p.attack(attacker, theirs.count == 1, theirs.first, depth)) {
            out.found = true;
            for (int i = 0; i < p.path_len; ++i) out.line[out.len++] = p.path[i].y * b.w + p.path[i].x;
            out.nodes = p.nodes;
            return;
        }
        if (p.out_of_budget || !p.cut) break;
    }
    out.nodes = p.nodes;
    out.out_of_budget = p.out_of_budget;
}

// Game::threat_search (vcf.rs, `threat_search`): the side to move's VCF is a proven win;
// otherwise, when the opponent would have one were it to move, `moves` is narrowed to the
// replies after which it has none (LOOK_LOST, `moves` kept, when none is left).
inline Look threat_search(const Board& b, uint32_t max_nodes, std::vector<int>& moves, int& win) {
    int me = b.side();
    if (max_nodes == 0 || b.result != ONGOING || moves.empty()) return LOOK_MOVES;
    Vcf v;
    vcf(b, me, max_nodes, v);
    if (v.found) {
        win = v.line[0];
        return LOOK_WIN;
    }
    if (moves.size() == 1) return LOOK_MOVES;
    vcf(b, 1 - me, max_nodes, v);
    if (!v.found) return LOOK_MOVES;
    // Replies that may refute it: the points of its line, and our own fours.
    uint32_t near[MAX_SIDE];
    Prover(b, 0).fours(me, near);
    for (int i = 0; i < v.len; ++i) near[v.line[i] / b.w] |= 1u << (v.line[i] % b.w);
    uint32_t budget = DEFENCE_BUDGETS * max_nodes;
    // Whether `m` refutes the threat (an unchecked move is kept, never called lost).
    auto holds = [&](int m) {
        if (budget == 0) return true;
        Board after = b.after(m);
        if (after.result != ONGOING) return true;
        Vcf answer;
        vcf(after, 1 - me, max_nodes < budget ? max_nodes : budget, answer);
        budget -= answer.nodes < budget ? answer.nodes : budget;
        return !answer.found;
    };
    auto is_near = [&](int m) { return near[m / b.w] >> (m % b.w) & 1; };
    int safe[MAX_ACTIONS];
    int count = (int)moves.size();
    for (int i = 0; i < count; ++i) safe[i] = moves[i];
    moves.clear();
    for (int i = 0; i < count; ++i)
        if (is_near(safe[i]) && holds(safe[i])) moves.push_back(safe[i]);
    // None near the line refutes it; one far away still might: only every move proves it.
    if (moves.empty())
        for (int i = 0; i < count; ++i)
            if (!is_near(safe[i]) && holds(safe[i])) moves.push_back(safe[i]);
    if (moves.empty()) {
        moves.assign(safe, safe + count);
        return LOOK_LOST;
    }
    return LOOK_MOVES;
}

// dojo's Gomoku `lookahead`: make five if possible, else block the opponent's only five;
// two of them are lost (`out` cleared).
inline Look one_move(const Board& b, std::vector<int>& out, int& win) {
    int me = b.side();
    winning_points(b, me, 1, out);
    if (!out.empty()) {
        win = out.back();
        out.pop_back();
        return LOOK_WIN;
    }
    winning_points(b, 1 - me, 2, out);
    if (out.empty()) {
        b.legal_moves(out);
        return LOOK_MOVES;
    }
    if (out.size() == 1) return LOOK_MOVES;  // the block
    out.clear();
    return LOOK_LOST;
}

// The search's expansion (search/src/puct.rs, `deliver`): the lookahead (with tactics),
// then with vcf_nodes > 0 the threat search.
inline Look lookahead_as(const Board& b, bool tactics, uint32_t vcf_nodes, std::vector<int>& out, int& win) {
    Look look = LOOK_MOVES;
    if (tactics)
        look = one_move(b, out, win);
    else
        b.legal_moves(out);
    if (look == LOOK_MOVES && vcf_nodes > 0) look = threat_search(b, vcf_nodes, out, win);
    return look;
}

}  // namespace gomoku

Look lookahead(const Board& b, std::vector<int>& out, int& win) {
    return gomoku::lookahead_as(b, TACTICS, VCF_NODES, out, win);
}

}  // namespace dojo

// ---------------------------------------------------------------------------------------
// Entry points for the agreement tests (program/tests/gomoku_cpp.rs): each builds the
// position of `count` moves (y * size + x) from the empty board and returns -1 if that is
// not a legal game (a size out of 7..20, a rule not 0/1, a move off the board, on a stone or
// after the end).

namespace dojo {
namespace gomoku {
inline bool replay(int size, int rule, const int* moves, int count, Board& b, int* results) {
    if (size < MIN_SIDE || size > MAX_SIDE || (rule != FREESTYLE && rule != STANDARD) || count < 0) return false;
    b = Board::empty(size, rule);
    for (int i = 0; i < count; ++i) {
        if (b.result != ONGOING || !b.is_open(moves[i])) return false;
        b.play(moves[i]);
        if (results) results[i] = b.result;
    }
    return true;
}

inline int report(dojo::Look look, const std::vector<int>& out, int win, int* moves, int* count) {
    if (look == LOOK_WIN) {
        moves[0] = win;
        *count = 1;
    } else {
        *count = (int)out.size();
        for (size_t i = 0; i < out.size(); ++i) moves[i] = out[i];
    }
    return look;
}
}  // namespace gomoku
}  // namespace dojo

// The result (ONGOING / WON / DRAWN) after each move, into results[0..count).
extern "C" int dojoGomokuResults(int size, int rule, const int* moves, int count, int* results) {
    dojo::Board b;
    return dojo::gomoku::replay(size, rule, moves, count, b, results) ? 0 : -1;
}

// `encode`'s planes (size * size * 8, cell-major) and mask (size * size).
extern "C" int dojoGomokuPlanes(int size, int rule, const int* moves, int count, float* planes, float* mask) {
    dojo::Board b;
    if (!dojo::gomoku::replay(size, rule, moves, count, b, nullptr)) return -1;
    dojo::encode(b, planes, mask);
    return 0;
}

// The same planes for a position laid out by `put` (cells[y * size + x]: 0 empty, 1 first
// player, 2 second) with `set_last` (last < 0: none).
extern "C" int dojoGomokuLayoutPlanes(int size, int rule, const int* cells, int last, float* planes, float* mask) {
    if (size < dojo::gomoku::MIN_SIDE || size > dojo::MAX_SIDE) return -1;
    dojo::Board b = dojo::Board::empty(size, rule);
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x)
            if (cells[y * size + x] == 1 || cells[y * size + x] == 2) b.put(x, y, cells[y * size + x]);
    if (last >= 0) b.set_last(last % size, last / size);
    dojo::encode(b, planes, mask);
    return b.side();
}

// The expansion's lookahead with these settings: 0 LOOK_MOVES (moves[0..count)), 1
// LOOK_WIN (moves[0] the win), 2 LOOK_LOST (moves[0..count) what is left).
extern "C" int dojoGomokuLookahead(int size, int rule, const int* moves, int count, int tactics, int vcf_nodes,
                                   int* out, int* count_out) {
    dojo::Board b;
    if (!dojo::gomoku::replay(size, rule, moves, count, b, nullptr) || vcf_nodes < 0) return -1;
    std::vector<int> found;
    int win = -1;
    dojo::Look look = dojo::gomoku::lookahead_as(b, tactics != 0, (uint32_t)vcf_nodes, found, win);
    return dojo::gomoku::report(look, found, win, out, count_out);
}

// threat_search alone on the moves `in` (as the search hands it its lookahead's moves).
extern "C" int dojoGomokuThreatSearch(int size, int rule, const int* moves, int count, int max_nodes, const int* in,
                                      int in_count, int* out, int* count_out) {
    dojo::Board b;
    if (!dojo::gomoku::replay(size, rule, moves, count, b, nullptr) || max_nodes < 0 || in_count < 0) return -1;
    std::vector<int> found(in, in + in_count);
    int win = -1;
    dojo::Look look = dojo::gomoku::threat_search(b, (uint32_t)max_nodes, found, win);
    return dojo::gomoku::report(look, found, win, out, count_out);
}

// The VCF prover: 1 with line[0..len) when `attacker` (0 first player) has one, else 0;
// `stats` gets the nodes tried and whether the budget ran out.
extern "C" int dojoGomokuVcf(int size, int rule, const int* moves, int count, int attacker, int max_nodes, int* line,
                             int* len, int* stats) {
    dojo::Board b;
    if (!dojo::gomoku::replay(size, rule, moves, count, b, nullptr) || max_nodes < 0 || (attacker & ~1)) return -1;
    dojo::gomoku::Vcf v;
    dojo::gomoku::vcf(b, attacker, (uint32_t)max_nodes, v);
    *len = v.len;
    for (int i = 0; i < v.len; ++i) line[i] = v.line[i];
    stats[0] = (int)v.nodes;
    stats[1] = v.out_of_budget ? 1 : 0;
    return v.found ? 1 : 0;
}

// dojo's Zobrist hash of the position (the Rust side's `Game::hash`).
extern "C" int dojoGomokuHash(int size, int rule, const int* moves, int count, uint64_t* hash) {
    dojo::Board b;
    if (!dojo::gomoku::replay(size, rule, moves, count, b, nullptr)) return -1;
    *hash = b.hash;
    return 0;
}
