// Tuning policies of copy_tuned, square_tile_swap, copy_unaligned and copy_sectors, one per element
// size (copy_tuned: and a second for large matrices, copy_tuned_large), as data (CUB style): tile
// rows, tile width in bytes, threads per block. Chosen for the H100 (sm_90) from the sweeps of
// scripts/device_tune_policies.cu (ratios to a device-to-device copy, 2026-11-23; the large
// tiles from scratch programs built on it, 2026-11-24): tiles of 8-16 KiB (32 KiB for the 1-byte
// large ones) give each thread two to four 16-byte loads in flight; tile widths are whole
// 128-byte lines on both the read and the write side. Most candidates land within 0.02 of each
// other; 32-row 128-byte tiles for 4-byte elements (0.79-0.83) and 16-row ones for 8-byte
// elements (0.82-0.86) were clearly worse. The resident-block counts cap the registers at what
// the kernels used before the vector paths for tiles cut by the edges came in (without the cap
// ptxas doubled them, and aligned 8192 x 8192 fell from 0.94-0.96 to 0.74).
#pragma once

#include <cstdint>
#include <type_traits>

namespace xpose::detail::cuda {

template <int TILE_ROWS, int TILE_BYTES, int THREADS, int MIN_BLOCKS = 1>
struct tile_policy {
  static constexpr int tile_rows = TILE_ROWS;
  static constexpr int tile_bytes = TILE_BYTES;  ///< bytes of one tile row (source side)
  static constexpr int threads = THREADS;
  static constexpr int min_blocks = MIN_BLOCKS;  ///< resident blocks per SM asked of ptxas
};

/// Out of place: a tile is tile_rows x (tile_bytes / E) elements; its transpose writes rows of
/// tile_rows * E bytes.
template <int E>
struct copy_tuned_policy;
template <>
struct copy_tuned_policy<1> : tile_policy<128, 128, 256, 4> {};
template <>
struct copy_tuned_policy<2> : tile_policy<64, 128, 128, 7> {};
template <>
struct copy_tuned_policy<4> : tile_policy<64, 256, 256, 4> {};
template <>
struct copy_tuned_policy<8> : tile_policy<64, 256, 256, 4> {};
template <>
struct copy_tuned_policy<16> : tile_policy<32, 512, 256, 3> {};

/// copy_tuned_large<E>::policy is taken by matrices (each, not the batch) of at least
/// copy_tuned_large_bytes and copy_tuned_large_rows rows. On the H100 (2026-11-24, each
/// alternated with the policy above in one process, docs/performance.md), x copy, tiles walked
/// across (before tiles_walk_down):
/// - 1- and 2-byte elements: tiles of 256 and 128 rows, which write 256-byte runs of each
///   destination row instead of 128. 1-byte 16384^2 0.935-0.949 against 0.918-0.931, 24576^2
///   0.931-0.937 against 0.906-0.910, 8192 x 32768 0.938-0.945 against 0.912-0.921, 32768 x
///   8192 0.939-0.949 against 0.927-0.937; 2-byte 16384 x 8192 0.939-0.945 against 0.921-0.932.
/// - 8-byte elements had 32-row tiles (256-byte runs, four blocks of 256 threads per SM): 8192^2
///   0.974-0.975 against 0.964-0.966, 11584^2 0.958-0.964 against 0.951-0.954. They are gone:
///   on the H100 of the twenty-sixth session (2026-11-27, L2 evicted before each launch, two
///   rounds) they ran 0.916-0.933 against 0.960-0.971 for the standard tiles on 8192^2, 8208 x
///   8176, 11584^2, 16384 x 8192 and 8192 x 16384, behind cuBLAS dgeam (0.941-0.956), as on the
///   H200. The same 32 x 256-byte tiles with 128 threads (eight blocks per SM) ran level with
///   the standard ones, so the tile's shape is not what held them back; with 256 threads each
///   thread has two 16-byte loads in flight instead of four (the likely cause; not profiled
///   further).
/// Walking down (tenth session), the two were level or the large tiles up to 0.01 ahead on these
/// (1-byte 16384^2 0.929-0.946 against 0.936-0.943, 8192 x 32768 0.947-0.950 against
/// 0.940-0.948; 2-byte 16384 x 8192 0.937-0.943 against 0.931-0.939; 8-byte 8192^2 0.960-0.970
/// against 0.955-0.970), and tall ones, still walked across, keep the gain (1-byte 32768 x 8192
/// 0.940-0.956 against 0.928-0.931).
/// Other matrices keep the tiles above: from 128 to 144 MiB with many rows the two were level
/// or the large ones behind (1-byte 16384 x 8192, 12288^2, 16416 x 8192; 8-byte 4096^2; 2-byte
/// 8192^2 was 0.007 ahead), at 64 MiB and below the large ones behind (1-byte 4096^2 0.79-0.88
/// against 0.81-1.03). Walking down, matrices whose rows fit one large tile row also run faster
/// with the standard tiles (1-byte 160-224 rows 0.865-0.997 against 0.796-0.939, 2-byte 80, 96
/// rows 0.940-1.041 against 0.912-1.012, 64 and 512 MiB), except 1-byte 256 rows and 2-byte 112
/// rows at 512 MiB (0.935 against 0.951, 0.925 against 0.932; 2-byte 128 rows level), so the
/// rule that gave them the
/// large tiles (91d4428) is gone. For 4-byte elements 128 x 128-, 128 x 256-, 64 x 128- and 64 x
/// 512-byte tiles were level with the 64 x 256-byte ones; 64-byte tile rows are ruled out by the
/// swizzle (block/shared_tile_transpose.cuh).
constexpr std::int64_t copy_tuned_large_bytes = std::int64_t{1} << 28;
constexpr std::int64_t copy_tuned_large_rows = 8192;
/// Whether a matrix of rows x cols E-byte elements (each, not the batch) takes large tiles: at
/// least `least_bytes` (copy_tuned_large_bytes for copy_tuned_large, copy_unaligned_large_bytes
/// for copy_unaligned_large) and copy_tuned_large_rows rows.
constexpr bool takes_large_tiles(std::int64_t rows, std::int64_t cols, int e,
                                 std::int64_t least_bytes) {
  return rows >= copy_tuned_large_rows && rows * cols * e >= least_bytes;
}
template <int E>
struct copy_tuned_large {
  using policy = copy_tuned_policy<E>;
};
template <>
struct copy_tuned_large<1> {
  using policy = tile_policy<256, 128, 512, 2>;
};
template <>
struct copy_tuned_large<2> {
  using policy = tile_policy<128, 128, 256, 4>;
};

/// copy_tuned_whole<E>: the tiles of copy_transpose_whole_tiles_kernel, copy_tuned's lean kernel
/// for matrices made of whole tiles whose rows all start on 16 bytes (one tile per block, no
/// edge paths, 32-bit offsets: 22-32 registers against the standard kernel's 62, so that a
/// thread needs no more than full occupancy leaves it), taken on the H100's memory by 4- and
/// 8-byte matrices of at most `most_bytes` (the batch's) and `most_aspect` rows a
/// column (choose_tuned_tiles): tiles of 32 rows x 256 bytes, 256 threads, eight blocks per SM.
/// On the H100 (thirtieth session, docs/performance.md; harness, L2 evicted before each launch,
/// x copy), against the standard kernel's 64 x 256-byte tiles of 256 threads, four blocks per SM,
/// and cuBLAS geam:
/// - squares and 2:1 shapes: 4-byte 4096^2 0.934-0.968 (16 rounds in three runs, mean 0.950)
///   against 0.927-0.950 (mean 0.940) and sgeam's 0.937-0.964 (24 rounds, mean 0.951), 2048^2
///   0.922-0.936 against 0.887-0.898, 4096 x 8192 0.953-0.956 against 0.950-0.953; 8-byte 4096^2
///   0.964-0.968 against 0.959-0.961 (dgeam 0.951-0.958), 2048^2 0.961-0.968 against
///   0.952-0.962, 4096 x 8192 0.963-0.972 against 0.964-0.967 (these 8-byte rows with 512
///   threads and four blocks per SM, below).
/// - tall shapes of up to `most_aspect` rows a column, whose standard tiles walk
///   across (tiles_walk_down), with the whole tiles walked down (two runs): 4-byte 16384 x 2048
///   0.953-0.957 against 0.938-0.942, 8192 x 1024 0.934-0.951 against 0.926-0.935, 32768 x 1024
///   0.945-0.953 against 0.942-0.948, 8192 x 2048 level; 8-byte 8192 x 2048 0.959-0.963 against
///   0.948-0.955, 16384 x 2048 0.963-0.966 against 0.955-0.958. Walked across they ran level
///   with the standard tiles on these, and 0.01-0.02 behind walking down on squares. Taller
///   ones, of one or two strips, ran behind walking down: 4-byte 262144 x 128 0.927-0.930 against
///   0.936-0.940, 524288 x 64 0.917-0.920 against 0.920-0.923; 8-byte 1048576 x 32 0.944-0.946
///   against 0.952-0.954, 262144 x 64 0.934-0.935 against 0.935-0.936.
/// At 256 MiB and more the two were level or the whole tiles behind (4-byte 8192^2 0.961-0.962
/// against 0.960-0.964, 16384 x 8192 0.963-0.964 against 0.966-0.968; 8-byte 8192^2 0.970-0.973
/// against 0.970-0.972), hence the caps. Eight blocks of 64 x 256-byte tiles (32 registers) ran
/// level with the standard kernel, 16-row tiles of 128 threads and 512-byte tile rows behind.
/// 8-byte tiles had 512 threads and four blocks per SM until the thirty-first session, whose
/// harness (run 4, two rounds, 256 threads and eight blocks against 512 and four) had the 256
/// threads level or ahead: 2048^2 0.972-0.978 against 0.965-0.970, 4096^2 0.961-0.962 against
/// 0.961-0.963, 8192 x 2048 0.959-0.960 against 0.958-0.959, 16384 x 4096 0.966-0.968 against
/// 0.964-0.967, and past the caps 8192^2 0.971 against 0.964, 1048576 x 32 0.956 against
/// 0.943-0.945.
template <int E>
struct copy_tuned_whole {
  static constexpr bool taken = false;
};
template <>
struct copy_tuned_whole<4> {
  static constexpr bool taken = true;
  using policy = tile_policy<32, 256, 256, 8>;
  static constexpr std::int64_t most_aspect = 32;
  static constexpr std::int64_t most_bytes = std::int64_t{1} << 27;
};
template <>
struct copy_tuned_whole<8> {
  static constexpr bool taken = true;
  using policy = tile_policy<32, 256, 256, 8>;
  static constexpr std::int64_t most_aspect = 32;
  static constexpr std::int64_t most_bytes = std::int64_t{1} << 28;
};
/// copy_tuned_whole_h200<E>: the whole tiles on the H200's memory (choose_tuned_tiles), for 2-,
/// 4-, 8- and 16-byte matrices made of them of up to `most_aspect` rows a column, of any size: 2
/// bytes 64 rows x 128 bytes, 256 threads, eight blocks per SM, up to 2 rows a column (where the
/// standard tiles walk down); 4 bytes 32 x 128 bytes, 128 threads, sixteen blocks, up to 32; 8
/// bytes copy_tuned_whole<8>'s, up to 512; 16 bytes 16 x 512 bytes, 256 threads, eight blocks, up
/// to 4096: full occupancy for each. On the H200 (thirty-first session, docs/performance.md;
/// harness, L2 evicted, x copy, two rounds), against the standard kernel (the dispatch on that
/// memory before) and geam:
/// - 4 bytes: 2048^2 0.930-0.940 against 0.866-0.868, 4096^2 0.944 against 0.902-0.906, 4096 x
///   8192 0.930-0.966 against 0.901-0.924, 8192^2 0.945-0.948 against 0.924-0.927, 16384 x 8192
///   0.959-0.962 against 0.936-0.938, 16384^2 0.955 against 0.939-0.940 (sgeam 0.88-0.93); tall
///   16384 x 2048 0.948-0.949 against 0.897-0.898, 8192 x 1024 0.936-0.944 against 0.889-0.898,
///   32768 x 1024 0.931-0.955 against 0.876-0.902. Taller ones ran far behind (262144 x 128
///   0.756-0.775 against 0.874-0.896). The H100's tiles (32 x 256 bytes) ran 0.902-0.945, 64 x
///   256-byte ones of six or eight blocks 0.881-0.967 (ahead from 256 MiB by up to 0.007).
/// - 8 bytes: 2048^2 0.965-0.971 against 0.938-0.939, 4096^2 0.940-0.987 against 0.954-0.959,
///   8192^2 0.974-0.976 against 0.973-0.974, 8192 x 2048 0.938-0.967 against 0.906-0.933, 16384 x
///   4096 0.963-0.966 against 0.886-0.889, 16384 x 8192 0.963 against 0.962 (dgeam 0.93-0.98);
///   taller, ahead up to 512 rows a column and level or behind from 2048 (below; 1048576 x 32
///   0.908-0.911 against 0.912-0.914). 512 threads and four blocks, the H100's tiles before, ran
///   0.843-0.879.
/// - 2 bytes: 4096^2 0.900-0.914 against 0.881-0.888, 8192^2 0.927-0.929 against 0.917-0.919,
///   16384^2 0.963-0.968 against 0.962-0.963. 16 bytes: 2048^2 0.970-0.977 against 0.926-0.933,
///   4096^2 0.965-0.967 against 0.923-0.926, 8192 x 4096 0.974-0.979 against 0.935-0.937.
/// - 1 byte: none; 128 x 128-byte tiles ran level or behind on squares (16384^2 0.929-0.935
///   against 0.937-0.941), ahead on tall 32768 x 8192 and 65536 x 4096 (0.905-0.934 against
///   0.875-0.884) and behind from 64 rows a column (131072 x 2048 0.81 against 0.875).
/// - Rows a column (run 7, 256 MiB each), whole / standard: 2 bytes 65536 x 2048 (32) 0.864-0.868
///   / 0.880-0.882, from 128 rows a column 0.75-0.80 / 0.88-0.89; 4 bytes 65536 x 1024 (64)
///   0.884-0.887 / 0.886-0.890, from 256 0.73-0.80 / 0.88-0.90; 8 bytes 32768 x 1024 (32)
///   0.952-0.955 / 0.917-0.918, 65536 x 512 (128) 0.948-0.949 / 0.916-0.921, 131072 x 256 (512)
///   0.934-0.936 / 0.910-0.915, 262144 x 128 (2048) 0.913 / 0.914-0.920, 524288 x 64 0.899-0.908 /
///   0.915; 16 bytes 16384 x 1024 (16) 0.955-0.958 / 0.897, 32768 x 512 (64) 0.951 / 0.900-0.902,
///   65536 x 256 0.919-0.922 / 0.900-0.903, 131072 x 128 0.915-0.916 / 0.905-0.907, 262144 x 64
///   (4096) 0.910-0.912 / 0.897-0.902. 2-byte shapes between 2 and 32 rows a column were not
///   measured.
/// On the H100 these tiles ran level with its own or behind (4-byte 32 x 128 bytes 0.945-0.954
/// against 0.960-0.967 from 256 MiB; 2- and 16-byte ones level).
template <int E>
struct copy_tuned_whole_h200 {
  static constexpr bool taken = false;
};
template <>
struct copy_tuned_whole_h200<2> {
  static constexpr bool taken = true;
  using policy = tile_policy<64, 128, 256, 8>;
  static constexpr std::int64_t most_aspect = 2;
};
template <>
struct copy_tuned_whole_h200<4> {
  static constexpr bool taken = true;
  using policy = tile_policy<32, 128, 128, 16>;
  static constexpr std::int64_t most_aspect = 32;
};
template <>
struct copy_tuned_whole_h200<8> {
  static constexpr bool taken = true;
  using policy = copy_tuned_whole<8>::policy;
  static constexpr std::int64_t most_aspect = 512;
};
template <>
struct copy_tuned_whole_h200<16> {
  static constexpr bool taken = true;
  using policy = tile_policy<16, 512, 256, 8>;
  static constexpr std::int64_t most_aspect = 4096;
};

/// Square tile swap: square tiles (tile_rows == tile_bytes / E), two per block.
template <int E>
struct square_tile_policy;
template <>
struct square_tile_policy<1> : tile_policy<128, 128, 256, 2> {};
template <>
struct square_tile_policy<2> : tile_policy<64, 128, 256, 3> {};
template <>
struct square_tile_policy<4> : tile_policy<64, 256, 256, 3> {};
template <>
struct square_tile_policy<8> : tile_policy<32, 256, 256, 3> {};
template <>
struct square_tile_policy<16> : tile_policy<32, 512, 256, 3> {};

/// copy_unaligned (rows of any alignment): B row blocks of 16 / E rows (B even), W bytes per
/// tile row, THREADS per block, MIN_BLOCKS resident blocks per SM asked of ptxas; the tile lives
/// in dynamic shared memory (tiles over 48 KiB, none of the policies below, would need the
/// opt-in of sm_80 and later). From the sweeps of scripts/device_tune_policies.cu --odd-only on
/// the H100 (2026-11-23, column-by-column kernel): tiles whose threads take four or five load
/// steps ran at 0.70-0.79 (each step waits for its loads), 256-thread blocks held to two per SM
/// (16 warps) at 0.79-0.84; 512-byte tile rows with 512 threads and two blocks per SM, loaded in
/// one step, gained 0.01-0.025 over 256-byte rows for 2-, 4- and 8-byte elements (8-byte: over
/// copy_sectors' one element per lane) in four runs: 14 row blocks for 4-byte elements, 30 for
/// 8-byte ones (a 480-byte destination run per tile column) and 6 for 2-byte ones (0.005-0.02
/// over 14 row blocks, which take two load steps, in three runs); for 1-byte elements 256- and
/// 512-byte rows were up to 0.03 slower on 8208 x 8176 and 16383 x 16385, as were 10 and 22 row
/// blocks; loads staged through cp.async ran 0.03-0.09 slower, L2 prefetches of the next wave's
/// tiles 0.15-0.25 slower, 64-byte destination segments 0.005-0.04 slower. With the 256-byte L2
/// prefetch on every load (load_chunk_l1_l2_prefetch; fifteenth session, 2026-11-24) 2-byte
/// elements took 14 row blocks of 256 bytes, 256 threads, four blocks per SM (a halo of 1/7 of
/// the tile instead of 1/3): xpose bench, three rounds, 11583 x 11585 0.915-0.922 -> 0.939-0.945,
/// 10007 x 7001 0.925-0.929 -> 0.951-0.954, 333 x 201001 0.879-0.888 -> 0.926-0.933, 100003 x
/// 671 0.912-0.917 -> 0.951-0.955.
template <int B, int W, int THREADS, int MIN_BLOCKS>
struct unaligned_policy {
  static constexpr int row_blocks = B, tile_bytes = W, threads = THREADS, min_blocks = MIN_BLOCKS;
};
template <int E>
struct copy_unaligned_policy;
template <>
struct copy_unaligned_policy<1> : unaligned_policy<14, 128, 256, 4> {};
template <>
struct copy_unaligned_policy<2> : unaligned_policy<14, 256, 256, 4> {};
template <>
struct copy_unaligned_policy<4> : unaligned_policy<14, 512, 512, 2> {};
template <>
struct copy_unaligned_policy<8> : unaligned_policy<30, 512, 512, 2> {};
/// copy_unaligned_large<E>::policy is taken by matrices of at least copy_unaligned_large_bytes and
/// copy_tuned_large_rows rows (takes_large_tiles): 192 MiB, between the measured 128 MiB, where the
/// two policies were level, and 256 MiB, where the large one was ahead (the odd squares of the
/// bench, 11583 x 11585 and 16383 x 16385, lie just below 2^27 and 2^28 bytes). 1-byte elements: 30
/// row blocks (480 rows: the halo is 1/15 of the tile instead of 1/7) of 128 bytes, 512 threads,
/// two blocks per SM. On the H100 (2026-11-24, seventeenth session, docs/performance.md; three
/// rounds, L2 evicted, x copy): 16383 x 16385 0.941-0.944 against 0.921-0.928, 16384 x 16385
/// 0.926-0.928 against 0.909-0.912, 23169 x 23171 0.925-0.930 against 0.911-0.913; level (within
/// 0.005) on 32767 x 8193, 8193 x 32767, 12001 x 24001 and 11585 x 23171. Below the rule they were
/// level at 128 MiB (11583 x 11585 0.936-0.937 against 0.932-0.941) and behind on smaller shapes
/// (10007 x 7001 0.902-0.912 against 0.918-0.930, 8191 x 8193 0.920-0.931 against 0.938-0.949). 14
/// row blocks with three blocks per SM (79 registers) gained on some large shapes and lost on
/// others (23169 x 23171 0.938-0.944, 32767 x 8193 0.903-0.906). 2-byte elements: 30 row blocks
/// (240 rows) of 128 bytes instead of 14 of 256, four blocks of 256 threads per SM (same harness,
/// three rounds): 16383 x 8193 0.942-0.944 against 0.926-0.927, level on 11583 x 11585
/// (0.939-0.946 against 0.937-0.942) and 8193 x 16383 (0.950-0.954 against 0.949-0.953), and on
/// 10007 x 7001 (140 MB, below the rule) 0.940-0.946 against 0.946-0.950; 30 row blocks of 256
/// bytes with 512 threads ran level or behind (16383 x 8193 0.932-0.935).
constexpr std::int64_t copy_unaligned_large_bytes = std::int64_t{3} << 26;
template <int E>
struct copy_unaligned_large {
  using policy = copy_unaligned_policy<E>;
};
template <>
struct copy_unaligned_large<1> {
  using policy = unaligned_policy<30, 128, 512, 2>;
};
template <>
struct copy_unaligned_large<2> {
  using policy = unaligned_policy<30, 128, 256, 4>;
};
/// 4-byte elements: 30 row blocks (120 rows) of 256 bytes, 512 threads, two blocks per SM. On the
/// H100 (twenty-first session, docs/performance.md; harness, L2 evicted, x copy, two rounds),
/// against copy_unaligned_policy<4> on shapes the rule takes: 16383 x 8193 0.947-0.949 against
/// 0.918-0.920, 200003 x 401 0.939 against 0.908, 12001 x 12003 0.956-0.959 against 0.949-0.950,
/// 11583 x 11585 0.957-0.960 against 0.949-0.953, 100003 x 671 0.948 against 0.940-0.941, 70001 x
/// 1001 0.954-0.957 against 0.950-0.953, 9001 x 9001 0.956-0.959 against 0.952-0.955; level
/// (within 0.004) on 8193 x 16383, 20011 x 7001, 40009 x 2001, 16383 x 4097 and 8209 x 8191. On
/// wide shapes of fewer rows than the rule's, 0.004-0.015 behind (333 x 201001, 1001 x 70001,
/// 2401 x 20851, 5001 x 13001).
template <>
struct copy_unaligned_large<4> {
  using policy = unaligned_policy<30, 256, 512, 2>;
};
/// copy_unaligned_h200<E, Policy>: the threads copy_unaligned runs Policy's tiles (standard or
/// large) with on the H200's memory: for 4- and 8-byte elements the same tiles in blocks of half
/// the threads at twice the blocks per SM (256 and four instead of 512 and two: 32 KiB of shared
/// memory and up to 64 registers each); 1- and 2-byte elements keep Policy (256 threads and four
/// blocks already; 128 threads at six or eight blocks ran behind). On the H200 (thirty-second
/// session, docs/performance.md; scripts/device_tune_policies.cu --unaligned, median of 7, two
/// rounds, x copy), 256 / 512 threads: 4-byte 16383 x 8193 (large tiles) 0.936-0.947 against
/// 0.896-0.908, 8191 x 8193 (standard) 0.941-0.950 against 0.883-0.894, 10007 x 7001 (large)
/// 0.939-0.946 against 0.887-0.902; 8-byte 5791 x 5793 0.951-0.952 against 0.909-0.919, 8191 x
/// 8193 0.956-0.963 against 0.914-0.923, 10007 x 7001 0.940-0.943 against 0.906-0.907. On the H100
/// (the same sweep there) 256 threads ran 0.01-0.02 behind, so the H100 keeps Policy.
template <int E, class Policy>
using copy_unaligned_h200 =
    std::conditional_t<(E >= 4),
                       unaligned_policy<Policy::row_blocks, Policy::tile_bytes, Policy::threads / 2,
                                        Policy::min_blocks * 2>,
                       Policy>;
/// copy_unaligned_tall_policy: 1-byte tiles of 22 row blocks (352 rows) of 256 bytes, 512
/// threads, two blocks per SM, for short, wide matrices of at least copy_unaligned_large_bytes
/// whose rows they fill at least 1/5 better than the standard 224-row tiles
/// (copy_unaligned_takes_tall: 673 to 704 rows, two tile rows where the standard tiles take four,
/// the last nearly empty). On the H100 (twenty-ninth session, docs/performance.md; harness, L2
/// evicted, x copy, two rounds in run 3, run 4 or both), against the standard tiles: 700 x 436912
/// 0.916-0.921 against 0.898-0.902, 680 x 394752 0.925-0.928 against 0.912-0.915, 690 x 389001
/// 0.909-0.910 against 0.883-0.886, 704 x 381301 0.936-0.938 against 0.920-0.923, 700 x 383473
/// 0.911-0.918 against 0.904-0.908; level on 673 x 398841 (0.883-0.888 against 0.881-0.882) and
/// 700 x 383472 (0.915-0.920 against 0.919-0.922). At 128 MiB they ran ahead on 680 x 197381
/// (0.914-0.915 against 0.899-0.901) and 690 x 194561 (0.887-0.889 against 0.880-0.881) but
/// behind on 700 x 191741 (0.884-0.887 against 0.901-0.903), so the rule starts at 192 MiB, as
/// the large one; from 192 to 256 MiB (run 10) they ran ahead by 0.004-0.02 (700 x 287611,
/// 700 x 300001, 690 x 300001, 704 x 290001, 700 x 340001, 677 x 320001, 696 x 350001). Behind
/// where they fill no better: 720 rows 0.821-0.841 against 0.928-0.939 (three tile rows), 672 0.933
/// against 0.957, 650 0.901-0.910 against 0.926-0.934, 600 0.924-0.926 against 0.946-0.948, 900
/// 0.924-0.925 against 0.941-0.942, 1001 0.918-0.928 against 0.923-0.937, 560 and 760-1300
/// 0.014-0.07 behind. The same tiles 128 bytes wide ran 0.77-0.91 on those shapes.
using copy_unaligned_tall_policy = unaligned_policy<22, 256, 512, 2>;
/// The rows one copy_unaligned tile owns (row blocks of 16 / E rows): standard, large, and the
/// 1-byte tall tiles.
template <int E>
constexpr int copy_unaligned_tile_rows = copy_unaligned_policy<E>::row_blocks*(16 / E);
template <int E>
constexpr int copy_unaligned_large_tile_rows = copy_unaligned_large<E>::policy::row_blocks*(16 / E);
constexpr int copy_unaligned_tall_tile_rows = copy_unaligned_tall_policy::row_blocks * 16;
/// The least bytes from which 4-byte matrices below the large rule take copy_unaligned_large's
/// tiles where those fill the rows better (copy_unaligned_takes_large).
constexpr std::int64_t copy_unaligned_short_large_bytes = std::int64_t{1} << 27;

/// copy_sectors (16-byte elements, destination rows of any alignment): R source rows x C columns
/// per tile, THREADS per block, MIN_BLOCKS resident blocks per SM asked of ptxas. From the same
/// sweeps: 32 x 32 tiles; larger ones (64 x 32, 32 x 64) ran at 0.64-0.82.
template <int R, int C, int THREADS, int MIN_BLOCKS>
struct sectors_policy {
  static constexpr int tile_rows = R, tile_cols = C, threads = THREADS, min_blocks = MIN_BLOCKS;
};
template <int E>
struct copy_sectors_policy;
template <>
struct copy_sectors_policy<16> : sectors_policy<32, 32, 256, 2> {};
/// copy_sectors_h200_policy: the same tiles and threads with four blocks per SM asked of ptxas
/// (at most 64 registers) instead of two, on the H200's memory. On the H200 (thirty-second
/// session, docs/performance.md; scripts/device_tune_policies.cu --more-blocks, median of 7, two
/// rounds, x copy), against copy_sectors_policy<16>: 4095 x 4097 0.964-0.969 against
/// 0.940-0.954, 3001 x 7001 0.977-0.980 against 0.947-0.950, 8191 x 2049 0.927-0.935 against
/// 0.911-0.915; 128 threads at eight blocks 0.916-0.962, 512 at two 0.775-0.825. On the H100 (the
/// same sweep there) level to 0.008 behind (8191 x 2049 0.964 against 0.965-0.972), so the H100
/// keeps copy_sectors_policy<16>.
using copy_sectors_h200_policy = sectors_policy<32, 32, 256, 4>;

/// copy_any_size (elements of 3 to 15 bytes that are not powers of two, rows of any alignment):
/// tile_rows source rows (tile_rows * E a multiple of 32) x tile_bytes / E columns, threads per
/// block, resident blocks per SM asked of ptxas. any_size_one_step_threads: the whole warps that
/// load a tile (with its halo of ceil(31 / E) rows) in one step, one lane per 16-byte chunk of
/// four rows.
constexpr int any_size_one_step_threads(int e, int tile_rows, int tile_bytes) {
  return ((tile_rows + (31 + e - 1) / e + 3) / 4 * (tile_bytes / 16) + 31) / 32 * 32;
}
/// From the sweeps of scripts/device_tune_policies.cu --any-size on the H100 (2026-11-23, every
/// size on 6001 x 7001, 8192 x 8192 and 64 x 1000000, ratios to a D2D copy; runs 1-7): six
/// blocks per SM (30 warps) with 64 x 128-byte tiles for elements of 3, 5 and 6 bytes and 32 x
/// 256-byte tiles from 7 bytes up (run 7: 0.86-0.91 and 0.75-0.81 on 64 x 1000000; each 0.01-0.07
/// behind the other on the other sizes); four blocks per SM 0.77-0.85, 32 x 512-byte tiles with
/// two (22 warps) 0.77-0.80, 32 x 128-byte tiles with eight or ten 0.79-0.85, 96 and 128 rows
/// 0.01-0.04 below 64; eight blocks per SM spill and ran 0.01-0.25 slower; blocks looping over
/// two or four tiles 0.01-0.06 slower.
/// Since then copy_any_size_policy<E> runs only 5- to 15-byte elements on destination rows that
/// start on 32 bytes and shapes of fewer than three rows a column that do not take
/// copy_any_size_columns_32_policy (any_size_tiles_for); 3-byte
/// elements have tiles of their own. any_size_tile_rows still sets the fewest rows the dispatch
/// runs copy_any_size on (copy_any_size_chosen, measured with these tiles and not re-measured)
/// and the tile rows any_size_tiles_full counts against copy_full_height where destination rows
/// start on 32 bytes (re-measured in the twenty-second session with the tiles any_size_tiles_for
/// picks: within 0.01 of the faster kernel on 3 to 15 bytes, 64 to 320 rows, but for 6-byte 224
/// rows, 0.019 behind in one round).
constexpr int any_size_tile_rows(int e) {
  return e < 7 ? 64 : 32;
}
constexpr int any_size_tile_bytes(int e) {
  return e < 7 ? 128 : 256;
}
template <int E>
struct copy_any_size_policy
    : tile_policy<any_size_tile_rows(E), any_size_tile_bytes(E),
                  any_size_one_step_threads(E, any_size_tile_rows(E), any_size_tile_bytes(E)), 6> {
};
template <int R, int W, int THREADS, int MIN_BLOCKS, int COLUMNS>
struct any_size_columns_policy : tile_policy<R, W, THREADS, MIN_BLOCKS> {
  static constexpr int columns = COLUMNS;  ///< tile columns, fewer than W / E
};
/// copy_any_size's tiles for 3-byte elements where every destination row starts on 32 bytes (the
/// tiles load no halo: one load step), which any_size_tiles_for picks between:
/// - 128 rows x 42 columns, 256 threads, four blocks per SM (destination row segments of 384
///   bytes), wherever those tiles are at least 0.85 full;
/// - 96 rows x 42 columns, 192 threads, five blocks per SM, where they are less full;
/// - 96 rows x 32 columns, 192 threads, five blocks per SM, on at least two rows a column where
///   32-column tiles fill the columns at least 1/32 better than 42-column ones;
/// - 32 rows x 64 columns, 128 threads, eight blocks per SM, elsewhere where 64-column tiles fill
///   the columns at least 1/8 better than 42-column ones (128 columns: all of 128 against 128 of
///   168).
/// On the H100 (nineteenth session, docs/performance.md; scratch harness, L2 evicted, x copy, two
/// rounds): 128 rows against 32 x 64 (the choice of the eighteenth session for all but tall
/// shapes) 16384 x 16384 0.936-0.938 against 0.912-0.914, 12288 x 12288 0.950 against
/// 0.927-0.928, 16384 x 8192 0.935-0.936 against 0.913-0.916, 16384 x 8191 0.922-0.923 against
/// 0.900-0.901, 8192 x 8193 0.937-0.944 against 0.927-0.931, 4096 x 16385 0.942-0.943 against
/// 0.929-0.930, 128 x 699050 0.967-0.970 against 0.952-0.956, 512 x 174762 0.973 against
/// 0.960-0.961; level on 8192 x 8192, 4096 x 16384, 8192 x 16384, 16384 x 16383, and behind on 8192
/// x 4096 (0.924-0.928 against 0.928-0.929). 96 rows where 128-row tiles are under 0.85 full:
/// 1000000 x 65 (0.77) 0.926-0.929 against 0.909-0.913, x 90 (0.71) 0.903-0.905 against
/// 0.868-0.870, x 100 (0.79) 0.921-0.923 against 0.910-0.912, 192 x 466033 (0.75) 0.959-0.961
/// against 0.903-0.904 (and 32 x 64's 0.957), 320 x 279620 (0.83) 0.965-0.966 against 0.957; behind
/// from 0.87 full (1000000 x 110 0.930-0.932 against 0.933-0.935, x 150 0.924-0.925 against
/// 0.933-0.934).
using copy_any_size_3_rows_128_policy = tile_policy<128, 128, 256, 4>;
using copy_any_size_3_rows_96_policy = tile_policy<96, 128, 192, 5>;
using copy_any_size_3_columns_64_policy = any_size_columns_policy<32, 256, 128, 8, 64>;
/// The 96 x 32 tiles (twentieth session, docs/performance.md; harness, two rounds), against the
/// library's tiles on 1000000 rows: 96 columns 0.950 against 0.918-0.919, 127 0.938 against
/// 0.912-0.914, 128 0.931-0.934 against 0.908-0.911 (32 x 64), 160 0.943 against 0.939-0.940, 192
/// 0.935 against 0.931-0.932, 256 0.936-0.937 against 0.913-0.917 (32 x 64); behind where they
/// fill the columns worse (100 columns: 0.880 against 0.922-0.923) and on 16384 x 16384 (0.913
/// against 0.939); 128 x 32 tiles behind 96 x 32 on every 1000000-row shape. Where both fill the
/// columns within 1/32 (A/B, xpose bench): 8192 x 4096 0.937 against 0.926-0.930, but 16384 x 8192
/// 0.918 against 0.934-0.938 and 32768 x 2048 0.935-0.936 against 0.937-0.944: not taken.
using copy_any_size_3_columns_32_policy = any_size_columns_policy<96, 128, 192, 5, 32>;
/// copy_any_size's 32-column tiles (any_size_tiles_for's `columns_32_down`): destination rows on
/// 32 bytes, shapes whose tiles walk down (tiles_walk_down) from 1024 to 16383 rows for 3 bytes and
/// to 8192 rows for the others, every size but 9 bytes. A tile row is then 32 E bytes, which starts
/// on 32 bytes where the source rows do (the other tiles' 128- and 256-byte rows of whole elements
/// cross a sector boundary at both ends: Nsight Compute, twenty-third session, 1.41 L2 read sectors
/// a matrix sector for 3-byte 8192 x 4096). 64 rows up to 8 bytes (128- and 256-byte rows), 32 from
/// 9 (512-byte rows); 128 threads and eight blocks per SM for 3-, 5-, 10- and 11-byte elements, 256
/// and four for the others. On the H100 (twenty-seventh session, docs/performance.md; scratch
/// harness, L2 evicted, x copy):
/// - 3 bytes (one or two rounds), against copy_any_size_3_rows_128_policy (the library's tiles
///   there): 8192 x 4096 0.944-0.946 against 0.928-0.929, 6144^2 0.947 against 0.934, 4096 x 8192
///   0.939-0.941 against 0.931-0.934, 10240^2 0.949-0.951 against 0.940-0.941, 12288^2 0.955-0.957
///   against 0.947-0.950, 14336 x 8192 0.943-0.947 against 0.933-0.938, 10240 x 7001 0.959-0.964
///   against 0.954-0.955, 1024 x 32768 0.940 against 0.934; level on 1024 x 65536, 2048 x 32768,
///   8192 x 4099, 6144 x 10001 and 9216 x 9001 (within 0.004). From 16384 rows level or behind
///   (16384 x 8192 0.936-0.939 against 0.933-0.937, 16384^2 0.936 both, 16384 x 12288 0.939
///   against 0.947), as on shapes that walk across (12288 x 2048 0.932 against 0.940, 32768 x 2048
///   0.929 against 0.934, 12288 x 6007 0.926-0.933 against 0.932-0.938). 96 x 32 tiles of 192
///   threads (copy_any_size_3_columns_32_policy) ran between the two, and 0.02 behind from 16384
///   rows; with the strips in 2 or 3 regions 0.01-0.12 behind.
/// - 5 to 15 bytes (three rounds on 8192 x 4096, 4096 x 8192, 2048 x 16384, 8192^2, 6144^2, two on
///   1024 x 32768), against copy_any_size_policy<E> (the standard tiles): 5 bytes 0.931-0.958
///   against 0.925-0.949, 6 bytes 0.950-0.960 against 0.941-0.954, 7 bytes 0.950-0.963 against
///   0.942-0.955, 10 bytes 0.928-0.961 against 0.928-0.957, 11 bytes 0.940-0.961 against
///   0.935-0.960, 12 to 15 bytes 0.952-0.967 against 0.946-0.966; the other thread count
///   0.001-0.07 behind (one round). On source rows off 16 bytes (8192 x 4099, 6144 x 6001, 4096 x
///   8193, 3072 x 10007; two rounds) from 0.006 behind to 0.009 ahead. 9 bytes: 0.920-0.928 (128
///   threads) and 0.80-0.85 (256) against 0.920-0.954, not taken. 12288 x 8192: 5 bytes 0.954-0.955
///   against 0.941-0.944, 7 and 10 bytes level, but 6 bytes 0.919-0.920 against 0.947-0.948,
///   hence 8192 rows at most. Walking across (16384 x 2048) level or up to 0.02 behind.
template <int E>
struct copy_any_size_columns_32_policy
    : any_size_columns_policy<(E < 9 ? 64 : 32),
                              (E < 5   ? 128
                               : E < 9 ? 256
                                       : 512),
                              (E == 3 || E == 5 || E == 10 || E == 11 ? 128 : 256),
                              (E == 3 || E == 5 || E == 10 || E == 11 ? 8 : 4), 32> {
  static_assert(E != 9, "9-byte elements keep copy_any_size_policy<9>: 32 columns ran behind");
};
/// copy_any_size's narrow halo tiles for 3-byte elements where a destination row starts off 32
/// bytes, of 32 columns (any_size_tiles_for's `halo_columns_32`) and of 34 (below): 128 rows and
/// a halo of 11, 160 threads that load the 139 rows in two steps, seven blocks per SM (about 91
/// KiB of rows in flight per SM, against 50 KiB for the one-step 96-row tiles of 224 threads and
/// five blocks they replace). On
/// the H100 (twenty-eighth session, docs/performance.md; scratch harness, L2 evicted, x copy, two
/// rounds each): 1000001 x 128 0.933-0.935 against 0.891-0.895, 1000001 x 96 0.932-0.934 against
/// 0.898-0.899, 700001 x 128 0.926-0.928 against 0.897-0.899, 1000001 x 127 0.924-0.925 (six
/// blocks) against 0.883-0.885; six blocks per SM level to 0.009 behind seven, five 0.07-0.08
/// behind; 96 rows of 128 threads and eight blocks 0.002-0.01 behind; 160 or 192 rows, or 192
/// and 224 threads, 0.01-0.19 behind. Against copy_any_size_halo_policy<3> (42 columns), with
/// six blocks: where 32 columns fill the columns at least 1/10 better, ahead (1000003 x 256
/// 0.928-0.930 against 0.917-0.918, x 224 (1/9) 0.928 against 0.919-0.920); less, level or
/// behind (x 192 (1/12) 0.928-0.930 against 0.926-0.928, 700001 x 320 (1/21) 0.926-0.929 against
/// 0.932-0.933, 400001 x 512 (1/16) 0.924-0.925 against 0.935, 16385 x 4096 0.894-0.900 against
/// 0.912-0.918), but x 160 (1/21) 0.930-0.931 against 0.921-0.925.
template <int COLUMNS>
using copy_any_size_3_halo_narrow_policy = any_size_columns_policy<128, 128, 160, 7, COLUMNS>;
using copy_any_size_3_halo_columns_32_policy = copy_any_size_3_halo_narrow_policy<32>;
/// The same tiles of 34 columns (102-byte tile rows; any_size_tiles_for's `halo_columns_34`), on
/// at least two rows a column where 32-column tiles do not fill the columns 1/10 better than
/// 42-column ones but 34-column tiles do. On the H100 (twenty-eighth session, docs/performance.md;
/// harness, L2 evicted, x copy, two rounds), against copy_any_size_halo_policy<3> (96 x 42, the
/// library's tiles there): 1000001 x 100 0.916-0.918 against 0.885-0.888, 1000001 x 101
/// 0.918-0.920 against 0.888-0.891, 700001 x 100 0.895-0.900 against 0.881-0.886; where 34 columns
/// fill no better, behind (1000001 x 150 0.879-0.881 against 0.921-0.922). 128 x 42 tiles of 160
/// threads and seven blocks 0.895-0.899 on those 100-column shapes, 34 columns with 128 threads
/// and eight blocks (96 or 128 rows) 0.852-0.860, 50 columns (256-byte rows) 0.81-0.83.
using copy_any_size_3_halo_columns_34_policy = copy_any_size_3_halo_narrow_policy<34>;
/// copy_any_size for tall matrices (at least three rows a column) of elements of 5 to 15 bytes
/// whose destination rows start on 32 bytes (any_size_tiles_for's `tall`; 3-byte elements have
/// their own tiles): the columns of copy_any_size_policy<E> on 128 rows for 5- and 6-byte
/// elements and 64 from 7 bytes (destination row segments of 448 to 960 bytes instead of 224 to
/// 480), 256 threads (one load step: no halo), four blocks per SM. On the H100 (nineteenth session,
/// docs/performance.md; scratch harness, L2 evicted, x copy, two rounds), against
/// copy_any_size_policy<E> (up to 10^6 rows, 768 MiB at most): x 64 and x 65 0.914-0.966 against
/// 0.853-0.936 (every size), x 100 0.945-0.953 against 0.896-0.953 (behind by 0.005 for 10- and
/// 12-byte elements), x 300 0.951-0.964 against 0.918-0.958, x 1000 0.946-0.955 against 0.934-0.958
/// (6- and 12-byte elements up to 0.003 behind), 3 rows a column (12288 x 4096 for 5 to 7 bytes,
/// 6144 x 2048 from 9) 0.927-0.945 against 0.917-0.942; at 2 rows a column between 0.007 behind
/// (6-byte) and 0.008 ahead (9-byte).
template <int E>
struct copy_any_size_tall_policy : tile_policy<(E < 7 ? 128 : 64), any_size_tile_bytes(E), 256, 4> {
};
/// copy_any_size's tall tiles of 128-byte rows (any_size_tiles_for's `tall_rows_96`): 96 rows,
/// 192 threads, six blocks per SM. For 5 and 6 bytes where copy_any_size_tall_policy's columns
/// are under 0.9 full; on the H100 (twentieth session, docs/performance.md; scratch harness, L2
/// evicted, x copy, one round), against copy_any_size_tall_policy: 6-byte 1000000 x 64 and x 65
/// (columns 0.76-0.77 full) 0.932-0.933 against 0.916-0.921, 5-byte x 65 (0.87) 0.953 against
/// 0.946; where the columns are 0.95 full and more, level or behind (6-byte x 100, 400000 x 300,
/// 100000 x 1000, 12288 x 4096, 16384 x 4096 0.932-0.948 against 0.939-0.953; 5-byte x 100 0.954
/// against 0.953). From 7 bytes, where their columns (128 / E) fill the matrix's at least 1/10
/// better than copy_any_size_tall_policy's 256-byte rows (twenty-first session, one round):
/// 7-byte 1000000 x 75 0.938 against 0.882, 9-byte x 65 0.942 against 0.935, 10-byte x 76 0.958
/// against 0.927, 11-byte x 70 0.960 against 0.925, 12-byte x 65 0.959 against 0.951, 15-byte
/// 800000 x 70 0.959 against 0.944 (five blocks per SM: 0.929-0.959).
using copy_any_size_tall_rows_96_policy = tile_policy<96, 128, 192, 6>;
/// copy_any_size where a destination row starts off 32 bytes (the tiles load a halo of
/// ceil(31 / E) rows; any_size_tiles_for's `halo`): 96 rows of 128 bytes (the columns of
/// copy_any_size_policy<E> up to 6 bytes, 18 to 8 of 7 to 15 bytes), 224 threads (one load
/// step), five blocks per SM: larger tiles than copy_any_size_policy<E>'s six blocks of 64 rows,
/// for more bytes in flight per SM. On the H100 (twentieth session, docs/performance.md; scratch
/// harness, L2 evicted, x copy, one or two rounds), against copy_any_size_policy<E>: 3 bytes
/// 0.911-0.959 against 0.868-0.944 (321 x 278749, 1025 x 87297, 9461 x 9457, 16385 x 5461),
/// 1000001 x 100 0.881-0.883 against 0.832-0.833 (128-row tiles, 288 threads, four blocks:
/// 0.884-0.956 on these shapes, 0.862-0.864 on 1000001 x 100); 5 bytes 0.920-0.972 against
/// 0.882-0.964 (0.932-0.934 against 0.888-0.890 on 1000001 x 65); 6 bytes 0.937 against 0.916 on
/// 321 rows, within 0.002 on 1025 to 16385 rows. From 6 bytes they run only where their columns
/// fill the matrix's at least 1/10 better than copy_any_size_halo_wide_policy's (twenty-first
/// session, two rounds, against those): 7-byte 1000001 x 75 0.919-0.920 against 0.863-0.864,
/// 9-byte x 65 0.940-0.941 against 0.914-0.915, 10-byte x 76 0.942-0.943 against 0.901-0.902,
/// 11-byte x 70 0.935-0.936 against 0.889, 12-byte x 65 0.949-0.950 against 0.923, x 50 0.960-0.961
/// against 0.934, 14-byte x 60 (1/8.4 better) 0.946 against 0.940, 15-byte 800001 x 70
/// 0.946-0.947 against 0.929, 6-byte x 100 0.942-0.943 against 0.934-0.935 and 700001 x 128
/// 0.924-0.926 against 0.914 (one round); where they fill 1/20 better or less, behind: 7-byte x 100
/// 0.937 against 0.948-0.949, 9-byte x 80 and 700001 x 130 0.941-0.946 against 0.947-0.952,
/// 10-byte x 65 0.932-0.934 against 0.947-0.948, 13-byte x 65 0.920 against 0.929.
template <int E>
struct copy_any_size_halo_policy : tile_policy<96, 128, any_size_one_step_threads(E, 96, 128), 5> {
};
/// copy_any_size's halo tiles of 256-byte rows for 6 to 15 bytes (any_size_tiles_for's
/// `halo_wide`), loaded in one step: 96 rows, 416 threads, three blocks per SM for 6 bytes; 64
/// rows, 288 threads, four blocks per SM from 7. On the H100 (twentieth session, against
/// copy_any_size_policy<E>, harness, one or two rounds): 7 to 15 bytes 0.915-0.974 against
/// 0.845-0.973 (7-byte 1000001 x 65 0.949-0.952 against 0.894-0.896, 9-byte 0.915-0.916 against
/// 0.845-0.846, 11-byte 700001 x 100 0.937 against 0.887), behind by at most 0.003 on three
/// shapes (10- and 12-byte 4097 rows, the 11-byte square). 6 bytes (twenty-first session, two
/// rounds, against copy_any_size_halo_policy<6>): 1000001 x 65 0.927-0.929 against 0.895-0.898,
/// 16385 x 4096 0.935-0.936 against 0.929-0.930, 321 x 139375 0.955-0.957 against 0.926-0.929, 6001
/// x 7001 0.960-0.961 against 0.956-0.957, 16385 x 2731 0.950 against 0.947 (one round); level on
/// 8193 x 8193, 1025 x 87297 and 4097 x 32769 (0.955 against 0.958, one round); 64 rows, 288
/// threads, four blocks 0.914-0.916 on 1000001 x 65, level elsewhere.
template <int E>
struct copy_any_size_halo_wide_policy
    : tile_policy<(E < 7 ? 96 : 64), 256, any_size_one_step_threads(E, (E < 7 ? 96 : 64), 256),
                  (E < 7 ? 3 : 4)> {
  static_assert(E >= 6, "5- and 3-byte elements take 128-byte rows");
};
/// A copy_any_size policy's tile columns: its `columns` where it names them, else W / E.
template <class Policy, int E, class = void>
struct any_size_columns : std::integral_constant<int, Policy::tile_bytes / E> {};
template <class Policy, int E>
struct any_size_columns<Policy, E, std::void_t<decltype(Policy::columns)>>
    : std::integral_constant<int, Policy::columns> {};

}  // namespace xpose::detail::cuda
