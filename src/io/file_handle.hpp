// POSIX files for the file commands: an owned descriptor with whole reads and writes at an
// offset (retried on EINTR and short counts), durability (fdatasync, the directory's fsync),
// and a shared memory map. Failures throw xpose::error{invalid_argument} for what the caller
// named wrongly (no such file, a directory) and {device_error} for I/O errors, with the path and
// the system's message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace xpose::detail::io {

class file_handle {
 public:
  enum class mode { read, read_write, create };

  file_handle() = default;
  /// Opens `path`; mode::create creates or truncates it (0644).
  file_handle(const std::string& path, mode how);
  ~file_handle();
  file_handle(file_handle&& other) noexcept;
  file_handle& operator=(file_handle&& other) noexcept;
  file_handle(const file_handle&) = delete;
  file_handle& operator=(const file_handle&) = delete;

  bool is_open() const noexcept { return fd_ >= 0; }
  int fd() const noexcept { return fd_; }
  const std::string& path() const noexcept { return path_; }

  std::uint64_t size() const;
  void read_at(void* buffer, std::size_t bytes, std::uint64_t offset) const;
  void write_at(const void* buffer, std::size_t bytes, std::uint64_t offset) const;
  void resize(std::uint64_t bytes) const;
  /// Makes written data durable (fdatasync).
  void sync() const;
  /// The file's device and inode, to tell two names of one file apart from two files.
  std::pair<std::uint64_t, std::uint64_t> identity() const;

 private:
  int fd_ = -1;
  std::string path_;
};

/// Whether `path` names an existing file (of any kind).
bool file_exists(const std::string& path);
/// Removes `path` (no error when it does not exist).
void remove_file(const std::string& path);
/// Renames `from` to `to` atomically (same file system).
void rename_file(const std::string& from, const std::string& to);
/// Makes the directory entry changes of `path`'s directory durable (fsync of the directory).
void sync_directory_of(const std::string& path);
/// Bytes of physical memory, and the address-space limit (RLIMIT_AS, or 0 when none).
std::uint64_t physical_memory_bytes();
std::uint64_t address_space_limit_bytes();

/// A shared, writable memory map of a whole file, unmapped (after msync) on destruction.
class mapped_file {
 public:
  mapped_file(const file_handle& file, std::uint64_t bytes);
  ~mapped_file();
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;

  std::byte* data() const noexcept { return static_cast<std::byte*>(address_); }
  /// Writes the dirty pages back and waits for them (msync MS_SYNC).
  void sync() const;

 private:
  void* address_ = nullptr;
  std::uint64_t bytes_ = 0;
  std::string path_;
};

}  // namespace xpose::detail::io
