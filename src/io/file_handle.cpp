#include "io/file_handle.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "xpose/error.hpp"

namespace xpose::detail::io {

namespace {

[[noreturn]] void fail(status code, const std::string& what, const std::string& path) {
  throw error(code, what + " " + path + ": " + std::strerror(errno));
}

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

file_handle::file_handle(const std::string& path, mode how) : path_(path) {
  const int flags = how == mode::read
                        ? O_RDONLY
                        : (how == mode::read_write ? O_RDWR : O_RDWR | O_CREAT | O_TRUNC);
  fd_ = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const bool caller = errno == ENOENT || errno == EISDIR || errno == EACCES || errno == EROFS ||
                        errno == ENOTDIR || errno == EPERM;
    fail(caller ? status::invalid_argument : status::device_error, "cannot open", path);
  }
  struct stat info {};
  if (::fstat(fd_, &info) != 0) fail(status::device_error, "cannot stat", path);
  if (!S_ISREG(info.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw error(status::invalid_argument, path + " is not a regular file");
  }
}

file_handle::~file_handle() {
  if (fd_ >= 0) ::close(fd_);
}

file_handle::file_handle(file_handle&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

file_handle& file_handle::operator=(file_handle&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

std::uint64_t file_handle::size() const {
  struct stat info {};
  if (::fstat(fd_, &info) != 0) fail(status::device_error, "cannot stat", path_);
  return static_cast<std::uint64_t>(info.st_size);
}

std::pair<std::uint64_t, std::uint64_t> file_handle::identity() const {
  struct stat info {};
  if (::fstat(fd_, &info) != 0) fail(status::device_error, "cannot stat", path_);
  return {static_cast<std::uint64_t>(info.st_dev), static_cast<std::uint64_t>(info.st_ino)};
}

void file_handle::read_at(void* buffer, std::size_t bytes, std::uint64_t offset) const {
  auto* out = static_cast<char*>(buffer);
  while (bytes > 0) {
    const ssize_t got = ::pread(fd_, out, bytes, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail(status::device_error, "cannot read", path_);
    }
    if (got == 0)
      throw error(status::invalid_argument, path_ + " ends at byte " + std::to_string(offset) +
                                                ", before the data it should hold");
    out += got;
    bytes -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
}

void file_handle::write_at(const void* buffer, std::size_t bytes, std::uint64_t offset) const {
  const auto* in = static_cast<const char*>(buffer);
  while (bytes > 0) {
    const ssize_t put = ::pwrite(fd_, in, bytes, static_cast<off_t>(offset));
    if (put < 0) {
      if (errno == EINTR) continue;
      fail(status::device_error, "cannot write", path_);
    }
    in += put;
    bytes -= static_cast<std::size_t>(put);
    offset += static_cast<std::uint64_t>(put);
  }
}

void file_handle::resize(std::uint64_t bytes) const {
  if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0)
    fail(status::device_error, "cannot resize", path_);
}

void file_handle::sync() const {
  if (::fdatasync(fd_) != 0) fail(status::device_error, "cannot sync", path_);
}

bool file_exists(const std::string& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0;
}

void remove_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    fail(status::device_error, "cannot remove", path);
}

void rename_file(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    fail(status::device_error, "cannot rename " + from + " to", to);
}

void sync_directory_of(const std::string& path) {
  const std::string directory = directory_of(path);
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail(status::device_error, "cannot open directory", directory);
  const int result = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  // Some file systems do not sync directories (EINVAL); their entries are as durable as they get.
  if (result != 0 && errno != EINVAL)
    fail(status::device_error, "cannot sync directory", directory);
}

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

std::uint64_t address_space_limit_bytes() {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 0;
  return static_cast<std::uint64_t>(limit.rlim_cur);
}

mapped_file::mapped_file(const file_handle& file, std::uint64_t bytes)
    : bytes_(bytes), path_(file.path()) {
  if (bytes == 0) return;
  // Populated up front: faulting 4 KiB pages in one by one costs more than the transposition.
  address_ =
      ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, file.fd(), 0);
  if (address_ == MAP_FAILED) {
    address_ = nullptr;
    fail(errno == ENOMEM ? status::out_of_memory : status::device_error, "cannot map", path_);
  }
}

mapped_file::~mapped_file() {
  if (address_ != nullptr) ::munmap(address_, bytes_);
}

void mapped_file::sync() const {
  if (address_ != nullptr && ::msync(address_, bytes_, MS_SYNC) != 0)
    fail(status::device_error, "cannot write back", path_);
}

}  // namespace xpose::detail::io
