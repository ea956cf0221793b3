// How often each token of the run-length encoder's parse occurs (io/rle_deflate.hpp: literals
// 0-255, runs of the byte before 256 + length, 3-258): the counts a block's Huffman codes are
// made from.
#pragma once

#include <cstddef>
#include <cstdint>

namespace grundy::io {

inline constexpr int kTokenKinds = 256 + 258 + 1;

// Which code counts: the best this CPU has (AVX-512 VBMI2 where token_counter_has_vbmi2) or the
// one for any x86-64. Both give the same counts.
enum class TokenCounter { Best, Portable };
bool token_counter_has_vbmi2();

// Adds the tokens' counts to seen[0, kTokenKinds).
void count_tokens(const uint16_t* tokens, size_t count, uint32_t* seen,
                  TokenCounter counter = TokenCounter::Best);

}  // namespace grundy::io
