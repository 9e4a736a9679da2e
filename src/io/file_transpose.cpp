// Files transposed in place or into a new file (include/xpose/file.hpp, docs/files.md).
//
// In place, a run takes one of these methods:
//  - metadata: the .npy shape swapped and fortran_order flipped; no data moves.
//  - identity: a single row or column; the .npy shape is swapped.
//  - in memory (no journal, the matrix and the plan's workspace within the memory budget): the
//    file mapped and transposed by one in-place plan (plan_inplace with the caller's options).
//  - blocked: the steps of a block_plan (io/block_plan.hpp) with two step buffers; with the
//    journal (io/journal.hpp) each step's result is recorded and synced before it is written.
// The order of writes keeps the file from ever looking valid while its data is between layouts:
// the journal is durable before the .npy magic string is replaced by npy_busy_magic, the data is
// durable before the final header (with the magic string back) is written, and that header is
// durable before the journal is deleted.
#include "xpose/file.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "io/block_plan.hpp"
#include "io/fault_hook.hpp"
#include "io/file_handle.hpp"
#include "io/journal.hpp"
#include "io/npy_format.hpp"
#include "xpose/error.hpp"

namespace xpose {

namespace detail::io {

namespace {

fault_hook& hook_storage() {
  static fault_hook hook;
  return hook;
}

}  // namespace

void set_fault_hook(fault_hook hook) {
  hook_storage() = std::move(hook);
}

void fault_point(const char* point, std::int64_t step) {
  if (hook_storage()) hook_storage()(point, step);
}

}  // namespace detail::io

namespace {

using namespace detail::io;

/// Headers longer than this are refused (numpy writes a few hundred bytes at most, structured
/// dtypes with many fields some KiB).
constexpr std::uint64_t max_header_bytes = 16 << 20;
constexpr std::uint64_t default_budget_cap = std::uint64_t{4} << 30;
/// Smallest step: tests use small budgets to make many steps.
constexpr std::uint64_t min_step = 4096;
constexpr std::uint64_t max_step = std::uint64_t{1} << 30;

/// The matrix as the bytes lay it out: row-major rows x cols (a Fortran-order array's shape
/// reversed).
struct byte_matrix {
  std::int64_t rows = 0, cols = 0;
  std::size_t elem_size = 0;
  std::uint64_t bytes() const {
    return static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) * elem_size;
  }
};

byte_matrix byte_layout(const file_matrix& m) {
  return m.fortran_order ? byte_matrix{m.cols, m.rows, m.elem_size}
                         : byte_matrix{m.rows, m.cols, m.elem_size};
}

struct opened_matrix {
  file_matrix matrix;
  npy_header header;  ///< .npy files
  std::string header_bytes;
};

std::uint64_t checked_bytes(std::int64_t rows, std::int64_t cols, std::size_t e,
                            const std::string& path) {
  const unsigned __int128 bytes =
      static_cast<unsigned __int128>(rows) * static_cast<unsigned __int128>(cols) * e;
  if (bytes > static_cast<unsigned __int128>(INT64_MAX))
    throw error(status::invalid_argument, path + ": a " + std::to_string(rows) + " x " +
                                              std::to_string(cols) + " matrix of " +
                                              std::to_string(e) + "-byte elements overflows");
  return static_cast<std::uint64_t>(bytes);
}

[[noreturn]] void busy_error(const std::string& path) {
  if (file_exists(journal_path_for(path)))
    throw error(status::invalid_argument,
                path +
                    " is in the middle of an in-place transposition that was interrupted (its "
                    "journal is " +
                    journal_path_for(path) +
                    "): transpose it in place again (xpose transpose FILE --in-place, or "
                    "xpose::recover_file) to complete that run first");
  throw error(status::invalid_argument,
              path +
                  " was left in the middle of an in-place transposition run without a journal "
                  "(--no-journal): its data is between layouts and cannot be recovered");
}

opened_matrix read_matrix(const file_handle& file, const file_options& options) {
  const std::string& path = file.path();
  opened_matrix out;
  file_matrix& m = out.matrix;
  const std::uint64_t size = file.size();
  std::string prefix(std::min<std::uint64_t>(size, npy_prefix_bytes), '\0');
  file.read_at(prefix.data(), prefix.size(), 0);
  if (has_busy_magic(prefix)) busy_error(path);
  file_format format = options.format;
  if (format == file_format::automatic)
    format = has_npy_magic(prefix) ? file_format::npy : file_format::raw;
  m.format = format;
  if (format == file_format::npy) {
    const std::uint64_t length = npy_header_length(prefix, path);
    if (length > max_header_bytes || length > size)
      throw error(status::invalid_argument,
                  path + ": its .npy header claims " + std::to_string(length) +
                      " bytes, more than " +
                      (length > size ? "the file holds" : std::to_string(max_header_bytes)));
    out.header_bytes.assign(length, '\0');
    file.read_at(out.header_bytes.data(), length, 0);
    out.header = parse_npy_header(out.header_bytes, path);
    const npy_header& h = out.header;
    if (h.shape.size() != 2)
      throw error(status::invalid_argument, path + " holds an array of shape " +
                                                shape_text(h.shape) +
                                                ": xpose transposes 2-D arrays (matrices)");
    if (h.elem_size == 0)
      throw error(status::invalid_argument, path + ": dtype " + h.descr + " has no bytes");
    m.rows = h.shape[0];
    m.cols = h.shape[1];
    m.elem_size = h.elem_size;
    m.fortran_order = h.fortran_order;
    m.data_offset = h.header_bytes;
    m.dtype = h.descr;
    if ((options.rows != 0 && options.rows != m.rows) ||
        (options.cols != 0 && options.cols != m.cols) ||
        (options.elem_size != 0 && options.elem_size != m.elem_size))
      throw error(status::invalid_argument,
                  path + " holds a " + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
                      " array of " + std::to_string(m.elem_size) +
                      "-byte elements, not the shape or element size given");
  } else {
    if (options.rows < 1 || options.cols < 1 || options.elem_size < 1)
      throw error(status::invalid_argument,
                  path +
                      " is a raw file (no .npy header): give its shape and element size "
                      "(rows, cols and elem_size; on the command line --shape R,C and "
                      "--dtype or --elem)");
    if (file_exists(journal_path_for(path))) busy_error(path);
    m.rows = options.rows;
    m.cols = options.cols;
    m.elem_size = options.elem_size;
  }
  const std::uint64_t data = checked_bytes(m.rows, m.cols, m.elem_size, path);
  if (m.data_offset + data != size)
    throw error(
        status::invalid_argument,
        path + " has " + std::to_string(size) + " bytes, but a " + std::to_string(m.rows) + " x " +
            std::to_string(m.cols) + " matrix of " + std::to_string(m.elem_size) +
            "-byte elements" +
            (m.data_offset > 0 ? " after a " + std::to_string(m.data_offset) + "-byte header"
                               : std::string()) +
            " needs " + std::to_string(m.data_offset + data));
  return out;
}

/// Address space each thread may take besides the budget under an address-space limit: its
/// stack and glibc's 64 MiB malloc arena.
constexpr std::uint64_t per_thread_address_space = std::uint64_t{72} << 20;

/// Address space the process has mapped now (its libraries among it).
std::uint64_t address_space_used() {
  std::uint64_t pages = 0;
  std::ifstream statm("/proc/self/statm");
  if (!(statm >> pages)) return 0;
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

/// The caller's thread count, or OpenMP's; under an address-space limit (ulimit -v) no more than
/// half of what the limit leaves can hold, so that the memory budget keeps the other half (on 16
/// cores, 16 threads' stacks and arenas alone take more than a 1 GiB limit).
int resolve_threads(const file_options& options) {
  if (options.plan.threads > 0) return options.plan.threads;
  int threads = omp_get_max_threads();
  if (const std::uint64_t limit = address_space_limit_bytes(); limit != 0) {
    const std::uint64_t used = address_space_used();
    const std::uint64_t left = limit > used ? (limit - used) / 2 : 0;
    threads = static_cast<int>(std::clamp<std::uint64_t>(left / per_thread_address_space, 1,
                                                         static_cast<std::uint64_t>(threads)));
  }
  return threads;
}

/// The memory budget in effect: the caller's, or a quarter of physical memory (at most
/// default_budget_cap), within half of what the address-space limit leaves after the threads.
std::uint64_t resolve_budget(const file_options& options) {
  std::uint64_t budget = options.memory_budget;
  if (budget == 0) {
    const std::uint64_t physical = physical_memory_bytes();
    budget = physical == 0 ? (std::uint64_t{1} << 30) : std::min(physical / 4, default_budget_cap);
  }
  if (const std::uint64_t limit = address_space_limit_bytes(); limit != 0) {
    const std::uint64_t used = address_space_used();
    const std::uint64_t threads = static_cast<std::uint64_t>(resolve_threads(options));
    const std::uint64_t taken = used + threads * per_thread_address_space;
    const std::uint64_t left = limit > taken ? (limit - taken) / 2 : 0;
    if (options.memory_budget == 0) budget = std::min(budget, left);
  }
  return std::max(budget, 2 * min_step);
}

/// Two step buffers share the budget; a step is at most max_step bytes (the journal's record).
std::uint64_t step_bytes_for(std::uint64_t budget) {
  return std::clamp(budget / 2, min_step, max_step);
}

class buffer {
 public:
  explicit buffer(std::uint64_t bytes) {
    if (bytes == 0) return;
    data_.reset(new (std::nothrow) std::byte[bytes]);
    if (!data_)
      throw error(status::out_of_memory,
                  "cannot allocate a " + std::to_string(bytes) + "-byte step buffer");
  }
  std::byte* get() const { return data_.get(); }

 private:
  std::unique_ptr<std::byte[]> data_;
};

/// Runs `work(i)` for i in [0, count) on `threads` threads; the first exception is rethrown.
template <class Work>
void parallel_runs(std::size_t count, int threads, Work work) {
  if (count == 1) {
    work(0);
    return;
  }
  std::exception_ptr failure;
  std::mutex failure_lock;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
  for (std::size_t i = 0; i < count; ++i) {
    try {
      work(i);
    } catch (...) {
      const std::lock_guard<std::mutex> guard(failure_lock);
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

/// `runs` with neighbours that touch merged (the buffer holds them back to back either way), and
/// where each starts in the buffer.
std::pair<std::vector<byte_run>, std::vector<std::uint64_t>> merged(
    const std::vector<byte_run>& runs) {
  std::vector<byte_run> joined;
  std::vector<std::uint64_t> at;
  std::uint64_t offset = 0;
  for (const byte_run& r : runs) {
    if (!joined.empty() && joined.back().offset + joined.back().bytes == r.offset) {
      joined.back().bytes += r.bytes;
    } else {
      joined.push_back(r);
      at.push_back(offset);
    }
    offset += r.bytes;
  }
  return {std::move(joined), std::move(at)};
}

void read_runs(const file_handle& file, std::uint64_t base, const std::vector<byte_run>& step,
               std::byte* out, int threads) {
  const auto joined = merged(step);
  const std::vector<byte_run>& runs = joined.first;
  const std::vector<std::uint64_t>& at = joined.second;
  parallel_runs(runs.size(), threads, [&](std::size_t i) {
    file.read_at(out + at[i], runs[i].bytes, base + runs[i].offset);
  });
}

/// Writes the runs from `in`; `part` 0 writes the whole of each run, 1 its first half and 2 its
/// second half.
void write_runs(const file_handle& file, std::uint64_t base, const std::vector<byte_run>& step,
                const std::byte* in, int threads, int part = 0) {
  const auto joined = merged(step);
  const std::vector<byte_run>& runs = joined.first;
  const std::vector<std::uint64_t>& at = joined.second;
  parallel_runs(runs.size(), threads, [&](std::size_t i) {
    const std::uint64_t half = runs[i].bytes / 2;
    const std::uint64_t from = part == 2 ? half : 0;
    const std::uint64_t to = part == 1 ? half : runs[i].bytes;
    file.write_at(in + at[i] + from, to - from, base + runs[i].offset + from);
  });
}

struct progress_counter {
  const file_options& options;
  std::uint64_t done = 0, total = 0;
  void add(std::uint64_t bytes) {
    done += bytes;
    if (options.progress) options.progress(done, total);
  }
};

/// The two buffers of a blocked run, allocated before the file is touched.
struct step_buffers {
  explicit step_buffers(const block_plan& plan)
      : in(plan.largest_step_bytes()), out(plan.largest_step_bytes()) {}
  buffer in, out;
};

/// Steps [first, plan.total_steps) of `plan` on the matrix at `base` in `file`; with a journal,
/// each step's result is recorded and synced before it is written, and committed after.
void run_steps(const file_handle& file, std::uint64_t base, const block_plan& plan,
               std::int64_t first, journal* log, int threads, const step_buffers& buffers,
               progress_counter& progress) {
  const buffer& in = buffers.in;
  const buffer& out = buffers.out;
  std::vector<byte_run> runs;
  for (std::int64_t step = first; step < plan.total_steps; ++step) {
    const auto [phase, local] = locate_step(plan, step);
    const std::uint64_t bytes = step_runs(plan.phases[phase], local, runs);
    read_runs(file, base, runs, in.get(), threads);
    permute_step(plan.phases[phase], local, in.get(), out.get(), threads);
    if (log != nullptr) {
      log->write_record(step, out.get(), bytes);
      fault_point("record written", step);
    }
    write_runs(file, base, runs, out.get(), threads, 1);
    fault_point("half written", step);
    write_runs(file, base, runs, out.get(), threads, 2);
    fault_point("data written", step);
    if (log != nullptr) {
      file.sync();
      log->commit(step);
      fault_point("committed", step);
    }
    progress.add(bytes);
  }
}

std::string final_header_for(const opened_matrix& m, bool flip_order) {
  const npy_header& h = m.header;
  const bool fortran = flip_order ? !h.fortran_order : h.fortran_order;
  return format_npy_header(h.descr, fortran, {h.shape[1], h.shape[0]}, h.major, h.minor,
                           h.header_bytes);
}

file_matrix transposed(const file_matrix& m, bool flip_order) {
  file_matrix t = m;
  std::swap(t.rows, t.cols);
  if (flip_order) t.fortran_order = !t.fortran_order;
  return t;
}

/// Completes the run `log` describes on `path` (the journal is deleted at the end).
void complete_run(const std::string& path, journal& log, const file_options& options,
                  file_report& report) {
  const journal_header& h = log.header();
  const file_handle file(path, file_handle::mode::read_write);
  if (file.size() != h.file_size)
    throw error(status::invalid_argument,
                path + " has " + std::to_string(file.size()) + " bytes but its journal " +
                    log.path() + " records " + std::to_string(h.file_size) +
                    ": it is not the file that was being transposed; restore it, or delete the "
                    "journal if the file is known to be whole");
  const block_plan plan =
      make_block_plan(h.rows, h.cols, h.elem_size, h.step_bytes, h.route, h.factor, true);
  const int threads = resolve_threads(options);
  const step_buffers buffers(plan);
  if (!h.final_header.empty()) {
    // Marked (again: idempotent) before any step runs, in case the interruption came first.
    file.write_at(npy_busy_magic.data(), npy_busy_magic.size(), 0);
    file.sync();
    fault_point("marked");
  }
  progress_counter progress{options, 0,
                            static_cast<std::uint64_t>(plan.phases.size()) *
                                static_cast<std::uint64_t>(h.rows) *
                                static_cast<std::uint64_t>(h.cols) * h.elem_size};
  std::int64_t next = log.committed() + 1;
  for (std::int64_t step = 0; step < next && step < plan.total_steps; ++step) {
    std::vector<byte_run> runs;
    const auto [phase, local] = locate_step(plan, step);
    progress.done += step_runs(plan.phases[phase], local, runs);
  }
  if (next < plan.total_steps) {
    // The recorded step's result, if whole, goes where it belongs; a torn record means the step
    // never reached the file, and it runs from the file's bytes.
    std::vector<byte_run> runs;
    const auto [phase, local] = locate_step(plan, next);
    const std::uint64_t bytes = step_runs(plan.phases[phase], local, runs);
    if (log.read_record(next, buffers.out.get(), bytes)) {
      write_runs(file, h.data_offset, runs, buffers.out.get(), threads);
      file.sync();
      log.commit(next);
      fault_point("committed", next);
      progress.add(bytes);
      ++next;
    }
  }
  run_steps(file, h.data_offset, plan, next, &log, threads, buffers, progress);
  file.sync();
  if (!h.final_header.empty()) {
    file.write_at(h.final_header.data(), h.final_header.size(), 0);
    file.sync();
    fault_point("final header");
  }
  log.remove();
  report.method = "blocked";
  report.details = plan.describe();
  report.resumed = true;
}

/// A .npy file's header rewritten in place (same length), synced.
void rewrite_header(const file_handle& file, const std::string& header) {
  file.write_at(header.data(), header.size(), 0);
  file.sync();
}

}  // namespace

std::string journal_path(const std::string& path) {
  return journal_path_for(path);
}

file_matrix inspect_file(const std::string& path, const file_options& options) {
  const file_handle file(path, file_handle::mode::read);
  return read_matrix(file, options).matrix;
}

bool recover_file(const std::string& path, const file_options& options) {
  std::optional<journal> log = journal::open(path);
  if (!log) return false;
  file_report report;
  complete_run(path, *log, options, report);
  return true;
}

file_report transpose_file_inplace(const std::string& path, const file_options& options) {
  file_report report;
  report.memory_budget = resolve_budget(options);
  if (std::optional<journal> log = journal::open(path)) {
    complete_run(path, *log, options, report);
    const file_handle file(path, file_handle::mode::read);
    file_options as_found;  // what the journal says the file is, not the caller's shape
    as_found.format = log->header().final_header.empty() ? file_format::raw : file_format::npy;
    if (as_found.format == file_format::raw) {
      as_found.rows = log->header().cols;
      as_found.cols = log->header().rows;
      as_found.elem_size = log->header().elem_size;
    }
    report.after = read_matrix(file, as_found).matrix;
    report.before = transposed(report.after, false);
    return report;
  }
  remove_file(journal_path_for(path) + ".new");  // left by a run interrupted while creating one

  const file_handle file(path, file_handle::mode::read_write);
  const opened_matrix opened = read_matrix(file, options);
  const file_matrix& m = opened.matrix;
  const bool npy = m.format == file_format::npy;
  report.before = m;
  if (options.plan.target != device::cpu)
    throw error(status::invalid_argument,
                "file_options.plan.target must be cpu (a file's data is in host memory); "
                "plan.host_via_gpu lets the GPU transpose it");

  if (options.flip_order_only) {
    if (!npy)
      throw error(status::invalid_argument,
                  path + " is a raw file: only a .npy file has an order flag to flip");
    rewrite_header(file, final_header_for(opened, true));
    report.after = transposed(m, true);
    report.method = "metadata";
    return report;
  }
  const std::string final_header = npy ? final_header_for(opened, false) : std::string();
  report.after = transposed(m, false);
  const byte_matrix bm = byte_layout(m);
  const int threads = resolve_threads(options);

  if (bm.rows <= 1 || bm.cols <= 1) {
    if (npy) rewrite_header(file, final_header);
    report.method = "identity";
    return report;
  }

  // In memory: no journal, and the matrix with the plan's workspace within the budget.
  if (!options.journal && bm.elem_size <= max_elem_size && bm.bytes() < report.memory_budget) {
    const plan p = plan_inplace({bm.rows, bm.cols, bm.elem_size}, options.plan);
    std::optional<mapped_file> map;
    if (bm.bytes() + p.workspace_bytes() <= report.memory_budget) {
      try {
        map.emplace(file, file.size());
      } catch (const error&) {
        // No address space for the map (ulimit -v): the blocked route below needs less.
      }
    }
    if (map) {
      if (npy) {
        file.write_at(npy_busy_magic.data(), npy_busy_magic.size(), 0);
        file.sync();
        fault_point("marked");
      }
      if (options.progress) options.progress(0, bm.bytes());
      p.execute(map->data() + m.data_offset);
      map->sync();
      fault_point("data written");
      if (npy) {
        rewrite_header(file, final_header);
        fault_point("final header");
      }
      if (options.progress) options.progress(bm.bytes(), bm.bytes());
      report.method = "in memory";
      report.details = p.describe();
      return report;
    }
  }

  const block_plan blocked = [&] {
    try {
      return choose_block_plan(bm.rows, bm.cols, bm.elem_size, step_bytes_for(report.memory_budget),
                               options.journal);
    } catch (const error& e) {
      if (options.memory_budget != 0 || address_space_limit_bytes() == 0) throw;
      throw error(e.code(), std::string(e.what()) + " (the budget of " +
                                std::to_string(report.memory_budget) +
                                " bytes is what the address-space limit, ulimit -v, leaves)");
    }
  }();
  report.method = "blocked";
  report.details = blocked.describe();
  progress_counter progress{options, 0,
                            static_cast<std::uint64_t>(blocked.phases.size()) * bm.bytes()};
  const step_buffers buffers(blocked);
  std::optional<journal> log;
  if (options.journal) {
    journal_header h;
    h.file_size = file.size();
    h.data_offset = m.data_offset;
    h.rows = bm.rows;
    h.cols = bm.cols;
    h.elem_size = bm.elem_size;
    h.route = blocked.route;
    h.factor = blocked.factor;
    h.step_bytes = blocked.step_bytes;
    if (npy) {
      h.original_header = opened.header_bytes;
      h.final_header = final_header;
    }
    log = journal::create(path, h);
    fault_point("journal created");
  }
  if (npy) {
    file.write_at(npy_busy_magic.data(), npy_busy_magic.size(), 0);
    file.sync();
    fault_point("marked");
  }
  if (options.progress) options.progress(0, progress.total);
  run_steps(file, m.data_offset, blocked, 0, log ? &*log : nullptr, threads, buffers, progress);
  file.sync();
  if (npy) {
    file.write_at(final_header.data(), final_header.size(), 0);
    file.sync();
    fault_point("final header");
  }
  if (log) log->remove();
  return report;
}

file_report transpose_file(const std::string& src, const std::string& dst,
                           const file_options& options) {
  file_report report;
  report.memory_budget = resolve_budget(options);
  if (src == dst)
    throw error(status::invalid_argument, "the source and destination are the same file (" + src +
                                              "): transpose it in place instead");
  const file_handle in(src, file_handle::mode::read);
  const opened_matrix opened = read_matrix(in, options);
  const file_matrix& m = opened.matrix;
  const bool npy = m.format == file_format::npy;
  if (file_exists(dst)) {
    const file_handle existing(dst, file_handle::mode::read);
    if (existing.identity() == in.identity())
      throw error(status::invalid_argument,
                  dst + " is " + src + " under another name: transpose it in place instead");
  }
  if (options.flip_order_only && !npy)
    throw error(status::invalid_argument,
                src + " is a raw file: only a .npy file has an order flag to flip");
  report.before = m;
  report.after = transposed(m, options.flip_order_only);
  const std::string header = npy ? final_header_for(opened, options.flip_order_only) : "";
  const byte_matrix bm = byte_layout(m);
  const int threads = resolve_threads(options);
  const std::uint64_t step = step_bytes_for(report.memory_budget);

  const std::string temporary = dst + ".xpose-partial";
  {
    const file_handle out(temporary, file_handle::mode::create);
    out.resize(m.data_offset + bm.bytes());
    if (npy) out.write_at(header.data(), header.size(), 0);
    const buffer a(std::min(step, bm.bytes())), b(std::min(step, bm.bytes()));
    std::uint64_t done = 0;
    if (options.progress) options.progress(0, bm.bytes());
    if (options.flip_order_only) {
      report.method = "copy";
      for (std::uint64_t at = 0; at < bm.bytes(); at += step) {
        const std::uint64_t bytes = std::min(step, bm.bytes() - at);
        in.read_at(a.get(), bytes, m.data_offset + at);
        out.write_at(a.get(), bytes, m.data_offset + at);
        done += bytes;
        if (options.progress) options.progress(done, bm.bytes());
      }
    } else if (bm.bytes() > 0) {
      // Tiles of r x c elements, as square as the step allows so that both the reads (c
      // elements a run) and the writes (r a run) are long.
      const std::uint64_t e = bm.elem_size;
      const std::uint64_t elements = std::max<std::uint64_t>(step / e, 1);
      std::int64_t c = std::min<std::int64_t>(
          bm.cols, std::max<std::int64_t>(
                       1, static_cast<std::int64_t>(std::sqrt(static_cast<double>(elements)))));
      std::int64_t r = std::min<std::int64_t>(
          bm.rows, std::max<std::int64_t>(1, static_cast<std::int64_t>(elements / c)));
      if (r == bm.rows)
        c = std::min<std::int64_t>(
            bm.cols, std::max<std::int64_t>(1, static_cast<std::int64_t>(elements / r)));
      report.method = "copy";
      report.details = "tiles of " + std::to_string(r) + " x " + std::to_string(c) + " elements";
      std::vector<byte_run> reads, writes;
      for (std::int64_t i0 = 0; i0 < bm.rows; i0 += r) {
        const std::int64_t rows = std::min(r, bm.rows - i0);
        for (std::int64_t j0 = 0; j0 < bm.cols; j0 += c) {
          const std::int64_t cols = std::min(c, bm.cols - j0);
          reads.clear();
          writes.clear();
          for (std::int64_t i = 0; i < rows; ++i)
            reads.push_back({(static_cast<std::uint64_t>(i0 + i) * bm.cols + j0) * e,
                             static_cast<std::uint64_t>(cols) * e});
          for (std::int64_t j = 0; j < cols; ++j)
            writes.push_back({(static_cast<std::uint64_t>(j0 + j) * bm.rows + i0) * e,
                              static_cast<std::uint64_t>(rows) * e});
          read_runs(in, m.data_offset, reads, a.get(), threads);
          block_phase tile;
          tile.kind = block_phase_kind::slabs;
          tile.rows = rows;
          tile.cols = cols;
          tile.count = 1;
          tile.unit_bytes = e;
          tile.per_step = 1;
          tile.steps = 1;
          permute_step(tile, 0, a.get(), b.get(), threads);
          write_runs(out, m.data_offset, writes, b.get(), threads);
          done += static_cast<std::uint64_t>(rows * cols) * e;
          if (options.progress) options.progress(done, bm.bytes());
        }
      }
    }
    out.sync();
  }
  rename_file(temporary, dst);
  sync_directory_of(dst);
  return report;
}

}  // namespace xpose
