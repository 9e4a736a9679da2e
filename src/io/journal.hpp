// The journal of an in-place file transposition: a small file next to the target (the target's
// name + ".xpose-journal") that makes a run crash safe. It records what is transposed and how
// (the blocked plan's route, factor and step size, so that the same plan is rebuilt), the
// .npy header before and after, the last step whose result is durable in the file ("committed"),
// and a redo record: the result of the step in flight, written and synced before the step
// touches the file. An interrupted run is completed by the next one: it redoes the recorded step
// when the record is whole and belongs to the step after the committed one (a torn record means
// the file was not touched yet), then runs the remaining steps.
//
// Layout (little-endian): a 64 KiB header block (fields, both .npy headers, a hash), two 4 KiB
// commit blocks written alternately (a torn one leaves the other), a 4 KiB record head and the
// record's payload (at most one step's bytes). The journal appears whole or not at all: it is
// written under a temporary name, synced, and renamed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "io/block_plan.hpp"
#include "io/file_handle.hpp"

namespace xpose::detail::io {

/// What a journal records about its run.
struct journal_header {
  std::uint64_t file_size = 0;    ///< the target's size (checked before resuming)
  std::uint64_t data_offset = 0;  ///< where the matrix starts (the .npy header's length)
  std::int64_t rows = 0, cols = 0;
  std::uint64_t elem_size = 0;
  block_route route = block_route::identity;
  std::int64_t factor = 0;
  std::uint64_t step_bytes = 0;
  std::string original_header;  ///< .npy: the target's first data_offset bytes before the run
  std::string final_header;     ///< .npy: what they are after it ("" for raw files)
};

/// Largest .npy header a journal holds (original and final each).
inline constexpr std::size_t journal_max_npy_header = 30 * 1024;

/// The journal's path for a target.
std::string journal_path_for(const std::string& target);

/// 64-bit hash of `bytes` (not cryptographic: it tells a whole record from a torn one).
std::uint64_t hash_bytes(const void* data, std::size_t bytes);

class journal {
 public:
  /// Writes a new journal for `target` (committed: none) and makes it durable.
  static journal create(const std::string& target, const journal_header& header);
  /// The journal of `target` when one exists; throws xpose::error{invalid_argument} when the
  /// file is there but not a journal this version can read.
  static std::optional<journal> open(const std::string& target);

  const journal_header& header() const noexcept { return header_; }
  const std::string& path() const noexcept { return file_.path(); }
  /// The last step whose result is durable in the target; -1 when none.
  std::int64_t committed() const noexcept { return committed_; }

  /// Writes the result of `step` (`bytes` bytes) as the redo record and syncs it.
  void write_record(std::int64_t step, const std::byte* payload, std::size_t bytes);
  /// Reads the redo record into `payload` when it is whole, belongs to `step` and holds `bytes`
  /// bytes; false otherwise.
  bool read_record(std::int64_t step, std::byte* payload, std::size_t bytes) const;
  /// Records that `step`'s result is durable in the target, and syncs.
  void commit(std::int64_t step);
  /// Deletes the journal (the run is complete) and syncs the directory.
  void remove();

 private:
  journal(file_handle file, journal_header header, std::int64_t committed);

  file_handle file_;
  journal_header header_;
  std::int64_t committed_ = -1;
};

}  // namespace xpose::detail::io
