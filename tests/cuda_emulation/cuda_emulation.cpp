// The fiber scheduler behind cuda_emulation.h: a block's threads are
// ucontext fibers run round-robin on the calling thread; each runs until it
// ends or reaches a barrier, and a barrier opens when every thread it waits
// for has reached it.
#include "cuda_emulation.h"
#include "philox_counter.h"

#include <ucontext.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#include <exception>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

uint3 threadIdx{0, 0, 0}, blockIdx{0, 0, 0};
dim3 blockDim, gridDim;

namespace trainer_emulation {
namespace {

constexpr size_t kStackBytes = 256 * 1024;
constexpr unsigned kWarp = 32;

enum class State { Runnable, AtBlockBarrier, AtWarpBarrier, Done };

struct Fiber {
  ucontext_t context{};
  // Left uninitialised (new char[]): a page is touched only when used.
  std::unique_ptr<char[]> stack;
  State state = State::Runnable;
  void* fake_stack = nullptr;  // AddressSanitizer's, kept while switched away
};

struct Block {
  ucontext_t scheduler{};
  std::vector<Fiber> fibers;
  std::vector<uint64_t> slots;
  unsigned size = 0, current = 0;
  const std::function<void()>* thread = nullptr;
  std::exception_ptr failure;
};

Block& block() {
  static Block b;
  return b;
}

// AddressSanitizer follows the stack switches only when told of them: each
// switch starts with the stack it goes to and ends, on that stack, with the
// one it came from (nothing without ASan).
#if defined(__SANITIZE_ADDRESS__)
struct SchedulerStack {
  void* fake = nullptr;
  const void* bottom = nullptr;
  size_t size = 0;
};
SchedulerStack& scheduler_stack() {
  static SchedulerStack s;
  return s;
}
#endif
void switching_to_fiber(Fiber& f) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(&scheduler_stack().fake, f.stack.get(), kStackBytes);
#else
  (void)f;
#endif
}
void back_on_scheduler() {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(scheduler_stack().fake, nullptr, nullptr);
#endif
}
void switching_to_scheduler(Fiber& f, bool ending) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(ending ? nullptr : &f.fake_stack, scheduler_stack().bottom, scheduler_stack().size);
#else
  (void)f;
  (void)ending;
#endif
}
void on_fiber(Fiber& f) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(f.fake_stack, &scheduler_stack().bottom, &scheduler_stack().size);
#else
  (void)f;
#endif
}

uint3 index_of(unsigned linear) {
  return {linear % blockDim.x, (linear / blockDim.x) % blockDim.y, linear / (blockDim.x * blockDim.y)};
}

void fiber_entry() {
  Block& b = block();
  on_fiber(b.fibers[b.current]);
  try {
    (*b.thread)();
  } catch (...) {
    if (!b.failure) b.failure = std::current_exception();
  }
  b.fibers[b.current].state = State::Done;
  switching_to_scheduler(b.fibers[b.current], /*ending=*/true);
  // uc_link returns to the scheduler.
}

void yield(State waiting) {
  Block& b = block();
  Fiber& me = b.fibers[b.current];
  me.state = waiting;
  switching_to_scheduler(me, /*ending=*/false);
  swapcontext(&me.context, &b.scheduler);
  on_fiber(me);
}

std::string states(const Block& b) {
  std::ostringstream out;
  for (unsigned i = 0; i < b.size; ++i) {
    const State s = b.fibers[i].state;
    out << (s == State::Done ? 'D' : s == State::AtBlockBarrier ? 'B' : s == State::AtWarpBarrier ? 'W' : 'R');
  }
  return out.str();
}

// Opens the barriers every thread they wait for has reached; false when
// none could open (the block is stuck).
bool open_barriers(Block& b) {
  bool all_at_block = true, any_live = false;
  for (unsigned i = 0; i < b.size; ++i) {
    const State s = b.fibers[i].state;
    if (s == State::Done) continue;
    any_live = true;
    if (s != State::AtBlockBarrier) all_at_block = false;
  }
  if (any_live && all_at_block) {
    for (unsigned i = 0; i < b.size; ++i)
      if (b.fibers[i].state == State::AtBlockBarrier) b.fibers[i].state = State::Runnable;
    return true;
  }
  bool opened = false;
  for (unsigned first = 0; first < b.size; first += kWarp) {
    const unsigned last = std::min(b.size, first + kWarp);
    bool all_at_warp = true;
    for (unsigned i = first; i < last; ++i)
      if (b.fibers[i].state != State::AtWarpBarrier) all_at_warp = false;
    if (!all_at_warp) continue;
    for (unsigned i = first; i < last; ++i) b.fibers[i].state = State::Runnable;
    opened = true;
  }
  return opened;
}

void run_block(Block& b) {
  for (unsigned i = 0; i < b.size; ++i) {
    Fiber& f = b.fibers[i];
    if (!f.stack) f.stack.reset(new char[kStackBytes]);
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.get();
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &b.scheduler;
    makecontext(&f.context, fiber_entry, 0);
    f.state = State::Runnable;
    f.fake_stack = nullptr;
  }
  for (;;) {
    bool ran = false, all_done = true;
    for (unsigned i = 0; i < b.size; ++i) {
      if (b.fibers[i].state == State::Runnable) {
        b.current = i;
        threadIdx = index_of(i);
        switching_to_fiber(b.fibers[i]);
        swapcontext(&b.scheduler, &b.fibers[i].context);
        back_on_scheduler();
        if (b.failure) return;  // the rest of the block is abandoned
        ran = true;
      }
      if (b.fibers[i].state != State::Done) all_done = false;
    }
    if (all_done) return;
    if (ran) continue;
    if (!open_barriers(b)) {
      std::ostringstream why;
      why << "emulated CUDA block (" << blockIdx.x << ", " << blockIdx.y << ", " << blockIdx.z
          << ") is stuck: a barrier that not every live thread of its block or warp reaches (threads: "
          << states(b) << "; D done, B at __syncthreads, W at a warp shuffle)";
      throw std::logic_error(why.str());
    }
  }
}

}  // namespace

void run_grid(dim3 grid, dim3 block_shape, const std::function<void()>& thread) {
  Block& b = block();
  gridDim = grid;
  blockDim = block_shape;
  b.size = block_shape.x * block_shape.y * block_shape.z;
  if (b.size == 0 || b.size > 1024) throw std::invalid_argument("emulated CUDA launch: a block of 1 to 1024 threads");
  if (b.fibers.size() < b.size) b.fibers.resize(b.size);
  b.slots.assign((b.size + kWarp - 1) / kWarp * kWarp, 0);
  b.thread = &thread;
  b.failure = nullptr;
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        blockIdx = {x, y, z};
        run_block(b);
        if (b.failure) std::rethrow_exception(b.failure);
      }
}

void wait_for_block() { yield(State::AtBlockBarrier); }

void wait_for_warp(unsigned mask) {
  if (mask != 0xffffffffu) throw std::logic_error("emulated CUDA: only full-warp shuffles are emulated");
  yield(State::AtWarpBarrier);
}

unsigned linear_thread() { return block().current; }

uint64_t& exchange_slot(unsigned linear) { return block().slots.at(linear); }

}  // namespace trainer_emulation

namespace trainer_emulation {

PhiloxCounter& philox_counter() {
  static PhiloxCounter counter;
  return counter;
}

}  // namespace trainer_emulation
