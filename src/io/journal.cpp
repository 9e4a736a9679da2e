#include "io/journal.hpp"

#include <omp.h>

#include <cstring>
#include <vector>

#include "xpose/error.hpp"

namespace xpose::detail::io {

namespace {

constexpr std::size_t header_block = 64 * 1024;
constexpr std::size_t commit_block = 4096;
constexpr std::uint64_t commit_offset = header_block;  // two blocks
constexpr std::uint64_t record_offset = header_block + 2 * commit_block;
constexpr std::uint64_t payload_offset = record_offset + 4096;

constexpr char header_magic[8] = {'X', 'P', 'O', 'S', 'E', 'J', 'N', '1'};
constexpr char commit_magic[8] = {'X', 'P', 'O', 'S', 'E', 'C', 'M', 'T'};
constexpr char record_magic[8] = {'X', 'P', 'O', 'S', 'E', 'R', 'E', 'C'};
constexpr std::uint32_t format_version = 1;

/// Field writer / reader over a byte buffer, little-endian (the host's order on x86-64 and
/// AArch64, which is what memcpy gives).
class fields {
 public:
  explicit fields(std::vector<char>& bytes) : bytes_(bytes) {}
  template <class T>
  void put(T value) {
    std::memcpy(bytes_.data() + at_, &value, sizeof value);
    at_ += sizeof value;
  }
  void put_bytes(const std::string& text) {
    std::memcpy(bytes_.data() + at_, text.data(), text.size());
    at_ += text.size();
  }
  template <class T>
  T get() {
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::string get_bytes(std::size_t count) {
    std::string text(bytes_.data() + at_, count);
    at_ += count;
    return text;
  }
  std::size_t at() const { return at_; }

 private:
  std::vector<char>& bytes_;
  std::size_t at_ = 0;
};

std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

std::uint64_t hash_chunk(const unsigned char* data, std::size_t bytes, std::uint64_t seed) {
  std::uint64_t lanes[4] = {seed ^ 0x9e3779b97f4a7c15ULL, seed + 1, seed + 2, seed + 3};
  std::size_t i = 0;
  for (; i + 32 <= bytes; i += 32)
    for (int l = 0; l < 4; ++l) {
      std::uint64_t word;
      std::memcpy(&word, data + i + 8 * l, 8);
      lanes[l] = (lanes[l] ^ word) * 0x9e3779b97f4a7c15ULL;
      lanes[l] = (lanes[l] << 31) | (lanes[l] >> 33);
    }
  std::uint64_t h = mix(lanes[0]) ^ mix(lanes[1] + 1) ^ mix(lanes[2] + 2) ^ mix(lanes[3] + 3);
  for (; i < bytes; ++i) h = mix(h ^ data[i]);
  return mix(h ^ bytes);
}

std::string_view as_view(const char (&magic)[8]) {
  return std::string_view(magic, 8);
}

}  // namespace

std::string journal_path_for(const std::string& target) {
  return target + ".xpose-journal";
}

std::uint64_t hash_bytes(const void* data, std::size_t bytes) {
  constexpr std::size_t chunk = 1 << 20;
  const auto* in = static_cast<const unsigned char*>(data);
  if (bytes <= chunk) return hash_chunk(in, bytes, 0);
  const std::size_t chunks = (bytes + chunk - 1) / chunk;
  std::vector<std::uint64_t> parts(chunks);
#pragma omp parallel for schedule(static)
  for (std::size_t c = 0; c < chunks; ++c)
    parts[c] = hash_chunk(in + c * chunk, std::min(chunk, bytes - c * chunk), c);
  return hash_chunk(reinterpret_cast<const unsigned char*>(parts.data()), chunks * 8, bytes);
}

journal::journal(file_handle file, journal_header header, std::int64_t committed)
    : file_(std::move(file)), header_(std::move(header)), committed_(committed) {}

journal journal::create(const std::string& target, const journal_header& h) {
  if (h.original_header.size() > journal_max_npy_header ||
      h.final_header.size() > journal_max_npy_header)
    throw error(status::unsupported, target + ": its .npy header is over " +
                                         std::to_string(journal_max_npy_header) +
                                         " bytes, more than the journal holds");
  std::vector<char> block(header_block, 0);
  fields out(block);
  for (char c : header_magic) out.put(c);
  out.put(format_version);
  out.put(static_cast<std::uint32_t>(0));
  out.put(h.file_size);
  out.put(h.data_offset);
  out.put(h.rows);
  out.put(h.cols);
  out.put(h.elem_size);
  out.put(static_cast<std::uint32_t>(h.route));
  out.put(static_cast<std::uint32_t>(0));
  out.put(h.factor);
  out.put(h.step_bytes);
  out.put(static_cast<std::uint64_t>(h.original_header.size()));
  out.put(static_cast<std::uint64_t>(h.final_header.size()));
  out.put_bytes(h.original_header);
  out.put_bytes(h.final_header);
  const std::uint64_t hash = hash_bytes(block.data(), header_block - 8);
  std::memcpy(block.data() + header_block - 8, &hash, 8);

  const std::string path = journal_path_for(target);
  const std::string temporary = path + ".new";
  {
    file_handle file(temporary, file_handle::mode::create);
    file.write_at(block.data(), block.size(), 0);
    std::vector<char> commits(2 * commit_block, 0);  // no valid commit block: committed = -1
    file.write_at(commits.data(), commits.size(), commit_offset);
    file.sync();
  }
  rename_file(temporary, path);
  sync_directory_of(path);
  return journal(file_handle(path, file_handle::mode::read_write), h, -1);
}

std::optional<journal> journal::open(const std::string& target) {
  const std::string path = journal_path_for(target);
  if (!file_exists(path)) return std::nullopt;
  file_handle file(path, file_handle::mode::read_write);
  const auto unreadable = [&](const std::string& why) {
    return error(status::invalid_argument,
                 path + " is not a journal this xpose can read (" + why +
                     "); the transposition it belongs to cannot be resumed: restore " + target +
                     " from a copy, then delete the journal");
  };
  if (file.size() < record_offset) throw unreadable("too short");
  std::vector<char> block(header_block);
  file.read_at(block.data(), block.size(), 0);
  std::uint64_t stored_hash;
  std::memcpy(&stored_hash, block.data() + header_block - 8, 8);
  if (std::string_view(block.data(), 8) != as_view(header_magic)) throw unreadable("no magic");
  if (hash_bytes(block.data(), header_block - 8) != stored_hash) throw unreadable("bad hash");
  fields in(block);
  in.get_bytes(8);
  if (in.get<std::uint32_t>() != format_version) throw unreadable("another format version");
  in.get<std::uint32_t>();
  journal_header h;
  h.file_size = in.get<std::uint64_t>();
  h.data_offset = in.get<std::uint64_t>();
  h.rows = in.get<std::int64_t>();
  h.cols = in.get<std::int64_t>();
  h.elem_size = in.get<std::uint64_t>();
  h.route = static_cast<block_route>(in.get<std::uint32_t>());
  in.get<std::uint32_t>();
  h.factor = in.get<std::int64_t>();
  h.step_bytes = in.get<std::uint64_t>();
  const auto original_bytes = in.get<std::uint64_t>();
  const auto final_bytes = in.get<std::uint64_t>();
  if (original_bytes > journal_max_npy_header || final_bytes > journal_max_npy_header)
    throw unreadable("bad header lengths");
  h.original_header = in.get_bytes(original_bytes);
  h.final_header = in.get_bytes(final_bytes);

  std::int64_t committed = -1;
  for (int b = 0; b < 2; ++b) {
    char commit[24];
    file.read_at(commit, sizeof commit, commit_offset + b * commit_block);
    std::int64_t step;
    std::uint64_t hash;
    std::memcpy(&step, commit + 8, 8);
    std::memcpy(&hash, commit + 16, 8);
    if (std::string_view(commit, 8) == as_view(commit_magic) && hash_bytes(commit, 16) == hash &&
        step > committed)
      committed = step;
  }
  return journal(std::move(file), std::move(h), committed);
}

void journal::write_record(std::int64_t step, const std::byte* payload, std::size_t bytes) {
  char head[40];
  std::memcpy(head, record_magic, 8);
  const auto size = static_cast<std::uint64_t>(bytes);
  const std::uint64_t payload_hash = hash_bytes(payload, bytes);
  std::memcpy(head + 8, &step, 8);
  std::memcpy(head + 16, &size, 8);
  std::memcpy(head + 24, &payload_hash, 8);
  const std::uint64_t head_hash = hash_bytes(head, 32);
  std::memcpy(head + 32, &head_hash, 8);
  file_.write_at(payload, bytes, payload_offset);
  file_.write_at(head, sizeof head, record_offset);
  file_.sync();
}

bool journal::read_record(std::int64_t step, std::byte* payload, std::size_t bytes) const {
  if (file_.size() < payload_offset + bytes) return false;
  char head[40];
  file_.read_at(head, sizeof head, record_offset);
  std::int64_t recorded_step;
  std::uint64_t size, payload_hash, head_hash;
  std::memcpy(&recorded_step, head + 8, 8);
  std::memcpy(&size, head + 16, 8);
  std::memcpy(&payload_hash, head + 24, 8);
  std::memcpy(&head_hash, head + 32, 8);
  if (std::string_view(head, 8) != as_view(record_magic) || hash_bytes(head, 32) != head_hash ||
      recorded_step != step || size != bytes)
    return false;
  file_.read_at(payload, bytes, payload_offset);
  return hash_bytes(payload, bytes) == payload_hash;
}

void journal::commit(std::int64_t step) {
  char block[24];
  std::memcpy(block, commit_magic, 8);
  std::memcpy(block + 8, &step, 8);
  const std::uint64_t hash = hash_bytes(block, 16);
  std::memcpy(block + 16, &hash, 8);
  // Alternate blocks: a torn write of one leaves the other, one step behind.
  file_.write_at(block, sizeof block,
                 commit_offset + static_cast<std::uint64_t>(step & 1) * commit_block);
  file_.sync();
  committed_ = step;
}

void journal::remove() {
  const std::string path = file_.path();
  file_ = file_handle();
  remove_file(path);
  sync_directory_of(path);
}

}  // namespace xpose::detail::io
