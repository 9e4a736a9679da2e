// Files transposed in place and out of place: .npy files of every element size (1 to 1100 bytes,
// structured ones too), C and Fortran order, raw files, each method (in memory, blocked with and
// without the journal, metadata only), out of place, progress, and bad inputs refused with the
// file left byte for byte as it was.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "file_test_util.hpp"
#include "io/npy_format.hpp"
#include "test_util.hpp"
#include "xpose/error.hpp"
#include "xpose/file.hpp"

namespace xpose::test {
namespace {

bool exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

struct dtype_case {
  std::string descr;
  std::size_t bytes;
};

const std::vector<dtype_case>& dtypes() {
  static const std::vector<dtype_case> cases = {
      {"'|u1'", 1},     {"'<i2'", 2},       {"'|V3'", 3},
      {"'<f4'", 4},     {"'<f8'", 8},       {"[('x', '<f4'), ('y', '<f4'), ('z', '<f4')]", 12},
      {"'<c16'", 16},   {"'<U6'", 24},      {"'<c32'", 32},
      {"'|V100'", 100}, {"'|V1100'", 1100},  // above the planner's largest element: blocked route
                                             // only
  };
  return cases;
}

file_options with_budget(std::uint64_t budget, bool journal = true) {
  file_options o;
  o.memory_budget = budget;
  o.journal = journal;
  return o;
}

/// Writes a rows x cols .npy of random data, transposes it in place with `options` and checks the
/// header and the data; returns the report.
file_report check_npy_inplace(const temp_directory& dir, std::int64_t rows, std::int64_t cols,
                              const dtype_case& dtype, bool fortran, const file_options& options,
                              std::uint64_t seed) {
  const std::string path = dir.file("m.npy");
  const std::vector<unsigned char> data =
      random_bytes(static_cast<std::size_t>(rows * cols) * dtype.bytes, seed);
  write_npy(path, dtype.descr, fortran, {rows, cols}, data);
  const file_report report = transpose_file_inplace(path, options);
  const npy_contents after = read_npy(path);
  EXPECT_EQ(after.header.shape, (std::vector<std::int64_t>{cols, rows}));
  EXPECT_EQ(after.header.fortran_order, fortran);
  EXPECT_EQ(after.header.descr, dtype.descr);
  // The bytes are row-major rows x cols (C order) or cols x rows (Fortran order).
  const std::vector<unsigned char> expected =
      fortran ? reference_transpose(data, cols, rows, dtype.bytes)
              : reference_transpose(data, rows, cols, dtype.bytes);
  EXPECT_TRUE(after.data == expected) << rows << " x " << cols << " " << dtype.descr
                                      << (fortran ? " F" : " C") << ", " << report.method << "\n"
                                      << report.details;
  EXPECT_FALSE(exists(journal_path(path)));
  EXPECT_EQ(report.after.rows, cols);
  EXPECT_EQ(report.after.cols, rows);
  return report;
}

TEST(FileTranspose, NpyEveryElementSizeBlockedWithJournal) {
  temp_directory dir;
  std::uint64_t seed = 1;
  for (const dtype_case& d : dtypes()) {
    // A budget of about 8 rows: many steps; a row of 1100-byte elements needs 2 x 53 x 1100.
    const std::uint64_t budget = std::max<std::uint64_t>(16 * 53 * d.bytes, 16384);
    const file_report r = check_npy_inplace(dir, 37, 53, d, false, with_budget(budget), ++seed);
    EXPECT_EQ(r.method, "blocked");
  }
}

TEST(FileTranspose, NpyEveryElementSizeInMemory) {
  temp_directory dir;
  std::uint64_t seed = 100;
  for (const dtype_case& d : dtypes()) {
    const file_report r =
        check_npy_inplace(dir, 64, 48, d, false, with_budget(64 << 20, false), ++seed);
    EXPECT_EQ(r.method, d.bytes <= max_elem_size ? "in memory" : "blocked") << d.descr;
  }
}

TEST(FileTranspose, FortranOrderMovesTheDataAndKeepsTheFlag) {
  temp_directory dir;
  check_npy_inplace(dir, 30, 70, dtypes()[3], true, with_budget(8192), 7);
  check_npy_inplace(dir, 30, 70, dtypes()[4], true, with_budget(64 << 20, false), 8);
}

TEST(FileTranspose, BlockedRoutesOnLargerShapes) {
  temp_directory dir;
  std::uint64_t seed = 200;
  // Primes (row_column), good factors (rows_first / columns_first), tall, wide; budgets from a
  // few rows to the whole matrix.
  for (const auto& [rows, cols] :
       {std::pair<std::int64_t, std::int64_t>{211, 307}, {720, 180}, {3000, 24}, {24, 3000}})
    for (std::uint64_t budget :
         {std::uint64_t{64} << 10, std::uint64_t{512} << 10, std::uint64_t{16} << 20})
      for (bool journal : {true, false}) {
        const file_report r = check_npy_inplace(dir, rows, cols, dtypes()[3], false,
                                                with_budget(budget, journal), ++seed);
        if (journal) EXPECT_EQ(r.method, "blocked");
      }
}

TEST(FileTranspose, TwiceGivesTheOriginalBack) {
  temp_directory dir;
  const std::string path = dir.file("twice.npy");
  const std::vector<unsigned char> data = random_bytes(123 * 77 * 8, 3);
  write_npy(path, "'<f8'", false, {123, 77}, data);
  const std::vector<unsigned char> before = read_file_bytes(path);
  transpose_file_inplace(path, with_budget(32 << 10));
  transpose_file_inplace(path, with_budget(32 << 10));
  EXPECT_TRUE(read_file_bytes(path) == before);
}

TEST(FileTranspose, FlipOrderMovesNoData) {
  temp_directory dir;
  const std::string path = dir.file("flip.npy");
  const std::vector<unsigned char> data = random_bytes(20 * 30 * 4, 4);
  write_npy(path, "'<f4'", false, {20, 30}, data);
  file_options o;
  o.flip_order_only = true;
  const file_report r = transpose_file_inplace(path, o);
  EXPECT_EQ(r.method, "metadata");
  npy_contents after = read_npy(path);
  EXPECT_TRUE(after.header.fortran_order);
  EXPECT_EQ(after.header.shape, (std::vector<std::int64_t>{30, 20}));
  EXPECT_TRUE(after.data == data);
  transpose_file_inplace(path, o);  // and back
  after = read_npy(path);
  EXPECT_FALSE(after.header.fortran_order);
  EXPECT_EQ(after.header.shape, (std::vector<std::int64_t>{20, 30}));
  EXPECT_TRUE(after.data == data);

  const std::string raw = dir.file("flip.bin");
  write_file_bytes(raw, data);
  o.rows = 20;
  o.cols = 30;
  o.elem_size = 4;
  EXPECT_THROW(transpose_file_inplace(raw, o), error);
  EXPECT_TRUE(read_file_bytes(raw) == data);
}

TEST(FileTranspose, RawFiles) {
  temp_directory dir;
  const std::string path = dir.file("m.bin");
  std::uint64_t seed = 300;
  for (std::size_t e : {1, 2, 4, 8, 16, 12})
    for (std::uint64_t budget : {std::uint64_t{16} << 10, std::uint64_t{64} << 20})
      for (bool journal : {true, false}) {
        const std::vector<unsigned char> data = random_bytes(90 * 61 * e, ++seed);
        write_file_bytes(path, data);
        file_options o = with_budget(budget, journal);
        o.rows = 90;
        o.cols = 61;
        o.elem_size = e;
        const file_report r = transpose_file_inplace(path, o);
        EXPECT_EQ(r.before.format, file_format::raw);
        EXPECT_TRUE(read_file_bytes(path) == reference_transpose(data, 90, 61, e))
            << e << " bytes, budget " << budget << ", " << r.method;
        EXPECT_FALSE(exists(journal_path(path)));
      }
}

TEST(FileTranspose, VectorsAndEmptyArraysChangeOnlyTheHeader) {
  temp_directory dir;
  const std::string path = dir.file("v.npy");
  const std::vector<unsigned char> data = random_bytes(100 * 4, 5);
  write_npy(path, "'<f4'", false, {1, 100}, data);
  EXPECT_EQ(transpose_file_inplace(path).method, "identity");
  npy_contents after = read_npy(path);
  EXPECT_EQ(after.header.shape, (std::vector<std::int64_t>{100, 1}));
  EXPECT_TRUE(after.data == data);
  write_npy(path, "'<f4'", false, {0, 7}, {});
  transpose_file_inplace(path);
  EXPECT_EQ(read_npy(path).header.shape, (std::vector<std::int64_t>{7, 0}));
}

TEST(FileTranspose, OutOfPlace) {
  temp_directory dir;
  std::uint64_t seed = 400;
  for (const auto& [rows, cols] :
       {std::pair<std::int64_t, std::int64_t>{257, 129}, {1, 500}, {2000, 3}})
    for (std::uint64_t budget : {std::uint64_t{8} << 10, std::uint64_t{64} << 20})
      for (bool fortran : {false, true}) {
        const std::string src = dir.file("in.npy"), dst = dir.file("out.npy");
        const std::vector<unsigned char> data =
            random_bytes(static_cast<std::size_t>(rows * cols) * 8, ++seed);
        write_npy(src, "'<c8'", fortran, {rows, cols}, data);
        write_file_bytes(dst, {1, 2, 3});  // replaced
        const file_report r = transpose_file(src, dst, with_budget(budget));
        EXPECT_EQ(r.method, "copy");
        const npy_contents out = read_npy(dst);
        EXPECT_EQ(out.header.shape, (std::vector<std::int64_t>{cols, rows}));
        EXPECT_EQ(out.header.fortran_order, fortran);
        EXPECT_TRUE(out.data == (fortran ? reference_transpose(data, cols, rows, 8)
                                         : reference_transpose(data, rows, cols, 8)));
        EXPECT_TRUE(read_npy(src).data == data);  // the source is untouched
        EXPECT_FALSE(exists(dst + ".xpose-partial"));
      }
  // Raw, and flip-order as a copy with the new header.
  const std::string src = dir.file("in.bin"), dst = dir.file("out.bin");
  const std::vector<unsigned char> data = random_bytes(33 * 45 * 2, 9);
  write_file_bytes(src, data);
  file_options o;
  o.rows = 33;
  o.cols = 45;
  o.elem_size = 2;
  transpose_file(src, dst, o);
  EXPECT_TRUE(read_file_bytes(dst) == reference_transpose(data, 33, 45, 2));
  write_npy(dir.file("f.npy"), "'<i2'", false, {33, 45}, data);
  file_options flip;
  flip.flip_order_only = true;
  transpose_file(dir.file("f.npy"), dir.file("g.npy"), flip);
  const npy_contents g = read_npy(dir.file("g.npy"));
  EXPECT_TRUE(g.header.fortran_order);
  EXPECT_TRUE(g.data == data);
}

TEST(FileTranspose, ProgressReachesTheTotal) {
  temp_directory dir;
  const std::string path = dir.file("p.npy");
  write_npy(path, "'<f4'", false, {300, 200}, random_bytes(300 * 200 * 4, 6));
  file_options o = with_budget(32 << 10);
  std::uint64_t last = 0, total = 0, calls = 0;
  bool monotonic = true;
  o.progress = [&](std::uint64_t done, std::uint64_t all) {
    monotonic = monotonic && done >= last;
    last = done;
    total = all;
    ++calls;
  };
  transpose_file_inplace(path, o);
  EXPECT_TRUE(monotonic);
  EXPECT_GT(calls, 10u);
  EXPECT_EQ(last, total);
  EXPECT_GE(total, 2u * 300 * 200 * 4);  // at least two phases
}

/// Expects `call` to throw xpose::error with `code` and a message containing `text`, and `path`
/// to hold the same bytes afterwards, with no journal next to it.
template <class Call>
void expect_refused(const std::string& path, Call call, status code, const std::string& text) {
  const bool existed = exists(path);
  const std::vector<unsigned char> before =
      existed ? read_file_bytes(path) : std::vector<unsigned char>{};
  try {
    call();
    ADD_FAILURE() << "accepted; expected: " << text;
  } catch (const error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
  if (existed) EXPECT_TRUE(read_file_bytes(path) == before) << text;
  EXPECT_FALSE(exists(journal_path(path))) << text;
}

TEST(FileTranspose, BadInputsLeaveTheFileAsItWas) {
  temp_directory dir;
  const std::string npy = dir.file("a.npy");
  const auto fresh = [&] { write_npy(npy, "'<f4'", false, {10, 20}, random_bytes(800, 1)); };
  fresh();
  const std::string missing = dir.file("missing.npy");
  expect_refused(
      missing, [&] { transpose_file_inplace(missing); }, status::invalid_argument, "cannot open");
  try {
    transpose_file_inplace(dir.file(""));  // a directory
    ADD_FAILURE() << "a directory was accepted";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::invalid_argument) << e.what();
  }
  // A 3-D array.
  const std::string cube = dir.file("cube.npy");
  write_npy(cube, "'<f4'", false, {2, 3, 4}, random_bytes(96, 2));
  expect_refused(
      cube, [&] { transpose_file_inplace(cube); }, status::invalid_argument, "2-D arrays");
  // Data shorter and longer than the header says.
  const std::string short_file = dir.file("short.npy");
  write_npy(short_file, "'<f4'", false, {10, 20}, random_bytes(799, 3));
  expect_refused(
      short_file, [&] { transpose_file_inplace(short_file); }, status::invalid_argument, "needs");
  write_npy(short_file, "'<f4'", false, {10, 20}, random_bytes(804, 3));
  expect_refused(
      short_file, [&] { transpose_file(short_file, dir.file("o.npy")); }, status::invalid_argument,
      "needs");
  // Object arrays.
  const std::string objects = dir.file("objects.npy");
  write_npy(objects, "'|O'", false, {2, 2}, random_bytes(32, 4));
  expect_refused(
      objects, [&] { transpose_file_inplace(objects); }, status::invalid_argument, "object");
  // A raw file without its shape, with a shape that does not match its size.
  const std::string raw = dir.file("r.bin");
  write_file_bytes(raw, random_bytes(600, 5));
  expect_refused(
      raw, [&] { transpose_file_inplace(raw); }, status::invalid_argument, "raw file");
  file_options wrong;
  wrong.rows = 10;
  wrong.cols = 10;
  wrong.elem_size = 4;
  expect_refused(
      raw, [&] { transpose_file_inplace(raw, wrong); }, status::invalid_argument, "has 600 bytes");
  // A shape that disagrees with the .npy header; a GPU target for host data.
  expect_refused(
      npy, [&] { transpose_file_inplace(npy, wrong); }, status::invalid_argument, "not the shape");
  file_options gpu;
  gpu.plan.target = device::cuda;
  expect_refused(
      npy, [&] { transpose_file_inplace(npy, gpu); }, status::invalid_argument, "must be cpu");
  // A row larger than the memory budget allows.
  const std::string wide = dir.file("wide.npy");
  write_npy(wide, "'<f8'", false, {4, 100000}, random_bytes(3200000, 6));
  expect_refused(
      wide, [&] { transpose_file_inplace(wide, with_budget(64 << 10)); }, status::unsupported,
      "more memory");
  // Out of place onto itself.
  expect_refused(
      npy, [&] { transpose_file(npy, npy); }, status::invalid_argument, "same file");
  const std::string link = dir.file("link.npy");
  ASSERT_EQ(::link(npy.c_str(), link.c_str()), 0);
  expect_refused(
      npy, [&] { transpose_file(npy, link); }, status::invalid_argument, "another name");
}

TEST(FileTranspose, AFileLeftMidRunIsRefusedUntilCompleted) {
  temp_directory dir;
  const std::string path = dir.file("busy.npy");
  write_npy(path, "'<f4'", false, {10, 20}, random_bytes(800, 7));
  std::vector<unsigned char> bytes = read_file_bytes(path);
  std::copy(detail::io::npy_busy_magic.begin(), detail::io::npy_busy_magic.end(), bytes.begin());
  write_file_bytes(path, bytes);
  expect_refused(
      path, [&] { inspect_file(path); }, status::invalid_argument, "cannot be recovered");
  expect_refused(
      path, [&] { transpose_file_inplace(path); }, status::invalid_argument, "cannot be recovered");
  EXPECT_FALSE(recover_file(path));
}

TEST(FileTranspose, InspectDescribesTheMatrix) {
  temp_directory dir;
  const std::string path = dir.file("i.npy");
  write_npy(path, "'<c16'", true, {5, 9}, random_bytes(5 * 9 * 16, 8));
  const file_matrix m = inspect_file(path);
  EXPECT_EQ(m.format, file_format::npy);
  EXPECT_EQ(m.rows, 5);
  EXPECT_EQ(m.cols, 9);
  EXPECT_EQ(m.elem_size, 16u);
  EXPECT_TRUE(m.fortran_order);
  EXPECT_EQ(m.data_offset % 64, 0u);
  EXPECT_EQ(m.dtype, "'<c16'");
}

}  // namespace
}  // namespace xpose::test
