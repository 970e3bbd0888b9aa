namespace dojo {

// ---------------------------------------------------------------------------------------
// The network: dojo's any-size form (net/src/folded.rs, net/src/any_size.rs), every batch
// norm folded into its convolution, run on the board as it is (no frame). Activations are
// [cell][channel], cells numbered row * w + column with rows from the top, as dojo's planes
// are laid out; the game says what the planes are (`encode`) and which cell's logit is a
// move's (`move_cell`).

constexpr int NET_CELLS = MAX_SIDE * MAX_SIDE;
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
    float in[NET_CELLS * PLANES];
    float x[NET_CELLS * CHANNELS], y[NET_CELLS * CHANNELS], t[NET_CELLS * CHANNELS];
    float mask[NET_CELLS];
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
// (docs/records/saiblo.md measures both). FAST_CELLS cells of a row are computed together, so each
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
// row or column of tiles past the board, so 9x9 gains least (docs/records/saiblo.md measures it).
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

// A ReLU, and zeros off the board (a Connect Four blocked cell: its mask 0). Written so g++ vectorises it.
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

// Policy logits (one per move; NO_MOVE_LOGIT for a move that is not open) and the value for
// the side to move of `b`, a position that is not over.
void evaluate(const Board& b, float* logits, float* value) {
    int h = b.h, w = b.w, cells = h * w;
    encode(b, S.in, S.mask);
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
    // read at each open move's cell.
    float pooled[POOLED], global[CHANNELS];
    pool(S.x, cells, pooled);
    dense<POOLED, CHANNELS>(pooled, global, POLICY_GLOBAL_W, POLICY_GLOBAL_B, 1);
    conv<CHANNELS, 1>(S.x, S.y, POLICY_W, POLICY_B, h, w);
    for (int a = 0, moves = num_moves(b); a < moves; ++a) {
        int k = move_cell(b, a);
        logits[a] = NO_MOVE_LOGIT;
        if (k < 0) continue;
        float logit = POLICY_OUT_B[0];
        for (int o = 0; o < CHANNELS; ++o) {
            float v = (S.y[k * CHANNELS + o] + global[o]) * S.mask[k];
            if (v > 0.0f) logit += v * POLICY_OUT_W[o];
        }
        logits[a] = logit;
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

}  // namespace dojo
