// A byte count as describe() texts print it: "512 B", "3.1 MiB", "1.5 GiB".
#pragma once

#include <cstdio>
#include <string>

namespace xpose::detail {

inline std::string bytes_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
}

}  // namespace xpose::detail
