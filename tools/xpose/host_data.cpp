#include "host_data.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace xpose_cli {

namespace {

constexpr std::size_t buffer_alignment = 64;

/// splitmix64: a counter-based generator, so every chunk can be filled independently.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void fill_element(std::byte* element, std::size_t elem_size, std::uint64_t seed,
                  std::int64_t index) {
  const std::uint64_t bits = splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(index)));
  if (elem_size == 4) {  // float: sign and 23 mantissa bits random, exponent 0 -> |x| in [1, 2)
    const auto word = static_cast<std::uint32_t>((bits & 0x807fffffull) | 0x3f800000ull);
    std::memcpy(element, &word, 4);
  } else if (elem_size == 8) {  // double: sign and 52 mantissa bits random, |x| in [1, 2)
    const std::uint64_t word = (bits & 0x800fffffffffffffull) | 0x3ff0000000000000ull;
    std::memcpy(element, &word, 8);
  } else {
    std::uint64_t stream = bits;
    for (std::size_t b = 0; b < elem_size; ++b) {
      if (b % 8 == 0 && b > 0) stream = splitmix64(stream);
      const auto value = static_cast<unsigned char>(stream >> (8 * (b % 8)));
      element[b] = static_cast<std::byte>(value == 0 ? 1 : value);
    }
  }
}

}  // namespace

std::size_t host_matrix_bytes(std::int64_t rows, std::int64_t cols, std::size_t elem_size,
                              std::int64_t batch) {
  std::size_t elements = 0, matrices = 0, bytes = 0;
  if (rows < 0 || cols < 0 || batch < 0 ||
      __builtin_mul_overflow(static_cast<std::size_t>(rows), static_cast<std::size_t>(cols),
                             &elements) ||
      __builtin_mul_overflow(elements, static_cast<std::size_t>(batch), &matrices) ||
      __builtin_mul_overflow(matrices, elem_size, &bytes))
    throw std::overflow_error(
        (batch == 1 ? "a " : "a batch of " + std::to_string(batch) + " ") + std::to_string(rows) +
        "x" + std::to_string(cols) + (batch == 1 ? " matrix of " : " matrices of ") +
        std::to_string(elem_size) + "-byte elements overflows the host's address space");
  return bytes;
}

byte_buffer::byte_buffer(std::size_t bytes)
    : data_(static_cast<std::byte*>(
          ::operator new[](std::max<std::size_t>(bytes, 1), std::align_val_t{buffer_alignment}))),
      size_(bytes) {}

void byte_buffer::aligned_delete::operator()(std::byte* p) const noexcept {
  ::operator delete[](p, std::align_val_t{buffer_alignment});
}

void fill_random(std::byte* data, std::int64_t count, std::size_t elem_size, std::uint64_t seed) {
  const auto elem = static_cast<std::int64_t>(elem_size);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) fill_element(data + i * elem, elem_size, seed, i);
}

void poison(std::byte* data, std::size_t bytes, int threads) {
  const std::size_t chunk = (bytes + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const std::size_t begin = std::min(bytes, static_cast<std::size_t>(t) * chunk);
    const std::size_t end = std::min(bytes, begin + chunk);
    std::memset(data + begin, 0, end - begin);
  }
}

void reference_transpose(const std::byte* src, std::byte* dst, std::int64_t rows, std::int64_t cols,
                         std::size_t elem_size, std::int64_t batch) {
  constexpr std::int64_t block = 32;
  const auto elem = static_cast<std::int64_t>(elem_size);
  const std::int64_t block_rows = (rows + block - 1) / block;
  // One task per block row of one matrix: a few of a large matrix, many of small ones; guided
  // scheduling balances both.
#pragma omp parallel for schedule(guided)
  for (std::int64_t task = 0; task < batch * block_rows; ++task) {
    const std::int64_t matrix = task / block_rows;
    const std::int64_t i0 = (task % block_rows) * block;
    const std::byte* const a = src + matrix * rows * cols * elem;
    std::byte* const b = dst + matrix * rows * cols * elem;
    for (std::int64_t j0 = 0; j0 < cols; j0 += block)
      for (std::int64_t i = i0; i < std::min(rows, i0 + block); ++i)
        for (std::int64_t j = j0; j < std::min(cols, j0 + block); ++j)
          std::memcpy(b + (j * rows + i) * elem, a + (i * cols + j) * elem, elem_size);
  }
}

void parallel_memcpy(std::byte* dst, const std::byte* src, std::size_t bytes, int threads) {
  const std::size_t chunk = (bytes + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const std::size_t begin = std::min(bytes, static_cast<std::size_t>(t) * chunk);
    const std::size_t end = std::min(bytes, begin + chunk);
    std::memcpy(dst + begin, src + begin, end - begin);
  }
}

std::string compare_with_reference(const std::byte* result, const std::byte* expected,
                                   std::int64_t rows, std::int64_t cols, std::size_t elem_size,
                                   std::int64_t batch) {
  const std::size_t bytes = host_matrix_bytes(rows, cols, elem_size, batch);
  constexpr std::size_t chunk = std::size_t{1} << 24;
  const auto chunks = static_cast<std::int64_t>((bytes + chunk - 1) / chunk);
  std::int64_t first_bad_chunk = chunks;
#pragma omp parallel for schedule(static) reduction(min : first_bad_chunk)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t begin = static_cast<std::size_t>(c) * chunk;
    const std::size_t length = std::min(chunk, bytes - begin);
    if (std::memcmp(result + begin, expected + begin, length) != 0)
      first_bad_chunk = std::min(first_bad_chunk, c);
  }
  if (first_bad_chunk == chunks) return "";
  std::size_t byte = static_cast<std::size_t>(first_bad_chunk) * chunk;
  while (result[byte] == expected[byte]) ++byte;
  const auto index = static_cast<std::int64_t>(byte / elem_size);
  const std::int64_t matrix = index / (rows * cols), element = index % (rows * cols);
  // Each result is cols x rows: element e sits at (e / rows, e % rows) and came from (e % rows,
  // e / rows) of the input.
  return "wrong element at (" + std::to_string(element / rows) + ", " +
         std::to_string(element % rows) + ") of the " + std::to_string(cols) + "x" +
         std::to_string(rows) + " result" +
         (batch == 1 ? std::string()
                     : " " + std::to_string(matrix) + " of " + std::to_string(batch));
}

void prepare_run(std::byte* target, bool in_place, const reference_pair& reference, int threads) {
  const std::size_t bytes = reference.input.size();
  if (in_place)
    parallel_memcpy(target, reference.input.data(), bytes, threads);
  else
    poison(target, bytes, threads);
}

std::string check_run(const std::byte* result, const reference_pair& reference) {
  return compare_with_reference(result, reference.expected.data(), reference.rows, reference.cols,
                                reference.elem_size, reference.batch);
}

const reference_pair& reference_cache::get(std::int64_t rows, std::int64_t cols,
                                           std::size_t elem_size, std::int64_t batch) {
  if (current_.rows == rows && current_.cols == cols && current_.elem_size == elem_size &&
      current_.batch == batch)
    return current_;
  const std::size_t bytes = host_matrix_bytes(rows, cols, elem_size, batch);
  current_ = reference_pair{};  // release the previous shape's buffers first
  current_.input = byte_buffer(bytes);
  current_.expected = byte_buffer(bytes);
  const std::uint64_t seed = splitmix64(static_cast<std::uint64_t>(rows) * 1000003u +
                                        static_cast<std::uint64_t>(cols) * 31u + elem_size) ^
                             static_cast<std::uint64_t>(batch - 1);
  fill_random(current_.input.data(), batch * rows * cols, elem_size, seed);
  reference_transpose(current_.input.data(), current_.expected.data(), rows, cols, elem_size,
                      batch);
  current_.rows = rows;
  current_.cols = cols;
  current_.elem_size = elem_size;
  current_.batch = batch;
  return current_;
}

}  // namespace xpose_cli
