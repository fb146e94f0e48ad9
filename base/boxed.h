// Boxed<T>: an optional value kept on the heap, a pointer's size while
// empty. For what few records hold but every record has room for, in a
// daemon that keeps a record per configured server: a server's stored OAuth
// tokens (most have none), a local server's entry in a record that is most
// often a remote server's. Reads like std::optional; copies copy the value.
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace mcpgw::base {

template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const Boxed& other) : value_(other ? std::make_unique<T>(*other) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& other) {
    if (this != &other) value_ = other ? std::make_unique<T>(*other) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  ~Boxed() = default;

  explicit operator bool() const { return value_ != nullptr; }
  bool has_value() const { return value_ != nullptr; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return value_.get(); }
  const T* operator->() const { return value_.get(); }
  void reset() { value_.reset(); }

  Boxed& operator=(T value) {
    value_ = std::make_unique<T>(std::move(value));
    return *this;
  }
  Boxed& operator=(std::optional<T> value) {
    if (value) return *this = std::move(*value);
    value_.reset();
    return *this;
  }

  // Equal as two std::optional<T> would be: both empty, or equal values.
  friend bool operator==(const Boxed& a, const std::optional<T>& b) {
    return a ? b && *a == *b : !b;
  }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace mcpgw::base
