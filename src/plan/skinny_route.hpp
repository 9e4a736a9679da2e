// Stage list of the skinny_chunks route: in-place transposition of an m x n (wide) or n x m
// (tall) row-major matrix with m <= 64 and n of any size, primes included. Built on the
// elementary transpositions of PPoPP'14 sec. 4 (100 and 010), with the n mod w leftover columns
// kept aside in a small workspace instead of the paper's padding step (which costs a whole pass).
//
// Wide, n = q*w + r: row i is [C(i,0) .. C(i,q-1), R(i)] with chunks C of w elements and a
// remainder R(i) of r elements; the transpose is [C(.,0)^T; ..; C(.,q-1)^T; R^T].
//   1. split remainder: R^T (r x m) to workspace, rows closed up to q*w elements (one pass);
//   2. 100 on (m, q) chunks of w elements -> (q, m, w);
//   3. 010 on q instances of m x w elements -> (q, w, m);
//   4. place remainder: R^T from workspace to the last r*m elements.
// Tall is the inverse: take the last r rows aside, 010 (q, w, m) -> (q, m, w), 100 -> (m, q, w),
// spread the rows to n elements and fill each row's last r columns from workspace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "plan/plan_data.hpp"

namespace xpose::detail {

/// Largest short dimension the skinny_chunks route takes.
inline constexpr std::int64_t skinny_max_short = 64;

/// Chunk width w of an m x n (or n x m) matrix of e-byte elements, n the long dimension: the
/// largest divisor of n that gives chunks of 256 to 1024 bytes (no remainder), else chunks of
/// about 256 bytes; smaller (down to 64 bytes) where the m x w tiles of 16 threads would take
/// over half the workspace budget of a small matrix.
std::int64_t skinny_chunk_width(std::int64_t m, std::int64_t n, std::size_t e);

/// Stages for the row-major M x N view: wide when 2 <= M <= 64 < N, tall when 2 <= N <= 64 < M;
/// empty for any other shape.
std::vector<stage> skinny_chunks_stages(std::int64_t M, std::int64_t N, std::size_t e);

/// Same with a given chunk width 1 <= w <= long dimension (tests); requires min(M, N) >= 2.
std::vector<stage> skinny_chunks_stages_with_width(std::int64_t M, std::int64_t N, std::size_t e,
                                                   std::int64_t w);

}  // namespace xpose::detail
