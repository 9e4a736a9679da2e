// The marshaling runtime (DL sec. 5.2): layout_buffer keeps its memory's current layout, converts
// in place only when asked for another one, and converts back to the host's layout before a copy
// to the host. Conversion plans are cached per (from, to, stream). Every live buffer is listed in
// a registry keyed by its memory, so that code holding only the pointer can ask for its layout.
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "layout/layout_gpu.hpp"
#include "layout/layout_route.hpp"

namespace xpose {
namespace detail {

struct layout_buffer_state {
  struct_array_desc desc;
  layout home, current;
  plan_options options;
  std::size_t bytes = 0;
  std::shared_ptr<void> memory;
  /// Serializes this buffer's calls (conversions, copies, the layout it records).
  std::mutex lock;
  /// A conversion failed partway: the memory holds no known layout until copy_from_host.
  bool undefined = false;
  using plan_key = std::tuple<int, std::int64_t, int, std::int64_t, void*>;
  std::map<plan_key, layout_conversion> plans;
};

namespace {

/// The registry: live buffers by the address of their memory.
struct layout_registry {
  std::mutex lock;
  std::unordered_map<const void*, std::weak_ptr<layout_buffer_state>> buffers;
};

layout_registry& registry() {
  static layout_registry instance;
  return instance;
}

void unregister(const void* memory) {
  layout_registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.lock);
  r.buffers.erase(memory);
}

/// Converts `state` to `target` (its lock held) with a cached plan on `stream`.
void convert_locked(layout_buffer_state& state, layout target, void* stream) {
  if (state.undefined)
    throw error(status::invalid_argument,
                "the layout_buffer's contents are undefined after a failed conversion: "
                "copy_from_host sets them again");
  if (canonical_layout(state.current, state.desc) == canonical_layout(target, state.desc)) {
    state.current = target;
    return;
  }
  const layout_buffer_state::plan_key key{static_cast<int>(state.current.kind), state.current.tile,
                                          static_cast<int>(target.kind), target.tile, stream};
  auto found = state.plans.find(key);
  if (found == state.plans.end()) {
    plan_options options = state.options;
    options.stream = stream;
    found =
        state.plans.emplace(key, plan_layout_conversion(state.desc, state.current, target, options))
            .first;
  }
  try {
    found->second.execute(state.memory.get());
  } catch (...) {
    state.undefined = true;  // some steps may have run
    throw;
  }
  state.current = target;
}

}  // namespace
}  // namespace detail

layout_buffer::layout_buffer(const struct_array_desc& desc, layout home,
                             const plan_options& options) {
  detail::validate_struct_array(desc);
  detail::validate_layout(home, "home");
  if (options.target != device::cpu && options.target != device::cuda)
    throw error(status::invalid_argument, "options.target must be cpu or cuda, got " +
                                              std::to_string(static_cast<int>(options.target)));
#ifndef XPOSE_HAVE_CUDA
  if (options.target == device::cuda)
    throw error(status::unsupported, "layout_buffer on device::cuda needs a build with CUDA");
#endif
  auto state = std::make_shared<detail::layout_buffer_state>();
  state->desc = desc;
  state->home = state->current = home;
  state->options = options;
  state->bytes = static_cast<std::size_t>(desc.structs * desc.fields) * desc.field_bytes;
  if (options.target == device::cuda) {
#ifdef XPOSE_HAVE_CUDA
    state->memory = detail::layout_gpu::allocate(state->bytes);
#endif
  } else {
    state->memory = std::shared_ptr<void>(new std::byte[state->bytes == 0 ? 1 : state->bytes],
                                          [](void* p) { delete[] static_cast<std::byte*>(p); });
  }
  detail::layout_registry& r = detail::registry();
  const std::lock_guard<std::mutex> lock(r.lock);
  r.buffers[state->memory.get()] = state;
  state_ = std::move(state);
}

layout_buffer::~layout_buffer() {
  if (state_) detail::unregister(state_->memory.get());
}

layout_buffer::layout_buffer(layout_buffer&&) noexcept = default;

layout_buffer& layout_buffer::operator=(layout_buffer&& other) noexcept {
  if (this != &other) {
    if (state_) detail::unregister(state_->memory.get());
    state_ = std::move(other.state_);
  }
  return *this;
}

const struct_array_desc& layout_buffer::desc() const noexcept {
  return state_->desc;
}

layout layout_buffer::current() const {
  const std::lock_guard<std::mutex> lock(state_->lock);
  return state_->current;
}

layout layout_buffer::home() const noexcept {
  return state_->home;
}

std::size_t layout_buffer::bytes() const noexcept {
  return state_->bytes;
}

void* layout_buffer::data() const noexcept {
  return state_->memory.get();
}

void layout_buffer::copy_from_host(const void* host, void* stream) {
  if (host == nullptr && state_->bytes > 0)
    throw error(status::invalid_argument, "host must not be null");
  const std::lock_guard<std::mutex> lock(state_->lock);
  if (state_->options.target == device::cuda) {
#ifdef XPOSE_HAVE_CUDA
    detail::layout_gpu::copy_async(state_->memory.get(), host, state_->bytes, true, stream);
#endif
  } else if (state_->bytes > 0) {
    std::memcpy(state_->memory.get(), host, state_->bytes);
  }
  state_->current = state_->home;
  state_->undefined = false;
}

void layout_buffer::copy_to_host(void* host, void* stream) {
  if (host == nullptr && state_->bytes > 0)
    throw error(status::invalid_argument, "host must not be null");
  const std::lock_guard<std::mutex> lock(state_->lock);
  detail::convert_locked(*state_, state_->home, stream);
  if (state_->options.target == device::cuda) {
#ifdef XPOSE_HAVE_CUDA
    detail::layout_gpu::copy_async(host, state_->memory.get(), state_->bytes, false, stream);
#endif
  } else if (state_->bytes > 0) {
    std::memcpy(host, state_->memory.get(), state_->bytes);
  }
}

void layout_buffer::convert_to(layout target, void* stream) {
  detail::validate_layout(target, "target");
  const std::lock_guard<std::mutex> lock(state_->lock);
  detail::convert_locked(*state_, target, stream);
}

void layout_buffer::check_view(std::size_t field_bytes, std::int64_t fields) const {
  if (field_bytes != state_->desc.field_bytes || fields != state_->desc.fields)
    throw error(status::invalid_argument, "the view's fields (" + std::to_string(fields) + " of " +
                                              std::to_string(field_bytes) +
                                              " B) differ from the buffer's (" +
                                              std::to_string(state_->desc.fields) + " of " +
                                              std::to_string(state_->desc.field_bytes) + " B)");
}

layout registered_layout(const void* data) {
  detail::layout_registry& r = detail::registry();
  std::shared_ptr<detail::layout_buffer_state> state;
  {
    const std::lock_guard<std::mutex> lock(r.lock);
    const auto found = r.buffers.find(data);
    if (found != r.buffers.end()) state = found->second.lock();
  }
  if (!state)
    throw error(status::invalid_argument, "no layout_buffer's memory starts at the given pointer");
  const std::lock_guard<std::mutex> lock(state->lock);
  return state->current;
}

}  // namespace xpose
