// Host-side test data for `xpose bench`: uninitialized aligned buffers, random non-zero
// fills, the poison pattern, the reference transpose and the comparison with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace xpose_cli {

/// Bytes of a dense batch of `batch` rows x cols matrices of elem_size-byte elements; throws
/// std::overflow_error (the message says "overflows") when that does not fit in std::size_t.
std::size_t host_matrix_bytes(std::int64_t rows, std::int64_t cols, std::size_t elem_size,
                              std::int64_t batch = 1);

/// An uninitialized, 64-byte aligned host buffer (filled by its first user, in parallel).
class byte_buffer {
 public:
  byte_buffer() = default;
  explicit byte_buffer(std::size_t bytes);
  std::byte* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }

 private:
  struct aligned_delete {
    void operator()(std::byte* p) const noexcept;
  };
  std::unique_ptr<std::byte[], aligned_delete> data_;
  std::size_t size_ = 0;
};

/// Fills `count` elements of `elem_size` bytes with random, non-zero values, reproducibly from
/// `seed`. 4- and 8-byte elements are finite floats / doubles in (-2, -1] U [1, 2), so that
/// BLAS peers (which multiply by alpha = 1) return the same bits; other sizes get random bytes
/// in 1..255. No element is ever all zero bytes, the poison pattern.
void fill_random(std::byte* data, std::int64_t count, std::size_t elem_size, std::uint64_t seed);

/// Writes the poison pattern (all zero bytes) so that an element left unwritten is caught.
void poison(std::byte* data, std::size_t bytes, int threads);

/// The reference: out-of-place transpose of each of the `batch` dense row-major rows x cols
/// matrices of `src` into `dst` (cols x rows each), element by element (copied in 32 x 32
/// blocks, threads over the block rows of all the matrices).
void reference_transpose(const std::byte* src, std::byte* dst, std::int64_t rows, std::int64_t cols,
                         std::size_t elem_size, std::int64_t batch = 1);

/// Copies `bytes` with `threads` threads, each copying one contiguous chunk with std::memcpy.
void parallel_memcpy(std::byte* dst, const std::byte* src, std::size_t bytes, int threads);

/// Compares `result` (`batch` cols x rows matrices after the transposition) with `expected`.
/// Returns "" when equal, otherwise a message naming the first wrong element: its (row, col) in
/// the result and, in a batch, its matrix.
std::string compare_with_reference(const std::byte* result, const std::byte* expected,
                                   std::int64_t rows, std::int64_t cols, std::size_t elem_size,
                                   std::int64_t batch = 1);

}  // namespace xpose_cli

namespace xpose_cli {

/// A case's pristine input and its reference transpose.
struct reference_pair {
  std::int64_t rows = 0, cols = 0;
  std::size_t elem_size = 0;
  std::int64_t batch = 0;
  byte_buffer input;
  byte_buffer expected;
};

/// Before each timed run of a case: in place, copies the pristine input into `target` (the
/// matrix); out of place, poisons `target` (the destination).
void prepare_run(std::byte* target, bool in_place, const reference_pair& reference, int threads);

/// After each run: "" when `result` equals the reference transpose, else the first wrong element.
std::string check_run(const std::byte* result, const reference_pair& reference);

/// Keeps the reference of the last shape asked for: consecutive cases of one shape, element
/// size and batch share it, so it is computed once per shape. Throws std::overflow_error if the
/// batch's bytes overflow, std::bad_alloc if the host cannot hold them.
class reference_cache {
 public:
  const reference_pair& get(std::int64_t rows, std::int64_t cols, std::size_t elem_size,
                            std::int64_t batch = 1);

 private:
  reference_pair current_;
};

}  // namespace xpose_cli
