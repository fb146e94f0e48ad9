// Status and Result<T>: the one shape a failure takes in this tree. A function
// that can fail returns a Status (ok, or an error: a kind and a message) or a
// Result<T> (a T, or a Status that is not ok); nothing throws. Whoever gets one
// owns it and decides what to do with the error: pass it up, log it, or answer
// a host with it. (leveldb's Status and absl's StatusOr are the models.)
// The kinds are the ones hosts see, and a few more that stay inside one
// program (proto::ErrorKind is this enum). Not mcpgw::Result of mcpgw.hpp, the
// public wrapper's answer to a host.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace mcpgw::base {

// What went wrong, as a caller decides on it. The first six are the kinds of
// BEHAVIOR.md §4: a host sees them by name on the wire ("invalid_request",
// ...), in this order (proto/proto.h maps them to codes and exit codes). The
// others stay inside one program; none of them is ever sent to a host as
// itself (proto::ErrorKindName reads one as "transport").
enum class ErrorKind : uint8_t {
  kInvalidRequest,  // a host's request is wrong: unknown name, bad parameter
  kNotReady,        // the server is loading or in error
  kBackend,         // the server answered with an error
  kTransport,       // the way to the server, or to the host, failed
  kDenied,          // the policy refused it
  kUnavailable,     // the daemon cannot be reached (clients only)
  kInvalidInput,    // a file, a setting, an argument or a document says what it must not
  kNotFound,        // a file or a record that is not there
  kIo,              // a system call failed
  kInternal,        // a bug: a state the code should never reach
};

// Whether hosts see `kind` by name (the six kinds of BEHAVIOR.md §4).
constexpr bool IsWireKind(ErrorKind kind) { return kind <= ErrorKind::kUnavailable; }
// "invalid_request", ..., "invalid_input", "not_found", "io", "internal".
std::string_view KindName(ErrorKind kind);

// Ok, or an error's kind and message. An ok Status is a null pointer: making,
// copying, moving and testing one never allocates; an error holds its kind and
// message in one allocation. The message is what a person reads (a host, the
// log, a terminal) and is never parsed.
class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(ErrorKind kind, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  bool ok() const { return rep_ == nullptr; }
  // The error's kind; kInternal for an ok Status (asking is a bug).
  ErrorKind kind() const;
  // The error's message; "" for an ok Status.
  const std::string& message() const;

  // The same error with `prefix` put before its message; an ok Status stays ok.
  Status Prefixed(std::string_view prefix) &&;

 private:
  struct Rep {
    ErrorKind kind;
    std::string message;
  };
  std::unique_ptr<Rep> rep_;
};

// Errors of the kinds that stay inside one program, for brevity at the many
// places that make them.
Status InvalidInput(std::string message);
Status NotFound(std::string message);
Status IoError(std::string message);
// "`what`: strerror(err)" as an IoError, or NotFound for ENOENT.
Status ErrnoError(std::string_view what, int err);

// Ends the program, saying which error's value was read.
[[noreturn]] void ValueOfError(const Status& status);

// A T, or a Status that is not ok. Built implicitly from either, so a
// function returning Result<T> says `return value;` or `return status;`.
// Reading the value of an error is a bug: the program ends there.
template <typename T>
class [[nodiscard]] Result {
 public:
  template <typename U = T, typename = std::enable_if_t<std::is_convertible_v<U&&, T> &&
                                                        !std::is_same_v<std::decay_t<U>, Status> &&
                                                        !std::is_same_v<std::decay_t<U>, Result>>>
  Result(U&& value) : value_(std::forward<U>(value)) {}
  Result(Status status) : status_(std::move(status)) {
    assert(!status_.ok() && "a Result needs a value or an error");
    if (status_.ok()) status_ = Status(ErrorKind::kInternal, "a result without a value");
  }

  bool ok() const { return status_.ok(); }
  // Ok when there is a value.
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }
  ErrorKind kind() const { return status_.kind(); }
  const std::string& message() const { return status_.message(); }

  T& value() & {
    Checked();
    return *value_;
  }
  const T& value() const& {
    Checked();
    return *value_;
  }
  T&& value() && {
    Checked();
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  // The value, or `fallback` for an error.
  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }
  template <typename U>
  T value_or(U&& fallback) && {
    return ok() ? std::move(*value_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  // Reading the value of an error is a bug: stop there rather than read
  // what is not there.
  void Checked() const {
    if (!value_.has_value()) ValueOfError(status_);
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace mcpgw::base
