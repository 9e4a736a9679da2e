// The route of an in-place layout conversion as data: the list of steps that take an array of
// structures from one layout to another (DL, "DL: A Data Layout Transformation System for
// Heterogeneous Computing", sec. 4.2-4.3). Backend-free: the CPU and the GPU run the same steps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "plan/plan_data.hpp"
#include "xpose/layout.hpp"

namespace xpose::detail {

struct layout_step {
  enum class kind {
    tiled,           ///< one elementary tiled transposition `stage` of the bytes at offset_bytes
    full_transpose,  ///< a full in-place transposition of the rows x cols matrix at offset 0
    remainder,       ///< a remainder step of the skinny route (stage_kind::skinny_remainder_*) on
                     ///< the whole array: the partial tile between the rows and a held block
  };
  kind what = kind::tiled;
  stage tiled;                      ///< kind::tiled and kind::remainder
  std::size_t offset_bytes = 0;     ///< kind::tiled: where the stage's first instance starts
  std::int64_t rows = 0, cols = 0;  ///< kind::full_transpose, of field_bytes-byte elements
  std::string note;                 ///< what the step does, for describe()
};

/// Throws xpose::error(invalid_argument) naming the bad member of `d` or the bad layout
/// (`name` names it in the message).
void validate_struct_array(const struct_array_desc& d);
void validate_layout(layout l, const char* name);

/// The layout that stores every element where `l` does, in its simplest form: every layout is
/// aos when S == 1 or n <= 1; asta(1) is aos; asta(T) with T >= n is soa.
layout canonical_layout(layout l, const struct_array_desc& d);

/// The steps from `from` to `to` (both valid), identities left out:
///  - aos -> asta(T):  stage (n/T, T, S, e), then (1, r, S, e) on the partial tile of r = n mod T
///    structures; asta(T) -> aos the inverse stages (n/T, S, T, e) and (1, S, r, e).
///  - soa -> asta(T), T | n: stage (1, S, n/T, T*e) (sec. 4.3, tiles as super-elements). With a
///    partial tile of r structures and `remainder_steps`: the skinny route's split (the S x r
///    columns set aside as r x S, the rows closed up), the same stage on the full tiles, the
///    skinny route's place (the block back after them), and (1, r, S, e) on that block; without
///    `remainder_steps` through aos (a full transposition, then aos -> asta). asta -> soa the
///    inverse.
///  - aos <-> soa: the full in-place transposition of n x S (or S x n), whose planner takes the
///    skinny route, itself 100 + 010 through an ASTA of its own tile.
///  - asta(T1) -> asta(T2), one tile a multiple k of the other and dividing n: one stage,
///    (n/T2, k, S, T1*e) when T2 = k*T1, (n/T1, S, k, T2*e) when T1 = k*T2; otherwise through aos.
std::vector<layout_step> layout_route(const struct_array_desc& d, layout from, layout to,
                                      bool remainder_steps = true);

}  // namespace xpose::detail
