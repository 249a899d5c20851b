#pragma once
// A fiber: a function with a stack of its own that runs on the calling thread until it
// suspends itself, and goes on where it stopped when resumed. The simulation runs each quote,
// each carrier call and each hedge on one, all on one thread, so the lab's blocking code (the
// executor, the strategies, their waits) runs unchanged while the scheduler decides, in
// simulated time, who goes next: one interleaving per seed, the same every run.
//
// POSIX ucontext (glibc), with the fiber annotations AddressSanitizer and ThreadSanitizer
// document (sanitizer/common_interface_defs.h, sanitizer/tsan_interface.h), so both follow
// the switches. Without a sanitizer a fiber is entered with setcontext and then switched with
// _setjmp/_longjmp: swapcontext's signal mask costs a system call per switch. Not thread-safe: every fiber of a scheduler lives on its thread.

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>

namespace quote_lab {

class Fiber {
 public:
  /// Bytes of stack for each fiber: the executor, a strategy and a carrier call nest a few
  /// kilobytes deep; sanitizers multiply frames, so they get more. Untouched pages cost nothing.
  static std::size_t default_stack_bytes();

  /// A fiber that will run `body` when first resumed. Throws std::system_error if no stack
  /// can be mapped.
  explicit Fiber(std::function<void()> body, std::size_t stack_bytes = default_stack_bytes());
  /// Unmaps the stack. A fiber must have ended (or never started) before it is destroyed:
  /// a suspended one still owns objects on its stack.
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  /// Runs the fiber until it suspends or ends; from the scheduler's own context only. An
  /// exception `body` let out is rethrown here once it has ended.
  void resume();
  /// From inside the fiber: back to the resume() that ran it.
  void suspend();
  bool ended() const { return ended_; }
  /// It has run (and so may be suspended with objects on its stack).
  bool started() const { return started_; }
  /// Starts again with a new body on the same stack (the stack is reused, not remapped);
  /// only once ended.
  void reset(std::function<void()> body);

 private:
  struct Context;
  static void entry();
  void switch_in();
  void switch_out(bool ending);

  std::function<void()> body_;
  std::unique_ptr<Context> context_;
  void* stack_ = nullptr;
  std::size_t stack_bytes_ = 0;
  bool started_ = false;
  bool ended_ = false;
  std::exception_ptr error_;
};

}  // namespace quote_lab
