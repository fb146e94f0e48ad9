// Status: the error's one allocation, its names and its helpers.
#include "base/status.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mcpgw::base {

std::string_view KindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidRequest:
      return "invalid_request";
    case ErrorKind::kNotReady:
      return "not_ready";
    case ErrorKind::kBackend:
      return "backend";
    case ErrorKind::kTransport:
      return "transport";
    case ErrorKind::kDenied:
      return "denied";
    case ErrorKind::kUnavailable:
      return "unavailable";
    case ErrorKind::kInvalidInput:
      return "invalid_input";
    case ErrorKind::kNotFound:
      return "not_found";
    case ErrorKind::kIo:
      return "io";
    case ErrorKind::kInternal:
      return "internal";
  }
  return "internal";
}

Status::Status(ErrorKind kind, std::string message)
    : rep_(std::make_unique<Rep>(Rep{kind, std::move(message)})) {}

Status::Status(const Status& other)
    : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  return *this;
}

ErrorKind Status::kind() const {
  assert(rep_ && "the kind of an ok status was asked");
  return rep_ ? rep_->kind : ErrorKind::kInternal;
}

const std::string& Status::message() const {
  static const std::string kNone;
  return rep_ ? rep_->message : kNone;
}

Status Status::Prefixed(std::string_view prefix) && {
  if (rep_) rep_->message.insert(0, prefix);
  return std::move(*this);
}

void ValueOfError(const Status& status) {
  // The kind only: a message may quote what a server or a file said.
  std::fprintf(stderr, "mcpgw: internal error: the value of an error (%s) was read\n",
               std::string(KindName(status.kind())).c_str());
  std::abort();
}

Status InvalidInput(std::string message) {
  return Status(ErrorKind::kInvalidInput, std::move(message));
}

Status NotFound(std::string message) { return Status(ErrorKind::kNotFound, std::move(message)); }

Status IoError(std::string message) { return Status(ErrorKind::kIo, std::move(message)); }

Status ErrnoError(std::string_view what, int err) {
  std::string message(what);
  message += ": ";
  message += std::strerror(err);
  return Status(err == ENOENT ? ErrorKind::kNotFound : ErrorKind::kIo, std::move(message));
}

}  // namespace mcpgw::base
