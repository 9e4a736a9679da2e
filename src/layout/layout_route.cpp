// Routes of the in-place layout conversions (layout_route.hpp): every conversion is one or two
// elementary tiled transpositions, or a full in-place transposition.
#include "layout/layout_route.hpp"

#include <limits>

#include "plan/staged_routes.hpp"

namespace xpose::detail {
namespace {

/// `label` is the stage's factorial name (PPoPP'14 sec. 4), `note` what it does to the layout.
void add_tiled(std::vector<layout_step>& steps, const char* label, const char* note,
               std::int64_t batch, std::int64_t rows, std::int64_t cols, std::size_t super_bytes,
               std::size_t offset_bytes) {
  if (batch < 1 || rows < 2 || cols < 2) return;  // an identity
  layout_step step;
  step.what = layout_step::kind::tiled;
  step.tiled = tiled_transpose_stage(label, batch, rows, cols, super_bytes);
  step.offset_bytes = offset_bytes;
  step.note = note;
  steps.push_back(std::move(step));
}

void add_full(std::vector<layout_step>& steps, const char* note, std::int64_t rows,
              std::int64_t cols) {
  layout_step step;
  step.what = layout_step::kind::full_transpose;
  step.rows = rows;
  step.cols = cols;
  step.note = note;
  steps.push_back(std::move(step));
}

/// A remainder step of the skinny route on the S x n SoA matrix with chunks of T structures.
void add_remainder(std::vector<layout_step>& steps, stage_kind kind, const char* note,
                   const struct_array_desc& d, std::int64_t T) {
  layout_step step;
  step.what = layout_step::kind::remainder;
  step.tiled.kind = kind;
  step.tiled.label = note;
  step.tiled.rows = d.fields;
  step.tiled.cols = d.structs;
  step.tiled.tile = T;
  step.tiled.super_bytes = d.field_bytes;
  // Closing up or opening the rows moves about the whole array; the block itself r*S elements.
  const bool moves_rows =
      kind == stage_kind::skinny_remainder_split || kind == stage_kind::skinny_remainder_spread;
  step.tiled.passes =
      moves_rows ? 1.0 : static_cast<double>(d.structs % T) / static_cast<double>(d.structs);
  step.note = note;
  steps.push_back(std::move(step));
}

/// aos -> asta(T) (inverse: asta(T) -> aos): the full tiles as a batch, then the partial tile.
void aos_asta(std::vector<layout_step>& steps, const struct_array_desc& d, std::int64_t T,
              bool inverse) {
  const std::int64_t n = d.structs, S = d.fields, full = n / T, r = n % T;
  const std::size_t e = d.field_bytes;
  const auto tail_offset = static_cast<std::size_t>(full * T * S) * e;
  if (!inverse) {
    add_tiled(steps, "010", "aos -> asta: full tiles (T x S each)", full, T, S, e, 0);
    add_tiled(steps, "10", "aos -> asta: partial tile (r x S)", 1, r, S, e, tail_offset);
  } else {
    add_tiled(steps, "010", "asta -> aos: full tiles (S x T each)", full, S, T, e, 0);
    add_tiled(steps, "10", "asta -> aos: partial tile (S x r)", 1, S, r, e, tail_offset);
  }
}

}  // namespace

void validate_struct_array(const struct_array_desc& d) {
  if (d.structs < 0)
    throw error(status::invalid_argument, "structs must be >= 0, got " + std::to_string(d.structs));
  if (d.fields < 1)
    throw error(status::invalid_argument, "fields must be >= 1, got " + std::to_string(d.fields));
  if (d.field_bytes < 1 || d.field_bytes > max_elem_size)
    throw error(status::invalid_argument, "field_bytes must be 1.." +
                                              std::to_string(max_elem_size) + ", got " +
                                              std::to_string(d.field_bytes));
  const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const auto n = static_cast<std::uint64_t>(d.structs), S = static_cast<std::uint64_t>(d.fields);
  if (n != 0 && (S > limit / n || S * n > limit / d.field_bytes))
    throw error(status::invalid_argument,
                "structs x fields x field_bytes overflows 63 bits: " + std::to_string(d.structs) +
                    " x " + std::to_string(d.fields) + " x " + std::to_string(d.field_bytes));
}

void validate_layout(layout l, const char* name) {
  switch (l.kind) {
    case layout_kind::aos:
    case layout_kind::soa:
      return;
    case layout_kind::asta:
      if (l.tile < 1)
        throw error(
            status::invalid_argument,
            std::string(name) + ": the asta tile must be >= 1, got " + std::to_string(l.tile));
      return;
  }
  throw error(status::invalid_argument, std::string(name) + ": unknown layout kind " +
                                            std::to_string(static_cast<int>(l.kind)));
}

layout canonical_layout(layout l, const struct_array_desc& d) {
  if (d.fields == 1 || d.structs <= 1) return layout::aos();
  if (l.kind != layout_kind::asta) return {l.kind, 0};
  if (l.tile == 1) return layout::aos();
  if (l.tile >= d.structs) return layout::soa();
  return l;
}

std::vector<layout_step> layout_route(const struct_array_desc& d, layout from, layout to,
                                      bool remainder_steps) {
  from = canonical_layout(from, d);
  to = canonical_layout(to, d);
  std::vector<layout_step> steps;
  if (from == to) return steps;
  const std::int64_t n = d.structs, S = d.fields;
  const std::size_t e = d.field_bytes;
  using K = layout_kind;
  if (from.kind == K::aos && to.kind == K::soa) {
    add_full(steps, "aos -> soa: full transposition (n x S)", n, S);
  } else if (from.kind == K::soa && to.kind == K::aos) {
    add_full(steps, "soa -> aos: full transposition (S x n)", S, n);
  } else if (from.kind == K::aos && to.kind == K::asta) {
    aos_asta(steps, d, to.tile, false);
  } else if (from.kind == K::asta && to.kind == K::aos) {
    aos_asta(steps, d, from.tile, true);
  } else if (from.kind == K::soa && to.kind == K::asta) {
    const std::int64_t T = to.tile, q = n / T, r = n % T;
    const auto tail_offset = static_cast<std::size_t>(q * T * S) * e;
    if (r > 0 && !remainder_steps) {
      add_full(steps, "soa -> aos: full transposition (S x n), for the partial tile", S, n);
      aos_asta(steps, d, T, false);
      return steps;
    }
    if (r > 0)
      add_remainder(steps, stage_kind::skinny_remainder_split,
                    "soa -> asta: partial tile set aside (r x S), rows closed up", d, T);
    add_tiled(steps, "100", "soa -> asta: full tiles (S x n/T of T fields)", 1, S, q, T * e, 0);
    if (r > 0) {
      add_remainder(steps, stage_kind::skinny_remainder_place,
                    "soa -> asta: partial tile placed after the full ones (r x S)", d, T);
      add_tiled(steps, "10", "soa -> asta: partial tile (r x S)", 1, r, S, e, tail_offset);
    }
  } else if (from.kind == K::asta && to.kind == K::soa) {
    const std::int64_t T = from.tile, q = n / T, r = n % T;
    const auto tail_offset = static_cast<std::size_t>(q * T * S) * e;
    if (r > 0 && !remainder_steps) {
      aos_asta(steps, d, T, true);
      add_full(steps, "aos -> soa: full transposition (n x S), for the partial tile", n, S);
      return steps;
    }
    if (r > 0) {
      add_tiled(steps, "10", "asta -> soa: partial tile (S x r)", 1, S, r, e, tail_offset);
      add_remainder(steps, stage_kind::skinny_remainder_take,
                    "asta -> soa: partial tile set aside (r x S)", d, T);
    }
    add_tiled(steps, "100", "asta -> soa: full tiles (n/T x S of T fields)", 1, q, S, T * e, 0);
    if (r > 0)
      add_remainder(steps, stage_kind::skinny_remainder_spread,
                    "asta -> soa: rows opened up, partial tile placed at their ends", d, T);
  } else {  // asta(T1) -> asta(T2), T1 != T2
    const std::int64_t T1 = from.tile, T2 = to.tile;
    if (T2 % T1 == 0 && n % T2 == 0) {
      add_tiled(steps, "0100", "asta -> asta: each tile of T2 (k x S of T1 fields)", n / T2,
                T2 / T1, S, static_cast<std::size_t>(T1) * e, 0);
    } else if (T1 % T2 == 0 && n % T1 == 0) {
      add_tiled(steps, "0100", "asta -> asta: each tile of T1 (S x k of T2 fields)", n / T1, S,
                T1 / T2, static_cast<std::size_t>(T2) * e, 0);
    } else {
      aos_asta(steps, d, T1, true);
      aos_asta(steps, d, T2, false);
    }
  }
  return steps;
}

}  // namespace xpose::detail
