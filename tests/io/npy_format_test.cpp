// .npy headers: headers as numpy writes them (versions 1.0, 2.0, 3.0), the element size of every
// kind of dtype numpy saves (type strings, structured, sub-arrays, nested), rewriting at the same
// length, and malformed headers refused with a message that says what is wrong.
#include <gtest/gtest.h>

#include <string>

#include "io/npy_format.hpp"
#include "xpose/error.hpp"

namespace xpose::test {
namespace {

using detail::io::dtype_name_size;
using detail::io::dtype_size;
using detail::io::format_npy_header;
using detail::io::make_npy_header;
using detail::io::parse_npy_header;

/// A version 1.0 header around `dict`, padded as numpy pads it (to 64 bytes, '\n' last).
std::string numpy_header(const std::string& dict, int major = 1) {
  const std::size_t field = major == 1 ? 2 : 4;
  std::string body = dict;
  const std::size_t unpadded = 8 + field + body.size() + 1;
  body.append((64 - unpadded % 64) % 64, ' ');
  body += '\n';
  std::string h("\x93NUMPY", 6);
  h += static_cast<char>(major);
  h += '\0';
  for (std::size_t i = 0; i < field; ++i) h += static_cast<char>((body.size() >> (8 * i)) & 0xff);
  return h + body;
}

TEST(NpyFormat, ParsesHeadersAsNumpyWritesThem) {
  const std::string h = numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }");
  const auto parsed = parse_npy_header(h, "a.npy");
  EXPECT_EQ(parsed.header_bytes, h.size());
  EXPECT_EQ(parsed.header_bytes % 64, 0u);
  EXPECT_EQ(parsed.descr, "'<f4'");
  EXPECT_EQ(parsed.elem_size, 4u);
  EXPECT_FALSE(parsed.fortran_order);
  EXPECT_EQ(parsed.shape, (std::vector<std::int64_t>{3, 4}));

  const std::string v2 = numpy_header(
      "{'descr': [('x', '<f8'), ('y', '<i2', (3,))], 'fortran_order': True, 'shape': (70000, 2), }",
      2);
  const auto structured = parse_npy_header(v2, "b.npy");
  EXPECT_EQ(structured.major, 2);
  EXPECT_EQ(structured.elem_size, 14u);
  EXPECT_TRUE(structured.fortran_order);
  EXPECT_EQ(structured.shape, (std::vector<std::int64_t>{70000, 2}));

  const auto v3 = parse_npy_header(
      numpy_header("{\"descr\": \"<U2\", \"shape\": (5,), \"fortran_order\": False}", 3), "c.npy");
  EXPECT_EQ(v3.elem_size, 8u);
  EXPECT_EQ(v3.shape, (std::vector<std::int64_t>{5}));
}

TEST(NpyFormat, ElementSizeOfEveryKindOfDtype) {
  EXPECT_EQ(dtype_size("'|b1'"), 1u);
  EXPECT_EQ(dtype_size("'|i1'"), 1u);
  EXPECT_EQ(dtype_size("'|u1'"), 1u);
  EXPECT_EQ(dtype_size("'<i2'"), 2u);
  EXPECT_EQ(dtype_size("'<f2'"), 2u);
  EXPECT_EQ(dtype_size("'>u4'"), 4u);
  EXPECT_EQ(dtype_size("'<f4'"), 4u);
  EXPECT_EQ(dtype_size("'<f8'"), 8u);
  EXPECT_EQ(dtype_size("'<c8'"), 8u);
  EXPECT_EQ(dtype_size("'<c16'"), 16u);
  EXPECT_EQ(dtype_size("'<f16'"), 16u);
  EXPECT_EQ(dtype_size("'<c32'"), 32u);
  EXPECT_EQ(dtype_size("'<M8[ns]'"), 8u);
  EXPECT_EQ(dtype_size("'<m8[D]'"), 8u);
  EXPECT_EQ(dtype_size("'|S5'"), 5u);
  EXPECT_EQ(dtype_size("'<U3'"), 12u);
  EXPECT_EQ(dtype_size("'|V12'"), 12u);
  EXPECT_EQ(dtype_size("[('x', '<f4'), ('y', '<f4'), ('z', '<f4')]"), 12u);
  EXPECT_EQ(dtype_size("[('a', '<i2', (3,)), ('b', '|u1', (2, 2))]"), 10u);
  EXPECT_EQ(dtype_size("[('p', [('x', '<f8'), ('y', '<f8')]), ('id', '<i4')]"), 20u);
  EXPECT_EQ(dtype_size("[(('title', 'name'), '<f4'), ('', '|V4')]"), 8u);
  EXPECT_THROW(dtype_size("'|O'"), error);
  EXPECT_THROW(dtype_size("'<q7'"), error);
  EXPECT_THROW(dtype_size("[('x',)]"), error);
}

TEST(NpyFormat, ElementSizeOfCommandLineNames) {
  EXPECT_EQ(dtype_name_size("f4"), 4u);
  EXPECT_EQ(dtype_name_size("<f8"), 8u);
  EXPECT_EQ(dtype_name_size("u1"), 1u);
  EXPECT_EQ(dtype_name_size("c16"), 16u);
  EXPECT_EQ(dtype_name_size("V24"), 24u);
  EXPECT_EQ(dtype_name_size("float32"), 4u);
  EXPECT_EQ(dtype_name_size("complex64"), 8u);
  EXPECT_EQ(dtype_name_size("int16"), 2u);
  EXPECT_EQ(dtype_name_size("bool"), 1u);
  EXPECT_THROW(dtype_name_size("float33"), error);
  EXPECT_THROW(dtype_name_size("O"), error);
  EXPECT_THROW(dtype_name_size(""), error);
}

TEST(NpyFormat, RewritesAtTheSameLength) {
  const std::string h =
      numpy_header("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 40000), }");
  const std::string rewritten = format_npy_header("'<f4'", false, {40000, 3}, 1, 0, h.size());
  ASSERT_EQ(rewritten.size(), h.size());
  EXPECT_EQ(rewritten.back(), '\n');
  const auto parsed = parse_npy_header(rewritten, "r.npy");
  EXPECT_FALSE(parsed.fortran_order);
  EXPECT_EQ(parsed.shape, (std::vector<std::int64_t>{40000, 3}));
  EXPECT_EQ(parsed.header_bytes, h.size());
  // No room: refused, not truncated.
  EXPECT_THROW(format_npy_header("'<f4'", false, {1, 2}, 1, 0, 32), error);

  const std::string made = make_npy_header("'<c16'", false, {123456789, 7});
  EXPECT_EQ(made.size() % 64, 0u);
  EXPECT_EQ(parse_npy_header(made, "m.npy").shape, (std::vector<std::int64_t>{123456789, 7}));
}

TEST(NpyFormat, RefusesMalformedHeadersNamingTheProblem) {
  const auto refused = [](const std::string& bytes, const std::string& expected) {
    try {
      parse_npy_header(bytes, "bad.npy");
      ADD_FAILURE() << "accepted: " << bytes;
    } catch (const error& e) {
      EXPECT_EQ(e.code(), status::invalid_argument);
      const std::string what = e.what();
      EXPECT_NE(what.find("bad.npy"), std::string::npos) << what;
      EXPECT_NE(what.find(expected), std::string::npos) << what;
    }
  };
  refused("not a numpy file at all", "magic");
  refused(std::string("\x93NUMPY\x09\x00\x10\x00", 10), "version");
  refused(numpy_header("{'descr': '<f4', 'shape': (3, 4), }"), "lacks");
  refused(numpy_header("{'descr': '<f4', 'fortran_order': 0, 'shape': (3, 4), }"), "fortran_order");
  refused(numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, -4), }"), "shape");
  refused(numpy_header("{'descr': '|O', 'fortran_order': False, 'shape': (3, 4), }"), "object");
  refused(numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'x': 1}"),
          "unknown header key");
  refused(numpy_header("['descr']"), "not a dict");
  refused(numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)"), "literal");
  std::string truncated = numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }");
  refused(truncated.substr(0, 40), "ends inside its header");
}

}  // namespace
}  // namespace xpose::test
