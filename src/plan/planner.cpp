// Route choice. Square matrices swap tiles in one pass; skinny ones (a side of 2..64) take the
// chunked 100 + 010 route; otherwise the route with the fewest predicted passes over memory within
// the workspace budget wins: the 3-stage route of PPoPP'14 sec. 4.2 when the dimensions have good
// factors, the row/column decomposition of Catanzaro, Keller and Garland for any others (primes).
#include "plan/planner.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>

#include "plan/row_column.hpp"
#include "plan/skinny_route.hpp"
#include "plan/staged_routes.hpp"
#include "xpose/error.hpp"

namespace xpose::detail {

namespace {

/// A route within budget predicted at more than this many times an over-budget route's passes is
/// not taken silently.
constexpr double slower_route_limit = 1.5;

std::string passes_text(double passes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", passes);
  return text;
}

[[noreturn]] void cannot_apply(route r, const std::string& why) {
  throw error(status::unsupported, "route " + std::string(to_string(r)) + " " + why);
}

std::string shape_text(const plan_data& p) {
  return std::to_string(p.rows) + " x " + std::to_string(p.cols);
}

double total_passes(const std::vector<stage>& stages) {
  return std::accumulate(stages.begin(), stages.end(), 0.0,
                         [](double sum, const stage& s) { return sum + s.passes; });
}

bool is_square_route(route r) {
  return r == route::square_tile_swap || r == route::square_naive || r == route::square_prefetch ||
         r == route::square_recursive;
}

bool is_copy_route(route r) {
  return r == route::copy_blocked || r == route::copy_naive || r == route::copy_shared_tiles ||
         r == route::copy_padded_tiles || r == route::copy_multi_element || r == route::copy_tuned;
}

bool runs_on(route r, device d) {
  switch (r) {
    case route::square_prefetch:
    case route::square_recursive:
    case route::copy_blocked:
      return d == device::cpu;
    case route::copy_naive:
    case route::copy_shared_tiles:
    case route::copy_padded_tiles:
    case route::copy_multi_element:
    case route::copy_tuned:
      return d == device::cuda;
    default:
      return true;
  }
}

stage square_stage(const plan_data& p, route variant) {
  stage s;
  s.kind = stage_kind::square_swap;
  s.label = std::string(to_string(variant));
  s.rows = s.cols = p.rows;
  s.super_bytes = p.desc.elem_size;
  s.variant = variant;
  s.lda = s.ldb = p.ld;
  s.passes = 1.0;
  return s;
}

/// The whole transposition as one elementary transposition of single elements (eq. 1).
stage cycle_following_stage(const plan_data& p) {
  stage s = tiled_transpose_stage("10", 1, p.rows, p.cols, p.desc.elem_size);
  s.method = tiled_method::cycle_following;
  return s;
}

/// Stage list of one rectangular route, or an empty list when the route does not apply.
std::vector<stage> rectangular_stages(const plan_data& p, route r,
                                      const stage_cost_function& cost_of) {
  const std::size_t e = p.desc.elem_size;
  if (cost_of) {
    std::vector<stage> stages = r == route::three_stage
                                    ? gpu_three_stage_stages(p.rows, p.cols, e, cost_of)
                                    : rectangular_stages(p, r, nullptr);
    for (stage& s : stages) s.passes = cost_of(s);
    return stages;
  }
  switch (r) {
    case route::cycle_following:
      return {cycle_following_stage(p)};
    case route::row_column:
      return row_column_stages(p.rows, p.cols, e, p.threads);
    case route::skinny_chunks:
      return skinny_chunks_stages(p.rows, p.cols, e);
    case route::three_stage:
    case route::four_stage: {
      if (r == route::three_stage) {
        // One side a multiple of the other: the square blocks, each swapped in one pass.
        std::vector<stage> blocks = square_blocks_stages(p.rows, p.cols, e);
        for (stage& s : blocks)
          if (s.kind == stage_kind::square_swap) s.passes = 1.0;
        if (!blocks.empty()) return blocks;
      }
      const auto tiles = choose_tiles(p.rows, p.cols, e, r);
      if (!tiles) return {};
      return r == route::three_stage
                 ? three_stage_stages(p.rows, p.cols, e, tiles->first, tiles->second)
                 : four_stage_stages(p.rows, p.cols, e, tiles->first, tiles->second);
    }
    default:
      return {};
  }
}

/// Automatic choice: the skinny route when it applies within the workspace budget; otherwise,
/// among the routes within the budget, the fewest predicted passes (on a tie the earlier
/// candidate); when none is within budget, the least workspace, which the CPU runs on fewer
/// threads where that brings it within budget. When a route over the budget is predicted at
/// fewer than 1 / slower_route_limit of the chosen one's passes, the CPU runs it on fewer threads
/// if that brings it within budget; otherwise the plan notes the trade.
void choose_rectangular_route(plan_data& p, const workspace_function& workspace_of,
                              const stage_cost_function& cost_of) {
  const double budget = inplace_workspace_budget(p);
  bool best_within = false;
  double best_passes = 0, best_workspace = 0;
  std::vector<stage> best;
  // The route with the fewest passes among those over the budget.
  std::vector<stage> fastest;
  double fastest_passes = 0;
  route fastest_route = route::automatic;
  // On a tie the earlier candidate wins: on the GPU the 3-stage route, which runs skinny shapes
  // in two passes too. Where the 3-stage route does not fit the budget, the GPU weighs the
  // 4-stage route, whose workspace is a few tables: the 3-stage scratch outgrows the budget on
  // large matrices (H200, 32768 x 65536 fp32: 126 MiB; four_stage 0.226 x copy, row_column
  // 0.098). Where both fit, the 3-stage route is the faster (H200, Table 2 shapes: 1.1-1.5 x).
  const bool gpu = p.options.target == device::cuda;
  std::vector<route> candidates = {gpu ? route::three_stage : route::skinny_chunks,
                                   gpu ? route::skinny_chunks : route::three_stage,
                                   route::row_column, route::cycle_following};
  if (gpu) candidates.insert(candidates.begin() + 1, route::four_stage);
  bool three_stage_within = false;
  for (route candidate : candidates) {
    if (candidate == route::four_stage && three_stage_within) continue;
    plan_data trial = p;
    trial.stages = rectangular_stages(p, candidate, cost_of);
    if (trial.stages.empty()) continue;
    const double passes = total_passes(trial.stages);
    // A route predicted slower than one already within budget is not weighed further (its
    // workspace can be costly to size: the GPU walks the cycles of its tables).
    if (best_within && passes >= best_passes && candidate != route::skinny_chunks) continue;
    const double workspace = static_cast<double>(workspace_of(trial));
    const bool within = workspace <= budget;
    if (candidate == route::three_stage) three_stage_within = within;
    // On the CPU the skinny route is built for its shapes: measured 3-15x faster there than
    // row_column, whose pass count does not see its strided column work on skinny matrices. The
    // GPU's 3-stage route takes skinny shapes in two passes.
    if (candidate == route::skinny_chunks && within && p.options.target == device::cpu) {
      p.stages = std::move(trial.stages);
      p.chosen = candidate;
      return;
    }
    if (!within && (fastest.empty() || passes < fastest_passes)) {
      fastest = trial.stages;
      fastest_passes = passes;
      fastest_route = candidate;
    }
    const bool better = best.empty() || (within && !best_within) ||
                        (within && best_within && passes < best_passes) ||
                        (!within && !best_within && workspace < best_workspace);
    if (better) {
      best = std::move(trial.stages);
      best_within = within;
      best_passes = passes;
      best_workspace = workspace;
      p.chosen = candidate;
    }
  }
  p.stages = std::move(best);
  // A route far faster than the one within budget whose workspace grows with the CPU threads
  // (row_column's buffers, per thread) runs on fewer threads rather than be traded for one
  // predicted at many times its passes.
  if (!fastest.empty() && fastest_passes * slower_route_limit < best_passes) {
    if (!gpu) {
      plan_data trial = p;
      trial.stages = fastest;
      for (trial.threads = p.threads / 2; trial.threads >= 1; trial.threads /= 2) {
        if (static_cast<double>(workspace_of(trial)) > budget) continue;
        p.notes.push_back("route " + std::string(to_string(fastest_route)) + " runs on " +
                          std::to_string(trial.threads) + " of the " + std::to_string(p.threads) +
                          " threads: its per-thread workspace on all of them exceeds the budget, "
                          "and the route within it was predicted at " +
                          passes_text(best_passes) + " passes against " +
                          passes_text(fastest_passes));
        p.threads = trial.threads;
        p.stages = std::move(trial.stages);
        p.chosen = fastest_route;
        return;
      }
    }
    p.notes.push_back("route " + std::string(to_string(fastest_route)) + " is predicted at " +
                      passes_text(fastest_passes) + " passes but needs more workspace than the " +
                      "budget (" + std::to_string(static_cast<long long>(budget)) +
                      " bytes); the route taken is predicted at " + passes_text(best_passes));
  }
  // No route within budget: on the CPU the one taken runs on fewer threads where that brings
  // its per-thread buffers within it (H200 host, 4999 x 3001 fp32, row_column: 1.0 MiB, 1.8 %
  // of the matrix, on 16 threads).
  if (!best_within && !gpu) {
    plan_data trial = p;
    for (trial.threads = p.threads / 2; trial.threads >= 1; trial.threads /= 2) {
      if (static_cast<double>(workspace_of(trial)) > budget) continue;
      p.notes.push_back("route " + std::string(to_string(p.chosen)) + " runs on " +
                        std::to_string(trial.threads) + " of the " + std::to_string(p.threads) +
                        " threads: no route fits the workspace budget on all of them");
      p.threads = trial.threads;
      return;
    }
  }
}

}  // namespace

double inplace_workspace_budget(const plan_data& p) {
  const double matrix_bytes = static_cast<double>(p.rows) * p.cols * p.desc.elem_size;
  return p.options.target == device::cuda ? gpu_workspace_budget_fraction * matrix_bytes +
                                                static_cast<double>(gpu_workspace_floor_bytes)
                                          : std::max(workspace_budget_fraction * matrix_bytes,
                                                     static_cast<double>(workspace_floor_bytes));
}

void plan_inplace_stages(plan_data& p, const workspace_function& workspace_of,
                         const stage_cost_function& cost_of) {
  const route forced = p.options.forced_route;
  const device target = p.options.target;
  if (is_copy_route(forced))
    cannot_apply(forced, "is out of place: use plan_copy, not plan_inplace");
  if (!runs_on(forced, target))
    cannot_apply(forced, target == device::cuda ? "runs on the CPU only, not on the GPU (cuda)"
                                                : "runs on the GPU only, not on the CPU");
  p.stages.clear();

  if (p.rows == 1 || p.cols == 1) {
    // A vector's transpose has the same bytes, whatever route was asked for.
    p.chosen = route::identity;
  } else if (p.rows == p.cols && (forced == route::automatic || is_square_route(forced))) {
    p.chosen = forced == route::automatic ? route::square_tile_swap : forced;
    p.stages.push_back(square_stage(p, p.chosen));
  } else if (is_square_route(forced)) {
    cannot_apply(forced, "needs a square matrix, got " + shape_text(p));
  } else if (forced == route::identity) {
    cannot_apply(forced, "applies only to a single row or column, got " + shape_text(p));
  } else if (forced != route::automatic) {
    if (p.ld != p.cols)
      cannot_apply(forced, "needs a dense matrix (ld " + std::to_string(p.ld) + " != cols " +
                               std::to_string(p.cols) + ")");
    p.stages = rectangular_stages(p, forced, cost_of);
    if (p.stages.empty())
      cannot_apply(forced, std::string(forced == route::skinny_chunks
                                           ? "needs one dimension of 2..64 and the other above 64"
                                           : "finds no usable tile factors") +
                               " for " + shape_text(p) + "; route row_column handles every shape");
    p.chosen = forced;
  } else {
    choose_rectangular_route(p, workspace_of, cost_of);
  }
  p.predicted_passes = total_passes(p.stages);
}

void plan_copy_stages(plan_data& p) {
  const route forced = p.options.forced_route;
  const device target = p.options.target;
  if (forced != route::automatic && !is_copy_route(forced))
    cannot_apply(forced, "is in place: use plan_inplace, not plan_copy");
  if (!runs_on(forced, target))
    cannot_apply(forced, target == device::cuda ? "runs on the CPU only, not on the GPU (cuda)"
                                                : "runs on the GPU only, not on the CPU");
  stage s;
  s.kind = stage_kind::copy_transpose;
  s.variant = forced != route::automatic
                  ? forced
                  : (target == device::cpu ? route::copy_blocked : route::copy_tuned);
  s.label = std::string(to_string(s.variant));
  s.batch = p.desc.batch;
  s.rows = p.rows;
  s.cols = p.cols;
  s.super_bytes = p.desc.elem_size;
  s.lda = p.ld;
  s.ldb = p.dst_ld;
  s.src_batch_stride = p.batch_stride;
  s.dst_batch_stride = p.dst_batch_stride;
  s.passes = 1.0;
  p.chosen = s.variant;
  p.stages = {s};
  p.predicted_passes = 1.0;
}

}  // namespace xpose::detail
