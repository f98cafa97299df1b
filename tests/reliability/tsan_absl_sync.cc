// ThreadSanitizer cannot see synchronization done inside Debian's abseil: libabsl_synchronization
// is not instrumented, so every field an absl::Mutex guards reads as a data race (and the
// conditions a Mutex evaluates for a waiter, on the unlocking thread, as another). Instead of
// suppressing reports on our own code, --config=tsan links every binary with these wrappers
// (-Wl,--wrap for each symbol, .bazelrc) that tell TSan what each call does: a lock acquires,
// an unlock releases, Await releases and reacquires, a Notification, Barrier or BlockingCounter
// releases on one side and acquires on the other, a Status's payload is released when dropped. The
// real abseil function does the work; TSan ignores the memory it touches (its own bookkeeping, and
// the waiters' conditions it runs under the lock).
//
// Only compiled under TSan; the symbols are abseil 20220623's as Debian builds it
// (inline namespace absl::debian3).
#include <sanitizer/tsan_interface.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "absl/synchronization/barrier.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/types/span.h"

namespace {

using absl::BlockingCounter;
using absl::Condition;
using absl::CondVar;
using absl::Duration;
using absl::Mutex;
using absl::Notification;
using absl::Time;

// Notification::HasBeenNotified (inline) passes the address of its flag, which follows the
// Mutex; the wrappers key a Notification by that address on every path.
const void* NotificationKey(const Notification* notification) {
  return reinterpret_cast<const char*>(notification) + sizeof(Mutex);
}
static_assert(sizeof(Notification) >= sizeof(Mutex) + sizeof(std::atomic<bool>));

void* Key(const void* address) { return const_cast<void*>(address); }

// Held around each use of abseil's random pool (below).
std::mutex random_pool_mutex;

// Around a call that releases `mu` and holds it again when it returns.
template <typename Call>
auto ReleasingAndReacquiring(Mutex* mu, unsigned read_flag, Call call) {
  __tsan_mutex_pre_unlock(mu, read_flag);
  __tsan_mutex_post_unlock(mu, read_flag);
  __tsan_mutex_pre_lock(mu, read_flag);
  auto result = call();
  __tsan_mutex_post_lock(mu, read_flag, 0);
  return result;
}

}  // namespace

#define REAL(symbol) __real_##symbol
#define WRAP(symbol) __wrap_##symbol

extern "C" {

// absl::Mutex::Lock / Unlock / TryLock / ReaderLock / ReaderUnlock
void REAL(_ZN4absl7debian35Mutex4LockEv)(Mutex*);
void WRAP(_ZN4absl7debian35Mutex4LockEv)(Mutex* mu) {
  __tsan_mutex_pre_lock(mu, 0);
  REAL(_ZN4absl7debian35Mutex4LockEv)(mu);
  __tsan_mutex_post_lock(mu, 0, 0);
}
void REAL(_ZN4absl7debian35Mutex6UnlockEv)(Mutex*);
void WRAP(_ZN4absl7debian35Mutex6UnlockEv)(Mutex* mu) {
  __tsan_mutex_pre_unlock(mu, 0);
  REAL(_ZN4absl7debian35Mutex6UnlockEv)(mu);
  __tsan_mutex_post_unlock(mu, 0);
}
bool REAL(_ZN4absl7debian35Mutex7TryLockEv)(Mutex*);
bool WRAP(_ZN4absl7debian35Mutex7TryLockEv)(Mutex* mu) {
  __tsan_mutex_pre_lock(mu, __tsan_mutex_try_lock);
  const bool locked = REAL(_ZN4absl7debian35Mutex7TryLockEv)(mu);
  __tsan_mutex_post_lock(mu, locked ? __tsan_mutex_try_lock : __tsan_mutex_try_lock_failed, 0);
  return locked;
}
void REAL(_ZN4absl7debian35Mutex10ReaderLockEv)(Mutex*);
void WRAP(_ZN4absl7debian35Mutex10ReaderLockEv)(Mutex* mu) {
  __tsan_mutex_pre_lock(mu, __tsan_mutex_read_lock);
  REAL(_ZN4absl7debian35Mutex10ReaderLockEv)(mu);
  __tsan_mutex_post_lock(mu, __tsan_mutex_read_lock, 0);
}
void REAL(_ZN4absl7debian35Mutex12ReaderUnlockEv)(Mutex*);
void WRAP(_ZN4absl7debian35Mutex12ReaderUnlockEv)(Mutex* mu) {
  __tsan_mutex_pre_unlock(mu, __tsan_mutex_read_lock);
  REAL(_ZN4absl7debian35Mutex12ReaderUnlockEv)(mu);
  __tsan_mutex_post_unlock(mu, __tsan_mutex_read_lock);
}

// absl::ReleasableMutexLock::Release is not inline: it unlocks inside abseil, out of the Unlock
// wrapper's sight (gRPC's event-engine ThreadPool releases its queue lock this way before running
// a callback; unannotated, TSan thought the worker still held it). Its only member is the Mutex*.
void REAL(_ZN4absl7debian319ReleasableMutexLock7ReleaseEv)(absl::ReleasableMutexLock*);
void WRAP(_ZN4absl7debian319ReleasableMutexLock7ReleaseEv)(absl::ReleasableMutexLock* lock) {
  static_assert(sizeof(absl::ReleasableMutexLock) == sizeof(Mutex*));
  Mutex* const mu = *reinterpret_cast<Mutex* const*>(lock);
  __tsan_mutex_pre_unlock(mu, 0);
  REAL(_ZN4absl7debian319ReleasableMutexLock7ReleaseEv)(lock);
  __tsan_mutex_post_unlock(mu, 0);
}

// absl::Mutex::Await / AwaitWithTimeout / AwaitWithDeadline (held on entry and on return) and
// LockWhen.
void REAL(_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE)(Mutex*, const Condition&);
void WRAP(_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE)(Mutex* mu, const Condition& cond) {
  ReleasingAndReacquiring(mu, 0, [&] {
    REAL(_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE)(mu, cond);
    return 0;
  });
}
bool REAL(_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE)(
    Mutex*, const Condition&, Duration);
bool WRAP(_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE)(
    Mutex* mu, const Condition& cond, Duration timeout) {
  return ReleasingAndReacquiring(mu, 0, [&] {
    return REAL(_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE)(mu, cond,
                                                                                          timeout);
  });
}
// AwaitWithDeadline too: server/availability_monitor's watchdog waits with it; unwrapped, TSan
// thought the watchdog still held the lock and reported the destructor's Lock as a double lock.
bool REAL(_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE)(Mutex*,
                                                                                 const Condition&,
                                                                                 Time);
bool WRAP(_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE)(
    Mutex* mu, const Condition& cond, Time deadline) {
  return ReleasingAndReacquiring(mu, 0, [&] {
    return REAL(_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE)(mu, cond,
                                                                                       deadline);
  });
}
void REAL(_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE)(Mutex*, const Condition&);
void WRAP(_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE)(Mutex* mu, const Condition& cond) {
  __tsan_mutex_pre_lock(mu, 0);
  REAL(_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE)(mu, cond);
  __tsan_mutex_post_lock(mu, 0, 0);
}

// absl::CondVar::Wait / WaitWithTimeout / WaitWithDeadline (gRPC's gpr_cv_wait) release and
// reacquire the Mutex they are given.
void REAL(_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE)(CondVar*, Mutex*);
void WRAP(_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE)(CondVar* cv, Mutex* mu) {
  ReleasingAndReacquiring(mu, 0, [&] {
    REAL(_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE)(cv, mu);
    return 0;
  });
}
bool REAL(_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE)(CondVar*, Mutex*,
                                                                                Duration);
bool WRAP(_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE)(CondVar* cv,
                                                                                Mutex* mu,
                                                                                Duration timeout) {
  return ReleasingAndReacquiring(mu, 0, [&] {
    return REAL(_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE)(cv, mu,
                                                                                      timeout);
  });
}

bool REAL(_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE)(CondVar*, Mutex*,
                                                                             Time);
bool WRAP(_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE)(CondVar* cv, Mutex* mu,
                                                                             Time deadline) {
  return ReleasingAndReacquiring(mu, 0, [&] {
    return REAL(_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE)(cv, mu,
                                                                                   deadline);
  });
}

// absl::Status's payload is reference counted, and the count drops inside Debian's abseil
// (Status::UnrefNonInlined), out of TSan's sight: a status copied to another thread and dropped
// on both read as a race between one thread's read and the other's delete. Each drop releases
// and then acquires on the payload, so the one that deletes it comes after every earlier holder.
void REAL(_ZN4absl7debian36Status15UnrefNonInlinedEm)(uintptr_t);
void WRAP(_ZN4absl7debian36Status15UnrefNonInlinedEm)(uintptr_t rep) {
  __tsan_release(reinterpret_cast<void*>(rep));
  __tsan_acquire(reinterpret_cast<void*>(rep));
  REAL(_ZN4absl7debian36Status15UnrefNonInlinedEm)(rep);
}

// absl::Notification: Notify releases, every way of seeing it notified acquires.
void REAL(_ZN4absl7debian312Notification6NotifyEv)(Notification*);
void WRAP(_ZN4absl7debian312Notification6NotifyEv)(Notification* n) {
  __tsan_release(Key(NotificationKey(n)));
  REAL(_ZN4absl7debian312Notification6NotifyEv)(n);
}
bool REAL(_ZN4absl7debian312Notification23HasBeenNotifiedInternalEPKSt6atomicIbE)(
    const std::atomic<bool>*);
bool WRAP(_ZN4absl7debian312Notification23HasBeenNotifiedInternalEPKSt6atomicIbE)(
    const std::atomic<bool>* flag) {
  const bool notified =
      REAL(_ZN4absl7debian312Notification23HasBeenNotifiedInternalEPKSt6atomicIbE)(flag);
  if (notified) __tsan_acquire(Key(flag));
  return notified;
}
void REAL(_ZNK4absl7debian312Notification19WaitForNotificationEv)(const Notification*);
void WRAP(_ZNK4absl7debian312Notification19WaitForNotificationEv)(const Notification* n) {
  REAL(_ZNK4absl7debian312Notification19WaitForNotificationEv)(n);
  __tsan_acquire(Key(NotificationKey(n)));
}
bool REAL(_ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE)(
    const Notification*, Duration);
bool WRAP(_ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE)(
    const Notification* n, Duration timeout) {
  const bool notified = REAL(
      _ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE)(n, timeout);
  if (notified) __tsan_acquire(Key(NotificationKey(n)));
  return notified;
}
bool REAL(_ZNK4absl7debian312Notification31WaitForNotificationWithDeadlineENS0_4TimeE)(
    const Notification*, Time);
bool WRAP(_ZNK4absl7debian312Notification31WaitForNotificationWithDeadlineENS0_4TimeE)(
    const Notification* n, Time deadline) {
  const bool notified = REAL(
      _ZNK4absl7debian312Notification31WaitForNotificationWithDeadlineENS0_4TimeE)(n, deadline);
  if (notified) __tsan_acquire(Key(NotificationKey(n)));
  return notified;
}

// absl::Barrier: everything before Block in any thread happens before Block returns in all.
bool REAL(_ZN4absl7debian37Barrier5BlockEv)(absl::Barrier*);
bool WRAP(_ZN4absl7debian37Barrier5BlockEv)(absl::Barrier* barrier) {
  __tsan_release(barrier);
  const bool last = REAL(_ZN4absl7debian37Barrier5BlockEv)(barrier);
  __tsan_acquire(barrier);
  return last;
}

// absl::BlockingCounter: each DecrementCount happens before Wait returns.
bool REAL(_ZN4absl7debian315BlockingCounter14DecrementCountEv)(BlockingCounter*);
bool WRAP(_ZN4absl7debian315BlockingCounter14DecrementCountEv)(BlockingCounter* counter) {
  __tsan_release(counter);
  return REAL(_ZN4absl7debian315BlockingCounter14DecrementCountEv)(counter);
}
void REAL(_ZN4absl7debian315BlockingCounter4WaitEv)(BlockingCounter*);
void WRAP(_ZN4absl7debian315BlockingCounter4WaitEv)(BlockingCounter* counter) {
  REAL(_ZN4absl7debian315BlockingCounter4WaitEv)(counter);
  __tsan_acquire(counter);
}

// absl::random_internal::RandenPool<uint8_t>::Fill: gRPC seeds each back-off's random generator
// from abseil's shared random pool, which Debian's abseil sets up on its first use (its own
// call_once) and guards with a spin lock per shard, none of which TSan sees; the pool's memory is
// allocated and copied through TSan's interceptors, so a thread reading the pool another had just
// set up read as a race (gRPC's DNS resolvers created on several threads at once, in
// //tests:decision_log_crash_test). Each call holds random_pool_mutex, which TSan knows: every
// use of the pool is ordered after its set-up and after the uses before it, as abseil's call_once
// and spin locks order them (more strictly: one thread at a time, not one per shard).
void REAL(_ZN4absl7debian315random_internal10RandenPoolIhE4FillENS0_4SpanIhEE)(absl::Span<uint8_t>);
void WRAP(_ZN4absl7debian315random_internal10RandenPoolIhE4FillENS0_4SpanIhEE)(
    absl::Span<uint8_t> data) {
  std::lock_guard<std::mutex> lock(random_pool_mutex);
  REAL(_ZN4absl7debian315random_internal10RandenPoolIhE4FillENS0_4SpanIhEE)(data);
}

}  // extern "C"
