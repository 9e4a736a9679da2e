// Crash safety of in-place file runs: a child process transposing a file is killed (SIGKILL) at
// every fault point of its run (after the journal is written, after the file is marked, after
// each step's record, half of its data, all of its data and its commit, after the final header),
// and at random times; then
//  - while interrupted, the file is never a readable .npy file holding anything but the original
//    or the transposed matrix (a run marks it unreadable first);
//  - the next run completes the transposition when a journal was left, and finds the original
//    file untouched when none was;
//  - a run interrupted while completing another is completed in turn.
// Without the journal an interrupted .npy file stays unreadable (its data is lost), never wrong.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "file_test_util.hpp"
#include "io/file_handle.hpp"
#include "io/npy_format.hpp"
#include "test_util.hpp"
#include "xpose/error.hpp"
#include "xpose/file.hpp"

extern char** environ;

namespace xpose::test {
namespace {

bool exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

/// A started child process.
pid_t spawn_child(const std::vector<std::string>& args, const std::string& output) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(XPOSE_CRASH_CHILD));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int failed = posix_spawn(&pid, XPOSE_CRASH_CHILD, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(failed, 0) << "cannot start " << XPOSE_CRASH_CHILD;
  return pid;
}

/// How the child ended: the signal that killed it, or 0 after a normal exit (status checked).
int wait_child(pid_t pid) {
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  if (WIFSIGNALED(status)) return WTERMSIG(status);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  return 0;
}

/// The two states a file may be read in: the original and the transposed matrix, whole.
struct case_files {
  std::string path;
  bool npy = true;
  std::int64_t rows = 0, cols = 0;
  std::size_t elem = 4;
  std::vector<unsigned char> original, transposed;  ///< whole files

  std::vector<std::string> child_args(long long kill_at, std::uint64_t budget, bool journal) const {
    std::vector<std::string> a = {path, std::to_string(kill_at), std::to_string(budget),
                                  journal ? "1" : "0"};
    if (!npy) {
      a.push_back(std::to_string(rows));
      a.push_back(std::to_string(cols));
      a.push_back(std::to_string(elem));
    }
    return a;
  }
  file_options options() const {
    file_options o;
    if (!npy) {
      o.format = file_format::raw;
      o.rows = rows;
      o.cols = cols;
      o.elem_size = elem;
    }
    return o;
  }
};

case_files make_case(const temp_directory& dir, bool npy, std::int64_t rows, std::int64_t cols,
                     std::size_t elem, std::uint64_t seed) {
  case_files c;
  c.path = dir.file(npy ? "crash.npy" : "crash.bin");
  c.npy = npy;
  c.rows = rows;
  c.cols = cols;
  c.elem = elem;
  const std::vector<unsigned char> data =
      random_bytes(static_cast<std::size_t>(rows * cols) * elem, seed);
  const std::vector<unsigned char> t = reference_transpose(data, rows, cols, elem);
  if (npy) {
    write_npy(c.path, "'<f4'", false, {cols, rows}, t);
    c.transposed = read_file_bytes(c.path);
    write_npy(c.path, "'<f4'", false, {rows, cols}, data);
    c.original = read_file_bytes(c.path);
  } else {
    c.original = data;
    c.transposed = t;
  }
  return c;
}

void restore(const case_files& c) {
  write_file_bytes(c.path, c.original);
  detail::io::remove_file(journal_path(c.path));
}

/// While interrupted: a .npy file that numpy's magic string says is readable must be the
/// original or the transposed file.
void expect_never_wrong_and_readable(const case_files& c, const std::string& where) {
  if (!c.npy) return;
  const std::vector<unsigned char> now = read_file_bytes(c.path);
  const std::string_view view(reinterpret_cast<const char*>(now.data()), now.size());
  if (!detail::io::has_npy_magic(view)) {
    EXPECT_TRUE(detail::io::has_busy_magic(view)) << where;
    return;
  }
  EXPECT_TRUE(now == c.original || now == c.transposed)
      << where << ": a readable file holds neither the original nor the transpose";
}

/// Count of fault points in an uninterrupted run.
long long count_points(const temp_directory& dir, const case_files& c, std::uint64_t budget,
                       bool journal) {
  restore(c);
  const std::string out = dir.file("child.out");
  EXPECT_EQ(wait_child(spawn_child(c.child_args(-1, budget, journal), out)), 0);
  EXPECT_TRUE(read_file_bytes(c.path) == c.transposed) << "the uninterrupted run";
  const std::vector<unsigned char> text = read_file_bytes(out);
  const std::string line(text.begin(), text.end());
  EXPECT_EQ(line.rfind("points ", 0), 0u) << line;
  return std::atoll(line.c_str() + 7);
}

void kill_at_every_point(bool npy, std::uint64_t budget) {
  temp_directory dir;
  const case_files c = make_case(dir, npy, 150, 96, 4, npy ? 11 : 12);
  const long long points = count_points(dir, c, budget, true);
  ASSERT_GT(points, 20) << "expected a run of many steps";
  const std::string out = dir.file("child.out");
  for (long long k = 0; k < points; ++k) {
    restore(c);
    const std::string where = "killed at point " + std::to_string(k);
    ASSERT_EQ(wait_child(spawn_child(c.child_args(k, budget, true), out)), SIGKILL) << where;
    expect_never_wrong_and_readable(c, where);
    const bool journaled = exists(journal_path(c.path));
    if (!journaled) {
      EXPECT_TRUE(read_file_bytes(c.path) == c.original) << where << ": no journal, not original";
      continue;
    }
    // Every other point: the completing run is itself killed once, part of the way.
    if (k % 2 == 1) {
      const long long again = (k * 7) % 10;
      const int signal = wait_child(spawn_child(c.child_args(again, budget, true), out));
      expect_never_wrong_and_readable(c, where + ", then again at " + std::to_string(again));
      if (signal == 0) {
        EXPECT_TRUE(read_file_bytes(c.path) == c.transposed) << where;
        continue;
      }
    }
    EXPECT_TRUE(recover_file(c.path, c.options())) << where;
    EXPECT_FALSE(exists(journal_path(c.path))) << where;
    ASSERT_TRUE(read_file_bytes(c.path) == c.transposed) << where << ": not completed";
  }
}

TEST(FileCrash, NpyKilledAtEveryPointIsCompletedByTheNextRun) {
  kill_at_every_point(true, 16 << 10);
}

TEST(FileCrash, RawKilledAtEveryPointIsCompletedByTheNextRun) {
  kill_at_every_point(false, 24 << 10);
}

TEST(FileCrash, TheInPlaceCommandCompletesAnInterruptedRunInsteadOfStartingAnother) {
  temp_directory dir;
  const case_files c = make_case(dir, true, 150, 96, 4, 13);
  const std::string out = dir.file("child.out");
  ASSERT_EQ(wait_child(spawn_child(c.child_args(30, 16 << 10, true), out)), SIGKILL);
  ASSERT_TRUE(exists(journal_path(c.path)));
  EXPECT_THROW(inspect_file(c.path), error);  // mid-run: refused, naming the journal
  file_options o;
  o.memory_budget = 16 << 10;
  o.rows = 150;  // the same command again: the shape of the original, now mid-run
  o.cols = 96;
  const file_report r = transpose_file_inplace(c.path, o);
  EXPECT_TRUE(r.resumed);
  EXPECT_EQ(r.after.rows, 96);
  EXPECT_TRUE(read_file_bytes(c.path) == c.transposed);
}

TEST(FileCrash, WithoutJournalAnInterruptedNpyFileIsUnreadableNeverWrong) {
  temp_directory dir;
  const case_files c = make_case(dir, true, 150, 96, 4, 14);
  const std::uint64_t budget = 16 << 10;
  const long long points = count_points(dir, c, budget, false);
  const std::string out = dir.file("child.out");
  for (long long k = 0; k < points; ++k) {
    restore(c);
    ASSERT_EQ(wait_child(spawn_child(c.child_args(k, budget, false), out)), SIGKILL);
    expect_never_wrong_and_readable(c, "no journal, killed at point " + std::to_string(k));
    EXPECT_FALSE(exists(journal_path(c.path)));
  }
}

TEST(FileCrash, KilledAtRandomTimes) {
  temp_directory dir;
  // 1.2 MB in 64 KiB steps: about 60 steps with three syncs each.
  const case_files c = make_case(dir, true, 600, 500, 4, 15);
  const std::uint64_t budget = 128 << 10;
  const std::string out = dir.file("child.out");
  restore(c);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(wait_child(spawn_child(c.child_args(-1, budget, true), out)), 0);
  const auto full = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  ASSERT_TRUE(read_file_bytes(c.path) == c.transposed);
  std::mt19937_64 rng(16);
  int interrupted = 0;
  for (int trial = 0; trial < 12; ++trial) {
    restore(c);
    const pid_t pid = spawn_child(c.child_args(-1, budget, true), out);
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % (full + 1)));
    ::kill(pid, SIGKILL);
    const int signal = wait_child(pid);
    const std::string where = "trial " + std::to_string(trial);
    expect_never_wrong_and_readable(c, where);
    if (signal == SIGKILL && exists(journal_path(c.path))) {
      ++interrupted;
      EXPECT_TRUE(recover_file(c.path, c.options())) << where;
      EXPECT_TRUE(read_file_bytes(c.path) == c.transposed) << where;
    } else {
      const std::vector<unsigned char> now = read_file_bytes(c.path);
      EXPECT_TRUE(now == c.original || now == c.transposed) << where;
    }
  }
  EXPECT_GT(interrupted, 0) << "no trial interrupted a run (a run took " << full << " us)";
}

}  // namespace
}  // namespace xpose::test
