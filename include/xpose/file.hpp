// Matrices in files: NumPy .npy files and raw binary files transposed in place (the file holds
// the transpose afterwards) or into a new file, with memory bounded by a budget whatever the
// file's size, and, in place, crash safe through a journal next to the file. docs/files.md
// describes the routes, the journal and the limits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "xpose/plan.hpp"

namespace xpose {

enum class file_format {
  automatic,  ///< .npy when the file starts with numpy's magic string, raw otherwise
  npy,
  raw,  ///< a dense row-major rows x cols matrix of elem_size-byte elements, nothing else
};

/// The matrix a file holds.
struct file_matrix {
  file_format format = file_format::raw;
  std::int64_t rows = 0, cols = 0;  ///< the array's shape (for a Fortran-order .npy, too)
  std::size_t elem_size = 0;
  bool fortran_order = false;     ///< .npy: column-major data
  std::uint64_t data_offset = 0;  ///< .npy: the header's length
  std::string dtype;              ///< .npy: the descr literal ('<f4', [('x', '<f8'), ...])
};

struct file_options {
  file_format format = file_format::automatic;
  /// Raw files: the matrix (all three required); .npy files: must be 0 or agree with the file.
  std::int64_t rows = 0, cols = 0;
  std::size_t elem_size = 0;
  /// In place: keep a journal so that an interrupted run (a crash, kill -9, power loss) is
  /// completed by the next call on the same file. Off: faster (no second write of every byte,
  /// no syncs), and an interrupted run leaves the file unreadable (a .npy file's magic string
  /// says so) with its data lost.
  bool journal = true;
  /// Bytes of memory the transposition may use (buffers, plus the whole matrix when it is
  /// transposed in memory); 0: a quarter of physical memory, at most 4 GiB, within the
  /// address-space limit (ulimit -v) when one is set.
  std::uint64_t memory_budget = 0;
  /// .npy only: swap the shape and flip fortran_order, moving no data (a C-order R x C array
  /// becomes the Fortran-order C x R array with the same bytes: its transpose).
  bool flip_order_only = false;
  /// For the matrix transposed in memory (threads; host_via_gpu to let the GPU do it).
  plan_options plan;
  /// Called now and then with the bytes processed so far and the total (progress bars).
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

/// What a file transposition did.
struct file_report {
  file_matrix before, after;
  /// "metadata" (shape and order flag only), "identity" (a vector: header only),
  /// "in memory" (mapped, one in-place plan), "blocked" (steps, io/block_plan.hpp), "copy".
  std::string method;
  std::string details;   ///< the plan or blocked route, in words
  bool resumed = false;  ///< an interrupted run was completed instead of a new one started
  std::uint64_t memory_budget = 0;
};

/// The matrix in `path` (format detection, .npy header parsing, raw checks against the size).
file_matrix inspect_file(const std::string& path, const file_options& options = {});

/// Transposes the matrix in `path` in place: a rows x cols matrix becomes cols x rows (a .npy
/// header's shape is rewritten; its order flag is kept). When `path` has a journal from an
/// interrupted run, that run is completed instead (report.resumed) and nothing else is done.
/// Every argument is checked before the file is touched; on an error the file is as it was,
/// or, after an I/O error in a journaled run, resumable.
file_report transpose_file_inplace(const std::string& path, const file_options& options = {});

/// Writes the transpose of the matrix in `src` to `dst` (created or replaced; written under a
/// temporary name and renamed when complete, so `dst` never holds a partial result).
file_report transpose_file(const std::string& src, const std::string& dst,
                           const file_options& options = {});

/// Completes an interrupted in-place transposition of `path` from its journal; false (nothing
/// done) when there is none.
bool recover_file(const std::string& path, const file_options& options = {});

/// The journal an in-place transposition of `path` keeps while it runs.
std::string journal_path(const std::string& path);

}  // namespace xpose
