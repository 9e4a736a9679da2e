// Wisdom: a process-wide map from wisdom_key to route, and its text form: a header line, then
// one "KEY<TAB>ROUTE" line per entry (fields of KEY separated by '|').
#include "api/wisdom.hpp"

#include <map>
#include <mutex>
#include <sstream>

#include "xpose/error.hpp"
#include "xpose/plan.hpp"

#ifdef XPOSE_HAVE_CUDA
#include "cuda/backend/cuda_backend.hpp"
#endif

namespace xpose {

namespace detail {
namespace {

constexpr const char* header = "# xpose wisdom 1";

std::mutex& wisdom_lock() {
  static std::mutex lock;
  return lock;
}

std::map<std::string, route>& wisdom() {
  static std::map<std::string, route> entries;
  return entries;
}

}  // namespace

std::string wisdom_key(const plan_data& p) {
  std::ostringstream key;
  if (p.options.target == device::cpu) {
    key << "cpu|threads " << p.threads;
  } else {
#ifdef XPOSE_HAVE_CUDA
    key << "cuda|" << cuda::device_name();
#else
    key << "cuda|none";
#endif
  }
  const matrix_desc& d = p.desc;
  key << '|' << d.rows << 'x' << d.cols << "|elem " << d.elem_size << '|'
      << (d.order == storage_order::row_major ? "row_major" : "column_major") << "|ld " << p.ld
      << "|batch " << d.batch << "|stride " << p.batch_stride;
  return key.str();
}

std::optional<route> wisdom_route(const std::string& key) {
  const std::lock_guard<std::mutex> guard(wisdom_lock());
  const auto found = wisdom().find(key);
  if (found == wisdom().end()) return std::nullopt;
  return found->second;
}

bool have_wisdom() {
  const std::lock_guard<std::mutex> guard(wisdom_lock());
  return !wisdom().empty();
}

void record_wisdom(const std::string& key, route r) {
  const std::lock_guard<std::mutex> guard(wisdom_lock());
  wisdom()[key] = r;
}

}  // namespace detail

std::string export_wisdom() {
  const std::lock_guard<std::mutex> guard(detail::wisdom_lock());
  std::string text = std::string(detail::header) + "\n";
  for (const auto& [key, r] : detail::wisdom())
    text += key + "\t" + std::string(to_string(r)) + "\n";
  return text;
}

void import_wisdom(const std::string& text) {
  std::map<std::string, route> read;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // files written on Windows
    if (line.empty() || line[0] == '#') continue;
    const std::size_t tab = line.rfind('\t');
    const std::optional<route> r =
        tab == std::string::npos ? std::nullopt : route_from_string(line.substr(tab + 1));
    if (tab == 0 || !r)
      throw error(status::invalid_argument, "wisdom line " + std::to_string(number) +
                                                " is not KEY<TAB>ROUTE with a known route: '" +
                                                line + "'");
    read[line.substr(0, tab)] = *r;
  }
  const std::lock_guard<std::mutex> guard(detail::wisdom_lock());
  for (const auto& [key, r] : read) detail::wisdom()[key] = r;
}

void forget_wisdom() {
  const std::lock_guard<std::mutex> guard(detail::wisdom_lock());
  detail::wisdom().clear();
}

}  // namespace xpose
