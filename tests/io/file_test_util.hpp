// Helpers of the file tests: a temporary directory removed afterwards, .npy files written and
// read back, whole-file reads.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "io/npy_format.hpp"

namespace xpose::test {

/// A fresh directory under $TMPDIR (or /tmp), removed with its files on destruction.
class temp_directory {
 public:
  temp_directory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/xpose-io-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (::mkdtemp(name.data()) != nullptr) path_ = name.data();
    EXPECT_FALSE(path_.empty()) << "cannot create a temporary directory";
  }
  ~temp_directory() {
    if (!path_.empty()) std::system(("rm -rf '" + path_ + "'").c_str());
  }
  temp_directory(const temp_directory&) = delete;
  temp_directory& operator=(const temp_directory&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::vector<unsigned char> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

inline void write_file_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

/// Writes a .npy file of `descr` with the given shape and data (as numpy.save lays it out).
inline void write_npy(const std::string& path, const std::string& descr, bool fortran_order,
                      const std::vector<std::int64_t>& shape,
                      const std::vector<unsigned char>& data) {
  const std::string header = detail::io::make_npy_header(descr, fortran_order, shape);
  std::vector<unsigned char> bytes(header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  write_file_bytes(path, bytes);
}

/// A .npy file's parsed header and its data.
struct npy_contents {
  detail::io::npy_header header;
  std::vector<unsigned char> data;
};

inline npy_contents read_npy(const std::string& path) {
  const std::vector<unsigned char> bytes = read_file_bytes(path);
  npy_contents c;
  const std::string_view view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  c.header = detail::io::parse_npy_header(view, path);
  c.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(c.header.header_bytes), bytes.end());
  return c;
}

}  // namespace xpose::test
