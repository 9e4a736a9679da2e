// Run-time element size to compile-time size for the CPU kernels: sizes 1, 2, 4, 8 and 16 bytes
// (those with register blocks and fixed-size copies) each get their own instantiation of the
// body; every other size runs the body instantiated for size 0, which reads the size at run time.
// Assumes: the body accepts std::integral_constant<std::size_t, N> for N in {0, 1, 2, 4, 8, 16}
// and returns the same type for all of them.
#pragma once

#include <cstddef>
#include <type_traits>

namespace xpose::detail::cpu {

/// Compile-time element size handed to the body; 0 stands for "any other size".
template <std::size_t N>
using element_size = std::integral_constant<std::size_t, N>;

/// Calls body(element_size<bytes>{}) when bytes is 1, 2, 4, 8 or 16, else body(element_size<0>{}).
template <class Body>
decltype(auto) dispatch_element_size(std::size_t bytes, Body&& body) {
  switch (bytes) {
    case 1:
      return body(element_size<1>{});
    case 2:
      return body(element_size<2>{});
    case 4:
      return body(element_size<4>{});
    case 8:
      return body(element_size<8>{});
    case 16:
      return body(element_size<16>{});
    default:
      return body(element_size<0>{});
  }
}

}  // namespace xpose::detail::cpu
