// Data layouts of arrays of structures and their in-place conversions (Sung, Liu, Hwu, "DL: A Data
// Layout Transformation System for Heterogeneous Computing", sec. 4-5). An array of n structures
// of S fields of e bytes each is stored as one of:
//  - aos:  (n, S)      field f of structure i at element i * S + f;
//  - soa:  (S, n)      the discrete arrays, field f of structure i at f * n + i;
//  - asta: (n/T, S, T) Array of Structures of Tiled Arrays with tile (coarsening factor) T: T
//          consecutive structures form a mini SoA (sec. 4.1). When T does not divide n the last
//          r = n mod T structures form a partial tile, a mini SoA (S, r) after the full tiles.
// Views (aos_view, soa_view, asta_view) hide the index arithmetic on the host and in CUDA kernels:
// a kernel changes layout by changing a type. Conversions run in place, as one or two elementary
// tiled transpositions of the in-place transposition stages, or as a full in-place transposition
// (docs/layouts.md lists every route). layout_buffer is the marshaling runtime of sec. 5.2: a
// buffer that knows its current layout and converts only when asked for another one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "xpose/error.hpp"
#include "xpose/plan.hpp"

#if defined(__CUDACC__)
#define XPOSE_HOST_DEVICE __host__ __device__
#else
#define XPOSE_HOST_DEVICE
#endif

namespace xpose {

enum class layout_kind { aos, soa, asta };

/// A layout: its kind and, for asta, the tile T (structures per tile, >= 1).
struct layout {
  layout_kind kind = layout_kind::aos;
  std::int64_t tile = 0;  ///< asta only; 0 for aos and soa

  static constexpr layout aos() { return {layout_kind::aos, 0}; }
  static constexpr layout soa() { return {layout_kind::soa, 0}; }
  static constexpr layout asta(std::int64_t t) { return {layout_kind::asta, t}; }
  friend constexpr bool operator==(layout a, layout b) {
    return a.kind == b.kind && (a.kind != layout_kind::asta || a.tile == b.tile);
  }
  friend constexpr bool operator!=(layout a, layout b) { return !(a == b); }
};

/// "aos", "soa", "asta(32)".
std::string to_string(layout l);

/// Which GPU kernel runs the tiled transpositions of a conversion (DL sec. 4.2-4.4). `automatic`
/// is the tiled transposition's own choice; the others force one path on every tiled step, so
/// that the paper's variants can be measured against each other:
///  - barrier_sync: a tile loaded on chip, a barrier, the tile written back transposed (sec. 4.2;
///    the tiled transposition's on-chip path). Tiles of up to 96 KiB of shared memory.
///  - pttwac: cycle following in global memory with a claim state per element or tile
///    (Parallel-Tile-Transpose-Within-and-Across-Cycles, sec. 4.3-4.4). Any size.
///  - chains: the cycles listed at plan time and cut into chains of equal length, each moved by
///    one group of threads with its loads in flight (the automatic choice for soa <-> asta).
///    Instances of up to 2^28 tiles or fields.
///  - through_scratch: whole instances transposed out of place into a scratch of at most 24 MiB
///    and copied back.
///  - pipt: the paper's P-IPT (sec. 4.3, its Figure 7): the chains' kernel with no cycle cut, one
///    group of threads per whole cycle, so that long cycles leave the other groups idle. Kept to
///    measure that contrast with PTTWAC and the chains. Instances of up to 2^28 tiles or fields.
/// A forced variant applies to conversions made of tiled transpositions only (aos <-> asta,
/// asta <-> asta, soa <-> asta when T divides n) on a CUDA target; plan_layout_conversion refuses
/// the others with status::unsupported.
enum class layout_variant { automatic, barrier_sync, pttwac, chains, through_scratch, pipt };

/// "automatic", "barrier_sync", "pttwac", "chains", "through_scratch", "pipt".
std::string_view to_string(layout_variant v);
/// The variant of that name (to_string's), or nothing.
std::optional<layout_variant> layout_variant_from_string(std::string_view name);

/// An array of `structs` structures of `fields` fields of `field_bytes` bytes (1..max_elem_size).
/// A structure of B bytes whose fields differ in size is described as B / w fields of w bytes
/// for a w dividing every field's size and offset.
struct struct_array_desc {
  std::int64_t structs = 0;
  std::int64_t fields = 0;
  std::size_t field_bytes = 0;
};

/// Element index of field f of structure i in layout l for an array of n structures of S fields.
XPOSE_HOST_DEVICE inline std::int64_t layout_index(layout_kind kind, std::int64_t tile,
                                                   std::int64_t n, std::int64_t S, std::int64_t i,
                                                   std::int64_t f) {
  if (kind == layout_kind::aos) return i * S + f;
  if (kind == layout_kind::soa) return f * n + i;
  const std::int64_t full = n / tile * tile;  // structures in full tiles
  if (i < full) return (i / tile) * S * tile + f * tile + i % tile;
  return full * S + f * (n - full) + (i - full);  // the partial tile, a mini SoA
}

/// Views: operator()(i, field) is a reference to field `field` of structure i. Value is the
/// field's type (sizeof(Value) is the field size), Fields the number of fields S.
template <class Value, int Fields>
struct aos_view {
  using value_type = Value;
  static constexpr int fields = Fields;
  static constexpr layout layout_of() { return layout::aos(); }
  Value* data = nullptr;
  std::int64_t structs = 0;
  XPOSE_HOST_DEVICE Value& operator()(std::int64_t i, int field) const {
    return data[i * Fields + field];
  }
};

template <class Value, int Fields>
struct soa_view {
  using value_type = Value;
  static constexpr int fields = Fields;
  static constexpr layout layout_of() { return layout::soa(); }
  Value* data = nullptr;
  std::int64_t structs = 0;
  XPOSE_HOST_DEVICE Value& operator()(std::int64_t i, int field) const {
    return data[field * structs + i];
  }
};

template <class Value, int Fields, int Tile>
struct asta_view {
  static_assert(Tile >= 1, "the ASTA tile must be at least 1");
  using value_type = Value;
  static constexpr int fields = Fields;
  static constexpr int tile = Tile;
  static constexpr layout layout_of() { return layout::asta(Tile); }
  Value* data = nullptr;
  std::int64_t structs = 0;
  XPOSE_HOST_DEVICE Value& operator()(std::int64_t i, int field) const {
    return data[layout_index(layout_kind::asta, Tile, structs, Fields, i, field)];
  }
};

namespace detail {
struct layout_conversion_data;
struct layout_buffer_state;
}  // namespace detail

/// A planned in-place conversion between two layouts: a list of steps (elementary tiled
/// transpositions, or a full in-place transposition plan), with their workspaces allocated at
/// plan time (GPU tables prepared then, synchronously). execute() enqueues the steps on the
/// options' stream without synchronizing (CPU target: runs them on the calling thread's OpenMP
/// team). Executions of one conversion share its workspace: run them one after another.
class layout_conversion {
 public:
  /// The route: each step, its shape, and the predicted passes over the array.
  std::string describe() const;
  void execute(void* data) const;
  layout from() const noexcept;
  layout to() const noexcept;
  const struct_array_desc& desc() const noexcept;
  /// Steps the route takes (0 when from == to or the conversion moves nothing).
  std::size_t steps() const noexcept;
  std::size_t workspace_bytes() const noexcept;
  /// Predicted passes over the array (1 = read and write every byte once).
  double predicted_passes() const noexcept;
  /// The variant the conversion was planned with.
  layout_variant variant() const noexcept;
  /// Step k (< steps()) in a few words: the stage's factorial name and, on the GPU, the kernel
  /// path it runs on ("010 on_chip", "100 chains", "full three_stage", "remainder split").
  std::string step_label(std::size_t k) const;

  explicit layout_conversion(std::shared_ptr<detail::layout_conversion_data> data);

 private:
  std::shared_ptr<detail::layout_conversion_data> data_;
};

/// Plans the conversion of `desc` from `from` to `to`. Throws xpose::error(invalid_argument) on
/// a bad description, layout or variant (the message names it), unsupported for a CUDA target in
/// a build without CUDA and for a forced variant the route or a step cannot take (the message
/// says which and why). Touches no data.
layout_conversion plan_layout_conversion(const struct_array_desc& desc, layout from, layout to,
                                         const plan_options& options = {},
                                         layout_variant variant = layout_variant::automatic);

/// One call: plans and executes (GPU: enqueued on options.stream; the planning allocates and
/// prepares synchronously). Every argument is checked before `data` is touched.
void convert_layout(void* data, layout from, layout to, std::int64_t structs, std::int64_t fields,
                    std::size_t field_bytes, const plan_options& options = {});

/// The marshaling runtime (DL sec. 5.2): memory of options.target (host memory for device::cpu,
/// device memory for device::cuda) holding an array of structures, its current layout, and the
/// host layout it is copied back in. view<View>(stream) converts in place only when the current
/// layout differs from the view's, through layout_conversion's cheapest route (AoS -> ASTA
/// directly), with conversion plans cached per (from, to, stream). Conversions are enqueued on
/// the given stream and never synchronize it; the buffer's layout is the one after all work
/// enqueued so far, so work on several streams must be ordered by the caller. Every buffer is
/// listed in a thread-safe registry (registered_layout); one buffer's calls are serialized by its
/// own lock.
class layout_buffer {
 public:
  /// Allocates the buffer (uninitialized) in `home` layout, the host's.
  layout_buffer(const struct_array_desc& desc, layout home, const plan_options& options = {});
  ~layout_buffer();
  layout_buffer(layout_buffer&&) noexcept;
  layout_buffer& operator=(layout_buffer&&) noexcept;
  layout_buffer(const layout_buffer&) = delete;
  layout_buffer& operator=(const layout_buffer&) = delete;

  const struct_array_desc& desc() const noexcept;
  layout current() const;
  layout home() const noexcept;
  std::size_t bytes() const noexcept;
  /// The buffer's memory (device memory for a CUDA target), in its current layout.
  void* data() const noexcept;

  /// Copies `bytes()` bytes from host memory in the home layout into the buffer (stream-ordered
  /// for a CUDA target; the host memory must stay valid until the copy is done).
  void copy_from_host(const void* host, void* stream = nullptr);
  /// Converts back to the home layout if needed, then copies the buffer into host memory
  /// (stream-ordered for a CUDA target: synchronize the stream before reading `host`).
  void copy_to_host(void* host, void* stream = nullptr);
  /// Converts in place to `target` unless it is the current layout.
  void convert_to(layout target, void* stream = nullptr);

  /// The buffer as View (aos_view, soa_view, asta_view), converted first if needed. Throws
  /// xpose::error(invalid_argument) when the view's field size or field count differs from the
  /// buffer's.
  template <class View>
  View view(void* stream = nullptr) {
    check_view(sizeof(typename View::value_type), View::fields);
    convert_to(View::layout_of(), stream);
    return View{static_cast<typename View::value_type*>(data()), desc().structs};
  }

 private:
  void check_view(std::size_t field_bytes, std::int64_t fields) const;
  std::shared_ptr<detail::layout_buffer_state> state_;
};

/// The current layout of the layout_buffer whose memory starts at `data`; throws
/// xpose::error(invalid_argument) when no live buffer starts there.
layout registered_layout(const void* data);

}  // namespace xpose
