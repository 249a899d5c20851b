#include "lab/simulation/fiber.hpp"

#include <setjmp.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define QUOTE_LAB_ASAN_FIBERS 1
#endif
#if defined(__SANITIZE_THREAD__)
// sanitizer/tsan_interface.h declares these from GCC 10 on; declared here so an older header
// does not matter.
extern "C" {
void* __tsan_get_current_fiber(void);
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
}
#define QUOTE_LAB_TSAN_FIBERS 1
#endif
// swapcontext saves and restores the signal mask, a system call on every switch: 32 per
// simulated quote, half a simulation's time where system calls are dear (a virtual machine).
// Without a sanitizer, a fiber is entered once with setcontext and then switched with
// _setjmp/_longjmp, which leave the mask alone (the fibers never change it). Under a sanitizer,
// swapcontext stays: the sanitizers' longjmp interceptors expect one stack.
#if !defined(QUOTE_LAB_ASAN_FIBERS) && !defined(QUOTE_LAB_TSAN_FIBERS)
#define QUOTE_LAB_JMP_SWITCH 1
#endif

namespace quote_lab {

struct Fiber::Context {
  ucontext_t self{};
  ucontext_t caller{};
  // Without a sanitizer: where the fiber and whoever resumed it were when they switched.
  jmp_buf self_jump{};
  jmp_buf caller_jump{};
  // AddressSanitizer: the fake stack this fiber left when it switched out, and the stack of
  // whoever resumed it (to name when switching back).
  void* fake_stack = nullptr;
  const void* caller_bottom = nullptr;
  std::size_t caller_size = 0;
  // ThreadSanitizer: this fiber, and the context that resumed it.
  void* tsan_fiber = nullptr;
  void* tsan_caller = nullptr;
};

namespace {
thread_local Fiber* starting = nullptr;  // the fiber entry() is about to run

std::size_t page_bytes() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }
}  // namespace

std::size_t Fiber::default_stack_bytes() {
#if defined(QUOTE_LAB_ASAN_FIBERS) || defined(QUOTE_LAB_TSAN_FIBERS)
  return 1024 * 1024;
#else
  return 256 * 1024;
#endif
}

Fiber::Fiber(std::function<void()> body, std::size_t stack_bytes)
    : body_(std::move(body)), context_(std::make_unique<Context>()) {
  const std::size_t page = page_bytes();
  stack_bytes_ = (stack_bytes + page - 1) / page * page + page;  // one guard page below
  stack_ = mmap(nullptr, stack_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                -1, 0);
  if (stack_ == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "fiber stack");
  // A stack that overflows hits the guard page (a crash), never the memory below it.
  mprotect(stack_, page, PROT_NONE);
#ifdef QUOTE_LAB_TSAN_FIBERS
  context_->tsan_fiber = __tsan_create_fiber(0);
#endif
}

Fiber::~Fiber() {
#ifdef QUOTE_LAB_TSAN_FIBERS
  __tsan_destroy_fiber(context_->tsan_fiber);
#endif
  munmap(stack_, stack_bytes_);
}

void Fiber::reset(std::function<void()> body) {
  if (!ended_) throw std::logic_error("Fiber::reset: the fiber has not ended");
  body_ = std::move(body);
  started_ = false;
  ended_ = false;
  error_ = nullptr;
}

void Fiber::entry() {
  Fiber* self = starting;
  self->switch_in();
  try {
    self->body_();
  } catch (...) {
    self->error_ = std::current_exception();
  }
  self->body_ = nullptr;  // what the body captured goes now, on its own stack
  self->ended_ = true;
  self->switch_out(/*ending=*/true);
}

void Fiber::switch_in() {
#ifdef QUOTE_LAB_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(context_->fake_stack, &context_->caller_bottom, &context_->caller_size);
#endif
}

void Fiber::switch_out(bool ending) {
#ifdef QUOTE_LAB_ASAN_FIBERS
  // An ending fiber passes no fake stack: AddressSanitizer frees it.
  __sanitizer_start_switch_fiber(ending ? nullptr : &context_->fake_stack, context_->caller_bottom,
                                 context_->caller_size);
#else
  (void)ending;
#endif
#ifdef QUOTE_LAB_TSAN_FIBERS
  __tsan_switch_to_fiber(context_->tsan_caller, 0);
#endif
#ifdef QUOTE_LAB_JMP_SWITCH
  if (_setjmp(context_->self_jump) == 0) _longjmp(context_->caller_jump, 1);
#else
  swapcontext(&context_->self, &context_->caller);
#endif
  switch_in();
}

void Fiber::resume() {
  if (ended_) throw std::logic_error("Fiber::resume: the fiber has ended");
  const bool first = !started_;
  if (first) {
    started_ = true;
    getcontext(&context_->self);
    const std::size_t page = page_bytes();
    context_->self.uc_stack.ss_sp = static_cast<char*>(stack_) + page;
    context_->self.uc_stack.ss_size = stack_bytes_ - page;
    context_->self.uc_link = nullptr;  // entry() never returns: it switches out for the last time
    makecontext(&context_->self, &Fiber::entry, 0);
    starting = this;
  }
#ifdef QUOTE_LAB_ASAN_FIBERS
  void* own_fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&own_fake_stack, static_cast<char*>(stack_) + page_bytes(), stack_bytes_ - page_bytes());
#endif
#ifdef QUOTE_LAB_TSAN_FIBERS
  context_->tsan_caller = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(context_->tsan_fiber, 0);
#endif
#ifdef QUOTE_LAB_JMP_SWITCH
  // Back here when the fiber switches out; entered at entry() the first time, where it left
  // off after.
  if (_setjmp(context_->caller_jump) == 0) {
    if (first) setcontext(&context_->self);
    _longjmp(context_->self_jump, 1);
  }
#else
  (void)first;
  swapcontext(&context_->caller, &context_->self);
#endif
#ifdef QUOTE_LAB_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(own_fake_stack, nullptr, nullptr);
#endif
  if (ended_ && error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void Fiber::suspend() { switch_out(/*ending=*/false); }

}  // namespace quote_lab
