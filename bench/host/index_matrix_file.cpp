// Writes and checks large .npy files for the file-transposition check on the device machine
// (scripts/device_host_check.sh), which may have no NumPy: an R x C matrix of little-endian
// uint64 whose element (i, j) holds i * C + j. `check` streams the file in bounded memory and
// verifies that it is the C x R transpose (header shape and every element).
//   usage: xpose_index_matrix_file write FILE R C
//          xpose_index_matrix_file check FILE R C      (R, C of the matrix before transposing)
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr std::size_t block_elements = std::size_t{1} << 20;  // 8 MiB reads and writes

std::string npy_header(std::uint64_t rows, std::uint64_t cols) {
  std::string dict = "{'descr': '<u8', 'fortran_order': False, 'shape': (" + std::to_string(rows) +
                     ", " + std::to_string(cols) + "), }";
  // Magic, version 1.0, a 2-byte length; the whole header padded to 64 bytes, ending in '\n'.
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string header("\x93NUMPY\x01\x00", 8);
  header.push_back(static_cast<char>(dict.size() & 0xff));
  header.push_back(static_cast<char>(dict.size() >> 8));
  return header + dict;
}

int write_file(const char* path, std::uint64_t R, std::uint64_t C) {
  std::FILE* f = std::fopen(path, "wb");
  if (f == nullptr) return std::perror(path), 1;
  const std::string header = npy_header(R, C);
  std::fwrite(header.data(), 1, header.size(), f);
  std::vector<std::uint64_t> block(block_elements);
  const std::uint64_t total = R * C;
  for (std::uint64_t at = 0; at < total; at += block_elements) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(block_elements, total - at));
    for (std::size_t k = 0; k < n; ++k) block[k] = at + k;
    if (std::fwrite(block.data(), 8, n, f) != n) return std::perror(path), 1;
  }
  return std::fclose(f) == 0 ? 0 : 1;
}

int check_file(const char* path, std::uint64_t R, std::uint64_t C) {
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return std::perror(path), 1;
  char prefix[10];
  if (std::fread(prefix, 1, 10, f) != 10 || std::memcmp(prefix, "\x93NUMPY", 6) != 0) {
    std::fprintf(stderr, "%s: not a .npy file\n", path);
    return 1;
  }
  const std::size_t length = static_cast<unsigned char>(prefix[8]) |
                             (static_cast<std::size_t>(static_cast<unsigned char>(prefix[9])) << 8);
  std::string dict(length, '\0');
  if (std::fread(dict.data(), 1, length, f) != length) return 1;
  const std::string shape = "(" + std::to_string(C) + ", " + std::to_string(R) + ")";
  if (dict.find(shape) == std::string::npos ||
      dict.find("'fortran_order': False") == std::string::npos) {
    std::fprintf(stderr, "%s: header %s is not a C-order %s\n", path, dict.c_str(), shape.c_str());
    return 1;
  }
  // Element (j, i) of the C x R result holds i * C + j.
  std::vector<std::uint64_t> block(block_elements);
  const std::uint64_t total = R * C;
  std::uint64_t wrong = 0, first_wrong = total;
  for (std::uint64_t at = 0; at < total; at += block_elements) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(block_elements, total - at));
    if (std::fread(block.data(), 8, n, f) != n) {
      std::fprintf(stderr, "%s: short file\n", path);
      return 1;
    }
    std::uint64_t j = (at / R), i = at % R;
    for (std::size_t k = 0; k < n; ++k) {
      if (block[k] != i * C + j) {
        if (wrong++ == 0) first_wrong = at + k;
      }
      if (++i == R) i = 0, ++j;
    }
  }
  std::fclose(f);
  if (wrong != 0) {
    std::fprintf(stderr,
                 "%s: %" PRIu64 " of %" PRIu64 " elements wrong, the first at %" PRIu64 "\n", path,
                 wrong, total, first_wrong);
    return 1;
  }
  std::printf("%s: the %" PRIu64 " x %" PRIu64 " transpose, every element checked\n", path, C, R);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s write|check FILE ROWS COLS\n", argv[0]);
    return 2;
  }
  const std::uint64_t R = std::strtoull(argv[3], nullptr, 10);
  const std::uint64_t C = std::strtoull(argv[4], nullptr, 10);
  if (std::string(argv[1]) == "write") return write_file(argv[2], R, C);
  if (std::string(argv[1]) == "check") return check_file(argv[2], R, C);
  std::fprintf(stderr, "usage: %s write|check FILE ROWS COLS\n", argv[0]);
  return 2;
}
