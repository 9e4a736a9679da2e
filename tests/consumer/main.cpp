// Transposes a 3 x 5 matrix through the installed library and checks it.
#include <xpose/xpose.hpp>

#include <cstdio>
#include <vector>

int main() {
  const int rows = 3, cols = 5;
  std::vector<int> a(rows * cols);
  for (int i = 0; i < rows * cols; ++i) a[i] = i;
  xpose::transpose_inplace(a.data(), rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      if (a[j * rows + i] != i * cols + j) {
        std::printf("consumer: wrong element at (%d, %d)\n", j, i);
        return 1;
      }
  std::printf("consumer: ok\n");
  return 0;
}
