// The NumPy .npy format (format versions 1.0, 2.0 and 3.0): the magic string, the version, the
// header length and a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': ...}
// padded with spaces to a multiple of 64 bytes, then the array's bytes. Reading parses the dict
// (descr as a type string or a structured list, for the element size); writing keeps the
// header's total length, so that the data does not move.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xpose::detail::io {

/// "\x93NUMPY": the first six bytes of every .npy file.
inline constexpr std::string_view npy_magic{"\x93NUMPY", 6};
/// What an in-place run writes over npy_magic while the data is between layouts, so that
/// NumPy (and xpose) refuse to read the file as an array until the run completes.
inline constexpr std::string_view npy_busy_magic{"\x93XPOSE", 6};

struct npy_header {
  int major = 1, minor = 0;
  std::size_t header_bytes = 0;  ///< magic + version + length field + dict: the data's offset
  std::string descr;             ///< the descr value as written (a literal: '<f4' or [...])
  std::size_t elem_size = 0;     ///< bytes per element, from descr
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

/// Bytes to read from the start of a file to be sure of having the whole header of a
/// version-1 file; later versions say their length in the first 12 bytes.
inline constexpr std::size_t npy_prefix_bytes = 12;

/// Whether `prefix` starts with npy_magic / npy_busy_magic.
bool has_npy_magic(std::string_view prefix);
bool has_busy_magic(std::string_view prefix);

/// The header's total length from the first npy_prefix_bytes bytes; throws
/// xpose::error{invalid_argument} naming `name` when they are not a .npy prefix.
std::size_t npy_header_length(std::string_view prefix, const std::string& name);

/// Parses a whole header (`bytes` holds at least its header_bytes); throws
/// xpose::error{invalid_argument} naming `name` and what is wrong (object dtypes, a malformed
/// dict, an unknown type string).
npy_header parse_npy_header(std::string_view bytes, const std::string& name);

/// The header for `descr`, `fortran_order` and `shape` at format version major.minor, padded
/// with spaces to exactly `total_bytes`; throws xpose::error{unsupported} when it does not fit.
std::string format_npy_header(const std::string& descr, bool fortran_order,
                              const std::vector<std::int64_t>& shape, int major, int minor,
                              std::size_t total_bytes);

/// A new header of the usual length (a multiple of 64 bytes, numpy's own padding) for a new file.
std::string make_npy_header(const std::string& descr, bool fortran_order,
                            const std::vector<std::int64_t>& shape);

/// Bytes per element of a dtype literal: a type string ('<f4', '|u1', '<U8', 'V12', '<M8[ns]')
/// or a structured list ([('x', '<f4'), ('y', '<i2', (3,))]). Throws xpose::error
/// {invalid_argument} for object dtypes and text it cannot read.
std::size_t dtype_size(std::string_view descr_literal);

/// The element size of a type string given on the command line ('f4', '<f8', 'u1', 'c16',
/// 'float32', 'complex64', 'int16', 'bool', ...).
std::size_t dtype_name_size(std::string_view name);

/// "(3, 4)" for {3, 4}: the shape as numpy writes it.
std::string shape_text(const std::vector<std::int64_t>& shape);

}  // namespace xpose::detail::io
