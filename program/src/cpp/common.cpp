// What every engine dojo exports shares (program/src/cpp_export.rs assembles the file: this
// part, the generated constants and weights, a game, the network, the search, a front end;
// each part in namespace dojo, README.md lists what a game defines).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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

namespace dojo {

uint64_t splitmix(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
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

inline int popcount64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    for (; x; x &= x - 1) ++n;
    return n;
#endif
}

}  // namespace dojo
