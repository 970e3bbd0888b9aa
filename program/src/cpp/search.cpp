namespace dojo {

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
// Past this many nodes the graph starts afresh (about 100 MB of Connect Four's).
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

    // The most memory the graph may take, in bytes (a front end may lower it: Gomocup's
    // `INFO max_memory`).
    size_t memory_budget = SIZE_MAX / 4;

    // The graph's memory now: its vectors as allocated, the table's entries and buckets.
    size_t graph_bytes() const {
        size_t entry = sizeof(std::pair<const uint64_t, uint32_t>) + 2 * sizeof(void*);
        return nodes.capacity() * sizeof(Node) + edges.capacity() * sizeof(Edge) + table.size() * entry +
               table.bucket_count() * sizeof(void*);
    }

    // No more playouts fit: past MAX_NODES, or a vector that a playout may fill (it adds a
    // few nodes and at most MAX_ACTIONS edges) would have to grow, taking a block twice its
    // size while the old one is still held, past the graph's budget.
    bool full() const {
        size_t grow_nodes = nodes.size() + 4 > nodes.capacity() ? 2 * nodes.capacity() * sizeof(Node) : 0;
        size_t grow_edges = edges.size() + MAX_ACTIONS > edges.capacity() ? 2 * edges.capacity() * sizeof(Edge) : 0;
        return nodes.size() >= MAX_NODES || graph_bytes() + std::max(grow_nodes, grow_edges) > memory_budget;
    }

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
        bool same_game = root != NONE && b.continues(root_board);
        // Keeping a part copies it beside the old graph: only where both fit.
        bool room = !full() && graph_bytes() < memory_budget / 3;
        auto found = REUSE_TREE && same_game && room ? table.find(b.hash) : table.end();
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
        float logits[MAX_ACTIONS], value;
        evaluate(b, logits, &value);
        int win = -1;
        Look look = lookahead(b, legal, win);
        if (look == LOOK_WIN) {
            legal.assign(1, win);
        } else if (look == LOOK_LOST && legal.empty()) {
            b.legal_moves(legal);
        }
        legal_softmax(logits, legal, priors);
        uint32_t first = (uint32_t)edges.size();
        for (size_t i = 0; i < legal.size(); ++i) edges.push_back(Edge{legal[i], priors[i], 0, NONE});
        if (!std::isfinite(value)) value = 0.0f;
        value = std::min(1.0f, std::max(-1.0f, value));
        if (ROLLOUTS > 0 && look == LOOK_MOVES) {
            float sum = 0.0f;
            for (uint32_t i = 0; i < ROLLOUTS; ++i) sum += rollout(b, rollout_state);
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

// What a move's search did, for a front end to log.
struct MoveReport {
    int move;
    uint32_t playouts;
    float value;  // the root's, for the side to move
    size_t nodes;
    bool memory_full;  // the search stopped because the graph filled its memory
};

// The move to play on `b`, searching MAX_PLAYOUTS playouts, until `deadline`, or until the
// graph fills its memory.
MoveReport search_move(const Board& b, std::chrono::steady_clock::time_point deadline) {
    SEARCH.set_root(b);
    bool memory_full = false;
    while (!SEARCH.done(MAX_PLAYOUTS)) {
        if (SEARCH.full()) {
            memory_full = true;
            break;
        }
        SEARCH.playout();
        if (std::chrono::steady_clock::now() >= deadline) break;
    }
    // A search cut before the root's own evaluation has nothing to choose by.
    if (SEARCH.nodes[SEARCH.root].state != EXPANDED) SEARCH.playout();
    const Node& r = SEARCH.nodes[SEARCH.root];
    return MoveReport{SEARCH.choose_move(), SEARCH.playouts, r.q, SEARCH.nodes.size(), memory_full};
}

}  // namespace dojo
