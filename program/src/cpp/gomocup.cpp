// A dojo network playing Gomoku as a Gomocup brain: the network's inference and dojo's graph
// search (PUCT, or Gumbel AlphaZero's) by the clock, with Gomoku's threat-space prover, in
// plain C++ (one thread, no library), speaking the Gomocup protocol on stdin and stdout.
// Built for Linux with `g++ -O2` and for Windows with mingw-w64 as a static
// `pbrain-NAME.exe`, which Gomocup's manager starts with no arguments.
//
// Written by `dojo export gomocup`; the network's weights and the search's settings are the
// data at the top. The parts, in order: what every exported engine shares (common.cpp), the
// generated constants and weights, Gomoku (gomoku.cpp: the board, its rules, threat planes
// and VCF prover as game/src/gomoku.rs has them), the network (network.cpp), the search
// (search.cpp), then this protocol front end.
//
// The protocol (the brain's side), as the Gomocup manager speaks it:
// - `START n` / `RECTSTART w,h`: a new game on an n x n board (`OK`, or `ERROR` with the
//   reason: a size the network does not play, a rectangle); `RESTART`: the same size again.
// - `BEGIN`: move first; `TURN x,y`: the opponent's move, then ours; `BOARD`, lines
//   `x,y,field` (1 ours, 2 theirs; 3, a continuous game's stone, is refused), `DONE`: a whole
//   position in the order it was played, then our move. `PLAY x,y`: play exactly that move
//   (answered with it). `TAKEBACK x,y`: the last stone removed (`OK`).
// - `INFO key value` (no answer): `timeout_turn`, `timeout_match`, `time_left` (ms) set the
//   clock below; `max_memory` (bytes) caps the search graph; `rule` is a bit set (1 exactly
//   five, 2 continuous, 4 renju, 8 caro): freestyle (0) and standard (1) are played by their
//   rules, renju, caro and any other bit refused with `ERROR` (and every move asked under
//   them answered `ERROR` until the rule changes); a continuous game's bit changes nothing.
// - `ABOUT`: the brain's name and version; `END`: exit. Anything else: `UNKNOWN`.
// - A move searched reports on one `MESSAGE` line (playouts, value, time) for a human
//   watching; managers skip them.
//
// Time: a move searches until its share of the clock is spent. Of the turn's time
// (`timeout_turn`) it keeps a margin for the answer's way out; with a match clock
// (`timeout_match`, `time_left`) it spends the time left over the moves a game may still
// need, so a long game never runs out (see `move_budget_ms`). Memory: the graph stays
// within `max_memory` less what the process needs besides it (see `graph_budget`).
//
// `dojoEvaluate`, `dojoLookahead` and `dojoUseFastKernel` (at the end) are for `dojo export
// gomocup --check`, which builds this file as a shared object with -DDOJO_NO_MAIN.

//@ENGINE@

#include <iostream>

namespace dojo {

// The brain's state between commands.
struct Brain {
    int size = 0;
    int rule = 0;           // the rule bits `INFO rule` last gave
    bool refused = false;   // the rule is one this brain does not play
    Board board;
    // The stones of the game so far, in order ({x, y, who}), for TAKEBACK.
    std::vector<std::tuple<int, int, int>> stones;
    // Inside BOARD: the stones read so far.
    bool in_board = false;
    std::vector<std::tuple<int, int, int>> pending;
    // The clock, in milliseconds; 0: not given.
    int64_t timeout_turn = 0, timeout_match = 0, time_left = 0;
    bool time_left_given = false;
    uint64_t max_memory = 0;
};

Brain BRAIN;

void say(const std::string& line) {
    std::fputs(line.c_str(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

// The stones laid out again from the start, by `BRAIN.stones` (after TAKEBACK or BOARD).
void replay() {
    Brain& br = BRAIN;
    br.board = Board::empty(br.size, br.rule & 1);
    int last_x = -1, last_y = -1;
    for (const auto& s : br.stones) {
        br.board.put(std::get<0>(s), std::get<1>(s), std::get<2>(s));
        last_x = std::get<0>(s);
        last_y = std::get<1>(s);
    }
    if (last_x >= 0) br.board.set_last(last_x, last_y);
}

// A new game of `n` x `n`.
std::string start(int n) {
    if (n < BRAIN_MIN_SIZE || n > BRAIN_MAX_SIZE)
        return "ERROR unsupported size " + std::to_string(n) + ": this brain's network plays " +
               std::to_string(BRAIN_MIN_SIZE) + "x" + std::to_string(BRAIN_MIN_SIZE) + " to " +
               std::to_string(BRAIN_MAX_SIZE) + "x" + std::to_string(BRAIN_MAX_SIZE);
    BRAIN.size = n;
    BRAIN.stones.clear();
    replay();
    return "OK";
}

// Parses "x,y" (spaces allowed) into a point of the board.
bool parse_point(const std::string& text, int& x, int& y) {
    int n = 0;
    if (std::sscanf(text.c_str(), " %d , %d %n", &x, &y, &n) < 2) return false;
    return x >= 0 && y >= 0 && x < BRAIN.size && y < BRAIN.size;
}

// How long this move may search, in milliseconds: within the turn's time less a margin for
// the answer's way out (1/20 of it, at least 30 ms), and with a match clock the time left
// (less a reserve) over the moves the game may still need of ours: an eighth of the empty
// points, at least 8 and at most 30 (a share of what is left, so it never runs out; games
// between strong brains rarely last 30 moves a side). A manager that gives no `time_left`
// has it counted here. With no clock at all, MOVE_MS.
int64_t move_budget_ms() {
    const Brain& br = BRAIN;
    int64_t budget = MOVE_MS;
    if (br.timeout_turn > 0) budget = br.timeout_turn - std::max<int64_t>(30, br.timeout_turn / 20);
    if (br.timeout_match > 0) {
        int64_t left = br.time_left_given ? br.time_left : br.timeout_match;
        int64_t reserve = std::max<int64_t>(100, left / 20);
        int empty = br.size * br.size - br.board.ply;
        int64_t moves_to_go = std::min(30, std::max(8, empty / 8));
        budget = std::min(budget, (left - reserve) / moves_to_go);
    }
    return std::max<int64_t>(budget, 1);
}

// The memory the graph may take: `INFO max_memory` (Gomocup's 350 MB when not given) less
// what the process holds besides the graph (the code, the weights, the network's scratch,
// the runtime: MEMORY_BESIDES_GRAPH).
size_t graph_budget() {
    uint64_t total = BRAIN.max_memory > 0 ? BRAIN.max_memory : DEFAULT_MAX_MEMORY;
    return total > MEMORY_BESIDES_GRAPH ? (size_t)(total - MEMORY_BESIDES_GRAPH) : (size_t)(total / 4);
}

// Searches the position and answers with the move, which is played on our board.
void answer_move(std::chrono::steady_clock::time_point received) {
    Brain& br = BRAIN;
    if (br.refused) return say("ERROR rule " + std::to_string(br.rule) + " is not played by this brain");
    if (br.size == 0) return say("ERROR no game: START comes first");
    if (br.board.result != ONGOING) return say("ERROR the game is over");
    int64_t budget = move_budget_ms();
    SEARCH.memory_budget = graph_budget();
    MoveReport report = search_move(br.board, received + std::chrono::milliseconds(budget));
    int x = report.move % br.size, y = report.move / br.size;
    br.stones.emplace_back(x, y, br.board.side() + 1);
    br.board.play(report.move);
    auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - received);
    if (br.timeout_match > 0 && !br.time_left_given) br.time_left -= spent.count();
    char message[160];
    std::snprintf(message, sizeof message, "MESSAGE dojo: %u playouts, value %.2f, %lld of %lld ms%s",
                  report.playouts, report.value, (long long)spent.count(), (long long)budget,
                  report.memory_full ? ", memory full" : "");
    say(message);
    say(std::to_string(x) + "," + std::to_string(y));
    br.time_left_given = false;  // a manager that sends it sends it before each move
}

// Plays the opponent's move at (x, y), or says why not.
bool opponent_move(int x, int y) {
    Brain& br = BRAIN;
    if (br.board.result != ONGOING || br.board.stone(x, y) != 0) return false;
    br.stones.emplace_back(x, y, br.board.side() + 1);
    br.board.play(y * br.size + x);
    return true;
}

void info(const std::string& key, const std::string& value) {
    Brain& br = BRAIN;
    long long v = std::atoll(value.c_str());
    if (key == "timeout_turn") br.timeout_turn = v;
    else if (key == "timeout_match") {
        br.timeout_match = v;
        if (!br.time_left_given) br.time_left = v;
    } else if (key == "time_left") {
        br.time_left = v;
        br.time_left_given = true;
    } else if (key == "max_memory") br.max_memory = (uint64_t)std::max(0LL, v);
    else if (key == "rule") {
        br.rule = (int)v;
        br.refused = (v & ~3LL) != 0;  // anything beyond exactly five (1) and continuous (2)
        if (br.refused) {
            const char* name = v & 4 ? " (renju)" : v & 8 ? " (caro)" : "";
            say("ERROR rule " + value + name + " is not supported: this brain plays freestyle (0) and standard (1) Gomoku");
        } else if (br.size > 0) {
            replay();  // the stones so far, judged by the new rule
        }
    }
}

// The BOARD block's lines: `x,y,field` until DONE; then our move.
void board_line(const std::string& line, std::chrono::steady_clock::time_point received) {
    Brain& br = BRAIN;
    std::string upper = line;
    for (char& c : upper) c = (char)std::toupper((unsigned char)c);
    if (upper != "DONE") {
        int x, y, field, n = 0;
        if (std::sscanf(line.c_str(), " %d , %d , %d %n", &x, &y, &field, &n) == 3)
            br.pending.emplace_back(x, y, field);
        return;
    }
    br.in_board = false;
    int ours = 0, theirs = 0;
    for (const auto& s : br.pending) (std::get<2>(s) == 1 ? ours : theirs) += 1;
    // Our stones are the first player's when both have as many; else the second's.
    int first_field = ours == theirs ? 1 : 2;
    br.stones.clear();
    for (const auto& s : br.pending) {
        int x = std::get<0>(s), y = std::get<1>(s), field = std::get<2>(s);
        if (field == 3) return say("ERROR field 3 (a continuous game's stone) is not supported");
        if (field != 1 && field != 2) return say("ERROR unknown field " + std::to_string(field));
        if (x < 0 || y < 0 || x >= br.size || y >= br.size) return say("ERROR " + std::to_string(x) + "," +
                                                                         std::to_string(y) + " is off the board");
        br.stones.emplace_back(x, y, field == first_field ? 1 : 2);
    }
    if (ours != theirs && ours + 1 != theirs) return say("ERROR not a position with this brain to move");
    replay();
    answer_move(received);
}

// One command; false at END.
bool handle(const std::string& raw) {
    auto received = std::chrono::steady_clock::now();
    Brain& br = BRAIN;
    std::string line = raw;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    size_t lead = line.find_first_not_of(" \t");
    if (lead == std::string::npos) return true;
    line = line.substr(lead);
    if (br.in_board) {
        board_line(line, received);
        return true;
    }
    size_t space = line.find_first_of(" \t");
    std::string command = line.substr(0, space), rest = space == std::string::npos ? "" : line.substr(space + 1);
    for (char& c : command) c = (char)std::toupper((unsigned char)c);
    int x, y;
    if (command == "START") {
        int n = std::atoi(rest.c_str());
        say(n > 0 ? start(n) : "ERROR START needs a board size");
    } else if (command == "RECTSTART") {
        int w = 0, h = 0;
        if (std::sscanf(rest.c_str(), " %d , %d", &w, &h) < 2) say("ERROR RECTSTART needs width,height");
        else if (w != h) say("ERROR rectangular boards (" + std::to_string(w) + "x" + std::to_string(h) +
                             ") are not supported");
        else say(start(w));
    } else if (command == "RESTART") {
        say(br.size > 0 ? start(br.size) : "ERROR no game to restart: START comes first");
    } else if (command == "BEGIN") {
        if (br.size > 0 && br.board.ply != 0) say("ERROR BEGIN needs an empty board");
        else answer_move(received);
    } else if (command == "TURN") {
        if (br.size == 0) say("ERROR no game: START comes first");
        else if (!parse_point(rest, x, y)) say("ERROR TURN needs x,y on the board, not " + rest);
        else if (!opponent_move(x, y)) say("ERROR " + rest + " is not a legal move here");
        else answer_move(received);
    } else if (command == "PLAY") {
        if (br.size == 0 || !parse_point(rest, x, y) || !opponent_move(x, y))
            say("ERROR PLAY needs a legal x,y");
        else say(std::to_string(x) + "," + std::to_string(y));
    } else if (command == "BOARD") {
        if (br.size == 0) {
            say("ERROR no game: START comes first");
        } else {
            br.in_board = true;
            br.pending.clear();
        }
    } else if (command == "TAKEBACK") {
        if (br.size > 0 && parse_point(rest, x, y) && !br.stones.empty() && std::get<0>(br.stones.back()) == x &&
            std::get<1>(br.stones.back()) == y) {
            br.stones.pop_back();
            replay();
            say("OK");
        } else {
            say("ERROR TAKEBACK needs the last move's x,y");
        }
    } else if (command == "INFO") {
        size_t gap = rest.find_first_of(" \t");
        std::string key = rest.substr(0, gap), value = gap == std::string::npos ? "" : rest.substr(gap + 1);
        for (char& c : key) c = (char)std::tolower((unsigned char)c);
        info(key, value);
    } else if (command == "ABOUT") {
        say(std::string("name=\"") + BRAIN_NAME + "\", version=\"" + BRAIN_VERSION +
            "\", author=\"dojo\", country=\"-\", www=\"https://github.com/dojo\"");
    } else if (command == "END") {
        return false;
    } else {
        say("UNKNOWN " + command);
    }
    return true;
}

}  // namespace dojo

#ifndef DOJO_NO_MAIN
int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line))
        if (!dojo::handle(line)) break;
    return 0;
}
#endif

// The network alone on a position (the moves from the empty `size` x `size` board, points
// y * size + x), for `dojo export gomocup --check`: each point's probability (a softmax over
// the empty ones, 0 elsewhere) and the value for the side to move. Returns 0, or -1 for a
// board or move list it cannot play.
extern "C" int dojoEvaluate(const int size, const int rule, const int* moves, const int count, float* policy,
                            float* value) {
    using namespace dojo;
    if (size < 1 || size > MAX_SIDE) return -1;
    Board b = Board::empty(size, rule);
    for (int i = 0; i < count; ++i) {
        if (moves[i] < 0 || moves[i] >= size * size || b.result != ONGOING || b.stone(moves[i] % size, moves[i] / size))
            return -1;
        b.play(moves[i]);
    }
    if (b.result != ONGOING) return -1;
    float logits[MAX_ACTIONS];
    evaluate(b, logits, value);
    std::vector<int> open;
    b.legal_moves(open);
    std::vector<float> p;
    legal_softmax(logits, open, p);
    for (int a = 0; a < size * size; ++a) policy[a] = 0.0f;
    for (size_t i = 0; i < open.size(); ++i) policy[open[i]] = p[i];
    return 0;
}

// Which convolution the network runs, for the check to compare both: the fast one (`fast`
// 1) where the processor has AVX2 and FMA, else the portable one. Returns 1 if the fast one
// is now in use.
extern "C" int dojoUseFastKernel(const int fast) {
    dojo::use_fast_kernel = fast && dojo::fast_kernel_available();
    return dojo::use_fast_kernel ? 1 : 0;
}
